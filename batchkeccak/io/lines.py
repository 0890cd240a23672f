"""Text streams: blocks as they come (a pipe or terminal that makes us wait says so), the
lines of a stream, batches of lines laid out flat for hashing, and a descriptor read one
system call at a time (a terminal's Ctrl-D ends it)."""

from __future__ import annotations

import io
import os
import select
import stat
from collections.abc import Iterator
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import numpy as np

BATCH_BYTES = 64 << 20
"""Lines are read and hashed in batches of about this many bytes: bounded memory."""


class SingleReads(io.RawIOBase):
    """A descriptor read one system call at a time: the first empty read is the end, so
    one Ctrl-D ends what is typed in a terminal (a buffered read asks again after it).
    Closing it leaves the descriptor open (it is stdin's)."""

    def __init__(self, fd: int) -> None:
        super().__init__()
        self._fd = fd

    def readable(self) -> bool:
        return True

    def readinto(self, buffer) -> int:
        return os.readv(self._fd, [buffer])

    def fileno(self) -> int:
        return self._fd

    def close(self) -> None:
        pass


def blocks(stream, size: int) -> Iterator[bytes | None]:
    """Blocks of up to ``size`` bytes from one read each, ending at the first empty read;
    None before a read that would wait (pipes and terminals only)."""
    try:
        fd = stream.fileno()
        waits = not stat.S_ISREG(os.fstat(fd).st_mode)
    except (AttributeError, OSError, ValueError):
        fd, waits = None, False
    read = getattr(stream, "read1", stream.read)
    while True:
        if waits and not select.select([fd], [], [], 0)[0]:
            yield None
        block = read(size)
        if not block:
            return
        yield block


def stream_lines(stream) -> Iterator[bytes | None]:
    """The lines of a stream without their newlines, read a block at a time (memory stays
    bounded however long the stream); None where the stream has nothing more to give yet
    (a pipe or terminal whose writer is slow), so that what is read can be reported first."""
    pieces: list[bytes] = []
    for block in blocks(stream, 1 << 16):
        if block is None:
            yield None
            continue
        lines = block.split(b"\n")
        if len(lines) == 1:
            pieces.append(block)
            continue
        pieces.append(lines[0])
        lines[0] = b"".join(pieces)
        pieces = [lines.pop()]
        yield from lines
    rest = b"".join(pieces)
    if rest:
        yield rest


def line_batches(stream: object) -> Iterator[tuple[tuple[np.ndarray, np.ndarray], int]]:
    """``((data, offsets), bytes read)`` per batch of whole lines, line endings excluded.

    Lines are found with numpy over blocks of the input, so no Python work is done per line.
    A batch is up to BATCH_BYTES, or what has come when the input makes us wait (lines
    typed in a terminal are hashed as they come); the first empty read ends the input.
    """
    import numpy as np

    carry = b""
    pieces: list[bytes] = []
    gathered = 0
    for block in blocks(stream, BATCH_BYTES):
        if block is not None:
            pieces.append(block)
            gathered += len(block)
            if gathered < BATCH_BYTES:
                continue
        if not pieces:
            continue
        buffer = carry + b"".join(pieces)
        pieces, gathered = [], 0
        cut = buffer.rfind(b"\n") + 1
        if cut == 0:
            carry = buffer
            continue
        carry = buffer[cut:]
        yield split_lines(np.frombuffer(buffer[:cut], dtype=np.uint8)), cut
    buffer = carry + b"".join(pieces)
    if buffer:
        if not buffer.endswith(b"\n"):
            buffer += b"\n"
        cut = len(buffer)
        yield split_lines(np.frombuffer(buffer, dtype=np.uint8)), cut


def split_lines(data: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(data, offsets) of the lines in ``data`` (which ends with a newline), endings removed."""
    import numpy as np

    ends = np.flatnonzero(data == 10)  # the newline of each line
    starts = np.empty_like(ends)
    starts[0] = 0
    starts[1:] = ends[:-1] + 1
    keep = np.ones(data.shape[0], dtype=bool)
    keep[ends] = False
    # A line ending in CR LF loses the CR too.
    crlf = ends[(ends > starts) & (data[ends - 1] == 13)]
    keep[crlf - 1] = False
    lengths = ends - starts
    lengths[np.isin(ends, crlf)] -= 1
    offsets = np.zeros(ends.shape[0] + 1, dtype=np.int64)
    np.cumsum(lengths, out=offsets[1:])
    return data[keep], offsets
