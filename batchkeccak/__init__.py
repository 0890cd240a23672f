"""batchkeccak: SHA-3, SHAKE, Keccak-256 and TurboSHAKE over many messages at once.

Layers, bottom up: ``batchkeccak.permutation`` (Keccak-p[1600] over SIMD tiles),
``batchkeccak.sponge`` (absorb, pad, squeeze many messages), ``batchkeccak.core.parameters`` (the
parameter table), ``batchkeccak.api`` (``hash_many``), then the integrations
(``batchkeccak.arrow``, ``batchkeccak.parquet``, ``batchkeccak.merkle``, ``batchkeccak.dask``).

Importing batchkeccak compiles nothing and loads neither numba nor numpy: each public name is
imported from its module on first use (PEP 562), so a command that needs no kernel (``--help``,
one file through ``batchkeccak hash``) starts in milliseconds. Kernels compile (or load from
numba's cache) on first use.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING

__version__ = "0.1.0"

# names: begin ALGORITHM_NAMES (written by python bench/names.py from the table)
ALGORITHM_NAMES = (
    "sha3_224", "sha3_256", "sha3_384", "sha3_512", "shake_128", "shake_256", "keccak_224",
    "keccak_256", "keccak_384", "keccak_512", "turboshake128", "turboshake256",
)  # fmt: skip
# names: end
"""The rows of ``batchkeccak.algorithms``, each also a hashlib-style constructor here
(``bk.sha3_256(data)``): a literal, so that ``import batchkeccak`` loads no table;
``tests/test_table_coverage.py`` checks that it is what ``bench/names.py`` writes."""

_EXPORTS = {
    "Algorithm": "batchkeccak.core.parameters",
    "algorithms": "batchkeccak.core.parameters",
    "FlatMessages": "batchkeccak.inputs",
    "Hasher": "batchkeccak.core.hashers",
    "hash_many": "batchkeccak.api",
    "hash_one": "batchkeccak.api",
    "hasher": "batchkeccak.api",
    "hexdigest_many": "batchkeccak.api",
    "tuplehash_many": "batchkeccak.derived",
    "diff": "batchkeccak.tables",
    "segment_digests": "batchkeccak.tables",
    "table_digest": "batchkeccak.tables",
    "warmup": "batchkeccak.api",
    "file_digest": "batchkeccak.files",
    "hash_files": "batchkeccak.files",
    "kt128": "batchkeccak.derived",
    "kt256": "batchkeccak.derived",
    "modes": "batchkeccak.derived",
    "parallelhash_128": "batchkeccak.derived",
    "parallelhash_256": "batchkeccak.derived",
    "parallelhash_xof_128": "batchkeccak.derived",
    "parallelhash_xof_256": "batchkeccak.derived",
    "KeccakHash": "batchkeccak.streams",
    "StreamHasher": "batchkeccak.streams",
    "UncachedKernelsWarning": "batchkeccak.native.jit",
    "algorithms_available": "batchkeccak.streams",
    "new": "batchkeccak.streams",
    **dict.fromkeys(ALGORITHM_NAMES, "batchkeccak.streams"),
}

# names: begin __all__ (written by python bench/names.py: _EXPORTS' names and the rows)
__all__ = [
    "Algorithm", "FlatMessages", "Hasher", "KeccakHash", "StreamHasher", "UncachedKernelsWarning",
    "__version__", "algorithms", "algorithms_available", "diff", "file_digest", "hash_files",
    "hash_many", "hash_one", "hasher", "hexdigest_many", "keccak_224", "keccak_256", "keccak_384",
    "keccak_512", "kt128", "kt256", "modes", "new", "parallelhash_128", "parallelhash_256",
    "parallelhash_xof_128", "parallelhash_xof_256", "segment_digests", "sha3_224", "sha3_256",
    "sha3_384", "sha3_512", "shake_128", "shake_256", "table_digest", "tuplehash_many",
    "turboshake128", "turboshake256", "warmup",
]  # fmt: skip
# names: end


def __getattr__(name: str) -> object:
    module = _EXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module 'batchkeccak' has no attribute {name!r}")
    value = getattr(importlib.import_module(module), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    # The public names only: not this module's own imports (importlib, TYPE_CHECKING,
    # annotations) nor its tables.
    return sorted(__all__)


if TYPE_CHECKING:  # what the names above resolve to, for type checkers and editors
    from batchkeccak.api import (
        hash_many,
        hash_one,
        hasher,
        hexdigest_many,
        warmup,
    )
    from batchkeccak.core.hashers import Hasher
    from batchkeccak.core.parameters import Algorithm, algorithms
    from batchkeccak.derived import (
        kt128,
        kt256,
        modes,
        parallelhash_128,
        parallelhash_256,
        parallelhash_xof_128,
        parallelhash_xof_256,
        tuplehash_many,
    )
    from batchkeccak.files import file_digest, hash_files
    from batchkeccak.inputs import FlatMessages
    from batchkeccak.native.jit import UncachedKernelsWarning
    from batchkeccak.tables.changes import diff
    from batchkeccak.tables.digest import table_digest
    from batchkeccak.tables.segments import segment_digests

if TYPE_CHECKING:  # the hashlib-style objects and one constructor per row
    # names: begin streams (written by python bench/names.py from the table)
    from batchkeccak.streams import (
        KeccakHash,
        StreamHasher,
        algorithms_available,
        keccak_224,
        keccak_256,
        keccak_384,
        keccak_512,
        new,
        sha3_224,
        sha3_256,
        sha3_384,
        sha3_512,
        shake_128,
        shake_256,
        turboshake128,
        turboshake256,
    )
    # names: end
