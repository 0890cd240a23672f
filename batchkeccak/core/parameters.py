"""The parameter table: every algorithm is one row over the same sponge.

Rates are in bytes (the ``block_size`` hashlib reports); ``suffix`` is the domain-separation
byte that starts the padding: 0x06 for SHA-3 (bits 01), 0x1F for SHAKE (1111), 0x01 for the
original Keccak submission that Ethereum uses; TurboSHAKE (RFC 9861) uses its default
domain byte 0x1F with 12 rounds.
"""

from __future__ import annotations

import difflib
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from types import MappingProxyType

from batchkeccak.permutation import MAX_ROUNDS, TILE_ROUND_STEP

MIN_RATE = 72
"""The smallest rate the one-state absorb kernel handles (SHA3-512's, 9 words)."""
MAX_RATE = 168
"""The largest (SHAKE128's, 21 words): a capacity under 32 bytes is not a secure sponge."""
ONESHOT_KINDS = (None, "hashlib", "keccak", "turboshake")
"""The values of :attr:`Algorithm.oneshot`: which one-shot backend has the row, if any."""


@dataclass(frozen=True)
class Algorithm:
    """One Keccak-based hash: its sponge parameters and output size."""

    name: str
    rate: int
    """Bytes absorbed per permutation (hashlib's ``block_size``)."""
    suffix: int
    """Domain-separation byte that begins the pad10*1 padding."""
    digest_size: int | None
    """Output bytes, or None for an extendable-output function (XOF)."""
    rounds: int = 24
    """Rounds of Keccak-p[1600]: 24 for Keccak-f, 12 for TurboSHAKE; a multiple of 4."""
    tag: str = ""
    """The name in BSD-style ``--tag`` lines (``SHA3-256 (FILE) = HEX``); "" for the row's
    name in capitals with ``-`` for ``_``."""
    oid: str | None = None
    """NIST's object identifier (a hashAlgs arc), which names accept as OpenSSL and hashlib
    do; None where there is none."""
    oneshot: str | None = None
    """Which one-shot backend computes the row from the all-zero state (small work goes to
    it): ``"hashlib"`` (the constructor of the row's name, with the row's domain byte),
    ``"keccak"`` (pycryptodome's ``keccak``, the row's domain byte) or ``"turboshake"``
    (pycryptodome's TurboSHAKE of the row's capacity, any domain byte); None: the kernels
    only."""

    def __post_init__(self) -> None:
        # The kernels trust these fields (they index the state by them): a wrong row must
        # fail when the table is built, not read past a buffer when a message is hashed.
        if not isinstance(self.name, str) or not self.name:
            raise ValueError(f"Algorithm name must be a non-empty str, got {self.name!r}")
        if not (
            isinstance(self.rate, int) and self.rate % 8 == 0 and MIN_RATE <= self.rate <= MAX_RATE
        ):
            raise ValueError(
                f"{self.name}: rate must be a multiple of 8 in [{MIN_RATE}, {MAX_RATE}] bytes, "
                f"got {self.rate!r}"
            )
        if not (isinstance(self.suffix, int) and 0x01 <= self.suffix <= 0x7F):
            raise ValueError(
                f"{self.name}: suffix must be a domain byte in [0x01, 0x7F] (it carries the "
                f"first padding bit), got {self.suffix!r}"
            )
        if self.digest_size is not None and not (
            isinstance(self.digest_size, int) and 1 <= self.digest_size <= self.capacity
        ):
            raise ValueError(
                f"{self.name}: digest_size must be None (an XOF) or in [1, {self.capacity}], "
                f"got {self.digest_size!r}"
            )
        if not (
            isinstance(self.rounds, int)
            and 0 < self.rounds <= MAX_ROUNDS
            and self.rounds % TILE_ROUND_STEP == 0
        ):
            raise ValueError(
                f"{self.name}: rounds must be a multiple of {TILE_ROUND_STEP} in "
                f"[{TILE_ROUND_STEP}, {MAX_ROUNDS}] (the tile permutation runs "
                f"{TILE_ROUND_STEP} rounds per step), got {self.rounds!r}"
            )
        if self.oneshot not in ONESHOT_KINDS:
            raise ValueError(
                f"{self.name}: oneshot must be one of {ONESHOT_KINDS}, got {self.oneshot!r}"
            )
        if not self.tag:
            object.__setattr__(self, "tag", self.name.upper().replace("_", "-"))

    @property
    def first_round(self) -> int:
        """The first round index the kernels run: Keccak-p[1600, n] is rounds 24 - n .. 23."""
        return MAX_ROUNDS - self.rounds

    @property
    def xof(self) -> bool:
        """True when the caller chooses the output length."""
        return self.digest_size is None

    @property
    def block_size(self) -> int:
        """Alias of ``rate``, named as hashlib names it."""
        return self.rate

    @property
    def capacity(self) -> int:
        """Bytes of the state never touched by input: 200 - rate."""
        return 200 - self.rate


