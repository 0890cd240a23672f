"""One large message for the tree modes, as read-only uint8 arrays: where it lies for bytes-like
objects and numpy arrays, read in pieces for files.

A file is read, never memory-mapped: a mapped file that another process truncates while it is
hashed kills the reader with SIGBUS, and its length, measured before hashing, would no longer
be the length of the buffer. Read in pieces, a file is hashed as exactly the bytes read.
"""

from __future__ import annotations

import os
import stat
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager

import numpy as np

from batchkeccak.inputs import readonly
from batchkeccak.inputs.sequences import message_view

PIECE_BYTES = 4 << 20
"""Bytes read from a file per piece (rounded down to the mode's unit). Measured with KT128 on
256 MiB from the page cache (2 cores): 4 MiB pieces ran 72 ms, 1 MiB 110 ms, 16 MiB 83 ms,
32 MiB 98 ms; the piece just read is hashed while it is still in cache."""


SMALL_READ_BYTES = 64 << 10
"""The least a file is read in at once when its size says less would do."""


@contextmanager
def message_array(data: object, argument: str = "data") -> Iterator[np.ndarray]:
    """``data`` (bytes-like or a numpy array) as a read-only 1-D uint8 array, without a copy,
    for the duration of the ``with`` block. A numpy array is hashed as its raw bytes, as
    hashlib hashes it."""
    if isinstance(data, np.ndarray):
        if not data.flags.c_contiguous:
            raise ValueError(f"{argument} array is not C-contiguous: copy it first")
        yield readonly(data.reshape(-1).view(np.uint8))
        return
    try:
        view = message_view(data, argument)  # the boundary's reading, empty buffers included
    except TypeError:
        raise TypeError(
            f"{argument} must be bytes-like, a numpy array, a path or a binary file object "
            f"opened for reading, got {type(data).__name__}"
        ) from None
    yield readonly(np.frombuffer(view, dtype=np.uint8))


@contextmanager
def message_pieces(
    data: object, unit: int, argument: str = "data", piece_bytes: int = PIECE_BYTES
) -> Iterator[Iterator[np.ndarray]]:
    """``data`` as read-only uint8 arrays that follow one another, for the ``with`` block.

    Bytes-like objects and numpy arrays are one piece, where they lie. A path (``str`` or
    ``os.PathLike``) is opened and read, and a binary file object opened for reading is read
    to its end, in pieces of a multiple of ``unit`` bytes (all but the last): one piece is read
    by a second thread while the caller hashes the one before. Each piece is valid until the
    caller asks for the next.

    The two read buffers hold ``max(unit, piece_bytes)`` bytes at most, and no more than a
    regular file has left: a caller whose unit may be large (ParallelHash's block size) passes
    a smaller one and joins what crosses a piece boundary itself.
    """
    if isinstance(data, (str, os.PathLike)):
        path = os.fspath(data)
        try:
            stream = open(path, "rb")  # noqa: SIM115 - closed below, after the pieces
        except OSError as exc:
            raise OSError(
                exc.errno, f"cannot read {argument} file {path!r}: {exc.strerror}"
            ) from None
        with stream:
            yield _read_pieces(stream, unit, piece_bytes)
        return
    if hasattr(data, "readinto"):
        yield _read_pieces(data, unit, piece_bytes)
        return
    with message_array(data, argument) as array:
        yield iter([array])


def _bytes_left(stream: object) -> int | None:
    """The bytes between a regular file's position and its end, or None when unknown (a
    pipe, a socket, an object without a descriptor)."""
    try:
        status = os.fstat(stream.fileno())  # type: ignore[attr-defined]
        if not stat.S_ISREG(status.st_mode):
            return None
        position = stream.tell()  # type: ignore[attr-defined]
    except (AttributeError, OSError, ValueError, TypeError):
        return None
    if not isinstance(position, int):
        return None
    return max(0, status.st_size - position)


def _read_pieces(stream: object, unit: int, piece_bytes: int) -> Iterator[np.ndarray]:
    readinto = getattr(stream, "readinto", None)
    readable = getattr(stream, "readable", None)
    if readinto is None or readable is None or not readable():
        raise TypeError(
            f"data must be bytes-like, a numpy array, a path or a binary file object opened "
            f"for reading, got {type(stream).__name__}"
        )
    size = max(unit, piece_bytes // unit * unit)
    left = _bytes_left(stream)
    if left is not None:
        # A small file needs no piece-sized buffers: one unit more than it holds lets the
        # first read see its end. The size is only how much is read at once, so a file that
        # grows meanwhile (or one whose size the system does not know, as in /proc) is
        # still read to its end, in more pieces, of at least SMALL_READ_BYTES.
        floor = max(1, SMALL_READ_BYTES // unit) * unit
        size = min(size, max(floor, (left // unit + 1) * unit))

    def fill(buffer: np.ndarray) -> int:
        view = memoryview(buffer)
        filled = 0
        while filled < size:
            got = readinto(view[filled:])
            if got is None:
                raise BlockingIOError("the stream must be blocking: readinto returned None")
            if not got:
                break
            filled += got
        return filled

    def pieces() -> Iterator[np.ndarray]:
        buffers = [np.empty(size, dtype=np.uint8), np.empty(size, dtype=np.uint8)]
        filled = fill(buffers[0])
        if filled < size:  # all of it in one read: no second thread
            yield readonly(buffers[0][:filled])
            return
        with ThreadPoolExecutor(1, thread_name_prefix="batchkeccak-read") as reader:
            current = 0
            while filled == size:
                following = reader.submit(fill, buffers[1 - current])
                try:
                    yield readonly(buffers[current])
                finally:
                    filled = following.result()  # the reader is done before anything else
                current = 1 - current
        yield readonly(buffers[current][:filled])

    return pieces()
