"""Spreading one batch over threads: each thread runs the nogil kernel on its own messages.

The one owner of the package's threads: the hashing pool (:func:`run_parallel`), the reading
pool (:func:`reader_pool`, for :mod:`batchkeccak.io`) and the pools of one call whose tasks
wait for other work (:func:`call_pool`, the table digests' sources and batches) are all
made here.
"""

from __future__ import annotations

import os
import threading
from concurrent.futures import ThreadPoolExecutor
from itertools import pairwise

from batchkeccak.permutation import TILE_WIDTH
from batchkeccak.support.checks import check_int

MIN_PERMUTATIONS_PER_THREAD = 64 * TILE_WIDTH
"""Below this much work per extra thread, starting it costs more than it saves."""

CHUNKS_PER_THREAD = 8
"""The queue is cut into about this many chunks per thread, taken by whichever thread is free:
on a shared machine one slowed core then delays the call by one chunk, not by half of it."""

_pool: ThreadPoolExecutor | None = None
_pool_lock = threading.Lock()
_readers: ThreadPoolExecutor | None = None


def available_cores() -> int:
    """Cores this process may run on (the affinity mask where the OS has one)."""
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # macOS, Windows
        return os.cpu_count() or 1


def _executor() -> ThreadPoolExecutor:
    global _pool
    with _pool_lock:
        if _pool is None:
            _pool = ThreadPoolExecutor(
                max_workers=max(available_cores(), 1), thread_name_prefix="batchkeccak"
            )
        return _pool


def reader_pool() -> ThreadPoolExecutor:
    """The reading threads, started on first use: one per available core, two at least.

    Not the hashing threads: those may be busy hashing one buffer while the next is read. No
    task of this pool waits for another task of it, so a caller may wait for its own."""
    global _readers
    with _pool_lock:
        if _readers is None:
            _readers = ThreadPoolExecutor(
                max_workers=max(2, available_cores()), thread_name_prefix="batchkeccak-read"
            )
        return _readers


def call_pool(workers: int, name: str) -> ThreadPoolExecutor:
    """A pool of ``workers`` threads for one call, named ``batchkeccak-NAME``, which the
    caller closes (``with``): for tasks that wait for other work (a source's reader waits
    for its batches), which would starve the shared pools."""
    _settings_checked_before_threads()
    return ThreadPoolExecutor(max_workers=workers, thread_name_prefix=f"batchkeccak-{name}")


def resolve_threads(threads: object) -> int:
    """``threads`` as a positive count; None means every available core."""
    if threads is None:
        return available_cores()
    return check_int(
        threads, "threads", 1, expected="a positive int or None", note=" (or None for every core)"
    )


def chunk_ranges(count: int, threads: int) -> list[tuple[int, int]]:
    """Cut messages ``0..count`` into contiguous ``(start, stop)`` ranges for ``threads``.

    Ranges hold a whole number of tiles (``TILE_WIDTH`` messages), the last one excepted.
    """
    if threads == 1 or count == 0:
        return [(0, count)]
    size = -(-count // (threads * CHUNKS_PER_THREAD))
    size = -(-size // TILE_WIDTH) * TILE_WIDTH
    return [(start, min(start + size, count)) for start in range(0, count, size)]


def split_ranges(first: int, stop: int, parts: int, weights=None) -> list[tuple[int, int]]:
    """Cut ``first..stop`` into at most ``parts`` contiguous, non-empty ``(start, stop)``
    ranges of about equal size (none for an empty range): the one way a batch is shared out where ``chunk_ranges``'
    whole tiles do not apply.

    With ``weights`` (one non-negative number per item of ``first..stop``, the work each
    costs) the ranges hold about equal total weight instead of equal counts.
    """
    count = stop - first
    parts = max(1, min(parts, count))
    if weights is None:
        bounds = [first + count * i // parts for i in range(parts + 1)]
    else:
        import numpy as np

        cumulative = np.cumsum(weights)
        targets = np.arange(1, parts) * (int(cumulative[-1]) / parts) if count else np.empty(0)
        cuts = (np.searchsorted(cumulative, targets, side="right") + first).tolist()
        bounds = sorted({first, *cuts, stop})
    return [(a, b) for a, b in pairwise(bounds) if b > a]


def _settings_checked_before_threads() -> None:
    """A bad ``BATCHKECCAK_TILE_BITS`` is a ValueError raised while the kernels' modules load;
    load that check here, in the calling thread, before any thread starts, so that every
    call sees the same ValueError (two threads loading a module whose import raises can see
    it half made: an ImportError). Nothing is loaded when the variable is not set."""
    if os.environ.get("BATCHKECCAK_TILE_BITS", "").strip():
        import batchkeccak.permutation.vector_width  # noqa: F401 - raises for a bad value


def run_parallel(kernel, items: list, *args, workers: int | None = None) -> None:
    """Run ``kernel(item, *args)`` for every item on up to ``workers`` threads.

    The calling thread works too; each thread takes the next item when it finishes one (the
    kernels release the GIL). ``workers`` defaults to one per item. The first exception is
    re-raised once every thread has stopped.
    """
    workers = min(workers or len(items), len(items))
    if workers <= 1:
        for item in items:
            kernel(item, *args)
        return
    _settings_checked_before_threads()
    pending = iter(items)
    lock = threading.Lock()
    failed = threading.Event()

    def drain() -> None:
        while not failed.is_set():
            with lock:
                item = next(pending, None)
            if item is None:
                return
            try:
                kernel(item, *args)
            except BaseException:
                failed.set()
                raise

    futures = [_executor().submit(drain) for _ in range(workers - 1)]
    try:
        drain()
    finally:
        for future in futures:
            future.exception()  # wait for every thread before anything is raised
    for future in futures:
        future.result()
