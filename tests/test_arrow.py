"""batchkeccak.arrow.hash_array and binary_buffers against per-value oracles."""

from __future__ import annotations

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
import pytest
from arrow_helpers import VARIABLE_TYPES
from hypothesis import given
from hypothesis import strategies as st

import batchkeccak as bk
from batchkeccak import arrow
from batchkeccak.arrow import binary_buffers, hash_array
from batchkeccak.core.executor import Executor
from batchkeccak.core.hashers import Hasher

from oracles import ALL_ALGORITHMS, XOFS, oracle

pytestmark = pytest.mark.every_backend  # every oracle test on every backend policy

# Empty, short (inline in a view), exactly one SHA3-256 block, several blocks, non-ASCII.
TEXTS = ["", "a", "abc", None, "x" * 135, "y" * 136, "z" * 137, None, "é€😀", "q" * 300, "", "tail"]


def expected(values, algorithm="sha3_256", length=None, hex=False):
    """Per-value oracle digests of Python values, None for None."""
    result = []
    for value in values:
        if value is None:
            result.append(None)
            continue
        message = value.encode("utf-8") if isinstance(value, str) else bytes(value)
        digest = oracle(algorithm, message, length)
        result.append(digest.hex() if hex else digest)
    return result


def values_for(arrow_type):
    if (
        pa.types.is_string(arrow_type)
        or pa.types.is_large_string(arrow_type)
        or (pa.types.is_string_view(arrow_type))
    ):
        return TEXTS
    return [None if t is None else t.encode("utf-8") for t in TEXTS]


@pytest.mark.aarch64
@pytest.mark.parametrize("arrow_type", VARIABLE_TYPES, ids=str)
def test_every_variable_width_type_matches_oracle(arrow_type):
    values = values_for(arrow_type)
    result = hash_array(pa.array(values, type=arrow_type))
    assert result.type == pa.binary(32)
    assert result.to_pylist() == expected(values)


@pytest.mark.parametrize("arrow_type", VARIABLE_TYPES + [pa.binary(3)], ids=str)
@pytest.mark.parametrize("start", [1, 3, 8, 9])
def test_slices_respect_array_offset_and_validity_bits(arrow_type, start):
    if pa.types.is_fixed_size_binary(arrow_type):
        values = [None if i % 4 == 1 else bytes([i, i + 1, i + 2]) for i in range(12)]
    else:
        values = values_for(arrow_type)
    array = pa.array(values, type=arrow_type).slice(start, 7)
    assert array.offset == start
    result = hash_array(array, "keccak_256")
    assert result.to_pylist() == expected(values[start : start + 7], "keccak_256")
    assert result.null_count == sum(v is None for v in values[start : start + 7])


def test_fixed_size_binary():
    values = [b"\x00" * 20, None, bytes(range(20)), b"\xff" * 20]
    result = hash_array(pa.array(values, type=pa.binary(20)), "sha3_512")
    assert result.to_pylist() == expected(values, "sha3_512")


@pytest.mark.aarch64
@pytest.mark.parametrize("algorithm", ALL_ALGORITHMS)
def test_every_algorithm(algorithm):
    length = 77 if algorithm in XOFS else None
    values = [b"", b"abc", None, b"\x01" * 170, b"\x02" * 400]
    result = hash_array(pa.array(values), algorithm, length=length)
    width = length or len(oracle(algorithm, b""))
    assert result.type == pa.binary(width)
    assert result.to_pylist() == expected(values, algorithm, length)


def test_hex_output_is_lowercase_string():
    values = ["abc", None, ""]
    result = hash_array(pa.array(values), "shake_256", length=5, hex=True)
    assert result.type == pa.string()
    assert result.to_pylist() == expected(values, "shake_256", 5, hex=True)
    assert result.to_pylist()[0] == result.to_pylist()[0].lower()


