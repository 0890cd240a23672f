"""Which backend hashes a call: the kernels, or hashlib / pycryptodome one message at a time.

The kernels win by a wide margin on any sizeable batch, but using them has a price up front:
importing numba and loading the compiled kernels from the cache takes a good part of a
second in a fresh process, and every kernel call has a fixed cost of some microseconds. Work
too small to earn that back goes to the one-shot backends (:mod:`batchkeccak.core.oneshot`),
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
import threading
from collections.abc import Iterator
from pathlib import Path

from batchkeccak.core.oneshot import backend_family
from batchkeccak.core.parameters import Algorithm
from batchkeccak.permutation.constants import MIN_TILE_LANES

CROSSOVER_FILE = Path(__file__).with_name("crossover.json")

BACKENDS = ("kernels", "oneshot")

ENVIRONMENT_VARIABLE = "BATCHKECCAK_BACKEND"
"""``BATCHKECCAK_BACKEND=kernels`` (or ``oneshot``) takes the choice away from the limits:
the test suite runs its kernel tests with it, so that a small test batch still tests the
kernels; ``oneshot`` applies only where a one-shot backend has the function. Any other
value is refused by name on the first call that plans (not taken for the default)."""

_INVALID = "invalid"
"""The policy when :data:`ENVIRONMENT_VARIABLE` holds a value that is not a backend."""


def _policy_from_environment() -> str | None:
    value = os.environ.get(ENVIRONMENT_VARIABLE) or None
    return value if value is None or value in BACKENDS else _INVALID


_forced: str | None = _policy_from_environment()
"""The process's policy: :data:`ENVIRONMENT_VARIABLE`'s, or :func:`forced_backend`'s within
its block; None for the measured limits."""

_forced_lock = threading.RLock()
"""Held for the whole of a :func:`forced_backend` block: blocks of two threads run one after
the other, so each restores what it found."""


class _ThreadPolicy(threading.local):
    forced: str | None = None  # a class default: reading it raises nothing (plan's hot path)


_this_thread = _ThreadPolicy()
"""A policy for the calling thread alone (:func:`kernels_on_this_thread`), over the
process's; None: the process's."""


def _invalid_policy() -> ValueError:
    value = os.environ.get(ENVIRONMENT_VARIABLE)
    return ValueError(
        f"{ENVIRONMENT_VARIABLE} must be one of {', '.join(BACKENDS)} (or unset for the "
        f"measured limits), got {value!r}"
    )


def policy() -> str | None:
    """The backend policy in force on the calling thread: ``"kernels"``, ``"oneshot"``, or
    None for the measured limits. ValueError naming :data:`ENVIRONMENT_VARIABLE` when it
    holds anything else."""
    forced = _this_thread.forced or _forced
    if forced is _INVALID:
        raise _invalid_policy()
    return forced


KERNELS = "kernels"
"""A plan (:func:`plan`, :meth:`batchkeccak.core.executor.Executor.plan`): the compiled kernels hash
the work."""
ONESHOT = "oneshot"
"""A plan: hashlib or pycryptodome hash the work, one message at a time."""

KERNEL_MODULE = "batchkeccak.sponge"
"""Once this module is imported, the kernels are (or are about to be) loaded."""


@functools.cache
def crossover() -> dict:
    """``crossover.json``: ``{"inputs": {...}, "limits": {family: {"cold" | "warm":
    {"messages": n, "bytes": n}}}}``."""
    return json.loads(CROSSOVER_FILE.read_text())


def kernels_loaded() -> bool:
    return KERNEL_MODULE in sys.modules


class LoadAccount:
    """The ski-rental account: the estimated microseconds the one-shot backends spent,
    before the kernels loaded, beyond what the kernels would have spent on the same work.

    The kernels load once per process, so a process keeps one account, :data:`ACCOUNT`,
    which :func:`plan` books into; a test or a benchmark passes an account of its own.
    """

    def __init__(self) -> None:
        self.spent_us = 0.0


ACCOUNT = LoadAccount()
"""The process's account (numba's kernels, once loaded, serve every later call)."""


def _extra_us(
    measured: dict, family: str, count: int, threads: int, backend_threads: int
) -> tuple[float, float]:
    """What the backend spends beyond what the kernels, once loaded, would spend: in all for
    ``count`` messages, and per byte (microseconds; neither below zero).

    The kernels' cost per byte depends on how many states share a tile: each thread takes a
    share of the messages, and a thread left with fewer than ``MIN_TILE_LANES`` of them
    runs them one state at a time, at about the backend's own speed (a few large files).
    """
    backend, kernels = (measured["inputs"][family][side] for side in ("backend_us", "kernels_us"))
    threads = max(1, min(threads, count))
    if count // threads >= MIN_TILE_LANES:
        kernel_byte = kernels["byte"]
    else:
        kernel_byte = kernels["one_state_byte"] / threads
    backend_byte = backend["byte"] / max(1, min(backend_threads, count))
    return (
        max(0.0, count * (backend["message"] - kernels["message"])),
        max(0.0, backend_byte - kernel_byte),
    )


def plan(
    spec: Algorithm,
    domain: int,
    count: int,
    total_bytes: int,
    threads: int = 1,
    backend_threads: int = 1,
    account: LoadAccount | None = None,
    family: str | None = None,
) -> str:
    """Which backend hashes ``count`` messages of ``total_bytes`` in all: :data:`ONESHOT` or
    :data:`KERNELS`. The one decision of the package (:meth:`Executor.plan
    <batchkeccak.core.executor.Executor.plan>` asks it; so do the numpy-free file path and the
    one-message finish); work planned ``ONESHOT`` before the kernels load is booked in
    ``account`` (:data:`ACCOUNT` by default).

    Only for a plain function from the all-zero state (the caller checks that): a mode's
    start state is the kernels' business. ``threads`` is what the kernels would run on,
    ``backend_threads`` what the backend runs on (files are read and hashed on several).
    ``family``: the backend family whose measured costs apply, for a mode that has a
    one-shot form of its own (cSHAKE, KMAC and TupleHash through pycryptodome, HMAC-SHA3
    through ``hmac``): then ``spec`` and ``domain`` are not asked.
    """
    forced = _this_thread.forced or _forced  # policy(), inline: this is every call's path
    if forced is _INVALID:
        raise _invalid_policy()
    if family is None:
        family = backend_family(spec, domain)
    if family is None or forced == KERNELS:
        return KERNELS
    if forced == ONESHOT:
        return ONESHOT
    measured = crossover()
    if kernels_loaded():
        limit = measured["limits"][family]["warm"]
        fits = count <= limit["messages"] and total_bytes <= limit["bytes"]
        return ONESHOT if fits else KERNELS
    account = ACCOUNT if account is None else account
    per_messages, per_byte = _extra_us(measured, family, count, threads, backend_threads)
    estimate = per_messages + total_bytes * per_byte
    if account.spent_us + estimate > measured["inputs"]["kernel_load_seconds"] * 1e6:
        return KERNELS
    account.spent_us += estimate
    return ONESHOT


def oneshot_bytes(
    spec: Algorithm,
    domain: int,
    count: int,
    threads: int = 1,
    backend_threads: int = 1,
    account: LoadAccount | None = None,
) -> int:
    """The most bytes ``count`` messages may hold in all and still be planned
    :data:`ONESHOT` (what :func:`plan` would allow, without booking it): -1 when none may.

    For work whose size shows only while it is done (files, measured as they are opened):
    the caller hashes up to this many bytes, then books what it did with :func:`plan`, and
    leaves the rest to the kernels.
    """
    forced = policy()
    family = backend_family(spec, domain)
    if family is None or forced == KERNELS:
        return -1
    if forced == ONESHOT:
        return sys.maxsize
    measured = crossover()
    if kernels_loaded():
        limit = measured["limits"][family]["warm"]
        return limit["bytes"] if count <= limit["messages"] else -1
    per_messages, per_byte = _extra_us(measured, family, count, threads, backend_threads)
    spent = (ACCOUNT if account is None else account).spent_us
    left = measured["inputs"]["kernel_load_seconds"] * 1e6 - spent - per_messages
    if left < 0:
        return -1
    return sys.maxsize if per_byte <= 0 else int(left / per_byte)


def one_stream_to_backend(spec: Algorithm, domain: int) -> bool:
    """Whether one stream hashed alone (a file or standard input, its size unknown) goes to
    hashlib: one stream fills one lane, so there is no batch to share a tile, and OpenSSL's
    one-state code is as fast per block as ours; it then loads no kernels (it starts in
    milliseconds, its memory stays near Python's own). So whatever the policy in force
    (which must still be a valid one)."""
    policy()
    return backend_family(spec, domain) == "hashlib"


@contextlib.contextmanager
def forced_backend(backend: str | None) -> Iterator[None]:
    """Within the block, every call of the process goes to ``backend`` (``"kernels"``,
    ``"oneshot"``, or None for the measured limits); for tests and benchmarks.

    The process-wide setting is swapped under a lock held for the whole block, so blocks
    entered by two threads run one after the other and each restores what it found (a
    thread that waits on another thread's block from inside its own would wait forever).
    The library itself never swaps it: :func:`kernels_on_this_thread` is its form.
    """
    global _forced
    if backend is not None and backend not in BACKENDS:
        raise ValueError(f"backend must be one of {BACKENDS} or None, got {backend!r}")
    with _forced_lock:
        previous, _forced = _forced, backend
        try:
            yield
        finally:
            _forced = previous


@contextlib.contextmanager
def kernels_on_this_thread() -> Iterator[None]:
    """Within the block, the calling thread's calls go to the kernels; other threads keep
    the process's policy. For :func:`batchkeccak.warmup` and the loads before a timed run:
    they need the kernels loaded, not every thread of the process moved to them."""
    previous, _this_thread.forced = _this_thread.forced, KERNELS
    try:
        yield
    finally:
        _this_thread.forced = previous
