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
    from batchkeccak.cli import CommandError
    from batchkeccak.hashers import output_length

    try:
        spec = get_algorithm(args.algorithm)
        output_length(spec, args.length)
    except (TypeError, ValueError) as exc:
        raise CommandError(str(exc).replace("length ", "--length ", 1)) from None
    hash_batch = lambda messages: bk.hexdigest_many(
        messages, spec.name, length=args.length
    )
    out = sys.stdout
    with _progress(args.files, args.lines) as bar:
        if args.lines:
            for name in args.files or ["-"]:
                stream = sys.stdin.buffer if name == "-" else _open(name)
                with stream if name != "-" else _nullcontext(stream):
                    for lines, size in _line_batches(stream):
                        out.write("\n".join(hash_batch(bk.FlatMessages(*lines))))
                        out.write("\n")
                        bar.update(size)
            return 0

        for batch in _file_batches(args.files or ["-"]):
            contents = [_read(name) for name in batch]
            for name, digest in zip(batch, hash_batch(contents)):
                out.write(f"{digest}  {name}\n")
            bar.update(sum(map(len, contents)))
    return 0


def _progress(files: list[str], lines: bool):
    """Bytes hashed so far on stderr, shown only when stderr is a terminal."""
    from tqdm import tqdm

    total = 0
    for name in files:
        try:
            total += os.stat(name).st_size if name != "-" else 0
        except OSError:
            pass
    return tqdm(
        total=total or None,
        unit="B",
        unit_scale=True,
        desc="lines" if lines else "files",
        file=sys.stderr,
        disable=None,  # None: only when stderr is a terminal
        dynamic_ncols=True,
    )


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
    """``((data, offsets), bytes read)`` per batch of whole lines, line endings excluded.

    Lines are found with numpy over blocks of the input, so no Python work is done per line.
    """
    import numpy as np

    carry = b""
    while True:
        block = stream.read(BATCH_BYTES)
        if not block:
            break
        buffer = carry + block
        cut = buffer.rfind(b"\n") + 1
        if cut == 0:
            carry = buffer
            continue
        carry = buffer[cut:]
        yield _split_lines(np.frombuffer(buffer[:cut], dtype=np.uint8)), cut
    if carry:
        yield _split_lines(np.frombuffer(carry + b"\n", dtype=np.uint8)), len(carry)


def _split_lines(data):
    """(data, offsets) of the lines in ``data`` (which ends with a newline), endings removed."""
    import numpy as np

    ends = np.flatnonzero(data == 10)  # the newline of each line
    starts = np.empty_like(ends)
    starts[0] = 0
    starts[1:] = ends[:-1] + 1
    keep = np.ones(data.shape[0], dtype=bool)
    keep[ends] = False
    # A line ending in CR LF loses the CR too.
    crlf = ends[(ends > starts) & (data[ends - 1] == 13)]
    keep[crlf - 1] = False
    lengths = ends - starts
    lengths[np.isin(ends, crlf)] -= 1
    offsets = np.zeros(ends.shape[0] + 1, dtype=np.int64)
    np.cumsum(lengths, out=offsets[1:])
    return data[keep], offsets


class _nullcontext:
    def __init__(self, value):
        self.value = value

    def __enter__(self):
        return self.value

    def __exit__(self, *exc):
        return False
