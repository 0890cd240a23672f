"""One stream -> pieces of a multiple of a unit, read ahead on a reading thread while the
caller hashes the piece before (the tree modes' one large message)."""

from __future__ import annotations

import os
import stat
from collections.abc import Generator

import numpy as np

from batchkeccak.inputs import readonly
from batchkeccak.io.pool import read_ahead
from batchkeccak.io.reads import fill

SMALL_READ_BYTES = 64 << 10
"""The least a file is read in at once when its size says less would do."""


def stream_pieces(stream: object, unit: int, piece_bytes: int) -> Generator[np.ndarray, None, None]:
    """``stream`` (a binary file object opened for reading) read to its end as read-only
    uint8 arrays of a multiple of ``unit`` bytes (all but the last), each valid until the
    next is asked for. TypeError (naming ``data``) for anything else.

    The two read buffers hold ``max(unit, piece_bytes)`` bytes at most, and no more than a
    regular file has left.
    """
    readable = getattr(stream, "readable", None)
    if not hasattr(stream, "readinto") or readable is None or not readable():
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

    def pieces() -> Generator[np.ndarray, None, None]:
        buffers = [np.empty(size, dtype=np.uint8)]

        def read_piece(turn: int, _: object) -> int:
            if turn == len(buffers):  # the second buffer only once a first piece is full
                buffers.append(np.empty(size, dtype=np.uint8))
            return fill(stream, memoryview(buffers[turn]))  # type: ignore[arg-type]  # numpy's stubs give ndarray __buffer__ only on Python 3.12+

        def more(filled: int) -> bool | None:
            return True if filled == size else None

        turns = read_ahead(read_piece, True, more)
        try:
            for turn, filled in turns:
                yield readonly(buffers[turn][:filled])
        finally:
            turns.close()

    return pieces()


def _bytes_left(stream: object) -> int | None:
    """The bytes between a regular file's position and its end, or None when unknown (a
    pipe, a socket, an object without a descriptor)."""
    try:
        status = os.fstat(stream.fileno())  # type: ignore[attr-defined]  # duck-typed: AttributeError is caught below
        if not stat.S_ISREG(status.st_mode):
            return None
        position = stream.tell()  # type: ignore[attr-defined]  # duck-typed: AttributeError is caught below
    except (AttributeError, OSError, ValueError, TypeError):
        return None
    if not isinstance(position, int):
        return None
    return max(0, status.st_size - position)
