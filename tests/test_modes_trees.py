"""KT128/KT256 and ParallelHash of many messages in one call, against pycryptodome and the
plain model of tests/sp800_185_reference.py: lengths around the 8192-byte leaf (the trailer
included), messages of mixed sizes whose leaves share the tiles, a customization string
that spans leaves, long ``bytes`` in a list read where they lie, and every entry point that
takes many messages."""

from __future__ import annotations

import numpy as np
import pytest
import sp800_185_reference as ref
from Crypto.Hash import KangarooTwelve

import batchkeccak as bk
from batchkeccak.derived.mode_hashers import TREE_IN_PLACE_BYTES

pytestmark = pytest.mark.every_backend
QUICK_RUN_POLICIES = ("kernels",)  # the quick run: forced kernels; the whole suite: every policy

CHUNK = 8192
LEAF_EDGES = [0, 1, CHUNK - 2, CHUNK - 1, CHUNK, CHUNK + 1, 2 * CHUNK - 1, 2 * CHUNK, 2 * CHUNK + 1]
MIXED = [*LEAF_EDGES, 5 * CHUNK + 3, 17, 9 * CHUNK, 3]


def messages(lengths, seed):
    rng = np.random.default_rng(seed)
    return [rng.bytes(n) for n in lengths]


def assert_rows(got, want, label):
    bad = [i for i, w in enumerate(want) if got[i].tobytes() != w]
    assert bad == [], f"{label}: wrong rows {bad} of {len(want)}"


@pytest.mark.parametrize("custom", [b"", b"C", bytes(range(256)) * 40], ids=["none", "1", "10k"])
@pytest.mark.parametrize("threads", [1, 2])
def test_kt128_batches_of_mixed_sizes(custom, threads):
    batch = messages(MIXED, 1)
    want = [KangarooTwelve.new(data=m, custom=custom).read(32) for m in batch]
    got = bk.hash_many(batch, "kt128", length=32, customization=custom, threads=threads)
    assert_rows(got, want, "list")
    flat = np.frombuffer(b"".join(batch), dtype=np.uint8)
    offsets = np.cumsum([0] + [len(m) for m in batch])
    got = bk.hash_many(bk.FlatMessages(flat, offsets), "kt128", length=32, customization=custom)
    assert_rows(got, want, "flat")


@pytest.mark.parametrize("length", [CHUNK - 3, CHUNK - 1, CHUNK, CHUNK + 1, 3 * CHUNK])
def test_kt_rows_around_the_leaf_with_the_trailer(length):
    # A 2-D array: every message the same length, the trailer (2 bytes with "C") pushing
    # S across the first chunk's edge or not.
    rows = np.random.default_rng(length).integers(0, 256, (5, length), dtype=np.uint8)
    for bits in (128, 256):
        got = bk.hash_many(rows, f"kt{bits}", length=40, customization=b"C")
        want = [ref.kangarootwelve(bits, r.tobytes(), b"C", 40) for r in rows]
        assert_rows(got, want, f"kt{bits}")


def test_kt_long_bytes_in_a_list_in_place_beside_short_ones():
    sizes = [TREE_IN_PLACE_BYTES, 3, TREE_IN_PLACE_BYTES + CHUNK + 5, CHUNK + 1, 0]
    batch = messages(sizes, 2)
    for bits in (128, 256):
        got = bk.hash_many(batch, f"kt{bits}", length=32, customization=b"x")
        want = [ref.kangarootwelve(bits, m, b"x", 32) for m in batch]
        assert_rows(got, want, f"kt{bits}")
    # The same list with one message that is not bytes takes the batch path: same digests.
    mixed = [bytearray(batch[0]), *batch[1:]]
    got = bk.hash_many(mixed, "kt128", length=32, customization=b"x")
    assert_rows(got, [ref.kangarootwelve(128, m, b"x", 32) for m in batch], "bytearray")


@pytest.mark.parametrize("block", [1, 7, 168, CHUNK])
def test_parallelhash_batches_of_mixed_sizes(block):
    lengths = MIXED if block >= 168 else [0, 1, block - 1, block, block + 1, 3 * block + 2, 0]
    batch = messages(lengths, block)
    for bits, xof in ((128, False), (256, True)):
        name = f"parallelhash_{'xof_' if xof else ''}{bits}"
        got = bk.hash_many(batch, name, length=24, block_size=block, customization=b"S")
        want = [ref.parallelhash(bits, m, block, 24, b"S", xof) for m in batch]
        assert_rows(got, want, name)


