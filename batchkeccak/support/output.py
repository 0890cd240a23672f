"""The one output writer: every file a command or the library writes goes through
:func:`open_output`, and the command's standard output through :class:`GuardedStream`.

- A regular file (or a new one, or one a symbolic link names) is written atomically
  (:mod:`batchkeccak.support.atomic`): a temporary file beside it, renamed over it once
  complete.
- A device, a FIFO, ``/dev/stdout`` (a pipe, a terminal) is written through as a stream,
  opened once by this module. Libraries that may remove a path they failed to write
  (pyarrow removes it) only ever receive the opened file object, never the path.
- Every failure to open, write, flush or close the destination is a
  :class:`batchkeccak.errors.WriteError` (BrokenPipeError excepted: the reader went away,
  which a command reports by stopping quietly).
"""

from __future__ import annotations

import contextlib
import errno
import os
import stat
import sys
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import IO, Any

from batchkeccak.errors import WriteError
from batchkeccak.support.atomic import atomic_output


def write_error(exc: BaseException, filename: str | None = None) -> WriteError:
    """``exc`` (an OSError, or the ValueError of a closed file) as a :class:`WriteError`."""
    if isinstance(exc, WriteError):
        return exc
    code = getattr(exc, "errno", None) or errno.EIO
    text = getattr(exc, "strerror", None) or os.strerror(code)
    if filename is None:
        return WriteError(code, text)
    return WriteError(code, text, filename)


class GuardedStream:
    """A writable stream whose failures are :class:`WriteError`; anything else is the
    stream's own. ``stream`` None is a closed standard output (``>&-``): each write fails
    with EBADF, as a write to the closed descriptor does. ``failed`` keeps the first
    failure, for the writers that swallow errors (argparse's ``--help``)."""

    def __init__(self, stream: Any, filename: str | None = None) -> None:
        self._stream = stream
        self._filename = filename
        self._abandoned = False
        self.failed: WriteError | None = None

    def _guarded(self, action, *args):
        if self._stream is None:
            self.failed = self.failed or WriteError(errno.EBADF, os.strerror(errno.EBADF))
            raise self.failed
        if self._filename is not None and isinstance(sys.exc_info()[1], KeyboardInterrupt):
            self._abandon()  # a writer's cleanup while a stop signal ends the run
        try:
            return action(*args)
        except KeyboardInterrupt:
            if self._filename is not None:
                self._abandon()  # the signal came while the write waited
            raise
        except BrokenPipeError:
            raise
        except (OSError, ValueError) as exc:
            error = write_error(exc, self._filename)
            self.failed = self.failed or error
            raise error from None

    def write(self, data):
        if self._stream is None and not data:
            return 0
        return self._guarded(lambda: self._stream.write(data))

    def _abandon(self) -> None:
        """Send what is still to come to the null device: an output file's writes once a stop
        signal ends the run. A writer's cleanup (a Parquet footer) is not wanted then, and into
        a FIFO or pipe whose reader no longer reads, it would block the stop for good. A
        temporary file is removed anyway; a device or FIFO keeps what it got."""
        if self._abandoned:
            return
        self._abandoned = True
        try:
            descriptor = self._stream.fileno()
            devnull = os.open(os.devnull, os.O_WRONLY)
        except (AttributeError, OSError, ValueError):
            return
        try:
            os.dup2(devnull, descriptor)
        finally:
            os.close(devnull)

    def writelines(self, lines) -> None:
        for line in lines:
            self.write(line)

    def flush(self) -> None:
        if self._stream is None:
            return  # nothing was written, so nothing is lost: only a write fails
        self._guarded(self._stream.flush)

    def close(self) -> None:
        if self._stream is not None and not self._stream.closed:
            self._guarded(self._stream.close)

    @property
    def closed(self) -> bool:
        return self._stream is None or bool(self._stream.closed)

    def writable(self) -> bool:
        return True

    @property
    def buffer(self) -> GuardedStream:
        """The binary stream under a text one, guarded the same way."""
        inner = getattr(self._stream, "buffer", None)
        if inner is None:
            raise AttributeError("buffer")
        return GuardedStream(inner, self._filename)

    def fileno(self) -> int:
        if self._stream is None:
            raise OSError(errno.EBADF, os.strerror(errno.EBADF))
        return self._stream.fileno()

    def __getattr__(self, name: str):
        # encoding, isatty, errors...: the stream's own.
        if self._stream is None:
            raise AttributeError(name)
        return getattr(self._stream, name)


def is_stream(destination: str | os.PathLike) -> bool:
    """Whether ``destination`` exists as something other than a regular file or a folder
    (a device, a FIFO, ``/dev/stdout``), through symbolic links: written through in place."""
    try:
        mode = os.stat(destination).st_mode
    except (OSError, ValueError):
        return False
    return not stat.S_ISREG(mode) and not stat.S_ISDIR(mode)


