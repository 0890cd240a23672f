"""The package runs from a read-only install with no writable home, as cluster executors,
containers and service users run it, and keeps numba's cache wherever NUMBA_CACHE_DIR says."""

from __future__ import annotations

import hashlib
import os
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

import batchkeccak

PACKAGE = Path(batchkeccak.__file__).resolve().parent


def read_only_copy(root: Path) -> Path:
    """A copy of the package where nothing can be written, even by root: every folder's
    ``__pycache__`` is a plain file, so no cache folder can be made there."""
    site = root / "site"
    shutil.copytree(PACKAGE, site / "batchkeccak", ignore=shutil.ignore_patterns("__pycache__"))
    for folder in [site, *[p for p in site.rglob("*") if p.is_dir()]]:
        (folder / "__pycache__").write_bytes(b"")
    for path in sorted(site.rglob("*"), reverse=True):
        path.chmod(0o555 if path.is_dir() else 0o444)
    site.chmod(0o555)
    return site


def homeless_env(root: Path, site: Path) -> dict[str, str]:
    """No writable HOME (it lies under a plain file), no XDG cache, no NUMBA_CACHE_DIR."""
    blocker = root / "not-a-folder"
    blocker.write_bytes(b"")
    env = {k: v for k, v in os.environ.items() if k not in ("XDG_CACHE_HOME", "NUMBA_CACHE_DIR")}
    env.update(HOME=str(blocker / "home"), PYTHONPATH=str(site), PYTHONDONTWRITEBYTECODE="1")
    return env


SCRIPT = textwrap.dedent(
    """
    import hashlib, sys, warnings
    from Crypto.Hash import keccak
    import batchkeccak as bk

    assert bk.__file__.startswith(sys.argv[1]), bk.__file__
    messages = [bytes(range(i % 251)) * (1 + i // 100) for i in range(300)]
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        got = bk.hash_many(messages, "sha3_256")
        kec = bk.hash_many(messages, "keccak_256", threads=1)
        files = bk.hash_files(sys.argv[2:])
        h = bk.sha3_512(b"x" * 1000)
    for i, m in enumerate(messages):
        assert got[i].tobytes() == hashlib.sha3_256(m).digest(), i
        assert kec[i].tobytes() == keccak.new(data=m, digest_bits=256).digest(), i
    for i, path in enumerate(sys.argv[2:]):
        assert files[i].tobytes() == hashlib.sha3_256(open(path, "rb").read()).digest()
    assert h.digest() == hashlib.sha3_512(b"x" * 1000).digest()
    from batchkeccak.native import jit
    names = [type(w.message).__name__ for w in caught]
    print("cached" if jit.cache_available() else "uncached", names.count("UncachedKernelsWarning"))
    """
)


@pytest.fixture
def two_files(tmp_path):
    paths = [tmp_path / "a.bin", tmp_path / "b.bin"]
    paths[0].write_bytes(b"abc")
    paths[1].write_bytes(bytes(range(256)) * 4000)
    return paths


def run_python(args: list[str], env, cwd, timeout: float = 600) -> subprocess.CompletedProcess:
    """This interpreter with ``args`` in ``env`` and ``cwd``, its output captured as text."""
    return subprocess.run(
        [sys.executable, *args],
        env=env,
        capture_output=True,
        text=True,
        timeout=timeout,
        cwd=cwd,
        check=False,
    )


def run_script(site, files, env, cwd) -> str:
    """SCRIPT run from the install at ``site`` over ``files``: its output, once it exited 0."""
    result = run_python(["-c", SCRIPT, str(site), *map(str, files)], env, cwd)
    assert result.returncode == 0, result.stderr
    return result.stdout


