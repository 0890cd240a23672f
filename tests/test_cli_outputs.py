"""Every subcommand that writes, against every kind of destination.

The subcommands come from the parser registry (``batchkeccak.cli.build_parser``), so a new
one fails :func:`test_every_subcommand_is_covered` until it is given cases here. Each run is
in-process (``main([...])`` with file descriptor 1 redirected) and must end with nothing
deleted, the documented exit status, and at most one line on stderr.
"""

from __future__ import annotations

import contextlib
import errno
import io
import os
import stat
import sys
import threading
from dataclasses import dataclass
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from batchkeccak.cli import build_parser, main

pytestmark = pytest.mark.skipif(sys.platform == "win32", reason="FIFOs and /dev/full")

FULL = "/dev/full"
ENOSPC = os.strerror(errno.ENOSPC)
EBADF = os.strerror(errno.EBADF)


@dataclass
class Case:
    """One subcommand's run: ``argv`` with ``{dir}`` for the prepared folder and, for a
    run that writes a named file, ``{dst}`` for it. ``ok``: the status of a good run;
    ``parquet``: whether the file (or stdout) holds Parquet."""

    argv: list[str]
    ok: int = 0
    parquet: bool = False


TROUBLE = {
    "hash": 1,
    "parquet": 2,
    "merkle": 2,
    "digest": 2,
    "diff": 2,
    "warmup": 1,
    "demo": 2,
    "bench": 2,
}
"""What README's error contract promises: bad input and write errors exit with these."""

STDOUT_CASES = {
    "hash": Case(["hash", "{dir}/a.parquet"]),
    "digest": Case(["digest", "{dir}/a.parquet"]),
    "diff": Case(["diff", "{dir}/a.parquet", "{dir}/b.parquet", "-k", "id"], ok=1),
    "merkle root": Case(["merkle", "root", "-s", "rfc9162", "{dir}/leaves.txt"]),
    "merkle proof": Case(["merkle", "proof", "-s", "rfc9162", "{dir}/leaves.txt", "-i", "1"]),
    "merkle verify": Case(["merkle", "verify", "{dir}/proof.json"]),
    "warmup": Case(["warmup"]),
}
"""Runs whose result goes to standard output."""

FILE_CASES = {
    "parquet": Case(["parquet", "{dir}/a.parquet", "{dst}", "-c", "v"], parquet=True),
    "diff": Case(
        ["diff", "{dir}/a.parquet", "{dir}/b.parquet", "-k", "id", "-o", "{dst}"],
        ok=1,
        parquet=True,
    ),
    "merkle root": Case(["merkle", "root", "-s", "rfc9162", "{dir}/leaves.txt", "--dump", "{dst}"]),
    "merkle proof": Case(
        ["merkle", "proof", "-s", "rfc9162", "{dir}/leaves.txt", "--all", "-o", "{dst}"]
    ),
}
"""Runs that write a named file (``-o``, ``--dump``, DST)."""

NOT_RUN = {
    "bench": "times every layer for seconds to minutes, logging each workload on stderr (the "
    "one-line checks below do not hold); its lines go through the same guarded standard "
    "output, its --help is run below, and --json has tests of its own at the end",
    "demo": "builds and times a sample table for seconds; its lines go through the same "
    "guarded standard output, and its --help is run below",
}
"""Subcommands left out of the full runs, each with its reason."""


def _leaf_parsers() -> dict[str, object]:
    """Every runnable (sub)command by name, nested ones included (``merkle root``)."""
    found: dict[str, object] = {}
    for name, parser in build_parser().get_default("subcommands").items():
        nested = parser.commands()
        if nested:
            found.update({f"{name} {inner}": sub for inner, sub in nested.items()})
        else:
            found[name] = parser
    return found


LEAVES = _leaf_parsers()


def test_every_subcommand_is_covered():
    for name in LEAVES:
        top = name.split(" ")[0]
        assert name in STDOUT_CASES or name in FILE_CASES or top in NOT_RUN, (
            f"batchkeccak {name} writes output: give it a case in {__name__}"
        )
        assert top in TROUBLE, f"README's error contract names no trouble status for {top}"
    parsers = build_parser().get_default("subcommands")
    for top, parser in parsers.items():
        if top in TROUBLE:
            assert parser.get_default("trouble_status") == TROUBLE[top], top
        assert isinstance(parser.get_default("trouble_status"), int), top