def output_path_problem(
    destination: str | os.PathLike, inputs: Sequence[object] = ()
) -> OSError | ValueError | None:
    """What keeps ``destination`` from being written as an output file, checked before any
    work is done; None when nothing does. The one check every command and
    ``batchkeccak.parquet.hash_file`` make, so that each says the same thing:

    - an empty path: "the output path is empty" (a ValueError);
    - a folder: "'PATH' is a directory; name the file to write";
    - under something that is not a folder: "'f.txt' is not a folder";
    - in a folder that does not exist: "folder 'PATH' does not exist";
    - a symbolic link whose target's folder does not exist: "'LINK' is a symbolic link to
      'TARGET', whose folder 'PATH' does not exist". A dangling link whose target's folder
      exists is written through, as ``cp`` writes it: the link stays and names the new file;
    - the same file as one of ``inputs`` (paths the command reads; others are passed over):
      "'PATH' is also an input; write the output to another file", as ``cp a a`` refuses,
      since the output would replace what is being read.

    The error returned (not raised) is the OSError subclass that the open would have raised,
    its message without the caller's prefix (an option's or an argument's name).
    """
    name = os.fspath(destination)
    if isinstance(name, bytes):
        name = os.fsdecode(name)
    if name == "":
        return ValueError("the output path is empty")
    path = Path(name)
    if path.is_dir():
        return IsADirectoryError(f"{name!r} is a directory; name the file to write")
    if path.is_file() and any(_same_file(path, source) for source in inputs):
        return ValueError(f"{name!r} is also an input; write the output to another file")
    if path.is_symlink() and not path.exists():
        target = Path(os.path.realpath(path))
        if not target.parent.is_dir():
            return FileNotFoundError(
                f"{name!r} is a symbolic link to {str(target)!r}, "
                f"whose folder {str(target.parent)!r} does not exist"
            )
        return None
    # The nearest part of the path that exists: a regular file there is not a folder.
    parent = path.parent
    if parent.is_dir():
        return None
    missing = parent
    while not os.path.lexists(missing) and missing.parent != missing:
        missing = missing.parent
    if os.path.lexists(missing) and not missing.is_dir():
        return NotADirectoryError(f"{str(missing)!r} is not a folder")
    return FileNotFoundError(f"folder {str(parent)!r} does not exist")


def _same_file(path: Path, source: object) -> bool:
    if not isinstance(source, (str, os.PathLike)):
        return False
    try:
        return os.path.samefile(path, source)
    except (OSError, ValueError, TypeError):
        return False


def check_output_path(destination: str | os.PathLike, label: str | None = None) -> None:
    """Raise :func:`output_path_problem`'s error, its message after ``label:`` when given."""
    problem = output_path_problem(destination)
    if problem is None:
        return
    if label is None:
        raise problem
    raise type(problem)(f"{label}: {problem}")


def is_standard_output(destination: str | os.PathLike) -> bool:
    """Whether ``destination`` is this process's standard output (``/dev/stdout``, or the
    FIFO or file descriptor 1 is): a summary line would then land inside the data."""
    try:
        named, ours = os.stat(destination), os.fstat(1)
    except (OSError, ValueError):
        return False
    return (named.st_dev, named.st_ino) == (ours.st_dev, ours.st_ino)


def summary_stream(destination: str | os.PathLike | None) -> Any:
    """Where a command's summary line goes once it wrote its result to ``destination``:
    standard error when that is not a regular file (a FIFO, a device, ``/dev/stdout``: its
    reader may be this command's own standard output, piped on), else standard output. The
    one rule of ``diff -o`` and ``parquet SRC DST``."""
    import sys

    if destination is not None and (is_stream(destination) or is_standard_output(destination)):
        return sys.stderr
    return sys.stdout


@contextlib.contextmanager
def open_output(
    destination: str | os.PathLike, mode: str = "wb", encoding: str | None = None
) -> Iterator[IO[Any]]:
    """An open file object (``mode`` "wb" or "w") whose contents become ``destination``.

    A regular file is replaced atomically once the block ends without an exception (an
    exception leaves the old file, or none); a device or FIFO is written in place. Each
    failure to open, write or close it is a :class:`WriteError` naming ``destination``.
    """
    if mode not in ("wb", "w"):
        raise ValueError(f"mode must be 'wb' or 'w', got {mode!r}")
    if mode == "w" and encoding is None:
        encoding = "utf-8"
    name = os.fspath(destination)
    if is_stream(destination):
        try:
            handle = open(destination, mode, encoding=encoding)  # noqa: SIM115 - closed below
        except OSError as exc:
            raise write_error(exc, str(name)) from None
        guarded = GuardedStream(handle, str(name))
        try:
            yield guarded  # type: ignore[misc]  # a file object in all but name
            guarded.flush()
        finally:
            with contextlib.suppress(OSError, ValueError):
                handle.close()  # what is left to flush failed above, or the block failed
        return
    from_the_block = False  # the caller's own errors (reading its input) go on as they are
    try:
        with atomic_output(destination) as temporary:
            handle = open(temporary, mode, encoding=encoding)  # noqa: SIM115 - closed below
            guarded = GuardedStream(handle, str(name))
            try:
                try:
                    yield guarded  # type: ignore[misc]  # a GuardedStream stands in for the IO it wraps
                except BaseException:
                    from_the_block = True
                    raise
                guarded.close()
            finally:
                with contextlib.suppress(OSError, ValueError):
                    handle.close()
    except OSError as exc:  # creating the temporary file, writing it, its fsync, the rename
        if from_the_block or isinstance(exc, WriteError):
            raise
        raise write_error(exc, str(name)) from None


def arrow_sink(handle: IO[Any]):
    """``handle`` as the output stream pyarrow writes to (``pq.ParquetWriter``,
    ``pq.write_table``): pyarrow keeps the position itself, so a pipe works."""
    import pyarrow as pa

    return pa.PythonFile(handle, mode="w")
