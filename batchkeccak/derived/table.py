"""The parameter table of the modes: constructions over the sponge rows of
:mod:`batchkeccak.core.parameters`, one row per name.

Each row names its *family* (which construction, see :mod:`batchkeccak.derived`), the sponge
row it runs on, and the parameters it takes; nothing else differs between, say,
``kmac_128`` and ``kmac_xof_256``.
"""

from __future__ import annotations

import functools
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from types import MappingProxyType

from batchkeccak.core.parameters import EVERY_NAME, did_you_mean


@dataclass(frozen=True)
class Mode:
    """One keyed, customized or tree mode over a sponge row."""

    name: str
    family: str
    """``cshake``, ``kmac``, ``hmac``, ``tuplehash``, ``parallelhash``, ``kangarootwelve`` or
    ``turboshake``."""
    sponge: str
    """The row of ``batchkeccak.algorithms`` the construction runs on."""
    params: tuple[str, ...]
    """Keyword parameters the mode takes besides ``length`` and ``threads``."""
    xof: bool = False
    """SP 800-185's XOF forms: the input ends with ``right_encode(0)`` instead of the length."""
    chunk_output: int = 0
    """Tree modes: bytes of each chunk's chaining value."""
    fixed_length: bool = False
    """The output length is the sponge row's digest size (HMAC): no ``length`` is taken."""
    sql_customization: bool = False
    """The SQL function takes the customization string as an argument (cSHAKE, whose
    customization is its point); other modes keep their defaults there."""
    tag: str | None = None
    """The name in BSD-style ``--tag`` lines; None for a mode that does not hash a file as one
    message (TupleHash frames each string with its length first, so it hashes lines)."""
    oid: str | None = None
    """NIST's object identifier (a hashAlgs arc), which names accept; None where there is
    none."""


_SP800_185 = ("customization",)
_CSHAKE = ("customization", "function_name")
_KMAC = ("key", "customization")
_PARALLEL = ("block_size", "customization")
_NIST = "2.16.840.1.101.3.4.2."
"""NIST's hashAlgs arc: the modes' object identifiers are its children."""

_TABLE = [
    Mode("cshake_128", "cshake", "shake_128", _CSHAKE, sql_customization=True, tag="CSHAKE128"),
    Mode("cshake_256", "cshake", "shake_256", _CSHAKE, sql_customization=True, tag="CSHAKE256"),
    Mode("kmac_128", "kmac", "shake_128", _KMAC, tag="KMAC128", oid=_NIST + "19"),
    Mode("kmac_256", "kmac", "shake_256", _KMAC, tag="KMAC256", oid=_NIST + "20"),
    Mode("kmac_xof_128", "kmac", "shake_128", _KMAC, xof=True, tag="KMACXOF128"),
    Mode("kmac_xof_256", "kmac", "shake_256", _KMAC, xof=True, tag="KMACXOF256"),
    Mode("hmac_sha3_224", "hmac", "sha3_224", ("key",), fixed_length=True,
         tag="HMAC-SHA3-224", oid=_NIST + "13"),
    Mode("hmac_sha3_256", "hmac", "sha3_256", ("key",), fixed_length=True,
         tag="HMAC-SHA3-256", oid=_NIST + "14"),
    Mode("hmac_sha3_384", "hmac", "sha3_384", ("key",), fixed_length=True,
         tag="HMAC-SHA3-384", oid=_NIST + "15"),
    Mode("hmac_sha3_512", "hmac", "sha3_512", ("key",), fixed_length=True,
         tag="HMAC-SHA3-512", oid=_NIST + "16"),
    Mode("tuplehash_128", "tuplehash", "shake_128", _SP800_185),
    Mode("tuplehash_256", "tuplehash", "shake_256", _SP800_185),
    Mode("tuplehash_xof_128", "tuplehash", "shake_128", _SP800_185, xof=True),
    Mode("tuplehash_xof_256", "tuplehash", "shake_256", _SP800_185, xof=True),
    Mode("parallelhash_128", "parallelhash", "shake_128", _PARALLEL, chunk_output=32,
         tag="PARALLELHASH128"),
    Mode("parallelhash_256", "parallelhash", "shake_256", _PARALLEL, chunk_output=64,
         tag="PARALLELHASH256"),
    Mode("parallelhash_xof_128", "parallelhash", "shake_128", _PARALLEL, xof=True,
         chunk_output=32, tag="PARALLELHASHXOF128"),
    Mode("parallelhash_xof_256", "parallelhash", "shake_256", _PARALLEL, xof=True,
         chunk_output=64, tag="PARALLELHASHXOF256"),
    Mode("kt128", "kangarootwelve", "turboshake128", _SP800_185, chunk_output=32, tag="KT128"),
    Mode("kt256", "kangarootwelve", "turboshake256", _SP800_185, chunk_output=64, tag="KT256"),
    Mode("turboshake128", "turboshake", "turboshake128", ("domain",)),
    Mode("turboshake256", "turboshake", "turboshake256", ("domain",)),
]  # fmt: skip

