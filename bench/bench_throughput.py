"""Throughput against message size, 32 B to 1 MiB: batchkeccak beside hashlib, pycryptodome
and a column engine (DuckDB's ``sha256`` on a binary column), one process.

    python bench/bench_throughput.py [--json bench/results/throughput.json] [--repeats 3]
                                     [--min-size 32] [--max-size 1048576]
    python bench/plot.py bench/results/throughput.json docs/images/

For each message size (doubling from ``--min-size`` to ``--max-size``) one 2-D array of random
messages is hashed with ``sha3_256`` by:

- ``hash_many`` on one thread and on every core (on a CPU with AVX-512F, also on one thread
  with the 256-bit tile, the AVX2 width, switched in the same process);
- a hashlib loop and a pycryptodome loop (``for m in messages: new(m).digest()``) over the
  first messages of the same array (at most ``--competitor-bytes`` per size);
- DuckDB's ``SELECT sha256(c)`` over the same messages as a ``BLOB`` column of a DuckDB table
  (every DuckDB thread; SHA-256, not SHA-3, since DuckDB has no SHA-3: the column engine
  a user already has).

The repeats of all of them are interleaved and the best is kept; digests are checked against
hashlib (and DuckDB's against ``hashlib.sha256``) before anything is timed. The JSON has the
layout of ``bench/run.py``'s (a ``sweep`` workload), with the CPU's SIMD flags and the load
average at the start and end of the run in ``machine``.
"""

from __future__ import annotations

import argparse
import hashlib
import os
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

RESULTS = Path(__file__).resolve().parent / "results"
ALGORITHM = "sha3_256"


def sizes(smallest: int, largest: int) -> list[int]:
    """Powers of two from ``smallest`` to ``largest``, both included."""
    out, size = [], smallest
    while size <= largest:
        out.append(size)
        size *= 2
    return out


def cpu_flags() -> list[str]:
    """The SIMD flags of ``/proc/cpuinfo`` that decide which tile runs."""
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("flags"):
                return [f for f in line.split(":", 1)[1].split() if f in ("avx2", "avx512f")]
    except OSError:
        pass
    return []


def _duckdb(column: list[bytes]):
    """A DuckDB connection holding ``column`` as table ``t(c BLOB)``, or None without DuckDB."""
    try:
        import duckdb
        import pyarrow as pa
    except ImportError:
        return None
    connection = duckdb.connect()
    connection.register("source", pa.table({"c": pa.array(column, pa.binary())}))
    connection.execute("CREATE TABLE t AS SELECT c FROM source")
    connection.unregister("source")
    return connection


DUCKDB_QUERY = "SELECT sha256(c) FROM t"


