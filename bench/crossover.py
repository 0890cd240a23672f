"""Measure where the kernels start to pay, per one-shot backend family, and store the limits.

``batchkeccak.core.dispatch`` sends a call to hashlib (SHA-3, SHAKE) or pycryptodome (Keccak,
TurboSHAKE) when it is too small to earn back what the kernels cost up front:

- cold: loading the kernels in a fresh process (importing numba, loading the compiled
  kernels from a warm cache): ``L`` seconds;
- warm: the fixed cost of one kernel call, ``K`` seconds.

With ``c`` the cost per message and ``p`` the cost per byte of each side, measured here in
one process (the kernels on every core, as a call runs them), a call of ``n`` messages and
``b`` bytes stays with the backend while it is cheaper: ``n <= L / (c_backend - c_kernels)``
and ``b <= L / (p_backend - p_kernels)`` (``K`` in place of ``L`` once the kernels are
loaded). A thread left with fewer messages than half a tile runs them one state at a time:
for such calls ``batchkeccak.core.dispatch`` prices the kernels' bytes at the single-state figure
measured here (``one_state_byte``: one long message on one thread)::

    python bench/crossover.py            # print the measured limits
    python bench/crossover.py --write    # and store them in batchkeccak/core/crossover.json
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import subprocess
import sys
from datetime import date
from pathlib import Path

import numpy as np
from _common import best

import batchkeccak as bk
from batchkeccak.core import dispatch
from batchkeccak.core.dispatch import forced_backend

FAMILIES = {"hashlib": "sha3_256", "pycryptodome": "keccak_256"}

_COLD = """
import time
import batchkeccak as bk
from batchkeccak.core.dispatch import forced_backend
started = time.perf_counter()
with forced_backend("kernels"):
    bk.hash_many([b"x", b"y"], "sha3_256", threads=1)
print(time.perf_counter() - started)
"""


def kernel_load_seconds(repeats: int) -> float:
    """A fresh process's first kernel call (numba imported, kernels loaded from the cache)."""
    env = {**os.environ}
    env.pop("BATCHKECCAK_BACKEND", None)
    with forced_backend("kernels"):
        bk.hash_many([b"warm the cache"], "sha3_256", threads=1)
    runs = [
        float(
            subprocess.run(
                [sys.executable, "-c", _COLD], capture_output=True, text=True, check=True, env=env
            ).stdout
        )
        for _ in range(repeats)
    ]
    return min(runs)


def costs(algorithm: str, backend: str, repeats: int) -> tuple[float, float, float, float]:
    """(seconds per call, per message, per byte, per byte of one long message on one
    thread) of ``backend`` for ``algorithm``."""
    short = [bytes([i % 251]) * 8 for i in range(20_000)]
    long = [bytes([i % 251]) * 65_536 for i in range(128)]
    single = [b"x"]
    lone = [bytes(4 << 20)]
    with forced_backend(backend):
        bk.hash_many(short[:64], algorithm)  # warm
        call = best(lambda: bk.hash_many(single, algorithm), repeats * 20)
        per_short = best(lambda: bk.hash_many(short, algorithm), repeats) / len(short)
        per_long = best(lambda: bk.hash_many(long, algorithm), repeats) / len(long)
        per_lone = best(lambda: bk.hash_many(lone, algorithm, threads=1), repeats)
    per_byte = max(per_long - per_short, 0.0) / 65_528
    return call, per_short, per_byte, per_lone / len(lone[0])


def measure(repeats: int) -> dict:
    load = kernel_load_seconds(repeats)
    limits, inputs = {}, {"kernel_load_seconds": round(load, 4)}
    for family, algorithm in FAMILIES.items():
        k_call, k_msg, k_byte, k_one = costs(algorithm, "kernels", repeats)
        b_call, b_msg, b_byte, _ = costs(algorithm, "oneshot", repeats)
        message_gain = max(b_msg - k_msg, 1e-9)
        byte_gain = max(b_byte - k_byte, 1e-12)
        limits[family] = {
            "cold": {"messages": int(load / message_gain), "bytes": int(load / byte_gain)},
            "warm": {
                "messages": max(1, int(max(k_call - b_call, 0) / message_gain)),
                "bytes": int(max(k_call - b_call, 0) / byte_gain),
            },
        }
        inputs[family] = {
            "algorithm": algorithm,
            "kernels_us": {
                "call": k_call * 1e6,
                "message": k_msg * 1e6,
                "byte": k_byte * 1e6,
                "one_state_byte": k_one * 1e6,
            },
            "backend_us": {"call": b_call * 1e6, "message": b_msg * 1e6, "byte": b_byte * 1e6},
        }
    return {
        "measured_by": "python bench/crossover.py --write",
        "measured_on": f"{date.today()}, {platform.machine()}, {os.cpu_count()} cores",
        "limits": limits,
        "inputs": inputs,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--write", action="store_true", help="store them in crossover.json")
    args = parser.parse_args()
    np.set_printoptions(suppress=True)
    result = measure(args.repeats)
    text = json.dumps(result, indent=2, default=lambda value: round(value, 4)) + "\n"
    print(text)
    if args.write:
        Path(dispatch.CROSSOVER_FILE).write_text(text)
        print(f"written to {dispatch.CROSSOVER_FILE}")


if __name__ == "__main__":
    main()
