"""The permutation layer against the plain FIPS 202 model in ``reference_keccak``."""

from __future__ import annotations

import numpy as np
import pytest

from batchkeccak.permutation import (
    LANE_COUNT,
    ROUND_CONSTANTS,
    TILE_WIDTH,
    constants,
    state_absorb,
    state_permute,
    tile_permute,
)

import reference_keccak as ref

TABLE_ROUNDS = [4, 8, 12, 16, 20, 24]
"""Every round count the algorithm table accepts (a multiple of the tile's 4-round step)."""


def test_step_constants_match_reference():
    assert list(ROUND_CONSTANTS) == ref.ROUND_CONSTANTS
    assert [constants.RHO_OFFSETS[x + 5 * y] for y in range(5) for x in range(5)] == [
        ref.RHO[x][y] for y in range(5) for x in range(5)
    ]


@pytest.mark.aarch64
def test_keccak_f_of_zero_state_known_lanes():
    # Keccak team's intermediate values: Keccak-f[1600] of the all-zero state.
    lanes = np.zeros(LANE_COUNT, dtype=np.uint64)
    state_permute(lanes, 0)
    assert int(lanes[0]) == 0xF1258F7940E1DDE7
    assert int(lanes[1]) == 0x84D5CCF933C0478A
    assert [int(v) for v in lanes] == ref.keccak_p([0] * 25)


@pytest.mark.aarch64
@pytest.mark.parametrize("rounds", TABLE_ROUNDS)
def test_state_permute_matches_reference(rounds):
    rng = np.random.default_rng(rounds)
    for _ in range(8):
        lanes = rng.integers(0, 2**64, size=LANE_COUNT, dtype=np.uint64)
        expected = ref.keccak_p([int(v) for v in lanes], rounds)
        state_permute(lanes, 24 - rounds)
        assert [int(v) for v in lanes] == expected


@pytest.mark.aarch64
@pytest.mark.parametrize("rounds", TABLE_ROUNDS)
def test_tile_permute_matches_reference_for_every_state(rounds):
    rng = np.random.default_rng(100 + rounds)
    states = rng.integers(0, 2**64, size=(TILE_WIDTH, LANE_COUNT), dtype=np.uint64)
    # Structure-of-arrays: lane k of state j at tile[k * TILE_WIDTH + j].
    tile = np.ascontiguousarray(states.T).reshape(-1)
    spare = np.empty_like(tile)
    tile_permute(tile, spare, 24 - rounds)
    permuted = tile.reshape(LANE_COUNT, TILE_WIDTH).T
    for j in range(TILE_WIDTH):
        assert [int(v) for v in permuted[j]] == ref.keccak_p([int(v) for v in states[j]], rounds)


def test_tile_width_is_a_multiple_of_every_simd_width():
    assert TILE_WIDTH % 8 == 0  # AVX-512 holds 8 lanes, AVX2 4, NEON 2


@pytest.mark.aarch64
@pytest.mark.parametrize("rate_words", [9, 13, 17, 18, 21])
@pytest.mark.parametrize("rounds", [24, 12])
def test_state_absorb_matches_reference(rate_words, rounds):
    rng = np.random.default_rng(rate_words * rounds)
    lanes = rng.integers(0, 2**64, size=LANE_COUNT, dtype=np.uint64)
    blocks, offset = 3, 5  # an unaligned start inside the buffer
    data = rng.integers(0, 256, size=offset + blocks * 8 * rate_words + 7, dtype=np.uint8)
    expected = [int(v) for v in lanes]
    for b in range(blocks):
        base = offset + b * 8 * rate_words
        for k in range(rate_words):
            expected[k] ^= int.from_bytes(data[base + 8 * k : base + 8 * k + 8].tobytes(), "little")
        expected = ref.keccak_p(expected, rounds)
    state_absorb(lanes, data, offset, blocks, rate_words, 24 - rounds)
    assert [int(v) for v in lanes] == expected


@pytest.mark.parametrize("rounds", TABLE_ROUNDS)
def test_hashing_with_any_allowed_round_count_agrees_between_tile_and_one_state(rounds):
    # The same messages through the tile (a full batch) and through the one-state finish
    # (a lone long message), with a table row of this round count.
    import batchkeccak as bk
    from batchkeccak.core.hashers import Hasher
    from batchkeccak.core.parameters import Algorithm

    spec = Algorithm(f"test_{rounds}", 168, 0x1F, None, rounds=rounds)
    hasher = Hasher(spec, 64, 1)
    rng = np.random.default_rng(rounds)
    messages = [rng.integers(0, 256, n, dtype=np.uint8).tobytes() for n in range(0, 700, 7)]
    batched = bk.hash_many(messages, hasher)
    one_by_one = [hasher.hash_one(m) for m in messages]
    assert [row.tobytes() for row in batched] == one_by_one
    expected = [ref.sponge(168, 0x1F, m, 64, rounds) for m in messages[:5]]
    assert one_by_one[:5] == expected


@pytest.mark.parametrize(
    "fields, words",
    [
        ({"rate": 100}, "rate must be a multiple of 8"),
        ({"rate": 176}, "rate must be a multiple of 8"),
        ({"suffix": 0}, "suffix must be a domain byte"),
        ({"suffix": 0x80}, "suffix must be a domain byte"),
        ({"rounds": 14}, "rounds must be a multiple of 4"),
        ({"rounds": 0}, "rounds must be a multiple of 4"),
        ({"rounds": 28}, "rounds must be a multiple of 4"),
        ({"digest_size": 0}, "digest_size must be None"),
    ],
)
def test_the_table_refuses_rows_the_kernels_cannot_run(fields, words):
    from batchkeccak.core.parameters import Algorithm

    row = {"name": "bad", "rate": 136, "suffix": 0x06, "digest_size": 32, "rounds": 24} | fields
    with pytest.raises(ValueError, match=words):
        Algorithm(**row)
