"""What a run produced: rows, workloads, targets; as tables, JSON and a plot."""

from __future__ import annotations

import json
import math
import os
import platform
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from batchkeccak.benchmark.config import PRESETS, SuiteConfig

SCHEMA_VERSION = 1
"""Bumped whenever the JSON layout changes incompatibly."""


@dataclass
class Row:
    """One implementation timed on one workload; ``seconds`` holds every repeat.

    Rates use the best repeat; MB are 10^6 bytes.
    """

    key: str
    """Stable name that targets refer to: ``batchkeccak-1``, ``batchkeccak-all``, ``hashlib``."""
    label: str
    threads: int
    items: int
    """Messages (or permutations, in the layer workloads) one timed call processes."""
    nbytes: int
    """Message bytes one timed call hashes."""
    seconds: list[float]
    size: int | None = None
    """Message size in bytes when all messages of the row share one."""
    note: str = ""

    @property
    def best(self) -> float:
        return min(self.seconds)

    @property
    def ns_per_item(self) -> float:
        return self.best / self.items * 1e9 if self.items else math.nan

    @property
    def mb_per_s(self) -> float:
        return self.nbytes / self.best / 1e6 if self.nbytes and self.best > 0 else math.nan

    def to_dict(self) -> dict[str, Any]:
        return {
            "key": self.key,
            "label": self.label,
            "threads": self.threads,
            "items": self.items,
            "bytes": self.nbytes,
            "size": self.size,
            "best_s": self.best,
            "repeats_s": self.seconds,
            "ns_per_item": _finite(self.ns_per_item),
            "mb_per_s": _finite(self.mb_per_s),
            "note": self.note,
        }


@dataclass
class Workload:
    """The rows measured for one workload, with what they mean."""

    name: str
    title: str
    algorithm: str | None
    item: str
    rows: list[Row] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    figures: dict[str, float] = field(default_factory=dict)
    """Derived figures (cycles, shares, ratios) that belong to no single row."""

    def row(self, key: str) -> Row | None:
        return next((row for row in self.rows if row.key == key), None)

    def to_dict(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "title": self.title,
            "algorithm": self.algorithm,
            "item": self.item,
            "rows": [row.to_dict() for row in self.rows],
            "notes": self.notes,
            "figures": {k: _finite(v) for k, v in self.figures.items()},
        }


@dataclass(frozen=True)
class Target:
    """A goal from the project's issue, checked against one workload's rows.

    ``metric`` is ``"speed"`` (MB/s of ``key`` over MB/s of ``baseline``), ``"time"`` (best
    seconds of ``key`` over those of ``baseline``) or ``"seconds"`` (best seconds of ``key``).
    ``sizes`` names the :class:`SuiteConfig` fields that make the workload ``text``
    describes: a run whose values differ from the full preset's measured another workload,
    and its ratio is reported without a verdict.
    """

    workload: str
    key: str
    baseline: str | None
    metric: str
    op: str
    threshold: float
    text: str
    algorithm: str | None = None
    sizes: tuple[str, ...] = ()


_SMALL = ("small_count", "small_size")
_LARGE = ("large_count", "large_size")

