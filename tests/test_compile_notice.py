"""A run of the command that compiles the kernels (a cold numba cache) says so once on stderr;
a warm cache, and a library call, say nothing."""

from __future__ import annotations

import hashlib
import os
import subprocess
import sys

import pytest

from batchkeccak.native.jit import COMPILE_NOTICE

pytestmark = pytest.mark.slow  # compiles the kernels in a fresh cache: seconds


def _run(args: list[str], cache: str, *, terminal: bool = False) -> subprocess.CompletedProcess:
    """Run Python with ``args``; with ``terminal``, its stderr is a pseudo-terminal (read back
    as ``stderr``), as when a person runs the command."""
    env = {**os.environ, "NUMBA_CACHE_DIR": cache, "BATCHKECCAK_BACKEND": "kernels"}
    command = [sys.executable, *args]
    if not terminal:
        return subprocess.run(
            command, check=False, capture_output=True, text=True, env=env, timeout=300
        )
    leader, follower = os.openpty()
    try:
        process = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=follower, env=env)
        os.close(follower)
        said = bytearray()
        while True:
            try:
                chunk = os.read(leader, 4096)
            except OSError:  # EIO: the terminal's last writer has gone
                break
            if not chunk:
                break
            said += chunk
        stdout = process.stdout.read() if process.stdout else b""
        process.wait(timeout=300)
    finally:
        os.close(leader)
    # A terminal writes "\r\n" for each "\n".
    text = said.decode().replace("\r\n", "\n")
    return subprocess.CompletedProcess(command, process.returncode, stdout.decode(), text)


def test_a_cold_cache_is_announced_once_and_a_warm_one_not(tmp_path):
    files = [tmp_path / "a", tmp_path / "b"]
    for path in files:
        path.write_bytes(b"abc")
    expected = "".join(f"{hashlib.sha3_256(b'abc').hexdigest()}  {path}\n" for path in files)
    cache = str(tmp_path / "cache")
    cold = _run(["-m", "batchkeccak", "hash", *map(str, files)], cache, terminal=True)
    assert cold.returncode == 0 and cold.stdout == expected
    assert cold.stderr == COMPILE_NOTICE + "\n"
    assert "about" in COMPILE_NOTICE and "once" in COMPILE_NOTICE
    warm = _run(["-m", "batchkeccak", "hash", *map(str, files)], cache, terminal=True)
    assert (warm.returncode, warm.stdout, warm.stderr) == (0, expected, "")


def test_a_captured_stderr_is_not_told(tmp_path):
    # A script or test that captures stderr sees no line that depends on the cache's state.
    (tmp_path / "a").write_bytes(b"abc")
    cold = _run(["-m", "batchkeccak", "hash", str(tmp_path / "a")], str(tmp_path / "cache"))
    assert cold.returncode == 0 and cold.stderr == ""
    assert cold.stdout == f"{hashlib.sha3_256(b'abc').hexdigest()}  {tmp_path / 'a'}\n"


def test_a_library_call_says_nothing(tmp_path):
    library = _run(
        ["-c", "import batchkeccak as bk; print(bk.hash_one(b'abc', 'sha3_256').hex())"],
        str(tmp_path / "cache"),
    )
    assert library.stdout == hashlib.sha3_256(b"abc").hexdigest() + "\n"
    assert library.stderr == ""