@pytest.mark.slow
def test_read_only_install_without_home_compiles_in_memory(tmp_path, two_files):
    site = read_only_copy(tmp_path / "install")
    env = homeless_env(tmp_path, site)
    # Every kernel was compiled in memory, with one warning for the whole process.
    assert run_script(site, two_files, env, tmp_path).split() == ["uncached", "1"]
    assert not list(site.rglob("*.nbi"))

    # The command line too: `hash a b` goes through the kernels (two files).
    cli = subprocess.run(
        [sys.executable, "-m", "batchkeccak", "hash", *map(str, two_files)],
        env=env,
        capture_output=True,
        timeout=600,
        cwd=tmp_path,
        check=False,
    )
    assert cli.returncode == 0, cli.stderr
    expected = b"".join(
        hashlib.sha3_256(p.read_bytes()).hexdigest().encode() + b"  " + str(p).encode() + b"\n"
        for p in two_files
    )
    assert cli.stdout == expected
    assert b"Traceback" not in cli.stderr
    # The command says the library's warning once, as one line of its own.
    lines = cli.stderr.decode().splitlines()
    warned = [line for line in lines if "no writable cache folder" in line]
    assert len(warned) == 1 and warned[0].startswith("batchkeccak: warning: numba finds")
    assert len(lines) == 1


@pytest.mark.slow
def test_numba_cache_dir_keeps_the_kernels_of_a_read_only_install(tmp_path, two_files):
    site = read_only_copy(tmp_path / "install")
    env = homeless_env(tmp_path, site)
    cache = tmp_path / "cache"
    env["NUMBA_CACHE_DIR"] = str(cache)
    for _ in range(2):  # the first run writes the cache, the second reads it
        assert run_script(site, two_files, env, tmp_path).split() == ["cached", "0"]
        assert list(cache.rglob("*.nbi"))


def test_clear_cache_removes_only_numba_files(tmp_path, monkeypatch):
    from batchkeccak.native import jit

    fake = tmp_path / "pkg"
    (fake / "__pycache__").mkdir(parents=True)
    kept = fake / "__pycache__" / "mod.cpython-311.pyc"
    kept.write_bytes(b"")
    for name in ("mod.f-1.py311.nbi", "mod.f-1.py311.1.nbc"):
        (fake / "__pycache__" / name).write_bytes(b"")
    monkeypatch.setattr(jit, "PACKAGE_DIR", fake)
    monkeypatch.setattr(jit.numba.config, "CACHE_DIR", "")
    assert jit.clear_cache() == 2
    assert [p.name for p in (fake / "__pycache__").iterdir()] == [kept.name]


@pytest.mark.slow
def test_warmup_command_compiles_every_kernel_into_the_cache(capsys):
    from batchkeccak.cli import main

    assert main(["warmup"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[0].startswith("kernels ready in ")
    # Then the platform report: one line per chooser (tests/test_platform_report.py).
    assert [line.split(":")[0] for line in lines[1:]] == [
        "backend policy",
        "backend family",
        "tile width",
        "file reader",
        "list reader",
    ]


@pytest.mark.slow  # child processes, one per place numba could not keep a cache
def test_warmup_refuses_at_once_where_it_could_keep_nothing(tmp_path):
    # A read-only install with no writable home, then a NUMBA_CACHE_DIR that is a file: one
    # line, status 1, before any kernel is compiled (an image build fails there, in a second,
    # not after a minute of compiling into memory).
    site = read_only_copy(tmp_path / "install")
    env = homeless_env(tmp_path, site)
    blocker = tmp_path / "a-file"
    blocker.write_bytes(b"")
    nowhere = "batchkeccak: no writable cache folder: set NUMBA_CACHE_DIR"
    # Where the package's own folders are writable, a NUMBA_CACHE_DIR numba cannot use
    # would send the cache there instead: refused too, naming both.
    usual = {**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)}
    for environment, said in (
        (env, nowhere),
        ({**env, "NUMBA_CACHE_DIR": str(blocker)}, f"{nowhere} ({blocker})"),
        (
            {**usual, "NUMBA_CACHE_DIR": str(blocker)},
            f"batchkeccak: NUMBA_CACHE_DIR ({blocker}) is not a folder numba can write",
        ),
    ):
        done = run_python(["-m", "batchkeccak", "warmup"], environment, tmp_path, timeout=120)
        assert done.returncode == 1, done.stderr
        assert done.stdout == ""
        lines = done.stderr.splitlines()
        assert len(lines) == 1 and lines[0].startswith(said), lines
        assert not list(site.rglob("*.nbi")) and not list(blocker.parent.rglob("*.nbc"))