TARGETS: tuple[Target, ...] = (
    Target(
        "small",
        "batchkeccak-1",
        "hashlib",
        "speed",
        ">=",
        6.0,
        "2^20 x 32 B from (N, 32) array, 1 thread / hashlib loop",
        "sha3_256",
        _SMALL,
    ),
    Target(
        "small",
        "batchkeccak-all",
        "hashlib",
        "speed",
        ">=",
        10.0,
        "2^20 x 32 B from (N, 32) array, all threads / hashlib loop",
        "sha3_256",
        _SMALL,
    ),
    Target(
        "small_keccak",
        "batchkeccak-all",
        "safe-pysha3",
        "speed",
        ">=",
        10.0,
        "2^20 x 32 B keccak_256, all threads / safe-pysha3 loop",
        "keccak_256",
        _SMALL,
    ),
    Target(
        "small_keccak",
        "batchkeccak-all",
        "eth-hash",
        "speed",
        ">=",
        70.0,
        "2^20 x 32 B keccak_256, all threads / eth-hash loop",
        "keccak_256",
        _SMALL,
    ),
    Target(
        "large",
        "batchkeccak-1",
        "hashlib",
        "speed",
        ">=",
        3.0,
        "64 x 1 MiB, 1 thread / hashlib one-shot",
        "sha3_256",
        _LARGE,
    ),
    Target(
        "large",
        "batchkeccak-all",
        "hashlib",
        "speed",
        ">=",
        5.5,
        "64 x 1 MiB, all threads / hashlib one-shot",
        "sha3_256",
        _LARGE,
    ),
    Target(
        "varied",
        "varied",
        "equal",
        "speed",
        ">=",
        0.85,
        "2^18 log-uniform 0..4 KiB / equal-length, bytes/s, all threads",
        None,
        ("varied_count", "varied_max"),
    ),
    Target(
        "single",
        "batchkeccak-all",
        "hashlib",
        "speed",
        ">=",
        0.9,
        "one 64 MiB message / hashlib one-shot",
        "sha3_256",
        ("single_size",),
    ),
    Target(
        "forms",
        "to_flat",
        "flat",
        "time",
        "<=",
        0.30,
        "list of 2^20 bytes: to_flat time / hashing time of the flat result",
        None,
        _SMALL,
    ),
    Target(
        "startup",
        "warm-process",
        None,
        "seconds",
        "<=",
        1.5,
        "fresh process, warm cache: import + hash_many([b'x']), wall s",
    ),
    Target(
        "startup",
        "cold-first-call",
        None,
        "seconds",
        "<=",
        30.0,
        "fresh process, empty cache: first hash_many, wall s",
    ),
    Target(
        "startup",
        "warm-first-call",
        None,
        "seconds",
        "<=",
        0.45,
        "fresh process, warm cache: kernels ready (numba's import included), s",
    ),
    Target(
        "startup",
        "warm-first-call-without-scipy",
        None,
        "seconds",
        "<=",
        0.45,
        "the same where SciPy is not installed (numba imports its BLAS if it is), s",
    ),
    Target(
        "startup",
        "small-process",
        "hashlib-loop-process",
        "time",
        "<=",
        1.5,
        "import batchkeccak + hash_many([b'x'] * 100) / numpy + a hashlib loop, process",
    ),
    Target(
        "startup",
        "batchkeccak-small-files",
        "sha256sum-small-files",
        "time",
        "<=",
        1.5,
        "batchkeccak hash / sha256sum, 20,000 files of 1 KiB (bench/startup.py --files)",
    ),
    Target(
        "startup",
        "batchkeccak-big-files",
        "openssl-big-files",
        "time",
        "<=",
        1.0,
        "batchkeccak hash / openssl dgst -sha3-256, 8 files of 64 MiB (--files)",
    ),
)
"""The project's targets. A run at other sizes reports the same ratios for its own
workloads, with no verdict: a target holds for the workload its text names."""

FULL_SIZES = PRESETS["full"]
"""The sizes the targets are stated for (``python bench/run.py``, ``batchkeccak bench --full``)."""


@dataclass
class TargetResult:
    """A target's ratio as measured; ``met`` is None when the run measured other sizes than
    the target names (``measured_on`` says which)."""

    target: Target
    value: float
    met: bool | None
    measured_on: str = ""

    @property
    def applies(self) -> bool:
        return self.met is not None

    def to_dict(self) -> dict[str, Any]:
        t = self.target
        return {
            "workload": t.workload,
            "text": t.text,
            "metric": t.metric,
            "op": t.op,
            "threshold": t.threshold,
            "value": _finite(self.value),
            "applies": self.applies,
            "met": self.met,
            "measured_on": self.measured_on,
        }


