"""A hang-up (SIGHUP: the terminal closed, the ssh session dropped) during a Parquet write
cleans up as SIGTERM and Ctrl-C do."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time

import numpy as np
import pytest
from cli_helpers import start_slow_parquet_write


@pytest.mark.slow
@pytest.mark.skipif(not hasattr(signal, "SIGHUP"), reason="no SIGHUP on this platform")
def test_sighup_leaves_no_temporary_file_and_keeps_the_destination(tmp_path):
    dst = tmp_path / "out.parquet"
    dst.write_bytes(b"the previous output")
    process = start_slow_parquet_write(tmp_path, seed=7)
    process.send_signal(signal.SIGHUP)
    _, stderr = process.communicate(timeout=60)
    assert process.returncode == 128 + signal.SIGHUP, stderr
    assert b"Traceback" not in stderr
    assert dst.read_bytes() == b"the previous output"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["in.parquet", "out.parquet"]


# --- many small files: the forked path ------------------------------------------------------
# `batchkeccak hash` shares a thousand small files or more with child processes
# (io.backend_files.digest_paths_forked). A stop signal must end the run with 128 + its number however
# it is timed: none lost in an after-fork hook, no child left running, and what was written
# to stdout only whole lines, each right.

FILE_COUNT = 2500
"""More than io.backend_files.FORK_MIN_FILES, so that the run forks (on a machine of two cores or more)."""


@pytest.fixture(scope="module")
def small_files(tmp_path_factory):
    folder = tmp_path_factory.mktemp("small")
    names = []
    for i in range(FILE_COUNT):
        path = folder / f"f{i:05d}"
        path.write_bytes(b"%d" % i * (i % 7))
        names.append(str(path))
    return names


def expected_lines(names) -> set[str]:
    import hashlib

    return {f"{hashlib.sha3_256(open(n, 'rb').read()).hexdigest()}  {n}" for n in names}


def forks() -> bool:
    return sys.platform.startswith("linux") and len(os.sched_getaffinity(0)) > 1


needs_fork = pytest.mark.skipif(not forks(), reason="the forked path runs on Linux with 2+ cores")


def marked_environment() -> tuple[dict, bytes]:
    """The environment for a run, with a marker its children inherit: a process that holds
    it afterwards is one the run left behind."""
    import uuid

    marker = uuid.uuid4().hex
    # The forked path is the one-shot backends' (hashlib): forced, so that the test does
    # not depend on the measured crossover (the suite forces the kernels otherwise).
    env = {
        **os.environ,
        "PYTHONPATH": os.pathsep.join(sys.path),
        "BATCHKECCAK_TEST_RUN": marker,
        "BATCHKECCAK_BACKEND": "oneshot",
    }
    return env, f"BATCHKECCAK_TEST_RUN={marker}".encode()


def processes_holding(marker: bytes) -> list[int]:
    found = []
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                with open(f"/proc/{entry}/environ", "rb") as handle:
                    if marker in handle.read().split(b"\0"):
                        found.append(int(entry))
            except OSError:
                continue  # gone, or not ours
    return found


def catches_sigterm(pid: int) -> bool:
    """Whether the process has installed a SIGTERM handler: batchkeccak's main() is running."""
    try:
        with open(f"/proc/{pid}/status") as handle:
            for line in handle:
                if line.startswith("SigCgt:"):
                    return bool(int(line.split()[1], 16) >> (signal.SIGTERM - 1) & 1)
    except OSError:
        pass
    return True  # gone already


def check_stopped_run(
    done_code: int, stderr: bytes, stdout: bytes, signum: int, names, marker: bytes
) -> None:
    # Stopped by main(): 128 + the signal. Stopped after main() has returned (Python is
    # exiting, and the signal has its default action again): killed by the signal, which
    # the shell reports as the same 128 + n.
    assert done_code in (128 + signum, -signum), (done_code, stderr)
    assert b"Traceback" not in stderr and b"Exception ignored" not in stderr, stderr
    want = expected_lines(names)
    got = stdout.decode().split("\n")
    assert got[-1] == "", "a line cut in two"
    assert all(line in want for line in got[:-1])
    assert processes_holding(marker) == [], "a child process outlived the run"


