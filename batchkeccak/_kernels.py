"""The compiled functions of the top-level modules (``arrow.py``): digests written out as hex
characters, and the row encoding of ``hash_rows`` written field by field.

The row encoding of a field: ``ROW_NULL_TAG`` for a null; else ``ROW_VALUE_TAG``, the value's
length in ``ROW_LENGTH_BYTES`` bytes (unsigned, little-endian), and its bytes. A nested value
(a list, a map, a struct) is one such field whose bytes are its elements' fields. The
buffers are read as :mod:`batchkeccak.arrow` lays them out; every kernel checks them as it
reads them and returns False rather than read or write out of bounds.
"""

from __future__ import annotations

import numpy as np

from batchkeccak.native.jit import njit
from batchkeccak.native.words import load_le64, store_le64

ROW_NULL_TAG = 0x00
"""The one byte a null field is encoded as."""
ROW_VALUE_TAG = 0x01
"""The byte that starts a present field, followed by its length and its bytes."""
ROW_LENGTH_BYTES = 8
"""Width of a present field's length prefix (unsigned, little-endian)."""


@njit(cache=True, nogil=True)
def hex_bytes(span, flat_digests, characters):
    # Digits by arithmetic rather than a table lookup: LLVM turns this loop into SIMD code
    # (measured 5x faster than a 256-entry table), given indices it can see are never
    # negative, hence the slices. span = [first, stop) in digest bytes.
    source = flat_digests[span[0] : span[1]]
    target = characters[2 * span[0] : 2 * span[1]]
    for i in range(source.shape[0]):
        high = source[i] >> 4
        low = source[i] & 15
        target[2 * i] = high + (48 if high < 10 else 87)  # '0'..'9', 'a'..'f'
        target[2 * i + 1] = low + (48 if low < 10 else 87)


@njit(cache=True, nogil=True)
def encode_field(encoded, positions, present, first_bit, data, offsets, width, write):
    # One field of every row: moves ``positions[row]`` past the row's field, and with
    # ``write`` writes it there (tag, then if present 8-byte little-endian length and bytes).
    # Without ``write`` it only measures: positions that start at 0 end at the rows' lengths.
    # Every buffer is checked as it is read, in both passes (False where a value lies outside
    # ``data`` or would be written outside ``encoded``).
    # Fields are written one column at a time, so a copy must not write past its value's end
    # (the next row's first field is already there): values of 8 bytes or more are copied a
    # word at a time, the last word overlapping the one before it.
    count = positions.shape[0]
    every_row = present.shape[0] == 0
    fixed = offsets.shape[0] == 0
    if not every_row and first_bit + count > 8 * present.shape[0]:
        return False
    if (fixed and count * width > data.shape[0]) or (not fixed and offsets.shape[0] < count + 1):
        return False
    end = encoded.shape[0]
    for row in range(count):
        pos = positions[row]
        bit = first_bit + row
        if not every_row and (present[bit >> 3] >> (bit & 7)) & 1 == 0:
            if write:
                if pos < 0 or pos >= end:
                    return False
                encoded[pos] = ROW_NULL_TAG
            positions[row] = pos + 1
            continue
        if fixed:
            start, size = row * width, width
        else:
            start, size = offsets[row], offsets[row + 1] - offsets[row]
            if start < 0 or size < 0 or start + size > data.shape[0]:
                return False
        if write:
            if pos < 0 or pos + 1 + ROW_LENGTH_BYTES + size > end:
                return False
            encoded[pos] = ROW_VALUE_TAG
            store_le64(encoded, pos + 1, np.uint64(size))  # ROW_LENGTH_BYTES
            value_at = pos + 1 + ROW_LENGTH_BYTES
            if size >= 8:
                copied = 0
                while copied < size - 8:
                    store_le64(encoded, value_at + copied, load_le64(data, start + copied))
                    copied += 8
                last = size - 8
                store_le64(encoded, value_at + last, load_le64(data, start + last))
            else:
                for b in range(size):
                    encoded[value_at + b] = data[start + b]
        positions[row] = pos + 1 + ROW_LENGTH_BYTES + size
    return True