def test_hex_chunked():
    chunked = pa.chunked_array([["a", None], [], ["b"]])
    result = hash_array(chunked, hex=True)
    assert result.type == pa.string()
    assert [len(c) for c in result.chunks] == [2, 0, 1]
    assert result.to_pylist() == expected(["a", None, "b"], hex=True)


def test_hex_refuses_a_single_array_over_the_string_limit(monkeypatch):
    monkeypatch.setattr(arrow, "_MAX_STRING_BYTES", 100)
    with pytest.raises(ValueError, match="2 GiB"):
        hash_array(pa.array([b"a", b"b"]), hex=True)


def test_chunked_array_keeps_chunking_including_empty_chunks():
    chunks = [[], [b"a", None], [], [b"bc"], [], [None, None, b""]]
    chunked = pa.chunked_array(chunks, type=pa.large_binary())
    result = hash_array(chunked, "keccak_256")
    assert isinstance(result, pa.ChunkedArray)
    assert [len(c) for c in result.chunks] == [len(c) for c in chunks]
    assert result.to_pylist() == expected([v for c in chunks for v in c], "keccak_256")


def test_chunked_array_without_chunks():
    result = hash_array(pa.chunked_array([], type=pa.string()))
    assert isinstance(result, pa.ChunkedArray)
    assert result.num_chunks == 0 and result.type == pa.binary(32)


@pytest.mark.parametrize("arrow_type", VARIABLE_TYPES + [pa.binary(4)], ids=str)
def test_empty_array(arrow_type):
    result = hash_array(pa.array([], type=arrow_type), "shake_128", length=16)
    assert len(result) == 0 and result.type == pa.binary(16)


@pytest.mark.parametrize("arrow_type", VARIABLE_TYPES + [pa.binary(4)], ids=str)
def test_all_null_array(arrow_type):
    result = hash_array(pa.nulls(5, type=arrow_type), hex=True)
    assert result.to_pylist() == [None] * 5
    assert result.null_count == 5


def test_empty_value_hashes_like_any_other():
    result = hash_array(pa.array([b""]))
    assert result.to_pylist() == [oracle("sha3_256", b"")]


@pytest.mark.parametrize("value_type", [pa.string(), pa.large_binary(), pa.string_view()], ids=str)
def test_dictionary_array(value_type):
    values = ["red", None, "green", "red", "", "green", None, "red"]
    if not pa.types.is_string(value_type) and not pa.types.is_string_view(value_type):
        values = [None if v is None else v.encode() for v in values]
    dictionary_array = pa.array(values, type=value_type).dictionary_encode()
    assert pa.types.is_dictionary(dictionary_array.type)
    result = hash_array(dictionary_array, "keccak_256")
    assert result.type == pa.binary(32)
    assert result.to_pylist() == expected(values, "keccak_256")
    sliced = hash_array(dictionary_array.slice(3, 4), "keccak_256")
    assert sliced.to_pylist() == expected(values[3:7], "keccak_256")


def test_dictionary_hashes_each_distinct_value_once(monkeypatch):
    hashed_counts = []
    real_hash_flat = Hasher.hash_flat

    def counting_hash_flat(self, data, offsets, *args, **kwargs):
        hashed_counts.append(offsets.shape[0] - 1)
        return real_hash_flat(self, data, offsets, *args, **kwargs)

    monkeypatch.setattr(Hasher, "hash_flat", counting_hash_flat)
    indices = pa.array([0, 1, 1, 0, None, 1] * 10, type=pa.int8())
    dictionary_array = pa.DictionaryArray.from_arrays(indices, pa.array(["a", "b"]))
    result = hash_array(dictionary_array)
    assert hashed_counts == [2]
    assert result.to_pylist() == expected(["a", "b", "b", "a", None, "b"] * 10)


