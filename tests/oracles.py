"""Independent digest oracles: hashlib for SHA-3/SHAKE, pycryptodome for Keccak and TurboSHAKE.

The list of algorithms under test comes from batchkeccak's table, so a new row is tested
everywhere at once; what each algorithm must return (its oracle and its block size) is
written here, from FIPS 202 and RFC 9861, and shares no code with batchkeccak. A row without
an oracle fails ``test_every_table_row_has_an_oracle``.
"""

from __future__ import annotations

import hashlib

from Crypto.Hash import TurboSHAKE128, TurboSHAKE256, keccak

from batchkeccak import algorithms


def _hashlib(name: str, xof: bool):
    if xof:
        return lambda message, length: hashlib.new(name, message).digest(length)
    return lambda message, length: hashlib.new(name, message).digest()


def _keccak(bits: int):
    return lambda message, length: keccak.new(digest_bits=bits, data=message).digest()


ORACLES = {
    # name: (block size in bytes, digest function)
    "sha3_224": (144, _hashlib("sha3_224", False)),
    "sha3_256": (136, _hashlib("sha3_256", False)),
    "sha3_384": (104, _hashlib("sha3_384", False)),
    "sha3_512": (72, _hashlib("sha3_512", False)),
    "shake_128": (168, _hashlib("shake_128", True)),
    "shake_256": (136, _hashlib("shake_256", True)),
    "keccak_224": (144, _keccak(224)),
    "keccak_256": (136, _keccak(256)),
    "keccak_384": (104, _keccak(384)),
    "keccak_512": (72, _keccak(512)),
    "turboshake128": (168, lambda m, n: TurboSHAKE128.new().update(m).read(n)),
    "turboshake256": (136, lambda m, n: TurboSHAKE256.new().update(m).read(n)),
}  # fmt: skip

ALL_ALGORITHMS = tuple(algorithms)
XOFS = tuple(name for name, spec in algorithms.items() if spec.xof)
RATES = {name: rate for name, (rate, _) in ORACLES.items()}
"""Block sizes from FIPS 202 / RFC 9861, written here rather than read from batchkeccak."""


def oracle(name: str, message: bytes, length: int | None = None) -> bytes:
    """The digest of ``message`` by an implementation batchkeccak shares no code with."""
    return ORACLES[name][1](message, length)
