"""Paths -> batches: small regular files read whole, back to back in one buffer, for the
caller to hash a buffer-full at a time (``consume``); the others (large files, pipes,
devices, files that changed size or refuse a large read) are left to be read in chunks
(:mod:`.chunks`).

On Linux the compiled reader (:mod:`._kernels`) stats, opens, reads and closes the
files with the GIL released, and each thread reads into its own buffer and hashes what it
read itself. Elsewhere the files are stat'ed first, then read through ``os.readv`` a batch
at a time on the reading threads (:mod:`.pool`), and the batch is hashed on the calling
thread.
"""

from __future__ import annotations

import ctypes
import errno
import os
import stat
import sys
from collections.abc import Callable

import numpy as np

from batchkeccak.core.parallel import run_parallel, split_ranges
from batchkeccak.inputs import readonly
from batchkeccak.io.pool import reader_pool
from batchkeccak.io.reads import OPEN_FLAGS, REFUSED_COUNT, SMALLEST_READ, named_error

SMALL_FILE_BYTES = 1 << 20
"""Files up to this size are read whole and hashed in batches; larger ones are streamed."""

BATCH_BYTES = 32 << 20
"""Bytes of small files read and hashed per batch (portable reader)."""

READ_GROUP = 64
"""Small files one reading thread takes at a time (portable reader)."""

READER_BYTES = 4 << 20
"""Buffer of each thread of the compiled reader: it reads files into it until it is full,
then hashes them, then reads the next ones."""

COMPILED_READER = sys.platform.startswith("linux") and hasattr(ctypes.CDLL(None), "statx")
"""statx came with Linux 4.11 and glibc 2.28; without it the portable reader is used."""

Consume = Callable[[slice | np.ndarray, np.ndarray, np.ndarray, int], None]
"""``consume(rows, data, offsets, threads)``: hash the batch ``(data, offsets)`` (read-only,
under :mod:`batchkeccak.inputs`' contract) into the output rows ``rows`` (a slice, or an
index array), on ``threads`` threads."""


def read_small_files(
    names: list, threads: int, consume: Consume, failures: dict[int, OSError], stop_early: bool
) -> list[int]:
    """Read the small files among ``names`` in batches and hand each batch to ``consume``;
    the files that cannot be read go into ``failures`` (index -> named OSError). Returns the
    indices of the files left to stream, in order. ``stop_early``: return as soon as a file
    has failed (the caller raises the first failure)."""
    if COMPILED_READER:
        return _read_compiled(names, threads, consume, failures)
    return _read_portable(names, threads, consume, failures, stop_early)


def joined_paths(names: list) -> tuple[np.ndarray, np.ndarray]:
    """Every path encoded as the OS takes it and NUL-terminated, back to back (read-only
    uint8), and the offset where each starts."""
    if all(type(name) is str for name in names):
        # One encode for all: a str path encodes character by character, NUL to NUL.
        joined = os.fsencode("\0".join(names) + "\0")
    else:
        joined = b"".join(os.fsencode(name) + b"\0" for name in names)
    paths = np.frombuffer(joined, dtype=np.uint8)
    ends = np.flatnonzero(paths == 0)
    if ends.shape[0] != len(names):
        for i, name in enumerate(names):
            if b"\0" in os.fsencode(name):
                raise ValueError(f"paths[{i}] contains a NUL byte")
    path_starts = np.zeros(len(names), dtype=np.int64)
    path_starts[1:] = ends[:-1] + 1
    return readonly(paths), readonly(path_starts)


