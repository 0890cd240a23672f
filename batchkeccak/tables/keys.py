"""Row keys as bytes whose byte order is the keys' order, and back.

One encoded key per row puts every key type (and several key columns) behind one comparison:
runs are sorted, merged, cut into ranges and matched between two tables by comparing bytes,
and two machines agree on that order without sharing code. A key of several columns is the
concatenation of each column's encoding, in the order the columns are named:

- signed integers (any width), dates, times, timestamps and durations: the value as a 64-bit
  integer with its sign bit flipped, big-endian (so -1 < 0 < 1 byte for byte);
- unsigned integers (any width): the value as a 64-bit big-endian integer;
- booleans: one byte, ``0x00`` or ``0x01``;
- strings (UTF-8 bytes) and binary values: the bytes themselves when the column is the last
  of the key; before another column, every ``0x00`` byte is written ``0x00 0xFF`` and the
  value ends with ``0x00 0x00``, so that a value never runs into the next column and a
  shorter value sorts first.

Strings therefore sort by their UTF-8 bytes (which is code point order), integers by value.
Integer keys of different widths (``int32`` in one table, ``int64`` in the other) encode
alike; a signed and an unsigned key do not, and are refused. Floating-point keys are refused
(``-0.0`` and ``0.0``, or NaNs, compare in ways that make a poor key); so are null keys.
"""

from __future__ import annotations

import bisect
import sys
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from batchkeccak.inputs import check_flat
from batchkeccak.inputs.arrow_buffers import value_buffers
from batchkeccak.inputs.arrow_types import key_kind, normalize, type_rule
from batchkeccak.tables._kernels import append_key_part, unescape_part
from batchkeccak.tables.sources import TableSource

SIGN_BIT = np.uint64(1 << 63)


@dataclass(frozen=True)
class KeyPart:
    """One key column: how it encodes, and the type its decoded values take."""

    name: str
    kind: str
    """``int``, ``uint``, ``bool``, ``string``, ``binary``, or a temporal type's logical name
    (:func:`batchkeccak.inputs.arrow_types.key_kind`)."""
    width: int
    """Bytes of the encoding, or 0 for strings and binary values (variable length)."""
    arrow_type: pa.DataType
    """The column's type (a dictionary's value type)."""


def key_names(key: object) -> list[str]:
    """``key`` (a column name or a sequence of them) as a non-empty list of names."""
    if isinstance(key, str):
        return [key]
    if isinstance(key, (bytes, bytearray)) or not isinstance(key, Sequence):
        raise TypeError(
            f"key must be a column name or a list of column names, got {type(key).__name__}"
        )
    names = list(key)
    if not names:
        raise ValueError("key must name at least one column")
    for name in names:
        if not isinstance(name, str):
            raise TypeError(f"key must be column names (str), got {type(name).__name__}")
    if len(set(names)) != len(names):
        raise ValueError(f"key names a column twice: {names}")
    return names


def key_part(name: str, arrow_type: pa.DataType, argument: str) -> KeyPart:
    """The encoding of key column ``name``; TypeError for a type that makes no key."""
    kind = key_kind(arrow_type)
    if pa.types.is_dictionary(arrow_type):
        arrow_type = arrow_type.value_type
    if kind is not None:
        width = {"string": 0, "binary": 0, "bool": 1}.get(kind, 8)
        return KeyPart(name, kind, width, arrow_type)
    nested = getattr(type_rule(arrow_type), "layout", None) == "nested"
    raise TypeError(
        f"{argument}: key column {name!r} has type {arrow_type}"
        + (" (a nested type, never a key: its values have no order)" if nested else "")
        + "; a key must be integers, strings, binary values, booleans, dates, times, "
        "timestamps or durations"
    )


