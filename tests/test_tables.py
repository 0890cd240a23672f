"""Table digests, diffs and segment digests against the plain model of tests/table_reference.py,
across physical layouts and engines, with spilled runs, and their errors."""

from __future__ import annotations

import errno
import os
import random

import numpy as np
import pyarrow as pa
import pyarrow.dataset as ds
import pyarrow.parquet as pq
import pytest
import table_reference as ref
from hypothesis import given, settings
from hypothesis import strategies as st
from pyarrow import feather

import batchkeccak as bk
from batchkeccak import merkle
from batchkeccak.arrow import encode_rows
from batchkeccak.merkle.rfc9162 import leaf_hashes
from batchkeccak.tables import differing_segments, runs
from batchkeccak.tables import keys as keys_module
from batchkeccak.tables.roots import StreamingRoot
from batchkeccak.tables.sources import open_source

ARROW_TYPES = {
    "int8": pa.int8(), "int32": pa.int32(), "int64": pa.int64(), "uint8": pa.uint8(),
    "uint64": pa.uint64(), "float64": pa.float64(), "bool": pa.bool_(), "string": pa.string(),
    "binary": pa.binary(),
}  # fmt: skip

TINY_MEMORY = 1 << 16
"""The smallest memory_limit: runs of a few hundred rows, so small tables spill many runs."""


def arrow_table(columns: dict, types: dict) -> pa.Table:
    return pa.table(
        {name: pa.array(values, ARROW_TYPES[types[name]]) for name, values in columns.items()}
    )


def value_strategy(type_name: str):
    if type_name in ref.WIDTHS:
        bits = 8 * ref.WIDTHS[type_name]
        low, high = (
            (-(1 << (bits - 1)), (1 << (bits - 1)) - 1)
            if type_name[0] == "i"
            else (0, (1 << bits) - 1)
        )
        return st.integers(low, high)
    return {
        "float64": st.floats(allow_nan=False, width=64),
        "bool": st.booleans(),
        "string": st.text(max_size=6),
        "binary": st.binary(max_size=6),
    }[type_name]


@st.composite
def tables(draw, min_rows=0, max_rows=30):
    """(columns, types) with a unique int64 ``id`` and up to three other nullable columns."""
    count = draw(st.integers(min_rows, max_rows))
    ids = draw(
        st.lists(st.integers(-(1 << 40), 1 << 40), min_size=count, max_size=count, unique=True)
    )
    names = draw(st.lists(st.sampled_from(sorted(ARROW_TYPES)), min_size=1, max_size=3))
    columns, types = {"id": ids}, {"id": "int64"}
    for k, type_name in enumerate(names):
        values = draw(
            st.lists(st.none() | value_strategy(type_name), min_size=count, max_size=count)
        )
        columns[f"c{k}"], types[f"c{k}"] = values, type_name
    return columns, types


def rechunked(table: pa.Table, rows: int) -> pa.Table:
    return pa.Table.from_batches(table.to_batches(max_chunksize=max(rows, 1)), table.schema)


# ---------------------------------------------------------------------------------------------
# table_digest


@pytest.mark.every_backend
@settings(max_examples=40)
@given(tables())
def test_digest_matches_the_reference(data):
    columns, types = data
    table = arrow_table(columns, types)
    for key in (None, ["id"]):
        expected_digest, expected_root = ref.table_digest(columns, types, key)
        got = bk.table_digest(table, key=key)
        assert (got.digest(), got.root) == (expected_digest, expected_root)
        assert got.rows == table.num_rows


@settings(max_examples=25)
@given(tables(), st.randoms(use_true_random=False), st.integers(1, 7))
def test_digest_ignores_row_order_chunking_and_column_order(data, rng, chunk):
    columns, types = data
    table = arrow_table(columns, types)
    order = list(range(table.num_rows))
    rng.shuffle(order)
    names = list(table.column_names)
    rng.shuffle(names)
    other = rechunked(table.take(np.array(order, dtype=np.int64)).select(names), chunk)
    for key in (None, "id"):
        assert bk.table_digest(other, key=key) == bk.table_digest(table, key=key)
        # The same through spilled runs, merged back.
        spilled = bk.table_digest(other, key=key, memory_limit=TINY_MEMORY)
        assert spilled == bk.table_digest(table, key=key)


def test_keyed_root_is_the_rfc9162_root_of_the_row_encodings():
    table = pa.table({"id": [3, 1, 2], "name": ["c", None, "b"]})
    ordered = table.sort_by("id").select(["id", "name"])  # encoded in name order
    expected = merkle.merkle_root(encode_rows(ordered.to_batches()[0]), scheme="rfc9162")
    assert bk.table_digest(table, key="id").root == expected


