"""One message, hashed by hashlib or pycryptodome: the backend for work too small to be worth
the kernels (a hash object that never filled its buffer, a single short message).

A row of the table is here when one of them computes exactly the same function: SHA-3 and
SHAKE through hashlib (OpenSSL), Keccak and TurboSHAKE (any domain byte) through pycryptodome.
Anything else (another domain byte, a start state other than zeros) returns None, and the
caller uses the kernels.
"""

from __future__ import annotations

import errno
import hashlib
import os
import signal
import stat
import sys

from batchkeccak._signals import held, reset_in_child
from batchkeccak.parameters import Algorithm

_HASHLIB_ROWS = frozenset(
    {"sha3_224", "sha3_256", "sha3_384", "sha3_512", "shake_128", "shake_256"}
)


def backend_family(spec: Algorithm, domain: int) -> str | None:
    """``"hashlib"`` or ``"pycryptodome"``: which one-shot backend has ``spec`` with
    ``domain`` (from the all-zero state); None when neither has it."""
    if spec.name in _HASHLIB_ROWS and domain == spec.suffix:
        return "hashlib"
    if spec.name.startswith("keccak_") and domain == spec.suffix:
        return "pycryptodome"
    if spec.name in ("turboshake128", "turboshake256"):
        return "pycryptodome"
    return None


def oneshot_function(spec: Algorithm, domain: int, out_len: int):
    """A function of one message (bytes-like) returning its ``out_len``-byte digest under
    ``spec`` from the all-zero state with ``domain``; None where no backend has it. Made once
    per call and applied to every message: the loop over a batch stays one ``map``."""
    family = backend_family(spec, domain)
    if family is None:
        return None
    name = spec.name
    if family == "hashlib":
        constructor = getattr(hashlib, name)
        if spec.xof:
            return lambda message: constructor(message).digest(out_len)
        return lambda message: constructor(message).digest()
    if name.startswith("keccak_"):
        from Crypto.Hash import keccak

        size = spec.digest_size
        return lambda message: keccak.new(data=message, digest_bytes=size).digest()
    from Crypto.Hash import TurboSHAKE128, TurboSHAKE256

    factory = TurboSHAKE128 if name == "turboshake128" else TurboSHAKE256
    return lambda message: factory.new(domain=domain, data=message).read(out_len)


def oneshot_digest(spec: Algorithm, domain: int, message: bytes | bytearray | memoryview,
                   out_len: int) -> bytes | None:
    """``out_len`` bytes of ``spec`` over ``message`` from the all-zero state with ``domain``,
    or None where neither hashlib nor pycryptodome has that function."""
    function = oneshot_function(spec, domain, out_len)
    return None if function is None else function(message)


ONESHOT_THREAD_BYTES = 64 << 10
"""Files of this many bytes on average (and more) are read and hashed by hashlib on several
threads; smaller ones on the calling thread, where two threads were measured slower (20,000
files of 1 KiB: 0.21-0.27 s on one thread, 0.33-0.37 s on two)."""

READ_BYTES = 1 << 16
"""Bytes asked per ``read`` by :func:`digest_paths` of a file that does not say its size."""

LARGE_READ = 1 << 20
"""Files of this size and more are read and hashed in pieces of this size (hashlib lets go of
the GIL while it hashes each); smaller ones in one read."""

SMALLEST_READ = 4096
"""Reads of a file that refuses a large count (``ENOMEM`` or ``EINVAL``: /proc and /sys
files) are retried at half the count, down to this many bytes: ``cat`` reads 128 KiB."""

_OPEN_FLAGS = os.O_RDONLY | getattr(os, "O_CLOEXEC", 0) | getattr(os, "O_BINARY", 0)


