"""Hashing files: many at once with bounded memory, or one file object like hashlib's.

Small files are read whole, in parallel, into one flat buffer per batch and hashed together
through :func:`batchkeccak.hash_many` (they share the tiles); large files (and anything that is
not a regular file, such as a pipe) are read in fixed chunks and absorbed into stored states,
up to a tile's worth of files side by side, while the next chunks are being read. Memory stays
bounded whatever the sizes of the files.
"""

from __future__ import annotations

import ctypes
import errno
import os
import stat
import sys
import threading
from collections.abc import Iterable
from concurrent.futures import ThreadPoolExecutor
from typing import Literal

import numpy as np

from batchkeccak import _parallel
from batchkeccak.api import hasher
from batchkeccak.dispatch import kernels_loaded
from batchkeccak.hashers import ONESHOT, Hasher
from batchkeccak.inputs import readonly as _readonly
from batchkeccak.oneshot import (
    ONESHOT_THREAD_BYTES,
    SMALLEST_READ,
    digest_paths,
    total_file_bytes,
)
from batchkeccak.parameters import Algorithm
from batchkeccak.stored_states import StoredStates
from batchkeccak.streams import KeccakHash, new

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


_COMPILED_READER = sys.platform.startswith("linux") and hasattr(ctypes.CDLL(None), "statx")
"""statx came with Linux 4.11 and glibc 2.28; without it the portable reader is used."""

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
    given = list(paths)
    if all(type(path) is str for path in given):
        checked = given  # the usual case, checked in one pass
    else:
        checked = []
        for i, path in enumerate(given):
            try:
                checked.append(os.fspath(path))
            except TypeError:
                raise TypeError(
                    f"paths[{i}] must be a str, bytes or os.PathLike, got {type(path).__name__}"
                ) from None
    # Refused here, before any file is opened, whichever backend then reads them.
    for i, path in enumerate(checked):
        if ("\0" if isinstance(path, str) else b"\0") in path:
            raise ValueError(f"paths[{i}] contains a NUL byte")
    return checked


