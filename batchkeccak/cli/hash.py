"""``batchkeccak hash``: digests of files (like sha3sum and GNU sha256sum, ``--check`` too) or
of every line of a text stream."""

from __future__ import annotations

import argparse
import errno
import hashlib
import os
import sys

from batchkeccak.cli import CommandError, UsageError
from batchkeccak.cli.mode_options import add_mode_options
from batchkeccak.cli.quoting import quotef
from batchkeccak.io.lines import SingleReads, line_batches, stream_lines

FILES_PER_BATCH = 4096
"""File names hashed per call of ``hash_files`` (their output is printed after each)."""

TAGS = {
    "sha3_224": "SHA3-224", "sha3_256": "SHA3-256", "sha3_384": "SHA3-384",
    "sha3_512": "SHA3-512", "shake_128": "SHAKE128", "shake_256": "SHAKE256",
    "keccak_224": "KECCAK-224", "keccak_256": "KECCAK-256", "keccak_384": "KECCAK-384",
    "keccak_512": "KECCAK-512", "turboshake128": "TURBOSHAKE128",
    "turboshake256": "TURBOSHAKE256", "kt128": "KT128", "kt256": "KT256",
    "cshake_128": "CSHAKE128", "cshake_256": "CSHAKE256",
    "kmac_128": "KMAC128", "kmac_256": "KMAC256",
    "kmac_xof_128": "KMACXOF128", "kmac_xof_256": "KMACXOF256",
    "hmac_sha3_224": "HMAC-SHA3-224", "hmac_sha3_256": "HMAC-SHA3-256",
    "hmac_sha3_384": "HMAC-SHA3-384", "hmac_sha3_512": "HMAC-SHA3-512",
    "parallelhash_128": "PARALLELHASH128", "parallelhash_256": "PARALLELHASH256",
    "parallelhash_xof_128": "PARALLELHASHXOF128", "parallelhash_xof_256": "PARALLELHASHXOF256",
}  # fmt: skip
"""The algorithm's name in ``--tag`` lines (``SHA3-256 (NAME) = HEX``): every row of the
table and every mode that hashes a file as one message (TupleHash frames each string with
its length first, so it hashes lines, not files)."""

_CHECK_ONLY = ("ignore_missing", "status", "warn", "quiet", "strict")
"""Options of --check, in the order GNU names the first misused one."""

MAX_LENGTH = 1 << 30
"""The longest ``--length`` produced (1 GiB): a longer one is refused before anything is
allocated."""

OUTPUT_BUDGET = 256 << 20
"""Digest bytes held at once: fewer files per batch when each digest is long."""

FIRST_BATCH = 1
"""--check hashes its first entries this few at a time, doubling up to FILES_PER_BATCH, so the
first verdict shows at once even when the listing never ends."""

TREE_DEFAULT_LENGTH = 32
"""Output bytes of ``-a kt128`` / ``-a kt256`` without ``--length`` (``batchkeccak.kt128``'s
default)."""


class Choice:
    """``-a``'s algorithm as this command uses it: the library's name for it, the mode's
    parameters (key, customization), and what a digest's length says about it.

    ``xof`` is true when the output length is the user's choice (``--length``, or each
    checksum line's own length with ``--check``); ``digest_size`` is the fixed size otherwise.
    """

    def __init__(self, name: str, params: dict[str, object]) -> None:
        from batchkeccak.derived import modes
        from batchkeccak.parameters import algorithms

        self.name = name
        mode = modes.get(name) if name not in algorithms else None
        # Without -a, --check offers the key to every tagged line: each takes what it uses.
        takes = mode.params if mode is not None else ()
        self.params = {option: value for option, value in params.items() if option in takes}
        row = algorithms[mode.sponge if mode is not None else name]
        self.row = row if mode is None else None
        """The table's row when ``-a`` names one (no mode): small work goes to hashlib or
        pycryptodome without the library's hasher, so without numpy."""
        self.xof = row.xof if mode is None else not mode.fixed_length
        self.digest_size = None if self.xof else row.digest_size
        self.default_length = TREE_DEFAULT_LENGTH if name in ("kt128", "kt256") else None

    def hasher(self, length: int | None):
        """The library's hasher at ``length`` (the default one where the mode has it)."""
        from batchkeccak.api import hasher

        if self.xof and length is None:
            length = self.default_length
        return hasher(self.name, length=length, **self.params)

    def digest_stream(self, stream, length: int | None) -> bytes:
        """The digest of a binary stream read to its end."""
        from batchkeccak.derived.hashers import TreeHasher
        from batchkeccak.files import file_digest

        resolved = self.hasher(length)
        if isinstance(resolved, TreeHasher):
            # Read in pieces on a thread of its own, the leaves hashed on every core.
            return resolved.hash_message(stream)
        return file_digest(stream, resolved).digest()


