"""Hashing files: many at once with bounded memory, or one file object like hashlib's.

Small files are read whole, in parallel, into one flat buffer per batch and hashed together
through :func:`batchkeccak.hash_many` (they share the tiles); large files (and anything that is
not a regular file, such as a pipe) are read in fixed chunks and absorbed into stored states,
up to a tile's worth of files side by side, while the next chunks are being read. Memory stays
bounded whatever the sizes of the files.
"""

from __future__ import annotations

import errno
import os
import stat
import sys
import threading
from collections.abc import Iterable
from concurrent.futures import ThreadPoolExecutor
from typing import Literal

import numpy as np
from llvmlite import ir
from numba import njit, types
from numba.core import cgutils
from numba.extending import intrinsic

from batchkeccak import _parallel
from batchkeccak.algorithms import Algorithm, get_algorithm
from batchkeccak.api import hash_many
from batchkeccak.hashers import output_length
from batchkeccak.inputs import FlatMessages
from batchkeccak.inputs import readonly as _readonly
from batchkeccak.streams import KeccakHash, _States, new

SMALL_FILE_BYTES = 1 << 20
"""Files up to this size are read whole and hashed in batches; larger ones are streamed."""

BATCH_BYTES = 32 << 20
"""Bytes of small files read and hashed per batch."""

CHUNK_BYTES = 1 << 20
"""Bytes read per step from one streamed file (rounded down to whole blocks); with many
files streamed side by side the chunk shrinks so that all of them fit in STREAM_BYTES."""

STREAM_BYTES = 8 << 20
"""Buffer space for the files streamed side by side (twice: one set is read while the
other is hashed)."""

STREAM_GROUP = 32
"""Large files streamed side by side: one tile's worth of states."""

_READ_GROUP = 64
"""Small files one reading thread takes at a time (portable path)."""

READER_BYTES = 4 << 20
"""Buffer of each thread of the compiled reader: it reads files into it until it is full,
then hashes them, then reads the next ones."""

_readers: ThreadPoolExecutor | None = None
_readers_lock = threading.Lock()


def _reader_pool() -> ThreadPoolExecutor:
    # Reading threads of their own: the hashing pool's threads may be busy hashing while
    # the next chunks are read.
    global _readers
    with _readers_lock:
        if _readers is None:
            _readers = ThreadPoolExecutor(
                max_workers=max(2, _parallel.available_cores()),
                thread_name_prefix="batchkeccak-read",
            )
        return _readers


# The compiled reader (Linux): open, size, read and close each small file from jitted code
# with the GIL released, so every thread reads and hashes its own files. Through Python's
# os.open / os.read the per-file work held the GIL and was about as slow as hashlib's loop.
_I8P = ir.IntType(8).as_pointer()
_I32 = ir.IntType(32)
_I64 = ir.IntType(64)
_COMPILED_READER = sys.platform.startswith("linux")
_O_RDONLY_CLOEXEC = os.O_RDONLY | getattr(os, "O_CLOEXEC", 0)
_EINTR = errno.EINTR
_NOT_SEEKABLE = 1
"""Reader status: a pipe or socket, to be streamed (its bytes cannot be read twice)."""
_TOO_BIG = 2
"""Reader status: larger than a small file, to be streamed."""


def _byte_address(context, builder, array_type, array, offset, offset_type):
    view = context.make_array(array_type)(context, builder, array)
    position = context.cast(builder, offset, offset_type, types.int64)
    return builder.bitcast(builder.gep(view.data, [position]), _I8P)


def _libc(builder, name, result, arguments, var_arg=False):
    return cgutils.get_or_insert_function(
        builder.module, ir.FunctionType(result, arguments, var_arg=var_arg), name
    )


@intrinsic
def _c_open(typingctx, paths, offset, flags):
    """``open(&paths[offset], flags)``: the path is NUL-terminated in ``paths``."""
    sig = types.int32(paths, offset, flags)

    def codegen(context, builder, signature, args):
        address = _byte_address(context, builder, signature.args[0], args[0], args[1],
                                signature.args[1])
        flag = context.cast(builder, args[2], signature.args[2], types.int32)
        return builder.call(_libc(builder, "open", _I32, [_I8P, _I32], var_arg=True),
                            [address, flag])

    return sig, codegen


