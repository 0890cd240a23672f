"""The compiled list reader's newer paths against hashlib and plain models written here:
the equal-length report ``hash_many`` trusts, the kept per-thread copy buffer, numpy object
arrays read through their item pointers (pandas object columns) and hex text decoded where
CPython keeps it (``checksum_addresses``). Lengths go around the word copy (8 and 64 bytes),
the reader's guessed room (64 bytes an item), SHA3-256's block (136 B) and a tile (32).
"""

from __future__ import annotations

import hashlib

import numpy as np
import pandas as pd
import pytest
from Crypto.Hash import keccak

import batchkeccak as bk
import batchkeccak.pandas  # the accessor
from batchkeccak.ethereum import checksum_addresses
from batchkeccak.inputs import _kernels, _pylist
from batchkeccak.inputs.sequences import COMPILED_READ_MIN

pytestmark = [
    pytest.mark.every_backend,
    pytest.mark.skipif(not _pylist.layout_matches(), reason="interpreter layout not supported"),
]

LENGTHS = [0, 1, 7, 8, 9, 31, 32, 33, 63, 64, 65, 135, 136, 137, 300]


def sha3(message: bytes) -> bytes:
    return hashlib.sha3_256(message).digest()


def items(count: int, length: int, seed: int = 0) -> list[bytes]:
    rng = np.random.default_rng(seed * 1000 + length)
    return [rng.bytes(length) for _ in range(count)]


