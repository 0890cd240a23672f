"""Per-message framing: each message with a length prefix and/or a trailer, in one new buffer.

SP 800-185 ends every KMAC, TupleHash and ParallelHash input with ``right_encode(L)`` and
TupleHash starts each string with its bit length; KangarooTwelve appends the customization
string. A prefix that is the same for every message is absorbed once into the initial
state instead (:func:`batchkeccak.core.sponge.absorb_prefixes`); what follows a message cannot
be, so those bytes are written beside each message here: one pass over the data.
"""

from __future__ import annotations

import numpy as np

from batchkeccak.inputs import readonly
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


@njit(cache=True, nogil=True)
def _append_encoded_strings(encoded, positions, data, offsets):
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
        for b in range(size):  # a byte loop over views: see _frame
            target[b] = source[b]
        positions[row] = pos + size


def encode_string_rows(
    fields: list[tuple[np.ndarray, np.ndarray]], count: int, trailer: bytes
) -> tuple[np.ndarray, np.ndarray]:
    """Rows of fields as ``encode_string(f1) || ... || encode_string(fk) || trailer``, flat:
    TupleHash's input for each row. ``fields`` holds each column's ``(data, offsets)``."""
    row_lengths = np.full(count, len(trailer), dtype=np.int64)
    for _, offsets in fields:
        sizes = np.diff(offsets)
        bits = sizes * 8
        widths = np.ones(count, dtype=np.int64)
        for k in range(1, 8):
            widths += bits >= (1 << (8 * k))
        row_lengths += 1 + widths + sizes
    row_offsets = np.zeros(count + 1, dtype=np.int64)
    np.cumsum(row_lengths, out=row_offsets[1:])
    encoded = np.empty(int(row_offsets[-1]), dtype=np.uint8)
    positions = row_offsets[:-1].copy()
    for data, offsets in fields:
        _append_encoded_strings(encoded, positions, data, offsets)
    if trailer:
        tail = np.frombuffer(trailer, dtype=np.uint8)
        ends = row_offsets[1:]
        for k, byte in enumerate(tail):
            encoded[ends - len(tail) + k] = byte
    return readonly(encoded), readonly(row_offsets)
