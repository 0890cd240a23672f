"""One currency: every entry point takes a name (any spelling) with its parameters, or a
resolved Hasher, and every mode that can be fed in pieces works as a hash object, on files
and on file objects. Expected values come from pycryptodome, Python's hmac and hashlib, and
the plain reference model of SP 800-185 / RFC 9861 in tests/."""

from __future__ import annotations

import hashlib
import hmac
import io
import pickle
import random

import pytest
import sp800_185_reference as ref
from Crypto.Hash import (
    KMAC128,
    KMAC256,
    KangarooTwelve,
    TurboSHAKE128,
    cSHAKE128,
    cSHAKE256,
    keccak,
)

import batchkeccak as bk
from batchkeccak.io import small_files

from patterns import cyclic_bytes

pytestmark = pytest.mark.every_backend  # every oracle test on every backend policy

KEY = bytes(range(32, 72))
CUSTOM = b"Email Signature"


def message(size: int, seed: int = 0) -> bytes:
    return cyclic_bytes(size, seed, 7)


# name, parameters given to new()/hash_files, oracle(data) -> digest of `length` bytes
STREAMABLE = {
    "kmac_128": (
        {"key": KEY, "customization": CUSTOM, "length": 32},
        lambda m: KMAC128.new(key=KEY, data=m, mac_len=32, custom=CUSTOM).digest(),
    ),
    "kmac_256": (
        {"key": KEY, "length": 64},
        lambda m: KMAC256.new(key=KEY, data=m, mac_len=64).digest(),
    ),
    "kmac_xof_256": (
        {"key": b"k", "length": 40},
        lambda m: ref.kmac(256, b"k", m, 40, b"", xof=True),
    ),
    "hmac_sha3_256": ({"key": KEY}, lambda m: hmac.digest(KEY, m, "sha3_256")),
    "hmac_sha3_512": ({"key": KEY * 4}, lambda m: hmac.digest(KEY * 4, m, "sha3_512")),
    "cshake_128": (
        {"customization": CUSTOM, "length": 50},
        lambda m: cSHAKE128.new(data=m, custom=CUSTOM).read(50),
    ),
    "cshake_256": (
        {"function_name": b"F", "length": 20},
        lambda m: ref.cshake(256, m, 20, b"F", b""),
    ),
    "kt128": ({"length": 32}, lambda m: KangarooTwelve.new(data=m).read(32)),
    "kt256": (
        {"customization": CUSTOM, "length": 64},
        lambda m: ref.kangarootwelve(256, m, CUSTOM, 64),
    ),
    "parallelhash_128": (
        {"block_size": 1000, "length": 32},
        lambda m: ref.parallelhash(128, m, 1000, 32, b""),
    ),
    "parallelhash_xof_256": (
        {"block_size": 333, "customization": CUSTOM, "length": 24},
        lambda m: ref.parallelhash(256, m, 333, 24, CUSTOM, xof=True),
    ),
    "turboshake128": (
        {"domain": 0x0B, "length": 32},
        lambda m: TurboSHAKE128.new(domain=0x0B, data=m).read(32),
    ),
}


def pieces(data: bytes, rng: random.Random) -> list[bytes]:
    cuts = sorted(rng.randrange(len(data) + 1) for _ in range(5))
    return [data[a:b] for a, b in zip([0, *cuts], [*cuts, len(data)])]


@pytest.mark.parametrize("name", sorted(STREAMABLE))
@pytest.mark.parametrize("size", [0, 1, 167, 8192, 8193, 20_000])
def test_mode_objects_equal_the_oracle_however_fed(name, size):
    params, expected = STREAMABLE[name]
    data = message(size, size)
    h = bk.new(name, **params)
    for piece in pieces(data, random.Random(f"{name}-{size}")):
        h.update(piece)
    assert h.digest() == expected(data)
    assert h.hexdigest() == expected(data).hex()
    # copy() and pickling carry the state on; the original is untouched by them.
    tail = b"tail" * 50
    copied, restored = h.copy(), pickle.loads(pickle.dumps(h))
    copied.update(tail)
    restored.update(tail)
    assert copied.digest() == restored.digest() == expected(data + tail)
    assert h.digest() == expected(data)


