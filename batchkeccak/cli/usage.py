"""The command line's parser, reporting a misused command as GNU's tools do: two lines,
``batchkeccak: MESSAGE`` and ``Try 'batchkeccak SUB --help' for more information.``, then
the subcommand's usage status (1, as ``sha256sum``, ``cp`` and ``ls`` give; a subcommand
that answers 0/1/2 as ``cmp`` and ``diff`` do passes ``usage_status=2`` to ``add_parser``).

Imported when the command line is read, not with :mod:`batchkeccak.cli`, so that the
program is ready for a signal as early as possible.
"""

from __future__ import annotations

import argparse
import re

from batchkeccak.cli import USAGE_STATUS, UsageError
from batchkeccak.cli.quoting import quotef


class GnuParser(argparse.ArgumentParser):
    """argparse, with errors raised as :class:`UsageError` (``main`` reports them), and
    with arguments left over reported by the innermost parser, whose ``--help`` explains
    them (argparse hands a subcommand's leftovers to the top level).

    Every parser of the command is one: ``add_subparsers`` makes its parsers of the class
    of the parser it is called on. ``usage_status`` is inherited by those parsers.
    """

    def __init__(self, *args, usage_status: int | None = None, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        self.usage_status = USAGE_STATUS if usage_status is None else usage_status

    def add_subparsers(self, **kwargs):
        action = super().add_subparsers(**kwargs)
        add_parser = action.add_parser

        def add_inheriting_parser(name, **options):
            options.setdefault("usage_status", self.usage_status)
            return add_parser(name, **options)

        action.add_parser = add_inheriting_parser
        return action

    def parse_known_args(self, args=None, namespace=None):
        namespace, extras = super().parse_known_args(args, namespace)
        if extras:
            self.error(f"unrecognized arguments: {' '.join(extras)}")
        if getattr(namespace, "usage_prog", None) is None:
            namespace.usage_prog = self.prog  # the innermost parser sets it first
            namespace.usage_status = self.usage_status
        return namespace, extras

    def error(self, message: str):
        raise UsageError(gnu_words(message), self.prog, self.usage_status)


def gnu_words(message: str) -> str:
    """argparse's message in GNU's words where GNU has them."""
    ambiguous = re.fullmatch(r"ambiguous option: (\S+) could match (.*)", message)
    if ambiguous:
        matches = " ".join(_quote(option) for option in ambiguous.group(2).split(", "))
        return f"option {_quote(ambiguous.group(1))} is ambiguous; possibilities: {matches}"
    prefix = "unrecognized arguments: "
    if not message.startswith(prefix):
        return message
    first = message[len(prefix) :].split(" ")[0]
    if first.startswith("--"):
        return f"unrecognized option {_quote(first)}"
    if first.startswith("-") and first != "-":
        return f"invalid option -- {_quote(first[1:2])}"
    return f"extra operand {_quote(first)}"


def _quote(text: str) -> str:
    """``text`` between single quotes, as GNU quotes an option it does not know."""
    quoted = quotef(text)
    return quoted if quoted.startswith(("'", '"')) else f"'{quoted}'"