def _read_compiled(
    names: list, threads: int, consume: Consume, failures: dict[int, OSError]
) -> list[int]:
    from batchkeccak.io._kernels import OPEN_FLAGS as NONBLOCKING_FLAGS
    from batchkeccak.io._kernels import read_small_files as read_compiled

    count = len(names)
    if count == 0:
        return []
    paths, path_starts = joined_paths(names)
    status = np.zeros(count, dtype=np.int64)
    span = max(READ_GROUP, -(-count // (4 * threads)))
    spans = split_ranges(0, count, -(-count // span))

    def read_and_consume(bounds: tuple[int, int]) -> None:
        # Each thread reads its files into its own buffer and hashes them itself, one
        # buffer-full at a time: no thread waits for another, and memory is one buffer each.
        first, stop = bounds
        buffer = np.empty(READER_BYTES, dtype=np.uint8)
        starts = np.empty(stop - first + 1, dtype=np.int64)
        data = readonly(buffer)
        while first < stop:
            done = read_compiled(
                paths,
                path_starts,
                first,
                stop,
                SMALL_FILE_BYTES,
                NONBLOCKING_FLAGS,
                SMALLEST_READ,
                buffer,
                starts,
                status,
            )
            consume(slice(first, done), data, readonly(starts[: done - first + 1]), 1)
            first = done

    run_parallel(read_and_consume, spans, workers=threads)
    streamed = []
    for i in np.flatnonzero(status).tolist():
        code = int(status[i])
        if code < 0:
            failures[i] = OSError(-code, os.strerror(-code), names[i])
        else:
            streamed.append(i)
    return streamed


def _read_portable(
    names: list, threads: int, consume: Consume, failures: dict[int, OSError], stop_early: bool
) -> list[int]:
    small: list[tuple[int, int]] = []  # (index, size)
    streamed: list[int] = []
    for i, name in enumerate(names):
        try:
            info = os.stat(name)
        except OSError as exc:
            failures[i] = named_error(exc, name)
            continue
        if stat.S_ISDIR(info.st_mode):
            failures[i] = IsADirectoryError(errno.EISDIR, os.strerror(errno.EISDIR), name)
        elif stat.S_ISREG(info.st_mode) and info.st_size <= SMALL_FILE_BYTES:
            small.append((i, info.st_size))
        else:
            streamed.append(i)
    if stop_early and failures:
        return streamed
    changed = streamed  # files that changed size while read are streamed too
    position = 0
    while position < len(small):
        batch: list[tuple[int, int]] = []
        size = 0
        while position < len(small) and (not batch or size + small[position][1] <= BATCH_BYTES):
            batch.append(small[position])
            size += small[position][1]
            position += 1
        offsets = np.zeros(len(batch) + 1, dtype=np.int64)
        np.cumsum([s for _, s in batch], out=offsets[1:])
        buffer = np.empty(int(offsets[-1]), dtype=np.uint8)
        _read_batch(names, [i for i, _ in batch], buffer, offsets, threads, failures, changed)
        if stop_early and failures:
            return sorted(changed)
        rows = np.fromiter((i for i, _ in batch), dtype=np.int64, count=len(batch))
        consume(rows, readonly(buffer), readonly(offsets), threads)
    return sorted(changed)


def _read_batch(
    names: list,
    indices: list[int],
    buffer: np.ndarray,
    offsets: np.ndarray,
    threads: int,
    failures: dict[int, OSError],
    changed: list[int],
) -> None:
    """Read files ``names[indices[k]]`` into ``buffer[offsets[k]:offsets[k + 1]]``, groups of
    them on the reading threads; a file whose size changed is added to ``changed``."""
    view = memoryview(buffer)  # type: ignore[arg-type]  # numpy's stubs give ndarray __buffer__ only on Python 3.12+

    def read_group(span: tuple[int, int]) -> None:
        spare = bytearray(1)
        for k in range(*span):
            index = indices[k]
            expected = offsets[k + 1] - offsets[k]
            try:
                got = _read_whole(names[index], view[offsets[k] : offsets[k + 1]], spare)
            except OSError as exc:
                if exc.errno in REFUSED_COUNT:
                    changed.append(index)  # refused the count: streamed in smaller reads
                else:
                    failures[index] = named_error(exc, names[index])
                continue
            if got != expected:
                changed.append(index)  # list.append is atomic: no lock needed

    count = len(indices)
    spans = split_ranges(0, count, -(-count // READ_GROUP))
    if threads > 1 and len(spans) > 1:
        list(reader_pool().map(read_group, spans))
    else:
        for span in spans:
            read_group(span)


def _read_whole(name: str | bytes, view: memoryview, spare: bytearray) -> int:
    """Read file ``name`` into ``view``; its size in bytes, or -1 if it is larger than
    ``view`` (it grew since it was measured)."""
    fd = os.open(name, OPEN_FLAGS)
    try:
        # One read for the expected bytes plus one spare byte: a file that grew since its
        # size was taken fills the spare byte too.
        got = os.readv(fd, [view, spare]) if view.nbytes else os.readv(fd, [spare])
        if got < view.nbytes:
            while True:  # a short read: the file shrank, or a slow file system
                more = os.readv(fd, [view[got:], spare])
                if more == 0:
                    return got
                got += more
                if got > view.nbytes:
                    return -1
        return got if got == view.nbytes else -1
    finally:
        os.close(fd)
