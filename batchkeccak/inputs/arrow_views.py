"""Arrow view arrays (``binary_view`` / ``string_view``) read where their values lie.

Part of the input boundary (:mod:`batchkeccak.inputs`). A view array holds one 16-byte view
per value: its length (int32) first; a value of at most 12 bytes follows inline, in the view
itself; a longer one is at ``offset`` (int32) in the variadic data buffer ``buffer_index``
(int32), after a 4-byte prefix. Polars keeps its ``String`` and ``Binary`` columns so, and
exports them so with ``compat_level=pl.CompatLevel.newest()``.

:func:`view_places` turns the views into the place (address, length) of every value, each
checked against the size of the buffer it lies in (a bad buffer index, a negative length or
a value past its buffer's end is a ValueError, never a read outside); :func:`view_spans`
gives them as ``(data, starts, ends)`` for the in-place path
(:func:`batchkeccak.core.hashers.hash_places` and the tree modes' ``hash_places``), and
:func:`view_flat` copies the values back to back (one compiled pass, no pyarrow cast) for
short values and the modes that frame their messages. A null's view may hold anything: its
place is an empty value at the views buffer's start.
"""

from __future__ import annotations

import numpy as np
import pyarrow as pa

__all__ = ["is_view", "view_flat", "view_places", "view_spans"]

INLINE_BYTES = 12
"""Values of at most this many bytes lie inline, in their view."""


def is_view(arrow_type: pa.DataType) -> bool:
    """Whether ``arrow_type`` is ``binary_view`` or ``string_view``."""
    return pa.types.is_binary_view(arrow_type) or pa.types.is_string_view(arrow_type)


def _cpu(buffer: pa.Buffer, argument: str) -> pa.Buffer:
    if not buffer.is_cpu:
        raise TypeError(f"{argument} lives in device memory; copy it to the CPU first")
    return buffer


def view_places(array: pa.Array, argument: str) -> tuple[np.ndarray, np.ndarray, list[pa.Buffer]]:
    """``(addresses, lengths, held)`` of every value of the view array ``array`` (a slice
    from ``array.offset``): int64 arrays of ``len(array)``, and the buffers the addresses
    point into, which must be kept alive while they are read.

    Raises ValueError naming ``argument`` where the views buffer is too short or a valid
    value's view leaves its buffer (an index past the variadic buffers, a negative length or
    offset, an end past the buffer's size)."""
    count = len(array)
    buffers = array.buffers()
    validity, views_buffer = buffers[0], buffers[1]
    data_buffers = [_cpu(b, argument) for b in buffers[2:] if b is not None] if count else []
    if len(data_buffers) != len(buffers) - 2:
        raise ValueError(f"{argument}: a variadic data buffer of the view array is missing")
    empty = np.zeros(count, dtype=np.int64)
    if count == 0:
        return empty, empty.copy(), []
    needed = 16 * (array.offset + count)
    if views_buffer is None or views_buffer.size < needed:
        size = 0 if views_buffer is None else views_buffer.size
        raise ValueError(
            f"{argument}: views buffer holds {size} bytes, too few for {count} views at "
            f"offset {array.offset}"
        )
    _cpu(views_buffer, argument)
    words = np.frombuffer(views_buffer, dtype="<i4", count=4 * (array.offset + count))
    words = words.reshape(-1, 4)[array.offset :]
    lengths = words[:, 0].astype(np.int64)
    valid = None
    if array.null_count:
        bits = np.frombuffer(validity, dtype=np.uint8)
        valid = np.unpackbits(bits, bitorder="little", count=array.offset + count)
        valid = valid[array.offset :].astype(bool)
        lengths[~valid] = 0  # a null's view may hold anything
    if int(lengths.min()) < 0:
        row = int(np.argmax(lengths < 0))
        raise ValueError(f"{argument}: value {row}'s view has a negative length")
    views_address = views_buffer.address + 16 * array.offset
    addresses = views_address + 16 * np.arange(count, dtype=np.int64) + 4
    outside = lengths > INLINE_BYTES
    if outside.any():
        rows = np.flatnonzero(outside)
        index = words[rows, 2].astype(np.int64)
        offset = words[rows, 3].astype(np.int64)
        sizes = np.array([b.size for b in data_buffers] + [0], dtype=np.int64)
        places = np.array([b.address for b in data_buffers] + [0], dtype=np.int64)
        bad = (index < 0) | (index >= len(data_buffers))
        if bad.any():
            row = int(rows[np.argmax(bad)])
            raise ValueError(
                f"{argument}: value {row}'s view names data buffer {int(words[row, 2])}, "
                f"but the array has {len(data_buffers)}"
            )
        past = (offset < 0) | (offset + lengths[rows] > sizes[index])
        if past.any():
            at = int(np.argmax(past))
            row = int(rows[at])
            raise ValueError(
                f"{argument}: value {row}'s view ({int(lengths[row])} bytes at offset "
                f"{int(offset[at])}) leaves data buffer {int(index[at])} of "
                f"{int(sizes[index[at]])} bytes"
            )
        addresses[rows] = places[index] + offset
    return addresses, lengths, [views_buffer, *data_buffers]


class _Span:
    """Numpy's array interface over ``size`` bytes of memory from ``address``: the range
    that holds every buffer of ``held`` (a view array's views and data buffers, kept alive
    by the array that this object is the base of). Nothing in the range is read but the
    values' own bytes: the kernels check their places against its size."""

    def __init__(self, address: int, size: int, held: list[pa.Buffer]) -> None:
        self.held = held
        self.__array_interface__ = {
            "data": (address, True),  # read-only
            "shape": (size,),
            "typestr": "|u1",
            "version": 3,
        }


def view_spans(array: pa.Array, argument: str) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``(data, starts, ends)`` of the view array's values, read where they lie: value ``i``
    is ``data[starts[i]:ends[i]]`` (empty for a null), ``data`` a read-only uint8 array over
    the memory range that holds the array's buffers (its base keeps them alive)."""
    addresses, lengths, held = view_places(array, argument)
    if not held:
        empty = np.zeros(0, dtype=np.int64)
        return np.empty(0, dtype=np.uint8), empty, empty
    low = min(b.address for b in held)
    high = max(b.address + b.size for b in held)
    data = np.asarray(_Span(low, high - low, held))
    starts = addresses - low
    ends = starts + lengths
    for part in (starts, ends):
        part.flags.writeable = False
    return data, starts, ends


def view_flat(array: pa.Array, argument: str) -> tuple[np.ndarray, np.ndarray]:
    """``(data, offsets)`` of the view array's values copied back to back (one compiled
    pass over the checked places), int64 offsets of ``len(array) + 1`` entries; a null is
    empty."""
    from batchkeccak.inputs import _kernels  # the compiled copy: loads numba

    addresses, lengths, held = view_places(array, argument)
    offsets = np.zeros(lengths.shape[0] + 1, dtype=np.int64)
    np.cumsum(lengths, out=offsets[1:])
    data = np.empty(int(offsets[-1]), dtype=np.uint8)
    if data.shape[0]:
        _kernels.gather(addresses, offsets, data)
    del held  # the buffers may go only after the copy
    return data, offsets