@pytest.mark.parametrize("length", LENGTHS)
@pytest.mark.parametrize("count", [COMPILED_READ_MIN, 100])
def test_the_reader_says_whether_every_length_is_equal(length, count):
    same = items(count, length)
    data, offsets, equal = _pylist.read_flat(same)  # type: ignore[misc]
    assert equal and data.tobytes() == b"".join(same)
    assert offsets.tolist() == [length * i for i in range(count + 1)]
    for odd in (0, count // 2, count - 1):  # one item of another length: first, middle, last
        other = list(same)
        other[odd] = other[odd] + b"x"
        data, offsets, equal = _pylist.read_flat(other)  # type: ignore[misc]
        assert not equal and data.tobytes() == b"".join(other)
        assert offsets.tolist() == np.cumsum([0, *map(len, other)]).tolist()


@pytest.mark.parametrize("length", [31, 32, 33, 135, 136])
@pytest.mark.parametrize("threads", [1, 2])
def test_hash_many_of_lists_of_one_length_but_one(length, threads):
    # Equal single-block rows take the uniform tiles; one item longer or shorter anywhere
    # must send the list down the general path (the reader's report, not a guess).
    count = 4096
    messages = items(count, length, seed=1)
    for odd, extra in ((count - 1, b"y"), (0, b""), (2048, b"zz")):
        changed = list(messages)
        changed[odd] = changed[odd][:-1] if not extra else changed[odd] + extra
        got = bk.hash_many(changed, "sha3_256", threads=threads)
        assert [row.tobytes() for row in got] == [sha3(m) for m in changed]
    got = bk.hash_many(messages, "sha3_256", threads=threads)
    assert [row.tobytes() for row in got] == [sha3(m) for m in messages]


def test_the_kept_buffer_never_changes_a_result_already_returned():
    first = items(500, 32, seed=2)
    second = items(700, 40, seed=3)
    digests = bk.hash_many(first, "sha3_256")
    kept, _, _ = _pylist.read_flat(first, reuse=True)  # type: ignore[misc]
    fresh, _, _ = _pylist.read_flat(first)  # type: ignore[misc]
    again = bk.hash_many(second, "sha3_256")
    _pylist.read_flat(second, reuse=True)
    assert [row.tobytes() for row in digests] == [sha3(m) for m in first]
    assert [row.tobytes() for row in again] == [sha3(m) for m in second]
    assert fresh.tobytes() == b"".join(first)  # not the kept buffer: untouched
    assert kept.tobytes() != b"".join(first)  # the kept buffer: overwritten, as documented


@pytest.mark.parametrize("length", LENGTHS)
def test_object_arrays_are_read_through_their_item_pointers(length):
    values = items(100, length, seed=4)
    texts = ["".join(chr(32 + b % 95) for b in v) for v in values]
    mixed = [t if i % 3 else v for i, (t, v) in enumerate(zip(texts, values))]
    for sequence, text in ((values, False), (texts, True), (mixed, True)):
        array = np.empty(len(sequence), dtype=object)
        array[:] = sequence
        data, offsets, equal = _pylist.object_array_flat(array, text=text)  # type: ignore[misc]
        encoded = [s.encode() if isinstance(s, str) else s for s in sequence]
        assert data.tobytes() == b"".join(encoded)
        assert offsets.tolist() == np.cumsum([0, *map(len, encoded)]).tolist()
        assert equal


def test_object_arrays_the_reader_does_not_take():
    array = np.empty(100, dtype=object)
    array[:] = [b"ab"] * 100
    assert _pylist.object_array_flat(array[::2]) is None  # strided: not one item array
    assert _pylist.object_array_flat(array.reshape(10, 10)) is None
    assert _pylist.object_array_flat(np.zeros(100, dtype=np.uint8)) is None
    for other in ("\u00e9", float("nan"), None, bytearray(b"x"), np.uint8(1)):
        with_other = array.copy()
        with_other[57] = other
        assert _pylist.object_array_flat(with_other, text=True) is None
    with_text = array.copy()
    with_text[3] = "ab"
    assert _pylist.object_array_flat(with_text) is None  # str where only bytes are taken
    empty = _pylist.object_array_flat(np.empty(0, dtype=object))
    assert empty is not None and empty[0].size == 0 and empty[1].tolist() == [0]


@pytest.mark.parametrize("length", LENGTHS)
def test_pandas_object_columns_against_hashlib(length):
    values = items(COMPILED_READ_MIN + 36, length, seed=5)
    texts = ["".join(chr(32 + b % 95) for b in v) for v in values]
    for column in (
        texts,
        values,
        [t if i % 2 else v for i, (t, v) in enumerate(zip(texts, values))],
    ):
        series = pd.Series(column, dtype=object)
        expected = [sha3(v.encode() if isinstance(v, str) else v) for v in column]
        assert series.bk.sha3_256().tolist() == expected
        assert series.bk.sha3_256(threads=2).tolist() == expected
        assert series[::2].bk.sha3_256().tolist() == expected[::2]  # strided: Arrow reads it


def eip55(address: str) -> str:
    """EIP-55 from its definition: the lower-case hex's Keccak-256 nibble >= 8 capitalizes."""
    lower = address[2:].lower() if address[:2] in ("0x", "0X") else address.lower()
    nibbles = keccak.new(digest_bits=256, data=lower.encode()).hexdigest()
    return "0x" + "".join(c.upper() if int(n, 16) >= 8 else c for c, n in zip(lower, nibbles))


def addresses(count: int, seed: int = 6) -> list[str]:
    rng = np.random.default_rng(seed)
    forms = []
    for i in range(count):
        digits = rng.bytes(20).hex()
        digits = digits.upper() if i % 5 == 1 else digits
        forms.append(("0x", "0X", "", "0x")[i % 4] + digits)
    return forms


@pytest.mark.parametrize("count", [COMPILED_READ_MIN - 1, COMPILED_READ_MIN, 300])
def test_checksum_addresses_of_hex_text_lists(count):
    forms = addresses(count)
    want = [eip55(a) for a in forms]
    assert checksum_addresses(forms) == want
    assert checksum_addresses(tuple(forms)) == want
    with_nulls = [None if i % 7 == 3 else a for i, a in enumerate(forms)]
    assert checksum_addresses(with_nulls) == [None if a is None else eip55(a) for a in with_nulls]
    assert checksum_addresses([None] * count) == [None] * count


def test_hex_texts_decodes_or_stands_aside():
    forms = addresses(100)
    rows, nulls = _pylist.hex_texts(forms, 40)  # type: ignore[misc]
    assert nulls is None
    assert [r.tobytes() for r in rows] == [bytes.fromhex(a[-40:]) for a in forms]
    for bad in (
        "0x" + "0" * 39 + "g",
        "0y" + "0" * 40,
        "0x" + "0" * 39,
        "0" * 41,
        "0x" + "0" * 39 + "\u00e9",
        b"0" * 40,
        1,
    ):
        assert _pylist.hex_texts([*forms, bad], 40) is None
    assert _pylist.hex_texts(iter(forms), 40) is None


def test_checksum_addresses_errors_name_the_row_past_the_compiled_pass():
    forms = addresses(100)
    for bad in ("0x" + "0" * 39 + "g", "0x" + "0" * 38, "1x" + "0" * 40, b"\x00" * 20, 5):
        wrong = list(forms)
        wrong[70] = bad
        with pytest.raises((ValueError, TypeError), match=r"\[70\]"):
            checksum_addresses(wrong)


def test_a_list_shorter_than_measured_is_refused_by_the_decoder():
    forms = addresses(80)
    rows = np.empty((100, 20), dtype=np.uint8)
    nulls = np.empty(100, dtype=bool)
    got = _kernels.decode_hex_texts(
        id(forms), _kernels.LIST, 100, id(str), id(None), 40, _pylist.NIBBLES, rows, nulls
    )
    assert got == _kernels.CHANGED


def test_an_object_array_changed_between_the_two_passes(monkeypatch):
    # Items longer than the guessed room take a second pass, and the GIL is free between
    # the two: what the second pass reads is what is returned (its lengths, and whether
    # they are equal), or RuntimeError where the total it measured is not the first's.
    real = _kernels.measure_and_copy

    for replacements, total_kept in (
        ({5: b"x" * 50, 6: b"y" * 150}, True),  # same total, lengths no longer equal
        ({5: b"x" * 51}, False),
        ({5: "not bytes"}, False),
    ):
        array = np.empty(100, dtype=object)
        array[:] = items(100, 100, seed=7)
        calls = []

        def replacing(*args, array=array, replacements=replacements, calls=calls):
            result = real(*args)
            if not calls:
                for at, value in replacements.items():
                    array[at] = value
            calls.append(result)
            return result

        monkeypatch.setattr(_kernels, "measure_and_copy", replacing)
        if total_kept:
            data, offsets, equal = _pylist.object_array_flat(array)  # type: ignore[misc]
            assert not equal
            assert data.tobytes() == b"".join(array.tolist())
            assert offsets.tolist() == np.cumsum([0, *map(len, array.tolist())]).tolist()
        else:
            with pytest.raises(RuntimeError, match="changed while being hashed"):
                _pylist.object_array_flat(array)
        monkeypatch.setattr(_kernels, "measure_and_copy", real)


def test_pandas_object_columns_read_in_parts_by_the_hashing_threads():
    # Enough values for two threads: each reads and hashes its parts. A value the reader
    # does not take in a late part sends the whole column through Arrow, with the same
    # digests (a non-ASCII str's UTF-8 bytes) and missing values kept missing.
    rng = np.random.default_rng(8)
    values = [f"v{i}" + "x" * int(n) for i, n in enumerate(rng.integers(0, 150, 5000))]
    expected = [sha3(v.encode()) for v in values]
    series = pd.Series(values, dtype=object)
    assert series.bk.sha3_256(threads=2).tolist() == expected
    assert series.bk.sha3_256(threads=2, hex=True).tolist() == [e.hex() for e in expected]
    for late, want in (("\u00e9t\u00e9", sha3("\u00e9t\u00e9".encode())), (None, None)):
        changed = list(values)
        changed[4900] = late
        got = pd.Series(changed, dtype=object).bk.sha3_256(threads=2).tolist()
        assert got[:4900] == expected[:4900] and got[4901:] == expected[4901:]
        assert pd.isna(got[4900]) if want is None else got[4900] == want
