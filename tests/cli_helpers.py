"""Shared setup for the tests that run the CLI as a child process."""

from __future__ import annotations

import os
import subprocess
import sys
import time

import numpy as np
import pyarrow as pa


def start_slow_parquet_write(tmp_path, seed: int) -> subprocess.Popen:
    """Start ``batchkeccak parquet tmp_path/in.parquet tmp_path/out.parquet`` over 400,000 rows
    of random bytes in small batches, and return once its temporary output has appeared, the
    child still running: a window in which to signal it mid-write."""
    import pyarrow.parquet as pq

    rng = np.random.default_rng(seed)
    rows = 400_000
    payload = pa.FixedSizeBinaryArray.from_buffers(
        pa.binary(48), rows, [None, pa.py_buffer(rng.integers(0, 256, rows * 48, np.uint8))]
    )
    src, dst = tmp_path / "in.parquet", tmp_path / "out.parquet"
    pq.write_table(pa.table({"payload": payload}), src, row_group_size=2_000)
    argv = ["parquet", str(src), str(dst), "-c", "payload", "--batch-size", "500"]
    process = subprocess.Popen(
        [sys.executable, "-m", "batchkeccak", *argv, "--threads", "1"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env={**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)},
    )
    deadline = time.monotonic() + 120
    while not list(tmp_path.glob(".out.parquet.batchkeccak-*.tmp")):
        assert process.poll() is None, process.communicate()
        assert time.monotonic() < deadline, "the temporary output never appeared"
        time.sleep(0.005)
    return process
