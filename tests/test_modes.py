"""The modes against independent implementations: pycryptodome, Python's hmac, and the plain
reference model in ``sp800_185_reference`` (over pycryptodome's cSHAKE / TurboSHAKE)."""

from __future__ import annotations

import hmac
import io
import os
import pickle

import numpy as np
import pyarrow as pa
import pytest
import sp800_185_reference as ref
from Crypto.Hash import (
    KMAC128,
    KMAC256,
    KangarooTwelve,
    TupleHash128,
    TupleHash256,
    TurboSHAKE128,
    TurboSHAKE256,
    cSHAKE128,
    cSHAKE256,
)

import batchkeccak as bk

pytestmark = pytest.mark.every_backend  # every oracle test on every backend policy

RATE = {128: 168, 256: 136}
HMAC_RATES = {224: 144, 256: 136, 384: 104, 512: 72}


def messages_for(seed, count=40, lengths=None):
    rng = np.random.default_rng(seed)
    if lengths is None:
        lengths = [0, 1, 7, 135, 136, 137, 167, 168, 169, 500]
        lengths += [int(n) for n in rng.integers(0, 700, size=count - len(lengths))]
    return [rng.bytes(n) for n in lengths]


def input_forms(messages):
    """Every form hash_many accepts, holding the same messages."""
    data = np.frombuffer(b"".join(messages), np.uint8)
    offsets = np.concatenate([[0], np.cumsum([len(m) for m in messages])]).astype(np.int64)
    yield "list", list(messages)
    yield "tuple", tuple(messages)
    yield "flat", bk.FlatMessages(data, offsets)
    yield "arrow", pa.array(messages, pa.binary())
    if len({len(m) for m in messages}) == 1:
        yield "rows", np.frombuffer(b"".join(messages), np.uint8).reshape(len(messages), -1)


def assert_rows(got, want, label=""):
    assert got.shape[0] == len(want), label
    bad = [i for i, w in enumerate(want) if got[i].tobytes() != w]
    assert bad == [], f"{label}: wrong rows {bad[:5]} of {len(want)}"


def keys_for(rate):
    rng = np.random.default_rng(rate)
    return [rng.bytes(n) for n in (0, 1, rate - 1, rate, rate + 1, 1000)]


# -- cSHAKE ----------------------------------------------------------------------------------


@pytest.mark.parametrize("bits", [128, 256])
def test_cshake_against_pycryptodome(bits):
    module = cSHAKE128 if bits == 128 else cSHAKE256
    messages = messages_for(bits)
    for custom in (b"", b"Email Signature", bytes(range(256)) * 2):
        want = [module.new(data=m, custom=custom).read(48) for m in messages]
        for label, form in input_forms(messages):
            for threads in (1, 2):
                got = bk.hash_many(
                    form, f"cshake_{bits}", length=48, customization=custom, threads=threads
                )
                assert_rows(got, want, f"{label} {threads} {custom[:5]!r}")


@pytest.mark.parametrize("bits", [128, 256])
def test_cshake_function_name_against_reference(bits):
    messages = messages_for(bits + 1, count=12)
    for name, custom in ((b"KMAC", b""), (b"x" * 200, b"S"), (b"N", b"")):
        got = bk.hash_many(
            messages, f"cshake_{bits}", length=33, customization=custom, function_name=name
        )
        assert_rows(got, [ref.cshake(bits, m, 33, name, custom) for m in messages])


# -- KMAC ------------------------------------------------------------------------------------


@pytest.mark.parametrize("bits", [128, 256])
def test_kmac_keys_of_every_size_against_reference_and_pycryptodome(bits):
    messages = messages_for(bits + 2)
    for key in keys_for(RATE[bits]):
        for xof in (False, True):
            name = f"kmac_xof_{bits}" if xof else f"kmac_{bits}"
            want = [ref.kmac(bits, key, m, 32, b"ctx", xof) for m in messages]
            got = bk.hash_many(messages, name, key=key, length=32, customization=b"ctx")
            assert_rows(got, want, f"{name} key {len(key)}")
            if not xof and len(key) >= 16:  # pycryptodome refuses shorter keys
                module = KMAC128 if bits == 128 else KMAC256
                assert_rows(
                    got,
                    [
                        module.new(key=key, data=m, mac_len=32, custom=b"ctx").digest()
                        for m in messages
                    ],
                )


@pytest.mark.parametrize("bits", [128, 256])
def test_kmac_every_input_form_and_thread_count(bits):
    module = KMAC128 if bits == 128 else KMAC256
    key = bytes(range(32))
    messages = messages_for(bits + 3, count=70)
    equal = messages_for(bits + 4, lengths=[64] * 100)
    for batch in (messages, equal):
        want = [module.new(key=key, data=m, mac_len=40).digest() for m in batch]
        for label, form in input_forms(batch):
            for threads in (1, 2):
                got = bk.hash_many(form, f"kmac_{bits}", key=key, length=40, threads=threads)
                assert_rows(got, want, f"{label} {threads}")


