"""``exclude=`` of table_digest / diff / segment_digests and ``widen=`` of diff, against a plain
model: hashlib over the documented row encoding (tests/table_reference.py) and Python dicts
compared value by value."""

from __future__ import annotations

import random

import pyarrow as pa
import pytest
from table_reference import changes
from table_reference import table_digest as model_digest

import batchkeccak as bk

INT_TYPES = {
    "int8": pa.int8(), "int16": pa.int16(), "int32": pa.int32(), "int64": pa.int64(),
    "uint8": pa.uint8(), "uint16": pa.uint16(), "uint32": pa.uint32(), "uint64": pa.uint64(),
}  # fmt: skip


def _with_nested(rows: int = 20) -> tuple[pa.Table, dict, dict]:
    ids = list(range(rows))
    values = [i * 3 - 7 for i in ids]
    names = [None if i % 5 == 0 else f"n{i}" for i in ids]
    table = pa.table(
        {
            "id": pa.array(ids, pa.int64()),
            "tags": pa.array([[i, i + 1] for i in ids], pa.list_(pa.int64())),
            "v": pa.array(values, pa.int32()),
            "name": pa.array(names, pa.string()),
            "meta": pa.array([{"x": i} for i in ids]),
        }
    )
    plain = {"id": ids, "v": values, "name": names}
    types = {"id": "int64", "v": "int32", "name": "string"}
    return table, plain, types


def test_exclude_leaves_list_and_struct_columns_out():
    table, plain, types = _with_nested()
    expected, root = model_digest(plain, types)
    result = bk.table_digest(table, exclude=["tags", "meta"], threads=1)
    assert result.digest() == expected and result.root == root
    keyed, keyed_root = model_digest(plain, types, key=["id"])
    result = bk.table_digest(table, key="id", exclude=["tags", "meta"], threads=1)
    assert result.digest() == keyed and result.root == keyed_root
    # without exclude, the nested columns are covered too
    assert bk.table_digest(table, threads=1).digest() != expected


def test_exclude_in_segment_digests_equals_naming_the_rest():
    table, _, _ = _with_nested()
    left_out = bk.segment_digests(table, key="id", exclude=("tags", "meta"), segments=3)
    named = bk.segment_digests(table, key="id", columns=["v", "name"], segments=3)
    assert left_out.digest == named.digest and left_out.digests == named.digests


@pytest.mark.parametrize(
    ("kwargs", "error", "match"),
    [
        ({"exclude": "nope"}, ValueError, r"exclude: source has no column named 'nope'"),
        ({"exclude": ["id"], "key": "id"}, ValueError, r"exclude: 'id' is a key column"),
        ({"exclude": "tags", "columns": "v"}, TypeError, r"columns or exclude, not both"),
        ({"exclude": 3}, TypeError, r"exclude must be a column name"),
        ({"exclude": []}, ValueError, r"exclude must name at least one column"),
        ({"exclude": ["id", "tags", "v", "name", "meta"]}, ValueError, r"no column to cover"),
    ],
)
def test_exclude_refuses(kwargs, error, match):
    table, _, _ = _with_nested()
    with pytest.raises(error, match=match):
        bk.table_digest(table, threads=1, **kwargs)
    if "key" in kwargs or "columns" in kwargs:
        with pytest.raises(error, match=match):
            bk.segment_digests(table, **{"key": "id", **kwargs})


def model_diff(a: dict, b: dict, key: str, compared: list[str]) -> list[tuple]:
    """(key, change, changed columns) in key order: rows compared value by value."""
    rows_a = {k: {c: a[c][i] for c in compared} for i, k in enumerate(a[key])}
    rows_b = {k: {c: b[c][i] for c in compared} for i, k in enumerate(b[key])}
    return changes(rows_a, rows_b, lambda ra, rb: [c for c in compared if ra[c] != rb[c]])


def _rows(result: pa.Table, key: str) -> list[tuple]:
    return [(row[key], row["change"], row["changed_columns"]) for row in result.to_pylist()]


