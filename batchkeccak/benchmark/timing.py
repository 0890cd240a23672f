"""Best-of-N timing with interleaved repeats, and the TSC rate for cycle counts."""

from __future__ import annotations

import gc
import platform
import time
from collections.abc import Callable

import numpy as np


def _timed(fn: Callable[[], object]) -> float:
    # As timeit does: a collection starting inside one repeat would be charged to it alone.
    enabled = gc.isenabled()
    gc.disable()
    try:
        start = time.perf_counter()
        fn()
        return time.perf_counter() - start
    finally:
        if enabled:
            gc.enable()


def interleaved(
    candidates: dict[str, Callable[[], object]], repeats: int
) -> dict[str, list[float]]:
    """Time each candidate ``repeats`` times, round-robin, and return every time in seconds.

    Round-robin rather than one candidate after the other, so that a burst of load from
    elsewhere on the machine slows both sides of a ratio instead of one.
    """
    times: dict[str, list[float]] = {key: [] for key in candidates}
    for _ in range(repeats):
        for key, fn in candidates.items():
            times[key].append(_timed(fn))
    return times


def tsc_hz() -> float | None:
    """The time-stamp counter's rate in Hz on x86-64 (read with RDTSC), else None."""
    if platform.machine().lower() not in ("x86_64", "amd64"):
        return None
    try:
        from llvmlite import ir
        from numba import njit, types
        from numba.core import cgutils
        from numba.extending import intrinsic

        @intrinsic
        def _rdtsc(typingctx):
            def codegen(context, builder, signature, args):
                fnty = ir.FunctionType(ir.IntType(64), [])
                fn = cgutils.get_or_insert_function(builder.module, fnty, "llvm.x86.rdtsc")
                return builder.call(fn, [])

            return types.uint64(), codegen

        @njit
        def read_tsc():
            return _rdtsc()

        read_tsc()
        rates = []
        for _ in range(3):
            t0, c0 = time.perf_counter_ns(), read_tsc()
            time.sleep(0.02)
            t1, c1 = time.perf_counter_ns(), read_tsc()
            rates.append((int(c1) - int(c0)) / (t1 - t0) * 1e9)
        rate = float(np.median(rates))
        return rate if rate > 1e6 else None
    except Exception:  # noqa: BLE001  an unreadable counter is a missing column, not a failure
        return None
