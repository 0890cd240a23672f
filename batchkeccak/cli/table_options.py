"""Options shared by ``batchkeccak digest`` and ``batchkeccak diff``: key, columns, algorithm,
threads and the memory the sort may hold."""

from __future__ import annotations

import argparse
import re

from batchkeccak.cli.options import add_algorithm_option, add_threads_option

_SIZE = re.compile(r"(\d+)\s*([kmgt]?)(i?b)?", re.IGNORECASE)
_UNITS = {"": 1, "k": 1 << 10, "m": 1 << 20, "g": 1 << 30, "t": 1 << 40}


def memory_size(text: str) -> int:
    """argparse type for ``--memory-limit``: bytes, or a number with K, M, G or T (binary
    units: ``512M`` is 512 MiB)."""
    match = _SIZE.fullmatch(text.strip())
    if match is None:
        raise argparse.ArgumentTypeError(f"expected a size such as 512M or 2G, got {text!r}")
    return int(match.group(1)) * _UNITS[match.group(2).lower()]


def add_table_command(
    subparsers, name: str, *, key_required: bool, help: str, description: str
) -> argparse.ArgumentParser:
    """The parser of a table command, with the table options; a misused command line exits
    with status 2 (trouble), as GNU diff and cmp answer it."""
    parser = subparsers.add_parser(name, usage_status=2, help=help, description=description)
    add_table_options(parser, key_required)
    return parser


def add_table_options(parser: argparse.ArgumentParser, key_required: bool) -> None:
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
    add_algorithm_option(
        parser,
        default="sha3_256",
        help="row and tree hash: sha3_256 (default), keccak_256, sha3_512, ...",
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
    return {
        "columns": args.columns,
        "algorithm": args.algorithm,
        "threads": args.threads,
        "memory_limit": args.memory_limit,
        "spill_dir": args.spill_dir,
        "progress": True,
    }