@dataclass(frozen=True)
class KeyEncoder:
    """The key columns of one source and their encoding."""

    parts: tuple[KeyPart, ...]
    argument: str

    @classmethod
    def of(cls, source: TableSource, names: list[str]) -> KeyEncoder:
        source.check_columns(names, "key")
        parts = tuple(key_part(n, source.schema.field(n).type, source.argument) for n in names)
        return cls(parts, source.argument)

    @property
    def names(self) -> list[str]:
        return [part.name for part in self.parts]

    @property
    def fixed_width(self) -> int:
        """Bytes of every encoded key, or 0 when keys vary in length."""
        if any(part.width == 0 for part in self.parts):
            return 0
        return sum(part.width for part in self.parts)

    @property
    def key_type(self) -> pa.DataType:
        """The Arrow type of the encoded keys."""
        width = self.fixed_width
        return pa.binary(width) if width else pa.large_binary()

    def check_matches(self, other: KeyEncoder) -> None:
        """ValueError where the two sources' keys would not compare (kinds differ)."""
        for mine, theirs in zip(self.parts, other.parts):
            if mine.kind != theirs.kind:
                raise ValueError(
                    f"key column {mine.name!r} is {mine.arrow_type} in {self.argument} and "
                    f"{theirs.arrow_type} in {other.argument}: keys of these types do not "
                    "compare; cast one side"
                )

    def encode(self, batch: pa.RecordBatch) -> pa.Array:
        """The encoded key of every row of ``batch`` (which holds the key columns)."""
        count = batch.num_rows
        pieces = []
        for position, part in enumerate(self.parts):
            # Decoded first: a dictionary's null entries are null keys too.
            column = normalize(batch.column(part.name))
            if column.null_count:
                raise ValueError(
                    f"{self.argument}: key column {part.name!r} holds {column.null_count} null "
                    "value(s); a row without a key cannot be matched (filter or fill them first)"
                )
            escape = part.width == 0 and position < len(self.parts) - 1
            pieces.append((*_part_bytes(column, part), escape))
        if len(pieces) == 1 and not pieces[0][2]:
            data, offsets, _ = pieces[0]
            return _as_key_array(data, offsets, count, self.fixed_width)
        return _join_parts(pieces, count, self.fixed_width)

    def decode(self, keys: pa.Array, output_types: Sequence[pa.DataType]) -> list[pa.Array]:
        """The key columns, each as ``output_types[k]``, of encoded ``keys``."""
        count = len(keys)
        data, offsets = value_buffers(keys, "keys")
        positions = offsets[:-1].copy()
        columns = []
        for position, (part, out_type) in enumerate(zip(self.parts, output_types)):
            if part.width:
                values = _decode_fixed(data, positions, part)
                positions += part.width
            elif position < len(self.parts) - 1:
                out = np.empty(int(offsets[-1] - offsets[0]), dtype=np.uint8)
                out_offsets = np.zeros(count + 1, dtype=np.int64)
                unescape_part(data, positions, out, out_offsets)
                values = _binary_array(out[: out_offsets[-1]], out_offsets)
            else:  # the last column, unescaped: the rest of each key
                values = _gather(data, positions, offsets[1:])
            columns.append(_as_output(values, part, out_type))
        return columns


def _storage_integers(column: pa.Array) -> np.ndarray:
    """The integers behind an integer or temporal column, as int64 (uint64 for unsigned)."""
    width = column.type.byte_width
    if pa.types.is_unsigned_integer(column.type):
        dtype = np.dtype(f"u{width}")
    else:
        dtype = np.dtype(f"i{width}")
    values = np.frombuffer(column.buffers()[1], dtype=dtype, count=column.offset + len(column))
    values = values[column.offset :]
    return values.astype(np.uint64 if dtype.kind == "u" else np.int64)


def _part_bytes(column: pa.Array, part: KeyPart) -> tuple[np.ndarray, np.ndarray]:
    """(data, offsets) of one key column's encoding, row by row."""
    count = len(column)
    if part.width == 0:
        return value_buffers(column, part.name)
    if part.kind == "bool":
        data = pc.cast(column, pa.uint8()).to_numpy(zero_copy_only=False).astype(np.uint8)
    else:
        values = _storage_integers(column)
        if part.kind != "uint":
            values = values.view(np.uint64) ^ SIGN_BIT
        data = values.astype(">u8").view(np.uint8)
    return check_flat(data, np.arange(count + 1, dtype=np.int64) * part.width)


def _as_key_array(data: np.ndarray, offsets: np.ndarray, count: int, width: int) -> pa.Array:
    start = int(offsets[0])
    if width:
        return pa.Array.from_buffers(
            pa.binary(width), count, [None, pa.py_buffer(data[start : start + count * width])]
        )
    return pa.Array.from_buffers(
        pa.large_binary(), count, [None, pa.py_buffer(offsets - start), pa.py_buffer(data[start:])]
    )


def _join_parts(pieces: list, count: int, width: int) -> pa.Array:
    lengths = np.zeros(count, dtype=np.int64)
    for data, offsets, escape in pieces:
        sizes = np.diff(offsets)
        if escape:
            zeros = np.flatnonzero(data[offsets[0] : offsets[-1]] == 0) + offsets[0]
            sizes = sizes + 2 + np.diff(np.searchsorted(zeros, offsets))
        lengths += sizes
    row_offsets = np.zeros(count + 1, dtype=np.int64)
    np.cumsum(lengths, out=row_offsets[1:])
    encoded = np.empty(int(row_offsets[-1]), dtype=np.uint8)
    positions = row_offsets[:-1].copy()
    for data, offsets, escape in pieces:
        append_key_part(encoded, positions, data, offsets, np.int64(escape))
    return _as_key_array(encoded, row_offsets, count, width)


