"""Streams and files: hash_files, one large file through ``batchkeccak hash``, StreamHasher.

Ratios against hashlib measured in this process, best of ``--repeats``::

    python bench/bench_streams.py                # 256 MiB file
    python bench/bench_streams.py --large-gib 1  # the 1 GiB file
"""

from __future__ import annotations

import argparse
import hashlib
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from _common import best

import batchkeccak as bk

# The child's own peak: VmHWM belongs to its address space. (ru_maxrss would not do: Linux
# carries the parent's peak across fork and exec, so a child of this numba-loaded process
# would report this process's size.)
_PEAK = """
import resource, sys
from batchkeccak.cli import main
main(["hash", sys.argv[1]])
try:
    with open("/proc/self/status") as status:
        peak = next(line.split()[1] for line in status if line.startswith("VmHWM:"))
except OSError:
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
print(peak, file=sys.stderr)
"""

_HASHLIB_PROCESS = """
import hashlib, sys
with open(sys.argv[1], "rb") as handle:
    print(hashlib.file_digest(handle, "sha3_256").hexdigest())
"""


def many_files(folder: Path, count: int, repeats: int) -> None:
    paths = []
    for i in range(count):
        path = folder / f"{i:05}.json"
        path.write_bytes(os.urandom(4096))
        paths.append(str(path))

    def loop():
        digests = []
        for path in paths:
            with open(path, "rb") as handle:
                digests.append(hashlib.sha3_256(handle.read()).digest())
        return digests

    assert [row.tobytes() for row in bk.hash_files(paths)] == loop()
    ours = best(lambda: bk.hash_files(paths), repeats)
    theirs = best(loop, repeats)
    print(
        f"{count:,} files of 4 KiB, sha3_256, all threads: hash_files {ours * 1e3:.1f} ms, "
        f"read + hashlib loop {theirs * 1e3:.1f} ms -> {theirs / ours:.2f}x"
    )


def large_file(folder: Path, size: int, repeats: int) -> None:
    path = folder / "large.bin"
    with open(path, "wb") as handle:
        block = os.urandom(1 << 20)
        handle.writelines(block for _ in range(size >> 20))

    def ours():
        return bk.hash_files([path])[0].tobytes()

    def theirs():
        with open(path, "rb") as handle:
            return hashlib.file_digest(handle, "sha3_256").digest()

    assert ours() == theirs()
    t_ours, t_theirs = best(ours, repeats), best(theirs, repeats)
    peaks = []
    for target in (folder / "tiny", path):
        if target != path:
            target.write_bytes(b"x")
        done = subprocess.run(
            [sys.executable, "-c", _PEAK, str(target)], capture_output=True, check=True
        )
        peaks.append(int(done.stderr.split()[-1]) / 1024)
    print(
        f"one {size >> 20} MiB file: hash_files {size / t_ours / 1e6:.0f} MB/s, "
        f"hashlib.file_digest {size / t_theirs / 1e6:.0f} MB/s -> {t_theirs / t_ours:.2f}x; "
        f"'batchkeccak hash' peak RSS {peaks[1]:.0f} MB (a 1-byte file: {peaks[0]:.0f} MB)"
    )

    # Whole processes, start-up included: the command against a Python that does the same
    # with hashlib.
    def command():
        return (
            subprocess.run(
                [sys.executable, "-m", "batchkeccak", "hash", str(path)],
                capture_output=True,
                check=True,
            )
            .stdout.split()[0]
            .decode()
        )

    def python_hashlib():
        return (
            subprocess.run(
                [sys.executable, "-c", _HASHLIB_PROCESS, str(path)], capture_output=True, check=True
            )
            .stdout.strip()
            .decode()
        )

    assert command() == python_hashlib()
    t_command, t_python = best(command, repeats), best(python_hashlib, repeats)
    print(
        f"  as processes: 'batchkeccak hash' {t_command:.2f} s, python + hashlib.file_digest "
        f"{t_python:.2f} s -> {t_python / t_command:.2f}x"
    )


def streams(count: int, chunk: int, rounds: int, repeats: int) -> None:
    chunks = [os.urandom(chunk) for _ in range(16)]
    indices = list(range(count))
    fed = [chunks[i % 16] for i in indices]

    def ours(threads=None):
        hasher = bk.StreamHasher("sha3_256", count, threads=threads)
        for _ in range(rounds):
            hasher.update_many(indices, fed)
        return hasher.digests()

    def theirs():
        hashers = [hashlib.sha3_256() for _ in indices]
        for _ in range(rounds):
            for hasher, data in zip(hashers, fed):
                hasher.update(data)
        return [h.digest() for h in hashers]

    assert [row.tobytes() for row in ours()] == theirs()
    assert [row.tobytes() for row in ours(1)] == theirs()
    t_all, t_one, t_theirs = interleaved_best([ours, lambda: ours(1), theirs], repeats)
    total = count * chunk * rounds
    print(
        f"StreamHasher, {count:,} streams x {rounds} rounds of {chunk >> 10} KiB, sha3_256: "
        f"all threads {total / t_all / 1e6:.0f} MB/s, 1 thread {total / t_one / 1e6:.0f} MB/s, "
        f"hashlib objects {total / t_theirs / 1e6:.0f} MB/s -> {t_theirs / t_all:.2f}x "
        f"(1 thread {t_theirs / t_one:.2f}x)"
    )


def interleaved_best(functions, repeats: int) -> list[float]:
    """Best time of each function, their repeats interleaved (load hits all of them alike)."""
    times = [[] for _ in functions]
    for _ in range(repeats):
        for function, kept in zip(functions, times):
            started = time.perf_counter()
            function()
            kept.append(time.perf_counter() - started)
    return [min(kept) for kept in times]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--files", type=int, default=10_000)
    parser.add_argument("--large-gib", type=float, default=0.25)
    parser.add_argument("--streams", type=int, default=4096)
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args()
    bk.warmup()
    bk.StreamHasher("sha3_256", 40).update_many(range(40), [b"x" * 1000] * 40)
    with tempfile.TemporaryDirectory(prefix="bench-streams-") as folder:
        many_files(Path(folder), args.files, args.repeats)
    with tempfile.TemporaryDirectory(prefix="bench-streams-") as folder:
        large_file(Path(folder), int(args.large_gib * (1 << 30)), args.repeats)
    streams(args.streams, 64 << 10, args.rounds, args.repeats)


if __name__ == "__main__":
    main()