def test_parallelhash_long_bytes_in_a_list_and_a_flat_buffer_with_an_offset():
    batch = messages([TREE_IN_PLACE_BYTES + 9, 10, CHUNK * 2 + 1], 3)
    want = [ref.parallelhash(128, m, CHUNK, 32, b"") for m in batch]
    assert_rows(bk.hash_many(batch, "parallelhash_128", length=32), want, "list")
    # Messages that start past the buffer's first byte (a slice of a column).
    flat = np.frombuffer(b"pad" + b"".join(batch), dtype=np.uint8)
    offsets = 3 + np.cumsum([0] + [len(m) for m in batch])
    got = bk.hash_many(bk.FlatMessages(flat, offsets), "parallelhash_128", length=32)
    assert_rows(got, want, "flat")


SMALL_KT128 = """
import sys, tempfile, os
import batchkeccak as bk
from Crypto.Hash import KangarooTwelve
messages = [b"abc", b"x" * 9000, b""]
got = bk.hash_many(messages, "kt128", length=32, customization=b"C")
assert [g.tobytes() for g in got] == [
    KangarooTwelve.new(data=m, custom=b"C").read(32) for m in messages
]
path = os.path.join(tempfile.mkdtemp(), "small")
with open(path, "wb") as f:
    f.write(b"y" * 20000)
assert bk.hash_files([path], "kt128", length=32)[0].tobytes() == (
    KangarooTwelve.new(data=b"y" * 20000).read(32)
)
print("numba" in sys.modules)
"""


@pytest.mark.kernels_only
def test_small_kt128_work_loads_no_kernels():
    # In a fresh process, under the measured limits: pycryptodome's KangarooTwelve takes it.
    import os
    import subprocess
    import sys

    env = {k: v for k, v in os.environ.items() if k != "BATCHKECCAK_BACKEND"}
    result = subprocess.run(
        [sys.executable, "-c", SMALL_KT128], capture_output=True, text=True, env=env, check=True
    )
    assert result.stdout.strip() == "False"


@pytest.mark.parametrize("custom", [b"", b"cust"], ids=["none", "4"])
def test_kt_lists_of_long_messages_share_one_queue_of_leaves(custom):
    # Every message of the list longer than a leaf with the trailer: the leaves of all of
    # them are read where the bytes objects lie, in one queue; the list in any order of
    # addresses (reversed, and an item twice), at the trailer's edge and past the in-place
    # length. One message a leaf short of that goes message by message, as before.
    trailer = len(custom) + (2 if custom else 1)
    edge = CHUNK - trailer + 1  # the shortest message longer than one chunk with the trailer
    for lengths in ([edge, edge + 1, 3 * CHUNK + 7], [TREE_IN_PLACE_BYTES, 2 * CHUNK - 3]):
        batch = messages(lengths, len(lengths))
        batch = [*batch[::-1], *batch, batch[0]]
        for threads in (1, 2):
            got = bk.hash_many(batch, "kt128", length=40, customization=custom, threads=threads)
            want = [KangarooTwelve.new(data=m, custom=custom).read(40) for m in batch]
            assert_rows(got, want, f"kt128 list {lengths}")
            got = bk.hash_many(batch, "kt256", length=64, customization=custom, threads=threads)
            want = [ref.kangarootwelve(256, m, custom, 64) for m in batch]
            assert_rows(got, want, f"kt256 list {lengths}")
    batch = messages([edge - 1, TREE_IN_PLACE_BYTES], 5)
    got = bk.hash_many(batch, "kt128", length=32, customization=custom)
    assert_rows(got, [KangarooTwelve.new(data=m, custom=custom).read(32) for m in batch], "edge")


@pytest.mark.kernels_only
def test_kt128_list_of_long_messages_is_one_batch_of_leaves(monkeypatch):
    # Four 512 KiB messages: one queue of leaves (not four trees each with a partial tile).
    from batchkeccak.derived import kangarootwelve

    calls = []
    original = kangarootwelve.hash_leaves

    def spy(*args, **kwargs):
        calls.append(1)
        return original(*args, **kwargs)

    monkeypatch.setattr(kangarootwelve, "hash_leaves", spy)
    batch = messages([TREE_IN_PLACE_BYTES] * 4, 6)
    got = bk.hash_many(batch, "kt128", length=32, threads=1)
    assert_rows(got, [KangarooTwelve.new(data=m).read(32) for m in batch], "kt128")
    assert calls == [1]


