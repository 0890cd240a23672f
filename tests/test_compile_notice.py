"""A run of the command that compiles the kernels (a cold numba cache) says so once on stderr;
a warm cache, and a library call, say nothing."""

from __future__ import annotations

import hashlib
import os
import subprocess
import sys

import pytest

from batchkeccak.core.jit import COMPILE_NOTICE

pytestmark = pytest.mark.slow  # compiles the kernels in a fresh cache: seconds


def _run(args: list[str], cache: str) -> subprocess.CompletedProcess:
    env = {**os.environ, "NUMBA_CACHE_DIR": cache, "BATCHKECCAK_BACKEND": "kernels"}
    return subprocess.run(
        [sys.executable, *args], check=False, capture_output=True, text=True, env=env, timeout=300
    )


def test_a_cold_cache_is_announced_once_and_a_warm_one_not(tmp_path):
    files = [tmp_path / "a", tmp_path / "b"]
    for path in files:
        path.write_bytes(b"abc")
    expected = "".join(f"{hashlib.sha3_256(b'abc').hexdigest()}  {path}\n" for path in files)
    cache = str(tmp_path / "cache")
    cold = _run(["-m", "batchkeccak", "hash", *map(str, files)], cache)
    assert cold.returncode == 0 and cold.stdout == expected
    assert cold.stderr == COMPILE_NOTICE + "\n"
    assert "about" in COMPILE_NOTICE and "once" in COMPILE_NOTICE
    warm = _run(["-m", "batchkeccak", "hash", *map(str, files)], cache)
    assert (warm.returncode, warm.stdout, warm.stderr) == (0, expected, "")


def test_a_library_call_says_nothing(tmp_path):
    library = _run(
        ["-c", "import batchkeccak as bk; print(bk.hash_one(b'abc', 'sha3_256').hex())"],
        str(tmp_path / "cache"),
    )
    assert library.stdout == hashlib.sha3_256(b"abc").hexdigest() + "\n"
    assert library.stderr == ""
