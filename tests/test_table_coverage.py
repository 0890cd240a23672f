"""A row added to a table is followed by every place that lists the rows by name.

An algorithm is one row of ``_TABLE`` in ``batchkeccak/core/parameters.py``, a mode one row of
``_TABLE`` in ``batchkeccak/derived/table.py``; the rows carry every fact of their own (the
``--tag`` name, the object identifier, the one-shot backend). Code reads the tables at run
time, except (docs/architecture.md, "How to add an algorithm or a mode"):

- the literal name lists in ``batchkeccak/__init__.py`` and ``batchkeccak/streams.py`` (so
  ``import batchkeccak`` loads no table), which ``python bench/names.py`` writes from the table
  and ``test_the_name_lists_are_written_from_the_table`` checks;
- ``ORACLES`` in ``tests/oracles.py``: the independent implementation every test compares
  with, and ``MODE_ORACLES`` below for the modes.

``test_a_new_row_is_served_everywhere`` adds a row and its oracle to a copy of the package and
hashes through every surface.
"""

from __future__ import annotations

import hmac
import importlib.util
import os
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
import sp800_185_reference as ref

import batchkeccak as bk
from batchkeccak.cli import main
from batchkeccak.cli.hash import TAGS

from oracles import ORACLES, oracle

MESSAGE = b"abc" * 70  # longer than the largest rate: two blocks
KEY = bytes(range(40))


REPO = Path(__file__).resolve().parent.parent


def test_the_name_lists_are_written_from_the_table():
    """``bench/names.py`` would write nothing new: the literal lists name the table's rows."""
    spec = importlib.util.spec_from_file_location("bench_names", REPO / "bench" / "names.py")
    assert spec is not None and spec.loader is not None
    names = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(names)
    drifted = [str(path) for path, text in names.generated().items() if path.read_text() != text]
    assert drifted == [], "run python bench/names.py"


def missing_followers(name: str) -> list[str]:
    """The places that do not list the algorithm ``name``."""
    places = [
        (bk.ALGORITHM_NAMES, "ALGORITHM_NAMES in batchkeccak/__init__.py"),
        (TAGS, "TAGS in batchkeccak/cli/sums.py"),
        (ORACLES, "ORACLES in tests/oracles.py"),
    ]
    return [where for names, where in places if name not in names]


def test_every_algorithm_row_is_followed():
    assert {name: missing_followers(name) for name in bk.algorithms} == {
        name: [] for name in bk.algorithms
    }
    assert bk.ALGORITHM_NAMES == tuple(bk.algorithms)  # in the table's order, too


def test_a_row_added_alone_is_reported():
    assert missing_followers("sha3_1024") == [
        "ALGORITHM_NAMES in batchkeccak/__init__.py",
        "TAGS in batchkeccak/cli/sums.py",
        "ORACLES in tests/oracles.py",
    ]


def test_every_table_row_has_an_oracle():
    assert set(ORACLES) == set(bk.algorithms)
    for name, spec in bk.algorithms.items():
        assert spec.rate == ORACLES[name][0], name


def test_the_lists_name_nothing_else():
    """A removed or renamed row leaves no stale name behind: TAGS holds the table's rows and
    every mode that hashes a file as one message (all but TupleHash), nothing more."""
    file_modes = {name for name, mode in bk.modes.items() if mode.family != "tuplehash"}
    assert set(TAGS) == set(bk.algorithms) | file_modes
    assert set(bk.ALGORITHM_NAMES) == set(bk.algorithms)


@pytest.mark.parametrize("name", list(bk.ALGORITHM_NAMES))
def test_every_algorithm_row_reaches_every_entry_point(name, tmp_path, capsys):
    xof = bk.algorithms[name].xof
    length = 24 if xof else None
    want = oracle(name, MESSAGE, length)
    assert bk.hash_one(MESSAGE, name, length=length) == want
    constructed = getattr(bk, name)(MESSAGE)
    assert (constructed.digest(length) if xof else constructed.digest()) == want
    assert name in bk.algorithms_available

    path = tmp_path / "m"
    path.write_bytes(MESSAGE)
    assert main(["hash", "--tag", "-a", name, *(["--length", "24"] if xof else []), str(path)]) == 0
    assert capsys.readouterr().out == f"{TAGS[name]} ({path}) = {want.hex()}\n"


