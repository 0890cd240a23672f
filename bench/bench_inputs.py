"""Every input form against the same bytes as a 2-D array, in one process, on 1 and 2 threads.

    python bench/bench_inputs.py [--repeats 5] [--threads 1 2] [--only list,pandas,text]

- ``list``: ``hash_many(list of bytes)`` time over ``hash_many(2-D array)`` of the same bytes,
  for 2^20 x 32 B, 65,536 x 1 KiB, 4,096 x 16 KiB and 64 x 1 MiB (the issue's sizes);
- ``pandas``: an object column of 2^20 strings of 20-40 B through ``series.bk.sha3_256()``
  against ``series.map(lambda s: hashlib.sha3_256(s.encode()).digest())``;
- ``text``: 2^20 ``str`` of 32 B against the same data as ``bytes``, through the entry points
  that take text (the pandas accessor, ``ethereum.selectors`` against the same bytes as a
  2-D array, ``checksum_addresses`` of hex text against the 20-byte rows).
- ``polars`` (only when asked: ``--only polars``): a Polars ``Binary`` Series of 64 x 1 MiB
  and 2^20 x 32 B through ``series.bk.hash`` (sha3_256, kt128) against ``hash_many`` of the
  same bytes as a 2-D array, and against the accessor's former path, Polars' default export
  (a copy into ``large_binary``) then ``hash_array``, the digests cast to ``binary``.
- ``views`` (only when asked): view arrays of 32 B to 1 KiB values scattered over 3
  buffers, read in place, copied by the compiled pass, or cast by Arrow, then hashed.

Digests are checked against hashlib on a sample first (and ``checksum_addresses`` of the hex
text against the 20-byte rows). The best of ``--repeats`` interleaved
runs is reported, with the best process CPU time (all threads added up) where the machine is
shared; note the load printed with each figure.
"""

from __future__ import annotations

import argparse
import hashlib
import os
import time

import numpy as np

import batchkeccak as bk

CPU: dict[str, float] = {}
"""The best process CPU time of each function of the last ``best_of`` (every thread's time
added up): on a shared machine it moves less with the neighbours' load than the wall time."""


def best_of(functions: dict, repeats: int) -> dict[str, float]:
    """Best wall seconds per function, the functions interleaved so load hits them alike."""
    best = {name: float("inf") for name in functions}
    CPU.clear()
    for _ in range(repeats):
        for name, function in functions.items():
            start, cpu = time.perf_counter(), time.process_time()
            function()
            best[name] = min(best[name], time.perf_counter() - start)
            CPU[name] = min(CPU.get(name, float("inf")), time.process_time() - cpu)
    return best


def load() -> str:
    return " ".join(f"{value:.2f}" for value in os.getloadavg())


SIZES = [(1 << 20, 32), (1 << 16, 1024), (1 << 12, 16384), (64, 1 << 20)]


def list_figures(repeats: int, threads: list[int]) -> None:
    print("hash_many(list) / hash_many(2-D array), sha3_256")
    print(
        "| messages | threads | array ms | list ms | tuple ms | list/array "
        "| CPU ms: array, list | CPU list/array | load |"
    )
    print("|---|---|---|---|---|---|---|---|---|")
    rng = np.random.default_rng(1)
    for count, size in SIZES:
        rows = rng.integers(0, 256, (count, size), dtype=np.uint8)
        messages = [row.tobytes() for row in rows]
        sample = bk.hash_many(messages[:3], "sha3_256")
        assert [r.tobytes() for r in sample] == [hashlib.sha3_256(m).digest() for m in messages[:3]]
        as_tuple = tuple(messages)
        for t in threads:
            got = best_of(
                {
                    "array": lambda t=t, m=rows: bk.hash_many(m, "sha3_256", threads=t),
                    "list": lambda t=t, m=messages: bk.hash_many(m, "sha3_256", threads=t),
                    "tuple": lambda t=t, m=as_tuple: bk.hash_many(m, "sha3_256", threads=t),
                },
                repeats,
            )
            print(
                f"| {count} x {size} B | {t} | {got['array'] * 1e3:.1f} | "
                f"{got['list'] * 1e3:.1f} | {got['tuple'] * 1e3:.1f} | "
                f"{got['list'] / got['array']:.2f}x | {CPU['array'] * 1e3:.1f}, "
                f"{CPU['list'] * 1e3:.1f} | {CPU['list'] / CPU['array']:.2f}x | {load()} |"
            )
        del rows, messages, as_tuple


