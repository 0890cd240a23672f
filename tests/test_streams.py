"""hashlib-style objects and StreamHasher against hashlib and pycryptodome."""

from __future__ import annotations

import hashlib
import pickle
import random

import numpy as np
import pytest

import batchkeccak as bk

from oracles import ALL_ALGORITHMS, RATES, XOFS, oracle

pytestmark = pytest.mark.every_backend  # every oracle test on every backend policy

CHUNK_SIZES = (0, 1, 7, 8, 135, 136, 137, 168, 500, 3000)


def random_chunks(rng: random.Random, message: bytes) -> list[bytes]:
    """Cuts of ``message`` that include empty chunks and chunks crossing block boundaries."""
    chunks, position = [], 0
    while position < len(message):
        size = rng.choice(CHUNK_SIZES)
        chunks.append(message[position : position + size])
        position += size
    chunks.insert(rng.randrange(len(chunks) + 1), b"")
    return chunks


@pytest.mark.parametrize("name", ALL_ALGORITHMS)
def test_objects_equal_the_oracle_for_any_chunking(name):
    rng = random.Random(name)
    length = 77 if name in XOFS else None
    for size in (0, 1, RATES[name] - 1, RATES[name], RATES[name] + 1, 3 * RATES[name], 5000):
        message = rng.randbytes(size)
        hasher = bk.new(name)
        for chunk in random_chunks(rng, message):
            hasher.update(chunk)
        assert hasher.digest(length) == oracle(name, message, length), (name, size)
        constructor = getattr(bk, name)
        assert constructor(message).hexdigest(length) == oracle(name, message, length).hex()


@pytest.mark.parametrize("name", ALL_ALGORITHMS)
def test_objects_across_their_buffer(name, monkeypatch):
    # Updates wait in a buffer and go through the kernels when it fills: digests, copies
    # and pickles taken on either side of that point, and updates that straddle it.
    from batchkeccak.core.stored_states import IncrementalSponge

    monkeypatch.setattr(IncrementalSponge, "BUFFER_BYTES", 3 * RATES[name] + 5)
    rng = random.Random(f"buffer-{name}")
    length = 40 if name in XOFS else None
    hasher = bk.new(name)
    message = b""
    for _ in range(40):
        chunk = rng.randbytes(rng.choice([1, 7, RATES[name] - 1, 2 * RATES[name] + 3, 900]))
        hasher.update(chunk)
        message += chunk
        copied = hasher.copy()
        restored = pickle.loads(pickle.dumps(hasher))
        assert hasher.digest(length) == oracle(name, message, length), len(message)
        assert copied.digest(length) == restored.digest(length) == oracle(name, message, length)
    hasher.update(b"!")
    assert hasher.digest(length) == oracle(name, message + b"!", length)


@pytest.mark.parametrize("name", ["sha3_224", "sha3_256", "sha3_384", "sha3_512", "shake_128"])
def test_attributes_match_hashlib(name):
    ours, theirs = bk.new(name, b"x"), hashlib.new(name, b"x")
    assert (ours.name, ours.digest_size, ours.block_size) == (
        theirs.name,
        theirs.digest_size,
        theirs.block_size,
    )


def test_copy_digest_and_update_after_digest():
    hasher = bk.sha3_256(b"a" * 200)
    clone = hasher.copy()
    first = hasher.digest()
    hasher.update(b"more")
    clone.update(b"other")
    assert first == hashlib.sha3_256(b"a" * 200).digest()
    assert hasher.digest() == hashlib.sha3_256(b"a" * 200 + b"more").digest()
    assert clone.digest() == hashlib.sha3_256(b"a" * 200 + b"other").digest()
    shake = bk.shake_128(b"abc")
    assert shake.digest(10) == hashlib.shake_128(b"abc").digest(10)
    assert shake.hexdigest(300) == hashlib.shake_128(b"abc").hexdigest(300)


def test_pickled_hash_resumes_where_it_was():
    # 200 bytes: one absorbed block and 64 waiting bytes travel with the object.
    hasher = bk.keccak_256(b"b" * 200)
    resumed = pickle.loads(pickle.dumps(hasher))
    resumed.update(b"tail")
    assert resumed.digest() == oracle("keccak_256", b"b" * 200 + b"tail")
    assert hasher.digest() == oracle("keccak_256", b"b" * 200)


def test_bytes_like_inputs_and_errors():
    data = bytes(range(256)) * 3
    for form in (bytearray(data), memoryview(data), np.frombuffer(data, np.uint8)):
        assert bk.sha3_512(form).digest() == hashlib.sha3_512(data).digest()
    with pytest.raises(TypeError, match="str"):
        bk.sha3_256("text")
    with pytest.raises(ValueError, match="unknown algorithm 'md5'"):
        bk.new("md5")
    with pytest.raises(TypeError, match="length"):
        bk.shake_256(b"").digest()
    with pytest.raises(TypeError, match="colour"):
        bk.new("sha3_256", b"", colour="red")
    assert bk.algorithms_available == set(bk.algorithms) | set(bk.modes)


