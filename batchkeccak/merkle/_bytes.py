"""Leaves, proof elements and roots as bytes: hex parsing, fixed-width row arrays, values in
JSON form. (Hex output, read-only views and atomic writes are the package's own:
``batchkeccak.support.hextext``, ``batchkeccak.inputs.readonly``, ``batchkeccak.support.atomic``.)"""

from __future__ import annotations

from collections.abc import Sequence
from decimal import Decimal

import numpy as np

from batchkeccak.inputs import flat_to_rows, to_flat
from batchkeccak.support.hextext import decode_hex_digits, hex_0x


def hex_to_bytes(text: str, argument: str) -> bytes:
    """``"0x..."`` or bare hex as bytes; ValueError naming ``argument`` otherwise."""
    digits = text[2:] if text[:2] in ("0x", "0X") else text
    try:
        return bytes.fromhex(digits)
    except ValueError:
        raise ValueError(f"{argument} is not a hex string: {_shorten(text)!r}") from None


def _shorten(text: str) -> str:
    return text if len(text) <= 80 else text[:77] + "..."


def as_bytes(value: object, argument: str, width: int | None = None) -> bytes:
    """A bytes-like object or hex string as ``bytes``, checked to be ``width`` bytes long."""
    if isinstance(value, str):
        result = hex_to_bytes(value, argument)
    elif isinstance(value, np.ndarray):
        if value.dtype != np.uint8:
            raise TypeError(f"{argument} must be a uint8 array, got dtype {value.dtype}")
        result = np.ascontiguousarray(value).tobytes()
    elif isinstance(value, (bytes, bytearray, memoryview)):
        result = (
            bytes(memoryview(value).cast("B")) if isinstance(value, memoryview) else bytes(value)
        )
    else:
        raise TypeError(f"{argument} must be bytes or a hex string, got {type(value).__name__}")
    if width is not None and len(result) != width:
        raise ValueError(f"{argument} must be {width} bytes, got {len(result)}")
    return result


def as_node_list(proof: object, argument: str, width: int) -> list[bytes]:
    """A proof: a sequence of ``width``-byte nodes (bytes or hex strings)."""
    if isinstance(proof, (str, bytes, bytearray, memoryview)) or not isinstance(
        proof, (Sequence, np.ndarray)
    ):
        raise TypeError(
            f"{argument} must be a list of {width}-byte nodes (bytes or hex strings), "
            f"got {type(proof).__name__}"
        )
    if isinstance(proof, np.ndarray) and (proof.ndim != 2 or proof.dtype != np.uint8):
        raise TypeError(
            f"{argument} as an array must be (k, {width}) uint8, got {proof.ndim}-D {proof.dtype}"
        )
    return [as_bytes(node, f"{argument}[{i}]", width) for i, node in enumerate(proof)]


def hex_matrix(strings: Sequence[str], width: int, argument: str) -> np.ndarray:
    """Hex strings of exactly ``width`` bytes each (``0x`` optional) as an (n, width) array.

    Decoded with a lookup table over the joined ASCII text rather than ``bytes.fromhex`` per
    string: one pass over a million addresses instead of a million calls. Either every
    string has the ``0x`` prefix or none has.
    """
    count = len(strings)
    if count == 0:
        return np.empty((0, width), dtype=np.uint8)
    if set(map(type, strings)) != {str}:
        i = next(i for i, x in enumerate(strings) if not isinstance(x, str))
        raise TypeError(f"{argument}[{i}] is {type(strings[i]).__name__}; expected a hex str")
    prefixed = strings[0][:2] in ("0x", "0X")
    digits = 2 * width
    step = digits + (2 if prefixed else 0)
    lengths = np.fromiter(map(len, strings), np.int64, count)
    wrong = np.flatnonzero(lengths != step)
    if wrong.size:
        i = int(wrong[0])
        has_prefix = strings[i][:2] in ("0x", "0X")
        if has_prefix != prefixed and lengths[i] == digits + (2 if has_prefix else 0):
            raise ValueError(
                f"{argument}[{i}] {'has' if has_prefix else 'lacks'} the 0x prefix that "
                f"{argument}[0] {'lacks' if has_prefix else 'has'}; write every hex value "
                "the same way"
            )
        raise ValueError(
            f"{argument}[{i}] must be {width} bytes ({digits} hex digits"
            f"{' after 0x' if prefixed else ''}), got {_shorten(strings[i])!r}"
        )
    try:
        text = "".join(strings).encode("ascii")
    except UnicodeEncodeError:
        text = b""
    if len(text) != count * step:
        raise ValueError(f"{argument} holds characters that are not hex digits")
    chars = np.frombuffer(text, dtype=np.uint8).reshape(count, step)
    values, bad = decode_hex_digits(chars[:, step - digits :])
    if prefixed:
        bad |= (chars[:, 0] != ord("0")) | ((chars[:, 1] | 0x20) != ord("x"))
    if bad.any():
        i = int(np.argmax(bad))
        raise ValueError(f"{argument}[{i}] is not a hex string: {_shorten(strings[i])!r}")
    return values