def test_mode_objects_accept_a_resolved_hasher():
    resolved = bk.hasher("kmac_256", key=KEY, length=32)
    h = bk.new(resolved, b"abc")
    assert h.digest() == KMAC256.new(key=KEY, data=b"abc", mac_len=32).digest()
    assert h.name == "kmac_256" and h.digest_size == 32


def test_free_length_modes_read_any_length_and_fixed_ones_refuse():
    cshake = bk.new("cshake_128", b"abc", customization=CUSTOM, length=16)
    assert cshake.digest(70) == cSHAKE128.new(data=b"abc", custom=CUSTOM).read(70)
    kt = bk.new("KT128", b"abc")  # no length: digest() asks for one, as shake objects do
    assert kt.digest_size == 0
    with pytest.raises(TypeError, match="needs a length"):
        kt.digest()
    assert kt.digest(5) == KangarooTwelve.new(data=b"abc").read(5)
    kmac = bk.new("kmac_256", b"abc", key=KEY, length=32)
    with pytest.raises(TypeError, match="fixed"):
        kmac.digest(16)  # KMAC's length is part of its input
    assert kmac.digest(32) == KMAC256.new(key=KEY, data=b"abc", mac_len=32).digest()


def test_modes_that_cannot_stream_say_so():
    with pytest.raises(TypeError, match="incrementally"):
        bk.new("tuplehash_256", length=32)
    with pytest.raises(ValueError, match="one per message"):
        bk.new("kmac_128", key=[b"a", b"b"], length=16)
    with pytest.raises(ValueError, match="one key for every file"):
        bk.hash_files([], "kmac_128", key=[b"a", b"b"], length=16)
    with pytest.raises(TypeError, match="length is required"):
        bk.new("kmac_256", key=KEY)


@pytest.mark.parametrize("name", sorted(STREAMABLE))
def test_hash_files_with_every_streamable_mode(name, tmp_path):
    params, expected = STREAMABLE[name]
    sizes = [0, 5, 9000, small_files.SMALL_FILE_BYTES + 3]  # the last one is streamed
    paths = []
    for size in sizes:
        path = tmp_path / f"f{size}"
        path.write_bytes(message(size, 3))
        paths.append(path)
    got = bk.hash_files(paths, name, **params)
    for path, row in zip(paths, got):
        assert row.tobytes() == expected(path.read_bytes()), path.name
    resolved = bk.hasher(name, **params)
    assert (bk.hash_files(paths, resolved) == got).all()
    with open(paths[2], "rb") as handle:
        assert bk.file_digest(handle, name, **params).digest() == expected(paths[2].read_bytes())


SPELLINGS = [
    ("keccak256", "keccak_256"),
    ("KECCAK-256", "keccak_256"),
    ("SHA3-256", "sha3_256"),
    ("sha3-512", "sha3_512"),
    ("shake128", "shake_128"),
    ("SHAKE256", "shake_256"),
    ("2.16.840.1.101.3.4.2.8", "sha3_256"),
    ("2.16.840.1.101.3.4.2.12", "shake_256"),
    ("TurboSHAKE128", "turboshake128"),
]


@pytest.mark.parametrize("spelling, name", SPELLINGS)
def test_every_spelling_reaches_the_same_row(spelling, name):
    length = 16 if "shake" in name else None
    data = [b"abc", b""]
    assert (
        bk.hash_many(data, spelling, length=length) == bk.hash_many(data, name, length=length)
    ).all()
    h = bk.new(spelling, b"abc")
    assert h.name == name
    reference = hashlib.new(name, b"abc") if name.startswith(("sha3", "shake")) else None
    if reference is not None:
        assert (h.digest(16) if length else h.digest()) == (
            reference.digest(16) if length else reference.digest()
        )


def test_mode_spellings_and_unknown_names():
    expected = KMAC256.new(key=KEY, data=b"abc", mac_len=32).digest()
    for spelling in ("kmac256", "KMAC-256", "kmac_256"):
        assert bk.hash_one(b"abc", spelling, key=KEY, length=32) == expected
    assert bk.hash_one(b"abc", "hmac-sha3-256", key=KEY) == hmac.digest(KEY, b"abc", "sha3_256")
    assert bk.hash_one(b"abc", "KT128", length=8) == KangarooTwelve.new(data=b"abc").read(8)
    with pytest.raises(ValueError) as caught:
        bk.hash_many([b"a"], "sha3-257")
    # A short answer: the nearest names, and where every name (modes too) is listed.
    said = str(caught.value)
    assert "did you mean 'sha3_256'" in said and "batchkeccak.modes" in said
    assert "parallelhash_xof_128" not in said and len(said) < 200
    with pytest.raises(ValueError, match="unknown algorithm 'kmac512'"):
        bk.hash_many([b"a"], "kmac512", key=b"k", length=32)


