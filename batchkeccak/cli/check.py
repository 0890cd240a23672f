"""``batchkeccak hash --check``: GNU's checksum listings read (both untagged layouts and
``--tag`` lines, escaped names), their files hashed by the library, and GNU's reports."""

from __future__ import annotations

import errno
import os

from batchkeccak.cli.quoting import quotef
from batchkeccak.cli.sums import (
    FILES_PER_BATCH,
    TAGS,
    Choice,
    Output,
    WriteError,
    digest_names,
    error_text,
    escape_name,
    files_per_batch,
    resolve_algorithm,
    stdin_reader,
)
from batchkeccak.io.lines import stream_lines

FIRST_BATCH = 1
"""--check hashes its first entries this few at a time, doubling up to FILES_PER_BATCH, so the
first verdict shows at once even when the listing never ends."""


def _unescape(raw: bytes) -> bytes | None:
    """GNU's file-name unescaping (``\\\\``, ``\\n``, ``\\r``); None for any other escape, a
    lone backslash at the end or a NUL."""
    out = bytearray()
    i = 0
    while i < len(raw):
        byte = raw[i]
        if byte == 0:
            return None
        if byte == 0x5C:  # backslash
            following = raw[i + 1 : i + 2]
            replacement = {b"\\": b"\\", b"n": b"\n", b"r": b"\r"}.get(following)
            if replacement is None:
                return None
            out += replacement
            i += 2
            continue
        out.append(byte)
        i += 1
    return bytes(out)


_HEX = frozenset(b"0123456789abcdefABCDEF")
_SPACES = b" \t\n\v\f\r"  # C's isspace, skipped before a line's first field
_BLANKS = b" \t"  # between the fields


class _Layout:
    """Which of the two untagged layouts a run's listings use: GNU lets the first untagged
    line decide (two characters between digest and name, or one as BSD's ``-r`` writes),
    so that a name beginning with a space or ``*`` cannot be read two ways."""

    def __init__(self) -> None:
        self.reversed: bool | None = None


class _Entry:
    __slots__ = ("length", "name", "spec", "want")

    def __init__(self, name: str, spec, length: int | None, want: str) -> None:
        self.name, self.spec, self.length, self.want = name, spec, length, want


def _tagged(line: bytes, forced) -> tuple[str | None, bytes] | None:
    """(algorithm, rest after the ``(``) when ``line`` opens with a known tag; the tag must
    be ``forced``'s when ``-a`` was given. ``None`` when it opens with none."""
    for name, tag in _TAG_ORDER:
        encoded = tag.encode()
        if not line.startswith(encoded):
            continue
        rest = line[len(encoded) :]
        if rest.startswith(b" "):
            rest = rest[1:]
        if not rest.startswith(b"("):
            continue
        if forced is not None and name != forced.name:
            return (None, b"")
        return (name, rest[1:])
    return None


_TAG_ORDER = sorted(TAGS.items(), key=lambda item: -len(item[1]))
"""Longest first, so that no tag is taken for a shorter one it begins with."""


def _parse_line(
    line: bytes, forced, default, length: int | None, layout: _Layout, from_stdin: bool
):
    """An :class:`_Entry` for one checksum line in either layout, or None when it is not
    one.

    ``forced`` is ``-a``'s algorithm (None: each tagged line names its own), ``default``
    the algorithm of untagged lines, ``length`` ``--length``.
    """
    line = line.lstrip(_SPACES)
    escaped = line.startswith(b"\\")
    if escaped:
        line = line[1:]
    tagged = _tagged(line, forced)
    if tagged is not None:
        name, rest = tagged
        if name is None:
            return None
        spec = (
            default
            if name == default.name
            else resolve_algorithm(name, getattr(default, "offered", default.params))
        )
        cut = rest.rfind(b")")
        if cut < 0:
            return None
        raw_name, tail = rest[:cut], rest[cut + 1 :].lstrip(_BLANKS)
        if not tail.startswith(b"="):
            return None
        hex_digest = tail[1:].lstrip(_BLANKS)
    else:
        spec = default
        width = _hex_width(spec, length)
        if width is None:
            width = 0
            while width < len(line) and line[width] in _HEX:
                width += 1
        hex_digest, rest = line[:width], line[width:]
        if len(rest) < 2 or rest[0] not in _BLANKS:
            return None
        rest = rest[1:]
        if len(rest) == 1 or rest[:1] not in (b" ", b"*"):
            if layout.reversed is False:
                return None
            layout.reversed = True
        elif not layout.reversed:
            layout.reversed = False
            rest = rest[1:]
        raw_name = rest
    if not hex_digest or len(hex_digest) % 2 or not set(hex_digest) <= _HEX:
        return None
    want_width = _hex_width(spec, length)
    if want_width is not None and len(hex_digest) != want_width:
        return None
    if escaped:
        unescaped = _unescape(raw_name)
        if unescaped is None:
            return None
        raw_name = unescaped
    else:
        # A NUL ends the name, as it ends a C string.
        raw_name = raw_name.split(b"\0", 1)[0]
    if from_stdin and raw_name == b"-":
        return None  # the listing is stdin: it cannot also be a file to check
    if tagged is None and not raw_name:
        return None
    xof_length = len(hex_digest) // 2 if spec.xof else None
    return _Entry(os.fsdecode(raw_name), spec, xof_length, hex_digest.decode().lower())


def _hex_width(spec, length: int | None) -> int | None:
    """Hex digits of ``spec``'s digest; None for an XOF without ``--length`` (any even
    count)."""
    if spec.xof:
        return None if length is None else 2 * length
    return 2 * spec.digest_size


