"""Helpers the benchmark scripts share: best-of timing and the CPU's name for the records.

The scripts run as ``python bench/X.py``, which puts this folder first on ``sys.path``, so
each imports this module as ``_common``.
"""

from __future__ import annotations

import gc
import platform
import time
from pathlib import Path


def best_of(repeats: int, func, *args) -> tuple[float, object]:
    """The least wall time of ``repeats`` calls of ``func(*args)``, and the last call's result."""
    best, result = float("inf"), None
    for _ in range(repeats):
        gc.collect()
        started = time.perf_counter()
        result = func(*args)
        best = min(best, time.perf_counter() - started)
    return best, result


def best(function, repeats: int) -> float:
    """The least wall time of ``repeats`` calls of ``function()``."""
    times = []
    for _ in range(repeats):
        started = time.perf_counter()
        function()
        times.append(time.perf_counter() - started)
    return min(times)


def cpu_model() -> str:
    """The CPU's model name from /proc/cpuinfo, else what ``platform`` says."""
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine()
