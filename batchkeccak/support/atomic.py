"""Output files written atomically: a temporary file beside the destination, then a rename.

A crash or an interrupt leaves the old destination (or none), never half a file. The
temporary name says what made it (``.NAME.batchkeccak-HEX.tmp``), so that a file left by a
process killed outright (SIGKILL, a power cut: nothing can clean up after those) is easy to
find and remove: ``find DIR -name '.*.batchkeccak-*.tmp'``.
"""

from __future__ import annotations

import contextlib
import os
import secrets
import stat
from collections.abc import Iterator
from pathlib import Path

from batchkeccak.native.signals import held

TEMPORARY_PATTERN = ".*.batchkeccak-*.tmp"
"""Glob of the temporary files this module creates (beside their destination)."""


def _temporary_path(destination: Path) -> Path:
    # Beside the destination, so that the final os.replace is a rename within one
    # filesystem; created exclusively with the usual permissions (0o666 less the umask).
    while True:
        candidate = destination.with_name(
            f".{destination.name}.batchkeccak-{secrets.token_hex(6)}.tmp"
        )
        try:
            os.close(os.open(candidate, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o666))
            return candidate
        except FileExistsError:
            continue


def _keep_mode_and_owner(descriptor: int, old: os.stat_result) -> None:
    """Give the new file the old one's permission bits (and, where allowed, its owner and
    group), as GNU tools that overwrite a file in place keep them: replacing a 600 file must
    not make it world-readable, nor a 444 one writable."""
    if (old.st_uid, old.st_gid) != (os.geteuid(), os.getegid()):
        # As root, the old owner and group; otherwise the group alone where the user is in
        # it. A change refused (EPERM) leaves the new file the caller's own, as ``cp`` does.
        with contextlib.suppress(OSError):
            os.fchown(descriptor, old.st_uid, old.st_gid)
        with contextlib.suppress(OSError):
            os.fchown(descriptor, -1, old.st_gid)
    # After the chown, which clears the set-user-ID and set-group-ID bits.
    os.fchmod(descriptor, stat.S_IMODE(old.st_mode))


@contextlib.contextmanager
def atomic_output(destination: str | os.PathLike) -> Iterator[Path]:
    """Yield a temporary path to write; on success it replaces ``destination``.

    The data is flushed to disk before the rename, so the name never points at a file whose
    contents are still in flight. On any exception (KeyboardInterrupt and SystemExit too)
    the temporary file is removed and the exception goes on. A stop signal (SIGINT, SIGTERM,
    SIGHUP) waits while the temporary file is created and while it is removed, so that none
    can leave it behind.

    A destination that is not a regular file (a device such as ``/dev/stdout``, a FIFO) is
    yielded as it is, to be written in place; through a symbolic link, the file it names is
    replaced and the link stays. A regular file replaced keeps its permission bits, and its
    owner and group where the user may set them (root).
    """
    destination = Path(destination)
    try:
        kind = os.stat(destination).st_mode  # through a symbolic link
    except (FileNotFoundError, NotADirectoryError):
        kind = None
    if kind is not None and not stat.S_ISREG(kind) and not stat.S_ISDIR(kind):
        # A device, a FIFO, /dev/stdout: written where it is, as ``cp`` and ``sort -o``
        # write them. There is no file to replace, and a rename would replace the device
        # node itself (for everyone, when run as root).
        yield destination
        return
    # Through a symbolic link, the file it names is replaced and the link stays.
    destination = Path(os.path.realpath(destination))
    temporary = None
    try:
        with held():  # a signal held here comes once the name is known, so it is removed
            temporary = _temporary_path(destination)
        yield temporary
        with open(temporary, "rb+") as written:
            try:
                old = os.stat(destination)
            except OSError:  # none yet: the usual permissions (0o666 less the umask)
                old = None
            if old is not None and stat.S_ISREG(old.st_mode):
                _keep_mode_and_owner(written.fileno(), old)
            os.fsync(written.fileno())
        os.replace(temporary, destination)
    except BaseException:
        if temporary is not None:
            with held():
                temporary.unlink(missing_ok=True)
        raise


def write_bytes_atomically(destination: str | os.PathLike, data: bytes) -> None:
    """``Path(destination).write_bytes(data)``, atomically."""
    with atomic_output(destination) as temporary:
        temporary.write_bytes(data)
