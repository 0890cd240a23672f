"""Per-message framing: each message with a length prefix and/or a trailer, in one new buffer.

SP 800-185 ends every KMAC, TupleHash and ParallelHash input with ``right_encode(L)`` and
TupleHash starts each string with its bit length; KangarooTwelve appends the customization
string. A prefix that is the same for every message is absorbed once into the initial
state instead (:func:`batchkeccak.sponge.absorb_prefixes`); what follows a message cannot
be, so those bytes are written beside each message here: one pass over the data.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from batchkeccak.inputs import readonly


@njit(cache=True, nogil=True, inline="always")
def _left_encode_size(bits):
    size = 1
    rest = bits >> 8
    while rest > 0:
        size += 1
        rest >>= 8
    return size


@njit(cache=True, nogil=True)
def _framed_size(offsets, length_prefix, trailer_size):
    total = 0
    for i in range(offsets.shape[0] - 1):
        length = offsets[i + 1] - offsets[i]
        total += length + trailer_size
        if length_prefix:
            total += 1 + _left_encode_size(8 * length)
    return total


@njit(cache=True, nogil=True)
def _frame(data, offsets, length_prefix, trailer, out_data, out_offsets):
    trailer_size = trailer.shape[0]
    pos = 0
    out_offsets[0] = 0
    for i in range(offsets.shape[0] - 1):
        start = offsets[i]
        length = offsets[i + 1] - start
        if length_prefix:
            bits = 8 * length
            size = _left_encode_size(bits)
            out_data[pos] = size
            pos += 1
            for b in range(size - 1, -1, -1):
                out_data[pos] = (bits >> (8 * b)) & 0xFF
                pos += 1
        out_data[pos : pos + length] = data[start : start + length]
        pos += length
        out_data[pos : pos + trailer_size] = trailer
        pos += trailer_size
        out_offsets[i + 1] = pos


def frame_messages(
    data: np.ndarray, offsets: np.ndarray, trailer: bytes, length_prefix: bool = False
) -> tuple[np.ndarray, np.ndarray]:
    """Every message ``m`` as ``[left_encode(8 * len(m))] || m || trailer``, flat.

    Takes and returns flat views under :mod:`batchkeccak.inputs`' contract.
    """
    trailer_array = readonly(np.frombuffer(trailer, dtype=np.uint8))
    size = _framed_size(offsets, length_prefix, trailer_array.shape[0])
    out_data = np.empty(size, dtype=np.uint8)
    out_offsets = np.empty(offsets.shape[0], dtype=np.int64)
    _frame(data, offsets, length_prefix, trailer_array, out_data, out_offsets)
    return readonly(out_data), readonly(out_offsets)
