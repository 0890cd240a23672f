"""The package's layers, read from its imports: nothing imports upward, nothing goes in circles,
and no module reaches into another module's private names.

The layers are the ones docs/architecture.md draws; a new module must be placed here.
"""

from __future__ import annotations

import ast
import builtins
import importlib
import re
from pathlib import Path

import pytest

import batchkeccak

PACKAGE = Path(batchkeccak.__file__).resolve().parent

LAYERS = [
    # (layer, module prefixes), bottom up; a module may import its own layer and those below.
    ("errors", ["batchkeccak.errors"]),  # the library's exception classes; imports nothing
    # The ground floor: njit, word loads and stores, LLVM IR emitters; imports no batchkeccak.
    ("native", ["batchkeccak.native"]),
    ("permutation", ["batchkeccak.permutation"]),
    ("sponge", ["batchkeccak.sponge"]),
    ("table and utilities", ["batchkeccak.core.parameters", "batchkeccak.core.oneshot",
                             "batchkeccak.core.dispatch", "batchkeccak.core.parallel",
                             "batchkeccak.support.checks", "batchkeccak.support.atomic",
                             "batchkeccak.support.output",
                             "batchkeccak.support.hextext",
                             "batchkeccak.support.progress", "batchkeccak.support.extras"]),
    ("input boundary", ["batchkeccak.inputs"]),
    ("reading", ["batchkeccak.io"]),  # files and streams read; nothing here hashes
    ("hasher", ["batchkeccak.core.stored_states", "batchkeccak.core.executor",
                "batchkeccak.core.hashers"]),
    ("modes", ["batchkeccak.derived"]),
    ("api", ["batchkeccak.api", "batchkeccak.streams", "batchkeccak.files",
             "batchkeccak.platform"]),
    ("integrations", ["batchkeccak._kernels", "batchkeccak.arrow", "batchkeccak.parquet",
                      "batchkeccak.dask",
                      "batchkeccak.spark", "batchkeccak.ray", "batchkeccak.merkle",
                      "batchkeccak._sql", "batchkeccak.duckdb", "batchkeccak.polars",
                      "batchkeccak.pandas", "batchkeccak.ethereum", "batchkeccak.tables"]),
    ("package", ["batchkeccak"]),  # __init__: re-exports the public names
    ("cli and benchmark", ["batchkeccak.cli", "batchkeccak.benchmark",
                           "batchkeccak.__main__"]),
]  # fmt: skip

FOLDERS = {"batchkeccak.core", "batchkeccak.support"}
"""Packages that only group modules: ``core/`` spans the table and hasher layers (the input
boundary and the reading layer sit between its modules), ``support/`` holds utilities of
the table layer. Their ``__init__`` imports nothing, so they are in no layer; each
of their modules is placed in LAYERS by its own name."""