# ----------------------------------------------------------------------------------------
# Modes: each row's family has a construction, and a reference model to check it against.


def _sp800_bits(mode) -> int:
    return 128 if mode.sponge.endswith("128") else 256


MODE_ORACLES = {
    # family: (parameters for the check, reference digest of MESSAGE at 24 bytes)
    "cshake": (
        {"customization": b"C", "function_name": b"F"},
        lambda m: ref.cshake(_sp800_bits(m), MESSAGE, 24, b"F", b"C"),
    ),
    "kmac": (
        {"key": KEY, "customization": b"C"},
        lambda m: ref.kmac(_sp800_bits(m), KEY, MESSAGE, 24, b"C", m.xof),
    ),
    "hmac": (
        {"key": KEY},
        lambda m: hmac.new(KEY, MESSAGE, m.sponge).digest(),
    ),
    "tuplehash": (
        {"customization": b"C"},
        lambda m: ref.tuplehash(_sp800_bits(m), [MESSAGE], 24, b"C", m.xof),
    ),
    "parallelhash": (
        {"block_size": 64, "customization": b"C"},
        lambda m: ref.parallelhash(_sp800_bits(m), MESSAGE, 64, 24, b"C", m.xof),
    ),
    "kangarootwelve": (
        {"customization": b"C"},
        lambda m: ref.kangarootwelve(_sp800_bits(m), MESSAGE, b"C", 24),
    ),
    "turboshake": (
        {"domain": 0x0B},
        lambda m: ref.turboshake(_sp800_bits(m), MESSAGE, 0x0B, 24),
    ),
}


def test_every_mode_family_has_a_reference():
    assert {mode.family for mode in bk.modes.values()} <= set(MODE_ORACLES)


@pytest.mark.parametrize("name", list(bk.modes))
def test_every_mode_row_equals_its_reference(name):
    mode = bk.modes[name]
    assert mode.sponge in bk.algorithms
    params, reference = MODE_ORACLES[mode.family]
    assert set(params) <= set(mode.params) | {"block_size"}
    length = None if mode.fixed_length else 24
    hasher = bk.hasher(name, length=length, threads=1, **params)
    # TupleHash through hash_many hashes each message as a tuple of one field.
    assert bk.hash_many([MESSAGE], hasher)[0].tobytes() == reference(mode)


# ----------------------------------------------------------------------------------------
# A new sponge row is two files: the row, and its oracle.

NEW_ROW = '    Algorithm("sha3_test160", 160, 0x06, 20, tag="SHA3-TEST160"),\n'
"""A row no other row resembles: a rate of 160 bytes, which no standard function uses."""

NEW_ORACLE = """
from reference_keccak import sponge as _sponge

ORACLES["sha3_test160"] = (160, lambda m, n: _sponge(160, 0x06, m, 20))
"""
"""Its oracle: the plain Python model of Keccak[c] (``tests/reference_keccak.py``)."""

SURFACES = textwrap.dedent(
    """
    import io, sys
    from contextlib import redirect_stdout
    import duckdb, pandas as pd, polars as pl, pyarrow as pa
    import batchkeccak as bk
    import batchkeccak.duckdb, batchkeccak.pandas, batchkeccak.polars
    from batchkeccak.cli import main
    from oracles import oracle

    name = "sha3_test160"
    messages = [bytes(range(n % 256)) * (1 + n // 256) for n in (0, 1, 159, 160, 161, 700)]
    want = [oracle(name, m) for m in messages]
    assert bk.ALGORITHM_NAMES[-1] == name and name in bk.__all__, "names"
    assert [d.tobytes() for d in bk.hash_many(messages, name)] == want, "hash_many"
    assert [d.tobytes() for d in bk.hash_many(messages * 50, name)] == want * 50, "kernels"
    h = bk.new("SHA3-TEST160")
    h.update(messages[-1][:300]); h.update(messages[-1][300:])
    assert h.digest() == want[-1] and bk.sha3_test160(messages[3]).digest() == want[3], "new"
    with open(sys.argv[1], "wb") as f:
        f.write(messages[4])
    out = io.StringIO()
    with redirect_stdout(out):
        assert main(["hash", "--tag", "-a", name, sys.argv[1]]) == 0
    assert out.getvalue() == f"SHA3-TEST160 ({sys.argv[1]}) = {want[4].hex()}\\n", out.getvalue()
    con = duckdb.connect()
    batchkeccak.duckdb.register(con)
    con.register("t", pa.table({"v": pa.array(messages, pa.binary())}))
    got = [row[0] for row in con.sql(f"select {name}(v) from t").fetchall()]
    assert got == want, "duckdb"
    assert pl.Series(messages).bk.sha3_test160().to_list() == want, "polars"
    assert list(pd.Series(messages).bk.sha3_test160()) == want, "pandas"
    print("served")
    """
)


