"""The sponge over stored states: many incremental hashes absorbed together, then finished.

An incremental hash (a hashlib-style object, one stream of a ``StreamHasher``, one file read
in chunks) keeps its Keccak state between calls: a row of 25 ``uint64`` lanes in a
``states`` array of shape ``(n, 25)``. Two kernels work on such rows:

``absorb_jobs``
    Whole blocks for many states at once. Each *job* names a state and a run of whole blocks
    in one flat buffer. W jobs are loaded into the lanes of a tile, absorbed and permuted
    together, and a state goes back to its row when its job is done; the lane takes the next
    job. When fewer than ``MIN_TILE_LANES`` jobs are left the rest finish one state at a time
    in registers (``state_absorb``): a lone stream costs one state's work, not W.
``absorb_pieces``
    Byte strings of any lengths appended to many states, each read where it lies (the
    chunks of ``StreamHasher.update_many``): a state's waiting bytes are completed into a
    block first, whole blocks go through the tile, the rest waits for the next call.
``finish_states``
    The final, padded block (the bytes that waited in a stream's buffer, the domain suffix,
    the closing ``0x80``) and the squeeze, from a copy of the stored state: the stored state
    itself is left as it was, so a hash can still be updated or read again.

A state row holds lane ``k`` at ``states[s, k]``, the same lane order as the tile. Nothing
here validates its arguments: ``batchkeccak.streams`` and ``batchkeccak.files`` do.
"""

from __future__ import annotations

import numpy as np

from batchkeccak._jit import njit
from batchkeccak.permutation import (
    LANE_COUNT,
    TILE_WIDTH,
    state_absorb,
    tile_permute,
)
from batchkeccak.permutation._words import load_le64
from batchkeccak.sponge import (
    MIN_TILE_LANES,
    PAD_LAST_BIT,
    SKIP_LANE,
    absorb_whole_blocks_4,
    squeeze_block,
)


@njit(cache=True, nogil=True)
def absorb_jobs(states, data, job_state, job_start, job_blocks, rate, first_round):
    """Absorb ``job_blocks[j]`` whole blocks from ``data[job_start[j]:]`` into the state
    ``states[job_state[j]]``, for every job ``j``.

    ``rate`` is in bytes (a multiple of 8), ``first_round`` 0 for Keccak-f[1600] or 12 for
    Keccak-p[1600, 12]. Every job must have at least one block, and no state may appear in
    two jobs of one call (they would run side by side, not one after the other).
    """
    width = TILE_WIDTH
    jobs = job_state.shape[0]
    rate_words = rate >> 3
    tile = np.zeros(LANE_COUNT * width, dtype=np.uint64)
    spare = np.zeros(LANE_COUNT * width, dtype=np.uint64)
    zeros = np.zeros(4, dtype=np.uint64)  # 32 bytes that idle lanes of a group read
    # Zeroed uint64 and int64 arrays only, as in batchkeccak.sponge: each other numpy
    # allocation function or dtype is one more overload to compile.
    lane_job = np.zeros(width, dtype=np.int64)
    lane_left = np.zeros(width, dtype=np.int64)
    positions = np.zeros(width, dtype=np.int64)
    for lane in range(width):
        lane_job[lane] = -1
        positions[lane] = SKIP_LANE
    taken = 0
    busy = 0
    while True:
        for lane in range(width):
            if lane_job[lane] >= 0 or taken >= jobs:
                continue
            state = job_state[taken]
            for k in range(LANE_COUNT):
                tile[k * width + lane] = states[state, k]
            lane_job[lane] = taken
            lane_left[lane] = job_blocks[taken]
            positions[lane] = job_start[taken]
            taken += 1
            busy += 1
        if busy == 0 or (taken >= jobs and busy < MIN_TILE_LANES):
            break
        # Every busy lane has at least this many blocks left: run them with no per-lane
        # checks. Idle lanes read zeros and are permuted along, unused.
        run = np.int64(1) << 62
        for lane in range(width):
            if lane_job[lane] >= 0:
                run = min(run, lane_left[lane])
        for _ in range(run):
            for group in range(0, width, 4):
                absorb_whole_blocks_4(
                    tile, group, data, zeros, positions[group], positions[group + 1],
                    positions[group + 2], positions[group + 3], rate,
                )
            # One call site for the tile permutation: LLVM inlines it.
            tile_permute(tile, spare, first_round)
            for lane in range(width):
                if lane_job[lane] >= 0:
                    positions[lane] += rate
        for lane in range(width):
            if lane_job[lane] < 0:
                continue
            lane_left[lane] -= run
            if lane_left[lane] == 0:
                state = job_state[lane_job[lane]]
                for k in range(LANE_COUNT):
                    states[state, k] = tile[k * width + lane]
                lane_job[lane] = -1
                positions[lane] = SKIP_LANE
                busy -= 1

    lanes = np.zeros(LANE_COUNT, dtype=np.uint64)
    for lane in range(width):
        if lane_job[lane] < 0:
            continue
        for k in range(LANE_COUNT):
            lanes[k] = tile[k * width + lane]
        state_absorb(lanes, data, positions[lane], lane_left[lane], rate_words, first_round)
        state = job_state[lane_job[lane]]
        for k in range(LANE_COUNT):
            states[state, k] = lanes[k]


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
        word = np.uint64(suffix) << np.uint64(8 * tail)
        for b in range(tail):
            word |= np.uint64(waiting[8 * whole_words + b]) << np.uint64(8 * b)
        lanes[whole_words] ^= word
        lanes[rate_words - 1] ^= PAD_LAST_BIT
        produced = 0
        while True:
            state_absorb(lanes, waiting, nothing, one, nothing, first_round)
            count = min(rate, out_len - produced)
            squeeze_block(lanes, 0, 1, flat_out, i * out_len + produced, count)
            produced += count
            if produced >= out_len:
                break