def pandas_figures(repeats: int, threads: list[int]) -> None:
    import pandas as pd

    import batchkeccak.pandas  # noqa: F401

    count = 1 << 20
    rng = np.random.default_rng(2)
    lengths = rng.integers(20, 41, count)
    texts = [f"user{i}@example.org".ljust(int(n), "x")[: int(n)] for i, n in enumerate(lengths)]
    series = pd.Series(texts, dtype=object)
    as_bytes = pd.Series([t.encode() for t in texts], dtype=object)
    got = series.bk.sha3_256()
    assert got.iloc[5] == hashlib.sha3_256(texts[5].encode()).digest()
    print("\npandas object column of 2^20 str of 20-40 B, sha3_256")
    print(
        "| threads | map(hashlib) ms | bk str ms | bk bytes ms | speedup (str) "
        "| CPU ms: hashlib, str | CPU speedup | load |"
    )
    print("|---|---|---|---|---|---|---|---|")
    for t in threads:
        best = best_of(
            {
                "hashlib": lambda: series.map(lambda s: hashlib.sha3_256(s.encode()).digest()),
                "str": lambda t=t: series.bk.sha3_256(threads=t),
                "bytes": lambda t=t: as_bytes.bk.sha3_256(threads=t),
            },
            repeats,
        )
        print(
            f"| {t} | {best['hashlib'] * 1e3:.1f} | {best['str'] * 1e3:.1f} | "
            f"{best['bytes'] * 1e3:.1f} | {best['hashlib'] / best['str']:.1f}x | "
            f"{CPU['hashlib'] * 1e3:.1f}, {CPU['str'] * 1e3:.1f} | "
            f"{CPU['hashlib'] / CPU['str']:.1f}x | {load()} |"
        )


POLARS_SIZES = [(64, 1 << 20), (1 << 20, 32)]
POLARS_MODES = [("sha3_256", {}), ("kt128", {"length": 32})]


def polars_figures(repeats: int, threads: list[int]) -> None:
    """A Polars ``Binary`` Series (Arrow ``binary_view`` inside) through the accessor,
    against ``hash_many`` of the same bytes as a 2-D array, and the accessor's former path
    (``hash_array(series.to_arrow())``: Polars' default export copies the views into
    ``large_binary``; the digests cast to ``binary``, which Polars copies into views)."""
    import polars as pl
    import pyarrow as pa

    import batchkeccak.polars  # noqa: F401
    from batchkeccak.arrow import hash_array

    print("\nPolars Binary Series: series.bk.hash / hash_many(2-D array) of the same bytes")
    print(
        "| messages | mode | threads | array ms | accessor ms | copy ms | CPU ms: array, "
        "accessor, copy | CPU accessor/array | CPU copy/array | load |"
    )
    print("|---|---|---|---|---|---|---|---|---|---|")
    rng = np.random.default_rng(3)
    for count, size in POLARS_SIZES:
        rows = rng.integers(0, 256, (count, size), dtype=np.uint8)
        series = pl.Series("v", [row.tobytes() for row in rows], dtype=pl.Binary)
        for name, params in POLARS_MODES:
            want = bk.hash_many(rows[:3], name, **params)
            got = series.head(3).bk.hash(name, **params).to_list()
            assert got == [r.tobytes() for r in want], name
            if name == "sha3_256":
                assert got[0] == hashlib.sha3_256(rows[0].tobytes()).digest()
            for t in threads:
                best = best_of(
                    {
                        "array": lambda t=t, n=name, p=params, r=rows: bk.hash_many(
                            r, n, threads=t, **p
                        ),
                        "accessor": lambda t=t, n=name, p=params, s=series: s.bk.hash(
                            n, threads=t, **p
                        ),
                        "copy": lambda t=t, n=name, p=params, s=series: pl.Series(
                            "v", hash_array(s.to_arrow(), n, threads=t, **p).cast(pa.binary())
                        ),
                    },
                    repeats,
                )
                print(
                    f"| {count} x {size} B | {name} | {t} | {best['array'] * 1e3:.1f} | "
                    f"{best['accessor'] * 1e3:.1f} | {best['copy'] * 1e3:.1f} | "
                    f"{CPU['array'] * 1e3:.1f}, {CPU['accessor'] * 1e3:.1f}, "
                    f"{CPU['copy'] * 1e3:.1f} | {CPU['accessor'] / CPU['array']:.2f}x | "
                    f"{CPU['copy'] / CPU['array']:.2f}x | {load()} |"
                )
        del rows, series


