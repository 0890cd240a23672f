"""The sponge's compiled functions: the lane scheduler ``run_jobs`` and the kernels around
it (equal single-block messages, prefixes, the stored states' plan and finish).

What each is for, and the contract they keep, is in :mod:`batchkeccak.sponge`, which exports
them. Nothing here validates its arguments beyond what keeps memory reads in bounds.
"""

from __future__ import annotations

import sys

import numpy as np

from batchkeccak.native.arrays import read_only
from batchkeccak.native.jit import njit
from batchkeccak.native.words import load_le64
from batchkeccak.permutation import (
    LANE_COUNT,
    MIN_TILE_LANES,
    TILE_WIDTH,
    new_tiles,
    state_absorb,
    tile_permute,
)
from batchkeccak.permutation.lanes import (
    SKIP_LANE,
    absorb_and_permute_wide,
    absorb_whole_blocks_4,
    get_words_4x4,
    load_state,
    prefetch_block,
    set_words_4x4,
    squeeze_block,
    start_short_messages_4,
    store_state,
)

if sys.byteorder != "little":  # pragma: no cover - numba targets little-endian CPUs only
    raise ImportError("batchkeccak's kernels read message words in little-endian order")

# -- many messages: the pad, the lane scheduler, equal messages, prefixes

PAD_LAST_BIT = np.uint64(0x8000000000000000)


@njit(cache=True, nogil=True, inline="always")
def pad_final_block(lanes, lane, width, tail_word, tail, last_word, suffix):
    """The one pad10*1 of the package: XOR the domain byte ``suffix`` (whose lowest bits are
    the domain bits, then padding's first 1) into byte ``tail`` of word ``tail_word``, and
    padding's closing 1 into the top bit of word ``last_word`` (the block's last byte),
    for the state at ``lane`` of ``lanes`` (words ``width`` apart). When only one byte of
    the block is free both land in it, as FIPS 202 wants.

    Inlined into every kernel that ends a message (``_absorb_block``, ``hash_uniform``,
    ``finish_states``): the message bytes of the final block are XORed in by
    the caller, before or after.
    """
    lanes[tail_word * width + lane] ^= np.uint64(suffix) << np.uint64(8 * tail)
    lanes[last_word * width + lane] ^= PAD_LAST_BIT


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
        prefetch_block(data, pos + rate, rate)
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
    word = np.uint64(0)
    for b in range(tail):
        word |= np.uint64(data[base + b]) << np.uint64(8 * b)
    lanes[whole_words * width + lane] ^= word
    pad_final_block(lanes, lane, width, whole_words, tail, rate_words - 1, suffix)


@njit(cache=True, nogil=True, inline="always")
def _initial_row(initial, message):
    # One state for the batch (row 0) or one per message: a multiply instead of a branch.
    return message * min(initial.shape[0] - 1, 1)


@njit(cache=True, nogil=True, inline="always")
def _check_initial(initial, count):
    """Refuse an initial-state array that is not ``(1, 25)`` or ``(count, 25)``."""
    if initial.shape[1] != LANE_COUNT or not (initial.shape[0] == 1 or initial.shape[0] == count):
        raise ValueError("initial state: expected shape (1, 25) or (number of messages, 25)")


@njit(cache=True, nogil=True)
def _item_end(starts, ends, m):
    # Arrow's layout (``ends`` None: item m ends where item m + 1 starts), or separate ends.
    if ends is None:
        return starts[m + 1]
    return ends[m]


@njit(cache=True, nogil=True, inline="always")
def _absorb_group(tile, group, data, zeros, positions, rate):
    # Lanes group .. group + 3 each XOR the block at their position (negative: none).
    absorb_whole_blocks_4(
        tile,
        group,
        data,
        zeros,
        positions[group],
        positions[group + 1],
        positions[group + 2],
        positions[group + 3],
        rate,
    )


