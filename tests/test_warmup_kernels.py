"""``batchkeccak warmup`` compiles every kernel the package calls from Python, so that an
image built with it compiles nothing on first use (a table diff, an Ethereum trie, a DuckDB
vector)."""

from __future__ import annotations

import ast
import textwrap
from pathlib import Path

import pytest
from process_helpers import run_code

PACKAGE = Path(__file__).resolve().parents[1] / "batchkeccak"


def entry_kernels() -> list[tuple[str, str]]:
    """(module, name) of every name a module of the package's Python imports from a
    batchkeccak module or reads as ``_kernels.NAME``: the kernels among them are those the
    package calls from Python (the rest are called only inside other kernels)."""
    found = set()
    for path in PACKAGE.rglob("*.py"):
        # Not the kernels' own modules, the re-exports of an __init__ or of
        # permutation/lanes.py (names for kernels), nor the benchmark's timing loops.
        if path.name in ("_kernels.py", "__init__.py", "lanes.py") or "benchmark" in path.parts:
            continue
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.ImportFrom) and (node.module or "").startswith("batchkeccak"):
                found |= {(node.module, alias.name) for alias in node.names}
            elif (
                isinstance(node, ast.Attribute)
                and isinstance(node.value, ast.Name)
                and node.value.id == "_kernels"
            ):
                package = ".".join(path.relative_to(PACKAGE.parent).with_suffix("").parts[:-1])
                found.add((f"{package}._kernels", node.attr))
    return sorted(found)


CHECK = textwrap.dedent(
    """
    import importlib
    from numba.core.registry import CPUDispatcher
    from batchkeccak.cli.warmup import warm_every_kernel

    warm_every_kernel()
    kernels, unused = set(), []
    for module, name in ENTRIES:
        try:
            value = getattr(importlib.import_module(module), name, None)
        except ImportError:  # an engine's module whose engine is not installed
            continue
        if isinstance(value, CPUDispatcher) and value not in kernels:
            kernels.add(value)
            if not value.signatures:
                unused.append(f"{module}.{name}")
    print(len(kernels), sorted(unused))

    # Other forms of the same inputs (read-only or writable, Arrow or numpy, Polars' views)
    # compile nothing more: every kernel is compiled for read-only arrays only.
    import numpy as np
    import pyarrow as pa
    import batchkeccak as bk
    from batchkeccak import arrow, ethereum
    from batchkeccak.core.dispatch import kernels_on_this_thread

    before = {kernel: len(kernel.signatures) for kernel in kernels}
    rows = np.frombuffer(bytes(range(200)) * 120, np.uint8).reshape(-1, 20)  # read-only
    with kernels_on_this_thread():
        ethereum.checksum_addresses(rows)
        ethereum.checksum_addresses(rows.copy())
        ethereum.checksum_addresses(pa.array([r.tobytes() for r in rows], pa.binary(20)))
        keys = pa.array([i.to_bytes(4, "big") for i in range(3000)])
        ethereum.trie_root(keys, [b"v"] * 3000)
        ethereum.trie_root(keys.slice(1), pa.array([b"w"] * 2999))
        column = pa.array(["x" * (i % 40) for i in range(3000)])
        arrow.hash_array(column.cast(pa.string_view()).slice(3), "sha3_256")
        arrow.hash_array(column.slice(5), "kmac_256", key=b"k", length=32)
        bk.hash_many(np.zeros((3000, 24), np.uint8), "tuplehash_128", length=32)
    grew = sorted(k.py_func.__qualname__ for k in kernels if len(k.signatures) != before[k])
    print(grew)
    """
)


def test_entry_kernels_are_found():
    names = {name for _, name in entry_kernels()}
    assert {"run_jobs", "hash_offsets", "hash_framed_offsets", "trie_shapes"} <= names


@pytest.mark.slow
def test_warm_every_kernel_compiles_every_kernel_called_from_python():
    # In a fresh interpreter: here earlier tests may have called every kernel already.
    done = run_code(f"ENTRIES = {entry_kernels()!r}\n" + CHECK, check=True)
    *_, counted, grew = done.stdout.strip().splitlines()
    count, unused = counted.split(" ", 1)
    assert int(count) > 30
    assert unused == "[]"
    assert grew == "[]"  # a kernel compiled again for another form of its arrays
