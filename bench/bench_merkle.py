"""Merkle roots: batchkeccak against the pure-Python pair loop, and the memory a tree takes.

    python bench/bench_merkle.py [--log2-leaves 20] [--repeats 3] [--baseline-repeats 2]
                                 [--threads N] [--json bench/results/merkle.json]

Workload: the root of 2**20 random 32-byte leaves as an OpenZeppelin ``SimpleMerkleTree``
(leaves sorted, sorted-pair Keccak-256 nodes). Both sides run in this one process:

- batchkeccak: ``merkle.merkle_root`` (root only) and ``MerkleTree.build`` (the full tree),
  best of ``--repeats``, after one warm-up call so that kernel compilation is reported apart;
- baseline: the JavaScript library's ``makeMerkleTree`` loop written in Python over
  safe-pysha3 (``sha3.keccak_256``): sort the leaves, then one hash per pair; best of
  ``--baseline-repeats``.

Memory: the peak traced allocation (tracemalloc; numpy reports its buffers to it) while
building the full tree, as a multiple of the leaf array's size, with and without sorting.
Results go to the terminal and to JSON (bench/results/ is git-ignored).
"""

from __future__ import annotations

import argparse
import gc
import json
import platform
import sys
import time
import tracemalloc
from pathlib import Path

import numpy as np
from _common import best_of

RESULTS = Path(__file__).resolve().parent / "results"


def python_pair_loop_root(leaves: list[bytes]) -> bytes:
    """The JavaScript library's tree construction, transcribed to Python with safe-pysha3."""
    import sha3

    keccak = sha3.keccak_256
    ordered = sorted(leaves)
    n = len(ordered)
    tree: list[bytes] = [b""] * (2 * n - 1)
    tree[n - 1 :] = ordered[::-1]
    for i in range(n - 2, -1, -1):
        a, b = tree[2 * i + 1], tree[2 * i + 2]
        tree[i] = keccak(a + b if a <= b else b + a).digest()
    return tree[0]


def peak_bytes(func) -> int:
    """Peak traced allocation while ``func`` runs, above what was allocated before it."""
    gc.collect()
    tracemalloc.start()
    try:
        before = tracemalloc.get_traced_memory()[0]
        tracemalloc.reset_peak()
        result = func()
        peak = tracemalloc.get_traced_memory()[1] - before
    finally:
        tracemalloc.stop()
    del result
    return peak


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--log2-leaves", type=int, default=20, help="2**N leaves (default 20)")
    parser.add_argument("--repeats", type=int, default=3, help="timed repeats (default 3)")
    parser.add_argument(
        "--baseline-repeats",
        type=int,
        default=2,
        help="timed repeats of the Python loop (default 2)",
    )
    parser.add_argument("--threads", type=int, default=None, help="default: every core")
    parser.add_argument("--json", default=str(RESULTS / "merkle.json"), help="JSON output")
    args = parser.parse_args(argv)

    import batchkeccak as bk
    from batchkeccak import merkle
    from batchkeccak.core.parallel import available_cores, resolve_threads

    count = 1 << args.log2_leaves
    leaves = np.random.default_rng(2026).integers(0, 256, (count, 32), dtype=np.uint8)
    leaf_bytes = leaves.nbytes
    threads = resolve_threads(args.threads)
    print(
        f"{count:,} leaves of 32 bytes ({leaf_bytes / 2**20:.0f} MiB), openzeppelin simple "
        f"tree, {threads} thread(s) of {available_cores()} core(s)"
    )

    started = time.perf_counter()
    bk.warmup()  # the kernels' load, which a small first root would leave to hashlib's side
    merkle.merkle_root(leaves[:64], scheme="openzeppelin", threads=threads)
    warmup = time.perf_counter() - started
    print(f"kernels ready in {warmup:.2f} s (compiled or loaded from cache)")

    root_s, root = best_of(
        args.repeats, lambda: merkle.merkle_root(leaves, scheme="openzeppelin", threads=threads)
    )
    build_s, tree = best_of(
        args.repeats,
        lambda: merkle.MerkleTree.build(leaves, scheme="openzeppelin", threads=threads),
    )
    assert tree.root == root  # type: ignore[union-attr]
    del tree
    unsorted_s, _ = best_of(
        args.repeats,
        lambda: merkle.merkle_root(
            leaves, scheme="openzeppelin", sort_leaves=False, threads=threads
        ),
    )

    as_bytes = [bytes(row) for row in leaves]
    baseline_s, baseline_root = best_of(args.baseline_repeats, python_pair_loop_root, as_bytes)
    del as_bytes
    if baseline_root != root:
        print(
            "MISMATCH: batchkeccak and the Python pair loop disagree on the root", file=sys.stderr
        )
        return 1

    ns = 1e9 / count
    print(f"merkle_root (sorted)      {root_s:8.3f} s  {root_s * ns:7.0f} ns/leaf")
    print(f"merkle_root (input order) {unsorted_s:8.3f} s  {unsorted_s * ns:7.0f} ns/leaf")
    print(f"MerkleTree.build          {build_s:8.3f} s  {build_s * ns:7.0f} ns/leaf")
    print(f"Python pair loop (pysha3) {baseline_s:8.3f} s  {baseline_s * ns:7.0f} ns/leaf")
    print(
        f"root speed-up: {baseline_s / root_s:.1f}x (target >= 10x); "
        f"full tree: {baseline_s / build_s:.1f}x; roots equal: 0x{root.hex()[:16]}..."
    )

    sorted_peak = peak_bytes(
        lambda: merkle.MerkleTree.build(leaves, scheme="openzeppelin", threads=threads)
    )
    plain_peak = peak_bytes(
        lambda: merkle.MerkleTree.build(
            leaves, scheme="openzeppelin", sort_leaves=False, threads=threads
        )
    )
    root_peak = peak_bytes(
        lambda: merkle.merkle_root(
            leaves, scheme="openzeppelin", sort_leaves=False, threads=threads
        )
    )
    print(
        f"peak memory, full tree: {sorted_peak / leaf_bytes:.2f}x the leaf array sorted, "
        f"{plain_peak / leaf_bytes:.2f}x in input order (the tree itself is "
        f"{(2 * count - 1) * 32 / leaf_bytes:.2f}x); merkle_root in input order: "
        f"{root_peak / leaf_bytes:.2f}x"
    )

    result = {
        "workload": "openzeppelin simple tree root",
        "leaves": count,
        "leaf_bytes": leaf_bytes,
        "threads": threads,
        "cores": available_cores(),
        "python": platform.python_version(),
        "machine": platform.machine(),
        "warmup_seconds": warmup,
        "merkle_root_seconds": root_s,
        "merkle_root_input_order_seconds": unsorted_s,
        "build_seconds": build_s,
        "python_pair_loop_seconds": baseline_s,
        "root_speedup": baseline_s / root_s,
        "build_speedup": baseline_s / build_s,
        "peak_build_sorted_over_leaves": sorted_peak / leaf_bytes,
        "peak_build_input_order_over_leaves": plain_peak / leaf_bytes,
        "peak_root_input_order_over_leaves": root_peak / leaf_bytes,
        "root": "0x" + root.hex(),
    }
    out = Path(args.json)
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(result, indent=2) + "\n")
    print(f"wrote {out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