@njit(cache=True, nogil=True, inline="always")
def _start_job(lane, m, starts, ends, rate, final_shift, lanes):
    # A lane takes job m: its item's place, its length, and the index of its final block.
    lane_message, lane_item, lane_start, lane_length, lane_final = lanes
    lane_message[lane] = m
    lane_item[lane] = m
    lane_start[lane] = starts[m]
    lane_length[lane] = _item_end(starts, ends, m) - starts[m]
    lane_final[lane] = lane_length[lane] // rate - final_shift


@njit(cache=True, nogil=True)
def _check_jobs(data, starts, ends, order, follow, initial, states_out, rate, out):
    """Refuse any queued job that would read outside ``data`` or write outside the rows.

    The last line of defence before the kernel reads memory without bounds checks. Callers
    validate first; this catches a caller mistake, or an array changed by another thread
    after it was validated, at a cost of a few nanoseconds per item.
    """
    count = starts.shape[0] - 1 if ends is None else starts.shape[0]
    if ends is not None and ends.shape[0] != count:
        raise ValueError("run_jobs: starts and ends must have one entry per item")
    if initial.shape[1] != LANE_COUNT:
        raise ValueError("run_jobs: initial states must be rows of 25 lanes")
    rows = out.shape[0]
    links = 0
    if states_out is not None:
        rows = states_out.shape[0]
        if states_out.shape[1] != LANE_COUNT:
            raise ValueError("run_jobs: kept states must be rows of 25 lanes")
        links = follow.shape[0]
        if links != 0 and links != count:
            raise ValueError("run_jobs: follow must be empty or have one entry per item")
    for i in range(order.shape[0]):
        m = order[i]
        if m < 0 or m >= count or m >= rows or (initial.shape[0] != 1 and m >= initial.shape[0]):
            raise ValueError(
                "run_jobs: a queued job is outside the items, the rows or the initial states"
            )
        while True:
            start = starts[m]
            end = _item_end(starts, ends, m)
            if start < 0 or start > end or end > data.shape[0]:
                raise ValueError("run_jobs: an item's offsets leave the data buffer")
            if states_out is None:
                break
            if end == start or (end - start) % rate != 0:
                raise ValueError("run_jobs: an item of a kept state is not whole blocks")
            if links == 0 or follow[m] < 0:
                break
            if follow[m] <= m or follow[m] >= count:
                raise ValueError("run_jobs: a follow link does not point to a later item")
            m = follow[m]


