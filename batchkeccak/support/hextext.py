"""Hex text, both ways: digests written as hex rows, and hex digits read back as bytes (one
lookup table for every caller)."""

from __future__ import annotations

import numpy as np


def encode_hex_rows(rows: np.ndarray, prefix: str = "") -> list[str]:
    """Each row of an ``(n, w)`` uint8 array as lowercase hex, after ``prefix`` (``"0x"``).

    One ``bytes.hex`` over the whole array, then slices: about 3x faster than ``.hex()`` per
    row for 32-byte digests.
    """
    count = rows.shape[0]
    step = 2 * rows.shape[1]
    if count == 0:
        return []
    if step == 0:
        return [prefix] * count
    joined = np.ascontiguousarray(rows).tobytes().hex()
    return [prefix + joined[i : i + step] for i in range(0, len(joined), step)]


def hex_0x(data: object) -> str:
    """``0x``-prefixed lowercase hex of a bytes-like value, as Ethereum tools write it."""
    return "0x" + bytes(memoryview(data).cast("B")).hex()  # type: ignore[arg-type]  # any bytes-like value; memoryview raises TypeError for anything else


NIBBLES = np.full(256, 255, dtype=np.uint8)
NIBBLES[np.frombuffer(b"0123456789", dtype=np.uint8)] = np.arange(10, dtype=np.uint8)
NIBBLES[np.frombuffer(b"abcdef", dtype=np.uint8)] = np.arange(10, 16, dtype=np.uint8)
NIBBLES[np.frombuffer(b"ABCDEF", dtype=np.uint8)] = np.arange(10, 16, dtype=np.uint8)
NIBBLES.flags.writeable = False
"""Each ASCII byte's value as a hex digit (either case); 255 for any other byte."""


def decode_hex_digits(digits: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """An ``(n, 2k)`` uint8 array of ASCII hex digits as ``(n, k)`` bytes, and the mask of
    the rows holding a byte that is not a hex digit (their bytes are meaningless).

    One table lookup over every row at once, where ``bytes.fromhex`` would be a call per row.
    """
    nibbles = NIBBLES[digits]
    bad = (nibbles == 255).any(axis=1)
    return (nibbles[:, 0::2] << 4) | nibbles[:, 1::2], bad


HEX_DIGITS = frozenset("0123456789abcdefABCDEF")
"""The hex digits, either case: ASCII only (``int(s, 16)`` also takes other scripts' digits,
``"\u0663"``, and fullwidth ones)."""


def hex_text_fault(text: str, digits: int, name: str, what: str) -> ValueError:
    """The ValueError for one value of hex text, ``name`` (``"addresses[3]"``), that is not
    ``0x`` and ``digits`` hex digits or the digits alone (``what``, ``"an address"``, is
    what it should be): a wrong count of characters (not of UTF-8 bytes), a missing ``0x``,
    or the first character that is not an ASCII hex digit, by its place."""
    if len(text) not in (digits, digits + 2):
        return ValueError(
            f"{name} has {len(text)} characters; {what} is 0x and {digits} hex digits"
        )
    if len(text) == digits + 2 and text[:2] not in ("0x", "0X"):
        return ValueError(f"{name} must start with 0x")
    first = len(text) - digits
    place = next((i for i in range(first, len(text)) if text[i] not in HEX_DIGITS), None)
    if place is None:  # pragma: no cover - called for a faulty value only
        return ValueError(f"{name} is not {what} (0x and {digits} hex digits)")
    return ValueError(
        f"{name} holds a character that is not a hex digit: {text[place]!r} at character {place}"
    )
