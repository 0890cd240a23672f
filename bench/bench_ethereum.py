"""Ethereum workloads: batchkeccak.ethereum against py-trie and eth_utils, side by side.

    python bench/bench_ethereum.py [--repeats 3] [--baseline-sample 1.0]
                                   [--json bench/results/ethereum.json]

Four workloads, both sides in this one process, each result checked against the baseline's:

- a secure trie of 2**16 random (32-byte key, 32-byte value) pairs: ``trie_root(...,
  secure=True)`` against ``HexaryTrie`` filled inside ``squash_changes()``;
- 10,000 tries of 150 ordered items (120-byte values, as transactions): one
  ``ordered_trie_roots`` call against a loop of py-trie tries keyed by ``rlp.encode(i)``;
- 10,000 account proofs of a secure trie of 2**14 accounts: one ``verify_trie_proofs`` call
  against a loop of ``HexaryTrie.get_from_proof``;
- 2**20 addresses ((N, 20) uint8) through ``checksum_addresses`` against a loop of
  ``eth_utils.to_checksum_address``.

batchkeccak is timed best of ``--repeats`` after a warm-up call (compilation is reported
apart). The baselines are pure Python loops whose cost is linear in their items, so
``--baseline-sample`` below 1 times them on that fraction of the items and scales the time
up (the secure trie is always built whole: its cost is not linear in its size).
"""

from __future__ import annotations

import argparse
import gc
import json
import platform
import time
from pathlib import Path

import numpy as np

RESULTS = Path(__file__).resolve().parent / "results"


def best_of(repeats: int, func, *args) -> tuple[float, object]:
    best, result = float("inf"), None
    for _ in range(repeats):
        gc.collect()
        started = time.perf_counter()
        result = func(*args)
        best = min(best, time.perf_counter() - started)
    return best, result


def timed(func, *args) -> tuple[float, object]:
    gc.collect()
    started = time.perf_counter()
    result = func(*args)
    return time.perf_counter() - started, result


def py_trie_root(pairs) -> bytes:
    from trie import HexaryTrie

    t = HexaryTrie({})
    with t.squash_changes() as batch:
        for key, value in pairs:
            batch[key] = value
    return t.root_hash


def secure_trie(rng, repeats: int) -> dict:
    from eth_utils import keccak

    from batchkeccak.ethereum import trie_root

    keys = rng.integers(0, 256, size=(1 << 16, 32), dtype=np.uint8)
    values = rng.integers(0, 256, size=(1 << 16, 32), dtype=np.uint8)
    key_list = [bytes(k) for k in keys]
    value_list = [bytes(v) for v in values]
    started = time.perf_counter()
    trie_root(keys[:10], values[:10], secure=True)
    warmup = time.perf_counter() - started
    ours, root = best_of(repeats, lambda: trie_root(keys, values, secure=True))
    theirs, expected = timed(py_trie_root, [(keccak(k), v) for k, v in zip(key_list, value_list)])
    assert root == expected
    return {"workload": "secure trie of 2**16 pairs", "batchkeccak_s": ours,
            "baseline_s": theirs, "warmup_s": warmup, "baseline": "py-trie squash_changes"}


def ordered_tries(rng, repeats: int, sample: float) -> dict:
    import rlp

    from batchkeccak.ethereum import ordered_trie_roots

    tries, items = 10_000, 150
    data = rng.integers(0, 256, size=(tries * items, 120), dtype=np.uint8)
    offsets = np.arange(0, tries * items + 1, items)
    started = time.perf_counter()
    ordered_trie_roots(data[:300], offsets[:3])
    warmup = time.perf_counter() - started
    ours, roots = best_of(repeats, lambda: ordered_trie_roots(data, offsets))
    measured = max(1, int(tries * sample))
    keys = [rlp.encode(i) for i in range(items)]

    def loop():
        return [
            py_trie_root(zip(keys, (bytes(r) for r in data[g * items:(g + 1) * items])))
            for g in range(measured)
        ]

    theirs, expected = timed(loop)
    assert [roots[g].tobytes() for g in range(measured)] == expected
    return {"workload": "10,000 tries of 150 ordered items", "batchkeccak_s": ours,
            "baseline_s": theirs * tries / measured, "baseline_measured_on": measured,
            "warmup_s": warmup, "baseline": "py-trie loop"}


