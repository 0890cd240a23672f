"""``batchkeccak hash``: digests of files (like sha3sum) or of every line of a text stream."""

from __future__ import annotations

import os
import sys
from pathlib import Path

BATCH_BYTES = 64 << 20
"""Files (or lines) are read and hashed in batches of about this many bytes: bounded memory."""


def register(subparsers) -> None:
    parser = subparsers.add_parser(
        "hash",
        help="hash files (one digest per file) or each line of the input (--lines)",
        description="Print 'DIGEST  NAME' for each FILE, as sha3sum does, hashing many files "
        "in one batch; with --lines, print one digest per input line (line ending excluded).",
    )
    parser.add_argument("files", nargs="*", metavar="FILE", help="files to hash; - or none: stdin")
    parser.add_argument("-a", "--algorithm", default="sha3_256", help="default sha3_256")
    parser.add_argument("--length", type=int, help="output bytes for shake/turboshake")
    parser.add_argument(
        "--lines", action="store_true", help="hash each line of the input instead of each file"
    )
    parser.set_defaults(run=run)


def run(args) -> int:
    import batchkeccak as bk
    from batchkeccak.algorithms import get_algorithm
    from batchkeccak.api import output_length
    from batchkeccak.cli import CommandError

    try:
        spec = get_algorithm(args.algorithm)
        output_length(spec, args.length)
    except (TypeError, ValueError) as exc:
        raise CommandError(str(exc).replace("length ", "--length ", 1)) from None
    hash_batch = lambda messages: bk.hexdigest_many(
        messages, spec.name, length=args.length
    )
    out = sys.stdout
    if args.lines:
        sources = args.files or ["-"]
        for name in sources:
            stream = sys.stdin.buffer if name == "-" else _open(name)
            with stream if name != "-" else _nullcontext(stream):
                for lines in _line_batches(stream):
                    out.write("\n".join(hash_batch(lines)))
                    out.write("\n")
        return 0

    names = args.files or ["-"]
    for batch in _file_batches(names):
        contents = [_read(name) for name in batch]
        for name, digest in zip(batch, hash_batch(contents)):
            out.write(f"{digest}  {name}\n")
    return 0


def _open(name: str):
    from batchkeccak.cli import CommandError

    try:
        return open(name, "rb")
    except OSError as exc:
        raise CommandError(f"cannot read {name}: {exc.strerror}") from None


def _read(name: str) -> bytes:
    from batchkeccak.cli import CommandError

    if name == "-":
        return sys.stdin.buffer.read()
    try:
        return Path(name).read_bytes()
    except OSError as exc:
        raise CommandError(f"cannot read {name}: {exc.strerror}") from None


def _file_batches(names: list[str]):
    batch, size = [], 0
    for name in names:
        try:
            file_size = 0 if name == "-" else os.stat(name).st_size
        except OSError:
            file_size = 0  # reported by _read with the OS's reason
        if batch and size + file_size > BATCH_BYTES:
            yield batch
            batch, size = [], 0
        batch.append(name)
        size += file_size
    if batch:
        yield batch


def _line_batches(stream):
    lines, size = [], 0
    for line in stream:
        line = line.rstrip(b"\n")
        if line.endswith(b"\r"):
            line = line[:-1]
        lines.append(line)
        size += len(line) + 64
        if size >= BATCH_BYTES:
            yield lines
            lines, size = [], 0
    if lines:
        yield lines


class _nullcontext:
    def __init__(self, value):
        self.value = value

    def __enter__(self):
        return self.value

    def __exit__(self, *exc):
        return False