def test_digest_tells_tables_apart():
    table = pa.table({"id": [1, 2, 3], "v": ["a", "b", None]})
    base = bk.table_digest(table, key="id")
    different = [
        table.set_column(1, "v", pa.array(["a", "b", ""])),  # null vs empty string
        table.set_column(1, "w", table["v"]),  # a renamed column
        table.set_column(0, "id", pa.array([1, 2, 3], pa.int32())),  # another integer width
        table.slice(0, 2),
        pa.concat_tables([table, table.slice(2)]).set_column(0, "id", pa.array([1, 2, 3, 4])),
    ]
    digests = {bk.table_digest(t, key="id").digest() for t in different}
    assert base.digest() not in digests and len(digests) == len(different)
    # Without a key, duplicate rows count.
    doubled = pa.concat_tables([table, table])
    assert bk.table_digest(doubled).digest() != bk.table_digest(table).digest()
    # Columns cover a subset; the key is always covered.
    assert bk.table_digest(table, key="id", columns=["v"]).columns == (
        ("id", "int64"),
        ("v", "string"),
    )


def test_digest_is_the_same_for_every_layout_and_engine(tmp_path):
    rng = np.random.default_rng(7)
    count = 500
    table = pa.table(
        {
            "id": rng.permutation(count).astype(np.int64),
            "name": pa.array([f"n{i}" if i % 7 else None for i in range(count)]),
            "blob": pa.array([bytes([i % 256]) * (i % 5) for i in range(count)]),
            "score": pa.array(rng.integers(0, 100, count).astype(np.int32)),
        }
    )
    expected = bk.table_digest(table, key="id")
    unordered = bk.table_digest(table)
    pq.write_table(table, tmp_path / "one.parquet", row_group_size=37)
    folder = tmp_path / "split"
    folder.mkdir()
    for part, start in enumerate(range(0, count, 180)):
        pq.write_table(table.slice(start, 180), folder / f"part-{part}.parquet")
    feather.write_feather(table, tmp_path / "t.arrow", chunksize=64)
    sources = {
        "parquet file": tmp_path / "one.parquet",
        "parquet folder": str(folder),
        "dataset": ds.dataset(folder),
        "ipc": tmp_path / "t.arrow",
        "record batch": table.combine_chunks().to_batches()[0],
        "reader": pa.RecordBatchReader.from_batches(table.schema, table.to_batches(50)),
        "dictionary": table.set_column(1, "name", table["name"].dictionary_encode()),
        "large types": table.cast(
            pa.schema(
                [
                    ("id", pa.int64()),
                    ("name", pa.large_string()),
                    ("blob", pa.large_binary()),
                    ("score", pa.int32()),
                ]
            )
        ),
    }
    for name, source in sources.items():
        assert bk.table_digest(source, key="id") == expected, name
    assert bk.table_digest(tmp_path / "one.parquet") == unordered


def test_digest_is_the_same_through_polars_pandas_and_duckdb(tmp_path):
    pl = pytest.importorskip("polars")
    pd = pytest.importorskip("pandas")
    duckdb = pytest.importorskip("duckdb")
    table = pa.table({"id": [5, 1, 3], "name": ["e", None, "c"], "blob": [b"x", b"", None]})
    expected = bk.table_digest(table, key="id")
    frame = pl.from_arrow(table)  # exports string_view and binary_view
    assert bk.table_digest(frame, key="id") == expected
    pandas_frame = table.to_pandas(types_mapper=pd.ArrowDtype)
    assert bk.table_digest(pandas_frame, key="id") == expected
    connection = duckdb.connect()
    relation = connection.from_arrow(table)
    assert bk.table_digest(relation, key="id") == expected