def read_any(fd: int, count: int) -> bytes:
    """``os.read(fd, count)``, retried with a smaller count where the file refuses a large
    one (``ENOMEM`` or ``EINVAL``, as some /proc and /sys files do): any file ``cat`` reads."""
    while True:
        try:
            return os.read(fd, count)
        except OSError as exc:
            if exc.errno not in (errno.ENOMEM, errno.EINVAL) or count <= SMALLEST_READ:
                raise
            count = max(SMALLEST_READ, count // 2)


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


def digest_paths(paths: list, spec: Algorithm, domain: int, out_len: int,
                 byte_limit: int | None = None, file_limit: int | None = None,
                 ) -> tuple[list, int]:
    """The digest (``bytes``) of each file, or the ``OSError`` that opening or reading it
    raised, one file after another on this thread through the backend (which must have the
    function: :func:`backend_family`); and the bytes hashed.

    With ``byte_limit``, it stops before a file whose bytes (as ``fstat`` reports them
    once it is open) would take the total past the limit, and with ``file_limit`` before a
    file larger than that: the list is then shorter than ``paths`` and the caller hashes
    the rest otherwise. Small work needs nothing more than
    this: numpy is not imported, and a small file costs an open, an fstat, a read and a
    close.
    """
    new, read = oneshot_factory(spec, domain)  # type: ignore[misc]
    limit = sys.maxsize if byte_limit is None else byte_limit
    largest = sys.maxsize if file_limit is None else file_limit
    fstat = os.fstat
    results: list = []
    append = results.append
    total = 0
    for path in paths:
        try:
            fd = os.open(path, _OPEN_FLAGS)
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
            append(OSError(exc.errno, exc.strerror, path) if exc.filename is None else exc)
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

    return marshal.dumps((total, [
        item if isinstance(item, bytes) else (item.errno, item.strerror, item.filename)
        for item in results
    ]))


def _decode_results(payload: bytes) -> tuple[list, int]:
    import marshal

    total, items = marshal.loads(payload)
    return [item if isinstance(item, bytes) else OSError(*item) for item in items], total


def _digest_in_child(paths: list, spec: Algorithm, domain: int, out_len: int,
                     byte_limit: int | None, file_limit: int | None, pipe: int) -> None:
    """The child's side of :func:`digest_paths_forked`: never returns."""
    try:
        reset_in_child()
        payload = memoryview(_encode_results(*digest_paths(
            paths, spec, domain, out_len, byte_limit, file_limit)))
        while payload:
            payload = payload[os.write(pipe, payload):]
        os._exit(0)
    except BaseException:  # noqa: BLE001 - a child reports failure by its exit status only
        os._exit(1)


def _read_to_end(fd: int) -> bytes:
    pieces = []
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


def digest_paths_forked(paths: list, spec: Algorithm, domain: int, out_len: int,
                        byte_limit: int | None = None, file_limit: int | None = None,
                        ) -> tuple[list, int]:
    """:func:`digest_paths`, the files shared with child processes on the other cores.

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
        return digest_paths(paths, spec, domain, out_len, byte_limit, file_limit)
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
                    _digest_in_child(paths[cuts[w]:cuts[w + 1]], spec, domain, out_len, share,
                                     file_limit, write_end)
                os.close(write_end)
                children.append((pid, read_end))
        found, total = digest_paths(paths[:cuts[1]], spec, domain, out_len, share, file_limit)
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
                part, part_total = digest_paths(paths[cuts[w]:cuts[w + 1]], spec, domain,
                                                out_len, share, file_limit)
            found += part
            total += part_total
            complete = len(part) == cuts[w + 1] - cuts[w]
    finally:
        _stop_children(children)
    return found, total


def oneshot_object(spec: Algorithm, domain: int):
    """A new incremental object of the backend (``update(data)``), and the function that reads
    ``out_len`` bytes from it: for one message that arrives in pieces (a file). None where no
    backend has the function."""
    made = oneshot_factory(spec, domain)
    if made is None:
        return None
    make, read = made
    return make(b""), read


def oneshot_factory(spec: Algorithm, domain: int):
    """What makes a new incremental object of the backend, called with the first bytes of
    the message (``b""`` for none), and the function that reads ``out_len`` bytes from one;
    None where no backend has the function."""
    family = backend_family(spec, domain)
    if family is None:
        return None
    if family == "hashlib":
        if spec.xof:
            return getattr(hashlib, spec.name), lambda digest, out_len: digest.digest(out_len)
        return getattr(hashlib, spec.name), lambda digest, out_len: digest.digest()
    if spec.name.startswith("keccak_"):
        from Crypto.Hash import keccak

        size = spec.digest_size
        return ((lambda data: keccak.new(data=data, digest_bytes=size)),
                lambda digest, out_len: digest.digest())
    from Crypto.Hash import TurboSHAKE128, TurboSHAKE256

    factory = TurboSHAKE128 if spec.name == "turboshake128" else TurboSHAKE256
    return ((lambda data: factory.new(domain=domain, data=data)),
            lambda digest, out_len: digest.read(out_len))
