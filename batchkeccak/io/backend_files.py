"""Files hashed one by one through the one-shot backend (hashlib or pycryptodome), each fed
to the backend's own object as it is read: in this process, or shared with forked children.

Small work needs nothing more than this: numpy is not imported, and a small file costs an
open, an fstat, a read and a close. Which files come here is the dispatcher's decision
(:mod:`batchkeccak.core.dispatch`, asked by :mod:`batchkeccak.files`).
"""

from __future__ import annotations

import os
import signal
import stat
import sys
from collections.abc import Callable

from batchkeccak.core.oneshot import oneshot_factory
from batchkeccak.core.parameters import Algorithm
from batchkeccak.io.reads import OPEN_FLAGS, named_error, read_any
from batchkeccak.native.signals import held, reset_in_child

ONESHOT_THREAD_BYTES = 64 << 10
"""Files of this many bytes on average (and more) are read and hashed by hashlib on several
threads; smaller ones on the calling thread, where two threads were measured slower (20,000
files of 1 KiB: 0.21-0.27 s on one thread, 0.33-0.37 s on two)."""

READ_BYTES = 1 << 16
"""Bytes asked per ``read`` by :func:`digest_paths` of a file that does not say its size."""

LARGE_READ = 1 << 20
"""Files of this size and more are read and hashed in pieces of this size (hashlib lets go of
the GIL while it hashes each); smaller ones in one read."""


def total_file_bytes(names: list) -> int:
    """Bytes in the regular files among ``names`` (what stat says; others count nothing)."""
    total = 0
    for name in names:
        try:
            info = os.stat(name)
        except (OSError, ValueError):
            continue
        if stat.S_ISREG(info.st_mode):
            total += info.st_size
    return total


ReadShare = Callable[[list, int | None], tuple[list, int]]
"""A reader of a share of the paths under a byte limit: what :func:`digest_paths_forked`
runs in each process (:func:`digest_paths` with its algorithm and limits bound)."""


def digest_paths(
    paths: list,
    spec: Algorithm,
    domain: int,
    out_len: int,
    byte_limit: int | None = None,
    file_limit: int | None = None,
) -> tuple[list, int]:
    """The digest (``bytes``) of each file, or the ``OSError`` that opening or reading it
    raised, one file after another on this thread through the backend (which must have the
    function: :func:`batchkeccak.core.oneshot.backend_family`); and the bytes hashed.

    With ``byte_limit``, it stops before a file whose bytes (as ``fstat`` reports them
    once it is open) would take the total past the limit, and with ``file_limit`` before a
    file larger than that: the list is then shorter than ``paths`` and the caller hashes
    the rest otherwise.
    """
    new, read = oneshot_factory(spec, domain)
    limit = sys.maxsize if byte_limit is None else byte_limit
    largest = sys.maxsize if file_limit is None else file_limit
    fstat = os.fstat
    results: list = []
    append = results.append
    total = 0
    for path in paths:
        try:
            fd = os.open(path, OPEN_FLAGS)
        except OSError as exc:
            append(exc)
            continue
        try:
            info = fstat(fd)
            size = info.st_size if stat.S_ISREG(info.st_mode) else 0
            if total + size > limit or size > largest:
                break
            # One read for a small regular file: its size plus one byte, so that a file that
            # grew since it was measured shows it. A large file, or one that says nothing of
            # its size (a pipe, /proc), is read to its end in pieces.
            small = 0 < size < LARGE_READ
            data = read_any(fd, size + 1 if small else (LARGE_READ if size else READ_BYTES))
            state = new(data)
            got = len(data)
            if not (small and got == size):
                step = LARGE_READ if size >= LARGE_READ else READ_BYTES
                while data:
                    data = read_any(fd, step)
                    state.update(data)
                    got += len(data)
        except OSError as exc:
            append(named_error(exc, path))
            continue
        finally:
            os.close(fd)
        total += got
        append(read(state, out_len))
    return results, total


FORK_MIN_FILES = 1000
"""Fewest files :func:`digest_paths_forked` shares with child processes: a fork and the
return of the results cost about a millisecond each, an eighth of what 1,000 small files
cost on one core."""


