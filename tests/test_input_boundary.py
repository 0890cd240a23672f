"""The input boundary under hostile callers: no read outside a buffer, no guessed form.

Every path must hash exactly the bytes it measured, or raise the documented RuntimeError.
Anything that could crash the interpreter runs in a subprocess, so a segfault fails a test
instead of killing the test run.
"""

from __future__ import annotations

import hashlib
import os
import sys

import numpy as np
import pyarrow as pa
import pytest
from arrow_helpers import VARIABLE_TYPES
from cli_helpers import start_slow_parquet_write
from hypothesis import given
from hypothesis import strategies as st
from race_helpers import race_script, run_race

import batchkeccak as bk
from batchkeccak.arrow import hash_array, hash_rows
from batchkeccak.inputs import FlatMessages, to_flat


def sha3(message: bytes) -> bytes:
    return hashlib.sha3_256(message).digest()


# --- races: another thread changes the messages while they are hashed -------------------------

RACE_SETUP = """
import hashlib, random, sys, threading, time
import numpy as np
import batchkeccak as bk

count, threads, seconds = int(sys.argv[1]), int(sys.argv[2]), float(sys.argv[3])
LENGTHS = (0, 7, 135, 136, 137, 1000, 20000)

def content(i, length, flavour):
    return bytes([(i + flavour) % 251]) * length

# Every state an item can be in, and so every digest its row may hold.
allowed = [
    {hashlib.sha3_256(content(i, n, f)).digest() for n in LENGTHS for f in (0, 1)}
    for i in range(count)
]

def fresh(i):
    n = random.choice(LENGTHS)
    if i % 2:
        return bytearray(content(i, n, 0))
    return np.frombuffer(content(i, n, 0), np.uint8).copy()

items = [fresh(i) for i in range(count)]
# Load the kernels before the mutating thread competes for the GIL: the window below is
# for calls, not for imports.
bk.hash_many(items, "sha3_256", threads=threads)

def mutate():
    global mutations
    rng = random.Random(1)
    while not stop.is_set():
        i = rng.randrange(count)
        item = items[i]
        n, f = rng.choice(LENGTHS), rng.randrange(2)
        try:
            if isinstance(item, bytearray) and rng.random() < 0.8:
                item[:] = content(i, n, f)          # resize in place
            elif isinstance(item, np.ndarray) and 0 < item.size <= 200 and rng.random() < 0.5:
                # Rewrite in place, same size. (Only small arrays: numpy fills large ones
                # with the GIL released, and a read racing that write sees a mix of old and
                # new bytes, with hashlib as with any reader.)
                item[:] = (i + f) % 251
            else:
                items[i] = fresh(i)                 # replace the list item
        except BufferError:
            pass                                     # exported: being hashed right now
        mutations += 1

"""
RACE_SCRIPT = race_script(
    RACE_SETUP,
    'rows = bk.hash_many(items, "sha3_256", threads=threads)',
    """
    calls += 1
    assert rows.shape == (count, 32), rows.shape
    for i in range(count):
        if rows[i].tobytes() not in allowed[i]:
            print(f"WRONG DIGEST: row {i} after {calls} calls", flush=True)
            sys.exit(3)
    """,
)


@pytest.mark.slow
@pytest.mark.parametrize(
    "count, threads",
    [(64, 1), (5000, 2)],  # the one-pass path, and the chunked path that converts per thread
)
def test_messages_resized_by_another_thread_hash_as_some_real_contents(count, threads):
    summary = run_race(RACE_SCRIPT, [str(count), str(threads), "2"])
    calls = int(summary.split("calls=")[1].split()[0])
    mutations = int(summary.split("mutations=")[1])
    assert calls >= (200 if count < 1000 else 5), summary
    assert mutations > calls, summary  # the items really changed between calls


def test_a_bytes_subclass_whose_len_lies_is_hashed_by_its_buffer():
    victims: list = []

    class LyingLength(bytes):
        def __len__(self):
            victims.clear()  # runs Python code mid-conversion: empty the list being read
            return 10**9

    victims.extend([LyingLength(b"abc"), b"de", LyingLength(b"")])
    snapshot = [bytes(v) for v in victims]
    assert bk.hash_many(victims, "sha3_256").tolist() == [list(sha3(m)) for m in snapshot]
    assert bk.hash_one(LyingLength(b"xyz")) == sha3(b"xyz")


