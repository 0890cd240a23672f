"""The framed modes (KMAC, TupleHash) and cSHAKE at the block and path boundaries, against
pycryptodome: lengths around the rate, around the length where a batch is hashed in place
from the stored state (``IN_PLACE_BYTES``; TupleHash's length prefix grows a byte there too),
multi-block and 4 MiB messages, one key per message, and every entry point."""

from __future__ import annotations

import hmac

import numpy as np
import pytest
import sp800_185_reference as ref
from Crypto.Hash import KMAC128, KMAC256, TupleHash128, TupleHash256, cSHAKE128, cSHAKE256

import batchkeccak as bk
from batchkeccak.derived.mode_hashers import IN_PLACE_BYTES

pytestmark = pytest.mark.every_backend
QUICK_RUN_POLICIES = ("kernels",)  # the quick run: forced kernels; the whole suite: every policy

RATE = {128: 168, 256: 136}
KMAC = {128: KMAC128, 256: KMAC256}
TUPLE = {128: TupleHash128, 256: TupleHash256}
CSHAKE = {128: cSHAKE128, 256: cSHAKE256}
KEY = bytes(range(40))


def lengths_around(rate):
    """Lengths at the block boundaries and at the in-place threshold (``IN_PLACE_BYTES`` is
    also where ``left_encode(8 * n)`` grows from 3 to 4 bytes)."""
    short = [0, 1, rate - 4, rate - 3, rate - 1, rate, rate + 1, 2 * rate - 1, 2 * rate + 1]
    edge = IN_PLACE_BYTES
    long = [edge - 1, edge, edge + 1, edge + rate - 1, edge + rate, 3 * edge + 7]
    return short, long


def messages(lengths, seed):
    rng = np.random.default_rng(seed)
    return [rng.bytes(n) for n in lengths]


def kmac(bits, key, message, length, custom=b""):
    return KMAC[bits].new(key=key, data=message, mac_len=length, custom=custom).digest()


def tuplehash(bits, message, length, custom=b""):
    h = TUPLE[bits].new(digest_bytes=length, custom=custom)
    h.update(message)
    return h.digest()


def assert_rows(got, want, label):
    bad = [i for i, w in enumerate(want) if got[i].tobytes() != w]
    assert bad == [], f"{label}: wrong rows {bad} of {len(want)}"


@pytest.mark.parametrize("bits", [128, 256])
def test_kmac_and_tuplehash_at_block_and_in_place_boundaries(bits):
    short, long = lengths_around(RATE[bits])
    # A batch of long messages only (hashed in place), short only (framed), and mixed.
    for label, lengths in (("long", long), ("short", short), ("mixed", short + long)):
        batch = messages(lengths, bits + len(lengths))
        for threads in (1, 2):
            got = bk.hash_many(
                batch, f"kmac_{bits}", key=KEY, length=32, customization=b"S", threads=threads
            )
            want = [kmac(bits, KEY, m, 32, b"S") for m in batch]
            assert_rows(got, want, f"kmac_{bits} {label} {threads} threads")
            got = bk.hash_many(
                batch, f"tuplehash_{bits}", length=48, customization=b"T", threads=threads
            )
            assert_rows(got, [tuplehash(bits, m, 48, b"T") for m in batch], f"tuple {label}")


@pytest.mark.parametrize("bits", [128, 256])
def test_equal_long_rows_of_a_2d_array(bits):
    rows = np.random.default_rng(bits).integers(0, 256, (5, IN_PLACE_BYTES + 3), dtype=np.uint8)
    got = bk.hash_many(rows, f"kmac_xof_{bits}", key=KEY, length=200)
    want = [ref.kmac(bits, KEY, bytes(r), 200, b"", xof=True) for r in rows]
    assert_rows(got, want, "kmac_xof rows")
    got = bk.hash_many(rows, f"tuplehash_{bits}", length=32)
    assert_rows(got, [tuplehash(bits, bytes(r), 32) for r in rows], "tuplehash rows")


def test_kmac_one_key_per_long_message_never_shares_a_start_state():
    batch = messages([IN_PLACE_BYTES + 10 * i for i in range(6)], 7)
    keys = [bytes([i]) * (32 + i * 30) for i in range(6)]
    got = bk.hash_many(batch, "kmac_256", key=keys, length=32)
    assert_rows(got, [kmac(256, k, m, 32) for k, m in zip(keys, batch)], "per-message keys")
    # The same message under two keys: two digests.
    same = bk.hash_many([batch[0], batch[0]], "kmac_128", key=keys[:2], length=32)
    assert same[0].tobytes() == kmac(128, keys[0], batch[0], 32)
    assert same[1].tobytes() == kmac(128, keys[1], batch[0], 32)