def _stderr(message: str) -> None:
    """One diagnostic on stderr; names in it are already quoted, so any bytes left are the
    user's own (surrogateescape)."""
    stream = sys.stderr
    if stream is None:
        return
    try:
        stream.flush()
        data = (message + "\n").encode("utf-8", "surrogateescape")
        if hasattr(stream, "buffer"):
            stream.buffer.write(data)
            stream.buffer.flush()
        else:
            stream.write(data.decode("utf-8", "replace"))
            stream.flush()
    except (OSError, ValueError):
        pass  # stderr gone: there is nowhere left to say it


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
        "-a", "--algorithm", default=None,
        help="default sha3_256; also sha3sum's 224, 256, 384, 512, keccak256, shake128, the "
        "keyed modes (kmac256, hmac-sha3-256: key from --key-file or --key-env), cshake128, "
        "parallelhash128 and the tree modes kt128 and kt256 (one big file on every core); "
        "with --check and no -a, each tagged line names its own",
    )
    parser.add_argument("--length", type=int,
                        help="output bytes for shake/turboshake/kmac/cshake/parallelhash "
                        "(required) and kt128/kt256 "
                        f"(default {TREE_DEFAULT_LENGTH}); at most {MAX_LENGTH}")
    parser.add_argument("-b", "--binary", dest="binary", action="store_const", const=True,
                        help="mark each name with '*' (no effect on the digest)")
    parser.add_argument("-t", "--text", dest="binary", action="store_const", const=False,
                        help="the default: no effect on the digest")
    parser.add_argument("-c", "--check", action="store_true",
                        help="read digests from the FILEs and check them")
    parser.add_argument("--tag", action=_Tag, nargs=0, default=False,
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
    # --quiet, --status and --warn each cancel the others: the last one given wins.
    checking.add_argument("--quiet", dest="report", action="store_const", const="quiet",
                          help="don't print OK for each file")
    checking.add_argument("--status", dest="report", action="store_const", const="status",
                          help="print nothing; the exit status tells")
    checking.add_argument("--strict", action="store_true",
                          help="exit non-zero for improperly formatted checksum lines")
    checking.add_argument("-w", "--warn", dest="report", action="store_const", const="warn",
                          help="warn about improperly formatted checksum lines")
    add_mode_options(parser)
    parser.set_defaults(run=run)


class _Tag(argparse.Action):
    """--tag, which implies --binary as in GNU: ``-t --tag`` works, ``--tag -t`` does not."""

    def __call__(self, parser, namespace, values, option_string=None):
        namespace.tag = True
        namespace.binary = True


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
    if args.key_file is not None or args.key_env is not None or args.customization is not None:
        return None
    row = HASHLIB_ROWS.get(_HASHLIB_SPELLINGS.get(_table_name(args.algorithm or "sha3_256").lower()))
    if row is None:
        return None
    length = args.length
    if not row.xof:
        return row if length is None else None
    return row if isinstance(length, int) and 0 <= length <= MAX_PLAIN_LENGTH else None


MAX_PLAIN_LENGTH = MAX_LENGTH
"""The longest SHAKE output the hashlib path gives."""


def _table_name(name: str) -> str:
    """``-a``'s name with sha3sum's bit counts (``-a 256``) read as SHA-3; other spellings
    are the library's to read."""
    key = name.strip()
    return f"sha3_{key}" if key in ("224", "256", "384", "512") else key


_HASHLIB_SPELLINGS = {
    spelling: name for name in ("sha3_224", "sha3_256", "sha3_384", "sha3_512",
                                "shake_128", "shake_256")
    for spelling in (name, name.replace("_", "-"), name.replace("_", ""))
}
"""The usual spellings of hashlib's rows, read without loading the library's tables (the
one-stream path below never loads them)."""


def resolve_algorithm(name: str, params: dict[str, object] | None = None) -> Choice:
    """The :class:`Choice` of ``-a`` (any spelling the library reads, or sha3sum's bit
    counts); ValueError naming every valid name when there is none."""
    from batchkeccak.derived.table import algorithm_names
    from batchkeccak.parameters import canonical_name

    key = canonical_name(_table_name(name), algorithm_names())
    if key is None:
        raise ValueError(
            f"unknown algorithm {name!r}; valid algorithms: {', '.join(algorithm_names())}"
        )
    if key not in TAGS:
        raise ValueError(
            f"{key} frames each string with its length first, so it cannot hash a file "
            "read in pieces; use batchkeccak.tuplehash_many in Python"
        )
    return Choice(key, params or {})


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

    name = args.algorithm or "sha3_256"
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
        elif not _plainly_valid(choice, args.length):
            choice.hasher(args.length)
    except (TypeError, ValueError) as exc:
        raise UsageError(str(exc).replace("length ", "--length ", 1)) from None
    return choice


def _plainly_valid(choice: Choice, length: int | None) -> bool:
    """True when ``choice`` is a row of the table and ``length`` one it takes: the check
    needs no hasher then (anything else is left to the hasher, and its message)."""
    row = choice.row
    if row is None:
        return False
    if not row.xof:
        return length is None
    return type(length) is int and 0 <= length <= MAX_LENGTH


def run(args) -> int:
    output = _Output()
    _Stdin.asked = False
    try:
        try:
            status = _run(args, output)
        finally:
            output.flush()
    except UsageError:
        raise  # reported by main, as every subcommand's
    except CommandError as exc:  # a key that cannot be read, a parameter the mode lacks
        _stderr(f"batchkeccak: {exc}")
        return 1
    except _WriteError as exc:
        _discard_stdout()
        _stderr(f"batchkeccak: write error: {exc.strerror}" if exc.strerror else
                "batchkeccak: write error")
        return 1
    if _Stdin.asked and sys.stdin is None:
        # GNU's *sum close stdin last and report a closed one there, once more (``<&-``).
        _stderr(f"batchkeccak: standard input: {os.strerror(errno.EBADF)}")
        return 1
    return status


def _run(args, output: _Output) -> int:
    message = _misuse(args)
    if message is not None:
        raise UsageError(message)
    plain = _one_plain_stream(args)
    if plain is not None:
        return _hash_files(args, plain, output)
    spec = _resolve(args)
    if args.lines:
        return _hash_lines(args, spec, output)
    if args.check:
        return _check(args, spec, output)
    return _hash_files(args, spec, output)


class _WriteError(OSError):
    """Standard output refused our bytes (a full disk, a closed descriptor)."""


def _discard_stdout() -> None:
    # What is still buffered would fail again when Python flushes stdout at exit.
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, 1)
        os.close(devnull)
    except OSError:
        pass


