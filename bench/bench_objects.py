"""Hash objects: ``update`` calls of one size, against hashlib and pycryptodome in this process.

Per call (microseconds) and per byte (MB/s), best of ``--repeats``; the ratio is
batchkeccak's time over the other's (below 1: batchkeccak is faster)::

    python bench/bench_objects.py
    python bench/bench_objects.py --repeats 7 --bytes 64000000

Every digest is checked against the others before anything is timed.
"""

from __future__ import annotations

import argparse
import hashlib
import time

from Crypto.Hash import SHA3_256, keccak

import batchkeccak as bk

SIZES = (16, 128, 4096, 1 << 20)


def contenders(algorithm: str):
    if algorithm == "sha3_256":
        return {
            "batchkeccak": bk.sha3_256,
            "hashlib": hashlib.sha3_256,
            "pycryptodome": SHA3_256.new,
        }
    return {
        "batchkeccak": bk.keccak_256,
        "pycryptodome": lambda: keccak.new(digest_bits=256),
    }


def run_updates(make, chunk: bytes, calls: int) -> tuple[float, bytes]:
    h = make()
    update = h.update
    started = time.perf_counter()
    for _ in range(calls):
        update(chunk)
    digest = h.digest()
    return time.perf_counter() - started, digest


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument(
        "--bytes",
        type=int,
        default=16_000_000,
        help="bytes fed per run (default 16 MB), at least one call",
    )
    args = parser.parse_args()
    for algorithm in ("sha3_256", "keccak_256"):
        makers = contenders(algorithm)
        print(f"{algorithm}: update() of one size, best of {args.repeats}")
        for size in SIZES:
            chunk = bytes(i % 251 for i in range(size))
            calls = max(1, args.bytes // size)
            digests = {name: run_updates(make, chunk, 3)[1] for name, make in makers.items()}
            if len(set(digests.values())) != 1:
                raise SystemExit(f"digests differ for {algorithm} at {size} B: {digests}")
            best = {name: float("inf") for name in makers}
            for _ in range(args.repeats):
                for name, make in makers.items():  # alternated, so drift hits all alike
                    best[name] = min(best[name], run_updates(make, chunk, calls)[0])
            ours = best["batchkeccak"]
            line = [
                (
                    f"  {size:>8} B x {calls:>7}: batchkeccak {ours / calls * 1e6:8.3f} us/call "
                    f"{size * calls / ours / 1e6:7.1f} MB/s"
                )
            ]
            for name, seconds in best.items():
                if name != "batchkeccak":
                    line.append(f"{name} x{ours / seconds:.2f}")
            print(", ".join(line))


if __name__ == "__main__":
    main()
