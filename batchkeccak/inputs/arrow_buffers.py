"""Arrow binary and string arrays as flat ``(data, offsets)``, read in place.

Part of the input boundary (:mod:`batchkeccak.inputs`): the integrations (``batchkeccak.arrow``,
``parquet``, ``dask``) and ``hash_many`` all read Arrow memory through these functions, which
return views under the boundary's contract. Offsets are always copied (a few bytes per value)
so that nothing another thread does to the caller's buffers reaches the kernels.
"""

from __future__ import annotations

import numpy as np
import pyarrow as pa

from batchkeccak.inputs.arrow_producers import ColumnStream, arrow_column
from batchkeccak.inputs.arrow_types import normalize, type_rule
from batchkeccak.inputs.arrow_views import is_view, view_flat
from batchkeccak.inputs.flat import check_flat, readonly

__all__ = [
    "ACCEPTED_TYPES",
    "binary_buffers",
    "buffer_as_uint8",
    "check_hashable_type",
    "is_value_type",
    "value_buffers",
]

ACCEPTED_TYPES = (
    "binary, large_binary, string, large_string, binary_view, string_view, "
    "fixed_size_binary, or a dictionary of one of those"
)


def is_value_type(arrow_type: pa.DataType) -> bool:
    """Whether ``hash_array`` hashes values of this type (the type table's ``values``); not
    a dictionary, which :func:`check_hashable_type` looks through."""
    rule = type_rule(arrow_type)
    return rule is not None and rule.values and not pa.types.is_dictionary(arrow_type)


def check_hashable_type(arrow_type: pa.DataType, argument: str, function: str) -> None:
    rule = type_rule(arrow_type)
    if rule is not None and rule.values:
        return
    hint = ""
    if isinstance(arrow_type, pa.BaseExtensionType):
        hint = f" ({arrow_type} is an extension type: pass {argument}.storage to hash its storage)"
    raise TypeError(
        f"{function}: {argument} has type {arrow_type}; expected {ACCEPTED_TYPES}{hint}"
    )


_NO_BYTES = readonly(np.empty(0, dtype=np.uint8))
"""The data of an array without a data buffer (every value empty): read-only, like every
other buffer read here, so that the kernels see one array type."""


def buffer_as_uint8(buffer: pa.Buffer | None, argument: str) -> np.ndarray:
    if buffer is None:
        return _NO_BYTES
    if not buffer.is_cpu:
        raise TypeError(f"{argument} lives in device memory; copy it to the CPU first")
    return np.frombuffer(buffer, dtype=np.uint8)


def value_buffers(array: pa.Array, argument: str) -> tuple[np.ndarray, np.ndarray]:
    """The values of a non-dictionary binary-like array as validated (data, offsets).

    Null slots are included (Arrow keeps their offsets valid; their bytes are whatever the
    producer left there); callers decide what a null's digest becomes.
    """
    count = len(array)
    if is_view(array.type):
        # Views point anywhere into several buffers, or hold short values inline: each
        # checked against its buffer and copied back to back in one compiled pass (no cast).
        return check_flat(*view_flat(array, argument))
    array = normalize(array, offsets=True)  # a dictionary of views, say
    arrow_type = array.type
    if count == 0:
        return check_flat(np.empty(0, dtype=np.uint8), np.zeros(1, dtype=np.int64))
    if pa.types.is_fixed_size_binary(arrow_type):
        width = arrow_type.byte_width
        data = buffer_as_uint8(array.buffers()[1], argument)
        start = array.offset * width
        if data.shape[0] < start + count * width:
            raise ValueError(
                f"{argument}: data buffer holds {data.shape[0]} bytes, too few for "
                f"{count} values of {width} bytes at offset {array.offset}"
            )
        offsets = np.arange(count + 1, dtype=np.int64) * width + start
        return check_flat(data, offsets)
    offsets_buffer, data_buffer = array.buffers()[1:3]
    offset_type = np.int64 if arrow_type in (pa.large_binary(), pa.large_string()) else np.int32
    needed = array.offset + count + 1
    if offsets_buffer is None or offsets_buffer.size < needed * np.dtype(offset_type).itemsize:
        raise ValueError(
            f"{argument}: offsets buffer too short for {count} values at offset {array.offset}"
        )
    # Only this array's window of the offsets: a slice shares its parent's buffers.
    offsets = np.frombuffer(offsets_buffer, dtype=offset_type, count=needed)[array.offset :]
    return check_flat(buffer_as_uint8(data_buffer, argument), offsets)


def binary_buffers(values: object, argument: str = "values") -> tuple[np.ndarray, np.ndarray]:
    """A null-free Arrow binary or string column as flat ``(data, offsets)`` for the sponge.

    This is how :func:`batchkeccak.hash_many` reads pyarrow input: one digest per value, so
    nulls are refused rather than given a digest.

    Parameters
    ----------
    values
        ``pa.Array`` or ``pa.ChunkedArray`` of one of the types :func:`hash_array` accepts,
        or any object that exports such a column (or a table of one such column) through the
        Arrow PyCapsule interface.
    argument
        The caller's name for ``values``, used in error messages.

    Returns
    -------
    tuple of numpy.ndarray
        Read-only uint8 data and int64 offsets (N + 1 entries), value ``i`` being
        ``data[offsets[i]:offsets[i+1]]``. A single chunk's buffers are used in place; several
        chunks (or a stream's batches), view types and dictionaries are copied into one buffer
        (a view array's values straight from where they lie, each checked, with no cast).

    Raises
    ------
    TypeError
        ``values`` is not an Arrow column, or has another type.
    ValueError
        ``values`` holds nulls.
    """
    values = arrow_column(values, argument, "hash_many")
    check_hashable_type(values.type, argument, "hash_many")
    if isinstance(values, (pa.ChunkedArray, ColumnStream)):
        chunks = list(values.chunks)
    else:
        chunks = [values]
    # Decoded first: a dictionary's nulls may sit in its values, which null_count omits.
    chunks = [normalize(c) for c in chunks]
    null_count = sum(chunk.null_count for chunk in chunks)
    if null_count:
        raise ValueError(
            f"{argument} holds {null_count} null(s), and hash_many returns one digest "
            "per value with no way to mark a null: use batchkeccak.arrow.hash_array, which "
            "keeps nulls, or fill them first (pyarrow.compute.fill_null)"
        )
    parts = [value_buffers(chunk, argument) for chunk in chunks if len(chunk)]
    if not parts:
        return check_flat(np.empty(0, dtype=np.uint8), np.zeros(1, dtype=np.int64))
    if len(parts) == 1:
        return parts[0]
    data = np.concatenate([d[o[0] : o[-1]] for d, o in parts])
    lengths = np.concatenate([np.diff(o) for _, o in parts])
    offsets = np.zeros(lengths.shape[0] + 1, dtype=np.int64)
    np.cumsum(lengths, out=offsets[1:])
    return check_flat(data, offsets)