def test_a_class_that_claims_to_be_bytes_is_read_as_what_it_is():
    class Impostor(bytearray):
        @property
        def __class__(self):
            return bytes

    message = Impostor(b"impostor")
    assert isinstance(message, bytes)  # what a naive check would believe
    digests = bk.hash_many([message, b"plain", message], "sha3_256")
    assert [d.tobytes() for d in digests] == [sha3(b"impostor"), sha3(b"plain"), sha3(b"impostor")]


def test_a_bytearray_cannot_be_resized_while_its_bytes_are_pinned():
    from batchkeccak.inputs import single_message

    message = bytearray(b"0123456789")
    data, offsets = single_message(message)
    with pytest.raises(BufferError):
        message.extend(b"more")  # the export that was measured also pins the size
    assert offsets.tolist() == [0, 10] and data.tobytes() == b"0123456789"
    del data


@pytest.mark.skipif(sys.version_info < (3, 12), reason="__buffer__ in Python needs 3.12")
def test_a_buffer_method_that_changes_the_list_is_read_once():
    items: list = []

    class Sneaky:
        def __buffer__(self, flags):
            items[:] = [b"replaced"] * 3
            return memoryview(b"sneaky")

    items.extend([b"a", Sneaky(), b"c"])
    digests = bk.hash_many(items, "sha3_256")
    assert [d.tobytes() for d in digests] == [sha3(b"a"), sha3(b"sneaky"), sha3(b"c")]


# --- kernels refuse what the boundary would never pass --------------------------------------


def test_kernels_refuse_offsets_outside_the_data():
    from batchkeccak.core.hashers import ZERO_STATE
    from batchkeccak.inputs import readonly
    from batchkeccak.sponge import NO_FOLLOW, hash_uniform, run_jobs

    # Read-only inputs, as the boundary passes them: the specialization already compiled.
    data = readonly(np.zeros(10, np.uint8))
    out = np.zeros((1, 32), np.uint8)
    order = readonly(np.zeros(1, np.int64))

    def run(offsets, queue=order, follow=None, states=None, digests=out):
        offsets = readonly(np.array(offsets, np.int64))
        if states is None:  # Arrow's offsets
            run_jobs(data, offsets, None, queue, None, ZERO_STATE, None, 136, 6, 0, digests)
        else:
            run_jobs(
                data,
                offsets[:-1],
                offsets[1:],
                queue,
                follow,
                ZERO_STATE,
                states,
                136,
                6,
                0,
                digests,
            )

    for offsets in ([0, 11], [-1, 3], [5, 4]):
        with pytest.raises(ValueError, match="leave the data buffer"):
            run(offsets)
    with pytest.raises(ValueError, match="outside the items"):
        run([0, 3], queue=readonly(np.array([1], np.int64)))
    with pytest.raises(ValueError, match="outside the items"):
        run([0, 3], queue=readonly(np.array([-1], np.int64)))
    # Kept states: whole blocks only, and follow links that only point forward.
    states = np.zeros((2, 25), np.uint64)
    empty = np.zeros((0, 0), np.uint8)
    with pytest.raises(ValueError, match="not whole blocks"):
        run([0, 5], follow=NO_FOLLOW, states=states, digests=empty)
    with pytest.raises(ValueError, match="one entry per item"):
        run([0, 5], follow=readonly(np.array([-1, -1], np.int64)), states=states, digests=empty)
    big = readonly(np.zeros(4 * 136, np.uint8))
    starts = readonly(np.array([0, 136], np.int64))
    ends = readonly(np.array([136, 272], np.int64))
    for links in ([1, 0], [0, -1], [5, -1]):
        with pytest.raises(ValueError, match="follow link"):
            run_jobs(
                big,
                starts,
                ends,
                order,
                readonly(np.array(links, np.int64)),
                ZERO_STATE,
                states,
                136,
                6,
                0,
                empty,
            )
    with pytest.raises(ValueError, match="leave the data buffer"):
        hash_uniform(data, 0, 32, 1, ZERO_STATE, 136, 6, 0, np.zeros((32, 32), np.uint8), 0, 0)