@needs_fork
@pytest.mark.slow  # a child process and a forked one per side
@pytest.mark.parametrize("side", ["parent", "child"])
def test_a_signal_in_the_after_fork_hooks_is_not_lost(small_files, tmp_path, side):
    # The hook sends SIGTERM to the process running it, as a signal arriving there would:
    # the parent must end with 143; a child must end (its share is then hashed by the
    # parent), and neither may print "Exception ignored".
    script = (
        "import os, signal, sys\n"
        "def hook():\n"
        "    os.kill(os.getpid(), signal.SIGTERM)\n"
        "    for _ in range(1000): pass\n"
        f"os.register_at_fork(after_in_{side}=hook)\n"
        "from batchkeccak.cli import main\n"
        "raise SystemExit(main(['hash', *sys.argv[1:]]))\n"
    )
    env, marker = marked_environment()
    output = tmp_path / "out.txt"
    with open(output, "wb") as stdout:
        done = subprocess.run(
            [sys.executable, "-c", script, *small_files],
            stdout=stdout,
            stderr=subprocess.PIPE,
            env=env,
            timeout=120,
            check=False,
        )
    if side == "parent":
        check_stopped_run(
            done.returncode, done.stderr, output.read_bytes(), signal.SIGTERM, small_files, marker
        )
        assert done.returncode == 143 and b"batchkeccak: terminated" in done.stderr
    else:
        assert done.returncode == 0, done.stderr
        assert done.stderr == b""
        assert set(output.read_text().splitlines()) == expected_lines(small_files)
        assert processes_holding(marker) == []


@needs_fork
def test_a_child_stuck_on_a_file_is_ended_with_the_run(small_files, tmp_path):
    # The child's share ends with a FIFO nobody writes: opening it waits forever (as it
    # does for sha256sum). SIGTERM to the command must end the child too.
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    names = [*small_files, str(fifo)]
    env, marker = marked_environment()
    # Files, not pipes: a child left behind would hold a pipe open, and reading it would
    # wait for that child.
    out, err = tmp_path / "out", tmp_path / "err"
    with open(out, "wb") as stdout, open(err, "wb") as stderr:
        process = subprocess.Popen(
            [sys.executable, "-m", "batchkeccak", "hash", *names],
            stdout=stdout,
            stderr=stderr,
            env=env,
        )
    try:
        deadline = time.monotonic() + 60
        while len(processes_holding(marker)) < 2:  # the command and its child
            assert process.poll() is None, err.read_bytes()
            assert time.monotonic() < deadline, "the run never forked"
            time.sleep(0.01)
        time.sleep(0.2)  # the parent's share done, it waits for the child
        process.send_signal(signal.SIGTERM)
        process.wait(timeout=60)
        left = processes_holding(marker)
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()
        for pid in processes_holding(marker):
            os.kill(pid, signal.SIGKILL)  # never leave a stuck child behind the test
    assert process.returncode == 143, err.read_bytes()
    assert out.read_bytes() == b"" and err.read_bytes() == b"batchkeccak: terminated\n"
    assert left == [], "the child outlived the run"


RUNS = 20
"""Timed signals per test: each run takes a fraction of a second."""


@pytest.mark.slow
@needs_fork
def test_timed_signals_always_stop_the_run_cleanly(small_files, tmp_path):
    # The last name is "-": the run reads stdin after the files and cannot end before the
    # signal comes, however slow the machine. The delays cover the files' hashing (the
    # forks, the children's results, the output) and the wait on stdin after it.
    import random

    rng = random.Random(31)
    names = [*small_files, "-"]

    def start(stdout):
        env, marker = marked_environment()
        process = subprocess.Popen(
            [sys.executable, "-m", "batchkeccak", "hash", *names],
            stdin=subprocess.PIPE,
            stdout=stdout,
            stderr=subprocess.PIPE,
            env=env,
        )
        while not catches_sigterm(process.pid):
            time.sleep(0.0005)
        return process, marker

    with open(tmp_path / "whole.txt", "wb") as stdout:
        process, _ = start(stdout)
        started = time.monotonic()
        process.communicate(b"", timeout=120)
        whole_run = time.monotonic() - started
    for run in range(RUNS):
        signum = signal.SIGINT if run % 2 else signal.SIGTERM
        output = tmp_path / f"out{run}.txt"
        with open(output, "wb") as stdout:
            process, marker = start(stdout)
            time.sleep(rng.uniform(0, whole_run * 1.2))
            process.send_signal(signum)
            process.stdin.close()
            stderr = process.stderr.read()
            process.wait(timeout=120)
        # check_stopped_run takes 128 + n (main() stopped) or death by the signal: both are
        # the shell's 128 + n, and the second was seen once on a loaded machine with two
        # test processes (not reproduced alone).
        check_stopped_run(
            process.returncode, stderr, output.read_bytes(), signum, small_files, marker
        )


# --- a signal at any point of main() ----------------------------------------------------------

