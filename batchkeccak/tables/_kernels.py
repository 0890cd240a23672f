"""Numba kernels of the table diff: the walk of two sorted sides (``join``) and the
escaping of variable-length key columns (``keys``)."""

from __future__ import annotations

from batchkeccak.native.jit import njit
from batchkeccak.native.words import load_le64


@njit(cache=True, nogil=True)
def append_key_part(encoded, positions, data, offsets, escape):
    # One key column of every row: its bytes, with zero bytes escaped and a terminator
    # where the column is followed by another variable-length one.
    for row in range(positions.shape[0]):
        pos = positions[row]
        for b in range(offsets[row], offsets[row + 1]):
            value = data[b]
            encoded[pos] = value
            pos += 1
            if escape and value == 0:
                encoded[pos] = 0xFF
                pos += 1
        if escape:
            encoded[pos] = 0
            encoded[pos + 1] = 0
            pos += 2
        positions[row] = pos


@njit(cache=True, nogil=True)
def unescape_part(data, positions, out, out_offsets):
    # The inverse of an escaped column: bytes up to the 0x00 0x00 terminator, 0x00 0xFF
    # read as one 0x00. Moves each row's position past the terminator.
    written = 0
    for row in range(positions.shape[0]):
        pos = positions[row]
        while True:
            value = data[pos]
            if value == 0:
                if data[pos + 1] == 0:
                    pos += 2
                    break
                pos += 1  # 0x00 0xFF: an escaped zero byte
            out[written] = value
            written += 1
            pos += 1
        positions[row] = pos
        out_offsets[row + 1] = written


@njit(cache=True, nogil=True)
def walk(words_a, words_b, digests_a, digests_b, start_a, start_b, a_done, b_done, rows_a, rows_b):
    # Advances through both blocks from (start_a, start_b) in key order until a block that is
    # not its stream's last runs out or the output is full. A key only in a is written as
    # (row in a, -1), only in b as (-1, row in b), in both with other digests as (row, row).
    count_a, count_b = words_a.shape[0], words_b.shape[0]
    width, digest_width = words_a.shape[1], digests_a.shape[1]
    if digests_a.shape[0] < count_a or digests_b.shape[0] < count_b:
        raise ValueError("walk: fewer digests than keys")
    if digests_b.shape[1] != digest_width:
        raise ValueError("walk: the two sides' digests differ in width")
    flat_a, flat_b = digests_a.reshape(-1), digests_b.reshape(-1)
    i, j, written, matched = start_a, start_b, 0, 0
    while written < rows_a.shape[0]:
        if i == count_a:
            if not a_done or j == count_b:
                break
            rows_a[written], rows_b[written] = -1, j
            written += 1
            j += 1
            continue
        if j == count_b:
            if not b_done:
                break
            rows_a[written], rows_b[written] = i, -1
            written += 1
            i += 1
            continue
        order = 0
        for w in range(width):
            if words_a[i, w] != words_b[j, w]:
                order = -1 if words_a[i, w] < words_b[j, w] else 1
                break
        if order < 0:
            rows_a[written], rows_b[written] = i, -1
            written += 1
            i += 1
        elif order > 0:
            rows_a[written], rows_b[written] = -1, j
            written += 1
            j += 1
        else:
            matched += 1
            if digests_differ(flat_a, i * digest_width, flat_b, j * digest_width, digest_width):
                rows_a[written], rows_b[written] = i, j
                written += 1
            i += 1
            j += 1
    return written, matched, i, j


@njit(cache=True, nogil=True)
def digests_differ(flat_a, at_a, flat_b, at_b, width):
    # A word at a time (a byte loop cost a third of the walk), then the last bytes.
    k = 0
    while k + 8 <= width:
        if load_le64(flat_a, at_a + k) != load_le64(flat_b, at_b + k):
            return True
        k += 8
    while k < width:
        if flat_a[at_a + k] != flat_b[at_b + k]:
            return True
        k += 1
    return False