def test_the_one_call_kernel_checks_the_offsets_it_reads_in_place():
    # hash_offsets takes an engine's own Arrow offsets (int32 or int64), unchecked: it copies
    # them and refuses a copy that leaves the data or decreases.
    from batchkeccak.core.hashers import ZERO_STATE
    from batchkeccak.inputs import readonly
    from batchkeccak.sponge import hash_offsets

    data = readonly(np.frombuffer(b"abcdefghij", np.uint8))
    for dtype in (np.int32, np.int64):
        out = np.zeros((2, 32), np.uint8)
        hash_offsets(data, readonly(np.array([0, 3, 10], dtype)), ZERO_STATE, 136, 6, 0, out)
        assert [bytes(row) for row in out] == [sha3(b"abc"), sha3(b"defghij")]
        for offsets in ([0, 11], [-1, 3], [0, 5, 4]):
            with pytest.raises(ValueError, match="leave the data buffer|decrease"):
                hash_offsets(
                    data,
                    readonly(np.array(offsets, dtype)),
                    ZERO_STATE,
                    136,
                    6,
                    0,
                    np.zeros((2, 32), np.uint8),
                )
    with pytest.raises(ValueError, match="one more entry than out has rows"):
        hash_offsets(
            data,
            readonly(np.array([0, 1, 2], np.int64)),
            ZERO_STATE,
            136,
            6,
            0,
            np.zeros((1, 32), np.uint8),
        )


def test_offsets_are_copied_so_later_changes_cannot_reach_the_kernel():
    data = np.frombuffer(b"abcdef", np.uint8)
    offsets = np.array([0, 3, 6], np.int64)
    _, checked_offsets = to_flat(FlatMessages(data, offsets))
    offsets[2] = 1 << 40  # the caller's array, changed after the check
    assert checked_offsets.tolist() == [0, 3, 6]
    assert not np.shares_memory(checked_offsets, offsets)


# --- no guessed form ----------------------------------------------------------------------


def test_a_tuple_is_always_a_sequence_of_messages():
    data = b"abcdefgh"
    offsets = np.array([0, 3, 8], np.uint64)
    got = bk.hash_many((data, offsets), "sha3_256")
    assert [d.tobytes() for d in got] == [sha3(data), sha3(offsets.tobytes())]
    int32_offsets = np.array([0, 2], np.int32)
    as_tuple = bk.hash_many((b"abcd", int32_offsets), "sha3_256")
    as_list = bk.hash_many([b"abcd", int32_offsets], "sha3_256")
    assert np.array_equal(as_tuple, as_list)
    assert as_tuple.shape == (2, 32)
    flat = bk.hash_many(FlatMessages(b"abcd", int32_offsets), "sha3_256")
    assert [d.tobytes() for d in flat] == [sha3(b"ab")]


def test_flat_messages_with_the_wrong_offsets_type_are_a_type_error():
    with pytest.raises(
        TypeError, match="offsets must be a 1-D int32 or int64 array, got 1-D uint64"
    ):
        bk.hash_many(FlatMessages(b"abcd", np.array([0, 2], np.uint64)))
    with pytest.raises(TypeError, match="offsets must be a numpy int32 or int64 array, got list"):
        bk.hash_many(FlatMessages(b"abcd", [0, 2]))
    with pytest.raises(TypeError, match="data is a str"):
        bk.hash_many(FlatMessages("abcd", np.array([0, 2])))


def test_errors_name_the_real_problem():
    with pytest.raises(TypeError, match=r"messages\[1\] is list.*FlatMessages"):
        bk.hash_many((b"abcd", [0, 3, 8]))
    with pytest.raises(ValueError, match=r"messages\[0\] is not contiguous"):
        bk.hash_many([memoryview(b"abcdef")[::2]])
    with pytest.raises(ValueError, match=r"message is not contiguous"):
        bk.hash_one(memoryview(b"abcdef")[::2])
    with pytest.raises(ValueError, match="length must be at most"):
        bk.hash_many([b"x"], "shake_128", length=2**63)


