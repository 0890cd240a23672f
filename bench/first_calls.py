"""A batch job's first calls in a fresh process, with and without ``bk.warmup()`` first.

    python bench/first_calls.py [--calls 7] [--count 65536] [--size 1024] [--warmup]

The process calls ``bk.hash_many`` on COUNT messages of SIZE bytes (``sha3_256``, every core)
CALLS times and prints each call's wall time. Under the default backend policy, small work
never waits for the kernels: the first calls go to hashlib until their extra time adds up to
the kernels' load time (docs/performance.md, "Small work never waits for the kernels"), so
they run at hashlib's speed; ``--warmup`` loads the kernels first and times that. Run it once
beforehand, so that numba's cache is warm; each run is a fresh process. Every call's digests
are checked against hashlib's on a few messages.
"""

from __future__ import annotations

import argparse
import hashlib
import time


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--calls", type=int, default=7)
    parser.add_argument("--count", type=int, default=2**16)
    parser.add_argument("--size", type=int, default=1024)
    parser.add_argument("--warmup", action="store_true", help="call bk.warmup() first")
    args = parser.parse_args()

    import numpy as np

    import batchkeccak as bk

    rng = np.random.default_rng(2026)
    batch = rng.integers(0, 256, size=(args.count, args.size), dtype=np.uint8)
    messages = [row.tobytes() for row in batch]
    if args.warmup:
        started = time.perf_counter()
        bk.warmup()
        print(f"warmup: {time.perf_counter() - started:.3f} s")
    for call in range(1, args.calls + 1):
        started = time.perf_counter()
        digests = bk.hash_many(messages, "sha3_256")
        seconds = time.perf_counter() - started
        for index in (0, args.count // 2, args.count - 1):
            assert digests[index].tobytes() == hashlib.sha3_256(messages[index]).digest()
        print(f"call {call}: {seconds:.3f} s")


if __name__ == "__main__":
    main()
