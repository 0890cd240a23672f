"""Malformed, huge, negative and non-UTF-8 arguments to every subcommand: one line of error,
a plain exit status, never a Python traceback."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys

import pytest
from cli_forks import CommandForks

TIMEOUT = 120
"""Seconds a child may take: an argument error must not start real work."""

HUGE = b"1000000000000000000000"
TERA = b"1000000000000"


USER_ENVIRONMENT = {
    **{name: value for name, value in os.environ.items() if name != "BATCHKECCAK_BACKEND"},
    "PYTHONPATH": os.pathsep.join(sys.path),
}
"""The backend policy a user gets (the suite forces the kernels: numba loaded in every child).
What is checked here, one line of error and an exit status, does not depend on the backend."""


def _child(args: list[bytes], cwd, **options) -> subprocess.CompletedProcess:
    """Run ``args`` in ``cwd``, output captured, with this interpreter's import path."""
    return subprocess.run(
        args,
        capture_output=True,
        cwd=cwd,
        timeout=TIMEOUT,
        check=False,
        env=USER_ENVIRONMENT,
        **options,
    )


@pytest.fixture(scope="module")
def run_cli():
    """``batchkeccak ARGV`` with bytes arguments (argv may hold any byte but NUL), stdin
    ``/dev/null``: a process of its own per run, forked from one that has imported the
    command's modules (tests/cli_forks.py)."""
    forks = CommandForks(USER_ENVIRONMENT, TIMEOUT)
    yield forks.run
    forks.close()


@pytest.fixture(scope="module")
def files(tmp_path_factory):
    folder = tmp_path_factory.mktemp("fuzz")
    (folder / "f").write_bytes(b"abc")
    import pyarrow as pa
    import pyarrow.parquet as pq

    pq.write_table(pa.table({"email": ["a@b", "c@d"]}), folder / "s.parquet")
    depth = 100_000  # far past Python's recursion limit
    (folder / "deep.json").write_text("[" * depth + "]" * depth)
    (folder / "deep_rows.json").write_text("[" + "[" * depth + "]" * depth + "]")
    (folder / "deep_object.json").write_text('{"a":' * depth + "1" + "}" * depth)
    (folder / "rows.csv").write_text("a,b\n0x" + "11" * 20 + ",5\n")
    return folder


PARQUET = [b"parquet", b"s.parquet", b"o.parquet", b"-c", b"email"]
"""``parquet`` over the email column of s.parquet, into o.parquet."""
CSHAKE_S = [b"-a", b"cshake_128", b"--length", b"8", b"--customization", b"\xff\xfe"]
"""cSHAKE128 with a customization string S that is not UTF-8."""
PROOF_ROWS = [
    *(b"merkle", b"proof", b"rows.csv", b"-s", b"openzeppelin"),
    *(b"--types", b"address,uint256"),
]
"""``merkle proof`` over the OpenZeppelin rows of rows.csv."""