# One long function on purpose: split into steps (whole blocks, the next blocks with padding,
# a message's finish), even inlined, the per-lane calls paid numba's reference counts on
# their array arguments, and 2^16 messages of 0..135 bytes ran 4-5 % slower (bench/ab_kernels.py).
@njit(cache=True, nogil=True)
def run_jobs(
    data, starts, ends, order, follow, initial, states_out, rate, suffix, first_round, out
):
    """The lane scheduler: run the jobs ``order[0], order[1], ...`` through tiles.

    Job ``m`` reads the bytes ``data[starts[m]:ends[m]]`` (an *item*; with ``ends`` None,
    ``starts`` holds N + 1 offsets in Arrow's layout and item ``m`` ends at ``starts[m + 1]``)
    from the state
    ``initial[0]`` (a ``(1, 25)`` array: one state for all, zeros for the plain functions)
    or ``initial[m]`` (one per row). It ends one of two ways:

    - ``states_out`` and ``follow`` are None: the item is a whole message. It is padded with
      the domain byte ``suffix`` and ``out.shape[1]`` bytes are squeezed into ``out[m]``.
    - ``states_out`` is an array: the item is whole blocks. When they are absorbed, the state
      moves on to item ``follow[m]`` (when ``follow`` has entries and that one is not -1;
      links point forward), and after the last item of the chain it is stored in
      ``states_out[m]``: the stored-state sponge (streams, files, tree modes). Then
      ``initial`` may be a read-only view of ``states_out``, ``out`` has no rows, and no
      row may be queued twice.

    ``rate`` is in bytes (a multiple of 8), ``first_round`` 0 for Keccak-f[1600] or 12 for
    Keccak-p[1600, 12]. Every lane of a tile stays busy: a lane whose job is done takes the
    next job of the queue. When the queue is empty and fewer than ``MIN_TILE_LANES`` lanes are
    still working, those states leave the tile and finish on the single-state permutation,
    where a lone long message costs one state's work instead of W. Any order works; jobs in
    buffer order keep the reads of neighbouring lanes close together in memory. Every item
    is checked to lie inside ``data`` before anything is read.
    """
    _check_jobs(data, starts, ends, order, follow, initial, states_out, rate, out)
    width = TILE_WIDTH
    out_len = out.shape[1]
    flat_out = out.reshape(-1)
    # Whether a job's state is kept is known when the kernel is compiled (``states_out`` is
    # None or an array): each kind of job has its own specialization, with no branch for the
    # other. A kept state stops after its last whole block: that block is the job's "final"
    # one, absorbed unpadded (its bytes fill the block), and nothing is squeezed after it.
    final_shift = np.int64(0)
    squeeze_blocks = (out_len + rate - 1) // rate
    chained = False
    if states_out is not None:
        final_shift = np.int64(1)
        squeeze_blocks = 1
        chained = follow.shape[0] > 0
    # Every array is a zeroed uint64 or int64 one: each other allocation function or dtype
    # is one more numpy overload to compile on first use.
    tile, spare = new_tiles()
    # Per lane: its job (-1: idle) and the item it reads, where the item starts and how long
    # it is, the index of its final block, and the block the lane is at. The division
    # happens once per item here, not twice per block in the loop below. An item that
    # follows another in the same state starts at block 1 of a range one block earlier: the
    # lane's block 0 (the fresh state) never comes again.
    lane_message = np.zeros(width, dtype=np.int64)
    lane_item = np.zeros(width, dtype=np.int64)
    lane_start = np.zeros(width, dtype=np.int64)
    lane_length = np.zeros(width, dtype=np.int64)
    lane_final = np.zeros(width, dtype=np.int64)
    lane_block = np.zeros(width, dtype=np.int64)
    lanes = (lane_message, lane_item, lane_start, lane_length, lane_final)  # what a job sets
    queued = order.shape[0]
    taken = 0
    busy = 0
    for lane in range(width):
        lane_message[lane] = -1
        if taken < queued:
            _start_job(lane, order[taken], starts, ends, rate, final_shift, lanes)
            taken += 1
            busy += 1

    positions = np.zeros(width, dtype=np.int64)
    zeros = np.zeros(4, dtype=np.uint64)  # 32 bytes that idle lanes of a group read
    # A message shorter than a block is one final block: started (padded on the way in)
    # four lanes at a time from the batch's one initial state, a contiguous copy here. Lane
    # by lane, a column of short values took twice the time of equal rows.
    batch_start = np.zeros(LANE_COUNT, dtype=np.uint64)
    one_start = initial.shape[0] == 1
    if one_start:
        for k in range(LANE_COUNT):
            batch_start[k] = initial[0, k]
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
        permuted = False
        if steady > 0:
            # 512-bit tiles gather the blocks into their registers and permute in one pass;
            # the default build XORs them into the tile four lanes at a time, then permutes.
            permuted = absorb_and_permute_wide(tile, data, positions, rate, first_round)
            if not permuted:
                for group in range(0, width, 4):
                    _absorb_group(tile, group, data, zeros, positions, rate)
            for lane in range(width):
                positions[lane] += rate
            steady -= 1
            in_run = True
        else:
            in_run = False
            for group in range(0, width, 4):
                # Whole blocks go four lanes at a time when at least two of the four have one,
                # and so do messages shorter than a block (padded on the way in, started from
                # the batch's one initial state). The rest go lane by lane: the final blocks
                # of longer messages (four at a time, they measured slower on mixed lengths),
                # a message whose last word would read past the buffer, the blocks after the
                # final one (a long output).
                whole = 0
                short = 0  # bit j: lane group + j starts a message shorter than a block
                for lane in range(group, group + 4):
                    p = lane_block[lane]
                    if lane_message[lane] >= 0 and p < lane_final[lane]:
                        positions[lane] = lane_start[lane] + p * rate
                        whole += 1
                    else:
                        positions[lane] = SKIP_LANE
                        if (
                            lane_message[lane] >= 0
                            and p == 0
                            and one_start
                            and states_out is None
                            and lane_start[lane] + ((lane_length[lane] + 7) & ~7) <= data.shape[0]
                        ):
                            short |= 1 << (lane - group)
                if whole >= 2:
                    for lane in range(group, group + 4):
                        if positions[lane] >= 0 and lane_block[lane] == 0:
                            # A first block: the lane starts from its initial state.
                            load_state(
                                tile, lane, initial, _initial_row(initial, lane_message[lane])
                            )
                    _absorb_group(tile, group, data, zeros, positions, rate)
                # A lone short message goes lane by lane, as a lone whole block does.
                if short & (short - 1) != 0:
                    start_short_messages_4(
                        tile,
                        group,
                        data,
                        lane_start[group] if short & 1 else SKIP_LANE,
                        lane_start[group + 1] if short & 2 else SKIP_LANE,
                        lane_start[group + 2] if short & 4 else SKIP_LANE,
                        lane_start[group + 3] if short & 8 else SKIP_LANE,
                        lane_length[group],
                        lane_length[group + 1],
                        lane_length[group + 2],
                        lane_length[group + 3],
                        rate,
                        suffix,
                        batch_start,
                    )
                else:
                    short = 0
                for lane in range(group, group + 4):
                    p = lane_block[lane]
                    if (
                        lane_message[lane] < 0
                        or (whole >= 2 and positions[lane] >= 0)
                        or (short >> (lane - group)) & 1
                    ):
                        continue
                    if p <= lane_final[lane]:
                        _absorb_block(
                            tile,
                            lane,
                            tile_stride,
                            data,
                            lane_start[lane] + p * rate,
                            lane_length[lane] - p * rate,
                            rate,
                            suffix,
                            p == 0,
                            initial,
                            _initial_row(initial, lane_message[lane]),
                        )
        # One call site for the tile permutation (two with the wide absorb above): LLVM
        # inlines it, and each further site would add a copy to compile.
        if not permuted:
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
                if states_out is None:
                    squeeze_block(
                        tile,
                        lane,
                        width,
                        flat_out,
                        m * out_len + q * rate,
                        min(rate, out_len - q * rate),
                    )
                else:
                    item = follow[lane_item[lane]] if chained else -1
                    if item >= 0:
                        # The state goes on with its next item, in the same lane.
                        lane_item[lane] = item
                        lane_start[lane] = starts[item] - rate
                        lane_length[lane] = _item_end(starts, ends, item) - starts[item] + rate
                        lane_final[lane] = lane_length[lane] // rate - 1
                        lane_block[lane] = 1
                        continue
                    store_state(tile, lane, states_out, m)
            if q + 1 < squeeze_blocks:
                lane_block[lane] = p + 1
                continue
            # This lane's job is done: refill it from the queue or leave it idle. (Its
            # state is overwritten by the next job's first block.)
            lane_block[lane] = 0
            if taken < queued:
                _start_job(lane, order[taken], starts, ends, rate, final_shift, lanes)
                taken += 1
                if taken < queued:
                    prefetch_block(data, starts[order[taken]], rate)
            else:
                lane_message[lane] = -1
                busy -= 1

    if busy == 0:
        return
    # Fewer than MIN_TILE_LANES jobs are left: each finishes on its own, its state in
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
        if states_out is not None:
            # The rest of this item, then every item that follows it, all whole blocks.
            state_absorb(
                state,
                data,
                start + next_block * rate,
                final + 1 - next_block,
                rate_words,
                first_round,
            )
            item = follow[lane_item[lane]] if chained else -1
            while item >= 0:
                state_absorb(
                    state,
                    data,
                    starts[item],
                    (_item_end(starts, ends, item) - starts[item]) // rate,
                    rate_words,
                    first_round,
                )
                item = follow[item]
            for k in range(LANE_COUNT):
                states_out[m, k] = state[k]
            continue
        if next_block < final:
            state_absorb(
                state,
                data,
                start + next_block * rate,
                final - next_block,
                rate_words,
                first_round,
            )
            next_block = final
        for p in range(next_block, final + squeeze_blocks):
            if p == final:
                _absorb_block(
                    state,
                    nothing,
                    one,
                    data,
                    start + p * rate,
                    length - p * rate,
                    rate,
                    suffix,
                    p < 0,
                    initial,
                    nothing,
                )
            state_absorb(state, data, start, one, nothing, first_round)
            q = p - final
            squeeze_block(
                state,
                0,
                1,
                flat_out,
                m * out_len + q * rate,
                min(rate, out_len - q * rate),
            )