def test_dictionary_slice_of_large_dictionary_and_null_entries():
    dictionary = pa.array([f"v{i}" for i in range(50)] + [None])
    indices = pa.array([3, 50, None, 49, 3], type=pa.int32())
    dictionary_array = pa.DictionaryArray.from_arrays(indices, dictionary)
    full = ["v3", None, None, "v49", "v3"]
    assert hash_array(dictionary_array).to_pylist() == expected(full)
    # Fewer rows than dictionary entries: decoded first, same digests.
    assert hash_array(dictionary_array.slice(1, 3)).to_pylist() == expected(full[1:4])
    assert hash_array(dictionary_array).null_count == 2


def test_chunked_dictionaries_with_different_dictionaries():
    first = pa.array(["a", "b", "a"]).dictionary_encode()
    second = pa.array(["c", None, "a"]).dictionary_encode()
    result = hash_array(pa.chunked_array([first, second]), hex=True)
    assert result.to_pylist() == expected(["a", "b", "a", "c", None, "a"], hex=True)


@pytest.mark.kernels_only
@pytest.mark.parametrize("algorithm", ["sha3_256", "keccak_512", "shake_128", "turboshake128"])
@pytest.mark.parametrize("arrow_type", [pa.binary(), pa.large_string()], ids=str)
def test_one_kernel_call_per_chunk_equal_and_varied_lengths(algorithm, arrow_type):
    # A plain binary or string chunk goes to the kernel in one call, its Arrow offsets read
    # in place: equal single-block values (whole tiles, then a short tail), varied ones (the
    # lane queue), slices of both, nulls among them, and output longer than one block.
    length = 200 if algorithm in XOFS else None
    W = 32
    rng = np.random.default_rng(7)
    equal = [rng.bytes(23) for _ in range(3 * W + 5)]
    varied = [rng.bytes(int(n)) for n in rng.integers(0, 300, size=2 * W + 3)]
    calls = []
    real = Executor.hash_in_one_call

    def counting(self, *args):
        calls.append(real(self, *args))
        return calls[-1]

    # Before the kernels are loaded, a batch goes the batch path (which loads them), so that
    # the dispatcher keeps its account: load them first.
    bk.warmup()
    for values in (equal, varied, [v if i % 5 else None for i, v in enumerate(equal)]):
        if pa.types.is_large_string(arrow_type):
            values = [None if v is None else v.hex() for v in values]
        array = pa.array(values, type=arrow_type)
        for chunk in (array, array.slice(3), array.slice(1, W)):
            with pytest.MonkeyPatch.context() as patch:
                patch.setattr(Executor, "hash_in_one_call", counting)
                got = hash_array(chunk, algorithm, length=length, threads=1)
            assert calls.pop() is True
            assert got.to_pylist() == expected(chunk.to_pylist(), algorithm, length)


def test_one_kernel_call_declines_for_modes_that_hash_twice_or_as_trees():
    values = pa.array(["a", None, "bc"] * 20)
    for name, params in [
        ("hmac_sha3_256", {"key": b"k"}),
        ("kt128", {"length": 32}),
    ]:
        resolved = bk.hasher(name, threads=1, **params)
        data, offsets = binary_buffers(values.drop_null())
        out = np.empty((len(offsets) - 1, resolved.output_length), np.uint8)
        assert resolved.executor.hash_in_one_call(resolved.one_call, data, offsets, out) is False
        want = [
            None
            if v is None
            else resolved.hash_flat(
                np.frombuffer(v.encode(), np.uint8), np.array([0, len(v)], np.int64)
            )[0].tobytes()
            for v in values.to_pylist()
        ]
        assert hash_array(values, resolved).to_pylist() == want


