"""HMAC (FIPS 198-1) with the SHA-3 functions, as Python's ``hmac.digest(key, m, "sha3_256")``.

The key block ``K0 ^ ipad`` is one whole block of the sponge, and so is ``K0 ^ opad``: both
are absorbed once, and every message's inner and outer hashes start from the states they
leave.
"""

from __future__ import annotations

import hashlib

from batchkeccak.core.hashers import Hasher
from batchkeccak.core.parameters import get_algorithm
from batchkeccak.derived import params as checks
from batchkeccak.derived.mode_hashers import HmacHasher, LazyState
from batchkeccak.derived.table import Mode

IPAD = 0x36
OPAD = 0x5C


def _key_block(key: bytes, spec_name: str, rate: int) -> bytes:
    """FIPS 198-1's K0: the key (hashed first if longer than a block), zero-filled to a block."""
    if len(key) > rate:
        key = hashlib.new(spec_name, key).digest()  # the same SHA-3: no kernels for it
    return key + b"\0" * (rate - len(key))


def _xor(block: bytes, pad: int) -> bytes:
    return bytes(b ^ pad for b in block)


def build_hmac(mode: Mode, length: object, threads: int, *, key: object = None) -> Hasher:
    """The inner and outer start states are computed with the kernels on first use; small
    work with one key goes to ``hmac.digest(key, m, "sha3_...")`` and never needs them."""
    spec = get_algorithm(mode.sponge)
    out_len = checks.mode_length(mode, spec, length)
    resolved = checks.keys(key, mode)
    blocks = [
        _key_block(k, spec.name, spec.rate)
        for k in (resolved if isinstance(resolved, list) else [resolved])
    ]
    inner = LazyState(spec, [_xor(b, IPAD) for b in blocks], threads=threads)
    outer = LazyState(spec, [_xor(b, OPAD) for b in blocks], threads=threads)
    return HmacHasher(
        mode,
        spec,
        out_len,
        threads,
        inner,
        None,
        outer_state=outer,
        key_count=len(resolved) if isinstance(resolved, list) else None,
        oneshot_form=None if isinstance(resolved, list) else ("hmac", spec.name, resolved),
    )
