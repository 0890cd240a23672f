"""Independent digest oracles: hashlib for SHA-3/SHAKE, pycryptodome for Keccak and TurboSHAKE."""

from __future__ import annotations

import hashlib

from Crypto.Hash import TurboSHAKE128, TurboSHAKE256, keccak

ALL_ALGORITHMS = (
    "sha3_224",
    "sha3_256",
    "sha3_384",
    "sha3_512",
    "shake_128",
    "shake_256",
    "keccak_224",
    "keccak_256",
    "keccak_384",
    "keccak_512",
    "turboshake128",
    "turboshake256",
)
XOFS = ("shake_128", "shake_256", "turboshake128", "turboshake256")
RATES = {
    "sha3_224": 144, "sha3_256": 136, "sha3_384": 104, "sha3_512": 72,
    "shake_128": 168, "shake_256": 136,
    "keccak_224": 144, "keccak_256": 136, "keccak_384": 104, "keccak_512": 72,
    "turboshake128": 168, "turboshake256": 136,
}  # fmt: skip
"""Block sizes from FIPS 202 / RFC 9861, written here rather than read from batchkeccak."""


def oracle(name: str, message: bytes, length: int | None = None) -> bytes:
    """The digest of ``message`` by an implementation batchkeccak shares no code with."""
    if name.startswith("keccak_"):
        return keccak.new(digest_bits=int(name[7:]), data=message).digest()
    if name == "turboshake128":
        return TurboSHAKE128.new().update(message).read(length)
    if name == "turboshake256":
        return TurboSHAKE256.new().update(message).read(length)
    if name.startswith("shake_"):
        return hashlib.new(name, message).digest(length)
    return hashlib.new(name, message).digest()
