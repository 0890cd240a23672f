"""``batchkeccak parquet SRC DST --column C``: add digest columns to a Parquet file or dataset."""

from __future__ import annotations

import os


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
    parser.add_argument(
        "--algorithm",
        "-a",
        default="sha3_256",
        help="sha3_256 (default), keccak_256, shake_256, kmac_256 (keyed), ...",
    )
    parser.add_argument(
        "--length", type=int, default=None,
        help="output bytes, for shake_*, turboshake*, kmac_*, cshake_*, kt128/kt256...",
    )
    parser.add_argument("--hex", action="store_true", help="write lowercase hex strings")
    parser.add_argument(
        "--suffix", default=None, help="digest column name suffix (default _ALGORITHM)"
    )
    parser.add_argument(
        "--batch-size",
        type=positive_int,
        default=None,
        metavar="ROWS",
        help="rows per batch and row group (default 131072)",
    )
    parser.add_argument(
        "--threads", type=positive_int, default=None,
        help="hashing threads (default: every core)",
    )
    keys = parser.add_mutually_exclusive_group()
    keys.add_argument(
        "--key-file",
        metavar="PATH",
        help="read the key of a keyed algorithm (kmac_*, hmac_sha3_*) from PATH: its bytes "
        "exactly, a trailing newline included. Never pass a key on the command line",
    )
    keys.add_argument(
        "--key-env",
        metavar="VAR",
        help="read the key from environment variable VAR (its UTF-8 bytes)",
    )
    parser.add_argument(
        "--customization",
        metavar="TEXT",
        default=None,
        help="customization string S (the argument's bytes as given) for cshake_*, kmac_*, "
        "tuplehash_*, kt128/kt256",
    )
    parser.set_defaults(run=run)


def _read_key(args) -> bytes | None:
    """The key from --key-file or --key-env; CommandError naming the source, never the key."""
    from batchkeccak.cli import CommandError

    if args.key_file is not None:
        try:
            with open(args.key_file, "rb") as handle:
                key = handle.read()
        except OSError as exc:
            raise CommandError(
                f"cannot read key file {args.key_file!r}: {exc.strerror or exc}"
            ) from None
        source = f"key file {args.key_file!r}"
    elif args.key_env is not None:
        value = os.environb.get(os.fsencode(args.key_env)) if os.supports_bytes_environ else (
            None if args.key_env not in os.environ else os.environ[args.key_env].encode()
        )
        if value is None:
            raise CommandError(f"environment variable {args.key_env} (--key-env) is not set")
        key, source = value, f"environment variable {args.key_env}"
    else:
        return None
    if not key:
        raise CommandError(f"{source} is empty: a keyed hash needs a non-empty key")
    return key


def _mode_params(args) -> dict[str, object]:
    """The keyword parameters of a mode from the key and customization options."""
    from batchkeccak.api import MODES
    from batchkeccak.cli import CommandError
    from batchkeccak.derived import modes

    params: dict[str, object] = {}
    name = args.algorithm.lower().replace("-", "_")
    mode = modes.get(name) if name in MODES else None
    takes = mode.params if mode is not None else ()
    key = _read_key(args)
    if key is not None:
        if "key" not in takes:
            raise CommandError(
                f"--key-file/--key-env: {args.algorithm} takes no key (keyed algorithms: "
                f"{', '.join(n for n, m in modes.items() if 'key' in m.params)})"
            )
        params["key"] = key
    elif "key" in takes:
        raise CommandError(f"{args.algorithm} is keyed: give the key with --key-file or --key-env")
    if args.customization is not None:
        if "customization" not in takes:
            raise CommandError(f"--customization: {args.algorithm} takes no customization string")
        # The bytes the shell passed, whatever they are: a string that is not UTF-8 is
        # still a customization string.
        params["customization"] = os.fsencode(args.customization)
    return params


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
    from batchkeccak.cli import CommandError
    from batchkeccak.parquet import DEFAULT_BATCH_SIZE, hash_file

    params = _mode_params(args)
    _check_output_size(args, DEFAULT_BATCH_SIZE)
    try:
        report = hash_file(
            args.src,
            args.dst,
            args.columns,
            args.algorithm,
            length=args.length,
            hex=args.hex,
            suffix=args.suffix,
            batch_size=DEFAULT_BATCH_SIZE if args.batch_size is None else args.batch_size,
            threads=args.threads,
            progress=True,
            **params,
        )
    except (OSError, ValueError, TypeError, OverflowError) as exc:
        raise CommandError(str(exc)) from None
    columns = ", ".join(f"{src} -> {dst}" for src, dst in report.digest_columns.items())
    print(
        f"wrote {report.path}: {report.rows:,} rows, {columns}; {report.total_seconds:.2f} s "
        f"(read {report.read_seconds:.2f} s, hash {report.hash_seconds:.2f} s, "
        f"write {report.write_seconds:.2f} s), {report.megabytes_per_second:,.0f} MB/s"
    )
    return 0
