"""batchkeccak.arrow.hash_rows: the documented row encoding, rebuilt here from the spec."""

from __future__ import annotations

import datetime
import decimal
import functools
import hashlib
import itertools
import struct

import numpy as np
import pyarrow as pa
import pytest

import batchkeccak as bk
from batchkeccak.arrow import encode_rows, hash_rows

from oracles import oracle

pytestmark = pytest.mark.every_backend  # every oracle test on every backend policy
QUICK_RUN_POLICIES = ("kernels",)  # the quick run: forced kernels; the whole suite: every policy

EPOCH_DATE = datetime.date(1970, 1, 1)
EPOCH = datetime.datetime(1970, 1, 1, tzinfo=datetime.UTC)


def field(value_bytes):
    """One field of the encoding as docs/arrow.md states it."""
    if value_bytes is None:
        return b"\x00"
    return b"\x01" + len(value_bytes).to_bytes(8, "little") + value_bytes


def row_digest(fields, algorithm="sha3_256", length=None):
    return oracle(algorithm, b"".join(field(f) for f in fields), length)


def le_int(value, width, signed=True):
    return None if value is None else value.to_bytes(width, "little", signed=signed)


def test_encoding_of_every_fixed_width_type():
    ts = datetime.datetime(2024, 2, 29, 12, 30, 1, 250000, tzinfo=datetime.UTC)
    columns = {
        "i8": (pa.array([-1, None], pa.int8()), [le_int(-1, 1), None]),
        "i16": (pa.array([-300, 7], pa.int16()), [le_int(-300, 2), le_int(7, 2)]),
        "i32": (pa.array([2**31 - 1, None], pa.int32()), [le_int(2**31 - 1, 4), None]),
        "i64": (pa.array([-(2**63), 5], pa.int64()), [le_int(-(2**63), 8), le_int(5, 8)]),
        "u8": (pa.array([255, 0], pa.uint8()), [b"\xff", b"\x00"]),
        "u16": (pa.array([65535, 1], pa.uint16()), [b"\xff\xff", b"\x01\x00"]),
        "u32": (pa.array([1, None], pa.uint32()), [le_int(1, 4, False), None]),
        "u64": (pa.array([2**64 - 1, 2], pa.uint64()), [b"\xff" * 8, le_int(2, 8, False)]),
        "f16": (pa.array([1.5, None], pa.float16()), [struct.pack("<e", 1.5), None]),
        "f32": (
            pa.array([1.25, -0.0], pa.float32()),
            [struct.pack("<f", 1.25), struct.pack("<f", -0.0)],
        ),
        "f64": (pa.array([3.5, None]), [struct.pack("<d", 3.5), None]),
        "bool": (pa.array([True, False]), [b"\x01", b"\x00"]),
        "date32": (
            pa.array([datetime.date(2024, 2, 29), None], pa.date32()),
            [le_int((datetime.date(2024, 2, 29) - EPOCH_DATE).days, 4), None],
        ),
        "date64": (
            pa.array([datetime.date(1969, 12, 31), None], pa.date64()),
            [le_int(-86_400_000, 8), None],
        ),
        "ts_us_utc": (
            pa.array([ts, None], pa.timestamp("us", tz="UTC")),
            [le_int((ts - EPOCH) // datetime.timedelta(microseconds=1), 8), None],
        ),
        "ts_s": (
            pa.array([ts.replace(tzinfo=None, microsecond=0), None], pa.timestamp("s")),
            [le_int(int((ts - EPOCH).total_seconds()), 8), None],
        ),
        "time32": (pa.array([datetime.time(0, 1, 2), None], pa.time32("s")), [le_int(62, 4), None]),
        "time64": (
            pa.array([datetime.time(0, 0, 0, 5), None], pa.time64("ns")),
            [le_int(5000, 8), None],
        ),
        "duration": (
            pa.array([datetime.timedelta(seconds=-2), None], pa.duration("ms")),
            [le_int(-2000, 8), None],
        ),
        "dec128": (
            pa.array([decimal.Decimal("-1.23"), None], pa.decimal128(10, 2)),
            [le_int(-123, 16), None],
        ),
        "dec256": (
            pa.array([decimal.Decimal("12.5"), None], pa.decimal256(40, 1)),
            [le_int(125, 32), None],
        ),
    }
    table = pa.table({name: array for name, (array, _) in columns.items()})
    per_row = list(zip(*(encoded for _, encoded in columns.values())))
    result = hash_rows(table)
    assert isinstance(result, pa.ChunkedArray)
    assert result.to_pylist() == [row_digest(fields) for fields in per_row]


def test_encoding_of_binary_types_and_dictionaries():
    batch = pa.record_batch(
        {
            "s": pa.array(["é", None, ""], pa.string()),
            "ls": pa.array(["a", "b", None], pa.large_string()),
            "sv": pa.array(["long value past twelve", "", None], pa.string_view()),
            "b": pa.array([b"\x00", None, b""], pa.binary()),
            "fsb": pa.array([b"ab", b"cd", None], pa.binary(2)),
            "dict": pa.array(["x", None, "x"]).dictionary_encode(),
            "null": pa.nulls(3),
        }
    )
    rows = [
        ["é".encode(), b"a", b"long value past twelve", b"\x00", b"ab", b"x", None],
        [None, b"b", b"", None, b"cd", None, None],
        [b"", None, None, b"", None, b"x", None],
    ]
    result = hash_rows(batch, algorithm="keccak_256")
    assert isinstance(result, pa.Array)
    assert result.to_pylist() == [row_digest(r, "keccak_256") for r in rows]
    encoded = encode_rows(batch)
    for i, row in enumerate(rows):
        start, stop = encoded.offsets[i], encoded.offsets[i + 1]
        assert encoded.data[start:stop].tobytes() == b"".join(field(f) for f in row)


def test_encoded_rows_hash_as_one_message_per_row():
    """``hash_many(encode_rows(batch))`` is one digest per row: a plain ``(data, offsets)``
    tuple would be two messages, whatever the number of rows."""
    batch = pa.record_batch(
        {"s": pa.array(["ab", None, ""]), "n": pa.array([7, 8, None], pa.int32())}
    )
    rows = [[b"ab", le_int(7, 4)], [None, le_int(8, 4)], [b"", None]]
    encoded = encode_rows(batch)
    assert isinstance(encoded, bk.FlatMessages)
    for algorithm in ("sha3_256", "keccak_256"):
        digests = bk.hash_many(encoded, algorithm)
        assert digests.shape == (3, 32)
        assert [d.tobytes() for d in digests] == [row_digest(r, algorithm) for r in rows]
    assert [d.tobytes() for d in bk.hash_many(encoded)] == [
        hashlib.sha3_256(b"".join(field(f) for f in r)).digest() for r in rows
    ]


@pytest.mark.parametrize("seed", range(6))
def test_encoding_of_random_columns_and_slices(seed):
    """Values of 0 to 40 bytes (short ones, whole words, a word and a tail), numbers of every
    width and nulls, side by side and sliced at any row (validity bits then start mid-byte):
    every row's bytes as the spec builds them, the next row's first field intact."""
    import random

    rng = random.Random(seed)
    count = rng.randrange(1, 300)

    def maybe(value):
        return None if rng.random() < 0.2 else value

    binary = [maybe(rng.randbytes(rng.randrange(41))) for _ in range(count)]
    text = [
        maybe("".join(rng.choice("aé€x") for _ in range(rng.randrange(12)))) for _ in range(count)
    ]
    int16 = [maybe(rng.randrange(-(2**15), 2**15)) for _ in range(count)]
    int64 = [maybe(rng.randrange(-(2**63), 2**63)) for _ in range(count)]
    flags = [maybe(rng.random() < 0.5) for _ in range(count)]
    batch = pa.record_batch(
        {
            "binary": pa.array(binary, pa.binary()),
            "text": pa.array(text, pa.large_string()),
            "int16": pa.array(int16, pa.int16()),
            "int64": pa.array(int64, pa.int64()),
            "flags": pa.array(flags, pa.bool_()),
            "tail": pa.array([maybe(rng.randbytes(13)) for _ in range(count)], pa.binary(13)),
        }
    )
    start = rng.randrange(count)
    stop = rng.randrange(start, count + 1)
    sliced = batch.slice(start, stop - start)
    expected = []
    for row in range(start, stop):
        fields = [
            binary[row],
            None if text[row] is None else text[row].encode(),
            le_int(int16[row], 2),
            le_int(int64[row], 8),
            None if flags[row] is None else bytes([flags[row]]),
            sliced.column("tail")[row - start].as_py(),
        ]
        expected.append(b"".join(field(f) for f in fields))
    encoded = encode_rows(sliced)
    assert encoded.offsets.tolist() == [0, *itertools.accumulate(map(len, expected))]
    assert encoded.data.tobytes() == b"".join(expected)


def test_dictionary_entries_that_are_null_encode_as_null_in_any_slice():
    # Arrow counts only null indices as nulls; an index pointing at a null entry is one too.
    indices = pa.array([0, 1, None, 0, 1] * 5, pa.int32())
    column = pa.DictionaryArray.from_arrays(indices, pa.array(["a", None]))
    for part in (column, column.slice(3), column.slice(7, 9)):
        values = part.to_pylist()
        encoded = encode_rows(pa.record_batch({"d": part}))
        rows = [
            encoded.data[encoded.offsets[i] : encoded.offsets[i + 1]].tobytes()
            for i in range(len(part))
        ]
        assert rows == [field(None if v is None else v.encode()) for v in values]
        assert values.count(None) > part.null_count  # the case this test is about


def _kmac128(message, key=b"sixteen-byte key"):
    from Crypto.Hash import KMAC128

    return KMAC128.new(key=key, mac_len=32).update(message).digest()


@pytest.mark.parametrize("threads", [1, 3])
@pytest.mark.parametrize(
    "algorithm, params, reference",
    [
        ("sha3_256", {}, lambda m: hashlib.sha3_256(m).digest()),
        ("shake_128", {"length": 20}, lambda m: hashlib.shake_128(m).digest(20)),
        ("kmac128", {"key": b"sixteen-byte key", "length": 32}, _kmac128),
    ],
)
def test_rows_of_several_encoding_blocks_on_threads(threads, algorithm, params, reference):
    """More rows than one block of ``ENCODED_ROWS``, over one thread and several, with a
    fixed-length hash, an XOF and a keyed mode: every digest where its row is, as the spec's
    encoding hashed by hashlib or pycryptodome gives it."""
    table, rows = _several_encoding_blocks()
    if algorithm not in _EXPECTED:  # the same for every thread count and backend policy
        _EXPECTED[algorithm] = [reference(row) for row in rows]
    got = hash_rows(table, algorithm=algorithm, threads=threads, **params).to_pylist()
    assert got == _EXPECTED[algorithm]


_EXPECTED: dict[str, list[bytes]] = {}
"""The oracle's digests of :func:`_several_encoding_blocks`' rows, by algorithm."""


@functools.cache
def _several_encoding_blocks() -> tuple[pa.Table, list[bytes]]:
    """A table of more rows than one block of ``ENCODED_ROWS``, and each row's encoding as
    the spec writes it."""
    from batchkeccak.arrow import ENCODED_ROWS

    count = 2 * ENCODED_ROWS + 5
    names = [None if i % 7 == 0 else "n" * (i % 23) for i in range(count)]
    numbers = [None if i % 5 == 0 else i * 7919 for i in range(count)]
    table = pa.table({"name": names, "number": pa.array(numbers, pa.int64())})
    rows = [
        field(None if name is None else name.encode()) + field(le_int(number, 8))
        for name, number in zip(names, numbers)
    ]
    return table, rows


def test_row_encoding_kernel_checks_every_buffer_it_reads():
    # pyarrow refuses to build an array whose buffers are too short, but the kernel checks
    # what it reads itself, measuring and writing: no access outside an array, whatever it
    # is given.
    from batchkeccak._kernels import encode_field

    no_bits, no_offsets = np.empty(0, np.uint8), np.empty(0, np.int64)
    data = np.arange(16, dtype=np.uint8)
    offsets = np.array([0, 8, 16], np.int64)
    lengths = np.zeros(2, np.int64)
    assert encode_field(no_bits, lengths, no_bits, 0, data, offsets, 0, False)
    assert lengths.tolist() == [17, 17]
    encoded = np.zeros(34, np.uint8)
    positions = np.array([0, 17], np.int64)
    assert encode_field(encoded, positions, no_bits, 0, data, offsets, 0, True)
    assert encoded.tobytes() == field(data[:8].tobytes()) + field(data[8:].tobytes())
    cases = [
        (data[:15], offsets, 0, 2),  # the last value ends past the data
        (data, np.array([0, 8], np.int64), 0, 2),  # too few offsets for the rows
        (data, np.array([0, 9, 8], np.int64), 0, 2),  # a value of negative size
        (data[:15], no_offsets, 8, 2),  # fixed width: two 8-byte values need 16 bytes
    ]
    for data_case, offsets_case, width, rows in cases:
        lengths = np.zeros(rows, np.int64)
        assert not encode_field(no_bits, lengths, no_bits, 0, data_case, offsets_case, width, False)
        positions = np.array([0, 17], np.int64)
        assert not encode_field(
            encoded, positions, no_bits, 0, data_case, offsets_case, width, True
        )
    one_byte_bitmap = np.zeros(1, np.uint8)  # validity of 8 rows, not 9
    for write in (False, True):
        positions = np.arange(9, dtype=np.int64)
        assert not encode_field(encoded, positions, one_byte_bitmap, 0, data, no_offsets, 1, write)
    a_byte_short = np.zeros(33, np.uint8)
    positions = np.array([0, 17], np.int64)
    assert not encode_field(a_byte_short, positions, no_bits, 0, data, offsets, 0, True)


def plain(row):
    return "".join(v or "" for v in row)


def comma_separated(row):
    return ",".join(v or "" for v in row)


CLASSIC_COLLISIONS = [
    (("ab", "c"), ("a", "bc"), plain),
    (("a,b", "c"), ("a", "b,c"), comma_separated),  # the separator also occurs in the data
    (("", None), (None, ""), plain),  # null written as empty
    ((None, None), ("", ""), comma_separated),
    (("a", None), (None, "a"), plain),
    (("a", ""), ("", "a"), plain),
]


@pytest.mark.parametrize("first,second,naive", CLASSIC_COLLISIONS)
def test_classic_concatenation_collisions_do_not_happen(first, second, naive):
    assert naive(first) == naive(second)  # the pair does collide under the naive encoding
    table = pa.table({"x": [first[0], second[0]], "y": [first[1], second[1]]})
    digests = hash_rows(table).to_pylist()
    assert digests[0] != digests[1]
    assert digests == [
        row_digest([None if v is None else v.encode() for v in row]) for row in (first, second)
    ]


def test_null_is_not_empty_and_column_order_matters():
    table = pa.table({"a": ["x", None, ""], "b": ["y", "", None]})
    forward = hash_rows(table, ["a", "b"]).to_pylist()
    backward = hash_rows(table, ["b", "a"]).to_pylist()
    assert forward[0] != backward[0]
    assert forward[1] == backward[2] and forward[1] != forward[2]
    single = hash_rows(table, "a").to_pylist()
    assert single[1] != single[2]


def test_table_chunking_and_slices():
    table = pa.Table.from_batches(
        [
            pa.record_batch({"a": [1, 2, 3], "s": ["p", None, "q"]}),
            pa.record_batch({"a": [None, 5], "s": ["r", "s"]}),
        ]
    )
    rechunked = pa.table(
        {"a": table["a"].combine_chunks(), "s": pa.chunked_array([["p"], [None, "q", "r"], ["s"]])}
    )
    whole = hash_rows(table, hex=True)
    assert [len(c) for c in whole.chunks] == [3, 2]
    assert hash_rows(rechunked, hex=True).to_pylist() == whole.to_pylist()
    assert hash_rows(table.slice(1, 3), hex=True).to_pylist() == whole.to_pylist()[1:4]
    bools = pa.table({"b": [True, None, False, True, True, False, None, True, False, True]})
    sliced = hash_rows(bools.slice(3)).to_pylist()
    expected = [row_digest([None if v is None else bytes([v])]) for v in bools["b"].to_pylist()[3:]]
    assert sliced == expected


def test_xof_length_and_hex():
    batch = pa.record_batch({"a": [b"x"]})
    assert hash_rows(batch, algorithm="shake_256", length=20).type == pa.binary(20)
    assert hash_rows(batch, algorithm="turboshake128", length=8, hex=True).to_pylist() == [
        row_digest([b"x"], "turboshake128", 8).hex()
    ]


def test_empty_table():
    table = pa.table({"a": pa.array([], pa.int64())})
    assert len(hash_rows(table)) == 0


@pytest.mark.parametrize(
    "column",
    [
        pa.array([[]], pa.list_(pa.month_day_nano_interval())),
        pa.array(
            [{"x": 1, "y": None}], pa.struct({"x": pa.int8(), "y": pa.month_day_nano_interval()})
        ),
        pa.array([[]], pa.map_(pa.binary(), pa.month_day_nano_interval())),
        pa.array(
            [pa.scalar((1, 2, 3), pa.month_day_nano_interval()).as_py()],
            pa.month_day_nano_interval(),
        ),
    ],
    ids=["list", "struct", "map", "interval"],
)
def test_unsupported_types_raise_type_error(column):
    table = pa.table({"ok": [1], "bad": column})
    with pytest.raises(TypeError, match=rf"column 'bad' has type {column.type}"):
        hash_rows(table)
    assert len(hash_rows(table, ["ok"])) == 1


def test_bad_column_selection():
    table = pa.table({"a": [1], "b": [2]})
    with pytest.raises(ValueError, match="no column named 'c'"):
        hash_rows(table, ["a", "c"])
    with pytest.raises(ValueError, match="at least one"):
        hash_rows(table, [])
    duplicated = pa.Table.from_arrays([pa.array([1]), pa.array([2])], names=["a", "a"])
    with pytest.raises(ValueError, match="2 columns named 'a'"):
        hash_rows(duplicated)
    with pytest.raises(TypeError, match="a pyarrow Table, RecordBatch or RecordBatchReader"):
        hash_rows({"a": [1]})


def test_encoding_of_field_lengths_around_one_length_byte():
    """Lengths of one byte, two bytes and three: every byte of the 8-byte length written."""
    sizes = [0, 1, 7, 8, 9, 255, 256, 257, 65535, 65536]
    values = [bytes(range(7, 7 + min(size, 200))) * (size // 200 + 1) for size in sizes]
    values = [value[:size] for value, size in zip(values, sizes)]
    batch = pa.record_batch(
        {"b": pa.array(values, pa.binary()), "n": pa.array(range(len(sizes)), pa.int64())}
    )
    encoded = encode_rows(batch)
    for row, value in enumerate(values):
        start, stop = encoded.offsets[row], encoded.offsets[row + 1]
        assert encoded.data[start:stop].tobytes() == field(value) + field(le_int(row, 8))
