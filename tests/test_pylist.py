"""The compiled reader of lists of bytes agrees with the portable join, or stands aside."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

import batchkeccak as bk
from batchkeccak import _pylist

from oracles import oracle


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
