"""One message, hashed by hashlib or pycryptodome: the backend for work too small to be worth
the kernels (a hash object that never filled its buffer, a single short message).

A row of the table is here when one of them computes exactly the same function: SHA-3 and
SHAKE through hashlib (OpenSSL), Keccak and TurboSHAKE (any domain byte) through pycryptodome.
Anything else (another domain byte, a start state other than zeros) returns None, and the
caller uses the kernels.
"""

from __future__ import annotations

import hashlib

from batchkeccak.parameters import Algorithm

_HASHLIB_ROWS = frozenset(
    {"sha3_224", "sha3_256", "sha3_384", "sha3_512", "shake_128", "shake_256"}
)


def backend_family(spec: Algorithm, domain: int) -> str | None:
    """``"hashlib"`` or ``"pycryptodome"``: which one-shot backend has ``spec`` with
    ``domain`` (from the all-zero state); None when neither has it."""
    if spec.name in _HASHLIB_ROWS and domain == spec.suffix:
        return "hashlib"
    if spec.name.startswith("keccak_") and domain == spec.suffix:
        return "pycryptodome"
    if spec.name in ("turboshake128", "turboshake256"):
        return "pycryptodome"
    return None


def oneshot_digest(spec: Algorithm, domain: int, message: bytes | bytearray | memoryview,
                   out_len: int) -> bytes | None:
    """``out_len`` bytes of ``spec`` over ``message`` from the all-zero state with ``domain``,
    or None where neither hashlib nor pycryptodome has that function."""
    name = spec.name
    if name in _HASHLIB_ROWS and domain == spec.suffix:
        digest = hashlib.new(name, message)
        return digest.digest(out_len) if spec.xof else digest.digest()  # type: ignore[call-arg]
    if name.startswith("keccak_") and domain == spec.suffix:
        from Crypto.Hash import keccak

        return keccak.new(data=bytes(message), digest_bytes=spec.digest_size).digest()
    if name in ("turboshake128", "turboshake256"):
        from Crypto.Hash import TurboSHAKE128, TurboSHAKE256

        factory = TurboSHAKE128 if name == "turboshake128" else TurboSHAKE256
        return factory.new(domain=domain, data=bytes(message)).read(out_len)
    return None