@pytest.mark.parametrize("bits", [128, 256])
def test_four_mib_messages_from_every_entry_point(bits, tmp_path):
    big = messages([4 << 20, (4 << 20) + 1], bits)
    want_kmac = [kmac(bits, KEY, m, 32) for m in big]
    want_tuple = [tuplehash(bits, m, 32) for m in big]
    want_cshake = [CSHAKE[bits].new(data=m, custom=b"c").read(32) for m in big]
    kmac_hasher = bk.hasher(f"kmac_{bits}", key=KEY, length=32)
    assert_rows(bk.hash_many(big, kmac_hasher), want_kmac, "kmac hash_many")
    assert_rows(bk.hash_many(big, f"tuplehash_{bits}", length=32), want_tuple, "tuple")
    got = bk.hash_many(big, f"cshake_{bits}", length=32, customization=b"c")
    assert_rows(got, want_cshake, "cshake hash_many")
    paths = []
    for i, m in enumerate(big):
        paths.append(tmp_path / f"m{i}.bin")
        paths[-1].write_bytes(m)
    assert_rows(bk.hash_files(paths, kmac_hasher), want_kmac, "kmac hash_files")
    got = bk.hash_files(paths, f"cshake_{bits}", length=32, customization=b"c")
    assert_rows(got, want_cshake, "cshake hash_files")
    h = bk.new(f"kmac_{bits}", key=KEY, length=32)
    view = memoryview(big[0])
    for at in range(0, len(view), 1 << 20):
        h.update(view[at : at + (1 << 20)])
    assert h.digest() == want_kmac[0]


@pytest.mark.parametrize("bits", [128, 256])
def test_streamed_files_with_the_trailer_at_the_block_end(bits, tmp_path):
    # Files over 1 MiB stream in the lanes from the mode's start state; KMAC's trailer
    # (3 bytes) then fills the last block (tails rate - 3 .. rate - 1) or not.
    rate = RATE[bits]
    base = (1 << 20) + 1 - ((1 << 20) + 1) % rate
    lengths = [base + tail for tail in (0, 1, rate - 4, rate - 3, rate - 2, rate - 1)]
    batch = messages(lengths, bits)
    paths = []
    for i, m in enumerate(batch):
        paths.append(tmp_path / f"f{i}.bin")
        paths[-1].write_bytes(m)
    got = bk.hash_files(paths, f"kmac_{bits}", key=KEY, length=32, customization=b"S")
    assert_rows(got, [kmac(bits, KEY, m, 32, b"S") for m in batch], "kmac files")
    got = bk.hash_files(paths, f"kmac_xof_{bits}", key=KEY, length=64)
    want = [ref.kmac(bits, KEY, m, 64, b"", xof=True) for m in batch]
    assert_rows(got, want, "kmac_xof files")
    got = bk.hash_files(paths, f"cshake_{bits}", length=32, function_name=b"N", customization=b"c")
    want = [ref.cshake(bits, m, 32, b"N", b"c") for m in batch]
    assert_rows(got, want, "cshake files")
    got = bk.hash_files(paths, "hmac_sha3_256", key=KEY)
    assert_rows(got, [hmac.digest(KEY, m, "sha3_256") for m in batch], "hmac files")


@pytest.mark.parametrize("bits", [128, 256])
def test_equal_short_rows_with_the_trailer_in_the_start_state(bits):
    # Equal rows shorter than a block: KMAC's trailer is XORed into the shared start state
    # and the rows are read in place; at rate - 3 bytes and more the trailer no longer fits
    # beside them and they are framed. 70 rows: whole tiles and a partial one.
    rate = RATE[bits]
    for length in (0, 1, 7, 8, 32, rate - 5, rate - 4, rate - 3, rate - 1):
        rows = np.random.default_rng(length).integers(0, 256, (70, length), dtype=np.uint8)
        for out_len in (32, rate):
            got = bk.hash_many(rows, f"kmac_{bits}", key=KEY, length=out_len, threads=2)
            want = [kmac(bits, KEY, bytes(r), out_len) for r in rows]
            assert_rows(got, want, f"kmac_{bits} rows of {length} B, {out_len} B out")
        got = bk.hash_many([bytes(r) for r in rows], f"kmac_xof_{bits}", key=KEY, length=20)
        want = [ref.kmac(bits, KEY, bytes(r), 20, b"", xof=True) for r in rows]
        assert_rows(got, want, f"kmac_xof_{bits} of {length} B")
        # One key per row: every row from its own state, never the shared one.
        keys = [bytes([i]) * 32 for i in range(70)]
        got = bk.hash_many(rows, f"kmac_{bits}", key=keys, length=32)
        want = [kmac(bits, k, bytes(r), 32) for k, r in zip(keys, rows)]
        assert_rows(got, want, f"per-row keys, {length} B")


