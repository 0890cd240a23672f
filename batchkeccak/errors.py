"""The library's own exceptions, in one place.

Each is also the built-in exception that callers already catch, as pyarrow's are
(``ArrowInvalid`` is a ValueError): a refused input is a :class:`ValueError` (or a
:class:`TypeError`), an output that cannot be written an :class:`OSError`. ``except
ValueError`` keeps working; ``except batchkeccak.errors.BatchKeccakError`` catches what the
library itself refused.

The command line reports each of them as one line with the subcommand's trouble status
(see :mod:`batchkeccak.cli`); anything else that escapes a subcommand is a bug, reported as
an internal error.
"""

from __future__ import annotations


class BatchKeccakError(Exception):
    """Base class of the errors the library raises on purpose."""


class InputError(BatchKeccakError, ValueError):
    """An input the library refuses: a ValueError naming the argument and what was wrong."""


class InputTypeError(BatchKeccakError, TypeError):
    """An input of a type the library does not take: a TypeError naming the argument."""


class DuplicateKeyError(InputError):
    """A key that appears twice in one source (``batchkeccak.tables``)."""


class LeafIndexError(IndexError, InputError):
    """A leaf index outside ``0 .. size - 1`` (both an IndexError and a ValueError)."""


class NotContiguousError(BufferError, InputError):
    """A strided buffer where contiguous bytes are needed: a ``BufferError``, as hashlib
    raises for one, and a ``ValueError``, as every other refused input here is."""


class WriteError(BatchKeccakError, OSError):
    """An output that refused our bytes: a full disk (ENOSPC), a closed standard output
    (EBADF), a destination that cannot be opened. ``errno``, ``strerror`` and, where a
    named file was being written, ``filename`` are the operating system's."""


__all__ = [
    "BatchKeccakError",
    "DuplicateKeyError",
    "InputError",
    "InputTypeError",
    "LeafIndexError",
    "NotContiguousError",
    "WriteError",
]
