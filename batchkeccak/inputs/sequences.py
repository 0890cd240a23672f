"""Sequences of bytes-like objects to the flat layout, measuring and reading each one once."""

from __future__ import annotations

from collections.abc import Iterable

import numpy as np

from batchkeccak.inputs.flat import NotContiguousError, changed_while_hashing, readonly

COMPILED_READ_MIN = 64
"""Lists of at least this many messages are read by compiled code (``_pylist``); shorter ones
are joined by Python, which needs no compiler loaded and is as fast for so few."""

__all__ = [
    "changed_while_hashing",
    "message_view",
    "sequence_to_flat",
    "sequence_to_flat_equal",
    "single_message",
    "unencodable_text",
]

_FLAT_HINT = "; a flat buffer with offsets is passed as batchkeccak.FlatMessages(data, offsets)"


def unencodable_text(items: Iterable[object]) -> tuple[int, str] | None:
    """Where a column of text fails to encode: ``(row, reason)`` for the first ``str`` of
    ``items`` that UTF-8 cannot encode, None when every one encodes. Only a lone surrogate
    (U+D800 to U+DFFF, as ``errors="surrogateescape"`` decoding leaves for a byte that was not
    UTF-8) cannot; ``reason`` names it and its place. For the error path of a text column's
    conversion (Arrow raises a bare ``UnicodeEncodeError`` that names no row)."""
    for row, item in enumerate(items):
        if isinstance(item, str):
            try:
                item.encode("utf-8")
            except UnicodeEncodeError as error:
                return row, (
                    f"character {error.start} is the lone surrogate {item[error.start]!r}, "
                    "which UTF-8 cannot encode"
                )
    return None


def message_view(message: object, name: str) -> memoryview:
    """One export of ``message``'s buffer as a 1-D byte view; ``name`` is used in errors.

    Everything after this reads the message through the returned view only: its length is
    the length hashed, and while the view lives the exporter cannot be resized (CPython
    refuses to resize a ``bytearray`` or numpy array with live exports). Any contiguous
    buffer is accepted whatever its shape and format, an empty one (a ``(2, 0)`` array
    too) as the empty message; a strided one is a ValueError.
    """
    if isinstance(message, str):
        raise TypeError(
            f"{name} is a str: strings must be encoded before hashing "
            "(for example s.encode('utf-8'))"
        )
    try:
        view = memoryview(message)  # type: ignore[arg-type]  # probing the buffer protocol: TypeError is caught below
    except TypeError:
        hint = _FLAT_HINT if isinstance(message, (list, tuple)) else ""
        raise TypeError(
            f"{name} is {type(message).__name__}, not a bytes-like object{hint}"
        ) from None
    if not view.c_contiguous:
        view.release()
        raise NotContiguousError(
            f"{name} is not contiguous (a strided view of its memory); copy it first, "
            "for example bytes(m) or numpy.ascontiguousarray(m)"
        )
    if view.ndim != 1 or view.format != "B":
        if not view.nbytes:
            # CPython cannot cast a view with a zero in its shape (a (2, 0) array); an empty
            # buffer of any shape and dtype is the empty message, as hashlib reads it, and
            # with nothing to read there is no size to pin.
            view.release()
            return memoryview(b"")
        view = view.cast("B")
    return view


def single_message(message: object, name: str = "message") -> tuple[np.ndarray, np.ndarray]:
    """One message where it lies, as ``(data, offsets)``: no copy.

    Copying a large message (a file, a blob) into a new buffer first cost about 9 % of
    hashing 64 MiB.
    """
    if type(message) is bytes:  # immutable: its size cannot change under us
        return readonly(np.frombuffer(message, dtype=np.uint8)), readonly(
            np.array([0, len(message)], dtype=np.int64)
        )
    view = message_view(message, name)
    data = np.frombuffer(view, dtype=np.uint8)  # holds the view, and so the export
    return readonly(data), readonly(np.array([0, data.shape[0]], dtype=np.int64))


def sequence_to_flat(
    messages: Iterable[object],
    start: int = 0,
    stop: int | None = None,
    argument: str = "messages",
) -> tuple[np.ndarray, np.ndarray]:
    """Messages ``start..stop`` of a sequence of bytes-like objects as ``(data, offsets)``.

    An error about one message names it by its index in the whole sequence.
    """
    data, offsets, _ = sequence_to_flat_equal(messages, start, stop, argument)
    return data, offsets


def sequence_to_flat_equal(
    messages: Iterable[object],
    start: int = 0,
    stop: int | None = None,
    argument: str = "messages",
    reuse: bool = False,
) -> tuple[np.ndarray, np.ndarray, bool]:
    """:func:`sequence_to_flat` and whether the messages are known to have one length:
    True where the compiled reader saw every length equal (then a hasher skips checking
    the offsets for rows of one length), False where that is not known.

    ``reuse``: the compiled reader may copy into this thread's kept buffer, which its next
    ``reuse`` read overwrites (``_pylist.read_flat``): for a caller that hashes the data
    before it reads another list on this thread."""
    if not isinstance(messages, (list, tuple)):
        messages = list(messages)
    if stop is None:
        stop = len(messages)
    if stop - start == 1:
        try:
            message = messages[start]
        except IndexError:
            raise changed_while_hashing() from None
        return (*single_message(message, f"{argument}[{start}]"), True)
    if stop - start >= COMPILED_READ_MIN:
        from batchkeccak.inputs._pylist import read_flat

        flat = read_flat(messages, start, stop, reuse=reuse)  # exact bytes: compiled code
        if flat is not None:
            return readonly(flat[0]), readonly(flat[1]), flat[2]
    # From here on only this slice is read: the caller's list may change, the slice cannot,
    # and it keeps every item alive.
    part = messages[start:stop]
    if len(part) != stop - start:
        raise changed_while_hashing()
    # Exact bytes are immutable and read as they are; anything else is read through one
    # export each, so that the bytes joined are exactly the bytes measured.
    pinned = [
        m if type(m) is bytes else message_view(m, f"{argument}[{start + i}]")
        for i, m in enumerate(part)
    ]
    try:
        lengths = np.fromiter(map(len, pinned), dtype=np.int64, count=len(pinned))
        joined = b"".join(pinned)
    finally:
        for item in pinned:
            if type(item) is memoryview:
                item.release()
    offsets = np.zeros(len(pinned) + 1, dtype=np.int64)
    np.cumsum(lengths, out=offsets[1:])
    if offsets[-1] != len(joined):  # cannot happen with pinned sizes; never hash a mismatch
        raise changed_while_hashing()
    return readonly(np.frombuffer(joined, dtype=np.uint8)), readonly(offsets), False
