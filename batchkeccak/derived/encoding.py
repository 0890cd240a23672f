"""The integer and string encodings of NIST SP 800-185 (section 2.3) and RFC 9861.

Written from the publications' definitions; every mode builds its prefixes and trailers from
these few functions.
"""

from __future__ import annotations


def left_encode(value: int) -> bytes:
    """SP 800-185 ``left_encode(x)``: the byte count, then ``x`` big-endian (at least 1 byte)."""
    size = max(1, (value.bit_length() + 7) // 8)
    return bytes([size]) + value.to_bytes(size, "big")


def right_encode(value: int) -> bytes:
    """SP 800-185 ``right_encode(x)``: ``x`` big-endian (at least 1 byte), then the byte count."""
    size = max(1, (value.bit_length() + 7) // 8)
    return value.to_bytes(size, "big") + bytes([size])


def encode_string(string: bytes) -> bytes:
    """SP 800-185 ``encode_string(S)``: ``left_encode(len(S) in bits) || S``."""
    return left_encode(8 * len(string)) + string


def bytepad(string: bytes, width: int) -> bytes:
    """SP 800-185 ``bytepad(X, w)``: ``left_encode(w) || X``, zero-filled to a multiple of w."""
    padded = left_encode(width) + string
    return padded + b"\0" * (-len(padded) % width)


def length_encode(value: int) -> bytes:
    """RFC 9861 ``length_encode(x)``: ``x`` big-endian with no leading zero byte (none at all
    for 0), then the byte count."""
    size = (value.bit_length() + 7) // 8
    return value.to_bytes(size, "big") + bytes([size])