@njit(cache=True, nogil=True, inline="always")
def _next_segment(lane, state, stop_piece, data, piece_start, piece_len, pending, pending_len,
                  lane_piece, lane_offset, lane_left, lane_stitch, positions, rate):
    """Find lane ``lane``'s next block to absorb; False when its pieces are used up.

    Bytes that do not make a whole block are moved to the state's waiting bytes. When those
    fill a block, the lane's next step absorbs ``pending[state]`` (``lane_stitch``);
    otherwise ``lane_left`` whole blocks from ``data[positions[lane]:]``.
    """
    while lane_piece[lane] < stop_piece:
        piece = lane_piece[lane]
        offset = lane_offset[lane]
        remaining = piece_len[piece] - offset
        at = piece_start[piece] + offset
        waiting = pending_len[state]
        if waiting > 0:
            # First complete the block that waits, from the head of this piece.
            take = min(rate - waiting, remaining)
            for b in range(take):
                pending[state, waiting + b] = data[at + b]
            pending_len[state] = waiting + take
            lane_offset[lane] = offset + take
            if waiting + take == rate:
                lane_stitch[lane] = 1
                positions[lane] = SKIP_LANE
                return True
        else:
            whole = remaining // rate
            if whole > 0:
                positions[lane] = at
                lane_left[lane] = whole
                lane_offset[lane] = offset + whole * rate
                return True
            for b in range(remaining):  # less than a block: it waits
                pending[state, b] = data[at + b]
            pending_len[state] = remaining
            lane_offset[lane] = piece_len[piece]
        if lane_offset[lane] == piece_len[piece]:
            lane_piece[lane] = piece + 1
            lane_offset[lane] = 0
    positions[lane] = SKIP_LANE
    return False