def test_kmac_one_key_per_message():
    messages = messages_for(5, count=1000)
    keys = [bytes([i % 256]) * (i % 200) for i in range(1000)]
    want = [ref.kmac(256, k, m, 32, b"") for k, m in zip(keys, messages)]
    for threads in (1, 2):
        for form in (messages, tuple(messages)):
            got = bk.hash_many(form, "kmac_256", key=keys, length=32, threads=threads)
            assert_rows(got, want, f"per-message keys, {threads} threads")
    with pytest.raises(ValueError, match="1000 entries.*999 messages"):
        bk.hash_many(messages[:999], "kmac_256", key=keys, length=32)
    with pytest.raises(ValueError, match="1 entries.*2 messages"):
        bk.hash_many([b"a", b"b"], "kmac_256", key=[b"k"], length=32)


def test_kmac_messages_around_the_chunk_boundary():
    messages = [bytes(range(256)) * 40 for _ in range(3)]
    messages = [m[:n] for m, n in zip(messages * 3, (8191, 8192, 8193, 5 * 8192 + 100, 0))]
    key = b"k" * 40
    got = bk.hash_many(messages, "kmac_128", key=key, length=64)
    assert_rows(got, [KMAC128.new(key=key, data=m, mac_len=64).digest() for m in messages])


# -- HMAC ------------------------------------------------------------------------------------


@pytest.mark.parametrize("bits", [224, 256, 384, 512])
def test_hmac_against_python_hmac(bits):
    messages = messages_for(bits, count=50)
    for key in keys_for(HMAC_RATES[bits]):
        want = [hmac.digest(key, m, f"sha3_{bits}") for m in messages]
        for label, form in input_forms(messages):
            got = bk.hash_many(form, f"hmac_sha3_{bits}", key=key)
            assert_rows(got, want, f"{label} key {len(key)}")
    rows = messages_for(bits + 1, lengths=[32] * 100)  # equal short rows: the tile fill path
    key = b"secret"
    want = [hmac.digest(key, m, f"sha3_{bits}") for m in rows]
    for label, form in input_forms(rows):
        for threads in (1, 2):
            assert_rows(
                bk.hash_many(form, f"hmac_sha3_{bits}", key=key, threads=threads),
                want,
                f"{label} {threads}",
            )


def test_hmac_per_message_keys():
    messages = messages_for(9, count=100)
    keys = [bytes([i]) * (i * 3) for i in range(100)]
    got = bk.hash_many(messages, "hmac_sha3_256", key=keys)
    assert_rows(got, [hmac.digest(k, m, "sha3_256") for k, m in zip(keys, messages)])


# -- TupleHash -------------------------------------------------------------------------------


@pytest.mark.parametrize("bits", [128, 256])
def test_tuplehash_against_pycryptodome_and_reference(bits):
    module = TupleHash128 if bits == 128 else TupleHash256
    rng = np.random.default_rng(bits)
    rows = [
        [rng.bytes(int(n)) for n in rng.integers(0, 300, size=int(k))]
        for k in rng.integers(0, 6, size=60)
    ]
    rows += [[b"ab", b"c"], [b"a", b"bc"], [], [b""], [b"", b""]]
    for custom in (b"", b"My Tuple App"):
        want = []
        for row in rows:
            h = module.new(digest_bytes=32, custom=custom)
            for item in row:
                h.update(item)
            want.append(h.digest())
        for threads in (1, 2):
            got = bk.tuplehash_many(
                rows, f"tuplehash_{bits}", length=32, customization=custom, threads=threads
            )
            assert_rows(got, want)
        xof = bk.tuplehash_many(rows, f"tuplehash_xof_{bits}", length=64, customization=custom)
        assert_rows(xof, [ref.tuplehash(bits, row, 64, custom, xof=True) for row in rows])
    assert (
        bk.tuplehash_many([[b"ab", b"c"]], length=16)[0].tobytes()
        != bk.tuplehash_many([[b"a", b"bc"]], length=16)[0].tobytes()
    )


def test_tuplehash_against_reference():
    # Includes SP 800-185's TupleHashXOF256 inputs (samples #5, #6).
    items = [bytes.fromhex("000102"), bytes.fromhex("101112131415")]
    for row in (items, items + [bytes.fromhex("202122232425262728")]):
        got = bk.tuplehash_many(
            [row], "tuplehash_xof_256", length=64, customization=b"My Tuple App"
        )
        assert got[0].tobytes() == ref.tuplehash(256, row, 64, b"My Tuple App", xof=True)


def test_tuplehash_of_single_messages_through_hash_many():
    messages = messages_for(11, count=20)
    got = bk.hash_many(messages, "tuplehash_128", length=32)
    assert_rows(got, [ref.tuplehash(128, [m], 32, b"") for m in messages])


# -- ParallelHash ----------------------------------------------------------------------------


