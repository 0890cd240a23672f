"""The modes against the loops and libraries they replace, ratios taken in one process.

    python bench/bench_modes.py [--quick] [--repeats N] [--modes [--entries E,...] | --trees]

- KT128 of one large message (256 MiB; 32 MiB with --quick): batchkeccak on 1 thread and on
  every thread, against pycryptodome's KangarooTwelve and hashlib's shake_128 of the same
  bytes; then the same bytes from a file (what ``batchkeccak hash -a kt128`` does): read in
  pieces, and memory-mapped by the caller, against read + pycryptodome and
  ``hashlib.file_digest``.
- KMAC-256 and HMAC-SHA3-256 of 2^20 x 64-byte records with one key, every thread, against a
  pycryptodome KMAC256 loop and an ``hmac.digest(key, m, "sha3_256")`` loop. The loops run
  over the first 2^17 records and are scaled to the whole batch (per-record cost is flat).
- The modes against their own sponge at the same rate, one thread (``--modes``): kmac_256 /
  sha3_256, tuplehash_128 / shake_128, cshake_128 / shake_128, hmac_sha3_256 / sha3_256,
  for 2^20 x 32 B (2^18 with --quick) and 16 x 4 MiB, from every entry point
  (``--entries``, default all): ``hash_many`` (a 2-D array), ``hash_files`` (16 files),
  the CLI in process (``hash -a NAME``: 16 files, and ``--lines`` over a file of 2^20
  lines of 32 letters; every core, as it runs), the pandas and Polars accessors
  (``series.bk.hash``, a column of ``bytes``), SQL (DuckDB, ``SET threads = 1``, the key
  registered by name) and ``new()`` objects (2^16 x 32 B, and 1 MiB updates); each mode's
  CPU time per message or per byte beside the sponge's, and the ratios of wall and of
  process CPU time, the two timed alternately in one process. An entry point that does not
  take the mode (TupleHash has no incremental form) prints why.
- The tree modes (``--trees``): KT128 and ParallelHash-128 over 64 MiB (16 MiB with
  --quick) from ``hash_many`` (one message, four in a list, four rows), ``hash_files``,
  ``new()``, the CLI, the pandas and Polars accessors and SQL, against the one-message
  function on the same bytes, 1 and 2 threads, wall and CPU ratios.
- The keyed Parquet path: a 1M-row e-mail column (2^18 with --quick) through
  ``batchkeccak.parquet.hash_file`` with kmac_256 against the same file with sha3_256.

Every figure is the best of ``--repeats`` runs; the first, compiling call is not timed.
"""

from __future__ import annotations

import argparse
import hashlib
import hmac
import importlib
import os
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import batchkeccak as bk
from batchkeccak.core import parallel

KEY = bytes(range(32))


def best(function, repeats):
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        function()
        times.append(time.perf_counter() - start)
    return min(times)


def row(label, seconds, reference, reference_label):
    print(f"  {label:<46} {seconds * 1e3:9.1f} ms   {reference / seconds:6.2f}x {reference_label}")


def bench_kt128(size, repeats):
    from Crypto.Hash import KangarooTwelve

    data = np.random.default_rng(1).bytes(size)
    assert bk.kt128(data) == KangarooTwelve.new(data=data).read(32)
    print(f"KT128 of one {size >> 20} MiB message ({parallel.available_cores()} cores)")
    theirs = best(lambda: KangarooTwelve.new(data=data).read(32), repeats)
    shake = best(lambda: hashlib.shake_128(data).digest(32), repeats)
    print(f"  {'pycryptodome KangarooTwelve':<46} {theirs * 1e3:9.1f} ms")
    print(f"  {'hashlib shake_128':<46} {shake * 1e3:9.1f} ms")
    for threads in (1, None):
        ours = best(lambda threads=threads: bk.kt128(data, threads=threads), repeats)
        label = f"bk.kt128, threads={threads or 'all'}"
        row(label, ours, theirs, "pycryptodome")
        row("", ours, shake, "hashlib shake_128")
    with tempfile.TemporaryDirectory() as folder:
        path = os.path.join(folder, "message.bin")
        with open(path, "wb") as handle:
            handle.write(data)

        def read_then_pycryptodome():
            with open(path, "rb") as handle:
                return KangarooTwelve.new(data=handle.read()).read(32)

        def file_object():
            with open(path, "rb") as handle:
                return bk.kt128(handle)

        print("  the same bytes from a file (page cache), every thread:")
        theirs_file = best(read_then_pycryptodome, repeats)

        def read_then_shake():
            with open(path, "rb") as handle:
                return hashlib.file_digest(handle, "shake_128").digest(32)

        shake_file = best(read_then_shake, repeats)

        def mapped():
            return bk.kt128(np.memmap(path, dtype=np.uint8, mode="r"))

        for label, function in (
            ("bk.kt128(open(path, 'rb')), read in pieces", file_object),
            ("bk.kt128(path), read in pieces", lambda: bk.kt128(path)),
            ("bk.kt128(np.memmap(path)), mapped by the caller", mapped),
        ):
            ours = best(function, repeats)
            row(label, ours, theirs_file, "read + pycryptodome")
            row("", ours, shake_file, "hashlib.file_digest shake_128")


