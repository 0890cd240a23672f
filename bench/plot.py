"""Draw the docs' pictures from the benchmarks' JSON, each with the CPU and load it was taken at.

    python bench/plot.py JSON [JSON ...] OUT_DIR
    python bench/plot.py --layers OUT_DIR

Each JSON file is recognised by its layout:

- a ``sweep`` workload (``bench/bench_throughput.py --json``, or ``bench/run.py --json``):
  throughput against message size, log-log, as ``throughput.svg`` and a smaller
  ``throughput-small.svg`` (for the README);
- ``bench/bench_tables.py --json`` results, one file per row count: table digest and diff
  time against rows beside DuckDB, as ``tables.svg`` (all the files given, by row count).

``--layers`` draws the package's layers (docs/architecture.md's picture) as ``layers.svg``;
it needs no measurement. Images are SVG with their text kept as text, so they stay small and
diff as text (``--format png`` draws PNG instead). Needs matplotlib (in the ``bench`` and ``test`` extras).
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

THROUGHPUT = "throughput"
THROUGHPUT_SMALL = "throughput-small"
TABLES = "tables"
LAYERS = "layers"

THROUGHPUT_COMMAND = (
    "python bench/bench_throughput.py --json bench/results/throughput.json && "
    "python bench/plot.py bench/results/throughput.json docs/images/"
)
TABLES_COMMAND = "python bench/bench_tables.py --rows N --tasks ... --json tables-N.json"

# Series in drawing order: (label prefix, colour, line style, line width)
_STYLES = (
    ("batchkeccak, 1 thread, 256", "#6baed6", "-", 1.6),
    ("batchkeccak, 1 thread", "#2171b5", "-", 2.2),
    ("batchkeccak", "#08306b", "-", 2.4),
    ("hashlib", "#d94801", "--", 1.5),
    ("pycryptodome", "#8c6d31", "--", 1.5),
    ("DuckDB", "#238b45", ":", 1.8),
)


def _pyplot():
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    plt.rcParams.update(
        {
            "svg.fonttype": "none",  # text as text: small files, crisp at any size
            "svg.hashsalt": "batchkeccak",  # ids that do not change from one drawing to the next
            "font.family": "sans-serif",
        }
    )
    return plt


def _save(fig, path: Path) -> None:
    fmt = path.suffix.lstrip(".")
    if fmt == "svg":
        fig.savefig(path, format=fmt, metadata={"Date": None})
    else:
        fig.savefig(path, format=fmt, dpi=110)


def _style(label: str) -> tuple[str, str, float]:
    for prefix, colour, line, width in _STYLES:
        if label.startswith(prefix):
            return colour, line, width
    return "#636363", "-.", 1.4


def _size_text(size: int) -> str:
    for unit, scale in (("MiB", 1 << 20), ("KiB", 1 << 10)):
        if size >= scale and size % scale == 0:
            return f"{size // scale} {unit}"
    return f"{size} B"


def _count_text(count: int) -> str:
    """``300000`` as ``300k``, ``3000000`` as ``3M``."""
    for unit, scale in (("M", 1_000_000), ("k", 1_000)):
        if count >= scale:
            return f"{count / scale:g}{unit}"
    return str(count)


def _plain_numbers(axis) -> None:
    """Log-scale ticks written as 0.5, 2, 1000 rather than 5x10^-1, 2x10^0, 10^3."""
    from matplotlib.ticker import FuncFormatter

    def minor(value: float, _: object) -> str:
        leading = f"{value:.0e}"[0]  # the 2 and the 5 of each decade
        return f"{value:,.10g}" if leading in "25" else ""

    axis.set_major_formatter(FuncFormatter(lambda value, _: f"{value:,.10g}"))
    axis.set_minor_formatter(FuncFormatter(minor))


def _load_text(start: Any, end: Any) -> str:
    """``load 4.1-6.3`` from two ``os.getloadavg()`` triples (their 1-minute figures)."""
    figures = [triple[0] for triple in (start, end) if triple]
    if not figures:
        return "load average not recorded"
    low, high = min(figures), max(figures)
    if f"{low:.1f}" == f"{high:.1f}":
        return f"load average {low:.1f}"
    return f"load average {low:.1f}-{high:.1f}"


def _machine_text(machine: dict[str, Any]) -> str:
    flags = machine.get("cpu_flags")
    if flags is None:
        simd = ""
    elif "avx512f" in flags:
        simd = ", AVX-512"
    elif "avx2" in flags:
        simd = ", AVX2"
    else:
        simd = ", no AVX2"
    cores = machine.get("cores_available") or machine.get("cpu_count")
    return f"{machine.get('cpu', 'unknown CPU')}{simd}, {cores} cores"


def plot_throughput(report: dict[str, Any], folder: Path, fmt: str = "svg") -> list[Path]:
    """``throughput.svg`` and ``throughput-small.svg`` from a report with a sweep workload."""
    sweep = next((w for w in report.get("workloads", []) if w.get("name") == "sweep"), None)
    if sweep is None or not sweep.get("rows"):
        raise ValueError("the JSON has no 'sweep' workload with rows to plot")
    series: dict[str, list[tuple[int, float]]] = {}
    for row in sweep["rows"]:
        if row.get("size") and row.get("mb_per_s"):
            series.setdefault(row["label"], []).append((row["size"], row["mb_per_s"]))
    if not series:
        raise ValueError("the JSON's 'sweep' rows have no sizes and rates to plot")
    machine = report.get("machine", {})
    algorithm = sweep.get("algorithm") or "sha3_256"
    repeats = report.get("config", {}).get("sweep_repeats")
    caption = (
        f"{_machine_text(machine)}; "
        f"{_load_text(machine.get('load_average_start'), machine.get('load_average_end'))}"
        + (f"; best of {repeats}" if repeats else "")
    )
    plt = _pyplot()
    written = []
    for name, size, small in (
        (THROUGHPUT, (8.0, 5.0), False),
        (THROUGHPUT_SMALL, (6.0, 3.6), True),
    ):
        fig, ax = plt.subplots(figsize=size)
        order = sorted(series, key=lambda label: -max(rate for _, rate in series[label]))
        for label in order:
            points = sorted(series[label])
            colour, line, width = _style(label)
            ax.plot(
                [p[0] for p in points],
                [p[1] for p in points],
                line,
                color=colour,
                linewidth=width,
                marker="o",
                markersize=2.5 if small else 3.5,
                label=label,
            )
        ax.set_xscale("log", base=2)
        ax.set_yscale("log")
        sizes = sorted({p[0] for points in series.values() for p in points})
        ticks = sizes if len(sizes) <= 8 else sizes[:: max(1, len(sizes) // 8)]
        ax.set_xticks(ticks)
        ax.set_xticklabels([_size_text(s) for s in ticks], fontsize=8)
        _plain_numbers(ax.yaxis)
        ax.tick_params(axis="y", labelsize=8)
        ax.set_xlabel("message size (log scale)", fontsize=9)
        ax.set_ylabel("MB/s (log scale)", fontsize=9)
        title = f"{algorithm} over many messages: throughput by message size"
        ax.set_title(f"{title}\n{caption}", fontsize=8 if small else 9.5)
        ax.grid(True, which="major", alpha=0.35)
        ax.legend(fontsize=6.5 if small else 8, loc="best", framealpha=0.9)
        fig.tight_layout()
        path = folder / f"{name}.{fmt}"
        _save(fig, path)
        plt.close(fig)
        written.append(path)
    return written


def plot_tables(runs: list[dict[str, Any]], folder: Path, fmt: str = "svg") -> list[Path]:
    """``tables.svg``: seconds against rows for digest and diff, beside DuckDB."""
    if not runs:
        raise ValueError("no bench_tables.py JSON to plot")
    runs = sorted(runs, key=lambda run: run["rows"])
    panels = (
        (
            "table digest",
            (
                ("bk-digest-key", 'batchkeccak table_digest(key="id")', "#08306b", "-"),
                ("bk-digest-unordered", "batchkeccak table_digest() (no key)", "#6baed6", "-"),
                ("duckdb-digest", "DuckDB sha256 of each row, string_agg", "#238b45", ":"),
            ),
        ),
        (
            "diff (keys and kinds of change)",
            (
                ("bk-diff", 'batchkeccak diff(key="id")', "#08306b", "-"),
                ("bk-diff-columns", "batchkeccak diff with changed_columns", "#6baed6", "-"),
                ("duckdb-join", "DuckDB FULL OUTER JOIN on hash()", "#238b45", ":"),
                ("duckdb-except", "DuckDB EXCEPT ALL both ways", "#74c476", "--"),
            ),
        ),
    )
    cpus = sorted({run.get("cpu", "unknown CPU") for run in runs})
    flags = set().union(*(run.get("cpu_flags", []) for run in runs))
    simd = ", AVX-512" if "avx512f" in flags else ", AVX2" if "avx2" in flags else ""
    loads = [
        triple[0]
        for run in runs
        for triple in (run.get("load_average_start"), run.get("load_average_end"))
        if triple
    ]
    load = f"load average {min(loads):.1f}-{max(loads):.1f}" if loads else "load not recorded"
    threads = sorted({str(run.get("threads", "?")) for run in runs})
    caption = (
        f"{' / '.join(cpus)}{simd}, {'/'.join(threads)} threads; {load}; "
        "Parquet files of 6 columns, 0.1 % of rows differ"
    )
    from matplotlib.ticker import NullFormatter

    plt = _pyplot()
    fig, axes = plt.subplots(1, 2, figsize=(9.0, 4.2))
    drawn = 0
    for ax, (title, tasks) in zip(axes, panels):
        for task, label, colour, line in tasks:
            points = [
                (run["rows"], run["results"][task]["seconds"])
                for run in runs
                if task in run.get("results", {})
            ]
            if not points:
                continue
            drawn += 1
            ax.plot(
                [p[0] for p in points],
                [p[1] for p in points],
                line,
                color=colour,
                linewidth=2,
                marker="o",
                markersize=4,
                label=label,
            )
        ax.set_xscale("log")
        ax.set_yscale("log")
        counts = [run["rows"] for run in runs]
        ax.set_xticks(counts)
        ax.set_xticklabels([_count_text(n) for n in counts])
        ax.xaxis.set_minor_formatter(NullFormatter())
        _plain_numbers(ax.yaxis)
        ax.set_title(title, fontsize=10)
        ax.set_xlabel("rows per table (log scale)", fontsize=9)
        ax.set_ylabel("seconds, best of the repeats (log scale)", fontsize=9)
        ax.tick_params(labelsize=8)
        ax.grid(True, which="major", alpha=0.35)
        if ax.get_legend_handles_labels()[0]:
            ax.legend(fontsize=7.5, loc="upper left")
    if not drawn:
        raise ValueError("the tables JSON has none of the digest or diff tasks")
    fig.suptitle(caption, fontsize=8.5)
    fig.tight_layout()
    path = folder / f"{TABLES}.{fmt}"
    _save(fig, path)
    plt.close(fig)
    return [path]


# The layers, top to bottom: (name, modules, what it does)
LAYER_ROWS = (
    ("cli, benchmark", "cli/  benchmark/", "the batchkeccak command; the benchmark suite"),
    (
        "integrations",
        "arrow  parquet  duckdb  polars  pandas  dask  spark  ray  merkle/  ethereum/  tables/",
        "columns, files, engines, Merkle trees, Ethereum, table digests and diffs",
    ),
    (
        "api",
        "api.py  streams.py  files.py",
        "hasher(), hash_many, hashlib-style objects, many streams, many files",
    ),
    (
        "modes",
        "derived/",
        "cSHAKE, KMAC, HMAC, TupleHash, ParallelHash, KT128: hashers over the sponge",
    ),
    ("hasher", "core/hashers.py  core/stored_states.py", "an algorithm resolved once; threads"),
    ("reading", "io/", "files and streams read (never hashed): batches, chunks, lines"),
    ("input boundary", "inputs/", "every input form -> one checked (data, offsets) view"),
    (
        "table and utilities",
        "core/parameters  oneshot  dispatch  parallel;  support/",
        "the parameter table; hashlib for small work; threads",
    ),
    (
        "sponge",
        "sponge/",
        "run_jobs: one lane scheduler absorbs, pads, squeezes many messages",
    ),
    (
        "permutation",
        "permutation/",
        "Keccak-p[1600] over a tile of 32 states (256- or 512-bit) and over one state",
    ),
    (
        "native",
        "native/  (jit.py  words.py  emitters.py)",
        "njit and numba's cache; word loads and stores; LLVM IR emitters",
    ),
)


def plot_layers(folder: Path, fmt: str = "svg") -> list[Path]:
    """``layers.svg``: the package's layers as a stack, each above the ones it may import."""
    from matplotlib.patches import FancyArrowPatch, FancyBboxPatch

    plt = _pyplot()
    count = len(LAYER_ROWS)
    fig = plt.figure(figsize=(9.0, 0.52 * count + 0.7))
    ax = fig.add_axes((0.0, 0.0, 1.0, 1.0))
    height = 0.52 * count + 0.7
    ax.set_xlim(0, 9.0)
    ax.set_ylim(0, height)
    ax.axis("off")
    colours = ("#deebf7", "#c6dbef", "#9ecae1")
    for k, (name, modules, what) in enumerate(LAYER_ROWS):
        y = height - 0.45 - 0.52 * (k + 1)
        ax.add_patch(
            FancyBboxPatch(
                (0.35, y + 0.04),
                8.5,
                0.42,
                boxstyle="round,pad=0.0,rounding_size=0.06",
                facecolor=colours[0] if k < 4 else colours[1] if k < 8 else colours[2],
                edgecolor="#4a6f8a",
                linewidth=0.8,
            )
        )
        ax.text(0.5, y + 0.25, name, fontsize=9, fontweight="bold", va="center")
        ax.text(2.55, y + 0.33, modules, fontsize=7.5, family="monospace", va="center")
        ax.text(2.55, y + 0.15, what, fontsize=7.5, va="center", color="#333333")
    ax.add_patch(
        FancyArrowPatch(
            (0.18, height - 0.55),
            (0.18, 0.2),
            arrowstyle="-|>",
            mutation_scale=10,
            color="#4a6f8a",
            linewidth=1.0,
        )
    )
    ax.text(
        4.6,
        height - 0.25,
        "batchkeccak's layers: each imports only the layers below it (tests/test_layers.py)",
        fontsize=9.5,
        ha="center",
        va="center",
    )
    path = folder / f"{LAYERS}.{fmt}"
    _save(fig, path)
    plt.close(fig)
    return [path]


