"""Both tile permutations this host can run, against the reference model and the oracles.

On a CPU with AVX-512F the kernels carry two tile permutations, the default build (ymm, four
states per instruction) and the 512-bit one (zmm, eight; it also gathers the blocks of long
messages straight into its registers), and a flag chooses between them when they run
(``batchkeccak.permutation.vector_width``). The rest of the suite runs the width this host
prefers; here every path that permutes tiles runs at each width the host can run: the bare
permutation at any alignment, messages of every algorithm at block boundaries and long enough
for the steady multi-block loop, equal rows (``hash_uniform``) and stored states fed in chunks.
Elsewhere only the default build exists and these tests run it once.
"""

from __future__ import annotations

import numpy as np
import pytest
from process_helpers import run_code

import batchkeccak as bk
from batchkeccak.permutation import LANE_COUNT, TILE_WIDTH, new_tiles, tile_permute, vector_width

import reference_keccak as ref
from oracles import ALL_ALGORITHMS, RATES, XOFS, oracle
from patterns import cyclic_bytes

WIDTHS = [vector_width.DEFAULT_BITS] + (
    [vector_width.WIDE_BITS] if vector_width.host_has_avx512f() else []
)


@pytest.fixture(params=WIDTHS, ids=lambda bits: f"{bits}-bit")
def tile_bits(request):
    with vector_width.tile_bits_set(request.param):
        assert vector_width.tile_bits() == request.param
        yield request.param


def _tile_views():
    """A tile from ``new_tiles`` (64-byte aligned) and one at 8 mod 64 bytes."""
    aligned = new_tiles()
    words = LANE_COUNT * TILE_WIDTH
    memory = np.zeros(2 * words + 16, dtype=np.uint64)
    skip = (64 - memory.ctypes.data % 64) % 64 // 8 + 1
    return {
        "aligned": aligned,
        "8 mod 64": (memory[skip : skip + words], memory[skip + words : skip + 2 * words]),
    }


def test_new_tiles_start_on_a_cache_line():
    tile, spare = new_tiles()
    assert tile.shape == spare.shape == (LANE_COUNT * TILE_WIDTH,)
    assert tile.ctypes.data % 64 == spare.ctypes.data % 64 == 0
    assert not tile.any() and not spare.any()
    assert tile.ctypes.data + tile.nbytes <= spare.ctypes.data  # no overlap


@pytest.mark.parametrize("rounds", [24, 12, 4])
def test_tile_permute_matches_reference(tile_bits, rounds):
    rng = np.random.default_rng(rounds)
    for where, (tile, spare) in _tile_views().items():
        states = rng.integers(0, 2**64, size=(TILE_WIDTH, LANE_COUNT), dtype=np.uint64)
        tile[:] = states.T.reshape(-1)
        tile_permute(tile, spare, 24 - rounds)
        permuted = tile.reshape(LANE_COUNT, TILE_WIDTH).T
        for j in range(TILE_WIDTH):
            expected = ref.keccak_p([int(v) for v in states[j]], rounds)
            assert [int(v) for v in permuted[j]] == expected, f"{where}, state {j}"


def _messages(rate: int) -> list[bytes]:
    """Lengths at the block boundaries, then 40 messages of 6 to 11 blocks: whole tiles of
    lanes in the middle of their messages (the steady loop), refilled lanes, and a last few
    finished one state at a time."""
    lengths = [0, 1, 7, 8, rate - 1, rate, rate + 1, 2 * rate - 1, 2 * rate]
    lengths += [6 * rate + 17 * i for i in range(40)]
    return [cyclic_bytes(n, seed * 7) for seed, n in enumerate(lengths)]


@pytest.mark.parametrize("name", ALL_ALGORITHMS)
def test_messages_of_every_algorithm(tile_bits, name):
    rate = RATES[name]
    messages = _messages(rate)
    length = 2 * rate + 5 if name in XOFS else None  # the squeeze permutes again
    got = bk.hash_many(messages, name, length=length, threads=1)
    wrong = [i for i, m in enumerate(messages) if bytes(got[i]) != oracle(name, m, length)]
    assert not wrong, f"{name} at {tile_bits} bits: wrong digests at {wrong}"


@pytest.mark.parametrize("size", [0, 31, 135])
def test_equal_rows(tile_bits, size):
    rows = np.arange(70 * size, dtype=np.uint64).astype(np.uint8).reshape(70, size)
    for name in ("sha3_256", "turboshake128"):
        length = 32 if name in XOFS else None
        got = bk.hash_many(rows, name, length=length, threads=1)
        assert [bytes(g) for g in got] == [oracle(name, r.tobytes(), length) for r in rows]