def tuplehash_row_lengths(rate):
    """Row lengths where TupleHash's one-block layout changes: every word offset of the
    first words, where ``left_encode(8 * n)`` grows from 2 to 3 bytes (32), and the last
    lengths whose prefix, row and trailer fit before the padding (rate - 7 with a 3-byte
    prefix and a 3-byte trailer) and the first that do not."""
    return [*range(18), 31, 32, 33, 40, 41, rate - 9, rate - 8, rate - 7, rate - 6, rate - 5]


@pytest.mark.parametrize("bits", [128, 256])
def test_equal_short_tuplehash_rows_read_in_place(bits):
    # Equal rows shorter than a block: left_encode(8 * n) and the trailer go into the shared
    # start state and each row is read at its byte offset in the block. 70 rows: whole tiles
    # and a partial one, whose last row ends the buffer (its words are read byte by byte).
    rate = RATE[bits]
    for length in tuplehash_row_lengths(rate):
        rows = np.random.default_rng(length).integers(0, 256, (70, length), dtype=np.uint8)
        for out_len, custom in ((32, b""), (rate, b"Email"), (rate + 1, b"")):
            got = bk.hash_many(
                rows, f"tuplehash_{bits}", length=out_len, customization=custom, threads=2
            )
            want = [tuplehash(bits, bytes(r), out_len, custom) for r in rows]
            assert_rows(got, want, f"tuplehash_{bits} rows of {length} B, {out_len} B out")
        # A list of equal bytes (equal lengths found from the offsets), and the XOF form.
        got = bk.hash_many([bytes(r) for r in rows[1:]], f"tuplehash_xof_{bits}", length=20)
        want = [ref.tuplehash(bits, [bytes(r)], 20, b"", xof=True) for r in rows[1:]]
        assert_rows(got, want, f"tuplehash_xof_{bits} of {length} B")


@pytest.mark.kernels_only
@pytest.mark.parametrize("bits", [128, 256])
def test_equal_short_tuplehash_rows_are_never_framed(bits, monkeypatch):
    # Each row stays where it lies: no framed copy of the batch (the length prefix shifts
    # the row against the block, which the kernel's loads follow).
    from batchkeccak.derived import _layout

    def refuse(*args, **kwargs):
        raise AssertionError("equal short TupleHash rows were framed")

    monkeypatch.setattr(_layout, "frame_messages", refuse)
    rows = np.random.default_rng(bits).integers(0, 256, (2000, 32), dtype=np.uint8)
    got = bk.hash_many(rows, f"tuplehash_{bits}", length=32)
    assert_rows(got, [tuplehash(bits, bytes(r), 32) for r in rows], f"tuplehash_{bits}")


@pytest.mark.parametrize("bits", [128, 256])
def test_a_list_of_long_messages_is_read_where_it_lies(bits):
    # Long bytes in a list (what pandas' accessor hands over for a few long values): every
    # framed mode and HMAC reads them in place, as a 2-D array's rows, around the in-place
    # length and a block past it; with one message below it the list is copied and framed.
    rate = RATE[bits]
    edge = IN_PLACE_BYTES
    for lengths in ([edge, edge + 1, edge + rate - 1, 3 * edge + 7], [edge - 1, edge + rate]):
        batch = messages(lengths, sum(lengths))
        for threads in (1, 2):
            got = bk.hash_many(batch, f"kmac_{bits}", key=KEY, length=32, threads=threads)
            assert_rows(got, [kmac(bits, KEY, m, 32) for m in batch], f"kmac {lengths}")
            got = bk.hash_many(batch, f"tuplehash_{bits}", length=rate + 1, threads=threads)
            want = [tuplehash(bits, m, rate + 1) for m in batch]
            assert_rows(got, want, f"tuplehash {lengths}")
            name = {128: "sha3_256", 256: "sha3_512"}[bits]  # HMAC over a sponge of each rate
            got = bk.hash_many(batch, f"hmac_{name}", key=KEY, threads=threads)
            assert_rows(got, [hmac.digest(KEY, m, name) for m in batch], f"hmac {lengths}")


