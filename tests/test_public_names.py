"""What is public (docs/architecture.md, "What is public"): the names in ``batchkeccak``'s
``__all__``, and the ``__all__`` of each public module below; everything else, and every name
or module with a leading ``_``, is internal."""

from __future__ import annotations

import importlib
import pkgutil

import pytest

import batchkeccak

PUBLIC_MODULES = (
    "api", "streams", "files", "errors", "platform", "arrow", "parquet", "duckdb", "polars",
    "pandas", "dask", "spark", "ray", "merkle", "ethereum", "tables",
)  # fmt: skip
"""The sentence of docs/architecture.md, as a list."""


@pytest.mark.parametrize("name", PUBLIC_MODULES)
def test_every_public_module_states_its_names(name):
    module = importlib.import_module(f"batchkeccak.{name}")
    names = getattr(module, "__all__", None)
    assert names, f"batchkeccak.{name} has no __all__"
    assert [n for n in names if n.startswith("_") or not hasattr(module, n)] == []


def test_the_public_rule_is_the_documented_one():
    from pathlib import Path

    text = (Path(__file__).parent.parent / "docs" / "architecture.md").read_text()
    rule = text[text.index("## What is public") :]
    assert all(f"`batchkeccak.{name}`" in rule for name in PUBLIC_MODULES)


def _packages():
    yield batchkeccak
    for info in pkgutil.walk_packages(batchkeccak.__path__, "batchkeccak."):
        if info.ispkg:
            yield importlib.import_module(info.name)


@pytest.mark.parametrize("package", list(_packages()), ids=lambda p: p.__name__)
def test_no_name_of_a_package_hides_its_submodule(package):
    """``import batchkeccak.tables.X`` gives module X, not a function the package re-exports
    under the same name (``tables.diff`` was the function ``diff`` over its own module)."""
    hidden = []
    for info in pkgutil.iter_modules(package.__path__):
        if info.name == "__main__":
            continue  # runs the command when imported
        module = importlib.import_module(f"{package.__name__}.{info.name}")
        if getattr(package, info.name) is not module:
            hidden.append(info.name)
    assert hidden == []


def test_every_exception_the_docs_name_is_named_in_its_public_module():
    # docs/streams.md sent users to bk.inputs.NotContiguousError, in a package the
    # architecture calls internal: each exception of batchkeccak.errors is named there.
    import re
    from pathlib import Path

    import batchkeccak.errors

    root = Path(__file__).parent.parent
    pages = [root / "README.md", *sorted((root / "docs").rglob("*.md"))]
    wrong = []
    for page in pages:
        text = page.read_text(encoding="utf-8")
        for name in batchkeccak.errors.__all__:
            for match in re.finditer(rf"`([\w.]*\b{name})`", text):
                if match.group(1) != f"batchkeccak.errors.{name}":
                    wrong.append(f"{page.relative_to(root)}: {match.group(1)}")
    assert wrong == []
