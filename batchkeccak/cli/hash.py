"""``batchkeccak hash``: digests of files (like sha3sum and GNU sha256sum, ``--check`` too) or
of every line of a text stream."""

from __future__ import annotations

import hashlib
import os
import sys

BATCH_BYTES = 64 << 20
"""Files (or lines) are read and hashed in batches of about this many bytes: bounded memory."""


FILES_PER_BATCH = 4096
"""File names hashed per call of ``hash_files`` (their output is printed after each)."""

TAGS = {
    "sha3_224": "SHA3-224", "sha3_256": "SHA3-256", "sha3_384": "SHA3-384",
    "sha3_512": "SHA3-512", "shake_128": "SHAKE128", "shake_256": "SHAKE256",
    "keccak_224": "KECCAK-224", "keccak_256": "KECCAK-256", "keccak_384": "KECCAK-384",
    "keccak_512": "KECCAK-512", "turboshake128": "TURBOSHAKE128",
    "turboshake256": "TURBOSHAKE256", "kt128": "KT128", "kt256": "KT256",
}  # fmt: skip
"""The algorithm's name in ``--tag`` lines (``SHA3-256 (NAME) = HEX``)."""

_CHECK_ONLY = ("quiet", "status", "strict", "warn", "ignore_missing")

TREE_DEFAULT_LENGTH = 32
"""Output bytes of ``-a kt128`` / ``-a kt256`` without ``--length`` (``batchkeccak.kt128``'s
default)."""


class TreeMode:
    """``-a kt128`` / ``-a kt256``: each file is one message of the tree mode, read in pieces
    and its leaves hashed on every core. Has the attributes of a table row this command
    reads."""

    xof = True
    digest_size = TREE_DEFAULT_LENGTH

    def __init__(self, name: str) -> None:
        self.name = name

    def digest(self, stream, length: int | None) -> bytes:
        import batchkeccak as bk

        kangarootwelve = getattr(bk, self.name)
        return kangarootwelve(stream, length=TREE_DEFAULT_LENGTH if length is None else length)


def strict_usage(parser) -> None:
    """Report an unknown option with this subcommand's usage line, not the top level's.

    argparse hands a subcommand's unrecognized arguments back to the top-level parser,
    whose usage line says nothing about the subcommand's options.
    """
    parse_known_args = parser.parse_known_args

    def parse_known_args_strictly(args=None, namespace=None):
        namespace, extras = parse_known_args(args, namespace)
        if extras:
            parser.error(f"unrecognized arguments: {' '.join(extras)}")
        return namespace, extras

    parser.parse_known_args = parse_known_args_strictly


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
        "-a", "--algorithm", default="sha3_256",
        help="default sha3_256; also sha3sum's 224, 256, 384, 512, keccak256, and the tree "
        "modes kt128 and kt256 (one big file on every core)",
    )
    parser.add_argument("--length", type=int,
                        help="output bytes for shake/turboshake (required) and kt128/kt256 "
                        f"(default {TREE_DEFAULT_LENGTH})")
    parser.add_argument("-c", "--check", action="store_true",
                        help="read digests from the FILEs and check them")
    parser.add_argument("--tag", action="store_true",
                        help="print BSD-style lines: 'SHA3-256 (NAME) = DIGEST'")
    parser.add_argument("-z", "--zero", action="store_true",
                        help="end each output line with NUL, not newline, and do not escape "
                        "file names")
    parser.add_argument(
        "--lines", action="store_true", help="hash each line of the input instead of each file"
    )
    checking = parser.add_argument_group("options for --check")
    checking.add_argument("--ignore-missing", action="store_true",
                          help="don't fail or report status for missing files")
    checking.add_argument("--quiet", action="store_true", help="don't print OK for each file")
    checking.add_argument("--status", action="store_true",
                          help="print nothing; the exit status tells")
    checking.add_argument("--strict", action="store_true",
                          help="exit non-zero for improperly formatted checksum lines")
    checking.add_argument("-w", "--warn", action="store_true",
                          help="warn about improperly formatted checksum lines")
    strict_usage(parser)
    parser.set_defaults(run=run)


class HashlibRow:
    """A row of the table that hashlib also has, for one stream alone (see :func:`run`):
    the attributes of a table row this command reads, taken from hashlib rather than from
    the table (which would load the kernels)."""

    def __init__(self, name: str) -> None:
        self.name = name
        self.xof = name.startswith("shake_")
        self.digest_size = None if self.xof else hashlib.new(name).digest_size

    def digest(self, stream, length: int | None) -> bytes:
        digest = hashlib.file_digest(stream, self.name)
        return digest.digest(length) if self.xof else digest.digest()  # type: ignore[call-arg]


