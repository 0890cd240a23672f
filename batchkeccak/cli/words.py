"""The command line's words for the library's: one translation, at the one error map.

The library's errors name its arguments (``columns: no column named 'x'``, ``length is
required for shake_128``, ``memory_limit must be ...``) and, now and then, the function
that refused them (``hash_file: column 'age' has type int64``). The command line reports
the same errors in its own words: the option that set the argument (``--column``,
``--length``, ``--memory-limit``), or nothing where the message already names the file.
:func:`in_cli_words` does it for every subcommand, from :data:`COMMON` and the
subcommand's entry in :data:`BY_SUBCOMMAND` (a subcommand module may also declare its own
``OPTION_WORDS``, which wins).
"""

from __future__ import annotations

import ast
import re
from collections.abc import Mapping

COMMON: dict[str, str] = {
    "length": "--length",
    "threads": "--threads",
    "batch_size": "--batch-size",
    "memory_limit": "--memory-limit",
    "spill_dir": "--spill-dir",
    "columns": "--column",
    "suffix": "--suffix",
    "replace": "--replace",
    "key": "--key",
    "keys": "--key",
    "exclude": "--exclude",
    "widen": "--widen",
    "hex": "--hex",
    "algorithm": "--algorithm",
    "customization": "--customization",
    "block_size": "--block-size",
    # Names the message needs no stand-in for: the file is named in it already.
    "src": "",
    "dst": "",
    "source": "",
    "path": "",
    "paths": "",
}
"""Argument name -> the option that sets it ("" : say nothing)."""

FUNCTIONS = (
    "hash_file",
    "hash_array",
    "hash_many",
    "hash_rows",
    "table_digest",
    "segment_digests",
    "diff",
    "merkle_root",
    "hasher",
)
"""Library functions whose name may lead a message (``hash_file: ...``): left out."""

PHRASES: tuple[tuple[str, str], ...] = (
    ("widen=True", "--widen"),
    ("exclude=)", "--exclude)"),
    ("exclude= ", "--exclude "),
    ("exclude=", "--exclude "),
    ("columns=)", "--column)"),
    ("columns= ", "--column "),
    ("columns=", "--column "),
)
"""Keyword arguments a message suggests, as the options that set them."""

_NAMED = re.compile(r"\b(exclude|columns)=('(?:[^'\\]|\\.)*'|\"(?:[^\"\\]|\\.)*\")")
"""A keyword argument a message suggests with its value (``exclude='n'``)."""


def _named_option(match: re.Match) -> str:
    """``exclude='n'`` as the command line writes it: ``--exclude n`` (quoted for a shell
    where the name needs it)."""
    from batchkeccak.cli.quoting import quotef

    option = dict(PHRASES)[f"{match.group(1)}=)"].rstrip(")")
    return f"{option} {quotef(ast.literal_eval(match.group(2)))}"


BY_SUBCOMMAND: dict[str, dict[str, str]] = {
    "diff": {"keys": "--key", "key": "--key"},
    "merkle": {"values": "", "leaves": "", "scheme": "--scheme", "format": "--format"},
}
"""Each subcommand's own words, over :data:`COMMON`."""


def words_for(subcommand: str | None, module: object = None, args: object = None) -> dict[str, str]:
    """The translation table of ``subcommand``: :data:`COMMON`, its entry in
    :data:`BY_SUBCOMMAND`, its module's ``OPTION_WORDS``, then the words its module's
    ``command_line_words(args)`` gives for this command line (``diff``'s ``a`` and ``b`` are the
    paths it was given)."""
    table = dict(COMMON)
    table.update(BY_SUBCOMMAND.get(subcommand or "", {}))
    table.update(getattr(module, "OPTION_WORDS", {}) or {})
    given = getattr(module, "command_line_words", None)
    if args is not None and callable(given):
        table.update(given(args))
    return table


def in_cli_words(message: str, words: Mapping[str, str]) -> str:
    """``message`` with the argument names it leads with, or sets (``name=``), in the
    command line's words; a function's name leading it is left out.

    Plain words (``length``, ``source``) are translated only where they stand as the
    argument's name: at the start of the message or of a clause (after ``; ``), before
    ``:``, ``=`` or a verb (``is``, ``must``, ``applies``...); names with an underscore
    (``memory_limit``) wherever they stand as a word outside quotes.
    """
    prefix = re.compile(rf"^(?:{'|'.join(map(re.escape, FUNCTIONS))})(?:\(\))?: ")
    while True:
        shorter = prefix.sub("", message, count=1)
        if shorter == message:
            break
        message = shorter
    names = sorted(words, key=len, reverse=True)
    alternatives = "|".join(map(re.escape, names))
    leading = re.compile(
        rf"(^|; )({alternatives})(: |=| (?:is|are|must|applies|apply|needs|takes|has|"
        r"cannot|does|do|should|expects|only|of)\b)"
    )

    def lead(match: re.Match) -> str:
        word = words[match.group(2)]
        tail = match.group(3)
        if word and tail == ": " and word in message[match.end() :]:
            word = ""  # the message names it already (a table by its path)
        if not word:
            return match.group(1) if tail == ": " else match.group(0)
        return f"{match.group(1)}{word}{' ' if tail == '=' else tail}"

    message = leading.sub(lead, message)
    message = _NAMED.sub(_named_option, message)
    for phrase, option in PHRASES:
        message = message.replace(phrase, option)
    snake = [name for name in names if "_" in name and words[name]]
    if snake:
        inside = re.compile(rf"(?<![\w'\"-])({'|'.join(map(re.escape, snake))})(=|\b)(?!['\"])")
        message = inside.sub(
            lambda m: words[m.group(1)] + (" " if m.group(2) == "=" else ""), message
        )
    return message
