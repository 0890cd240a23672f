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
    """
)


def test_entry_kernels_are_found():
    names = {name for _, name in entry_kernels()}
    assert {"run_jobs", "hash_offsets", "hash_framed_offsets", "trie_shapes"} <= names


@pytest.mark.slow
def test_warm_every_kernel_compiles_every_kernel_called_from_python():
    # In a fresh interpreter: here earlier tests may have called every kernel already.
    done = run_code(f"ENTRIES = {entry_kernels()!r}\n" + CHECK, check=True)
    count, unused = done.stdout.strip().splitlines()[-1].split(" ", 1)
    assert int(count) > 30
    assert unused == "[]"
