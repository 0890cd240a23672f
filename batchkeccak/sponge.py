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
    tile_permute,
)
from batchkeccak.permutation._words import load_le64, store_le64

if sys.byteorder != "little":  # pragma: no cover - numba targets little-endian CPUs only
    raise ImportError("batchkeccak's kernels read message words in little-endian order")

MIN_TILE_LANES = TILE_WIDTH // 2
"""Below this many busy lanes the single-state permutation is cheaper (measured: one tile
state costs about 0.45x a scalar permutation with TILE_WIDTH = 32 on AVX2)."""

PAD_LAST_BIT = np.uint64(0x8000000000000000)
_BYTE = np.uint64(0xFF)


def _prefetch_address(builder, address):
    # read access, keep in all cache levels, data cache
    byte_pointer = ir.IntType(8).as_pointer()
    i32 = ir.IntType(32)
    prefetch = cgutils.get_or_insert_function(
        builder.module,
        ir.FunctionType(ir.VoidType(), [byte_pointer, i32, i32, i32]),
        "llvm.prefetch.p0",
    )
    builder.call(prefetch, [builder.bitcast(address, byte_pointer), i32(0), i32(3), i32(1)])


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
        _prefetch_address(builder, builder.gep(view.data, [args[1]]))
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


def _xor_rows(builder, tile_words, tile_index, rows):
    """XOR the transpose of four <4 x i64> ``rows`` into tile words ``tile_index + r * W``."""
    for r, column in enumerate(_transpose_4x4(builder, rows)):
        position = builder.add(tile_index, _WORD(r * TILE_WIDTH))
        address = builder.bitcast(builder.gep(tile_words, [position]), _WORD_VECTOR.as_pointer())
        builder.store(builder.xor(builder.load(address, align=8), column), address, align=8)


