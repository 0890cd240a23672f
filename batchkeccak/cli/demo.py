"""``batchkeccak demo``: the main job end to end on generated data.

Writes a sample Parquet file (1M rows, values of varied lengths) to a temporary folder, adds a
digest column through :func:`batchkeccak.parquet.hash_file` with a progress bar, checks a
random sample of digests against hashlib and prints where the time went.
"""

from __future__ import annotations

import hashlib
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, cast

if TYPE_CHECKING:
    import numpy as np


SAMPLE_CHECKS = 10_000
"""Digests checked against hashlib; algorithms hashlib lacks are checked on fewer rows by the
plain-Python sponge below (about a millisecond per row: a few seconds)."""
PLAIN_CHECKS = 3_000


XOF_LENGTH = 32
"""Output bytes of an extendable-output algorithm (SHAKE, TurboSHAKE) in the demo."""

TROUBLE_STATUS = 2
"""Exit status on trouble (the sample or its hashed copy cannot be written); a misused
command line (an unknown algorithm, a mode) exits 1 with a pointer to ``--help``."""


def register(subparsers) -> None:
    from batchkeccak.cli import positive_int

    parser = subparsers.add_parser(
        "demo",
        help="hash a column of a generated 1M-row Parquet file, verify against hashlib",
        description="Write a sample Parquet file (values of 0 to 1024 bytes) to a temporary "
        "folder, add a digest column with every core, check a random sample against "
        "hashlib and compare throughput with a hashlib loop.",
    )
    parser.add_argument("--count", type=positive_int, default=1_000_000, help="rows (default 1M)")
    parser.add_argument(
        "--algorithm",
        default="sha3_256",
        help="one of batchkeccak.algorithms (default sha3_256; SHAKE and TurboSHAKE give "
        f"{XOF_LENGTH} bytes); the modes (keyed, customized, trees) run in 'batchkeccak hash'",
    )
    parser.add_argument("--seed", type=int, default=2026)
    parser.set_defaults(run=run)


def generate_messages(count: int, seed: int) -> tuple[np.ndarray, np.ndarray]:
    import numpy as np

    """Deterministic messages, lengths log-uniform-ish from 0 to 1 KiB, as (data, offsets)."""
    rng = np.random.default_rng(seed)
    lengths = np.minimum(
        np.exp(rng.uniform(0, np.log(1025), size=count)).astype(np.int64) - 1, 1024
    )
    offsets = np.zeros(count + 1, dtype=np.int64)
    np.cumsum(lengths, out=offsets[1:])
    data = rng.integers(0, 256, size=int(offsets[-1]), dtype=np.uint8)
    return data, offsets


