"""The sponge over many messages: absorb from a flat buffer, pad, permute tiles, squeeze.

Messages arrive as the Arrow layout: one flat ``uint8`` buffer and ``N + 1`` int64 offsets,
message ``i`` being ``data[offsets[i]:offsets[i+1]]``. The kernel walks a queue of message
indices (``order``) and keeps every lane of a tile busy: when a lane's message has produced
its output, the lane takes the next message from the queue. When the queue is empty and fewer
than ``MIN_TILE_LANES`` lanes are still working, those states leave the tile and finish on the
single-state permutation, where a lone long message costs one state's work instead of W.

Every message starts from an *initial state*: ``initial`` is a read-only ``(1, 25)`` uint64
array shared by the whole batch (all zeros for the plain FIPS 202 functions) or ``(N, 25)``,
one state per message. Keyed and customized modes (SP 800-185, HMAC, KangarooTwelve) absorb
their prefix once into such a state (``absorb_prefix``, ``absorb_prefixes``) instead of
copying it in front of every message; the domain byte ``suffix`` is a runtime argument too.

Nothing here validates its arguments beyond what keeps memory reads in bounds:
``batchkeccak.api`` does that once per call.
"""

from __future__ import annotations

import sys

import numpy as np
from llvmlite import ir
from numba import types
from numba.core import cgutils
from numba.extending import intrinsic

from batchkeccak._jit import njit
from batchkeccak.permutation import (
    LANE_COUNT,
    TILE_WIDTH,
    state_absorb,
    state_permute,
    tile_permute,
)

if sys.byteorder != "little":  # pragma: no cover - numba targets little-endian CPUs only
    raise ImportError("batchkeccak's kernels read message words in little-endian order")

MIN_TILE_LANES = TILE_WIDTH // 2
"""Below this many busy lanes the single-state permutation is cheaper (measured: one tile
state costs about 0.45x a scalar permutation with TILE_WIDTH = 32 on AVX2)."""

_PAD_LAST_BIT = np.uint64(0x8000000000000000)
_BYTE = np.uint64(0xFF)
_U = tuple(np.uint64(i) for i in range(57))  # small uint64 constants for shifts and offsets


@intrinsic
def prefetch(typingctx, array, index):
    """Hint the CPU to fetch the cache line holding ``array[index]`` (no fault, no effect).

    32 lanes read 32 separate places of the buffer, more streams than the hardware
    prefetchers follow: fetching each lane's next block a step ahead measured 1.1-1.5x
    faster on long messages.
    """
    sig = types.void(array, index)

    def codegen(context, builder, signature, args):
        view = context.make_array(signature.args[0])(context, builder, args[0])
        byte_pointer = ir.IntType(8).as_pointer()
        address = builder.bitcast(builder.gep(view.data, [args[1]]), byte_pointer)
        i32 = ir.IntType(32)
        llvm_prefetch = cgutils.get_or_insert_function(
            builder.module,
            ir.FunctionType(ir.VoidType(), [byte_pointer, i32, i32, i32]),
            "llvm.prefetch.p0",
        )
        # read access, keep in all cache levels, data cache
        builder.call(llvm_prefetch, [address, i32(0), i32(3), i32(1)])
        return context.get_dummy_value()

    return sig, codegen


_WORD = ir.IntType(64)
_WORD_VECTOR = ir.VectorType(_WORD, 4)


def _transpose_4x4(builder, rows):
    """Four <4 x i64> rows in, their transpose out (eight shuffles: ``vpunpck*qdq`` and
    ``vperm2i128`` on AVX2). The transpose is its own inverse."""

    def shuffle(a, b, mask):
        return builder.shuffle_vector(a, b, ir.Constant(ir.VectorType(ir.IntType(32), 4), mask))

    even01 = shuffle(rows[0], rows[1], [0, 4, 2, 6])
    odd01 = shuffle(rows[0], rows[1], [1, 5, 3, 7])
    even23 = shuffle(rows[2], rows[3], [0, 4, 2, 6])
    odd23 = shuffle(rows[2], rows[3], [1, 5, 3, 7])
    return [
        shuffle(even01, even23, [0, 1, 4, 5]),
        shuffle(odd01, odd23, [0, 1, 4, 5]),
        shuffle(even01, even23, [2, 3, 6, 7]),
        shuffle(odd01, odd23, [2, 3, 6, 7]),
    ]