@pytest.mark.parametrize("bits", [128, 256])
def test_parallelhash_against_reference(bits):
    rng = np.random.default_rng(bits)
    for size in (0, 1, 8191, 8192, 8193, 3 * 8192 + 77):
        data = rng.bytes(size)
        for block, custom, xof in (
            (8192, b"", False),
            (1000, b"Parallel Data", True),
            (8, b"", False),
        ):
            name = f"parallelhash_xof_{bits}" if xof else f"parallelhash_{bits}"
            want = ref.parallelhash(bits, data, block, 40, custom, xof)
            for threads in (1, 2):
                got = getattr(bk, name)(
                    data, block_size=block, length=40, customization=custom, threads=threads
                )
                assert got == want, (size, block, xof, threads)


# -- TurboSHAKE and KangarooTwelve -----------------------------------------------------------


@pytest.mark.parametrize("bits", [128, 256])
def test_turboshake_domains_against_pycryptodome(bits):
    module = TurboSHAKE128 if bits == 128 else TurboSHAKE256
    messages = messages_for(bits + 5)
    for domain in (0x01, 0x06, 0x07, 0x0B, 0x1F, 0x7F):
        want = [module.new(data=m, domain=domain).read(40) for m in messages]
        for label, form in input_forms(messages):
            got = bk.hash_many(form, f"turboshake{bits}", length=40, domain=domain)
            assert_rows(got, want, f"{label} {domain:#x}")


def test_kt128_against_pycryptodome_around_the_chunk_boundary():
    rng = np.random.default_rng(12)
    sizes = [0, 1, 8191 - 2, 8190, 8191, 8192, 8193, 2 * 8192, 5 * 8192 + 1000, 40 * 8192 + 3]
    messages = [rng.bytes(n) for n in sizes]
    for custom in (b"", b"C", b"x" * 9000):
        want = [KangarooTwelve.new(data=m, custom=custom).read(32) for m in messages]
        for threads in (1, 2):
            for m, w in zip(messages, want):
                assert bk.kt128(m, customization=custom, threads=threads) == w, len(m)
            for label, form in input_forms(messages):
                got = bk.hash_many(form, "kt128", length=32, customization=custom, threads=threads)
                assert_rows(got, want, f"{label} {threads} {len(custom)}")


def test_kt_many_short_messages_and_kt256():
    messages = messages_for(13, count=300)
    want = [KangarooTwelve.new(data=m, custom=b"app").read(32) for m in messages]
    for label, form in input_forms(messages):
        assert_rows(bk.hash_many(form, "kt128", length=32, customization=b"app"), want, label)
    got = bk.hash_many(messages[:40] + [b"z" * 20000], "kt256", length=64, customization=b"app")
    assert_rows(
        got, [ref.kangarootwelve(256, m, b"app", 64) for m in messages[:40] + [b"z" * 20000]]
    )


@pytest.mark.slow
def test_kt128_of_many_chunks_with_threads():
    data = np.random.default_rng(3).bytes(200 * 8192 + 5)
    want = KangarooTwelve.new(data=data).read(32)
    for threads in (1, 2):
        assert bk.kt128(data, threads=threads) == want


class TrickleReader(io.RawIOBase):
    """A pipe-like binary stream: each ``readinto`` returns fewer bytes than asked for, a
    different number each time."""

    def __init__(self, data: bytes, seed: int) -> None:
        self._data = memoryview(data)
        self._position = 0
        self._rng = np.random.default_rng(seed)

    def readable(self) -> bool:
        return True

    def readinto(self, buffer) -> int:
        step = int(self._rng.integers(1, 3 * 8192))
        got = min(step, len(buffer), len(self._data) - self._position)
        buffer[:got] = self._data[self._position : self._position + got]
        self._position += got
        return got


def test_kt_of_a_file_object_read_in_pieces(tmp_path):
    rng = np.random.default_rng(21)
    sizes = [0, 1, 8191, 8192, 8193, 3 * 8192, 3 * 8192 + 1, 7 * 8192 + 4000]
    for custom in (b"", b"C" * 8190, b"x" * 9000):
        for n in sizes:
            data = rng.bytes(n)
            want = KangarooTwelve.new(data=data, custom=custom).read(32)
            assert bk.kt128(io.BytesIO(data), customization=custom) == want, n
            assert bk.kt128(TrickleReader(data, n), customization=custom) == want, n
            for piece_bytes in (8192, 2 * 8192, 5 * 8192):
                hasher = bk.hasher("kt128", length=32, customization=custom)
                got = hasher.hash_message(TrickleReader(data, piece_bytes), piece_bytes=piece_bytes)
                assert got == want, (n, len(custom), piece_bytes)
            kt256_want = ref.kangarootwelve(256, data, custom, 64)
            assert bk.kt256(TrickleReader(data, 7), customization=custom, length=64) == kt256_want
    path = tmp_path / "big.bin"
    path.write_bytes(rng.bytes(20 * 8192 + 77))
    with open(path, "rb") as handle:
        assert bk.kt128(handle) == bk.kt128(path) == bk.kt128(path.read_bytes())