@dataclass
class Report:
    """Everything one run measured."""

    config: SuiteConfig
    machine: dict[str, Any]
    compile_s: dict[str, float] = field(default_factory=dict)
    workloads: list[Workload] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    targets: list[TargetResult] = field(default_factory=list)

    def workload(self, name: str) -> Workload | None:
        return next((workload for workload in self.workloads if workload.name == name), None)

    def to_dict(self) -> dict[str, Any]:
        config = {
            k: (list(v) if isinstance(v, tuple) else v) for k, v in self.config.__dict__.items()
        }
        return {
            "schema": SCHEMA_VERSION,
            "config": config,
            "machine": self.machine,
            "compile_s": self.compile_s,
            "workloads": [w.to_dict() for w in self.workloads],
            "targets": [t.to_dict() for t in self.targets],
            "notes": self.notes,
        }

    def write_json(self, path: str | os.PathLike) -> None:
        """Write :meth:`to_dict` as indented JSON, creating parent folders."""
        path = os.fspath(path)
        parent = os.path.dirname(path)
        if parent:
            os.makedirs(parent, exist_ok=True)
        with open(path, "w", encoding="utf-8") as fh:
            json.dump(self.to_dict(), fh, indent=2)
            fh.write("\n")


def size_text(size: int) -> str:
    """``4096`` as ``"4 KiB"``, ``32`` as ``"32 B"``."""
    for unit, scale in (("MiB", 1 << 20), ("KiB", 1 << 10)):
        if size >= scale and size % scale == 0:
            return f"{size // scale} {unit}"
    return f"{size} B"


def _finite(value: float) -> float | None:
    return None if value is None or not math.isfinite(value) else float(value)


def evaluate_targets(report: Report, targets: Iterable[Target] = TARGETS) -> list[TargetResult]:
    """Every target whose workload ran (with the algorithm it names) and its measured value.

    Parameters
    ----------
    report
        A report with some workloads; targets of the others are left out, not failed.
    targets
        The goals to check, :data:`TARGETS` by default.

    Returns
    -------
    list of TargetResult
        One per target that could be evaluated, in the order of ``targets``; ``met`` is None
        for a target whose workload ran at other sizes than :data:`FULL_SIZES`.
    """
    results = []
    for target in targets:
        workload = report.workload(target.workload)
        if workload is None:
            continue
        if target.algorithm is not None and workload.algorithm != target.algorithm:
            continue
        row = workload.row(target.key)
        base = workload.row(target.baseline) if target.baseline else None
        if row is None or (target.baseline and base is None):
            continue
        if target.metric == "speed":
            value = row.mb_per_s / base.mb_per_s  # type: ignore[union-attr]  # base is set whenever the target has a baseline (checked above)
        elif target.metric == "time":
            value = row.best / base.best  # type: ignore[union-attr]  # base is set whenever the target has a baseline (checked above)
        else:
            value = row.best
        measured_on = _measured_on(row)
        if not applies_to(target, report.config):
            results.append(TargetResult(target, value, None, measured_on))
            continue
        met = value >= target.threshold if target.op == ">=" else value <= target.threshold
        results.append(TargetResult(target, value, bool(met), measured_on))
    return results


def applies_to(target: Target, config: SuiteConfig) -> bool:
    """Whether ``config`` builds the workload ``target`` is stated for (its full size)."""
    return all(getattr(config, name) == getattr(FULL_SIZES, name) for name in target.sizes)


def _measured_on(row: Row) -> str:
    if row.size is not None and row.items:
        return f"{row.items:,} x {size_text(row.size)}"
    return f"{row.items:,} items, {row.nbytes / 1e6:,.1f} MB" if row.nbytes else ""


def machine_info() -> dict[str, Any]:
    """What the figures were measured on."""
    import numba

    import batchkeccak
    from batchkeccak.core.parallel import available_cores
    from batchkeccak.permutation import TILE_WIDTH, vector_width

    cpu = platform.processor() or platform.machine()
    try:
        with open("/proc/cpuinfo", encoding="utf-8") as fh:
            for line in fh:
                if line.startswith("model name"):
                    cpu = line.split(":", 1)[1].strip()
                    break
    except OSError:
        pass
    info: dict[str, Any] = {
        "cpu": cpu,
        "cores_available": available_cores(),
        "cpu_count": os.cpu_count(),
        "platform": platform.platform(),
        "python": platform.python_version(),
        "numpy": np.__version__,
        "numba": numba.__version__,
        "batchkeccak": batchkeccak.__version__,
        "tile_width": TILE_WIDTH,
        # 256 or 512 where the kernels carry both tile permutations (AVX-512F), else None.
        "tile_bits": vector_width.tile_bits() if vector_width.compiles_wide_tiles() else None,
    }
    if hasattr(os, "getloadavg"):
        info["load_average_start"] = list(os.getloadavg())
    return info


