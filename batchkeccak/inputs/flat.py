"""The flat layout itself: ``FlatMessages``, its validation, and 2-D arrays of rows."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from batchkeccak.errors import NotContiguousError

IN_PLACE_MIN_BYTES = 128
"""Lists whose ``bytes`` items hold at least this many bytes on average are hashed where the
items lie (``batchkeccak.inputs._pylist.bytes_places``), with no copy; shorter items are
copied into one flat buffer, which the equal single-block tiles (``sponge.hash_uniform``) and
the four-lane short starts read faster than lanes spread over the heap. Measured (sha3_256,
one thread, CPU time, 16-32 MiB of equal items, Intel Xeon family 6 model 167): copy / in
place 31.4 / 61.2 ms at 32 B, 18.1 / 30.2 at 64 B, 16.5 / 16.9 at 96 B, 39.5 / 36.5 at
128 B (32 MiB), 24.0 / 16.7 at 1 KiB; docs/performance.md, "Input forms". Kept here, not
beside the compiled reader, so that deciding on it loads no compiler."""


def changed_while_hashing() -> RuntimeError:
    """The error for a list that another thread changed while it was read in parts."""
    return RuntimeError(
        "messages changed while being hashed: another thread resized the list or replaced its items"
    )


class _HeldSpan:
    """Numpy's array interface over ``size`` bytes from ``address``, holding ``held``."""

    def __init__(self, address: int, size: int, held: object) -> None:
        self.held = held
        self.__array_interface__ = {
            "data": (address, True),  # read-only
            "shape": (size,),
            "typestr": "|u1",
            "version": 3,
        }


def memory_span(address: int, size: int, held: object) -> np.ndarray:
    """A read-only uint8 array over ``size`` bytes of memory from ``address``: the range
    that holds the values of ``held`` (a private list or tuple of exact ``bytes``, or a view
    array's buffers), which the array keeps alive as its base. Nothing in the range is read
    but the values' own bytes: the kernels check every place against the array's size."""
    return np.asarray(_HeldSpan(address, size, held))


def readonly(array: np.ndarray) -> np.ndarray:
    """A read-only view of ``array`` (the array itself if it is read-only already).

    The kernels are compiled for read-only arrays only, so that writable and read-only
    inputs (Arrow buffers, ``bytes``) share one specialization.
    """
    if array.flags.writeable:
        array = array.view()
        array.flags.writeable = False
    return array


@dataclass(frozen=True)
class FlatMessages:
    """Messages laid out back to back in one buffer, as Arrow lays out a binary column.

    Message ``i`` is ``data[offsets[i]:offsets[i + 1]]``. Pass it wherever messages are
    taken: ``hash_many(FlatMessages(data, offsets), "sha3_256")``. It has its own type so a
    buffer with offsets is never confused with a tuple of two messages.

    Parameters
    ----------
    data
        A 1-D ``uint8`` numpy array or any bytes-like object.
    offsets
        A 1-D ``int32`` or ``int64`` numpy array of ``N + 1`` non-decreasing entries inside
        ``data``.
    """

    data: object
    offsets: object


def _as_uint8(data: object) -> np.ndarray:
    if isinstance(data, np.ndarray):
        if data.dtype != np.uint8 or data.ndim != 1:
            raise TypeError(f"data must be a 1-D uint8 array, got {data.ndim}-D {data.dtype}")
        return data
    if isinstance(data, str):
        raise TypeError("data is a str: encode it first (for example s.encode('utf-8'))")
    try:
        view = memoryview(data)  # type: ignore[arg-type]  # probing the buffer protocol: TypeError is caught below
    except TypeError:
        raise TypeError(
            f"data must be a uint8 array or a bytes-like object, got {type(data).__name__}"
        ) from None
    if not view.c_contiguous:
        raise NotContiguousError("data is not contiguous (a strided view): copy it first")
    return np.frombuffer(view.cast("B"), dtype=np.uint8)


def check_flat(data: object, offsets: object) -> tuple[np.ndarray, np.ndarray]:
    """Validate a flat buffer and its offsets; read-only uint8 data and private int64 offsets."""
    data = np.ascontiguousarray(_as_uint8(data))
    if not isinstance(offsets, np.ndarray):
        raise TypeError(
            f"offsets must be a numpy int32 or int64 array, got {type(offsets).__name__}"
        )
    if offsets.dtype not in (np.int32, np.int64) or offsets.ndim != 1:
        raise TypeError(
            f"offsets must be a 1-D int32 or int64 array, got {offsets.ndim}-D {offsets.dtype}"
        )
    if offsets.shape[0] < 1:
        raise ValueError("offsets must hold N + 1 entries for N messages, got an empty array")
    # A private copy: the caller's array could be changed by another thread after it has
    # been checked here. N + 1 words cost far less than hashing N messages.
    offsets = np.array(offsets, dtype=np.int64, copy=True)
    first, last = int(offsets[0]), int(offsets[-1])
    if first < 0 or last > data.shape[0]:
        raise ValueError(
            f"offsets out of range: they span [{first}, {last}] but data holds "
            f"{data.shape[0]} bytes"
        )
    if offsets.shape[0] > 1:
        steps = np.diff(offsets)
        if steps.min() < 0:
            bad = int(np.argmax(steps < 0))
            raise ValueError(
                f"offsets must be non-decreasing: offsets[{bad + 1}] = {int(offsets[bad + 1])} "
                f"< offsets[{bad}] = {int(offsets[bad])}"
            )
    return readonly(data), readonly(offsets)


def rows_to_flat(rows: np.ndarray, argument: str = "messages") -> tuple[np.ndarray, np.ndarray]:
    """A 2-D ``uint8`` array, one message per row, as flat ``(data, offsets)``."""
    if rows.dtype != np.uint8:
        raise TypeError(f"a 2-D {argument} array must have dtype uint8, got {rows.dtype}")
    if rows.ndim != 2:
        raise TypeError(f"{argument} must be a 2-D uint8 array, got {rows.ndim}-D")
    rows = np.ascontiguousarray(rows)
    count, width = rows.shape
    offsets = np.arange(count + 1, dtype=np.int64) * width
    return readonly(rows.reshape(-1)), readonly(offsets)


def flat_to_rows(
    data: np.ndarray, offsets: np.ndarray, width: int, argument: str, rule: str
) -> np.ndarray:
    """Flat messages that are all ``width`` bytes long as an ``(N, width)`` view of ``data``;
    ValueError naming the first of another length, and ``rule`` (what the caller requires)."""
    lengths = np.diff(offsets)
    wrong = np.flatnonzero(lengths != width)
    if wrong.size:
        row = int(wrong[0])
        raise ValueError(f"{argument}[{row}] is {int(lengths[row])} bytes; {rule}")
    start = int(offsets[0])
    count = lengths.shape[0]
    return data[start : start + count * width].reshape(count, width)
