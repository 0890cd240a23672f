"""Spark benchmark: batchkeccak.spark.hash_column against what a Spark user would write instead.

    python bench/bench_spark.py [--rows N] [--width B] [--repeats R] [--json PATH]

One ``local[2]`` Spark session; a binary column of N rows x B bytes (default 2^22 x 32) is
written to Parquet, read back and cached in Spark's memory, then each query below hashes it
and hands the result to Spark's ``noop`` sink (every row computed, nothing collected):

- ``batchkeccak``: ``hash_column(df, "v", "sha3_256")``, one ``hash_array`` call per Arrow
  batch, raw digests; ``batchkeccak hex``: the same with ``hex=True``;
- ``hashlib Arrow UDF``: an Arrow UDF that loops ``hashlib.sha3_256`` over ``to_pylist()``;
- ``Spark sha2``: Spark's native ``sha2(v, 256)`` (SHA-256, hex strings: Spark has no SHA-3);
- ``scan only``: the cached column alone, what every query pays before hashing;
- ``Arrow UDF identity``: an Arrow UDF returning its input, the floor of moving a column to
  Python and back, which every Arrow UDF pays and batchkeccak cannot lower.

Repeats are interleaved, best of R each, after one untimed run of every query (Python
workers started, kernels loaded). Ratios: the loop's time over batchkeccak's (raw digests
both), and ``sha2``'s time over batchkeccak's hex query (hex strings both).
Prints the table and writes the figures to JSON under bench/results/ (git-ignored).
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from batchkeccak.benchmark.report import machine_info
from batchkeccak.benchmark.timing import interleaved

RESULTS = Path(__file__).resolve().parent / "results"
LOOP_SPEEDUP_GOAL = 5.0
"""batchkeccak over the hashlib Arrow UDF."""
NATIVE_RATIO_GOAL = 1.0
"""batchkeccak (hex) against Spark's own sha2 (hex)."""


def binary_table(rows: int, width: int, seed: int = 7) -> pa.Table:
    data = np.random.default_rng(seed).integers(0, 256, size=rows * width, dtype=np.uint8)
    offsets = np.arange(0, (rows + 1) * width, width, dtype=np.int32)
    column = pa.Array.from_buffers(
        pa.binary(), rows, [None, pa.py_buffer(offsets), pa.py_buffer(data)]
    )
    return pa.table({"v": column})


def hashlib_loop(values: pa.Array) -> pa.Array:
    sha3_256 = hashlib.sha3_256
    return pa.array([sha3_256(v).digest() for v in values.to_pylist()], pa.binary())


def identity(values: pa.Array) -> pa.Array:
    return values


def main(argv: list[str] | None = None) -> dict:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=2**22)
    parser.add_argument("--width", type=int, default=32)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument(
        "--batch-rows",
        type=int,
        default=None,
        help="spark.sql.execution.arrow.maxRecordsPerBatch (Spark's default: 10000)",
    )
    parser.add_argument("--json", type=Path, default=None)
    args = parser.parse_args(argv)

    os.environ.setdefault("PYSPARK_PYTHON", sys.executable)
    from pyspark.sql import SparkSession
    from pyspark.sql import functions as F
    from pyspark.sql.functions import arrow_udf

    from batchkeccak.spark import hash_column

    started = time.perf_counter()
    builder = (
        SparkSession.builder.master("local[2]")
        .appName("batchkeccak-bench")
        .config("spark.ui.enabled", "false")
        .config("spark.ui.showConsoleProgress", "false")
        .config("spark.driver.memory", "4g")
    )
    if args.batch_rows:
        builder = builder.config(
            "spark.sql.execution.arrow.maxRecordsPerBatch", str(args.batch_rows)
        )
    spark = builder.getOrCreate()
    spark.sparkContext.setLogLevel("ERROR")
    session_start_s = time.perf_counter() - started

    try:
        with tempfile.TemporaryDirectory() as folder:
            path = os.path.join(folder, "column.parquet")
            pq.write_table(binary_table(args.rows, args.width), path, row_group_size=2**20)
            frame = spark.read.parquet(path).repartition(4).cache()
            assert frame.count() == args.rows

            loop_udf = arrow_udf(hashlib_loop, "binary")
            identity_udf = arrow_udf(identity, "binary")

            def run(column):
                return lambda: (
                    frame.select(column.alias("d")).write.format("noop").mode("overwrite").save()
                )

            def run_frame(df, name):
                return lambda: df.select(name).write.format("noop").mode("overwrite").save()

            queries = {
                "scan only": run(F.col("v")),
                "batchkeccak": run_frame(hash_column(frame, "v", output="d"), "d"),
                "batchkeccak hex": run_frame(hash_column(frame, "v", hex=True, output="d"), "d"),
                "Arrow UDF identity": run(identity_udf(F.col("v"))),
                "hashlib Arrow UDF": run(loop_udf(F.col("v"))),
                "Spark sha2": run(F.sha2(F.col("v"), 256)),
            }
            # Same digests, checked on a few rows before anything is timed.
            sample = hash_column(frame.limit(5), "v", output="d").select("v", "d").collect()
            assert all(bytes(r["d"]) == hashlib.sha3_256(bytes(r["v"])).digest() for r in sample)
            for query in queries.values():
                query()
            times = interleaved(queries, args.repeats)
    finally:
        spark.stop()

    best = {name: min(values) for name, values in times.items()}
    loop_ratio = best["hashlib Arrow UDF"] / best["batchkeccak"]
    native_ratio = best["Spark sha2"] / best["batchkeccak hex"]
    batch_rows = args.batch_rows or 10000
    print(
        f"Spark local[2], {args.rows} rows x {args.width} B, Arrow batches of {batch_rows} rows, "
        f"best of {args.repeats}"
    )
    print(f"session start: {session_start_s:.1f} s")
    for name, seconds in best.items():
        print(f"  {name:<18} {seconds:8.3f} s   {args.rows / seconds / 1e6:6.2f} M rows/s")
    print(f"batchkeccak vs hashlib Arrow UDF: {loop_ratio:.2f}x (goal >= {LOOP_SPEEDUP_GOAL}x)")
    print(f"batchkeccak hex vs Spark sha2:    {native_ratio:.2f}x (goal >= {NATIVE_RATIO_GOAL}x)")

    result = {
        "rows": args.rows,
        "width": args.width,
        "repeats": args.repeats,
        "arrow_batch_rows": batch_rows,
        "session_start_s": session_start_s,
        "times_s": times,
        "best_s": best,
        "ratio_vs_hashlib_arrow_udf": loop_ratio,
        "ratio_vs_spark_sha2": native_ratio,
        "machine": machine_info(),
    }
    out = args.json or RESULTS / "bench_spark.json"
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(result, indent=2, default=str))
    print(f"figures written to {out}")
    return result


if __name__ == "__main__":
    main()