@pytest.mark.parametrize("piece", [1, 4096, 8191, 65536, 3 << 16, (3 << 16) - 1, 1 << 20])
def test_kt128_objects_fed_in_pieces(piece):
    # new() fed in pieces of every size around the leaf, the gathering limit (pieces under
    # 192 KiB are gathered into batches of leaves) and 1 MiB; copies taken on the way.
    message = messages([(3 << 20) + 5 if piece > 1 else 40000], piece)[0]
    h = bk.new("kt128", length=40, customization=b"cc")
    copies = []
    for at in range(0, len(message), piece):
        h.update(message[at : at + piece])
        if at in (0, 2 * piece * (len(message) // (3 * piece))):
            copies.append((at + piece, h.copy()))
    assert h.digest() == KangarooTwelve.new(data=message, custom=b"cc").read(40)
    for end, copy in copies:
        copy.update(b"tail")
        want = KangarooTwelve.new(data=message[:end] + b"tail", custom=b"cc").read(40)
        assert copy.digest() == want


@pytest.mark.kernels_only
def test_kt128_object_gathers_short_pieces_into_batches_of_leaves(monkeypatch):
    # 2 MiB in 64 KiB updates: the leaves go to the kernels in a few batches of 128, not
    # 8 at a time (each call of the kernels has a fixed cost: 4.7x bk.kt128's CPU time).
    from batchkeccak.core.hashers import Hasher

    calls = []
    original = Hasher.hash_flat

    def counting(self, data, offsets, **kwargs):
        calls.append(offsets.shape[0] - 1)
        return original(self, data, offsets, **kwargs)

    message = messages([2 << 20], 8)[0]
    h = bk.new("kt128", length=32)
    monkeypatch.setattr(Hasher, "hash_flat", counting)
    for at in range(0, len(message), 1 << 16):
        h.update(message[at : at + (1 << 16)])
    monkeypatch.undo()
    assert h.digest() == KangarooTwelve.new(data=message).read(32)
    assert len(calls) <= 2 and sum(calls) >= 128, calls


@pytest.mark.parametrize("block", [100, 8192, 1 << 16, (1 << 16) + 1])
@pytest.mark.parametrize("piece", [1000, 65536, 24 * 8192, 1 << 20])
def test_parallelhash_objects_fed_in_pieces(block, piece):
    # Chunks of at most 64 KiB from short pieces are gathered into batches; larger chunks
    # that cross pieces go through an incremental sponge. A copy on the way, finished too.
    message = messages([(1 << 20) + 77], block)[0]
    h = bk.new("parallelhash_128", length=32, block_size=block, customization=b"P")
    copy_at = None
    for at in range(0, len(message), piece):
        h.update(message[at : at + piece])
        if copy_at is None and at + piece >= len(message) // 2:
            copy_at, copy = min(at + piece, len(message)), h.copy()
    assert h.digest() == ref.parallelhash(128, message, block, 32, b"P")
    copy.update(b"tail")
    assert copy.digest() == ref.parallelhash(128, message[:copy_at] + b"tail", block, 32, b"P")


@pytest.mark.kernels_only
def test_parallelhash_object_gathers_short_pieces_into_batches(monkeypatch):
    from batchkeccak.core.hashers import Hasher

    calls = []
    original = Hasher.hash_flat

    def counting(self, data, offsets, **kwargs):
        calls.append(offsets.shape[0] - 1)
        return original(self, data, offsets, **kwargs)

    message = messages([2 << 20], 9)[0]
    h = bk.new("parallelhash_128", length=32, block_size=8192)
    monkeypatch.setattr(Hasher, "hash_flat", counting)
    for at in range(0, len(message), 1 << 16):
        h.update(message[at : at + (1 << 16)])
    monkeypatch.undo()
    assert h.digest() == ref.parallelhash(128, message, 8192, 32, b"")
    assert len(calls) <= 2 and sum(calls) >= 128, calls
