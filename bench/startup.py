"""Start-up cost in fresh interpreters: ``import batchkeccak`` and the first ``hash_many``.

    python bench/startup.py [--repeats 5] [--cold-repeats 1] [--algorithm sha3_256] [--json PATH]
    python bench/startup.py --files --cold-repeats 0    # and the command line over files

Warm: numba's usual on-disk cache, filled by one untimed run. Cold: ``NUMBA_CACHE_DIR`` points
at a new empty folder, so every kernel compiles. Each figure is wall seconds, the best run;
``process`` is the interpreter from spawn to exit (what a user waits for), ``import`` and
``first call`` are timed inside it. Interleaved with the warm runs, a process that imports
numba and calls one cached function of its own gives numba's share of the warm start.
``--files`` adds ``batchkeccak hash`` over 20,000 files of 1 KiB against ``sha256sum`` and over
8 files of 64 MiB against ``openssl dgst -sha3-256`` (alternating, best of ``--repeats``).

    python bench/startup.py --parts [--repeats 10]

``--parts`` instead splits ``python -c "import batchkeccak as bk; bk.warmup()"`` (warm cache)
into its steps, each timed inside fresh interpreters (best and median of ``--repeats``): numba's
import, its runtime (NRT) set up, its target context's first ``refresh`` (the lowering
registries every first cached load imports), ``import batchkeccak`` with its modules, the
kernel load with the first call, and the interpreter's exit after them; and, interleaved,
the whole processes of ``python -c pass``, ``import numba``, numba with one cached function of
its own, and ``bk.warmup()``.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from batchkeccak import benchmark


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--repeats", type=int, default=5, help="warm-cache runs (default 5)")
    parser.add_argument(
        "--cold-repeats", type=int, default=1, help="empty-cache runs (default 1; 0 skips them)"
    )
    parser.add_argument("--algorithm", default="sha3_256")
    parser.add_argument("--json", help="write the figures to this JSON file")
    parser.add_argument(
        "--files",
        action="store_true",
        help="also time batchkeccak hash over files against sha256sum and "
        "openssl (writes 532 MB to a temporary folder)",
    )
    parser.add_argument(
        "--parts",
        action="store_true",
        help="split a warm bk.warmup() into numba's steps and batchkeccak's (fresh processes)",
    )
    args = parser.parse_args(argv)
    if args.repeats < 1 or args.cold_repeats < 0:
        parser.error("--repeats must be >= 1 and --cold-repeats >= 0")
    if args.parts:
        return warmup_parts(args.repeats)

    config = benchmark.SuiteConfig(
        preset="startup",
        algorithm=args.algorithm,
        repeats=args.repeats,
        startup_repeats=args.repeats,
        startup_cold_repeats=args.cold_repeats,
    )
    report = benchmark.Report(config, benchmark.machine_info())
    report.workloads.append(
        benchmark.measure_startup(
            args.algorithm,
            args.repeats,
            args.cold_repeats,
            log=lambda message: print(message, file=sys.stderr, flush=True),
            files=args.files,
        )
    )
    report.targets = benchmark.evaluate_targets(report)
    print(benchmark.format_report(report))
    if args.json:
        report.write_json(args.json)
    return 0


_STEPS = """
import json, time
T = time.perf_counter
t0 = T()
import numba
t1 = T()
from numba.core.registry import cpu_target
from numba.core.runtime import rtsys
context = cpu_target.target_context
rtsys.initialize(context)
t2 = T()
context.refresh()
t3 = T()
import batchkeccak as bk
import batchkeccak.api
t4 = T()
bk.warmup()
t5 = T()
print(json.dumps([t1 - t0, t2 - t1, t3 - t2, t4 - t3, t5 - t4, t5 - t0, time.time()]))
"""

_STEP_NAMES = [
    "import numba",
    "numba's runtime (NRT) set up",
    "numba's first refresh (lowering registries)",
    "import batchkeccak's modules",
    "kernel load + first call",
    "all of the above",
    "the interpreter's exit after it",
]

_ONE_CACHED = """
import numba
@numba.njit(cache=True)
def one(x):
    return x + 1
one(1)
"""


def warmup_parts(repeats: int) -> int:
    """Print where a warm ``bk.warmup()`` spends its time, best and median of ``repeats``."""
    with tempfile.TemporaryDirectory() as folder:
        cached = Path(folder) / "one_cached.py"
        cached.write_text(_ONE_CACHED)
        processes = {
            "python -c pass": "pass",
            "import numba": "import numba",
            # run from its file, which numba's cache needs (code given to -c has none)
            "numba + one cached function": f"import runpy; runpy.run_path({str(cached)!r})",
            "import batchkeccak; bk.warmup()": "import batchkeccak as bk; bk.warmup()",
        }
        run = [sys.executable, "-c"]
        for code in [_STEPS, processes["numba + one cached function"]]:
            # fill the caches, untimed
            subprocess.run([*run, code], check=True, cwd=folder, capture_output=True)
        steps: list[list[float]] = []
        whole: dict[str, list[float]] = {name: [] for name in processes}
        for _ in range(repeats):
            out = subprocess.run([*run, _STEPS], check=True, capture_output=True, text=True)
            exited = time.time()
            times = json.loads(out.stdout.splitlines()[-1])
            steps.append([*times[:-1], exited - times[-1]])
            for name, code in processes.items():
                started = time.perf_counter()
                subprocess.run([*run, code], check=True, cwd=folder)
                whole[name].append(time.perf_counter() - started)
    load = ", ".join(f"{value:.2f}" for value in os.getloadavg())
    print(f"warm bk.warmup(), {repeats} fresh interpreters each; load average {load}")
    print("steps inside one interpreter (seconds):          best  median")
    for index, name in enumerate(_STEP_NAMES):
        values = sorted(row[index] for row in steps)
        print(f"  {name:45s} {values[0]:.3f}  {values[len(values) // 2]:.3f}")
    print("whole processes, interleaved (seconds):          best  median")
    for name, values in whole.items():
        values.sort()
        print(f"  {name:45s} {values[0]:.3f}  {values[len(values) // 2]:.3f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