@pytest.fixture(scope="module")
def folder(tmp_path_factory):
    where = tmp_path_factory.mktemp("outputs")
    pq.write_table(pa.table({"id": [1, 2, 3], "v": ["a", "b", "c"]}), where / "a.parquet")
    pq.write_table(pa.table({"id": [1, 2, 4], "v": ["a", "x", "c"]}), where / "b.parquet")
    (where / "leaves.txt").write_text("".join(f"0x{n:064x}\n" for n in range(1, 6)))
    (where / "plain").write_text("a regular file\n")
    with _stdout_to(str(where / "proof.json")):
        assert main(["merkle", "proof", "-s", "rfc9162", f"{where}/leaves.txt", "-i", "1"]) == 0
    return where


@contextlib.contextmanager
def _stdout_to(target: str | int | None):
    """File descriptor 1 (and ``sys.stdout`` over it) pointed at ``target``: a path, a
    descriptor, or None for a closed one (``>&-``); ``sys.stderr`` a StringIO, yielded."""
    saved_fd = os.dup(1)
    saved = sys.stdout, sys.stderr
    err = io.StringIO()
    opened = None
    try:
        if target is None:
            os.close(1)
            sys.stdout = None  # type: ignore[assignment]  # as Python leaves it for >&-
        else:
            if isinstance(target, str):
                opened = os.open(target, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o666)
                target = opened
            os.dup2(target, 1)
            sys.stdout = open(1, "w", closefd=False)  # noqa: SIM115 - dropped below
        sys.stderr = err
        yield err
    finally:
        # Whatever a failed write left buffered goes nowhere, not into pytest's capture.
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, 1)
        os.close(devnull)
        if sys.stdout is not None and sys.stdout is not saved[0]:
            with contextlib.suppress(OSError, ValueError):
                sys.stdout.close()
        sys.stdout, sys.stderr = saved
        os.dup2(saved_fd, 1)
        os.close(saved_fd)
        if opened is not None:
            os.close(opened)


class _Reader(threading.Thread):
    """Reads a pipe's read end, or a FIFO (opened here), to its end."""

    def __init__(self, source: int | str) -> None:
        super().__init__(daemon=True)
        self.source = source
        self.data = b""

    def run(self) -> None:
        fd = os.open(self.source, os.O_RDONLY) if isinstance(self.source, str) else self.source
        with open(fd, "rb") as stream:
            self.data = stream.read()


def _argv(case: Case, folder: Path, dst: str | None = None) -> list[str]:
    return [part.format(dir=folder, dst=dst) for part in case.argv]


def _entries(folder: Path) -> set[str]:
    return {entry.name for entry in folder.iterdir()}


def _check_nothing_deleted(before: set[str], folder: Path) -> None:
    assert before <= _entries(folder)
    assert os.path.islink("/dev/stdout") or stat.S_ISCHR(os.stat("/dev/stdout").st_mode)
    assert not os.path.exists(FULL) or stat.S_ISCHR(os.stat(FULL).st_mode)


def _one_line(err: str) -> str:
    """The one error line; a ``note:`` printed before the failure (merkle verify's) aside."""
    err = "".join(line for line in err.splitlines(True) if not line.startswith("note: "))
    assert err.count("\n") == 1 and err.endswith("\n"), err
    assert "internal error" not in err and "Traceback" not in err, err
    return err[:-1]


def _good_output(case: Case, data: bytes) -> None:
    if case.parquet:
        assert pq.read_table(pa.BufferReader(data)).num_rows > 0
    else:
        assert data.strip()


needs_full = pytest.mark.skipif(not os.path.exists(FULL), reason="no /dev/full")

# ----------------------------------------------------------------------------------------
# Results on standard output


@pytest.mark.parametrize("name", sorted(STDOUT_CASES))
def test_stdout_into_a_pipe(name, folder):
    case = STDOUT_CASES[name]
    before = _entries(folder)
    read_end, write_end = os.pipe()
    reader = _Reader(read_end)
    reader.start()
    try:
        with _stdout_to(write_end) as err:
            status = main(_argv(case, folder))
    finally:
        os.close(write_end)
        reader.join(30)
    assert status == case.ok, err.getvalue()
    assert "error" not in err.getvalue()
    _good_output(case, reader.data)
    _check_nothing_deleted(before, folder)


