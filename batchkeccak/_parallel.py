"""Spreading one batch over threads: each thread runs the nogil kernel on its own messages."""

from __future__ import annotations

import os
import threading
from concurrent.futures import ThreadPoolExecutor

import numpy as np

from batchkeccak.permutation import TILE_WIDTH

MIN_PERMUTATIONS_PER_THREAD = 64 * TILE_WIDTH
"""Below this much work per extra thread, starting it costs more than it saves."""

_CHUNK = 8 * TILE_WIDTH
"""Messages dealt to threads in chunks of this many (contiguous, for memory locality)."""

_pool: ThreadPoolExecutor | None = None
_pool_lock = threading.Lock()


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


def resolve_threads(threads: object) -> int:
    """``threads`` as a positive count; None means every available core."""
    if threads is None:
        return available_cores()
    if isinstance(threads, bool) or not isinstance(threads, (int, np.integer)):
        raise TypeError(f"threads must be a positive int or None, got {type(threads).__name__}")
    if threads < 1:
        raise ValueError(f"threads must be >= 1 (or None for every core), got {threads}")
    return int(threads)


def split_queue(order: np.ndarray, threads: int, varied: bool) -> list[np.ndarray]:
    """Cut the message queue into one queue per thread with similar amounts of work.

    Equal-sized messages are cut into contiguous parts; messages of ``varied`` sizes are dealt
    in chunks, round robin, so that a run of long messages is shared out too.
    """
    if threads == 1 or order.shape[0] == 0:
        return [order]
    if not varied:
        return [part for part in np.array_split(order, threads) if part.shape[0]]
    chunk = max(1, min(_CHUNK, -(-order.shape[0] // threads)))
    owner = (np.arange(order.shape[0]) // chunk) % threads
    return [order[owner == t] for t in range(threads) if np.any(owner == t)]


def run_parallel(kernel, queues: list[np.ndarray], *args) -> None:
    """Run ``kernel(queue, *args)`` for every queue, the first on the calling thread."""
    if len(queues) == 1:
        kernel(queues[0], *args)
        return
    futures = [_executor().submit(kernel, queue, *args) for queue in queues[1:]]
    kernel(queues[0], *args)
    for future in futures:
        future.result()
