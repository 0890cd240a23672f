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
``finish_states``
    The final, padded block (the bytes that waited in a stream's buffer, the domain suffix,
    the closing ``0x80``) and the squeeze, from a copy of the stored state: the stored state
    itself is left as it was, so a hash can still be updated or read again.

A state row holds lane ``k`` at ``states[s, k]``, the same lane order as the tile. Nothing
here validates its arguments: ``batchkeccak.streams`` and ``batchkeccak.files`` do.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from batchkeccak.permutation import (
    LANE_COUNT,
    TILE_WIDTH,
    state_absorb,
    state_permute,
    tile_permute,
)
from batchkeccak.sponge import (
    _SKIP,
    MIN_TILE_LANES,
    _absorb_whole_blocks_4,
    _load_le64,
    _squeeze_block,
)

_PAD_LAST_BYTE = np.uint8(0x80)


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
    spare = np.empty_like(tile)
    zeros = np.zeros(32, dtype=np.uint8)
    lane_job = np.full(width, -1, dtype=np.int64)
    lane_left = np.zeros(width, dtype=np.int64)
    positions = np.full(width, _SKIP, dtype=np.int64)
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
                _absorb_whole_blocks_4(
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
                positions[lane] = _SKIP
                busy -= 1

    lanes = np.empty(LANE_COUNT, dtype=np.uint64)
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
    lanes = np.empty(LANE_COUNT, dtype=np.uint64)
    block = np.zeros(rate, dtype=np.uint8)
    for i in range(which.shape[0]):
        state = which[i]
        for k in range(LANE_COUNT):
            lanes[k] = states[state, k]
        # The final block: the waiting bytes, the suffix right after them, 0x80 into the
        # last byte of the block (one byte when only one is free: suffix | 0x80).
        count = pending_len[state]
        for b in range(count):
            block[b] = pending[state, b]
        for b in range(count, rate):
            block[b] = 0
        block[count] ^= np.uint8(suffix)
        block[rate - 1] ^= _PAD_LAST_BYTE
        for k in range(rate_words):
            lanes[k] ^= _load_le64(block, 8 * k)
        state_permute(lanes, first_round)
        produced = 0
        while True:
            count = min(rate, out_len - produced)
            _squeeze_block(lanes, 0, 1, flat_out, i * out_len + produced, count)
            produced += count
            if produced >= out_len:
                break
            state_permute(lanes, first_round)


@njit(cache=True, nogil=True)
def keep_tails(data, job_state, tail_start, tail_len, pending, pending_len):
    """Copy ``data[tail_start[j]:tail_start[j] + tail_len[j]]`` (fewer than ``rate`` bytes,
    the part of job ``j`` that does not fill a block) to the waiting bytes of its state."""
    for j in range(job_state.shape[0]):
        state = job_state[j]
        start = tail_start[j]
        for b in range(tail_len[j]):
            pending[state, b] = data[start + b]
        pending_len[state] = tail_len[j]