@pytest.mark.parametrize("bits", [128, 256])
def test_parallelhash_of_a_file_read_in_pieces(tmp_path, bits):
    rng = np.random.default_rng(bits)
    for block, n in ((1, 0), (7, 100), (8192, 8191), (8192, 3 * 8192), (1000, 50_003)):
        data = rng.bytes(n)
        for xof in (False, True):
            name = f"parallelhash_{'xof_' if xof else ''}{bits}"
            want = ref.parallelhash(bits, data, block, 40, b"S", xof=xof)
            params = {"block_size": block, "length": 40, "customization": b"S"}
            assert getattr(bk, name)(data, **params) == want, (name, block, n)
            assert getattr(bk, name)(TrickleReader(data, n), **params) == want, (name, block, n)
            hasher = bk.hasher(name, **params)
            for piece_bytes in (block, 3 * block, 4096):
                got = hasher.hash_message(TrickleReader(data, n + 1), piece_bytes=piece_bytes)
                assert got == want, (name, block, n, piece_bytes)
    path = tmp_path / "message.bin"
    path.write_bytes(rng.bytes(100_000))
    with open(path, "rb") as handle:
        from_handle = bk.parallelhash_256(handle, block_size=4096, length=64)
    assert from_handle == bk.parallelhash_256(path, block_size=4096, length=64)
    assert from_handle == ref.parallelhash(256, path.read_bytes(), 4096, 64, b"")


def test_kt_refuses_a_stream_it_cannot_read(tmp_path):
    path = tmp_path / "out.bin"
    with (
        open(path, "wb") as handle,
        pytest.raises(TypeError, match="binary file object opened for reading"),
    ):
        bk.kt128(handle)


# -- The hasher: table, errors, secrecy ------------------------------------------------------


def test_every_mode_resolves_through_hasher():
    for name, mode in bk.modes.items():
        params = {"key": b"k"} if "key" in mode.params else {}
        length = None if mode.family == "hmac" else 16
        h = bk.hasher(name, length=length, threads=1, **params)
        assert h.name == name
        assert bk.hash_many([b"abc"], h).shape == (1, h.output_length)
        assert h.hash_one(b"abc") == bk.hash_many([b"abc"], h)[0].tobytes()


def test_keyed_hashers_never_show_or_lose_the_key():
    key = b"super secret key material"
    for name in ("kmac_256", "hmac_sha3_256"):
        length = 32 if name.startswith("kmac") else None
        h = bk.hasher(name, key=key, length=length, threads=1)
        text = repr(h) + str(h)
        assert "secret" not in text and key.hex() not in text and name in text
        again = pickle.loads(pickle.dumps(h))
        if name.startswith("kmac"):
            want = ref.kmac(256, key, b"m", 32, b"")
        else:
            want = hmac.new(key, b"m", "sha3_256").digest()
        assert bk.hash_many([b"m"], again)[0].tobytes() == want
        assert bk.hash_many([b"m"], h)[0].tobytes() == want
        with pytest.raises(AttributeError):
            h.trailer = b""
        assert again.with_threads(2).threads == 2


@pytest.mark.parametrize(
    "call, error, match",
    [
        (
            lambda: bk.hasher("kmac_256", key="text", length=32),
            TypeError,
            "key must be bytes-like, got str",
        ),
        (lambda: bk.hasher("kmac_256", key=[b"a", "b"], length=32), TypeError, r"key\[1\]"),
        (lambda: bk.hasher("kmac_256", key=[], length=32), ValueError, "empty sequence"),
        (lambda: bk.hasher("kmac_256", length=32), TypeError, "requires key"),
        (lambda: bk.hasher("kmac_256", key=b"k"), TypeError, "length is required for kmac_256"),
        (lambda: bk.hasher("kmac_256", key=b"k", length=-1), ValueError, "length must be >= 0"),
        (lambda: bk.hasher("hmac_sha3_256", key=b"k", length=16), TypeError, "always returns 32"),
        (lambda: bk.hasher("hmac_sha3_256", key=None), TypeError, "requires key"),
        (
            lambda: bk.hasher("kmac_256", key=b"k", length=-1),
            ValueError,
            "length must be >= 0 for kmac_256",
        ),
        (lambda: bk.kt256(b"x", length=-1), ValueError, "length must be >= 0 for kt256"),
        (
            lambda: bk.hasher("turboshake128", length=8, domain=0),
            ValueError,
            r"domain must be in \[0x01, 0x7F\]",
        ),
        (
            lambda: bk.hasher("turboshake128", length=8, domain=0x80),
            ValueError,
            "domain must be in",
        ),
        (
            lambda: bk.hasher("turboshake128", length=8, domain="x"),
            TypeError,
            "domain must be an int",
        ),
        (
            lambda: bk.hasher("cshake_128", length=8, customization="x"),
            TypeError,
            "customization must be bytes-like",
        ),
        (lambda: bk.hasher("cshake_128", length=8, key=b"k"), TypeError, "takes no parameter.*key"),
        (lambda: bk.hasher("sha3_256", key=b"k"), TypeError, "takes no parameter"),
        (lambda: bk.parallelhash_128(b"x", block_size=0), ValueError, "block_size must be >= 1"),
        (
            lambda: bk.kt128(12345),
            TypeError,
            "data must be bytes-like, a numpy array, a path or a binary file",
        ),
        (lambda: bk.kt128("/nonexistent/file.bin"), OSError, "/nonexistent/file.bin"),
        (lambda: bk.tuplehash_many([b"ab"], length=8), TypeError, r"rows\[0\] must be a sequence"),
        (
            lambda: bk.tuplehash_many([[b"a"]], "kmac_128", length=8),
            ValueError,
            "needs a tuplehash_",
        ),
        (lambda: bk.tuplehash_many([[b"a"]], "cshake_128", length=8), ValueError, "tuplehash"),
    ],
)
def test_clear_errors(call, error, match):
    with pytest.raises(error, match=match):
        call()


