"""The diff's walk of two sorted sides (fixed-width keys): when its output buffer fills and
when a side's block runs out mid-walk, against the plain reference (tests/table_reference.py)."""

from __future__ import annotations

import random

import pyarrow as pa
import pytest
import table_reference as ref

import batchkeccak as bk
from batchkeccak.tables import _kernels, join, runs

TYPES = {"g": "int32", "id": "int64", "v": "string"}


def edited_pair(seed: int) -> tuple[dict, dict]:
    """Two tables of a composite key (g, id) with every kind of change, keys interleaved."""
    rng = random.Random(seed)
    keys = sorted({(rng.randrange(-3, 3), rng.randrange(-(1 << 40), 1 << 40)) for _ in range(80)})
    before = {
        "g": [g for g, _ in keys],
        "id": [i for _, i in keys],
        "v": [rng.choice(["x", "y", None]) for _ in keys],
    }
    after = {name: list(values) for name, values in before.items()}
    for row in sorted(rng.sample(range(len(keys)), 25), reverse=True):
        action = rng.choice(["remove", "change"])
        if action == "remove":
            for values in after.values():
                del values[row]
        else:
            after["v"][row] = "changed" if after["v"][row] != "changed" else None
    for _ in range(10):
        after["g"].append(rng.randrange(-3, 3))
        after["id"].append(rng.randrange(-(1 << 40), 1 << 40))
        after["v"].append("new")
    order = list(range(len(after["id"])))
    rng.shuffle(order)
    return before, {name: [values[i] for i in order] for name, values in after.items()}


def as_arrow(columns: dict) -> pa.Table:
    return pa.table(
        {
            "g": pa.array(columns["g"], pa.int32()),
            "id": pa.array(columns["id"], pa.int64()),
            "v": pa.array(columns["v"], pa.string()),
        }
    )


@pytest.mark.parametrize("seed", range(3))
@pytest.mark.parametrize("memory_limit", [None, 1 << 16])
def test_walk_resumes_when_its_output_fills_and_when_a_block_runs_out(
    seed, memory_limit, monkeypatch
):
    monkeypatch.setattr(join, "DIFFERENCES_PER_CALL", 2)
    monkeypatch.setattr(runs, "BLOCK_ROWS", 3)
    before, after = edited_pair(seed)
    result = bk.diff(as_arrow(before), as_arrow(after), key=["g", "id"], memory_limit=memory_limit)
    found = [
        ((row["g"], row["id"]), row["change"], row["changed_columns"]) for row in result.to_pylist()
    ]
    expected = ref.diff(before, after, TYPES, ["g", "id"])
    assert found == expected
    assert {change for _, change, _ in expected} == {"added", "removed", "changed"}


@pytest.mark.parametrize("width", [1, 8, 12, 16])
def test_equal_neighbours_compares_every_byte_of_fixed_width_keys(width):
    # Neighbours that differ only in the first byte, only in the last byte, or only in a
    # byte of the second word, beside ones that are equal; a slice starts mid-buffer.
    from batchkeccak.tables.keys import equal_neighbours

    base = bytes(range(1, width + 1))
    variants = [base, base, bytes([0]) + base[1:], base[:-1] + b"\xff"]
    if width > 8:
        variants.append(base[:8] + bytes([base[8] ^ 1]) + base[9:])
    values = [b"\x00" * width] + [v for v in variants for _ in range(2)] + variants
    keys = pa.array(values, pa.binary(width)).slice(1)
    expected = [keys[i].as_py() == keys[i + 1].as_py() for i in range(len(keys) - 1)]
    assert equal_neighbours(keys).tolist() == expected
    assert any(expected) and not all(expected)


@pytest.mark.parametrize("digest_width", [20, 28, 32, 64])
def test_walk_finds_a_change_in_any_byte_of_the_digests(digest_width):
    # The walk compares digests a word at a time, then the bytes past the last whole word:
    # one row per byte position, its two digests differing in that byte only, plus equal rows.
    import numpy as np

    rows = 2 * digest_width
    words = np.arange(rows, dtype=np.uint64).reshape(rows, 1)
    rng = np.random.default_rng(digest_width)
    digests_a = rng.integers(0, 256, (rows, digest_width), dtype=np.uint8)
    digests_b = digests_a.copy()
    for position in range(digest_width):
        digests_b[2 * position, position] ^= 0x80  # odd rows stay equal
    found_a = np.empty(rows, dtype=np.int64)
    found_b = np.empty(rows, dtype=np.int64)
    written, matched, end_a, end_b = _kernels.walk(
        words, words, digests_a, digests_b, 0, 0, True, True, found_a, found_b
    )
    assert (matched, end_a, end_b) == (rows, rows, rows)
    assert found_a[:written].tolist() == list(range(0, rows, 2))
    assert found_b[:written].tolist() == list(range(0, rows, 2))
