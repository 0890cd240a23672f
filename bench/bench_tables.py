"""Table diffs and digests: batchkeccak against DuckDB on the same Parquet files, one run.

    python bench/bench_tables.py [--rows 10000000] [--repeats 2] [--threads N]
                                 [--folder DIR] [--json bench/results/tables.json]

Workload: two Parquet files of ``--rows`` rows x 6 columns (``id`` int64 key; ``amount``
int64; ``name`` string; ``tag`` binary; ``score`` int32 with 10 % nulls; ``note`` string with
30 % nulls). ``b`` is ``a`` with 0.1 % of the rows differing: half changed (one column
each), a quarter removed, a quarter added. Files are made once per size in ``--folder``.

Each measurement runs in a fresh interpreter (``--worker``), so its peak memory is its own:
the child's peak resident set (``VmHWM``), interpreter and libraries included. Beside each
time, the CPU seconds of that run (every thread of the process, DuckDB's too): on a machine
shared with other work they vary less than the wall times. Times are the best of ``--repeats`` runs of the call inside the child, after one
warm-up call on a small slice (so kernel compilation and DuckDB's start are outside them).

- diff: ``bk.diff(a, b, key="id")`` with and without ``changed_columns`` (``bk-diff-sha3``:
  without, comparing SHA3-256 row digests, ``diff``'s default before TurboSHAKE128), against
  DuckDB's FULL OUTER JOIN on ``id`` comparing ``hash()`` of the other columns (its fastest query
  for the same answer: keys and kind of change), and ``EXCEPT`` both ways (rows only).
  Every answer is checked against the others: the same keys with the same kinds.
- digest: ``bk.table_digest(a, key="id")`` and without key, against DuckDB computing
  ``sha256`` of each row's text (``concat_ws``) and aggregating them in key order with
  ``string_agg``; ``table_digest`` is also checked equal for the same table read as
  Parquet, Arrow IPC, Polars and pandas (at ``--rows`` up to 2,000,000).
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time
from pathlib import Path

from _common import cpu_model

RESULTS = Path(__file__).resolve().parent / "results"
TASKS = (
    "bk-diff",
    "bk-diff-sha3",
    "bk-diff-columns",
    "duckdb-join",
    "duckdb-except",
    "bk-digest-key",
    "bk-digest-unordered",
    "duckdb-digest",
)
COLUMNS = ("id", "amount", "name", "tag", "score", "note")
CHANGED_FRACTION = 0.001


# ---------------------------------------------------------------------------------------------
# Data


def make_files(rows: int, folder: Path) -> tuple[Path, Path]:
    import numpy as np
    import pyarrow as pa
    import pyarrow.compute
    import pyarrow.parquet as pq

    a_path, b_path = folder / f"a-{rows}.parquet", folder / f"b-{rows}.parquet"
    if a_path.exists() and b_path.exists():
        return a_path, b_path
    folder.mkdir(parents=True, exist_ok=True)
    rng = np.random.default_rng(12345)

    def columns(ids: np.ndarray) -> dict:
        count = ids.shape[0]
        names = pa.compute.utf8_lpad(pa.array(ids).cast(pa.string()), 9, "0")
        names = pa.compute.binary_join_element_wise("customer-", names, "")
        tags = pa.Array.from_buffers(
            pa.binary(),
            count,
            [
                None,
                pa.py_buffer(np.arange(count + 1, dtype=np.int32) * 8),
                pa.py_buffer(rng.bytes(8 * count)),
            ],
        )
        score = pa.array(rng.integers(0, 1000, count, dtype=np.int32), mask=rng.random(count) < 0.1)
        notes = pa.compute.binary_join_element_wise(
            "note ", pa.array(ids % 997).cast(pa.string()), ""
        ).filter(pa.array(np.ones(count, dtype=bool)))
        notes = pa.compute.if_else(
            pa.array(rng.random(count) < 0.3), pa.scalar(None, pa.string()), notes
        )
        return {
            "id": pa.array(ids),
            "amount": pa.array(rng.integers(0, 1 << 40, count)),
            "name": names,
            "tag": tags,
            "score": score,
            "note": notes,
        }

    ids = np.arange(rows, dtype=np.int64) * 3
    a = pa.table(columns(ids))
    differing = max(4, int(rows * CHANGED_FRACTION))
    picked = rng.choice(rows, size=differing, replace=False)
    changed, removed = picked[: differing // 2], picked[differing // 2 : 3 * differing // 4]
    added_count = differing - differing // 2 - (3 * differing // 4 - differing // 2)
    amount = a["amount"].to_numpy().copy()
    amount[changed] += 1
    keep = np.ones(rows, dtype=bool)
    keep[removed] = False
    b = a.set_column(1, "amount", pa.array(amount)).filter(pa.array(keep))
    added = pa.table(columns(np.arange(added_count, dtype=np.int64) * 3 + 3 * rows + 1))
    b = pa.concat_tables([b, added])
    pq.write_table(a, a_path)
    pq.write_table(b, b_path, row_group_size=300_000)  # another layout than a's
    return a_path, b_path


# ---------------------------------------------------------------------------------------------
# Workers: one measurement each, in a fresh interpreter


CPU_SECONDS: list[float] = []
"""The CPU time (every thread of the process) of the fastest repeat, set by :func:`_best`."""


def _best(repeats: int, call) -> tuple[float, object]:
    best, result = float("inf"), None
    for _ in range(repeats):
        started, cpu_started = time.perf_counter(), time.process_time()
        result = call()
        elapsed = time.perf_counter() - started
        if elapsed < best:
            best = elapsed
            CPU_SECONDS[:] = [time.process_time() - cpu_started]
    return best, result


def _duckdb_connection(threads: int):
    import duckdb

    connection = duckdb.connect()
    connection.execute(f"SET threads TO {threads}")
    return connection


def _hash_columns() -> str:
    return ", ".join(name for name in COLUMNS if name != "id")


def duckdb_join_query(a: str, b: str) -> str:
    return f"""
        SELECT COALESCE(a.id, b.id) AS id,
               CASE WHEN a.id IS NULL THEN 'added' WHEN b.id IS NULL THEN 'removed'
                    ELSE 'changed' END AS change
        FROM (SELECT id, hash({_hash_columns()}) AS h FROM read_parquet('{a}')) AS a
        FULL OUTER JOIN (SELECT id, hash({_hash_columns()}) AS h FROM read_parquet('{b}')) AS b
        ON a.id = b.id
        WHERE a.id IS NULL OR b.id IS NULL OR a.h <> b.h
        ORDER BY id"""


def duckdb_except_query(a: str, b: str) -> str:
    return f"""
        (SELECT 'removed' AS side, * FROM (SELECT * FROM read_parquet('{a}')
                                            EXCEPT ALL SELECT * FROM read_parquet('{b}')))
        UNION ALL
        (SELECT 'added' AS side, * FROM (SELECT * FROM read_parquet('{b}')
                                          EXCEPT ALL SELECT * FROM read_parquet('{a}')))"""


def duckdb_digest_query(path: str) -> str:
    text = ", ".join(f"CAST({name} AS VARCHAR)" for name in COLUMNS)
    return f"""
        SELECT sha256(string_agg(h, '' ORDER BY id)) FROM (
            SELECT id, sha256(concat_ws('|', {text})) AS h FROM read_parquet('{path}'))"""


def peak_rss_mb() -> float:
    """This process's peak resident set (``VmHWM``; ``ru_maxrss`` would include the memory
    of the parent it was forked from)."""
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1]) / 1024
    import resource

    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def worker(task: str, a: str, b: str, repeats: int, threads: int) -> dict:
    """One measurement; returns seconds and a summary of the answer."""
    if task.startswith("bk-"):
        import pyarrow as pa
        import pyarrow.parquet as pq

        import batchkeccak as bk

        first = next(pq.ParquetFile(a).iter_batches(batch_size=20_000))
        warm = pa.Table.from_batches([first])
        bk.diff(warm, warm.slice(5), key="id")
        bk.table_digest(warm, key="id")
        bk.table_digest(warm)
        if task == "bk-diff":
            seconds, result = _best(
                repeats, lambda: bk.diff(a, b, key="id", threads=threads, changed_columns=False)
            )
            return {"seconds": seconds, "answer": _answer(result)}
        if task == "bk-diff-sha3":  # the row digest diff compared before TurboSHAKE128
            seconds, result = _best(
                repeats,
                lambda: bk.diff(
                    a, b, key="id", threads=threads, changed_columns=False, algorithm="sha3_256"
                ),
            )
            return {"seconds": seconds, "answer": _answer(result)}
        if task == "bk-diff-columns":
            seconds, result = _best(repeats, lambda: bk.diff(a, b, key="id", threads=threads))
            changed = [c for c in result["changed_columns"].to_pylist() if c is not None]
            return {
                "seconds": seconds,
                "answer": _answer(result),
                "changed_columns_ok": all(c == ["amount"] for c in changed),
            }
        if task == "bk-digest-key":
            seconds, result = _best(repeats, lambda: bk.table_digest(a, key="id", threads=threads))
            return {"seconds": seconds, "answer": result.hexdigest()}
        if task == "bk-digest-unordered":
            seconds, result = _best(repeats, lambda: bk.table_digest(a, threads=threads))
            return {"seconds": seconds, "answer": result.hexdigest()}
    connection = _duckdb_connection(threads)
    connection.execute(duckdb_join_query(a, a)).fetchall()  # start-up, outside the times
    if task == "duckdb-join":
        seconds, result = _best(
            repeats, lambda: connection.sql(duckdb_join_query(a, b)).to_arrow_table()
        )
        return {"seconds": seconds, "answer": _answer(result)}
    if task == "duckdb-except":
        seconds, result = _best(
            repeats, lambda: connection.sql(duckdb_except_query(a, b)).to_arrow_table()
        )
        return {"seconds": seconds, "answer": {"rows": result.num_rows}}
    if task == "duckdb-digest":
        seconds, result = _best(
            repeats, lambda: connection.execute(duckdb_digest_query(a)).fetchone()
        )
        return {"seconds": seconds, "answer": result[0]}
    raise ValueError(f"unknown task {task!r}")


def _answer(table) -> dict:
    """The answer as counts and a digest of its (key, change) pairs, for cross-checking."""
    import hashlib

    import pyarrow as pa

    if isinstance(table, pa.RecordBatchReader):
        table = table.read_all()
    pairs = sorted(zip(table["id"].to_pylist(), table["change"].to_pylist()))
    counts: dict[str, int] = {}
    for _, change in pairs:
        counts[change] = counts.get(change, 0) + 1
    return {"counts": counts, "sha256": hashlib.sha256(repr(pairs).encode()).hexdigest()}


def run_worker(task: str, a: Path, b: Path, repeats: int, threads: int) -> dict:
    command = [
        sys.executable,
        __file__,
        "--worker",
        task,
        "--a",
        str(a),
        "--b",
        str(b),
        "--repeats",
        str(repeats),
        "--threads",
        str(threads),
    ]
    done = subprocess.run(command, stdout=subprocess.PIPE, text=True, check=False)
    if done.returncode != 0:
        raise SystemExit(f"{task} failed (status {done.returncode}):\n{done.stdout}")
    return json.loads(done.stdout.strip().splitlines()[-1])


def layouts_agree(a: Path, folder: Path) -> bool:
    """``table_digest`` of one table read as Parquet, Arrow IPC, Polars and pandas."""
    import polars as pl
    import pyarrow.parquet as pq
    from pyarrow import feather

    import batchkeccak as bk

    table = pq.read_table(a)
    ipc = folder / (a.stem + ".arrow")
    feather.write_feather(table, ipc, chunksize=100_000)
    digests = {
        "parquet": bk.table_digest(a, key="id"),
        "ipc": bk.table_digest(ipc, key="id"),
        "polars": bk.table_digest(pl.read_parquet(a), key="id"),
        "pandas": bk.table_digest(table.to_pandas(types_mapper=_arrow_dtype), key="id"),
    }
    ipc.unlink()
    return len({d.digest() for d in digests.values()}) == 1


def _arrow_dtype(arrow_type):
    import pandas as pd

    return pd.ArrowDtype(arrow_type)


def _summary(results: dict) -> dict:
    """The cross-checks and ratios that the measured tasks allow (all of them for a full run)."""
    summary: dict = {}
    diffs = [
        t for t in ("bk-diff", "bk-diff-sha3", "bk-diff-columns", "duckdb-join") if t in results
    ]
    if len(diffs) > 1:
        agree = len({results[t]["answer"]["sha256"] for t in diffs}) == 1
        if "bk-diff-columns" in results:
            agree = agree and results["bk-diff-columns"]["changed_columns_ok"]
        summary["diff_answers_agree"] = agree
    if "bk-diff" in results:
        summary["diff_counts"] = results["bk-diff"]["answer"]["counts"]
    ratios = (
        ("diff_speedup_vs_duckdb_join", "duckdb-join", "bk-diff"),
        ("diff_sha3_speedup_vs_duckdb_join", "duckdb-join", "bk-diff-sha3"),
        ("diff_with_columns_speedup_vs_duckdb_join", "duckdb-join", "bk-diff-columns"),
        ("digest_key_speedup_vs_duckdb", "duckdb-digest", "bk-digest-key"),
        ("digest_unordered_speedup_vs_duckdb", "duckdb-digest", "bk-digest-unordered"),
    )
    for name, theirs, ours in ratios:
        if theirs in results and ours in results:
            summary[name] = results[theirs]["seconds"] / results[ours]["seconds"]
    return summary


def cpu_flags() -> list[str]:
    """The SIMD flags of ``/proc/cpuinfo`` that decide which tile runs (AVX2, AVX-512F)."""
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("flags"):
                flags = line.split(":", 1)[1].split()
                return [f for f in flags if f in ("avx2", "avx512f")]
    except OSError:
        pass
    return []


def _load_average() -> list[float] | None:
    return list(os.getloadavg()) if hasattr(os, "getloadavg") else None


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=10_000_000)
    parser.add_argument("--repeats", type=int, default=2)
    parser.add_argument("--threads", type=int, default=os.cpu_count() or 1)
    parser.add_argument("--folder", type=Path, default=RESULTS / "tables-data")
    parser.add_argument("--json", type=Path, default=RESULTS / "tables.json")
    parser.add_argument(
        "--tasks", default=",".join(TASKS), help="comma-separated subset of: " + ", ".join(TASKS)
    )
    parser.add_argument("--worker", help=argparse.SUPPRESS)
    parser.add_argument("--a", help=argparse.SUPPRESS)
    parser.add_argument("--b", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.worker:
        result = worker(args.worker, args.a, args.b, args.repeats, args.threads)
        result["peak_rss_mb"] = peak_rss_mb()
        result["cpu_seconds"] = CPU_SECONDS[0]
        print(json.dumps(result))
        return 0

    load_start = _load_average()
    started = time.perf_counter()
    a, b = make_files(args.rows, args.folder)
    print(
        f"{args.rows:,} rows x {len(COLUMNS)} columns; files made in "
        f"{time.perf_counter() - started:.1f} s; CPU: {cpu_model()}, {args.threads} threads"
    )
    results = {}
    tasks = args.tasks.split(",")
    for task in tasks:
        if task not in TASKS:
            parser.error(f"--tasks: unknown task {task!r}")
        results[task] = run_worker(task, a, b, args.repeats, args.threads)
        print(
            f"  {task:20s} {results[task]['seconds']:8.2f} s   CPU "
            f"{results[task]['cpu_seconds']:6.2f} s   peak RSS "
            f"{results[task]['peak_rss_mb']:7.0f} MB",
            flush=True,
        )
    summary = _summary(results)
    agree = summary.get("diff_answers_agree", True)
    if args.rows <= 2_000_000 and "bk-digest-key" in results:
        summary["digest_equal_across_parquet_ipc_polars_pandas"] = layouts_agree(a, args.folder)
    for name, value in summary.items():
        print(f"  {name}: {value:.2f}x" if isinstance(value, float) else f"  {name}: {value}")
    args.json.parent.mkdir(parents=True, exist_ok=True)
    args.json.write_text(
        json.dumps(
            {
                "rows": args.rows,
                "threads": args.threads,
                "cpu": cpu_model(),
                "cpu_flags": cpu_flags(),
                "load_average_start": load_start,
                "load_average_end": _load_average(),
                "results": results,
                "summary": summary,
            },
            indent=2,
        )
    )
    if not agree:
        print("DIFF MISMATCH: batchkeccak and DuckDB found different changes")
        return 1
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
