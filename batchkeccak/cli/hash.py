"""``batchkeccak hash``: digests of files (like sha3sum and GNU sha256sum, ``--check`` too) or
of every line of a text stream."""

from __future__ import annotations

import argparse
import errno
import os
import sys

from batchkeccak.cli import CommandError, UsageError
from batchkeccak.cli.mode_options import add_mode_options
from batchkeccak.cli.options import add_length_option
from batchkeccak.cli.quoting import quotef
from batchkeccak.cli.sums import (
    MAX_LENGTH,
    TAGS,
    TREE_DEFAULT_LENGTH,
    Choice,
    Output,
    StdinUse,
    WriteError,
    digest_names,
    error_text,
    escape_text,
    files_per_batch,
    resolve_algorithm,
    stderr_line,
    stdin_reader,
)
from batchkeccak.io.lines import line_batches
from batchkeccak.support.progress import bar_cleared, progress_bar

__all__ = ["TAGS", "register", "resolve_algorithm"]


_CHECK_ONLY = ("ignore_missing", "status", "warn", "quiet", "strict")
"""Options of --check, in the order GNU names the first misused one."""


TROUBLE_STATUS = 1
"""Exit status on trouble: as GNU's ``sha256sum``: a file that cannot be read, a write error, a failed check."""


def register(subparsers) -> None:
    parser = subparsers.add_parser(
        "hash",
        help="hash or check files like sha3sum / sha256sum, or hash each line (--lines)",
        description="Print 'DIGEST  NAME' for each FILE, as sha3sum and GNU sha256sum do "
        "(many small files are hashed together, large ones are streamed); with --check, "
        "verify the digests listed in FILEs; with --lines, print one digest per input line "
        "(line ending excluded).",
    )
    parser.add_argument("files", nargs="*", metavar="FILE", help="files to hash; - or none: stdin")
    parser.add_argument(
        "-a",
        "--algorithm",
        default=None,
        help=f"default sha3_256; one of {', '.join(TAGS)} (or sha3sum's 224, 256, 384, 512, "
        "keccak256, shake128...; the keyed kmac and hmac modes take their key from --key-file "
        "or --key-env; kt128 and kt256 hash one big file on every core); with --check and no "
        "-a, each tagged line names its own",
    )
    add_length_option(
        parser,
        help="output bytes for shake/turboshake/kmac/cshake/parallelhash "
        "(required) and kt128/kt256 "
        f"(default {TREE_DEFAULT_LENGTH}); at most {MAX_LENGTH}",
    )
    parser.add_argument(
        "-b",
        "--binary",
        dest="binary",
        action="store_const",
        const=True,
        help="mark each name with '*' (no effect on the digest)",
    )
    parser.add_argument(
        "-t",
        "--text",
        dest="binary",
        action="store_const",
        const=False,
        help="the default: no effect on the digest",
    )
    parser.add_argument(
        "-c", "--check", action="store_true", help="read digests from the FILEs and check them"
    )
    parser.add_argument(
        "--tag",
        action=_Tag,
        nargs=0,
        default=False,
        help="print BSD-style lines: 'SHA3-256 (NAME) = DIGEST'",
    )
    parser.add_argument(
        "-z",
        "--zero",
        action="store_true",
        help="end each output line with NUL, not newline, and do not escape file names",
    )
    parser.add_argument(
        "--lines", action="store_true", help="hash each line of the input instead of each file"
    )
    checking = parser.add_argument_group("options for --check")
    checking.add_argument(
        "--ignore-missing",
        action="store_true",
        help="don't fail or report status for missing files",
    )
    # --quiet, --status and --warn each cancel the others: the last one given wins.
    checking.add_argument(
        "--quiet",
        dest="report",
        action="store_const",
        const="quiet",
        help="don't print OK for each file",
    )
    checking.add_argument(
        "--status",
        dest="report",
        action="store_const",
        const="status",
        help="print nothing; the exit status tells",
    )
    checking.add_argument(
        "--strict",
        action="store_true",
        help="exit non-zero for improperly formatted checksum lines",
    )
    checking.add_argument(
        "-w",
        "--warn",
        dest="report",
        action="store_const",
        const="warn",
        help="warn about improperly formatted checksum lines",
    )
    add_mode_options(parser)
    parser.set_defaults(run=run)


class _Tag(argparse.Action):
    """--tag, which implies --binary as in GNU: ``-t --tag`` works, ``--tag -t`` does not."""

    def __call__(self, parser, namespace, values, option_string=None):
        namespace.tag = True
        namespace.binary = True


def _misuse(args) -> str | None:
    """GNU's complaint about options that do not go together, checked in GNU's order."""
    if args.check and args.zero:
        return "the --zero option is not supported when verifying checksums"
    if args.check and args.tag:
        return "the --tag option is meaningless when verifying checksums"
    if args.check and args.binary is not None:
        return "the --binary and --text options are meaningless when verifying checksums"
    if args.tag and args.binary is False:
        return "--tag does not support --text mode"
    if not args.check:
        given = {"ignore_missing": args.ignore_missing, "strict": args.strict}
        given[args.report or ""] = True
        for option in _CHECK_ONLY:
            if given.get(option):
                flag = "--" + option.replace("_", "-")
                return f"the {flag} option is meaningful only when verifying checksums"
    if args.lines and (args.check or args.tag or args.zero):
        return "--lines cannot be combined with --check, --tag or --zero"
    if args.length is not None and args.length > MAX_LENGTH:
        return f"--length {args.length} is too large: at most {MAX_LENGTH} bytes"
    return None


