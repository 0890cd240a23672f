"""Every flat Arrow type, in every layout, through every entry point that takes a column.

The independent model: a column's values decide every result, not how they lie in memory. So
each form of a column (sliced, chunked, large, view, a dictionary with nulls in its indices
or in its values) must give what the plain form of the same values gives, and a null
dictionary entry must be a null. The plain form itself is checked against hashlib in
tests/test_rows.py and tests/table_reference.py; here it is only the yardstick.

Types no consumer encodes (lists, structs, maps, intervals...) must be refused by every
entry point with a TypeError naming the column and its type; key types that make no key
(floats, decimals, the null type) likewise by the key encoder.
"""

from __future__ import annotations

import datetime
import decimal
import re

import pyarrow as pa
import pytest

import batchkeccak as bk
from batchkeccak.arrow import encode_rows, hash_array, hash_rows
from batchkeccak.inputs.arrow_types import ARROW_TYPES, logical_type, type_rule

N = None
FLAT = {
    # name: (type, values with nulls; the non-null values are distinct)
    "int8": (pa.int8(), [-128, 0, N, 127, 5, -1]),
    "int16": (pa.int16(), [-300, 0, N, 300, 7, -2]),
    "int32": (pa.int32(), [-(2**31), 0, N, 2**31 - 1, 9, -3]),
    "int64": (pa.int64(), [-(2**63), 0, N, 2**63 - 1, 11, -4]),
    "uint8": (pa.uint8(), [0, 255, N, 1, 128, 3]),
    "uint16": (pa.uint16(), [0, 65535, N, 1, 256, 3]),
    "uint32": (pa.uint32(), [0, 2**32 - 1, N, 1, 2**16, 3]),
    "uint64": (pa.uint64(), [0, 2**64 - 1, N, 1, 2**32, 3]),
    "float32": (pa.float32(), [0.5, -0.0, N, 1e30, -2.25, 3.0]),
    "float64": (pa.float64(), [0.5, -0.0, N, 1e300, -2.25, float("inf")]),
    "bool": (pa.bool_(), [True, N, False]),
    "date32": (pa.date32(), [datetime.date(1970, 1, 1), N, datetime.date(2024, 2, 29)]),
    "date64": (pa.date64(), [datetime.date(1969, 12, 31), N, datetime.date(2000, 1, 1)]),
    "time32": (pa.time32("s"), [datetime.time(0, 0, 1), N, datetime.time(23, 59, 59)]),
    "time64": (pa.time64("us"), [datetime.time(0, 0, 0, 1), N, datetime.time(12, 0)]),
    "timestamp": (pa.timestamp("ms"), [0, N, -1, 1_700_000_000_000]),
    "timestamp_tz": (pa.timestamp("us", "UTC"), [0, N, -1, 1_700_000_000_000_000]),
    "timestamp_zone": (pa.timestamp("ns", "Asia/Kolkata"), [0, N, 5, -7]),
    "duration": (pa.duration("us"), [0, N, -5, 10**12]),
    "decimal128": (pa.decimal128(10, 2), [decimal.Decimal("1.25"), N, decimal.Decimal("-3.5")]),
    "decimal256": (pa.decimal256(40, 0), [decimal.Decimal(10**39), N, decimal.Decimal(-1)]),
    "string": (pa.string(), ["", "a", N, "caf\u00e9", "x" * 20, "\x00b"]),
    "binary": (pa.binary(), [b"", b"\x00", N, b"abc" * 9, b"\xff", b"q"]),
    "fixed_size_binary": (pa.binary(3), [b"abc", b"\x00\x00\x00", N, b"xyz"]),
    "null": (pa.null(), [N, N, N]),
}
LARGE = {"string": pa.large_string(), "binary": pa.large_binary()}
VIEW = {"string": pa.string_view(), "binary": pa.binary_view()}
REFUSED = {
    "list of intervals": (pa.list_(pa.month_day_nano_interval()), [[], N, []]),
    "struct with an interval": (
        pa.struct([("a", pa.int8()), ("b", pa.month_day_nano_interval())]),
        [{"a": 1, "b": N}, N, {"a": 2, "b": N}],
    ),
    "map to intervals": (pa.map_(pa.string(), pa.month_day_nano_interval()), [[], N, []]),
    "interval": (pa.month_day_nano_interval(), [pa.MonthDayNano([1, 2, 3]), N, N]),
}
NO_KEY = {"float32", "float64", "decimal128", "decimal256", "null"}


