"""Every ```python block in README.md and docs/*.md runs, and what it computes is right.

Each block runs twice, inside ``checked_against_oracles()`` (every digest and Merkle tree a
block computes through batchkeccak's public functions is compared with hashlib /
pycryptodome / eth-abi as it is made):

- in page order: the blocks of one page in one namespace, in one empty scratch folder, as a
  reader who runs the page top to bottom would (``test_documented_block``);
- on its own: in a fresh namespace and a fresh empty folder, as a reader who copies that one
  example would (``test_block_runs_on_its_own``). So every block imports what it uses and
  writes the files it reads; nothing is provided from outside the block.

Conventions a page may use:

- A ```python block followed by an ```output block states what the python block prints;
  the printed text must match it line for line (trailing spaces aside).
- A ```python block must be Python. Signatures (``name(params) -> type``, one or more) go
  in a ```text block, which is compared with the real function's parameters: names, kinds
  and defaults. A ```text block that is not a list of signatures is prose and not checked.
- ``<!-- test: skip REASON -->`` on the line before a block leaves it out, with that reason.
- A block that imports an optional engine which is not installed (``OPTIONAL_MODULES``,
  which batchkeccak's extras and the test extra install) is skipped with that reason; any other missing
  module is a failure, so a misspelt import cannot hide a block. A page whose blocks start a
  cluster (dask.distributed, pyspark, ray) is marked slow.
"""

from __future__ import annotations

import ast
import contextlib
import functools
import importlib
import importlib.util
import inspect
import io
import pkgutil
import re
import shutil
import sys
import tempfile
import traceback
from dataclasses import dataclass
from pathlib import Path

import pytest

import scale_out_data
from example_oracles import checked_against_oracles

ROOT = Path(__file__).resolve().parents[1]
PAGES = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]

CLUSTER_MODULES = ("distributed", "dask.distributed", "pyspark", "ray")
OPTIONAL_MODULES = (
    "dask",
    "distributed",
    "duckdb",
    "pandas",
    "polars",
    "pyspark",
    "ray",
    "eth_abi",
)
FENCE = re.compile(r"^```(\w*)[^\n]*\n(.*?)^```[ \t]*$", re.MULTILINE | re.DOTALL)
SKIP = re.compile(r"<!--\s*test:\s*skip\s*(.*?)\s*-->\s*$")


@dataclass
class Block:
    page: Path
    line: int
    code: str
    output: str | None
    skip: str | None
    kind: str = "python"  # or "signatures": a ```text block listing signatures

    @property
    def name(self) -> str:
        page = self.page.relative_to(ROOT) if self.page.is_relative_to(ROOT) else self.page.name
        return f"{page}:{self.line}"


def python_blocks(page: Path) -> list[Block]:
    """The page's ```python blocks and its ```text blocks of signatures, in page order."""
    text = page.read_text()
    fences = list(FENCE.finditer(text))
    blocks = []
    for k, fence in enumerate(fences):
        if fence.group(1) == "text" and signatures(fence.group(2)) is not None:
            line = text.count("\n", 0, fence.start()) + 1
            blocks.append(Block(page, line, fence.group(2), None, None, "signatures"))
            continue
        if fence.group(1) != "python":
            continue
        line = text.count("\n", 0, fence.start()) + 1
        before = text[: fence.start()].rstrip("\n").rsplit("\n", 1)[-1]
        skip = SKIP.search(before)
        output = None
        if k + 1 < len(fences) and fences[k + 1].group(1) == "output":
            between = text[fence.end() : fences[k + 1].start()]
            if not between.strip():
                output = fences[k + 1].group(2)
        blocks.append(Block(page, line, fence.group(2), output, skip.group(1) if skip else None))
    return blocks


def _imports(tree: ast.AST) -> set[str]:
    names = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
            names.add(node.module)
    return names