@pytest.mark.kernels_only
def test_one_kernel_call_takes_a_customized_sponge():
    # cSHAKE only starts from another state: the kernels take it in one call. (Small work of
    # it goes to pycryptodome on the other policies, and then no kernel is called at all.)
    values = pa.array(["a", None, "bc"] * 20)
    customized = bk.hasher("cshake_128", length=16, customization=b"c", threads=1)
    data, offsets = binary_buffers(values.drop_null())
    out = np.empty((len(offsets) - 1, 16), np.uint8)
    assert customized.executor.hash_in_one_call(customized.one_call, data, offsets, out) is True
    assert out.tolist() == customized.hash_flat(data, offsets).tolist()


@pytest.mark.kernels_only
def test_one_kernel_call_takes_the_framed_modes():
    # KMAC and TupleHash frame each message the same way: the one call takes them, equal
    # short rows with the framing in the start state, any other batch through hash_flat.
    values = pa.array(["a", None, "bc"] * 20 + ["de"] * 40)
    for name, params in [
        ("kmac_256", {"key": b"k", "length": 32}),
        ("tuplehash_128", {"length": 32}),
    ]:
        resolved = bk.hasher(name, threads=1, **params)
        for chunk in (values.drop_null(), values.drop_null().slice(60)):
            data, offsets = binary_buffers(chunk)
            out = np.empty((len(offsets) - 1, 32), np.uint8)
            assert resolved.executor.hash_in_one_call(resolved.one_call, data, offsets, out)
            assert out.tolist() == resolved.hash_flat(data, offsets).tolist()


def test_as_binary_keeps_bytes_nulls_and_slices():
    digests = hash_array(pa.array(TEXTS), "sha3_256")
    for column in (digests, digests.slice(3), digests.slice(1, 5)):
        binary = arrow.as_binary(column)
        assert binary.type == pa.binary()
        assert binary.to_pylist() == column.to_pylist()
        assert binary.null_count == column.null_count


def test_large_binary_offsets_beyond_2_gib():
    # A 2 GiB + 1 KiB buffer of zero pages: only the pages written here are ever touched,
    # and slicing off the first value means only the small values past 2**31 are hashed.
    base = 2**31
    data = np.zeros(base + 1024, dtype=np.uint8)
    straddling = bytes(range(16))
    after = bytes(i % 251 for i in range(300))
    data[base - 8 : base + 8] = np.frombuffer(straddling, dtype=np.uint8)
    data[base + 100 : base + 400] = np.frombuffer(after, dtype=np.uint8)
    offsets = np.array([0, base - 8, base + 8, base + 100, base + 400], dtype=np.int64)
    array = pa.Array.from_buffers(
        pa.large_binary(), 4, [None, pa.py_buffer(offsets), pa.py_buffer(data)]
    ).slice(1)
    result = hash_array(array, "keccak_256")
    assert result.to_pylist() == expected(
        [straddling, data[base + 8 : base + 100], after], "keccak_256"
    )


def test_binary_buffers_reads_arrow_memory_in_place():
    array = pa.array([b"first", b"second", b"third"], type=pa.large_binary()).slice(1)
    data, offsets = binary_buffers(array)
    assert data.ctypes.data == array.buffers()[2].address
    assert not data.flags.writeable and offsets.dtype == np.int64
    assert [data[offsets[i] : offsets[i + 1]].tobytes() for i in range(2)] == [b"second", b"third"]


def test_hash_many_reads_pyarrow_input():
    values = ["abc", "", "x" * 200]
    assert [d.tobytes() for d in bk.hash_many(pa.array(values))] == expected(values)
    chunked = pa.chunked_array([["abc"], [], [""], ["x" * 200]], type=pa.string_view())
    assert [d.tobytes() for d in bk.hash_many(chunked)] == expected(values)
    dictionary_array = pa.array(values * 2).dictionary_encode()
    assert [d.tobytes() for d in bk.hash_many(dictionary_array)] == expected(values * 2)


