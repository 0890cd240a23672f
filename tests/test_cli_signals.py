"""A hang-up (SIGHUP: the terminal closed, the ssh session dropped) during a Parquet write
cleans up as SIGTERM and Ctrl-C do."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time

import numpy as np
import pyarrow as pa
import pytest


@pytest.mark.slow
@pytest.mark.skipif(not hasattr(signal, "SIGHUP"), reason="no SIGHUP on this platform")
def test_sighup_leaves_no_temporary_file_and_keeps_the_destination(tmp_path):
    import pyarrow.parquet as pq

    rng = np.random.default_rng(7)
    rows = 400_000
    payload = pa.FixedSizeBinaryArray.from_buffers(
        pa.binary(48), rows, [None, pa.py_buffer(rng.integers(0, 256, rows * 48, np.uint8))]
    )
    src, dst = tmp_path / "in.parquet", tmp_path / "out.parquet"
    pq.write_table(pa.table({"payload": payload}), src, row_group_size=2_000)
    dst.write_bytes(b"the previous output")
    process = subprocess.Popen(
        [sys.executable, "-m", "batchkeccak", "parquet", str(src), str(dst), "-c", "payload",
         "--batch-size", "500", "--threads", "1"],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE,
        env={**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)},
    )
    deadline = time.monotonic() + 120
    while not list(tmp_path.glob(".out.parquet.batchkeccak-*.tmp")):
        assert process.poll() is None, process.communicate()
        assert time.monotonic() < deadline, "the temporary output never appeared"
        time.sleep(0.005)
    process.send_signal(signal.SIGHUP)
    _, stderr = process.communicate(timeout=60)
    assert process.returncode == 128 + signal.SIGHUP, stderr
    assert b"Traceback" not in stderr
    assert dst.read_bytes() == b"the previous output"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["in.parquet", "out.parquet"]
