"""One large message for the tree modes, as read-only uint8 arrays: where it lies for bytes-like
objects and numpy arrays, read in pieces for files.

A file is read, never memory-mapped: a mapped file that another process truncates while it is
hashed kills the reader with SIGBUS, and its length, measured before hashing, would no longer
be the length of the buffer. Read in pieces, a file is hashed as exactly the bytes read.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from contextlib import contextmanager

import numpy as np

from batchkeccak.inputs import readonly
from batchkeccak.inputs.sequences import message_view
from batchkeccak.io.pieces import stream_pieces

PIECE_BYTES = 4 << 20
"""Bytes read from a file per piece (rounded down to the mode's unit). Measured with KT128 on
256 MiB from the page cache (2 cores): 4 MiB pieces ran 72 ms, 1 MiB 110 ms, 16 MiB 83 ms,
32 MiB 98 ms; the piece just read is hashed while it is still in cache."""


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
    by a reading thread while the caller hashes the one before (:mod:`batchkeccak.io.pieces`).
    Each piece is valid until the caller asks for the next.

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
            pieces = stream_pieces(stream, unit, piece_bytes)
            try:
                yield pieces
            finally:
                pieces.close()  # its read ahead is done before the file is closed
        return
    if hasattr(data, "readinto"):
        yield stream_pieces(data, unit, piece_bytes)
        return
    with message_array(data, argument) as array:
        yield iter([array])