def test_xof_length_zero_is_empty_as_in_hashlib():
    got = bk.hash_many([b"abc", b""], "shake_256", length=0)
    assert got.shape == (2, 0)
    assert hashlib.shake_256(b"abc").digest(0) == b""
    assert bk.hash_one(b"abc", "shake_128", length=0) == hashlib.shake_128(b"abc").digest(0)
    assert bk.hexdigest_many([b"abc"], "shake_128", length=0) == [
        hashlib.shake_128(b"abc").hexdigest(0)
    ]


# --- every form, every Arrow type, sliced and chunked ----------------------------------------


def _arrow(values: list[bytes], arrow_type: pa.DataType) -> pa.Array:
    if (
        pa.types.is_string(arrow_type)
        or pa.types.is_large_string(arrow_type)
        or (pa.types.is_string_view(arrow_type))
    ):
        return pa.array([v.decode("latin-1") for v in values], arrow_type)
    return pa.array(values, arrow_type)


def _as_stored(values: list[bytes], arrow_type: pa.DataType) -> list[bytes]:
    # Strings hash their UTF-8 bytes: latin-1 text re-encoded.
    if (
        pa.types.is_string(arrow_type)
        or pa.types.is_large_string(arrow_type)
        or (pa.types.is_string_view(arrow_type))
    ):
        return [v.decode("latin-1").encode("utf-8") for v in values]
    return values


messages_strategy = st.lists(st.binary(max_size=300), min_size=1, max_size=40)


@given(
    messages=messages_strategy,
    type_index=st.integers(0, len(VARIABLE_TYPES) - 1),
    dictionary=st.booleans(),
    cut=st.data(),
)
def test_arrow_types_sliced_chunked_and_dictionary_encoded(messages, type_index, dictionary, cut):
    arrow_type = VARIABLE_TYPES[type_index]
    array = _arrow(messages, arrow_type)
    if dictionary:
        array = array.dictionary_encode()
    expected = [sha3(m) for m in _as_stored(messages, arrow_type)]
    start = cut.draw(st.integers(0, len(messages) - 1))
    stop = cut.draw(st.integers(start + 1, len(messages)))
    sliced = array.slice(start, stop - start)
    split = cut.draw(st.integers(start, stop))
    chunked = pa.chunked_array(
        [array.slice(start, split - start), array.slice(split, stop - split)]
    )
    want = expected[start:stop]
    for form in (sliced, chunked):
        assert [d.tobytes() for d in bk.hash_many(form, "sha3_256")] == want
        assert hash_array(form).to_pylist() == want
    # One present field per row: 0x01, the length as 8 bytes little-endian, the value.
    row_want = [
        sha3(b"\x01" + len(m).to_bytes(8, "little") + m).hex()
        for m in _as_stored(messages, arrow_type)[start:stop]
    ]
    for form in (sliced, chunked):
        assert hash_rows(pa.table({"v": form}), hex=True).to_pylist() == row_want


@given(
    messages=messages_strategy,
    form=st.sampled_from(
        [
            "list",
            "tuple",
            "generator",
            "bytearrays",
            "memoryviews",
            "arrays",
            "mixed",
            "flat",
            "flat32",
            "rows",
        ]
    ),
)
def test_every_python_form_hashes_like_hashlib(messages, form):
    if form == "rows":
        width = len(messages[0])
        messages = [m[:width].ljust(width, b"\x00") for m in messages]
    lengths = np.array([0] + [len(m) for m in messages], np.int64)
    joined = b"".join(messages)
    built = {
        "list": lambda: list(messages),
        "tuple": lambda: tuple(messages),
        "generator": lambda: (m for m in messages),
        "bytearrays": lambda: [bytearray(m) for m in messages],
        "memoryviews": lambda: [memoryview(m) for m in messages],
        "arrays": lambda: [np.frombuffer(m, np.uint8) for m in messages],
        "mixed": lambda: [
            (bytes, bytearray, memoryview, lambda m: np.frombuffer(m, np.uint8))[i % 4](m)
            for i, m in enumerate(messages)
        ],
        "flat": lambda: FlatMessages(np.frombuffer(joined, np.uint8), np.cumsum(lengths)),
        "flat32": lambda: FlatMessages(joined, np.cumsum(lengths).astype(np.int32)),
        "rows": lambda: np.frombuffer(joined, np.uint8).reshape(len(messages), -1),
    }[form]()
    got = bk.hash_many(built, "sha3_256")
    assert [d.tobytes() for d in got] == [sha3(m) for m in messages]


