"""The other Keccak implementations, as adapters, and the digest cross-check."""

from __future__ import annotations

import importlib
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from typing import Any, NamedTuple

import numpy as np


class DigestMismatch(RuntimeError):
    """A competitor (or one batchkeccak configuration) produced a different digest."""


class Adapter(NamedTuple):
    """One implementation of one algorithm: a digest function and a loop over messages."""

    digest: Callable[[bytes], bytes]
    loop: Callable[[Sequence[bytes]], None]


@dataclass(frozen=True)
class Competitor:
    """Another Keccak implementation to time, imported only when asked for.

    ``factory(algorithm, length)`` returns an :class:`Adapter`, None when the library lacks
    the algorithm, and raises ImportError when the library is not installed.
    """

    name: str
    package: str
    factory: Callable[[str, int | None], Adapter | None]

    @property
    def label(self) -> str:
        return f"{self.name} loop"


def _digest_loop(new: Callable[[bytes], Any]) -> Adapter:
    # The loop is written out with the constructor bound to a local so the competitor pays
    # the least Python overhead it can: the ratios must not flatter batchkeccak.
    def loop(messages: Sequence[bytes]) -> None:
        for m in messages:
            new(m).digest()

    return Adapter(lambda m: new(m).digest(), loop)


def _xof_loop(new: Callable[[bytes], Any], length: int | None) -> Adapter:
    if length is None:
        raise ValueError("an XOF's competitor loop needs an output length")

    def loop(messages: Sequence[bytes]) -> None:
        for m in messages:
            new(m).digest(length)

    return Adapter(lambda m: new(m).digest(length), loop)


def _hashlib(algorithm: str, length: int | None) -> Adapter | None:
    import hashlib

    if algorithm not in hashlib.algorithms_available or not algorithm.startswith(("sha3", "shake")):
        return None
    new = getattr(hashlib, algorithm)
    return _xof_loop(new, length) if algorithm.startswith("shake") else _digest_loop(new)


def _pysha3(algorithm: str, length: int | None) -> Adapter | None:
    import sha3  # safe-pysha3

    new = getattr(sha3, algorithm, None)
    if new is None:
        return None
    return _xof_loop(new, length) if algorithm.startswith("shake") else _digest_loop(new)


def _pycryptodome(algorithm: str, length: int | None) -> Adapter | None:
    import Crypto.Hash  # noqa: F401  (the ImportError that says "not installed")

    # Module by module: an older pycryptodome without TurboSHAKE still offers SHA-3.
    if algorithm.startswith("sha3_"):
        module = importlib.import_module(f"Crypto.Hash.SHA3_{algorithm[5:]}")
        return _digest_loop(module.new)
    if algorithm.startswith("keccak_"):
        from Crypto.Hash import keccak

        bits = int(algorithm.split("_")[1])
        keccak_new = keccak.new

        def loop(messages: Sequence[bytes]) -> None:
            for m in messages:
                keccak_new(data=m, digest_bits=bits).digest()

        return Adapter(lambda m: keccak_new(data=m, digest_bits=bits).digest(), loop)
    if algorithm.startswith("shake_"):
        shake_new = importlib.import_module(f"Crypto.Hash.SHAKE{algorithm[6:]}").new

        def loop(messages: Sequence[bytes]) -> None:
            for m in messages:
                shake_new(m).read(length)

        return Adapter(lambda m: shake_new(m).read(length), loop)
    if algorithm.startswith("turboshake"):
        try:
            turbo_new = importlib.import_module(f"Crypto.Hash.TurboSHAKE{algorithm[10:]}").new
        except ImportError:
            return None  # pycryptodome < 3.21

        def loop(messages: Sequence[bytes]) -> None:
            for m in messages:
                turbo_new().update(m).read(length)

        return Adapter(lambda m: turbo_new().update(m).read(length), loop)
    return None


def _eth_hash(algorithm: str, length: int | None) -> Adapter | None:
    if algorithm != "keccak_256":
        return None
    from eth_hash.auto import keccak

    def loop(messages: Sequence[bytes]) -> None:
        for m in messages:
            keccak(m)

    return Adapter(keccak, loop)


COMPETITORS: tuple[Competitor, ...] = (
    Competitor("hashlib", "(standard library)", _hashlib),
    Competitor("safe-pysha3", "safe-pysha3", _pysha3),
    Competitor("pycryptodome", "pycryptodome", _pycryptodome),
    Competitor("eth-hash", "eth-hash[pycryptodome]", _eth_hash),
)
"""The implementations batchkeccak is compared with, in table order."""


def resolve_competitors(
    competitors: Iterable[Competitor], algorithm: str, length: int | None, notes: list[str]
) -> list[tuple[Competitor, Adapter]]:
    """The competitors that can hash ``algorithm`` here; the others are skipped with a note."""
    found = []
    for competitor in competitors:
        try:
            adapter = competitor.factory(algorithm, length)
        except ImportError as exc:
            note = f"{competitor.name} skipped: not installed ({competitor.package}; {exc})"
            if note not in notes:
                notes.append(note)
            continue
        if adapter is not None:
            found.append((competitor, adapter))
    return found


def sample_indices(count: int, size: int) -> np.ndarray:
    """Evenly spread indices into ``count`` messages, always including the first and last."""
    if count <= size:
        return np.arange(count)
    return np.unique(np.linspace(0, count - 1, size).astype(np.int64))


def check_digests(
    name: str,
    digest: Callable[[bytes], bytes],
    messages: Callable[[int], bytes],
    expected: np.ndarray,
    indices: Iterable[int],
    context: str,
) -> None:
    """Raise :class:`DigestMismatch` unless ``digest(messages(i)) == expected[i]`` for all i."""
    for i in indices:
        message = messages(int(i))
        theirs = bytes(digest(message))
        ours = expected[int(i)].tobytes()
        if theirs != ours:
            raise DigestMismatch(
                f"{context}: {name} and batchkeccak disagree on message {int(i)} "
                f"({len(message)} bytes): {theirs.hex()} != {ours.hex()}"
            )


def check_same(context: str, what: str, got: np.ndarray, expected: np.ndarray) -> None:
    """Raise :class:`DigestMismatch` unless two batchkeccak results are identical."""
    if got.shape != expected.shape or not np.array_equal(got, expected):
        where = ""
        if got.shape == expected.shape:
            first = np.flatnonzero(np.any(got != expected, axis=1))[:1]
            where = f" (first at message {int(first[0])})" if len(first) else ""
        raise DigestMismatch(f"{context}: {what} disagrees with batchkeccak, 1 thread{where}")
