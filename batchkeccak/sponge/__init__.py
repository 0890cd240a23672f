"""The sponge over many messages, on the permutation's tiles: absorb, pad, permute, squeeze.

Contract (the hasher, the stored states and the modes are written against it alone; the
kernels are in ``_kernels.py``):

``run_jobs(data, starts, ends, order, follow, initial, states_out, rate, suffix, first_round, out)``
    The one lane scheduler. A *job* is an item of bytes (``data[starts[m]:ends[m]]``)
    absorbed into a state that starts as ``initial[m]`` (or the batch's one ``initial[0]``),
    and either padded and squeezed into ``out[m]`` (``hash_many``: one message per job, the
    Arrow layout read in place) or kept, whole blocks only, as ``states_out[m]`` (the
    stored-state sponge of the streams, the files and the tree modes; such a job may go on
    through a chain of items, ``follow``). Every lane of a tile stays busy: when a lane's job
    is done it takes the next one from the queue (``order``). When the queue is empty and
    fewer than ``MIN_TILE_LANES`` lanes are still working, those states leave the tile and
    finish on the single-state permutation, where a lone long message costs one state's
    work instead of W. ``NO_FOLLOW`` and ``NO_DIGESTS`` are its ``follow`` and ``out`` for
    kept jobs of one item each.
``hash_uniform`` / ``hash_offsets`` / ``copy_checked_offsets``
    The fast path of equal single-block messages (whole tiles, no queue; a mode's constant
    framing before and after each message held in the start state, the messages read in
    place), and the one call that picks between it and the queue for an engine's batch
    (offsets copied and checked inside the kernel, by the one check every such call uses).
``absorb_prefixes``
    Keyed and customized modes (SP 800-185, HMAC, KangarooTwelve) absorb their prefix once
    into an initial state instead of copying it in front of every message; the domain byte
    ``suffix`` is a runtime argument too.
``pad_final_block``
    The one pad10*1 of the package (domain byte and closing bit), inlined into every kernel
    that ends a message.
``plan_pieces`` / ``finish_states``
    The stored states (a hashlib-style object, one stream of a ``StreamHasher``, one file
    read in chunks: a row of 25 ``uint64`` lanes each, in the tile's lane order). Byte
    strings of any lengths appended to many states become, for each state, a chain of
    whole-block items for ``run_jobs``, read where the bytes lie (the few blocks that span
    two pieces, or the waiting bytes and a piece, copied out; the bytes that do not fill a
    block wait for the next call). The finish pads and squeezes from a copy of each stored
    state, so a hash can still be updated or read again.

The bytes move between buffers and tile lanes through ``batchkeccak.permutation.lanes``.
Nothing here validates its arguments beyond what keeps memory reads in bounds: the input
boundary (``batchkeccak.inputs``) makes every view the kernels read, and the hasher and the
stored states (``batchkeccak.core``) check the rest once per call.

Importing this package loads numba: its callers import it where they run a kernel.
"""

from batchkeccak.sponge._kernels import (
    NO_DIGESTS,
    NO_FOLLOW,
    absorb_prefixes,
    copy_checked_offsets,
    finish_states,
    hash_offsets,
    hash_uniform,
    pad_final_block,
    plan_pieces,
    run_jobs,
)

__all__ = [
    "NO_DIGESTS",
    "NO_FOLLOW",
    "absorb_prefixes",
    "copy_checked_offsets",
    "finish_states",
    "hash_offsets",
    "hash_uniform",
    "pad_final_block",
    "plan_pieces",
    "run_jobs",
]