@intrinsic
def _c_read(typingctx, fd, buffer, offset, count):
    """``read(fd, &buffer[offset], count)``."""
    sig = types.int64(fd, buffer, offset, count)

    def codegen(context, builder, signature, args):
        address = _byte_address(context, builder, signature.args[1], args[1], args[2],
                                signature.args[2])
        descriptor = context.cast(builder, args[0], signature.args[0], types.int32)
        size = context.cast(builder, args[3], signature.args[3], types.int64)
        return builder.call(_libc(builder, "read", _I64, [_I32, _I8P, _I64]),
                            [descriptor, address, size])

    return sig, codegen


@intrinsic
def _c_lseek(typingctx, fd, offset, whence):
    sig = types.int64(fd, offset, whence)

    def codegen(context, builder, signature, args):
        cast = [context.cast(builder, a, t, u) for a, t, u in
                zip(args, signature.args, (types.int32, types.int64, types.int32))]
        return builder.call(_libc(builder, "lseek", _I64, [_I32, _I64, _I32]), cast)

    return sig, codegen


@intrinsic
def _c_close(typingctx, fd):
    sig = types.int32(fd)

    def codegen(context, builder, signature, args):
        descriptor = context.cast(builder, args[0], signature.args[0], types.int32)
        return builder.call(_libc(builder, "close", _I32, [_I32]), [descriptor])

    return sig, codegen


@intrinsic
def _c_errno(typingctx):
    """The calling thread's ``errno`` (glibc and musl: ``*__errno_location()``)."""
    sig = types.int32()

    def codegen(context, builder, signature, args):
        location = builder.call(_libc(builder, "__errno_location", _I32.as_pointer(), []), [])
        return builder.load(location)

    return sig, codegen


@njit(cache=True, nogil=True)
def _read_small_files(paths, path_starts, first, stop, small, flags, buffer, starts, status):
    """Read files ``first, first + 1, ...`` whole into ``buffer``, back to back.

    File ``i``'s bytes go to ``buffer[starts[i - first]:starts[i - first + 1]]``; ``status[i]`` is 0, minus
    the errno of a failed open or read, ``_NOT_SEEKABLE`` or ``_TOO_BIG`` (over ``small``
    bytes: left for the streaming path; its range is empty). Returns the index of the first
    file not read: ``stop``, or the file that did not fit in what is left of the buffer.
    """
    capacity = buffer.shape[0]
    position = 0
    for i in range(first, stop):
        starts[i - first] = position
        status[i] = 0
        fd = _c_open(paths, path_starts[i], flags)
        if fd < 0:
            status[i] = -_c_errno()
            continue
        size = _c_lseek(fd, 0, 2)  # SEEK_END
        if size < 0 or _c_lseek(fd, 0, 0) < 0:
            status[i] = _NOT_SEEKABLE
            _c_close(fd)
            continue
        if size > small:
            status[i] = _TOO_BIG
            _c_close(fd)
            continue
        got = 0
        full = False
        while True:
            room = capacity - position - got
            if room == 0:
                full = True
                break
            count = _c_read(fd, buffer, position + got, room)
            if count < 0:
                error = _c_errno()
                if error == _EINTR:
                    continue
                status[i] = -error
                break
            if count == 0:
                break
            got += count
            # A regular file's read comes back short only at its end: one read suffices.
            if got == size and count < room:
                break
        _c_close(fd)
        if full:
            if position == 0:
                status[i] = _TOO_BIG  # larger than the whole buffer (a file in /proc, ...)
                continue
            return i
        if status[i] == 0:
            position += got
    starts[stop - first] = position
    return stop


def _named_error(exc: OSError, path: str | bytes) -> OSError:
    """``exc`` with ``path`` as its filename (read errors come without one)."""
    if exc.filename is not None:
        return exc
    return OSError(exc.errno, exc.strerror or os.strerror(exc.errno or 0), path)


def _check_paths(paths: object) -> list[str | bytes]:
    if isinstance(paths, (str, bytes, os.PathLike)):
        raise TypeError(
            f"paths must be a sequence of paths, got a single {type(paths).__name__}; "
            "wrap one path in a list: [path]"
        )
    if not isinstance(paths, Iterable):
        raise TypeError(f"paths must be a sequence of paths, got {type(paths).__name__}")
    checked = []
    for i, path in enumerate(paths):
        try:
            checked.append(os.fspath(path))
        except TypeError:
            raise TypeError(
                f"paths[{i}] must be a str, bytes or os.PathLike, got {type(path).__name__}"
            ) from None
    return checked