HASHLIB_ROWS = {
    name: HashlibRow(name)
    for name in ("sha3_224", "sha3_256", "sha3_384", "sha3_512", "shake_128", "shake_256")
}


def _one_plain_stream(args) -> HashlibRow | None:
    """The hashlib row when this run hashes one file (or stdin) with a function hashlib has
    and a valid ``--length``; else None.

    One stream fills one lane: there is no batch to share the tile, and OpenSSL's one-state
    code is as fast per block as ours. Hashed through hashlib, such a run never loads numba
    or compiles anything: it starts in milliseconds and its memory stays near Python's own
    (``docs/performance.md``). Every other run, and every error, takes the usual path.
    """
    if args.check or args.lines or len(args.files) > 1:
        return None
    if any(getattr(args, option) for option in _CHECK_ONLY):
        return None  # a usage error, reported by the usual path
    row = HASHLIB_ROWS.get(_table_name(args.algorithm))
    if row is None:
        return None
    length = args.length
    if not row.xof:
        return row if length is None else None
    return row if isinstance(length, int) and 0 <= length <= MAX_PLAIN_LENGTH else None


MAX_PLAIN_LENGTH = 1 << 30
"""The longest SHAKE output the hashlib path gives (1 GiB); longer goes the usual way."""


def _table_name(name: str) -> str:
    """``-a``'s name as the table spells it: sha3sum's bit counts and ``keccak256`` mapped."""
    key = name.lower().replace("-", "_")
    if key in ("224", "256", "384", "512"):
        return f"sha3_{key}"
    for prefix, table_prefix in (("keccak", "keccak_"), ("sha3", "sha3_"), ("shake", "shake_")):
        if key.startswith(prefix) and key[len(prefix) :].isdigit():
            return table_prefix + key[len(prefix) :]
    return key


def resolve_algorithm(name: str):
    """The table row for ``-a`` (a table name, sha3sum's bit counts, or ``keccak256``), or a
    :class:`TreeMode`."""
    from batchkeccak.parameters import get_algorithm

    key = _table_name(name)
    if key in ("kt128", "kt256"):
        return TreeMode(key)
    return get_algorithm(key)


def run(args) -> int:
    plain = _one_plain_stream(args)
    if plain is not None:
        output = _Output()
        try:
            return _hash_files(args, plain, output)
        finally:
            output.flush()

    from batchkeccak.api import hasher
    from batchkeccak.cli import CommandError
    from batchkeccak.hashers import output_length

    try:
        spec = resolve_algorithm(args.algorithm)
        if isinstance(spec, TreeMode):
            hasher(spec.name, length=TREE_DEFAULT_LENGTH if args.length is None else args.length)
        elif not (args.check and spec.xof and args.length is None):
            output_length(spec, args.length)  # --check reads an XOF's length from each line
    except (TypeError, ValueError) as exc:
        raise CommandError(str(exc).replace("length ", "--length ", 1)) from None
    if not args.check:
        for option in _CHECK_ONLY:
            if getattr(args, option):
                flag = "--" + option.replace("_", "-")
                raise CommandError(f"the {flag} option is meaningful only when verifying checksums")
    if args.check and args.tag:
        raise CommandError("the --tag option is meaningless when verifying checksums")
    if args.check and args.zero:
        raise CommandError("the --zero option is not supported when verifying checksums")
    if args.lines and (args.check or args.tag or args.zero):
        raise CommandError("--lines cannot be combined with --check, --tag or --zero")
    if args.lines and isinstance(spec, TreeMode):
        raise CommandError(f"--lines cannot be combined with -a {spec.name}: hash files with it")
    if args.lines:
        return _hash_lines(args, spec)
    output = _Output()
    try:
        if args.check:
            return _check(args, spec, output)
        return _hash_files(args, spec, output)
    finally:
        output.flush()


class _Output:
    """Bytes to stdout (file names may be any bytes), flushed before each warning so the
    two streams stay in order."""

    def __init__(self) -> None:
        stdout = sys.stdout
        self._write = stdout.buffer.write if hasattr(stdout, "buffer") else None
        self._stdout = stdout

    def write(self, data: bytes) -> None:
        if self._write is not None:
            self._write(data)
        else:
            self._stdout.write(data.decode("utf-8", "surrogateescape"))

    def flush(self) -> None:
        if self._write is not None:
            self._stdout.buffer.flush()
        self._stdout.flush()

    def warn(self, message: str) -> None:
        self.flush()
        print(f"batchkeccak: {message}", file=sys.stderr, flush=True)


