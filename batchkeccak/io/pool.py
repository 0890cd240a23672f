"""Reading ahead into a second buffer, on the pool of reading threads.

The reading threads (:func:`reader_pool`, owned by :mod:`batchkeccak.core.parallel` with
every other pool) are not the hashing threads: those may be busy hashing one buffer while
the next is read. No task of that pool waits for another task of it, so a caller may wait
for its own (or read in its place, :func:`read_ahead`).
"""

from __future__ import annotations

from collections.abc import Callable, Generator
from typing import TypeVar

from batchkeccak.core.parallel import reader_pool

R = TypeVar("R")
Q = TypeVar("Q")


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
