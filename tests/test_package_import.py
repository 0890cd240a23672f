"""``import batchkeccak`` loads nothing heavy; every public name resolves on first use."""

from __future__ import annotations

import hashlib
import importlib
import os
import subprocess
import sys
from collections.abc import Mapping

import batchkeccak as bk

HEAVY = ("numba", "numpy", "llvmlite", "pyarrow", "dask", "pyspark", "ray", "tqdm")


def fresh_python(code: str, measured_dispatch: bool = False) -> str:
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)}
    if measured_dispatch:
        env.pop("BATCHKECCAK_BACKEND", None)  # the suite's setting: always the kernels
    done = subprocess.run(
        [sys.executable, "-c", code],
        capture_output=True,
        text=True,
        check=True,
        timeout=120,
        env=env,
    )
    return done.stdout.strip()


def test_import_loads_no_kernel_and_no_engine():
    loaded = fresh_python(
        f"import sys, batchkeccak; print(' '.join(m for m in {HEAVY!r} if m in sys.modules))"
    )
    assert loaded == ""


def test_hashing_one_file_from_the_command_line_loads_no_kernel(tmp_path):
    # One file with a function hashlib has: nothing to batch, so nothing is compiled.
    (tmp_path / "a.txt").write_bytes(b"abc")
    loaded = fresh_python(
        "import sys; from batchkeccak.cli import main; "
        f"main(['hash', {str(tmp_path / 'a.txt')!r}]); "
        "print('loaded:', *(m for m in ('numba', 'llvmlite', 'tqdm') if m in sys.modules))"
    )
    digest, loaded = loaded.splitlines()
    assert digest.split()[0] == hashlib.sha3_256(b"abc").hexdigest()
    assert loaded == "loaded:"


def test_hashing_a_few_small_files_from_the_command_line_loads_no_numpy(tmp_path):
    # Small work through hashlib (SHA-3) or pycryptodome (Keccak), one file after another:
    # numpy's import alone would cost more than hashing them.
    from Crypto.Hash import keccak

    contents = [b"", b"abc", bytes(range(256)) * 9, b"x" * 136]
    paths = []
    for i, content in enumerate(contents):
        paths.append(str(tmp_path / f"f{i}"))
        (tmp_path / f"f{i}").write_bytes(content)
    for algorithm, oracle in (
        ("sha3_256", lambda data: hashlib.sha3_256(data).hexdigest()),
        ("keccak256", lambda data: keccak.new(data=data, digest_bits=256).hexdigest()),
        ("shake128", lambda data: hashlib.shake_128(data).hexdigest(40)),
    ):
        length = ["--length", "40"] if algorithm == "shake128" else []
        out = fresh_python(
            "import sys; from batchkeccak.cli import main; "
            f"main(['hash', '-a', {algorithm!r}, *{length!r}, *{paths!r}]); "
            f"print('loaded:', *(m for m in {HEAVY!r} if m in sys.modules))",
            measured_dispatch=True,
        ).splitlines()
        assert out[-1] == "loaded:", (algorithm, out[-1])
        assert [line.split()[0] for line in out[:-1]] == [oracle(c) for c in contents]


def test_every_public_name_resolves():
    for name in bk.__all__:
        assert getattr(bk, name) is not None, name
    assert set(bk.__all__) <= set(dir(bk))


def test_the_tables_are_tables_whatever_was_imported_first():
    # The subpackages that define the tables, imported before the names are looked up.
    importlib.import_module("batchkeccak.derived")
    importlib.import_module("batchkeccak.core.parameters")

    assert isinstance(bk.algorithms, Mapping) and "sha3_256" in bk.algorithms
    assert isinstance(bk.modes, Mapping) and "kmac_256" in bk.modes


def test_the_constructor_names_are_the_table_rows():
    assert bk.ALGORITHM_NAMES == tuple(bk.algorithms)
    assert bk.sha3_256(b"abc").hexdigest() == hashlib.sha3_256(b"abc").hexdigest()


def test_an_unknown_name_is_an_attribute_error():
    try:
        bk.no_such_function  # noqa: B018
    except AttributeError as exc:
        assert "no_such_function" in str(exc)
    else:
        raise AssertionError("bk.no_such_function resolved")


def test_dir_lists_the_public_names_only():
    import batchkeccak

    listed = dir(batchkeccak)
    assert listed == sorted(batchkeccak.__all__)
    for internal in ("TYPE_CHECKING", "annotations", "importlib", "_EXPORTS"):
        assert internal not in listed
    assert {"hash_many", "sha3_256", "table_digest", "__version__"} <= set(listed)
    for name in listed:  # every name listed resolves
        assert getattr(batchkeccak, name) is not None


def test_a_missing_engine_names_the_extra_to_install():
    # Each integration imports its engine through one helper: with the engine absent
    # (None in sys.modules makes its import fail), the error names the pip extra.
    code = """
import importlib, sys
for engine, module, load in [
    ("pandas", "batchkeccak.pandas", None),
    ("polars", "batchkeccak.polars", None),
    ("duckdb", "batchkeccak.duckdb", "_import_duckdb"),
    ("pyspark", "batchkeccak.spark", "_import_pyspark"),
    ("ray", "batchkeccak.ray", "_import_ray_data"),
    ("eth_abi", "batchkeccak.merkle.abi", "_eth_abi_encode"),
]:
    sys.modules[engine] = None
    try:
        loaded = importlib.import_module(module)
        getattr(loaded, load)()
    except ImportError as error:
        print(error)
    else:
        print("no error for", module)
"""
    lines = fresh_python(code).splitlines()
    extras = ["pandas", "polars", "duckdb", "spark", "ray", "merkle"]
    assert len(lines) == len(extras)
    for line, extra in zip(lines, extras, strict=True):
        assert line.startswith(f"batchkeccak.{extra} needs "), line
        assert f"pip install 'batchkeccak[{extra}]'" in line, line
    assert "Java 17" in lines[3]
