"""Nested rows: ``hash_rows`` over lists, structs and maps against polars-hash, the flat rows
beside them, and ``diff`` of two nested Parquet files checked against a plain model.

    python bench/bench_rows_nested.py [--quick] [--rows N] [--diff-rows N] [--repeats R]
                                      [--no-diff] [--no-rows] [--json PATH]

1. Nested rows: the issue table of 2^20 rows (``id`` int64, ``tags`` a ``list<string>`` of
   0-8 tags, ``address`` a ``struct<city: string, zip: int32>``, ``attributes`` a
   ``map<string, string>`` of 0-4 entries; nulls at every level), hashed by
   ``batchkeccak.arrow.hash_rows`` on 1 thread and on 2, by ``pl.struct(...).bk.hash_rows``
   and by polars-hash's ``hash_rows(...).chash.sha3_256()`` (eager, and on the streaming
   engine, which can use Polars' threads) over the same four columns: Polars reads the map as
   ``list<struct<key, value>>``, which polars-hash takes. Every candidate runs in this process,
   repeats interleaved, best of R; wall time and the process's CPU time are both kept.
2. Flat rows: the same candidates over ``bench_arrow.py``'s 6-column table.
3. ``diff`` of two Parquet files of ``--diff-rows`` (2M) nested rows, 0.1 % of them changed
   (and a few added and removed), in a child process whose peak memory (``VmHWM``) is
   reported beside that of a child that only imports batchkeccak and loads its kernels; the
   result is checked against a plain Python model (value by value, column by column).

Polars' thread pool is fixed when Polars is imported: it is set here to the cores the bench
uses (``POLARS_MAX_THREADS``), so one thread is compared with polars-hash by CPU time, and two
by the wall clock. Prints the tables and writes every figure to JSON under
bench/results/ (git-ignored).
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq

THREADS = (1, 2)
os.environ.setdefault("POLARS_MAX_THREADS", str(max(THREADS)))

import batchkeccak
from batchkeccak.arrow import hash_rows
from batchkeccak.benchmark.report import machine_info

sys.path.insert(0, str(Path(__file__).resolve().parent))
from bench_arrow import row_table

RESULTS = Path(__file__).resolve().parent / "results"
POLARS_HASH_TARGET = 3.0
"""batchkeccak's hash_rows over polars-hash's, with the same threads."""
CHANGED_SHARE = 0.001
WORDS = np.array([f"tag-{i}" for i in range(300)], dtype=object)
CITIES = np.array(["Oslo", "Lima", "Pune", "Kyiv", "Rome", "Quito", ""], dtype=object)


def _offsets(rng: np.random.Generator, rows: int, most: int) -> np.ndarray:
    offsets = np.zeros(rows + 1, dtype=np.int32)
    np.cumsum(rng.integers(0, most + 1, rows), out=offsets[1:])
    return offsets


def _strings(rng: np.random.Generator, words: np.ndarray, count: int, nulls: float) -> pa.Array:
    picked = words[rng.integers(0, len(words), count)]
    return pa.array(picked.tolist(), pa.string(), mask=rng.random(count) < nulls)


def nested_table(rows: int, seed: int, first_id: int = 0) -> pa.Table:
    """The issue's table: id, 0-8 tags, an address, 0-4 attributes; 5 % nulls at every level."""
    rng = np.random.default_rng(seed)
    tag_offsets = _offsets(rng, rows, 8)
    tags = pa.ListArray.from_arrays(
        pa.array(tag_offsets),
        _strings(rng, WORDS, int(tag_offsets[-1]), 0.05),
        mask=pa.array(rng.random(rows) < 0.05),
    )
    address = pa.StructArray.from_arrays(
        [
            _strings(rng, CITIES, rows, 0.05),
            pa.array(rng.integers(0, 99_999, rows, dtype=np.int32), mask=rng.random(rows) < 0.05),
        ],
        names=["city", "zip"],
        mask=pa.array(rng.random(rows) < 0.05),
    )
    entry_offsets = _offsets(rng, rows, 4)
    entries = int(entry_offsets[-1])
    attributes = pa.MapArray.from_arrays(
        pa.array(entry_offsets),
        _strings(rng, WORDS, entries, 0.0),
        _strings(rng, WORDS, entries, 0.05),
        mask=pa.array(rng.random(rows) < 0.05),
    )
    ids = pa.array(np.arange(first_id, first_id + rows, dtype=np.int64))
    return pa.table({"id": ids, "tags": tags, "address": address, "attributes": attributes})


