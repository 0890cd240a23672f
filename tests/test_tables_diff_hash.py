"""``diff``'s own row digest: TurboSHAKE128 by default, with the same result as a plain
Python model (tests/table_reference.py, which compares the rows' encodings themselves) and as
SHA3-256 row digests, on tables whose rows differ only in ways a row digest must tell apart."""

from __future__ import annotations

import pyarrow as pa
import pytest
import table_reference as ref
from Crypto.Hash import TurboSHAKE128

import batchkeccak as bk
from batchkeccak.tables import changes, runs

TINY_MEMORY = 1 << 16
"""The smallest memory_limit: small tables spill many runs."""

TYPES = {"id": "int64", "s": "string", "t": "string", "b": "binary", "n": "int32"}
ARROW = {"int64": pa.int64(), "int32": pa.int32(), "string": pa.string(), "binary": pa.binary()}


def _table(columns: dict) -> pa.Table:
    return pa.table(
        {name: pa.array(values, ARROW[TYPES[name]]) for name, values in columns.items()}
    )


def _rows(result: pa.Table) -> list[tuple]:
    return [((row["id"],), row["change"], row["changed_columns"]) for row in result.to_pylist()]


# Each pair of rows under one id differs only where a careless row digest would not see it:
# a value moved across a column boundary, a null against an empty value or a zero, a zero
# byte against nothing; some rows are equal to another key's row, and some stay the same.
BEFORE = {
    "id": [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12],
    "s": ["ab", "a", None, "", "x", "same", "same", "\x00", "", None, "dup", "k"],
    "t": ["c", "bc", "", None, "y", "same", "same", "", "\x00", None, "dup", "k"],
    "b": [b"", b"", b"\x00", None, b"", b"=", b"=", b"", b"", b"", b"d", None],
    "n": [0, 0, None, 0, 7, 1, 1, 0, 0, None, 3, 0],
}
AFTER = {
    "id": [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 13],
    "s": ["a", "ab", "", None, "x", "same", "same", "", "\x00", "", "dup", "k"],
    "t": ["bc", "c", None, "", "y", "same", "same", "\x00", "", None, "dup", "k"],
    "b": [b"", b"", b"", b"\x00", b"", b"=", b"=", b"", b"", b"", b"d", None],
    "n": [0, 0, None, 0, None, 1, 1, 0, 0, None, 3, 0],
}


@pytest.mark.parametrize("memory_limit", [None, TINY_MEMORY])
def test_the_default_row_digest_gives_the_reference_diff(memory_limit):
    a, b = _table(BEFORE), _table(AFTER)
    expected = ref.diff(BEFORE, AFTER, TYPES, ["id"])
    assert [k for k, _, _ in expected] == [
        (1,),
        (2,),
        (3,),
        (4,),
        (5,),
        (8,),
        (9,),
        (10,),
        (12,),
        (13,),
    ]
    result = bk.diff(a, b, key="id", memory_limit=memory_limit)
    assert _rows(result) == expected
    named = bk.diff(a, b, key="id", algorithm="sha3_256", memory_limit=memory_limit)
    assert named.equals(result)
    keys_only = bk.diff(a, b, key="id", changed_columns=False, memory_limit=memory_limit)
    assert keys_only.select(["id", "change"]).equals(result.select(["id", "change"]))


def test_equal_tables_with_equal_rows_under_many_keys_have_no_difference():
    columns = {"id": list(range(50)), "s": ["r"] * 50, "t": [None] * 50, "b": [b""] * 50}
    columns["n"] = [None, 0] * 25
    table = _table(columns)
    assert bk.diff(table, table.take(list(range(49, -1, -1))), key="id").num_rows == 0


def test_a_duplicate_key_is_refused_under_the_default_row_digest():
    twice = {name: values + values[:1] for name, values in BEFORE.items()}
    with pytest.raises(ValueError, match=r"b: key \(id\) is not unique: 1 appears more than once"):
        bk.diff(_table(BEFORE), _table(twice), key="id")


def test_the_default_row_digest_is_turboshake128_of_the_row_encoding():
    # The digest diff compares, against pycryptodome's TurboSHAKE128 (domain byte 0x1F) of
    # the rows' encoding from the plain model, with the 0x00 leaf prefix of docs/tables.md.
    assert changes.DIFF_ROW_HASH == ("turboshake128", 32)
    batch = _table(BEFORE).to_batches()[0]
    names = ["s", "t", "b", "n"]
    digests = runs.row_digests(batch, names, changes._row_hash())
    for row, digest in zip(ref.rows_of(BEFORE), digests):
        model = TurboSHAKE128.new(domain=0x1F)
        model.update(b"\x00" + ref.row_encoding(row, TYPES, names))
        assert bytes(digest) == model.read(32)


def test_table_digest_keeps_sha3_256():
    table = _table(BEFORE)
    expected, _ = ref.table_digest(BEFORE, TYPES, key=["id"])
    assert bytes(bk.table_digest(table, key="id")) == expected
