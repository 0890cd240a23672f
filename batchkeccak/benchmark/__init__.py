"""The benchmark harness: workloads, competitor adapters, best-of-N timing, tables, JSON, plot.

Layers are timed apart, bottom up:

``permutation``
    ``tile_permute`` and ``state_permute`` called from a jitted loop, so that no Python call
    overhead is measured: nanoseconds (and TSC cycles) per state per permutation.
``absorb``
    ``sponge.run_jobs`` on one thread, straight on flat buffers: the sponge without the API.
``small``, ``small_keccak``, ``large``, ``varied``, ``single``
    ``hash_many`` as users call it, next to the other Keccak implementations in a Python loop.
``forms``
    ``hash_many`` per input form, and the cost of turning a list of ``bytes`` into the flat
    layout (``inputs.to_flat``) next to hashing the flat result.
``sweep``
    Throughput against message size, one series per implementation (the plot).
``startup``
    Fresh interpreters: import and first call, with a warm and an empty kernel cache.

Every comparison is a ratio of figures measured in the same process, with the repeats of
batchkeccak and of its baseline interleaved: on a shared machine absolute times drift, but
noise then hits both sides of a ratio alike. Each figure is the best of its repeats. Kernel
compilation happens before any timing and is reported on its own. Competitor digests are
checked against batchkeccak's on a sample of every workload before they are timed: a
mismatch raises :class:`DigestMismatch` rather than report the speed of a wrong answer.
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable, Iterable, Sequence

from batchkeccak.benchmark import competitors as _competitors
from batchkeccak.benchmark import workloads as _workloads
from batchkeccak.benchmark.competitors import (
    COMPETITORS,
    Adapter,
    Competitor,
    DigestMismatch,
    check_digests,
    resolve_competitors,
)
from batchkeccak.benchmark.config import PRESETS, WORKLOADS, SuiteConfig
from batchkeccak.benchmark.report import (
    TARGETS,
    Report,
    Row,
    Target,
    TargetResult,
    Workload,
    evaluate_targets,
    format_report,
    machine_info,
    plot_throughput,
)
from batchkeccak.benchmark.startup import measure_startup
from batchkeccak.benchmark.timing import interleaved, tsc_hz

__all__ = [
    "COMPETITORS",
    "PRESETS",
    "TARGETS",
    "WORKLOADS",
    "Adapter",
    "Competitor",
    "DigestMismatch",
    "Report",
    "Row",
    "SuiteConfig",
    "Target",
    "TargetResult",
    "Workload",
    "check_digests",
    "evaluate_targets",
    "format_report",
    "interleaved",
    "machine_info",
    "measure_startup",
    "plot_throughput",
    "resolve_competitors",
    "run_suite",
    "tsc_hz",
]


def run_suite(
    config: SuiteConfig,
    *,
    workloads: Iterable[str] | None = None,
    competitors: Sequence[Competitor] | None = None,
    log: Callable[[str], None] | None = None,
) -> Report:
    """Run the chosen workloads (all but ``startup`` by default) and return the report.

    Parameters
    ----------
    config
        Sizes and repeats, usually ``PRESETS[name]`` or a ``scaled`` copy of one.
    workloads
        Names from :data:`WORKLOADS`, run in that tuple's order whatever the order given.
    competitors
        The implementations to compare with; default :data:`COMPETITORS`. Those that are not
        installed are skipped with a note in ``Report.notes``.
    log
        Called with a line of progress before and after each workload.

    Returns
    -------
    Report
        Every row measured, compile times, machine details and the targets evaluated.

    Raises
    ------
    DigestMismatch
        When any implementation disagrees with batchkeccak on a checked message.
    ValueError
        For an unknown workload name.
    """
    import batchkeccak

    chosen = [w for w in WORKLOADS if w != "startup"] if workloads is None else list(workloads)
    unknown = sorted(set(chosen) - set(WORKLOADS))
    if unknown:
        raise ValueError(
            f"unknown workload(s) {', '.join(unknown)}; choose from {', '.join(WORKLOADS)}"
        )
    from batchkeccak.core.parameters import get_algorithm

    get_algorithm(config.algorithm)
    log = log or (lambda message: None)
    if competitors is None:
        competitors = _competitors.COMPETITORS
    ctx = _workloads.Context(config, competitors, log)
    report = Report(config, machine_info())
    report.notes = ctx.notes

    started = time.perf_counter()
    batchkeccak.warmup()
    report.compile_s["kernels (compile or cache load)"] = time.perf_counter() - started
    ctx.tsc_hz = tsc_hz()
    report.machine["tsc_hz"] = ctx.tsc_hz

    for name in WORKLOADS:
        if name not in chosen:
            continue
        if name == "small_keccak" and config.algorithm == "keccak_256":
            continue  # "small" already is that workload
        log(f"running {name} ...")
        started = time.perf_counter()
        report.workloads.append(_workloads.RUNNERS[name](ctx))
        log(f"  {name} done in {time.perf_counter() - started:.1f} s")
    report.compile_s.update(ctx.compile_s)
    if hasattr(os, "getloadavg"):
        report.machine["load_average_end"] = list(os.getloadavg())
    report.targets = evaluate_targets(report)
    return report
