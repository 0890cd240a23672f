"""Turning every accepted input form into the flat (data, offsets) layout the sponge reads."""

from __future__ import annotations

from collections.abc import Iterable

import numpy as np

from batchkeccak._pylist import changed_while_hashing, flatten_bytes

_BYTES_TYPES = frozenset({bytes, bytearray})


def _readonly(array: np.ndarray) -> np.ndarray:
    # The kernels are compiled for read-only arrays only, so that writable and read-only
    # inputs (Arrow buffers, bytes) share one specialization.
    if array.flags.writeable:
        array = array.view()
        array.flags.writeable = False
    return array


def check_flat(data: object, offsets: object) -> tuple[np.ndarray, np.ndarray]:
    """Validate a (data, offsets) pair; returns read-only uint8 data and int64 offsets."""
    if not isinstance(data, np.ndarray):
        try:
            data = np.frombuffer(memoryview(data).cast("B"), dtype=np.uint8)  # type: ignore[arg-type]
        except TypeError:
            raise TypeError(
                f"data must be a uint8 array or bytes-like object, got {type(data).__name__}"
            ) from None
    if data.dtype != np.uint8 or data.ndim != 1:
        raise TypeError(f"data must be a 1-D uint8 array, got {data.ndim}-D {data.dtype}")
    if not isinstance(offsets, np.ndarray):
        raise TypeError(f"offsets must be an int32 or int64 array, got {type(offsets).__name__}")
    if offsets.dtype not in (np.int32, np.int64) or offsets.ndim != 1:
        raise TypeError(
            f"offsets must be a 1-D int32 or int64 array, got {offsets.ndim}-D {offsets.dtype}"
        )
    if offsets.shape[0] < 1:
        raise ValueError("offsets must hold N + 1 entries for N messages, got an empty array")
    offsets = offsets.astype(np.int64, copy=False)
    if offsets.shape[0] > 1:
        first, last = int(offsets[0]), int(offsets[-1])
        if first < 0 or last > data.shape[0]:
            raise ValueError(
                f"offsets out of range: they span [{first}, {last}] but data holds "
                f"{data.shape[0]} bytes"
            )
        steps = np.diff(offsets)
        if steps.size and steps.min() < 0:
            bad = int(np.argmax(steps < 0))
            raise ValueError(
                f"offsets must be non-decreasing: offsets[{bad + 1}] = {int(offsets[bad + 1])} "
                f"< offsets[{bad}] = {int(offsets[bad])}"
            )
    return _readonly(np.ascontiguousarray(data)), _readonly(np.ascontiguousarray(offsets))


def is_flat_pair(messages: object) -> bool:
    return (
        isinstance(messages, tuple)
        and len(messages) == 2
        and isinstance(messages[1], np.ndarray)
        and messages[1].dtype in (np.int32, np.int64)
    )


def rows_to_flat(rows: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    if rows.dtype != np.uint8:
        raise TypeError(f"a 2-D messages array must have dtype uint8, got {rows.dtype}")
    rows = np.ascontiguousarray(rows)
    count, width = rows.shape
    offsets = np.arange(0, count * width + 1, width, dtype=np.int64) if width else np.zeros(
        count + 1, dtype=np.int64
    )
    return _readonly(rows.reshape(-1)), _readonly(offsets)


def _message_nbytes(index: int, message: object) -> int:
    if isinstance(message, str):
        raise TypeError(
            f"messages[{index}] is a str: strings must be encoded before hashing "
            "(for example s.encode('utf-8'))"
        )
    try:
        view = memoryview(message)  # type: ignore[arg-type]
    except TypeError:
        raise TypeError(
            f"messages[{index}] is {type(message).__name__}, not a bytes-like object"
        ) from None
    if not view.c_contiguous:
        raise ValueError(f"messages[{index}] is not C-contiguous; copy it first")
    return view.nbytes


_CONVERT_CHUNK = 4096
"""Messages converted per step: small enough that the objects stay in cache between the
type check, the length pass and the copy, which together read each object once from memory."""


def sequence_to_flat(
    messages: Iterable[object], start: int = 0, stop: int | None = None
) -> tuple[np.ndarray, np.ndarray]:
    """Messages ``start..stop`` of a sequence of bytes-like objects as read-only (uint8 data,
    int64 offsets). An error about a message names it by its index in the whole sequence.
    """
    if not isinstance(messages, (list, tuple)):
        messages = list(messages)
    if stop is None:
        stop = len(messages)
    if stop - start == 1:
        # One message, often a large one (a file, a blob): read it where it lies. Copying it
        # into a new buffer first cost about 9 % of hashing 64 MiB.
        try:
            message = messages[start]
        except IndexError:
            raise changed_while_hashing() from None
        size = _message_nbytes(start, message)
        data = np.frombuffer(memoryview(message).cast("B"), dtype=np.uint8)  # type: ignore[arg-type]
        return _readonly(data), _readonly(np.array([0, size], dtype=np.int64))
    flat = flatten_bytes(messages, start, stop)  # lists of plain bytes: read in compiled code
    if flat is not None:
        return _readonly(flat[0]), _readonly(flat[1])
    part = messages[start:stop]
    if len(part) != stop - start:
        raise changed_while_hashing()
    count = len(part)
    lengths = np.empty(count, dtype=np.int64)
    parts = []
    for first in range(0, count, _CONVERT_CHUNK):
        chunk = part[first : first + _CONVERT_CHUNK]
        if set(map(type, chunk)) <= _BYTES_TYPES:
            lengths[first : first + len(chunk)] = np.fromiter(map(len, chunk), np.int64, len(chunk))
        else:
            lengths[first : first + len(chunk)] = np.fromiter(
                (_message_nbytes(start + first + i, m) for i, m in enumerate(chunk)),
                np.int64, len(chunk),
            )
        parts.append(b"".join(chunk))  # type: ignore[arg-type]
    joined = parts[0] if len(parts) == 1 else b"".join(parts)
    offsets = np.zeros(count + 1, dtype=np.int64)
    np.cumsum(lengths, out=offsets[1:])
    return _readonly(np.frombuffer(joined, dtype=np.uint8)), _readonly(offsets)


def to_flat(messages: object) -> tuple[np.ndarray, np.ndarray]:
    """Any accepted input form as read-only (uint8 data, int64 offsets)."""
    if isinstance(messages, (str, bytes, bytearray, memoryview)):
        raise TypeError(
            f"messages must be a sequence of messages, got a single {type(messages).__name__}; "
            "wrap one message in a list: [message]"
        )
    if is_flat_pair(messages):
        return check_flat(*messages)  # type: ignore[misc]
    if isinstance(messages, np.ndarray):
        if messages.ndim == 2:
            return rows_to_flat(messages)
        raise TypeError(
            f"a messages array must be 2-D (one message per row), got {messages.ndim}-D; "
            "pass a 1-D array as [array], or a (data, offsets) pair"
        )
    arrow = _arrow_to_flat(messages)
    if arrow is not None:
        return arrow
    if not isinstance(messages, Iterable):
        raise TypeError(
            "messages must be a sequence of bytes-like objects, a 2-D uint8 array or a "
            f"(data, offsets) pair, got {type(messages).__name__}"
        )
    return sequence_to_flat(messages)


def _arrow_to_flat(messages: object) -> tuple[np.ndarray, np.ndarray] | None:
    module = type(messages).__module__
    if not module.startswith("pyarrow"):
        return None
    from batchkeccak.arrow import binary_buffers

    return binary_buffers(messages, argument="messages")