@pytest.mark.slow
def test_a_new_row_is_served_everywhere(tmp_path):
    """The recipe of docs/architecture.md: a row in ``core/parameters.py``, its oracle in
    ``tests/oracles.py``, ``python bench/names.py``; then ``hash_many`` (one-shot side and
    kernels), ``new()`` and the constructor, ``hash --tag``, DuckDB SQL and the Polars and
    pandas accessors all serve it, checked against the oracle in a fresh process."""
    # With its __pycache__ folders: numba's cache entries hold when a kernel's source file
    # keeps its size and time (copied with them), so the copy loads the kernels the
    # suite compiled (the row is Python; no kernel changes) instead of compiling them all.
    shutil.copytree(REPO / "batchkeccak", tmp_path / "batchkeccak")
    (tmp_path / "bench").mkdir()
    shutil.copy(REPO / "bench" / "names.py", tmp_path / "bench")
    (tmp_path / "tests").mkdir()
    for helper in ("oracles.py", "reference_keccak.py"):
        shutil.copy(REPO / "tests" / helper, tmp_path / "tests")

    table = tmp_path / "batchkeccak" / "core" / "parameters.py"
    text = table.read_text()
    end = text.index("]  # fmt: skip", text.index("_TABLE = ["))
    table.write_text(text[:end] + NEW_ROW + text[end:])
    with open(tmp_path / "tests" / "oracles.py", "a") as oracles:
        oracles.write(NEW_ORACLE)

    env = {**os.environ, "PYTHONPATH": f"{tmp_path}{os.pathsep}{tmp_path / 'tests'}"}
    run = {"cwd": tmp_path, "env": env, "capture_output": True, "text": True, "timeout": 300}
    written = subprocess.run([sys.executable, "bench/names.py"], check=False, **run)
    assert written.returncode == 0, written.stderr
    script = [sys.executable, "-c", SURFACES, str(tmp_path / "m")]
    served = subprocess.run(script, check=False, **run)
    # (DuckDB may draw a progress bar on stdout first.)
    assert served.returncode == 0, served.stderr[-3000:]
    assert served.stdout.splitlines()[-1] == "served"


@pytest.mark.parametrize("name", [n for n, spec in bk.algorithms.items() if spec.oneshot])
def test_the_oneshot_column_names_a_backend_of_the_same_function(name):
    """A row's ``oneshot`` column sends its small work to hashlib or pycryptodome: that
    backend gives the oracle's digest, and another domain byte goes to the kernels (None)
    except for TurboSHAKE, whose pycryptodome form takes any domain byte."""
    from batchkeccak.core.oneshot import oneshot_digest

    spec = bk.algorithms[name]
    length = 24 if spec.xof else None
    assert oneshot_digest(spec, spec.suffix, MESSAGE, length or 0) == oracle(name, MESSAGE, length)
    other = oneshot_digest(spec, 0x0B, MESSAGE, 24)
    if spec.oneshot == "turboshake":
        bits = 128 if spec.rate == 168 else 256
        assert other == ref.turboshake(bits, MESSAGE, 0x0B, 24)
    else:
        assert other is None


def test_object_identifiers_of_both_tables_resolve():
    """NIST's arcs (hashAlgs 7-16, 19-20), written here, name rows and modes alike."""
    arcs = {7: "sha3_224", 8: "sha3_256", 9: "sha3_384", 10: "sha3_512", 11: "shake_128",
            12: "shake_256", 13: "hmac_sha3_224", 14: "hmac_sha3_256", 15: "hmac_sha3_384",
            16: "hmac_sha3_512", 19: "kmac_128", 20: "kmac_256"}  # fmt: skip
    for arc, name in arcs.items():
        oid = f"2.16.840.1.101.3.4.2.{arc}"
        params = {"key": KEY} if name in bk.modes else {}
        length = 24 if name.startswith(("shake", "kmac")) else None
        assert bk.hasher(oid, length=length, **params).name == name, oid