@njit(cache=True, nogil=True)
def encode_shallow_field(
    encoded, positions, present, first_bit, elements, lengths, children,
    present_a, first_a, data_a, offsets_a, width_a,
    present_b, first_b, data_b, offsets_b, width_b, write,
):  # fmt: skip
    # One nested field of every row whose value is its elements ``elements[row]`` to
    # ``elements[row + 1]`` of one child (a list) or two (a map's keys and values, a struct's
    # two fields, whose elements are its rows), each element's fields written straight from
    # the children's buffers: no scratch encoding of the children. Without ``write`` it
    # measures, as encode_field does, and keeps each present row's value length in
    # ``lengths`` for the writing pass. False where a buffer is too short.
    count = positions.shape[0]
    every_row = present.shape[0] == 0
    if not every_row and first_bit + count > 8 * present.shape[0]:
        return False
    if elements.shape[0] < count + 1:
        return False
    every_a, fixed_a = present_a.shape[0] == 0, offsets_a.shape[0] == 0
    every_b, fixed_b = present_b.shape[0] == 0, offsets_b.shape[0] == 0
    end = encoded.shape[0]
    for row in range(count):
        pos = positions[row]
        bit = first_bit + row
        if not every_row and (present[bit >> 3] >> (bit & 7)) & 1 == 0:
            if write:
                if pos < 0 or pos >= end:
                    return False
                encoded[pos] = ROW_NULL_TAG
            positions[row] = pos + 1
            continue
        first, last = elements[row], elements[row + 1]
        if first < 0 or last < first:
            return False
        if not write:
            length = 0
            for at in range(first, last):  # spelled out per child, as below
                bit_a = first_a + at
                if not every_a and (present_a[bit_a >> 3] >> (bit_a & 7)) & 1 == 0:
                    length += 1
                else:
                    size = width_a if fixed_a else offsets_a[at + 1] - offsets_a[at]
                    if size < 0:
                        return False
                    length += 1 + ROW_LENGTH_BYTES + size
                if children == 2:
                    bit_b = first_b + at
                    if not every_b and (present_b[bit_b >> 3] >> (bit_b & 7)) & 1 == 0:
                        length += 1
                    else:
                        size = width_b if fixed_b else offsets_b[at + 1] - offsets_b[at]
                        if size < 0:
                            return False
                        length += 1 + ROW_LENGTH_BYTES + size
            lengths[row] = length
            positions[row] = pos + 1 + ROW_LENGTH_BYTES + length
            continue
        length = lengths[row]
        if pos < 0 or pos + 1 + ROW_LENGTH_BYTES + length > end:
            return False
        encoded[pos] = ROW_VALUE_TAG
        store_le64(encoded, pos + 1, np.uint64(length))  # ROW_LENGTH_BYTES
        at_pos = pos + 1 + ROW_LENGTH_BYTES
        stop = at_pos + length
        # The element fields, written as encode_field writes a field, spelled out once per
        # child (a call per element, even inlined, cost 4x here). A value under 8 bytes is
        # copied as one word where the word ends before ``stop``: the bytes past it belong to
        # this nested value's next fields, written after it, in order.
        for at in range(first, last):
            bit_a = first_a + at
            if not every_a and (present_a[bit_a >> 3] >> (bit_a & 7)) & 1 == 0:
                if at_pos >= stop:
                    return False
                encoded[at_pos] = ROW_NULL_TAG
                at_pos += 1
            else:
                if fixed_a:
                    start, size = at * width_a, width_a
                else:
                    start, size = offsets_a[at], offsets_a[at + 1] - offsets_a[at]
                value_at = at_pos + 1 + ROW_LENGTH_BYTES
                if (
                    start < 0
                    or size < 0
                    or start + size > data_a.shape[0]
                    or value_at + size > stop
                ):
                    return False
                encoded[at_pos] = ROW_VALUE_TAG
                store_le64(encoded, at_pos + 1, np.uint64(size))  # ROW_LENGTH_BYTES
                if size >= 8:
                    copied = 0
                    while copied < size - 8:
                        store_le64(encoded, value_at + copied, load_le64(data_a, start + copied))
                        copied += 8
                    store_le64(encoded, value_at + size - 8, load_le64(data_a, start + size - 8))
                elif value_at + 8 <= stop and start + 8 <= data_a.shape[0]:
                    store_le64(encoded, value_at, load_le64(data_a, start))  # one word: see above
                else:
                    for b in range(size):
                        encoded[value_at + b] = data_a[start + b]
                at_pos = value_at + size
            if children == 2:
                bit_b = first_b + at
                if not every_b and (present_b[bit_b >> 3] >> (bit_b & 7)) & 1 == 0:
                    if at_pos >= stop:
                        return False
                    encoded[at_pos] = ROW_NULL_TAG
                    at_pos += 1
                else:
                    if fixed_b:
                        start, size = at * width_b, width_b
                    else:
                        start, size = offsets_b[at], offsets_b[at + 1] - offsets_b[at]
                    value_at = at_pos + 1 + ROW_LENGTH_BYTES
                    if (
                        start < 0
                        or size < 0
                        or start + size > data_b.shape[0]
                        or value_at + size > stop
                    ):
                        return False
                    encoded[at_pos] = ROW_VALUE_TAG
                    store_le64(encoded, at_pos + 1, np.uint64(size))  # ROW_LENGTH_BYTES
                    if size >= 8:
                        copied = 0
                        while copied < size - 8:
                            store_le64(
                                encoded, value_at + copied, load_le64(data_b, start + copied)
                            )
                            copied += 8
                        store_le64(
                            encoded, value_at + size - 8, load_le64(data_b, start + size - 8)
                        )
                    elif value_at + 8 <= stop and start + 8 <= data_b.shape[0]:
                        store_le64(
                            encoded, value_at, load_le64(data_b, start)
                        )  # one word: see above
                    else:
                        for b in range(size):
                            encoded[value_at + b] = data_b[start + b]
                    at_pos = value_at + size
        if at_pos != stop:
            return False
        positions[row] = stop
    return True