@pytest.mark.parametrize("name", ALL_ALGORITHMS)
def test_stream_hasher_interleaved(name):
    # 70 streams: more than a tile, so whole blocks go through the tile kernel, and the
    # last few streams finish on the single-state path.
    rng = random.Random(f"streams-{name}")
    count = 70
    length = 45 if name in XOFS else None
    hasher = bk.StreamHasher(name, count, length=length)
    messages = [b""] * count
    for _ in range(5):
        indices = [rng.randrange(count) for _ in range(2 * count)]
        chunks = [rng.randbytes(rng.choice(CHUNK_SIZES + (2000,))) for _ in indices]
        hasher.update_many(indices, chunks)
        for index, chunk in zip(indices, chunks):
            messages[index] += chunk
    for _ in range(10):
        index = rng.randrange(count)
        chunk = rng.randbytes(rng.randrange(300))
        hasher.update(index, chunk)
        messages[index] += chunk
    digests = hasher.digests()
    assert digests.shape == (count, length or bk.algorithms[name].digest_size)
    for index in range(count):
        assert digests[index].tobytes() == oracle(name, messages[index], length), index


def test_stream_hasher_threads_and_long_chunks():
    rng = random.Random(5)
    count = 40
    hasher = bk.StreamHasher("keccak_256", count, threads=2)
    messages = [rng.randbytes(rng.randrange(60_000, 70_000)) for _ in range(count)]
    half = [len(m) // 3 for m in messages]
    hasher.update_many(range(count), [m[:h] for m, h in zip(messages, half)])
    hasher.update_many(range(count), [m[h:] for m, h in zip(messages, half)])
    for index in range(count):
        assert hasher.digest(index) == oracle("keccak_256", messages[index])


def test_stream_hasher_errors():
    hasher = bk.StreamHasher("sha3_256", 3)
    hasher.update(0, b"abc")
    assert hasher.hexdigest(0) == hashlib.sha3_256(b"abc").hexdigest()
    with pytest.raises(ValueError, match="stream 0 is finished"):
        hasher.update(0, b"more")
    with pytest.raises(IndexError, match="out of range for 3 streams"):
        hasher.update(3, b"x")
    with pytest.raises(TypeError, match=r"chunks\[0\] is a str"):
        hasher.update(1, "text")
    with pytest.raises(ValueError, match="same length"):
        hasher.update_many([1, 2], [b"x"])
    with pytest.raises(TypeError, match="length is required"):
        bk.StreamHasher("shake_128", 2)
    with pytest.raises(ValueError, match="n_streams"):
        bk.StreamHasher("sha3_256", -1)
    assert hasher.digest(2) == hashlib.sha3_256(b"").digest()


def test_stream_hasher_reads_any_bytes_like_chunk_where_it_lies():
    # Views into one buffer, bytearrays, numpy arrays (a 2-D one too) and empty chunks, in
    # one call; afterwards no export is left, so the bytearray can be resized again.
    rng = random.Random(7)
    shared = bytearray(rng.randbytes(50_000))
    owned = bytearray(rng.randbytes(999))
    grid = np.frombuffer(rng.randbytes(40 * 33), np.uint8).reshape(40, 33)
    view = memoryview(shared)
    count = 48
    forms = [view[i * 1000 : i * 1000 + 37 * i] for i in range(count)]
    forms[3], forms[4], forms[5], forms[6] = owned, grid, b"", view[:0]
    hasher = bk.StreamHasher("sha3_384", count)
    indices = list(range(count)) + [4, 3, 0]
    chunks = forms + [owned, view[10:500], np.frombuffer(b"tail", np.uint8)]
    hasher.update_many(indices, chunks)
    messages = [bytes(form) for form in forms]
    messages[4] = grid.tobytes() + bytes(owned)
    messages[3] += bytes(view[10:500])
    messages[0] += b"tail"
    owned.extend(b"resizable again")
    digests = hasher.digests()
    for index in range(count):
        assert digests[index].tobytes() == hashlib.sha3_384(messages[index]).digest(), index


@pytest.mark.parametrize("name", ["sha3_512", "turboshake128"])
def test_few_streams_many_chunks_each_in_one_call(name):
    # Fewer streams than half a tile: every stream runs on the one-state path, stitching its
    # waiting bytes into blocks across chunks of sizes around the rate.
    rng = random.Random(f"few-{name}")
    rate = RATES[name]
    sizes = [0, 1, rate - 1, rate, rate + 1, 2 * rate - 3, 5, 3 * rate]
    count = 3
    length = 33 if name in XOFS else None
    hasher = bk.StreamHasher(name, count, length=length)
    indices = [rng.randrange(count) for _ in range(60)]
    chunks = [rng.randbytes(rng.choice(sizes)) for _ in indices]
    hasher.update_many(indices, chunks)
    messages = [b"".join(c for i, c in zip(indices, chunks) if i == s) for s in range(count)]
    digests = hasher.digests()
    for index in range(count):
        assert digests[index].tobytes() == oracle(name, messages[index], length), index


@pytest.mark.aarch64
@pytest.mark.parametrize("threads", [1, 2])
def test_many_streams_many_chunks_each_through_the_tile(threads):
    # More streams than a tile, each with a chain of pieces around the rate in one call:
    # blocks that span pieces, whole blocks read in place and the waiting bytes all follow
    # one another in the same lane, on one thread or spread over two.
    rng = random.Random(f"chains-{threads}")
    rate = RATES["sha3_256"]
    sizes = [0, 1, 7, rate - 1, rate, rate + 1, 2 * rate - 3, 3 * rate, 5000]
    count = 100
    hasher = bk.StreamHasher("sha3_256", count, threads=threads)
    messages = [b""] * count
    for _ in range(3):
        indices = [rng.randrange(count) for _ in range(1500)]
        chunks = [rng.randbytes(rng.choice(sizes)) for _ in indices]
        hasher.update_many(indices, chunks)
        for index, chunk in zip(indices, chunks):
            messages[index] += chunk
    digests = hasher.digests()
    for index in range(count):
        assert digests[index].tobytes() == hashlib.sha3_256(messages[index]).digest(), index
