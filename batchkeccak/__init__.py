"""batchkeccak: SHA-3, SHAKE, Keccak-256 and TurboSHAKE over many messages at once.

Layers, bottom up: ``batchkeccak.permutation`` (Keccak-p[1600] over SIMD tiles),
``batchkeccak.sponge`` (absorb, pad, squeeze many messages), ``batchkeccak.algorithms`` (the
parameter table), ``batchkeccak.api`` (``hash_many``), then the integrations
(``batchkeccak.arrow``, ``batchkeccak.parquet``, ``batchkeccak.merkle``, ``batchkeccak.dask``).

Importing batchkeccak compiles nothing: kernels compile (or load from numba's cache) on first use.
"""

from batchkeccak import _kernel_cache  # noqa: F401  (before any kernel is defined)
from batchkeccak import streams as _streams
from batchkeccak.algorithms import Algorithm, algorithms
from batchkeccak.api import hash_many, hash_one, hasher, hexdigest_many, tuplehash_many, warmup
from batchkeccak.files import file_digest, hash_files
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
from batchkeccak.streams import KeccakHash, StreamHasher, algorithms_available, new

# One hashlib-style constructor per algorithm of the table: bk.sha3_256(data), ...
globals().update({_name: getattr(_streams, _name) for _name in algorithms})

__version__ = "0.1.0"

__all__ = [
    "Algorithm",
    "FlatMessages",
    "Hasher",
    "KeccakHash",
    "StreamHasher",
    "__version__",
    "algorithms",
    "algorithms_available",
    "file_digest",
    "hash_files",
    "hash_many",
    "hash_one",
    "hasher",
    "hexdigest_many",
    "kt128",
    "kt256",
    "modes",
    "new",
    "parallelhash_128",
    "parallelhash_256",
    "parallelhash_xof_128",
    "parallelhash_xof_256",
    "tuplehash_many",
    "warmup",
]
__all__.extend(algorithms)  # the hashlib-style constructors, one per row of the table
