"""The permutation kernels: the Keccak round written out lane by lane as LLVM IR.

The 25 lanes of a round are straight-line code: what LLVM needs to keep them in registers
and to vectorize the loop over the states of a tile. Written as Python (a generated module
of 25 named locals per round), every one of the round's few hundred operations went through
numba's typing and lowering, about a second of compile time per copy of the round, for IR
that LLVM then optimized the same way. Here two intrinsics emit that IR straight from the
step tables in ``constants``, in the same order (see ``_round``); numba types one call.

The same emitter writes the round on vectors of eight states for CPUs with AVX-512F
(``_wide_tile_rounds_function``): compiled in beside the default build only there, and run
when ``vector_width`` says so.

``tile_permute``, ``new_tiles``, ``state_absorb`` and ``state_permute`` are the layer's
contract (``batchkeccak.permutation``); the intrinsics are private to it,
``emit_wide_tile_rounds`` shared with ``lanes``. The compiled helpers of the multi-buffer
interface (``squeeze_block``, ``load_state``, ``store_state``, ``prefetch_block``) are here
too, exported by ``lanes``: every compiled function of the package is in this file. The loop,
branch, splat and prefetch emitters come from ``batchkeccak.native.emitters``.
"""

from __future__ import annotations

import numpy as np
from llvmlite import ir
from numba import types
from numba.core import cgutils
from numba.extending import intrinsic

from batchkeccak.native.emitters import emit_if, emit_loop, emit_prefetch, prefetch, splat
from batchkeccak.native.jit import njit
from batchkeccak.native.words import load_le64, store_le64
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
from batchkeccak.permutation.vector_width import FLAG_SYMBOL, WIDE_BITS, compiles_wide_tiles

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


def _constant(kind, value):
    """``value`` as an i64 constant, or splat across a vector of i64 words."""
    if isinstance(kind, ir.VectorType):
        return ir.Constant(kind, [value] * kind.count)
    return ir.Constant(kind, value)


def _rotl(builder, value, n):
    if n == 0:
        return value
    return builder.or_(
        builder.shl(value, _constant(value.type, n)),
        builder.lshr(value, _constant(value.type, 64 - n)),
    )


