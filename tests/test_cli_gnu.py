"""``batchkeccak hash -a sha3_256`` replayed against GNU ``sha256sum`` 9.x on the same inputs:
checksum lists in every layout GNU reads, escaped names, missing files, malformed lines and
each --check option. SHA-3 digests (hashlib) stand in for SHA-256 ones; stdout, stderr (with
the program and algorithm names normalized) and the exit status must match."""

from __future__ import annotations

import functools
import hashlib
import os
import re
import shutil
import subprocess
import sys

import pytest
from cli_forks import CommandForks

TIMEOUT = 120


def _gnu_version() -> tuple[int, ...] | None:
    if shutil.which("sha256sum") is None:
        return None
    done = subprocess.run(["sha256sum", "--version"], capture_output=True, check=False)
    found = re.search(rb"GNU coreutils\) (\d+)\.(\d+)", done.stdout)
    return tuple(map(int, found.groups())) if found else None


pytestmark = pytest.mark.skipif(
    (_gnu_version() or (0,))[0] != 9, reason="needs GNU coreutils 9.x sha256sum as the oracle"
)

FILES = {
    "a": b"abc",
    "sp ace": b"",
    "back\\slash": b"x" * 200,
    "new\nline": b"n",
    "cr\rname": b"q",
    "star*": b"*",
    "-": b"not stdin",
}


@pytest.fixture()
def folder(tmp_path):
    for name, data in FILES.items():
        (tmp_path / name).write_bytes(data)
    return tmp_path