def _is_arrow_text(values: object) -> bool:
    if not type(values).__module__.startswith("pyarrow") or not hasattr(values, "type"):
        return False
    from batchkeccak.inputs.arrow_types import type_rule

    # the string types of the type table (string, large_string, string_view, dictionaries)
    rule = type_rule(values.type)
    return rule is not None and rule.key == "string"


def is_hex_sequence(leaves: object) -> bool:
    """True for a list or tuple whose first element is a str (hex-encoded leaves)."""
    return isinstance(leaves, (list, tuple)) and len(leaves) > 0 and isinstance(leaves[0], str)


def fixed_rows(leaves: object, width: int, argument: str, what: str) -> np.ndarray:
    """Any ``hash_many`` input form, or hex strings (a list, or an Arrow string column), as a
    C-contiguous (n, width) uint8 array.

    Every leaf must be exactly ``width`` bytes; ``what`` names the rule in the error
    ("the openzeppelin scheme takes 32-byte leaves").
    """
    if isinstance(leaves, np.ndarray) and leaves.ndim == 2 and leaves.dtype == np.uint8:
        if leaves.shape[1] != width:
            raise ValueError(f"{argument} rows are {leaves.shape[1]} bytes; {what}")
        return np.ascontiguousarray(leaves)
    if is_hex_sequence(leaves):
        return hex_matrix(leaves, width, argument)  # type: ignore[arg-type]  # is_hex_sequence checked it is a sequence of str
    if _is_arrow_text(leaves):
        # Fixed-size leaves stored as text are hex (a Parquet column of "0x..." strings).
        strings = leaves.to_pylist()  # type: ignore[attr-defined]  # _is_arrow_text checked it is an Arrow array (untyped pyarrow)
        if None in strings:  # a null row, or a dictionary's null value
            raise null_leaves(strings.count(None), argument)
        return hex_matrix(strings, width, argument)
    data, offsets = flat_messages(leaves, argument)
    return flat_to_rows(data, offsets, width, argument, what)


def flat_messages(values: object, argument: str) -> tuple[np.ndarray, np.ndarray]:
    """``batchkeccak.inputs.to_flat`` with errors that name ``argument``."""
    try:
        return to_flat(values, argument)
    except ValueError as exc:
        if "null" not in str(exc):
            raise
        raise null_leaves(getattr(values, "null_count", "some"), argument) from None


def null_leaves(nulls: object, argument: str) -> ValueError:
    return ValueError(
        f"{argument} holds {nulls} null(s); a Merkle leaf cannot be null: drop or fill "
        "them first (pyarrow.compute.drop_null / fill_null)"
    )


def json_item(value: object) -> object:
    """A leaf value in JSON form: bytes as ``0x`` hex, integers as decimal strings (JSON
    numbers lose precision past 2**53 in JavaScript), lists item by item."""
    if isinstance(value, np.generic):
        value = value.item()
    if isinstance(value, (bytes, bytearray, memoryview)):
        return hex_0x(value)
    if isinstance(value, (int, Decimal)) and not isinstance(value, bool):
        return str(int(value))
    if isinstance(value, (list, tuple)):
        return [json_item(v) for v in value]
    return value