def test_file_digest_takes_a_constructor_as_hashlib_does():
    # CPython's test_hashlib passes constructors: hashlib.file_digest(f, hashlib.sha3_256).
    data = message(5000)
    assert bk.file_digest(io.BytesIO(data), bk.sha3_256).digest() == (
        hashlib.sha3_256(data).digest()
    )
    assert bk.file_digest(io.BytesIO(data), bk.keccak_256).digest() == (
        keccak.new(data=data, digest_bits=256).digest()
    )
    assert bk.file_digest(io.BytesIO(data), hashlib.md5).digest() == hashlib.md5(data).digest()
    with pytest.raises(TypeError, match="constructor"):
        bk.file_digest(io.BytesIO(data), bk.sha3_256, length=3)


def test_openssl_constructor_forms():
    assert bk.sha3_256(string=b"abc").digest() == hashlib.sha3_256(b"abc").digest()
    assert bk.new("sha3_384", string=b"abc").digest() == hashlib.sha3_384(b"abc").digest()
    assert bk.shake_128(b"abc").digest(True) == hashlib.shake_128(b"abc").digest(True)
    assert bk.sha3_256(b"abc", usedforsecurity=False).digest() == hashlib.sha3_256(b"abc").digest()
    with pytest.raises(TypeError, match="not both"):
        bk.new("sha3_256", b"a", string=b"b")


@pytest.mark.parametrize(
    "name, oracle",
    [
        ("cshake_256", lambda m: cSHAKE256.new(data=m, custom=CUSTOM).read(32)),
    ],
)
def test_stream_of_a_mode_threads_share(name, oracle):
    import threading

    h = bk.new(name, customization=CUSTOM, length=32)
    payload = message(3001)
    threads = [
        threading.Thread(target=lambda: [h.update(payload) for _ in range(50)]) for _ in range(3)
    ]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert h.digest() == oracle(payload * 150)


ONE_PASS = {
    name: STREAMABLE[name]
    for name in (
        "kmac_128",
        "kmac_256",
        "kmac_xof_256",
        "hmac_sha3_256",
        "hmac_sha3_512",
        "cshake_128",
        "cshake_256",
        "turboshake128",
    )
}


@pytest.mark.parametrize("name", sorted(ONE_PASS))
def test_stream_hasher_with_one_pass_modes(name):
    params, expected = ONE_PASS[name]
    count = 40  # more than a tile: whole blocks go through the tile kernel
    rng = random.Random(name)
    streams = bk.StreamHasher(name, count, threads=2, **params)
    messages = [b""] * count
    for _ in range(4):
        indices = [rng.randrange(count) for _ in range(60)]
        chunks = [message(rng.randrange(400), rng.randrange(99)) for _ in indices]
        streams.update_many(indices, chunks)
        for i, chunk in zip(indices, chunks):
            messages[i] += chunk
    first = streams.digest(3)
    assert first == expected(messages[3])
    assert streams.digest(3) == first  # reading a finished stream again gives the same
    digests = streams.digests()
    for i in range(count):
        assert digests[i].tobytes() == expected(messages[i]), i


def test_stream_hasher_with_a_key_per_stream():
    keys = [bytes([i]) * 32 for i in range(3)]
    streams = bk.StreamHasher("kmac_256", 3, key=keys, length=16)
    streams.update_many([0, 1, 2, 0], [b"a", b"b", b"c", b"d"])
    got = streams.digests()
    for i, data in enumerate([b"ad", b"b", b"c"]):
        assert got[i].tobytes() == KMAC256.new(key=keys[i], data=data, mac_len=16).digest()
    with pytest.raises(ValueError, match="n_streams is 4"):
        bk.StreamHasher("kmac_256", 4, key=keys, length=16)


@pytest.mark.parametrize("name", ["kt128", "parallelhash_128", "tuplehash_128"])
def test_stream_hasher_refuses_modes_without_a_one_pass_form(name):
    with pytest.raises(TypeError, match="tree mode|incrementally"):
        bk.StreamHasher(name, 2, length=32)