def _vector_address(context, builder, array_type, array, index, index_type):
    view = context.make_array(array_type)(context, builder, array)
    position = context.cast(builder, index, index_type, types.int64)
    return builder.bitcast(builder.gep(view.data, [position]), _WORD_VECTOR.as_pointer())


def _tile_rows(context, builder, signature, args):
    """Addresses of tile words ``tile_index + r * width``, r < 4 (args 0, 1, 2)."""
    tile_type, index_type, width_type = signature.args[:3]
    index = context.cast(builder, args[1], index_type, types.int64)
    stride = context.cast(builder, args[2], width_type, types.int64)
    addresses = []
    for _ in range(4):
        addresses.append(_vector_address(context, builder, tile_type, args[0], index, types.int64))
        index = builder.add(index, stride)
    return addresses


@intrinsic
def _xor_words_4x4(typingctx, tile, tile_index, width, data, pos0, pos1, pos2, pos3, zeros):
    """XOR four consecutive message words from each of four lanes into the tile, transposed.

    ``data[pos_j:pos_j + 32]`` holds words ``k..k+3`` of lane ``j``; the tile keeps word ``k``
    of lanes ``j..j+3`` side by side at ``tile[tile_index + k * width + j]``. A negative
    ``pos_j`` reads 32 bytes of ``zeros`` instead, which leaves lane ``j`` as it was. Four
    unaligned vector loads and an in-register transpose replace 16 scalar loads and 16
    scalar read-modify-writes of the tile. Words are read in host order: numba's targets are
    all little-endian, as the sponge's byte order requires (checked at import).
    """
    sig = types.void(tile, tile_index, width, data, pos0, pos1, pos2, pos3, zeros)

    def codegen(context, builder, signature, args):
        zeros_address = _vector_address(
            context, builder, signature.args[8], args[8], _WORD(0), types.int64
        )
        rows = []
        for position, position_type in zip(args[4:8], signature.args[4:8]):
            address = _vector_address(
                context, builder, signature.args[3], args[3], position, position_type
            )
            position = context.cast(builder, position, position_type, types.int64)
            skipped = builder.icmp_signed("<", position, _WORD(0))
            rows.append(builder.load(builder.select(skipped, zeros_address, address), align=1))
        for address, column in zip(
            _tile_rows(context, builder, signature, args), _transpose_4x4(builder, rows)
        ):
            builder.store(builder.xor(builder.load(address, align=8), column), address, align=8)
        return context.get_dummy_value()

    return sig, codegen


@intrinsic
def _set_words_4x4(typingctx, tile, tile_index, width, data, pos0, pos1, pos2, pos3):
    """``_xor_words_4x4`` that overwrites the tile words instead (no lane skipped)."""
    sig = types.void(tile, tile_index, width, data, pos0, pos1, pos2, pos3)

    def codegen(context, builder, signature, args):
        rows = [
            builder.load(
                _vector_address(context, builder, signature.args[3], args[3], pos, pos_type),
                align=1,
            )
            for pos, pos_type in zip(args[4:8], signature.args[4:8])
        ]
        for address, column in zip(
            _tile_rows(context, builder, signature, args), _transpose_4x4(builder, rows)
        ):
            builder.store(column, address, align=8)
        return context.get_dummy_value()

    return sig, codegen


@intrinsic
def _get_words_4x4(typingctx, tile, tile_index, width, out, pos0, pos1, pos2, pos3):
    """The squeeze's mirror of ``_set_words_4x4``: tile words ``k..k+3`` of lanes ``j..j+3``
    to ``out[pos_j:pos_j + 32]``, little-endian."""
    sig = types.void(tile, tile_index, width, out, pos0, pos1, pos2, pos3)

    def codegen(context, builder, signature, args):
        columns = [
            builder.load(address, align=8)
            for address in _tile_rows(context, builder, signature, args)
        ]
        for row, pos, pos_type in zip(
            _transpose_4x4(builder, columns), args[4:8], signature.args[4:8]
        ):
            address = _vector_address(context, builder, signature.args[3], args[3], pos, pos_type)
            builder.store(row, address, align=1)
        return context.get_dummy_value()

    return sig, codegen


