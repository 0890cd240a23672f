"""The sponge started from a given state: tile path, one-state path and independent oracles.

A state reached by absorbing whole-block prefixes must hash ``m`` exactly as the plain
function hashes ``prefix || m``; hashlib and pycryptodome see only the concatenation.
"""

from __future__ import annotations

import numpy as np
import pytest
from Crypto.Hash import cSHAKE128, cSHAKE256

import batchkeccak as bk
from batchkeccak.core.hashers import ZERO_STATE, Hasher
from batchkeccak.core.parameters import get_algorithm
from batchkeccak.inputs import readonly
from batchkeccak.permutation import TILE_WIDTH
from batchkeccak.sponge import absorb_prefixes, hash_uniform, run_jobs

import reference_keccak
from oracles import ALL_ALGORITHMS, RATES, XOFS, oracle

W = TILE_WIDTH
COUNTS = (31, 32, 33, 1000)


def prefix_states(prefixes, spec):
    """States after absorbing each prefix (whole blocks) from zero: (len(prefixes), 25)."""
    data = np.frombuffer(b"".join(prefixes), dtype=np.uint8)
    offsets = np.concatenate([[0], np.cumsum([len(p) for p in prefixes])]).astype(np.int64)
    return absorb_prefixes(
        ZERO_STATE, readonly(data), readonly(offsets), spec.rate, spec.first_round
    )


def started_hasher(name, prefixes, length, threads, domain=None):
    spec = get_algorithm(name)
    out_len = length if spec.xof else spec.digest_size
    return Hasher(spec, out_len, threads, prefix_states(prefixes, spec), domain)


def lengths_around_blocks(rate, count, seed):
    base = [0, 1, 7, 8, 9, rate - 1, rate, rate + 1, 2 * rate - 1, 2 * rate, 2 * rate + 1]
    rng = np.random.default_rng(seed)
    extra = [int(n) for n in rng.integers(0, 4 * rate, size=max(0, count - len(base)))]
    return (base + extra)[:count]


@pytest.mark.aarch64
@pytest.mark.parametrize("algorithm", ALL_ALGORITHMS)
@pytest.mark.parametrize("threads", [1, 2])
def test_shared_prefix_state_equals_oracle_of_concatenation(algorithm, threads, pattern_bytes):
    rate = RATES[algorithm]
    length = 40 if algorithm in XOFS else None
    prefix = pattern_bytes(2 * rate, seed=99)
    for count in COUNTS:
        messages = [
            pattern_bytes(n, seed=i)
            for i, n in enumerate(lengths_around_blocks(rate, count, count))
        ]
        hasher = started_hasher(algorithm, [prefix], length, threads)
        got = bk.hash_many(messages, hasher)
        want = [oracle(algorithm, prefix + m, length) for m in messages]
        bad = [i for i, m in enumerate(messages) if got[i].tobytes() != want[i]]
        assert bad == [], (algorithm, count, bad[:5])
        # The one-state path (a lone message never enters a tile) agrees message by message.
        for i in (0, 5, 6, 7, count - 1):
            assert hasher.hash_one(messages[i]) == want[i]


@pytest.mark.aarch64
@pytest.mark.parametrize("algorithm", ALL_ALGORITHMS)
def test_per_message_states(algorithm, pattern_bytes):
    rate = RATES[algorithm]
    length = 33 if algorithm in XOFS else None
    for count in COUNTS:
        prefixes = [pattern_bytes(rate * (1 + i % 3), seed=1000 + i) for i in range(count)]
        messages = [
            pattern_bytes(n, seed=i) for i, n in enumerate(lengths_around_blocks(rate, count, 7))
        ]
        for threads in (1, 2):
            got = bk.hash_many(messages, started_hasher(algorithm, prefixes, length, threads))
            want = [oracle(algorithm, p + m, length) for p, m in zip(prefixes, messages)]
            assert [bytes(r) for r in got] == want, (algorithm, count, threads)