@njit(cache=True, nogil=True)
def absorb_pieces(states, pending, pending_len, data, piece_start, piece_len, run_state,
                  run_first, rate, first_round):
    """Append byte pieces to stored states, reading every piece where it lies.

    Run ``r`` appends pieces ``run_first[r] .. run_first[r + 1] - 1``, in that order, to state
    ``run_state[r]``. Piece ``p`` is ``data[piece_start[p]:piece_start[p] + piece_len[p]]``,
    ``data`` a read-only window over the memory that holds every piece (see
    ``batchkeccak.streams``): the pieces must stay there (exported, not resized) until this
    returns. The state's waiting bytes ``pending[s, :pending_len[s]]`` (fewer than
    ``rate``) come first; whole blocks are absorbed W states to a tile, and the bytes that
    do not fill a block are left waiting. No state may be in two runs of one call.
    """
    width = TILE_WIDTH
    runs = run_state.shape[0]
    rate_words = rate >> 3
    tile = np.zeros(LANE_COUNT * width, dtype=np.uint64)
    spare = np.zeros(LANE_COUNT * width, dtype=np.uint64)
    zeros = np.zeros(4, dtype=np.uint64)  # 32 bytes that idle lanes of a group read
    # Zeroed uint64 and int64 arrays only (see absorb_jobs).
    lane_run = np.zeros(width, dtype=np.int64)
    lane_piece = np.zeros(width, dtype=np.int64)
    lane_offset = np.zeros(width, dtype=np.int64)
    lane_left = np.zeros(width, dtype=np.int64)
    lane_stitch = np.zeros(width, dtype=np.int64)  # 1: the next step absorbs pending[state]
    positions = np.zeros(width, dtype=np.int64)
    for lane in range(width):
        lane_run[lane] = -1
        positions[lane] = SKIP_LANE
    taken = 0
    busy = 0
    while True:
        for lane in range(width):
            # An idle lane takes runs until one has a block to absorb (the others' bytes
            # only join their states' waiting bytes).
            while lane_run[lane] < 0 and taken < runs:
                run = taken
                taken += 1
                state = run_state[run]
                lane_piece[lane] = run_first[run]
                lane_offset[lane] = 0
                if _next_segment(lane, state, run_first[run + 1], data, piece_start, piece_len,
                                 pending, pending_len, lane_piece, lane_offset, lane_left,
                                 lane_stitch, positions, rate):
                    for k in range(LANE_COUNT):
                        tile[k * width + lane] = states[state, k]
                    lane_run[lane] = run
                    busy += 1
        if busy == 0 or (taken >= runs and busy < MIN_TILE_LANES):
            break
        # A step that absorbs some waiting blocks (lane by lane, from pending) runs alone;
        # otherwise every busy lane reads whole blocks in place for as long as all can.
        steps = np.int64(1) << 62
        for lane in range(width):
            if lane_run[lane] < 0:
                continue
            if lane_stitch[lane]:
                steps = 1
                state = run_state[lane_run[lane]]
                row = pending[state]
                at = np.uint64(lane)
                for k in range(rate_words):
                    tile[at] ^= load_le64(row, 8 * k)
                    at += np.uint64(width)
            else:
                steps = min(steps, lane_left[lane])
        for _ in range(steps):
            for group in range(0, width, 4):
                absorb_whole_blocks_4(
                    tile, group, data, zeros, positions[group], positions[group + 1],
                    positions[group + 2], positions[group + 3], rate,
                )
            # One call site for the tile permutation: LLVM inlines it.
            tile_permute(tile, spare, first_round)
            for lane in range(width):
                if positions[lane] >= 0:
                    positions[lane] += rate
        for lane in range(width):
            run = lane_run[lane]
            if run < 0:
                continue
            state = run_state[run]
            if lane_stitch[lane]:
                lane_stitch[lane] = 0
                pending_len[state] = 0
            else:
                lane_left[lane] -= steps
                if lane_left[lane] > 0:
                    continue
            if not _next_segment(lane, state, run_first[run + 1], data, piece_start, piece_len,
                                 pending, pending_len, lane_piece, lane_offset, lane_left,
                                 lane_stitch, positions, rate):
                for k in range(LANE_COUNT):
                    states[state, k] = tile[k * width + lane]
                lane_run[lane] = -1
                busy -= 1

    # Too few lanes left to fill a tile: each finishes on the one-state permutation.
    lanes = np.zeros(LANE_COUNT, dtype=np.uint64)
    one, nothing = np.int64(1), np.int64(0)  # see finish_states
    for lane in range(width):
        run = lane_run[lane]
        if run < 0:
            continue
        state = run_state[run]
        for k in range(LANE_COUNT):
            lanes[k] = tile[k * width + lane]
        while True:
            if lane_stitch[lane]:
                row = pending[state]
                for k in range(rate_words):
                    lanes[k] ^= load_le64(row, 8 * k)
                state_absorb(lanes, data, nothing, one, nothing, first_round)
                lane_stitch[lane] = 0
                pending_len[state] = 0
            else:
                state_absorb(lanes, data, positions[lane], lane_left[lane], rate_words,
                             first_round)
            if not _next_segment(lane, state, run_first[run + 1], data, piece_start, piece_len,
                                 pending, pending_len, lane_piece, lane_offset, lane_left,
                                 lane_stitch, positions, rate):
                break
        for k in range(LANE_COUNT):
            states[state, k] = lanes[k]