def bench_keyed(count, repeats):
    from Crypto.Hash import KMAC256

    records = np.random.default_rng(2).integers(0, 256, (count, 64), dtype=np.uint8)
    sample = [bytes(r) for r in records[: min(count, 1 << 17)]]
    scale = count / len(sample)
    kmac = bk.hasher("kmac_256", key=KEY, length=32)
    hmac_sha3 = bk.hasher("hmac_sha3_256", key=KEY)
    assert (
        bk.hash_many(sample[:3], kmac)[2].tobytes()
        == KMAC256.new(key=KEY, data=sample[2], mac_len=32).digest()
    )
    assert bk.hash_many(sample[:3], hmac_sha3)[2].tobytes() == hmac.digest(
        KEY, sample[2], "sha3_256"
    )
    print(f"KMAC-256 / HMAC-SHA3-256 of {count:,} x 64 B, one key, every thread")
    kmac_loop = (
        best(
            lambda: [KMAC256.new(key=KEY, data=m, mac_len=32).digest() for m in sample],
            max(1, repeats // 2),
        )
        * scale
    )
    hmac_loop = (
        best(lambda: [hmac.digest(KEY, m, "sha3_256") for m in sample], max(1, repeats // 2))
        * scale
    )
    print(f"  {'pycryptodome KMAC256 loop':<46} {kmac_loop * 1e3:9.1f} ms")
    print(f"  {'hmac.digest(key, m, sha3_256) loop':<46} {hmac_loop * 1e3:9.1f} ms")
    for label, form in (("2-D array", records), ("list of bytes", [bytes(r) for r in records])):
        row(
            f"kmac_256, {label}",
            best(lambda form=form: bk.hash_many(form, kmac), repeats),
            kmac_loop,
            "pycryptodome KMAC",
        )
        row(
            f"hmac_sha3_256, {label}",
            best(lambda form=form: bk.hash_many(form, hmac_sha3), repeats),
            hmac_loop,
            "hmac loop",
        )


def bench_parquet(rows, repeats):
    import pyarrow as pa
    import pyarrow.parquet as pq

    from batchkeccak.parquet import hash_file

    rng = np.random.default_rng(3)
    names = rng.integers(0, 26, (rows, 12), dtype=np.uint8) + ord("a")
    emails = [bytes(n[: 5 + i % 8]).decode() + "@example.org" for i, n in enumerate(names)]
    with tempfile.TemporaryDirectory() as folder:
        src = os.path.join(folder, "emails.parquet")
        dst = os.path.join(folder, "out.parquet")
        pq.write_table(pa.table({"email": emails}), src)
        print(f"Parquet: a {rows:,}-row e-mail column, hash_file, every thread")
        plain = best(lambda: hash_file(src, dst, "email", "sha3_256"), repeats)
        keyed = best(lambda: hash_file(src, dst, "email", "kmac_256", key=KEY, length=32), repeats)
        print(f"  {'sha3_256 (unkeyed)':<46} {plain * 1e3:9.1f} ms")
        print(
            f"  {'kmac_256 (keyed)':<46} {keyed * 1e3:9.1f} ms   {keyed / plain:6.2f}x the time of sha3_256"
        )


MODE_PAIRS = (
    # (mode, hasher parameters, CLI options, SQL call), then the same for its sponge at the
    # same rate; "{v}" is the SQL column, the key is registered as 'k'.
    (
        ("kmac_256", {"key": KEY, "length": 32}, ["--length", "32"], "kmac_256({v}, 'k', 32)"),
        ("sha3_256", {}, [], "sha3_256({v})"),
    ),
    (
        ("tuplehash_128", {"length": 32}, ["--length", "32"], "tuplehash_128({v}, 32)"),
        ("shake_128", {"length": 32}, ["--length", "32"], "shake_128({v}, 32)"),
    ),
    (
        (
            "cshake_128",
            {"length": 32, "customization": b"c"},
            ["--length", "32", "--customization", "c"],
            "cshake_128({v}, 32, 'c')",
        ),
        ("shake_128", {"length": 32}, ["--length", "32"], "shake_128({v}, 32)"),
    ),
    (
        ("hmac_sha3_256", {"key": KEY}, [], "hmac_sha3_256({v}, 'k')"),
        ("sha3_256", {}, [], "sha3_256({v})"),
    ),
)

ENTRY_POINTS = ("hash_many", "hash_files", "cli", "pandas", "polars", "sql", "new")
"""The entry points of ``--modes``, in table order (``--entries`` picks some)."""


def alternate(first, second, repeats):
    """Best times of two functions timed alternately (a load on the machine hits both)."""
    a, b = [], []
    for _ in range(repeats):
        a.append(best(first, 1))
        b.append(best(second, 1))
    return min(a), min(b)


def alternate_cpu(first, second, repeats):
    """``alternate`` with the CPU time of this process too (every thread it runs, DuckDB's
    included): ``(wall_a, wall_b, cpu_a, cpu_b)``, each the best of ``repeats``. CPU time
    is what other work on a shared machine moves least."""
    wall_a, wall_b, cpu_a, cpu_b = [], [], [], []
    for _ in range(repeats):
        for function, wall, cpu in ((first, wall_a, cpu_a), (second, wall_b, cpu_b)):
            c, w = time.process_time(), time.perf_counter()
            function()
            wall.append(time.perf_counter() - w)
            cpu.append(time.process_time() - c)
    return min(wall_a), min(wall_b), min(cpu_a), min(cpu_b)


def _entry_runners(folder, small, big, small_lines_path, big_paths, small_objects):
    """``{entry point: {size label: (units, unit, make_run)}}``: ``make_run(side)`` returns
    the function that hashes that size from that entry point with ``side``, one of a
    ``MODE_PAIRS`` side; None where the entry point takes no such input."""
    import contextlib
    import io

    import duckdb
    import pandas as pd
    import polars as pl
    import pyarrow as pa

    import batchkeccak.duckdb as bk_duckdb
    from batchkeccak import cli

    for module in ("batchkeccak.pandas", "batchkeccak.polars"):  # register the accessors
        importlib.import_module(module)

    small_list = [bytes(r) for r in small]
    big_list = [bytes(r) for r in big]
    small_label, big_label = f"{small.shape[0]} x 32 B", "16 x 4 MiB"
    sizes = {small_label: (small, small_list), big_label: (big, big_list)}
    connection = duckdb.connect()
    connection.execute("SET threads = 1")
    bk_duckdb.register(connection, keys={"k": KEY})
    for label, (_, values) in sizes.items():
        table = pa.table({"v": pa.array(values, pa.binary())})
        connection.register("small" if label == small_label else "big", table)
    key_path = os.path.join(folder, "key")
    Path(key_path).write_bytes(KEY)

    def hasher_of(side):
        return bk.hasher(side[0], threads=1, **side[1])

    def many(rows):
        def make(side):
            h = hasher_of(side)
            return lambda: bk.hash_many(rows, h)

        return make

    def files(side):
        h = hasher_of(side)
        return lambda: bk.hash_files(big_paths, h)

    def command(arguments):
        def make(side):
            key = ["--key-file", key_path] if "key" in side[1] else []
            argv = ["hash", "-a", side[0], *side[2], *key, *arguments]

            def run():
                with contextlib.redirect_stdout(io.StringIO()):
                    assert cli.main(argv) == 0, argv

            return run

        return make

    def series(values, kind):
        column = pd.Series(values, dtype=object) if kind == "pandas" else pl.Series(values)
        return lambda side: (
            lambda: column.bk.hash(side[0], threads=1, **side[1])  # type: ignore[union-attr]
        )

    def sql(table):
        def make(side):
            query = f"SELECT {side[3].format(v='v')} FROM {table}"
            return lambda: connection.sql(query).to_arrow_table()

        return make

    def objects(messages, piece):
        def make(side):
            def run():
                for message in messages:
                    h = bk.new(side[0], **side[1])
                    view = memoryview(message)
                    for at in range(0, len(view), piece):
                        h.update(view[at : at + piece])
                    h.digest()

            return run

        return make

    return {
        "hash_many": {
            small_label: (small.shape[0], "ns/msg", many(small)),
            big_label: (big.size, "ns/B", many(big)),
        },
        "hash_files": {big_label: (big.size, "ns/B", files)},
        "cli": {
            f"{small.shape[0]} lines": (
                small.shape[0],
                "ns/msg",
                command(["--lines", small_lines_path]),
            ),
            big_label: (big.size, "ns/B", command(big_paths)),
        },
        "pandas": {
            small_label: (small.shape[0], "ns/msg", series(small_list, "pandas")),
            big_label: (big.size, "ns/B", series(big_list, "pandas")),
        },
        "polars": {
            small_label: (small.shape[0], "ns/msg", series(small_list, "polars")),
            big_label: (big.size, "ns/B", series(big_list, "polars")),
        },
        "sql": {
            small_label: (small.shape[0], "ns/msg", sql("small")),
            big_label: (big.size, "ns/B", sql("big")),
        },
        "new": {
            f"{len(small_objects)} x 32 B": (
                len(small_objects),
                "ns/msg",
                objects(small_objects, 32),
            ),
            big_label: (big.size, "ns/B", objects(big_list, 1 << 20)),
        },
    }


def bench_modes_against_sponges(small_count, repeats, entries=ENTRY_POINTS):
    """Each mode against its sponge at the same rate, from every entry point, one thread
    (the CLI: every core, as it runs; SQL: DuckDB ``SET threads = 1``)."""
    import platform

    rng = np.random.default_rng(4)
    small = rng.integers(0, 256, (small_count, 32), dtype=np.uint8)
    big = rng.integers(0, 256, (16, 4 << 20), dtype=np.uint8)
    # The CLI's --lines input: 32 letters a line, no line ending inside.
    letters = (rng.integers(0, 26, (small_count, 32), dtype=np.uint8) + ord("a")).tobytes()
    lines = np.frombuffer(letters, dtype=np.uint8).reshape(small_count, 32)
    small_objects = [bytes(r) for r in small[: 1 << 16]]
    print(
        f"Modes against their sponge, one thread ({platform.processor() or platform.machine()},"
        f" load {os.getloadavg()[0]:.1f}); wall and process CPU time, best of {repeats}"
    )
    print(
        f"  {'mode':<14} {'entry point':<11} {'size':<14} {'mode':>8} {'sponge':>8} {'unit':<7}"
        f"{'wall':>6} {'CPU':>6}"
    )
    with tempfile.TemporaryDirectory() as folder:
        paths = []
        for i, message in enumerate(big):
            paths.append(os.path.join(folder, f"{i}.bin"))
            message.tofile(paths[-1])
        lines_path = os.path.join(folder, "lines.txt")
        with open(lines_path, "wb") as handle:
            handle.write(b"\n".join(bytes(r) for r in lines) + b"\n")
        runners = _entry_runners(folder, small, big, lines_path, paths, small_objects)
        for ours, theirs in MODE_PAIRS:
            for entry in entries:
                for size, (units, unit, make) in runners[entry].items():
                    try:
                        first, second = make(ours), make(theirs)
                        first(), second()
                    except (TypeError, ValueError, AssertionError) as error:
                        print(f"  {ours[0]:<14} {entry:<11} {size:<14} n/a: {error}"[:100])
                        continue
                    wall_a, wall_b, cpu_a, cpu_b = alternate_cpu(first, second, repeats)
                    print(
                        f"  {ours[0]:<14} {entry:<11} {size:<14} {cpu_a / units * 1e9:8.2f} "
                        f"{cpu_b / units * 1e9:8.2f} {unit:<7}{wall_a / wall_b:5.2f}x "
                        f"{cpu_a / cpu_b:5.2f}x {theirs[0]}"
                    )
        print(f"  (load {os.getloadavg()[0]:.1f} at the end; per-unit figures are CPU time)")


def bench_trees(size, repeats):
    """KT128 and ParallelHash-128 from every entry point against the one-message function
    (``bk.kt128`` / ``bk.parallelhash_128``) on the same bytes, timed alternately."""
    import contextlib
    import io

    from batchkeccak import cli

    rng = np.random.default_rng(5)
    one = rng.bytes(size)
    quarters = [one[i * (size >> 2) : (i + 1) * (size >> 2)] for i in range(4)]
    rows = np.frombuffer(one, dtype=np.uint8).reshape(4, -1)
    import duckdb
    import pandas as pd
    import polars as pl
    import pyarrow as pa

    import batchkeccak.duckdb as bk_duckdb

    for module in ("batchkeccak.pandas", "batchkeccak.polars"):  # register the accessors
        importlib.import_module(module)
    column = pd.Series(quarters, dtype=object)
    polars_column = pl.Series(quarters)
    print(f"Tree modes over {size >> 20} MiB (load {os.getloadavg()[0]:.1f})")
    print(
        f"  {'mode':<17} {'threads':<8} {'entry point':<28} {'ns/B':>8} {'reference':>10} "
        "wall   CPU (ns/B: CPU time)"
    )
    with tempfile.TemporaryDirectory() as folder:
        paths = []
        for i, quarter in enumerate(quarters):
            paths.append(os.path.join(folder, f"{i}.bin"))
            Path(paths[-1]).write_bytes(quarter)

        def objects(name, **kwargs):
            h = bk.new(name, **kwargs)
            view = memoryview(one)
            for at in range(0, len(view), 1 << 20):
                h.update(view[at : at + (1 << 20)])
            return h.digest()

        def command(name):
            with contextlib.redirect_stdout(io.StringIO()):
                assert cli.main(["hash", "-a", name, *paths]) == 0

        for name, function, params in (
            ("kt128", bk.kt128, {}),
            ("parallelhash_128", bk.parallelhash_128, {"block_size": 8192}),
        ):
            for threads in (1, 2):
                h = bk.hasher(name, length=32, threads=threads, **params)
                cases = [
                    ("hash_many([1 message])", lambda h=h: bk.hash_many([one], h)),
                    ("hash_many(4 messages)", lambda h=h: bk.hash_many(quarters, h)),
                    ("hash_many(4 rows, 2-D array)", lambda h=h: bk.hash_many(rows, h)),
                    ("hash_files(4 files)", lambda h=h: bk.hash_files(paths, h)),
                ]
                if threads == 1:  # a hash object runs on the calling thread
                    cases.append(
                        (
                            "new(), 1 MiB updates",
                            lambda n=name, p=params: objects(n, length=32, **p),
                        )
                    )
                if name == "kt128" and threads == parallel.available_cores():
                    cases.append(("cli hash -a (4 files)", lambda: command("kt128")))
                connection = duckdb.connect()
                connection.execute(f"SET threads = {threads}")
                bk_duckdb.register(connection)
                connection.register("quarters", pa.table({"v": pa.array(quarters, pa.binary())}))
                sql_call = f"{name}(v, 32)" if name == "kt128" else None
                cases += [
                    ("pandas .bk.hash (4 values)", lambda h=h: column.bk.hash(h)),
                    ("polars .bk.hash (4 values)", lambda h=h: polars_column.bk.hash(h)),
                ]
                if sql_call is not None:  # SQL's parallelhash takes no block size
                    query = f"SELECT {sql_call} FROM quarters"
                    cases.append(
                        (
                            "sql (4 values)",
                            lambda c=connection, q=query: c.sql(q).to_arrow_table(),
                        )
                    )
                reference = lambda f=function, t=threads, p=params: f(one, threads=t, **p)
                for entry, run in cases:
                    run(), reference()
                    wall_a, wall_b, cpu_a, cpu_b = alternate_cpu(run, reference, repeats)
                    print(
                        f"  {name:<17} {threads:<8} {entry:<28} {cpu_a / size * 1e9:8.3f} "
                        f"{cpu_b / size * 1e9:10.3f} {wall_a / wall_b:5.2f}x {cpu_a / cpu_b:5.2f}x"
                    )
    print(f"  (load {os.getloadavg()[0]:.1f} at the end)")


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true")
    parser.add_argument("--repeats", type=int, default=None)
    parser.add_argument("--modes", action="store_true", help="only the modes against sponges")
    parser.add_argument(
        "--entries",
        default=",".join(ENTRY_POINTS),
        help=f"with --modes: the entry points, comma-separated (default {','.join(ENTRY_POINTS)})",
    )
    parser.add_argument(
        "--trees", action="store_true", help="only KT128 / ParallelHash per entry point"
    )
    args = parser.parse_args(argv)
    repeats = args.repeats or (3 if args.quick else 5)
    bk.warmup()
    if args.trees:
        bench_trees((16 if args.quick else 64) << 20, repeats)
        return 0
    if args.modes:
        entries = [e for e in args.entries.split(",") if e]
        unknown = sorted(set(entries) - set(ENTRY_POINTS))
        if unknown:
            parser.error(f"--entries: unknown entry points {unknown}")
        bench_modes_against_sponges(1 << (18 if args.quick else 20), repeats, entries)
        return 0
    bk.hash_many([b"x"], "kmac_256", key=KEY, length=32)
    bk.kt128(b"x" * 20000)
    bench_kt128((32 if args.quick else 256) << 20, repeats)
    bench_keyed(1 << (18 if args.quick else 20), repeats)
    bench_parquet(1 << 18 if args.quick else 1_000_000, repeats)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