def hash_files(
    paths: Iterable[str | bytes | os.PathLike],
    algorithm: str = "sha3_256",
    *,
    length: int | None = None,
    threads: int | None = None,
    errors: Literal["raise", "collect"] = "raise",
) -> np.ndarray | list[bytes | OSError]:
    """Hash the contents of many files, with memory bounded whatever their sizes.

    Parameters
    ----------
    paths
        Paths (``str``, ``bytes`` or ``os.PathLike``). A path may be a pipe or a device; it
        is read to its end.
    algorithm
        A name from ``batchkeccak.algorithms``.
    length
        Output bytes for the extendable-output functions (required for them only).
    threads
        Threads for reading and hashing; None uses every available core.
    errors
        ``"raise"`` (default): the first file (in input order) that cannot be read raises
        its ``OSError``, which names the file. ``"collect"``: every file is attempted and the
        result holds the error in place of the digest.

    Returns
    -------
    numpy.ndarray or list
        With ``errors="raise"``, ``(N, digest_size)`` uint8, row ``i`` the digest of
        ``paths[i]``. With ``errors="collect"``, a list of N items: the digest as ``bytes``,
        or the ``OSError`` that reading the file raised.

    Examples
    --------
    >>> import batchkeccak as bk, tempfile, pathlib
    >>> folder = pathlib.Path(tempfile.mkdtemp())
    >>> (folder / "a.txt").write_bytes(b"abc")
    3
    >>> bk.hash_files([folder / "a.txt"], "sha3_256")[0].tobytes().hex()[:16]
    '3a985da74fe225b2'
    >>> bk.hash_files([folder / "missing"], errors="collect")[0].strerror
    'No such file or directory'
    """
    spec = get_algorithm(algorithm)
    out_len = output_length(spec, length)
    thread_count = _parallel.resolve_threads(threads)
    if errors not in ("raise", "collect"):
        raise ValueError(f"errors must be 'raise' or 'collect', got {errors!r}")
    names = _check_paths(paths)
    out = np.zeros((len(names), out_len), dtype=np.uint8)
    failures: dict[int, OSError] = {}
    if _COMPILED_READER:
        streamed = _hash_small_files_compiled(names, spec, out_len, thread_count, out, failures)
    else:
        streamed = _hash_small_files_portable(
            names, spec, out_len, thread_count, out, failures, errors == "raise"
        )
    if errors == "raise" and failures:
        # Only a streamed file before the first failure could fail earlier in input order.
        streamed = [i for i in streamed if i < min(failures)]
    for first in range(0, len(streamed), STREAM_GROUP):
        group = streamed[first : first + STREAM_GROUP]
        _stream_files(names, group, spec, out_len, thread_count, out, failures)
        if errors == "raise" and failures:
            raise failures[min(failures)]
    if errors == "raise":
        if failures:
            raise failures[min(failures)]
        return out
    return [failures.get(i) or out[i].tobytes() for i in range(len(names))]


def _read_whole(name: str | bytes, view: memoryview, spare: bytearray) -> int:
    """Read file ``name`` into ``view``; its size in bytes, or -1 if it is larger than
    ``view`` (it grew since it was measured)."""
    fd = os.open(name, os.O_RDONLY | getattr(os, "O_CLOEXEC", 0))
    try:
        # One read for the expected bytes plus one spare byte: a file that grew since its
        # size was taken fills the spare byte too.
        got = os.readv(fd, [view, spare]) if view.nbytes else os.readv(fd, [spare])
        if got < view.nbytes:
            while True:  # a short read: the file shrank, or a slow file system
                more = os.readv(fd, [view[got:], spare])
                if more == 0:
                    return got
                got += more
                if got > view.nbytes:
                    return -1
        return got if got == view.nbytes else -1
    finally:
        os.close(fd)