def _resolve(args) -> Choice:
    """The algorithm of ``-a`` (sha3_256 without it) with its key and customization, its
    ``--length`` checked."""
    from batchkeccak.cli.mode_options import mode_params, read_params
    from batchkeccak.files import plain_row

    name = "sha3_256" if args.algorithm is None else args.algorithm  # -a '' is no name
    try:
        choice = resolve_algorithm(name)
    except ValueError as exc:
        raise UsageError(str(exc)) from None
    if args.check and args.algorithm is None:
        choice.offered = read_params(args)  # each tagged line takes what its mode uses
    else:
        choice.params = mode_params(args, choice.name)  # CommandError: not a usage error
    try:
        if args.check and choice.xof and args.length is None:
            # --check reads the length from each line: check the rest at some length.
            choice.hasher(choice.default_length or 32)
        elif plain_row(choice.name, args.length, choice.params) is None:
            choice.hasher(args.length)
    except (TypeError, ValueError) as exc:
        raise UsageError(str(exc).replace("length ", "--length ", 1)) from None
    return choice


def run(args) -> int:
    output = Output()
    StdinUse.asked = False
    try:
        try:
            status = _run(args, output)
        finally:
            output.flush()
    except UsageError:
        raise  # reported by main, as every subcommand's
    except CommandError as exc:  # a key that cannot be read, a parameter the mode lacks
        stderr_line(f"batchkeccak: {exc}")
        return 1
    # A WriteError goes on to batchkeccak.cli's one map: "write error: ...", status 1.
    if StdinUse.asked and sys.stdin is None:
        # GNU's *sum close stdin last and report a closed one there, once more (``<&-``).
        stderr_line(f"batchkeccak: standard input: {os.strerror(errno.EBADF)}")
        return 1
    return status


def _run(args, output: Output) -> int:
    message = _misuse(args)
    if message is not None:
        raise UsageError(message)
    spec = _resolve(args)
    if args.lines:
        return _hash_lines(args, spec, output)
    if args.check:
        from batchkeccak.cli.check import check

        return check(args, spec, output)
    return _hash_files(args, spec, output)


def _hash_lines(args, spec, output: Output) -> int:
    import batchkeccak as bk

    failed = 0
    with _progress(args.files, True) as bar:
        for name in args.files or ["-"]:
            try:
                stream = stdin_reader() if name == "-" else open(name, "rb", buffering=0)  # noqa: SIM115 (closed below)
            except OSError as exc:
                output.warn(f"{quotef(name)}: {error_text(exc)}")
                failed = 1
                continue
            try:
                for (data, offsets), size in line_batches(stream):
                    digests = bk.hexdigest_many(
                        bk.FlatMessages(data, offsets), spec.hasher(args.length)
                    )
                    with bar_cleared(bar, output.flush):
                        output.write("\n".join(digests).encode() + b"\n")
                    bar.update(size)
            except OSError as exc:
                if isinstance(exc, (WriteError, BrokenPipeError)):
                    raise
                output.warn(f"{quotef(name)}: {error_text(exc)}")
                failed = 1
            finally:
                if name != "-":
                    stream.close()
    return failed


_FS_ENCODING, _FS_ERRORS = sys.getfilesystemencoding(), sys.getfilesystemencodeerrors()


def _hash_files(args, spec, output: Output) -> int:
    length = spec.length(args.length if spec.xof else None)
    tag = TAGS[spec.name]
    end = "\0" if args.zero else "\n"
    marker = "*" if args.binary else " "
    names = args.files or ["-"]
    failed = 0
    per_batch = files_per_batch(length)

    def encoded(lines: list[str]) -> bytes:
        # One encode for a batch of lines: the names are encoded as os.fsencode would.
        return "".join(lines).encode(_FS_ENCODING, _FS_ERRORS)

    with _progress(names if sys.stderr is not None and sys.stderr.isatty() else [], False) as bar:
        for first in range(0, len(names), per_batch):
            batch = names[first : first + per_batch]
            lines: list[str] = []  # written together: one call per batch, not per file
            for name, result in zip(batch, digest_names(batch, spec, length)):
                if isinstance(result, OSError):
                    with bar_cleared(bar, output.flush):
                        output.write(encoded(lines))  # what came before the warning
                        lines.clear()
                        output.warn(
                            f"{quotef(name) if name != '-' else name}: {error_text(result)}"
                        )
                    failed += 1
                    continue
                prefix, shown = ("", name) if args.zero else escape_text(name)
                if args.tag:
                    lines.append(f"{prefix}{tag} ({shown}) = {result.hex()}{end}")
                else:
                    lines.append(f"{prefix}{result.hex()} {marker}{shown}{end}")
            with bar_cleared(bar, output.flush):
                output.write(encoded(lines))
            bar.update(_sizes(batch) if bar.total else 0)
    return 1 if failed else 0


def _sizes(names: list[str]) -> int:
    total = 0
    for name in names:
        try:
            total += os.stat(name).st_size if name != "-" else 0
        except OSError:
            pass
    return total


def _progress(files: list[str], lines: bool):
    """Bytes hashed so far on stderr, shown only when stderr is a terminal and the work has
    taken ``PROGRESS_DELAY`` seconds, erased while digests are written and when it ends."""
    if sys.stderr is None or not sys.stderr.isatty():
        return _NoProgress()  # and tqdm is not even imported
    return progress_bar(
        _sizes(files) or None,
        "lines" if lines else "files",
        unit="B",
        delay=PROGRESS_DELAY,
        leave=False,
    )


PROGRESS_DELAY = 1.5
"""Seconds of work before ``hash`` shows a bar: a few small files show none."""


class _NoProgress:
    total = None

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False

    def update(self, count: int) -> None:
        pass
