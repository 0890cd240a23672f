"""The multi-buffer interface of the tile: what moves bytes between many buffers and the
lanes of many states, for the lane scheduler above (``batchkeccak.sponge.run_jobs``).

In XKCP's terms (``KeccakP1600times4_AddLanesAll``, ``PermuteAll``, ``ExtractLanesAll``):

``absorb_whole_blocks_4(tile, lane, data, zeros, p0, p1, p2, p3, rate)``
    AddLanes for four states: XOR one whole block of ``data`` at ``p_j`` into state
    ``lane + j``; a negative ``p_j`` (``SKIP_LANE``) leaves that state alone.
``start_short_messages_4(tile, lane, data, p0..p3, n0..n3, rate, suffix, start)``
    Start four states on messages shorter than a block: the state ``start`` XOR the
    ``n_j`` bytes at ``p_j``, padded on the way in.
``set_words_4x4`` / ``get_words_4x4``
    Overwrite four words of four states from four places of a buffer, or write them out
    (the single-block fast path and its squeeze).
``squeeze_block(lanes, lane, width, out, start, count, first_word=0)``
    ExtractLanes for one state: ``count`` output bytes, little-endian.
``load_state`` / ``store_state``
    A state between a row of 25 lanes and its lane of the tile.
``prefetch_block``
    Cache hints for the block a lane will read next (``batchkeccak.native.emitters.prefetch``).

The tile layout is the permutation's (``batchkeccak.permutation``): lane ``k`` of state
``j`` is ``tile[k * W + j]``; ``tile_permute`` is PermuteAll.

The four-state moves are intrinsics written here as LLVM IR; ``squeeze_block``,
``load_state``, ``store_state`` and ``prefetch_block`` are compiled functions, kept with the
package's others in ``_kernels.py`` and exported from here.
"""

from __future__ import annotations

from llvmlite import ir
from numba import types
from numba.core import cgutils
from numba.extending import intrinsic

from batchkeccak.native.emitters import emit_loop, emit_prefetch, splat
from batchkeccak.permutation._kernels import (
    emit_wide_tile_rounds,
    load_state,
    prefetch_block,
    squeeze_block,
    store_state,
)
from batchkeccak.permutation.constants import LANE_COUNT, TILE_WIDTH

__all__ = [
    "SKIP_LANE",
    "absorb_and_permute_wide",
    "absorb_whole_blocks_4",
    "get_words_4x4",
    "load_state",
    "prefetch_block",
    "set_words_4x4",
    "squeeze_block",
    "start_short_messages_4",
    "store_state",
]

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
                address = builder.bitcast(builder.gep(data_bytes, [at]), _WORD_VECTOR.as_pointer())
                rows.append(load(builder.select(skip, zeros_row, address)))
            return rows

        def tile_index(word):
            return builder.add(builder.mul(word, _WORD(TILE_WIDTH)), lane)

        # Whole groups of four words: a loop over the groups.
        def xor_group(word, _):
            _xor_rows(
                builder,
                tile_words,
                tile_index(word),
                rows_at(word, lambda address: builder.load(address, align=1)),
            )
            return []

        emit_loop(builder, "absorb4", _WORD(0), grouped_words, _WORD(4), [], xor_group)

        # The words after the last group (one for SHA3-256, two for SHA3-224).
        left = builder.sub(rate_words, grouped_words)
        with builder.if_then(builder.icmp_signed(">", left, _WORD(0))):
            masked_load = _masked_load_words(builder)
            spread = splat(builder, _WORD_VECTOR, left)
            mask = builder.icmp_signed("<", ir.Constant(_WORD_VECTOR, [0, 1, 2, 3]), spread)
            nothing = ir.Constant(_WORD_VECTOR, [0, 0, 0, 0])
            _xor_rows(
                builder,
                tile_words,
                tile_index(grouped_words),
                rows_at(
                    grouped_words,
                    lambda address: builder.call(
                        masked_load, [address, ir.IntType(32)(1), mask, nothing]
                    ),
                ),
            )

        # Each lane's next block: 32 lanes read 32 places, more streams than the hardware
        # prefetchers follow. Past the end of a message a prefetch is a harmless no-op.
        for position, skip in zip(positions, skipped):
            with builder.if_then(builder.not_(skip)):
                start = builder.add(position, rate)
                for offset in (_WORD(0), _WORD(64), _WORD(128), builder.sub(rate, _WORD(1))):
                    emit_prefetch(builder, builder.gep(data_bytes, [builder.add(start, offset)]))
        return context.get_dummy_value()

    return sig, codegen