def account_proofs(rng, repeats: int, sample: float) -> dict:
    import rlp
    from eth_utils import keccak
    from trie import HexaryTrie

    from batchkeccak.ethereum import trie_proofs, trie_root, verify_trie_proofs

    accounts = 1 << 14
    addresses = [bytes(a) for a in rng.integers(0, 256, size=(accounts, 20), dtype=np.uint8)]
    encoded = [
        rlp.encode([int(rng.integers(0, 1000)), int(rng.integers(0, 2**62)),
                    bytes(rng.integers(0, 256, 32, dtype=np.uint8)),
                    bytes(rng.integers(0, 256, 32, dtype=np.uint8))])
        for _ in range(accounts)
    ]
    root = trie_root(addresses, encoded, secure=True)
    queries = [addresses[int(i)] for i in rng.integers(0, accounts, 10_000)]
    proofs = trie_proofs(addresses, encoded, queries, secure=True)
    started = time.perf_counter()
    verify_trie_proofs(root, queries[:5], proofs[:5], secure=True)
    warmup = time.perf_counter() - started
    ours, values = best_of(repeats, lambda: verify_trie_proofs(root, queries, proofs, secure=True))
    measured = max(1, int(len(queries) * sample))
    decoded = [[rlp.decode(node) for node in proof] for proof in proofs[:measured]]

    def loop():
        return [
            HexaryTrie.get_from_proof(root, keccak(q), p)
            for q, p in zip(queries[:measured], decoded)
        ]

    theirs, expected = timed(loop)
    assert values[:measured] == expected
    return {"workload": "10,000 account proofs", "batchkeccak_s": ours,
            "baseline_s": theirs * len(queries) / measured, "baseline_measured_on": measured,
            "warmup_s": warmup, "baseline": "HexaryTrie.get_from_proof loop (decoded nodes)"}


def checksums(rng, repeats: int, sample: float) -> dict:
    from eth_utils import to_checksum_address

    from batchkeccak.ethereum import checksum_addresses

    rows = rng.integers(0, 256, size=(1 << 20, 20), dtype=np.uint8)
    started = time.perf_counter()
    checksum_addresses(rows[:10])
    warmup = time.perf_counter() - started
    ours, texts = best_of(repeats, lambda: checksum_addresses(rows))
    measured = max(1, int(rows.shape[0] * sample))
    as_bytes = [bytes(r) for r in rows[:measured]]
    theirs, expected = timed(lambda: [to_checksum_address(a) for a in as_bytes])
    assert texts[:measured] == expected
    return {"workload": "2**20 addresses checksummed", "batchkeccak_s": ours,
            "baseline_s": theirs * rows.shape[0] / measured, "baseline_measured_on": measured,
            "warmup_s": warmup, "baseline": "eth_utils.to_checksum_address loop"}


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--baseline-sample", type=float, default=1.0,
                        help="fraction of the items the linear baselines are timed on")
    parser.add_argument("--only", choices=["secure", "ordered", "proofs", "checksums"],
                        action="append", help="run only these workloads")
    parser.add_argument("--json", type=Path, default=RESULTS / "ethereum.json")
    args = parser.parse_args(argv)
    rng = np.random.default_rng(2024)
    runs = {
        "secure": lambda: secure_trie(rng, args.repeats),
        "ordered": lambda: ordered_tries(rng, args.repeats, args.baseline_sample),
        "proofs": lambda: account_proofs(rng, args.repeats, args.baseline_sample),
        "checksums": lambda: checksums(rng, args.repeats, args.baseline_sample),
    }
    results = []
    for name in args.only or list(runs):
        result = runs[name]()
        result["ratio"] = result["baseline_s"] / result["batchkeccak_s"]
        results.append(result)
        print(
            f"{result['workload']:<36} batchkeccak {result['batchkeccak_s'] * 1e3:9.1f} ms"
            f"   {result['baseline']}: {result['baseline_s']:8.2f} s   "
            f"ratio {result['ratio']:7.0f}x   (first call {result['warmup_s']:.1f} s)",
            flush=True,
        )
    args.json.parent.mkdir(parents=True, exist_ok=True)
    args.json.write_text(json.dumps(
        {"machine": platform.platform(), "processor": platform.processor(), "results": results},
        indent=2,
    ))


if __name__ == "__main__":
    main()