def hash_files(
    paths: Iterable[str | bytes | os.PathLike],
    algorithm: str | Algorithm | Hasher = "sha3_256",
    *,
    length: int | None = None,
    threads: int | None = None,
    errors: Literal["raise", "collect"] = "raise",
    **params: object,
) -> np.ndarray | list[bytes | OSError]:
    """Hash the contents of many files, with memory bounded whatever their sizes.

    Parameters
    ----------
    paths
        Paths (``str``, ``bytes`` or ``os.PathLike``). A path may be a pipe or a device; it
        is read to its end.
    algorithm
        A name from ``batchkeccak.algorithms`` or ``batchkeccak.modes`` (``"kmac_256"``,
        ``"kt128"``...), or a resolved :class:`~batchkeccak.Hasher`.
    length
        Output bytes for the extendable-output functions and the modes that take one.
    threads
        Threads for reading and hashing; None uses every available core.
    **params
        A mode's parameters (``key=``, ``customization=``...): one key for every file.
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
    resolved = hasher(algorithm, length=length, threads=threads, **params)
    if resolved.batch_size not in (None, 1):
        raise ValueError(
            f"{resolved.name}: hash_files takes one key for every file, not one per file"
        )
    out_len = resolved.output_length
    if errors not in ("raise", "collect"):
        raise ValueError(f"errors must be 'raise' or 'collect', got {errors!r}")
    names = _check_paths(paths)
    out = np.zeros((len(names), out_len), dtype=np.uint8)
    failures: dict[int, OSError] = {}
    total = total_file_bytes(names) if resolved.oneshot_backend and not kernels_loaded() else -1
    # Reading and hashing a small file holds the GIL (hashlib lets go of it only for updates
    # over 2 KiB): the backend's threads help only where the files are large.
    backend_threads = resolved.threads if total >= ONESHOT_THREAD_BYTES * len(names) else 1
    if total >= 0 and resolved.plan(len(names), total, backend_threads) == ONESHOT:
        _hash_files_oneshot(names, resolved.with_threads(backend_threads), out, failures)
        if errors == "raise":
            if failures:
                raise failures[min(failures)]
            return out
        return [failures.get(i) or out[i].tobytes() for i in range(len(names))]
    if _COMPILED_READER:
        streamed = _hash_small_files_compiled(names, resolved, out, failures)
    else:
        streamed = _hash_small_files_portable(
            names, resolved, out, failures, errors == "raise"
        )
    if errors == "raise" and failures:
        # Only a streamed file before the first failure could fail earlier in input order.
        streamed = [i for i in streamed if i < min(failures)]
    for first in range(0, len(streamed), STREAM_GROUP):
        group = streamed[first : first + STREAM_GROUP]
        _stream_files(names, group, resolved, out, failures)
        if errors == "raise" and failures:
            raise failures[min(failures)]
    if errors == "raise":
        if failures:
            raise failures[min(failures)]
        return out
    return [failures.get(i) or out[i].tobytes() for i in range(len(names))]


def _hash_files_oneshot(
    names: list, resolved: Hasher, out: np.ndarray, failures: dict[int, OSError]
) -> None:
    """Small work: every file through hashlib or pycryptodome, on the reading threads (both
    release the GIL while they hash a large update), without loading the kernels."""
    spec, domain, out_len = resolved.algorithm, resolved.domain, resolved.output_length

    def digest_files(span: tuple[int, int]) -> None:
        first, stop = span
        results, _ = digest_paths(names[first:stop], spec, domain, out_len)
        for index, result in enumerate(results, first):
            if isinstance(result, OSError):
                failures[index] = _named_error(result, names[index])
            else:
                out[index] = np.frombuffer(result, dtype=np.uint8)

    count = len(names)
    threads = min(resolved.threads, count)
    if threads <= 1:
        digest_files((0, count))
        return
    # A few runs of files per thread, so that one slow file does not hold the others back
    # (cut by count, not in whole tiles as a kernel's batch is: eight large files are eight).
    runs = min(count, 4 * threads)
    spans = [(count * i // runs, count * (i + 1) // runs) for i in range(runs)]
    for done in [_reader_pool().submit(digest_files, span) for span in spans]:
        done.result()


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


def _joined_paths(names: list) -> tuple[np.ndarray, np.ndarray]:
    """Every path encoded as the OS takes it and NUL-terminated, back to back (read-only
    uint8), and the offset where each starts."""
    if all(type(name) is str for name in names):
        # One encode for all: a str path encodes character by character, NUL to NUL.
        joined = os.fsencode("\0".join(names) + "\0")
    else:
        joined = b"".join(os.fsencode(name) + b"\0" for name in names)
    paths = np.frombuffer(joined, dtype=np.uint8)
    ends = np.flatnonzero(paths == 0)
    if ends.shape[0] != len(names):
        for i, name in enumerate(names):
            if b"\0" in os.fsencode(name):
                raise ValueError(f"paths[{i}] contains a NUL byte")
    path_starts = np.zeros(len(names), dtype=np.int64)
    path_starts[1:] = ends[:-1] + 1
    return _readonly(paths), _readonly(path_starts)


def _hash_small_files_compiled(
    names: list, resolved: Hasher, out: np.ndarray, failures: dict[int, OSError],
) -> list[int]:
    """Read and hash the small files with the compiled reader; returns the indices of the
    files left to stream (large ones, pipes)."""
    from batchkeccak._file_reader import OPEN_FLAGS, read_small_files

    count = len(names)
    if count == 0:
        return []
    paths, path_starts = _joined_paths(names)
    status = np.zeros(count, dtype=np.int64)
    threads = resolved.threads
    single_thread = resolved.with_threads(1)
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
            done = read_small_files(
                paths, path_starts, first, stop, SMALL_FILE_BYTES, OPEN_FLAGS, SMALLEST_READ,
                buffer, starts, status,
            )
            offsets = _readonly(starts[: done - first + 1])
            single_thread.hash_flat(data, offsets, out=out[first:done])
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
    names: list, resolved: Hasher, out: np.ndarray, failures: dict[int, OSError],
    stop_early: bool,
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
        _read_batch(
            names, [i for i, _ in batch], buffer, offsets, resolved.threads, failures, changed
        )
        if stop_early and failures:
            return sorted(changed)
        digests = resolved.hash_flat(_readonly(buffer), _readonly(offsets))
        rows = np.fromiter((i for i, _ in batch), dtype=np.int64, count=len(batch))
        out[rows] = digests
    return sorted(changed)


def _read_batch(
    names: list, indices: list[int], buffer: np.ndarray, offsets: np.ndarray, threads: int,
    failures: dict[int, OSError], changed: list[int],
) -> None:
    """Read files ``names[indices[k]]`` into ``buffer[offsets[k]:offsets[k + 1]]``, groups of
    them on the reading threads; a file whose size changed is added to ``changed``."""
    view = memoryview(buffer)

    def read_group(span: tuple[int, int]) -> None:
        spare = bytearray(1)
        for k in range(*span):
            index = indices[k]
            expected = offsets[k + 1] - offsets[k]
            try:
                got = _read_whole(names[index], view[offsets[k] : offsets[k + 1]], spare)
            except OSError as exc:
                if exc.errno in (errno.ENOMEM, errno.EINVAL):
                    changed.append(index)  # refused the count: streamed in smaller reads
                else:
                    failures[index] = _named_error(exc, names[index])
                continue
            if got != expected:
                changed.append(index)  # list.append is atomic: no lock needed

    count = len(indices)
    spans = [(a, min(a + _READ_GROUP, count)) for a in range(0, count, _READ_GROUP)]
    if threads > 1 and len(spans) > 1:
        list(_reader_pool().map(read_group, spans))
    else:
        for span in spans:
            read_group(span)


def readinto_any(handle, view: memoryview) -> int | None:
    """``handle.readinto(view)``, retried with a smaller count where the file refuses a large
    one (``ENOMEM`` or ``EINVAL``, as some /proc and /sys files do): any file ``cat`` reads."""
    while True:
        try:
            return handle.readinto(view)
        except OSError as exc:
            if exc.errno not in (errno.ENOMEM, errno.EINVAL) or view.nbytes <= SMALLEST_READ:
                raise
            view = view[: max(SMALLEST_READ, view.nbytes // 2)]


def _fill(handle, view: memoryview) -> int:
    """Read into ``view`` until it is full or the file ends; the bytes read."""
    got = 0
    while got < view.nbytes:
        more = readinto_any(handle, view[got:])
        if not more:
            break
        got += more
    return got


def _stream_files(
    names: list, group: list[int], resolved: Hasher, out: np.ndarray,
    failures: dict[int, OSError],
) -> None:
    """Hash up to a tile's worth of files chunk by chunk, side by side.

    Two sets of chunk buffers: while the kernels absorb one set, a reading thread fills the
    other with the next chunk of every file still open. Should that thread not have started
    by the time the chunks are needed (all cores busy), this thread reads them itself.
    """
    if type(resolved) is not Hasher:
        # A mode frames or splits its message: each file is fed to its own incremental form.
        for index in group:
            try:
                out[index] = np.frombuffer(_digest_path(names[index], resolved), np.uint8)
            except OSError as exc:
                failures[index] = _named_error(exc, names[index])
        return
    spec, out_len, threads = resolved.algorithm, resolved.output_length, resolved.threads
    rate = spec.rate
    chunk = max(rate, min(CHUNK_BYTES, STREAM_BYTES // len(group)) // rate * rate)
    handles: dict[int, object] = {}  # row in this group -> open file
    for row, index in enumerate(group):
        try:
            handles[row] = open(names[index], "rb", buffering=0)  # noqa: SIM115
        except OSError as exc:
            failures[index] = _named_error(exc, names[index])
    states = StoredStates(spec, len(group), resolved.initial_state[0])
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
            if ahead is None:
                filled = {}
            elif ahead.cancel():
                # The reading thread has not started (every core busy): read here rather
                # than wait for it to be scheduled and then be woken up in turn.
                filled = read_round(buffers[1 - turn], reading)
            else:
                filled = ahead.result()
            turn = 1 - turn
    finally:
        for handle in handles.values():
            handle.close()  # type: ignore[attr-defined]
    done = [row for row in handles if group[row] not in failures]
    if done:
        rows = np.array(done, dtype=np.int64)
        out[np.array(group, dtype=np.int64)[rows]] = states.finish(rows, out_len, resolved.domain)


def _digest_path(name: str | bytes, resolved: Hasher) -> bytes:
    """One file through the hasher's incremental form, read in chunks."""
    stream = resolved.incremental()
    buffer = np.empty(CHUNK_BYTES, dtype=np.uint8)
    view = memoryview(buffer)
    with open(name, "rb", buffering=0) as handle:
        while True:
            got = readinto_any(handle, view)
            if not got:
                break
            stream.absorb(view[:got])
    return stream.finish(resolved.output_length)


