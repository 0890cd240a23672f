"""Any Arrow producer, read through the Arrow PyCapsule interface by one adapter.

Every producer the project installs (Polars, pandas, DuckDB, nanoarrow, arro3) and two
minimal producers written here (a class with only ``__arrow_c_array__``, one with only
``__arrow_c_stream__``) go through ``hash_many``, ``arrow.hash_array``, ``arrow.hash_rows``
and ``parquet.hash_file``; each digest is compared with hashlib over the Python values.
"""

from __future__ import annotations

import hashlib
import importlib.util

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from sp800_185_reference import kmac

import batchkeccak as bk
from batchkeccak.arrow import hash_array, hash_rows
from batchkeccak.parquet import hash_file


def sha3(value):
    if value is None:
        return None
    return hashlib.sha3_256(value.encode() if isinstance(value, str) else value).digest()


def row_digest(fields):
    """hash_rows' documented encoding, rebuilt from its spec (docs/arrow.md)."""
    encoded = b""
    for value in fields:
        if value is None:
            encoded += b"\x00"
        else:
            raw = value.encode() if isinstance(value, str) else value
            encoded += b"\x01" + len(raw).to_bytes(8, "little") + raw
    return hashlib.sha3_256(encoded).digest()


class ArrayOnly:
    """A producer with nothing but ``__arrow_c_array__``."""

    def __init__(self, array):
        self._array = array

    def __arrow_c_array__(self, requested_schema=None):
        return self._array.__arrow_c_array__(requested_schema)


class StreamOnly:
    """A producer with nothing but ``__arrow_c_stream__``."""

    def __init__(self, data):
        self._data = data

    def __arrow_c_stream__(self, requested_schema=None):
        return self._data.__arrow_c_stream__(requested_schema)


def _installed(module):
    return importlib.util.find_spec(module) is not None


def _polars_series(chunked):
    import polars as pl

    return pl.from_arrow(chunked, rechunk=False)


def _pandas_series(chunked):
    import pandas as pd

    return pd.Series(pd.arrays.ArrowExtensionArray(chunked))


def _duckdb_relation(chunked):
    import duckdb

    table = pa.table({"v": chunked})
    return duckdb.connect().from_arrow(table)


def _nanoarrow_array(chunked):
    import nanoarrow as na

    return na.Array(chunked)


def _arro3_chunked(chunked):
    from arro3.core import ChunkedArray

    return ChunkedArray.from_arrow(chunked)


def _arro3_array(chunked):
    from arro3.core import Array

    return Array.from_arrow(chunked.combine_chunks())


COLUMN_PRODUCERS = [
    pytest.param(lambda c: ArrayOnly(c.combine_chunks()), id="array-only"),
    pytest.param(StreamOnly, id="stream-only"),
    pytest.param(lambda c: StreamOnly(pa.table({"v": c})), id="stream-of-one-column-batches"),
    pytest.param(lambda c: pa.table({"v": c}).to_reader(), id="pyarrow-reader"),
    *[
        pytest.param(
            make,
            id=name,
            marks=pytest.mark.skipif(not _installed(module), reason=f"{module} not installed"),
        )
        for name, module, make in [
            ("polars-series", "polars", _polars_series),
            ("pandas-series", "pandas", _pandas_series),
            ("duckdb-relation", "duckdb", _duckdb_relation),
            ("nanoarrow-array", "nanoarrow", _nanoarrow_array),
            ("arro3-chunked-array", "arro3", _arro3_chunked),
            ("arro3-array", "arro3", _arro3_array),
        ]
    ],
]


def _columns():
    """Values with nulls, empty values and a block-boundary length, sliced and chunked."""
    values = [b"abc", None, b"", b"x" * 136, "caf\u00e9".encode(), None, b"\x00" * 135]
    binary = pa.chunked_array([values[:3], values[3:]], type=pa.binary())
    strings = pa.chunked_array([["a", None, "caf\u00e9"], ["", "z" * 200]], type=pa.string())
    return [
        ("chunked-binary", binary),
        ("sliced-chunked-binary", binary.slice(1, 5)),
        ("large-string", strings.cast(pa.large_string())),
        ("sliced-string", pa.chunked_array([strings.combine_chunks().slice(1, 3)])),
    ]


COLUMNS = _columns()


@pytest.mark.parametrize("make", COLUMN_PRODUCERS)
@pytest.mark.parametrize("label, column", COLUMNS, ids=[c[0] for c in COLUMNS])
def test_hash_array_of_any_producer_equals_hashlib(make, label, column):
    got = hash_array(make(column))
    assert got.to_pylist() == [sha3(v) for v in column.to_pylist()], label


