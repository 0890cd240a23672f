"""README's error contract, case by case: a reader that goes away, warnings as one line,
and options whose value cannot make sense."""

from __future__ import annotations

import os
import subprocess
import sys
import warnings

import pytest

from batchkeccak.cli import main

pytestmark = pytest.mark.skipif(sys.platform == "win32", reason="SIGPIPE and 141")


def _read_ten_bytes_then_close(argv: list[str], cwd) -> tuple[int, bytes, bytes]:
    """``batchkeccak ARGV | head -c 10``: the reader closes the pipe after 10 bytes."""
    child = subprocess.Popen(
        [sys.executable, "-m", "batchkeccak", *argv],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        stdin=subprocess.DEVNULL,
        cwd=cwd,
        env={**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)},
    )
    assert child.stdout is not None and child.stderr is not None
    head = child.stdout.read(10)
    child.stdout.close()
    err = child.stderr.read()
    return child.wait(timeout=120), head, err


@pytest.mark.slow  # a child process that loads the kernels: seconds on a busy machine
@pytest.mark.parametrize("form", ["--lines", "FILES"])
def test_hash_into_a_pipe_closed_early_exits_141(form, tmp_path):
    # hash used to exit 0: the buffered writer returned the bytes it wrote before the pipe
    # broke instead of raising, and the rest was dropped. GNU sha256sum dies of SIGPIPE.
    if form == "--lines":
        (tmp_path / "lines.txt").write_bytes(b"".join(b"%d\n" % n for n in range(20_000)))
        argv = ["hash", "--lines", "lines.txt"]  # 1.3 MB of digests, one write
    else:
        for n in range(1_500):  # 100 kB of lines, more than a pipe holds
            (tmp_path / f"f{n:04d}").write_bytes(b"%d" % n)
        argv = ["hash", *sorted(p.name for p in tmp_path.iterdir())]
    status, head, err = _read_ten_bytes_then_close(argv, tmp_path)
    assert len(head) == 10
    assert status == 141, err
    assert err == b""  # quietly, as the other subcommands stop


def test_a_python_warning_is_one_line(capsys):
    # A corrupt tuning file used to print Python's two lines (FILE:LINE: RuntimeWarning: ...
    # and the source line) in the middle of a command's output.
    from batchkeccak.cli import CommandError

    def warn_then_fail(args):
        warnings.warn("the tuning file is corrupt; using defaults", RuntimeWarning, stacklevel=1)
        raise CommandError("stop here")

    from batchkeccak.cli import warmup

    before = warnings.showwarning
    original = warmup.run
    warmup.run = warn_then_fail
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("always")
            assert main(["warmup"]) == 1
    finally:
        warmup.run = original
    assert warnings.showwarning is before  # the hook is the run's alone
    err = capsys.readouterr().err
    assert err == (
        "batchkeccak: warning: the tuning file is corrupt; using defaults\n"
        "batchkeccak: error: stop here\n"
    )


@pytest.mark.parametrize("hex_option", [[], ["--hex"]])
def test_parquet_length_zero_is_a_usage_error(hex_option, tmp_path, capsys):
    # It said "Invalid FIXED_LEN_BYTE_ARRAY length: 0" (exit 2); with --hex it wrote "".
    import pyarrow as pa
    import pyarrow.parquet as pq

    pq.write_table(pa.table({"v": ["a", "b"]}), tmp_path / "a.parquet")
    argv = ["parquet", str(tmp_path / "a.parquet"), str(tmp_path / "o.parquet"), "-c", "v"]
    assert main([*argv, "-a", "shake_128", "--length", "0", *hex_option]) == 1
    err = capsys.readouterr().err.splitlines()
    assert err[0].startswith("batchkeccak: --length must be at least 1"), err
    assert err[1] == "Try 'batchkeccak parquet --help' for more information."
    assert not (tmp_path / "o.parquet").exists()
