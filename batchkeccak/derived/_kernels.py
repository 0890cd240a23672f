"""The modes' compiled functions: each message framed with a length prefix and/or a trailer,
rows of fields as SP 800-185's ``encode_string``, both written into one new buffer in one pass
(called by :mod:`batchkeccak.derived._layout`, which sizes the buffers); and an engine's
batch of equal short messages framed in the start state and hashed in place
(``hash_framed_offsets``, through ``sponge.hash_uniform``).

Callers pass flat views under :mod:`batchkeccak.inputs`' contract.
"""

from __future__ import annotations

import numpy as np

from batchkeccak.native.arrays import read_only
from batchkeccak.native.jit import njit
from batchkeccak.permutation import LANE_COUNT, TILE_WIDTH
from batchkeccak.sponge import copy_checked_offsets, hash_uniform


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


# -- an engine's batch of equal single-block messages, framed in the start state
#
# TupleHash frames every string as ``left_encode(8 * len) || string``; for a batch of equal
# rows that prefix is the same bytes for every row, as is the ``right_encode(L)`` trailer, so
# both go into the shared start state once and each row is read from where it lies
# (``sponge.hash_uniform`` loads its words ``shift`` bytes early) instead of copied into a
# framed buffer.


@njit(cache=True, nogil=True)
def hash_framed_offsets(
    data, offsets, own, initial, length_prefix, trailer, rate, suffix, first_round, out
):
    """One engine batch of a framed mode (KMAC, TupleHash) in one call: ``offsets`` (the
    caller's, int32 or int64, unchecked) copied into ``own`` (int64, one more entry than
    ``out`` has rows) and the copy checked (in ``data``, non-decreasing: ValueError if
    not); then, when every message has one length and fits one block with its framing
    (``left_encode(8 * len)`` before it where ``length_prefix``, ``trailer`` after it), the
    batch is hashed in place from ``initial[0]`` with that framing XORed in, and True is
    returned. False, having hashed nothing, for any other batch: the caller hashes it from
    ``own``, which it may then read as checked."""
    count = offsets.shape[0] - 1
    if count < 0 or own.shape[0] != count + 1 or out.shape[0] < count:
        raise ValueError("hash_framed_offsets: offsets must hold one more entry than out has rows")
    copy_checked_offsets(offsets, own, data.shape[0])
    if count < TILE_WIDTH or out.shape[1] > rate or initial.shape[0] != 1:
        return False
    length = own[1] - own[0]
    for i in range(count):
        if own[i + 1] - own[i] != length:
            return False
    shift = 0
    if length_prefix:
        shift = 1 + _left_encode_size(8 * length)
    padded = shift + length + trailer.shape[0]
    if padded >= rate:
        return False
    # The framing's bytes XORed into a copy of the start state, byte i into word i >> 3.
    start = np.empty((1, LANE_COUNT), dtype=np.uint64)
    for k in range(LANE_COUNT):
        start[0, k] = initial[0, k]
    if length_prefix:
        bits = 8 * length
        size = shift - 1
        start[0, 0] ^= np.uint64(size)
        for b in range(size):
            byte = (bits >> (8 * (size - 1 - b))) & 0xFF
            at = 1 + b
            start[0, at >> 3] ^= np.uint64(byte) << np.uint64(8 * (at & 7))
    for b in range(trailer.shape[0]):
        at = shift + length + b
        start[0, at >> 3] ^= np.uint64(trailer[b]) << np.uint64(8 * (at & 7))
    hash_uniform(
        read_only(data),
        own[0],
        count,
        length,
        read_only(start),
        rate,
        suffix,
        first_round,
        out,
        np.int64(shift),
        np.int64(trailer.shape[0]),
    )
    return True
