"""One large message as a read-only uint8 array, without copying it: bytes-like objects,
numpy arrays, and files (memory-mapped) for the tree modes."""

from __future__ import annotations

import os
from collections.abc import Iterator
from contextlib import contextmanager

import numpy as np

from batchkeccak.inputs import readonly


@contextmanager
def message_array(data: object, argument: str = "data") -> Iterator[np.ndarray]:
    """``data`` as a read-only 1-D uint8 array for the duration of the ``with`` block.

    A ``str`` or ``os.PathLike`` is a path: the file is memory-mapped read-only (its pages are
    read as the leaves are hashed, never copied into the process's heap). A numpy array is
    hashed as its raw bytes, as hashlib hashes it.
    """
    if isinstance(data, (str, os.PathLike)):
        path = os.fspath(data)
        try:
            size = os.path.getsize(path)
            mapped = np.memmap(path, dtype=np.uint8, mode="r") if size else None
        except OSError as exc:
            raise OSError(exc.errno, f"cannot read {argument} file {path!r}: {exc.strerror}") from None
        try:
            yield readonly(np.asarray(mapped) if mapped is not None else np.zeros(0, np.uint8))
        finally:
            del mapped
        return
    if isinstance(data, np.ndarray):
        if not data.flags.c_contiguous:
            raise ValueError(f"{argument} array is not C-contiguous: copy it first")
        yield readonly(data.reshape(-1).view(np.uint8))
        return
    try:
        view = memoryview(data)  # type: ignore[arg-type]
    except TypeError:
        raise TypeError(
            f"{argument} must be bytes-like, a numpy array or a path, got {type(data).__name__}"
        ) from None
    if not view.c_contiguous:
        raise ValueError(f"{argument} is not contiguous (a strided view): copy it first")
    yield readonly(np.frombuffer(view.cast("B"), dtype=np.uint8))