def test_hash_many_refuses_nulls_naming_the_argument():
    with pytest.raises(ValueError, match=r"messages holds 1 null.*hash_array"):
        bk.hash_many(pa.array([b"a", None]))
    # A null dictionary entry behind a valid index is a null too.
    indices = pa.array([0, 1], pa.int8())
    dictionary_array = pa.DictionaryArray.from_arrays(indices, pa.array(["a", None]))
    assert dictionary_array.null_count == 0
    with pytest.raises(ValueError, match="messages holds 1 null"):
        bk.hash_many(dictionary_array)


@pytest.mark.parametrize(
    "bad",
    [
        pa.array([1, 2, 3]),
        pa.array([[b"a"]]),
        pa.array([{"x": b"a"}]),
        pa.chunked_array([[1.5]]),
        pa.array([1, 2]).dictionary_encode(),
    ],
    ids=["int64", "list", "struct", "chunked-double", "dictionary-int64"],
)
def test_other_types_raise_type_error_naming_the_type(bad):
    with pytest.raises(TypeError, match=rf"has type {bad.type}.*fixed_size_binary"):
        hash_array(bad)
    with pytest.raises(TypeError, match="messages has type"):
        bk.hash_many(bad)


def test_extension_type_message_points_at_storage():
    uuids = pa.ExtensionArray.from_storage(pa.uuid(), pa.array([b"\x00" * 16], pa.binary(16)))
    with pytest.raises(TypeError, match="storage"):
        hash_array(uuids)
    assert hash_array(uuids.storage).to_pylist() == expected([b"\x00" * 16])


def test_non_arrow_input_raises_type_error():
    with pytest.raises(TypeError, match="got list"):
        hash_array([b"abc"])


def test_length_rules_follow_hash_many():
    with pytest.raises(TypeError, match="length is required"):
        hash_array(pa.array([b"a"]), "shake_128")
    with pytest.raises(TypeError, match="length applies only"):
        hash_array(pa.array([b"a"]), "sha3_256", length=10)
    with pytest.raises(ValueError, match="unknown algorithm"):
        hash_array(pa.array([b"a"]), "md5")


def test_arrow_capsule_objects_are_read_through_the_interface():
    class StreamOnly:
        def __init__(self, chunked):
            self._chunked = chunked

        def __arrow_c_stream__(self, requested_schema=None):
            return self._chunked.__arrow_c_stream__(requested_schema)

    chunked = pa.chunked_array([["a", None], ["b"]])
    result = hash_array(StreamOnly(chunked))
    assert isinstance(result, pa.ChunkedArray)
    assert result.to_pylist() == expected(["a", None, "b"])


def test_single_thread_equals_all_threads():
    values = [bytes([i % 251]) * (i % 700) for i in range(3000)]
    array = pa.array(values)
    assert hash_array(array, threads=1).equals(hash_array(array))
    assert hash_array(array).to_pylist()[:50] == expected(values[:50])


def test_null_digest_slots_are_zeroed():
    # Null slots of a fixed_size_binary input hold real bytes; their digests must not leak out.
    array = pa.array([b"abc", None], type=pa.binary(3))
    result = hash_array(array)
    assert result.buffers()[1].to_pybytes()[32:] == bytes(32)


@given(
    values=st.lists(st.one_of(st.none(), st.binary(max_size=300)), max_size=40),
    start=st.integers(0, 40),
    stop=st.integers(0, 40),
)
def test_random_slices_match_oracle(values, start, stop):
    sliced = pa.array(values, type=pa.binary()).slice(start, max(0, stop - start))
    expect = expected(values[start:stop] if stop > start else [], "keccak_256")
    assert hash_array(sliced, "keccak_256").to_pylist() == expect


def test_cast_from_string_is_not_needed_but_equal():
    strings = pa.array(["abc", None])
    assert hash_array(strings).equals(hash_array(pc.cast(strings, pa.binary())))


# ---------------------------------------------------------------------------------------------
# One key per row


