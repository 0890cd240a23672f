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

import itertools

import numpy as np
import pyarrow as pa

from batchkeccak.inputs.flat import memory_span, readonly

__all__ = [
    "ViewValues",
    "fixed_as_views",
    "is_view",
    "view_flat",
    "view_places",
    "view_spans",
]

INLINE_BYTES = 12
"""Values of at most this many bytes lie inline, in their view."""

MAX_RUNS = 64
"""Values that lie back to back in at most this many runs (a Polars column's do, one run per
data buffer) are hashed as flat batches where they lie; more runs are copied back to back."""

MIN_RUN_VALUES = 64
"""Runs hold at least this many values on average to be hashed where they lie, each run by
itself: fewer would leave the tile's lanes empty (a run of one long value is one lane)."""


def is_view(arrow_type: pa.DataType) -> bool:
    """Whether ``arrow_type`` is ``binary_view`` or ``string_view``."""
    return pa.types.is_binary_view(arrow_type) or pa.types.is_string_view(arrow_type)


def _cpu(buffer: pa.Buffer, argument: str) -> pa.Buffer:
    if not buffer.is_cpu:
        raise TypeError(f"{argument} lives in device memory; copy it to the CPU first")
    return buffer


_NO_BITS = readonly(np.empty(0, dtype=np.uint8))


class _Views:
    """A view array's buffers, checked for size, as the kernels take them."""

    def __init__(self, array: pa.Array, argument: str) -> None:
        self.argument = argument
        count = self.count = len(array)
        buffers = array.buffers()
        validity, views_buffer = buffers[0], buffers[1]
        self.held: list[pa.Buffer] = []
        if count == 0:
            return
        data_buffers = [_cpu(b, argument) for b in buffers[2:] if b is not None]
        if len(data_buffers) != len(buffers) - 2:
            raise ValueError(f"{argument}: a variadic data buffer of the view array is missing")
        needed = 16 * (array.offset + count)
        if views_buffer is None or views_buffer.size < needed:
            size = 0 if views_buffer is None else views_buffer.size
            raise ValueError(
                f"{argument}: views buffer holds {size} bytes, too few for {count} views at "
                f"offset {array.offset}"
            )
        _cpu(views_buffer, argument)
        words = np.frombuffer(views_buffer, dtype="<i4", count=4 * (array.offset + count))
        self.words = readonly(words.reshape(-1, 4)[array.offset :])
        self.bits = _NO_BITS
        if array.null_count:
            if validity is None or validity.size * 8 < array.offset + count:
                raise ValueError(f"{argument}: validity bitmap too short for {count} values")
            self.bits = readonly(np.frombuffer(_cpu(validity, argument), dtype=np.uint8))
        self.bit_start = array.offset
        self.views_address = views_buffer.address + 16 * array.offset
        self.addresses = np.array([b.address for b in data_buffers], dtype=np.int64)
        self.sizes = np.array([b.size for b in data_buffers], dtype=np.int64)
        self.held = [views_buffer, *data_buffers]

    def arguments(self) -> tuple:
        """The arguments every view kernel starts with."""
        return (
            self.words,
            self.bits,
            self.bit_start,
            self.views_address,
            self.addresses,
            self.sizes,
        )

    def refuse(self, row: int) -> ValueError:
        """The error for value ``row``, whose view a kernel found leaving its buffer."""
        argument = self.argument
        size, index, offset = (int(w) for w in self.words[row, [0, 2, 3]])
        if size < 0:
            return ValueError(f"{argument}: value {row}'s view has a negative length ({size})")
        if not 0 <= index < self.sizes.shape[0]:
            return ValueError(
                f"{argument}: value {row}'s view names data buffer {index}, but the array "
                f"has {self.sizes.shape[0]}"
            )
        return ValueError(
            f"{argument}: value {row}'s view ({size} bytes at offset {offset}) leaves data "
            f"buffer {index} of {int(self.sizes[index])} bytes"
        )


def view_places(array: pa.Array, argument: str) -> tuple[np.ndarray, np.ndarray, list[pa.Buffer]]:
    """``(addresses, lengths, held)`` of every value of the view array ``array`` (a slice
    from ``array.offset``): int64 arrays of ``len(array)`` (a null is an empty value), and
    the buffers the addresses point into, which must be kept alive while they are read.
    One compiled pass (``_kernels.view_places``) checks every valid view against its buffer.

    Raises ValueError naming ``argument`` where the views buffer or the validity bitmap is
    too short, or a valid value's view leaves its buffer (an index past the variadic
    buffers, a negative length or offset, an end past the buffer's size)."""
    return _places(_Views(array, argument))


def _places(views: _Views) -> tuple[np.ndarray, np.ndarray, list[pa.Buffer]]:
    from batchkeccak.inputs import _kernels  # the compiled pass: loads numba

    count = views.count
    addresses = np.empty(count, dtype=np.int64)
    lengths = np.empty(count, dtype=np.int64)
    if count:
        total = _kernels.view_places(*views.arguments(), addresses, lengths)
        if total < 0:
            raise views.refuse(-1 - int(total))
    return addresses, lengths, views.held