@intrinsic
def absorb_whole_blocks_4(typingctx, tile, lane, data, zeros, p0, p1, p2, p3, rate):
    """XOR one whole block from ``data[p_j:p_j + rate]`` into each lane ``lane + j`` (j < 4)
    and prefetch the block after it; a lane whose ``p_j`` is negative is left as it was.

    Four lanes by four words at a time: four unaligned vector loads (a skipped lane reads
    the 32 zero bytes of ``zeros``) and an in-register transpose instead of 16 scalar loads
    and 16 scalar read-modify-writes of the tile. The words after the last group of four
    are read by masked loads, so nothing past the block is read; the rows of the tile past
    the rate get zeros XORed into them. Words are read in host order: numba's targets are
    all little-endian, as the sponge's byte order requires (checked at import).

    Emitted into the caller rather than compiled as a function: the steady state calls
    this eight times a block, and a compiled function's calls each paid for atomic
    reference counts of its three arrays (pruned by numba in some builds of the function,
    not in others: a 5-8 % difference on long messages).
    """
    sig = types.void(tile, lane, data, zeros, p0, p1, p2, p3, rate)

    def codegen(context, builder, signature, args):
        tile_type, lane_type, data_type, zeros_type = signature.args[:4]
        tile_words = context.make_array(tile_type)(context, builder, args[0]).data
        data_bytes = context.make_array(data_type)(context, builder, args[2]).data
        zeros_row = builder.bitcast(
            context.make_array(zeros_type)(context, builder, args[3]).data,
            _WORD_VECTOR.as_pointer(),
        )
        lane = context.cast(builder, args[1], lane_type, types.int64)
        positions = [
            context.cast(builder, value, kind, types.int64)
            for value, kind in zip(args[4:8], signature.args[4:8])
        ]
        rate = context.cast(builder, args[8], signature.args[8], types.int64)
        skipped = [builder.icmp_signed("<", position, _WORD(0)) for position in positions]
        rate_words = builder.ashr(rate, _WORD(3))
        grouped_words = builder.and_(rate_words, _WORD(~3))

        def rows_at(word, load):
            rows = []
            for position, skip in zip(positions, skipped):
                at = builder.add(position, builder.shl(word, _WORD(3)))
                address = builder.bitcast(
                    builder.gep(data_bytes, [at]), _WORD_VECTOR.as_pointer()
                )
                rows.append(load(builder.select(skip, zeros_row, address)))
            return rows

        def tile_index(word):
            return builder.add(builder.mul(word, _WORD(TILE_WIDTH)), lane)

        # Whole groups of four words: a loop over the groups.
        entry = builder.block
        test = builder.append_basic_block("absorb4.test")
        body = builder.append_basic_block("absorb4.body")
        after = builder.append_basic_block("absorb4.after")
        builder.branch(test)
        builder.position_at_end(test)
        word = builder.phi(_WORD)
        word.add_incoming(_WORD(0), entry)
        builder.cbranch(builder.icmp_signed("<", word, grouped_words), body, after)
        builder.position_at_end(body)
        _xor_rows(
            builder, tile_words, tile_index(word),
            rows_at(word, lambda address: builder.load(address, align=1)),
        )
        word.add_incoming(builder.add(word, _WORD(4)), builder.block)
        builder.branch(test)
        builder.position_at_end(after)

        # The words after the last group (one for SHA3-256, two for SHA3-224).
        left = builder.sub(rate_words, grouped_words)
        with builder.if_then(builder.icmp_signed(">", left, _WORD(0))):
            mask_type = ir.VectorType(ir.IntType(1), 4)
            masked_load = cgutils.get_or_insert_function(
                builder.module,
                ir.FunctionType(_WORD_VECTOR, [
                    _WORD_VECTOR.as_pointer(), ir.IntType(32), mask_type, _WORD_VECTOR,
                ]),
                "llvm.masked.load.v4i64.p0",
            )
            spread = builder.insert_element(
                ir.Constant(_WORD_VECTOR, ir.Undefined), left, ir.IntType(32)(0)
            )
            spread = builder.shuffle_vector(
                spread, spread, ir.Constant(ir.VectorType(ir.IntType(32), 4), [0, 0, 0, 0])
            )
            mask = builder.icmp_signed("<", ir.Constant(_WORD_VECTOR, [0, 1, 2, 3]), spread)
            nothing = ir.Constant(_WORD_VECTOR, [0, 0, 0, 0])
            _xor_rows(
                builder, tile_words, tile_index(grouped_words),
                rows_at(grouped_words, lambda address: builder.call(
                    masked_load, [address, ir.IntType(32)(1), mask, nothing]
                )),
            )

        # Each lane's next block: 32 lanes read 32 places, more streams than the hardware
        # prefetchers follow. Past the end of a message a prefetch is a harmless no-op.
        for position, skip in zip(positions, skipped):
            with builder.if_then(builder.not_(skip)):
                start = builder.add(position, rate)
                for offset in (_WORD(0), _WORD(64), _WORD(128), builder.sub(rate, _WORD(1))):
                    _prefetch_address(builder, builder.gep(data_bytes, [builder.add(start, offset)]))
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
    lanes[(rate_words - 1) * width + lane] ^= PAD_LAST_BIT


SKIP_LANE = -(1 << 40)
"""A lane position that ``absorb_whole_blocks_4`` leaves alone (negative after any offset)."""


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


@njit(cache=True, nogil=True, inline="always")
def _initial_row(initial, message):
    # One state for the batch (row 0) or one per message: a multiply instead of a branch.
    return message * min(initial.shape[0] - 1, 1)