def _masked_load_words(builder):
    """``llvm.masked.load`` of four words: a masked-off word is not read (never faults)."""
    mask_type = ir.VectorType(ir.IntType(1), 4)
    return cgutils.get_or_insert_function(
        builder.module,
        ir.FunctionType(
            _WORD_VECTOR, [_WORD_VECTOR.as_pointer(), ir.IntType(32), mask_type, _WORD_VECTOR]
        ),
        "llvm.masked.load.v4i64.p0",
    )


@intrinsic
def start_short_messages_4(
    typingctx, tile, lane, data, p0, p1, p2, p3, n0, n1, n2, n3, rate, suffix, start
):
    """Start lane ``lane + j`` (j < 4) on a message shorter than a block: the state
    ``start`` (25 words) XOR the message's one block, padded: its ``n_j < rate`` bytes
    ``data[p_j:p_j + n_j]``, the domain byte ``suffix`` after them and the pad10*1 closing
    bit in the block's last byte (``sponge.pad_final_block``'s padding). A lane whose
    ``p_j`` is negative is left as it was.

    ``absorb_whole_blocks_4`` for such blocks, with no copy in between: each word is read
    by a masked vector load (no word past the message's last is read), its bytes past the
    message cleared and the padding XORed in, all in registers, and the state is written
    over the previous message's four rows at a time. The message's last word is read
    whole: the caller keeps ``p_j`` plus ``n_j`` rounded up to a word inside ``data``. A
    padded copy of the block written word by word, or the start state loaded lane by lane
    (``load_state``) first, measured slower (``docs/performance.md``, tuning log): the
    vector loads could not take those scalar stores from the store buffer.
    """
    sig = types.void(tile, lane, data, p0, p1, p2, p3, n0, n1, n2, n3, rate, suffix, start)

    def codegen(context, builder, signature, args):
        tile_type, _, data_type = signature.args[:3]
        tile_words = context.make_array(tile_type)(context, builder, args[0]).data
        data_bytes = context.make_array(data_type)(context, builder, args[2]).data

        def spread(value):
            return splat(builder, _WORD_VECTOR, value)

        def as_word(index):
            return context.cast(builder, args[index], signature.args[index], types.int64)

        lane = as_word(1)
        positions = [as_word(index) for index in range(3, 7)]
        lengths = [as_word(index) for index in range(7, 11)]
        rate = as_word(11)
        suffix = as_word(12)
        start_words = context.make_array(signature.args[13])(context, builder, args[13]).data
        fresh = ir.Constant(ir.VectorType(ir.IntType(1), 4), ir.Undefined)
        for j, position in enumerate(positions):
            started = builder.icmp_signed(">=", position, _WORD(0))
            fresh = builder.insert_element(fresh, started, ir.IntType(32)(j))

        def tile_row(k):
            position = builder.add(builder.mul(k, _WORD(TILE_WIDTH)), lane)
            return builder.bitcast(builder.gep(tile_words, [position]), _WORD_VECTOR.as_pointer())

        def begin(k, address):
            # The start state's word k for a started lane, the row's word for the others.
            start_word = builder.load(builder.gep(start_words, [k]))
            return builder.select(fresh, spread(start_word), builder.load(address, align=8))

        rate_words = builder.ashr(rate, _WORD(3))
        words_end = builder.and_(builder.add(rate_words, _WORD(3)), _WORD(~3))
        masked_load = _masked_load_words(builder)
        none = _WORD(-1)  # a word index no word has
        lanes = []
        for position, length in zip(positions, lengths):
            skip = builder.icmp_signed("<", position, _WORD(0))
            tail_bits = builder.shl(builder.and_(length, _WORD(7)), _WORD(3))
            lanes.append(
                (
                    position,
                    # Words read, whole words kept, the word of the domain byte, the last word.
                    spread(
                        builder.select(
                            skip, _WORD(0), builder.ashr(builder.add(length, _WORD(7)), _WORD(3))
                        ),
                    ),
                    spread(builder.ashr(length, _WORD(3))),
                    spread(builder.select(skip, none, builder.ashr(length, _WORD(3)))),
                    spread(builder.select(skip, none, builder.sub(rate_words, _WORD(1)))),
                    spread(builder.sub(builder.shl(_WORD(1), tail_bits), _WORD(1))),
                    spread(builder.shl(suffix, tail_bits)),
                )
            )
        nothing = ir.Constant(_WORD_VECTOR, [0, 0, 0, 0])
        everything = ir.Constant(_WORD_VECTOR, [-1, -1, -1, -1])
        closing = ir.Constant(_WORD_VECTOR, [1 << 63] * 4)

        def xor_group(word, _):
            index = builder.add(spread(word), ir.Constant(_WORD_VECTOR, [0, 1, 2, 3]))
            rows = []
            for position, read, whole, tail_word, last_word, tail_mask, domain in lanes:
                at = builder.add(position, builder.shl(word, _WORD(3)))
                address = builder.bitcast(builder.gep(data_bytes, [at]), _WORD_VECTOR.as_pointer())
                row = builder.call(
                    masked_load,
                    [address, ir.IntType(32)(1), builder.icmp_signed("<", index, read), nothing],
                )
                at_tail = builder.icmp_signed("==", index, tail_word)
                keep = builder.select(
                    builder.icmp_signed("<", index, whole),
                    everything,
                    builder.select(at_tail, tail_mask, nothing),
                )
                row = builder.xor(builder.and_(row, keep), builder.select(at_tail, domain, nothing))
                row = builder.xor(
                    row,
                    builder.select(builder.icmp_signed("==", index, last_word), closing, nothing),
                )
                rows.append(row)
            for r, column in enumerate(_transpose_4x4(builder, rows)):
                k = builder.add(word, _WORD(r))
                address = tile_row(k)
                builder.store(builder.xor(begin(k, address), column), address, align=8)
            return []

        emit_loop(builder, "short4", _WORD(0), words_end, _WORD(4), [], xor_group)

        def start_row(k, _):
            address = tile_row(k)
            builder.store(begin(k, address), address, align=8)
            return []

        emit_loop(builder, "start4", words_end, _WORD(LANE_COUNT), _WORD(1), [], start_row)
        return context.get_dummy_value()

    return sig, codegen