def module_name(path: Path) -> str:
    parts = list(path.relative_to(PACKAGE.parent).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def layer_of(module: str) -> int:
    best, best_length = None, -1
    for index, (_, prefixes) in enumerate(LAYERS):
        for prefix in prefixes:
            matches = module == prefix or module.startswith(prefix + ".")
            if matches and len(prefix) > best_length:
                best, best_length = index, len(prefix)
    assert best is not None, f"{module} is in no layer: add it to LAYERS (and the docs)"
    return best


def imports_of(path: Path) -> list[tuple[str, list[str]]]:
    """(module, names) for every import of batchkeccak code in the file, lazy ones too."""
    found = []
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            found += [
                (alias.name, []) for alias in node.names if alias.name.startswith("batchkeccak")
            ]
        elif (
            isinstance(node, ast.ImportFrom)
            and node.level == 0
            and (node.module or "").startswith("batchkeccak")
        ):
            found.append((node.module, [alias.name for alias in node.names]))
    return found


def resolve(module: str, name: str) -> str:
    """``from module import name``: the submodule if ``name`` is one, else the module."""
    candidate = f"{module}.{name}"
    base = PACKAGE.parent.joinpath(*candidate.split("."))
    return (
        candidate if base.with_suffix(".py").exists() or (base / "__init__.py").exists() else module
    )


SOURCES = sorted(PACKAGE.rglob("*.py"))


def test_grouping_folders_import_nothing_and_place_each_module():
    # ``import batchkeccak`` stays lazy only while these __init__ files import nothing; and a
    # module added to core/ or support/ must say which layer it is in (the bare package prefix
    # ``batchkeccak`` would otherwise take it in silently).
    listed = {prefix for _, prefixes in LAYERS for prefix in prefixes}
    loose = []
    for path in SOURCES:
        module = module_name(path)
        if module in FOLDERS:
            assert imports_of(path) == [], f"{module} imports: it only groups modules"
        elif module.rpartition(".")[0] in FOLDERS and module not in listed:
            loose.append(module)
    assert loose == []


def test_nothing_imports_a_higher_layer():
    upward = []
    for path in SOURCES:
        importer = module_name(path)
        for module, names in imports_of(path):
            for target in [resolve(module, n) for n in names] or [module]:
                if layer_of(target) > layer_of(importer):
                    upward.append(f"{importer} -> {target}")
    assert upward == []


def test_no_import_cycles_between_modules():
    graph: dict[str, set[str]] = {}
    for path in SOURCES:
        importer = module_name(path)
        targets = graph.setdefault(importer, set())
        for module, names in imports_of(path):
            for target in [resolve(module, n) for n in names] or [module]:
                # A package importing its own submodules is how packages re-export.
                if target != importer and not target.startswith(importer + "."):
                    targets.add(target)
    cycles = []

    def visit(node: str, stack: list[str], done: set[str]) -> None:
        if node in stack:
            cycles.append(" -> ".join(stack[stack.index(node) :] + [node]))
            return
        if node in done:
            return
        for target in sorted(graph.get(node, ())):
            visit(target, [*stack, node], done)
        done.add(node)

    finished: set[str] = set()
    for start in sorted(graph):
        visit(start, [], finished)
    assert cycles == []


DOCUMENTED_UNDERSCORE_NAMES = {"os._exit", "pc.Expression._call"}
"""Other packages' names whose underscore we rely on knowingly: ``os._exit`` is how the
Python docs say a forked child ends without running its parent's clean-up;
``pc.Expression._call`` is the only way pyarrow offers to call a compute function registered
at run time inside a dataset expression (its own generated wrappers use it), so
``batchkeccak.arrow.compute_expression`` wraps it once for users."""


@pytest.mark.slow  # reads every name of every module; the other layer rules stay quick
def test_no_module_uses_another_modules_private_names():
    # A leading underscore means "only this module relies on it": imported or reached as an
    # attribute from elsewhere, it is an API nobody declared. Private *modules* (``_sql``)
    # are fine: their public names are the package's internal API.
    offenders = []
    for path in SOURCES:
        importer = module_name(path)
        for module, names in imports_of(path):
            for name in names:
                if (
                    name.startswith("_")
                    and not name.startswith("__")
                    and resolve(module, name) == module
                ):
                    offenders.append(f"{importer}: from {module} import {name}")
        for node in ast.walk(ast.parse(path.read_text())):
            if not (isinstance(node, ast.Attribute) and node.attr.startswith("_")):
                continue
            if (
                node.attr.startswith("__")
                or (
                    # self, cls, or a copy that a class builds of itself
                    isinstance(node.value, ast.Name) and node.value.id in ("self", "cls", "clone")
                )
                or (
                    # a subclass calling its own base's method
                    isinstance(node.value, ast.Call)
                    and isinstance(node.value.func, ast.Name)
                    and node.value.func.id == "super"
                )
                or ast.unparse(node) in DOCUMENTED_UNDERSCORE_NAMES
            ):
                continue
            offenders.append(f"{importer}:{node.lineno}: {ast.unparse(node)}")
    assert offenders == []


def test_threads_are_started_by_one_module():
    # One owner for thread pools: the hashing, reading and per-call pools are all made in
    # core/parallel.py, so their sizes and names are read in one place.
    makers = []
    for path in sorted(PACKAGE.rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Call):
                name = getattr(node.func, "id", getattr(node.func, "attr", None))
                if name in ("ThreadPoolExecutor", "Thread"):
                    makers.append(str(path.relative_to(PACKAGE)))
    assert set(makers) <= {"core/parallel.py"}, sorted(set(makers))


JIT_NAMES = {"njit", "register_jitable"}

COMPILED_ELSEWHERE = {
    "native/jit.py": "defines the njit every kernel is declared with",
    "benchmark/workloads.py": "timing loops compiled afresh, uncached, on every run: a cached "
    "loop that inlined an older permutation would time yesterday's kernel",
    "benchmark/timing.py": "the time-stamp counter's read, compiled only when a benchmark runs",
}
"""Files that may use ``njit`` although they are not a package's ``_kernels.py``, and why."""


def jit_uses(source: str) -> list[int]:
    """The lines of ``source`` that import, call or decorate with ``njit`` or
    ``register_jitable`` (a mention in a string or a comment is none)."""
    lines = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, (ast.Import, ast.ImportFrom)):
            if any(alias.name.rpartition(".")[2] in JIT_NAMES for alias in node.names):
                lines.append(node.lineno)
        elif (isinstance(node, ast.Name) and node.id in JIT_NAMES) or (
            isinstance(node, ast.Attribute) and node.attr in JIT_NAMES
        ):
            lines.append(node.lineno)
    return lines