class _Output:
    """Bytes to stdout (file names may be any bytes), flushed before each warning so the
    two streams stay in order."""

    def __init__(self) -> None:
        self._stdout = sys.stdout
        self._buffer = getattr(self._stdout, "buffer", None)

    def _guarded(self, action) -> None:
        if self._stdout is None:
            raise _WriteError(errno.EBADF, os.strerror(errno.EBADF))
        try:
            action()
        except BrokenPipeError:
            raise
        except (OSError, ValueError) as exc:
            raise _WriteError(getattr(exc, "errno", None) or errno.EIO,
                              getattr(exc, "strerror", None) or os.strerror(errno.EIO)) from None

    def write(self, data: bytes) -> None:
        if not data:
            return
        if self._buffer is not None:
            self._guarded(lambda: self._buffer.write(data))
        else:
            self._guarded(lambda: self._stdout.write(data.decode("utf-8", "surrogateescape")))

    def flush(self) -> None:
        if self._stdout is None:
            return  # closed (``>&-``): only a write fails, as GNU's does
        def flush_both() -> None:
            if self._buffer is not None:
                self._buffer.flush()
            self._stdout.flush()

        self._guarded(flush_both)

    def warn(self, message: str) -> None:
        self.flush()
        _stderr(f"batchkeccak: {message}")


_FS_ENCODING, _FS_ERRORS = sys.getfilesystemencoding(), sys.getfilesystemencodeerrors()


def _escape_text(name: str) -> tuple[str, str]:
    """GNU 9's escaping of a file name: (prefix for the line, name), the prefix ``\\`` when
    the name holds a backslash, a newline or a carriage return, any of which would make
    the line read back differently."""
    if "\\" in name or "\n" in name or "\r" in name:
        return "\\", name.replace("\\", "\\\\").replace("\n", "\\n").replace("\r", "\\r")
    return "", name