@needs_full
@pytest.mark.parametrize("name", sorted(STDOUT_CASES))
def test_stdout_on_a_full_disk_is_a_write_error(name, folder):
    case = STDOUT_CASES[name]
    before = _entries(folder)
    with _stdout_to(FULL) as err:
        status = main(_argv(case, folder))
    assert _one_line(err.getvalue()) == f"batchkeccak: write error: {ENOSPC}"
    assert status == TROUBLE[name.split(" ")[0]]
    _check_nothing_deleted(before, folder)


@pytest.mark.parametrize("name", sorted(STDOUT_CASES))
def test_a_closed_stdout_is_a_write_error(name, folder):
    case = STDOUT_CASES[name]
    before = _entries(folder)
    with _stdout_to(None) as err:
        status = main(_argv(case, folder))
    assert _one_line(err.getvalue()) == f"batchkeccak: write error: {EBADF}"
    assert status == TROUBLE[name.split(" ")[0]]
    _check_nothing_deleted(before, folder)


@needs_full
@pytest.mark.parametrize("name", ["", *sorted(LEAVES)])
@pytest.mark.parametrize("option", ["--help", "--version"])
def test_help_and_version_on_a_full_disk(name, option, folder):
    # GNU: ``sha256sum --help >/dev/full`` says "write error" and exits 1 (diff: 2).
    if option == "--version" and name:
        return  # only the top level has --version
    with _stdout_to(FULL) as err:
        status = main([*name.split(" "), option] if name else [option])
    assert _one_line(err.getvalue()) == f"batchkeccak: write error: {ENOSPC}"
    top = name.split(" ")[0]
    assert status == (
        build_parser().get_default("subcommands")[top].get_default("trouble_status") if name else 1
    )


# ----------------------------------------------------------------------------------------
# Results written to a named file


def _file_run(name: str, folder: Path, dst: str, stdout: str | int | None = os.devnull):
    case = FILE_CASES[name]
    with _stdout_to(stdout) as err:
        status = main(_argv(case, folder, dst))
    return case, status, err.getvalue()


@pytest.mark.parametrize("name", sorted(FILE_CASES))
def test_a_new_and_an_existing_file(name, folder, tmp_path):
    dst = tmp_path / "out"
    for _ in range(2):  # new, then existing (replaced)
        case, status, err = _file_run(name, folder, str(dst))
        assert status == case.ok, err
        assert dst.is_file() and not dst.is_symlink()
        _good_output(case, dst.read_bytes())
    assert _entries(tmp_path) == {"out"}  # no temporary file left


@pytest.mark.parametrize("name", sorted(FILE_CASES))
def test_a_symlink_stays_and_its_file_is_replaced(name, folder, tmp_path):
    target = tmp_path / "target"
    target.write_bytes(b"old")
    link = tmp_path / "link"
    link.symlink_to(target)
    case, status, err = _file_run(name, folder, str(link))
    assert status == case.ok, err
    assert link.is_symlink() and os.readlink(link) == str(target)
    _good_output(case, target.read_bytes())


@pytest.mark.parametrize("name", sorted(FILE_CASES))
def test_a_fifo_is_written_through_and_stays(name, folder, tmp_path):
    # Before the one writer, pyarrow received the FIFO's path, failed on lseek and removed it.
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    reader = _Reader(str(fifo))
    reader.start()
    try:
        case, status, err = _file_run(name, folder, str(fifo))
    finally:
        if reader.is_alive():  # the command never opened it: let the reader go
            with contextlib.suppress(OSError):
                os.close(os.open(fifo, os.O_WRONLY | os.O_NONBLOCK))
        reader.join(30)
    assert status == case.ok, err
    assert stat.S_ISFIFO(os.lstat(fifo).st_mode)
    _good_output(case, reader.data)


# The devices are named through a link of the test's own: a regression would remove the
# link, not the machine's /dev/stdout or /dev/full (tests run as root), and the writer takes
# the same path for both (it looks through links).


@pytest.mark.parametrize("name", sorted(FILE_CASES))
def test_dev_stdout_into_a_pipe(name, folder, tmp_path):
    # Run as root, ``-o /dev/stdout | head`` used to remove the machine's /dev/stdout.
    link = tmp_path / "stdout"
    link.symlink_to("/dev/stdout")
    read_end, write_end = os.pipe()
    reader = _Reader(read_end)
    reader.start()
    try:
        case, status, err = _file_run(name, folder, str(link), stdout=write_end)
    finally:
        os.close(write_end)
        reader.join(30)
    assert status == case.ok, err
    assert "error" not in err
    _good_output(case, reader.data)  # the data alone: a summary goes to stderr
    assert link.is_symlink() and os.path.lexists("/dev/stdout")


