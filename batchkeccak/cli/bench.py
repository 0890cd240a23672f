"""``batchkeccak bench``: time batchkeccak against hashlib, safe-pysha3, pycryptodome, eth-hash.

A front end to :mod:`batchkeccak.benchmark`; ``bench/run.py`` in the repository runs the same
harness at full size.
"""

from __future__ import annotations

import os
import sys

_PRESET_HELP = {
    "quick": "a few seconds",
    "short": "the default, well under a minute",
    "full": "the sizes the project's targets name, a few minutes on two cores",
}


WORKLOAD_NAMES = (
    "permutation", "absorb", "small", "small_keccak", "large", "varied", "single", "forms",
    "sweep", "startup",
)  # fmt: skip
"""``batchkeccak.benchmark.WORKLOADS``' names, for the help text: building the parser must not
load the kernels (``tests/test_bench.py`` checks that the two agree)."""


TROUBLE_STATUS = 2
"""Exit status on trouble: bad options, results that cannot be written, a write error."""


def register(subparsers) -> None:
    parser = subparsers.add_parser(
        "bench",
        help="benchmark against hashlib, safe-pysha3, pycryptodome and eth-hash",
        description="Time each layer (permutation, sponge, hash_many per input form) and "
        "compare hash_many with other Keccak implementations on the same messages, in one "
        "process. Figures are the best of several repeats; compile time is reported apart; "
        "every competitor's digests are checked against batchkeccak's first. Libraries that "
        "are not installed are skipped (pip install 'batchkeccak[bench]' gets them all).",
    )
    size = parser.add_mutually_exclusive_group()
    size.add_argument(
        "--quick",
        dest="preset",
        action="store_const",
        const="quick",
        help=f"small sizes ({_PRESET_HELP['quick']})",
    )
    size.add_argument(
        "--full",
        dest="preset",
        action="store_const",
        const="full",
        help=f"full sizes ({_PRESET_HELP['full']})",
    )
    parser.set_defaults(preset="short")
    parser.add_argument(
        "--algorithm", default="sha3_256", help="algorithm of the main workloads (default sha3_256)"
    )
    parser.add_argument(
        "--repeats",
        type=int,
        default=None,
        help="timed repeats per figure, the best one is kept (default: by size)",
    )
    parser.add_argument(
        "--workload",
        action="append",
        metavar="NAME",
        help=f"run only this workload; repeat the option for several ({', '.join(WORKLOAD_NAMES)})",
    )
    parser.add_argument(
        "--startup",
        action="store_true",
        help="also time fresh interpreters with a warm and an empty kernel "
        "cache (the empty one compiles everything: tens of seconds)",
    )
    parser.add_argument("--json", metavar="PATH", help="write every figure to this JSON file")
    parser.add_argument(
        "--plot",
        metavar="PNG",
        help="draw throughput against message size to this PNG (needs matplotlib)",
    )
    parser.set_defaults(run=run)


def _check_output_path(option: str, path: str | None) -> None:
    # Checked before the run, not after it: a typo should not cost minutes of measuring.
    from batchkeccak.cli import CommandError

    if path is None:
        return
    if os.path.isdir(path):
        raise CommandError(f"{option} {path!r} is a directory; give a file name")
    parent = os.path.dirname(os.path.abspath(path))
    try:
        os.makedirs(parent, exist_ok=True)
    except OSError as exc:
        raise CommandError(f"{option} {path!r}: cannot create {parent!r}: {exc.strerror}") from None
    if not os.access(parent, os.W_OK):
        raise CommandError(f"{option} {path!r}: {parent!r} is not writable")


def _write_json(report, path: str) -> None:
    """The figures as indented JSON through the one output writer: a regular file replaced
    atomically, a FIFO or ``/dev/stdout`` written through; a failure is a write error."""
    import json

    from batchkeccak.support.output import open_output

    with open_output(path, "w") as out:
        json.dump(report.to_dict(), out, indent=2)
        out.write("\n")


def run(args) -> int:
    import importlib.util

    from batchkeccak import benchmark
    from batchkeccak.cli import CommandError, UsageError
    from batchkeccak.cli.options import plain_algorithm_name

    algorithm = plain_algorithm_name(args.algorithm, "the benchmark")
    if args.repeats is not None and args.repeats < 1:
        raise UsageError(f"--repeats must be >= 1, got {args.repeats}")
    if args.workload:
        workloads = list(dict.fromkeys(args.workload))
        unknown = [w for w in workloads if w not in benchmark.WORKLOADS]
        if unknown:
            raise UsageError(
                f"unknown --workload {', '.join(unknown)}; choose from "
                f"{', '.join(benchmark.WORKLOADS)}"
            )
        if args.startup and "startup" not in workloads:
            workloads.append("startup")
    else:
        workloads = [w for w in benchmark.WORKLOADS if w != "startup" or args.startup]
    if args.plot:
        if "sweep" not in workloads:
            raise UsageError("--plot draws the sweep workload; add --workload sweep")
        if importlib.util.find_spec("matplotlib") is None:
            raise CommandError("--plot needs matplotlib: pip install 'batchkeccak[bench]'")
    _check_output_path("--json", args.json)
    _check_output_path("--plot", args.plot)

    config = benchmark.PRESETS[args.preset].scaled(algorithm=algorithm)
    if args.repeats is not None:
        config = config.scaled(repeats=args.repeats, sweep_repeats=args.repeats)

    def log(message: str) -> None:
        print(message, file=sys.stderr, flush=True)

    try:
        report = benchmark.run_suite(config, workloads=workloads, log=log)
    except benchmark.DigestMismatch as exc:
        print(f"batchkeccak: DIGEST MISMATCH, no figures reported: {exc}", file=sys.stderr)
        return 1
    print(benchmark.format_report(report))
    if args.json:
        from batchkeccak.support.output import is_standard_output

        _write_json(report, args.json)
        # Onto stderr when the JSON itself went to stdout (--json /dev/stdout).
        print(f"\nwrote {args.json}", file=sys.stderr if is_standard_output(args.json) else None)
    try:
        if args.plot:
            benchmark.plot_throughput(report, args.plot)
            print(f"wrote {args.plot}")
    except OSError as exc:
        raise CommandError(f"cannot write results: {exc}") from None
    return 0
