"""Make numba's on-disk cache notice changes to *any* kernel source, not just the caller's file.

numba keys a cached function on the contents of the file that defines it. Our kernels inline
functions from other files (the sponge calls the generated permutation, which reads the round
constants), so after an edit to ``permutation/`` a cached ``hash_queue`` would still run the old
permutation: a stale cache could produce wrong digests. For functions defined in this package
the source stamp is therefore a hash of every Python file in the package.

This hooks numba's cache locator classes (not a public API); if they ever move, the hook stays
off and numba's per-file behaviour applies.
"""

from __future__ import annotations

import functools
import hashlib
from pathlib import Path

PACKAGE_DIR = Path(__file__).resolve().parent


@functools.lru_cache(maxsize=1)
def package_fingerprint() -> str:
    """SHA-256 over the relative path and contents of every .py file of the package."""
    digest = hashlib.sha256()
    for path in sorted(PACKAGE_DIR.rglob("*.py")):
        digest.update(str(path.relative_to(PACKAGE_DIR)).encode())
        digest.update(path.read_bytes())
    return digest.hexdigest()


def _in_package(py_file: str) -> bool:
    try:
        Path(py_file).resolve().relative_to(PACKAGE_DIR)
    except (ValueError, OSError):
        return False
    return True


def _package_locator(base: type) -> type:
    class PackageLocator(base):  # type: ignore[misc, valid-type]
        def get_source_stamp(self):
            return ("batchkeccak", package_fingerprint())

        @classmethod
        def from_function(cls, py_func, py_file):
            if not _in_package(py_file):
                return None
            return super().from_function(py_func, py_file)

    PackageLocator.__name__ = PackageLocator.__qualname__ = f"Batchkeccak{base.__name__}"
    return PackageLocator


def install() -> bool:
    """Put the package-wide locators first in numba's list; True if installed."""
    try:
        from numba.core import caching
    except ImportError:
        return False
    impl = getattr(caching, "CacheImpl", None) or getattr(caching, "_CacheImpl", None)
    bases = [
        getattr(caching, name, None) or getattr(caching, f"_{name}", None)
        for name in ("UserProvidedCacheLocator", "InTreeCacheLocator", "UserWideCacheLocator")
    ]
    if impl is None or not hasattr(impl, "_locator_classes") or None in bases:
        return False
    if any(cls.__name__.startswith("Batchkeccak") for cls in impl._locator_classes):
        return True
    impl._locator_classes[:0] = [_package_locator(base) for base in bases]
    return True


INSTALLED = install()