def skip_reason(block: Block) -> str | None:
    if block.skip is not None:
        return block.skip or "marked to skip"
    if block.kind != "python":
        return None
    try:
        tree = ast.parse(block.code)
    except SyntaxError:
        return None
    for name in sorted(_imports(tree)):
        top = name.split(".")[0]
        if top in OPTIONAL_MODULES and importlib.util.find_spec(top) is None:
            return f"needs {top}, which is not installed"
    return None


def starts_a_cluster(block: Block) -> bool:
    if block.kind != "python":
        return False
    try:
        names = _imports(ast.parse(block.code))
    except SyntaxError:
        return False
    return any(n == c or n.startswith(c + ".") for n in names for c in CLUSTER_MODULES)


# ----------------------------------------------------------------------------------------
# Signature blocks

SIGNATURE = re.compile(r"([A-Za-z_][\w.]*)\(([^()]*)\)(?:\s*->\s*[^\n#]+)?")


def signatures(code: str) -> list[tuple[str, ast.arguments]] | None:
    """``(dotted name, parameters)`` of every line of a signature block, or None if the
    block is not one."""
    text = re.sub(r"#[^\n]*", "", code)
    found = []
    rest = text
    for match in SIGNATURE.finditer(text):
        try:
            function = ast.parse(f"def f({match.group(2)}): pass").body[0]
        except SyntaxError:
            return None
        found.append((match.group(1), function.args))  # type: ignore[attr-defined]
        rest = rest.replace(match.group(0), "", 1)
    return found if found and not rest.strip() else None


def _resolve(dotted: str, namespace: dict) -> object:
    head, *attributes = dotted.split(".")
    if head in namespace:
        target = namespace[head]
    else:
        import batchkeccak

        modules = [batchkeccak]
        for info in pkgutil.iter_modules(batchkeccak.__path__):
            if info.name.startswith("_"):  # private, or __main__ (which runs the command)
                continue
            with contextlib.suppress(ImportError):
                modules.append(importlib.import_module(f"batchkeccak.{info.name}"))
        owners = [m for m in modules if hasattr(m, head)]
        assert owners, f"{head} is neither defined on the page nor part of batchkeccak"
        target = getattr(owners[0], head)
    for attribute in attributes:
        target = getattr(target, attribute)
    return target


def _documented(arguments: ast.arguments) -> list[tuple[str, str, object]]:
    positional = arguments.posonlyargs + arguments.args
    defaults = [None] * (len(positional) - len(arguments.defaults)) + list(arguments.defaults)
    kinds = ["POSITIONAL_ONLY"] * len(arguments.posonlyargs) + ["POSITIONAL_OR_KEYWORD"] * len(
        arguments.args
    )
    result = [(a.arg, kind, _literal(d)) for a, kind, d in zip(positional, kinds, defaults)]
    result += [
        (a.arg, "KEYWORD_ONLY", _literal(d))
        for a, d in zip(arguments.kwonlyargs, arguments.kw_defaults)
    ]
    return result


_NO_DEFAULT = "<required>"


def _literal(node: ast.expr | None) -> object:
    return _NO_DEFAULT if node is None else ast.literal_eval(node)


def check_signatures(code: str, namespace: dict) -> None:
    """Each documented parameter is the function's, in its order, with its kind and default;
    a page may leave out optional parameters (``**params``, keywords with defaults) only."""
    for dotted, arguments in signatures(code) or []:
        actual = [
            (p.name, p.kind.name, _NO_DEFAULT if p.default is p.empty else p.default)
            for p in inspect.signature(_resolve(dotted, namespace)).parameters.values()
        ]
        documented = _documented(arguments)
        shown = [a for a in actual if a[0] in {d[0] for d in documented}]
        assert documented == shown, f"{dotted}: documented {documented}, actual {actual}"
        left_out = [a for a in actual if a not in shown]
        required = [
            a[0]
            for a in left_out
            if a[2] == _NO_DEFAULT and a[1] not in ("VAR_POSITIONAL", "VAR_KEYWORD")
        ]
        assert not required, f"{dotted}: the page leaves out required {required}"


