"""Numba kernels for the Merkle trees: pair ordering for a level, and the leaf sort."""

from __future__ import annotations

import numpy as np

from batchkeccak.native.jit import njit


@njit(cache=True, nogil=True)
def sorted_pairs(pair_bytes, pair_words, out_words):
    """Write ``min(l, r) || max(l, r)`` for each pair ``l || r`` of 32-byte nodes.

    ``pair_bytes`` is the (k, 64) uint8 pairs, ``pair_words`` the same memory as (k, 8)
    uint64 and ``out_words`` the (k, 8) uint64 output: bytes decide the order (OpenZeppelin
    compares nodes as big-endian numbers, i.e. byte by byte, stopping at the first byte that
    differs, the first one for hashes), whole words move the data (eight times fewer loads
    and stores than bytes). Equal halves are copied as they are.
    """
    for i in range(pair_bytes.shape[0]):
        swap = False
        for b in range(32):
            left = pair_bytes[i, b]
            right = pair_bytes[i, 32 + b]
            if left != right:
                swap = right < left
                break
        if swap:
            for w in range(4):
                out_words[i, w] = pair_words[i, 4 + w]
                out_words[i, 4 + w] = pair_words[i, w]
        else:
            for w in range(8):
                out_words[i, w] = pair_words[i, w]


@njit(cache=True, nogil=True)
def key_order(keys, max_bucket):
    """The ascending order of uint64 ``keys``, stable, and whether two keys are equal.

    A counting sort on the top 16 bits deals (key, index) pairs into 65536 buckets in input
    order; an insertion sort, shifting only past strictly greater keys, orders each bucket,
    whose keys now sit side by side in memory. Hash prefixes spread evenly (16 per bucket
    for a million), so this is two linear passes and many tiny sorts. Returns
    ``(order, tied)``; ``order`` is empty, leaving the work to a comparison sort, when a
    bucket holds more than ``max_bucket`` keys (leaves sharing their first bytes), where
    insertion sort would turn quadratic.
    """
    count = keys.shape[0]
    shift = np.uint64(48)
    starts = np.zeros(65537, dtype=np.int64)
    for i in range(count):
        starts[np.int64(keys[i] >> shift) + 1] += 1
    largest = 0
    for b in range(65536):
        largest = max(largest, starts[b + 1])
        starts[b + 1] += starts[b]
    if largest > max_bucket:
        return np.empty(0, dtype=np.int64), False
    order = np.empty(count, dtype=np.int64)
    ranked = np.empty(count, dtype=np.uint64)
    fill = starts[:65536].copy()
    for i in range(count):
        b = np.int64(keys[i] >> shift)
        ranked[fill[b]] = keys[i]
        order[fill[b]] = i
        fill[b] += 1
    tied = False
    for b in range(65536):
        first = starts[b]
        for k in range(first + 1, starts[b + 1]):
            key = ranked[k]
            item = order[k]
            j = k - 1
            while j >= first and ranked[j] > key:
                ranked[j + 1] = ranked[j]
                order[j + 1] = order[j]
                j -= 1
            if j >= first and ranked[j] == key:
                tied = True
            ranked[j + 1] = key
            order[j + 1] = item
    return order, tied