def _binary_array(data: np.ndarray, offsets: np.ndarray) -> pa.Array:
    count = offsets.shape[0] - 1
    return pa.Array.from_buffers(
        pa.large_binary(), count, [None, pa.py_buffer(offsets), pa.py_buffer(data)]
    )


def _gather(data: np.ndarray, starts: np.ndarray, ends: np.ndarray) -> pa.Array:
    """``data[starts[i]:ends[i]]`` of every row, as a large_binary array."""
    sizes = ends - starts
    offsets = np.zeros(starts.shape[0] + 1, dtype=np.int64)
    np.cumsum(sizes, out=offsets[1:])
    index = np.repeat(starts - offsets[:-1], sizes) + np.arange(int(offsets[-1]))
    return _binary_array(np.ascontiguousarray(data[index]), offsets)


def _decode_fixed(data: np.ndarray, starts: np.ndarray, part: KeyPart) -> np.ndarray:
    raw = np.ascontiguousarray(data[starts[:, None] + np.arange(part.width)])
    if part.kind == "bool":
        return raw[:, 0].astype(bool)
    values = raw.view(">u8")[:, 0].astype(np.uint64)
    return values if part.kind == "uint" else (values ^ SIGN_BIT).view(np.int64)


def _as_output(values: pa.Array | np.ndarray, part: KeyPart, out_type: pa.DataType) -> pa.Array:
    if isinstance(values, np.ndarray):
        if part.kind in ("int", "uint", "bool"):
            return pa.array(values).cast(out_type)
        storage = pa.int32() if out_type.bit_width == 32 else pa.int64()
        return pa.array(values).cast(storage).view(out_type)
    return values.cast(out_type)


# ---------------------------------------------------------------------------------------------
# Order


def fixed_key_bytes(keys: pa.Array) -> np.ndarray:
    """Fixed-width encoded keys as an (N, width) uint8 view of their buffer."""
    width = keys.type.byte_width
    count = len(keys)
    raw = np.frombuffer(keys.buffers()[1], dtype=np.uint8, count=(keys.offset + count) * width)
    return raw[keys.offset * width :].reshape(count, width)


