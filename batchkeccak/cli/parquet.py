"""``batchkeccak parquet SRC DST --column C``: add digest columns to a Parquet file or dataset."""

from __future__ import annotations

from batchkeccak.cli.mode_options import add_mode_options, mode_params
from batchkeccak.cli.options import (
    add_algorithm_option,
    add_length_option,
    add_threads_option,
    check_algorithm_name,
)

TROUBLE_STATUS = 2
"""Exit status on trouble: bad input (a missing file, a column that is not binary) or a write error."""


def register(subparsers) -> None:
    from batchkeccak.cli import positive_int

    parser = subparsers.add_parser(
        "parquet",
        help="copy a Parquet file or dataset, adding a digest column per hashed column",
        description="Stream SRC (a Parquet file or a directory of them) batch by batch, append "
        "one digest column per --column and write DST atomically: DST appears only once "
        "complete. A progress bar shows on stderr when it is a terminal.",
    )
    parser.add_argument("src", metavar="SRC", help="Parquet file or dataset directory")
    parser.add_argument("dst", metavar="DST", help="Parquet file to write (replaced if present)")
    parser.add_argument(
        "--column",
        "-c",
        dest="columns",
        action="append",
        required=True,
        metavar="C",
        help="column to hash (binary or string); repeat for several",
    )
    add_algorithm_option(
        parser,
        default="sha3_256",
        help="sha3_256 (default), keccak_256, shake_256, kmac_256 (keyed), ...",
    )
    add_length_option(
        parser, help="output bytes, for shake_*, turboshake*, kmac_*, cshake_*, kt128/kt256..."
    )
    parser.add_argument("--hex", action="store_true", help="write lowercase hex strings")
    parser.add_argument(
        "--suffix", default=None, help="digest column name suffix (default _ALGORITHM)"
    )
    parser.add_argument(
        "--replace",
        action="store_true",
        help="write each digest in place of its column (same name and position): "
        "pseudonymize the columns instead of adding digest columns",
    )
    parser.add_argument(
        "--batch-size",
        type=positive_int,
        default=None,
        metavar="ROWS",
        help="rows per batch and row group (default 131072)",
    )
    add_threads_option(parser, help="hashing threads (default: every core)")
    add_mode_options(parser)
    parser.set_defaults(run=run)


NOTICEABLE_LOAD_SECONDS = 0.05
"""Kernel loading below this is left out of the summary line."""

MAX_BATCH_OUTPUT = 1 << 30
"""Digest bytes one batch may hold (1 GiB): a --length that needs more is refused up front."""


def _check_output_size(args, default_batch_size: int) -> None:
    """Refuse a --length whose digests could not be held for one batch, before reading."""
    from batchkeccak.cli import MAX_COUNT, CommandError

    if args.length is None or args.length <= 0:
        return  # the library reports a negative or missing length
    if args.length > MAX_COUNT:
        raise CommandError(f"--length {args.length} is too large: at most {MAX_COUNT} bytes")
    rows = default_batch_size if args.batch_size is None else args.batch_size
    if args.length * rows > MAX_BATCH_OUTPUT:
        raise CommandError(
            f"--length {args.length} with {rows} rows per batch needs "
            f"{args.length * rows:,} bytes of digests at once (at most {MAX_BATCH_OUTPUT:,}): "
            "lower --batch-size or --length"
        )


def run(args) -> int:
    from batchkeccak.cli import UsageError
    from batchkeccak.parquet import DEFAULT_BATCH_SIZE, hash_file
    from batchkeccak.support.output import summary_stream

    if args.replace and args.suffix is not None:
        raise UsageError(
            "--replace and --suffix do not go together: a replaced column keeps its name"
        )
    if len(set(args.columns)) != len(args.columns):
        twice = next(name for name in args.columns if args.columns.count(name) > 1)
        raise UsageError(f"--column names column {twice!r} twice")
    check_algorithm_name(args.algorithm)
    if args.length == 0:
        # A zero-length digest column is meaningless (and no Parquet fixed-size type).
        raise UsageError("--length must be at least 1: a digest column needs a byte or more")
    params = mode_params(args, args.algorithm)
    _check_output_size(args, DEFAULT_BATCH_SIZE)
    # Errors go to batchkeccak.cli's one map: bad input and write errors exit 2.
    report = hash_file(
        args.src,
        args.dst,
        args.columns,
        args.algorithm,
        length=args.length,
        hex=args.hex,
        suffix=args.suffix,
        replace=args.replace,
        batch_size=DEFAULT_BATCH_SIZE if args.batch_size is None else args.batch_size,
        threads=args.threads,
        progress=True,
        **params,
    )
    columns = ", ".join(
        f"{src} replaced" if src == dst else f"{src} -> {dst}"
        for src, dst in report.digest_columns.items()
    )
    # Kernel loading is not hashing: it is done before the clock starts, and said apart.
    loaded = (
        f"; kernels loaded in {report.load_seconds:.2f} s"
        if report.load_seconds >= NOTICEABLE_LOAD_SECONDS
        else ""
    )
    # Onto stderr when the Parquet data went to a stream (DST /dev/stdout, a FIFO).
    print(
        f"wrote {report.path}: {report.rows:,} rows, {columns}; {report.total_seconds:.2f} s "
        f"(read {report.read_seconds:.2f} s, hash {report.hash_seconds:.2f} s, "
        f"write {report.write_seconds:.2f} s), {report.megabytes_per_second:,.0f} MB/s{loaded}",
        file=summary_stream(args.dst),
    )
    return 0
