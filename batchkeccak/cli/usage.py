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
import sys
from typing import cast

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
        self._reading: list[str] = []

    def add_subparsers(self, **kwargs):
        action = super().add_subparsers(**kwargs)
        add_parser = action.add_parser

        def add_inheriting_parser(name, **options):
            options.setdefault("usage_status", self.usage_status)
            return add_parser(name, **options)

        action.add_parser = add_inheriting_parser
        return action

    def commands(self) -> dict[str, GnuParser]:
        """The parsers of this parser's subcommands, by name (none: an empty dict)."""
        for action in self._actions:
            if hasattr(action, "add_parser"):  # what add_subparsers() returned
                return dict(cast("dict[str, GnuParser]", action.choices))
        return {}

    def parse_known_args(self, args=None, namespace=None):
        self._reading = list(sys.argv[1:] if args is None else args)
        namespace, extras = super().parse_known_args(args, namespace)
        if extras:
            self.error(f"unrecognized arguments: {' '.join(extras)}")
        if getattr(namespace, "usage_prog", None) is None:
            namespace.usage_prog = self.prog  # the innermost parser sets it first
            namespace.usage_status = self.usage_status
        return namespace, extras

    def error(self, message: str):
        if message.startswith("the following arguments are required"):
            # GNU's getopt reads the options before the operands: an unknown option is
            # reported before a missing argument.
            unknown = self._first_unknown()
            if unknown is not None:
                message = f"unrecognized arguments: {unknown}"
        raise UsageError(gnu_words(message), self.prog, self.usage_status)

    def _first_unknown(self) -> str | None:
        """The first argument no option of this parser takes, read with nothing required."""
        required = [action for action in self._actions if action.required]
        for action in required:
            action.required = False
        try:
            _, extras = argparse.ArgumentParser.parse_known_args(self, self._reading)
        except UsageError:
            return None
        finally:
            for action in required:
                action.required = True
        return extras[0] if extras else None


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