SIGNAL_AT = """
import os, signal, sys

at, signum = int(sys.argv[1]), int(sys.argv[2])
count, sent, inside, started = 0, False, None, False


def trace(frame, event, arg):
    # Counts the events of main() (calls, lines, returns) and sends the signal at the at-th:
    # the signal comes between two lines of whatever main() is doing then.
    global count, sent, inside, started
    if inside is None:
        if event != "call" or frame.f_code.co_name != "main" or (
                frame.f_globals.get("__name__") != "batchkeccak.cli"):
            return trace
        inside = frame
        return trace
    if not started:
        # main()'s first line, its `try:`: a signal there is one that came before the call
        # (Python checks for signals as a function starts), the caller's to handle.
        started = True
        return trace
    if event == "return" and frame is inside:
        sys.settrace(None)
        return None
    count += 1
    if count == at and not sent:
        sent = True
        os.kill(os.getpid(), signum)
    return trace


sys.settrace(trace)
from batchkeccak.cli import main

status = main(sys.argv[3:])
sys.settrace(None)
raise SystemExit(status if sent else 100 + status)  # 100: main() ended before the signal
"""


def signal_at(event: int, signum: int, argv: list[str], cwd) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-c", SIGNAL_AT, str(event), str(signum), *argv],
        capture_output=True,
        cwd=cwd,
        timeout=120,
        check=False,
        env={
            **os.environ,
            "PYTHONPATH": os.pathsep.join(sys.path),
            "BATCHKECCAK_BACKEND": "oneshot",
        },
    )


EVENTS = [1, 2, 5, 20, 60, 200, 600, 2000, 6000, 20000, 60000, 200000]
"""Where the signal comes, counted in main()'s events: the first ones are the handlers'
installation and argument parsing, then imports, hashing and output."""


@pytest.mark.parametrize("signum", [signal.SIGINT, signal.SIGTERM], ids=["SIGINT", "SIGTERM"])
def test_a_signal_anywhere_in_a_short_run_ends_it_in_one_line(tmp_path, signum):
    (tmp_path / "a").write_bytes(b"abc")
    (tmp_path / "b").write_bytes(b"")
    sent = 0
    for event in EVENTS:
        done = signal_at(event, signum, ["hash", "a", "b"], tmp_path)
        if done.returncode == 100:
            continue  # the run was over before this event
        sent += 1
        if done.returncode == -signum:
            # Before main() has put its handler in place, SIGTERM has its default action:
            # the process ends by the signal (status 143 to the shell), nothing begun.
            assert (signum, done.stderr) == (signal.SIGTERM, b""), event
            continue
        assert done.returncode == 128 + signum, (event, done.stderr)
        message = b"interrupted" if signum == signal.SIGINT else b"terminated"
        assert done.stderr == b"batchkeccak: " + message + b"\n", (event, done.stderr)
    assert sent >= 6


@pytest.mark.slow  # a child process per case; the whole suite runs it
def test_a_signal_anywhere_in_a_merkle_run_leaves_no_file_behind(tmp_path):
    rng = np.random.default_rng(3)
    (tmp_path / "leaves.txt").write_text(
        "".join("0x" + rng.bytes(32).hex() + "\n" for _ in range(5000))
    )
    (tmp_path / "proofs.jsonl").write_text("old\n")
    sent = 0
    for k, event in enumerate([1, 30, 300, 3000, 30000, 300000, 1000000, 3000000]):
        signum = (signal.SIGINT, signal.SIGTERM)[k % 2]
        done = signal_at(
            event,
            signum,
            ["merkle", "proof", "leaves.txt", "-s", "openzeppelin", "--all", "-o", "proofs.jsonl"],
            tmp_path,
        )
        assert sorted(p.name for p in tmp_path.iterdir()) == ["leaves.txt", "proofs.jsonl"]
        if done.returncode == 100:
            assert len((tmp_path / "proofs.jsonl").read_text().splitlines()) == 5000
            continue
        sent += 1
        assert done.returncode in (128 + signum, -signum), (event, done.stderr)
        assert b"Traceback" not in done.stderr and done.stderr.count(b"\n") <= 1
        written = (tmp_path / "proofs.jsonl").read_text()
        assert written == "old\n" or len(written.splitlines()) == 5000
    assert sent >= 5


FINALIZER_CHILD = """
import os, signal, sys, time
from batchkeccak import cli

class Finalized:
    def __del__(self):
        # The signal comes while a finalizer runs, as it may during numba's or llvmlite's.
        os.kill(os.getpid(), signal.SIGTERM)
        for _ in range(100000):
            pass

def run(argv, stop=None):
    Finalized()
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        pass
    print("the command ran to its end")
    return 0

cli._run = run
sys.exit(cli.main(["demo"]))
"""


