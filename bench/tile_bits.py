"""The tile permutation and the sponge at 256 and 512 bits on this CPU, next to hashlib.

    python bench/tile_bits.py [--repeats N]   # print the figures
    python bench/tile_bits.py --write         # and store this CPU's choice in tile_bits.json

On a CPU with AVX-512F the kernels carry a 256-bit and a 512-bit tile permutation and choose
one when they run (``batchkeccak.permutation.vector_width``). This script times both, side
by side in one process (the repeats alternate between the widths and hashlib, the best of
each is kept), as TSC cycles: thread CPU time times the counter's rate, so that time the
thread spent descheduled on a shared machine is not counted. Rows:

- the bare tile permutation, 24 and 12 rounds, per state (a jitted loop, no Python);
- 32 messages of 1 MiB, SHA3-256, one thread (``hash_many``), per state and block, against
  hashlib's one-shot of the same messages;
- 65,536 rows of 135 bytes (one block each), per message;
- KT128 of one 256 MiB message, one thread, cycles per byte.

Each row is timed on its own, its repeats alternating between the widths and the row's
baseline (hashlib's one-shot of the same 1 MiB messages, a hashlib loop over the same rows,
pycryptodome's KangarooTwelve), so that the row's data stays where its own repeats left it.
"/block" divides hashlib's cost per block of a 1 MiB message (its best case) by the row's
cost per block; "x base" divides the baseline's time by the row's. ``--write`` stores the width whose 1 MiB figure is lower under this CPU's
LLVM name (``llvmlite.binding.get_host_cpu_name()``) in
``batchkeccak/permutation/tile_bits.json``; a CPU without AVX-512F has one width and writes
nothing.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import time
from datetime import date

import llvmlite.binding as llvm
import numpy as np
from _common import cpu_model
from numba import njit

import batchkeccak as bk
from batchkeccak.benchmark.timing import tsc_hz
from batchkeccak.permutation import LANE_COUNT, TILE_WIDTH, new_tiles, tile_permute, vector_width

RATE = 136  # SHA3-256


@njit(nogil=True)
def _tile_loop(tile, spare, first_round, calls):
    for _ in range(calls):
        tile_permute(tile, spare, first_round)
    return tile[0]


def _best_thread_times(candidates: dict, repeats: int) -> dict:
    best = dict.fromkeys(candidates, float("inf"))
    for _ in range(repeats):
        for key, run in candidates.items():
            started = time.thread_time()
            run()
            best[key] = min(best[key], time.thread_time() - started)
    return best


def measure(repeats: int) -> dict:
    hz = tsc_hz()
    if hz is None:
        raise SystemExit("no time-stamp counter to convert to cycles (x86-64 only)")
    from Crypto.Hash import KangarooTwelve

    widths = [vector_width.DEFAULT_BITS]
    if vector_width.host_has_avx512f() and vector_width.compiles_wide_tiles():
        widths.append(vector_width.WIDE_BITS)
    rng = np.random.default_rng(1)
    tile, spare = new_tiles()
    tile[:] = rng.integers(0, 2**63, size=LANE_COUNT * TILE_WIDTH, dtype=np.uint64)
    long_rows = np.frombuffer(rng.bytes(32 << 20), np.uint8).reshape(32, 1 << 20)
    long_messages = [row.tobytes() for row in long_rows]
    short_rows = np.frombuffer(rng.bytes(65536 * 135), np.uint8).reshape(65536, 135)
    short_messages = [row.tobytes() for row in short_rows]
    kt_message = rng.bytes(256 << 20)
    calls = 2000
    long_blocks = 32 * ((1 << 20) // RATE + 1)

    def hashlib_loop(messages):
        def run():
            for message in messages:
                hashlib.sha3_256(message).digest()

        return run

    # label: (batchkeccak, items, unit, baseline name, baseline); each row's repeats alternate
    # between the widths and its baseline, and rows run one after the other, so that a row's
    # data stays where its own repeats left it (the 32 MiB and 256 MiB rows evict the others').
    rows = {
        "tile, 24 rounds": (
            lambda: _tile_loop(tile, spare, 0, calls),
            calls * TILE_WIDTH,
            "state",
            None,
            None,
        ),
        "tile, 12 rounds": (
            lambda: _tile_loop(tile, spare, 12, calls),
            calls * TILE_WIDTH,
            "state",
            None,
            None,
        ),
        "32 x 1 MiB sha3_256": (
            lambda: bk.hash_many(long_rows, "sha3_256", threads=1),
            long_blocks,
            "state-block",
            "hashlib one-shot",
            hashlib_loop(long_messages),
        ),
        "65,536 x 135 B sha3_256": (
            lambda: bk.hash_many(short_rows, "sha3_256", threads=1),
            65536,
            "message (one block)",
            "hashlib loop",
            hashlib_loop(short_messages),
        ),
        "KT128, 256 MiB, 1 thread": (
            lambda: bk.kt128(kt_message, threads=1),
            256 << 20,
            "byte",
            "pycryptodome KangarooTwelve",
            lambda: KangarooTwelve.new(data=kt_message).read(32),
        ),
    }
    figures = {}
    for label, (run, items, unit, baseline_name, baseline) in rows.items():
        candidates = {}
        for bits in widths:

            def timed(run=run, bits=bits):
                with vector_width.tile_bits_set(bits):
                    run()

            timed()  # compiles or loads the kernels, outside the timing
            candidates[str(bits)] = timed
        if baseline is not None:
            candidates["baseline"] = baseline
        best = _best_thread_times(candidates, repeats)
        figures[label] = {
            "unit": unit,
            "baseline_name": baseline_name,
            **{key: seconds * hz / items for key, seconds in best.items()},
        }
    return {
        "cpu": cpu_model(),
        "llvm_cpu": llvm.get_host_cpu_name(),
        "tsc_ghz": hz / 1e9,
        "widths": widths,
        "hashlib_cycles_per_block": figures["32 x 1 MiB sha3_256"]["baseline"],
        "figures": figures,
    }


def report(result: dict) -> None:
    widths = result["widths"]
    block = result["hashlib_cycles_per_block"]
    print(
        f"{result['cpu']} (LLVM: {result['llvm_cpu']}), TSC {result['tsc_ghz']:.3f} GHz; "
        "TSC cycles from thread CPU time, best of the repeats"
    )
    print(
        f"hashlib sha3_256 one-shot of 1 MiB messages: {block:.0f} cycles per block; "
        "'/block' is that over a row's cycles per block, 'x base' the row's baseline over it"
    )
    header = "".join(f"{f'{bits}-bit':>10}{'/block':>8}{'x base':>8}" for bits in widths)
    print(f"{'':26}{header}{'baseline':>10}   cycles per")
    for label, row in result["figures"].items():
        per_block = RATE if row["unit"] == "byte" else 1
        digits = 2 if per_block > 1 else 1
        baseline = row.get("baseline")
        cells = ""
        for bits in widths:
            cycles = row[str(bits)]
            versus = f"{baseline / cycles:7.2f}x" if baseline else f"{'':8}"
            cells += f"{cycles:10.{digits}f}{block / (cycles * per_block):7.2f}x{versus}"
        base = f"{baseline:10.{digits}f}   {row['baseline_name']}" if baseline else ""
        print(f"{label:26}{cells}{base:>10}   {row['unit']}")


def write(result: dict) -> None:
    if len(result["widths"]) < 2:
        print("one width on this CPU: nothing to store")
        return
    long = result["figures"]["32 x 1 MiB sha3_256"]
    bits = min(result["widths"], key=lambda width: long[str(width)])
    path = vector_width.TILE_BITS_FILE
    data = json.loads(path.read_text())
    data["cpus"][result["llvm_cpu"]] = {
        "bits": bits,
        "measured_on": f"{date.today()}, {result['cpu']}",
        "cycles_per_state_permutation": {
            str(width): round(result["figures"]["tile, 24 rounds"][str(width)], 1)
            for width in result["widths"]
        },
        "cycles_per_state_block_32x1MiB": {
            str(width): round(long[str(width)], 1) for width in result["widths"]
        },
    }
    path.write_text(json.dumps(data, indent=2) + "\n")
    print(f"{result['llvm_cpu']}: {bits} bits, written to {path}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=7)
    parser.add_argument(
        "--write", action="store_true", help="store this CPU's faster width in tile_bits.json"
    )
    args = parser.parse_args()
    result = measure(args.repeats)
    report(result)
    if args.write:
        write(result)


if __name__ == "__main__":
    main()