def _escape(name: str) -> tuple[bytes, bytes]:
    """:func:`_escape_text`, encoded as the file system encodes the name."""
    prefix, shown = _escape_text(name)
    return prefix.encode(), os.fsencode(shown)


def _error(exc: OSError) -> str:
    return exc.strerror or str(exc)


def _hash_lines(args, spec, output: _Output) -> int:
    import batchkeccak as bk

    failed = 0
    with _progress(args.files, True) as bar:
        for name in args.files or ["-"]:
            try:
                stream = _stdin_reader() if name == "-" else open(name, "rb", buffering=0)  # noqa: SIM115 (closed below)
            except OSError as exc:
                output.warn(f"{quotef(name)}: {_error(exc)}")
                failed = 1
                continue
            try:
                for (data, offsets), size in line_batches(stream):
                    digests = bk.hexdigest_many(bk.FlatMessages(data, offsets),
                                                spec.hasher(args.length))
                    output.write("\n".join(digests).encode() + b"\n")
                    bar.update(size)
            except OSError as exc:
                if isinstance(exc, (_WriteError, BrokenPipeError)):
                    raise
                output.warn(f"{quotef(name)}: {_error(exc)}")
                failed = 1
            finally:
                if name != "-":
                    stream.close()
    return failed


class _Stdin:
    asked = False
    """Whether this run has asked for standard input (``-``, or no FILE)."""


def _stdin_reader():
    """Standard input as a binary stream; OSError(EBADF) when it is closed (``<&-``)."""
    _Stdin.asked = True
    stdin = sys.stdin
    if stdin is None:
        raise OSError(errno.EBADF, os.strerror(errno.EBADF))
    try:
        fd = stdin.fileno()
    except (AttributeError, OSError, ValueError):  # replaced by a test or an embedder
        return getattr(stdin, "buffer", stdin)
    return SingleReads(fd)


def _digest_stdin(spec, length: int | None) -> bytes:
    stream = _stdin_reader()
    if isinstance(spec, HashlibRow):
        return spec.digest(stream, length)
    return spec.digest_stream(stream, length)


def _digest_each(names: list[str], spec: HashlibRow, length: int | None) -> list:
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

    if isinstance(spec, HashlibRow):
        return _digest_each(names, spec, length)
    results: list = []
    files = [name for name in names if name != "-"]
    found = _digest_small_work(files, spec, length) if files else []
    if found is None:
        found = bk.hash_files(files, spec.hasher(length), errors="collect")
    found = iter(found)
    for name in names:
        if name == "-":
            try:
                results.append(_digest_stdin(spec, length))
            except OSError as exc:
                results.append(exc)
        else:
            results.append(next(found))
    return results


def _digest_small_work(files: list[str], spec: Choice, length: int | None) -> list | None:
    """Digests or OSErrors of ``files`` through hashlib or pycryptodome, one after another,
    as long as the work stays too small to be worth loading the kernels
    (:mod:`batchkeccak.dispatch`), when ``-a`` is a row of the table; the files past that
    point go to the kernels. None when no file goes to the backend.

    numpy is not imported (for 20,000 small files its import alone was a fifth of the
    run), and the sizes are read as the files are opened, not in a pass of their own.
    """
    from batchkeccak.dispatch import oneshot_bytes, use_oneshot
    from batchkeccak.io.backend_files import ONESHOT_THREAD_BYTES, digest_paths_forked

    row = spec.row
    if row is None or spec.params:
        return None
    limit = oneshot_bytes(row, row.suffix, len(files))
    if limit < 0:
        return None
    # A large file stops it too: large files are hashed on several threads.
    found, total = digest_paths_forked(
        files, row, row.suffix, length if row.xof else row.digest_size, byte_limit=limit,
        file_limit=ONESHOT_THREAD_BYTES,
    )
    use_oneshot(row, row.suffix, len(found), total)  # what the backend took, on the account
    if len(found) < len(files):
        import batchkeccak as bk

        found += bk.hash_files(files[len(found):], spec.hasher(length), errors="collect")
    return found