def _fmt(value: float, digits: int = 1) -> str:
    if value is None or not math.isfinite(value):
        return "-"
    return f"{value:,.{digits}f}"


def _table(header: Sequence[str], rows: Sequence[Sequence[str]], left: int = 1) -> list[str]:
    widths = [max(len(str(cell)) for cell in column) for column in zip(header, *rows)]
    lines = []
    for cells in [header, *rows]:
        parts = [
            str(c).ljust(w) if i < left else str(c).rjust(w)
            for i, (c, w) in enumerate(zip(cells, widths))
        ]
        lines.append("  ".join(parts).rstrip())
    lines.insert(1, "  ".join("-" * w for w in widths))
    return lines


def _format_compare(workload: Workload) -> list[str]:
    bases = [r for r in workload.rows if r.key.startswith("batchkeccak-")]
    header = ["implementation", "messages timed", "best s", f"ns/{workload.item}", "MB/s"]
    header += [f"{r.label.replace('batchkeccak, ', 'bk ')}: x faster" for r in bases]
    header.append("note")
    body = []
    for row in workload.rows:
        cells = [
            row.label,
            f"{row.items:,}",
            _fmt(row.best, 4),
            _fmt(row.ns_per_item),
            _fmt(row.mb_per_s),
        ]
        for base in bases:
            mine = any(row is b for b in bases)
            cells.append("" if mine else f"{base.mb_per_s / row.mb_per_s:,.2f}x")
        cells.append(row.note)
        body.append(cells)
    return _table(header, body)


def _format_generic(workload: Workload) -> list[str]:
    header = ["what", "items", "best s", f"ns/{workload.item}", "MB/s", "note"]
    body = [
        [r.label, f"{r.items:,}", _fmt(r.best, 4), _fmt(r.ns_per_item), _fmt(r.mb_per_s), r.note]
        for r in workload.rows
    ]
    return _table(header, body)


def _format_startup(workload: Workload) -> list[str]:
    header = ["what", "best s", "runs"]
    body = [
        [r.label, _fmt(r.best, 3), ", ".join(f"{s:.2f}" for s in r.seconds)] for r in workload.rows
    ]
    return _table(header, body)


def _format_sweep(workload: Workload) -> list[str]:
    labels: list[str] = []
    sizes: list[int] = []
    table: dict[tuple[str, int], float] = {}
    for row in workload.rows:
        if row.label not in labels:
            labels.append(row.label)
        if row.size not in sizes:
            sizes.append(row.size)  # type: ignore[arg-type]  # a size sweep's rows all have a size
        table[(row.label, row.size)] = row.mb_per_s  # type: ignore[index]  # a size sweep's rows all have a size
    header = ["MB/s by size", *labels]
    body = [
        [size_text(s), *(_fmt(table.get((label, s), math.nan)) for label in labels)] for s in sizes
    ]
    return _table(header, body)