@pytest.mark.parametrize("width", [8, 9, 32])
def test_digest_order_sorts_like_bytes_with_ties(monkeypatch, width):
    # Slices of 7 keys: ties and groups of equal keys fall across slice boundaries.
    monkeypatch.setattr(keys_module, "SLICE_ROWS", 7)
    rng = np.random.default_rng(width)
    for count in (2, 3, 50, 300):
        values = rng.integers(0, 256, (count, width), dtype=np.uint8)
        values[count // 2] = values[0]  # duplicate rows
        values[1:count:5, :6] = values[1, :6]  # shared prefixes, ties in the kept bits
        if count > 20:
            values[10:20] = values[3]
        order = keys_module.digest_order(runs.digests_as_keys(values))
        assert sorted(order.tolist()) == list(range(count))
        expected = sorted(bytes(row) for row in values)
        assert [bytes(values[i]) for i in order] == expected


def test_key_order_of_integer_keys_with_duplicates_and_any_span(monkeypatch):
    monkeypatch.setattr(keys_module, "SLICE_ROWS", 7)
    rng = np.random.default_rng(11)
    encoder = keys_module.KeyEncoder.of(
        open_source(pa.table({"id": pa.array([], pa.int64())})), ["id"]
    )
    spans = [
        rng.integers(-50, 50, 300),  # few values, many duplicates
        rng.permutation(300) * 3 + (1 << 60),  # a narrow span far from zero
        np.array([-(1 << 63), (1 << 63) - 1, 0, -1, 5, 5]),  # the whole range: argsort
    ]
    for values in spans:
        keys = encoder.encode(pa.record_batch({"id": pa.array(values, pa.int64())}))
        order = keys_module.key_order(keys)
        assert sorted(order.tolist()) == list(range(len(values)))
        assert values[order].tolist() == sorted(values.tolist())


@pytest.mark.parametrize("width", [1, 8, 16])
def test_keys_ascending_checks_every_slice(monkeypatch, width):
    monkeypatch.setattr(keys_module, "SLICE_ROWS", 7)
    rng = np.random.default_rng(width)
    rows = sorted({rng.bytes(width) for _ in range(40)})
    ordered = np.frombuffer(b"".join(rows), np.uint8).reshape(len(rows), width)
    assert keys_module.keys_ascending(runs.digests_as_keys(ordered))
    for first in (3, 6, 13):  # within a slice, and across the boundaries at 7 and 14
        swapped = ordered.copy()
        swapped[[first, first + 1]] = ordered[[first + 1, first]]
        assert not keys_module.keys_ascending(runs.digests_as_keys(swapped))
    if width > 8:  # equal first words: the bytes after them decide
        shared = ordered.copy()
        shared[6, :8] = shared[5, :8]
        shared[5, 8:], shared[6, 8:] = 255, 0
        assert not keys_module.keys_ascending(runs.digests_as_keys(shared))
    if width <= 8:  # equal neighbours are in order (a duplicate key is caught after)
        repeated = np.repeat(ordered, 2, axis=0)
        assert keys_module.keys_ascending(runs.digests_as_keys(repeated))


def test_keyed_digest_of_rows_stored_in_key_order():
    columns = {"id": [-5, -1, 0, 2, 9], "v": ["a", None, "c", "d", "e"]}
    types = {"id": "int64", "v": "string"}
    table = arrow_table(columns, types)
    expected_digest, expected_root = ref.table_digest(columns, types, ["id"])
    for memory_limit in (None, TINY_MEMORY):
        got = bk.table_digest(table, key="id", memory_limit=memory_limit)
        assert (got.digest(), got.root) == (expected_digest, expected_root)
    in_order_twice = pa.table({"id": [1, 2, 2, 3], "v": ["a", "b", "c", "d"]})
    with pytest.raises(ValueError, match=r"source: key \(id\) is not unique: 2 appears"):
        bk.table_digest(in_order_twice, key="id")


def test_streaming_root_matches_the_tree_for_every_size():
    hasher = bk.hasher("sha3_256")
    rng = random.Random(3)
    for size in range(41):
        values = [rng.randbytes(rng.randrange(0, 9)) for _ in range(size)]
        leaves = leaf_hashes(values, hasher) if size else np.empty((0, 32), np.uint8)
        tree = StreamingRoot(hasher, block_leaves=4)
        position = 0
        while position < size:
            step = rng.randrange(1, 13)  # up to three blocks in one call, hashed side by side
            tree.add(leaves[position : position + step])
            position += step
        assert tree.root() == ref.mth_of_leaves([bytes(row) for row in leaves])


def test_digest_with_another_algorithm_and_a_hasher():
    table = pa.table({"id": [1, 2]})
    by_name = bk.table_digest(table, key="id", algorithm="keccak_256")
    by_hasher = bk.table_digest(table, key="id", algorithm=bk.hasher("keccak_256"))
    assert by_name == by_hasher
    assert by_name.algorithm == "keccak_256"
    assert by_name.digest() != bk.table_digest(table, key="id").digest()
    xof = bk.table_digest(table, algorithm=bk.hasher("shake_256", length=20))
    assert len(xof.digest()) == 20


@pytest.mark.parametrize("length", [0, 1, 15])
@pytest.mark.parametrize("entry", ["table_digest", "keyed_digest", "segment_digests", "diff"])
def test_a_hash_too_short_for_a_table_is_refused(entry, length):
    table = pa.table({"id": [1, 2, 3], "v": ["a", "b", "c"]})
    short = bk.hasher("shake_128", length=length)
    calls = {
        "table_digest": lambda: bk.table_digest(table, algorithm=short),
        "keyed_digest": lambda: bk.table_digest(table, key="id", algorithm=short),
        "segment_digests": lambda: bk.segment_digests(table, key="id", algorithm=short),
        "diff": lambda: bk.diff(table, table, key="id", algorithm=short),
    }
    with pytest.raises(ValueError, match=r"^algorithm: .*at least 16 bytes"):
        calls[entry]()


def test_the_shortest_table_hash_is_16_bytes_of_the_xof():
    import hashlib
    import json

    def shake(data: bytes) -> bytes:
        return hashlib.shake_128(data).digest(16)

    result = bk.table_digest(pa.table({"id": [7]}), algorithm=bk.hasher("shake_128", length=16))
    leaf = shake(b"\x00" + ref.row_encoding({"id": 7}, {"id": "int64"}, ["id"]))
    header = json.dumps(
        {
            "algorithm": "shake_128",
            "columns": [["id", "int64"]],
            "format": "batchkeccak-table-v1",
            "key": None,
            "order": "digest",
            "rows": 1,
        },
        sort_keys=True,
        separators=(",", ":"),
    ).encode()
    assert result.root == leaf
    assert result.digest() == shake(header + b"\n" + leaf)


# ---------------------------------------------------------------------------------------------
# diff


def diff_rows(result: pa.Table, key: list[str]) -> list[tuple]:
    rows = []
    for row in result.to_pylist():
        k = tuple(row[n].encode() if isinstance(row[n], str) else row[n] for n in key)
        rows.append((k, row["change"], row["changed_columns"]))
    return rows


@st.composite
def table_pairs(draw):
    columns, types = draw(tables(max_rows=25))
    count = len(columns["id"])
    names = [n for n in columns if n != "id"]
    after = {name: list(values) for name, values in columns.items()}
    keep = draw(st.lists(st.booleans(), min_size=count, max_size=count))
    for name, values in after.items():
        after[name] = [v for v, k in zip(values, keep) if k]
    for row in range(len(after["id"])):
        for name in names:
            if draw(st.integers(0, 4)) == 0:
                after[name][row] = draw(st.none() | value_strategy(types[name]))
    existing = set(columns["id"])
    for _ in range(draw(st.integers(0, 3))):
        new_id = draw(st.integers(-(1 << 40), 1 << 40).filter(lambda i: i not in existing))
        existing.add(new_id)
        after["id"].append(new_id)
        for name in names:
            after[name].append(draw(st.none() | value_strategy(types[name])))
    order = draw(st.permutations(range(len(after["id"]))))
    after = {name: [values[i] for i in order] for name, values in after.items()}
    return columns, after, types


@pytest.mark.every_backend
@settings(max_examples=40)
@given(table_pairs(), st.booleans())
def test_diff_matches_the_reference(pair, spill):
    before, after, types = pair
    a, b = arrow_table(before, types), arrow_table(after, types)
    limit = TINY_MEMORY if spill else None
    result = bk.diff(rechunked(a, 5), rechunked(b, 3), key="id", memory_limit=limit)
    assert diff_rows(result, ["id"]) == ref.diff(before, after, types, ["id"])
    metadata = result.schema.metadata
    assert int(metadata[b"batchkeccak.rows_a"]) == a.num_rows
    assert int(metadata[b"batchkeccak.rows_b"]) == b.num_rows
    same = bk.diff(a, b, key="id", changed_columns=False)
    assert same.select(["id", "change"]).equals(result.select(["id", "change"]))
    assert same["changed_columns"].null_count == same.num_rows


def test_diff_of_equal_tables_is_empty_whatever_the_order_and_column_order():
    table = pa.table({"id": [3, 1, 2], "a": ["x", "y", None], "b": [1.5, 2.5, 3.5]})
    result = bk.diff(table, table.take([2, 0, 1]).select(["b", "id", "a"]), key="id")
    assert result.num_rows == 0
    assert result.schema.names == ["id", "change", "changed_columns"]


def test_diff_with_a_composite_key_of_strings_and_integers(tmp_path):
    rng = random.Random(5)
    rows = [
        (rng.choice(["", "a", "a\x00", "b", "ab"]), rng.randrange(-3, 4), rng.randrange(9))
        for _ in range(60)
    ]
    unique = list({(s, n): v for s, n, v in rows}.items())
    before = {
        "s": [k[0] for k, _ in unique],
        "n": [k[1] for k, _ in unique],
        "v": [v for _, v in unique],
    }
    after = {name: list(values) for name, values in before.items()}
    after["v"][0] += 1
    del after["s"][1], after["n"][1], after["v"][1]
    after["s"].append("zz"), after["n"].append(0), after["v"].append(1)
    types = {"s": "string", "n": "int64", "v": "int64"}
    a, b = arrow_table(before, types), arrow_table(after, types)
    for limit in (None, TINY_MEMORY):
        result = bk.diff(a, b, key=["s", "n"], memory_limit=limit)
        assert diff_rows(result, ["s", "n"]) == ref.diff(before, after, types, ["s", "n"])
        assert result.schema.field("s").type == pa.string()


def test_diff_matches_integer_keys_of_different_widths():
    a = pa.table({"id": pa.array([1, 2, 3], pa.int32()), "v": ["a", "b", "c"]})
    b = pa.table({"id": pa.array([2, 3, 1 << 40], pa.int64()), "v": ["b", "C", "d"]})
    result = bk.diff(a, b, key="id")
    assert result.to_pylist() == [
        {"id": 1, "change": "removed", "changed_columns": None},
        {"id": 3, "change": "changed", "changed_columns": ["v"]},
        {"id": 1 << 40, "change": "added", "changed_columns": None},
    ]
    assert result.schema.field("id").type == pa.int64()


def test_diff_reads_parquet_files_with_other_layouts(tmp_path):
    count = 1000
    table = pa.table({"id": np.arange(count), "v": pa.array([str(i) for i in range(count)])})
    changed = table.set_column(1, "v", pa.array([str(i) if i % 97 else "x" for i in range(count)]))
    pq.write_table(table, tmp_path / "a.parquet", row_group_size=100)
    pq.write_table(
        changed.take(np.random.default_rng(1).permutation(count)),
        tmp_path / "b.parquet",
        row_group_size=333,
    )
    result = bk.diff(tmp_path / "a.parquet", str(tmp_path / "b.parquet"), key="id")
    assert result["id"].to_pylist() == [i for i in range(count) if i % 97 == 0]
    assert set(result["change"].to_pylist()) == {"changed"}


def test_spill_folder_is_removed_on_success_error_and_interrupt(tmp_path, monkeypatch):
    count = 3000
    table = rechunked(pa.table({"id": np.arange(count), "v": np.arange(count) % 7}), 100)
    made = []
    new_path = runs.Spill.new_path

    def recording(self, stem):
        path = new_path(self, stem)
        made.append(path)
        return path

    monkeypatch.setattr(runs.Spill, "new_path", recording)
    monkeypatch.setattr(runs, "BLOCK_ROWS", 64)  # several blocks per run in the merge
    spill = tmp_path / "spill"
    spill.mkdir()
    result = bk.diff(table, table.slice(1), key="id", memory_limit=TINY_MEMORY, spill_dir=spill)
    assert result["id"].to_pylist() == [0]
    assert len(made) > 4 and os.listdir(spill) == []
    # A duplicate key in a later run: found while merging, after spilling.
    duplicated = pa.concat_tables([table, table.slice(2500, 1)])
    made.clear()
    with pytest.raises(ValueError, match=r"b: key \(id\) is not unique: 2500 appears more"):
        bk.diff(table, duplicated, key="id", memory_limit=TINY_MEMORY, spill_dir=spill)
    assert made and os.listdir(spill) == []
    # Ctrl-C (or SIGTERM, which the command raises as KeyboardInterrupt) mid-way.
    calls = []
    row_digests = runs.row_digests

    def interrupted(*args):
        calls.append(1)
        if len(calls) == 20:
            raise KeyboardInterrupt
        return row_digests(*args)

    monkeypatch.setattr(runs, "row_digests", interrupted)
    made.clear()
    with pytest.raises(KeyboardInterrupt):
        bk.table_digest(table, key="id", memory_limit=TINY_MEMORY, spill_dir=spill, threads=1)
    assert made and os.listdir(spill) == []


@pytest.mark.parametrize(
    "failure",
    [
        OSError(errno.ENOSPC, os.strerror(errno.ENOSPC)),
        # pyarrow's own words for it, with no errno set
        OSError("[Errno 28] Error writing bytes to file. Detail: [errno 28] No space left"),
    ],
)
def test_a_full_spill_folder_names_it_and_spill_dir(failure, monkeypatch, tmp_path, capsys):
    # It said "[Errno 28] Error writing bytes to file..." naming neither the folder nor
    # the option that moves it.
    from batchkeccak.cli import main

    def full(*args):
        raise failure

    monkeypatch.setattr(runs, "_write_run", full)
    # Keys out of order: sorted runs are spilled (keys in order stream straight through).
    table = rechunked(pa.table({"id": np.random.default_rng(3).permutation(200_000)}), 1000)
    spill = tmp_path / "spill"
    spill.mkdir()
    with pytest.raises(OSError) as raised:
        bk.table_digest(table, key="id", memory_limit=TINY_MEMORY, spill_dir=spill)
    assert raised.value.errno == errno.ENOSPC
    message = str(raised.value)
    assert str(spill) in message and "spill_dir=" in message, message
    assert os.listdir(spill) == []
    pq.write_table(table, tmp_path / "t.parquet")
    argv = ["digest", str(tmp_path / "t.parquet"), "-k", "id", "--memory-limit", "64K"]
    assert main([*argv, "--spill-dir", str(spill)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and err.startswith("batchkeccak: error: "), err
    assert str(spill) in err and "--spill-dir" in err and "spill_dir" not in err, err
    assert os.strerror(errno.ENOSPC) in err


@pytest.mark.parametrize("name", ["shake_128", "shake_256"])
def test_an_xof_by_name_says_to_pass_a_hasher_with_a_length(name):
    # It said "length is required for shake_128", naming no argument of table_digest.
    table = pa.table({"id": [1, 2]})
    for call in (bk.table_digest, bk.segment_digests):
        with pytest.raises(TypeError, match=rf"^algorithm: {name} .*bk.hasher\('{name}', length="):
            call(table, key="id", algorithm=name)
    with pytest.raises(TypeError, match=r"^algorithm: "):
        bk.diff(table, table, key="id", algorithm=name)
    assert bk.table_digest(table, algorithm=bk.hasher(name, length=32)).rows == 2


def test_diff_errors_are_clear():
    a = pa.table({"id": [1, 2, 3], "v": ["a", "b", "c"]})
    with pytest.raises(ValueError, match=r"a: key \(id\) is not unique: 2 appears"):
        bk.diff(pa.table({"id": [1, 2, 2], "v": ["a", "b", "c"]}), a, key="id")
    with pytest.raises(ValueError, match=r"b: key column 'id' holds 1 null"):
        bk.diff(a, pa.table({"id": [1, None], "v": ["a", "b"]}), key="id")
    with pytest.raises(ValueError, match=r"only in a: \['v'\]; only in b: \['w'\]"):
        bk.diff(a, a.rename_columns(["id", "w"]), key="id")
    with pytest.raises(ValueError, match="column 'v' is string in a and int64 in b"):
        bk.diff(a, a.set_column(1, "v", pa.array([1, 2, 3])), key="id")
    with pytest.raises(ValueError, match="key column 'id' is int64 in a and uint64 in b"):
        bk.diff(a, a.set_column(0, "id", pa.array([1, 2, 3], pa.uint64())), key="id")
    with pytest.raises(TypeError, match="key column 'f' has type double"):
        bk.diff(pa.table({"f": [1.0]}), pa.table({"f": [1.0]}), key="f")
    with pytest.raises(ValueError, match=r"key: b has no column named 'id'; it has \['v'\]"):
        bk.diff(a, a.select(["v"]), key="id", columns=["v"])
    with pytest.raises(ValueError, match="columns: b has no column named 'v'"):
        bk.diff(a, a.select(["id"]), key="id", columns=["v"])
    with pytest.raises(ValueError, match="clashes"):
        bk.diff(pa.table({"change": [1]}), pa.table({"change": [1]}), key="change")
    with pytest.raises(TypeError, match="key must be a column name"):
        bk.diff(a, a, key=1)
    reader = pa.RecordBatchReader.from_batches(a.schema, a.to_batches())
    with pytest.raises(ValueError, match="read only once"):
        bk.diff(reader, a, key="id")
    reader = pa.RecordBatchReader.from_batches(a.schema, a.to_batches())
    assert bk.diff(reader, a, key="id", changed_columns=False).num_rows == 0
    with pytest.raises(TypeError, match="a must be a pyarrow Table"):
        bk.diff([1, 2], a, key="id")
    with pytest.raises(FileNotFoundError, match="no such file"):
        bk.diff("/nonexistent/x.parquet", a, key="id")
    with pytest.raises(TypeError, match="column 'l' has type list<item: month_day_nano"):
        bk.table_digest(pa.table({"l": pa.array([[]], pa.list_(pa.month_day_nano_interval()))}))
    with pytest.raises(ValueError, match="memory_limit must be at least"):
        bk.table_digest(a, memory_limit=10)


def test_diff_of_columns_that_are_there_in_both():
    a = pa.table({"id": [1, 2], "v": ["a", "b"], "only_a": [0, 0]})
    b = pa.table({"id": [1, 2], "v": ["a", "B"], "only_b": [1, 1]})
    result = bk.diff(a, b, key="id", columns=["v"])
    assert result.to_pylist() == [{"id": 2, "change": "changed", "changed_columns": ["v"]}]


# ---------------------------------------------------------------------------------------------
# segment_digests


def test_one_segment_is_the_keyed_root():
    table = pa.table({"id": [4, 2, 9], "v": ["x", "y", "z"]})
    segments = bk.segment_digests(table, key="id", segments=1)
    assert segments.digests == (bk.table_digest(table, key="id").root,)
    assert segments.boundaries == () and segments.counts == (3,)


def test_more_segments_than_rows_is_one_segment_a_row_whatever_the_count():
    table = pa.table({"id": [3, 1, 2]})
    one_a_row = bk.segment_digests(table, key="id", boundaries=[2, 3])
    for count in (3, 4, 10**12, np.int64(2**62)):  # 10**12 ran for ever
        segments = bk.segment_digests(table, key="id", segments=count)
        assert segments.boundaries == (2, 3) and segments.counts == (1, 1, 1)
        assert segments.digest == one_a_row.digest
        assert segments.digests == tuple(
            ref.sha3(b"\x00" + ref.row_encoding({"id": v}, {"id": "int64"}, ["id"]))
            for v in (1, 2, 3)
        )
    empty = bk.segment_digests(table.slice(0, 0), key="id", segments=10**12)
    assert empty.counts == (0,) and empty.digests == (ref.sha3(b""),)


@pytest.mark.parametrize("limit", [10**12, 10**30])
def test_a_memory_limit_past_the_machine_is_the_machine(limit):
    table = pa.table({"id": [1, 2]})
    expected = bk.segment_digests(table, key="id", segments=2)
    got = bk.segment_digests(table, key="id", segments=2, memory_limit=limit)
    assert (got.digest, got.digests) == (expected.digest, expected.digests)
    assert bk.table_digest(table, key="id", memory_limit=limit) == bk.table_digest(table, key="id")
    assert bk.diff(table, table, key="id", memory_limit=limit).num_rows == 0


@pytest.mark.parametrize(
    "keywords, error, message",
    [
        ({"segments": 0}, ValueError, "^segments must be at least 1"),
        ({"segments": -(10**12)}, ValueError, "^segments must be at least 1"),
        ({"segments": 2.0}, TypeError, "^segments must be an int"),
        ({"segments": True}, TypeError, "^segments must be an int"),
        ({"threads": 0}, ValueError, "^threads"),
        ({"memory_limit": 10}, ValueError, "^memory_limit"),
        ({"memory_limit": 2.0**40}, TypeError, "^memory_limit"),
    ],
)
def test_segment_counts_are_checked(keywords, error, message):
    with pytest.raises(error, match=message):
        bk.segment_digests(pa.table({"id": [1]}), key="id", **keywords)


@pytest.mark.every_backend
@settings(max_examples=25)
@given(table_pairs(), st.integers(1, 9), st.booleans())
def test_bisection_finds_exactly_the_differing_ranges(pair, count, spill):
    before, after, types = pair
    a, b = arrow_table(before, types), arrow_table(after, types)
    limit = TINY_MEMORY if spill else None
    ours = bk.segment_digests(a, key="id", segments=count, memory_limit=limit)
    theirs = bk.segment_digests(b, key="id", boundaries=list(ours.boundaries))
    assert len(ours) == len(theirs) <= max(count, 1)
    assert sum(ours.counts) == a.num_rows and sum(theirs.counts) == b.num_rows
    assert list(ours.boundaries) == sorted(set(ours.boundaries))
    changed_keys = [k[0] for k, _, _ in ref.diff(before, after, types, ["id"])]

    def segment_of(key):
        return sum(1 for boundary in ours.boundaries if key >= boundary)

    expected = sorted({segment_of(k) for k in changed_keys})
    asked = []

    def remote(level, indices):
        asked.append(len(indices))
        return theirs.nodes(level, indices)

    assert differing_segments(ours, remote) == expected
    for index in expected:  # each differing segment's digest is proved against its root
        proof = theirs.proof(index)
        assert merkle.verify(
            theirs.digests[index],
            proof,
            theirs.root,
            scheme="rfc9162",
            index=index,
            size=len(theirs),
        )
    assert (ours.digest == theirs.digest) == (not expected)
    for index in range(len(ours)):
        low, high = ours.key_range(index)
        rows = [k for k in before["id"] if (low is None or k >= low) and (high is None or k < high)]
        assert len(rows) == ours.counts[index]


def test_segment_boundaries_of_a_composite_key_round_trip():
    table = pa.table({"s": ["b", "a", "a", "c"], "n": [1, 2, 1, 0], "v": [1, 2, 3, 4]})
    segments = bk.segment_digests(table, key=["s", "n"], segments=4)
    assert segments.boundaries == (("a", 2), ("b", 1), ("c", 0))
    again = bk.segment_digests(table, key=["s", "n"], boundaries=segments.boundaries)
    assert again.digests == segments.digests
    with pytest.raises(ValueError, match="strictly increasing"):
        bk.segment_digests(table, key=["s", "n"], boundaries=[("b", 1), ("a", 2)])
    with pytest.raises(TypeError, match="segments or boundaries"):
        bk.segment_digests(table, key="s", segments=2, boundaries=["a"])


@pytest.mark.parametrize("boundary", [10.5, -0.25, float("nan"), float("inf")])
def test_a_fractional_boundary_of_an_integer_key_is_refused(boundary):
    # It was truncated to 10: the segments were cut somewhere nobody asked for.
    table = pa.table({"id": list(range(300)), "n": pa.array(range(300), pa.int16())})
    for key in ("id", "n"):
        with pytest.raises(ValueError, match=r"^boundaries: .*not a whole number") as raised:
            bk.segment_digests(table, key=key, boundaries=[boundary])
        assert repr(key) in str(raised.value)
    # A float holding a whole number is that number, as segments= and the key agree.
    assert bk.segment_digests(table, key="id", boundaries=[10.0]).boundaries == (10,)
    assert bk.segment_digests(table, key="id", boundaries=[10.0]).counts == (10, 290)


def test_a_null_boundary_names_boundaries_not_the_table():
    table = pa.table({"s": ["a", "b"], "n": [1, 2]})
    for key, boundaries in (("n", [None]), (["s", "n"], [("a", None)])):
        with pytest.raises(ValueError, match=r"^boundaries: .*None") as raised:
            bk.segment_digests(table, key=key, boundaries=boundaries)
        assert "source" not in str(raised.value)


def test_keys_of_several_fixed_width_columns_and_of_time_types():
    rng = random.Random(9)
    pairs = sorted({(rng.randrange(3), rng.randrange(-5, 5)) for _ in range(40)})
    rng.shuffle(pairs)
    stamps = [1_700_000_000_000 + 1000 * k for k in range(len(pairs))]
    table = pa.table(
        {
            "a": pa.array([p[0] for p in pairs], pa.int16()),
            "b": [p[1] for p in pairs],
            "t": pa.array(stamps, pa.timestamp("ms")),
            "d": pa.array([19_000 + k for k in range(len(pairs))], pa.int32()).view(pa.date32()),
            "v": list(range(len(pairs))),
        }
    )
    changed = table.set_column(
        4, "v", pa.array([v if v % 5 else -v - 1 for v in range(len(pairs))])
    )
    expected = sorted(p for v, p in enumerate(pairs) if v % 5 == 0)
    for limit in (None, TINY_MEMORY):
        result = bk.diff(table, changed, key=["a", "b"], memory_limit=limit)
        assert list(zip(result["a"].to_pylist(), result["b"].to_pylist())) == expected
        assert result.schema.field("a").type == pa.int16()
    by_time = bk.diff(table, changed, key="t")
    assert by_time.schema.field("t").type == pa.timestamp("ms")
    assert len(by_time) == len(expected)
    segments = bk.segment_digests(table, key=["a", "b"], segments=5)
    starts = [-(-k * len(pairs) // 5) for k in range(1, 5)]  # ceil(k * rows / segments)
    assert list(segments.boundaries) == [sorted(pairs)[s] for s in starts]
    assert bk.segment_digests(table, key="d", segments=3).boundaries[0].__class__.__name__ == "date"


def test_a_table_digest_reads_like_hashlib():
    table = pa.table({"id": [2, 1]})
    result = bk.table_digest(table, key="id")
    expected, root = ref.table_digest({"id": [2, 1]}, {"id": "int64"}, ["id"])
    assert result.digest() == expected == bytes(result)
    assert result.hexdigest() == expected.hex()
    assert result.root == root
    assert repr(result) == (
        f"TableDigest('{expected.hex()}', algorithm='sha3_256', rows=2, key=('id',))"
    )
    assert result == bk.table_digest(table.take([1, 0]), key="id")
    assert result != bk.table_digest(table.slice(1), key="id")
    assert len({result, bk.table_digest(table, key="id")}) == 1  # hashable, by value


def test_a_reader_read_once_is_refused_the_second_time():
    # A read RecordBatchReader gives no more batches: its second digest would be the empty
    # table's, and a diff of a reader with itself every row removed.
    table = pa.table({"k": [1, 2, 3, 4], "v": ["a", "b", "c", "d"]})

    def reader() -> pa.RecordBatchReader:
        return pa.RecordBatchReader.from_batches(table.schema, table.to_batches())

    once = reader()
    assert bk.table_digest(once, key="k") == bk.table_digest(table, key="k")
    with pytest.raises(ValueError, match="source: this RecordBatchReader was read already"):
        bk.table_digest(once, key="k")
    same = reader()
    with pytest.raises(ValueError, match="a and b are one RecordBatchReader"):
        bk.diff(same, same, key="k", changed_columns=False)
    # A call refused before reading leaves the reader whole.
    untouched = reader()
    with pytest.raises(ValueError, match="no column named 'nope'"):
        bk.table_digest(untouched, key="nope")
    assert bk.table_digest(untouched, key="k") == bk.table_digest(table, key="k")