# ----------------------------------------------------------------------------------------
# Running a page


@dataclass
class Outcome:
    status: str  # "passed", "failed", "skipped"
    message: str = ""


def run_page(page: Path, folder: Path | None = None) -> tuple[Outcome, ...]:
    """Run the page's blocks in order, once per test session; one outcome per block."""
    return _page_runs(page, folder)[0]


@functools.cache
def _page_runs(
    page: Path, folder: Path | None = None
) -> tuple[tuple[Outcome, ...], dict[int, Outcome]]:
    """The page's blocks in order (one outcome each), then each block that starts a cluster
    on its own (by its index): a fresh namespace in the same folder, emptied, while the
    engines the page started still run. Starting Spark or Ray once more per block would
    cost 10-20 s each and check nothing the block does not: its code asks for a session
    (``getOrCreate``, ``ray.data``) either way, and finds every file it reads only if it
    wrote it. (The folder is the same because a Spark driver resolves relative paths
    against the folder it started in.)

    ``folder`` is the folder the test process's engines started in (:func:`engines_folder`),
    emptied before and after, where the page uses them; by default a fresh scratch folder."""
    outcomes, alone = [], {}
    namespace: dict = {"__name__": "__docs__"}
    before = _running_engines()
    blocks = python_blocks(page)
    with contextlib.ExitStack() as stack:
        if folder is None:
            folder = Path(stack.enter_context(tempfile.TemporaryDirectory()))
        else:
            _empty(folder)
            stack.callback(_empty, folder)
        stack.enter_context(contextlib.chdir(folder))
        stack.enter_context(checked_against_oracles())
        try:
            for block in blocks:
                outcomes.append(_run_block(block, namespace))
            for index, block in enumerate(blocks):
                if starts_a_cluster(block):
                    _empty(folder)
                    alone[index] = _run_block(block, {"__name__": "__docs__"})
        finally:
            _stop_engines_started_since(before)
    return tuple(outcomes), alone


def _empty(folder: Path) -> None:
    for entry in folder.iterdir():
        if entry.is_dir() and not entry.is_symlink():
            shutil.rmtree(entry)
        else:
            entry.unlink()


def _running_engines() -> dict[str, object]:
    engines: dict[str, object] = {}
    if "pyspark" in sys.modules:
        from pyspark.sql import SparkSession

        engines["spark"] = SparkSession.getActiveSession()
    if "ray" in sys.modules:
        import ray

        engines["ray"] = ray.is_initialized()
    return engines


def _stop_engines_started_since(before: dict[str, object]) -> None:
    """Stop the Spark session or Ray cluster a page started, before its folder goes: their
    workers run in that folder, and the suites that start their own (tests/test_spark.py,
    tests/test_ray.py) would otherwise be handed a session whose folder no longer exists."""
    now = _running_engines()
    if now.get("spark") is not None and before.get("spark") is None:
        now["spark"].stop()
    if now.get("ray") and not before.get("ray"):
        import ray

        ray.shutdown()


def _run_block(block: Block, namespace: dict) -> Outcome:
    reason = skip_reason(block)
    if reason is not None:
        return Outcome("skipped", f"{block.name}: {reason}")
    if block.kind == "signatures":
        try:
            check_signatures(block.code, namespace)
        except AssertionError as exc:
            return Outcome("failed", f"{block.name}: {exc}")
        return Outcome("passed")
    try:
        code = compile(block.code, block.name, "exec")
    except SyntaxError as exc:
        hint = " (signatures go in a ```text block)" if signatures(block.code) else ""
        return Outcome("failed", f"{block.name} is not Python{hint}: {exc}")
    printed = io.StringIO()
    try:
        with contextlib.redirect_stdout(printed):
            exec(code, namespace)  # noqa: S102 - running the documentation's examples
    except BaseException:  # noqa: BLE001 - reported as the block's failure
        return Outcome("failed", f"{block.name} raised:\n{traceback.format_exc()}")
    if block.output is not None:
        said = [line.rstrip() for line in block.output.strip("\n").splitlines()]
        got = [line.rstrip() for line in printed.getvalue().strip("\n").splitlines()]
        if said != got:
            return Outcome("failed", f"{block.name} printed {got}, the page says {said}")
    return Outcome("passed")


