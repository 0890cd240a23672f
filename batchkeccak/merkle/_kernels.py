"""Numba kernels for the Merkle levels: the scratch copies numpy would make in several passes."""

from __future__ import annotations

from numba import njit


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
