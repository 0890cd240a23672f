"""The modes' compiled functions: each message framed with a length prefix and/or a trailer,
rows of fields as SP 800-185's ``encode_string``, both written into one new buffer in one pass
(called by :mod:`batchkeccak.derived._layout`, which sizes the buffers); and equal short
messages hashed in place at a fixed offset of their block (``hash_uniform_shifted``, called
by :mod:`batchkeccak.derived.mode_hashers`).

Callers pass flat views under :mod:`batchkeccak.inputs`' contract.
"""

from __future__ import annotations

import numpy as np

from batchkeccak.native.jit import njit
from batchkeccak.native.words import load_le64
from batchkeccak.permutation import LANE_COUNT, TILE_WIDTH, new_tiles
from batchkeccak.permutation.lanes import set_words_4x4
from batchkeccak.sponge import finish_uniform_tile


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


# -- equal single-block messages at a fixed byte offset of their block, read in place
#
# TupleHash frames every string as ``left_encode(8 * len) || string``; for a batch of equal
# rows that prefix is the same bytes for every row, as is the ``right_encode(L)`` trailer, so
# both go into the shared start state once and each row is read from where it lies, its words
# loaded ``shift`` bytes early (unaligned loads) instead of copied into a framed buffer.


@njit(cache=True, nogil=True, inline="always")
def _partial_word(data, at, size):
    """``data[at:at + size]`` (``0 <= size <= 8``) as a little-endian word, zeros above."""
    if size == 0:
        return np.uint64(0)
    if at + 8 <= data.shape[0]:
        word = load_le64(data, at)
        if size == 8:
            return word
        return word & ((np.uint64(1) << np.uint64(8 * size)) - np.uint64(1))
    word = np.uint64(0)
    for b in range(size):
        word |= np.uint64(data[at + b]) << np.uint64(8 * b)
    return word


@njit(cache=True, nogil=True)
def hash_uniform_shifted(
    data, start, count, length, shift, initial, rate, suffix, first_round, out, padded
):
    """Hash ``count`` messages of ``length`` bytes stored back to back from ``start``, each
    at bytes ``shift .. shift + length`` of its one block (``0 <= shift < 8``).

    Every message starts from the one state ``initial[0]``, which already holds what the
    block has around the message (a prefix in bytes ``0 .. shift``, a trailer after it);
    padding starts at byte ``padded`` (``shift + length <= padded < rate``). A last tile of
    fewer than ``TILE_WIDTH`` messages fills its idle lanes with its last message and
    writes nothing for them, as ``sponge.hash_uniform`` does.
    """
    end = shift + length  # the block byte after the message
    if (
        start < 0
        or length < 0
        or shift < 0
        or shift >= 8
        or padded < end
        or padded >= rate
        or out.shape[1] > rate
        or count < 0
        or out.shape[0] < count
        or start + count * length > data.shape[0]
        or initial.shape[0] != 1
        or initial.shape[1] != LANE_COUNT
    ):
        raise ValueError("hash_uniform_shifted: the messages leave the data buffer or the output")
    width = TILE_WIDTH
    out_len = out.shape[1]
    flat_out = out.reshape(-1)
    tile, spare = new_tiles()
    # Block word 0 holds the prefix and the message's first bytes (unless shift is 0);
    # words first_full .. full_end are whole message words; word full_end its last bytes.
    first_full = 1 if shift > 0 else 0
    full_end = max(end >> 3, first_full)
    grouped_end = first_full + ((full_end - first_full) & ~3)
    head_size = min(8 - shift, length) if shift > 0 else 0
    tail_size = end - 8 * full_end if end > 8 * full_end else 0
    touched = (end + 7) >> 3  # the block words that hold message bytes
    tail_mask = (np.uint64(1) << np.uint64(8 * tail_size)) - np.uint64(1)
    last_word = (rate >> 3) - 1
    for first in range(0, count, width):
        base = start + first * length
        last = min(width, count - first) - 1
        # Whole tiles whose loads may run up to 7 bytes past their last message (into the
        # next one) read every word unmasked, four lanes by four words, and mask the last
        # word after; the last tile, whose loads could leave the buffer, goes word by word.
        if base + last * length + 8 * touched - shift <= data.shape[0] and touched > 1:
            if shift > 0:
                for j in range(width):
                    at = base + min(j, last) * length
                    tile[j] = load_le64(data, at) << np.uint64(8 * shift)
            wide_end = first_full + ((touched - first_full) & ~3)
            for k in range(first_full, wide_end, 4):
                for j in range(0, width, 4):
                    set_words_4x4(
                        tile,
                        k * width + j,
                        width,
                        data,
                        base + min(j, last) * length + 8 * k - shift,
                        base + min(j + 1, last) * length + 8 * k - shift,
                        base + min(j + 2, last) * length + 8 * k - shift,
                        base + min(j + 3, last) * length + 8 * k - shift,
                    )
            for k in range(wide_end, touched):
                for j in range(width):
                    tile[k * width + j] = load_le64(
                        data, base + min(j, last) * length + 8 * k - shift
                    )
            if tail_size > 0:
                for j in range(width):
                    tile[full_end * width + j] &= tail_mask
        else:
            if shift > 0:
                for j in range(width):
                    at = base + min(j, last) * length
                    tile[j] = _partial_word(data, at, head_size) << np.uint64(8 * shift)
            for k in range(first_full, grouped_end, 4):
                for j in range(0, width, 4):
                    set_words_4x4(
                        tile,
                        k * width + j,
                        width,
                        data,
                        base + min(j, last) * length + 8 * k - shift,
                        base + min(j + 1, last) * length + 8 * k - shift,
                        base + min(j + 2, last) * length + 8 * k - shift,
                        base + min(j + 3, last) * length + 8 * k - shift,
                    )
            for k in range(grouped_end, full_end):
                for j in range(width):
                    tile[k * width + j] = load_le64(
                        data, base + min(j, last) * length + 8 * k - shift
                    )
            if tail_size > 0:
                for j in range(width):
                    at = base + min(j, last) * length + 8 * full_end - shift
                    tile[full_end * width + j] = _partial_word(data, at, tail_size)
        finish_uniform_tile(
            tile,
            spare,
            initial,
            touched,
            padded,
            last_word,
            suffix,
            first_round,
            first,
            last,
            flat_out,
            out_len,
        )


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
    for i in range(count + 1):
        own[i] = offsets[i]
    if own[0] < 0 or own[count] > data.shape[0]:
        raise ValueError("hash_framed_offsets: the offsets leave the data buffer")
    for i in range(count):
        if own[i + 1] < own[i]:
            raise ValueError("hash_framed_offsets: the offsets decrease")
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
    hash_uniform_shifted(
        data, own[0], count, length, shift, start, rate, suffix, first_round, out, padded
    )
    return True