def _fork_workers(count: int) -> int:
    """How many processes may share ``count`` files: the cores this process may use, when
    forking is safe (Linux, and no thread besides this one: a child forked from a process
    with threads may inherit a lock that is never released)."""
    if count < FORK_MIN_FILES or not sys.platform.startswith("linux"):
        return 1
    import threading

    if threading.active_count() != 1:
        return 1
    return max(1, min(len(os.sched_getaffinity(0)), count // (FORK_MIN_FILES // 2), 8))


def _encode_results(results: list, total: int) -> bytes:
    # marshal (built in, nothing to import) has no exceptions: an OSError travels as its
    # errno, text and file name, and OSError(errno, ...) rebuilds the same subclass.
    import marshal

    return marshal.dumps(
        (
            total,
            [
                item if isinstance(item, bytes) else (item.errno, item.strerror, item.filename)
                for item in results
            ],
        )
    )


def _decode_results(payload: bytes) -> tuple[list, int]:
    import marshal

    total, items = marshal.loads(payload)
    return [item if isinstance(item, bytes) else OSError(*item) for item in items], total


def _digest_in_child(read: ReadShare, paths: list, byte_limit: int | None, pipe: int) -> None:
    """The child's side of :func:`digest_paths_forked`: never returns."""
    try:
        reset_in_child()
        payload = memoryview(_encode_results(*read(paths, byte_limit)))
        while payload:
            payload = payload[os.write(pipe, payload) :]
        os._exit(0)
    except BaseException:  # noqa: BLE001 - a child reports failure by its exit status only
        os._exit(1)


def _read_to_end(fd: int) -> bytes:
    pieces: list[bytes] = []
    while True:
        piece = os.read(fd, 1 << 20)
        if not piece:
            return b"".join(pieces)
        pieces.append(piece)


def _stop_children(children: list) -> None:
    """End and reap the children still in ``children`` (``(pid, read_end)`` pairs), closing
    their pipes: none outlives a parent that stops early (an error, Ctrl-C, SIGTERM)."""
    with held():
        while children:
            pid, read_end = children.pop()
            try:
                os.kill(pid, signal.SIGKILL)
            except OSError:
                pass
            try:
                os.waitpid(pid, 0)
            except ChildProcessError:
                pass
            os.close(read_end)


def digest_paths_forked(
    paths: list, read: ReadShare, byte_limit: int | None = None
) -> tuple[list, int]:
    """``read(paths, byte_limit)`` (:func:`digest_paths` with its other arguments bound),
    the files shared with child processes on the other cores.

    For a command-line process hashing many small files: one core opens, reads and hashes
    about 100,000 small files a second, holding the GIL for each (hashlib lets go of it only
    for more than 2 KiB), so threads do not help; processes do. Each process takes a
    contiguous share of ``paths`` and of ``byte_limit``; the results come back in order.
    Where a share stops short (its byte or file limit), the shares after it are dropped and
    the list ends there, as :func:`digest_paths`' does. A child that fails has its share
    hashed here instead. Runs :func:`digest_paths` alone where forking is not safe.
    """
    workers = _fork_workers(len(paths))
    if workers <= 1:
        return read(paths, byte_limit)
    cuts = [len(paths) * w // workers for w in range(workers + 1)]
    share = None if byte_limit is None else byte_limit // workers
    children: list = []  # (pid, read end of its pipe) of each child not yet reaped
    try:
        for w in range(1, workers):
            # Held: a signal in the after-fork hooks would be lost, one before the append
            # would leave a child this process does not know of.
            with held():
                read_end, write_end = os.pipe()
                pid = os.fork()
                if pid == 0:
                    os.close(read_end)
                    _digest_in_child(read, paths[cuts[w] : cuts[w + 1]], share, write_end)
                os.close(write_end)
                children.append((pid, read_end))
        found, total = read(paths[: cuts[1]], share)
        complete = len(found) == cuts[1]
        for w in range(1, workers):
            pid, read_end = children[0]
            payload = _read_to_end(read_end) if complete else b""
            with held():
                if not complete:
                    os.kill(pid, signal.SIGKILL)  # its share would be dropped: stop it now
                _, status = os.waitpid(pid, 0)
                os.close(read_end)
                children.pop(0)
            if not complete:
                continue
            if status == 0 and payload:
                part, part_total = _decode_results(payload)
            else:
                part, part_total = read(paths[cuts[w] : cuts[w + 1]], share)
            found += part
            total += part_total
            complete = len(part) == cuts[w + 1] - cuts[w]
    finally:
        _stop_children(children)
    return found, total