@njit(cache=True, nogil=True, inline="always")
def _prefetch_block(data, pos, rate):
    prefetch(data, pos)
    prefetch(data, pos + 64)
    prefetch(data, pos + 128)
    prefetch(data, pos + rate - 1)


@njit(cache=True, nogil=True, inline="always")
def load_le64(data, pos):
    # Unsigned indices skip numba's negative-index wraparound, which lets LLVM fold these
    # eight byte loads into one unaligned 64-bit load.
    p = np.uint64(pos)
    return (
        np.uint64(data[p])
        | (np.uint64(data[p + _U[1]]) << _U[8])
        | (np.uint64(data[p + _U[2]]) << _U[16])
        | (np.uint64(data[p + _U[3]]) << _U[24])
        | (np.uint64(data[p + _U[4]]) << _U[32])
        | (np.uint64(data[p + _U[5]]) << _U[40])
        | (np.uint64(data[p + _U[6]]) << _U[48])
        | (np.uint64(data[p + _U[7]]) << _U[56])
    )


@njit(cache=True, nogil=True, inline="always")
def store_le64(flat, pos, word):
    # The mirror of load_le64: eight byte stores that LLVM merges into one.
    p = np.uint64(pos)
    flat[p] = np.uint8(word & _BYTE)
    flat[p + _U[1]] = np.uint8((word >> _U[8]) & _BYTE)
    flat[p + _U[2]] = np.uint8((word >> _U[16]) & _BYTE)
    flat[p + _U[3]] = np.uint8((word >> _U[24]) & _BYTE)
    flat[p + _U[4]] = np.uint8((word >> _U[32]) & _BYTE)
    flat[p + _U[5]] = np.uint8((word >> _U[40]) & _BYTE)
    flat[p + _U[6]] = np.uint8((word >> _U[48]) & _BYTE)
    flat[p + _U[7]] = np.uint8((word >> _U[56]) & _BYTE)


@njit(cache=True, nogil=True)
def _absorb_block(
    lanes, lane, width, data, pos, remaining, rate, suffix, fresh, initial, initial_row
):
    """Absorb the next block of a message into one state of ``lanes``.

    ``remaining`` counts the message bytes from ``pos`` on. A full block is absorbed as is;
    fewer than ``rate`` bytes make the final block: the bytes, then the domain ``suffix``
    byte, then the pad10*1 closing bit in the last byte of the block. A ``fresh`` state (the
    message's first block) is written as ``initial[initial_row]`` XOR the block rather than
    XORed into the lane: the lane left over from the previous message never needs clearing
    separately.
    """
    rate_words = rate >> 3
    whole_words = rate_words if remaining >= rate else remaining >> 3
    # Unsigned tile indices: numba adds no negative-index fix-up to these hot stores.
    at = np.uint64(lane)
    stride = np.uint64(width)
    if remaining >= 2 * rate:
        _prefetch_block(data, pos + rate, rate)
    if fresh:
        for k in range(whole_words):
            lanes[at] = initial[initial_row, k] ^ load_le64(data, pos + 8 * k)
            at += stride
        for k in range(whole_words, LANE_COUNT):
            lanes[at] = initial[initial_row, k]
            at += stride
    else:
        for k in range(whole_words):
            lanes[at] ^= load_le64(data, pos + 8 * k)
            at += stride
    if remaining >= rate:
        return
    tail = remaining & 7
    base = pos + 8 * whole_words
    word = np.uint64(suffix) << np.uint64(8 * tail)
    for b in range(tail):
        word |= np.uint64(data[base + b]) << np.uint64(8 * b)
    lanes[whole_words * width + lane] ^= word
    lanes[(rate_words - 1) * width + lane] ^= _PAD_LAST_BIT


SKIP_LANE = -(1 << 40)
"""A lane position that ``absorb_whole_blocks_4`` leaves alone (negative after any offset)."""


