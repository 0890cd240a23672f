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
"""

from __future__ import annotations

import argparse
import sys

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
    args = parser.parse_args(argv)
    if args.repeats < 1 or args.cold_repeats < 0:
        parser.error("--repeats must be >= 1 and --cold-repeats >= 0")

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


if __name__ == "__main__":
    sys.exit(main())