def format_report(report: Report) -> str:
    """The whole report as plain-text tables, one per workload, then the targets.

    Parameters
    ----------
    report
        What :func:`batchkeccak.benchmark.run_suite` returned.

    Returns
    -------
    str
        Lines of at most a few hundred characters, no trailing newline.
    """
    m = report.machine
    lines = [
        (
            f"batchkeccak {m.get('batchkeccak')} benchmark ({report.config.preset} sizes, best "
            f"of {report.config.repeats}) on {m.get('cpu')}, {m.get('cores_available')} cores, "
            f"tile width {m.get('tile_width')}"
            + (f" in {m['tile_bits']}-bit registers" if m.get("tile_bits") else "")
        ),
    ]
    if m.get("tsc_hz"):
        lines.append(f"TSC {m['tsc_hz'] / 1e9:.2f} GHz")
    load = m.get("load_average_start")
    if load:
        lines.append(f"load average at start {', '.join(f'{x:.2f}' for x in load)}")
        if load[0] > 0.5 * (m.get("cores_available") or 1):
            lines.append(
                "the machine was busy with other work: compare the ratios, which "
                "were measured side by side, rather than absolute times"
            )
    for what, seconds in report.compile_s.items():
        lines.append(f"compile: {what}: {seconds:.2f} s (not in any figure below)")
    for workload in report.workloads:
        lines += ["", f"== {workload.name}: {workload.title}"]
        if workload.name == "sweep":
            lines += _format_sweep(workload)
        elif workload.name == "startup":
            lines += _format_startup(workload)
        elif any(r.key.startswith("batchkeccak-") for r in workload.rows):
            lines += _format_compare(workload)
        else:
            lines += _format_generic(workload)
        lines += [f"   {note}" for note in workload.notes]
    if report.targets:
        lines += ["", f"== targets (measured at {report.config.preset} sizes)"]
        body = []
        for result in report.targets:
            t = result.target
            unit = " s" if t.metric == "seconds" else "x"
            status = ("met" if result.met else "MISSED") if result.applies else "-"
            body.append(
                [
                    t.text,
                    f"{result.value:,.2f}{unit}",
                    result.measured_on,
                    f"{t.op} {t.threshold:g}{unit}",
                    status,
                ]
            )
        lines += _table(["target", "measured", "on", "needed", "status"], body)
        if not all(result.applies for result in report.targets):
            lines.append(
                f"   ({report.config.preset} run: the ratios above were measured on this run's "
                "smaller workloads; the targets apply to the full suite, `python bench/run.py`"
                " or `batchkeccak bench --full`, and a '-' marks those not judged here)"
            )
    if report.notes:
        lines += [""] + [f"note: {note}" for note in report.notes]
    return "\n".join(lines)


def plot_throughput(report: Report, path: str | os.PathLike) -> None:
    """Draw the ``sweep`` workload as MB/s against message size, a line per implementation.

    Raises
    ------
    ValueError
        When the report has no sweep.
    ImportError
        When matplotlib is missing (it is in the ``bench`` extra).
    """
    sweep = report.workload("sweep")
    if sweep is None or not sweep.rows:
        raise ValueError("the report has no 'sweep' workload to plot")
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    series: dict[str, list[tuple[int, float]]] = {}
    for row in sweep.rows:
        series.setdefault(row.label, []).append((row.size, row.mb_per_s))  # type: ignore[arg-type]  # a size sweep's rows all have a size
    fig, ax = plt.subplots(figsize=(8, 5), dpi=120)
    for label, points in series.items():
        points.sort()
        style = "-" if label.startswith("batchkeccak") else "--"
        ax.plot(
            [p[0] for p in points],
            [p[1] for p in points],
            style,
            marker="o",
            markersize=4,
            linewidth=2 if label.startswith("batchkeccak") else 1.3,
            label=label,
        )
    ax.set_xscale("log", base=2)
    ax.set_yscale("log")
    sizes = sorted({p[0] for points in series.values() for p in points})
    ax.set_xticks(sizes)
    ax.set_xticklabels([size_text(s).replace(" ", "\u2009") for s in sizes], rotation=45)
    ax.set_xlabel("message size")
    ax.set_ylabel("throughput, MB/s (log scale)")
    m = report.machine
    ax.set_title(
        f"{sweep.algorithm}: throughput by message size\n{m.get('cpu')}, "
        f"{m.get('cores_available')} cores, best of {report.config.sweep_repeats}",
        fontsize=10,
    )
    ax.grid(True, which="major", alpha=0.4)
    ax.grid(True, which="minor", axis="y", alpha=0.15)
    ax.legend(fontsize=9)
    fig.tight_layout()
    parent = os.path.dirname(os.fspath(path))
    if parent:
        os.makedirs(parent, exist_ok=True)
    fig.savefig(path)
    plt.close(fig)