# --- signals: the Parquet CLI cleans up after SIGTERM like after Ctrl-C ----------------------


@pytest.mark.slow
def test_sigterm_leaves_no_temporary_file_and_no_partial_output(tmp_path):
    import signal

    dst = tmp_path / "out.parquet"
    process = start_slow_parquet_write(tmp_path, seed=5)
    process.send_signal(signal.SIGTERM)
    _, stderr = process.communicate(timeout=60)
    assert process.returncode == 128 + signal.SIGTERM, stderr
    assert b"Traceback" not in stderr
    assert b"terminated" in stderr
    assert not dst.exists()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["in.parquet"]


def test_batch_size_zero_is_refused_like_a_negative_one(capsys):
    from batchkeccak.cli import main

    for value in ("0", "-3"):
        status = main(["parquet", "a.parquet", "b.parquet", "-c", "x", "--batch-size", value])
        assert status == 1  # a usage error, as GNU's tools report one
        assert "--batch-size: must be a positive integer" in capsys.readouterr().err


# --- empty buffers of any shape -----------------------------------------------------------

EMPTY_ARRAYS = [
    np.zeros((2, 0), np.uint8),
    np.zeros((0, 3), np.int32),
    np.zeros((3, 0, 2), np.float64),
    np.zeros(0, np.uint16),
    np.zeros((4, 4), np.uint8)[::2, :0],  # a strided parent: empty views are still contiguous
]


@pytest.mark.parametrize("empty", EMPTY_ARRAYS, ids=lambda a: f"{a.shape}-{a.dtype}")
def test_an_empty_array_of_any_shape_is_the_empty_message(empty):
    want = hashlib.sha3_256(bytes(memoryview(empty).tobytes())).digest()
    assert want == sha3(b"")
    assert bk.sha3_256(empty).digest() == want
    streamed = bk.sha3_256(b"ab")
    streamed.update(empty)
    assert streamed.digest() == sha3(b"ab")
    assert bk.hash_one(empty) == want
    got = bk.hash_many([empty, b"x", empty], "sha3_256")
    assert [d.tobytes() for d in got] == [want, sha3(b"x"), want]
    assert bk.hash_many([empty], "shake_128", length=16)[0].tobytes() == (
        hashlib.shake_128(b"").digest(16)
    )


@pytest.mark.parametrize("empty", EMPTY_ARRAYS, ids=lambda a: f"{a.shape}-{a.dtype}")
def test_empty_arrays_in_the_modes(empty):
    import sp800_185_reference as ref
    from Crypto.Hash import KMAC128, KangarooTwelve, cSHAKE128

    key = b"K" * 32
    kmac = bk.hash_many([empty, b"abc"], "kmac_128", key=key, customization=empty, length=16)
    assert [d.tobytes() for d in kmac] == [
        KMAC128.new(key=key, data=b"", mac_len=16).digest(),
        KMAC128.new(key=key, data=b"abc", mac_len=16).digest(),
    ]
    # An empty key is a key of zero bytes, as SP 800-185 allows.
    empty_key = bk.hash_one(b"abc", "kmac_128", key=empty, length=16)
    assert empty_key == ref.kmac(128, b"", b"abc", 16, b"")
    cshake = bk.hash_one(empty, "cshake_128", function_name=b"N", customization=empty, length=16)
    assert cshake == ref.cshake(128, b"", 16, b"N", b"")
    assert bk.hash_one(b"m", "cshake_128", customization=empty, length=16) == (
        cSHAKE128.new(data=b"m", custom=b"").read(16)
    )
    assert bk.kt128(empty) == KangarooTwelve.new(data=b"").read(32)
    assert bk.kt128(b"m", customization=empty) == KangarooTwelve.new(data=b"m").read(32)
    assert bk.parallelhash_128(empty, block_size=8) == ref.parallelhash(128, b"", 8, 32, b"")
    assert bk.tuplehash_many([[empty, b"a"]], length=16)[0].tobytes() == (
        ref.tuplehash(128, [b"", b"a"], 16, b"")
    )