def model_field(value, arrow_type: pa.DataType) -> bytes:
    """docs/arrow.md's encoding of one field, from its Python value (the types used here)."""
    if value is None:
        return b"\x00"
    if pa.types.is_struct(arrow_type):
        body = b"".join(model_field(value[f.name], f.type) for f in arrow_type)
    elif pa.types.is_map(arrow_type):
        body = b"".join(
            model_field(k, arrow_type.key_type) + model_field(v, arrow_type.item_type)
            for k, v in value
        )
    elif pa.types.is_list(arrow_type):
        body = b"".join(model_field(v, arrow_type.value_type) for v in value)
    elif pa.types.is_string(arrow_type):
        body = value.encode()
    else:
        body = value.to_bytes(arrow_type.bit_width // 8, "little", signed=True)
    return b"\x01" + len(body).to_bytes(8, "little") + body


def check_rows(table: pa.Table, count: int = 2000) -> None:
    head = table.slice(0, count)
    expected = [
        hashlib.sha3_256(b"".join(model_field(row[f.name], f.type) for f in table.schema)).digest()
        for row in head.to_pylist()
    ]
    for threads in THREADS:
        assert hash_rows(head, threads=threads).to_pylist() == expected


def timed_candidates(candidates: dict, repeats: int) -> dict:
    """Each candidate ``repeats`` times, round-robin: wall and process CPU seconds of each."""
    times: dict = {name: {"wall": [], "cpu": []} for name in candidates}
    for _ in range(repeats):
        for name, fn in candidates.items():
            cpu, wall = time.process_time(), time.perf_counter()
            fn()
            times[name]["wall"].append(time.perf_counter() - wall)
            times[name]["cpu"].append(time.process_time() - cpu)
    return times


def row_candidates(table: pa.Table) -> dict:
    import polars as pl

    import batchkeccak.polars  # noqa: F401  registers .bk

    frame = pl.from_arrow(table)
    names = table.column_names
    candidates = {
        f"batchkeccak hash_rows, {t} thread{'s' if t > 1 else ''}": (
            lambda t=t: hash_rows(table, threads=t)
        )
        for t in THREADS
    }
    candidates["batchkeccak Polars bk.hash_rows"] = lambda: frame.select(
        pl.struct(names).bk.hash_rows()
    )
    try:
        import polars_hash as plh
    except ImportError:
        print("polars-hash not installed: skipped", file=sys.stderr)
        return candidates
    expression = plh.hash_rows(names).chash.sha3_256()
    check = frame.head(3).select(expression).to_series().to_list()
    assert len(check) == 3 and all(len(h) == 64 for h in check)
    candidates["polars-hash hash_rows sha3_256"] = lambda: frame.select(expression)
    lazy = frame.lazy().select(expression)
    candidates["polars-hash, streaming engine"] = lambda: lazy.collect(engine="streaming")
    return candidates


def bench_rows(title: str, table: pa.Table, repeats: int) -> dict:
    rows = table.num_rows
    candidates = row_candidates(table)
    first_start = time.perf_counter()
    hash_rows(table, threads=max(THREADS))  # the first call on this table, kernels loaded
    first = time.perf_counter() - first_start
    times = timed_candidates(candidates, repeats)
    best = {name: min(t["wall"]) for name, t in times.items()}
    cpu = {name: min(t["cpu"]) for name, t in times.items()}
    load = os.getloadavg()
    print(f"\n{title}: {rows:,} rows, best of {repeats}, load average {load[0]:.1f}")
    print(f"  first call, {max(THREADS)} threads: {first:.3f} s")
    print(f"  {'':38} {'wall s':>7} {'ns/row':>7} {'CPU s':>7}")
    for name in candidates:
        print(f"  {name:38} {best[name]:7.3f} {best[name] / rows * 1e9:7.0f} {cpu[name]:7.3f}")
    rivals = [name for name in candidates if name.startswith("polars-hash")]
    ratios = {}
    if rivals:
        # Polars' pool is fixed at import (2 threads here, and the streaming engine uses
        # them), so one thread is compared by CPU time, two by the wall clock.
        for t in THREADS:
            name = f"batchkeccak hash_rows, {t} thread{'s' if t > 1 else ''}"
            times_of = cpu if t == 1 else best
            rival = min(rivals, key=times_of.__getitem__)
            ratios[t] = times_of[rival] / times_of[name]
            verdict = "met" if ratios[t] >= POLARS_HASH_TARGET else "MISSED"
            print(
                f"  target >= {POLARS_HASH_TARGET:.0f}x polars-hash ({rival}), {t} thread(s), "
                f"{'CPU' if t == 1 else 'wall'}: {ratios[t]:.1f}x ({verdict})"
            )
    return {
        "rows": rows,
        "columns": table.column_names,
        "repeats": repeats,
        "first_call_s": first,
        "best_wall_s": best,
        "best_cpu_s": cpu,
        "ratios_over_polars_hash": ratios,
        "load_average": list(load),
        "times": times,
    }


# ---------------------------------------------------------------------------------------------
# diff of two Parquet files


def changed_rows(rows: list[dict], rng: np.random.Generator) -> list[dict]:
    """Each row changed in one of its nested columns, by a change the encoding tells apart."""
    out = []
    for row in rows:
        row = dict(row)
        roll = rng.integers(5)
        if roll == 0:
            row["tags"] = [] if row["tags"] is None else None
        elif roll == 1:
            row["tags"] = (row["tags"] or []) + [None]
        elif roll == 2:
            row["address"] = {"city": None, "zip": None} if row["address"] is None else None
        elif roll == 3:
            entries = row["attributes"] or [("k", "v")]
            row["attributes"] = entries[::-1] if len(entries) > 1 else entries + [("k2", None)]
        else:
            row["address"] = dict(row["address"] or {"city": "Oslo"}, zip=-1)
        out.append(row)
    return out


def diff_files(folder: Path, rows: int) -> tuple[Path, Path, int]:
    a = nested_table(rows, seed=11)
    rng = np.random.default_rng(12)
    count = max(1, int(rows * CHANGED_SHARE))
    picked = np.sort(rng.choice(rows, size=count + 20, replace=False))
    changed = picked[:count]  # the rest are removed
    replaced = pa.Table.from_pylist(changed_rows(a.take(changed).to_pylist(), rng), schema=a.schema)
    added = nested_table(10, seed=13, first_id=rows + 1000)
    keep = np.ones(rows, dtype=bool)
    keep[picked] = False
    b = pa.concat_tables([a.filter(pa.array(keep)), replaced, added]).sort_by("id")
    pq.write_table(a, folder / "a.parquet", row_group_size=128 * 1024)
    pq.write_table(b, folder / "b.parquet", row_group_size=128 * 1024)
    return folder / "a.parquet", folder / "b.parquet", count


def model_diff(a_path: Path, b_path: Path) -> list[tuple]:
    """The differences by a plain model: keys in one file only, and for keys in both, the
    columns whose Python values differ (for these types, equal values are equal encodings:
    a null list is not an empty one, a null struct not one of nulls, map entries in order)."""
    a, b = pq.read_table(a_path), pq.read_table(b_path)
    ids_a, ids_b = set(a["id"].to_pylist()), set(b["id"].to_pylist())
    both = pa.array(sorted(ids_a & ids_b), pa.int64())
    a = a.filter(pc.is_in(a["id"], both)).sort_by("id")
    b = b.filter(pc.is_in(b["id"], both)).sort_by("id")
    changed: dict[int, list[str]] = {}
    ids = a["id"].to_pylist()
    for name in sorted(n for n in a.column_names if n != "id"):
        for start in range(0, len(ids), 65536):
            left = a[name].slice(start, 65536).to_pylist()
            right = b[name].slice(start, 65536).to_pylist()
            for i, (x, y) in enumerate(zip(left, right)):
                if x != y:
                    changed.setdefault(ids[start + i], []).append(name)
    out = [(k, "added", None) for k in ids_b - ids_a]
    out += [(k, "removed", None) for k in ids_a - ids_b]
    out += [(k, "changed", names) for k, names in changed.items()]
    return sorted(out, key=lambda r: r[0])


DIFF_CHILD = """
import resource, sys, time
import pyarrow.parquet as pq
import batchkeccak as bk
bk.warmup()
if sys.argv[1] != "-":
    start = time.perf_counter()
    result = bk.diff(sys.argv[1], sys.argv[2], key="id")
    seconds = time.perf_counter() - start
    pq.write_table(result, sys.argv[3])
    print(seconds)
try:  # this program's peak: ru_maxrss would count the forked bench's pages before the exec
    with open("/proc/self/status") as status:
        print(next(line.split()[1] for line in status if line.startswith("VmHWM:")))
except OSError:
    print(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss)
"""


def bench_diff(rows: int) -> dict:
    with tempfile.TemporaryDirectory(prefix="bench-rows-nested-") as name:
        folder = Path(name)
        started = time.perf_counter()
        a_path, b_path, count = diff_files(folder, rows)
        written = time.perf_counter() - started
        result_path = folder / "diff.parquet"
        child = [sys.executable, "-c", DIFF_CHILD]
        load_before = os.getloadavg()
        lines = subprocess.run(
            [*child, str(a_path), str(b_path), str(result_path)],
            check=True,
            capture_output=True,
            text=True,
        ).stdout.split()
        seconds, peak_kb = float(lines[0]), int(lines[1])
        baseline_kb = int(
            subprocess.run([*child, "-"], check=True, capture_output=True, text=True).stdout
        )
        result = pq.read_table(result_path)
        got = [(r["id"], r["change"], r["changed_columns"]) for r in result.to_pylist()]
        model_start = time.perf_counter()
        expected = model_diff(a_path, b_path)
        model_seconds = time.perf_counter() - model_start
        sizes = [a_path.stat().st_size / 1e6, b_path.stat().st_size / 1e6]
    exact = got == expected
    print(
        f"\ndiff: two Parquet files of {rows:,} nested rows ({sizes[0]:.0f} and {sizes[1]:.0f} "
        f"MB; written in {written:.1f} s), {count:,} rows changed, load average "
        f"{load_before[0]:.1f}"
    )
    print(
        f"  bk.diff {seconds:.2f} s, {len(got):,} differences; peak memory of its process "
        f"{peak_kb / 1024:.0f} MiB (one that only loads batchkeccak: {baseline_kb / 1024:.0f} MiB)"
    )
    print(f"  against the plain model ({model_seconds:.1f} s): {'exact' if exact else 'DIFFERENT'}")
    if not exact:
        raise SystemExit("diff differs from the model")
    return {
        "rows": rows,
        "changed_rows": count,
        "differences": len(got),
        "file_mb": sizes,
        "diff_seconds": seconds,
        "peak_rss_mib": peak_kb / 1024,
        "baseline_rss_mib": baseline_kb / 1024,
        "exact": exact,
        "load_average": list(load_before),
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true", help="2^16 rows, 3 repeats")
    parser.add_argument("--rows", type=int, help="rows hashed (2^20)")
    parser.add_argument("--diff-rows", type=int, help="rows in each diffed file (2,000,000)")
    parser.add_argument("--repeats", type=int, help="timed repeats per figure (5)")
    parser.add_argument("--no-diff", action="store_true", help="skip the diff")
    parser.add_argument("--no-rows", action="store_true", help="skip hash_rows (diff only)")
    parser.add_argument(
        "--json",
        default=str(RESULTS / "bench_rows_nested.json"),
        help="JSON output (default bench/results/bench_rows_nested.json)",
    )
    args = parser.parse_args(argv)
    rows = args.rows or (1 << 16 if args.quick else 1 << 20)
    diff_rows = args.diff_rows or (100_000 if args.quick else 2_000_000)
    repeats = args.repeats or (3 if args.quick else 5)

    started = time.perf_counter()
    batchkeccak.warmup()
    check_rows(nested_table(4096, seed=1))
    check_rows(row_table(4096, seed=1).select(["id", "amount", "name", "score", "note"]))
    print(f"kernels ready and rows checked in {time.perf_counter() - started:.2f} s")

    figures = {}
    if not args.no_rows:
        figures["nested"] = bench_rows("Nested rows", nested_table(rows, seed=2026), repeats)
        figures["flat"] = bench_rows("Flat rows (6 columns)", row_table(rows, seed=2026), repeats)
    if not args.no_diff:
        figures["diff"] = bench_diff(diff_rows)

    output = Path(args.json)
    output.parent.mkdir(parents=True, exist_ok=True)
    output.write_text(
        json.dumps(
            {
                "machine": machine_info(),
                **figures,
                "command": " ".join([Path(sys.argv[0]).name] + (argv or sys.argv[1:])),
                "load_average_end": list(os.getloadavg()),
            },
            indent=2,
        )
    )
    print(f"\nwrote {output}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