@pytest.mark.aarch64
@pytest.mark.parametrize("algorithm", ALL_ALGORITHMS)
def test_equal_short_rows_take_the_tile_fill_path_from_a_state(algorithm, pattern_bytes):
    rate = RATES[algorithm]
    length = 32 if algorithm in XOFS else None
    prefix = pattern_bytes(rate, seed=3)
    for width in (0, 5, 8, 32, rate - 1):
        for count in COUNTS:
            rows = np.frombuffer(pattern_bytes(width * count, seed=width), np.uint8).reshape(
                count, width
            )
            for threads in (1, 2):
                got = bk.hash_many(rows, started_hasher(algorithm, [prefix], length, threads))
                want = [oracle(algorithm, prefix + r.tobytes(), length) for r in rows]
                assert [bytes(r) for r in got] == want, (algorithm, width, count, threads)


@pytest.mark.aarch64
@pytest.mark.parametrize("bits", [128, 256])
def test_cshake_prefix_and_domain_against_pycryptodome(bits, pattern_bytes):
    # cSHAKE = the sponge from bytepad(encode_string(N) || encode_string(S)) with domain 0x04;
    # the prefix is built here from SP 800-185's definitions, the digest by pycryptodome.
    rate = 168 if bits == 128 else 136
    module = cSHAKE128 if bits == 128 else cSHAKE256

    def left_encode(x):
        n = max(1, (x.bit_length() + 7) // 8)
        return bytes([n]) + x.to_bytes(n, "big")

    for custom in (b"\x00", b"Email Signature", b"x" * 300):  # (empty N and S: plain SHAKE)
        encoded = left_encode(0) + left_encode(8 * len(custom)) + custom
        padded = left_encode(rate) + encoded
        padded += b"\0" * (-len(padded) % rate)
        for count in COUNTS:
            messages = [
                pattern_bytes(n, seed=i)
                for i, n in enumerate(lengths_around_blocks(rate, count, 1))
            ]
            for threads in (1, 2):
                hasher = started_hasher(f"shake_{bits}", [padded], 48, threads, domain=0x04)
                got = bk.hash_many(messages, hasher)
                want = [module.new(data=m, custom=custom).read(48) for m in messages]
                assert [bytes(r) for r in got] == want, (custom[:10], count, threads)


def test_kernels_refuse_an_initial_state_of_the_wrong_shape():
    data = readonly(np.zeros(100, dtype=np.uint8))
    offsets = readonly(np.array([0, 10, 20, 30], dtype=np.int64))
    order = readonly(np.arange(3, dtype=np.int64))
    out = np.empty((3, 32), dtype=np.uint8)
    # Fewer rows than messages, or rows that are not 25 lanes.
    for bad in (np.zeros((2, 25), np.uint64), np.zeros((1, 24), np.uint64)):
        with pytest.raises(ValueError, match="initial states"):
            run_jobs(data, offsets, None, order, None, readonly(bad), None, 136, 6, 0, out)
    with pytest.raises(ValueError):
        hash_uniform(
            data,
            0,
            32,
            2,
            readonly(np.zeros((2, 25), np.uint64)),
            136,
            6,
            0,
            np.empty((32, 32), np.uint8),
            0,
            0,
        )
    with pytest.raises(ValueError, match="initial state"):
        absorb_prefixes(readonly(np.zeros((2, 25), np.uint64)), data, offsets, 136, 0)
    with pytest.raises(ValueError, match="whole blocks"):
        absorb_prefixes(ZERO_STATE, data, readonly(np.array([0, 10], np.int64)), 136, 0)


def test_per_message_hasher_refuses_another_batch_size():
    hasher = started_hasher("sha3_256", [b"\0" * 136] * 3, None, 1)
    with pytest.raises(ValueError, match="3 entries, one per message, but 2 messages"):
        bk.hash_many([b"a", b"b"], hasher)


def test_hasher_with_state_pickles_and_stays_immutable():
    import pickle

    hasher = started_hasher("shake_128", [b"k" * 168], 16, 1, domain=0x04)
    again = pickle.loads(pickle.dumps(hasher))
    assert again.domain == 0x04 and np.array_equal(again.initial_state, hasher.initial_state)
    # SHAKE128's sponge with the domain bits 00 (cSHAKE's) over the prefix block, then "abc".
    want = reference_keccak.sponge(168, 0x04, b"k" * 168 + b"abc", 16)
    assert bk.hash_many([b"abc"], again)[0].tobytes() == want
    assert bk.hash_many([b"abc"], hasher)[0].tobytes() == want
    with pytest.raises(AttributeError):
        hasher.domain = 6
    assert not hasher.initial_state.flags.writeable