@pytest.mark.parametrize("make", COLUMN_PRODUCERS)
@pytest.mark.parametrize("label, column", COLUMNS, ids=[c[0] for c in COLUMNS])
def test_hash_many_of_any_producer_equals_hashlib(make, label, column):
    filled = pa.chunked_array(
        [chunk.fill_null(b"" if pa.types.is_binary(chunk.type) else "") for chunk in column.chunks],
        type=column.type,
    )
    got = bk.hash_many(make(filled))
    assert [bytes(row) for row in got] == [sha3(v) for v in filled.to_pylist()], label


@pytest.mark.parametrize("make", COLUMN_PRODUCERS)
def test_hash_many_refuses_nulls_from_any_producer(make):
    with pytest.raises(ValueError, match="holds 1 null"):
        bk.hash_many(make(pa.chunked_array([[b"a", None]])))


def _table():
    return pa.table(
        {
            "name": pa.chunked_array([["ann", None], ["", "caf\u00e9"]]),
            "blob": pa.chunked_array([[b"\x01", b""], [None, b"z" * 140]]),
        }
    )


def _polars_frame(table):
    import polars as pl

    return pl.from_arrow(table, rechunk=False)


def _pandas_frame(table):
    import pandas as pd

    return table.to_pandas(types_mapper=pd.ArrowDtype)


def _duckdb_table(table):
    import duckdb

    return duckdb.connect().from_arrow(table)


def _arro3_table(table):
    from arro3.core import Table

    return Table.from_arrow(table)


def _arro3_batch(table):
    from arro3.core import RecordBatch

    return RecordBatch.from_arrow(table.combine_chunks().to_batches()[0])


TABLE_PRODUCERS = [
    pytest.param(StreamOnly, id="stream-only"),
    pytest.param(lambda t: ArrayOnly(t.combine_chunks().to_batches()[0]), id="array-only-batch"),
    pytest.param(lambda t: t.to_reader(max_chunksize=1), id="pyarrow-reader"),
    *[
        pytest.param(
            make,
            id=name,
            marks=pytest.mark.skipif(not _installed(module), reason=f"{module} not installed"),
        )
        for name, module, make in [
            ("polars-dataframe", "polars", _polars_frame),
            ("pandas-dataframe", "pandas", _pandas_frame),
            ("duckdb-relation", "duckdb", _duckdb_table),
            ("arro3-table", "arro3", _arro3_table),
            ("arro3-record-batch", "arro3", _arro3_batch),
        ]
    ],
]


@pytest.mark.parametrize("make", TABLE_PRODUCERS)
def test_hash_rows_of_any_table_producer_equals_the_spec(make):
    table = _table()
    want = [row_digest((r["name"], r["blob"])) for r in table.to_pylist()]
    got = hash_rows(make(table), ["name", "blob"])
    assert got.to_pylist() == want
    swapped = hash_rows(make(table), ["blob", "name"])
    assert swapped.to_pylist() == [row_digest((r["blob"], r["name"])) for r in table.to_pylist()]


@pytest.mark.parametrize("make", TABLE_PRODUCERS)
def test_parquet_hash_file_takes_any_table_producer(make, tmp_path):
    table = _table()
    report = hash_file(make(table), tmp_path / "out.parquet", "name", batch_size=3)
    written = pq.read_table(tmp_path / "out.parquet")
    assert report.rows == table.num_rows
    assert written.column("name").to_pylist() == table.column("name").to_pylist()
    assert written.column("name_sha3_256").to_pylist() == [
        sha3(v) for v in table.column("name").to_pylist()
    ]


def test_a_table_of_several_columns_is_not_one_column():
    with pytest.raises(TypeError, match=r"table of 2 columns \['name', 'blob'\]"):
        hash_array(StreamOnly(_table()))
    with pytest.raises(TypeError, match=r"hash_many: messages is a table of 2 columns"):
        bk.hash_many(_table())


def test_a_column_is_not_a_table():
    with pytest.raises(TypeError, match="hash_rows: table must be .* got a column of type"):
        hash_rows(StreamOnly(pa.chunked_array([[b"a"]])))
    with pytest.raises(TypeError, match="hash_file: src must be"):
        hash_file(ArrayOnly(pa.array([b"a"])), "unused.parquet", "a")


_KEEP: list = []
"""Names and memory the capsules below point at, alive for the whole run."""


