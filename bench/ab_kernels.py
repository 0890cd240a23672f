"""The package at an earlier commit against the working tree, alternating in one process.

    BATCHKECCAK_BACKEND=kernels python bench/ab_kernels.py [REPEATS] [--base COMMIT] [--only TEXT]
    (default: 7 repeats; base: git merge-base HEAD main)

The base commit's ``batchkeccak`` folder is written into a temporary package ``oldbk`` (its
imports of itself pointed there), so old and new code run side by side on the same inputs
through the public API. Each row prints old/new (below 1: the new code is slower) and
new/new2, the new code timed twice in the same loop: the noise on this machine right now.
Every call goes to the kernels (``BATCHKECCAK_BACKEND=kernels``): small work would otherwise
go to hashlib. The first call of every row (compiling, or loading numba's cache) is not
timed, and its digests are compared between old and new.
"""

from __future__ import annotations

import argparse
import io
import os
import re
import subprocess
import sys
import tarfile
import tempfile
import time
from pathlib import Path

os.environ["BATCHKECCAK_BACKEND"] = "kernels"
ROOT = Path(__file__).resolve().parent.parent


def _options(argv):
    parser = argparse.ArgumentParser(
        description="The package at an earlier commit against the working tree, alternating."
    )
    parser.add_argument("repeats", nargs="?", type=int, default=7, help="timed loops per row")
    parser.add_argument("--base", default="", help="the earlier commit (default: merge-base)")
    parser.add_argument("--only", default="", help="run only the rows whose name holds TEXT")
    options = parser.parse_args(argv)
    return options.repeats, options.base, options.only


def _old_package(base: str) -> Path:
    if not base:
        base = subprocess.run(
            ["git", "merge-base", "HEAD", "main"],
            cwd=ROOT,
            capture_output=True,
            text=True,
            check=True,
        ).stdout.strip()
    archive = subprocess.run(
        ["git", "archive", base, "batchkeccak"], cwd=ROOT, capture_output=True, check=True
    ).stdout
    folder = Path(tempfile.mkdtemp(prefix="oldbk-"))
    with tarfile.open(fileobj=io.BytesIO(archive)) as tar:
        tar.extractall(folder, filter="data")
    (folder / "batchkeccak").rename(folder / "oldbk")
    for path in (folder / "oldbk").rglob("*.py"):
        text = path.read_text()
        text = re.sub(r"\bbatchkeccak\.", "oldbk.", text)
        text = re.sub(r"from batchkeccak import", "from oldbk import", text)
        text = re.sub(r"import batchkeccak\b", "import oldbk", text)
        path.write_text(text)
    return folder


REPEATS, BASE, ONLY = _options(sys.argv[1:])
sys.path.insert(0, str(_old_package(BASE)))
sys.path.insert(0, str(ROOT))

import numpy as np
import oldbk as old

import batchkeccak as new

rng = np.random.default_rng(1)


def _messages(lengths):
    return [rng.bytes(int(n)) for n in lengths]


def _flat(lengths):
    offsets = np.zeros(len(lengths) + 1, np.int64)
    np.cumsum(lengths, out=offsets[1:])
    data = np.frombuffer(rng.bytes(int(offsets[-1])), np.uint8)
    return data, offsets


def batch(lengths, algorithm="sha3_256", threads=1, **options):
    data, offsets = _flat(lengths)

    def run(bk):
        return bk.hash_many(bk.FlatMessages(data, offsets), algorithm, threads=threads, **options)

    return run


def rows(count, size, threads=1):
    array = np.frombuffer(rng.bytes(count * size), np.uint8).reshape(count, size)
    return lambda bk: bk.hash_many(array, "sha3_256", threads=threads)


def listed(count, size):
    messages = _messages([size] * count)
    return lambda bk: bk.hash_many(messages, "sha3_256", threads=1)


def objects(update, count):
    pieces = _messages([update] * count)

    def run(bk):
        h = bk.sha3_256()
        for piece in pieces:
            h.update(piece)
        return h.digest()

    return run


def finishes(count, size):
    messages = _messages([size] * count)
    return lambda bk: [bk.sha3_256(m).digest() for m in messages]


def streams(count, chunks):
    pieces = _messages(rng.integers(0, 10000, chunks))
    which = list(rng.integers(0, count, chunks))

    def run(bk):
        hasher = bk.StreamHasher("sha3_256", count, threads=1)
        for _ in range(2):
            hasher.update_many(which, pieces)
        return hasher.digests()

    return run


def one_each(count, size):
    messages = _messages([size] * count)
    return lambda bk: [bk.hash_one(m, "sha3_256") for m in messages]