def run_alone(block: Block, folder: Path | None = None) -> Outcome:
    """Run one block in a fresh namespace and a fresh empty folder (a block that starts a
    cluster: see :func:`_page_runs`, and ``folder`` there)."""
    if starts_a_cluster(block):
        blocks = python_blocks(block.page)
        index = next(k for k, b in enumerate(blocks) if b.code == block.code)
        return _page_runs(block.page, folder)[1][index]
    before = _running_engines()
    with (
        tempfile.TemporaryDirectory() as scratch,
        contextlib.chdir(scratch),
        checked_against_oracles(),
    ):
        try:
            return _run_block(block, {"__name__": "__docs__"})
        finally:
            _stop_engines_started_since(before)


def _starts_engines(page: Path) -> bool:
    return any(starts_a_cluster(b) and skip_reason(b) is None for b in python_blocks(page))


def _same_worker(page: Path):
    """A page runs once per process: with pytest-xdist (``--dist loadgroup``, as the README's
    command runs it) all its tests go to one worker; a page that starts Spark or Ray goes to
    the worker of tests/test_spark.py and tests/test_ray.py, which keeps them running."""
    if _starts_engines(page):
        return pytest.mark.xdist_group(scale_out_data.ENGINE_GROUP)
    return pytest.mark.xdist_group(f"docs-{page.name}")


ENGINE_FIXTURES = {"pyspark": "spark_session", "ray": "ray_runtime"}
"""The engines the test process keeps running (tests/conftest.py), by the module that uses
them."""


def engines_folder(request, page: Path) -> Path | None:
    """For a page whose blocks start Spark or Ray: the test process's engines started (the
    page's ``getOrCreate()`` and ``ray.data`` calls find them, as its blocks run alone do),
    and the folder they started in, where the page then runs. None for any other page."""
    if not _starts_engines(page):
        return None
    used = set()
    for block in python_blocks(page):
        if block.kind == "python" and skip_reason(block) is None:
            with contextlib.suppress(SyntaxError):
                used |= {name.split(".")[0] for name in _imports(ast.parse(block.code))}
    for module, fixture in ENGINE_FIXTURES.items():
        if module in used:
            # Without Java, say, the fixture skips: the page's block then starts the engine
            # itself and reports why it cannot.
            with contextlib.suppress(pytest.skip.Exception):
                request.getfixturevalue(fixture)
    return request.getfixturevalue("engine_folder")


def block_params() -> list:
    params = []
    for page in PAGES:
        blocks = python_blocks(page)
        slow = _starts_engines(page)
        marks = [_same_worker(page), *([pytest.mark.slow] if slow else [])]
        params += [
            pytest.param(page, k, id=block.name, marks=marks) for k, block in enumerate(blocks)
        ]
    return params


@pytest.mark.parametrize(("page", "index"), block_params())
def test_documented_block(request, page, index):
    outcome = run_page(page, engines_folder(request, page))[index]
    if outcome.status == "skipped":
        pytest.skip(outcome.message)
    assert outcome.status == "passed", outcome.message


def standalone_params() -> list:
    params = []
    for page in PAGES:
        for block in python_blocks(page):
            if block.kind != "python":
                continue
            marks = [_same_worker(page)]
            if starts_a_cluster(block):
                marks.append(pytest.mark.slow)
            params.append(pytest.param(block, id=block.name, marks=marks))
    return params