def _capsule(name: str):
    """A capsule named ``name`` over a few zero bytes, with no destructor."""
    import ctypes

    new = ctypes.pythonapi.PyCapsule_New
    new.restype = ctypes.py_object
    new.argtypes = [ctypes.c_void_p, ctypes.c_char_p, ctypes.c_void_p]
    memory, encoded = ctypes.create_string_buffer(128), name.encode()
    _KEEP.extend([memory, encoded])
    return new(ctypes.addressof(memory), encoded, None)


def _renamed_array(names=("x", "y")):
    def export(self, requested_schema=None):
        return tuple(_capsule(name) for name in names)

    return type("ArrayProducer", (), {"__arrow_c_array__": export})()


def _renamed_stream(names=("x",)):
    def export(self, requested_schema=None):
        return _capsule(names[0])

    return type("StreamProducer", (), {"__arrow_c_stream__": export})()


def test_capsules_of_the_wrong_name_are_a_type_error_naming_the_argument():
    column = pa.array([b"abc"])
    table = pa.table({"a": [b"abc"]})
    array_message = (
        r"__arrow_c_array__ returned capsules named 'x' and 'y', expected capsules named "
        r"'arrow_schema' and 'arrow_array'"
    )
    stream_message = (
        r"__arrow_c_stream__ returned a capsule named 'x', expected a capsule named "
        r"'arrow_array_stream'"
    )
    cases = [
        (lambda: bk.hash_many(_renamed_array()), "^hash_many: messages: " + array_message),
        (lambda: bk.hash_many(_renamed_stream()), "^hash_many: messages: " + stream_message),
        (lambda: hash_array(_renamed_array()), "^hash_array: values: " + array_message),
        (lambda: hash_rows(_renamed_stream()), "^hash_rows: table: " + stream_message),
        (
            lambda: hash_rows(_renamed_array()),
            "^hash_rows: table: " + array_message,
        ),
        (lambda: bk.table_digest(_renamed_stream()), "^source: " + stream_message),
        (
            lambda: bk.table_digest(_renamed_array()),
            "^source: " + array_message,
        ),
        (lambda: bk.diff(table, _renamed_stream(), key="a"), "^b: " + stream_message),
    ]
    for call, message in cases:
        with pytest.raises(TypeError, match=message):
            call()
    # A producer whose capsules are named right hashes as hashlib does.
    good = type(
        "ArrayProducer", (), {"__arrow_c_array__": lambda self, s=None: column.__arrow_c_array__()}
    )()
    assert bytes(bk.hash_many(good)[0]) == hashlib.sha3_256(b"abc").digest()


@pytest.mark.skipif(importlib.util.find_spec("duckdb") is None, reason="needs duckdb")
def test_an_error_leaves_no_duckdb_stream_open():
    import duckdb

    connection = duckdb.connect()
    two_columns = connection.sql("SELECT 'a' AS x, 'b' AS y")
    with pytest.raises(TypeError, match="table of 2 columns") as raised:
        bk.hash_many(two_columns)
    # While the exception lives, the connection still answers.
    assert raised.value is not None
    assert connection.sql("SELECT 42").fetchall() == [(42,)]
    for call in (
        lambda: bk.hash_many(two_columns),
        lambda: hash_array(two_columns),
        lambda: hash_array(connection.sql("SELECT [1, 2] AS l")),
        lambda: hash_rows(two_columns, columns=["nope"]),
        lambda: hash_rows(two_columns, "no_such_algorithm"),
        lambda: bk.table_digest(two_columns, key="nope"),
    ):
        try:
            call()
        except (TypeError, ValueError):
            assert connection.sql("SELECT 43").fetchall() == [(43,)]
        else:
            raise AssertionError("no error")
    one = connection.sql("SELECT 'abc'::BLOB AS m")
    assert bytes(bk.hash_many(one)[0]) == hashlib.sha3_256(b"abc").digest()


def test_a_list_type_from_a_producer_names_its_type():
    with pytest.raises(TypeError, match="has type list<item: int64>"):
        hash_array(StreamOnly(pa.chunked_array([[[1, 2]]])))