NO_FOLLOW = np.zeros(0, dtype=np.int64)
"""``follow`` for kept jobs of one item each (read-only, as every caller's arrays are: one
compiled specialization of ``run_jobs`` serves them all)."""
NO_FOLLOW.flags.writeable = False
NO_DIGESTS = np.zeros((0, 0), dtype=np.uint8)
"""``out`` for jobs whose states are kept."""


@njit(cache=True, nogil=True, inline="always")
def _partial_word(data, at, size):
    """``data[at:at + size]`` (``0 <= size <= 8``) as a little-endian word, zeros above."""
    if size == 0:
        return np.uint64(0)
    if at + 8 <= data.shape[0]:
        # A whole word read and the message's bytes kept: cheaper than a byte loop.
        word = load_le64(data, at)
        if size == 8:
            return word
        return word & ((np.uint64(1) << np.uint64(8 * size)) - np.uint64(1))
    word = np.uint64(0)
    for b in range(size):
        word |= np.uint64(data[at + b]) << np.uint64(8 * b)
    return word


@njit(cache=True, nogil=True)
def hash_uniform(
    data, start, count, length, initial, rate, suffix, first_round, out, shift, trailer
):
    """Hash ``count`` messages of ``length`` bytes stored back to back from ``start``, each
    at bytes ``shift .. shift + length`` of its one padded block (``0 <= shift < 8``).

    Every message starts from the one state ``initial[0]`` (``initial`` is ``(1, 25)``),
    which already holds what the block has around the message: a mode's constant framing
    before it (TupleHash's ``left_encode`` of the length, in bytes ``0 .. shift``) and
    ``trailer`` bytes after it (KMAC's ``right_encode(L)``), XORed in, so the messages are
    read in place, never copied. Padding starts after the trailer
    (``shift + length + trailer < rate``).

    The common case of fixed-size keys, hashes and Merkle pairs: every message is one padded
    block and (``out.shape[1] <= rate``) one squeezed block, so whole tiles are filled word by
    word across the lanes, with no per-lane queue. Loops over the lanes write consecutive tile
    words, which LLVM turns into vector stores; the lane-by-lane path writes one word per
    lane per store. A last tile of fewer than ``TILE_WIDTH`` messages fills its idle lanes
    with copies of its last message and keeps their output: one kernel serves any count.
    """
    end = shift + length  # the block byte after the message
    padded = end + trailer  # where the padding starts
    if (
        start < 0
        or length < 0
        or shift < 0
        or shift >= 8
        or trailer < 0
        or padded >= rate
        or out.shape[1] > rate
        or count < 0
        or out.shape[0] < count
        or start + count * length > data.shape[0]
        or initial.shape[0] != 1
        or initial.shape[1] != LANE_COUNT
    ):
        raise ValueError("hash_uniform: the messages leave the data buffer or the output")
    width = TILE_WIDTH
    out_len = out.shape[1]
    flat_out = out.reshape(-1)
    tile, spare = new_tiles()
    # Block word 0 holds the prefix and the message's first bytes (unless shift is 0);
    # words first_full .. full_end are whole message words; word full_end its last bytes.
    first_full = 1 if shift > 0 else 0
    full_end = max(end >> 3, first_full)
    head_size = min(8 - shift, length) if shift > 0 else 0
    tail_size = end - 8 * full_end if end > 8 * full_end else 0
    touched = (end + 7) >> 3  # the block words that hold message bytes
    tail_mask = (np.uint64(1) << np.uint64(8 * tail_size)) - np.uint64(1)
    last_word = (rate >> 3) - 1
    grouped_out_words = (out_len >> 3) & ~3
    for first in range(0, count, width):
        base = start + first * length - shift  # where lane 0's block word 0 would lie
        # Lanes past the last message of a partial tile read that message again (min): the
        # loads stay inside the data and nothing is written for those lanes.
        last = min(width, count - first) - 1
        # A tile whose loads may run up to 7 bytes past its last message (into the next
        # one) reads every word whole and masks the last one after; a tile whose loads
        # could leave the buffer reads the first and last bytes of each message exactly.
        whole = touched > 1 and base + last * length + 8 * touched <= data.shape[0]
        loaded_end = touched if whole else full_end
        grouped_end = first_full + ((loaded_end - first_full) & ~3)
        if shift > 0:
            for j in range(width):
                at = base + shift + min(j, last) * length
                tile[j] = _partial_word(data, at, head_size) << np.uint64(8 * shift)
        for k in range(first_full, grouped_end, 4):
            for j in range(0, width, 4):
                set_words_4x4(
                    tile,
                    k * width + j,
                    width,
                    data,
                    base + min(j, last) * length + 8 * k,
                    base + min(j + 1, last) * length + 8 * k,
                    base + min(j + 2, last) * length + 8 * k,
                    base + min(j + 3, last) * length + 8 * k,
                )
        for k in range(grouped_end, loaded_end):
            for j in range(width):
                tile[k * width + j] = load_le64(data, base + min(j, last) * length + 8 * k)
        if tail_size > 0 and whole:
            for j in range(width):
                tile[full_end * width + j] &= tail_mask
        elif tail_size > 0:
            for j in range(width):
                at = base + min(j, last) * length + 8 * full_end
                tile[full_end * width + j] = _partial_word(data, at, tail_size)
        # The initial state: XORed under the message words (its zero words skipped: a
        # plain hash starts from zero), copied into the words after them. Loops over the
        # lanes of one word, so LLVM broadcasts the word into vector stores.
        for k in range(touched):
            word = initial[0, k]
            if word != 0:
                for j in range(width):
                    tile[k * width + j] ^= word
        for k in range(touched, LANE_COUNT):
            word = initial[0, k]
            for j in range(width):
                tile[k * width + j] = word
        for j in range(width):
            pad_final_block(tile, j, width, padded >> 3, padded & 7, last_word, suffix)
        tile_permute(tile, spare, first_round)
        # Four lanes by four words where all four lanes hold messages; the rest word by word.
        grouped_lanes = (last + 1) & ~3
        for j in range(0, grouped_lanes, 4):
            at = (first + j) * out_len
            for k in range(0, grouped_out_words, 4):
                get_words_4x4(
                    tile,
                    k * width + j,
                    width,
                    flat_out,
                    at + 8 * k,
                    at + out_len + 8 * k,
                    at + 2 * out_len + 8 * k,
                    at + 3 * out_len + 8 * k,
                )
        for j in range(last + 1):
            done = grouped_out_words if j < grouped_lanes else 0
            if 8 * done < out_len:
                squeeze_block(tile, j, width, flat_out, (first + j) * out_len, out_len, done)