@needs_full
@pytest.mark.parametrize("name", sorted(FILE_CASES))
def test_a_full_device_is_a_write_error(name, folder, tmp_path):
    link = tmp_path / "full"
    link.symlink_to(FULL)
    _, status, err = _file_run(name, folder, str(link))
    assert _one_line(err) == f"batchkeccak: write error: {link}: {ENOSPC}"
    assert status == TROUBLE[name.split(" ")[0]]
    assert link.is_symlink() and stat.S_ISCHR(os.stat(FULL).st_mode)


@pytest.mark.parametrize("name", sorted(FILE_CASES))
@pytest.mark.parametrize("where", ["missing folder", "under a regular file", "read-only folder"])
def test_a_path_that_cannot_be_written(name, where, folder, tmp_path):
    if where == "missing folder":
        dst = tmp_path / "no-such-folder" / "out"
    elif where == "under a regular file":
        (tmp_path / "plain").write_text("kept\n")
        dst = tmp_path / "plain" / "out"
    else:
        if os.geteuid() == 0:
            pytest.skip("root writes into a read-only folder; 'under a regular file' covers it")
        locked = tmp_path / "locked"
        locked.mkdir(mode=0o555)
        dst = locked / "out"
    before = _entries(tmp_path)
    _, status, err = _file_run(name, folder, str(dst))
    line = _one_line(err)
    assert line.startswith("batchkeccak: "), line
    assert status == TROUBLE[name.split(" ")[0]]
    assert _entries(tmp_path) == before
    if where == "under a regular file":
        assert (tmp_path / "plain").read_text() == "kept\n"


@pytest.mark.parametrize("name", sorted(FILE_CASES))
@pytest.mark.parametrize("mode", [0o600, 0o444, 0o640])
def test_a_replaced_file_keeps_its_mode_and_owner(name, mode, folder, tmp_path):
    # It used to become 644 (the umask's) and root's: a 600 secret turned world-readable.
    dst = tmp_path / "out"
    dst.write_bytes(b"old")
    dst.chmod(mode)
    owner = (os.getuid(), os.getgid())
    if os.geteuid() == 0:
        owner = (1234, 1235)
        os.chown(dst, *owner)
    case, status, err = _file_run(name, folder, str(dst))
    assert status == case.ok, err
    _good_output(case, dst.read_bytes())
    after = os.stat(dst)
    assert stat.S_IMODE(after.st_mode) == mode
    assert (after.st_uid, after.st_gid) == owner
    assert _entries(tmp_path) == {"out"}


def test_a_new_file_gets_the_usual_mode(folder, tmp_path):
    umask = os.umask(0o022)
    try:
        _, status, err = _file_run("parquet", folder, str(tmp_path / "new"))
    finally:
        os.umask(umask)
    assert status == 0, err
    assert stat.S_IMODE(os.stat(tmp_path / "new").st_mode) == 0o644


@pytest.mark.parametrize("name", sorted(FILE_CASES))
@pytest.mark.parametrize(
    "where", ["empty", "under a regular file", "dangling link", "missing folder"]
)
def test_what_keeps_a_path_from_being_written_is_said(name, where, folder, tmp_path):
    (tmp_path / "f.txt").write_text("kept\n")
    if where == "empty":
        dst, said = "", "the output path is empty"
    elif where == "under a regular file":
        dst, said = str(tmp_path / "f.txt" / "x.parquet"), f"'{tmp_path / 'f.txt'}' is not a folder"
    elif where == "dangling link":
        dst = str(tmp_path / "link")
        os.symlink(tmp_path / "nodir" / "x", dst)
        said = f"whose folder '{tmp_path / 'nodir'}' does not exist"
    else:
        dst, said = str(tmp_path / "nodir" / "x"), f"folder '{tmp_path / 'nodir'}' does not exist"
    before = _entries(tmp_path)
    _, status, err = _file_run(name, folder, dst)
    line = _one_line(err)
    assert line.startswith("batchkeccak: error: ") and said in line, line
    assert "directory" not in line, line
    assert status == TROUBLE[name.split(" ")[0]]
    assert _entries(tmp_path) == before