@njit(cache=True, nogil=True)
def absorb_whole_blocks_4(tile, lane, data, zeros, p0, p1, p2, p3, rate):
    """XOR one whole block from ``data[p_j:p_j + rate]`` into each lane ``lane + j`` (j < 4)
    and prefetch the block after it; a lane whose ``p_j`` is negative is left as it was.

    Four lanes by four words at a time (``_xor_words_4x4``): vector loads and an in-register
    transpose instead of one scalar read-modify-write of the tile per word.
    """
    width = TILE_WIDTH
    rate_words = rate >> 3
    grouped_words = rate_words & ~3
    for k in range(0, grouped_words, 4):
        _xor_words_4x4(
            tile, k * width + lane, width, data, p0 + 8 * k, p1 + 8 * k, p2 + 8 * k, p3 + 8 * k,
            zeros,
        )
    for k in range(grouped_words, rate_words):
        at = k * width + lane
        if p0 >= 0:
            tile[at] ^= load_le64(data, p0 + 8 * k)
        if p1 >= 0:
            tile[at + 1] ^= load_le64(data, p1 + 8 * k)
        if p2 >= 0:
            tile[at + 2] ^= load_le64(data, p2 + 8 * k)
        if p3 >= 0:
            tile[at + 3] ^= load_le64(data, p3 + 8 * k)
    # Past the end of a message a prefetch is a harmless no-op.
    if p0 >= 0:
        _prefetch_block(data, p0 + rate, rate)
    if p1 >= 0:
        _prefetch_block(data, p1 + rate, rate)
    if p2 >= 0:
        _prefetch_block(data, p2 + rate, rate)
    if p3 >= 0:
        _prefetch_block(data, p3 + rate, rate)


@njit(cache=True, nogil=True, inline="always")
def squeeze_block(lanes, lane, width, flat_out, start, count, first_word=0):
    """Copy ``count`` output bytes of one state to ``flat_out[start:start+count]``, from word
    ``first_word`` on (the words before it are left to the caller)."""
    whole_words = count >> 3
    for k in range(first_word, whole_words):
        store_le64(flat_out, start + 8 * k, lanes[k * width + lane])
    if count & 7:
        word = lanes[whole_words * width + lane]
        for b in range(count & 7):
            flat_out[start + 8 * whole_words + b] = np.uint8(
                (word >> np.uint64(8 * b)) & _BYTE
            )


@njit(cache=True, nogil=True)
def _finish_single(
    lanes, data, offsets, message, next_block, initial, rate, suffix, first_round, out
):
    """Run one state to completion on the scalar permutation, from block ``next_block`` on.

    A message not started yet (``next_block == 0``) starts from its initial state.
    """
    out_len = out.shape[1]
    start = offsets[message]
    length = offsets[message + 1] - start
    final = length // rate  # index of the final, padded block
    if next_block == 0:
        row = _initial_row(initial, message)
        for k in range(LANE_COUNT):
            lanes[k] = initial[row, k]
    if next_block < final:
        # Whole blocks with the state kept in registers across them.
        state_absorb(
            lanes, data, start + next_block * rate, final - next_block, rate >> 3, first_round
        )
        next_block = final
    total = final + (out_len + rate - 1) // rate
    for p in range(next_block, total):
        if p == final:
            _absorb_block(
                lanes, 0, 1, data, start + p * rate, length - p * rate, rate, suffix, False,
                initial, 0,
            )
        state_permute(lanes, first_round)
        q = p - final
        squeeze_block(
            lanes, 0, 1, out.reshape(-1), message * out_len + q * rate,
            min(rate, out_len - q * rate),
        )


@njit(cache=True, nogil=True, inline="always")
def _initial_row(initial, message):
    # One state for the batch (row 0) or one per message: a multiply instead of a branch.
    return message * min(initial.shape[0] - 1, 1)


@njit(cache=True, nogil=True)
def _check_initial(initial, count):
    """Refuse an initial-state array that is not ``(1, 25)`` or ``(count, 25)``."""
    if initial.shape[1] != LANE_COUNT or not (
        initial.shape[0] == 1 or initial.shape[0] == count
    ):
        raise ValueError(
            "initial state: expected shape (1, 25) or (number of messages, 25)"
        )