def _escape(name: str) -> tuple[bytes, bytes]:
    """GNU's escaping of a file name: (prefix for the line, name), the prefix ``\\`` when
    the name holds a backslash or a newline."""
    raw = os.fsencode(name)
    if b"\\" in raw or b"\n" in raw:
        return b"\\", raw.replace(b"\\", b"\\\\").replace(b"\n", b"\\n")
    return b"", raw


def _hash_lines(args, spec) -> int:
    import batchkeccak as bk

    out = sys.stdout
    with _progress(args.files, True) as bar:
        for name in args.files or ["-"]:
            stream = sys.stdin.buffer if name == "-" else _open(name)
            with stream if name != "-" else _nullcontext(stream):
                for lines, size in _line_batches(stream):
                    out.write("\n".join(bk.hexdigest_many(bk.FlatMessages(*lines), spec.name, length=args.length)))
                    out.write("\n")
                    bar.update(size)
    return 0


def _digest_stdin(spec, length: int | None) -> bytes:
    stream = sys.stdin.buffer if hasattr(sys.stdin, "buffer") else sys.stdin
    if isinstance(spec, (TreeMode, HashlibRow)):
        return spec.digest(stream, length)
    from batchkeccak.files import file_digest

    return file_digest(stream, spec.name).digest(length)


def _digest_each(names: list[str], spec: TreeMode | HashlibRow, length: int | None) -> list:
    """Digests (bytes) or OSErrors of ``names``, one stream at a time; ``-`` is stdin."""
    results: list = []
    for name in names:
        try:
            if name == "-":
                results.append(_digest_stdin(spec, length))
                continue
            with open(name, "rb") as stream:
                results.append(spec.digest(stream, length))
        except OSError as exc:
            results.append(exc)
    return results


def _digest_names(names: list[str], spec, length: int | None) -> list:
    """Digests (bytes) or OSErrors of ``names``, in order; ``-`` is stdin."""
    import batchkeccak as bk

    if isinstance(spec, (TreeMode, HashlibRow)):
        return _digest_each(names, spec, length)
    results: list = []
    files = [name for name in names if name != "-"]
    found = iter(bk.hash_files(files, spec.name, length=length, errors="collect") if files else [])
    for name in names:
        if name == "-":
            try:
                results.append(_digest_stdin(spec, length))
            except OSError as exc:
                results.append(exc)
        else:
            results.append(next(found))
    return results


def _hash_files(args, spec, output: _Output) -> int:
    length = args.length if spec.xof else None
    tag = TAGS[spec.name].encode()
    end = b"\0" if args.zero else b"\n"
    names = args.files or ["-"]
    failed = 0
    with _progress(names if sys.stderr.isatty() else [], False) as bar:
        for first in range(0, len(names), FILES_PER_BATCH):
            batch = names[first : first + FILES_PER_BATCH]
            for name, result in zip(batch, _digest_names(batch, spec, length)):
                if isinstance(result, OSError):
                    output.warn(f"{name}: {result.strerror}")
                    failed += 1
                    continue
                hex_digest = result.hex().encode()
                prefix, shown = (b"", os.fsencode(name)) if args.zero else _escape(name)
                if args.tag:
                    output.write(prefix + tag + b" (" + shown + b") = " + hex_digest + end)
                else:
                    output.write(prefix + hex_digest + b"  " + shown + end)
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


def _unescape(raw: bytes) -> bytes | None:
    """GNU's file-name unescaping (``\\\\`` and ``\\n``); None for any other escape."""
    out = bytearray()
    i = 0
    while i < len(raw):
        byte = raw[i]
        if byte == 0x5C:  # backslash
            following = raw[i + 1 : i + 2]
            if following == b"\\":
                out += b"\\"
            elif following == b"n":
                out += b"\n"
            else:
                return None
            i += 2
            continue
        out.append(byte)
        i += 1
    return bytes(out)


_HEX = frozenset(b"0123456789abcdefABCDEF")


def _parse_line(line: bytes, tag: bytes, expected_hex: int | None):
    """(name, lowercase hex) of one checksum line in either layout, or None.

    ``expected_hex`` is the digest's length in hex digits (None: an XOF, any even length).
    """
    line = line.lstrip(b" \t")
    escaped = line.startswith(b"\\")
    if escaped:
        line = line[1:]
    if line.startswith(tag + b" ("):
        cut = line.rfind(b") = ")
        if cut < 0:
            return None
        name, hex_digest = line[len(tag) + 2 : cut], line[cut + 4 :]
    else:
        space = line.find(b" ")
        if space < 0 or line[space + 1 : space + 2] not in (b" ", b"*"):
            return None
        hex_digest, name = line[:space], line[space + 2 :]
    if not hex_digest or not set(hex_digest) <= _HEX or len(hex_digest) % 2:
        return None
    if expected_hex is not None and len(hex_digest) != expected_hex:
        return None
    if not name:
        return None
    if escaped:
        name = _unescape(name)
        if name is None:
            return None
    return os.fsdecode(name), hex_digest.decode().lower()


