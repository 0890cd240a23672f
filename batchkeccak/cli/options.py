"""Options that several subcommands take: ``--algorithm``/``-a``, ``--length``, ``--threads``
and ``--output``/``-o``, each declared once (names, type, default, metavar); the subcommand
gives the help, which says what the option does there."""

from __future__ import annotations

import argparse

from batchkeccak.cli import positive_int


def add_algorithm_option(
    parser: argparse.ArgumentParser, *, default: str | None, help: str
) -> None:
    """``--algorithm`` (``-a``): a batchkeccak algorithm name such as ``sha3_256``;
    ``default`` None lets the subcommand choose once it has read the rest of the line."""
    parser.add_argument("--algorithm", "-a", default=default, help=help)


def add_length_option(parser: argparse.ArgumentParser, help: str) -> None:
    """``--length``: output bytes of the extendable-output algorithms. Any integer is taken
    here: the subcommand and the library say which lengths an algorithm accepts."""
    parser.add_argument("--length", type=int, default=None, help=help)


def add_threads_option(parser: argparse.ArgumentParser, help: str) -> None:
    """``--threads``: a positive count (at most :data:`~batchkeccak.cli.MAX_COUNT`); not
    given, None: every core."""
    parser.add_argument("--threads", type=positive_int, default=None, help=help)


def add_output_option(parser: argparse.ArgumentParser, help: str) -> None:
    """``--output FILE`` (``-o``): where the subcommand writes its result, atomically, rather
    than to standard output."""
    parser.add_argument("--output", "-o", metavar="FILE", help=help)