def test_a_strided_array_is_still_refused_clearly():
    strided = np.arange(12, dtype=np.uint8).reshape(3, 4)[:, ::2]
    with pytest.raises(ValueError, match="message is not contiguous"):
        bk.hash_one(strided)
    with pytest.raises(ValueError, match=r"messages\[0\] is not contiguous"):
        bk.hash_many([strided, b"x"])
    with pytest.raises(ValueError, match="data is not contiguous"):
        bk.sha3_256(strided)
    with pytest.raises(ValueError, match="contiguous"):
        bk.kt128(strided)


@pytest.mark.parametrize("messages", [{b"a", b"b"}, frozenset({b"a"}), {b"a": 1}])
def test_unordered_collections_are_refused(messages):
    # Row i of the digests belongs to message i: a set's order is arbitrary.
    with pytest.raises(TypeError, match="ordered sequence"):
        bk.hash_many(messages)


def test_the_piece_planner_refuses_arrays_that_do_not_fit():
    from batchkeccak.inputs import readonly
    from batchkeccak.sponge import plan_pieces

    rate = 136
    data = readonly(np.zeros(4096, np.uint8))
    pending = np.zeros((2, rate), np.uint8)
    pending_len = np.zeros(2, np.int64)
    piece_start = np.array([0, 100], np.int64)
    piece_len = np.array([300, 50], np.int64)
    runs = np.array([0, 1], np.int64)
    run_first = np.array([0, 1, 2], np.int64)

    def plan(scratch_size=3 * rate, items=6, length=None, first=None, waiting=0):
        pending_len[0] = waiting
        return plan_pieces(
            pending,
            pending_len,
            data,
            (piece_start, piece_len if length is None else np.array(length, np.int64)),
            (runs, run_first if first is None else np.array(first, np.int64)),
            rate,
            np.zeros(scratch_size, np.uint8),
            1000,
            tuple(np.zeros(size, np.int64) for size in (items, items, items, 2)),
        )

    # State 0: two whole blocks read in place, 28 bytes left waiting; state 1: 50 bytes wait.
    assert plan() == 1 and pending_len.tolist() == [300 - 2 * rate, 50]
    for bad in (
        {"scratch_size": 3 * rate - 1},
        {"items": 5},
        {"length": [300, 4000]},
        {"first": [0, 2, 1]},
        {"waiting": rate},
    ):
        with pytest.raises(ValueError, match="plan_pieces"):
            plan(**bad)


# --- long bytes items read where they lie --------------------------------------------------


def _in_place_lengths(rate: int) -> list[int]:
    from batchkeccak.inputs.flat import IN_PLACE_MIN_BYTES

    edge = IN_PLACE_MIN_BYTES
    return [0, 1, rate - 1, rate, rate + 1, 2 * rate, edge - 1, edge, edge + 1, 5000]


@pytest.mark.every_backend
@pytest.mark.parametrize("algorithm, length", [("sha3_256", None), ("shake_128", 200)])
@pytest.mark.parametrize("average", ["below", "at", "above"])
@pytest.mark.parametrize("form", [list, tuple])
@pytest.mark.parametrize("threads", [1, 2])
def test_long_bytes_items_around_the_in_place_crossover(
    algorithm, length, average, form, threads, backend_policy
):
    from batchkeccak.inputs.flat import IN_PLACE_MIN_BYTES

    rate = bk.algorithms[algorithm].rate
    rng = np.random.default_rng(len(average) + threads)
    lengths = _in_place_lengths(rate) * 300
    rng.shuffle(lengths)
    # Pad the batch so that its average lands just below, at or above the crossover (the
    # sample of the first items decides on measuring; the whole list on reading in place).
    total = sum(lengths)
    target = IN_PLACE_MIN_BYTES * (len(lengths) + 1) + {"below": -1, "at": 0, "above": 1}[average]
    lengths.append(max(0, target - total))
    messages = form(rng.integers(0, 256, n, dtype=np.uint8).tobytes() for n in lengths)
    got = bk.hash_many(messages, algorithm, length=length, threads=threads)
    new = getattr(hashlib, algorithm)
    expected = [
        new(m).digest(length) if length is not None else new(m).digest()  # type: ignore[call-arg]
        for m in messages
    ]
    assert [row.tobytes() for row in got] == expected