_NIST = "2.16.840.1.101.3.4.2."
"""NIST's hashAlgs arc: the rows' object identifiers are its children."""

_TABLE = [
    Algorithm("sha3_224", 144, 0x06, 28, tag="SHA3-224", oid=_NIST + "7", oneshot="hashlib"),
    Algorithm("sha3_256", 136, 0x06, 32, tag="SHA3-256", oid=_NIST + "8", oneshot="hashlib"),
    Algorithm("sha3_384", 104, 0x06, 48, tag="SHA3-384", oid=_NIST + "9", oneshot="hashlib"),
    Algorithm("sha3_512", 72, 0x06, 64, tag="SHA3-512", oid=_NIST + "10", oneshot="hashlib"),
    Algorithm("shake_128", 168, 0x1F, None, tag="SHAKE128", oid=_NIST + "11", oneshot="hashlib"),
    Algorithm("shake_256", 136, 0x1F, None, tag="SHAKE256", oid=_NIST + "12", oneshot="hashlib"),
    Algorithm("keccak_224", 144, 0x01, 28, oneshot="keccak"),
    Algorithm("keccak_256", 136, 0x01, 32, oneshot="keccak"),
    Algorithm("keccak_384", 104, 0x01, 48, oneshot="keccak"),
    Algorithm("keccak_512", 72, 0x01, 64, oneshot="keccak"),
    Algorithm("turboshake128", 168, 0x1F, None, rounds=12, oneshot="turboshake"),
    Algorithm("turboshake256", 136, 0x1F, None, rounds=12, oneshot="turboshake"),
]  # fmt: skip

algorithms: Mapping[str, Algorithm] = MappingProxyType({a.name: a for a in _TABLE})
"""Every supported algorithm by name (hashlib's names where hashlib has one)."""


OBJECT_IDENTIFIERS: Mapping[str, str] = MappingProxyType(
    {spec.oid: name for name, spec in algorithms.items() if spec.oid is not None}
)
"""The rows' object identifiers by dotted name, as OpenSSL and hashlib accept them:
``hashlib.new("2.16.840.1.101.3.4.2.8")`` is SHA3-256 (the modes' are
:func:`batchkeccak.derived.table.object_identifiers`)."""


SHA3SUM_BITS: Mapping[str, str] = MappingProxyType(
    {bits: f"sha3_{bits}" for bits in ("224", "256", "384", "512")}
)
"""sha3sum's names for SHA-3: its ``-a`` takes the bit count alone."""


def canonical_name(
    name: str, names: Iterable[str], identifiers: Mapping[str, str] | None = None
) -> str | None:
    """``name`` as spelled in ``names``, or None: the one place a user's spelling is read.

    Case is ignored and ``-`` is ``_``; a name may also drop its underscores (``keccak256``,
    ``SHA3-256``, ``shake128``, ``kmac256``, ``KT128``, ``hmac-sha3-256``), be an object
    identifier from ``identifiers`` (the rows' :data:`OBJECT_IDENTIFIERS` unless given), or
    a bare bit count as sha3sum's ``-a`` takes it (``256`` is ``sha3_256``).
    """
    if identifiers is None:
        identifiers = OBJECT_IDENTIFIERS
    names = tuple(names)
    key = name.strip().lower().replace("-", "_")
    if key in names:
        return key
    key = identifiers.get(key) or SHA3SUM_BITS.get(key, key)
    if key in names:
        return key
    compact = {known.replace("_", ""): known for known in names}
    return compact.get(key.replace("_", ""))


