"""Which backend hashes a call: the kernels, or hashlib / pycryptodome one message at a time.

The kernels win by a wide margin on any sizeable batch, but using them has a price up front:
importing numba and loading the compiled kernels from the cache takes a good part of a
second in a fresh process, and every kernel call has a fixed cost of some microseconds. Work
too small to earn that back goes to the one-shot backends (:mod:`batchkeccak.oneshot`),
which need neither. ``python bench/crossover.py --write`` measures on the reference machine
what each side costs and stores it in ``crossover.json`` beside this file, per backend
family (``hashlib`` for SHA-3 and SHAKE, ``pycryptodome`` for Keccak and TurboSHAKE):

- ``inputs``: the kernels' load time, and each side's cost per call, per message and per byte;
- ``limits``: what follows from them. ``cold``: the largest single call the backend takes in
  a process that has not loaded the kernels (its extra time stays under the load time);
  ``warm``: the same once they are loaded (a kernel call's fixed cost against the backend's).

Before the kernels are loaded, the backend takes calls while the estimated extra time of all
the work it has taken so far stays under the load time; past that, the kernels load and take
everything above the warm limits from then on. (So a process that makes many calls, each
small, is not left paying the backend's higher price per byte forever: it pays at most about
twice what the kernels would have cost it, as in the ski-rental problem.)

Digests are the same on both sides (tests/test_dispatch.py checks every entry point on both
sides against the oracles).
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
def crossover() -> dict:
    """``crossover.json``: ``{"inputs": {...}, "limits": {family: {"cold" | "warm":
    {"messages": n, "bytes": n}}}}``."""
    return json.loads(CROSSOVER_FILE.read_text())


def kernels_loaded() -> bool:
    return KERNEL_MODULE in sys.modules


_spent_us = 0.0
"""Estimated microseconds the one-shot backends spent, before the kernels loaded, beyond
what the kernels would have spent on the same work."""


def use_oneshot(spec: Algorithm, domain: int, count: int, total_bytes: int) -> bool:
    """Whether ``count`` messages of ``total_bytes`` in all go to the one-shot backend.

    Only for a plain function from the all-zero state (the caller checks that): a mode's
    start state is the kernels' business.
    """
    global _spent_us
    family = backend_family(spec, domain)
    if family is None or _forced == "kernels":
        return False
    if _forced == "oneshot":
        return True
    measured = crossover()
    if kernels_loaded():
        limit = measured["limits"][family]["warm"]
        return count <= limit["messages"] and total_bytes <= limit["bytes"]
    # What the backend costs more than the kernels would, once loaded.
    backend, kernels = (measured["inputs"][family][side] for side in ("backend_us", "kernels_us"))
    estimate = max(0.0, count * (backend["message"] - kernels["message"])) + max(
        0.0, total_bytes * (backend["byte"] - kernels["byte"])
    )
    if _spent_us + estimate > measured["inputs"]["kernel_load_seconds"] * 1e6:
        return False
    _spent_us += estimate
    return True


def oneshot_bytes(spec: Algorithm, domain: int, count: int) -> int:
    """The most bytes ``count`` messages may hold in all and still go to the one-shot backend
    (what :func:`use_oneshot` would allow, without taking it): -1 when none may.

    For work whose size shows only while it is done (files, measured as they are opened):
    the caller hashes up to this many bytes, then reports what it did with
    :func:`use_oneshot`, and leaves the rest to the kernels.
    """
    family = backend_family(spec, domain)
    if family is None or _forced == "kernels":
        return -1
    if _forced == "oneshot":
        return sys.maxsize
    measured = crossover()
    if kernels_loaded():
        limit = measured["limits"][family]["warm"]
        return limit["bytes"] if count <= limit["messages"] else -1
    backend, kernels = (measured["inputs"][family][side] for side in ("backend_us", "kernels_us"))
    left = (measured["inputs"]["kernel_load_seconds"] * 1e6 - _spent_us
            - max(0.0, count * (backend["message"] - kernels["message"])))
    if left < 0:
        return -1
    gain = backend["byte"] - kernels["byte"]
    return sys.maxsize if gain <= 0 else int(left / gain)


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
