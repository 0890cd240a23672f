"""The diff's walk of two sorted sides (fixed-width keys): when its output buffer fills and
when a side's block runs out mid-walk, against the plain reference (tests/table_reference.py)."""

from __future__ import annotations

import random

import pyarrow as pa
import pytest
import table_reference as ref

import batchkeccak as bk
from batchkeccak.tables import join, runs

TYPES = {"g": "int32", "id": "int64", "v": "string"}


def edited_pair(seed: int) -> tuple[dict, dict]:
    """Two tables of a composite key (g, id) with every kind of change, keys interleaved."""
    rng = random.Random(seed)
    keys = sorted({(rng.randrange(-3, 3), rng.randrange(-(1 << 40), 1 << 40)) for _ in range(80)})
    before = {"g": [g for g, _ in keys], "id": [i for _, i in keys],
              "v": [rng.choice(["x", "y", None]) for _ in keys]}
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
    return pa.table({"g": pa.array(columns["g"], pa.int32()),
                     "id": pa.array(columns["id"], pa.int64()),
                     "v": pa.array(columns["v"], pa.string())})


@pytest.mark.parametrize("seed", range(3))
@pytest.mark.parametrize("memory_limit", [None, 1 << 16])
def test_walk_resumes_when_its_output_fills_and_when_a_block_runs_out(
    seed, memory_limit, monkeypatch
):
    monkeypatch.setattr(join, "DIFFERENCES_PER_CALL", 2)
    monkeypatch.setattr(runs, "BLOCK_ROWS", 3)
    before, after = edited_pair(seed)
    result = bk.diff(as_arrow(before), as_arrow(after), key=["g", "id"],
                     memory_limit=memory_limit)
    found = [((row["g"], row["id"]), row["change"], row["changed_columns"])
             for row in result.to_pylist()]
    expected = ref.diff(before, after, TYPES, ["g", "id"])
    assert found == expected
    assert {change for _, change, _ in expected} == {"added", "removed", "changed"}
