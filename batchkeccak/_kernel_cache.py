"""Make numba's on-disk cache notice changes to any file of the kernel layer, not just one.

numba keys a cached function on the contents of the file that defines it. The sponge kernel
inlines functions from other files (the generated permutation, which reads the round
constants), so after an edit to ``permutation/`` a cached ``hash_queue`` would still run the old
permutation: a stale cache could produce wrong digests. For functions defined in the kernel
layer (``KERNEL_SOURCES``) the source stamp is therefore a hash of all of those files. Jitted
functions elsewhere in the package must not call into the kernel layer from jitted code
(``tests/test_kernel_cache.py`` checks this), so numba's per-file stamp is enough for them.

This hooks numba's cache locator classes, which numba does not document as public; the hook
is tested on every numba the project supports. If a numba release ever moves them, the hook
stays off and the kernel layer is not cached at all (``CACHE_KERNELS`` is False): each process
compiles the kernels again (about 20 s), which is slow but can never run stale code.
"""

from __future__ import annotations

import functools
import hashlib
from pathlib import Path

PACKAGE_DIR = Path(__file__).resolve().parent




def kernel_sources() -> list[Path]:
    """The files whose jitted functions are compiled into one another."""
    return sorted([
        PACKAGE_DIR / "sponge.py",
        PACKAGE_DIR / "sponge_states.py",
        *(PACKAGE_DIR / "permutation").glob("*.py"),
    ])


@functools.lru_cache(maxsize=1)
def kernel_fingerprint() -> str:
    """SHA-256 over the relative path and contents of every kernel source."""
    digest = hashlib.sha256()
    for path in kernel_sources():
        digest.update(str(path.relative_to(PACKAGE_DIR)).encode())
        digest.update(path.read_bytes())
    return digest.hexdigest()


def _is_kernel_source(py_file: str) -> bool:
    try:
        return Path(py_file).resolve() in kernel_sources()
    except OSError:
        return False


def _package_locator(base: type) -> type:
    class PackageLocator(base):  # type: ignore[misc, valid-type]
        def get_source_stamp(self):
            return ("batchkeccak-kernels", kernel_fingerprint())

        @classmethod
        def from_function(cls, py_func, py_file):
            if not _is_kernel_source(py_file):
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

CACHE_KERNELS = INSTALLED
"""What the kernel layer passes as numba's ``cache=``: on disk only while the package-wide
stamp guards it."""
