"""Keccak-p[1600, nr] permutations: the lowest layer of batchkeccak.

Contract (everything above this layer is written against it alone):

``TILE_WIDTH``
    W, the number of independent states in a tile: a compile-time multiple of the SIMD width
    in 64-bit words (4 with AVX2, 2 with NEON, 8 with AVX-512).
``tile_permute(tile, spare, first_round)``
    ``tile`` is a flat, C-contiguous ``uint64`` array of ``25 * W`` words in
    structure-of-arrays layout: lane ``k`` (``k = x + 5*y``) of state ``j`` is
    ``tile[k * W + j]``. Runs rounds ``first_round .. 23`` (Keccak-f[1600] for 0,
    Keccak-p[1600, 12] for 12) on all W states in place. ``spare`` is a scratch array of the
    same shape; ``24 - first_round`` must be a multiple of ``TILE_ROUND_STEP`` (4): each
    step is two passes of two rounds, tile to spare and back. Nothing is validated here;
    ``batchkeccak.core.parameters`` refuses any other round count when the table is built. Any
    alignment works; tiles on a 64-byte boundary (``new_tiles``) run fastest. On a CPU with
    AVX-512F the permutation runs in 512-bit registers, eight states per instruction, or in
    the default build's 256-bit ones: ``batchkeccak.permutation.vector_width`` says which.
``new_tiles()``
    A zeroed tile and spare, each starting on a 64-byte boundary: what every kernel that
    permutes tiles allocates them with.
``state_permute(lanes, first_round)``
    The portable single-state fallback: ``lanes`` is 25 ``uint64`` words, permuted in place;
    ``24 - first_round`` must be even. (``state_absorb`` of nothing: the sponge calls that.)
``state_absorb(lanes, data, pos, blocks, rate_words, first_round)``
    One state absorbing ``blocks`` whole blocks of ``rate_words`` words from the uint8 buffer
    ``data`` starting at byte ``pos`` (XOR, then permute, per block): the long-message path.
    ``rate_words`` is at most 21; 0 absorbs nothing, and ``blocks`` bare permutations run.

Lane ``k`` holds state bytes ``8k .. 8k+7`` little-endian, as in FIPS 202's byte order.

``batchkeccak.permutation.lanes`` moves bytes between many buffers and the states of a tile
(XKCP's AddLanesAll / ExtractLanesAll): what the sponge's lane scheduler is written against.
"""

from typing import TYPE_CHECKING

from batchkeccak.permutation.constants import (
    LANE_COUNT,
    MAX_ROUNDS,
    MIN_TILE_LANES,
    ROUND_CONSTANTS,
    TILE_ROUND_STEP,
    TILE_WIDTH,
)

_KERNELS = ("new_tiles", "state_absorb", "state_permute", "tile_permute")

__all__ = [
    "LANE_COUNT",
    "MAX_ROUNDS",
    "MIN_TILE_LANES",
    "ROUND_CONSTANTS",
    "TILE_ROUND_STEP",
    "TILE_WIDTH",
    "new_tiles",
    "state_absorb",
    "state_permute",
    "tile_permute",
]


def __getattr__(name: str) -> object:
    # The kernels load numba: only code that runs them pays for it, not code that reads the
    # constants (the parameter table, the thread scheduler, the one-shot backends).
    if name in _KERNELS:
        from batchkeccak.permutation import _kernels

        return getattr(_kernels, name)
    raise AttributeError(f"module 'batchkeccak.permutation' has no attribute {name!r}")


if TYPE_CHECKING:  # what the names above resolve to, for type checkers and editors
    from batchkeccak.permutation._kernels import (
        new_tiles,
        state_absorb,
        state_permute,
        tile_permute,
    )
