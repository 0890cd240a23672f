"""The sponge over stored states: many incremental hashes absorbed together, then finished.

An incremental hash (a hashlib-style object, one stream of a ``StreamHasher``, one file read
in chunks) keeps its Keccak state between calls: a row of 25 ``uint64`` lanes in a
``states`` array of shape ``(n, 25)``. Whole blocks go into such rows through the one
lane scheduler, ``batchkeccak.core.sponge.run_jobs`` with the states kept (W states to a tile, a
lone stream on the single-state permutation). Two kernels here prepare and finish its work:

``plan_pieces``
    Byte strings of any lengths appended to many states (the chunks of
    ``StreamHasher.update_many``): for each state, a chain of whole-block items read where
    the bytes lie, with the few blocks that span two pieces (or the waiting bytes and a
    piece) copied out; the bytes that do not fill a block wait for the next call.
``finish_states``
    The final, padded block (the bytes that waited in a stream's buffer, the domain suffix,
    the closing ``0x80``) and the squeeze, from a copy of the stored state: the stored state
    itself is left as it was, so a hash can still be updated or read again.

A state row holds lane ``k`` at ``states[s, k]``, the same lane order as the tile. Nothing
here validates its arguments: ``batchkeccak.streams`` and ``batchkeccak.files`` do.
"""

from __future__ import annotations

import numpy as np

from batchkeccak.core.sponge import pad_final_block
from batchkeccak.native.jit import njit
from batchkeccak.native.words import load_le64
from batchkeccak.permutation import (
    LANE_COUNT,
    state_absorb,
)
from batchkeccak.permutation.lanes import squeeze_block


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
    ``batchkeccak.core.sponge.run_jobs``; the number of jobs written to ``heads``.

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