@njit(cache=True, nogil=True, inline="always")
def copy_checked_offsets(offsets, own, data_size):
    """``offsets`` (int32 or int64, the caller's, unchecked) copied into ``own`` (int64, as
    long), and the copy checked: inside ``data_size`` bytes and non-decreasing (ValueError
    if not). The kernels read only the copy, which no other thread can change."""
    count = offsets.shape[0] - 1
    for i in range(count + 1):
        own[i] = offsets[i]
    if own[0] < 0 or own[count] > data_size:
        raise ValueError("the offsets leave the data buffer")
    for i in range(count):
        if own[i + 1] < own[i]:
            raise ValueError("the offsets decrease")


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
    copy_checked_offsets(offsets, own, data.shape[0])
    if count == 0 or out.shape[1] == 0:
        return
    length = own[1] - own[0]
    uniform = (
        initial.shape[0] == 1 and length < rate and out.shape[1] <= rate and count >= TILE_WIDTH
    )
    for i in range(count):
        uniform = uniform and own[i + 1] - own[i] == length
    tiles_end = count // TILE_WIDTH * TILE_WIDTH if uniform else 0
    # The callees see read-only arrays and a plain zero (not a literal), as from Python:
    # one specialization of each serves both (read_only's docstring).
    no_framing = np.int64(0)
    if tiles_end > 0:
        hash_uniform(
            read_only(data),
            own[0],
            tiles_end,
            length,
            read_only(initial),
            rate,
            suffix,
            first_round,
            out[:tiles_end],
            no_framing,
            no_framing,
        )
    if tiles_end < count:
        run_jobs(
            read_only(data),
            read_only(own[tiles_end:]),
            None,
            read_only(np.arange(count - tiles_end)),
            None,
            read_only(initial),
            None,
            rate,
            suffix,
            first_round,
            out[tiles_end:count],
        )