def test_long_bytes_items_take_the_in_place_path(monkeypatch):
    from batchkeccak import api

    seen: list[int] = []
    real = api.hash_places
    monkeypatch.setattr(api, "hash_places", lambda h, *p: seen.append(p[1].shape[0]) or real(h, *p))
    messages = [bytes([i]) * 1000 for i in range(100)]
    got = bk.hash_many(messages, "sha3_256", threads=2)
    assert seen == [100]
    assert [row.tobytes() for row in got] == [sha3(m) for m in messages]
    # A bytearray among them, or short items: the copy, as before.
    bk.hash_many([*messages[:50], bytearray(1000)], "sha3_256")
    bk.hash_many([b"x" * 40] * 100, "sha3_256")
    assert seen == [100]


def test_items_read_in_place_outlive_the_callers_list():
    import gc

    from batchkeccak.core.hashers import hash_places, plain_hasher
    from batchkeccak.inputs._pylist import bytes_places

    messages = [os.urandom(700 + i) for i in range(40)]
    expected = [sha3(m) for m in messages]
    places = bytes_places(messages)
    assert places is not None
    messages.clear()  # what another thread may do once the GIL is free: the items live on
    gc.collect()
    for garbage in range(200):
        bytes(700 + garbage)  # fresh objects where freed ones would have been
    got = hash_places(plain_hasher("sha3_256"), *places)
    assert [row.tobytes() for row in got] == expected


def test_places_outside_the_range_are_refused_at_kernel_entry():
    from batchkeccak.core.dispatch import forced_backend
    from batchkeccak.core.hashers import hash_places, plain_hasher
    from batchkeccak.inputs._pylist import bytes_places

    places = bytes_places([b"a" * 600, b"b" * 900])
    assert places is not None
    data, starts, ends = places
    with forced_backend("kernels"):
        for bad_starts, bad_ends in (
            (starts, ends + data.shape[0]),
            (starts - data.shape[0] - 1, ends.copy()),
            (starts.copy(), starts - 1),
        ):
            bad_starts.flags.writeable = bad_ends.flags.writeable = False  # the compiled types
            with pytest.raises(ValueError, match="offsets leave the data buffer"):
                hash_places(plain_hasher("sha3_256"), data, bad_starts, bad_ends)


@pytest.mark.slow  # 20 calls of 3,000 items against a mutating thread: 3-6 s
def test_a_list_of_long_bytes_changed_by_another_thread_hashes_real_contents():
    import threading

    count = 3000
    lengths = (0, 135, 136, 137, 1000, 5000)

    def content(i, n, flavour):
        return bytes([(i + flavour) % 251]) * n

    allowed = [{sha3(content(i, n, f)) for n in lengths for f in (0, 1)} for i in range(count)]
    items = [content(i, lengths[i % len(lengths)], 0) for i in range(count)]
    stop = threading.Event()

    def mutate():
        rng = np.random.default_rng(3)
        while not stop.is_set():
            i = int(rng.integers(count))
            items[i] = content(i, lengths[int(rng.integers(len(lengths)))], int(rng.integers(2)))
            if rng.integers(50) == 0:
                items.append(b"")  # grown and shrunk again
                items.pop()

    mutator = threading.Thread(target=mutate)
    mutator.start()
    try:
        for _ in range(20):
            try:
                rows = bk.hash_many(items, "sha3_256", threads=2)
            except RuntimeError as exc:
                assert "changed while being hashed" in str(exc)
                continue
            # One snapshot of the list: taken while it held the appended item, one row more,
            # the empty message's digest.
            assert rows.shape in ((count, 32), (count + 1, 32))
            for i in range(count):
                assert rows[i].tobytes() in allowed[i], i
            if rows.shape[0] > count:
                assert rows[count].tobytes() == sha3(b"")
    finally:
        stop.set()
        mutator.join()