def _keyed_oracle(bits, keys, values, length, custom=b""):
    """pycryptodome's KMAC of each row under its own key; None for a null row."""
    from Crypto.Hash import KMAC128, KMAC256

    module = KMAC128 if bits == 128 else KMAC256
    out = []
    for key, value in zip(keys, values, strict=True):
        if value is None:
            out.append(None)
            continue
        data = value.encode() if isinstance(value, str) else value
        out.append(module.new(key=key, data=data, mac_len=length, custom=custom).digest())
    return out


def _row_keys(count, seed=0):
    rng = np.random.default_rng(seed)
    # pycryptodome takes KMAC keys of at least 32 bytes; one block (168, 136) is crossed.
    return [rng.bytes(int(n)) for n in rng.integers(32, 200, size=count)]


def _per_row_columns():
    """(label, column, its rows as Python values): dictionaries, chunks, slices and nulls."""
    plain = pa.array([b"a", b"b", b"a", None, b"", b"c" * 300, b"b"], pa.binary())
    dictionary = pa.array([b"a", b"b", b"a"]).dictionary_encode()
    null_entry = pa.DictionaryArray.from_arrays(
        pa.array([0, 1, None, 0, 2], pa.int32()), pa.array([b"x", None, b"y"])
    )
    big_dictionary = pa.array([bytes([i % 7]) for i in range(50)]).dictionary_encode()
    chunked = pa.chunked_array([[b"a"], [], [b"b", None], [b"a", b"a", b"d"]], pa.binary())
    chunked_dict = pa.chunked_array(
        [pa.array(["p", "q", "p"]).dictionary_encode(), pa.array(["q", None]).dictionary_encode()]
    )
    columns = [
        ("dictionary", dictionary),
        ("dictionary-null-entry", null_entry),
        ("dictionary-slice", big_dictionary.slice(20, 4)),
        ("dictionary-slice-of-small", dictionary.slice(1, 2)),
        ("plain-with-nulls", plain),
        ("plain-slice", plain.slice(2, 4)),
        ("string-view", pa.array(["aa", "bb", None, "aa"], pa.string_view())),
        ("chunked", chunked),
        ("chunked-slice", chunked.slice(2, 3)),
        ("chunked-dictionary", chunked_dict),
        ("chunked-dictionary-slice", chunked_dict.slice(1, 3)),
    ]
    return [(label, column, column.to_pylist()) for label, column in columns]


@pytest.mark.parametrize(
    "label, column, rows", _per_row_columns(), ids=[c[0] for c in _per_row_columns()]
)
@pytest.mark.parametrize("bits", [128, 256])
def test_one_key_per_row_across_dictionaries_chunks_slices_and_nulls(label, column, rows, bits):
    keys = _row_keys(len(rows), seed=bits + len(rows))
    want = _keyed_oracle(bits, keys, rows, 8)
    got = hash_array(column, f"kmac_{bits}", key=keys, length=8)
    assert got.to_pylist() == want, label
    assert got.null_count == sum(value is None for value in rows)
    if isinstance(column, pa.ChunkedArray):
        assert [len(c) for c in got.chunks] == [len(c) for c in column.chunks]
    hexed = hash_array(column, f"kmac_{bits}", key=tuple(keys), length=8, hex=True, threads=1)
    assert hexed.to_pylist() == [None if w is None else w.hex() for w in want], label
    custom = hash_array(column, f"kmac_{bits}", key=keys, length=20, customization=b"S")
    assert custom.to_pylist() == _keyed_oracle(bits, keys, rows, 20, b"S"), label


def test_one_hmac_key_per_row_of_a_chunked_dictionary():
    import hmac

    column = pa.chunked_array(
        [
            pa.array([b"m", b"n", b"m"]).dictionary_encode(),
            pa.array([b"m", None]).dictionary_encode(),
        ]
    )
    keys = _row_keys(4, seed=3) + [b"k" * 200]  # the last key is longer than a block
    got = hash_array(column, "hmac_sha3_256", key=keys).to_pylist()
    want = [
        None if value is None else hmac.digest(key, value, "sha3_256")
        for key, value in zip(keys, column.to_pylist(), strict=True)
    ]
    assert got == want