@njit(cache=True, nogil=True)
def _check_queue(data, offsets, order, initial):
    """Refuse a queue whose messages leave ``data``, or an initial state of the wrong shape:
    the last line of defence before the kernels read memory without bounds checks. Callers
    validate first; this catches a caller mistake, or an array changed by another thread
    after it was validated, at a cost of a few nanoseconds per message."""
    count = offsets.shape[0] - 1
    _check_initial(initial, count)
    for i in range(order.shape[0]):
        m = order[i]
        if m < 0 or m >= count:
            raise ValueError("hash_queue: a message index is outside offsets")
        start = offsets[m]
        if start < 0 or start > offsets[m + 1] or offsets[m + 1] > data.shape[0]:
            raise ValueError("hash_queue: a message's offsets leave the data buffer")


@njit(cache=True, nogil=True)
def hash_queue(data, offsets, order, initial, rate, suffix, first_round, out):
    """Hash messages ``order[0], order[1], ...`` into rows ``out[order[i]]``.

    Message ``m`` starts from state ``initial[0]`` (a ``(1, 25)`` array: one state for the
    batch, zeros for the plain functions) or ``initial[m]`` (an ``(N, 25)`` array).

    ``rate`` is in bytes (a multiple of 8), ``suffix`` the domain byte (0x06 SHA-3, 0x1F
    SHAKE and TurboSHAKE, 0x01 Keccak), ``first_round`` 0 for Keccak-f[1600] or 12 for
    Keccak-p[1600, 12]; the output length is ``out.shape[1]``. Any order works; messages
    in buffer order keep the reads of neighbouring lanes close together in memory.
    Every message is checked to lie inside ``data`` before anything is read.
    """
    _check_queue(data, offsets, order, initial)
    if out.shape[0] < offsets.shape[0] - 1:
        raise ValueError("hash_queue: fewer output rows than messages")
    width = TILE_WIDTH
    out_len = out.shape[1]
    flat_out = out.reshape(-1)
    squeeze_blocks = (out_len + rate - 1) // rate
    tile = np.zeros(LANE_COUNT * width, dtype=np.uint64)
    spare = np.empty_like(tile)
    # Per lane: its message (-1: idle), where the message starts and how long it is, the index
    # of its final (padded) block, and the block the lane is at. The division happens once per
    # message here, not twice per block in the loop below.
    lane_message = np.full(width, -1, dtype=np.int64)
    lane_start = np.zeros(width, dtype=np.int64)
    lane_length = np.zeros(width, dtype=np.int64)
    lane_final = np.zeros(width, dtype=np.int64)
    lane_block = np.zeros(width, dtype=np.int64)
    queued = order.shape[0]
    taken = 0
    busy = 0
    for lane in range(width):
        if taken < queued:
            m = order[taken]
            lane_message[lane] = m
            lane_start[lane] = offsets[m]
            lane_length[lane] = offsets[m + 1] - offsets[m]
            lane_final[lane] = lane_length[lane] // rate
            taken += 1
            busy += 1

    positions = np.empty(width, dtype=np.int64)
    zeros = np.zeros(32, dtype=np.uint8)
    steady = 0  # blocks left in which every lane absorbs a whole block: no per-lane checks
    while busy > 0 and (taken < queued or busy >= MIN_TILE_LANES):
        if steady == 0 and busy == width:
            # The steady state of long messages: whole blocks that every lane still has
            # before its final one, none of them a first block.
            run = lane_final[0] - lane_block[0]
            started = True
            for lane in range(width):
                run = min(run, lane_final[lane] - lane_block[lane])
                started = started and lane_block[lane] > 0
            if started and run > 0:
                steady = run
                for lane in range(width):
                    positions[lane] = lane_start[lane] + lane_block[lane] * rate
                    lane_block[lane] += run
        if steady > 0:
            for group in range(0, width, 4):
                absorb_whole_blocks_4(
                    tile, group, data, zeros, positions[group], positions[group + 1],
                    positions[group + 2], positions[group + 3], rate,
                )
            for lane in range(width):
                positions[lane] += rate
            steady -= 1
            in_run = True
        else:
            in_run = False
            for group in range(0, width, 4):
                # Lanes with a whole block to absorb go four at a time when at least two of the
                # four have one; final blocks (padding) and the rest go lane by lane.
                whole = 0
                for lane in range(group, group + 4):
                    p = lane_block[lane]
                    if lane_message[lane] >= 0 and p < lane_final[lane]:
                        positions[lane] = lane_start[lane] + p * rate
                        whole += 1
                    else:
                        positions[lane] = SKIP_LANE
                if whole >= 2:
                    for lane in range(group, group + 4):
                        if positions[lane] >= 0 and lane_block[lane] == 0:
                            # A first block: the lane starts from its initial state.
                            row = _initial_row(initial, lane_message[lane])
                            for k in range(LANE_COUNT):
                                tile[k * width + lane] = initial[row, k]
                    absorb_whole_blocks_4(
                        tile, group, data, zeros, positions[group], positions[group + 1],
                        positions[group + 2], positions[group + 3], rate,
                    )
                for lane in range(group, group + 4):
                    p = lane_block[lane]
                    if (whole >= 2 and positions[lane] >= 0) or lane_message[lane] < 0:
                        continue
                    if p <= lane_final[lane]:
                        _absorb_block(
                            tile, lane, width, data, lane_start[lane] + p * rate,
                            lane_length[lane] - p * rate, rate, suffix, p == 0,
                            initial, _initial_row(initial, lane_message[lane]),
                        )
        # One call site for the tile permutation: LLVM inlines it, and each further site
        # would add a copy to compile.
        tile_permute(tile, spare, first_round)
        if in_run:
            continue
        for lane in range(width):
            m = lane_message[lane]
            if m < 0:
                continue
            p = lane_block[lane]
            q = p - lane_final[lane]
            if q >= 0:
                squeeze_block(
                    tile, lane, width, flat_out, m * out_len + q * rate,
                    min(rate, out_len - q * rate),
                )
            if q + 1 < squeeze_blocks:
                lane_block[lane] = p + 1
                continue
            # This lane's message is done: refill it from the queue or leave it idle. (Its
            # state is overwritten by the next message's first block.)
            lane_block[lane] = 0
            if taken < queued:
                m = order[taken]
                lane_message[lane] = m
                lane_start[lane] = offsets[m]
                lane_length[lane] = offsets[m + 1] - offsets[m]
                lane_final[lane] = lane_length[lane] // rate
                taken += 1
                if taken < queued:
                    _prefetch_block(data, offsets[order[taken]], rate)
            else:
                lane_message[lane] = -1
                busy -= 1

    if busy > 0:
        state = np.empty(LANE_COUNT, dtype=np.uint64)
        for lane in range(width):
            m = lane_message[lane]
            if m >= 0:
                for k in range(LANE_COUNT):
                    state[k] = tile[k * width + lane]
                _finish_single(
                    state, data, offsets, m, lane_block[lane], initial, rate, suffix,
                    first_round, out,
                )