def dictionary(arrow_type: pa.DataType, values: list, null_entries: bool) -> pa.Array:
    """``values`` as a dictionary array: a null row is a null index, or (``null_entries``) an
    index pointing at a null entry of the dictionary."""
    distinct = [v for v in dict.fromkeys(v for v in values if v is not None)]
    if null_entries:
        entries = [*distinct, None]
        indices = [entries.index(v) for v in values]
    else:
        entries = distinct
        indices = [None if v is None else entries.index(v) for v in values]
    return pa.DictionaryArray.from_arrays(
        pa.array(indices, pa.int32()), pa.array(entries, arrow_type)
    )


def forms(name: str) -> dict[str, pa.Array | pa.ChunkedArray]:
    """The column of ``FLAT[name]`` in every layout, same values in the same order."""
    arrow_type, values = FLAT[name]
    padded = pa.array([values[-1], *values, values[0]], arrow_type)
    out: dict[str, pa.Array | pa.ChunkedArray] = {
        "sliced": padded.slice(1, len(values)),
        "chunked": pa.chunked_array(
            [values[:1], [], values[1:]],
            type=arrow_type,
        ),
    }
    if name in LARGE:
        out["large"] = pa.array(values, LARGE[name])
        out["view"] = pa.array(values, VIEW[name])
        out["view dictionary"] = dictionary(VIEW[name], values, null_entries=True)
    if name != "null":
        out["dictionary"] = dictionary(arrow_type, values, null_entries=False)
        out["dictionary, null entries"] = dictionary(arrow_type, values, null_entries=True)
        sliced = dictionary(arrow_type, [values[-1], *values], null_entries=True)
        out["sliced dictionary"] = sliced.slice(1)
    return out


def plain(name: str) -> pa.Array:
    arrow_type, values = FLAT[name]
    return pa.array(values, arrow_type)


def table_of(column: pa.Array | pa.ChunkedArray, key: list | None = None) -> pa.Table:
    rows = len(column)
    return pa.table({"k": key if key is not None else list(range(rows)), "v": column})


def digest_of(table: pa.Table, **options: object) -> bytes:
    return bk.table_digest(table, **options).digest()


def segments_of(table: pa.Table, key: str) -> tuple:
    result = bk.segment_digests(table, key=key, segments=2)
    return result.root, result.digests, result.boundaries, result.columns


def non_null(name: str) -> list:
    return [v for v in FLAT[name][1] if v is not None]


def test_the_matrix_covers_every_row_of_the_type_table():
    covered = {type_rule(arrow_type).name for arrow_type, _ in FLAT.values()}
    covered |= {type_rule(t).name for t in (*LARGE.values(), *VIEW.values())}
    # the nested rows: tests/test_rows_nested.py
    nested = (pa.list_(pa.int8()), pa.struct([("a", pa.int8())]), pa.map_(pa.int8(), pa.int8()))
    covered |= {type_rule(t).name for t in nested}
    assert covered == {rule.name for rule in ARROW_TYPES}


@pytest.mark.parametrize("name", sorted(FLAT))
def test_every_form_gives_the_plain_forms_results(name):
    reference = table_of(plain(name))
    expected_rows = hash_rows(reference, ["k", "v"]).to_pylist()
    expected_encoding = encode_rows(reference.to_batches()[0])
    expected_digest = digest_of(reference)
    expected_keyed = digest_of(reference, key="k")
    expected_segments = segments_of(reference, "k")
    hashes_values = type_rule(FLAT[name][0]).values
    if hashes_values:
        expected_values = hash_array(plain(name)).to_pylist()
    swapped = reference["v"].take([1, 0, *range(2, len(reference))])
    changed = pa.table({"k": reference["k"], "v": swapped})
    for form, column in forms(name).items():
        table = table_of(column)
        where = f"{name}, {form}"
        assert hash_rows(table, ["k", "v"]).to_pylist() == expected_rows, where
        batch = table.combine_chunks().to_batches()[0]
        assert bytes(encode_rows(batch).data) == bytes(expected_encoding.data), where
        assert digest_of(table) == expected_digest, where
        assert digest_of(table, key="k") == expected_keyed, where
        assert segments_of(table, "k") == expected_segments, where
        if hashes_values:
            assert hash_array(column).to_pylist() == expected_values, where
        same = bk.diff(table, reference, key="k")
        assert same.num_rows == 0, where
        if name != "null":
            # Rows 0 and 1 swapped: both changed in v, found by the second pass.
            result = bk.diff(table, changed, key="k")
            assert result.column("k").to_pylist() == [0, 1], where
            assert result.column("changed_columns").to_pylist() == [["v"], ["v"]], where


