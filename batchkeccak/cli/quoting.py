"""How GNU tools name a file in a diagnostic (gnulib's ``quotef``: shell-escape quoting, a
colon quoted too), so that a name with a newline or an undecodable byte never reaches the
terminal raw and reads back as the shell word that names it."""

from __future__ import annotations

import codecs
import locale
import os
import unicodedata

_TRIGGERS = frozenset(" !\"$&'()*;<=>?[\\^`|:")
"""Printable characters that make a name need quotes (a colon too: it ends the name in
``NAME: message``)."""

_DOUBLE_QUOTABLE = frozenset("%+,-./:@]_ '")
"""Characters the same between double quotes in C and in the shell: a name holding a single
quote and only these (beside letters and digits) is written in double quotes."""

_ESCAPES = {7: "\\a", 8: "\\b", 9: "\\t", 10: "\\n", 11: "\\v", 12: "\\f", 13: "\\r"}

_INVISIBLE = frozenset(("Cc", "Zl", "Zp"))


def _utf8_locale() -> bool:
    try:
        return codecs.lookup(locale.nl_langinfo(locale.CODESET)).name == "utf-8"
    except (AttributeError, LookupError):  # no nl_langinfo (Windows)
        return True


def _units(raw: bytes, utf8: bool) -> list[tuple[str, bool, bytes]]:
    """(text, printable, bytes) per character; an undecodable byte is a unit of its own."""
    units = []
    i = 0
    char: str | None
    while i < len(raw):
        byte = raw[i]
        if byte < 0x80:
            char = chr(byte)
            units.append((char, 0x20 <= byte < 0x7F, raw[i : i + 1]))
            i += 1
            continue
        width = (
            2
            if byte >> 5 == 0b110
            else 3
            if byte >> 4 == 0b1110
            else 4
            if byte >> 3 == 0b11110
            else 0
        )
        try:
            char = raw[i : i + width].decode() if utf8 and width else None
        except UnicodeDecodeError:
            char = None
        if char is None or len(char) != 1:
            units.append((raw[i : i + 1].decode("latin-1"), False, raw[i : i + 1]))
            i += 1
            continue
        units.append((char, unicodedata.category(char) not in _INVISIBLE, raw[i : i + width]))
        i += width
    return units


def _escaped(data: bytes) -> str:
    if len(data) == 1 and data[0] in _ESCAPES:
        return _ESCAPES[data[0]]
    return "".join(f"\\{b:03o}" for b in data)


def quotef(name: str | bytes) -> str:
    """``name`` as GNU coreutils write a file name in an error message.

    ``a b`` becomes ``'a b'``, a newline ``'a'$'\\n''b'``, a byte that is not text
    ``''$'\\377'``; a name needing no quotes is left alone.
    """
    raw = os.fsencode(name)
    if not raw:
        return "''"
    units = _units(raw, _utf8_locale())
    plain = all(printable for _, printable, _ in units)
    text = "".join(char for char, _, _ in units)
    alone = text in ("{", "}")  # a brace is special to the shell only as a whole word
    if plain and not (alone or text[0] in "#~" or any(char in _TRIGGERS for char in text)):
        return text
    if (
        plain
        and "'" in text
        and all(
            char.isalnum() or char in _DOUBLE_QUOTABLE or (i == 0 and char in "#~") or alone
            for i, char in enumerate(text)
        )
    ):
        return f'"{text}"'
    out = ["'"]
    escaping = False  # inside $'...', else inside '...'
    for char, printable, data in units:
        if char == "'" and printable:
            out.append("'\\''")
            escaping = False
        elif printable:
            if escaping:
                out.append("''")
                escaping = False
            out.append(char)
        else:
            if not escaping:
                out.append("'$'")
                escaping = True
            out.append(_escaped(data))
    out.append("'")
    result = "".join(out)
    # GNU's own quirk, kept so that messages match byte for byte: a name holding a single
    # quote and ending in an escape gets an empty '' in front.
    if "'" in text and not units[-1][1] and not result.startswith("''"):
        result = "''" + result
    return result