def _files_per_batch(length: int | None) -> int:
    return max(1, min(FILES_PER_BATCH, OUTPUT_BUDGET // max(1, length or 0)))


def _hash_files(args, spec, output: _Output) -> int:
    length = args.length if spec.xof else None
    if length is None and isinstance(spec, Choice):
        length = spec.default_length
    tag = TAGS[spec.name]
    end = "\0" if args.zero else "\n"
    marker = "*" if args.binary else " "
    names = args.files or ["-"]
    failed = 0
    per_batch = _files_per_batch(length)

    def encoded(lines: list[str]) -> bytes:
        # One encode for a batch of lines: the names are encoded as os.fsencode would.
        return "".join(lines).encode(_FS_ENCODING, _FS_ERRORS)

    with _progress(names if sys.stderr is not None and sys.stderr.isatty() else [], False) as bar:
        for first in range(0, len(names), per_batch):
            batch = names[first : first + per_batch]
            lines: list[str] = []  # written together: one call per batch, not per file
            for name, result in zip(batch, _digest_names(batch, spec, length)):
                if isinstance(result, OSError):
                    output.write(encoded(lines))  # what came before the warning
                    lines.clear()
                    output.warn(f"{quotef(name) if name != '-' else name}: {_error(result)}")
                    failed += 1
                    continue
                prefix, shown = ("", name) if args.zero else _escape_text(name)
                if args.tag:
                    lines.append(f"{prefix}{tag} ({shown}) = {result.hex()}{end}")
                else:
                    lines.append(f"{prefix}{result.hex()} {marker}{shown}{end}")
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


def _tagged(line: bytes, forced) -> tuple[object, bytes] | None:
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


def _parse_line(line: bytes, forced, default, length: int | None, layout: _Layout,
                from_stdin: bool):
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
        spec = default if name == default.name else resolve_algorithm(
            name, getattr(default, "offered", default.params)
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
        raw_name = _unescape(raw_name)
        if raw_name is None:
            return None
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


def _check(args, spec, output: _Output) -> int:
    forced = spec if args.algorithm is not None else None
    layout = _Layout()
    status = 0
    for listing in args.files or ["-"]:
        status |= _check_listing(listing, args, forced, spec, layout, output)
    return status


class _Tally:
    def __init__(self) -> None:
        self.improper = self.unread = self.mismatched = self.verified = self.proper = 0


def _check_listing(listing: str, args, forced, default, layout: _Layout, output: _Output) -> int:
    shown_listing = quotef("standard input" if listing == "-" else listing)
    try:
        stream = _stdin_reader() if listing == "-" else open(listing, "rb", buffering=0)  # noqa: SIM115
    except IsADirectoryError:
        # GNU opens a directory and fails on reading it; Python refuses it at open.
        output.warn(f"{shown_listing}: read error")
        return 1
    except OSError as exc:
        if listing == "-":  # GNU's stdin is always open: the read is what fails
            output.warn(f"{shown_listing}: read error")
        else:
            output.warn(f"{shown_listing}: {_error(exc)}")
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
        if isinstance(exc, (_WriteError, BrokenPipeError)):
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
            (tally.improper, "{} line is improperly formatted", "{} lines are improperly formatted"),
            (tally.unread, "{} listed file could not be read", "{} listed files could not be read"),
            (tally.mismatched, "{} computed checksum did NOT match",
             "{} computed checksums did NOT match"),
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


def _settle(pending: list, args, shown_listing: str, default, tally: _Tally,
            output: _Output) -> None:
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
        prefix, shown = _escape(item.name) if "\n" in item.name else (b"", os.fsencode(item.name))
        if isinstance(result, OSError):
            if args.ignore_missing and result.errno == errno.ENOENT:
                continue
            tally.unread += 1
            output.warn(f"{quotef(item.name)}: {_error(result)}")
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
        # A few entries go through hashlib when it has the function: no kernels to load
        # for the first verdicts.
        if len(indices) < 64 and name in HASHLIB_ROWS:
            spec = HASHLIB_ROWS[name]
        for start in range(0, len(indices), _files_per_batch(length)):
            part = indices[start : start + _files_per_batch(length)]
            found = _digest_names([entries[i].name for i in part], spec, length)
            for i, result in zip(part, found):
                results[i] = result
    return results


def _progress(files: list[str], lines: bool):
    """Bytes hashed so far on stderr, shown only when stderr is a terminal."""
    if sys.stderr is None or not sys.stderr.isatty():
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


class _NoProgress:
    total = None

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False

    def update(self, count: int) -> None:
        pass
