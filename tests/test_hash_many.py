"""hash_many against hashlib / pycryptodome: every algorithm, boundary lengths, batch shapes."""

from __future__ import annotations

import sys
import threading
import time

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

import batchkeccak as bk
from batchkeccak.permutation import TILE_WIDTH

from oracles import ALL_ALGORITHMS, RATES, XOFS, oracle

pytestmark = pytest.mark.every_backend  # every oracle test on every backend policy

W = TILE_WIDTH


def expected_rows(algorithm, messages, length=None):
    return [oracle(algorithm, bytes(m), length) for m in messages]


def assert_digests(got, algorithm, messages, length=None):
    want = expected_rows(algorithm, messages, length)
    assert got.dtype == np.uint8 and got.shape == (
        len(messages),
        len(want[0]) if want else got.shape[1],
    )
    bad = [i for i, d in enumerate(want) if got[i].tobytes() != d]
    assert bad == [], f"{algorithm}: wrong digests at {bad[:5]} of {len(messages)}"


def boundary_lengths(rate):
    return [0, 1, 7, 8, 9, rate - 1, rate, rate + 1, 2 * rate - 1, 2 * rate, 2 * rate + 1]


@pytest.mark.aarch64
@pytest.mark.parametrize("algorithm", ALL_ALGORITHMS)
def test_boundary_lengths_every_algorithm(algorithm, pattern_bytes):
    rate = RATES[algorithm]
    rng = np.random.default_rng(len(algorithm))
    lengths = boundary_lengths(rate) + [int(x) for x in rng.integers(0, 5 * rate, size=20)]
    messages = [pattern_bytes(n, seed=i) for i, n in enumerate(lengths)]
    length = 64 if algorithm in XOFS else None
    assert_digests(bk.hash_many(messages, algorithm, length=length), algorithm, messages, length)
    # The same lengths, each alone (single-state path) and in a full tile of equal lengths.
    for n in lengths[:11]:
        solo = [pattern_bytes(n, seed=n)]
        assert_digests(bk.hash_many(solo, algorithm, length=length), algorithm, solo, length)
        tile = [pattern_bytes(n, seed=s) for s in range(W)]
        assert_digests(bk.hash_many(tile, algorithm, length=length), algorithm, tile, length)