@pytest.mark.parametrize("name", sorted(set(FLAT) - NO_KEY))
def test_every_form_as_a_key(name):
    values = non_null(name)
    reference = pa.table({"v": pa.array(values, FLAT[name][0]), "x": range(len(values))})
    expected = digest_of(reference, key="v")
    expected_segments = segments_of(reference, "v")
    arrow_type = FLAT[name][0]
    variants = {
        "sliced": pa.array([values[-1], *values], arrow_type).slice(1),
        "dictionary": dictionary(arrow_type, values, null_entries=True),
    }
    if name in LARGE:
        variants["large"] = pa.array(values, LARGE[name])
        variants["view"] = pa.array(values, VIEW[name])
        variants["view dictionary"] = dictionary(VIEW[name], values, null_entries=True)
    for form, column in variants.items():
        table = pa.table({"v": column, "x": range(len(values))})
        assert digest_of(table, key="v") == expected, form
        assert segments_of(table, "v") == expected_segments, form
        assert bk.diff(table, reference, key="v").num_rows == 0, form
        # One value changed: the key is removed and another added.
        edited = reference.slice(1)
        result = bk.diff(table, edited, key="v")
        assert result.column("change").to_pylist() == ["removed"], form


@pytest.mark.parametrize("name", sorted(set(FLAT) - NO_KEY))
@pytest.mark.parametrize("null_entries", [False, True])
def test_a_null_key_is_refused_in_every_form(name, null_entries):
    # Nulls in the dictionary's values are null keys as much as null indices are.
    arrow_type, values = FLAT[name]
    table = pa.table({"v": dictionary(arrow_type, values, null_entries), "x": range(len(values))})
    other = pa.table({"v": pa.array(non_null(name), arrow_type), "x": range(len(values) - 1)})
    calls = {
        "table_digest": lambda: bk.table_digest(table, key="v"),
        "segment_digests": lambda: bk.segment_digests(table, key="v"),
        "diff": lambda: bk.diff(table, other, key="v"),
    }
    for run in calls.values():
        with pytest.raises(ValueError, match=r"key column 'v' holds 1 null"):
            run()


@pytest.mark.parametrize("name", sorted(NO_KEY))
def test_a_type_that_makes_no_key_is_refused(name):
    table = table_of(plain(name))
    with pytest.raises(TypeError, match=r"key column 'v' has type"):
        bk.table_digest(table, key="v")
    with pytest.raises(TypeError, match=r"key column 'v' has type"):
        bk.segment_digests(table, key="v")
    with pytest.raises(TypeError, match=r"key column 'v' has type"):
        bk.diff(table, table, key="v")


@pytest.mark.parametrize("name", sorted(REFUSED))
@pytest.mark.parametrize("as_dictionary", [False, True])
def test_refused_types_name_the_column_and_type(name, as_dictionary):
    arrow_type, values = REFUSED[name]
    column = pa.array(values, arrow_type)
    if as_dictionary:
        column = pa.DictionaryArray.from_arrays(pa.array([2, 0, N], pa.int8()), column)
    table = table_of(column)
    pattern = rf"'v' has type {re.escape(str(column.type))}"
    calls = {
        "hash_rows": lambda: hash_rows(table),
        "table_digest": lambda: bk.table_digest(table),
        "table_digest key": lambda: bk.table_digest(table, key="k"),
        "segment_digests": lambda: bk.segment_digests(table, key="k"),
        "diff": lambda: bk.diff(table, table, key="k"),
        "key": lambda: bk.table_digest(table, key="v"),
    }
    for run in calls.values():
        with pytest.raises(TypeError, match=pattern):
            run()
    with pytest.raises(TypeError, match=r"values has type"):
        hash_array(column)


@pytest.mark.parametrize("name", sorted(FLAT))
def test_header_types_ignore_the_layout(name):
    arrow_type = FLAT[name][0]
    expected = logical_type(arrow_type)
    for form, column in forms(name).items():
        assert logical_type(column.type) == expected, form


def test_a_time_zone_is_not_part_of_the_logical_type():
    # A timestamp with a time zone stores UTC instants: every zone is ``tz=UTC``.
    for zone in ("UTC", "Etc/UTC", "America/New_York", "+05:30"):
        assert logical_type(pa.timestamp("us", zone)) == "timestamp[us, tz=UTC]"
    assert logical_type(pa.timestamp("us")) == "timestamp[us]"
    assert logical_type(pa.timestamp("ns", "UTC")) == "timestamp[ns, tz=UTC]"