def test_arrow_column_keyed_with_nulls():
    from batchkeccak.arrow import hash_array

    column = pa.chunked_array([["ada@example.org", None, ""], ["grace@example.org"]])
    key = b"k" * 32
    got = hash_array(column, "kmac_256", key=key, length=32)
    values = column.to_pylist()
    assert got.null_count == 1 and got.to_pylist()[1] is None
    for value, digest in zip(values, got.to_pylist()):
        if value is not None:
            assert digest == KMAC256.new(key=key, data=value.encode(), mac_len=32).digest()


def test_hash_rows_tuplehash_encoding():
    from batchkeccak.arrow import hash_rows

    table = pa.table(
        {
            "email": ["ada@example.org", "", "g" * 300],
            "age": pa.array([36, 41, 7], pa.int32()),
            "blob": pa.array([b"\x00", b"ab", b""], pa.binary()),
        }
    )
    got = hash_rows(
        table,
        ["email", "age", "blob"],
        "tuplehash_256",
        length=32,
        customization=b"rows",
        encoding="tuplehash",
    )
    for i, digest in enumerate(got.to_pylist()):
        fields = [
            table["email"][i].as_py().encode(),
            int(table["age"][i].as_py()).to_bytes(4, "little"),
            table["blob"][i].as_py(),
        ]
        assert digest == ref.tuplehash(256, fields, 32, b"rows")
    with pytest.raises(ValueError, match="nulls"):
        hash_rows(
            pa.table({"a": ["x", None]}), "a", "tuplehash_128", length=8, encoding="tuplehash"
        )
    with pytest.raises(ValueError, match="tuplehash_"):
        hash_rows(table, "email", "sha3_256", encoding="tuplehash")
    with pytest.raises(ValueError, match="encoding must be"):
        hash_rows(table, "email", encoding="json")


def test_a_path_is_read_never_mapped(tmp_path, monkeypatch):
    # A mapped file that another process truncates would kill the reader with SIGBUS.
    import mmap

    def refuse(*args, **kwargs):
        raise AssertionError("a file was memory-mapped")

    path = tmp_path / "message.bin"
    data = np.random.default_rng(5).bytes(3 * 8192 + 11)
    path.write_bytes(data)
    monkeypatch.setattr(np, "memmap", refuse)
    monkeypatch.setattr(mmap, "mmap", refuse)
    assert bk.kt128(path) == KangarooTwelve.new(data=data).read(32)
    assert bk.parallelhash_128(path, block_size=100) == ref.parallelhash(128, data, 100, 32, b"")


# -- TupleHash rows: a row is a sequence of byte strings, nothing split into bytes ------------


@pytest.mark.parametrize(
    "rows, match",
    [
        (b"abc", r"rows must be an iterable of rows.*got a single bytes"),
        (bytearray(b"abc"), r"rows must be an iterable of rows.*got a single bytearray"),
        (np.frombuffer(b"abc", np.uint8), r"rows must be .*got a single numpy array"),
        (np.zeros((2, 3), np.uint8), r"rows must be .*got a single numpy array"),
        ("abc", r"rows must be .*got a single str"),
        (7, r"rows must be .*got int"),
        ([np.frombuffer(b"abc", np.uint8)], r"rows\[0\] must be a sequence .*numpy array"),
        ([[b"a"], np.array([b"a", b"b"], dtype=object)], r"rows\[1\] must be .*numpy array"),
        ([[b"a"], memoryview(b"ab")], r"rows\[1\] must be .*got a single memoryview"),
        ([[b"a"], bytearray(b"ab")], r"rows\[1\] must be .*got a single bytearray"),
        ([__import__("array").array("B", b"ab")], r"rows\[0\] must be .*got a single array"),
        ([[b"a"], 5], r"rows\[1\] must be a sequence of byte strings, got int"),
        ([{b"a", b"b"}], r"rows\[0\] must be .*got a set"),
        ([{b"a": b"b"}], r"rows\[0\] must be .*got a dict"),
        ({(b"a",), (b"b",)}, r"rows must be .*got a set"),
        ([[b"a", 5]], r"rows\[0\]\[1\] must be bytes-like, got int"),
    ],
)
def test_tuplehash_rows_are_never_split_into_bytes(rows, match):
    with pytest.raises(TypeError, match=match):
        bk.tuplehash_many(rows, length=8)
    with pytest.raises(TypeError, match=match):
        bk.hasher("tuplehash_256", length=8).hash_tuples(rows)