def _round(builder, a, rc):
    """One round on the 25 lane values ``a`` (lane ``x + 5y``); the 25 new values. The
    lanes are i64 values, or vectors of them (a lane of several states); ``rc`` is an i64.

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
        builder.xor(parity[(x - 1) % 5], _rotl(builder, parity[(x + 1) % 5], 1)) for x in range(5)
    ]
    rc = splat(builder, a[0].type, rc)
    out = [None] * LANE_COUNT
    for y in range(5):
        row = []
        for x in range(5):
            i = _PI_SOURCE[x + 5 * y]
            row.append(_rotl(builder, builder.xor(a[i], theta[i % 5]), RHO_OFFSETS[i]))
        for x in range(5):
            inverted = builder.xor(row[(x + 1) % 5], _constant(row[0].type, -1))
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


def _rounds_from(builder, name, first_round, lanes):
    """Rounds ``first_round`` (an i64 value) to the last on ``lanes``, a loop of
    ``ROUNDS_PER_PASS`` rounds a pass; returns the lanes after them."""
    return emit_loop(
        builder,
        name,
        first_round,
        _WORD(MAX_ROUNDS),
        _WORD(ROUNDS_PER_PASS),
        lanes,
        lambda round_index, lanes: _rounds(builder, lanes, round_index),
    )


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
        (
            builder.gep(source, [builder.add(state, _WORD(k * TILE_WIDTH))]),
            builder.gep(target, [builder.add(state, _WORD(k * TILE_WIDTH))]),
        )
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
        builder.call(
            _tile_rounds_function(builder.module),
            [
                _words_of(context, builder, signature.args[0], args[0]),
                _words_of(context, builder, signature.args[1], args[1]),
                context.cast(builder, args[2], signature.args[2], types.int64),
            ],
        )
        return context.get_dummy_value()

    return sig, codegen


_WIDE_STATES = WIDE_BITS // 64
_WIDE_LANE = ir.VectorType(_WORD, _WIDE_STATES)
_WIDE_TILE_ROUNDS_NAME = "batchkeccak.permutation.wide_tile_rounds"


class _TunedFunction(ir.Function):
    """An LLVM function with string attributes (``"key"="value"``) after its keyword ones:
    llvmlite's ``FunctionAttributes`` holds only the keywords it knows. The function has no
    section, comdat or metadata, so the attributes end its prototype line."""

    def __init__(self, module, function_type, name, tuning):
        super().__init__(module, function_type, name)
        self.tuning = dict(tuning)

    def descr_prototype(self, buf):
        super().descr_prototype(buf)
        strings = " ".join(f'"{key}"="{value}"' for key, value in self.tuning.items())
        buf[-1] = f"{buf[-1].rstrip()} {strings}\n"


def _wide_tile_rounds_function(module):
    """``void wide_tile_rounds(i64* tile, i8* data, i64* positions, i64 rate_words,
    i64 first)``, defined once in ``module``: for every state ``j`` of ``tile``, XOR the
    ``rate_words`` words at ``data + positions[j]`` into it (none when ``rate_words`` is 0)
    and run rounds ``first`` .. 23, eight states at a time in 512-bit vectors (``zmm``
    registers), their 25 lanes kept in registers from the XOR through all the rounds.

    Written as vector IR rather than left to the loop vectorizer: the vectorizer vectorizes
    innermost loops only, so it could not keep a group of states in registers across a loop
    over the rounds (the default build stores and reloads the tile every ``ROUNDS_PER_PASS``
    rounds instead, which AVX2's 16 registers force anyway). ``min-legal-vector-width`` and
    ``prefer-vector-width`` keep LLVM on 512-bit registers where its tuning for the CPU
    prefers 256 bits; the rotations and and-nots become ``vprolq`` and ``vpternlogq``.

    The message words go straight into the registers by gathers (``vpgatherqq``: word ``k``
    of eight buffers), as XKCP's ``KeccakF1600times8_FastLoop_Absorb`` does, rather than
    XORed into the tile in memory first; each state's next block is prefetched."""
    try:
        return module.get_global(_WIDE_TILE_ROUNDS_NAME)
    except KeyError:
        pass
    pointer = _WORD.as_pointer()
    byte_pointer = ir.IntType(8).as_pointer()
    function = _TunedFunction(
        module,
        ir.FunctionType(ir.VoidType(), [pointer, byte_pointer, pointer, _WORD, _WORD]),
        _WIDE_TILE_ROUNDS_NAME,
        {"min-legal-vector-width": WIDE_BITS, "prefer-vector-width": WIDE_BITS},
    )
    function.linkage = "internal"
    tile, data, positions, rate_words, first_round = function.args
    builder = ir.IRBuilder(function.append_basic_block("entry"))
    word_pointers = ir.VectorType(pointer, _WIDE_STATES)
    gather = cgutils.get_or_insert_function(
        module,
        ir.FunctionType(
            _WIDE_LANE,
            [word_pointers, ir.IntType(32), ir.VectorType(ir.IntType(1), _WIDE_STATES), _WIDE_LANE],
        ),
        f"llvm.masked.gather.v{_WIDE_STATES}i64.v{_WIDE_STATES}p0",
    )
    every_state = ir.Constant(ir.VectorType(ir.IntType(1), _WIDE_STATES), [1] * _WIDE_STATES)
    data_address = builder.ptrtoint(data, _WORD)

    def absorb(state, lanes):
        # Word k of the eight blocks at data + positions[state .. state + 7] for each k below
        # rate_words (a runtime value: one gather per word, behind a branch).
        offsets = builder.load(
            builder.bitcast(builder.gep(positions, [state]), _WIDE_LANE.as_pointer()), align=8
        )
        blocks = builder.add(offsets, splat(builder, _WIDE_LANE, data_address))
        lanes = list(lanes)
        for k in range(LANE_COUNT):

            def xor_word(values, k=k):
                words = builder.call(
                    gather,
                    [
                        builder.inttoptr(
                            builder.add(blocks, _constant(_WIDE_LANE, 8 * k)), word_pointers
                        ),
                        ir.IntType(32)(8),
                        every_state,
                        ir.Constant(_WIDE_LANE, None),
                    ],
                )
                return [builder.xor(values[0], words)]

            (lanes[k],) = emit_if(
                builder, builder.icmp_signed(">", rate_words, _WORD(k)), [lanes[k]], xor_word
            )
        # The next block of each buffer, a step ahead of its loads.
        rate = builder.shl(rate_words, _WORD(3))
        for j in range(_WIDE_STATES):
            start = builder.add(builder.extract_element(blocks, ir.IntType(32)(j)), rate)
            for offset in (_WORD(0), _WORD(64), _WORD(128), builder.sub(rate, _WORD(1))):
                emit_prefetch(builder, builder.inttoptr(builder.add(start, offset), byte_pointer))
        return lanes

    def group(state, _):
        addresses = [
            builder.bitcast(
                builder.gep(tile, [builder.add(state, _WORD(k * TILE_WIDTH))]),
                _WIDE_LANE.as_pointer(),
            )
            for k in range(LANE_COUNT)
        ]
        lanes = [builder.load(address, align=8) for address in addresses]
        lanes = emit_if(
            builder,
            builder.icmp_signed(">", rate_words, _WORD(0)),
            lanes,
            lambda lanes: absorb(state, lanes),
        )
        lanes = _rounds_from(builder, "wide_rounds", first_round, lanes)
        for address, lane in zip(addresses, lanes):
            builder.store(lane, address, align=8)
        return []

    emit_loop(builder, "wide_states", _WORD(0), _WORD(TILE_WIDTH), _WORD(_WIDE_STATES), [], group)
    builder.ret_void()
    return function


def _tile_bits_flag(module):
    """The process's ``vector_width`` flag, an external i64 the JIT linker resolves."""
    try:
        return module.get_global(FLAG_SYMBOL)
    except KeyError:
        return ir.GlobalVariable(module, _WORD, FLAG_SYMBOL)


def emit_wide_tile_rounds(builder, tile, first_round, data=None, positions=None, rate_words=None):
    """Emit: when the process runs its tiles at 512 bits (``vector_width``), XOR one block
    of ``rate_words`` words at ``data + positions[j]`` into each state ``j`` of ``tile``
    (nothing when ``data`` is None) and run rounds ``first_round`` .. 23 on the tile, in
    512-bit vectors. Pointers ``tile`` (i64*), ``data`` (i8*) and ``positions`` (i64*, W
    byte offsets), ``rate_words`` and ``first_round`` i64 values. Returns an i1: true when
    it ran, false when the caller is to run the default build. Compiled for a CPU without
    AVX-512F this emits nothing and returns the constant false."""
    if not compiles_wide_tiles():
        return ir.Constant(ir.IntType(1), 0)
    if data is None:
        data = ir.Constant(ir.IntType(8).as_pointer(), None)
        positions = ir.Constant(_WORD.as_pointer(), None)
        rate_words = _WORD(0)
    wide = builder.icmp_signed(
        "==", builder.load(_tile_bits_flag(builder.module)), _WORD(WIDE_BITS)
    )
    with builder.if_then(wide):
        builder.call(
            _wide_tile_rounds_function(builder.module),
            [tile, data, positions, rate_words, first_round],
        )
    return wide


@intrinsic
def _wide_tile_permute(typingctx, tile, first_round):
    """Rounds ``first_round`` .. 23 of ``tile`` in 512-bit vectors when the process runs its
    tiles at 512 bits; True when it did, False when the caller is to run the default
    build's rounds (always False where the kernels are compiled without AVX-512F)."""
    if not (_uint64_array(tile) and isinstance(first_round, types.Integer)):
        return None
    sig = types.boolean(tile, first_round)

    def codegen(context, builder, signature, args):
        return emit_wide_tile_rounds(
            builder,
            _words_of(context, builder, signature.args[0], args[0]),
            context.cast(builder, args[1], signature.args[1], types.int64),
        )

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
        state = _rounds_from(builder, "state_rounds", first, loaded)
        for address, lane in zip(addresses, state):
            builder.store(lane, address)
        return context.get_dummy_value()

    return sig, codegen


TILE_ALIGNMENT = 64
"""Bytes: the tile and the spare that ``new_tiles`` returns start on a cache line, so that
no 512-bit load or store is split across two lines. (``np.zeros`` gives 32 mod 64 about half
the time. A 512-bit permutation that stored and reloaded the tile every two rounds ran
1.25x slower there; the one in ``_wide_tile_rounds_function``, which loads and stores each
lane once per permutation, 1-2 %, and the 256-bit build about as much.)"""


@njit(cache=True, nogil=True, inline="always")
def new_tiles():
    """A zeroed tile and spare of ``25 * TILE_WIDTH`` words each, from one allocation, each
    starting on a ``TILE_ALIGNMENT``-byte boundary."""
    words = LANE_COUNT * TILE_WIDTH
    step = TILE_ALIGNMENT // 8
    memory = np.zeros(2 * words + step, dtype=np.uint64)
    skip = (TILE_ALIGNMENT - memory.ctypes.data % TILE_ALIGNMENT) % TILE_ALIGNMENT // 8
    return memory[skip : skip + words], memory[skip + words : skip + 2 * words]


@njit(cache=True, nogil=True)
def tile_permute(tile, spare, first_round):
    """Rounds ``first_round``..23 on every state of ``tile``; ``spare`` is scratch.

    The round count 24 - first_round must be a multiple of ``TILE_ROUND_STEP``: a step is
    two passes, tile to spare and back, so that each pass reads one array and writes the
    other and the result ends in ``tile``.
    """
    if _wide_tile_permute(tile, first_round):
        return
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


# -- the multi-buffer interface's compiled helpers (``lanes`` exports them with its intrinsics)

_BYTE = np.uint64(0xFF)


@njit(cache=True, nogil=True, inline="always")
def prefetch_block(data, pos, rate):
    prefetch(data, pos)
    prefetch(data, pos + 64)
    prefetch(data, pos + 128)
    prefetch(data, pos + rate - 1)


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
            flat_out[start + 8 * whole_words + b] = np.uint8((word >> np.uint64(8 * b)) & _BYTE)


@njit(cache=True, nogil=True, inline="always")
def load_state(tile, lane, states, row):
    """State ``states[row]`` into lane ``lane`` of ``tile``."""
    for k in range(LANE_COUNT):
        tile[k * TILE_WIDTH + lane] = states[row, k]


@njit(cache=True, nogil=True, inline="always")
def store_state(tile, lane, states, row):
    """Lane ``lane`` of ``tile`` into state ``states[row]``."""
    for k in range(LANE_COUNT):
        states[row, k] = tile[k * TILE_WIDTH + lane]