# -- the defects the table removed ----------------------------------------------------------


@pytest.mark.parametrize(
    ("entries", "plain_values"), [(["x", None, "z"], ["x", "", "z"]), ([5, None, 7], [5, 0, 7])]
)
def test_a_null_dictionary_entry_is_no_key(entries, plain_values):
    # A valid index pointing at a null entry: the key encoder read nulls before decoding the
    # dictionary, and took the entry's slot as "" or 0 (diff found no difference).
    keys = pa.DictionaryArray.from_arrays(pa.array([0, 1, 2], pa.int32()), pa.array(entries))
    a = pa.table({"k": keys, "v": [1, 2, 3]})
    b = pa.table({"k": plain_values, "v": [1, 2, 3]})
    with pytest.raises(ValueError, match=r"a: key column 'k' holds 1 null"):
        bk.diff(a, b, key="k")
    with pytest.raises(ValueError, match=r"source: key column 'k' holds 1 null"):
        bk.table_digest(a, key="k")
    with pytest.raises(ValueError, match=r"source: key column 'k' holds 1 null"):
        bk.segment_digests(a, key="k")
    # TupleHash has no null: the entry is refused there too, not hashed as an empty field.
    with pytest.raises(ValueError, match=r"column 'k' has nulls"):
        hash_rows(a, ["k"], "tuplehash_256", length=32, encoding="tuplehash")


def test_diff_of_polars_frames_names_the_changed_columns():
    # Polars exports string_view / binary_view, which pyarrow cannot take or filter: the
    # second pass failed as soon as one row changed.
    pl = pytest.importorskip("polars")
    a = pl.DataFrame({"k": [1, 2, 3], "s": ["a", "b", "c"], "b": [b"a", b"b", b"c"]})
    b = pl.DataFrame({"k": [1, 2, 3], "s": ["a", "X", "c"], "b": [b"a", b"b", b"Z"]})
    result = bk.diff(a, b, key="k")
    assert result.column("k").to_pylist() == [2, 3]
    assert result.column("changed_columns").to_pylist() == [["s"], ["b"]]
    keyed = bk.diff(a, b.with_columns(pl.col("s").alias("s")), key="s")
    assert sorted(keyed.column("change").to_pylist()) == ["added", "changed", "removed"]


def test_one_digest_for_one_timestamp_table_in_any_reader_and_time_zone(tmp_path):
    # DuckDB exports a UTC timestamp in its session's time zone (tz=Etc/UTC,
    # tz=America/New_York...); the instants are the same, so is the digest.
    duckdb = pytest.importorskip("duckdb")
    pl = pytest.importorskip("polars")
    pd = pytest.importorskip("pandas")
    import pyarrow.parquet as pq

    instants = [0, 1_700_000_000_000_000, 86_400_000_000, -1]
    table = pa.table({"k": [1, 2, 3, 4], "ts": pa.array(instants, pa.timestamp("us", "UTC"))})
    path = tmp_path / "t.parquet"
    pq.write_table(table, path)
    expected = bk.table_digest(path)
    expected_keyed = bk.table_digest(path, key="k")
    assert dict(expected.columns)["ts"] == "timestamp[us, tz=UTC]"
    readers = {
        "polars": pl.read_parquet(path),
        "pandas": pd.read_parquet(path, dtype_backend="pyarrow"),
        "another zone": table.cast(
            pa.schema([("k", pa.int64()), ("ts", pa.timestamp("us", "Asia/Kolkata"))])
        ),
    }
    connections = []
    for zone in ("Etc/UTC", "America/New_York"):
        connection = duckdb.connect()
        connection.execute(f"SET TimeZone = '{zone}'")
        connections.append(connection)
        relation = connection.read_parquet(str(path))
        assert zone in str(relation.arrow().schema.field("ts").type)
        readers[f"duckdb {zone}"] = relation
    for name, source in readers.items():
        assert bk.table_digest(source) == expected, name
        assert bk.table_digest(source, key="k") == expected_keyed, name
        assert bk.diff(source, path, key="k").num_rows == 0, name
        # The timestamp as the key: zones of one instant match.
        assert bk.diff(source, path, key="ts").num_rows == 0, name
    naive = table.cast(pa.schema([("k", pa.int64()), ("ts", pa.timestamp("us"))]))
    assert dict(bk.table_digest(naive).columns)["ts"] == "timestamp[us]"
    assert bk.table_digest(naive) != expected
