"""Two streams of rows in key order, walked side by side: the keys only in ``a``, only in
``b``, and in both with different row digests.

Each side's rows come in key order (one side's sorted runs merged, see
:func:`batchkeccak.tables.runs.merged_chunks`), so the two meet in one linear pass: a kernel
compares the current keys of both sides as big-endian 64-bit words (fixed-width keys: every
integer, temporal and boolean key) and, where they are equal, the two rows' digests. Only the
differences leave the kernel, a bounded buffer at a time, so memory holds one block per side.
Variable-length keys (strings, binary) are merged with :func:`merged_chunks` instead.
"""

from __future__ import annotations

from collections.abc import Iterator

import numpy as np
import pyarrow as pa

from batchkeccak.tables._kernels import walk
from batchkeccak.tables.keys import fixed_key_bytes, key_words
from batchkeccak.tables.runs import Chunk

DIFFERENCES_PER_CALL = 64 * 1024
"""Differences the kernel reports per call: bounds its output buffers however many differ."""

ADDED, REMOVED, CHANGED = range(3)
"""Kind codes of a difference: a key only in ``b``, only in ``a``, in both with other rows
(the order of :data:`batchkeccak.tables.changes.CHANGE_KINDS`)."""


class _Side:
    """One side's stream, a block at a time: its keys as words, and its digests."""

    def __init__(self, chunks: Iterator[Chunk], width: int, digest_width: int) -> None:
        self._chunks = chunks
        self.done = False
        self.keys = pa.array([], pa.binary(width))
        self.words = np.zeros((0, max(-(-width // 8), 1)), dtype=np.uint64)
        self.digests = np.zeros((0, digest_width), dtype=np.uint8)
        self.position = 0

    def refill(self) -> None:
        """The next non-empty block, or ``done`` when the stream has no more."""
        for chunk in self._chunks:
            if len(chunk.keys):
                self.keys = chunk.keys
                self.words = np.ascontiguousarray(key_words(chunk.keys))
                self.digests = np.ascontiguousarray(chunk.digests)
                self.position = 0
                return
        self.keys = self.keys.slice(0, 0)
        self.words, self.digests, self.position = self.words[:0], self.digests[:0], 0
        self.done = True

    @property
    def exhausted(self) -> bool:
        return self.position == self.words.shape[0]


def sorted_differences(
    chunks_a: Iterator[Chunk], chunks_b: Iterator[Chunk], key_width: int, digest_width: int
) -> Iterator[tuple[pa.Array, np.ndarray, int]]:
    """The differences between two streams of unique, fixed-width keys in key order: per
    step, the differing keys (encoded, in key order), their kinds (:data:`ADDED`,
    :data:`REMOVED`, :data:`CHANGED`) and how many keys were found in both sides."""
    sides = [_Side(chunks, key_width, digest_width) for chunks in (chunks_a, chunks_b)]
    rows_a = np.empty(DIFFERENCES_PER_CALL, dtype=np.int64)
    rows_b = np.empty(DIFFERENCES_PER_CALL, dtype=np.int64)
    while True:
        for side in sides:
            if side.exhausted and not side.done:
                side.refill()
        a, b = sides
        if a.done and b.done:
            return
        written, matched, a.position, b.position = walk(
            a.words, b.words, a.digests, b.digests, a.position, b.position,
            a.done, b.done, rows_a, rows_b,
        )  # fmt: skip
        found_a, found_b = rows_a[:written], rows_b[:written]
        kinds = np.where(found_a < 0, ADDED, np.where(found_b < 0, REMOVED, CHANGED))
        keys = _fixed_rows(a.keys, b.keys, found_a, found_b, key_width)
        yield keys, kinds.astype(np.int8), matched


def _fixed_rows(
    keys_a: pa.Array, keys_b: pa.Array, rows_a: np.ndarray, rows_b: np.ndarray, width: int
) -> pa.Array:
    """The key of each difference, from ``a`` where it has a row there, else from ``b``."""
    from_a = rows_a >= 0
    picked = np.empty((rows_a.shape[0], width), dtype=np.uint8)
    picked[from_a] = fixed_key_bytes(keys_a)[rows_a[from_a]]
    picked[~from_a] = fixed_key_bytes(keys_b)[rows_b[~from_a]]
    return pa.Array.from_buffers(pa.binary(width), rows_a.shape[0], [None, pa.py_buffer(picked)])
