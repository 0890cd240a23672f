"""``batchkeccak demo``: hash a million generated messages and check them against hashlib."""

from __future__ import annotations

import hashlib
import sys
import time

import numpy as np


def register(subparsers) -> None:
    parser = subparsers.add_parser(
        "demo",
        help="hash 1M generated messages, verify a sample against hashlib, show throughput",
        description="Hash generated messages of varied lengths with every core, check a "
        "random sample against hashlib and compare throughput with a hashlib loop.",
    )
    parser.add_argument("--count", type=int, default=1_000_000, help="messages (default 1M)")
    parser.add_argument("--algorithm", default="sha3_256", help="default sha3_256")
    parser.add_argument("--seed", type=int, default=2026)
    parser.set_defaults(run=run)


def generate_messages(count: int, seed: int) -> tuple[np.ndarray, np.ndarray]:
    """Deterministic messages, lengths log-uniform-ish from 0 to 1 KiB, as (data, offsets)."""
    rng = np.random.default_rng(seed)
    lengths = np.minimum(np.exp(rng.uniform(0, np.log(1025), size=count)).astype(np.int64) - 1,
                         1024)
    offsets = np.zeros(count + 1, dtype=np.int64)
    np.cumsum(lengths, out=offsets[1:])
    data = rng.integers(0, 256, size=int(offsets[-1]), dtype=np.uint8)
    return data, offsets


def run(args) -> int:
    import batchkeccak as bk
    from batchkeccak.cli import CommandError

    if args.count < 1:
        raise CommandError(f"--count must be >= 1, got {args.count}")
    try:
        spec = bk.algorithms[args.algorithm]
    except KeyError:
        raise CommandError(
            f"unknown --algorithm {args.algorithm!r}; choose from {', '.join(bk.algorithms)}"
        ) from None
    length = 32 if spec.xof else None
    data, offsets = generate_messages(args.count, args.seed)
    total_mb = offsets[-1] / 1e6
    print(f"{args.count:,} messages, {total_mb:.1f} MB, lengths 0..1024 bytes, {spec.name}")

    started = time.perf_counter()
    bk.warmup()
    print(f"kernels ready in {time.perf_counter() - started:.2f} s (compiled or loaded from cache)")

    started = time.perf_counter()
    digests = bk.hash_many((data, offsets), spec.name, length=length)
    elapsed = time.perf_counter() - started
    ns_per_message = elapsed / args.count * 1e9
    print(f"batchkeccak: {elapsed:.3f} s, {ns_per_message:,.0f} ns/message, "
          f"{total_mb / elapsed:,.0f} MB/s")

    reference = _hashlib_reference(spec.name, length)
    rng = np.random.default_rng(args.seed + 1)
    sample = rng.choice(args.count, size=min(args.count, 10_000), replace=False)
    for i in sample:
        message = data[offsets[i] : offsets[i + 1]].tobytes()
        if digests[i].tobytes() != reference(message):
            print(f"MISMATCH at message {i}", file=sys.stderr)
            return 1
    print(f"checked {len(sample):,} random digests against the reference: all equal")

    timed = sample[: min(len(sample), 100_000)]
    messages = [data[offsets[i] : offsets[i + 1]].tobytes() for i in timed]
    started = time.perf_counter()
    for message in messages:
        reference(message)
    loop_ns = (time.perf_counter() - started) / len(messages) * 1e9
    print(f"reference loop: {loop_ns:,.0f} ns/message -> batchkeccak is "
          f"{loop_ns / ns_per_message:.1f}x faster")
    return 0


def _hashlib_reference(name: str, length: int | None):
    if name.startswith("keccak_"):
        from Crypto.Hash import keccak  # only for the demo's check; not a runtime dependency

        bits = int(name.split("_")[1])
        return lambda m: keccak.new(digest_bits=bits, data=m).digest()
    if name.startswith("turboshake"):
        from Crypto.Hash import TurboSHAKE128, TurboSHAKE256

        cls = TurboSHAKE128 if name == "turboshake128" else TurboSHAKE256
        return lambda m: cls.new().update(m).read(length)
    if length is not None:
        return lambda m: hashlib.new(name, m).digest(length)
    return lambda m: hashlib.new(name, m).digest()