def test_diff_exclude_leaves_out_nested_and_one_sided_columns():
    rng = random.Random(5)
    ids_a = list(range(40))
    ids_b = [i for i in range(5, 50) if i != 20]
    a = {"id": ids_a, "x": [rng.randrange(3) for _ in ids_a], "s": [str(i) for i in ids_a]}
    b = {"id": ids_b, "x": [rng.randrange(3) for _ in ids_b], "s": [str(i) for i in ids_b]}
    table_a = pa.table({**a, "nested": [[i] for i in ids_a]})
    table_b = pa.table({**b, "nested": [[i] for i in ids_b], "added_later": ids_b})
    result = bk.diff(table_a, table_b, key="id", exclude=["nested", "added_later"], threads=1)
    assert _rows(result, "id") == model_diff(a, b, "id", ["s", "x"])
    with pytest.raises(ValueError, match=r"exclude: neither a nor b has a column named 'zz'"):
        bk.diff(table_a, table_b, key="id", exclude="zz")
    with pytest.raises(ValueError, match=r"exclude: 'id' is a key column"):
        bk.diff(table_a, table_b, key="id", exclude=["nested", "id"])
    with pytest.raises(TypeError, match=r"columns or exclude, not both"):
        bk.diff(table_a, table_b, key="id", exclude="nested", columns="x")


@pytest.mark.parametrize(
    ("type_a", "type_b"),
    [("int32", "int64"), ("int8", "int16"), ("uint16", "uint64"), ("uint8", "uint32")],
)
def test_widen_compares_integers_by_value(type_a, type_b):
    rng = random.Random(type_a + type_b)
    low, high = (0, 200) if type_a.startswith("u") else (-100, 100)
    ids = list(range(60))
    a = {"id": ids, "n": [rng.randrange(low, high) for _ in ids]}
    b = {"id": ids[3:] + [99], "n": [rng.choice([v, v + 1]) for v in a["n"][3:]] + [1]}
    table_a = pa.table({"id": ids, "n": pa.array(a["n"], INT_TYPES[type_a])})
    table_b = pa.table({"id": b["id"], "n": pa.array(b["n"], INT_TYPES[type_b])})
    expected = model_diff(a, b, "id", ["n"])
    assert _rows(bk.diff(table_a, table_b, key="id", widen=True, threads=1), "id") == expected
    # the same column on both sides (one width): widen changes nothing reported
    same = pa.table({"id": b["id"], "n": pa.array(b["n"], INT_TYPES[type_a])})
    assert _rows(bk.diff(table_a, same, key="id", widen=True), "id") == expected
    assert _rows(bk.diff(table_a, same, key="id"), "id") == expected
    with pytest.raises(ValueError, match=r"widen=True"):
        bk.diff(table_a, table_b, key="id")


def test_widen_dictionary_integers_and_unchanged_table_digest():
    a = pa.table({"id": [1, 2, 3], "n": pa.array([5, 6, 7], pa.int16()).dictionary_encode()})
    b = pa.table({"id": [1, 2, 3], "n": pa.array([5, 6, 8], pa.int64())})
    result = bk.diff(a, b, key="id", widen=True)
    assert _rows(result, "id") == [(3, "changed", ["n"])]
    # table_digest of one side keeps its own digest: the int16 values as int16
    plain = {"id": [1, 2, 3], "n": [5, 6, 7]}
    expected, _ = model_digest(plain, {"id": "int64", "n": "int16"}, key=["id"])
    assert bk.table_digest(a, key="id").digest() == expected


def test_widen_refuses_signed_against_unsigned():
    a = pa.table({"id": [1], "n": pa.array([1], pa.int32())})
    b = pa.table({"id": [1], "n": pa.array([1], pa.uint32())})
    with pytest.raises(ValueError, match=r"one signedness"):
        bk.diff(a, b, key="id", widen=True)
    with pytest.raises(TypeError, match=r"widen must be a bool"):
        bk.diff(a, b, key="id", widen="yes")