@njit(cache=True, nogil=True, inline="always")
def _check_initial(initial, count):
    """Refuse an initial-state array that is not ``(1, 25)`` or ``(count, 25)``."""
    if initial.shape[1] != LANE_COUNT or not (
        initial.shape[0] == 1 or initial.shape[0] == count
    ):
        raise ValueError(
            "initial state: expected shape (1, 25) or (number of messages, 25)"
        )


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
    # The last line of defence before the kernels read memory without bounds checks: every
    # message must lie inside ``data``. Callers validate first; this catches a caller
    # mistake, or an array changed by another thread after it was validated, at a cost of a
    # few nanoseconds per message.
    count = offsets.shape[0] - 1
    _check_initial(initial, count)
    for i in range(order.shape[0]):
        m = order[i]
        if m < 0 or m >= count:
            raise ValueError("hash_queue: a message index is outside offsets")
        start = offsets[m]
        if start < 0 or start > offsets[m + 1] or offsets[m + 1] > data.shape[0]:
            raise ValueError("hash_queue: a message's offsets leave the data buffer")
    if out.shape[0] < count:
        raise ValueError("hash_queue: fewer output rows than messages")
    width = TILE_WIDTH
    out_len = out.shape[1]
    flat_out = out.reshape(-1)
    squeeze_blocks = (out_len + rate - 1) // rate
    # Every array is a zeroed uint64 or int64 one: each other allocation function or dtype
    # is one more numpy overload to compile on first use.
    tile = np.zeros(LANE_COUNT * width, dtype=np.uint64)
    spare = np.zeros(LANE_COUNT * width, dtype=np.uint64)
    # Per lane: its message (-1: idle), where the message starts and how long it is, the index
    # of its final (padded) block, and the block the lane is at. The division happens once per
    # message here, not twice per block in the loop below.
    lane_message = np.zeros(width, dtype=np.int64)
    lane_start = np.zeros(width, dtype=np.int64)
    lane_length = np.zeros(width, dtype=np.int64)
    lane_final = np.zeros(width, dtype=np.int64)
    lane_block = np.zeros(width, dtype=np.int64)
    queued = order.shape[0]
    taken = 0
    busy = 0
    for lane in range(width):
        lane_message[lane] = -1
        if taken < queued:
            m = order[taken]
            lane_message[lane] = m
            lane_start[lane] = offsets[m]
            lane_length[lane] = offsets[m + 1] - offsets[m]
            lane_final[lane] = lane_length[lane] // rate
            taken += 1
            busy += 1

    positions = np.zeros(width, dtype=np.int64)
    zeros = np.zeros(4, dtype=np.uint64)  # 32 bytes that idle lanes of a group read
    # _absorb_block is called with these from the tile and from the one-state finish below:
    # typed alike (not as the literals 32, 0, 1), both calls share one specialization.
    tile_stride = np.int64(TILE_WIDTH)
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
                            tile, lane, tile_stride, data, lane_start[lane] + p * rate,
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

    if busy == 0:
        return
    # Fewer than MIN_TILE_LANES messages are left: each finishes on its own, its state in
    # registers through its whole blocks (state_absorb). The one-state permutation is
    # state_absorb of nothing: one compiled single-state body for the whole sponge.
    state = np.zeros(LANE_COUNT, dtype=np.uint64)
    rate_words = rate >> 3
    one, nothing = np.int64(1), np.int64(0)  # not literals: the whole-block call's types
    for lane in range(width):
        m = lane_message[lane]
        if m < 0:
            continue
        next_block = lane_block[lane]
        start = lane_start[lane]
        length = lane_length[lane]
        final = lane_final[lane]
        row = _initial_row(initial, m)
        for k in range(LANE_COUNT):
            state[k] = initial[row, k] if next_block == 0 else tile[k * width + lane]
        if next_block < final:
            state_absorb(
                state, data, start + next_block * rate, final - next_block, rate_words,
                first_round,
            )
            next_block = final
        for p in range(next_block, final + squeeze_blocks):
            if p == final:
                _absorb_block(
                    state, nothing, one, data, start + p * rate, length - p * rate, rate,
                    suffix, p < 0, initial, nothing,
                )
            state_absorb(state, data, start, one, nothing, first_round)
            q = p - final
            squeeze_block(
                state, 0, 1, flat_out, m * out_len + q * rate, min(rate, out_len - q * rate),
            )


