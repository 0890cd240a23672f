"""One hash function bound to its output size and thread count, fed whole levels at once."""

from __future__ import annotations

import numpy as np

from batchkeccak import _parallel
from batchkeccak.algorithms import Algorithm, get_algorithm
from batchkeccak.hashers import output_length, plain_hasher
from batchkeccak.inputs import readonly, rows_to_flat

PAIRS_PER_CALL = 1 << 14
"""Parent messages assembled per batch call when a level's messages must be copied first
(sorted pairs, a 0x01 prefix): large enough that each call keeps 16 cores busy and its fixed
cost (about 0.1 ms) stays under 2 % of it, small enough that the scratch buffer (1 MiB of
64-byte messages) adds little to the tree instead of another copy of a level."""


class Hasher:
    """``algorithm`` with a fixed output size and thread count.

    Parameters
    ----------
    algorithm
        A name from ``batchkeccak.algorithms`` or an :class:`~batchkeccak.Algorithm`.
    length
        Output bytes for the extendable-output functions; None for the others.
    threads
        As for :func:`batchkeccak.hash_many`.
    """

    def __init__(self, algorithm: object, length: object = None, threads: object = None):
        self.spec: Algorithm = get_algorithm(algorithm)
        self.size: int = output_length(self.spec, length)
        self.threads: int = _parallel.resolve_threads(threads)
        self._hasher = plain_hasher(self.spec, length, self.threads)

    @property
    def name(self) -> str:
        return self.spec.name

    def rows(self, messages: np.ndarray, out: np.ndarray | None = None) -> np.ndarray:
        """Hash every row of a C-contiguous (k, w) uint8 array; returns (k, size)."""
        data, offsets = rows_to_flat(messages)
        return self._hasher.hash_flat(data, offsets, out=out, equal_lengths=True)

    def flat(self, data: np.ndarray, offsets: np.ndarray) -> np.ndarray:
        """Hash validated (data, int64 offsets) messages; returns (n, size)."""
        return self._hasher.hash_flat(readonly(data), readonly(offsets))

    def one(self, message: bytes) -> bytes:
        """The digest of one message (a proof step).

        Skips the batch path, whose scheduling costs about 30 us per call, six times the hash
        itself: a proof is a chain of single hashes.
        """
        return self._hasher.hash_one(message)
