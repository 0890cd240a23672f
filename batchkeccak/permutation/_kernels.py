"""The permutation kernels: the Keccak round written out lane by lane as LLVM IR.

The 25 lanes of a round are straight-line code: what LLVM needs to keep them in registers
and to vectorize the loop over the states of a tile. Written as Python (a generated module
of 25 named locals per round), every one of the round's few hundred operations went through
numba's typing and lowering, about a second of compile time per copy of the round, for IR
that LLVM then optimized the same way. Here two intrinsics emit that IR straight from the
step tables in ``constants``, in the same order (see ``_round``); numba types one call.

``tile_permute``, ``state_absorb`` and ``state_permute`` are the layer's contract
(``batchkeccak.permutation``); the intrinsics are private to it.
"""

from __future__ import annotations

import numpy as np
from llvmlite import ir
from numba import types
from numba.extending import intrinsic

from batchkeccak._jit import njit
from batchkeccak.permutation._words import load_le64
from batchkeccak.permutation.constants import (
    LANE_COUNT,
    MAX_ROUNDS,
    PI_TARGET,
    RHO_OFFSETS,
    ROUND_CONSTANTS,
    ROUNDS_PER_PASS,
    TILE_ROUND_STEP,
    TILE_WIDTH,
)

_WORD = ir.IntType(64)
_PI_SOURCE = {target: source for source, target in enumerate(PI_TARGET)}
_ROUND_CONSTANTS_NAME = "batchkeccak.permutation.round_constants"


def _round_constant(builder, index):
    """``RC[index]`` from a constant table in the function's module (one per module)."""
    module = builder.module
    try:
        table = module.get_global(_ROUND_CONSTANTS_NAME)
    except KeyError:
        kind = ir.ArrayType(_WORD, MAX_ROUNDS)
        table = ir.GlobalVariable(module, kind, _ROUND_CONSTANTS_NAME)
        table.linkage = "internal"
        table.global_constant = True
        table.initializer = ir.Constant(kind, list(ROUND_CONSTANTS))
    return builder.load(builder.gep(table, [ir.Constant(ir.IntType(32), 0), index]))


def _rotl(builder, value, n):
    if n == 0:
        return value
    return builder.or_(builder.shl(value, _WORD(n)), builder.lshr(value, _WORD(64 - n)))


def _round(builder, a, rc):
    """One round on the 25 lane values ``a`` (lane ``x + 5y``); the 25 new values.

    Plane by plane: theta's column parities first, then for each output row ``y`` the five
    lanes that rho and pi move into it and their chi, iota folded into lane 0. This order
    keeps about ten vectors live instead of all 25 rotated lanes: measured 1.28x faster for
    the tile (fewer spills) and 1.12x for one state.
    """
    parity = []
    for x in range(5):
        column = a[x]
        for y in range(1, 5):
            column = builder.xor(column, a[x + 5 * y])
        parity.append(column)
    theta = [
        builder.xor(parity[(x - 1) % 5], _rotl(builder, parity[(x + 1) % 5], 1))
        for x in range(5)
    ]
    out = [None] * LANE_COUNT
    for y in range(5):
        row = []
        for x in range(5):
            i = _PI_SOURCE[x + 5 * y]
            row.append(_rotl(builder, builder.xor(a[i], theta[i % 5]), RHO_OFFSETS[i]))
        for x in range(5):
            inverted = builder.xor(row[(x + 1) % 5], _WORD(-1))
            lane = builder.xor(row[x], builder.and_(inverted, row[(x + 2) % 5]))
            if x + 5 * y == 0:
                lane = builder.xor(lane, rc)
            out[x + 5 * y] = lane
    return out


def _rounds(builder, lanes, first):
    """``ROUNDS_PER_PASS`` rounds from round ``first`` (an i64 value) on."""
    for step in range(ROUNDS_PER_PASS):
        index = first if step == 0 else builder.add(first, _WORD(step))
        lanes = _round(builder, lanes, _round_constant(builder, index))
    return lanes


def emit_loop(builder, name, start, stop, step, carried, body):
    """Emit ``for i in range(start, stop, step)`` (i64 values) with loop-carried values:
    ``body(i, values)`` emits one iteration and returns the values for the next. Returns
    the values after the loop; the builder is left after it."""
    entry = builder.block
    test = builder.append_basic_block(f"{name}.test")
    loop = builder.append_basic_block(f"{name}.body")
    done = builder.append_basic_block(f"{name}.done")
    builder.branch(test)
    builder.position_at_end(test)
    index = builder.phi(_WORD)
    index.add_incoming(start, entry)
    values = []
    for value in carried:
        phi = builder.phi(value.type)
        phi.add_incoming(value, entry)
        values.append(phi)
    builder.cbranch(builder.icmp_signed("<", index, stop), loop, done)
    builder.position_at_end(loop)
    following = body(index, values)
    index.add_incoming(builder.add(index, step), builder.block)
    for phi, value in zip(values, following):
        phi.add_incoming(value, builder.block)
    builder.branch(test)
    builder.position_at_end(done)
    return values


def _words_of(context, builder, array_type, array):
    return context.make_array(array_type)(context, builder, array).data


def _uint64_array(array) -> bool:
    return isinstance(array, types.Array) and array.dtype == types.uint64 and array.ndim == 1


_TILE_ROUNDS_NAME = "batchkeccak.permutation.tile_rounds"