def _plural(count: int, one: str, many: str) -> str:
    return one.format(count) if count == 1 else many.format(count)


def check(args, spec: Choice, output: Output) -> int:
    """``--check``: verify the digests listed in ``args.files`` (stdin without any)."""
    forced = spec if args.algorithm is not None else None
    layout = _Layout()
    status = 0
    for listing in args.files or ["-"]:
        status |= _check_listing(listing, args, forced, spec, layout, output)
    return status


class _Tally:
    def __init__(self) -> None:
        self.improper = self.unread = self.mismatched = self.verified = self.proper = 0


def _check_listing(listing: str, args, forced, default, layout: _Layout, output: Output) -> int:
    shown_listing = quotef("standard input" if listing == "-" else listing)
    try:
        stream = stdin_reader() if listing == "-" else open(listing, "rb", buffering=0)  # noqa: SIM115
    except IsADirectoryError:
        # GNU opens a directory and fails on reading it; Python refuses it at open.
        output.warn(f"{shown_listing}: read error")
        return 1
    except OSError as exc:
        if listing == "-":  # GNU's stdin is always open: the read is what fails
            output.warn(f"{shown_listing}: read error")
        else:
            output.warn(f"{shown_listing}: {error_text(exc)}")
        return 1
    tally = _Tally()
    pending: list = []  # _Entry, or a line number that is improperly formatted
    entries = 0
    batch = FIRST_BATCH
    try:
        for number, line in _numbered(stream_lines(stream)):
            if line is None:  # the listing is waiting for its writer: report what we have
                if entries:
                    _settle(pending, args, shown_listing, default, tally, output)
                    pending, entries = [], 0
                continue
            if line.startswith(b"#"):
                continue
            if line.endswith(b"\r"):
                line = line[:-1]
            if not line:
                continue
            entry = _parse_line(line, forced, default, args.length, layout, listing == "-")
            if entry is None:
                tally.improper += 1
                pending.append(number)
                continue
            tally.proper += 1
            pending.append(entry)
            entries += 1
            if entries >= batch:
                _settle(pending, args, shown_listing, default, tally, output)
                pending, entries = [], 0
                batch = min(FILES_PER_BATCH, 2 * batch)
    except OSError as exc:
        if isinstance(exc, (WriteError, BrokenPipeError)):
            raise
        _settle(pending, args, shown_listing, default, tally, output)
        output.warn(f"{shown_listing}: read error")
        return 1
    finally:
        if listing != "-":
            stream.close()
    _settle(pending, args, shown_listing, default, tally, output)
    if not tally.proper:
        output.warn(f"{shown_listing}: no properly formatted checksum lines found")
        return 1
    if args.report != "status":
        for count, one, many in (
            (
                tally.improper,
                "{} line is improperly formatted",
                "{} lines are improperly formatted",
            ),
            (tally.unread, "{} listed file could not be read", "{} listed files could not be read"),
            (
                tally.mismatched,
                "{} computed checksum did NOT match",
                "{} computed checksums did NOT match",
            ),
        ):
            if count:
                output.warn("WARNING: " + _plural(count, one, many))
        if args.ignore_missing and not tally.verified:
            output.warn(f"{shown_listing}: no file was verified")
    if args.ignore_missing and not tally.verified:
        return 1
    return int(bool(tally.unread or tally.mismatched or (args.strict and tally.improper)))


def _numbered(lines):
    number = 0
    for line in lines:
        if line is None:
            yield number, None
            continue
        number += 1
        yield number, line


def _settle(
    pending: list, args, shown_listing: str, default, tally: _Tally, output: Output
) -> None:
    """Hash the entries in ``pending`` and report them and the improper lines among them,
    in line order, as GNU does while it reads."""
    entries = [item for item in pending if isinstance(item, _Entry)]
    results = iter(_check_batch(entries, default))
    algorithm = TAGS[default.name]
    for item in pending:
        if not isinstance(item, _Entry):
            if args.report == "warn":
                output.warn(
                    f"{shown_listing}: {item}: improperly formatted {algorithm} checksum line"
                )
            continue
        result = next(results)
        # GNU 9.1 escapes a name in these reports only when it holds a newline.
        prefix, shown = (
            escape_name(item.name) if "\n" in item.name else (b"", os.fsencode(item.name))
        )
        if isinstance(result, OSError):
            if args.ignore_missing and result.errno == errno.ENOENT:
                continue
            tally.unread += 1
            output.warn(f"{quotef(item.name)}: {error_text(result)}")
            if args.report != "status":
                output.write(prefix + shown + b": FAILED open or read\n")
            continue
        if result.hex() == item.want:
            tally.verified += 1  # GNU's "verified": a file whose digest matched
            if args.report not in ("quiet", "status"):
                output.write(prefix + shown + b": OK\n")
        else:
            tally.mismatched += 1
            if args.report != "status":
                output.write(prefix + shown + b": FAILED\n")
    output.flush()


def _check_batch(entries: list[_Entry], default) -> list:
    """Digests or OSErrors for checksum entries, each with its line's algorithm and length."""
    results: list = [None] * len(entries)
    groups: dict[tuple[str, int | None], list[int]] = {}
    for i, entry in enumerate(entries):
        groups.setdefault((entry.spec.name, entry.length), []).append(i)
    for (name, length), indices in groups.items():
        spec = next(entries[i].spec for i in indices)
        for start in range(0, len(indices), files_per_batch(length)):
            part = indices[start : start + files_per_batch(length)]
            found = digest_names([entries[i].name for i in part], spec, length)
            for i, result in zip(part, found):
                results[i] = result
    return results