@pytest.mark.parametrize("name", sorted(FILE_CASES))
def test_a_dangling_link_into_a_folder_is_written_through(name, folder, tmp_path):
    # As ``cp`` writes it: the link stays and names the new file.
    link = tmp_path / "link"
    link.symlink_to(tmp_path / "new")
    case, status, err = _file_run(name, folder, str(link))
    assert status == case.ok, err
    assert link.is_symlink()
    _good_output(case, (tmp_path / "new").read_bytes())


@pytest.mark.parametrize("name", ["diff", "parquet"])
def test_the_summary_of_a_fifo_goes_to_stderr(name, folder, tmp_path):
    # diff -o FIFO printed its summary on stdout, where the FIFO's reader may be piped on.
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    reader = _Reader(str(fifo))
    reader.start()
    stdout = tmp_path / "stdout.txt"
    try:
        case, status, err = _file_run(name, folder, str(fifo), stdout=str(stdout))
    finally:
        if reader.is_alive():
            with contextlib.suppress(OSError):
                os.close(os.open(fifo, os.O_WRONLY | os.O_NONBLOCK))
        reader.join(30)
    assert status == case.ok, err
    _good_output(case, reader.data)
    assert stdout.read_text() == ""
    assert "rows" in err, err


# ----------------------------------------------------------------------------------------
# bench --json: the smallest workload, through the same writer

BENCH_JSON = ["bench", "--quick", "--workload", "permutation", "--repeats", "1", "--json"]


def test_bench_json_into_a_fifo(tmp_path):
    # It used to open() the path itself, outside the one output writer.
    import json

    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    reader = _Reader(str(fifo))
    reader.start()
    try:
        with _stdout_to(os.devnull) as err:
            status = main([*BENCH_JSON, str(fifo)])
    finally:
        if reader.is_alive():
            with contextlib.suppress(OSError):
                os.close(os.open(fifo, os.O_WRONLY | os.O_NONBLOCK))
        reader.join(60)
    assert status == 0, err.getvalue()
    assert stat.S_ISFIFO(os.lstat(fifo).st_mode)
    assert json.loads(reader.data)["config"]["preset"] == "quick"


@needs_full
def test_bench_json_on_a_full_device_is_a_write_error(tmp_path):
    link = tmp_path / "full"
    link.symlink_to(FULL)
    with _stdout_to(os.devnull) as err:
        status = main([*BENCH_JSON, str(link)])
    last = err.getvalue().splitlines()[-1]  # after the workloads' progress lines
    assert last == f"batchkeccak: write error: {link}: {ENOSPC}"
    assert status == TROUBLE["bench"]
    assert link.is_symlink() and stat.S_ISCHR(os.stat(FULL).st_mode)


def test_an_output_that_is_also_the_input_is_refused(tmp_path, capsys):
    # As `cp a a` refuses: the output would replace what the command reads (directly or
    # through a link), before any work is done.
    a, b = tmp_path / "a.parquet", tmp_path / "b.parquet"
    pq.write_table(pa.table({"k": [1, 2], "v": ["a", "b"]}), a)
    pq.write_table(pa.table({"k": [1, 3], "v": ["a", "c"]}), b)
    leaves = tmp_path / "leaves.txt"
    leaves.write_text(f"0x{'11' * 32}\n0x{'22' * 32}\n")
    link = tmp_path / "link"
    link.symlink_to(b)
    kept = {path: path.read_bytes() for path in (a, b, leaves)}
    runs = [
        (["diff", str(a), str(b), "-k", "k", "-o", str(b)], "--output"),
        (["diff", str(a), str(b), "-k", "k", "-o", str(link)], "--output"),
        (
            ["merkle", "root", str(leaves), "--scheme", "openzeppelin", "--dump", str(leaves)],
            "--dump",
        ),
        (
            ["merkle", "proof", str(leaves), "--scheme", "openzeppelin", "--index", "1"]
            + ["-o", str(leaves)],
            "--output",
        ),
    ]
    for argv, option in runs:
        assert main(argv) == 2
        err = capsys.readouterr().err
        assert err.startswith(f"batchkeccak: error: {option}: ") and err.count("\n") == 1
        assert "is also an input; write the output to another file" in err
    assert {path: path.read_bytes() for path in kept} == kept and link.is_symlink()
