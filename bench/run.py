"""The full benchmark suite: every workload at the sizes the project's targets name.

    python bench/run.py [--quick] [--json bench/results/results.json]
                        [--plot bench/results/throughput.png] [--no-startup]

Prints the tables (and the targets, met or missed), writes every figure to JSON and draws
throughput against message size. It is ``batchkeccak bench --full --startup`` with the
outputs under ``bench/results/`` (git-ignored); see docs/benchmarks.md for what each workload
means. ``--workload small --workload large`` alone gives the comparison of ns per message and
MB/s for 2^20 x 32 B and 64 x 1 MiB.
"""

from __future__ import annotations

import argparse
import subprocess
import sys
from pathlib import Path

RESULTS = Path(__file__).resolve().parent / "results"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true", help="small sizes, a few seconds")
    parser.add_argument(
        "--json",
        default=str(RESULTS / "results.json"),
        help="JSON output (default bench/results/results.json)",
    )
    parser.add_argument(
        "--plot",
        default=str(RESULTS / "throughput.png"),
        help="PNG output (default bench/results/throughput.png)",
    )
    parser.add_argument("--algorithm", default="sha3_256")
    parser.add_argument("--repeats", type=int, help="timed repeats per figure")
    parser.add_argument(
        "--workload", action="append", metavar="NAME", help="only this workload (repeatable)"
    )
    parser.add_argument(
        "--no-startup", action="store_true", help="skip the fresh-interpreter start-up timings"
    )
    args = parser.parse_args(argv)

    command = [
        "bench",
        "--quick" if args.quick else "--full",
        "--algorithm",
        args.algorithm,
        "--json",
        args.json,
    ]
    workloads = args.workload or []
    if not workloads or "sweep" in workloads:
        command += ["--plot", args.plot]
    if args.repeats is not None:
        command += ["--repeats", str(args.repeats)]
    for name in workloads:
        command += ["--workload", name]
    if not args.no_startup:
        command.append("--startup")

    from batchkeccak.cli import main as cli_main

    status = cli_main(command)
    if status == 0:
        print(f"commit: {_commit()}")
    return status


def _commit() -> str:
    try:
        done = subprocess.run(
            ["git", "describe", "--always", "--dirty"],
            capture_output=True,
            text=True,
            cwd=Path(__file__).resolve().parent,
            check=False,
        )
    except OSError:
        return "unknown"
    return done.stdout.strip() or "unknown"


if __name__ == "__main__":
    sys.exit(main())
