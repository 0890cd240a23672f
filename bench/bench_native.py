"""batchkeccak where users already work: the Polars namespace, the DuckDB functions and the
pandas accessor, each against what users of that engine would run otherwise, in one process
with interleaved repeats (best of each).

    python bench/bench_native.py [--rows-log2 22] [--pandas-rows-log2 20] [--repeats 5]

- Polars: a lazy query ``pl.col("email").bk.sha3_256()`` against polars-hash's
  ``pl.col("email").chash.sha3_256()`` on the same query, and against calling
  ``batchkeccak.arrow.hash_array`` on the Series directly;
- DuckDB: ``SELECT sha3_256(email)`` after ``batchkeccak.duckdb.register`` against DuckDB's
  own ``sha256(email)`` over the same table;
- pandas: ``series.bk.sha3_256()`` against ``series.map(lambda v: hashlib.sha3_256(v).digest())``
  over an object column of bytes (and the accessor over pandas' Arrow-backed ``str``).

The emails are ``user<i>@example.org`` (19 to 26 bytes). Every engine's digests are checked
against hashlib on a sample before timing.
"""

from __future__ import annotations

import argparse
import hashlib
import time

import batchkeccak as bk


def best_of(functions: dict, repeats: int) -> dict[str, float]:
    """Best seconds per function, the functions interleaved so load hits them alike."""
    best = {name: float("inf") for name in functions}
    for _ in range(repeats):
        for name, function in functions.items():
            start = time.perf_counter()
            function()
            best[name] = min(best[name], time.perf_counter() - start)
    return best


def polars_figures(rows: int, repeats: int) -> None:
    import polars as pl

    import batchkeccak.polars  # noqa: F401
    from batchkeccak.arrow import hash_array

    try:
        import polars_hash
    except ImportError:
        polars_hash = None
    frame = pl.DataFrame({"email": [f"user{i}@example.org" for i in range(rows)]})
    lazy = frame.lazy()
    functions = {
        "bk lazy": lambda: lazy.select(pl.col("email").bk.sha3_256()).collect(),
        "bk lazy hex": lambda: lazy.select(pl.col("email").bk.sha3_256(hex=True)).collect(),
        "bk streaming": lambda: lazy.select(pl.col("email").bk.sha3_256()).collect(
            engine="streaming"
        ),
        "hash_array(series)": lambda: hash_array(frame["email"], "sha3_256"),
    }
    if polars_hash is not None:
        functions["polars-hash lazy"] = lambda: lazy.select(
            pl.col("email").chash.sha3_256()
        ).collect()
    got = lazy.select(pl.col("email").bk.sha3_256()).collect()["email"]
    assert got[5] == hashlib.sha3_256(b"user5@example.org").digest()
    for function in functions.values():
        function()  # compile, warm caches
    best = best_of(functions, repeats)
    print(f"Polars, 2^{rows.bit_length() - 1} rows")
    for name, seconds in best.items():
        print(f"  {name:22s} {seconds:7.3f} s  {1e9 * seconds / rows:6.0f} ns/row")
    if "polars-hash lazy" in best:
        theirs = best["polars-hash lazy"]
        print(
            f"  polars-hash / bk: {theirs / best['bk lazy']:.2f}x (raw digests), "
            f"{theirs / best['bk lazy hex']:.2f}x (hex, as polars-hash returns)"
        )
    else:
        print("  polars-hash not installed (pip install polars-hash): no ratio")
    print(f"  bk lazy / hash_array direct: {best['bk lazy'] / best['hash_array(series)']:.2f}")


def duckdb_figures(rows: int, repeats: int) -> None:
    import duckdb

    import batchkeccak.duckdb

    con = duckdb.connect()
    con.execute("SET enable_progress_bar = false")
    batchkeccak.duckdb.register(con)
    con.execute(
        "CREATE TABLE t AS SELECT 'user' || i::VARCHAR || '@example.org' AS email "
        f"FROM range({rows}) r(i)"
    )
    got = con.execute("SELECT sha3_256('user5@example.org')").fetchone()[0]
    assert got == hashlib.sha3_256(b"user5@example.org").digest()
    functions = {
        "bk sha3_256(email)": lambda: con.execute(
            "SELECT count(sha3_256(email)) FROM t"
        ).fetchall(),
        "bk sha3_256_hex(email)": lambda: con.execute(
            "SELECT count(sha3_256_hex(email)) FROM t"
        ).fetchall(),
        "DuckDB sha256(email)": lambda: con.execute(
            "SELECT count(sha256(email)) FROM t"
        ).fetchall(),
    }
    for function in functions.values():
        function()
    best = best_of(functions, repeats)
    threads = con.execute("SELECT current_setting('threads')").fetchone()[0]
    print(f"DuckDB, 2^{rows.bit_length() - 1} rows, {threads} threads")
    for name, seconds in best.items():
        print(f"  {name:24s} {seconds:7.3f} s  {1e9 * seconds / rows:6.0f} ns/row")
    ratio = best["DuckDB sha256(email)"] / best["bk sha3_256(email)"]
    print(f"  bk sha3_256 vs DuckDB sha256: {ratio:.2f}x (above 1: faster; sha256 returns hex)")


def pandas_figures(rows: int, repeats: int) -> None:
    import pandas as pd

    import batchkeccak.pandas  # noqa: F401

    raw = pd.Series([f"user{i}@example.org".encode() for i in range(rows)])
    text = pd.Series([f"user{i}@example.org" for i in range(rows)], dtype="str")
    assert raw.bk.sha3_256()[5] == hashlib.sha3_256(b"user5@example.org").digest()
    functions = {
        "bk accessor (object bytes)": lambda: raw.bk.sha3_256(),
        "bk accessor (str)": lambda: text.bk.sha3_256(),
        "map(hashlib.sha3_256)": lambda: raw.map(lambda v: hashlib.sha3_256(v).digest()),
    }
    for function in functions.values():
        function()
    best = best_of(functions, repeats)
    print(f"pandas, 2^{rows.bit_length() - 1} rows")
    for name, seconds in best.items():
        print(f"  {name:28s} {seconds:7.3f} s  {1e9 * seconds / rows:6.0f} ns/row")
    loop = best["map(hashlib.sha3_256)"]
    print(
        f"  accessor vs map: {loop / best['bk accessor (object bytes)']:.1f}x (object bytes), "
        f"{loop / best['bk accessor (str)']:.1f}x (str)"
    )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rows-log2", type=int, default=22, help="Polars and DuckDB rows")
    parser.add_argument("--pandas-rows-log2", type=int, default=20)
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--only", choices=("polars", "duckdb", "pandas"), action="append")
    args = parser.parse_args(argv)
    only = set(args.only or ("polars", "duckdb", "pandas"))
    bk.warmup()  # measure the kernels' speed, not their load
    if "polars" in only:
        polars_figures(1 << args.rows_log2, args.repeats)
    if "duckdb" in only:
        duckdb_figures(1 << args.rows_log2, args.repeats)
    if "pandas" in only:
        pandas_figures(1 << args.pandas_rows_log2, args.repeats)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