def sha2(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def sha3(data: bytes) -> str:
    return hashlib.sha3_256(data).hexdigest()


def to_sha3(text: bytes) -> bytes:
    """A SHA-256 list or report made a SHA3-256 one: every known digest and the tag swapped."""
    for data in set(FILES.values()) | {b"stdin data"}:
        text = text.replace(sha2(data).encode(), sha3(data).encode())
        text = text.replace(sha2(data).upper().encode(), sha3(data).upper().encode())
    return text.replace(b"SHA256", b"SHA3-256")


def normalized(stream: bytes) -> bytes:
    for prefix in (b"batchkeccak hash: ", b"batchkeccak: ", b"sha256sum: "):
        stream = stream.replace(prefix, b"PROGRAM: ")
    stream = stream.replace(b"Try 'batchkeccak hash --help'", b"Try 'PROGRAM --help'")
    return stream.replace(b"Try 'sha256sum --help'", b"Try 'PROGRAM --help'")


USER_ENVIRONMENT = {
    **{name: value for name, value in os.environ.items() if name != "BATCHKECCAK_BACKEND"},
    "PYTHONPATH": os.pathsep.join(sys.path),
}
"""The command's environment in these comparisons: the backend policy a user gets (the suite
forces the kernels, which would load numba in every one of several hundred runs: 0.5 s each).
The output, statuses and messages compared here do not depend on which backend hashed; the
command's digests on every backend are checked in test_cli_hash.py and test_differential.py."""


def run_both(
    folder,
    argv: list[str],
    listing: bytes | None = None,
    stdin: bytes | None = b"",
    close_stdout: bool = False,
):
    """sha256sum ARGV and batchkeccak hash ARGV; LIST holds ``listing`` (SHA-256 digests for
    the first, the SHA-3 ones for the second). ``stdin`` None: run with stdin closed, as
    ``<&-`` in a shell; ``close_stdout``: with stdout closed (``>&-``)."""
    results = []
    closing = ("<&- " if stdin is None else "") + (">&-" if close_stdout else "")
    closed = ["sh", "-c", f'exec "$@" {closing}', "sh"] if closing else []
    for command, convert in (
        (["sha256sum"], lambda b: b),
        ([sys.executable, "-m", "batchkeccak", "hash"], to_sha3),
    ):
        if listing is not None:
            (folder / "LIST").write_bytes(convert(listing))
        if command[0] != "sha256sum" and not closing:
            # A process of its own, forked from one that has imported the command
            # (tests/cli_forks.py): what closed streams change is left to plain children.
            arguments = [os.fsencode(arg) for arg in ["hash", *argv]]
            results.append(FORKS[0].run(arguments, folder, input=convert(stdin)))
            continue
        done = subprocess.run(
            closed + command + argv,
            input=None if stdin is None else convert(stdin),
            capture_output=True,
            cwd=folder,
            timeout=TIMEOUT,
            check=False,
            env=USER_ENVIRONMENT,
        )
        results.append(done)
    gnu, ours = results
    return (
        to_sha3(gnu.stdout),
        normalized(gnu.stderr).replace(b"SHA256", b"SHA3-256"),
        gnu.returncode,
    ), (ours.stdout, normalized(ours.stderr), ours.returncode)


def line(name: str, tag: bool = False) -> bytes:
    """A sha256sum line for one of FILES, built with sha256sum itself."""
    done = subprocess.run(
        ["sha256sum", *(["--tag"] if tag else []), "--", name],
        capture_output=True,
        cwd=FOLDER[0],
        check=True,
    )
    return done.stdout


FOLDER: list = [None]
FORKS: list = [None]


@pytest.fixture(autouse=True)
def _remember(folder):
    FOLDER[0] = folder


@pytest.fixture(scope="module", autouse=True)
def _forks():
    FORKS[0] = CommandForks(USER_ENVIRONMENT, TIMEOUT, preload=("batchkeccak.cli.hash",))
    yield
    FORKS[0].close()


HASHING = [
    [*FILES],
    ["--tag", *FILES],
    ["-b", "a", "new\nline"],
    ["-t", "a"],
    ["-z", *FILES],
    ["a", "missing", ".", "sp ace"],
    ["--tag", "-t", "a"],
    ["-t", "--tag", "a"],
    ["--status", "a"],
    ["--warn", "a"],
    ["--quiet", "a"],
    ["--strict", "a"],
    ["--ignore-missing", "a"],
    ["--status", "--quiet", "a"],
    ["-c", "--tag", "LIST"],
    ["-c", "-z", "LIST"],
    ["-c", "-b", "LIST"],
    ["--bogus"],
    ["-c", "nolist"],
    ["-c", "."],
    ["--", "-"],
    [""],
    ["bad\xff"],
    ["it's\n"],
]


@pytest.mark.slow
@pytest.mark.parametrize("argv", HASHING, ids=repr)
def test_hashing_and_usage(folder, argv):
    gnu, ours = run_both(folder, argv, listing=b"")
    assert ours == gnu


def test_stdin_is_hashed_as_dash(folder):
    gnu, ours = run_both(folder, ["-"], stdin=b"stdin data")
    assert ours == gnu


@pytest.mark.parametrize(
    "argv",
    [
        [],
        ["-"],
        ["--tag"],
        ["a", "-"],
        ["a"],
        ["-c"],
        ["-c", "-"],
        ["-c", "LIST", "-"],
        ["-c", "LIST"],
    ],
    ids=" ".join,
)
def test_closed_stdin(folder, argv):
    # ``<&-``: the operand's error, then (where stdin was asked for) GNU's complaint when it
    # closes stdin at exit, "standard input: Bad file descriptor"; exit status 1.
    gnu, ours = run_both(folder, argv, listing=line("a"), stdin=None)
    assert ours == gnu


@pytest.mark.parametrize(
    "argv", [["a"], ["-c", "LIST"], ["-c", "--status", "LIST"], ["missing"]], ids=" ".join
)
def test_closed_stdout(folder, argv):
    # ``>&-``: a write error where something was to be written, nothing otherwise.
    gnu, ours = run_both(folder, argv, listing=line("a"), close_stdout=True)
    assert ours == gnu


CHECK_OPTIONS = [
    [],
    ["--warn"],
    ["--strict"],
    ["--quiet"],
    ["--status"],
    ["--ignore-missing"],
    ["--strict", "--warn"],
    ["--status", "--warn"],
    ["--warn", "--quiet"],
    ["--quiet", "--status"],
]


@functools.cache
def listings() -> dict[str, bytes]:
    """The checked listings, built once: their lines depend on the names and contents of
    FILES only, the same in every test's folder."""
    good = b"".join(line(name) for name in FILES if name != "-")
    tagged = b"".join(line(name, tag=True) for name in FILES if name != "-")
    digest = sha2(b"abc").encode()
    return {
        "good": good,
        "tagged": tagged,
        "crlf": good.replace(b"\n", b"\r\n"),
        "reversed": digest + b" a\n" + digest + b"\ta\n" + digest + b" *a\n",
        "mixed layouts": digest + b"  a\n" + digest + b" a\n",
        "tag variants": b"SHA256 (a)= " + digest + b"\nSHA256(a) = " + digest + b"\n"
        b"SHA256(a)=" + digest + b"\nSHA256  (a) = " + digest + b"\n",
        "wrong": b"0" * 64 + b"  a\n" + digest + b"  sp ace\n",
        "missing": digest + b"  missing\n" + digest + b"  a\n",
        "only missing": digest + b"  missing\n",
        "malformed": b"garbage\n"
        + digest
        + b"  a\n"
        + digest[:-1]
        + b"  a\n"
        + digest
        + b"\n"
        + digest
        + b"  \n",
        "comments and blanks": b"# c\n\n   \n\t\n  # indented\n" + digest + b"  a\n",
        "escapes": b"\\" + digest + b"  a\\qb\n\\" + digest + b"  a\\\n\\" + digest + b"  a\\\\b\n",
        "empty": b"",
        "only comments": b"# nothing\n",
        "names with specials": digest + b"  it's\n" + digest + b"  a:b\n" + digest + b"  \xff\n",
        "no final newline": digest + b"  a",
        "uppercase": digest.upper() + b"  a\n",
        "leading blanks": b" \t" + digest + b"  a\n",
        "nul": digest + b"  a\0junk\n",
    }


@pytest.mark.slow
@pytest.mark.parametrize(
    "case",
    [
        "good",
        "tagged",
        "crlf",
        "reversed",
        "mixed layouts",
        "tag variants",
        "wrong",
        "missing",
        "only missing",
        "malformed",
        "comments and blanks",
        "escapes",
        "empty",
        "only comments",
        "names with specials",
        "no final newline",
        "uppercase",
        "leading blanks",
        "nul",
    ],
)
@pytest.mark.parametrize("options", CHECK_OPTIONS, ids=" ".join)
def test_check_like_sha256sum(folder, case, options):
    listing = listings()[case]
    if options == ["--ignore-missing"] and case == "only missing":
        pytest.skip("differs on purpose: see test_ignore_missing_with_status_says_nothing")
    gnu, ours = run_both(folder, ["-c", *options, "LIST"], listing=listing)
    assert ours == gnu


@pytest.mark.parametrize("argv", [["-c"], ["-c", "-"], ["-c", "-", "LIST"]], ids=" ".join)
def test_check_of_stdin(folder, argv):
    listing = line("a") + b"bad line\n" + sha2(b"abc").encode() + b"  -\n"
    gnu, ours = run_both(folder, [*argv, "--warn"], listing=line("sp ace"), stdin=listing)
    assert ours == gnu


def test_two_listings_share_the_layout(folder):
    # The first untagged line read decides the layout for every listing of the run.
    digest = sha2(b"abc").encode()
    for first, second in (("-", "LIST"), ("LIST", "-")):
        gnu, ours = run_both(
            folder, ["-c", first, second], listing=digest + b"  a\n", stdin=digest + b" a\n"
        )
        assert ours == gnu


def test_ignore_missing_with_status_says_nothing(folder):
    # GNU 9.1 still prints "no file was verified" under --status; --status means silence.
    (folder / "LIST").write_bytes(sha3(b"abc").encode() + b"  missing\n")
    done = subprocess.run(
        [sys.executable, "-m", "batchkeccak", "hash", "-c", "--status", "--ignore-missing", "LIST"],
        capture_output=True,
        cwd=folder,
        timeout=TIMEOUT,
        check=False,
        env={**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)},
    )
    assert (done.stdout, done.stderr, done.returncode) == (b"", b"", 1)
