"""Options shared by ``batchkeccak digest`` and ``batchkeccak diff``: key, columns, algorithm,
threads and the memory the sort may hold."""

from __future__ import annotations

import argparse
import re

from batchkeccak.cli.options import (
    add_algorithm_option,
    add_length_option,
    add_threads_option,
    check_algorithm_name,
)

_SIZE = re.compile(r"(\d+)\s*([kmgt]?)(i?b)?", re.IGNORECASE)
_UNITS = {"": 1, "k": 1 << 10, "m": 1 << 20, "g": 1 << 30, "t": 1 << 40}


def memory_size(text: str) -> int:
    """argparse type for ``--memory-limit``: bytes, or a number with K, M, G or T (binary
    units: ``512M`` is 512 MiB)."""
    match = _SIZE.fullmatch(text.strip())
    if match is None:
        raise argparse.ArgumentTypeError(f"expected a size such as 512M or 2G, got {text!r}")
    size = int(match.group(1)) * _UNITS[match.group(2).lower()]
    from batchkeccak.tables.digest import MIN_MEMORY_LIMIT

    if size < MIN_MEMORY_LIMIT:
        raise argparse.ArgumentTypeError(
            f"must be at least {MIN_MEMORY_LIMIT // 1024}K ({MIN_MEMORY_LIMIT} bytes), got {text!r}"
        )
    return size


def add_table_command(
    subparsers,
    name: str,
    *,
    key_required: bool,
    help: str,
    description: str,
    usage_status: int | None = None,
    algorithm_help: str = "row and tree hash: sha3_256 (default), keccak_256, sha3_512, ...",
    default_algorithm: str | None = "sha3_256",
) -> argparse.ArgumentParser:
    """The parser of a table command, with the table options. A misused command line exits
    with ``usage_status``: 1 (``batchkeccak.cli.USAGE_STATUS``) unless given; ``diff`` gives
    2, as GNU diff and cmp answer one, since its 1 means "the tables differ".
    ``default_algorithm`` is the library function's own default, so that the command and the
    function it calls hash alike (``None``: the function chooses)."""
    parser = subparsers.add_parser(
        name, usage_status=usage_status, help=help, description=description
    )
    add_table_options(parser, key_required, default_algorithm, algorithm_help)
    return parser


def add_table_options(
    parser: argparse.ArgumentParser,
    key_required: bool,
    default_algorithm: str | None,
    algorithm_help: str,
) -> None:
    parser.add_argument(
        "--key",
        "-k",
        dest="key",
        action="append",
        required=key_required,
        metavar="COLUMN",
        help="key column (repeat for a key of several columns)"
        + ("" if key_required else "; without it rows are compared as a multiset"),
    )
    parser.add_argument(
        "--column",
        "-c",
        dest="columns",
        action="append",
        metavar="COLUMN",
        help="column to cover (repeat for several; default: every column)",
    )
    parser.add_argument(
        "--exclude",
        dest="exclude",
        action="append",
        metavar="COLUMN",
        help="column to leave out, every other one being covered (repeat for several; not "
        "with --column; a key column cannot be left out)",
    )
    add_algorithm_option(parser, default=default_algorithm, help=algorithm_help)
    add_length_option(
        parser,
        help="output bytes of an extendable-output --algorithm (shake_128, shake_256...); at "
        "least 16 for a table",
    )
    add_threads_option(parser, help="threads (default: every core)")
    parser.add_argument(
        "--memory-limit",
        type=memory_size,
        default=None,
        metavar="SIZE",
        help="keys and digests held at once before sorted runs are spilled to disk (default 1280M)",
    )
    parser.add_argument(
        "--spill-dir",
        default=None,
        metavar="DIR",
        help="folder for the spilled runs (default: the temporary folder); removed after",
    )


def table_keywords(args: argparse.Namespace) -> dict:
    """The library's keywords from the table options, each checked in the command line's
    words (``--length``, ``--key``, ``--column``, ``--exclude``)."""
    from batchkeccak.cli import UsageError

    if args.key and len(set(args.key)) != len(args.key):
        twice = next(name for name in args.key if args.key.count(name) > 1)
        raise UsageError(f"--key names column {twice!r} twice")
    if args.columns is not None and args.exclude is not None:
        raise UsageError(
            "--column and --exclude do not go together: --column names the columns covered, "
            "--exclude the ones left out"
        )
    if args.key and args.exclude:
        both = next((name for name in args.exclude if name in args.key), None)
        if both is not None:
            raise UsageError(f"--key and --exclude both name {both!r}: a key cannot be left out")
    keywords = {
        "columns": None if args.columns is None else list(dict.fromkeys(args.columns)),
        "exclude": args.exclude,
        "algorithm": _table_hasher(args),
        "threads": args.threads,
        "memory_limit": args.memory_limit,
        "spill_dir": args.spill_dir,
        "progress": True,
    }
    return keywords


def _refuse_keyed(args: argparse.Namespace) -> None:
    """A keyed --algorithm (kmac_*, hmac_*): the table commands take no key option."""
    from batchkeccak.cli import UsageError
    from batchkeccak.derived.table import canonical_algorithm, modes

    name = canonical_algorithm(args.algorithm)
    mode = modes.get(name) if name is not None else None
    if mode is not None and "key" in mode.params:
        command = getattr(args, "command", None) or "digest"
        function = "diff" if command == "diff" else "table_digest"
        raise UsageError(
            f"--algorithm {args.algorithm}: keyed algorithms need a key, which the {command} "
            f"command does not take: use batchkeccak.{function} with bk.hasher(...)"
        )


def _table_hasher(args: argparse.Namespace) -> object:
    """``--algorithm`` with ``--length`` as the library takes it (a name, or a hasher of the
    length asked), checked for a table: an extendable-output function needs ``--length`` of
    at least :data:`~batchkeccak.tables.digest.MIN_TABLE_HASH_BYTES`."""
    from batchkeccak import algorithms
    from batchkeccak.api import hasher
    from batchkeccak.cli import UsageError
    from batchkeccak.tables.digest import MIN_TABLE_HASH_BYTES

    if args.algorithm is None:
        if args.length is not None:
            from batchkeccak.tables.changes import DIFF_ROW_HASH

            name, length = DIFF_ROW_HASH
            raise UsageError(
                f"--length needs an --algorithm: the default row digest ({name}, {length} "
                "bytes) has its length fixed; give an extendable-output --algorithm "
                "(shake_128, shake_256...) with --length"
            )
        return None
    check_algorithm_name(args.algorithm)
    _refuse_keyed(args)
    spec = algorithms.get(args.algorithm) if isinstance(args.algorithm, str) else None
    xof = bool(spec is not None and spec.xof)
    if args.length is None:
        if xof:
            raise UsageError(
                f"--algorithm {args.algorithm} is an extendable-output function: give its "
                f"output bytes with --length (at least {MIN_TABLE_HASH_BYTES} for a table)"
            )
        return args.algorithm
    if spec is not None and not xof:
        raise UsageError(
            f"--length is for the extendable-output algorithms (shake_128, shake_256...); "
            f"{args.algorithm} has a fixed output"
        )
    if args.length < MIN_TABLE_HASH_BYTES:
        raise UsageError(
            f"--length {args.length} is too short for a table digest: at least "
            f"{MIN_TABLE_HASH_BYTES} bytes ({8 * MIN_TABLE_HASH_BYTES} bits), so that "
            "different tables do not collide"
        )
    try:
        return hasher(args.algorithm, length=args.length, threads=args.threads)
    except (TypeError, ValueError) as exc:
        raise UsageError(str(exc).replace("length ", "--length ", 1)) from None