def _tile_rounds_function(module):
    """``void tile_rounds(i64* noalias src, i64* noalias dst, i64 first)``, defined once in
    ``module``: rounds ``first .. first + ROUNDS_PER_PASS - 1`` of every state of the tile
    ``src``, into ``dst``. A loop over the states whose body is the rounds on one state's
    lanes, which LLVM vectorizes: ``src`` and ``dst`` never overlap (tile and spare), and
    saying so spares it the aliasing checks. A function, not code at each call site, so
    that LLVM optimizes one copy of the round."""
    try:
        return module.get_global(_TILE_ROUNDS_NAME)
    except KeyError:
        pass
    pointer = _WORD.as_pointer()
    function = ir.Function(
        module, ir.FunctionType(ir.VoidType(), [pointer, pointer, _WORD]), _TILE_ROUNDS_NAME
    )
    function.linkage = "internal"
    source, target, first_round = function.args
    source.add_attribute("noalias")
    target.add_attribute("noalias")
    builder = ir.IRBuilder(function.append_basic_block("entry"))
    loop = function.append_basic_block("state")
    done = function.append_basic_block("done")
    builder.branch(loop)
    builder.position_at_end(loop)
    state = builder.phi(_WORD)
    state.add_incoming(_WORD(0), function.entry_basic_block)
    addresses = [
        (builder.gep(source, [builder.add(state, _WORD(k * TILE_WIDTH))]),
         builder.gep(target, [builder.add(state, _WORD(k * TILE_WIDTH))]))
        for k in range(LANE_COUNT)
    ]
    lanes = _rounds(builder, [builder.load(load) for load, _ in addresses], first_round)
    for (_, store), lane in zip(addresses, lanes):
        builder.store(lane, store)
    following = builder.add(state, _WORD(1))
    state.add_incoming(following, builder.block)
    builder.cbranch(builder.icmp_signed("<", following, _WORD(TILE_WIDTH)), loop, done)
    builder.position_at_end(done)
    builder.ret_void()
    return function


@intrinsic
def _tile_rounds(typingctx, src, dst, first):
    """Rounds ``first .. first + ROUNDS_PER_PASS - 1`` of every state of the tile ``src``,
    into ``dst`` (a different array of the same size)."""
    if not (_uint64_array(src) and _uint64_array(dst) and isinstance(first, types.Integer)):
        return None
    sig = types.void(src, dst, first)

    def codegen(context, builder, signature, args):
        builder.call(_tile_rounds_function(builder.module), [
            _words_of(context, builder, signature.args[0], args[0]),
            _words_of(context, builder, signature.args[1], args[1]),
            context.cast(builder, args[2], signature.args[2], types.int64),
        ])
        return context.get_dummy_value()

    return sig, codegen


@intrinsic
def _state_rounds(typingctx, lanes, first_round):
    """Rounds ``first_round`` .. 23 on the 25 lanes of ``lanes``: loaded once, kept in
    registers through every round, stored back."""
    if not (_uint64_array(lanes) and isinstance(first_round, types.Integer)):
        return None
    sig = types.void(lanes, first_round)

    def codegen(context, builder, signature, args):
        words = _words_of(context, builder, signature.args[0], args[0])
        first = context.cast(builder, args[1], signature.args[1], types.int64)
        addresses = [builder.gep(words, [_WORD(k)]) for k in range(LANE_COUNT)]
        loaded = [builder.load(address) for address in addresses]
        state = emit_loop(
            builder, "state_rounds", first, _WORD(MAX_ROUNDS), _WORD(ROUNDS_PER_PASS), loaded,
            lambda round_index, lanes: _rounds(builder, lanes, round_index),
        )
        for address, lane in zip(addresses, state):
            builder.store(lane, address)
        return context.get_dummy_value()

    return sig, codegen


@njit(cache=True, nogil=True)
def tile_permute(tile, spare, first_round):
    """Rounds ``first_round``..23 on every state of ``tile``; ``spare`` is scratch.

    The round count 24 - first_round must be a multiple of ``TILE_ROUND_STEP``: a step is
    two passes, tile to spare and back, so that each pass reads one array and writes the
    other and the result ends in ``tile``.
    """
    for r in range(first_round, MAX_ROUNDS, TILE_ROUND_STEP):
        _tile_rounds(tile, spare, r)
        _tile_rounds(spare, tile, r + ROUNDS_PER_PASS)


@njit(cache=True, nogil=True)
def state_absorb(lanes, data, pos, blocks, rate_words, first_round):
    """XOR ``blocks`` whole blocks of ``rate_words`` words from ``data[pos:]`` into one
    state, permuting after each: the long-message path. ``rate_words`` 0 absorbs nothing:
    ``blocks`` bare permutations (the squeeze).

    The state is stored and reloaded around each block's XOR (50 memory operations beside
    the permutation's thousands): as fast as keeping it in locals across blocks measured,
    and the XOR stays a loop over the rate's words, for any rate.
    """
    for block in range(blocks):
        base = pos + block * 8 * rate_words
        for k in range(rate_words):
            lanes[k] ^= load_le64(data, base + 8 * k)
        _state_rounds(lanes, first_round)


# Typed as the read-only buffers the sponge passes: state_permute shares their
# specialization of state_absorb.
_NO_BYTES = np.zeros(0, dtype=np.uint8)
_NO_BYTES.flags.writeable = False


@njit(cache=True, nogil=True)
def state_permute(lanes, first_round):
    """Rounds ``first_round``..23 on one state of 25 uint64 lanes, in place: ``state_absorb``
    of nothing, so that one compiled single-state kernel serves the whole sponge."""
    # int64 values, not literals: a literal argument would compile another specialization.
    nothing = np.int64(0)
    state_absorb(lanes, _NO_BYTES, nothing, np.int64(1), nothing, first_round)