@intrinsic
def absorb_and_permute_wide(typingctx, tile, data, positions, rate, first_round):
    """Where the tile runs at 512 bits (``batchkeccak.permutation.vector_width``): XOR one
    whole block ``data[positions[j]:positions[j] + rate]`` into every state ``j`` of the
    tile and permute it (rounds ``first_round`` .. 23), in one pass: each group of eight
    states is loaded into registers once, the blocks gathered into it, permuted and stored
    (XKCP's ``FastLoop_Absorb``); the block after each is prefetched. Returns True.
    Elsewhere it does nothing and returns False: the caller absorbs with
    ``absorb_whole_blocks_4`` and calls ``tile_permute``. ``positions`` holds W int64 byte
    offsets, every block whole and inside ``data``."""
    sig = types.boolean(tile, data, positions, rate, first_round)

    def codegen(context, builder, signature, args):
        tile_type, data_type, positions_type, rate_type, round_type = signature.args
        return emit_wide_tile_rounds(
            builder,
            context.make_array(tile_type)(context, builder, args[0]).data,
            context.cast(builder, args[4], round_type, types.int64),
            data=context.make_array(data_type)(context, builder, args[1]).data,
            positions=context.make_array(positions_type)(context, builder, args[2]).data,
            rate_words=builder.ashr(
                context.cast(builder, args[3], rate_type, types.int64), _WORD(3)
            ),
        )

    return sig, codegen


@intrinsic
def set_words_4x4(typingctx, tile, tile_index, width, data, pos0, pos1, pos2, pos3):
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
def get_words_4x4(typingctx, tile, tile_index, width, out, pos0, pos1, pos2, pos3):
    """The squeeze's mirror of ``set_words_4x4``: tile words ``k..k+3`` of lanes ``j..j+3``
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


SKIP_LANE = -(1 << 40)
"""A lane position that ``absorb_whole_blocks_4`` leaves alone (negative after any offset)."""