def test_tuplehash_a_wrapped_array_is_one_string():
    array = np.frombuffer(b"abc", np.uint8)
    words = np.array([1, 2], np.uint32)
    got = bk.tuplehash_many([[array], (array, words), iter([b"x"])], length=32)
    assert [d.tobytes() for d in got] == [
        TupleHash128.new(digest_bytes=32).update(b"abc").digest(),
        ref.tuplehash(128, [b"abc", words.tobytes()], 32, b""),
        ref.tuplehash(128, [b"x"], 32, b""),
    ]


# -- ParallelHash: memory bounded by the file and the piece size, never by the block size -----


@pytest.mark.parametrize(
    "name, bits, xof",
    [
        ("parallelhash_128", 128, False),
        ("parallelhash_256", 256, False),
        ("parallelhash_xof_128", 128, True),
        ("parallelhash_xof_256", 256, True),
    ],
)
def test_parallelhash_huge_block_of_a_small_file(tmp_path, name, bits, xof):
    import tracemalloc

    path = tmp_path / "three.bin"
    path.write_bytes(b"abc")
    block = 2**40
    want = ref.parallelhash(bits, b"abc", block, 32, b"S", xof=xof)
    function = getattr(bk, name)
    assert function(b"abc", block_size=block, customization=b"S") == want  # compiled first

    def peak_of(make_data, bound):
        tracemalloc.start()
        try:
            assert function(make_data(), block_size=block, customization=b"S") == want
            _, peak = tracemalloc.get_traced_memory()
        finally:
            tracemalloc.stop()
        assert peak < bound, peak

    # A regular file: buffers sized by what it holds, not by pieces or the block.
    peak_of(lambda: path, 1 << 20)
    peak_of(lambda: str(path), 1 << 20)
    with open(path, "rb") as handle:
        peak_of(lambda: handle, 1 << 20)
    with open(path, "rb", buffering=0) as handle:
        peak_of(lambda: handle, 1 << 20)
    # A stream of unknown size: two read buffers of the default 4 MiB piece at most.
    peak_of(lambda: TrickleReader(b"abc", 5), 9 << 20)
    peak_of(lambda: io.BytesIO(b"abc"), 9 << 20)


@pytest.mark.parametrize("bits", [128, 256])
def test_parallelhash_chunks_larger_than_a_piece(tmp_path, bits):
    rng = np.random.default_rng(bits + 1)
    # Chunks that cross piece boundaries, end on them, or hold many pieces.
    for block, n in (
        (10_000, 50_003),
        (4097, 3 * 4097),
        (136 * 31, 136 * 62 + 1),
        (9000, 0),
        (65_536, 65_535),
        (5000, 4999),
    ):
        data = rng.bytes(n)
        want = ref.parallelhash(bits, data, block, 48, b"", xof=False)
        hasher = bk.hasher(f"parallelhash_{bits}", length=48, block_size=block)
        for piece_bytes in (4096, 1000, 136):
            for seed in (1, 2):
                got = hasher.hash_message(TrickleReader(data, seed), piece_bytes=piece_bytes)
                assert got == want, (block, n, piece_bytes)
            got = hasher.hash_message(io.BytesIO(data), piece_bytes=piece_bytes)
            assert got == want, (block, n, piece_bytes)
        path = tmp_path / f"{block}-{n}.bin"
        path.write_bytes(data)
        assert hasher.hash_message(path, piece_bytes=4096) == want, (block, n)


def test_a_file_object_is_read_from_where_it_stands(tmp_path):
    data = np.random.default_rng(8).bytes(30_000)
    path = tmp_path / "message.bin"
    path.write_bytes(data)
    for buffering in (0, -1):
        with open(path, "rb", buffering=buffering) as handle:
            handle.read(777)
            got = bk.parallelhash_128(handle, block_size=2**40)
        assert got == ref.parallelhash(128, data[777:], 2**40, 32, b""), buffering
        with open(path, "rb", buffering=buffering) as handle:
            handle.read(777)
            assert bk.kt128(handle) == KangarooTwelve.new(data=data[777:]).read(32), buffering


def test_parallelhash_reads_a_large_chunk_through_piece_sized_buffers(tmp_path):
    import tracemalloc

    data = np.random.default_rng(9).bytes(2 << 20)
    path = tmp_path / "large.bin"
    path.write_bytes(data)
    want = ref.parallelhash(256, data, 2**30, 32, b"")
    hasher = bk.hasher("parallelhash_256", length=32, block_size=2**30)
    tracemalloc.start()
    try:
        assert hasher.hash_message(path, piece_bytes=64 << 10) == want
        with open(path, "rb") as handle:
            assert hasher.hash_message(handle, piece_bytes=64 << 10) == want
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert peak < 1 << 20, peak  # the 2 MiB file is never held whole