def files_compiling_outside_kernels(package: Path) -> list[str]:
    offenders = []
    for path in sorted(package.rglob("*.py")):
        relative = path.relative_to(package).as_posix()
        if path.name == "_kernels.py" or relative in COMPILED_ELSEWHERE:
            continue
        uses = jit_uses(path.read_text(encoding="utf-8"))
        if uses:
            offenders.append(f"{relative}:{uses[0]}")
    return offenders


def test_compiled_functions_live_in_their_packages_kernels_module():
    # A package's compiled functions are in its _kernels.py (the Python that calls them stays
    # where it is), so a reader finds every kernel of a package in one file.
    assert files_compiling_outside_kernels(PACKAGE) == []
    for relative in COMPILED_ELSEWHERE:
        assert jit_uses((PACKAGE / relative).read_text(encoding="utf-8")), relative


def test_the_kernels_rule_sees_every_form_of_use():
    uses = jit_uses(
        "from batchkeccak.native.jit import njit\n"
        "import numba\n"
        "@numba.njit(cache=True)\n"
        "def f(x):\n"
        "    return x\n"
        "g = numba.extending.register_jitable(f)\n"
        "# njit in a comment\n"
        "s = 'njit in a string'\n"
    )
    assert uses == [1, 3, 6]


# -- docs/architecture.md names only what exists

ROOT = PACKAGE.parent
ARCHITECTURE = ROOT / "docs" / "architecture.md"
OUTSIDE_NAMES = {"FastLoop_Absorb", "_name.py"}
"""Backticked names of architecture.md that are not the code's: XKCP's loop, and the
placeholder of a private module's name."""


def module_names() -> dict[str, Path]:
    return {module_name(path): path for path in SOURCES}


CLASSES = [
    (module_name(path), node.name)
    for path in SOURCES
    for node in ast.parse(path.read_text(encoding="utf-8")).body
    if isinstance(node, ast.ClassDef)
]
"""(module, class name) of every module-level class of the package."""


def names_existing(dotted: str, modules: dict[str, Path]) -> bool | None:
    """Whether a dotted name of the docs exists: ``batchkeccak.x.y``, ``bk.y``, a module
    named by its last parts (``sponge.run_jobs``, ``merkle.base.check_scheme``) or a class
    (``Hasher.executor``); None where the first part is none of those (``pa.Table``)."""
    parts = dotted.split(".")
    if parts[0] == "bk":
        parts[0] = "batchkeccak"
    if parts[0] != "batchkeccak":
        for count in range(len(parts) - 1, 0, -1):
            tail = ".".join(parts[:count])
            found = [m for m in modules if m == f"batchkeccak.{tail}" or m.endswith("." + tail)]
            if len(found) > 1:  # parquet.py beside cli/parquet.py: the top-level one
                found = [m for m in found if m == f"batchkeccak.{tail}"]
            if len(found) == 1:
                parts = found[0].split(".") + parts[count:]
                break
        else:
            classes = [module for module, name in CLASSES if name == parts[0]]
            if len(classes) != 1:
                return None
            parts = classes[0].split(".") + parts
    for count in range(len(parts), 0, -1):
        if ".".join(parts[:count]) in modules:
            found: object = importlib.import_module(".".join(parts[:count]))
            for attribute in parts[count:]:
                if not hasattr(found, attribute):
                    return False
                found = getattr(found, attribute)
            return True
    return False  # a batchkeccak name with no module