def get_algorithm(name: object) -> Algorithm:
    """The table row for ``name``; TypeError or ValueError naming the valid choices."""
    if isinstance(name, Algorithm):
        return name
    if not isinstance(name, str):
        raise TypeError(f"algorithm must be a str, got {type(name).__name__}")
    key = canonical_name(name, algorithms)
    if key is None:
        raise unknown_algorithm(name, algorithms)
    return algorithms[key]


EVERY_NAME = "see batchkeccak.algorithms and batchkeccak.modes, or batchkeccak hash --help"
"""Where an unknown name's message sends the user for the full list."""

_SHA2 = re.compile(r"sha(?:2|_?2_)?_?(224|256|384|512)(?:_?(224|256))?")
_NOT_KECCAK = {
    "md5": "MD5",
    "sha1": "SHA-1",
    "sha": "SHA-1",
    "blake2b": "BLAKE2b",
    "blake2s": "BLAKE2s",
    "blake2": "BLAKE2",
    "blake3": "BLAKE3",
    "ripemd160": "RIPEMD-160",
    "sm3": "SM3",
    "whirlpool": "Whirlpool",
    "xxhash": "xxHash",
    "xxh3": "xxHash",
    "xxh64": "xxHash",
    "crc32": "CRC-32",
    "murmur3": "MurmurHash3",
}
"""Hashes a user may reach for that are not Keccak-based: their names, as they are written."""


COMMON_FIRST = ("sha3_256", "keccak_256", "shake_128", "shake_256", "sha3_512", "kmac_256")
"""The names most used, suggested first among equally close ones."""


def did_you_mean(name: str, names: Iterable[str]) -> str:
    """The hint for an unknown ``name`` among ``names``: what it is when it is a well-known
    hash that is not Keccak (SHA-2, BLAKE3...), and the closest names; "" when nothing is
    close. The one place every entry point (``hash_many``, ``hasher``, ``new``, the command
    line's ``-a``, files, tables, SQL, the Polars and pandas accessors) words it."""
    names = tuple(names)
    key = name.strip().lower().replace("-", "_").replace("/", "_")
    compact = key.replace("_", "")
    hint = ""
    sha2 = _SHA2.fullmatch(key) or _SHA2.fullmatch(compact)
    if sha2 is not None:
        bits, truncated = sha2.group(1), sha2.group(2)
        shown = f"SHA-{bits}/{truncated}" if truncated else f"SHA-{bits}"
        close = [f"sha3_{truncated or bits}"]
        hint = f"{shown} is SHA-2, not SHA-3 (hashlib computes it)"
    else:
        family = _NOT_KECCAK.get(compact)
        if family is not None:
            return (
                f"{family} is not a Keccak hash: batchkeccak computes SHA-3, SHAKE, Keccak, "
                "TurboSHAKE and the modes built on them"
            )
        spelled = {known.replace("_", ""): known for known in names}
        # The closest first; among equally close names, the most used (COMMON_FIRST), then
        # the table's order (difflib alone puts keccak_512 before keccak_256).
        matches = difflib.get_close_matches(compact, list(spelled), n=len(spelled), cutoff=0.7)
        order = list(spelled)

        def rank(match: str) -> tuple[float, int, int]:
            score = difflib.SequenceMatcher(None, compact, match).ratio()
            common = spelled[match]
            popular = COMMON_FIRST.index(common) if common in COMMON_FIRST else len(COMMON_FIRST)
            return (-round(score, 6), popular, order.index(match))

        close = [spelled[match] for match in sorted(matches, key=rank)[:3]]
    close = [c for c in close if c in names]
    if close:
        suggestion = f"did you mean {' or '.join(repr(c) for c in close)}?"
        hint = f"{hint}; {suggestion}" if hint else suggestion
    return hint


def unknown_algorithm(name: str, names: Iterable[str], argument: str = "algorithm") -> ValueError:
    """The ValueError for an unknown algorithm ``name`` given as ``argument``: a short
    did-you-mean (:func:`did_you_mean`) and where the full list is, not the list itself."""
    hint = did_you_mean(name, names)
    return ValueError(
        f"unknown {argument} {name!r}: {hint} ({EVERY_NAME})"
        if hint
        else f"unknown {argument} {name!r} ({EVERY_NAME})"
    )