@pytest.mark.parametrize("block", standalone_params())
def test_block_runs_on_its_own(request, block):
    # Only a block that starts an engine runs on the shared ones (the others of its page,
    # Dask's, run alone in a scratch folder and stay in the quick run without starting any).
    folder = engines_folder(request, block.page) if starts_a_cluster(block) else None
    outcome = run_alone(block, folder)
    if outcome.status == "skipped":
        pytest.skip(outcome.message)
    assert outcome.status == "passed", outcome.message


def test_every_page_with_python_is_collected():
    with_python = {p for p in PAGES if "```python" in p.read_text()}
    assert {p for p in with_python if python_blocks(p)} == with_python
    assert ROOT / "README.md" in with_python


def test_the_conventions_can_fail(tmp_path):
    """A wrong stated output, a wrong signature and a broken block are each reported."""
    page = tmp_path / "page.md"
    page.write_text(
        "```python\nprint(1 + 1)\n```\n\n```output\n3\n```\n\n"
        "```python\nimport json\n```\n\n"
        "```text\njson.dumps(obj, *, indent=None, sort_keys=True)\n```\n\n"
        "```text\njson.loads(*, cls=None)\n```\n\n"
        "```python\nthis is not python\n```\n\n"
        "<!-- test: skip needs a cluster -->\n```python\nraise SystemExit\n```\n\n"
        "```python\njson.dumps(obj, *, indent=None)\n```\n\n"
        "```python\nimport jsn\n```\n\n"
        "```python\nopen('users.parquet', 'rb')\n```\n\n"
        "```text\njson.dumps(obj, *, indent=None)\n```\n\n"
        "```text\nplain words (not a signature)\n```\n"
    )
    outcomes = _page_runs.__wrapped__(page)[0]
    statuses = [o.status for o in outcomes]
    assert statuses == [
        "failed",
        "passed",
        "failed",
        "failed",
        "failed",
        "skipped",
        "failed",
        "failed",
        "failed",
        "passed",
    ]
    assert "the page says ['3']" in outcomes[0].message
    assert "sort_keys" in outcomes[2].message
    assert "leaves out required ['s']" in outcomes[3].message
    assert "needs a cluster" in outcomes[5].message
    # A signature list in a python fence is a mistake, however right the signature.
    assert "signatures go in a ```text block" in outcomes[6].message
    # A missing module that is not an optional engine fails instead of skipping.
    assert "ModuleNotFoundError" in outcomes[7].message
    # The scratch folder starts empty: a page must write the files it reads.
    assert "FileNotFoundError" in outcomes[8].message


def test_a_block_that_needs_the_one_before_fails_on_its_own(tmp_path):
    """Passing in page order is not enough: each block must import and write what it uses."""
    page = tmp_path / "page.md"
    page.write_text(
        "```python\nimport json\nopen('data.json', 'w').write(json.dumps([1]))\n```\n\n"
        "```python\nassert json.loads(open('data.json').read()) == [1]\n```\n\n"
        "```python\nimport json\nassert json.loads('[2]') == [2]\n```\n"
    )
    assert [o.status for o in _page_runs.__wrapped__(page)[0]] == ["passed"] * 3
    alone = [run_alone(block) for block in python_blocks(page)]
    assert [o.status for o in alone] == ["passed", "failed", "passed"]
    assert "NameError" in alone[1].message


@pytest.mark.xdist_group("docs-grouping")
def test_a_grouped_test_carries_its_group_under_xdist(request):
    """A page's blocks share one run (and the engines it starts) only if ``--dist loadgroup``
    sends them to one worker, which needs the ``@group`` suffix on each worker's test ids
    (tests/conftest.py sets it where pytest-xdist's own does not take)."""
    config = request.config
    if not (hasattr(config, "workerinput") and config.getvalue("loadgroup")):
        pytest.skip("checks pytest -n N --dist loadgroup")
    assert request.node.nodeid.endswith("@docs-grouping"), request.node.nodeid
