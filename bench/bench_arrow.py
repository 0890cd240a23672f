"""Arrow and Parquet benchmarks: a hashed column against what users would pick instead, and
where the time of a Parquet rewrite goes.

    python bench/bench_arrow.py [--quick] [--rows N] [--repeats R] [--json PATH]

1. Column: a 2^20 x 32 B binary column, hashed by batchkeccak (every core) and by the
   alternatives, all in this process with their repeats interleaved, best of R each:
   ``to_pylist()`` + a hashlib.sha3_256 loop, DuckDB's native ``sha256(col)`` (every core),
   polars-hash ``sha3_256``, and per-value loops of hashlib.sha256 and blake3 over ready-made
   ``bytes``. Ratios compare like with like: the loops against batchkeccak's raw digests,
   DuckDB and polars-hash (which return hex strings) against batchkeccak with ``hex=True``.
2. Rows: ``hash_rows`` over a 2^20-row table of 6 columns (int64, int64, string, 8-byte
   binary, int32 with 10 % nulls, string with 30 % nulls: the columns of
   ``bench_tables.py``), on every core and on one, against loops of hashlib and pycryptodome
   over the same encoded rows (``encode_rows``), which give the same digests.
3. Parquet end to end: a 2^20-row file, read alone, hashed alone, written alone, then
   ``batchkeccak.parquet.hash_file`` with its in-loop split.

Prints the tables and writes every figure to JSON under bench/results/ (git-ignored).
Kernel compilation happens before any timing and is reported on its own.
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
import pyarrow.compute
import pyarrow.dataset as ds
import pyarrow.parquet as pq

import batchkeccak
from batchkeccak.arrow import encode_rows, hash_array, hash_rows
from batchkeccak.benchmark.report import machine_info
from batchkeccak.benchmark.timing import interleaved
from batchkeccak.core.parallel import available_cores
from batchkeccak.parquet import (
    DEFAULT_BATCH_SIZE,
    _record_batches,
    _writer_options,
    hash_file,
)

RESULTS = Path(__file__).resolve().parent / "results"
LOOP_SPEEDUP_TARGET = 9.0
"""batchkeccak over the ``to_pylist`` + hashlib loop, on every core."""


def binary_column(rows: int, width: int, seed: int) -> pa.Array:
    data = np.random.default_rng(seed).integers(0, 256, size=rows * width, dtype=np.uint8)
    offsets = np.arange(0, (rows + 1) * width, width, dtype=np.int32)
    return pa.Array.from_buffers(
        pa.binary(), rows, [None, pa.py_buffer(offsets), pa.py_buffer(data)]
    )


def column_candidates(column: pa.Array) -> tuple[dict, dict, dict]:
    """name -> callable, name -> output form, name -> the batchkeccak figure it is compared to."""
    values = column.to_pylist()
    candidates = {
        "batchkeccak sha3_256": lambda: hash_array(column, "sha3_256"),
        "batchkeccak sha3_256 hex": lambda: hash_array(column, "sha3_256", hex=True),
        "batchkeccak sha3_256, 1 thread": lambda: hash_array(column, "sha3_256", threads=1),
        "to_pylist + hashlib.sha3_256 loop": lambda: [
            hashlib.sha3_256(v).digest() for v in column.to_pylist()
        ],
        "hashlib.sha256 loop (bytes ready)": lambda: [hashlib.sha256(v).digest() for v in values],
    }
    forms = {name: "bytes" for name in candidates}
    forms["batchkeccak sha3_256 hex"] = "hex"
    try:
        import blake3

        candidates["blake3 loop (bytes ready)"] = lambda: [
            blake3.blake3(v).digest() for v in values
        ]
        forms["blake3 loop (bytes ready)"] = "bytes"
    except ImportError:
        print("blake3 not installed: skipped", file=sys.stderr)
    try:
        import duckdb

        connection = duckdb.connect()
        connection.execute(f"SET threads = {available_cores()}")
        connection.register("column_table", pa.table({"c": column}))
        sample = connection.sql("SELECT sha256(c) FROM column_table LIMIT 3").fetchall()
        assert [r[0] for r in sample] == [hashlib.sha256(v).hexdigest() for v in values[:3]]
        candidates[f"DuckDB sha256(col), {available_cores()} threads"] = lambda: connection.sql(
            "SELECT sha256(c) FROM column_table"
        ).to_arrow_table()
        forms[f"DuckDB sha256(col), {available_cores()} threads"] = "hex"
    except ImportError:
        print("duckdb not installed: skipped", file=sys.stderr)
    try:
        import polars as pl
        import polars_hash as plh

        frame = pl.from_arrow(pa.table({"c": column}))
        check = frame.head(3).select(plh.col("c").chash.sha3_256())["c"].to_list()
        assert check == [hashlib.sha3_256(v).hexdigest() for v in values[:3]]
        candidates["polars-hash sha3_256"] = lambda: frame.select(plh.col("c").chash.sha3_256())
        forms["polars-hash sha3_256"] = "hex"
    except ImportError:
        print("polars / polars-hash not installed: skipped", file=sys.stderr)
    compared_to = {
        name: "batchkeccak sha3_256 hex" if form == "hex" else "batchkeccak sha3_256"
        for name, form in forms.items()
    }
    return candidates, forms, compared_to


def bench_column(rows: int, repeats: int) -> dict:
    column = binary_column(rows, 32, seed=2026)
    expected = [hashlib.sha3_256(v).digest() for v in column.slice(0, 100).to_pylist()]
    assert hash_array(column).slice(0, 100).to_pylist() == expected
    candidates, forms, compared_to = column_candidates(column)
    times = interleaved(candidates, repeats)
    ns = {name: min(t) / rows * 1e9 for name, t in times.items()}
    results = []
    print(f"\nColumn: {rows:,} x 32 B binary, {available_cores()} cores, best of {repeats}")
    print(f"{'':38} {'ns/value':>9} {'output':>7} {'batchkeccak is':>16}")
    for name in candidates:
        baseline = compared_to[name]
        ratio = ns[name] / ns[baseline]
        shown = "" if name.startswith("batchkeccak") else f"{ratio:.1f}x faster"
        print(f"{name:38} {ns[name]:9.0f} {forms[name]:>7} {shown:>16}")
        results.append(
            {
                "name": name,
                "ns_per_value": ns[name],
                "output": forms[name],
                "compared_to": baseline,
                "ratio": ratio,
                "times_s": times[name],
            }
        )
    loop = ns["to_pylist + hashlib.sha3_256 loop"] / ns["batchkeccak sha3_256"]
    slowest_rival = min(
        (r for r in results if not r["name"].startswith("batchkeccak")), key=lambda r: r["ratio"]
    )
    print(
        f"target >= {LOOP_SPEEDUP_TARGET:.0f}x the to_pylist + hashlib loop: {loop:.1f}x "
        f"({'met' if loop >= LOOP_SPEEDUP_TARGET else 'MISSED'})"
    )
    print(
        f"target faster than every alternative: closest is {slowest_rival['name']} at "
        f"{slowest_rival['ratio']:.2f}x ({'met' if slowest_rival['ratio'] > 1 else 'MISSED'})"
    )
    return {
        "rows": rows,
        "value_bytes": 32,
        "repeats": repeats,
        "results": results,
        "loop_speedup": loop,
        "closest_alternative": slowest_rival["name"],
        "closest_ratio": slowest_rival["ratio"],
    }


def row_table(rows: int, seed: int) -> pa.Table:
    rng = np.random.default_rng(seed)
    ids = np.arange(rows, dtype=np.int64)
    text = pa.array(ids).cast(pa.string())
    return pa.table(
        {
            "id": ids,
            "amount": rng.integers(0, 1 << 40, rows),
            "name": pa.compute.binary_join_element_wise("customer-", text, ""),
            "tag": binary_column(rows, 8, seed),
            "score": pa.array(
                rng.integers(0, 1000, rows, dtype=np.int32), mask=rng.random(rows) < 0.1
            ),
            "note": pa.array(
                [
                    None if drop else f"note {i % 997}"
                    for i, drop in enumerate(rng.random(rows) < 0.3)
                ]
            ),
        }
    )


def bench_rows(rows: int, repeats: int) -> dict:
    from Crypto.Hash import SHA3_256

    table = row_table(rows, seed=2026)
    encoded = encode_rows(table.combine_chunks().to_batches()[0])
    data, offsets = encoded.data, encoded.offsets
    messages = [data[offsets[i] : offsets[i + 1]].tobytes() for i in range(rows)]
    expected = [hashlib.sha3_256(m).digest() for m in messages[:100]]
    assert hash_rows(table).slice(0, 100).to_pylist() == expected
    candidates = {
        "batchkeccak hash_rows": lambda: hash_rows(table),
        "batchkeccak hash_rows, 1 thread": lambda: hash_rows(table, threads=1),
        "hashlib.sha3_256 loop (rows encoded)": lambda: [
            hashlib.sha3_256(m).digest() for m in messages
        ],
        "pycryptodome SHA3_256 loop (rows encoded)": lambda: [
            SHA3_256.new(m).digest() for m in messages
        ],
    }
    times = interleaved(candidates, repeats)
    ns = {name: min(t) / rows * 1e9 for name, t in times.items()}
    print(f"\nRows: {rows:,} x 6 columns, {available_cores()} cores, best of {repeats}")
    print(f"{'':44} {'ns/row':>7} {'hash_rows is':>14}")
    for name in candidates:
        ratio = ns[name] / ns["batchkeccak hash_rows"]
        shown = "" if name.startswith("batchkeccak") else f"{ratio:.1f}x faster"
        print(f"{name:44} {ns[name]:7.0f} {shown:>14}")
    return {
        "rows": rows,
        "mean_encoded_bytes": int(offsets[-1]) / rows,
        "repeats": repeats,
        "ns_per_row": ns,
        "times_s": times,
    }


def sample_file(path: Path, rows: int) -> None:
    rng = np.random.default_rng(7)
    keys = binary_column(rows, 32, seed=8)
    note_lengths = rng.integers(0, 120, size=rows)
    notes = pa.array(["n" * int(k) for k in note_lengths[: min(rows, 4096)]] * (rows // 4096 + 1))
    table = pa.table(
        {
            "id": pa.array(np.arange(rows, dtype=np.int64)),
            "key": keys,
            "note": notes.slice(0, rows),
            "amount": pa.array(rng.normal(size=rows)),
        }
    )
    pq.write_table(table, path, row_group_size=DEFAULT_BATCH_SIZE)


def bench_parquet(rows: int, repeats: int, folder: Path) -> dict:
    source = folder / "source.parquet"
    sample_file(source, rows)
    dataset = ds.dataset(source)

    def scan():
        # The reading hash_file does: one file, one row group at a time.
        return list(_record_batches(dataset, DEFAULT_BATCH_SIZE, opened_here=True))

    batches = scan()
    digests = [hash_array(b.column("key")) for b in batches]
    schema = dataset.schema.append(pa.field("key_sha3_256", pa.binary(32)))
    options = _writer_options(dataset, ["key_sha3_256"])

    def hash_only():
        return [hash_array(b.column("key")) for b in batches]

    def write_only():
        with pq.ParquetWriter(folder / "write_only.parquet", schema, **options) as writer:
            for batch, digest in zip(batches, digests):
                writer.write_batch(
                    pa.RecordBatch.from_arrays(batch.columns + [digest], schema=schema)
                )

    reports = []

    def end_to_end():
        reports.append(hash_file(source, folder / "hashed.parquet", "key"))

    times = interleaved(
        {"read": scan, "hash": hash_only, "write": write_only, "hash_file": end_to_end}, repeats
    )
    best = {name: min(t) for name, t in times.items()}
    parts = best["read"] + best["hash"] + best["write"]
    in_loop = min(reports, key=lambda r: r.total_seconds)
    size_mb = source.stat().st_size / 1e6
    print(
        f"\nParquet: {rows:,} rows (id int64, key 32 B, note string, amount double), "
        f"{size_mb:.0f} MB on disk, best of {repeats}"
    )
    for name in ("read", "hash", "write"):
        print(f"  {name:6} alone {best[name]:7.3f} s  {best[name] / parts:5.1%}")
    print(
        f"  hash_file end to end {best['hash_file']:.3f} s "
        f"({rows / best['hash_file']:,.0f} rows/s); in its loop: read "
        f"{in_loop.read_seconds:.3f} s, hash {in_loop.hash_seconds:.3f} s, write "
        f"{in_loop.write_seconds:.3f} s"
    )
    hash_share = best["hash"] / parts
    print(
        f"target hashing does not dominate: {hash_share:.0%} of read + hash + write "
        f"({'met' if hash_share < 0.5 else 'MISSED'})"
    )
    return {
        "rows": rows,
        "file_mb": size_mb,
        "repeats": repeats,
        "best_seconds": best,
        "hash_share": hash_share,
        "hash_file_loop": {
            "read": in_loop.read_seconds,
            "hash": in_loop.hash_seconds,
            "write": in_loop.write_seconds,
            "total": in_loop.total_seconds,
        },
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true", help="2^16 rows, 3 repeats")
    parser.add_argument("--rows", type=int, help="rows in the column and the file (2^20)")
    parser.add_argument("--repeats", type=int, help="timed repeats per figure (5)")
    parser.add_argument(
        "--json",
        default=str(RESULTS / "bench_arrow.json"),
        help="JSON output (default bench/results/bench_arrow.json)",
    )
    args = parser.parse_args(argv)
    rows = args.rows or (1 << 16 if args.quick else 1 << 20)
    repeats = args.repeats or (3 if args.quick else 5)

    started = time.perf_counter()
    batchkeccak.warmup()
    hash_array(pa.array([b"x"]), hex=True)
    compile_seconds = time.perf_counter() - started
    print(
        f"kernels ready in {compile_seconds:.2f} s (compiled or loaded from cache; "
        "not in any figure below)"
    )

    column = bench_column(rows, repeats)
    row_figures = bench_rows(rows, repeats)
    with tempfile.TemporaryDirectory(prefix="bench-arrow-") as folder:
        parquet = bench_parquet(rows, repeats, Path(folder))

    output = Path(args.json)
    output.parent.mkdir(parents=True, exist_ok=True)
    output.write_text(
        json.dumps(
            {
                "machine": machine_info(),
                "compile_seconds": compile_seconds,
                "column": column,
                "rows": row_figures,
                "parquet": parquet,
                "command": " ".join([Path(sys.argv[0]).name] + (argv or sys.argv[1:])),
                "load_average_end": list(os.getloadavg()) if hasattr(os, "getloadavg") else None,
            },
            indent=2,
        )
    )
    print(f"\nwrote {output}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
