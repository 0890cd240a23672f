"""Reads that any file ``cat`` reads can take, and read errors that name their file.

Some files refuse a read of a large count (``ENOMEM`` or ``EINVAL``: /proc and /sys files,
whose kernel handler allocates the whole count up front); every read of the package that
may meet one goes through :func:`retry_smaller`, here, or does the same in compiled code
(:mod:`._kernels`, with :data:`SMALLEST_READ`). Nothing here imports numpy.
"""

from __future__ import annotations

import errno
import os
from collections.abc import Callable, Iterator
from typing import TypeVar

T = TypeVar("T")

SMALLEST_READ = 4096
"""Reads of a file that refuses a large count are retried at half the count, down to this
many bytes: ``cat`` reads 128 KiB."""

REFUSED_COUNT = (errno.ENOMEM, errno.EINVAL)
"""The errors of a read refused for its count."""

OPEN_FLAGS = os.O_RDONLY | getattr(os, "O_CLOEXEC", 0) | getattr(os, "O_BINARY", 0)
"""How a file is opened for reading by ``os.open``."""


def retry_smaller(refused: OSError, read: Callable[[int], T], count: int) -> T:
    """After ``refused`` (a read of ``count`` bytes failed): ``read(count)`` again at half
    the count while the file refuses the count, down to :data:`SMALLEST_READ`; any other
    error, or a refusal at the smallest count, is raised."""
    while refused.errno in REFUSED_COUNT and count > SMALLEST_READ:
        count = max(SMALLEST_READ, count // 2)
        try:
            return read(count)
        except OSError as exc:
            refused = exc
    raise refused


def read_any(fd: int, count: int) -> bytes:
    """``os.read(fd, count)``, at a smaller count where the file refuses this one."""
    try:
        return os.read(fd, count)  # the usual case, with nothing made for the retry
    except OSError as exc:
        return retry_smaller(exc, lambda smaller: os.read(fd, smaller), count)


def readinto_any(handle, view: memoryview) -> int | None:
    """``handle.readinto(view)``, into less of ``view`` where the file refuses its size."""
    try:
        return handle.readinto(view)
    except OSError as exc:
        return retry_smaller(exc, lambda smaller: handle.readinto(view[:smaller]), view.nbytes)


def fill(handle, view: memoryview) -> int:
    """Read into ``view`` until it is full or the file ends; the bytes read.
    BlockingIOError for a non-blocking stream with nothing to give."""
    got = 0
    while got < view.nbytes:
        more = readinto_any(handle, view[got:])
        if more is None:
            raise BlockingIOError("the stream must be blocking: readinto returned None")
        if not more:
            break
        got += more
    return got


def stream_chunks(handle, size: int) -> Iterator[memoryview]:
    """What ``handle`` (a binary file object) holds from its position to its end, in
    reads of up to ``size`` bytes into one buffer; each view is valid until the next.
    BlockingIOError for a non-blocking stream with nothing to give."""
    view = memoryview(bytearray(size))
    while True:
        got = readinto_any(handle, view)
        if got is None:
            raise BlockingIOError("the stream must be blocking: readinto returned None")
        if not got:
            return
        yield view[:got]


def named_error(exc: OSError, path: str | bytes) -> OSError:
    """``exc`` with ``path`` as its filename (read errors come without one)."""
    if exc.filename is not None:
        return exc
    return OSError(exc.errno, exc.strerror or os.strerror(exc.errno or 0), path)