@pytest.mark.kernels_only
def test_a_list_of_long_messages_is_not_copied(monkeypatch):
    # The list's items go to the mode's in-place path, never to a framed (or flat) copy.
    from batchkeccak.derived.mode_hashers import FramedHasher, HmacHasher

    def refuse(*args, **kwargs):
        raise AssertionError("a list of long messages was copied into one buffer")

    monkeypatch.setattr(FramedHasher, "hash_flat", refuse)
    monkeypatch.setattr(HmacHasher, "hash_flat", refuse)
    batch = messages([IN_PLACE_BYTES, 5 * IN_PLACE_BYTES + 3, 1 << 20], 7)
    got = bk.hash_many(batch, "kmac_256", key=KEY, length=32, threads=1)
    assert_rows(got, [kmac(256, KEY, m, 32) for m in batch], "kmac_256")
    got = bk.hash_many(batch, "hmac_sha3_512", key=KEY, threads=1)
    assert_rows(got, [hmac.digest(KEY, m, "sha3_512") for m in batch], "hmac_sha3_512")


@pytest.mark.parametrize("bits", [128, 256])
def test_one_call_batches_of_the_framed_modes(bits):
    # The engines' one-call path (DuckDB's vectors): equal rows that fit a block with their
    # framing in one kernel call, anything else through hash_flat; Arrow's int32 offsets,
    # read as given, and a batch that starts inside the data.
    rate = RATE[bits]
    for mode, want_of in (
        (
            bk.hasher(f"kmac_{bits}", key=KEY, length=32, threads=1),
            lambda m: kmac(bits, KEY, m, 32),
        ),
        (bk.hasher(f"tuplehash_{bits}", length=32, threads=1), lambda m: tuplehash(bits, m, 32)),
    ):
        kernel = mode.one_call()
        assert kernel is not None
        for lengths in ([32] * 70, [0] * 9, [rate - 7] * 20, [rate] * 9, [5, 40, 200] * 5):
            batch = messages(lengths, len(lengths))
            data = np.frombuffer(b"pad" + b"".join(batch), dtype=np.uint8)
            offsets = np.cumsum([3, *lengths]).astype(np.int32)
            out = np.empty((len(batch), 32), dtype=np.uint8)
            kernel(data, offsets, out)
            assert_rows(out, [want_of(m) for m in batch], f"{mode.name} one call {lengths[:3]}")
        with pytest.raises(ValueError, match="offsets"):
            kernel(data, np.array([0, 5, 2], dtype=np.int64), np.empty((2, 32), np.uint8))


def test_sql_framed_modes_on_whole_vectors():
    # DuckDB hands 2048-row vectors with the arguments as columns: kmac_256(v, 'k', 32) and
    # tuplehash_128(v, 32) over equal rows (the one-call path) and rows of mixed lengths.
    duckdb = pytest.importorskip("duckdb")
    pa = pytest.importorskip("pyarrow")
    import batchkeccak.duckdb as bk_duckdb

    rng = np.random.default_rng(9)
    equal = [rng.bytes(32) for _ in range(5000)]
    mixed = [rng.bytes(int(n)) for n in rng.integers(0, 300, 3000)]
    connection = duckdb.connect()
    bk_duckdb.register(connection, keys={"k": KEY})
    for rows in (equal, mixed):
        connection.register("t", pa.table({"v": pa.array(rows, pa.binary())}))
        got = connection.sql("SELECT kmac_256(v, 'k', 32), tuplehash_128(v, 32) FROM t").fetchall()
        assert [g[0] for g in got] == [kmac(256, KEY, m, 32) for m in rows]
        assert [g[1] for g in got] == [tuplehash(128, m, 32) for m in rows]
        connection.unregister("t")
    # A length that is the same literal on most vectors' rows and changes inside one: each
    # vector's arguments are compared in full, never taken from an earlier vector's.
    table = pa.table({"v": pa.array(equal, pa.binary()), "i": pa.array(range(len(equal)))})
    connection.register("t", table)
    query = "SELECT tuplehash_128(v, CASE WHEN i < 3000 THEN 32 ELSE 20 END) FROM t ORDER BY i"
    got = [g[0] for g in connection.sql(query).fetchall()]
    want = [tuplehash(128, m, 32 if i < 3000 else 20) for i, m in enumerate(equal)]
    assert got == want