def _kind(data: Any) -> str:
    if isinstance(data, dict) and any(
        w.get("name") == "sweep" for w in data.get("workloads", []) if isinstance(w, dict)
    ):
        return "sweep"
    if isinstance(data, dict) and "rows" in data and isinstance(data.get("results"), dict):
        return "tables"
    return "unknown"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("paths", nargs="+", metavar="PATH", help="JSON file(s), then OUT_DIR")
    parser.add_argument(
        "--layers", action="store_true", help="also draw the layers (docs/architecture.md)"
    )
    parser.add_argument(
        "--format", choices=("svg", "png"), default="svg", help="image format (default svg)"
    )
    args = parser.parse_intermixed_args(argv)
    *inputs, out = args.paths
    if not inputs and not args.layers:
        parser.error("give the JSON file(s) to draw and the folder to write to, or --layers")
    folder = Path(out)
    if folder.suffix == ".json":
        parser.error(f"OUT_DIR: {out!r} looks like a JSON file; the folder comes last")
    folder.mkdir(parents=True, exist_ok=True)
    sweeps: list[dict[str, Any]] = []
    tables: list[dict[str, Any]] = []
    for name in inputs:
        try:
            data = json.loads(Path(name).read_text(encoding="utf-8"))
        except (OSError, ValueError) as exc:
            print(f"plot.py: {name}: {exc}", file=sys.stderr)
            return 2
        kind = _kind(data)
        if kind == "unknown":
            print(
                f"plot.py: {name}: neither a sweep report nor a bench_tables.py result",
                file=sys.stderr,
            )
            return 2
        (sweeps if kind == "sweep" else tables).append(data)
    if len(sweeps) > 1:
        print(
            "plot.py: give one sweep report (the last one would replace the others)",
            file=sys.stderr,
        )
        return 2
    written: list[Path] = []
    try:
        for report in sweeps:
            written += plot_throughput(report, folder, args.format)
        if tables:
            written += plot_tables(tables, folder, args.format)
    except (KeyError, ValueError) as exc:
        print(f"plot.py: {exc}", file=sys.stderr)
        return 2
    if args.layers:
        written += plot_layers(folder, args.format)
    for path in written:
        print(f"wrote {path} ({path.stat().st_size / 1024:.0f} KiB)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