class ViewValues:
    """The checked places of a view array's values, read where they lie as a few flat runs
    (:meth:`run_batches`), each value where it lies (:meth:`spans`), or copied back to back
    (:meth:`flat`).

    One compiled pass (``_kernels.view_runs``) checks every view against its buffer and
    finds the runs of values that lie back to back (a Polars column's values do, one run a
    data buffer); where there are too many, a second (``_kernels.view_places``) records
    each value's place, as do :meth:`spans` and :meth:`flat` where they are asked for.
    Raises ValueError as :func:`view_places` does."""

    def __init__(self, array: pa.Array, argument: str) -> None:
        from batchkeccak.inputs import _kernels  # the compiled pass: loads numba

        views = self._views = _Views(array, argument)
        self.held = views.held
        self.low = min((b.address for b in self.held), default=0)
        self._places: tuple[np.ndarray, np.ndarray] | None = None
        self.runs: np.ndarray | None = None
        """The first row of each run of values that lie back to back, or None where there
        are more than :data:`MAX_RUNS` (:meth:`run_batches`)."""
        self.total = 0
        """The values' total size."""
        count = views.count
        if count == 0:
            self.runs = self._offsets = np.zeros(0, dtype=np.int64)
            return
        offsets = np.empty(count + MAX_RUNS, dtype=np.int64)
        runs = np.empty(MAX_RUNS, dtype=np.int64)
        total, found = _kernels.view_runs(*views.arguments(), self.low, offsets, runs)
        if total < 0:
            raise views.refuse(-1 - int(total))
        if found <= MAX_RUNS:
            self.total = int(total)
            self.runs, self._offsets = runs[:found], offsets
        else:
            self.total = int(self.places()[1].sum())

    def places(self) -> tuple[np.ndarray, np.ndarray]:
        """``(addresses, lengths)`` of every value (:func:`view_places`), measured once."""
        if self._places is None:
            addresses, lengths, _ = _places(self._views)
            self._places = addresses, lengths
        return self._places

    def _data(self) -> np.ndarray:
        if not self.held:
            return np.empty(0, dtype=np.uint8)
        high = max(b.address + b.size for b in self.held)
        return memory_span(self.low, high - self.low, self.held)

    def run_batches(
        self, whole: bool = False
    ) -> list[tuple[int, int, np.ndarray, np.ndarray]] | None:
        """``(first row, end row, data, offsets)`` of each run of values that lie back to
        back, read where they lie as a flat batch (read-only ``offsets`` into the read-only
        ``data`` that holds the array's buffers); None where there are more than
        :data:`MAX_RUNS` runs, fewer than :data:`MIN_RUN_VALUES` values a run, or (with
        ``whole=True``, for a batch that must be one call) more than one run. Any rows
        ``a..b`` of a run are a flat batch too: ``offsets[a - first : b - first + 1]``."""
        runs = self.runs
        count = self._views.count
        if runs is None or runs.shape[0] * MIN_RUN_VALUES > count:
            return None
        if whole and runs.shape[0] > 1:
            return None
        data = self._data()
        offsets = readonly(self._offsets)
        bounds = [*runs.tolist(), count]
        return [
            (a, b, data, offsets[a + k : b + k + 1])
            for k, (a, b) in enumerate(itertools.pairwise(bounds))
        ]

    def spans(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """``(data, starts, ends)``: value ``i`` is ``data[starts[i]:ends[i]]`` (empty for a
        null), ``data`` a read-only uint8 array over the memory range that holds the array's
        buffers (its base keeps them alive)."""
        addresses, lengths = self.places()
        starts = addresses - self.low
        ends = starts + lengths
        for part in (starts, ends):
            part.flags.writeable = False
        return self._data(), starts, ends

    def flat(self, rows: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray, bool]:
        """``(data, offsets, equal)``: the values (of ``rows`` only, where given) copied
        back to back (one compiled pass, short values in words), int64 offsets of one entry
        more than the values (a null is empty), and whether every value has the same
        length."""
        from batchkeccak.inputs import _kernels  # the compiled copy: loads numba

        addresses, lengths = self.places()
        total = self.total
        if rows is not None:
            addresses, lengths = addresses[rows], lengths[rows]
            total = int(lengths.sum())
        offsets = np.empty(lengths.shape[0] + 1, dtype=np.int64)
        data = np.empty(total, dtype=np.uint8)
        # self.held keeps the buffers for the copy.
        equal = bool(_kernels.gather_places(addresses, lengths, offsets, data))
        return data, offsets, equal


def view_spans(array: pa.Array, argument: str) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """:meth:`ViewValues.spans` of the view array ``array``: its values read where they
    lie."""
    return ViewValues(array, argument).spans()


def view_flat(array: pa.Array, argument: str) -> tuple[np.ndarray, np.ndarray]:
    """The view array ``array``'s values as flat ``(data, offsets)``: where they lie when
    they lie back to back in one run, else copied back to back (:meth:`ViewValues.flat`)."""
    values = ViewValues(array, argument)
    batches = values.run_batches(whole=True)
    if batches is not None:
        for _, _, data, offsets in batches:
            return data, offsets
    data, offsets, _ = values.flat()
    return data, offsets


def fixed_as_views(values: pa.Array) -> pa.Array | None:
    """A ``fixed_size_binary`` array (digests) as a ``binary_view`` array over the same data
    buffer: only the views are written (one compiled pass), so that Polars, which keeps its
    ``Binary`` columns as views, takes the column without a copy. None for another array
    (another type, a slice, over 2 GiB of values): the caller casts it instead."""
    from batchkeccak.inputs import _kernels  # the compiled pass: loads numba

    if not pa.types.is_fixed_size_binary(values.type) or values.offset:
        return None
    count, width = len(values), values.type.byte_width
    validity, data = values.buffers()
    if count * width >= 1 << 31 or data is None or not data.is_cpu or data.size < count * width:
        return None
    rows = np.frombuffer(data, dtype=np.uint8, count=count * width).reshape(count, width)
    views = np.empty((count, 4), dtype=np.int32)
    _kernels.fixed_views(rows, views)
    buffers = [validity, pa.py_buffer(views), data.slice(0, count * width)]
    return pa.Array.from_buffers(pa.binary_view(), count, buffers, values.null_count)
