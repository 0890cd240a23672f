"""``compute_expression``: the registered compute functions over every string and binary
type in dataset projections and filters, against hashlib over the values' (UTF-8) bytes."""

from __future__ import annotations

import hashlib

import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.dataset as ds
import pytest

import batchkeccak as bk
from batchkeccak.arrow import compute_expression, register

VALUES = ["abc", None, "é" * 40, "", "x" * 300]
STRINGS = [pa.string(), pa.large_string(), pa.string_view()]
BINARIES = [pa.binary(), pa.large_binary(), pa.binary_view()]


def _column(arrow_type: pa.DataType) -> pa.Array:
    as_text = arrow_type in STRINGS
    return pa.array(
        [None if v is None else v if as_text else v.encode() for v in VALUES], arrow_type
    )


@pytest.mark.parametrize("arrow_type", STRINGS + BINARIES, ids=str)
@pytest.mark.parametrize("algorithm", ["sha3_256", "keccak_256", "shake_128"])
def test_projection_over_every_string_and_binary_type(arrow_type, algorithm):
    dataset = ds.dataset(pa.table({"c": _column(arrow_type)}))
    out = dataset.to_table(columns={"h": compute_expression(algorithm, "c")})["h"]

    def expected(data: bytes) -> bytes:
        if algorithm == "keccak_256":
            from Crypto.Hash import keccak

            return keccak.new(digest_bits=256, data=data).digest()
        if algorithm == "shake_128":
            return hashlib.shake_128(data).digest(32)
        return hashlib.sha3_256(data).digest()

    assert out.to_pylist() == [None if v is None else expected(v.encode()) for v in VALUES]


def test_filter_and_expression_argument():
    register()
    dataset = ds.dataset(pa.table({"c": _column(pa.large_string())}))
    target = hashlib.sha3_256(b"abc").digest()
    expression = compute_expression("sha3_256", pc.field("c")) == pa.scalar(target, pa.binary(32))
    assert dataset.to_table(filter=expression)["c"].to_pylist() == ["abc"]
    # the binary kernel itself, called directly
    direct = pc.call_function("sha3_256", [pa.array([b"abc", None])])
    assert direct.to_pylist() == [target, None]


def test_refuses_unknown_names_and_columns():
    with pytest.raises(ValueError, match="unknown algorithm 'md5'"):
        compute_expression("md5", "c")
    with pytest.raises(ValueError, match="did you mean 'sha3_256'"):
        compute_expression("sha3_265", "c")
    with pytest.raises(TypeError, match="algorithm must be the name of a registered"):
        compute_expression(bk.hasher("sha3_256"), "c")  # type: ignore[arg-type]


def test_a_mode_is_named_a_mode_with_the_way_to_hash_it():
    # It said "unknown algorithm 'kmac_256' (see batchkeccak.algorithms and batchkeccak.modes",
    # though kmac_256 is in bk.modes: modes have no compute function, and the message says so.
    with pytest.raises(ValueError) as caught:
        compute_expression("kmac_256", "c")
    message = str(caught.value)
    assert "'kmac_256' is a mode" in message and "unknown" not in message
    assert "hash_array" in message and "bk.hasher" in message
    assert all(name in message for name in register())  # the registered functions, named
    with pytest.raises(ValueError, match="register\\(\\) returns: sha3_224"):
        compute_expression("nope", "c")


def test_takes_the_command_lines_spellings():
    # SHA3-256 names the registered function sha3_256, as it names the algorithm everywhere.
    table = pa.table({"c": ["abc"]})
    got = ds.dataset(table).to_table(columns={"h": compute_expression("SHA3-256", "c")})
    assert got["h"].to_pylist() == [hashlib.sha3_256(b"abc").digest()]
    with pytest.raises(TypeError, match="column must be a field name"):
        compute_expression("sha3_256", 3)  # type: ignore[arg-type]
