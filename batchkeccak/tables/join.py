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

from batchkeccak.native.jit import njit
from batchkeccak.native.words import load_le64
from batchkeccak.tables.keys import fixed_key_bytes, key_words
from batchkeccak.tables.runs import Chunk

DIFFERENCES_PER_CALL = 64 * 1024
"""Differences the kernel reports per call: bounds its output buffers however many differ."""

ADDED, REMOVED, CHANGED = range(3)
"""Kind codes of a difference: a key only in ``b``, only in ``a``, in both with other rows
(the order of :data:`batchkeccak.tables.changes.CHANGE_KINDS`)."""


@njit(cache=True, nogil=True)
def _walk(words_a, words_b, digests_a, digests_b, start_a, start_b, a_done, b_done, rows_a, rows_b):
    # Advances through both blocks from (start_a, start_b) in key order until a block that is
    # not its stream's last runs out or the output is full. A key only in a is written as
    # (row in a, -1), only in b as (-1, row in b), in both with other digests as (row, row).
    count_a, count_b = words_a.shape[0], words_b.shape[0]
    width, digest_width = words_a.shape[1], digests_a.shape[1]
    if digests_a.shape[0] < count_a or digests_b.shape[0] < count_b:
        raise ValueError("_walk: fewer digests than keys")
    if digests_b.shape[1] != digest_width:
        raise ValueError("_walk: the two sides' digests differ in width")
    flat_a, flat_b = digests_a.reshape(-1), digests_b.reshape(-1)
    i, j, written, matched = start_a, start_b, 0, 0
    while written < rows_a.shape[0]:
        if i == count_a:
            if not a_done or j == count_b:
                break
            rows_a[written], rows_b[written] = -1, j
            written += 1
            j += 1
            continue
        if j == count_b:
            if not b_done:
                break
            rows_a[written], rows_b[written] = i, -1
            written += 1
            i += 1
            continue
        order = 0
        for w in range(width):
            if words_a[i, w] != words_b[j, w]:
                order = -1 if words_a[i, w] < words_b[j, w] else 1
                break
        if order < 0:
            rows_a[written], rows_b[written] = i, -1
            written += 1
            i += 1
        elif order > 0:
            rows_a[written], rows_b[written] = -1, j
            written += 1
            j += 1
        else:
            matched += 1
            if _digests_differ(flat_a, i * digest_width, flat_b, j * digest_width, digest_width):
                rows_a[written], rows_b[written] = i, j
                written += 1
            i += 1
            j += 1
    return written, matched, i, j


@njit(cache=True, nogil=True)
def _digests_differ(flat_a, at_a, flat_b, at_b, width):
    # A word at a time (a byte loop cost a third of the walk), then the last bytes.
    k = 0
    while k + 8 <= width:
        if load_le64(flat_a, at_a + k) != load_le64(flat_b, at_b + k):
            return True
        k += 8
    while k < width:
        if flat_a[at_a + k] != flat_b[at_b + k]:
            return True
        k += 1
    return False


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
        written, matched, a.position, b.position = _walk(
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