@njit(cache=True, nogil=True)
def absorb_prefixes(initial, data, offsets, rate, first_round):
    """The states after absorbing whole-block prefixes: ``(N, 25)``, row ``i`` the state
    ``initial[0]`` (or ``initial[i]``) has after absorbing ``data[offsets[i]:offsets[i+1]]``.

    Every prefix is a whole number of ``rate``-byte blocks and is not padded: this is the
    first half of a sponge, for constructions that fix the start of every message (a key, a
    customization string, a tree-node header) and then hash many messages from the state it
    leaves (``initial`` of ``run_jobs``). Prefixes are checked to lie in ``data``.
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


# -- stored states: byte pieces planned into jobs, and the finish
#
# A state row holds lane ``k`` at ``states[s, k]``, the same lane order as the tile.


@njit(cache=True, nogil=True)
def finish_states(states, pending, pending_len, which, rate, suffix, first_round, out):
    """Pad and squeeze ``out.shape[1]`` bytes for each state ``which[i]`` into ``out[i]``.

    ``pending[s, :pending_len[s]]`` holds the bytes of state ``s`` not yet absorbed (fewer
    than ``rate``); ``suffix`` is the domain byte (0x06 SHA-3, 0x1F SHAKE and TurboSHAKE,
    0x01 Keccak). The stored states are not changed.
    """
    out_len = out.shape[1]
    flat_out = out.reshape(-1)
    rate_words = rate >> 3
    lanes = np.zeros(LANE_COUNT, dtype=np.uint64)
    # The permutation is state_absorb of nothing (int64 arguments, not literals, so that
    # this shares the whole-block callers' specialization).
    one, nothing = np.int64(1), np.int64(0)
    for i in range(which.shape[0]):
        state = which[i]
        for k in range(LANE_COUNT):
            lanes[k] = states[state, k]
        # The final block: the waiting bytes, the suffix right after them, the closing bit
        # at the top of the block's last word (the same byte as the suffix when only one is
        # free).
        waiting = pending[state]
        count = pending_len[state]
        whole_words = count >> 3
        for k in range(whole_words):
            lanes[k] ^= load_le64(waiting, 8 * k)
        tail = count & 7
        word = np.uint64(0)
        for b in range(tail):
            word |= np.uint64(waiting[8 * whole_words + b]) << np.uint64(8 * b)
        lanes[whole_words] ^= word
        pad_final_block(lanes, 0, 1, whole_words, tail, rate_words - 1, suffix)
        produced = 0
        while True:
            state_absorb(lanes, waiting, nothing, one, nothing, first_round)
            count = min(rate, out_len - produced)
            squeeze_block(lanes, 0, 1, flat_out, i * out_len + produced, count)
            produced += count
            if produced >= out_len:
                break


@njit(cache=True, nogil=True, inline="always")
def _chain_item(state, last, items, start, length, starts, ends, follow):
    """Add bytes ``start .. start + length`` to the chain of ``state`` whose latest item is
    ``last`` (-1: none yet, and the new item is ``state`` itself); ``items`` is the next free
    item past the states. Returns the new latest item and the next free item."""
    item = state if last < 0 else items
    starts[item] = start
    ends[item] = start + length
    if last >= 0:
        follow[last] = item
        items += 1
    return item, items


@njit(cache=True, nogil=True)
def plan_pieces(pending, pending_len, data, pieces, runs, rate, scratch, scratch_start, jobs_out):
    """Turn byte pieces appended to stored states into jobs of whole blocks for
    ``run_jobs``; the number of jobs written to ``heads``.

    ``pieces`` is ``(piece_start, piece_len)``, ``runs`` is ``(run_state, run_first)`` and
    ``jobs_out`` is ``(starts, ends, follow, heads)``, the arrays the jobs are written to.
    Run ``r`` appends pieces ``run_first[r] .. run_first[r + 1] - 1``, in that order, to state
    ``run_state[r]``. Piece ``p`` is ``data[piece_start[p]:piece_start[p] + piece_len[p]]``.
    A state's waiting bytes ``pending[s, :pending_len[s]]`` (fewer than ``rate``) come first.

    Whole blocks are read where they lie. A block that spans the waiting bytes and a piece, or
    two pieces, is copied into ``scratch``, which lies at ``data[scratch_start:]``. A state's
    items are chained: the first is item ``s`` (``starts[s]``, ``ends[s]``), the next ones
    items past the states, linked by ``follow``; ``heads`` receives the states that have a
    job. The bytes that do not fill a block become the state's waiting bytes at once: the
    jobs never read ``pending``. No state may be in two runs of one call.
    """
    piece_start, piece_len = pieces
    run_state, run_first = runs
    starts, ends, follow, heads = jobs_out
    states = pending.shape[0]
    piece_count = piece_len.shape[0]
    # Each piece completes at most one block in scratch and adds at most two items.
    if (
        scratch.shape[0] < (piece_count + 1) * rate
        or scratch_start < 0
        or scratch_start + scratch.shape[0] > data.shape[0]
        or min(starts.shape[0], ends.shape[0], follow.shape[0]) < states + 2 * piece_count
        or heads.shape[0] < run_state.shape[0]
        or run_first.shape[0] != run_state.shape[0] + 1
    ):
        raise ValueError("plan_pieces: an array is too small for the pieces")
    items = states
    slot = 0  # the scratch block being filled
    jobs = 0
    for r in range(run_state.shape[0]):
        state = run_state[r]
        if state < 0 or state >= states:
            raise ValueError("plan_pieces: a run's state is outside the states")
        if run_first[r] < 0 or run_first[r] > run_first[r + 1] or run_first[r + 1] > piece_count:
            raise ValueError("plan_pieces: a run's pieces are outside the pieces")
        at = slot * rate
        fill = pending_len[state]
        if fill < 0 or fill >= rate or pending.shape[1] < rate:
            raise ValueError("plan_pieces: a state's waiting bytes are not less than a block")
        for b in range(fill):
            scratch[at + b] = pending[state, b]
        last = -1  # the state's latest item

        for piece in range(run_first[r], run_first[r + 1]):
            start = piece_start[piece]
            length = piece_len[piece]
            if start < 0 or length < 0 or start + length > data.shape[0]:
                raise ValueError("plan_pieces: a piece leaves the data buffer")
            used = 0
            if fill > 0:
                take = min(rate - fill, length)
                for b in range(take):
                    scratch[at + fill + b] = data[start + b]
                fill += take
                used = take
                if fill < rate:
                    continue
                last, items = _chain_item(
                    state, last, items, scratch_start + at, rate, starts, ends, follow
                )
                slot += 1
                at = slot * rate
                fill = 0
            whole = (length - used) // rate * rate
            if whole > 0:
                last, items = _chain_item(
                    state, last, items, start + used, whole, starts, ends, follow
                )
                used += whole
            fill = length - used
            for b in range(fill):
                scratch[at + b] = data[start + used + b]
        for b in range(fill):
            pending[state, b] = scratch[at + b]
        pending_len[state] = fill
        if last >= 0:
            follow[last] = -1
            heads[jobs] = state
            jobs += 1
    return jobs