def write_sample(path: Path, count: int, seed: int) -> int:
    import numpy as np

    """Write ``count`` rows (``id``, ``payload``) to ``path``; returns the payload bytes."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    data, offsets = generate_messages(count, seed)
    if offsets[-1] < 2**31:
        payload_type, offsets = pa.binary(), offsets.astype(np.int32)
    else:
        payload_type = pa.large_binary()
    payload = pa.Array.from_buffers(
        payload_type, count, [None, pa.py_buffer(offsets), pa.py_buffer(data)]
    )
    table = pa.table({"id": pa.array(np.arange(count, dtype=np.int64)), "payload": payload})
    # Random bytes do not compress: skip the codec so the demo times hashing, not snappy.
    pq.write_table(table, path, compression="none", row_group_size=256 * 1024)
    return int(data.shape[0])


def run(args) -> int:
    import numpy as np
    import pyarrow.parquet as pq

    import batchkeccak as bk
    from batchkeccak.cli.options import plain_algorithm_name
    from batchkeccak.core.parameters import get_algorithm
    from batchkeccak.parquet import hash_file

    spec = get_algorithm(plain_algorithm_name(args.algorithm, "the demo"))
    length = XOF_LENGTH if spec.xof else None

    with tempfile.TemporaryDirectory(prefix="batchkeccak-demo-") as folder:
        source = Path(folder) / "sample.parquet"
        hashed = Path(folder) / "sample_hashed.parquet"
        started = time.perf_counter()
        payload_bytes = write_sample(source, args.count, args.seed)
        payload_mb = payload_bytes / 1e6
        print(
            f"sample: {args.count:,} rows, payload {payload_mb:,.1f} MB (0 to 1024 bytes per "
            f"value), written to {source} in {time.perf_counter() - started:.2f} s"
        )

        started = time.perf_counter()
        bk.warmup()
        print(
            f"kernels ready in {time.perf_counter() - started:.2f} s "
            "(compiled or loaded from cache)"
        )

        report = hash_file(source, hashed, "payload", spec.name, length=length, progress=True)
        digest_column = report.digest_columns["payload"]
        if length is not None:
            print(f"{spec.name} is extendable-output: {length} bytes per digest")
        print(
            f"added {digest_column} in {report.total_seconds:.2f} s: read "
            f"{report.read_seconds:.2f} s, hash {report.hash_seconds:.2f} s, write "
            f"{report.write_seconds:.2f} s"
        )
        hash_ns = report.hash_seconds / args.count * 1e9
        print(
            f"hashing: {hash_ns:,.0f} ns/row, {payload_mb / report.hash_seconds:,.0f} MB/s; "
            f"end to end: {report.rows_per_second:,.0f} rows/s"
        )

        written = pq.read_table(hashed, columns=["payload", digest_column])
        rng = np.random.default_rng(args.seed + 1)
        reference_name, reference = _reference(spec.name, length)
        checks = PLAIN_CHECKS if reference_name == PLAIN_REFERENCE else SAMPLE_CHECKS
        sample = rng.choice(args.count, size=min(args.count, checks), replace=False)
        messages = written["payload"].take(sample).to_pylist()
        digests = written[digest_column].take(sample).to_pylist()

    for row, message, digest in zip(sample, messages, digests):
        if digest != reference(message):
            print(f"MISMATCH at row {row}", file=sys.stderr)
            return 1
    print(f"checked {len(sample):,} random digests against {reference_name}: all equal")

    if reference_name == PLAIN_REFERENCE:
        print(
            f"neither hashlib nor pycryptodome has {spec.name}: no loop to compare the "
            "throughput with"
        )
        return 0
    started = time.perf_counter()
    for message in messages:
        reference(message)
    loop_ns = (time.perf_counter() - started) / len(messages) * 1e9
    ratio = loop_ns / hash_ns
    verdict = f"{ratio:.1f}x faster" if ratio >= 1 else f"{1 / ratio:.1f}x slower"
    print(
        f"reference loop ({reference_name}, one call per value): {loop_ns:,.0f} ns/value -> "
        f"batchkeccak hashing is {verdict}"
    )
    return 0


PLAIN_REFERENCE = "the plain-Python sponge of batchkeccak.cli.demo"
"""The reference of last resort: too slow for a throughput comparison."""


def _reference(name: str, length: int | None) -> tuple[str, Callable[[bytes], bytes]]:
    """An independent digest and its name: hashlib where it has the algorithm, pycryptodome
    (``Crypto.Hash.keccak``, ``TurboSHAKE128/256``) where it is installed and has it, else the
    plain-Python sponge below (written from FIPS 202, sharing no code with the kernels), so
    the demo needs nothing beyond a base install."""
    import batchkeccak as bk

    spec = bk.algorithms[name]
    out_len = cast(int, length or spec.digest_size)  # an XOF comes with its length
    if name in hashlib.algorithms_available:
        if length is not None:
            return f"hashlib.{name}", lambda m: hashlib.new(name, m).digest(length)  # type: ignore[call-arg]  # a shake: typeshed's hashlib.new gives the fixed-length HASH
        return f"hashlib.{name}", lambda m: hashlib.new(name, m).digest()
    try:
        if name.startswith("keccak_"):
            from Crypto.Hash import keccak

            bits = out_len * 8
            return "pycryptodome's Crypto.Hash.keccak", lambda m: keccak.new(
                digest_bits=bits, data=m
            ).digest()
        if name.startswith("turboshake"):
            from Crypto.Hash import TurboSHAKE128, TurboSHAKE256

            module = TurboSHAKE128 if name == "turboshake128" else TurboSHAKE256
            return f"pycryptodome's Crypto.Hash.{module.__name__.rsplit('.', 1)[-1]}", (
                lambda m: module.new(data=m).read(out_len)
            )
    except ImportError:
        pass  # no pycryptodome (or one without TurboSHAKE): the plain sponge
    return PLAIN_REFERENCE, (
        lambda m: _plain_sponge(spec.rate, spec.suffix, bytes(m), out_len, spec.rounds)
    )


_ROUND_CONSTANTS = [
    0x0000000000000001,
    0x0000000000008082,
    0x800000000000808A,
    0x8000000080008000,
    0x000000000000808B,
    0x0000000080000001,
    0x8000000080008081,
    0x8000000000008009,
    0x000000000000008A,
    0x0000000000000088,
    0x0000000080008009,
    0x000000008000000A,
    0x000000008000808B,
    0x800000000000008B,
    0x8000000000008089,
    0x8000000000008003,
    0x8000000000008002,
    0x8000000000000080,
    0x000000000000800A,
    0x800000008000000A,
    0x8000000080008081,
    0x8000000000008080,
    0x0000000080000001,
    0x8000000080008008,
]  # FIPS 202 section 3.2.5, as published
_ROTATIONS = [
    0,
    1,
    62,
    28,
    27,
    36,
    44,
    6,
    55,
    20,
    3,
    10,
    43,
    25,
    39,
    41,
    45,
    15,
    21,
    8,
    18,
    2,
    61,
    56,
    14,
]  # rho offsets, lane x + 5y
_MASK = (1 << 64) - 1


def _plain_keccak_p(lanes: list[int], rounds: int) -> list[int]:
    a = lanes
    for constant in _ROUND_CONSTANTS[24 - rounds :]:
        c = [a[x] ^ a[x + 5] ^ a[x + 10] ^ a[x + 15] ^ a[x + 20] for x in range(5)]
        d = [
            c[(x - 1) % 5] ^ (((c[(x + 1) % 5] << 1) | (c[(x + 1) % 5] >> 63)) & _MASK)
            for x in range(5)
        ]
        a = [a[i] ^ d[i % 5] for i in range(25)]
        b = [0] * 25
        for x in range(5):
            for y in range(5):
                r = _ROTATIONS[x + 5 * y]
                v = a[x + 5 * y]
                b[y + 5 * ((2 * x + 3 * y) % 5)] = ((v << r) | (v >> (64 - r))) & _MASK if r else v
        a = [
            b[i] ^ (~b[(i % 5 + 1) % 5 + 5 * (i // 5)] & b[(i % 5 + 2) % 5 + 5 * (i // 5)])
            for i in range(25)
        ]
        a[0] ^= constant
    return a


def _plain_sponge(rate: int, suffix: int, message: bytes, out_len: int, rounds: int) -> bytes:
    padded = bytearray(message) + bytes([suffix])
    padded += bytes(-len(padded) % rate)
    padded[-1] |= 0x80
    state = [0] * 25
    for start in range(0, len(padded), rate):
        for i in range(rate // 8):
            state[i] ^= int.from_bytes(padded[start + 8 * i : start + 8 * i + 8], "little")
        state = _plain_keccak_p(state, rounds)
    out = b""
    while len(out) < out_len:
        out += b"".join(lane.to_bytes(8, "little") for lane in state)[:rate]
        if len(out) < out_len:
            state = _plain_keccak_p(state, rounds)
    return out[:out_len]