def test_one_key_per_row_runs_across_a_stream_of_batches():
    rows = [b"a", None, b"ccc", b"", b"e" * 170]
    keys = [bytes([k]) * (k + 1) for k in range(len(rows))]
    stream = pa.table({"v": pa.array(rows)}).to_reader(max_chunksize=2)
    got = hash_array(stream, "kmac_128", key=keys, length=8)
    assert [len(c) for c in got.chunks] == [2, 2, 1]
    assert got.to_pylist() == [
        None if r is None else kmac(128, k, r, 8, b"") for r, k in zip(rows, keys)
    ]
    filled = [r or b"" for r in rows]
    stream = pa.table({"v": pa.array(filled)}).to_reader(max_chunksize=2)
    many = bk.hash_many(stream, "kmac_128", key=keys, length=8)
    assert [bytes(d) for d in many] == [kmac(128, k, r, 8, b"") for r, k in zip(filled, keys)]
    for count in (4, 6):
        stream = pa.table({"v": pa.array(filled[:count] + [b"x"] * (count - 5))})
        with pytest.raises(ValueError, match="holds 5 entries"):
            bk.hash_many(stream.to_reader(max_chunksize=2), "kmac_128", key=keys, length=8)
        with pytest.raises(ValueError, match="holds 5 entries"):
            hash_array(stream.to_reader(max_chunksize=2), "kmac_128", key=keys, length=8)


# ---------------------------------------------------------------------------------------------
# Streams are read one batch at a time

BATCHES = 24
MESSAGES_PER_BATCH = 64
MESSAGE_BYTES = 4096
BATCH_BYTES = MESSAGES_PER_BATCH * MESSAGE_BYTES


class CountingStream:
    """A one-shot stream of record batches, each made only when asked for, that records how
    much Arrow memory is held each time a batch is made."""

    def __init__(self, columns=("v",)):
        self.held = []
        self.schema = pa.schema([(name, pa.binary()) for name in columns])

    def _batches(self):
        for k in range(BATCHES):
            self.held.append(pa.total_allocated_bytes())
            data = np.full(MESSAGES_PER_BATCH * MESSAGE_BYTES, k % 251, dtype=np.uint8)
            offsets = np.arange(MESSAGES_PER_BATCH + 1, dtype=np.int32) * MESSAGE_BYTES
            column = pa.Array.from_buffers(
                pa.binary(), MESSAGES_PER_BATCH, [None, pa.py_buffer(offsets), pa.py_buffer(data)]
            )
            # Copied into Arrow's memory pool, so that the pool counts what is held.
            column = pa.concat_arrays([column])
            yield pa.RecordBatch.from_arrays([column] * len(self.schema), schema=self.schema)

    def __arrow_c_stream__(self, requested_schema=None):
        reader = pa.RecordBatchReader.from_batches(self.schema, self._batches())
        return reader.__arrow_c_stream__(requested_schema)

    def expected(self):
        return [hashlib.sha3_256(bytes([k % 251]) * MESSAGE_BYTES).digest() for k in range(BATCHES)]


def _check_bounded(stream, before):
    assert len(stream.held) == BATCHES
    # The whole stream is BATCHES batches; a reader that kept them would hold them all.
    assert max(stream.held) - before < 4 * BATCH_BYTES, [h - before for h in stream.held]


def test_a_stream_is_hashed_one_batch_at_a_time():
    stream = CountingStream()
    before = pa.total_allocated_bytes()
    digests = hash_array(stream)
    _check_bounded(stream, before)
    assert len(digests.chunks) == BATCHES
    assert [c[0].as_py() for c in digests.chunks] == stream.expected()

    stream = CountingStream()
    before = pa.total_allocated_bytes()
    many = bk.hash_many(stream)
    _check_bounded(stream, before)
    assert [bytes(many[k * MESSAGES_PER_BATCH]) for k in range(BATCHES)] == stream.expected()


def test_hash_rows_and_hash_file_read_a_stream_one_batch_at_a_time(tmp_path):
    stream = CountingStream(columns=("a", "b"))
    before = pa.total_allocated_bytes()
    rows = hash_rows(stream)
    _check_bounded(stream, before)
    assert len(rows.chunks) == BATCHES
    value = bytes([3]) * MESSAGE_BYTES
    assert rows.chunks[3][0].as_py() == row_digest((value, value))

    stream = CountingStream()
    before = pa.total_allocated_bytes()
    report = hash_file(stream, tmp_path / "out.parquet", "v", batch_size=MESSAGES_PER_BATCH)
    _check_bounded(stream, before)
    assert report.rows == BATCHES * MESSAGES_PER_BATCH
    written = pq.ParquetFile(tmp_path / "out.parquet")
    first = written.read_row_group(5, columns=["v_sha3_256"]).column(0)[0].as_py()
    assert first == stream.expected()[5]


def test_import_batchkeccak_reads_no_engine():
    import subprocess
    import sys

    code = (
        "import sys, batchkeccak, batchkeccak.inputs, batchkeccak.inputs.arrow_producers\n"
        "engines = {'polars', 'duckdb', 'pandas', 'nanoarrow', 'arro3'} & set(sys.modules)\n"
        "assert not engines, engines\n"
    )
    subprocess.run([sys.executable, "-c", code], check=True)