@njit(cache=True, nogil=True)
def hash_uniform(data, start, count, length, initial, rate, suffix, first_round, out):
    """Hash ``count`` messages of ``length < rate`` bytes stored back to back from ``start``.

    Every message starts from the one state ``initial[0]`` (``initial`` is ``(1, 25)``).

    The common case of fixed-size keys, hashes and Merkle pairs: every message is one padded
    block and (``out.shape[1] <= rate``) one squeezed block, so whole tiles are filled word by
    word across the lanes, with no per-lane queue. Loops over the lanes write consecutive tile
    words, which LLVM turns into vector stores; the lane-by-lane path writes one word per
    lane per store. ``count`` must be a multiple of ``TILE_WIDTH``.
    """
    if (
        start < 0 or length < 0 or length >= rate or out.shape[1] > rate
        or count % TILE_WIDTH != 0 or out.shape[0] < count
        or start + count * length > data.shape[0]
        or initial.shape[0] != 1 or initial.shape[1] != LANE_COUNT
    ):
        raise ValueError("hash_uniform: the messages leave the data buffer or the output")
    width = TILE_WIDTH
    out_len = out.shape[1]
    flat_out = out.reshape(-1)
    tile = np.zeros(LANE_COUNT * width, dtype=np.uint64)
    spare = np.empty_like(tile)
    whole_words = length >> 3
    grouped_words = whole_words & ~3  # message words that go four lanes by four words
    grouped_out_words = (out_len >> 3) & ~3
    tail = length & 7
    tail_mask = (np.uint64(1) << np.uint64(8 * tail)) - np.uint64(1)
    suffix_word = np.uint64(suffix) << np.uint64(8 * tail)
    last_word = (rate >> 3) - 1
    for first in range(0, count, width):
        base = start + first * length
        for k in range(0, grouped_words, 4):
            for j in range(0, width, 4):
                at = base + j * length + 8 * k
                _set_words_4x4(
                    tile, k * width + j, width, data, at, at + length, at + 2 * length,
                    at + 3 * length,
                )
        for k in range(grouped_words, whole_words):
            for j in range(width):
                tile[k * width + j] = load_le64(data, base + j * length + 8 * k)
        for j in range(width):
            at = base + j * length + 8 * whole_words
            if tail == 0:
                word = suffix_word
            elif at + 8 <= data.shape[0]:
                # Read a whole word and keep the message's bytes: cheaper than a byte loop.
                word = (load_le64(data, at) & tail_mask) | suffix_word
            else:
                word = suffix_word
                for b in range(tail):
                    word |= np.uint64(data[at + b]) << np.uint64(8 * b)
            tile[whole_words * width + j] = word
        # The initial state: XORed under the message words, copied into the words after them.
        # Loops over the lanes of one word, so LLVM broadcasts the word into vector stores.
        for k in range(whole_words + 1):
            word = initial[0, k]
            for j in range(width):
                tile[k * width + j] ^= word
        for k in range(whole_words + 1, LANE_COUNT):
            word = initial[0, k]
            for j in range(width):
                tile[k * width + j] = word
        for j in range(width):
            tile[last_word * width + j] ^= _PAD_LAST_BIT
        tile_permute(tile, spare, first_round)
        for j in range(0, width, 4):
            at = (first + j) * out_len
            for k in range(0, grouped_out_words, 4):
                _get_words_4x4(
                    tile, k * width + j, width, flat_out, at + 8 * k, at + out_len + 8 * k,
                    at + 2 * out_len + 8 * k, at + 3 * out_len + 8 * k,
                )
        if grouped_out_words * 8 < out_len:
            for j in range(width):
                squeeze_block(
                    tile, j, width, flat_out, (first + j) * out_len, out_len, grouped_out_words
                )