@pytest.mark.slow
def test_a_list_resized_during_hash_many_gives_digests_of_one_snapshot_or_runtime_error():
    # Items of 200 B to 1 MiB: hashlib releases the GIL on the long ones, so another thread
    # appends and pops while the calling thread reads the list.
    import random
    import threading

    rng = random.Random(2)
    pool = [os.urandom(rng.choice([200, 1 << 16, 1 << 20])) for _ in range(60)]
    digest_of = {id(p): sha3(p) for p in pool}
    count = 40
    items = pool[:count]
    seen = [{digest_of[id(m)]} for m in items]  # every item ever at index i < count
    anywhere = set(digest_of.values())
    stop = threading.Event()

    def mutate():
        pick = random.Random(3)
        while not stop.is_set():
            item = pick.choice(pool)
            r = pick.random()
            if r < 0.3:
                items.append(item)
            elif r < 0.6 and len(items) > count:
                items.pop()
            else:
                i = pick.randrange(count)
                seen[i].add(digest_of[id(item)])
                items[i] = item

    mutator = threading.Thread(target=mutate)
    mutator.start()
    try:
        for _ in range(16):  # each call reads ~13 MiB while the list changes under it
            try:
                rows = bk.hash_many(items, "sha3_256")
            except RuntimeError as exc:
                assert "changed while being hashed" in str(exc)
                continue
            assert rows.ndim == 2 and rows.shape[0] >= count and rows.shape[1] == 32
            for i, row in enumerate(rows):
                assert row.tobytes() in (seen[i] if i < count else anywhere), i
    finally:
        stop.set()
        mutator.join()


def test_a_list_grown_while_its_one_shot_digests_are_computed_keeps_its_count(monkeypatch):
    # The step between taking the count and reading the items, made deterministic: the first
    # digest appends to the list (as another thread may while hashlib has the GIL released).
    from batchkeccak.core import executor
    from batchkeccak.core.dispatch import forced_backend

    messages = [bytes([i]) * 300 for i in range(10)]
    expected = [sha3(m) for m in messages]
    real = executor.Executor.digest

    def digest(self):
        function = real(self)

        def first_grows_the_list(message):
            if len(messages) == 10:
                messages.extend([b"late"] * 3)
            return function(message)

        return first_grows_the_list

    monkeypatch.setattr(executor.Executor, "digest", digest)
    with forced_backend("oneshot"):
        got = bk.hash_many(messages, "sha3_256", threads=1)
    assert [row.tobytes() for row in got] == expected


def test_a_list_grown_after_its_sizes_are_measured_keeps_its_count(monkeypatch):
    # A mode's long items: measured once (the threads' shares cut by bytes), then copied by
    # the threads. The list grows between the two: the result still has the measured count.
    from Crypto.Hash import KMAC256

    from batchkeccak.core.dispatch import forced_backend
    from batchkeccak.inputs import _pylist

    key = b"k" * 32
    messages = [bytes([i]) * n for i, n in enumerate([0, 70_000] * 16)]
    expected = [KMAC256.new(key=key, mac_len=32).update(m).digest() for m in messages]
    real = _pylist.bytes_places

    def places_then_grow(sequence, *args):
        result = real(sequence, *args)
        sequence.extend([b"late" * 100] * 5)
        return result

    monkeypatch.setattr(_pylist, "bytes_places", places_then_grow)
    with forced_backend("kernels"):
        got = bk.hash_many(messages, "kmac_256", key=key, length=32, threads=2)
    assert [row.tobytes() for row in got] == expected


@pytest.mark.every_backend
@pytest.mark.parametrize("threads", [1, 2])
def test_a_few_long_items_of_a_mode_are_copied_on_every_thread(threads, backend_policy):
    from Crypto.Hash import KMAC256

    key = b"k" * 32
    rng = np.random.default_rng(4)
    messages = [rng.integers(0, 256, n, dtype=np.uint8).tobytes() for n in [0, 70_000] * 32]
    got = bk.hash_many(messages, "kmac_256", key=key, length=32, threads=threads)
    expected = [KMAC256.new(key=key, mac_len=32).update(m).digest() for m in messages]
    assert [row.tobytes() for row in got] == expected
