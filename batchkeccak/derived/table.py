"""The parameter table of the modes: constructions over the sponge rows of
:mod:`batchkeccak.core.parameters`, one row per name.

Each row names its *family* (which construction, see :mod:`batchkeccak.derived`), the sponge
row it runs on, and the parameters it takes; nothing else differs between, say,
``kmac_128`` and ``kmac_xof_256``.
"""

from __future__ import annotations

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

    @property
    def fixed_length(self) -> bool:
        """True when the output length is the sponge row's digest size (HMAC)."""
        return self.family == "hmac"


_SP800_185 = ("customization",)

_TABLE = [
    Mode("cshake_128", "cshake", "shake_128", ("customization", "function_name")),
    Mode("cshake_256", "cshake", "shake_256", ("customization", "function_name")),
    Mode("kmac_128", "kmac", "shake_128", ("key", "customization")),
    Mode("kmac_256", "kmac", "shake_256", ("key", "customization")),
    Mode("kmac_xof_128", "kmac", "shake_128", ("key", "customization"), xof=True),
    Mode("kmac_xof_256", "kmac", "shake_256", ("key", "customization"), xof=True),
    Mode("hmac_sha3_224", "hmac", "sha3_224", ("key",)),
    Mode("hmac_sha3_256", "hmac", "sha3_256", ("key",)),
    Mode("hmac_sha3_384", "hmac", "sha3_384", ("key",)),
    Mode("hmac_sha3_512", "hmac", "sha3_512", ("key",)),
    Mode("tuplehash_128", "tuplehash", "shake_128", _SP800_185),
    Mode("tuplehash_256", "tuplehash", "shake_256", _SP800_185),
    Mode("tuplehash_xof_128", "tuplehash", "shake_128", _SP800_185, xof=True),
    Mode("tuplehash_xof_256", "tuplehash", "shake_256", _SP800_185, xof=True),
    Mode("parallelhash_128", "parallelhash", "shake_128", ("block_size", "customization"),
         chunk_output=32),
    Mode("parallelhash_256", "parallelhash", "shake_256", ("block_size", "customization"),
         chunk_output=64),
    Mode("parallelhash_xof_128", "parallelhash", "shake_128", ("block_size", "customization"),
         xof=True, chunk_output=32),
    Mode("parallelhash_xof_256", "parallelhash", "shake_256", ("block_size", "customization"),
         xof=True, chunk_output=64),
    Mode("kt128", "kangarootwelve", "turboshake128", _SP800_185, chunk_output=32),
    Mode("kt256", "kangarootwelve", "turboshake256", _SP800_185, chunk_output=64),
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