def test_one_key_per_row_needs_as_many_keys_as_rows_nulls_included():
    column = pa.array([b"a", b"b", b"a"]).dictionary_encode()  # 2 dictionary values, 3 rows
    with pytest.raises(
        ValueError,
        match=r"key \(or initial_state\) holds 2 entries, one per row "
        r"of values \(null rows included\), but values has 3 rows",
    ):
        hash_array(column, "kmac_128", key=[b"k1", b"k2"], length=8)
    with_null = pa.chunked_array([[b"a", None], [b"b"]])
    with pytest.raises(ValueError, match="holds 2 entries.*values has 3 rows"):
        hash_array(with_null, "kmac_128", key=[b"k1", b"k2"], length=8)
    with pytest.raises(ValueError, match="holds 4 entries.*values has 3 rows"):
        hash_array(with_null, "hmac_sha3_224", key=[b"k"] * 4)
    with pytest.raises(ValueError, match="holds 3 entries.*values has 2 rows"):
        hash_array(with_null.slice(1), "kmac_256", key=[b"k"] * 3, length=8)


def test_per_row_initial_states_run_across_chunks():
    import hashlib

    from reference_keccak import keccak_p

    rate = 136
    blocks = [bytes([i + 1]) * rate for i in range(3)]

    def state_after(block):
        # The plain model: one rate-sized block XORed into the zero state, then permuted.
        lanes = [int.from_bytes(block[8 * i : 8 * i + 8], "little") for i in range(rate // 8)]
        return keccak_p(lanes + [0] * (25 - rate // 8))

    states = np.array([state_after(b) for b in blocks], np.uint64)
    column = pa.chunked_array([[b"a", None], [], [b"c"]])
    per_row = Hasher(bk.algorithms["sha3_256"], 32, 1, initial_state=states)
    got = hash_array(column, per_row).to_pylist()
    assert got == [
        hashlib.sha3_256(blocks[0] + b"a").digest(),
        None,
        hashlib.sha3_256(blocks[2] + b"c").digest(),
    ]


def test_short_per_row_keys_against_the_reference_model():
    import sp800_185_reference as ref

    column = pa.chunked_array([[b"x"], [b"x", b"yz"]])
    keys = [b"", b"k", b"\x00" * 167]
    got = hash_array(column, "kmac_xof_128", key=keys, length=16).to_pylist()
    assert got == [
        ref.kmac(128, k, m, 16, b"", xof=True)
        for k, m in zip(keys, [b"x", b"x", b"yz"], strict=True)
    ]


def test_hash_many_of_a_batch_stream_hands_each_batch_its_own_keys():
    from Crypto.Hash import KMAC128

    schema = pa.schema([("m", pa.binary())])

    def stream():
        batches = [
            pa.record_batch([pa.array([b"a", b"bc"])], schema=schema),
            pa.record_batch([pa.array([b"def"])], schema=schema),
        ]
        return pa.RecordBatchReader.from_batches(schema, batches)

    keys = [b"k1" * 8, b"k2" * 8, b"k3" * 8]
    got = bk.hash_many(stream(), "kmac_128", key=keys, length=8)
    want = [
        KMAC128.new(key=k, data=m, mac_len=8).digest()
        for k, m in zip(keys, [b"a", b"bc", b"def"], strict=True)
    ]
    assert [bytes(row) for row in got] == want
    with pytest.raises(ValueError, match="holds 2 entries.*but more than 2 messages were given"):
        bk.hash_many(stream(), "kmac_128", key=keys[:2], length=8)
    with pytest.raises(ValueError, match="holds 4 entries.*but 3 messages were given"):
        bk.hash_many(stream(), "kmac_128", key=[*keys, keys[0]], length=8)
