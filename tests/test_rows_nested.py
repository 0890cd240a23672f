"""Nested values (lists of every kind, structs, maps) in row digests, table digests and diffs,
against a plain model of docs/arrow.md's encoding written here; and the flat types' digests
pinned as they were before nested values were added."""

from __future__ import annotations

import hashlib
import json
import struct

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from pyarrow import ipc
from table_reference import mth_of_leaves

import batchkeccak as bk
from batchkeccak.arrow import ENCODED_ROWS, encode_rows, hash_rows
from batchkeccak.inputs.arrow_types import logical_type

# ---------------------------------------------------------------------------------------------
# The model: docs/arrow.md, "The encoding" and "Nested values", from Python values and types


def tagged(body: bytes | None) -> bytes:
    return b"\x00" if body is None else b"\x01" + len(body).to_bytes(8, "little") + body


def value_bytes(value, arrow_type: pa.DataType) -> bytes:
    if pa.types.is_dictionary(arrow_type):
        return value_bytes(value, arrow_type.value_type)
    if pa.types.is_struct(arrow_type):
        return b"".join(field(value[f.name], f.type) for f in arrow_type)
    if pa.types.is_map(arrow_type):
        return b"".join(
            field(k, arrow_type.key_type) + field(v, arrow_type.item_type) for k, v in value
        )
    if hasattr(arrow_type, "value_type"):  # every list kind
        return b"".join(field(v, arrow_type.value_type) for v in value)
    if pa.types.is_boolean(arrow_type):
        return b"\x01" if value else b"\x00"
    if pa.types.is_integer(arrow_type):
        signed = pa.types.is_signed_integer(arrow_type)
        return value.to_bytes(arrow_type.bit_width // 8, "little", signed=signed)
    if pa.types.is_float64(arrow_type):
        return struct.pack("<d", value)
    if isinstance(value, str):
        return value.encode("utf-8")
    if isinstance(value, bytes):
        return value
    raise NotImplementedError(arrow_type)


def field(value, arrow_type: pa.DataType) -> bytes:
    if value is None or pa.types.is_null(arrow_type):
        return b"\x00"
    return tagged(value_bytes(value, arrow_type))


def model_rows(rows: list[dict], schema: pa.Schema) -> list[bytes]:
    return [b"".join(field(row[f.name], f.type) for f in schema) for row in rows]


def sha3(data: bytes) -> bytes:
    return hashlib.sha3_256(data).digest()


STRING_LIST = pa.list_(pa.string())
ADDRESS = pa.struct({"city": pa.string(), "zip": pa.int32()})
ATTRIBUTES = pa.map_(pa.string(), pa.string())


def nested_rows(count: int, seed: int = 0) -> list[dict]:
    """Rows of the issue's table: id, 0-8 tags, an address, 0-4 attributes; nulls at every
    level."""
    rng = np.random.default_rng(seed)
    rows = []
    for i in range(count):
        tags = [
            None if rng.random() < 0.1 else f"t{rng.integers(50)}" for _ in range(rng.integers(9))
        ]
        city = None if rng.random() < 0.1 else ["Oslo", "Lima", ""][rng.integers(3)]
        zip_code = None if rng.random() < 0.1 else int(rng.integers(-5, 99999))
        entries = [
            (f"k{j}", None if rng.random() < 0.2 else f"v{rng.integers(9)}")
            for j in range(rng.integers(5))
        ]
        rows.append(
            {
                "id": i,
                "tags": None if rng.random() < 0.1 else tags,
                "address": None if rng.random() < 0.1 else {"city": city, "zip": zip_code},
                "attributes": None if rng.random() < 0.1 else entries,
            }
        )
    return rows


NESTED_SCHEMA = pa.schema(
    {"id": pa.int64(), "tags": STRING_LIST, "address": ADDRESS, "attributes": ATTRIBUTES}
)


def encodings(batch: pa.RecordBatch) -> list[bytes]:
    rows = encode_rows(batch)
    return [rows.data[a:b].tobytes() for a, b in zip(rows.offsets[:-1], rows.offsets[1:])]


# ---------------------------------------------------------------------------------------------
# The encoding


def test_null_empty_and_one_null_list_encode_differently():
    column = pa.array([None, [], [None], [""]], STRING_LIST)
    assert encodings(pa.record_batch({"v": column})) == [
        bytes.fromhex("00"),
        bytes.fromhex("010000000000000000"),
        bytes.fromhex("01010000000000000000"),
        bytes.fromhex("010900000000000000010000000000000000"),
    ]


def test_null_struct_and_struct_of_nulls_encode_differently():
    column = pa.array([None, {"city": None, "zip": None}, {"city": "", "zip": 7}], ADDRESS)
    assert encodings(pa.record_batch({"v": column})) == [
        bytes.fromhex("00"),
        bytes.fromhex("0102000000000000000000"),
        bytes.fromhex("01160000000000000001000000000000000001040000000000000007000000"),
    ]


@pytest.mark.parametrize(
    ("first", "second", "arrow_type"),
    [
        ([["a", "b"]], [["ab"]], STRING_LIST),
        ([["a"], []], [[], ["a"]], STRING_LIST),
        ([[["a"], []]], [[[], ["a"]]], pa.list_(STRING_LIST)),
        ([[("a", "b")]], [[("ab", None)]], ATTRIBUTES),
        ([[("a", None)]], [[]], ATTRIBUTES),
    ],
)
def test_boundaries_are_never_confused(first, second, arrow_type):
    a = hash_rows(pa.table({"v": pa.array(first, arrow_type)}))
    b = hash_rows(pa.table({"v": pa.array(second, arrow_type)}))
    assert a.to_pylist() != b.to_pylist()


def test_the_issue_table_against_the_model_in_blocks_and_threads():
    rows = nested_rows(ENCODED_ROWS + 300)
    table = pa.Table.from_pylist(rows, schema=NESTED_SCHEMA)
    expected = [sha3(encoding) for encoding in model_rows(rows, NESTED_SCHEMA)]
    assert hash_rows(table, threads=2).to_pylist() == expected
    assert hash_rows(table, threads=1).to_pylist() == expected
    batch = table.slice(5, 40).combine_chunks().to_batches()[0]
    assert encodings(batch) == model_rows(rows[5:45], NESTED_SCHEMA)


LIST_KINDS = {
    "list": pa.list_,
    "large_list": pa.large_list,
    "list_view": pa.list_view,
    "large_list_view": pa.large_list_view,
}
DEEP = pa.struct(
    {
        "a": pa.list_(pa.struct({"x": pa.large_list(pa.int16()), "y": pa.null()})),
        "b": pa.map_(pa.int32(), pa.list_(pa.binary())),
        "c": pa.list_(pa.bool_(), 2),
        "d": pa.struct({}),
    }
)
DEEP_VALUES = [
    {
        "a": [{"x": [1, None, -3], "y": None}, None, {"x": None, "y": None}],
        "b": [(5, [b"", None]), (-1, None)],
        "c": [True, None],
        "d": {},
    },
    None,
    {"a": [], "b": [], "c": None, "d": None},
    {"a": None, "b": None, "c": [False, False], "d": {}},
]


@pytest.mark.parametrize("kind", sorted(LIST_KINDS))
def test_every_list_kind_encodes_its_values_alike(kind):
    values = [["ab", None], None, [], ["c"], [None]]
    arrow_type = LIST_KINDS[kind](pa.string())
    column = pa.array(values, arrow_type)
    expected = [field(v, STRING_LIST) for v in values]
    assert encodings(pa.record_batch({"v": column})) == expected
    assert encodings(pa.record_batch({"v": column.slice(1, 3)})) == expected[1:4]
    assert logical_type(arrow_type) == "list<string>"


def test_fixed_size_lists_deep_nesting_and_empty_structs():
    column = pa.array(DEEP_VALUES, DEEP)
    expected = [field(v, DEEP) for v in DEEP_VALUES]
    assert encodings(pa.record_batch({"v": column})) == expected
    assert encodings(pa.record_batch({"v": column.slice(2)})) == expected[2:]
    fixed = pa.array([[1, 2], None, [None, 4]], pa.list_(pa.int64(), 2))
    assert encodings(pa.record_batch({"v": fixed.slice(1)})) == [
        field(v, pa.list_(pa.int64())) for v in [None, [None, 4]]
    ]
    assert logical_type(fixed.type) == "list<int64>"


def test_dictionaries_and_views_inside_encode_as_their_values():
    words = pa.array(["x", None, "yz"], pa.string_view())
    dictionary = pa.DictionaryArray.from_arrays(pa.array([1, 0, 2, 2, None], pa.int8()), words)
    lists = pa.ListArray.from_arrays(pa.array([0, 2, 2, 5], pa.int32()), dictionary)
    values = [[None, "x"], [], ["yz", "yz", None]]
    assert encodings(pa.record_batch({"v": lists})) == [field(v, STRING_LIST) for v in values]
    assert logical_type(lists.type) == "list<string>"
    structs = pa.StructArray.from_arrays([words, dictionary.slice(2)], names=["w", "d"])
    expected = [{"w": "x", "d": "yz"}, {"w": None, "d": "yz"}, {"w": "yz", "d": None}]
    plain = pa.struct({"w": pa.string(), "d": pa.string()})
    assert encodings(pa.record_batch({"v": structs})) == [field(v, plain) for v in expected]


FLAT_CHILDREN = {
    "string": (pa.string(), lambda i: None if i % 7 == 3 else "x" * (i % 19)),
    "large_binary": (pa.large_binary(), lambda i: None if i % 5 == 1 else bytes(range(i % 17))),
    "string_view": (pa.string_view(), lambda i: "v" * (i % 23)),
    "int8": (pa.int8(), lambda i: None if i % 4 == 0 else i % 100 - 50),
    "int64": (pa.int64(), lambda i: i * 1_000_003 - 7),
    "float64": (pa.float64(), lambda i: None if i % 6 == 0 else i / 3),
    "bool": (pa.bool_(), lambda i: None if i % 9 == 0 else i % 2 == 0),
    "null": (pa.null(), lambda i: None),
}


@pytest.mark.parametrize("name", sorted(FLAT_CHILDREN))
def test_lists_maps_and_two_field_structs_of_every_flat_child(name):
    # The shapes whose elements are written straight into the rows from the child arrays
    # (values under and over a word, nulls, the last value of a buffer), against the model,
    # whole and sliced.
    child_type, value = FLAT_CHILDREN[name]
    rng = np.random.default_rng(len(name))
    lists, maps, structs = [], [], []
    for row in range(300):
        if row % 11 == 5:
            lists.append(None), maps.append(None), structs.append(None)
            continue
        picks = [int(i) for i in rng.integers(0, 60, int(rng.integers(0, 6)))]
        lists.append([value(i) for i in picks])
        maps.append([(f"k{i}", value(i)) for i in picks])
        structs.append({"a": value(row), "b": value(row + 1)})
    types = {
        "l": pa.list_(child_type),
        "ll": pa.large_list(child_type),
        "m": pa.map_(pa.string(), child_type),
        "s": pa.struct({"a": child_type, "b": child_type}),
        "s1": pa.struct({"a": child_type}),
    }
    columns = {
        "l": lists,
        "ll": lists,
        "m": maps,
        "s": structs,
        "s1": [None if v is None else {"a": v["a"]} for v in structs],
    }
    table = pa.table({k: pa.array(columns[k], types[k]) for k in types})
    rows = table.to_pylist()
    model = model_rows(rows, table.schema)
    for start, stop in ((0, 300), (1, 299), (37, 64), (299, 300)):
        batch = table.slice(start, stop - start).combine_chunks().to_batches()[0]
        assert encodings(batch) == model[start:stop]
    assert hash_rows(table, threads=2).to_pylist() == [sha3(m) for m in model]


def test_dictionaries_of_nested_values_encode_as_their_values():
    # Arrow builds dictionaries whose values are lists, structs and maps (Parquet cannot
    # write them); each row encodes as the value its index picks, a null index as a null.
    cases = [
        (pa.array([["a", None], [], None, ["b"]], STRING_LIST), STRING_LIST),
        (pa.array([{"city": "Oslo", "zip": 1}, None, {"city": None, "zip": None}], ADDRESS),
         ADDRESS),
        (pa.array([[("k", "v"), ("a", None)], [], None], ATTRIBUTES), ATTRIBUTES),
    ]  # fmt: skip
    for dictionary, plain in cases:
        indices = pa.array([2, None, 0, 1, 0, len(dictionary) - 1], pa.int8())
        column = pa.DictionaryArray.from_arrays(indices, dictionary)
        values = column.to_pylist()
        assert logical_type(column.type) == logical_type(plain)
        for start in (0, 1, 3):
            sliced = column.slice(start)
            assert encodings(pa.record_batch({"v": sliced})) == [
                field(v, plain) for v in values[start:]
            ]
        table = pa.table({"id": range(len(values)), "v": column})
        decoded = pa.table({"id": range(len(values)), "v": pa.array(values, plain)})
        assert hash_rows(table).to_pylist() == [
            sha3(field(i, pa.int64()) + field(v, plain)) for i, v in enumerate(values)
        ]
        assert bk.table_digest(table) == bk.table_digest(decoded)


def test_slices_inside_child_arrays():
    # a list array over a sliced child, itself sliced; a struct over sliced children
    child = pa.array(["pad", "pad", "a", None, "b", "c", "d", "pad"]).slice(2, 5)
    lists = pa.ListArray.from_arrays(pa.array([1, 1, 3, 5], pa.int32()), child)
    assert lists.to_pylist() == [[], [None, "b"], ["c", "d"]]
    for start in range(3):
        sliced = lists.slice(start)
        assert encodings(pa.record_batch({"v": sliced})) == [
            field(v, STRING_LIST) for v in sliced.to_pylist()
        ]
    structs = pa.StructArray.from_arrays(
        [pa.array([9, 1, 2, 3], pa.int32()).slice(1), child.slice(2)], names=["zip", "city"]
    )
    assert encodings(pa.record_batch({"v": structs.slice(1)})) == [
        field(v, structs.type) for v in structs.slice(1).to_pylist()
    ]
    maps = pa.MapArray.from_arrays(
        pa.array([0, 2, 3], pa.int32()),
        child.slice(2),
        pa.array(["v0", "v1", None, "x"]).slice(1),
    )
    assert maps.to_pylist() == [[("b", "v1"), ("c", None)], [("d", "x")]]
    for start in range(2):
        assert encodings(pa.record_batch({"v": maps.slice(start)})) == [
            field(v, ATTRIBUTES) for v in maps.slice(start).to_pylist()
        ]


def test_list_views_out_of_order_and_overlapping():
    values = pa.array(["a", "b", None, "c"])
    views = pa.ListViewArray.from_arrays(
        pa.array([2, 0, 1, 3], pa.int32()), pa.array([2, 3, 0, 1], pa.int32()), values
    )
    assert views.to_pylist() == [[None, "c"], ["a", "b", None], [], ["c"]]
    assert encodings(pa.record_batch({"v": views.slice(1)})) == [
        field(v, STRING_LIST) for v in views.slice(1).to_pylist()
    ]


def test_chunked_tables_give_the_rows_of_one_chunk():
    rows = nested_rows(50, seed=3)
    whole = pa.Table.from_pylist(rows, schema=NESTED_SCHEMA)
    chunked = pa.concat_tables([whole.slice(0, 7), whole.slice(7, 0), whole.slice(7)])
    expected = [sha3(e) for e in model_rows(rows, NESTED_SCHEMA)]
    assert hash_rows(chunked).to_pylist() == expected
    assert hash_rows(chunked, ["tags", "id"]).to_pylist() == [
        sha3(field(r["tags"], STRING_LIST) + field(r["id"], pa.int64())) for r in rows
    ]


def test_nested_types_without_an_encoding_are_refused():
    table = pa.table({"v": pa.array([[]], pa.list_(pa.month_day_nano_interval()))})
    with pytest.raises(TypeError, match=r"column 'v' has type list<item: month_day_nano"):
        hash_rows(table)


# ---------------------------------------------------------------------------------------------
# Flat digests, pinned: the hex below is hashlib.sha3_256 of the bytes spelled out beside it
# (docs/arrow.md's encoding), so that no change to the encoder can move a flat digest.

FLAT_TABLE = pa.table(
    {
        "i": pa.array([7, None], pa.int32()),
        "s": pa.array(["ab", ""]),
        "f": pa.array([1.5, -0.0]),
        "b": pa.array([True, None]),
        "u": pa.array([2**64 - 1, 0], pa.uint64()),
        "x": pa.array([b"\x00", None], pa.binary()),
    }
)
FLAT_ENCODINGS = [
    (
        "01" "0400000000000000" "07000000"
        "01" "0200000000000000" "6162"
        "01" "0800000000000000" "000000000000f83f"
        "01" "0100000000000000" "01"
        "01" "0800000000000000" "ffffffffffffffff"
        "01" "0100000000000000" "00"
    ),
    (
        "00"
        "01" "0000000000000000"
        "01" "0800000000000000" "0000000000000080"
        "00"
        "01" "0800000000000000" "0000000000000000"
        "00"
    ),
]  # fmt: skip
FLAT_DIGESTS = [
    "5dbadb8d2429a17bb2747cf86ca4e459690789b41fe77562c34571bae9d31058",
    "85699f8326e7187ceb5af423fdeb3d01d64e5cc9784ec4f70ee5f1ce9927c74f",
]


def test_flat_row_digests_are_pinned():
    assert [sha3(bytes.fromhex(e)).hex() for e in FLAT_ENCODINGS] == FLAT_DIGESTS
    assert hash_rows(FLAT_TABLE, hex=True).to_pylist() == FLAT_DIGESTS
    assert [e.hex() for e in encodings(FLAT_TABLE.to_batches()[0])] == FLAT_ENCODINGS


# ---------------------------------------------------------------------------------------------
# Tables


def model_table_digest(rows: list[dict], schema: pa.Schema, logical: dict, key=None) -> bytes:
    names = sorted(schema.names)
    sorted_schema = pa.schema([schema.field(n) for n in names])
    leaves = [sha3(b"\x00" + e) for e in model_rows(rows, sorted_schema)]
    if key is None:
        leaves.sort()
    else:
        leaves = [leaf for _, leaf in sorted(zip((r[key] for r in rows), leaves))]
    header = json.dumps(
        {
            "algorithm": "sha3_256",
            "columns": [[n, logical[n]] for n in names],
            "format": "batchkeccak-table-v1",
            "key": None if key is None else [key],
            "order": "digest" if key is None else "key",
            "rows": len(rows),
        },
        sort_keys=True,
        separators=(",", ":"),
    ).encode()
    return sha3(header + b"\n" + mth_of_leaves(leaves))


NESTED_LOGICAL = {
    "id": "int64",
    "tags": "list<string>",
    "address": 'struct<"city": string, "zip": int32>',
    "attributes": "map<string, string>",
}


@pytest.mark.slow
def test_table_digest_of_nested_columns_against_the_model(tmp_path):
    rows = nested_rows(200, seed=1)
    table = pa.Table.from_pylist(rows, schema=NESTED_SCHEMA)
    keyed = model_table_digest(rows, NESTED_SCHEMA, NESTED_LOGICAL, key="id")
    unkeyed = model_table_digest(rows, NESTED_SCHEMA, NESTED_LOGICAL)
    assert bk.table_digest(table, key="id", threads=1).digest() == keyed
    assert bk.table_digest(table, threads=2).digest() == unkeyed
    # the same table through Parquet, IPC, Polars, pandas and DuckDB
    pq.write_table(table, tmp_path / "t.parquet", row_group_size=64)
    with ipc.new_file(tmp_path / "t.arrow", table.schema) as writer:
        writer.write_table(table, max_chunksize=33)
    assert bk.table_digest(tmp_path / "t.parquet", key="id").digest() == keyed
    assert bk.table_digest(pq.read_table(tmp_path / "t.parquet"), key="id").digest() == keyed
    assert bk.table_digest(ipc.open_file(tmp_path / "t.arrow").read_all(), key="id").digest() == (
        keyed
    )
    polars = pytest.importorskip("polars")
    frame = polars.from_arrow(table)
    assert bk.table_digest(frame, key="id").digest() == keyed
    pandas = pytest.importorskip("pandas")
    assert bk.table_digest(table.to_pandas(types_mapper=pandas.ArrowDtype), key="id").digest() == (
        keyed
    )
    duckdb = pytest.importorskip("duckdb")
    connection = duckdb.connect()
    relation = connection.read_parquet(str(tmp_path / "t.parquet"))
    assert bk.table_digest(relation.arrow(), key="id").digest() == keyed


def test_segment_digests_take_nested_columns():
    rows = nested_rows(100, seed=2)
    table = pa.Table.from_pylist(rows, schema=NESTED_SCHEMA)
    chunked = pa.concat_tables([table.slice(0, 30), table.slice(30)])
    a = bk.segment_digests(table, key="id", segments=3)
    b = bk.segment_digests(chunked, key="id", segments=3)
    assert a.digests == b.digests and a.root == b.root


def test_a_nested_column_is_never_a_key():
    table = pa.Table.from_pylist(nested_rows(5), schema=NESTED_SCHEMA)
    for name in ("tags", "address", "attributes"):
        with pytest.raises(TypeError, match=rf"key column {name!r} has type .*nested"):
            bk.table_digest(table, key=name)
        with pytest.raises(TypeError, match=rf"key column {name!r}"):
            bk.diff(table, table, key=name)


def model_diff(rows_a: list[dict], rows_b: list[dict], schema: pa.Schema) -> list[tuple]:
    a = {r["id"]: r for r in rows_a}
    b = {r["id"]: r for r in rows_b}
    out = []
    for k in sorted(set(a) | set(b)):
        if k not in a:
            out.append((k, "added", None))
        elif k not in b:
            out.append((k, "removed", None))
        else:
            changed = sorted(
                f.name
                for f in schema
                if f.name != "id" and field(a[k][f.name], f.type) != field(b[k][f.name], f.type)
            )
            if changed:
                out.append((k, "changed", changed))
    return out


def changed_copy(rows: list[dict], seed: int) -> list[dict]:
    """``rows`` with a few rows removed, added and changed, each change one a model of the
    encoding tells apart (a null list for an empty one, a struct of nulls for a null one)."""
    rng = np.random.default_rng(seed)
    out = [dict(r) for r in rows if rng.random() > 0.02]
    for row in out:
        roll = rng.random()
        if roll < 0.02:
            row["tags"] = [] if row["tags"] is None else None
        elif roll < 0.04:
            row["address"] = {"city": None, "zip": None} if row["address"] is None else None
        elif roll < 0.06:
            row["attributes"] = list(reversed(row["attributes"] or [("k", "v")]))[:3]
        elif roll < 0.07:
            row["tags"] = (row["tags"] or []) + [None]
    out += [dict(r, id=r["id"] + 10_000) for r in rows[:3]]
    return out


def test_diff_of_nested_columns_against_the_model(tmp_path):
    rows_a = nested_rows(400, seed=4)
    rows_b = changed_copy(rows_a, seed=5)
    a = pa.Table.from_pylist(rows_a, schema=NESTED_SCHEMA)
    b = pa.Table.from_pylist(rows_b, schema=NESTED_SCHEMA)
    pq.write_table(a, tmp_path / "a.parquet", row_group_size=64)
    pq.write_table(b, tmp_path / "b.parquet", row_group_size=50)
    expected = model_diff(rows_a, rows_b, NESTED_SCHEMA)
    assert any(change == "changed" for _, change, _ in expected)
    pairs = [(a, b), (a, tmp_path / "b.parquet"), (tmp_path / "a.parquet", tmp_path / "b.parquet")]
    for one, other in pairs:  # two Parquet files too: the bench's 2M-row diff, at small scale
        result = bk.diff(one, other, key="id", threads=2)
        got = [(r["id"], r["change"], r["changed_columns"]) for r in result.to_pylist()]
        assert got == expected


def test_diff_refuses_nested_columns_of_other_logical_types():
    a = pa.table({"id": [1], "v": pa.array([["a"]], pa.list_(pa.string()))})
    b = pa.table({"id": [1], "v": pa.array([[1]], pa.list_(pa.int64()))})
    with pytest.raises(ValueError, match=r"'v' is list<string> in a and list<int64> in b"):
        bk.diff(a, b, key="id")
    c = pa.table({"id": [1], "v": pa.array([["a"]], pa.large_list(pa.string_view()))})
    assert bk.diff(a, c, key="id").num_rows == 0


def plain_diff(rows_a: list[dict], rows_b: list[dict]) -> list[tuple]:
    """A plain Python model of a keyed diff on ``id``: (id, change, changed columns)."""
    a = {r["id"]: r for r in rows_a}
    b = {r["id"]: r for r in rows_b}
    out = []
    for k in sorted(set(a) | set(b)):
        if k not in a or k not in b:
            out.append((k, "removed" if k in a else "added", None))
        elif changed := sorted(n for n in a[k] if n != "id" and a[k][n] != b[k][n]):
            out.append((k, "changed", changed))
    return out


def test_diff_of_polars_nested_columns_holding_views():
    # Polars lists and structs of strings hold string_view: the changed-columns pass took them
    # (ArrowNotImplementedError: array_take ... string_view) until views were cast at any depth.
    pl = pytest.importorskip("polars")
    rows_a = [
        {"id": 1, "tags": ["a"], "addr": {"city": "Oslo"}},
        {"id": 2, "tags": ["b"], "addr": {"city": "Rome"}},
        {"id": 3, "tags": None, "addr": None},
        {"id": 4, "tags": ["x", None], "addr": {"city": "Nice"}},
    ]
    rows_b = [
        {"id": 1, "tags": ["a"], "addr": {"city": "Oslo"}},
        {"id": 2, "tags": ["c"], "addr": {"city": "Paris"}},
        {"id": 3, "tags": [], "addr": None},
        {"id": 4, "tags": ["x", None], "addr": {"city": None}},
        {"id": 5, "tags": ["y"], "addr": {"city": "Bern"}},
    ]
    a, b = pl.DataFrame(rows_a), pl.DataFrame(rows_b)
    assert "string_view" in str(pa.table(a).schema)  # what Polars hands over
    result = bk.diff(a, b, key="id")
    got = [(r["id"], r["change"], r["changed_columns"]) for r in result.to_pylist()]
    assert got == plain_diff(rows_a, rows_b)


VIEW_NESTED_TYPES = {
    "list<string_view>": pa.list_(pa.string_view()),
    "large_list<binary_view>": pa.large_list(pa.binary_view()),
    "fixed_size_list<string_view>": pa.list_(pa.string_view(), 2),
    "struct<string_view>": pa.struct([("city", pa.string_view()), ("zip", pa.int32())]),
    "map<string, binary_view>": pa.map_(pa.string(), pa.binary_view()),
    "map<string_view, string_view>": pa.map_(pa.string_view(), pa.string_view()),
    "list<struct<list<string_view>>>": pa.list_(pa.struct([("l", pa.list_(pa.string_view()))])),
    "list<dictionary<string_view>>": pa.list_(pa.dictionary(pa.int8(), pa.string_view())),
    "list_view<string_view>": pa.list_view(pa.string_view()),
}

VIEW_NESTED_VALUES = {
    "list<string_view>": (["a", None], ["a", "b"], []),
    "large_list<binary_view>": ([b"a" * 20], [b"a" * 21], [None]),
    "fixed_size_list<string_view>": (["a", "b"], ["b", "a"], ["a", None]),
    "struct<string_view>": ({"city": "Oslo", "zip": 1}, {"city": "Rome", "zip": 1}, None),
    "map<string, binary_view>": ([("k", b"v")], [("k", b"w" * 20)], []),
    "map<string_view, string_view>": ([("k", "v")], [("j", "v")], [("k", None)]),
    "list<struct<list<string_view>>>": ([{"l": ["a"]}], [{"l": ["b"]}], [{"l": None}]),
    "list<dictionary<string_view>>": (["a", "a"], ["a", "b"], [None]),
    "list_view<string_view>": (["a"], ["b" * 20], []),
}


@pytest.mark.parametrize("name", sorted(VIEW_NESTED_TYPES))
def test_diff_of_nested_columns_holding_views_against_the_model(name):
    arrow_type = VIEW_NESTED_TYPES[name]
    first, second, third = VIEW_NESTED_VALUES[name]
    rows_a = [{"id": 1, "v": first}, {"id": 2, "v": first}, {"id": 3, "v": third}]
    rows_b = [{"id": 1, "v": first}, {"id": 2, "v": second}, {"id": 3, "v": first}]
    rows_b += [{"id": 4, "v": second}]

    def table(rows):
        ids = pa.array([r["id"] for r in rows], pa.int64())
        if name == "list<dictionary<string_view>>":  # pyarrow builds none from Python values
            plain = pa.list_(pa.dictionary(pa.int8(), pa.string()))
            values = pa.array([r["v"] for r in rows], plain).cast(arrow_type)
        else:
            values = pa.array([r["v"] for r in rows], arrow_type)
        assert values.type == arrow_type
        return pa.table({"id": ids, "v": values})

    a, b = table(rows_a), table(rows_b)
    expected = plain_diff(rows_a, rows_b)
    for one, other in ((a, b), (b, a)):
        result = bk.diff(one, other, key="id")
        got = [(r["id"], r["change"], r["changed_columns"]) for r in result.to_pylist()]
        assert got == (expected if one is a else plain_diff(rows_b, rows_a))


def test_dictionary_of_lists_of_views_encodes_as_its_values():
    # decoding a dictionary takes its values: a list of views there was refused by pyarrow
    values = [["a", None], ["b" * 20], None]
    dictionary = pa.array(values, pa.list_(pa.string_view()))
    coded = pa.DictionaryArray.from_arrays(pa.array([1, 0, None, 2, 0], pa.int8()), dictionary)
    plain = pa.array([values[1], values[0], None, None, values[0]], pa.list_(pa.string()))
    assert hash_rows(pa.table({"v": coded})) == hash_rows(pa.table({"v": plain}))


def test_struct_field_names_are_quoted_in_the_logical_type():
    # the documented form: each field name as a JSON string, in the type's order
    plain = pa.struct([("city", pa.string()), ("zip", pa.int32())])
    assert logical_type(plain) == 'struct<"city": string, "zip": int32>'
    odd = 'x<y>, z: "w\\'
    assert logical_type(pa.struct([(odd, pa.int8())])) == "struct<" + json.dumps(odd) + ": int8>"


def test_struct_field_names_never_make_two_tables_one_digest():
    # Unquoted, struct<a: binary, b: string, c: string> was the header of both tables, whose
    # rows encode the same bytes: one digest and a diff of no rows.
    t1_type = pa.struct([pa.field("a", pa.binary()), pa.field("b: string, c", pa.string())])
    t2_type = pa.struct([pa.field("a: binary, b", pa.string()), pa.field("c", pa.string())])
    t1 = pa.table({"id": [1, 2], "s": pa.array([{"a": b"hi", "b: string, c": "x"}, None], t1_type)})
    t2 = pa.table({"id": [1, 2], "s": pa.array([{"a: binary, b": "hi", "c": "x"}, None], t2_type)})
    assert encodings(t1.to_batches()[0]) == encodings(t2.to_batches()[0])
    assert bk.table_digest(t1, key="id") != bk.table_digest(t2, key="id")
    assert bk.table_digest(t1) != bk.table_digest(t2)
    with pytest.raises(ValueError, match=r"column 's' is struct<"):
        bk.diff(t1, t2, key="id")
    # every character a type name is written with, in field names that would read alike
    names = [("a", 'b": int8, "c'), ('a": int8, "b', "c"), ("a", "b>, c"), ("a>, b", "c")]
    names += [("a\\", "b"), ("a", "\\b"), ("a: int8, b<", "c"), ("a", "b: int8, c<")]
    digests = set()
    for first, second in names:
        t = pa.struct([(first, pa.int8()), (second, pa.int8())])
        table = pa.table({"s": pa.array([{first: 1, second: 2}], t)})
        digest = bk.table_digest(table)
        assert digest.columns == (
            ("s", f"struct<{json.dumps(first)}: int8, {json.dumps(second)}: int8>"),
        )
        digests.add(digest.hexdigest())
    assert len(digests) == len(names)


# ---------------------------------------------------------------------------------------------
# Engines


def test_duckdb_sql_hash_rows_of_list_struct_map_and_array():
    duckdb = pytest.importorskip("duckdb")
    from batchkeccak.duckdb import register

    connection = duckdb.connect()
    register(connection)
    query = (
        "SELECT 7::BIGINT AS id, ['a', NULL] AS tags, {'city': 'Oslo', 'zip': 150} AS address, "
        "MAP {'k': 'v', 'a': NULL} AS attributes, [1, 2]::INTEGER[2] AS pair, "
        "NULL::VARCHAR[] AS none, []::VARCHAR[] AS empty"
    )
    got = connection.execute(
        f"SELECT hash_rows(id, tags, address, attributes, pair, none, empty) FROM ({query})"
    ).fetchone()[0]
    expected = (
        field(7, pa.int64())
        + field(["a", None], STRING_LIST)
        + field({"city": "Oslo", "zip": 150}, ADDRESS)
        + field([("k", "v"), ("a", None)], ATTRIBUTES)
        + field([1, 2], pa.list_(pa.int32()))
        + field(None, STRING_LIST)
        + field([], STRING_LIST)
    )
    assert got == sha3(expected)
    with pytest.raises(duckdb.Error, match=r"a field of type list<.*interval.* has no row enc"):
        connection.execute("SELECT hash_rows([INTERVAL 1 DAY])").fetchall()


def test_polars_and_pandas_hash_rows_of_nested_columns():
    polars = pytest.importorskip("polars")
    pandas = pytest.importorskip("pandas")
    import batchkeccak.pandas  # the accessors
    import batchkeccak.polars  # noqa: F401

    rows = nested_rows(60, seed=6)
    table = pa.Table.from_pylist(rows, schema=NESTED_SCHEMA)
    expected = [sha3(e) for e in model_rows(rows, NESTED_SCHEMA)]
    frame = table.to_pandas(types_mapper=pandas.ArrowDtype)
    assert frame.bk.hash_rows().tolist() == expected
    without_map = NESTED_SCHEMA.remove(NESTED_SCHEMA.get_field_index("attributes"))
    frame = polars.from_arrow(table.drop_columns(["attributes"]))
    got = frame.select(d=polars.struct(polars.all()).bk.hash_rows())["d"].to_list()
    assert got == [sha3(e) for e in model_rows(rows, without_map)]