def test_a_file_whose_size_says_less_is_still_read_to_its_end(tmp_path):
    data = np.random.default_rng(10).bytes(300_000)
    path = tmp_path / "message.bin"
    path.write_bytes(data)

    class ClaimsToBeAtItsEnd(io.FileIO):
        """The size hint says nothing is left: only the reads may say where the file ends."""

        def tell(self) -> int:
            return len(data)

    for block in (1000, 2**40):
        with ClaimsToBeAtItsEnd(path, "rb") as handle:
            got = bk.parallelhash_256(handle, block_size=block)
        assert got == ref.parallelhash(256, data, block, 32, b""), block
    with ClaimsToBeAtItsEnd(path, "rb") as handle:
        assert bk.kt128(handle) == KangarooTwelve.new(data=data).read(32)
    cmdline = "/proc/self/cmdline"
    if os.path.exists(cmdline):  # size 0 as the system reports it, yet not empty
        with open(cmdline, "rb") as handle:
            content = handle.read()
        assert content and os.stat(cmdline).st_size == 0
        assert bk.parallelhash_128(cmdline, block_size=2**40) == (
            ref.parallelhash(128, content, 2**40, 32, b"")
        )


def test_mode_and_scheme_names_are_read_like_algorithm_names():
    # One reader of names (parameters.canonical_name): case, '-' for '_' and dropped
    # underscores, as for bk.hasher, in tuplehash_many, the Merkle schemes and the CLI's bench.
    from batchkeccak.merkle.base import check_scheme

    rows = [[b"ab", b"c"], [b""]]
    expected = bk.tuplehash_many(rows, "tuplehash_128", length=16)
    for spelling in ("TupleHash-128", "tuplehash128", "TUPLEHASH_128"):
        assert np.array_equal(bk.tuplehash_many(rows, spelling, length=16), expected), spelling
    with pytest.raises(ValueError, match="needs a tuplehash_\\* algorithm, got 'sha3_256'"):
        bk.tuplehash_many(rows, "sha3_256")
    for spelling in ("rfc9162", "RFC-9162", "rfc_9162", "OpenZeppelin", "open-zeppelin"):
        assert check_scheme(spelling) == spelling.lower().replace("-", "").replace("_", "")
    with pytest.raises(ValueError, match="unknown scheme 'rfc 9162'; valid schemes"):
        check_scheme("rfc 9162")


# -- small work through the modes' one-shot forms ---------------------------------------------

# Each mode with parameters a one-shot backend takes (pycryptodome's cSHAKE, KMAC and
# TupleHash; hmac for HMAC-SHA3), and beside it parameters it refuses (N given, a short KMAC
# key, an XOF form, fewer than 8 bytes out, one key per message), which stay on the kernels.
SMALL_WORK = [
    ("cshake_128", {"length": 32, "customization": b"C"}),
    ("cshake_256", {"length": 5, "customization": b"C"}),
    ("cshake_128", {"length": 32, "customization": b"C", "function_name": b"N"}),
    ("kmac_128", {"length": 32, "key": b"k" * 16, "customization": b"S"}),
    ("kmac_256", {"length": 8, "key": b"k" * 32}),
    ("kmac_256", {"length": 32, "key": b"k" * 31}),
    ("kmac_128", {"length": 7, "key": b"k" * 16}),
    ("kmac_xof_128", {"length": 32, "key": b"k" * 16}),
    ("hmac_sha3_224", {"key": b"key"}),
    ("hmac_sha3_512", {"key": b"K" * 200}),
    ("hmac_sha3_256", {"key": [b"a", b"b", b"c"]}),
    ("tuplehash_128", {"length": 32, "customization": b"T"}),
    ("tuplehash_256", {"length": 4}),
    ("tuplehash_xof_256", {"length": 32}),
]


def oracle(name, params, message, index=0):
    """The digest of one message from the reference model or Python's hmac."""
    mode = bk.modes[name]
    bits = 128 if mode.sponge.endswith("128") else 256
    custom = params.get("customization", b"")
    length = params.get("length")
    if mode.family == "cshake":
        return ref.cshake(bits, message, length, params.get("function_name", b""), custom)
    if mode.family == "kmac":
        return ref.kmac(bits, params["key"], message, length, custom, mode.xof)
    if mode.family == "hmac":
        key = params["key"]
        return hmac.digest(key[index] if isinstance(key, list) else key, message, mode.sponge)
    return ref.tuplehash(bits, [message], length, custom, mode.xof)


