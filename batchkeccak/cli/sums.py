"""What ``batchkeccak hash`` and its ``--check`` share: the algorithm of ``-a`` (its name,
tag and lengths, read from the library's tables), the digests of named files and standard
input (hashed by the library: :func:`batchkeccak.files.digest_files`), and standard output
and diagnostics in GNU's manner."""

from __future__ import annotations

import errno
import os
import sys
from typing import Any

from batchkeccak.derived.table import tags
from batchkeccak.errors import WriteError  # standard output refused our bytes
from batchkeccak.io.lines import SingleReads

FILES_PER_BATCH = 4096
"""File names hashed per call of ``hash_files`` (their output is printed after each)."""

TAGS = tags()
"""The algorithm's name in ``--tag`` lines (``SHA3-256 (NAME) = HEX``), from the tables' ``tag``
columns: every row of the table and every mode that hashes a file as one message (TupleHash
frames each string with its length first, so it hashes lines, not files)."""


MAX_LENGTH = 1 << 30
"""The longest ``--length`` produced (1 GiB): a longer one is refused before anything is
allocated."""

OUTPUT_BUDGET = 256 << 20
"""Digest bytes held at once: fewer files per batch when each digest is long."""


TREE_DEFAULT_LENGTH = 32
"""Output bytes of ``-a kt128`` / ``-a kt256`` without ``--length`` (``batchkeccak.kt128``'s
default)."""


class Choice:
    """``-a``'s algorithm as this command uses it: the library's name for it, the mode's
    parameters (key, customization), and what a digest's length says about it, read from
    the library's tables (no hasher is built, and numpy is not imported, to tell them).

    ``xof`` is true when the output length is the user's choice (``--length``, or each
    checksum line's own length with ``--check``); ``digest_size`` is the fixed size otherwise.
    """

    offered: dict[str, object]
    """Set by ``--check`` without ``-a``: the mode parameters offered to every tagged line."""

    def __init__(self, name: str, params: dict[str, object]) -> None:
        from batchkeccak.core.parameters import algorithms
        from batchkeccak.derived import modes

        self.name = name
        mode = modes.get(name) if name not in algorithms else None
        # Without -a, --check offers the key to every tagged line: each takes what it uses.
        takes = mode.params if mode is not None else ()
        self.params: dict[str, Any] = {
            option: value for option, value in params.items() if option in takes
        }
        row = algorithms[mode.sponge if mode is not None else name]
        self.row = row if mode is None else None
        """The table's row when ``-a`` names one (no mode)."""
        self.xof = row.xof if mode is None else not mode.fixed_length
        self.digest_size = None if self.xof else row.digest_size
        self.default_length = TREE_DEFAULT_LENGTH if name in ("kt128", "kt256") else None

    def length(self, length: int | None) -> int | None:
        """The output length asked of the library: ``length``, or the mode's default."""
        return self.default_length if self.xof and length is None else length

    def hasher(self, length: int | None):
        """The library's hasher at ``length``: what checks it (and hashes lines)."""
        from batchkeccak.api import hasher

        return hasher(self.name, length=self.length(length), **self.params)


def stderr_line(message: str) -> None:
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


def resolve_algorithm(name: str, params: dict[str, object] | None = None) -> Choice:
    """The :class:`Choice` of ``-a`` (any spelling the library reads, or sha3sum's bit
    counts); ValueError with a did-you-mean when there is none."""
    from batchkeccak.core.parameters import unknown_algorithm
    from batchkeccak.derived.table import algorithm_names, canonical_algorithm

    key = canonical_algorithm(name)
    if key is None:
        raise unknown_algorithm(name, algorithm_names())
    if key not in TAGS:
        raise ValueError(
            f"{key} frames each string with its length first, so it cannot hash a file "
            "read in pieces; use batchkeccak.tuplehash_many in Python"
        )
    return Choice(key, params or {})


def write_all(stream, data: bytes) -> None:
    """``stream.write(data)`` until every byte is written. A buffered writer whose reader went
    away (``| head -c 10``) returns the count it wrote before the pipe broke rather than
    raising; writing the rest raises the BrokenPipeError, which ends the command with 141."""
    view = memoryview(data)
    while view:
        written = stream.write(view)
        if written is None:  # a non-blocking stream: it took everything or raised
            return
        view = view[written:]


class Output:
    """Bytes to stdout (file names may be any bytes), flushed before each warning so the
    two streams stay in order."""

    def __init__(self) -> None:
        self._stdout = sys.stdout
        self._buffer = getattr(self._stdout, "buffer", None)

    def _guarded(self, action) -> None:
        if self._stdout is None:
            raise WriteError(errno.EBADF, os.strerror(errno.EBADF))
        try:
            action()
        except BrokenPipeError:
            raise
        except (OSError, ValueError) as exc:
            raise WriteError(
                getattr(exc, "errno", None) or errno.EIO,
                getattr(exc, "strerror", None) or os.strerror(errno.EIO),
            ) from None

    def write(self, data: bytes) -> None:
        if not data:
            return
        if self._buffer is not None:
            self._guarded(lambda: write_all(self._buffer, data))
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
        stderr_line(f"batchkeccak: {message}")


def escape_text(name: str) -> tuple[str, str]:
    """GNU 9's escaping of a file name: (prefix for the line, name), the prefix ``\\`` when
    the name holds a backslash, a newline or a carriage return, any of which would make
    the line read back differently."""
    if "\\" in name or "\n" in name or "\r" in name:
        return "\\", name.replace("\\", "\\\\").replace("\n", "\\n").replace("\r", "\\r")
    return "", name


def escape_name(name: str) -> tuple[bytes, bytes]:
    """:func:`escape_text`, encoded as the file system encodes the name."""
    prefix, shown = escape_text(name)
    return prefix.encode(), os.fsencode(shown)


def error_text(exc: OSError) -> str:
    return exc.strerror or str(exc)


class StdinUse:
    asked = False
    """Whether this run has asked for standard input (``-``, or no FILE)."""


def stdin_reader():
    """Standard input as a binary stream; OSError(EBADF) when it is closed (``<&-``)."""
    StdinUse.asked = True
    stdin = sys.stdin
    if stdin is None:
        raise OSError(errno.EBADF, os.strerror(errno.EBADF))
    try:
        fd = stdin.fileno()
    except (AttributeError, OSError, ValueError):  # replaced by a test or an embedder
        return getattr(stdin, "buffer", stdin)
    return SingleReads(fd)


def digest_stdin(spec: Choice, length: int | None) -> bytes:
    from batchkeccak.files import digest_stream

    return digest_stream(stdin_reader(), spec.name, length=spec.length(length), **spec.params)


def digest_names(names: list[str], spec: Choice, length: int | None) -> list:
    """Digests (bytes) or OSErrors of ``names``, in order; ``-`` is stdin. The library
    decides who hashes them (small work through hashlib or pycryptodome, shared with child
    processes; the rest through the kernels)."""
    from batchkeccak.files import digest_files

    files = [name for name in names if name != "-"]
    found = iter(
        digest_files(files, spec.name, length=spec.length(length), processes=True, **spec.params)
        if files
        else []
    )
    results: list = []
    for name in names:
        if name == "-":
            try:
                results.append(digest_stdin(spec, length))
            except OSError as exc:
                results.append(exc)
        else:
            results.append(next(found))
    return results


def files_per_batch(length: int | None) -> int:
    return max(1, min(FILES_PER_BATCH, OUTPUT_BUDGET // max(1, length or 0)))