def _candidates(rows, subset, wide, crypto, connection) -> dict:
    """What is timed at one size: a call per candidate, each hashing its messages once."""
    import batchkeccak
    from batchkeccak.permutation import vector_width

    candidates: dict[str, Callable[[], object]] = {
        "batchkeccak-1": lambda: batchkeccak.hash_many(rows, ALGORITHM, threads=1),
        "batchkeccak-all": lambda: batchkeccak.hash_many(rows, ALGORITHM, threads=None),
    }
    if wide:

        def narrow() -> object:
            with vector_width.tile_bits_set(256):
                return batchkeccak.hash_many(rows, ALGORITHM, threads=1)

        candidates["batchkeccak-1-256"] = narrow
    new = hashlib.sha3_256
    candidates["hashlib"] = lambda: [new(m).digest() for m in subset]
    if crypto is not None:
        crypto_new = crypto.new
        candidates["pycryptodome"] = lambda: [crypto_new(m).digest() for m in subset]
    if connection is not None:
        candidates["duckdb"] = lambda: connection.sql(DUCKDB_QUERY).to_arrow_table()
    return candidates


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--json", type=Path, default=RESULTS / "throughput.json")
    parser.add_argument("--repeats", type=int, default=3, help="timed repeats (best kept)")
    parser.add_argument("--min-size", type=int, default=32)
    parser.add_argument("--max-size", type=int, default=1 << 20)
    parser.add_argument(
        "--bytes", type=int, default=8 << 20, help="bytes hashed by batchkeccak per size"
    )
    parser.add_argument(
        "--min-count", type=int, default=64, help="messages per size at least (default 64)"
    )
    parser.add_argument(
        "--competitor-bytes", type=int, default=4 << 20, help="bytes per size for the loops"
    )
    args = parser.parse_args(argv)
    if args.min_size < 1 or args.max_size < args.min_size:
        parser.error("--min-size and --max-size: expected 1 <= min-size <= max-size")
    if args.repeats < 1:
        parser.error("--repeats: expected at least 1")

    import batchkeccak
    from batchkeccak.benchmark import Report, Row, SuiteConfig, Workload, machine_info
    from batchkeccak.benchmark.timing import interleaved
    from batchkeccak.core.parallel import available_cores
    from batchkeccak.permutation import vector_width

    load_start = list(os.getloadavg()) if hasattr(os, "getloadavg") else None
    chosen = sizes(args.min_size, args.max_size)
    config = SuiteConfig(preset="custom", algorithm=ALGORITHM).scaled(
        sweep_sizes=tuple(chosen),
        sweep_bytes=args.bytes,
        sweep_competitor_bytes=args.competitor_bytes,
        sweep_repeats=args.repeats,
    )
    report = Report(config, machine_info())
    report.machine["cpu_flags"] = cpu_flags()
    cores = available_cores()
    wide = vector_width.compiles_wide_tiles() and vector_width.tile_bits() == 512
    started = time.perf_counter()
    batchkeccak.warmup()
    report.compile_s["kernels (compile or cache load)"] = time.perf_counter() - started
    SHA3_256: Any
    try:
        from Crypto.Hash import SHA3_256
    except ImportError:
        SHA3_256 = None
        report.notes.append("pycryptodome skipped: not installed")

    workload = Workload(
        "sweep",
        f"throughput against message size, {ALGORITHM}, 2-D array input; loops and DuckDB on "
        f"at most {args.competitor_bytes:,} bytes per size",
        ALGORITHM,
        "message",
    )
    for size in chosen:
        count = max(args.min_count, args.bytes // size)
        rows = np.frombuffer(np.random.default_rng(size).bytes(count * size), np.uint8)
        rows = rows.reshape(count, size)
        sub = max(4, min(count, args.competitor_bytes // size))
        subset = [rows[i].tobytes() for i in range(sub)]
        expected = [hashlib.sha3_256(m).digest() for m in (subset[0], subset[-1])]
        for threads in (1, None):
            got = batchkeccak.hash_many(rows, ALGORITHM, threads=threads)
            if [got[0].tobytes(), got[sub - 1].tobytes()] != expected:
                raise SystemExit(f"DIGEST MISMATCH: batchkeccak at {size} B")
        if SHA3_256 is not None and SHA3_256.new(subset[0]).digest() != expected[0]:
            raise SystemExit(f"DIGEST MISMATCH: pycryptodome at {size} B")
        connection = _duckdb(subset)
        if connection is not None:
            theirs = sorted(r[0] for r in connection.execute(DUCKDB_QUERY).fetchall())
            if theirs != sorted(hashlib.sha256(m).hexdigest() for m in subset):
                raise SystemExit(f"DIGEST MISMATCH: DuckDB sha256 at {size} B")
        candidates = _candidates(rows, subset, wide, SHA3_256, connection)
        labels = {
            "batchkeccak-1": "batchkeccak, 1 thread" + (", 512-bit tiles" if wide else ""),
            "batchkeccak-all": f"batchkeccak, {cores} threads",
            "batchkeccak-1-256": "batchkeccak, 1 thread, 256-bit tiles (AVX2 width)",
            "hashlib": "hashlib loop",
            "pycryptodome": "pycryptodome loop",
            "duckdb": f"DuckDB sha256(col), {cores} threads (SHA-256)",
        }
        times = interleaved(candidates, args.repeats)
        for key, seconds in times.items():
            ours = key.startswith("batchkeccak")
            items = count if ours else sub
            threads = 1 if key in ("batchkeccak-1", "batchkeccak-1-256") else cores
            if key in ("hashlib", "pycryptodome"):
                threads = 1
            row = Row(f"{key}@{size}", labels[key], threads, items, items * size, seconds, size)
            workload.rows.append(row)
        line = "  ".join(
            f"{key} {(count if key.startswith('batchkeccak') else sub) * size / min(t) / 1e6:,.0f}"
            for key, t in times.items()
        )
        print(f"{size:>8} B  MB/s: {line}", flush=True)
        if connection is not None:
            connection.close()
    report.workloads.append(workload)
    if hasattr(os, "getloadavg"):
        report.machine["load_average_start"] = load_start
        report.machine["load_average_end"] = list(os.getloadavg())
    report.write_json(args.json)
    load = report.machine.get("load_average_end")
    print(f"CPU: {report.machine['cpu']} {cpu_flags()}, load average at the end: {load}")
    print(f"wrote {args.json}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