def scattered_views(rows: np.ndarray, buffers: int = 3):
    """A ``binary_view`` array of the equal rows (over 12 bytes each) dealt round-robin over
    ``buffers`` data buffers, so that no two neighbours lie back to back."""
    import pyarrow as pa

    count, size = rows.shape
    index = np.arange(count)
    views = np.zeros((count, 4), dtype=np.int32)
    views[:, 0] = size
    views[:, 1] = np.ascontiguousarray(rows[:, :4]).view("<i4")[:, 0]
    views[:, 2] = index % buffers
    views[:, 3] = (index // buffers) * size
    data = [pa.py_buffer(np.ascontiguousarray(rows[k::buffers])) for k in range(buffers)]
    return pa.Array.from_buffers(pa.binary_view(), count, [None, pa.py_buffer(views), *data])


def views_figures(repeats: int, threads: list[int]) -> None:
    """Scattered view arrays (values over 3 buffers, no runs), 24 MiB a size, one thread:
    read in place (``hash_places``), copied back to back by the compiled pass, or cast by
    Arrow to ``large_binary`` and hashed: where in place starts to pay."""
    import pyarrow as pa
    import pyarrow.compute as pc

    from batchkeccak.core.hashers import hash_places
    from batchkeccak.inputs.arrow_views import ViewValues

    h = bk.hasher("sha3_256", threads=1)
    print("\nScattered view arrays, 24 MiB, sha3_256, 1 thread, process CPU ms")
    print("| values | in place | copied | Arrow's cast | load |")
    print("|---|---|---|---|---|")
    rng = np.random.default_rng(4)
    for size in (32, 64, 96, 128, 256, 1024):
        rows = rng.integers(0, 256, ((24 << 20) // size, size), dtype=np.uint8)
        array = scattered_views(rows)
        want = hashlib.sha3_256(rows[1].tobytes()).digest()
        assert bk.hash_many(array[:3], "sha3_256")[1].tobytes() == want

        def in_place(a=array):
            hash_places(h, *ViewValues(a, "values").spans())

        def copied(a=array):
            data, offsets, equal = ViewValues(a, "values").flat()
            h.hash_flat(data, offsets, equal_lengths=equal)

        def cast(a=array):
            plain = pc.cast(a, pa.large_binary())
            offsets = np.frombuffer(plain.buffers()[1], dtype=np.int64)
            h.hash_flat(np.frombuffer(plain.buffers()[2], dtype=np.uint8), offsets)

        best_of({"in place": in_place, "copied": copied, "cast": cast}, repeats)
        print(
            f"| {rows.shape[0]} x {size} B | {CPU['in place'] * 1e3:.1f} | "
            f"{CPU['copied'] * 1e3:.1f} | {CPU['cast'] * 1e3:.1f} | {load()} |"
        )


def text_figures(repeats: int, threads: list[int]) -> None:
    import pandas as pd

    import batchkeccak.pandas  # noqa: F401
    from batchkeccak import ethereum

    count = 1 << 20
    texts = [f"t{i:022d}(uint256)" for i in range(count)]  # 32 B, canonical
    raw = [t.encode() for t in texts]
    series, series_bytes = pd.Series(texts, dtype=object), pd.Series(raw, dtype=object)
    print("\n2^20 str of 32 B against the same data as bytes, keccak_256 / sha3_256")
    print("| entry point | threads | str ms | bytes ms | str/bytes | CPU str/bytes | load |")
    print("|---|---|---|---|---|---|---|")
    for t in threads:
        best = best_of(
            {
                "pandas str": lambda t=t: series.bk.sha3_256(threads=t),
                "pandas bytes": lambda t=t: series_bytes.bk.sha3_256(threads=t),
            },
            repeats,
        )
        print(
            f"| pandas accessor | {t} | {best['pandas str'] * 1e3:.1f} | "
            f"{best['pandas bytes'] * 1e3:.1f} | "
            f"{best['pandas str'] / best['pandas bytes']:.2f}x | "
            f"{CPU['pandas str'] / CPU['pandas bytes']:.2f}x | {load()} |"
        )
    rows = np.frombuffer("".join(texts).encode(), dtype=np.uint8).reshape(count, 32)
    best = best_of(
        {
            "str": lambda: ethereum.selectors(texts),
            "bytes": lambda: ethereum.selectors(rows),
        },
        repeats,
    )
    print(
        f"| ethereum.selectors (str list / 2-D uint8) | all | {best['str'] * 1e3:.1f} | "
        f"{best['bytes'] * 1e3:.1f} | {best['str'] / best['bytes']:.2f}x | "
        f"{CPU['str'] / CPU['bytes']:.2f}x | {load()} |"
    )
    rng = np.random.default_rng(3)
    raw = rng.integers(0, 256, (count, 20), dtype=np.uint8)
    hexes = ["0x" + row.tobytes().hex() for row in raw]
    assert ethereum.checksum_addresses(hexes[:100]) == ethereum.checksum_addresses(raw[:100])
    best = best_of(
        {
            "str": lambda: ethereum.checksum_addresses(hexes),
            "bytes": lambda: ethereum.checksum_addresses(raw),
        },
        repeats,
    )
    print(
        f"| checksum_addresses (hex str list / (N, 20) uint8) | all | {best['str'] * 1e3:.1f} | "
        f"{best['bytes'] * 1e3:.1f} | {best['str'] / best['bytes']:.2f}x | "
        f"{CPU['str'] / CPU['bytes']:.2f}x | {load()} |"
    )


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--threads", type=int, nargs="+", default=[1, 2])
    parser.add_argument("--only", default="list,pandas,text")
    args = parser.parse_args(argv)
    bk.warmup()
    parts = set(args.only.split(","))
    if "list" in parts:
        list_figures(args.repeats, args.threads)
    if "pandas" in parts:
        pandas_figures(args.repeats, args.threads)
    if "text" in parts:
        text_figures(args.repeats, args.threads)
    if "polars" in parts:
        polars_figures(args.repeats, args.threads)
    if "views" in parts:
        views_figures(args.repeats, args.threads)


if __name__ == "__main__":
    main()