def file_digest(fileobj: object, digest: object, /, **params: object) -> KeccakHash:
    """Hash a binary file object to its end, like ``hashlib.file_digest``.

    Parameters
    ----------
    fileobj
        A file object opened for reading in binary mode (``open(path, "rb")``, a socket's
        file, ``io.BytesIO``).
    digest
        What :func:`batchkeccak.new` takes (a name from ``batchkeccak.algorithms_available``,
        a mode's name, a :class:`~batchkeccak.Hasher`), or, as ``hashlib.file_digest``
        takes, a callable that returns a new hash object (``bk.sha3_256``, ``hashlib.md5``).
    **params
        With a name: ``length`` and a mode's parameters (``key=``...), as :func:`new` takes.

    Returns
    -------
    KeccakHash
        Call ``digest()`` (``digest(length)`` for the XOFs) or ``hexdigest()`` on it (the
        callable's object, when one was given).

    Examples
    --------
    >>> import io, batchkeccak as bk
    >>> bk.file_digest(io.BytesIO(b"abc"), "sha3_256").hexdigest()[:16]
    '3a985da74fe225b2'
    """
    if callable(digest):
        if params:
            raise TypeError("file_digest: parameters go with a name, not with a constructor")
        digest = digest()
    else:
        digest = new(digest, **params)
    if hasattr(fileobj, "getbuffer"):
        # io.BytesIO: hash its buffer where it lies.
        digest.update(fileobj.getbuffer())  # type: ignore[attr-defined]
        return digest  # type: ignore[return-value]
    if not (
        hasattr(fileobj, "readinto") and hasattr(fileobj, "readable") and fileobj.readable()  # type: ignore[attr-defined]
    ):
        raise ValueError(
            f"fileobj must be a file-like object opened for reading in binary mode, got "
            f"{type(fileobj).__name__}"
        )
    block = getattr(digest, "block_size", 0) or 1
    buffer = bytearray(max(block, CHUNK_BYTES // block * block))
    view = memoryview(buffer)
    while True:
        got = readinto_any(fileobj, view)
        if got is None:
            raise BlockingIOError("file_digest needs a blocking file object; readinto returned None")
        if not got:
            break
        digest.update(view[:got])
    return digest  # type: ignore[return-value]