def _big_endian_words(raw: np.ndarray) -> np.ndarray:
    count, width = raw.shape
    words = -(-width // 8)
    if width != 8 * words:
        padded = np.zeros((count, 8 * words), dtype=np.uint8)
        padded[:, :width] = raw
        raw = padded
    return np.ascontiguousarray(raw).view(">u8").astype(np.uint64)


def _first_words(raw: np.ndarray) -> np.ndarray:
    """The first eight bytes of each of the (N, width) keys as a new uint64 array that
    compares as the bytes do (zero-padded below eight bytes)."""
    width = raw.shape[1]
    if width == 0 or width % 8:
        return _big_endian_words(raw[:, :8])[:, 0].copy()
    # One word gathered per row, then swapped in place: a copy of the (N, 8) byte columns
    # moves byte by byte (several times slower).
    words = raw.view(np.uint64)[:, 0].copy()
    if sys.byteorder == "little":
        words.byteswap(inplace=True)
    return words


def key_words(keys: pa.Array) -> np.ndarray:
    """Fixed-width encoded keys as an (N, words) uint64 array that compares row by row in
    the keys' order (big-endian words, zero-padded)."""
    return _big_endian_words(fixed_key_bytes(keys))


SLICE_ROWS = 1 << 20
"""Keys taken at a time by a pass over many (an order check, a sort's bookkeeping): keys out
of order are found after the first slice, and no temporary grows with the keys."""


def keys_ascending(keys: pa.Array) -> bool:
    """Whether encoded ``keys`` are in byte order already (equal neighbours allowed): a table
    stored in key order then needs no sort. True only where the first eight bytes of each
    key show it; False for keys that are not fixed-width (they are sorted)."""
    count = len(keys)
    if count < 2:
        return True
    if not pa.types.is_fixed_size_binary(keys.type):
        return False
    raw = fixed_key_bytes(keys)
    whole = raw.shape[1] <= 8  # the first word is the whole key: equal words, equal keys
    previous = None
    for start in range(0, count, SLICE_ROWS):
        first = _first_words(raw[start : start + SLICE_ROWS])
        if previous is not None:
            first = np.concatenate(([previous], first))
        steps = first[1:] >= first[:-1] if whole else first[1:] > first[:-1]
        if not steps.all():
            return False
        previous = first[-1]
    return True


def _sorted_with_index(words: np.ndarray, index_bits: int) -> np.ndarray:
    """``words`` (uint64, overwritten) with each row's index in place of their low
    ``index_bits`` bits, sorted: the order of the high bits, ties by index, without an
    argsort (numpy sorts plain uint64 values several times faster than it arg-sorts them)."""
    low = np.uint64((1 << index_bits) - 1)
    for start in range(0, words.shape[0], SLICE_ROWS):
        piece = words[start : start + SLICE_ROWS]
        piece &= ~low
        piece |= np.arange(start, start + piece.shape[0], dtype=np.uint64)
    words.sort()
    return words


def digest_order(keys: pa.Array) -> np.ndarray:
    """:func:`key_order` of fixed-width keys whose values spread evenly (digests).

    numpy sorts plain uint64 values several times faster than it arg-sorts them (SIMD), so
    each key's first eight bytes keep their top bits and carry the row's index in the low
    ones: one sort of those words gives the order. Only rows whose kept bits tie (duplicate
    rows, or about one pair in ``2 ** (64 - index bits) / rows`` by chance) are sorted again
    by their whole key, side by side in one call. The work goes a slice at a time, so that
    no temporary as large as the keys is made (first touches of fresh pages cost more than
    the sort here).
    """
    raw = fixed_key_bytes(keys)
    count, width = raw.shape
    index_bits = max(1, (count - 1).bit_length())
    if count < 2 or width < 8 or index_bits > 40:
        return key_order(keys)
    low = np.uint64((1 << index_bits) - 1)
    packed = _sorted_with_index(_first_words(raw), index_bits)
    ties = []  # i where rows i and i + 1 (in sorted order) tie in their kept bits
    for start in range(0, count - 1, SLICE_ROWS):
        piece = packed[start : start + SLICE_ROWS + 1]
        ties.append(np.flatnonzero((piece[1:] ^ piece[:-1]) <= low) + start)
    packed &= low
    order = packed.view(np.int64)
    tied = np.concatenate(ties)
    if tied.shape[0]:
        positions = np.union1d(tied, tied + 1)
        # A group of tied rows starts where a row is not tied to the one before it.
        group = np.cumsum(~np.isin(positions - 1, tied))
        rows = order[positions]
        regrouped = np.lexsort([*_big_endian_words(raw[rows]).T[::-1], group])
        order[positions] = rows[regrouped]
    return order


def key_order(keys: pa.Array, merging: bool = False) -> np.ndarray:
    """Indices that sort ``keys`` (encoded) in byte order.

    ``merging``: ``keys`` is a few sorted runs one after another, which a stable sort merges
    in linear time.
    """
    if not pa.types.is_fixed_size_binary(keys.type):
        return pc.sort_indices(keys).to_numpy()
    raw = fixed_key_bytes(keys)
    # The first eight bytes decide almost every comparison (always, for integer keys and
    # digests): sort by them, and by every word only where two of them tie.
    first = _first_words(raw)
    count = first.shape[0]
    if raw.shape[1] <= 8 and count > 1 and not merging:
        # Keys spanning few values (integers from a range): the key less the smallest, with
        # the row's index below it, fits one word, and one plain sort orders the rows.
        index_bits = (count - 1).bit_length()
        smallest = first.min()
        if int(first.max() - smallest).bit_length() + index_bits <= 64:
            first -= smallest
            first <<= np.uint64(index_bits)
            packed = _sorted_with_index(first, index_bits)
            packed &= np.uint64((1 << index_bits) - 1)
            return packed.view(np.int64)
    order = np.argsort(first, kind="stable" if merging else "quicksort")
    if raw.shape[1] <= 8:
        return order
    ordered = first[order]
    if not np.any(ordered[1:] == ordered[:-1]):
        return order
    return np.lexsort(_big_endian_words(raw).T[::-1])


def equal_neighbours(keys: pa.Array) -> np.ndarray:
    """``result[i]``: sorted ``keys[i]`` equals ``keys[i + 1]`` (N - 1 booleans)."""
    count = len(keys)
    if count < 2:
        return np.zeros(0, dtype=bool)
    if pa.types.is_fixed_size_binary(keys.type):
        raw = fixed_key_bytes(keys)
        if raw.shape[1] % 8 == 0:
            # Equality needs no byte order: the keys' own bytes as words, without a copy.
            words = raw.view(np.uint64)
        else:
            words = key_words(keys)
        return np.all(words[1:] == words[:-1], axis=1)
    same = pc.equal(keys.slice(1), keys.slice(0, count - 1))
    return same.to_numpy(zero_copy_only=False)


def key_bytes(keys: pa.Array, index: int) -> bytes:
    """Encoded key ``index`` as bytes (which compare in the keys' order)."""
    return keys[index].as_py()


def bisect_keys(keys: pa.Array, bound: bytes, start: int = 0, after: bool = True) -> int:
    """In sorted ``keys`` from ``start``: the index of the first key greater than ``bound``
    (``after``), or of the first key not less than it (``after=False``)."""

    class Keys:
        def __getitem__(self, index: int) -> bytes:
            return key_bytes(keys, index)

    search = bisect.bisect_right if after else bisect.bisect_left
    return search(Keys(), bound, lo=start, hi=len(keys))
