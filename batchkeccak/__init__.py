"""batchkeccak: SHA-3, SHAKE, Keccak-256 and TurboSHAKE over many messages at once.

Layers, bottom up: ``batchkeccak.permutation`` (Keccak-p[1600] over SIMD tiles),
``batchkeccak.sponge`` (absorb, pad, squeeze many messages), ``batchkeccak.algorithms`` (the
parameter table), ``batchkeccak.api`` (``hash_many``), then the integrations
(``batchkeccak.arrow``, ``batchkeccak.parquet``, ``batchkeccak.merkle``, ``batchkeccak.dask``).

Importing batchkeccak compiles nothing: kernels compile (or load from numba's cache) on first use.
"""

from batchkeccak import _kernel_cache  # noqa: F401  (before any kernel is defined)
from batchkeccak.algorithms import Algorithm, algorithms
from batchkeccak.api import hash_many, hash_one, hasher, hexdigest_many, tuplehash_many, warmup
from batchkeccak.hashers import Hasher
from batchkeccak.inputs import FlatMessages
from batchkeccak.modes import (
    kt128,
    kt256,
    modes,
    parallelhash_128,
    parallelhash_256,
    parallelhash_xof_128,
    parallelhash_xof_256,
)

__version__ = "0.1.0"

__all__ = [
    "Algorithm",
    "FlatMessages",
    "Hasher",
    "__version__",
    "algorithms",
    "hash_many",
    "hash_one",
    "hasher",
    "hexdigest_many",
    "kt128",
    "kt256",
    "modes",
    "parallelhash_128",
    "parallelhash_256",
    "parallelhash_xof_128",
    "parallelhash_xof_256",
    "tuplehash_many",
    "warmup",
]
