"""The modes layer: keyed, customized and tree constructions over the shared sponge.

After XKCP's ``lib/high`` over ``lib/low``: every mode here is written against the sponge's
contract alone (many messages from one initial state or one state per message, a runtime
domain byte, ``absorb_prefixes`` for whole-block prefixes), never as a kernel of its own.

- :mod:`~batchkeccak.derived.sp800_185`: cSHAKE, KMAC, TupleHash, ParallelHash (NIST SP 800-185);
- :mod:`~batchkeccak.derived.hmac_sha3`: HMAC with SHA-3 (FIPS 198-1);
- :mod:`~batchkeccak.derived.kangarootwelve`: KT128, KT256 and TurboSHAKE's domain byte
  (RFC 9861).

:data:`modes` is the parameter table; :func:`build` turns a row and its parameters into a
:class:`~batchkeccak.Hasher` and is what ``batchkeccak.hasher(name, **params)`` calls.
"""

from __future__ import annotations

from functools import partial

from batchkeccak import _parallel
from batchkeccak.derived import params as checks
from batchkeccak.derived.hmac_sha3 import build_hmac
from batchkeccak.derived.kangarootwelve import build_kangarootwelve, build_turboshake, kt128, kt256
from batchkeccak.derived.sp800_185 import (
    build_cshake,
    build_kmac,
    build_parallelhash,
    build_tuplehash,
    parallelhash_128,
    parallelhash_256,
    parallelhash_xof_128,
    parallelhash_xof_256,
    tuplehash_many,
)
from batchkeccak.derived.table import Mode, modes
from batchkeccak.hashers import Hasher

_BUILDERS = {
    "cshake": build_cshake,
    "kmac": build_kmac,
    "hmac": build_hmac,
    "tuplehash": build_tuplehash,
    "parallelhash": build_parallelhash,
    "kangarootwelve": build_kangarootwelve,
    "turboshake": build_turboshake,
}


def build(mode: Mode | str, *, length: object = None, threads: object = None,
          **params: object) -> Hasher:
    """The :class:`~batchkeccak.Hasher` of a mode with its parameters checked."""
    row = modes[mode] if isinstance(mode, str) else mode
    checks.check_names(row, params)
    return _BUILDERS[row.family](
        row, length, _parallel.resolve_threads(threads), **params
    )


def register(registry: dict) -> None:
    """Add every mode's factory to ``registry`` (``batchkeccak.api.MODES``)."""
    for name in modes:
        registry[name] = partial(build, name)


__all__ = [
    "Mode",
    "build",
    "kt128",
    "kt256",
    "modes",
    "parallelhash_128",
    "parallelhash_256",
    "parallelhash_xof_128",
    "parallelhash_xof_256",
    "register",
    "tuplehash_many",
]
