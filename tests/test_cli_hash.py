"""``batchkeccak hash``: files and lines, checked against hashlib / pycryptodome."""

from __future__ import annotations

import subprocess
import sys

import pytest

from batchkeccak.cli import main

from oracles import oracle


def test_files_like_sha3sum(tmp_path, capsys):
    paths = []
    for i, content in enumerate([b"", b"abc", bytes(range(256)) * 40]):
        path = tmp_path / f"f{i}.bin"
        path.write_bytes(content)
        paths.append(path)
    assert main(["hash", "-a", "sha3_512", *map(str, paths)]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines == [f"{oracle('sha3_512', p.read_bytes()).hex()}  {p}" for p in paths]


def test_lines_mode_excludes_line_endings(tmp_path, capsys):
    path = tmp_path / "ids.txt"
    path.write_bytes(b"alice\r\nbob\n\n0xdeadbeef")
    assert main(["hash", "--lines", "-a", "keccak_256", str(path)]) == 0
    got = capsys.readouterr().out.splitlines()
    want = [oracle("keccak_256", m).hex() for m in (b"alice", b"bob", b"", b"0xdeadbeef")]
    assert got == want


def test_stdin_and_xof_length():
    done = subprocess.run(
        [sys.executable, "-m", "batchkeccak", "hash", "-a", "shake_256", "--length", "5"],
        input=b"stream", capture_output=True, check=True,
    )
    assert done.stdout.decode() == f"{oracle('shake_256', b'stream', 5).hex()}  -\n"


@pytest.mark.parametrize(
    "argv, message",
    [
        (["hash", "missing-file"], "cannot read missing-file"),
        (["hash", "-a", "md5", "x"], "unknown algorithm 'md5'"),
        (["hash", "-a", "shake_128", "x"], "--length is required"),
        (["hash", "-a", "sha3_256", "--length", "8", "x"], "always returns 32 bytes"),
    ],
)
def test_errors_are_reported_with_status_2(argv, message, capsys):
    assert main(argv) == 2
    assert message in capsys.readouterr().err


def test_lines_in_many_blocks_and_without_final_newline(tmp_path, capsys, monkeypatch):
    # Blocks much smaller than the input: lines cross block boundaries, and the last line has
    # no newline; CR LF endings lose the CR, a lone CR inside a line stays.
    from batchkeccak.cli import hash as hash_command

    monkeypatch.setattr(hash_command, "BATCH_BYTES", 7)
    lines = [b"first", b"", b"a\rb", b"x" * 40, b"crlf", b"last"]
    path = tmp_path / "many.txt"
    path.write_bytes(b"first\n\na\rb\n" + b"x" * 40 + b"\ncrlf\r\nlast")
    assert main(["hash", "--lines", str(path)]) == 0
    got = capsys.readouterr().out.splitlines()
    assert got == [oracle("sha3_256", line).hex() for line in lines]