def missing_from_architecture(text: str) -> list[str]:
    """Every file, folder, dotted name and identifier that ``text`` names in backticks or in
    its drawing of the package's files, and that the code does not have."""
    modules = module_names()
    words = {
        word
        for folder in ("batchkeccak", "tests", "bench")
        for path in (ROOT / folder).rglob("*.py")
        for word in re.findall(r"\w+", path.read_text(encoding="utf-8"))
    }
    missing = []
    tree = re.search(r"```\nbatchkeccak/\n(.*?)```", text, re.DOTALL)
    assert tree, "architecture.md draws the package's files in a ```batchkeccak/ block"
    folder = ""
    for line in tree.group(1).splitlines():
        named = re.match(r"( {2}| {4})(\w[\w.]*/?(?:, \w[\w.]*/?)*),?(?: |$)", line)
        for name in named.group(2).split(", ") if named else []:
            if len(named.group(1)) == 2:
                folder = name if name.endswith("/") else folder
                path = name
            else:
                path = folder + name
            if not (PACKAGE / path).exists():
                missing.append(f"batchkeccak/{path}")
    outside_blocks = re.sub(r"```.*?```", "", text, flags=re.DOTALL)
    for span in re.findall(r"`([^`\n]+)`", outside_blocks):
        for token in re.split(r"[\s,]+", span):
            token = re.sub(r"\(.*$", "", token.strip("()[];:'\""))
            if not token or token in OUTSIDE_NAMES or token.startswith(("-", "http")):
                continue
            if "/" in token or re.fullmatch(r"\w+\.(py|json|md|svg)", token):
                module = re.fullmatch(r"([\w/]+)\.(\w+)", token)  # io/reads.retry_smaller
                exists = (
                    (PACKAGE / token).exists()
                    or (ROOT / token).exists()
                    or (PACKAGE / f"{token}.py").exists()
                    or ("/" not in token and any(PACKAGE.rglob(token)))
                    or bool(
                        module
                        and module.group(2) != "py"
                        and names_existing(module.group(1).replace("/", ".") + "." + module.group(2),
                                           modules)
                    )
                )  # fmt: skip
                if not exists:
                    missing.append(token)
            elif re.fullmatch(r"[A-Za-z_]\w*(\.[A-Za-z_]\w*)+", token):
                if names_existing(token, modules) is False:
                    missing.append(token)
            elif (
                re.fullmatch(r"[A-Za-z_]\w*", token)
                and ("_" in token.strip("_") or re.search(r"[a-z][A-Z]", token))
                and not hasattr(builtins, token)
                and token not in words
            ):
                missing.append(token)
    return sorted(set(missing))


def test_architecture_names_only_what_exists():
    # The page a newcomer reads first: every module, function and name it mentions is in
    # the code (a file drawn in its tree, a `core/parameters.py`, a `sponge.run_jobs`).
    assert missing_from_architecture(ARCHITECTURE.read_text(encoding="utf-8")) == []


def test_architecture_names_every_module():
    # errors.py and platform.py were in neither the layer table nor the drawing of the files:
    # every module of the package and of its folders is named in the page.
    text = ARCHITECTURE.read_text(encoding="utf-8")
    unnamed = [
        path.relative_to(PACKAGE).as_posix()
        for path in [*PACKAGE.glob("*.py"), *PACKAGE.glob("*/*.py")]
        if path.stem not in ("__init__", "__main__")
        and not re.search(rf"(?<![\w/.]){re.escape(path.name)}\b", text)
        and path.relative_to(PACKAGE).as_posix() not in text
    ]
    assert sorted(unnamed) == []


def test_the_architecture_check_finds_drift():
    made_up = "TAGS_OF" + "_NOTHING"  # spelled in two, so that this file does not define it
    drifted = (
        "```\nbatchkeccak/\n  core/   the core\n    gone.py   a module\n```\n"
        f"`cli/hash.py` holds `{made_up}`; `sponge.run_jobs`, `sponge.no_such_kernel`, "
        "`core/nothing.py`, `bk.hash_many`, `bk.no_such_function`, `pa.Table`."
    )
    assert missing_from_architecture(drifted) == [
        made_up,
        "batchkeccak/core/gone.py",
        "bk.no_such_function",
        "core/nothing.py",
        "sponge.no_such_kernel",
    ]


def test_architecture_says_where_kernels_go_and_how_to_add_a_row():
    text = ARCHITECTURE.read_text(encoding="utf-8")
    assert "images/layers.svg" in text  # the drawing of the layers
    assert "`_kernels.py`" in text and "test_compiled_functions_live_in_their" in text
    assert "`_TABLE` in `core/parameters.py`" in text and "`tests/oracles.py`" in text
    assert "`inputs/arrow_types.py`" in text
