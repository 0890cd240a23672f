"""The compiled reader of lists of bytes agrees with the portable join, or stands aside."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

import batchkeccak as bk
from batchkeccak.inputs import _kernels, _pylist

from oracles import oracle

pytestmark = pytest.mark.every_backend  # every oracle test on every backend policy


@pytest.mark.skipif(not _pylist.layout_matches(), reason="interpreter layout not supported")
@given(st.lists(st.binary(max_size=300), max_size=50), st.booleans())
def test_fast_path_equals_join(messages, as_tuple):
    sequence = tuple(messages) if as_tuple else messages
    data, offsets = _pylist.flatten_bytes(sequence)
    assert data.tobytes() == b"".join(messages)
    assert offsets.tolist() == np.cumsum([0, *map(len, messages)]).tolist()


class BytesSubclass(bytes):
    pass


@pytest.mark.parametrize(
    "sequence",
    [
        [b"a", bytearray(b"b")],
        [b"a", memoryview(b"b")],
        [b"a", BytesSubclass(b"b")],
        [b"a", np.frombuffer(b"b", np.uint8)],
        [b"a", "b"],
        [b"a", None],
    ],
)
def test_anything_but_plain_bytes_takes_the_portable_path(sequence):
    assert _pylist.flatten_bytes(sequence) is None


def test_other_containers_are_not_read():
    class MyList(list):
        pass

    assert _pylist.flatten_bytes(MyList([b"a"])) is None
    assert _pylist.flatten_bytes(iter([b"a"])) is None


def test_mixed_lists_still_hash_correctly():
    messages = [b"a" * 200, bytearray(b"b"), BytesSubclass(b"c" * 137), b""]
    got = bk.hash_many(messages, "keccak_256")
    assert [row.tobytes() for row in got] == [oracle("keccak_256", bytes(m)) for m in messages]


@pytest.mark.skipif(not _pylist.layout_matches(), reason="interpreter layout not supported")
@pytest.mark.parametrize("size", [0, 1, 32, 64, 65, 1000])
def test_one_pass_and_two_pass_copies(size):
    # Up to 64 bytes per item on average the bytes are copied while the sizes are read; past
    # that the first buffer is too small and a second pass copies into one of the right size.
    messages = [bytes([i % 251]) * size for i in range(300)] + [b"tail"]
    data, offsets = _pylist.flatten_bytes(messages)
    assert data.tobytes() == b"".join(messages)
    assert offsets.tolist() == np.cumsum([0, *map(len, messages)]).tolist()


@pytest.mark.skipif(not _pylist.layout_matches(), reason="interpreter layout not supported")
@given(st.lists(st.binary(max_size=200), min_size=1, max_size=60), st.data(), st.booleans())
def test_a_range_of_items_equals_the_join_of_the_slice(messages, data, as_tuple):
    start = data.draw(st.integers(0, len(messages)))
    stop = data.draw(st.integers(start, len(messages)))
    sequence = tuple(messages) if as_tuple else messages
    flat, offsets = _pylist.flatten_bytes(sequence, start, stop)
    assert flat.tobytes() == b"".join(messages[start:stop])
    assert offsets.tolist() == np.cumsum([0, *map(len, messages[start:stop])]).tolist()


@pytest.mark.skipif(not _pylist.layout_matches(), reason="interpreter layout not supported")
@pytest.mark.parametrize("size", [10, 1000])  # one pass, and the measure-then-gather pair
def test_a_list_shorter_than_the_range_is_an_error(size):
    # The container's size is read inside the compiled call, where no other thread can
    # change it: a range past the end is refused rather than read.
    messages = [b"m" * size] * 40
    with pytest.raises(RuntimeError, match="changed while being hashed"):
        _pylist.flatten_bytes(messages, 10, 41)


@pytest.mark.skipif(not _pylist.layout_matches(), reason="interpreter layout not supported")
def test_the_second_pass_refuses_items_that_changed_since_they_were_measured():
    measured = [b"a" * 100, b"b" * 100, b"c" * 100]
    offsets = np.array([0, 100, 200, 300], dtype=np.int64)
    data = np.empty(300, dtype=np.uint8)

    addresses = np.zeros(4, dtype=np.int64)

    def gather(container, is_tuple, start, stop, bytes_type, offsets, data):
        # The second pass checks each item against its measured size and records where its
        # bytes lie; gather then copies them (without the GIL).
        text_type = 0  # bytes only
        return _kernels.measure_and_copy(
            container,
            is_tuple,
            start,
            stop,
            bytes_type,
            text_type,
            offsets,
            data,
            True,
            addresses,
        )

    assert gather(id(measured), False, 0, 3, id(bytes), offsets, data) == 0
    _kernels.gather(addresses[:3], offsets, data)
    assert data.tobytes() == b"".join(measured)
    replaced = [b"a" * 100, b"b" * 40, b"c" * 100]  # same count, one item of another size
    assert gather(id(replaced), False, 0, 3, id(bytes), offsets, data) == _kernels.CHANGED
    retyped = [b"a" * 100, bytearray(b"b" * 100), b"c" * 100]
    assert gather(id(retyped), False, 0, 3, id(bytes), offsets, data) == _kernels.CHANGED
    assert gather(id(measured), False, 0, 4, id(bytes), offsets, data) == _kernels.CHANGED
