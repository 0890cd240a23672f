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


def check_algorithm_name(name: str) -> None:
    """An ``--algorithm`` that names no algorithm or mode is a usage error, as in ``hash``:
    the same lookup and did-you-mean; the next line points to the subcommand's ``--help``."""
    from batchkeccak.cli import UsageError
    from batchkeccak.core.parameters import did_you_mean
    from batchkeccak.derived.table import algorithm_names, canonical_algorithm

    if canonical_algorithm(name) is None:
        hint = did_you_mean(name, algorithm_names())
        raise UsageError(
            f"unknown --algorithm {name!r}{': ' + hint if hint else ''} (see "
            "batchkeccak.algorithms and batchkeccak.modes)"
        )


def plain_algorithm_name(name: str, command: str) -> str:
    """``--algorithm`` of a subcommand that runs the algorithms of ``batchkeccak.algorithms``
    alone (``demo``, ``bench``), as that table spells it. An unknown name is the usage error
    of :func:`check_algorithm_name`; a mode (a key, a customization, a tree) is one too, said
    as such rather than as unknown."""
    from batchkeccak import algorithms
    from batchkeccak.cli import UsageError
    from batchkeccak.core.parameters import canonical_name

    check_algorithm_name(name)
    canonical = canonical_name(name, algorithms)
    if canonical is None:
        raise UsageError(
            f"--algorithm {name} is a mode (keyed, customized or a tree); {command} runs the "
            "algorithms of batchkeccak.algorithms"
        )
    return canonical


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
