"""Oracles for every algorithm and mode under the names the engines register (SQL functions,
Polars and pandas methods): hashlib, hmac, pycryptodome, and the SP 800-185 / RFC 9861
transcriptions in ``sp800_185_reference`` where pycryptodome has no such function.

``engine_oracle(name, message, length=None, key=None, customization=b"")`` returns what the
engine must return for one value; no code of batchkeccak is used.
"""

from __future__ import annotations

import hmac

import sp800_185_reference as ref
from Crypto.Hash import KMAC128, KMAC256, KangarooTwelve, TupleHash128, TupleHash256

from oracles import ORACLES

PARALLELHASH_BLOCK = 8192
"""ParallelHash's block size when none is given (batchkeccak's documented default)."""


def engine_oracle(
    name: str,
    message: bytes,
    length: int | None = None,
    key: bytes | None = None,
    customization: bytes = b"",
) -> bytes:
    if name in ORACLES:
        return ORACLES[name][1](message, length)
    bits = int(name.rsplit("_", 1)[-1]) if name[-1].isdigit() and "_" in name else None
    if name.startswith("hmac_sha3_"):
        return hmac.digest(key, message, name[len("hmac_") :])
    if name in ("kmac_128", "kmac_256") and len(key) >= 32:  # pycryptodome's minimum
        kmac = {128: KMAC128, 256: KMAC256}[bits]
        return kmac.new(key=key, data=message, mac_len=length, custom=customization).digest()
    if name.startswith("kmac_"):
        return ref.kmac(bits, key, message, length, customization, xof="_xof_" in name)
    if name.startswith("cshake_"):
        return ref.cshake(bits, message, length, b"", customization)
    if name in ("tuplehash_128", "tuplehash_256"):
        tuple_hash = {128: TupleHash128, 256: TupleHash256}[bits]
        return tuple_hash.new(digest_bytes=length).update(message).digest()
    if name.startswith("tuplehash_xof_"):
        return ref.tuplehash(bits, [message], length, customization, xof=True)
    if name.startswith("parallelhash_"):
        return ref.parallelhash(
            bits, message, PARALLELHASH_BLOCK, length, customization, xof="_xof_" in name
        )
    if name == "kt128":
        return KangarooTwelve.new(custom=customization).update(message).read(length)
    if name == "kt256":
        return ref.kangarootwelve(256, message, customization, length)
    raise KeyError(f"no oracle for {name}")