def kt128(size, threads=1, from_file=False):
    message = rng.bytes(size)
    if from_file:
        path = Path(tempfile.mkdtemp(prefix="ab-kt128-")) / "message"
        path.write_bytes(message)
        return lambda bk: bk.kt128(path, threads=threads)
    return lambda bk: bk.kt128(message, threads=threads)


def keyed(name, count, size, **params):
    messages = np.frombuffer(rng.bytes(count * size), np.uint8).reshape(count, size)
    return lambda bk: bk.hash_many(messages, name, **params)


def arrow_column(lengths):
    # A binary column as Arrow stores it (int32 offsets), hashed through the Arrow module.
    import importlib

    import pyarrow as pa

    data, offsets = _flat(lengths)
    column = pa.Array.from_buffers(
        pa.binary(),
        len(lengths),
        [None, pa.py_buffer(offsets.astype(np.int32)), pa.py_buffer(data)],
    )

    def run(bk):
        arrow = importlib.import_module(f"{bk.__name__}.arrow")
        return arrow.hash_array(column, "sha3_256", threads=1)

    return run


def files(count, size):
    folder = Path(tempfile.mkdtemp(prefix="ab-files-"))
    paths = []
    for i in range(count):
        path = folder / f"{i}"
        path.write_bytes(rng.bytes(size))
        paths.append(path)
    return lambda bk: bk.hash_files(paths, "sha3_256", threads=1)


MIXED = np.minimum(np.exp(rng.uniform(0, np.log(16385), 1 << 15)).astype(np.int64) - 1, 16384)
CASES = {
    "2^18 x 32 B": batch([32] * (1 << 18)),
    "2^18 x 32 B, 2 threads": batch([32] * (1 << 18), threads=2),
    "rows 2^16 x 64 B": rows(1 << 16, 64),
    "1000 x 100 B (list; partial last tile)": listed(1000, 100),
    "40 x 32 B (one tile and 8)": batch([32] * 40),
    "2^14 x 1 KiB": batch([1024] * (1 << 14)),
    "2^15 mixed 0..16 KiB": batch(MIXED),
    "2^16 uniform 0..135 B": batch(rng.integers(0, 136, 1 << 16)),
    "Arrow column 2^18 x 70..104 B": arrow_column(rng.integers(70, 105, 1 << 18)),
    "1 x 1 MiB (one state)": batch([1 << 20]),
    "10 x 5000 B (one-state finish)": batch([5000] * 10),
    "8 x shake_128, 64 KiB out": batch([100] * 8, "shake_128", length=1 << 16),
    "hash_one 2000 x 32 B": one_each(2000, 32),
    "hash object 3000 x 1000 B updates": objects(1000, 3000),
    "hash objects 2000 x 200 B, digest": finishes(2000, 200),
    "StreamHasher 512, 2 x 4096 chunks": streams(512, 4096),
    "KT128 32 MiB": kt128(32 << 20),
    "KT128 32 MiB, 2 threads, from a file": kt128(32 << 20, threads=2, from_file=True),
    "kmac_256 2^17 x 64 B": keyed("kmac_256", 1 << 17, 64, key=b"k" * 32, length=32),
    "hmac_sha3_256 2^17 x 64 B": keyed("hmac_sha3_256", 1 << 17, 64, key=b"k" * 32),
    "parallelhash128 256 x 20 KiB": keyed("parallelhash128", 256, 20 << 10, length=32),
    "hash_files 40 x 2 MiB (streamed: stored states)": files(40, 2 << 20),
}


def _same(a, b) -> bool:
    if isinstance(a, (bytes, list)):
        return [bytes(x) for x in a] == [bytes(x) for x in b] if isinstance(a, list) else a == b
    return np.array_equal(np.asarray(a), np.asarray(b))


print(f"old/new, best of {REPEATS}; below 1 the new code is slower; new/new2 is the noise")
for label, case in CASES.items():
    if ONLY not in label:
        continue
    assert _same(case(old), case(new)), label
    runs = {"old": lambda case=case: case(old), "new": lambda case=case: case(new)}
    runs["new2"] = runs["new"]
    best = dict.fromkeys(runs, float("inf"))
    for _ in range(REPEATS):
        for key, run in runs.items():
            started = time.perf_counter()
            run()
            best[key] = min(best[key], time.perf_counter() - started)
    print(
        f"{label:<42} old {best['old'] * 1e3:9.2f} ms  new {best['new'] * 1e3:9.2f} ms  "
        f"old/new {best['old'] / best['new']:6.3f}  new/new2 {best['new'] / best['new2']:6.3f}",
        flush=True,
    )