CASES = [
    # demo and bench: argument errors only (their workloads take minutes).
    [b"demo", b"--count", b"-5"],
    [b"demo", b"--count", b"x\xff"],
    [b"demo", b"--count", HUGE],
    [b"demo", b"--seed", b"-"],
    [b"demo", b"--algorithm", b"\xff"],
    [b"bench", b"--repeats", b"-1"],
    [b"bench", b"--repeats", b"\xfe"],
    [b"bench", b"--workload", b"\xff\xfe"],
    [b"bench", b"--json", b"."],
    # hash
    [b"hash", b"-a", b"shake_256", b"--length", TERA, b"f"],
    [b"hash", b"-a", b"shake_256", b"--length", TERA, b"f", b"f"],
    [b"hash", b"-a", b"kt128", b"--length", TERA, b"f"],
    [b"hash", b"-a", b"turboshake128", b"--length", HUGE, b"f", b"f"],
    [b"hash", b"-a", b"shake_128", b"--length", b"-7", b"f"],
    [b"hash", b"-a", b"shake_128", b"--length", b"\xff", b"f"],
    [b"hash", b"-a", b"\xff\xfe", b"f"],
    [b"hash", b"-a", b"", b"f"],
    [b"hash", b"\xff", b"f\xfe"],
    [b"hash", b"--lines", b"\xff"],
    [b"hash", b"--lines", b"-a", b"shake_128", b"--length", TERA, b"f"],
    [b"hash", b"-c", b"\xff"],
    [b"hash", b"-c", b"."],
    [b"hash", b"-c", b"-a", b"shake_128", b"--length", TERA, b"f"],
    [b"hash", b"--\xff"],
    [b"hash", b"-\xff"],
    # parquet
    [*PARQUET, b"-a", b"kt128", b"--customization", b"\xff"],
    [*PARQUET, *CSHAKE_S],
    [*PARQUET, b"-a", b"shake_256", b"--length", TERA],
    [*PARQUET, b"-a", b"shake_256", b"--length", b"-1"],
    [b"parquet", b"s.parquet", b"o.parquet", b"-c", b"\xff"],
    [b"parquet", b"\xff.parquet", b"o.parquet", b"-c", b"email"],
    [b"parquet", b"s.parquet", b"o.parquet", b"-c", b"email", b"--batch-size", HUGE],
    [b"parquet", b"s.parquet", b"o.parquet", b"-c", b"email", b"--key-env", b"\xff"],
    [b"parquet", b"s.parquet", b"o.parquet", b"-c", b"email", b"--key-file", b"\xff"],
    [b"parquet", b"s.parquet", b".", b"-c", b"email"],
    # merkle
    [b"merkle", b"root", b"\xff", b"-s", b"rfc9162"],
    [b"merkle", b"root", b"f", b"-s", b"rfc9162", b"-f", b"raw", b"--record-size", b"-1"],
    [b"merkle", b"root", b"f", b"-s", b"rfc9162", b"-f", b"raw", b"--record-size", HUGE],
    [b"merkle", b"root", b"f", b"-s", b"rfc9162", b"-a", b"shake_128", b"--length", TERA],
    [b"merkle", b"root", b"f", b"-s", b"rfc9162", b"--threads", b"-3"],
    [b"merkle", b"proof", b"f", b"-s", b"rfc9162", b"--index", b"-1"],
    [b"merkle", b"proof", b"f", b"-s", b"rfc9162", b"--index", HUGE],
    [b"merkle", b"verify", b"f", b"--root", b"0x\xff"],
    [b"merkle", b"verify", b"\xff"],
    # merkle: JSON nested far past Python's recursion limit, in every place JSON is read
    [b"merkle", b"root", b"deep.json", b"-s", b"openzeppelin"],
    [b"merkle", b"root", b"deep.json", b"-s", b"openzeppelin", b"-f", b"json"],
    [b"merkle", b"root", b"deep_rows.json", b"-s", b"openzeppelin", b"--types", b"address,uint256"],
    [b"merkle", b"verify", b"deep.json"],
    [b"merkle", b"verify", b"deep_object.json"],
    [b"merkle", b"proof", b"--load", b"deep_object.json", b"--all"],
    [*PROOF_ROWS, b"--value", b"[" * 100_000],
    [*PROOF_ROWS, b"--value", b"\xff,\xfe"],
    [*PROOF_ROWS, b"--address", b"0x\xff"],
    [b"merkle", b"proof", b"f", b"-s", b"openzeppelin", b"--leaf", b"\xff"],
    [
        b"merkle",
        b"root",
        b"rows.csv",
        b"-s",
        b"openzeppelin",
        b"--types",
        b"uint256" + b"[]" * 50_000 + b",uint8",
    ],
    [b"merkle", b"root", b"f", b"-s", b"openzeppelin", b"--bogus"],
    [b"merkle", b"--bogus"],
    [b"parquet", b"--bogus"],
    # the top level
    [b"\xff"],
    [b"--\xff"],
]


@pytest.mark.slow  # starts the forking process; the runs it checks are in the whole suite
def test_a_forked_run_ends_as_the_interpreter_would(tmp_path, run_cli):
    # What the forked runs are trusted to show: a traceback, a status, unflushed output.
    (tmp_path / "raises.py").write_text("print('partial', end='')\nraise KeyError('boom')\n")
    (tmp_path / "exits.py").write_text("import sys\nprint(sys.argv[1:])\nsys.exit(3)\n")
    (tmp_path / "says.py").write_text("raise SystemExit('a message')\n")
    raised = run_cli([], tmp_path, module="raises")
    assert raised.returncode == 1 and raised.stdout == b"partial"
    assert raised.stderr.startswith(b"Traceback") and b"KeyError: 'boom'" in raised.stderr
    exited = run_cli([b"a\xff", b"-x"], tmp_path, module="exits")
    assert (exited.returncode, exited.stdout, exited.stderr) == (3, b"['a\\udcff', '-x']\n", b"")
    said = run_cli([], tmp_path, module="says")
    assert (said.returncode, said.stderr) == (1, b"a message\n")


@pytest.mark.slow
@pytest.mark.parametrize("argv", CASES, ids=lambda argv: b" ".join(argv).decode("latin-1"))
def test_no_traceback_on_bad_arguments(argv, files, run_cli):
    done = run_cli(argv, files)
    assert b"Traceback" not in done.stderr + done.stdout, done.stderr.decode("latin-1")
    assert b"internal error" not in done.stderr, done.stderr.decode("latin-1")
    assert done.returncode in (0, 1, 2), (done.returncode, done.stderr)
    if done.returncode:
        assert done.stderr, "a failure must say why"
    if done.stderr.endswith(b"--help' for more information.\n"):
        # A misused command line: 1, but diff's 2 (as GNU diff: 1 means "they differ").
        assert done.returncode == (2 if argv[:1] == [b"diff"] else 1), done.stderr
    # Nothing half-written by a refused parquet run (a run that works writes o.parquet).
    leftovers = [p.name for p in files.iterdir() if p.name.endswith(".tmp")]
    assert leftovers == []
    if done.returncode:
        assert not (files / "o.parquet").exists()
    (files / "o.parquet").unlink(missing_ok=True)


