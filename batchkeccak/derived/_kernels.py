"""The modes' compiled framing: each message with a length prefix and/or a trailer, and rows
of fields as SP 800-185's ``encode_string``, written into one new buffer in one pass.

Called by :mod:`batchkeccak.derived._layout`, which sizes the buffers and checks nothing
more: its callers pass flat views under :mod:`batchkeccak.inputs`' contract.
"""

from __future__ import annotations

from batchkeccak.native.jit import njit


@njit(cache=True, nogil=True, inline="always")
def _left_encode_size(bits):
    size = 1
    rest = bits >> 8
    while rest > 0:
        size += 1
        rest >>= 8
    return size


@njit(cache=True, nogil=True)
def framed_size(offsets, length_prefix, trailer_size):
    total = 0
    for i in range(offsets.shape[0] - 1):
        length = offsets[i + 1] - offsets[i]
        total += length + trailer_size
        if length_prefix:
            total += 1 + _left_encode_size(8 * length)
    return total


@njit(cache=True, nogil=True)
def frame(data, offsets, length_prefix, trailer, out_data, out_offsets):
    trailer_size = trailer.shape[0]
    pos = 0
    out_offsets[0] = 0
    for i in range(offsets.shape[0] - 1):
        start = offsets[i]
        length = offsets[i + 1] - start
        if length_prefix:
            bits = 8 * length
            size = _left_encode_size(bits)
            head = out_data[pos : pos + 1 + size]
            head[0] = size
            for b in range(size):
                head[1 + b] = (bits >> (8 * (size - 1 - b))) & 0xFF
            pos += 1 + size
        # Byte loops over views, not slice assignments: numba compiles a slice assignment's
        # shape check with its error message formatting, seconds of compile time for a check
        # these sizes never fail. Over views (not ``out_data[pos + b] = data[start + b]``)
        # LLVM sees two arrays that do not overlap and copies in vector words: 30x faster,
        # the framing of a long message costs a few percent of its hash, not twice it.
        source = data[start : start + length]
        target = out_data[pos : pos + length + trailer_size]
        for b in range(length):
            target[b] = source[b]
        for b in range(trailer_size):
            target[length + b] = trailer[b]
        pos += length + trailer_size
        out_offsets[i + 1] = pos


@njit(cache=True, nogil=True)
def append_encoded_strings(encoded, positions, data, offsets):
    # One field of every row as SP 800-185's encode_string: left_encode(bit length), bytes.
    for row in range(positions.shape[0]):
        pos = positions[row]
        start = offsets[row]
        size = offsets[row + 1] - start
        bits = 8 * size
        width = _left_encode_size(bits)
        encoded[pos] = width
        for b in range(width):
            encoded[pos + 1 + b] = (bits >> (8 * (width - 1 - b))) & 0xFF
        pos += 1 + width
        source = data[start : start + size]
        target = encoded[pos : pos + size]
        for b in range(size):  # a byte loop over views: see frame
            target[b] = source[b]
        positions[row] = pos + size
