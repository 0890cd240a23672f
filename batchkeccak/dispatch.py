"""Which backend hashes a call: the kernels, or hashlib / pycryptodome one message at a time.

The kernels win by a wide margin on any sizeable batch, but using them has a price up front:
importing numba and loading the compiled kernels from the cache takes a good part of a
second in a fresh process, and every kernel call has a fixed cost of some microseconds. Work
too small to earn that back goes to the one-shot backends (:mod:`batchkeccak.oneshot`),
which need neither. The limits are measured on the reference machine by
``python bench/crossover.py`` and stored in ``crossover.json`` beside this file, one entry
per backend family:

``cold``
    the largest call (messages and bytes) still done by the backend while the kernels are
    not loaded in this process: past it, loading them costs less than the backend's extra
    time;
``warm``
    the same once the kernels are loaded (a kernel call's fixed cost against the backend's).

Digests are the same on both sides of a limit (the test suite checks each entry point just
below and just above them against the oracles).
"""

from __future__ import annotations

import contextlib
import functools
import json
import os
import sys
from collections.abc import Iterator
from pathlib import Path

from batchkeccak.oneshot import backend_family
from batchkeccak.parameters import Algorithm

CROSSOVER_FILE = Path(__file__).with_name("crossover.json")

BACKENDS = ("kernels", "oneshot")

_forced: str | None = os.environ.get("BATCHKECCAK_BACKEND") or None
"""``BATCHKECCAK_BACKEND=kernels`` (or ``oneshot``) takes the choice away from the limits:
the test suite runs its kernel tests with it, so that a small test batch still tests the
kernels; ``oneshot`` applies only where a one-shot backend has the function."""

KERNEL_MODULE = "batchkeccak.sponge"
"""Once this module is imported, the kernels are (or are about to be) loaded."""


@functools.cache
def crossover() -> dict[str, dict[str, dict[str, int]]]:
    """The measured limits: ``{family: {"cold" | "warm": {"messages": n, "bytes": n}}}``."""
    return json.loads(CROSSOVER_FILE.read_text())["limits"]


def kernels_loaded() -> bool:
    return KERNEL_MODULE in sys.modules


def use_oneshot(spec: Algorithm, domain: int, count: int, total_bytes: int) -> bool:
    """Whether ``count`` messages of ``total_bytes`` in all go to the one-shot backend.

    Only for a plain function from the all-zero state (the caller checks that): a mode's
    start state is the kernels' business.
    """
    family = backend_family(spec, domain)
    if family is None or _forced == "kernels":
        return False
    if _forced == "oneshot":
        return True
    limits = crossover().get(family)
    if limits is None:
        return False
    limit = limits["warm" if kernels_loaded() else "cold"]
    return count <= limit["messages"] and total_bytes <= limit["bytes"]


@contextlib.contextmanager
def forced_backend(backend: str | None) -> Iterator[None]:
    """Within the block, every call goes to ``backend`` (``"kernels"``, ``"oneshot"``, or
    None for the measured limits); for tests and benchmarks."""
    global _forced
    if backend is not None and backend not in BACKENDS:
        raise ValueError(f"backend must be one of {BACKENDS} or None, got {backend!r}")
    previous, _forced = _forced, backend
    try:
        yield
    finally:
        _forced = previous
