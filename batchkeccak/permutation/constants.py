"""Keccak-f[1600] step constants, as FIPS 202 section 3.2 defines them.

The lane at column ``x``, row ``y`` of the 5x5 state lives at index ``x + 5*y``; the same
indexing is used by every kernel, by the tile layout and by the byte order of the sponge
(lane ``i`` holds state bytes ``8*i .. 8*i+7``, little-endian).
"""

from __future__ import annotations

LANE_COUNT = 25
"""Number of 64-bit lanes in a Keccak-f[1600] state."""

MAX_ROUNDS = 24
"""Rounds of Keccak-f[1600]; Keccak-p[1600, nr] runs the *last* nr of them."""

TILE_WIDTH = 32
"""States per tile: a multiple of the SIMD width in 64-bit words (AVX2 4, NEON 2, AVX-512 8)."""

MIN_TILE_LANES = TILE_WIDTH // 2
"""Below this many busy lanes the single-state permutation is cheaper (measured: one tile
state costs about 0.45x a scalar permutation with TILE_WIDTH = 32 on AVX2)."""

ROUNDS_PER_PASS = 2
"""Rounds computed per pass over the tile: the state stays in registers between them. Must
divide 6, so that both 24 and 12 rounds are an even number of passes."""

TILE_ROUND_STEP = 2 * ROUNDS_PER_PASS
"""Rounds per ``tile_permute`` step (a pass tile to spare and one back): round counts of the
table are multiples of it."""


def _round_constants() -> tuple[int, ...]:
    # FIPS 202 algorithm 5 (rc) and 6 (iota): bit 2**j - 1 of RC[ir] is rc(j + 7*ir), where
    # rc(t) is bit 0 of an LFSR's state after t steps (period 255). The 255 outputs are
    # made once: recomputing each from the start cost milliseconds at every import.
    bits = []
    r = 0x01
    for _ in range(255):
        bits.append(r & 1)
        r <<= 1
        if r & 0x100:
            r ^= 0x171  # x^8 + x^6 + x^5 + x^4 + 1
    constants = []
    for ir in range(MAX_ROUNDS):
        rc = 0
        for j in range(7):
            rc |= bits[(j + 7 * ir) % 255] << ((1 << j) - 1)
        constants.append(rc)
    return tuple(constants)


def _rho_offsets() -> tuple[int, ...]:
    # FIPS 202 algorithm 2: walk (x, y) -> (y, 2x + 3y) from (1, 0), offsets (t+1)(t+2)/2.
    offsets = [0] * LANE_COUNT
    x, y = 1, 0
    for t in range(24):
        offsets[x + 5 * y] = ((t + 1) * (t + 2) // 2) % 64
        x, y = y, (2 * x + 3 * y) % 5
    return tuple(offsets)


ROUND_CONSTANTS: tuple[int, ...] = _round_constants()
"""RC[ir] for ir = 0..23, the iota step constants."""

RHO_OFFSETS: tuple[int, ...] = _rho_offsets()
"""Rotation of lane x + 5y by the rho step."""

PI_TARGET: tuple[int, ...] = tuple(
    y + 5 * ((2 * x + 3 * y) % 5) for y in range(5) for x in range(5)
)
"""The pi step moves lane x + 5y to lane y + 5*((2x + 3y) mod 5)."""