def short_message_groups(rate, rng):
    """Lengths that give the groups of four lanes of the first tiles 0 to 4 messages
    shorter than a block (0, 1, rate - 2, rate - 1 bytes) beside first blocks of longer
    messages, end with a partial tile (idle lanes), and end the buffer on a message whose
    last word is partial (it cannot be read a word at a time)."""
    short = [0, 1, rate - 2, rate - 1]
    lengths = []
    for group in range(3 * W // 4):
        finals = group % 5
        lengths += [short[(group + j) % 4] for j in range(finals)]
        lengths += [int(n) for n in rng.integers(rate, 3 * rate, size=4 - finals)]
    return [*lengths, *(int(n) for n in rng.integers(0, rate, size=W // 2 - 1)), rate - 3]


@pytest.mark.aarch64
@pytest.mark.parametrize("algorithm", ALL_ALGORITHMS)
def test_short_messages_started_four_lanes_at_a_time(algorithm, pattern_bytes):
    # Messages shorter than a block are padded on the way into the tile, four lanes at a
    # time: every mix of them and of longer messages in a group, lanes refilled as they end.
    rate = RATES[algorithm]
    lengths = short_message_groups(rate, np.random.default_rng(rate))
    messages = [pattern_bytes(n, seed=i) for i, n in enumerate(lengths)]
    length = 64 if algorithm in XOFS else None
    got = bk.hash_many(messages, algorithm, length=length, threads=1)
    assert_digests(got, algorithm, messages, length)


def test_short_messages_four_lanes_at_a_time_from_a_keyed_state(pattern_bytes):
    # KMAC starts every message from one keyed state, which the grouped short messages
    # broadcast into their lanes instead of loading it lane by lane.
    from Crypto.Hash import KMAC256

    key = bytes(range(32))
    lengths = short_message_groups(136, np.random.default_rng(7))
    messages = [pattern_bytes(n, seed=i) for i, n in enumerate(lengths)]
    got = bk.hash_many(messages, "kmac_256", key=key, length=32, threads=1)
    want = [KMAC256.new(key=key, data=m, mac_len=32).digest() for m in messages]
    bad = [i for i, m in enumerate(messages) if got[i].tobytes() != want[i]]
    assert bad == []


@pytest.mark.aarch64
@pytest.mark.parametrize("algorithm", XOFS)
def test_xof_output_lengths(algorithm, pattern_bytes):
    rate = RATES[algorithm]
    messages = [pattern_bytes(n, seed=n) for n in (0, 1, rate - 1, rate, 3 * rate + 2)] * 7
    for length in (0, 1, rate - 1, rate, rate + 1, 3 * rate + 5):
        got = bk.hash_many(messages, algorithm, length=length)
        assert_digests(got, algorithm, messages, length)


@pytest.mark.aarch64
@pytest.mark.parametrize("count", [0, 1, W - 1, W, W + 1, 31, 1000])
def test_batch_sizes(count, pattern_bytes):
    rng = np.random.default_rng(count)
    messages = [pattern_bytes(int(n), seed=i) for i, n in enumerate(rng.integers(0, 700, count))]
    for algorithm in ("sha3_256", "keccak_256", "shake_256"):
        length = 40 if algorithm in XOFS else None
        got = bk.hash_many(messages, algorithm, length=length)
        if count == 0:
            assert got.shape == (0, 40 if length else 32)
        else:
            assert_digests(got, algorithm, messages, length)


@pytest.mark.aarch64
def test_widely_mixed_lengths_share_tiles(pattern_bytes):
    # Long and short messages in one batch: lanes refill and long states finish alone.
    lengths = [0, 50_000, 3, 136, 20_000, 1, 999, 135, 137] * 9 + [70_000]
    messages = [pattern_bytes(n, seed=i) for i, n in enumerate(lengths)]
    for threads in (1, 2, 3):
        assert_digests(bk.hash_many(messages, "sha3_512", threads=threads), "sha3_512", messages)


@pytest.mark.aarch64
def test_one_long_message_runs_alone():
    message = np.random.default_rng(7).integers(0, 256, size=3_000_001, dtype=np.uint8)
    assert_digests(bk.hash_many([message], "sha3_256"), "sha3_256", [message.tobytes()])


@pytest.mark.aarch64
def test_input_forms_agree(pattern_bytes):
    rows = np.random.default_rng(3).integers(0, 256, size=(100, 45), dtype=np.uint8)
    as_bytes = [r.tobytes() for r in rows]
    want = bk.hash_many(as_bytes, "keccak_256")
    assert_digests(want, "keccak_256", as_bytes)
    offsets32 = np.arange(0, 100 * 45 + 1, 45, dtype=np.int32)
    forms = {
        "2-D array": rows,
        "bytearray list": [bytearray(b) for b in as_bytes],
        "memoryview list": [memoryview(b) for b in as_bytes],
        "uint8 array list": list(rows),
        "tuple": tuple(as_bytes),
        "generator": (b for b in as_bytes),
        "data+offsets int32": bk.FlatMessages(rows.reshape(-1), offsets32),
        "data+offsets int64": bk.FlatMessages(rows.reshape(-1), offsets32.astype(np.int64)),
        "bytes data+offsets": bk.FlatMessages(rows.tobytes(), offsets32),
        "non-contiguous 2-D": np.asfortranarray(rows),
    }
    for name, form in forms.items():
        assert np.array_equal(bk.hash_many(form, "keccak_256"), want), name


def test_offsets_may_skip_and_share_bytes():
    data = np.frombuffer(b"0123456789abcdef", dtype=np.uint8)
    offsets = np.array([2, 5, 5, 16], dtype=np.int64)  # starts past 0; one empty message
    got = bk.hash_many(bk.FlatMessages(data, offsets), "sha3_224")
    assert_digests(got, "sha3_224", [b"234", b"", b"56789abcdef"])


@pytest.mark.parametrize(
    "message",
    [
        b"",
        b"abc",
        bytearray(b"x" * 300),
        memoryview(b"abcdefgh").cast("I"),
        np.arange(12, dtype=np.int32).reshape(3, 4),
        np.array(3.5),
        np.random.default_rng(9).integers(0, 256, size=1_000_003, dtype=np.uint8),
    ],
    ids=["empty", "bytes", "bytearray", "uint32 view", "2-D int32", "0-D float", "1 MB"],
)
def test_one_message_is_read_in_place(message):
    from batchkeccak.inputs import to_flat

    raw = bytes(memoryview(message))
    data, offsets = to_flat([message])
    assert offsets.tolist() == [0, len(raw)]
    if raw:  # no copy: the data is the message's own memory
        assert np.shares_memory(data, np.frombuffer(memoryview(message).cast("B"), np.uint8))
    assert not data.flags.writeable
    for algorithm in ("sha3_256", "keccak_256", "shake_128"):
        length = 40 if algorithm == "shake_128" else None
        want = oracle(algorithm, raw, length)
        assert bk.hash_many([message], algorithm, length=length)[0].tobytes() == want
        assert bk.hash_one(message, algorithm, length=length) == want


def test_non_byte_buffers_hash_their_raw_bytes():
    words = np.arange(10, dtype=np.uint32)
    assert bk.hash_one(words, "sha3_256") == oracle("sha3_256", words.tobytes())


def test_hexdigest_many_is_lowercase_hex():
    messages = [b"abc", b"", b"x" * 300]
    assert bk.hexdigest_many(messages, "keccak_256") == [
        oracle("keccak_256", m).hex() for m in messages
    ]
    assert bk.hexdigest_many([], "sha3_256") == []
    assert bk.hexdigest_many([b"a"], "shake_128", length=3) == [oracle("shake_128", b"a", 3).hex()]


def test_algorithm_table():
    assert set(bk.algorithms) == set(ALL_ALGORITHMS)
    for name, spec in bk.algorithms.items():
        assert spec.rate == spec.block_size == RATES[name]
        assert spec.capacity == 200 - spec.rate
        assert spec.xof == (name in XOFS)
    assert bk.algorithms["sha3_256"].digest_size == 32
    assert bk.hash_many([b"abc"], "SHA3-256")[0].tobytes() == oracle("sha3_256", b"abc")


def test_callers_threads_scale_without_interference(pattern_bytes):
    messages = [pattern_bytes(n, seed=n) for n in range(0, 3000, 7)]
    want = bk.hash_many(messages, "sha3_384", threads=1)
    results = [None] * 4

    def work(slot):
        results[slot] = bk.hash_many(messages, "sha3_384")

    workers = [threading.Thread(target=work, args=(i,)) for i in range(4)]
    for t in workers:
        t.start()
    for t in workers:
        t.join()
    assert all(np.array_equal(r, want) for r in results)
    assert_digests(want, "sha3_384", messages)


@pytest.mark.aarch64
@given(
    messages=st.lists(st.binary(max_size=600), max_size=80),
    algorithm=st.sampled_from(ALL_ALGORITHMS),
    length=st.integers(1, 400),
)
def test_property_random_batches_equal_the_oracle_loop(messages, algorithm, length):
    length = length if algorithm in XOFS else None
    got = bk.hash_many(messages, algorithm, length=length)
    assert [row.tobytes() for row in got] == expected_rows(algorithm, messages, length)


# --- bad input -----------------------------------------------------------------------------


@pytest.mark.parametrize(
    "messages, error, words",
    [
        ("abc", TypeError, "single str"),
        (b"abc", TypeError, "wrap one message"),
        ([b"ok", "text"], TypeError, "messages[1] is a str"),
        ([b"a", 5], TypeError, "messages[1] is int"),
        (np.zeros(5, dtype=np.uint8), TypeError, "must be 2-D"),
        (np.zeros((2, 3), dtype=np.int16), TypeError, "dtype uint8"),
        (42, TypeError, "got int"),
        (bk.FlatMessages(np.zeros(4, np.uint8), np.array([0, 5])), ValueError, "out of range"),
        (bk.FlatMessages(np.zeros(4, np.uint8), np.array([0, 3, 2])), ValueError, "non-decreasing"),
        (bk.FlatMessages(np.zeros(4, np.uint8), np.array([-1, 2])), ValueError, "out of range"),
        (bk.FlatMessages(np.zeros(4, np.uint8), np.array([], dtype=np.int64)), ValueError, "N + 1"),
        (bk.FlatMessages(np.zeros(4, np.float32), np.array([0, 2])), TypeError, "uint8"),
        (bk.FlatMessages(np.zeros(4, np.uint8), np.array([[0, 2]])), TypeError, "1-D"),
        (
            bk.FlatMessages(np.zeros(4, np.uint8), np.array([0, 2], np.uint64)),
            TypeError,
            "int32 or int64",
        ),
        (bk.FlatMessages(b"abcd", [0, 2]), TypeError, "offsets must be a numpy"),
        (
            (b"abcd", [0, 2]),
            TypeError,
            (
                "messages[1] is list, not a bytes-like object; a flat buffer with offsets is "
                "passed as batchkeccak.FlatMessages"
            ),
        ),
        ([np.zeros((4, 4), np.uint8)[:, 1]], ValueError, "messages[0] is not contiguous"),
        ([memoryview(bytes(8))[::2]], ValueError, "messages[0] is not contiguous"),
        (["text"], TypeError, "messages[0] is a str"),
        ([7], TypeError, "messages[0] is int"),
    ],
)
def test_bad_messages_raise_clear_errors(messages, error, words):
    with pytest.raises(error, match=None) as info:
        bk.hash_many(messages, "sha3_256")
    assert words in str(info.value)


def test_bad_algorithm_and_length():
    with pytest.raises(ValueError, match="SHA-256 is SHA-2.*did you mean 'sha3_256'"):
        bk.hash_many([b""], "sha256")
    with pytest.raises(TypeError, match="algorithm must be a name, an Algorithm or a Hasher"):
        bk.hash_many([b""], 256)
    with pytest.raises(TypeError, match="length is required for shake_128"):
        bk.hash_many([b""], "shake_128")
    with pytest.raises(TypeError, match="always returns 32 bytes"):
        bk.hash_many([b""], "sha3_256", length=16)
    with pytest.raises(ValueError, match="length must be >= 0"):
        bk.hash_many([b""], "shake_256", length=-1)
    with pytest.raises(ValueError, match="length must be at most"):
        bk.hash_many([b""], "shake_256", length=2**63)
    with pytest.raises(TypeError, match="length must be an int"):
        bk.hash_many([b""], "shake_256", length=2.5)


def test_bad_threads():
    with pytest.raises(ValueError, match="threads must be >= 1"):
        bk.hash_many([b""], threads=0)
    with pytest.raises(TypeError, match="threads must be a positive int"):
        bk.hash_many([b""], threads="all")


def test_thread_split_paths_with_tiny_work(monkeypatch, pattern_bytes):
    # Force every batch to be spread over threads, so the chunking and the shared queue of
    # chunks run on small, irregular inputs too.
    from batchkeccak.core import parallel

    monkeypatch.setattr(parallel, "MIN_PERMUTATIONS_PER_THREAD", 1)
    rng = np.random.default_rng(11)
    for count in (1, 2, 5, W + 3, 300):
        mixed = [pattern_bytes(int(n), seed=i) for i, n in enumerate(rng.integers(0, 900, count))]
        equal = [pattern_bytes(77, seed=i) for i in range(count)]
        for messages in (mixed, equal):
            for threads in (2, 3, 7):
                spans = parallel.chunk_ranges(len(messages), threads)
                covered = np.concatenate([np.arange(a, b) for a, b in spans])
                assert np.array_equal(covered, np.arange(len(messages)))
                got = bk.hash_many(messages, "keccak_384", threads=threads)
                assert_digests(got, "keccak_384", messages)


def test_long_lists_are_converted_chunk_by_chunk_by_the_hashing_threads(monkeypatch):
    from batchkeccak import api
    from batchkeccak.core import parallel

    monkeypatch.setattr(parallel, "MIN_PERMUTATIONS_PER_THREAD", 8)
    converted = []
    original = api.sequence_to_flat_equal

    def recording(sequence, start=0, stop=None, argument="messages", reuse=False):
        converted.append((start, stop - start))
        return original(sequence, start, stop, argument, reuse)

    monkeypatch.setattr(api, "sequence_to_flat_equal", recording)
    rng = np.random.default_rng(5)
    messages = [rng.bytes(int(n)) for n in rng.integers(0, 400, 1000)]
    messages[10] = bytearray(messages[10])  # one chunk takes the portable path
    messages[700] = memoryview(messages[700])
    for form in (messages, tuple(messages)):
        converted.clear()
        assert_digests(bk.hash_many(form, "sha3_256", threads=3), "sha3_256", form)
        spans = sorted(converted)
        assert len(spans) > 3  # in parts, not the whole list at once
        assert [start for start, _ in spans] == list(np.cumsum([0] + [n for _, n in spans[:-1]]))
        assert sum(n for _, n in spans) == len(form)
    # A bad message is named by its place in the whole list, not in its chunk.
    with pytest.raises(TypeError, match=r"messages\[987\] is int"):
        bk.hash_many(messages[:987] + [5] + messages[988:], threads=2)


@pytest.mark.kernels_only
def test_a_short_list_of_long_messages_still_gets_every_thread(monkeypatch):
    # Too few messages to convert in chunks, but plenty of work: the threads count is left to
    # the flat layer, which sees the sizes.
    # Long bytes items are read where they lie (api's hash_places), others laid out flat.
    from batchkeccak import api
    from batchkeccak.core.hashers import Hasher

    asked = []
    original = Hasher.hash_flat
    original_places = api.hash_places

    def recording(self, data, offsets, *args, **kwargs):
        asked.append(self.threads)
        return original(self, data, offsets, *args, **kwargs)

    def recording_places(hasher, *args, **kwargs):
        asked.append(hasher.threads)
        return original_places(hasher, *args, **kwargs)

    monkeypatch.setattr(Hasher, "hash_flat", recording)
    monkeypatch.setattr(api, "hash_places", recording_places)
    messages = [bytes([i]) * 100_000 for i in range(8)]
    assert_digests(bk.hash_many(messages, "sha3_256", threads=2), "sha3_256", messages)
    assert asked == [2]


@pytest.mark.kernels_only
def test_a_list_that_shrinks_while_hashed_is_an_error(monkeypatch):
    from batchkeccak import api
    from batchkeccak.core import parallel

    monkeypatch.setattr(parallel, "MIN_PERMUTATIONS_PER_THREAD", 8)
    original = api.sequence_to_flat_equal
    messages = [b"m%d" % i for i in range(500)]

    def shrinking(sequence, start=0, stop=None, argument="messages", reuse=False):
        del messages[-50:]  # another thread shortens the list between two chunks
        return original(sequence, start, stop, argument, reuse)

    monkeypatch.setattr(api, "sequence_to_flat_equal", shrinking)
    with pytest.raises(RuntimeError, match="changed while being hashed"):
        bk.hash_many(messages, threads=2)


def test_a_failing_chunk_stops_the_others_and_raises():
    from batchkeccak.core import parallel

    done = []

    def kernel(item):
        if item == 3:
            raise RuntimeError("chunk 3 failed")
        time.sleep(0.002)  # other chunks take a while: the failure is seen long before the end
        done.append(item)

    with pytest.raises(RuntimeError, match="chunk 3 failed"):
        parallel.run_parallel(kernel, list(range(50)), workers=3)
    assert 3 not in done and len(done) < 50


@pytest.mark.parametrize(
    ("first", "stop", "parts"), [(0, 0, 4), (0, 1, 4), (0, 10, 3), (7, 100, 8), (3, 5, 1)]
)
@pytest.mark.parametrize("weighted", [False, True])
def test_split_ranges_cover_the_range_once(first, stop, parts, weighted):
    from batchkeccak.core import parallel

    weights = np.arange(stop - first) % 5 if weighted else None
    spans = parallel.split_ranges(first, stop, parts, weights=weights)
    covered = [i for a, b in spans for i in range(a, b)]
    assert covered == list(range(first, stop))
    assert all(b > a for a, b in spans) and len(spans) <= max(parts, 1)
    if not weighted and spans:
        sizes = [b - a for a, b in spans]
        assert max(sizes) - min(sizes) <= 1 and len(spans) == min(parts, stop - first)


def test_warmup_then_hash():
    bk.warmup()
    assert bk.hash_one(b"after warmup", "sha3_256") == oracle("sha3_256", b"after warmup")


@pytest.mark.kernels_only
@pytest.mark.aarch64
@pytest.mark.parametrize("algorithm", ["sha3_256", "keccak_256", "sha3_512", "shake_128"])
def test_equal_short_messages_take_whole_tiles(algorithm, monkeypatch):
    # Equal single-block messages back to back take the tile-at-a-time path, a partial last
    # tile included; check every tail size, counts around the tile width, a start past 0 and
    # the byte-by-byte tail read of the last message at the very end of the buffer.
    from batchkeccak import sponge
    from batchkeccak.core import parallel

    monkeypatch.setattr(parallel, "MIN_PERMUTATIONS_PER_THREAD", 1)
    tile_calls = []
    real_hash_uniform = sponge.hash_uniform

    def counting_hash_uniform(*args):
        tile_calls.append(args[2])
        return real_hash_uniform(*args)

    monkeypatch.setattr(sponge, "hash_uniform", counting_hash_uniform)
    rate = RATES[algorithm]
    rng = np.random.default_rng(rate)
    length = 64 if algorithm in XOFS else None
    for size in sorted({0, 1, 7, 8, 9, 31, 32, 33, rate - 9, rate - 1}):
        for count in (W, W + 1, 2 * W - 1, 3 * W + 5):
            rows = rng.integers(0, 256, size=(count, size), dtype=np.uint8)
            messages = [r.tobytes() for r in rows]
            for threads in (1, 3):
                assert_digests(
                    bk.hash_many(rows, algorithm, length=length, threads=threads),
                    algorithm,
                    messages,
                    length,
                )
            data = np.concatenate([np.full(5, 0xAB, np.uint8), rows.reshape(-1)])
            offsets = np.arange(5, 5 + count * size + 1, max(size, 1))[: count + 1]
            if size == 0:
                offsets = np.full(count + 1, 5)
            got = bk.hash_many(bk.FlatMessages(data, offsets), algorithm, length=length)
            assert_digests(got, algorithm, messages, length)
    assert tile_calls and any(count % W for count in tile_calls)


@pytest.mark.aarch64
@pytest.mark.parametrize("count", [1, 3, 4, 5, W - 1, W + 7])
def test_a_partial_tile_writes_only_its_own_rows(count):
    # The idle lanes of a last, partial tile re-read its last message: their output must
    # go nowhere, neither past the rows asked for nor over rows of other messages.
    from batchkeccak.core.hashers import ZERO_STATE
    from batchkeccak.inputs import readonly
    from batchkeccak.sponge import hash_uniform

    size = 45  # five whole words, a four-word group and a tail
    rows = np.random.default_rng(count).integers(0, 256, size=(count, size), dtype=np.uint8)
    out = np.full((count + W, 40), 0xEE, np.uint8)
    hash_uniform(readonly(rows.reshape(-1)), 0, count, size, ZERO_STATE, 136, 0x1F, 0, out, 0, 0)
    assert_digests(out[:count], "shake_256", [r.tobytes() for r in rows], 40)
    assert (out[count:] == 0xEE).all()


@pytest.mark.aarch64
def test_equal_messages_with_long_output_take_the_general_path():
    rows = np.arange(40 * 20, dtype=np.uint8).reshape(40, 20)
    got = bk.hash_many(rows, "shake_128", length=400)  # several squeeze blocks
    assert_digests(got, "shake_128", [r.tobytes() for r in rows], 400)


@pytest.mark.aarch64
@pytest.mark.parametrize("algorithm", ALL_ALGORITHMS)
def test_long_messages_fill_whole_tiles(algorithm, pattern_bytes):
    # Full tiles of multi-block messages absorb their middle blocks four lanes by four words
    # at a time; lanes start at unaligned places and finish at different blocks.
    rate = RATES[algorithm]
    lengths = [2 * rate + 5 * i for i in range(W)] + [9 * rate + 1] * (W + 3) + [4 * rate - 1] * 5
    messages = [pattern_bytes(n, seed=i) for i, n in enumerate(lengths)]
    data = np.frombuffer(b"\x01" + b"".join(messages), dtype=np.uint8)
    offsets = np.concatenate([[0], np.cumsum(lengths)]) + 1
    length = 48 if algorithm in XOFS else None
    got = bk.hash_many(bk.FlatMessages(data, offsets), algorithm, length=length, threads=1)
    assert_digests(got, algorithm, messages, length)


def _four_lane_absorb():
    # The four-lane absorb is emitted into compiled callers (an intrinsic): call it from one.
    import numba

    from batchkeccak.permutation import lanes

    @numba.njit
    def absorb(tile, lane, data, zeros, p0, p1, p2, p3, rate):
        lanes.absorb_whole_blocks_4(tile, lane, data, zeros, p0, p1, p2, p3, rate)

    return absorb


@pytest.mark.aarch64
def test_whole_block_absorb_equals_lane_by_lane():
    # The transposed absorb against the lane-by-lane one, state for state.
    from batchkeccak.core.hashers import ZERO_STATE
    from batchkeccak.permutation import LANE_COUNT
    from batchkeccak.sponge import _kernels as sponge

    absorb = _four_lane_absorb()
    rng = np.random.default_rng(3)
    data = rng.integers(0, 256, size=W * 1000 + 64, dtype=np.uint8)
    starts = np.array([i * 997 + (i % 8) for i in range(W)], dtype=np.int64)
    for rate in (72, 104, 136, 144, 168):
        tile = rng.integers(0, 2**63, size=LANE_COUNT * W, dtype=np.uint64)
        want = tile.copy()
        spare = np.empty_like(tile)
        for block in range(3):
            for lane in range(W):
                sponge._absorb_block(
                    want,
                    lane,
                    W,
                    data,
                    starts[lane] + block * rate,
                    10 * rate,
                    rate,
                    6,
                    False,
                    ZERO_STATE,
                    0,
                )
            sponge.tile_permute(want, spare, 0)
        zeros = np.zeros(32, dtype=np.uint8)
        for block in range(3):
            for lane in range(0, W, 4):
                positions = starts[lane : lane + 4] + block * rate
                absorb(tile, lane, data, zeros, *positions, rate)
            sponge.tile_permute(tile, spare, 0)
        assert np.array_equal(tile, want), rate


@pytest.mark.aarch64
def test_four_lane_absorb_leaves_skipped_lanes_alone():
    from batchkeccak.core.hashers import ZERO_STATE
    from batchkeccak.permutation import LANE_COUNT, lanes
    from batchkeccak.sponge import _kernels as sponge

    absorb = _four_lane_absorb()
    rng = np.random.default_rng(4)
    data = rng.integers(0, 256, size=4000, dtype=np.uint8)
    zeros = np.zeros(32, dtype=np.uint8)
    for rate in (72, 104, 136, 144, 168):
        for skipped in ([0], [1, 3], [0, 1, 2], [2]):
            tile = rng.integers(0, 2**63, size=LANE_COUNT * W, dtype=np.uint64)
            want = tile.copy()
            positions = [5 + 301 * j for j in range(4)]
            for j in range(4):
                if j in skipped:
                    positions[j] = lanes.SKIP_LANE
                else:
                    sponge._absorb_block(
                        want,
                        4 + j,
                        W,
                        data,
                        positions[j],
                        10 * rate,
                        rate,
                        6,
                        False,
                        ZERO_STATE,
                        0,
                    )
            zeros_before = zeros.copy()
            absorb(tile, 4, data, zeros, *positions, rate)
            assert np.array_equal(tile, want), (rate, skipped)
            assert np.array_equal(zeros, zeros_before)


@pytest.mark.skipif(sys.platform != "linux", reason="guard page through mprotect")
def test_four_lane_absorb_reads_nothing_past_the_block():
    # The words after the last group of four are read by masked loads: blocks that end
    # exactly where readable memory ends must not fault (a plain 32-byte load would).
    import ctypes
    import mmap

    from batchkeccak.core.hashers import ZERO_STATE
    from batchkeccak.permutation import LANE_COUNT
    from batchkeccak.sponge import _kernels as sponge

    absorb = _four_lane_absorb()
    page = mmap.PAGESIZE
    memory = mmap.mmap(-1, 2 * page)
    libc = ctypes.CDLL(None, use_errno=True)
    libc.mprotect.argtypes = [ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int]
    base = ctypes.addressof(ctypes.c_char.from_buffer(memory))
    try:
        data = np.frombuffer(memory, dtype=np.uint8, count=page)
        data[:] = np.random.default_rng(5).integers(0, 256, page, dtype=np.uint8)
        assert libc.mprotect(base + page, page, 0) == 0  # PROT_NONE
        zeros = np.zeros(32, dtype=np.uint8)
        for rate in (72, 104, 136, 144, 168):
            tile = np.zeros(LANE_COUNT * W, dtype=np.uint64)
            want = tile.copy()
            positions = [page - rate - 200 * j for j in range(4)]  # lane 0 ends at the page
            for j in range(4):
                sponge._absorb_block(
                    want,
                    j,
                    W,
                    data,
                    positions[j],
                    rate,
                    rate,
                    6,
                    False,
                    ZERO_STATE,
                    0,
                )
            absorb(tile, 0, data, zeros, *positions, rate)
            assert np.array_equal(tile, want), rate
    finally:
        libc.mprotect(base + page, page, 3)  # read and write again, for munmap
        del data
        memory.close()