@pytest.mark.slow  # a child process per case; the whole suite runs it
def test_non_utf8_customization_is_its_bytes(files, run_cli):
    # The bytes the shell passed are the customization string S: compared with
    # pycryptodome's cSHAKE128 given the same bytes.
    import pyarrow.parquet as pq
    from Crypto.Hash import cSHAKE128

    done = run_cli([b"parquet", b"s.parquet", b"c.parquet", b"-c", b"email", *CSHAKE_S], files)
    assert done.returncode == 0, done.stderr
    got = pq.read_table(files / "c.parquet").column("email_cshake_128").to_pylist()
    want = [cSHAKE128.new(data=v, custom=b"\xff\xfe").read(8) for v in (b"a@b", b"c@d")]
    assert got == want


# Standard input or output closed (``<&-``, ``>&-``): every command that reads stdin says so in
# one line (``hash`` as GNU's sha256sum: tests/test_cli_gnu.py), none prints a traceback.
CLOSED = [
    (b"<&-", [b"hash"]),
    (b"<&-", [b"hash", b"-c"]),
    (b"<&-", [b"hash", b"--lines"]),
    (b"<&-", [b"hash", b"-a", b"kt128", b"-"]),
    (b"<&-", [b"merkle", b"root", b"-", b"-s", b"rfc9162"]),
    (b"<&-", [b"merkle", b"root", b"-", b"-s", b"openzeppelin", b"-f", b"raw"]),
    (b"<&-", [b"merkle", b"proof", b"-", b"-s", b"openzeppelin", b"-i", b"0"]),
    (b"<&-", [b"merkle", b"verify", b"-"]),
    (b">&-", [b"hash", b"f"]),
    (b">&-", [b"hash", b"--lines", b"f"]),
    (
        b">&-",
        [b"merkle", b"root", b"rows.csv", b"-s", b"openzeppelin", b"--types", b"address,uint256"],
    ),
    (b">&-", [b"--bogus"]),
    (b"2>&-", [b"hash", b"missing"]),
    (b"2>&-", [b"merkle", b"root", b"missing", b"-s", b"rfc9162"]),
]


@pytest.mark.slow  # a child process per case; the whole suite runs it
@pytest.mark.parametrize(
    "redirect, argv",
    CLOSED,
    ids=lambda x: b" ".join(x).decode() if isinstance(x, list) else x.decode(),
)
def test_closed_standard_streams(files, redirect, argv):
    done = subprocess.run(
        [
            b"sh",
            b"-c",
            b'exec "$@" ' + redirect,
            b"sh",
            os.fsencode(sys.executable),
            b"-m",
            b"batchkeccak",
            *argv,
        ],
        capture_output=True,
        cwd=files,
        timeout=TIMEOUT,
        check=False,
        env=USER_ENVIRONMENT,
    )
    assert b"Traceback" not in done.stderr and b"internal error" not in done.stderr, done.stderr
    assert done.returncode in (0, 1, 2), (done.returncode, done.stderr)
    if redirect == b"<&-":
        assert done.returncode and b"Bad file descriptor" in done.stderr + done.stdout
    if redirect == b"2>&-":
        assert done.returncode


# Output to a closed stdout (``>&-``) is a write error, as GNU's tools report one when they
# close stdout at exit: one line, the subcommand's trouble status (1 without a subcommand, 2
# for merkle, parquet and digest, as GNU diff's), never a silent success. argparse swallows a
# failed write of --help, so that case is here too.
WRITERS = [
    ([b"--help"], 1),
    ([b"--version"], 1),
    ([b"merkle", b"root", b"--help"], 2),
    ([b"merkle", b"root", b"rows.csv", b"-s", b"openzeppelin", b"--types", b"address,uint256"], 2),
    ([b"parquet", b"s.parquet", b"--column", b"email", b"copy.parquet"], 2),
    ([b"digest", b"s.parquet"], 2),
]


def _closed_stdout_run(argv, cwd):
    return _child([b"sh", b"-c", b'exec "$@" >&-', b"sh", *argv], cwd)


@pytest.mark.slow  # child processes; tests/test_cli_outputs.py closes stdout in the quick run
@pytest.mark.parametrize(
    "argv, status", WRITERS, ids=lambda x: b" ".join(x).decode() if isinstance(x, list) else str(x)
)
def test_output_to_a_closed_stdout_is_a_write_error(files, argv, status):
    done = _closed_stdout_run([os.fsencode(sys.executable), b"-m", b"batchkeccak", *argv], files)
    assert done.stderr == b"batchkeccak: write error: Bad file descriptor\n", done.stderr
    assert done.returncode == status


@pytest.mark.skipif(shutil.which("sha256sum") is None, reason="GNU coreutils absent")
def test_gnu_reports_a_closed_stdout_the_same_way(files):
    done = _closed_stdout_run([b"sha256sum", b"--help"], files)
    assert (done.returncode, done.stderr) == (1, b"sha256sum: write error: Bad file descriptor\n")