modes: Mapping[str, Mode] = MappingProxyType({mode.name: mode for mode in _TABLE})
"""Every mode by name (``bk.hasher(name, **params)`` resolves each)."""


def algorithm_names() -> tuple[str, ...]:
    """Every name ``batchkeccak.hasher`` resolves: the rows of ``batchkeccak.algorithms`` and
    the modes, in the tables' order (other spellings are read by
    :func:`batchkeccak.core.parameters.canonical_name`). Here, beside the modes, so that the
    command line reads it without importing numpy."""
    from batchkeccak.core.parameters import algorithms

    return tuple(dict.fromkeys([*algorithms, *modes]))


def canonical_algorithm(name: str) -> str | None:
    """The name of the row or mode that ``name`` spells (any spelling
    :func:`batchkeccak.core.parameters.canonical_name` reads, object identifiers of both tables
    included), or None."""
    if isinstance(name, str):
        return _canonical_spelling(name)
    from batchkeccak.core.parameters import canonical_name

    return canonical_name(name, algorithm_names(), object_identifiers())


@functools.lru_cache(maxsize=1024)
def _canonical_spelling(name: str) -> str | None:
    # Every hash_one(message, "sha3_256") resolves its name: the tables never change, so each
    # spelling is worked out once (4.9 us otherwise, against 4.6 us for a 32-byte digest).
    from batchkeccak.core.parameters import canonical_name

    return canonical_name(name, algorithm_names(), object_identifiers())


def tags() -> dict[str, str]:
    """The name ``batchkeccak hash --tag`` writes for every row of ``batchkeccak.algorithms``
    and every mode that hashes a file as one message, read from the rows' ``tag`` columns."""
    from batchkeccak.core.parameters import algorithms

    found = {name: spec.tag for name, spec in algorithms.items()}
    found.update((name, mode.tag) for name, mode in modes.items() if mode.tag is not None)
    return found


def object_identifiers() -> dict[str, str]:
    """Every row's and mode's object identifier, by dotted name (what
    :func:`batchkeccak.core.parameters.canonical_name` reads among the names of both)."""
    from batchkeccak.core.parameters import OBJECT_IDENTIFIERS

    found = dict(OBJECT_IDENTIFIERS)
    found.update((mode.oid, name) for name, mode in modes.items() if mode.oid is not None)
    return found


def unknown_method(namespace: str, name: str, general: Iterable[str]) -> AttributeError:
    """The error for ``namespace.name`` where a column accessor (Polars' or pandas' ``bk``)
    has no such method: the same hint as an unknown algorithm, the ``general`` methods, and
    where the rest (one per algorithm and mode) are listed."""
    general = tuple(general)
    hint = did_you_mean(name, (*general, *algorithm_names()))
    return AttributeError(
        f"{namespace} has no method {name!r}{': ' + hint if hint else ''} (its methods are "
        f"{', '.join(general)} and one per algorithm and mode: {EVERY_NAME})"
    )