def test_a_signal_inside_a_finalizer_stops_the_command_quietly():
    """Python cannot raise out of a finalizer: it prints the exception as a traceback and
    goes on. The command delivers the signal again where the program is instead."""
    done = subprocess.run(
        [sys.executable, "-c", FINALIZER_CHILD], check=False, capture_output=True, timeout=120
    )
    assert done.stderr == b"batchkeccak: terminated\n"
    assert done.returncode == 128 + signal.SIGTERM
    assert b"ran to its end" not in done.stdout


# --- a signal while a compiled function loads ---------------------------------------------
# numba hands LLVM a Python callback (its object cache's hooks, through ctypes) when it
# compiles a function or loads one from its cache. A KeyboardInterrupt raised inside the
# callback was swallowed by ctypes ("Exception ignored") and LLVM went on with a buffer it
# never got: `batchkeccak parquet` stopped by SIGTERM as a kernel loaded died of heap
# corruption instead of exiting 143. The package's njit holds the signal until the function is
# ready.


def _lone_function():
    from batchkeccak.native.jit import njit

    @njit(cache=False)
    def add_one(x):
        return x + 1

    return add_one


def test_a_signal_during_a_compile_comes_once_the_function_is_ready():
    import numba.core.codegen

    function = _lone_function()
    hooks = []
    swallowed = []

    def interrupt_in_the_hook(frame, event, arg):
        # The moment LLVM calls back into Python for its object cache: the signal lands here.
        if event == "call" and frame.f_code.co_name == "_object_getbuffer_hook":
            hooks.append(frame.f_code.co_filename)
            if len(hooks) == 1:
                signal.raise_signal(signal.SIGINT)

    previous_hook = sys.unraisablehook
    sys.unraisablehook = lambda unraisable: swallowed.append(unraisable.exc_type)
    sys.settrace(interrupt_in_the_hook)
    try:
        with pytest.raises(KeyboardInterrupt):
            function(41)
    finally:
        sys.settrace(None)
        sys.unraisablehook = previous_hook
    assert hooks and hooks[0] == numba.core.codegen.__file__  # the signal came in the hook
    assert swallowed == []  # and was not lost in it
    assert len(function.overloads) == 1  # it was delivered once the function was ready
    assert function(41) == 42


def test_a_signal_turned_into_an_import_error_is_said_as_the_signal(monkeypatch, capsys):
    # A KeyboardInterrupt that lands while a C extension imports comes out as that module's
    # ImportError (numpy's, 26 lines): the run ends as the signal's, not an internal error.
    from batchkeccak.cli import hash as hash_command
    from batchkeccak.cli import main

    def interrupted_import(args):
        try:
            signal.raise_signal(signal.SIGTERM)
        except KeyboardInterrupt:
            raise ImportError("Importing the numpy C-extensions failed.") from None

    monkeypatch.setattr(hash_command, "run", interrupted_import)
    assert main(["hash", "x"]) == 128 + signal.SIGTERM
    assert capsys.readouterr().err == "batchkeccak: terminated\n"


def _bytes_waiting(descriptor: int) -> int:
    """How many bytes a pipe holds that its reader has not read."""
    import fcntl
    import termios

    count = bytearray(4)
    fcntl.ioctl(descriptor, termios.FIONREAD, count)
    return int.from_bytes(count, sys.byteorder)


@pytest.mark.slow  # a child process of its own
def test_sigterm_ends_a_parquet_write_into_a_fifo_nobody_reads(tmp_path):
    # The reader stalls, the pipe fills, the command waits in a write: SIGTERM must still end
    # it, though the Parquet writer's cleanup would write its footer into the same pipe.
    import pyarrow as pa
    import pyarrow.parquet as pq

    rows = 200_000  # 10 MB out: far more than a pipe holds
    src, fifo = tmp_path / "in.parquet", tmp_path / "out.fifo"
    pq.write_table(pa.table({"email": [f"user{i}@example.com" for i in range(rows)]}), src)
    os.mkfifo(fifo)
    reader = os.open(fifo, os.O_RDONLY | os.O_NONBLOCK)  # open, and never read
    try:
        process = subprocess.Popen(
            [sys.executable, "-m", "batchkeccak", "parquet", str(src), str(fifo), "-c", "email"],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
            env={**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)},
        )
        deadline = time.monotonic() + 120
        while _bytes_waiting(reader) < 32_768:
            assert process.poll() is None, process.communicate()
            assert time.monotonic() < deadline, "the pipe never filled"
            time.sleep(0.01)
        time.sleep(0.5)  # in the write that waits for the reader
        process.send_signal(signal.SIGTERM)
        _, stderr = process.communicate(timeout=30)
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()
        os.close(reader)
    assert process.returncode == 128 + signal.SIGTERM, stderr
    assert stderr == b"batchkeccak: terminated\n"
    assert fifo.exists()  # a FIFO is written through, never removed
