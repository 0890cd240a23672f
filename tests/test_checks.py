"""The one int check: Python and numpy integers pass, a bool never does, and the errors name
the argument. Every entry point that takes a count goes through it, so they agree."""

from __future__ import annotations

import hashlib

import numpy as np
import pytest

import batchkeccak as bk
from batchkeccak.support.checks import check_int, is_int


@pytest.mark.parametrize("value", [0, 7, np.int8(7), np.uint64(7), np.int64(-3)])
def test_python_and_numpy_integers_are_ints(value):
    assert is_int(value)
    assert check_int(value, "n") == int(value)
    assert type(check_int(value, "n")) is int


@pytest.mark.parametrize("value", [True, False, np.bool_(True), 1.0, "1", None, np.float64(1)])
def test_a_bool_or_a_float_is_not_an_int(value):
    assert not is_int(value)
    with pytest.raises(TypeError, match=f"^count must be an int, got {type(value).__name__}$"):
        check_int(value, "count")


def test_bounds_name_the_argument():
    with pytest.raises(ValueError, match=r"^count must be >= 1 \(or none\), got 0$"):
        check_int(0, "count", 1, note=" (or none)")
    with pytest.raises(ValueError, match="^count must be at most 9, got 10$"):
        check_int(np.int16(10), "count", maximum=9)
    assert check_int(9, "count", 1, 9) == 9


@pytest.mark.parametrize(
    "call",
    [
        lambda n: bk.hash_many([b"abc"], "sha3_256", threads=n),
        lambda n: bk.hash_many([b"abc"], "shake_128", length=n),
        lambda n: bk.hash_many([b"abc"], "parallelhash_128", length=8, block_size=n),
    ],
    ids=["threads", "length", "block_size"],
)
def test_entry_points_agree_on_numpy_ints_and_bools(call):
    assert np.array_equal(call(np.int64(2)), call(2))
    with pytest.raises(TypeError):
        call(True)


def test_parquet_batch_size_takes_a_numpy_int_and_refuses_a_bool(tmp_path):
    import pyarrow as pa
    import pyarrow.parquet as pq

    from batchkeccak.parquet import hash_file

    table = pa.table({"name": [b"a", b"bc", b"def"]})
    hash_file(table, tmp_path / "out.parquet", "name", batch_size=np.int64(2))
    assert pq.read_table(tmp_path / "out.parquet").column("name_sha3_256").to_pylist() == [
        hashlib.sha3_256(value).digest() for value in [b"a", b"bc", b"def"]
    ]
    with pytest.raises(TypeError, match="batch_size must be a positive int, got bool"):
        hash_file(table, tmp_path / "other.parquet", "name", batch_size=True)