@pytest.mark.parametrize(("name", "params"), SMALL_WORK)
def test_small_work_of_the_routed_modes_against_the_oracles(tmp_path, name, params):
    messages = [b"abc", b"", b"x" * 300]
    want = [oracle(name, params, m, i) for i, m in enumerate(messages)]
    assert_rows(bk.hash_many(messages, name, **params), want, "hash_many")
    offsets = np.array([0, 3, 3, 303], np.int64)
    flat = bk.FlatMessages(np.frombuffer(b"".join(messages), np.uint8), offsets)
    assert_rows(bk.hash_many(flat, name, **params), want, "flat")
    if isinstance(params.get("key"), list):
        return  # one key per message: no one-message forms
    resolved = bk.hasher(name, **params)
    assert resolved.hash_one(b"abc") == want[0]
    paths = []
    for i, message in enumerate(messages):
        paths.append(tmp_path / f"m{i}")
        paths[-1].write_bytes(message)
    assert_rows(bk.hash_files(paths, name, **params), want, "hash_files")
    if bk.modes[name].family == "tuplehash":
        rows = [[b"ab", b"c"], [], [b"a", b"bc", b""]]
        bits = 128 if name.endswith("128") else 256
        custom, length = params.get("customization", b""), params["length"]
        xof = bk.modes[name].xof
        assert_rows(
            bk.tuplehash_many(rows, name, **params),
            [ref.tuplehash(bits, row, length, custom, xof) for row in rows],
            "tuplehash_many",
        )


def test_a_routed_mode_refuses_offsets_outside_the_data():
    # The one-shot path checks the offsets as the kernels do: never a shortened message.
    from batchkeccak.core.dispatch import forced_backend
    from batchkeccak.inputs import readonly

    resolved = bk.hasher("kmac_128", length=32, key=b"k" * 16)
    data = readonly(np.frombuffer(b"abcdef", np.uint8))
    with forced_backend("oneshot"), pytest.raises(ValueError, match="offsets leave the data"):
        resolved.hash_flat(data, readonly(np.array([0, 3, 9], np.int64)))


SMALL_MODES = """
import hmac, os, sys, tempfile
import batchkeccak as bk
from Crypto.Hash import KMAC256, TupleHash128, cSHAKE128
messages = [b"abc", b"x" * 3000, b""]
def rows(name, **params):
    return [r.tobytes() for r in bk.hash_many(messages, name, **params)]
assert rows("cshake_128", length=32, customization=b"C") == [
    cSHAKE128.new(data=m, custom=b"C").read(32) for m in messages
]
assert rows("kmac_256", length=32, key=b"k" * 32) == [
    KMAC256.new(key=b"k" * 32, data=m, mac_len=32).digest() for m in messages
]
def tuplehash(strings):
    h = TupleHash128.new(digest_bytes=16, custom=b"T")
    for s in strings:
        h.update(s)
    return h.digest()
assert rows("tuplehash_128", length=16, customization=b"T") == [tuplehash([m]) for m in messages]
assert [r.tobytes() for r in bk.tuplehash_many([[b"a", b"b"]], length=16, customization=b"T")] == [
    tuplehash([b"a", b"b"])
]
assert rows("hmac_sha3_256", key=b"key") == [hmac.digest(b"key", m, "sha3_256") for m in messages]
assert bk.hasher("hmac_sha3_384", key=b"K").hash_one(b"m") == hmac.digest(b"K", b"m", "sha3_384")
path = os.path.join(tempfile.mkdtemp(), "small")
with open(path, "wb") as f:
    f.write(b"y" * 20000)
assert bk.hash_files([path], "kmac_256", length=32, key=b"k" * 32)[0].tobytes() == (
    KMAC256.new(key=b"k" * 32, data=b"y" * 20000, mac_len=32).digest()
)
assert bk.hash_files([path], "tuplehash_128", length=16, customization=b"T")[0].tobytes() == (
    tuplehash([b"y" * 20000])
)
print("numba" in sys.modules)
"""

CLI_TINY_FILE = """
import contextlib, io, os, sys, tempfile
from batchkeccak.cli import main
path = os.path.join(tempfile.mkdtemp(), "tiny")
with open(path, "wb") as f:
    f.write(b"x" * 100)
out = io.StringIO()
with contextlib.redirect_stdout(out):
    status = main(["hash", "-a", "cshake_128", "--length", "32", "--customization", "C", path])
print(status, out.getvalue().split()[0], "numba" in sys.modules)
"""


def _fresh_python(script):
    import subprocess
    import sys

    env = {k: v for k, v in os.environ.items() if k != "BATCHKECCAK_BACKEND"}
    result = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, env=env, check=True
    )
    return result.stdout.split()


@pytest.mark.kernels_only
def test_small_work_of_each_routed_mode_loads_no_kernels():
    # In a fresh process, under the measured limits: pycryptodome and hmac take it.
    assert _fresh_python(SMALL_MODES) == ["False"]


@pytest.mark.kernels_only
def test_the_cli_hashes_a_tiny_file_of_a_mode_without_the_kernels():
    status, digest, loaded = _fresh_python(CLI_TINY_FILE)
    want = cSHAKE128.new(data=b"x" * 100, custom=b"C").read(32).hex()
    assert (status, digest, loaded) == ("0", want, "False")