@njit(cache=True, nogil=True)
def absorb_prefixes(initial, data, offsets, rate, first_round):
    """The states after absorbing whole-block prefixes: ``(N, 25)``, row ``i`` the state
    ``initial[0]`` (or ``initial[i]``) has after absorbing ``data[offsets[i]:offsets[i+1]]``.

    Every prefix is a whole number of ``rate``-byte blocks and is not padded: this is the
    first half of a sponge, for constructions that fix the start of every message (a key, a
    customization string, a tree-node header) and then hash many messages from the state it
    leaves (``initial`` of ``hash_queue``). Prefixes are checked to lie in ``data``.
    """
    count = offsets.shape[0] - 1
    _check_initial(initial, count)
    states = np.empty((count, LANE_COUNT), dtype=np.uint64)
    state = np.empty(LANE_COUNT, dtype=np.uint64)
    for i in range(count):
        start = offsets[i]
        length = offsets[i + 1] - start
        if start < 0 or length < 0 or offsets[i + 1] > data.shape[0] or length % rate != 0:
            raise ValueError("absorb_prefixes: a prefix leaves the data or is not whole blocks")
        row = _initial_row(initial, i)
        for k in range(LANE_COUNT):
            state[k] = initial[row, k]
        if length > 0:
            state_absorb(state, data, start, length // rate, rate >> 3, first_round)
        for k in range(LANE_COUNT):
            states[i, k] = state[k]
    return states
