"""A plain reference model of the SP 800-185 and RFC 9861 modes, for the tests.

Written from the publications, one function per construction, over pycryptodome's cSHAKE
and TurboSHAKE and hashlib's SHAKE (implementations batchkeccak shares no code with). Slow and
obvious on purpose: it concatenates everything and hashes once.
"""

from __future__ import annotations

import hashlib

from Crypto.Hash import TurboSHAKE128, TurboSHAKE256, cSHAKE128, cSHAKE256

RATES = {128: 168, 256: 136}


def left_encode(x: int) -> bytes:
    n = max(1, (x.bit_length() + 7) // 8)
    return bytes([n]) + x.to_bytes(n, "big")


def right_encode(x: int) -> bytes:
    n = max(1, (x.bit_length() + 7) // 8)
    return x.to_bytes(n, "big") + bytes([n])


def encode_string(s: bytes) -> bytes:
    return left_encode(8 * len(s)) + s


def bytepad(x: bytes, w: int) -> bytes:
    z = left_encode(w) + x
    while len(z) % w:
        z += b"\0"
    return z


def cshake(bits: int, x: bytes, length: int, function_name: bytes, custom: bytes) -> bytes:
    if not function_name and not custom:
        # SP 800-185 section 3.3: with N and S both empty, cSHAKE is SHAKE. ParallelHash's
        # blocks are such calls (a million in the differential tests), and hashlib makes
        # one in a fraction of pycryptodome's Python-level set-up.
        shake = hashlib.shake_128 if bits == 128 else hashlib.shake_256
        return shake(x).digest(length)
    module = cSHAKE128 if bits == 128 else cSHAKE256
    return module._new(x, custom, function_name).read(length)


def kmac(bits: int, key: bytes, x: bytes, length: int, custom: bytes, xof: bool = False) -> bytes:
    new_x = bytepad(encode_string(key), RATES[bits]) + x + right_encode(0 if xof else 8 * length)
    return cshake(bits, new_x, length, b"KMAC", custom)


def tuplehash(
    bits: int, items: list[bytes], length: int, custom: bytes, xof: bool = False
) -> bytes:
    z = b"".join(encode_string(item) for item in items)
    return cshake(bits, z + right_encode(0 if xof else 8 * length), length, b"TupleHash", custom)


def parallelhash(
    bits: int, x: bytes, block: int, length: int, custom: bytes, xof: bool = False
) -> bytes:
    n = -(-len(x) // block)
    z = left_encode(block)
    for i in range(n):
        z += cshake(bits, x[i * block : (i + 1) * block], bits // 4, b"", b"")
    z += right_encode(n) + right_encode(0 if xof else 8 * length)
    return cshake(bits, z, length, b"ParallelHash", custom)


def length_encode(x: int) -> bytes:
    n = (x.bit_length() + 7) // 8
    return x.to_bytes(n, "big") + bytes([n])


def turboshake(bits: int, x: bytes, domain: int, length: int) -> bytes:
    module = TurboSHAKE128 if bits == 128 else TurboSHAKE256
    return module.new(data=x, domain=domain).read(length)


def kangarootwelve(bits: int, message: bytes, custom: bytes, length: int) -> bytes:
    """RFC 9861 section 3 (KT128) and 4 (KT256)."""
    s = message + custom + length_encode(len(custom))
    if len(s) <= 8192:
        return turboshake(bits, s, 0x07, length)
    chunks = [s[i : i + 8192] for i in range(0, len(s), 8192)]
    node = chunks[0] + b"\x03" + b"\0" * 7
    for chunk in chunks[1:]:
        node += turboshake(bits, chunk, 0x0B, bits // 4)
    node += length_encode(len(chunks) - 1) + b"\xff\xff"
    return turboshake(bits, node, 0x06, length)
