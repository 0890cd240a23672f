"""The kernel layer's numba cache is keyed on all of its files together."""

from __future__ import annotations

import re

from batchkeccak import _kernel_cache
from batchkeccak.permutation import _unrolled
from batchkeccak.sponge import hash_queue


def test_kernels_use_the_layer_wide_stamp():
    assert _kernel_cache.INSTALLED
    for kernel in (hash_queue, _unrolled.tile_permute, _unrolled.state_permute):
        locator = kernel._cache._impl.locator
        assert locator.get_source_stamp() == ("batchkeccak-kernels", _kernel_cache.kernel_fingerprint())


def test_fingerprint_covers_every_kernel_file():
    names = {p.relative_to(_kernel_cache.PACKAGE_DIR).as_posix() for p in _kernel_cache.kernel_sources()}
    assert {"sponge.py", "permutation/_unrolled.py", "permutation/constants.py"} <= names


def test_no_jitted_code_outside_the_layer_calls_into_it():
    # A cached jitted function that calls kernel-layer code would carry a copy of the layer in
    # its own cache entry, stamped only with its own file: an edit to the layer would leave it
    # stale. (Uncached jitted functions, like the benchmark's timing loops, are compiled fresh.)
    covered = set(_kernel_cache.kernel_sources())
    offenders = []
    for path in _kernel_cache.PACKAGE_DIR.rglob("*.py"):
        if path in covered:
            continue
        text = path.read_text()
        if re.search(r"jit\([^)]*cache=True", text) and re.search(
            r"from batchkeccak(\.sponge|\.permutation)[\w.]* import|import batchkeccak\.(sponge|permutation)",
            text,
        ):
            offenders.append(path.name)
    assert offenders == [], f"cached jitted modules importing kernel-layer code: {offenders}"