def test_stored_states_fed_in_chunks(tile_bits):
    # Kept states and chains of items: each stream's chunks go through the lane scheduler.
    count, rate = 36, RATES["sha3_256"]
    chunks = [bytes((i * 13 + j) % 251 for j in range(5 * rate + 3 * i)) for i in range(count)]
    hasher = bk.StreamHasher("sha3_256", count, threads=1)
    for _ in range(3):
        hasher.update_many(list(range(count)), chunks)
    expected = [oracle("sha3_256", chunk * 3) for chunk in chunks]
    assert [bytes(d) for d in hasher.digests()] == expected


def test_the_flag_takes_only_widths_this_cpu_runs():
    with pytest.raises(ValueError, match="bits: expected 256 or 512"):
        vector_width.set_tile_bits(384)
    if not vector_width.host_has_avx512f():
        with pytest.raises(ValueError, match="AVX-512F"):
            vector_width.set_tile_bits(512)
    previous = vector_width.tile_bits()
    with vector_width.tile_bits_set(256):
        assert vector_width.tile_bits() == 256
    assert vector_width.tile_bits() == previous


@pytest.mark.parametrize("text", ["256", "512", " auto ", ""])
def test_the_environment_variable_chooses_the_width(monkeypatch, text):
    monkeypatch.setenv(vector_width.ENVIRONMENT_VARIABLE, text)
    if text.strip() in ("auto", ""):
        expected = vector_width.preferred_bits()
    elif text == "512" and not vector_width.host_has_avx512f():
        expected = 256  # a CPU without AVX-512F runs its only build
    else:
        expected = int(text)
    assert vector_width.bits_from_environment() == expected


def test_a_bad_environment_variable_is_refused(monkeypatch):
    monkeypatch.setenv(vector_width.ENVIRONMENT_VARIABLE, "1024")
    with pytest.raises(ValueError, match="BATCHKECCAK_TILE_BITS: expected 256, 512 or auto"):
        vector_width.bits_from_environment()


def test_measured_choices_name_a_width_per_cpu():
    choices = vector_width.measured_choices()["cpus"]
    assert all(entry["bits"] in (256, 512) for entry in choices.values())
    if vector_width.host_has_avx512f():
        assert vector_width.preferred_bits() in (256, 512)
    else:
        assert vector_width.preferred_bits() == 256


class _Unreadable:
    """A tuning file the reader may not open."""

    def read_text(self, encoding=None):
        raise PermissionError(13, "Permission denied", "tile_bits.json")

    def __str__(self):
        return "tile_bits.json"


@pytest.mark.parametrize(
    "case", ["missing", "corrupt JSON", "wrong shape", "bad bits", "unreadable"]
)
def test_a_broken_tuning_file_warns_once_and_hashing_goes_on(monkeypatch, tmp_path, case):
    import hashlib
    import warnings

    path = tmp_path / "tile_bits.json"
    if case == "corrupt JSON":
        path.write_text('{"cpus": {"znver4": ')
    elif case == "wrong shape":
        path.write_text('["cpus"]')
    elif case == "bad bits":
        path.write_text('{"cpus": {"znver4": {"bits": 384}}}')
    monkeypatch.setattr(
        vector_width, "TILE_BITS_FILE", _Unreadable() if case == "unreadable" else path
    )
    vector_width.measured_choices.cache_clear()
    try:
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            assert vector_width.measured_choices() == {"cpus": {}}
            with monkeypatch.context() as patched:  # the rule: 512 bits with AVX-512F
                patched.setattr(vector_width, "host_has_avx512f", lambda: True)
                assert vector_width.preferred_bits() == vector_width.WIDE_BITS
            bits = vector_width.bits_from_environment()  # what ran at import, and raised
        assert len(caught) == 1 and caught[0].category is RuntimeWarning
        assert "tuning file" in str(caught[0].message)
        with vector_width.tile_bits_set(bits):
            digests = bk.hash_many([b"abc", b"x" * 300], "sha3_256")
        assert [bytes(d) for d in digests] == [
            hashlib.sha3_256(m).digest() for m in (b"abc", b"x" * 300)
        ]
    finally:
        vector_width.measured_choices.cache_clear()


@pytest.mark.slow
def test_a_bad_tile_width_variable_is_the_same_value_error_on_every_thread():
    # Two threads loading the kernels' modules at once, whose import raises, could see one of
    # them half made (an ImportError): the check runs in the calling thread first.
    import os

    script = (
        "import numpy as np, batchkeccak as bk\n"
        "try:\n"
        "    bk.hash_many(np.zeros((100_000, 32), np.uint8), threads=2)\n"
        "except Exception as exc:\n"
        "    print(type(exc).__name__, exc)\n"
    )
    env = {**os.environ, "BATCHKECCAK_TILE_BITS": "x", "BATCHKECCAK_BACKEND": "kernels"}
    for _ in range(4):
        done = run_code(script, env=env)
        assert done.stdout.startswith("ValueError BATCHKECCAK_TILE_BITS: expected 256, 512"), (
            done.stdout + done.stderr
        )
