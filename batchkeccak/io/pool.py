"""The one pool of reading threads, and reading ahead into a second buffer.

The reading threads are not the hashing threads (:mod:`batchkeccak.core.parallel`): those may be
busy hashing one buffer while the next is read. No task of this pool waits for another task
of it, so a caller may wait for its own (or read in its place, :func:`read_ahead`).
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Generator
from concurrent.futures import ThreadPoolExecutor
from typing import TypeVar

R = TypeVar("R")
Q = TypeVar("Q")

_readers: ThreadPoolExecutor | None = None
_readers_lock = threading.Lock()


def reader_pool() -> ThreadPoolExecutor:
    """The reading threads, started on first use: one per available core, two at least."""
    global _readers
    with _readers_lock:
        if _readers is None:
            from batchkeccak.core.parallel import available_cores

            _readers = ThreadPoolExecutor(
                max_workers=max(2, available_cores()), thread_name_prefix="batchkeccak-read"
            )
        return _readers


def read_ahead(
    fill: Callable[[int, Q], R], request: Q, following: Callable[[R], Q | None]
) -> Generator[tuple[int, R], None, None]:
    """``(turn, fill(turn, request))`` for turns 0, 1, 0, 1...: two sets of buffers, one
    filled by a reading thread while the caller works on what the other holds.

    ``following(result)`` is the request for the next turn, None when nothing is left to read.
    Should the reading thread not have started by the time its turn is needed (every core
    busy), this thread reads in its place rather than wait for it to be scheduled. However
    the iteration ends (its end, an error, ``close()``), no read is still running after it:
    the caller may then close what was read.
    """
    turn = 0
    result = fill(turn, request)
    while True:
        after = following(result)
        if after is None:
            yield turn, result
            return
        ahead = reader_pool().submit(fill, 1 - turn, after)
        try:
            yield turn, result
        except BaseException:
            if not ahead.cancel():
                ahead.exception()  # waits for it; the caller's error is the one raised
            raise
        result = fill(1 - turn, after) if ahead.cancel() else ahead.result()
        turn = 1 - turn
