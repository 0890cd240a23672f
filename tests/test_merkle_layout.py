"""The layout of ``batchkeccak.merkle``: no import cycle, no reach into another module's
private names (read from the source with ``ast``, so imports inside functions count too)."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

PACKAGE_ROOT = Path(__file__).resolve().parents[1] / "batchkeccak"
MERKLE = PACKAGE_ROOT / "merkle"
SOURCES = sorted(MERKLE.glob("*.py")) + [PACKAGE_ROOT / "cli" / "merkle.py"]


def module_name(path: Path) -> str:
    parts = path.relative_to(PACKAGE_ROOT.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def is_module(name: str) -> bool:
    path = PACKAGE_ROOT.parent.joinpath(*name.split("."))
    return path.with_suffix(".py").is_file() or (path / "__init__.py").is_file()


def imported_modules(path: Path) -> set[str]:
    """Every batchkeccak module ``path`` imports: ``from pkg import sub`` counts as ``sub``
    when ``sub`` is a module, as ``pkg`` otherwise."""
    found = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            found.update(a.name for a in node.names if a.name.startswith("batchkeccak"))
        elif isinstance(node, ast.ImportFrom) and (node.module or "").startswith("batchkeccak"):
            for alias in node.names:
                candidate = f"{node.module}.{alias.name}"
                found.add(candidate if is_module(candidate) else node.module)
    return found


def private_uses(path: Path, name: str | None = None) -> list[str]:
    """Private names of other modules that ``path`` (module ``name``) uses: ``from m import
    _x``, ``obj._x`` on anything but ``self`` / ``cls``, and private modules of a package
    that ``path`` is not part of."""
    name = name or module_name(path)
    problems = []
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.ImportFrom) and (node.module or "").startswith("batchkeccak"):
            module = node.module
            for alias in node.names:
                if not _private(alias.name):
                    continue
                if not is_module(f"{module}.{alias.name}"):
                    problems.append(f"from {module} import {alias.name}")
                elif not name.startswith(module + "."):
                    problems.append(f"from {module} import {alias.name} (private to {module})")
            parts = module.split(".")
            for depth, part in enumerate(parts):
                owner = ".".join(parts[:depth])
                if _private(part) and not name.startswith(owner + "."):
                    problems.append(f"from {module} import ... (private to {owner})")
        elif (
            isinstance(node, ast.Attribute)
            and _private(node.attr)
            and not (isinstance(node.value, ast.Name) and node.value.id in ("self", "cls"))
        ):
            problems.append(f"{ast.unparse(node)} (line {node.lineno})")
    return problems


def _private(name: str) -> bool:
    return name.startswith("_") and not name.startswith("__")


def test_the_merkle_package_has_no_import_cycle():
    graph = {
        module_name(p): {m for m in imported_modules(p) if m.startswith("batchkeccak.merkle")}
        for p in sorted(MERKLE.glob("*.py"))
    }
    # A submodule is imported through its package's __init__; that edge is Python's, not the
    # code's, so only the modules' own imports are followed.
    done: set[str] = set()

    def visit(module: str, path: list[str]) -> None:
        if module in path:
            cycle = " -> ".join(path[path.index(module) :] + [module])
            pytest.fail(f"import cycle: {cycle}")
        if module in done:
            return
        for target in sorted(graph.get(module, ())):
            visit(target, path + [module])
        done.add(module)

    for module in sorted(graph):
        visit(module, [])
    assert "batchkeccak.merkle.base" in graph and not {
        m
        for m in graph["batchkeccak.merkle.base"]
        if m.split(".")[-1] in ("openzeppelin", "rfc9162")
    }


@pytest.mark.parametrize("path", SOURCES, ids=lambda p: str(p.relative_to(PACKAGE_ROOT)))
def test_no_module_uses_another_modules_private_names(path):
    assert private_uses(path) == []


def test_the_checks_see_a_cycle_and_a_reach_in(tmp_path):
    """The two checks above can fail: fed a reach-in, the private-name check reports it."""
    sample = tmp_path / "sample.py"
    sample.write_text(
        "from batchkeccak.merkle._bytes import _shorten\n"
        "from batchkeccak.merkle import openzeppelin\n"
        "def f(tree):\n    return tree._json_values()\n"
    )
    assert len(private_uses(sample, "batchkeccak.cli.sample")) == 3
    assert "batchkeccak.merkle.openzeppelin" in imported_modules(sample)