@njit(cache=True, nogil=True)
def hash_uniform(data, start, count, length, initial, rate, suffix, first_round, out):
    """Hash ``count`` messages of ``length < rate`` bytes stored back to back from ``start``.

    Every message starts from the one state ``initial[0]`` (``initial`` is ``(1, 25)``).

    The common case of fixed-size keys, hashes and Merkle pairs: every message is one padded
    block and (``out.shape[1] <= rate``) one squeezed block, so whole tiles are filled word by
    word across the lanes, with no per-lane queue. Loops over the lanes write consecutive tile
    words, which LLVM turns into vector stores; the lane-by-lane path writes one word per
    lane per store. A last tile of fewer than ``TILE_WIDTH`` messages fills its idle lanes
    with copies of its last message and keeps their output: one kernel serves any count.
    """
    if (
        start < 0 or length < 0 or length >= rate or out.shape[1] > rate or count < 0
        or out.shape[0] < count or start + count * length > data.shape[0]
        or initial.shape[0] != 1 or initial.shape[1] != LANE_COUNT
    ):
        raise ValueError("hash_uniform: the messages leave the data buffer or the output")
    width = TILE_WIDTH
    out_len = out.shape[1]
    flat_out = out.reshape(-1)
    tile = np.zeros(LANE_COUNT * width, dtype=np.uint64)
    spare = np.zeros(LANE_COUNT * width, dtype=np.uint64)
    whole_words = length >> 3
    grouped_words = whole_words & ~3  # message words that go four lanes by four words
    grouped_out_words = (out_len >> 3) & ~3
    tail = length & 7
    tail_mask = (np.uint64(1) << np.uint64(8 * tail)) - np.uint64(1)
    suffix_word = np.uint64(suffix) << np.uint64(8 * tail)
    last_word = (rate >> 3) - 1
    for first in range(0, count, width):
        base = start + first * length
        # Lanes past the last message of a partial tile read that message again (min): the
        # loads stay inside the data and nothing is written for those lanes.
        last = min(width, count - first) - 1
        for k in range(0, grouped_words, 4):
            for j in range(0, width, 4):
                _set_words_4x4(
                    tile, k * width + j, width, data, base + min(j, last) * length + 8 * k,
                    base + min(j + 1, last) * length + 8 * k,
                    base + min(j + 2, last) * length + 8 * k,
                    base + min(j + 3, last) * length + 8 * k,
                )
        for k in range(grouped_words, whole_words):
            for j in range(width):
                tile[k * width + j] = load_le64(data, base + min(j, last) * length + 8 * k)
        for j in range(width):
            at = base + min(j, last) * length + 8 * whole_words
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
            tile[last_word * width + j] ^= PAD_LAST_BIT
        tile_permute(tile, spare, first_round)
        # Four lanes by four words where all four lanes hold messages; the rest word by word.
        grouped_lanes = (last + 1) & ~3
        for j in range(0, grouped_lanes, 4):
            at = (first + j) * out_len
            for k in range(0, grouped_out_words, 4):
                _get_words_4x4(
                    tile, k * width + j, width, flat_out, at + 8 * k, at + out_len + 8 * k,
                    at + 2 * out_len + 8 * k, at + 3 * out_len + 8 * k,
                )
        for j in range(last + 1):
            done = grouped_out_words if j < grouped_lanes else 0
            if 8 * done < out_len:
                squeeze_block(tile, j, width, flat_out, (first + j) * out_len, out_len, done)


@njit(cache=True, nogil=True)
def hash_offsets(data, offsets, initial, rate, suffix, first_round, out):
    """Hash messages ``data[offsets[i]:offsets[i + 1]]`` into rows ``out[i]`` in one call.

    For a caller that hands over many small batches (an engine calling once per vector):
    everything ``Hasher.hash_flat`` decides in Python for a batch is decided here, so the
    GIL is released once per batch, not once per check. ``offsets`` may be int32 or int64
    and may be the caller's own array (Arrow's, read in place): it is copied first, and only
    the copy is checked (in ``data``, non-decreasing) and read. Equal single-block messages
    take whole tiles through ``hash_uniform``; the rest go through the lane queue.
    """
    count = offsets.shape[0] - 1
    if count < 0 or out.shape[0] < count:
        raise ValueError("hash_offsets: offsets must hold one more entry than out has rows")
    own = np.empty(count + 1, dtype=np.int64)
    for i in range(count + 1):
        own[i] = offsets[i]
    if own[0] < 0 or own[count] > data.shape[0]:
        raise ValueError("hash_offsets: the offsets leave the data buffer")
    for i in range(count):
        if own[i + 1] < own[i]:
            raise ValueError("hash_offsets: the offsets decrease")
    if count == 0 or out.shape[1] == 0:
        return
    length = own[1] - own[0]
    uniform = (
        initial.shape[0] == 1 and length < rate and out.shape[1] <= rate
        and count >= TILE_WIDTH
    )
    for i in range(count):
        uniform = uniform and own[i + 1] - own[i] == length
    tiles_end = count // TILE_WIDTH * TILE_WIDTH if uniform else 0
    if tiles_end > 0:
        hash_uniform(
            data, own[0], tiles_end, length, initial, rate, suffix, first_round,
            out[:tiles_end],
        )
    if tiles_end < count:
        hash_queue(
            data, own[tiles_end:], np.arange(count - tiles_end), initial, rate, suffix,
            first_round, out[tiles_end:count],
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