def _plural(count: int, one: str, many: str) -> str:
    return one.format(count) if count == 1 else many.format(count)


def _check(args, spec, output: _Output) -> int:
    tag = TAGS[spec.name].encode()
    expected_hex = None if spec.xof and args.length is None else 2 * (
        args.length if spec.xof else spec.digest_size
    )
    status = 0
    for listing in args.files or ["-"]:
        try:
            if listing == "-":
                text = sys.stdin.buffer.read()
            else:
                with open(listing, "rb") as handle:
                    text = handle.read()
        except OSError as exc:
            output.warn(f"{listing}: {exc.strerror}")
            status = 1
            continue
        entries = []
        malformed_after: dict[int, list[int]] = {}  # entries before it -> malformed line numbers
        improper = 0
        lines = text.split(b"\n")
        if lines and lines[-1] == b"":
            lines.pop()
        for number, line in enumerate(lines, 1):
            if line.endswith(b"\r"):
                line = line[:-1]
            if not line.strip(b" \t") or line.lstrip(b" \t").startswith(b"#"):
                continue
            parsed = _parse_line(line, tag, expected_hex)
            if parsed is None:
                improper += 1
                malformed_after.setdefault(len(entries), []).append(number)
                continue
            entries.append(parsed)

        def report_malformed(
            position: int, listing: str = listing, malformed_after: dict = malformed_after
        ) -> None:
            # In line order, as GNU reports them while it reads the listing.
            for number in malformed_after.get(position, []) if args.warn else []:
                output.warn(
                    f"{listing}: {number}: improperly formatted {TAGS[spec.name]} checksum line"
                )

        if not entries:
            report_malformed(0)
            output.warn(f"{listing}: no properly formatted checksum lines found")
            status = 1
            continue
        unread = mismatched = verified = 0
        for first in range(0, len(entries), FILES_PER_BATCH):
            batch = entries[first : first + FILES_PER_BATCH]
            for position, ((name, want), result) in enumerate(
                zip(batch, _check_batch(batch, spec)), first
            ):
                report_malformed(position)
                # GNU escapes a name in these reports only when it holds a newline.
                prefix, shown = _escape(name) if "\n" in name else (b"", os.fsencode(name))
                if isinstance(result, OSError):
                    if args.ignore_missing and isinstance(result, FileNotFoundError):
                        continue
                    unread += 1
                    output.warn(f"{name}: {result.strerror}")
                    if not args.status:
                        output.write(prefix + shown + b": FAILED open or read\n")
                    continue
                verified += 1
                if result.hex() == want:
                    if not (args.quiet or args.status):
                        output.write(prefix + shown + b": OK\n")
                else:
                    mismatched += 1
                    if not args.status:
                        output.write(prefix + shown + b": FAILED\n")
        report_malformed(len(entries))
        if not args.status:
            if improper:
                output.warn("WARNING: " + _plural(
                    improper, "{} line is improperly formatted",
                    "{} lines are improperly formatted"))
            if unread:
                output.warn("WARNING: " + _plural(
                    unread, "{} listed file could not be read",
                    "{} listed files could not be read"))
            if mismatched:
                output.warn("WARNING: " + _plural(
                    mismatched, "{} computed checksum did NOT match",
                    "{} computed checksums did NOT match"))
        if args.ignore_missing and not verified:
            output.warn(f"{listing}: no file was verified")
            status = 1
        if unread or mismatched or (args.strict and improper):
            status = 1
    return status


def _check_batch(entries: list[tuple[str, str]], spec) -> list:
    """Digests or OSErrors for checksum entries, each at the length its line gives."""
    if not spec.xof:
        return _digest_names([name for name, _ in entries], spec, None)
    results: list = [None] * len(entries)
    by_length: dict[int, list[int]] = {}
    for i, (_, want) in enumerate(entries):
        by_length.setdefault(len(want) // 2, []).append(i)
    for length, indices in by_length.items():
        found = _digest_names([entries[i][0] for i in indices], spec, length)
        for i, result in zip(indices, found):
            results[i] = result
    return results


def _progress(files: list[str], lines: bool):
    """Bytes hashed so far on stderr, shown only when stderr is a terminal."""
    if not sys.stderr.isatty():
        return _NoProgress()  # and tqdm is not even imported
    from tqdm import tqdm

    total = _sizes(files)
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


class _NoProgress:
    total = None

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False

    def update(self, count: int) -> None:
        pass


class _nullcontext:
    def __init__(self, value):
        self.value = value

    def __enter__(self):
        return self.value

    def __exit__(self, *exc):
        return False
