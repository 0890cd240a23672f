"""Solidity ABI encoding (``abi.encode``) of rows of values, for OpenZeppelin standard trees.

A standard-tree leaf is ``keccak256(keccak256(abi.encode(types, values)))``. This module
produces the ``abi.encode`` bytes of every row:

- when every type is static and elementary (``address``, ``bool``, ``uintN``, ``intN``,
  ``bytesN``), column by column with numpy: each value is one 32-byte word, so a row is its
  words side by side and a million rows need no Python loop per value once the columns are
  arrays (numpy integer / bool columns, (n, 20) uint8 addresses, Arrow columns);
- otherwise (``string``, ``bytes``, arrays ``T[]`` / ``T[k]``, and columns of mixed value
  types) value by value: each value is checked and brought to one Python form here, then
  ``eth_abi.encode`` (the ``eth-abi`` package, ``pip install 'batchkeccak[merkle]'``) lays
  out the words, heads and tails. The tests check the column path against it.

Values are accepted as the JavaScript library (``@metamask/abi-utils``) accepts them, so dumps
made by either load in the other: integers as ``int`` or decimal / ``0x`` hex strings;
``bool`` as ``True``/``False`` or ``"true"``/``"false"``; ``address``, ``bytesN`` and ``bytes``
as bytes-like objects or ``0x`` hex strings (``bytesN`` values shorter than N bytes are
right-padded with zeros, as both ``abi-utils`` and ``eth-abi`` do); ``string`` as ``str``
(UTF-8 encoded). Tuple types are not supported.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Iterable, Mapping, Sequence, Sized
from dataclasses import dataclass
from decimal import Decimal
from functools import lru_cache
from typing import TypeGuard

import numpy as np

from batchkeccak.merkle._bytes import hex_matrix, hex_to_bytes
from batchkeccak.support.checks import is_int
from batchkeccak.support.extras import engine_import
from batchkeccak.support.hextext import hex_0x

WORD = 32

_BASE = re.compile(r"^(address|bool|string|bytes|bytes([0-9]+)|(u?int)([0-9]*))((\[[0-9]*\])*)$")
_SUFFIX = re.compile(r"\[([0-9]*)\]")

MAX_ARRAY_DEPTH = 32
"""Array dimensions a type may stack (``uint256[][]`` has 2): far past any contract's, and
each one is a level of recursion when a value is checked and encoded."""

_SHOWN_CHARS = 60
_SHOWN_INT_BITS = 256


def _shown(value: object) -> str:
    """``value`` for an error message: its repr, cut short when it is long (a type name or a
    value may be 100 KB; an int past 4,300 digits has no repr at all)."""
    if isinstance(value, int) and value.bit_length() > _SHOWN_INT_BITS:
        return f"an integer of {value.bit_length()} bits"
    if isinstance(value, (str, bytes)) and len(value) > _SHOWN_CHARS:
        return f"{value[:_SHOWN_CHARS]!r}... ({len(value)} characters)"
    return repr(value)


@dataclass(frozen=True)
class AbiType:
    """One parsed ABI type.

    ``kind`` is ``"address"``, ``"bool"``, ``"uint"``, ``"int"``, ``"bytesN"``, ``"bytes"``,
    ``"string"`` or ``"array"``; ``bits`` the width of an integer type, ``size`` the width of a
    ``bytesN``; an array has its ``item`` type and ``length`` (None when dynamic).
    """

    kind: str
    name: str
    bits: int = 0
    size: int = 0
    item: AbiType | None = None
    length: int | None = None

    @property
    def dynamic(self) -> bool:
        """True when the encoding is a head offset plus a tail (bytes, string, T[], ...)."""
        if self.kind in ("bytes", "string"):
            return True
        if self.kind == "array":
            assert self.item is not None
            return self.length is None or self.item.dynamic
        return False

    @property
    def head_size(self) -> int:
        """Bytes this type takes in the head of an enclosing tuple."""
        if self.dynamic:
            return WORD
        if self.kind == "array":
            assert self.item is not None and self.length is not None
            return self.length * self.item.head_size
        return WORD

    @property
    def elementary(self) -> bool:
        """One static 32-byte word: address, bool, uintN, intN, bytesN."""
        return self.kind in ("address", "bool", "uint", "int", "bytesN")


def parse_type(text: str) -> AbiType:
    """Parse an ABI type name such as ``"uint256"``, ``"bytes32"`` or ``"address[]"``.

    Raises
    ------
    TypeError
        For anything but a str.
    ValueError
        For tuples and anything that is not a supported ABI type, spelled as Solidity and
        eth-abi spell it (no spaces, no leading zeros).
    """
    if not isinstance(text, str):
        raise TypeError(f"an ABI type must be a str, got {type(text).__name__}")
    return _parse_type(text)


def _number(digits: str, text: str, what: str, most_digits: int) -> int:
    """The number a type name spells, refused when it has a leading zero or too many
    digits (``int()`` of 4,300 digits and more fails on its own terms)."""
    if len(digits) > 1 and digits[0] == "0":
        raise ValueError(f"unsupported ABI type {_shown(text)}: {what} has a leading zero")
    if len(digits) > most_digits:
        raise ValueError(f"unsupported ABI type {_shown(text)}: {what} of {len(digits)} digits")
    return int(digits)


@lru_cache(maxsize=256)
def _parse_type(text: str) -> AbiType:
    match = _BASE.fullmatch(text)
    if match is None:
        if text.strip() != text and _BASE.match(text.strip()):
            hint = " (no spaces around a type name)"
        elif text.strip().startswith("("):
            hint = " (tuple types are not supported)"
        else:
            hint = ""
        raise ValueError(
            f"unsupported ABI type {_shown(text)}{hint}; expected address, bool, string, bytes, "
            "bytes1..bytes32, uint8..uint256, int8..int256 or an array of these"
        )
    dimensions = _SUFFIX.findall(match.group(5) or "")
    if len(dimensions) > MAX_ARRAY_DEPTH:
        raise ValueError(
            f"unsupported ABI type {_shown(text)}: {len(dimensions)} array dimensions, "
            f"at most {MAX_ARRAY_DEPTH}"
        )
    base, bytes_size, int_kind, int_bits = match.group(1, 2, 3, 4)
    if bytes_size is not None:
        size = _number(bytes_size, text, "the byte count", 2)
        if not 1 <= size <= 32:
            raise ValueError(f"unsupported ABI type {_shown(text)}: bytesN needs 1 <= N <= 32")
        t = AbiType("bytesN", f"bytes{size}", size=size)
    elif int_kind is not None:
        bits = _number(int_bits, text, "the width", 3) if int_bits else 256
        if not (8 <= bits <= 256 and bits % 8 == 0):
            raise ValueError(
                f"unsupported ABI type {_shown(text)}: integer widths are 8..256 in steps of 8"
            )
        t = AbiType(int_kind, f"{int_kind}{bits}", bits=bits)
    else:
        t = AbiType(base, base)
    for length_text in dimensions:
        length = _number(length_text, text, "the array length", 18) if length_text else None
        if length == 0:
            raise ValueError(f"unsupported ABI type {_shown(text)}: fixed arrays need length >= 1")
        t = AbiType("array", f"{t.name}[{length_text}]", item=t, length=length)
    return t


def parse_types(types: object) -> tuple[AbiType, ...]:
    """A non-empty sequence of ABI type names, parsed."""
    if isinstance(types, str) or not isinstance(types, Sequence):
        raise TypeError(
            f"types must be a list of ABI type names such as ['address', 'uint256'], "
            f"got {type(types).__name__}"
        )
    if len(types) == 0:
        raise ValueError("types must name at least one ABI type")
    parsed = []
    for position, text in enumerate(types):
        try:
            parsed.append(parse_type(text))
        except (TypeError, ValueError) as error:
            raise type(error)(f"types[{position}]: {error}") from None
    return tuple(parsed)


# ----------------------------------------------------------------------------------------
# One value at a time


def _int_value(t: AbiType, value: object, where: str) -> int:
    if isinstance(value, (bool, np.bool_)):
        raise TypeError(f"{where} is a bool; {t.name} takes an int")
    if is_int(value):
        number = int(value)
    elif isinstance(value, Decimal) and value.is_finite() and value == value.to_integral_value():
        number = int(value)  # Arrow decimal128/decimal256 columns (wide uints) read as Decimal
    elif isinstance(value, str):
        text = value.strip()
        negative = text.startswith("-")
        digits = text[1:] if negative else text
        try:
            if digits[:2] in ("0x", "0X"):
                number = int(digits, 16)
            elif digits.isascii() and digits.isdigit():
                number = int(digits, 10)
            else:
                raise ValueError
        except ValueError:
            raise ValueError(
                f"{where} = {_shown(value)} is not an integer (decimal or 0x hex) for {t.name}"
            ) from None
        number = -number if negative else number
    else:
        raise TypeError(
            f"{where} is {type(value).__name__}; {t.name} takes an int or a decimal/0x string"
        )
    if t.kind == "uint":
        low, high = 0, (1 << t.bits) - 1
    else:
        low, high = -(1 << (t.bits - 1)), (1 << (t.bits - 1)) - 1
    if not low <= number <= high:
        raise ValueError(f"{where} = {_shown(number)} is out of range for {t.name} [{low}, {high}]")
    return number


def _bytes_value(value: object, where: str, type_name: str) -> bytes:
    if isinstance(value, str):
        if value[:2] not in ("0x", "0X"):
            raise ValueError(
                f"{where} = {value[:40]!r}: a str for {type_name} must be 0x-prefixed hex"
            )
        return hex_to_bytes(value, where)
    if isinstance(value, np.ndarray) and value.dtype != np.uint8:
        raise TypeError(f"{where} must be a uint8 array for {type_name}, got {value.dtype}")
    try:
        return bytes(memoryview(value).cast("B"))  # type: ignore[arg-type]  # probing the buffer protocol: TypeError is caught below
    except TypeError:
        raise TypeError(
            f"{where} is {type(value).__name__}; {type_name} takes bytes or a 0x hex string"
        ) from None


def _bool_value(value: object, where: str) -> bool:
    if isinstance(value, (bool, np.bool_)):
        return bool(value)
    if value == "true" or value == "false":
        return value == "true"
    raise TypeError(
        f"{where} is {_shown(value)}; bool takes True/False or the strings 'true'/'false'"
    )


def _python_value(t: AbiType, value: object, where: str) -> object:
    """``value`` checked against ``t`` and brought to the form ``eth_abi.encode`` takes:
    ``int``, ``bool``, ``bytes`` (20 for an address, at most N for ``bytesN``), ``str``,
    or a list of these."""
    if t.kind in ("uint", "int"):
        return _int_value(t, value, where)
    if t.kind == "bool":
        return _bool_value(value, where)
    if t.kind == "address":
        raw = _bytes_value(value, where, "address")
        if len(raw) != 20:
            raise ValueError(f"{where} must be a 20-byte address, got {len(raw)} bytes")
        return raw
    if t.kind == "bytesN":
        raw = _bytes_value(value, where, t.name)
        if len(raw) > t.size:
            raise ValueError(f"{where} is {len(raw)} bytes, more than {t.name} holds")
        return raw
    if t.kind == "bytes":
        return _bytes_value(value, where, "bytes")
    if t.kind == "string":
        if not isinstance(value, str):
            raise TypeError(f"{where} is {type(value).__name__}; string takes a str")
        return value
    assert t.item is not None
    if isinstance(value, (str, bytes, bytearray)) or not isinstance(value, (Sequence, np.ndarray)):
        raise TypeError(f"{where} is {type(value).__name__}; {t.name} takes a list")
    items = list(value)
    if t.length is not None and len(items) != t.length:
        raise ValueError(f"{where} holds {len(items)} items; {t.name} takes {t.length}")
    return [_python_value(t.item, v, f"{where}[{k}]") for k, v in enumerate(items)]


def _eth_abi_encode():
    """``eth_abi.encode``, imported when first needed: the base install goes without it."""
    with engine_import(
        "merkle",
        "eth-abi to encode these ABI values (dynamic types such as string, bytes and "
        "arrays, or columns of mixed value types)",
    ):
        from eth_abi import encode as eth_abi_encode
    return eth_abi_encode


def _encode_row(types: Sequence[AbiType], row: Sequence[object], where: str) -> bytes:
    """``abi.encode`` of one checked row, by eth-abi."""
    values = [_python_value(t, v, f"{where}[{k}]") for k, (t, v) in enumerate(zip(types, row))]
    return _eth_abi_encode()([t.name for t in types], values)


def _static_words(t: AbiType, values: Sequence[object], where: str) -> np.ndarray:
    """(n, 32) words of elementary values one at a time, by eth-abi: a tuple of static
    values encodes as their words side by side, so one call takes the whole column."""
    checked = [_python_value(t, v, f"{where} row {i}") for i, v in enumerate(values)]
    joined = _eth_abi_encode()([t.name] * len(checked), checked)
    return np.frombuffer(joined, dtype=np.uint8).reshape(len(checked), WORD)


def encode(types: Sequence[str], values: Sequence[object]) -> bytes:
    """``abi.encode(values...)`` for one row, as Solidity and ``@metamask/abi-utils`` do.

    The values are checked and converted here (the JavaScript library's spellings included)
    and encoded by ``eth_abi.encode``, so this needs the ``eth-abi`` package
    (``pip install 'batchkeccak[merkle]'``).

    Parameters
    ----------
    types
        ABI type names, e.g. ``["address", "uint256"]``.
    values
        One value per type.

    Returns
    -------
    bytes
        The encoding: 32 bytes per static value, offsets and tails for dynamic ones.

    Raises
    ------
    ImportError
        When ``eth-abi`` is not installed.

    Examples
    --------
    >>> encode(["uint8", "bool"], [1, True]).hex()[-2:]
    '01'
    """
    parsed = parse_types(types)
    row = _as_row(values, len(parsed), "values")
    return _encode_row(parsed, row, "values")


def _as_row(row: object, width: int, where: str) -> list[object]:
    if isinstance(row, (str, bytes, bytearray, Mapping)) or not isinstance(
        row, (Sequence, np.ndarray)
    ):
        raise TypeError(
            f"{where} must be a list of {width} values (one per type), got {type(row).__name__}"
        )
    items = list(row)
    if len(items) != width:
        raise ValueError(f"{where} holds {len(items)} values but {width} types were given")
    return items


# ----------------------------------------------------------------------------------------
# Whole columns


class Rows:
    """Rows of ABI values from any accepted form, readable by column and by row.

    Accepted: a sequence of rows (each a sequence with one value per type), a mapping of
    column name to column, or a pyarrow ``Table`` / ``RecordBatch`` whose columns are in
    ``types`` order. A column is a list, a numpy array, or a pyarrow array.
    """

    def __init__(self, rows: object, width: int, argument: str = "rows"):
        self.width = width
        self.argument = argument
        self._rows: list[list[object]] | None = None
        self._columns: list[object] | None = None
        module = type(rows).__module__
        if module.startswith("pyarrow") and hasattr(rows, "num_columns"):
            if rows.num_columns != width:
                raise ValueError(
                    f"{argument} has {rows.num_columns} columns but {width} types were given"
                )
            self._columns = [rows.column(k) for k in range(width)]  # type: ignore[attr-defined]  # a pyarrow table or record batch (checked above); pyarrow is untyped
            self.count = rows.num_rows  # type: ignore[attr-defined]  # a pyarrow table or record batch (checked above); pyarrow is untyped
        elif isinstance(rows, Mapping):
            if len(rows) != width:
                raise ValueError(f"{argument} has {len(rows)} columns but {width} types were given")
            for name, column in rows.items():
                # A str or bytes is one value, not a column of its characters or bytes.
                if isinstance(column, (str, bytes, bytearray)) or not isinstance(column, Sized):
                    raise TypeError(
                        f"{argument}[{name!r}] must be a column (a list, a numpy or pyarrow "
                        f"array), got {type(column).__name__}"
                    )
            self._columns = list(rows.values())
            lengths = {len(c) for c in rows.values()}
            if len(lengths) > 1:
                raise ValueError(f"{argument} columns differ in length: {sorted(lengths)}")
            self.count = lengths.pop() if lengths else 0
        elif not isinstance(rows, (str, bytes, bytearray)) and _iterable(rows):
            self._rows = [_as_row(r, width, f"{argument}[{i}]") for i, r in enumerate(rows)]
            self.count = len(self._rows)
        else:
            raise TypeError(
                f"{argument} must be a list of rows, a mapping of columns or a pyarrow "
                f"Table, got {type(rows).__name__}"
            )
        if self._columns is not None:
            for k, column in enumerate(self._columns):
                if getattr(column, "null_count", 0):
                    raise ValueError(f"{argument} column {k} holds nulls; leaves cannot be null")

    def columns(self) -> list[object]:
        """One entry per type: list, numpy array or pyarrow array."""
        if self._columns is None:
            assert self._rows is not None
            if self.count == 0:
                return [[] for _ in range(self.width)]
            return [list(c) for c in zip(*self._rows)]
        return self._columns

    def python_rows(self) -> list[list[object]]:
        """Every row as a list of Python values."""
        if self._rows is not None:
            return self._rows
        columns = [_python_list(c) for c in self._columns]  # type: ignore[union-attr]  # _rows is None: the rows came as columns
        return [list(r) for r in zip(*columns)] if self.count else []

    def row(self, index: int) -> list[object]:
        """Row ``index`` as a list of Python values."""
        if self._rows is not None:
            return list(self._rows[index])
        return [_python_list(c[index : index + 1])[0] for c in self._columns]  # type: ignore[index, union-attr]  # _rows is None: the rows came as columns, each sliceable


def _iterable(value: object) -> TypeGuard[Iterable[object]]:
    try:
        iter(value)  # type: ignore[call-overload]  # probing for iter(): TypeError is caught below
    except TypeError:
        return False
    return True


def _python_list(column: object) -> list[object]:
    if hasattr(column, "to_pylist"):
        return column.to_pylist()
    if isinstance(column, np.ndarray):
        if column.ndim == 2:
            return [bytes(r) for r in column]
        return column.tolist()
    return list(column)  # type: ignore[call-overload]  # what is left is an iterable column (checked where it was taken)


def encode_rows(
    types: Sequence[str], rows: object, argument: str = "rows"
) -> tuple[np.ndarray, np.ndarray]:
    """``abi.encode`` of every row, as flat (data, int64 offsets) messages.

    Parameters
    ----------
    types
        ABI type names, one per column.
    rows
        A sequence of rows, a mapping of columns, or a pyarrow Table / RecordBatch
        (see :class:`Rows`).
    argument
        The argument name used in error messages.

    Returns
    -------
    tuple of numpy.ndarray
        ``(data, offsets)``: row ``i`` encodes to ``data[offsets[i]:offsets[i+1]]``.
    """
    parsed = parse_types(types)
    source = rows if isinstance(rows, Rows) else Rows(rows, len(parsed), argument)
    if all(t.elementary for t in parsed):
        words = encode_static_columns(parsed, source.columns(), source.count, argument)
        width = words.shape[1]
        offsets = np.arange(0, source.count * width + 1, width, dtype=np.int64)
        return words.reshape(-1), offsets
    encoded = [
        _encode_row(parsed, row, f"{argument}[{i}]") for i, row in enumerate(source.python_rows())
    ]
    lengths = np.fromiter(map(len, encoded), np.int64, len(encoded))
    offsets = np.zeros(len(encoded) + 1, dtype=np.int64)
    np.cumsum(lengths, out=offsets[1:])
    return np.frombuffer(b"".join(encoded), dtype=np.uint8), offsets


def encode_static_columns(
    types: Sequence[AbiType], columns: Sequence[object], count: int, argument: str = "rows"
) -> np.ndarray:
    """Rows of static elementary values as an (n, 32 * len(types)) uint8 array."""
    words = np.empty((count, WORD * len(types)), dtype=np.uint8)
    for k, (t, column) in enumerate(zip(types, columns)):
        words[:, WORD * k : WORD * (k + 1)] = _column_words(
            t, column, count, f"{argument} column {k}"
        )
    return words


def _column_words(t: AbiType, column: object, count: int, where: str) -> np.ndarray:
    if t.kind in ("uint", "int") and type(column).__module__.startswith("pyarrow"):
        words = _arrow_decimal_words(t, column, where)
        if words is not None:
            return words
    column = _arrow_column(t, column)
    if len(column) != count:  # type: ignore[arg-type]  # a column: Arrow, numpy or a sequence, all sized
        raise ValueError(f"{where} holds {len(column)} values, expected {count}")  # type: ignore[arg-type]  # a column: Arrow, numpy or a sequence, all sized
    if t.kind in ("uint", "int", "bool") and _all_str(column):
        # Numbers and flags as text (a CSV file, a JSON dump): parsed and range-checked one
        # by one, then encoded with the columns of ints and bools below.
        parse = _bool_value if t.kind == "bool" else functools.partial(_int_value, t)
        column = [parse(v, f"{where} row {i}") for i, v in enumerate(column)]
    if t.kind in ("uint", "int"):
        array = _integer_array(column)
        if array is not None:
            return _integer_words(t, array, where)
        words = _big_integer_words(t, column, where)
        if words is not None:
            return words
    elif t.kind == "bool":
        if isinstance(column, np.ndarray) and column.dtype == np.bool_:
            flags = column
        elif isinstance(column, Sequence) and set(map(type, column)) <= {bool, np.bool_}:
            flags = np.array(column, dtype=np.bool_)
        else:
            flags = None
        if flags is not None:
            words = np.zeros((count, WORD), dtype=np.uint8)
            words[:, WORD - 1] = flags
            return words
    else:
        width = 20 if t.kind == "address" else t.size
        raw = _fixed_bytes(column, width, t.kind == "address", where)
        if raw is not None:
            words = np.zeros((count, WORD), dtype=np.uint8)
            if t.kind == "address":
                words[:, WORD - 20 :] = raw
            else:
                words[:, : raw.shape[1]] = raw
            return words
    # Mixed or unusual value types: one value at a time, with the per-value checks.
    return _static_words(t, _python_list(column), where)


def _all_str(column: object) -> TypeGuard[Sequence[str]]:
    return isinstance(column, Sequence) and len(column) > 0 and set(map(type, column)) == {str}


def _arrow_decimal_words(t: AbiType, column: object, where: str) -> np.ndarray | None:
    """Integer words straight from an Arrow decimal column with scale 0, or None.

    Arrow stores decimal128 / decimal256 values as 16 / 32-byte little-endian two's
    complement integers: reversed and sign-extended they are the ABI's 32-byte words.
    """
    import pyarrow as pa

    if isinstance(column, pa.ChunkedArray):
        column = column.combine_chunks()
    kind = column.type  # type: ignore[attr-defined]  # an Arrow array (the caller checked its module); pyarrow is untyped
    if not pa.types.is_decimal(kind) or kind.scale != 0 or kind.bit_width not in (128, 256):
        return None
    width = kind.bit_width // 8
    count = len(column)  # type: ignore[arg-type]  # an Arrow array (the caller checked its module); pyarrow is untyped
    data = np.frombuffer(column.buffers()[1], dtype=np.uint8)  # type: ignore[attr-defined]  # an Arrow array (the caller checked its module); pyarrow is untyped
    start = column.offset * width  # type: ignore[attr-defined]  # an Arrow array (the caller checked its module); pyarrow is untyped
    little = data[start : start + count * width].reshape(count, width)
    words = np.empty((count, WORD), dtype=np.uint8)
    words[:, WORD - width :] = little[:, ::-1]
    negative = (words[:, WORD - width] & 0x80).astype(bool)
    words[:, : WORD - width] = np.where(negative, 0xFF, 0)[:, None]
    # In range when the bytes above the type's width only repeat its sign (zeros for uintN).
    top = WORD - t.bits // 8
    if t.kind == "uint":
        bad = negative | (words[:, :top] != 0).any(axis=1)
    else:
        sign = np.where(words[:, top] & 0x80, 0xFF, 0).astype(np.uint8)
        bad = (words[:, :top] != sign[:, None]).any(axis=1)
    if bad.any():
        row = int(np.argmax(bad))
        _int_value(t, column[row].as_py(), f"{where} row {row}")  # type: ignore[index]  # an Arrow array (the caller checked its module); pyarrow is untyped
    return words


def _arrow_column(t: AbiType, column: object) -> object:
    if not type(column).__module__.startswith("pyarrow"):
        return column
    import pyarrow as pa

    if isinstance(column, pa.ChunkedArray):
        column = column.combine_chunks()
    kind = column.type  # type: ignore[attr-defined]  # an Arrow array (its module checked above); pyarrow is untyped
    if t.kind in ("uint", "int") and pa.types.is_integer(kind):
        return column.to_numpy(zero_copy_only=False)  # type: ignore[attr-defined]  # an Arrow array (its module checked above); pyarrow is untyped
    if t.kind == "bool" and pa.types.is_boolean(kind):
        return column.to_numpy(zero_copy_only=False)  # type: ignore[attr-defined]  # an Arrow array (its module checked above); pyarrow is untyped
    if pa.types.is_fixed_size_binary(kind):
        width = kind.byte_width
        data = np.frombuffer(column.buffers()[1], dtype=np.uint8)  # type: ignore[attr-defined]  # an Arrow array (its module checked above); pyarrow is untyped
        start = column.offset * width  # type: ignore[attr-defined]  # an Arrow array (its module checked above); pyarrow is untyped
        return data[start : start + len(column) * width].reshape(len(column), width)  # type: ignore[arg-type]  # an Arrow array (its module checked above); pyarrow is untyped
    return column.to_pylist()  # type: ignore[attr-defined]  # an Arrow array (its module checked above); pyarrow is untyped


def _integer_array(column: object) -> np.ndarray | None:
    if isinstance(column, np.ndarray):
        return column if column.ndim == 1 and column.dtype.kind in "iu" else None
    if not isinstance(column, Sequence) or not column:
        return None
    kinds = set(map(type, column))
    if not kinds <= {int} and not all(issubclass(k, np.integer) for k in kinds):
        return None
    # An explicit dtype: left to itself numpy turns [1, 2**63] into float64.
    for dtype in (np.int64, np.uint64):
        try:
            return np.array(column, dtype=dtype)
        except OverflowError:
            continue
    return None


def _big_integer_words(t: AbiType, column: object, where: str) -> np.ndarray | None:
    """Python ints past 64 bits (wei amounts): one range check, then ``int.to_bytes``."""
    if not isinstance(column, Sequence) or not column or not set(map(type, column)) <= {int}:
        return None
    if t.kind == "uint":
        lowest, highest = 0, (1 << t.bits) - 1
    else:
        lowest, highest = -(1 << (t.bits - 1)), (1 << (t.bits - 1)) - 1
    if min(column) < lowest or max(column) > highest:
        return None  # the per-value path names the offending row
    modulus = 1 << 256
    if lowest < 0:
        joined = b"".join((v % modulus).to_bytes(WORD, "big") for v in column)
    else:
        joined = b"".join(v.to_bytes(WORD, "big") for v in column)
    return np.frombuffer(joined, dtype=np.uint8).reshape(len(column), WORD)


def _integer_words(t: AbiType, array: np.ndarray, where: str) -> np.ndarray:
    count = array.shape[0]
    if t.kind == "uint":
        lowest, highest = 0, (1 << t.bits) - 1
    else:
        lowest, highest = -(1 << (t.bits - 1)), (1 << (t.bits - 1)) - 1
    info = np.iinfo(array.dtype)
    # Bounds clipped to the array's dtype, so that the comparisons stay within numpy integers.
    low, high = max(lowest, info.min), min(highest, info.max)
    outside = np.flatnonzero((array < low) | (array > high))
    if len(outside):
        bad = int(outside[0])
        raise ValueError(
            f"{where} row {bad} = {int(array[bad])} is out of range for {t.name} "
            f"[{lowest}, {highest}]"
        )
    words = np.zeros((count, WORD), dtype=np.uint8)
    if array.dtype.kind == "i":
        wide = array.astype(np.int64)
        # Two's complement to 256 bits: negative values sign-extend with 0xFF bytes.
        words[wide < 0, : WORD - 8] = 0xFF
        big_endian = wide.view(np.uint64).astype(">u8")
    else:
        big_endian = array.astype(">u8")
    words[:, WORD - 8 :] = big_endian.view(np.uint8).reshape(count, 8)
    return words


def _fixed_bytes(column: object, width: int, exact: bool, where: str) -> np.ndarray | None:
    """(n, k) raw bytes for address (k == 20) or bytesN (k <= N) columns, or None."""
    if isinstance(column, np.ndarray):
        if column.ndim == 2 and column.dtype == np.uint8:
            if column.shape[1] > width or (exact and column.shape[1] != width):
                raise ValueError(
                    f"{where} rows are {column.shape[1]} bytes; expected "
                    f"{'exactly ' if exact else 'at most '}{width}"
                )
            return column
        return None
    if not isinstance(column, Sequence) or not column:
        return None
    kinds = set(map(type, column))
    if kinds == {str}:
        if not all(s[:2] in ("0x", "0X") for s in column):
            return None  # let the per-value path name the offending value
        lengths = set(map(len, column))
        if len(lengths) == 1:
            size = (lengths.pop() - 2) // 2
            if size <= width and (size == width or not exact):
                return hex_matrix(column, size, where)
        return None
    if kinds <= {bytes, bytearray}:
        lengths = set(map(len, column))
        if len(lengths) == 1:
            size = lengths.pop()
            if size <= width and (size == width or not exact):
                joined = b"".join(column)
                return np.frombuffer(joined, dtype=np.uint8).reshape(len(column), size)
    return None


# ----------------------------------------------------------------------------------------
# JSON


def json_value(t: AbiType | str, value: object) -> object:
    """``value`` in the JSON form the JavaScript library reads back.

    Strings and booleans stay as they are; integers become decimal strings (JSON numbers lose
    precision past 2**53 in JavaScript); bytes become ``0x`` hex; arrays map item by item.
    """
    if isinstance(t, str):
        t = parse_type(t)
    if isinstance(value, np.generic):
        value = value.item()
    if t.kind == "array":
        assert t.item is not None
        return [json_value(t.item, v) for v in value]  # type: ignore[attr-defined]  # an array type's value is a sequence, as encode checked
    if isinstance(value, (bytes, bytearray, memoryview, np.ndarray)):
        return hex_0x(value)
    if (
        t.kind in ("uint", "int")
        and isinstance(value, (int, Decimal))
        and not isinstance(value, bool)
    ):
        return str(int(value))
    return value