def _hash_small_files_compiled(
    names: list, spec: Algorithm, out_len: int, threads: int, out: np.ndarray,
    failures: dict[int, OSError],
) -> list[int]:
    """Read and hash the small files with the compiled reader; returns the indices of the
    files left to stream (large ones, pipes)."""
    count = len(names)
    if count == 0:
        return []
    encoded = [os.fsencode(name) for name in names]
    for i, path in enumerate(encoded):
        if b"\0" in path:
            raise ValueError(f"paths[{i}] contains a NUL byte")
    paths = _readonly(np.frombuffer(b"\0".join(encoded) + b"\0", dtype=np.uint8))
    path_starts = np.zeros(count, dtype=np.int64)
    np.cumsum(np.fromiter(map(len, encoded), np.int64, count)[:-1] + 1, out=path_starts[1:])
    path_starts = _readonly(path_starts)
    status = np.zeros(count, dtype=np.int64)
    xof_length = out_len if spec.xof else None
    span = max(_READ_GROUP, -(-count // (4 * threads)))
    spans = [(a, min(a + span, count)) for a in range(0, count, span)]

    def read_and_hash(bounds: tuple[int, int]) -> None:
        # Each thread reads its files into its own buffer and hashes them itself, one
        # buffer-full at a time: no thread waits for another, and memory is one buffer each.
        first, stop = bounds
        buffer = np.empty(READER_BYTES, dtype=np.uint8)
        starts = np.empty(stop - first + 1, dtype=np.int64)
        data = _readonly(buffer)
        while first < stop:
            done = _read_small_files(
                paths, path_starts, first, stop, SMALL_FILE_BYTES, _O_RDONLY_CLOEXEC,
                buffer, starts, status,
            )
            offsets = _readonly(starts[: done - first + 1])
            out[first:done] = hash_many(
                FlatMessages(data, offsets), spec.name, length=xof_length, threads=1
            )
            first = done

    _parallel.run_parallel(read_and_hash, spans, workers=threads)
    streamed = []
    for i in np.flatnonzero(status).tolist():
        code = int(status[i])
        if code < 0:
            failures[i] = OSError(-code, os.strerror(-code), names[i])
        else:
            streamed.append(i)
    return streamed


def _hash_small_files_portable(
    names: list, spec: Algorithm, out_len: int, threads: int, out: np.ndarray,
    failures: dict[int, OSError], stop_early: bool,
) -> list[int]:
    """Hash the small files through Python's os.open and os.readv; returns the indices of
    the files left to stream."""
    small: list[tuple[int, int]] = []  # (index, size)
    streamed: list[int] = []
    for i, name in enumerate(names):
        try:
            info = os.stat(name)
        except OSError as exc:
            failures[i] = _named_error(exc, name)
            continue
        if stat.S_ISDIR(info.st_mode):
            failures[i] = IsADirectoryError(errno.EISDIR, os.strerror(errno.EISDIR), name)
        elif stat.S_ISREG(info.st_mode) and info.st_size <= SMALL_FILE_BYTES:
            small.append((i, info.st_size))
        else:
            streamed.append(i)
    if stop_early and failures:
        return streamed
    changed = streamed  # files that changed size while read are streamed too
    position = 0
    while position < len(small):
        batch, size = [], 0
        while position < len(small) and (not batch or size + small[position][1] <= BATCH_BYTES):
            batch.append(small[position])
            size += small[position][1]
            position += 1
        offsets = np.zeros(len(batch) + 1, dtype=np.int64)
        np.cumsum([s for _, s in batch], out=offsets[1:])
        buffer = np.empty(int(offsets[-1]), dtype=np.uint8)
        view = memoryview(buffer)
        lengths = offsets[1:] - offsets[:-1]

        def read_group(span: tuple[int, int]) -> None:
            spare = bytearray(1)
            for k in range(*span):
                index = batch[k][0]
                try:
                    got = _read_whole(names[index], view[offsets[k] : offsets[k + 1]], spare)
                except OSError as exc:
                    failures[index] = _named_error(exc, names[index])
                    lengths[k] = 0
                    continue
                if got != lengths[k]:
                    changed.append(index)

        spans = [(a, min(a + _READ_GROUP, len(batch))) for a in range(0, len(batch), _READ_GROUP)]
        if threads > 1 and len(spans) > 1:
            list(_reader_pool().map(read_group, spans))
        else:
            for span in spans:
                read_group(span)
        if stop_early and failures:
            return sorted(changed)
        digests = hash_many(
            FlatMessages(_readonly(buffer), _readonly(offsets)), spec.name,
            length=out_len if spec.xof else None, threads=threads,
        )
        rows = np.fromiter((i for i, _ in batch), dtype=np.int64, count=len(batch))
        out[rows] = digests
    return sorted(changed)


def _fill(handle, view: memoryview) -> int:
    """Read into ``view`` until it is full or the file ends; the bytes read."""
    got = 0
    while got < view.nbytes:
        more = handle.readinto(view[got:])
        if not more:
            break
        got += more
    return got


def _stream_files(
    names: list, group: list[int], spec: Algorithm, out_len: int, threads: int,
    out: np.ndarray, failures: dict[int, OSError],
) -> None:
    """Hash up to a tile's worth of files chunk by chunk, side by side.

    Two sets of chunk buffers: while the kernels absorb one set, a reading thread fills the
    other with the next chunk of every file still open.
    """
    rate = spec.rate
    chunk = max(rate, min(CHUNK_BYTES, STREAM_BYTES // len(group)) // rate * rate)
    handles: dict[int, object] = {}  # row in this group -> open file
    for row, index in enumerate(group):
        try:
            handles[row] = open(names[index], "rb", buffering=0)  # noqa: SIM115
        except OSError as exc:
            failures[index] = _named_error(exc, names[index])
    states = _States(spec, len(group))
    buffers = [np.empty((len(group), chunk), dtype=np.uint8) for _ in range(2)]

    def read_round(buffer: np.ndarray, rows: list[int]) -> dict[int, int]:
        got = {}
        flat = memoryview(buffer.reshape(-1))
        for row in rows:
            try:
                got[row] = _fill(handles[row], flat[row * chunk : (row + 1) * chunk])
            except OSError as exc:
                got[row] = -1
                failures[group[row]] = _named_error(exc, names[group[row]])
        return got

    try:
        reading = list(handles)
        filled = read_round(buffers[0], reading)
        turn = 0
        while filled:
            # A file whose chunk came back short has ended; the others are read ahead.
            reading = [row for row, got in filled.items() if got == chunk]
            ahead = (
                _reader_pool().submit(read_round, buffers[1 - turn], reading) if reading else None
            )
            data = _readonly(buffers[turn].reshape(-1))
            jobs = [(row, got) for row, got in filled.items() if got >= rate]
            if jobs:
                job_state = np.array([row for row, _ in jobs], dtype=np.int64)
                states.absorb(
                    data, job_state, job_state * chunk,
                    np.array([got // rate for _, got in jobs], dtype=np.int64), threads,
                )
            for row, got in filled.items():
                if 0 <= got < chunk:
                    tail = got % rate
                    states.pending[row, :tail] = buffers[turn][row, got - tail : got]
                    states.pending_len[row] = tail
            filled = ahead.result() if ahead is not None else {}
            turn = 1 - turn
    finally:
        for handle in handles.values():
            handle.close()  # type: ignore[attr-defined]
    done = [row for row in handles if group[row] not in failures]
    if done:
        rows = np.array(done, dtype=np.int64)
        out[np.array(group, dtype=np.int64)[rows]] = states.finish(rows, out_len)


def file_digest(fileobj: object, name: str, /) -> KeccakHash:
    """Hash a binary file object to its end, like ``hashlib.file_digest``.

    Parameters
    ----------
    fileobj
        A file object opened for reading in binary mode (``open(path, "rb")``, a socket's
        file, ``io.BytesIO``).
    name
        A name from ``batchkeccak.algorithms_available``.

    Returns
    -------
    KeccakHash
        Call ``digest()`` (``digest(length)`` for the XOFs) or ``hexdigest()`` on it.

    Examples
    --------
    >>> import io, batchkeccak as bk
    >>> bk.file_digest(io.BytesIO(b"abc"), "sha3_256").hexdigest()[:16]
    '3a985da74fe225b2'
    """
    digest = new(name)
    if hasattr(fileobj, "getbuffer"):
        # io.BytesIO: hash its buffer where it lies.
        digest.update(fileobj.getbuffer())  # type: ignore[attr-defined]
        return digest
    if not (
        hasattr(fileobj, "readinto") and hasattr(fileobj, "readable") and fileobj.readable()  # type: ignore[attr-defined]
    ):
        raise ValueError(
            f"fileobj must be a file-like object opened for reading in binary mode, got "
            f"{type(fileobj).__name__}"
        )
    block = digest.block_size
    buffer = bytearray(max(block, CHUNK_BYTES // block * block))
    view = memoryview(buffer)
    while True:
        got = fileobj.readinto(buffer)  # type: ignore[attr-defined]
        if got is None:
            raise BlockingIOError("file_digest needs a blocking file object; readinto returned None")
        if not got:
            break
        digest.update(view[:got])
    return digest
