"""Hash Arrow data: a digest per value (``hash_array``), per row (``hash_rows``), and compute
functions for pyarrow, datasets and Acero (``register``).

Three layers, as in a column adapter: the sponge hashes flat ``(data, offsets)`` buffers;
:func:`batchkeccak.inputs.arrow_buffers.value_buffers` reads those buffers out of one Arrow
array without copying them; the public functions add validity, chunking, dictionaries and
output types around it. The compiled parts (digests as hex characters, the row encoding's
fields) are in :mod:`batchkeccak._kernels`.

Everything here is zero-copy on the input side except where Arrow's layout does not keep a
column's values back to back: ``binary_view`` / ``string_view`` (values are gathered into one
buffer first), dictionaries sliced to fewer rows than their dictionary (decoded first) and
``binary_buffers`` over several chunks (``hash_many`` needs one buffer).
"""

from __future__ import annotations

import sys
import threading
from collections.abc import Sequence
from functools import partial
from types import MappingProxyType

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from batchkeccak._kernels import encode_field, encode_shallow_field, hex_bytes
from batchkeccak.api import hasher
from batchkeccak.core import parallel
from batchkeccak.core.hashers import Hasher, hash_places
from batchkeccak.core.parameters import (
    Algorithm,
    algorithms,
    canonical_name,
    did_you_mean,
)
from batchkeccak.derived.mode_hashers import (
    TREE_IN_PLACE_BYTES,
    TREE_LIST_MAX,
    TreeHasher,
    hash_chunks,
)
from batchkeccak.inputs import FlatMessages, check_flat, readonly
from batchkeccak.inputs.arrow_buffers import (
    binary_buffers,
    buffer_as_uint8,
    check_hashable_type,
    value_buffers,
)
from batchkeccak.inputs.arrow_producers import (
    ColumnStream,
    arrow_column,
    arrow_table,
    releases_on_error,
)
from batchkeccak.inputs.arrow_types import normalize, type_rule
from batchkeccak.inputs.arrow_views import ViewValues, is_view
from batchkeccak.inputs.flat import IN_PLACE_MIN_BYTES

__all__ = [
    "COMPUTE_XOF_LENGTHS",
    "binary_buffers",
    "compute_expression",
    "digest_array",
    "hash_array",
    "hash_rows",
    "register",
]

_MAX_STRING_BYTES = 2**31 - 1
"""``string`` arrays address their characters with int32 offsets."""

_HEX_ROWS_PER_THREAD = 16 * 1024
"""Fewer digests than this per extra thread are written out faster by one thread."""


# ---------------------------------------------------------------------------------------------
# Validity


def _validity(array: pa.Array) -> tuple[pa.Buffer | None, np.ndarray | None]:
    """The array's validity as a buffer starting at bit 0, and as a bool mask (None if no nulls)."""
    if array.null_count == 0:
        return None, None
    count = len(array)
    bitmap = array.buffers()[0]
    if bitmap is None:  # the null type: nulls without a bitmap
        mask = np.zeros(count, dtype=bool)
        return pa.py_buffer(np.packbits(mask, bitorder="little")), mask
    bits = np.frombuffer(bitmap, dtype=np.uint8)
    first_byte, first_bit = divmod(array.offset, 8)
    mask = np.unpackbits(bits[first_byte:], count=first_bit + count, bitorder="little")
    mask = mask[first_bit:].astype(bool)
    if first_bit == 0:
        buffer = bitmap.slice(first_byte, (count + 7) // 8)
    else:
        # Output arrays start at offset 0, so a bitmap not on a byte boundary is shifted once.
        buffer = pa.py_buffer(np.packbits(mask, bitorder="little"))
    return buffer, mask


# ---------------------------------------------------------------------------------------------
# Columns


def _digest_array(digests: np.ndarray, validity: pa.Buffer | None, null_count: int) -> pa.Array:
    count, width = digests.shape
    return pa.Array.from_buffers(
        pa.binary(width), count, [validity, pa.py_buffer(digests.reshape(-1))], null_count
    )


def _hex_array(
    digests: np.ndarray, validity: pa.Buffer | None, null_count: int, threads: int = 1
) -> pa.Array:
    count, width = digests.shape
    if count * 2 * width > _MAX_STRING_BYTES:
        raise ValueError(
            f"hex output of {count:,} digests would exceed the 2 GiB a string array can hold; "
            "pass a ChunkedArray (each chunk becomes its own string array) or use hex=False"
        )
    characters = np.empty(count * 2 * width, dtype=np.uint8)
    parts = min(threads, max(1, count // _HEX_ROWS_PER_THREAD))
    if parts == 1:
        hex_bytes(np.array([0, count * width], dtype=np.int64), digests.reshape(-1), characters)
    else:
        spans = [
            np.array([a * width, b * width], dtype=np.int64)
            for a, b in parallel.split_ranges(0, count, parts)
        ]
        parallel.run_parallel(hex_bytes, spans, digests.reshape(-1), characters)
    return pa.Array.from_buffers(
        pa.string(),
        count,
        [validity, _step_offsets(count, 2 * width), pa.py_buffer(characters)],
        null_count,
    )


def digest_array(digests: np.ndarray, *, hex: bool = False, threads: int | None = None) -> pa.Array:
    """Digests computed elsewhere (an ``(N, d)`` uint8 array, from ``hash_many`` say) as the
    column :func:`hash_array` would return: ``fixed_size_binary(d)`` over the same memory, or
    lowercase hex ``string`` with ``hex=True``. No value is null.
    """
    digests = np.asarray(digests)
    if digests.ndim != 2 or digests.dtype != np.uint8:
        raise TypeError(
            f"digests must be an (N, d) uint8 array, got {digests.ndim}-D {digests.dtype}"
        )
    digests = np.ascontiguousarray(digests)
    if hex:
        return _hex_array(digests, None, 0, parallel.resolve_threads(threads))
    return _digest_array(digests, None, 0)


def _valid_rows(array: pa.Array) -> np.ndarray | None:
    """A bool mask of the rows that are not null, or None when none is.

    For a dictionary array a row is also null where its index points at a null dictionary
    entry (Arrow's ``null_count`` counts only null indices).
    """
    _, mask = _validity(array)
    if pa.types.is_dictionary(array.type) and array.dictionary.null_count:
        dictionary_valid = pc.is_valid(array.dictionary).to_numpy(zero_copy_only=False)
        indices = array.indices.fill_null(0).to_numpy(zero_copy_only=False)
        entry_valid = dictionary_valid[indices]
        mask = entry_valid if mask is None else mask & entry_valid
    return mask


def _digests_of_chunk(array: pa.Array, resolved: Hasher, argument: str) -> np.ndarray:
    """(N, output_length) digests of every row of one chunk; rows that are null get zeros."""
    count = len(array)
    digests = np.zeros((count, resolved.output_length), dtype=np.uint8)
    if array.null_count == count:
        return digests
    if pa.types.is_dictionary(array.type):
        dictionary = array.dictionary
        if resolved.batch_size is not None:
            # One key per row: rows sharing a value still differ in their keys.
            return _digests_of_chunk(normalize(array), resolved, argument)
        if len(dictionary) > count:
            # A slice of a large dictionary array: decoding the few values used is cheaper.
            return _digests_of_chunk(normalize(array), resolved, argument)
        # Each distinct value is hashed once; rows then copy their value's digest.
        distinct = _digests_of_chunk(dictionary, resolved, argument)
        indices = array.indices.fill_null(0).to_numpy(zero_copy_only=False)
        np.take(distinct, indices, axis=0, out=digests)
    elif is_view(array.type):
        _hash_views(array, resolved, argument, digests)
    else:
        data, offsets = value_buffers(array, argument)
        resolved.hash_flat(data, offsets, out=digests)
    valid = _valid_rows(array)
    if valid is not None:
        # Null slots hold whatever bytes the producer left there: their digests are not kept.
        digests[~valid] = 0
    return digests


def _hash_views(array: pa.Array, resolved: Hasher, argument: str, out: np.ndarray) -> None:
    """The digests of a view array's values (``binary_view`` / ``string_view``) into ``out``.

    Values that lie back to back in a few runs (a Polars column's do, one run a data buffer)
    are hashed as flat batches where they lie, one a run. Otherwise, values of
    :data:`~batchkeccak.inputs.flat.IN_PLACE_MIN_BYTES` and more on average are read where
    they lie (a plain sponge through ``hash_places``, a tree mode's leaves from every value
    sharing the tiles through its own ``hash_places``), as a list of long ``bytes`` is;
    shorter ones, and the modes that take no places, are copied back to back first (one
    compiled pass over the checked views). Null rows are left as they are."""
    values = ViewValues(array, argument)
    batches = values.run_batches(whole=resolved.batch_size is not None)
    if batches is not None:
        _hash_runs(batches, resolved, values.total, out)
        return
    digests = rows = None
    long = values.total >= IN_PLACE_MIN_BYTES * len(array)
    mode_places = None if resolved.plain_sponge else getattr(resolved, "hash_places", None)
    if resolved.batch_size is None and ((resolved.plain_sponge and long) or mode_places):
        data, starts, ends = values.spans()
        valid = _valid_rows(array)
        if valid is not None:
            rows = np.flatnonzero(valid)
            starts, ends = starts[rows], ends[rows]
        if starts.shape[0] == 0:
            return
        if mode_places is None:
            digests = hash_places(resolved, data, starts, ends)
        else:
            digests = mode_places(data, starts, ends)
        del data
    if digests is None and _long_tree_values(values, resolved, argument, out):
        return
    if digests is None:
        data, offsets, equal = values.flat()
        resolved.hash_flat(data, readonly(offsets), out=out, equal_lengths=equal)
    elif rows is None:
        out[:] = digests
    else:
        out[rows] = digests


def _hash_runs(
    batches: list[tuple[int, int, np.ndarray, np.ndarray]],
    resolved: Hasher,
    total: int,
    out: np.ndarray,
) -> None:
    """Runs of values lying back to back, each a flat batch where it lies: one after
    another where one thread takes the work; else cut into pieces of about equal bytes
    (whole values, a few per thread) that the threads take in turn, one thread a piece, so
    that small runs keep no thread waiting."""
    count = out.shape[0]
    threads = resolved.executor.threads_for(count, total) if len(batches) > 1 else 1
    if threads <= 1:
        for first, end, data, offsets in batches:
            resolved.hash_flat(data, offsets, out=out[first:end])
        return
    piece = max(1, total // (threads * parallel.CHUNKS_PER_THREAD))
    pieces = []
    for first, end, data, offsets in batches:
        size = int(offsets[-1]) - int(offsets[0])
        for a, b in parallel.split_ranges(0, end - first, -(-size // piece)):
            pieces.append((first + a, first + b, data, offsets[a : b + 1]))
    one = resolved.with_threads(1)

    def hash_piece(item: tuple[int, int, np.ndarray, np.ndarray]) -> None:
        first, end, data, offsets = item
        one.hash_flat(data, offsets, out=out[first:end])

    parallel.run_parallel(hash_piece, pieces, workers=threads)


def _long_tree_values(values: ViewValues, resolved: Hasher, argument: str, out: np.ndarray) -> bool:
    """A few values of a tree mode without places of its own (ParallelHash), as
    :meth:`TreeHasher.hash_list <batchkeccak.derived.mode_hashers.TreeHasher.hash_list>`
    takes a list: each value of ``TREE_IN_PLACE_BYTES`` or more hashed where it lies, its
    chunks filling the tiles on their own, the others copied into one batch. False, having
    done nothing, for any other batch."""
    count = out.shape[0]
    if not isinstance(resolved, TreeHasher) or count > TREE_LIST_MAX:
        return False
    if resolved.batch_size is not None:
        return False
    data, starts, ends = values.spans()
    long = np.flatnonzero(ends - starts >= TREE_IN_PLACE_BYTES)  # a null is empty
    if long.shape[0] == 0:
        return False
    for i in long.tolist():
        message = data[int(starts[i]) : int(ends[i])]
        out[i] = np.frombuffer(resolved.hash_message(message, f"{argument}[{i}]"), np.uint8)
    rest = np.setdiff1d(np.arange(count), long)
    if rest.shape[0]:
        flat, offsets, equal = values.flat(rest)
        out[rest] = resolved.hash_flat(flat, readonly(offsets), equal_lengths=equal)
    return True


_OFFSET_TYPES: dict[int, np.dtype] = {
    pa.binary().id: np.dtype(np.int32),
    pa.string().id: np.dtype(np.int32),
    pa.large_binary().id: np.dtype(np.int64),
    pa.large_string().id: np.dtype(np.int64),
}
_BINARY = pa.binary()


def hash_in_place(
    array: pa.Array, hash_batch, width: int, hex: bool, binary: bool = True, threads: int = 1
) -> pa.Array | None:
    """The digests of a plain binary or string array, its buffers read in place by
    ``hash_batch(data, offsets, out)`` (a :meth:`Hasher.one_call` kernel, or
    :meth:`Executor.hash_in_one_call <batchkeccak.core.executor.Executor.hash_in_one_call>`
    with that hasher's ``one_call``, which may decline by returning False); None where the
    array is of another type or ``hash_batch`` declines. Nulls stay null.

    The path of an engine that calls once per vector: a few numpy and pyarrow calls around
    one kernel call. Returns ``binary`` digests (``fixed_size_binary`` with
    ``binary=False``), or ``string`` hex with ``hex=True``.
    """
    offset_type = _OFFSET_TYPES.get(array.type.id)
    if offset_type is None:
        return None
    count = len(array)
    _, offsets_buffer, data_buffer = array.buffers()
    start = array.offset * offset_type.itemsize
    if offsets_buffer is None or offsets_buffer.size < start + (count + 1) * offset_type.itemsize:
        return None  # the checked path says what is wrong
    offsets = np.frombuffer(offsets_buffer, dtype=offset_type, count=count + 1, offset=start)
    digests = np.empty((count, width), dtype=np.uint8)
    if hash_batch(buffer_as_uint8(data_buffer, "values"), offsets, digests) is False:
        return None
    validity, valid = _validity(array)
    null_count = array.null_count
    if valid is not None:
        # Null slots hold whatever bytes the producer left there: their digests are not kept.
        digests[~valid] = 0
    if hex:
        return _hex_array(digests, validity, null_count, threads)
    if not binary or count * width > _MAX_STRING_BYTES:
        fixed = _digest_array(digests, validity, null_count)
        return fixed if not binary else as_binary(fixed)
    return pa.Array.from_buffers(
        _BINARY, count, [validity, _step_offsets(count, width), pa.py_buffer(digests)], null_count
    )


def hash_chunk(
    array: pa.Array, resolved: Hasher, hex: bool, argument: str, binary: bool = False
) -> pa.Array:
    """:func:`hash_array` of one plain array with the algorithm already resolved
    (``resolved``), for the engines that call once per small batch (a Spark batch, a DuckDB
    vector); ``argument`` is the name errors give the array; ``binary`` digests instead of
    ``fixed_size_binary`` with ``binary=True``."""
    in_place = hash_in_place(
        array,
        partial(resolved.executor.hash_in_one_call, resolved.one_call),
        resolved.output_length,
        hex,
        binary,
        resolved.threads,
    )
    if in_place is not None:
        return in_place
    digests = _digests_of_chunk(array, resolved, argument)
    dictionary_nulls = pa.types.is_dictionary(array.type) and array.dictionary.null_count
    valid = _valid_rows(array) if dictionary_nulls else None
    if valid is not None:
        null_count = int(valid.shape[0] - np.count_nonzero(valid))
        validity = pa.py_buffer(np.packbits(valid, bitorder="little")) if null_count else None
    else:
        validity, _ = _validity(array)
        null_count = array.null_count
    if hex:
        return _hex_array(digests, validity, null_count, resolved.threads)
    fixed = _digest_array(digests, validity, null_count)
    return as_binary(fixed) if binary else fixed


_STEP_OFFSETS: dict[int, pa.Buffer] = {}
"""Per width, int32 offsets ``0, width, 2 * width...`` for the longest array seen so far."""


def _step_offsets(count: int, width: int) -> pa.Buffer:
    """int32 offsets of ``count`` values of ``width`` bytes each (``count * width`` must
    fit in int32), shared between calls: an engine calls once per small batch."""
    cached = _STEP_OFFSETS.get(width)
    if cached is None or cached.size < 4 * (count + 1):
        if len(_STEP_OFFSETS) >= 64:  # lengths that vary by row: keep the cache bounded
            _STEP_OFFSETS.clear()
        cached = pa.py_buffer(np.arange(count + 1, dtype=np.int32) * np.int32(width))
        _STEP_OFFSETS[width] = cached
    return cached.slice(0, 4 * (count + 1))


def as_binary(digests: pa.Array) -> pa.Array:
    """A ``fixed_size_binary`` column as ``binary`` (``large_binary`` past 2 GiB) over the
    same bytes: only offsets are added, and those are shared between calls.

    DuckDB converts a returned ``binary`` column into its ``BLOB`` vectors faster than a
    ``fixed_size_binary`` one, by a good part of what a small batch costs in all.
    """
    count, width = len(digests), digests.type.byte_width
    validity, _ = _validity(digests)
    data = digests.buffers()[1].slice(digests.offset * width, count * width)
    if count * width > _MAX_STRING_BYTES:
        binary_type = pa.large_binary()
        offsets = pa.py_buffer(np.arange(count + 1, dtype=np.int64) * width)
    else:
        binary_type, offsets = pa.binary(), _step_offsets(count, width)
    return pa.Array.from_buffers(binary_type, count, [validity, offsets, data], digests.null_count)


@releases_on_error
def hash_array(
    values: object,
    algorithm: str | Algorithm | Hasher = "sha3_256",
    *,
    length: int | None = None,
    hex: bool = False,
    threads: int | None = None,
    **params: object,
) -> pa.Array | pa.ChunkedArray:
    """Hash every value of an Arrow column; nulls stay null.

    Parameters
    ----------
    values
        ``pa.Array`` or ``pa.ChunkedArray`` of binary, large_binary, string, large_string,
        binary_view, string_view or fixed_size_binary, or a dictionary array of those. Strings
        hash their UTF-8 bytes. Any object exporting the Arrow PyCapsule interface (a Polars
        or pandas Series, a nanoarrow or arro3 array) is read through it without copying; a
        table of one column (a DuckDB relation of one column) is that column, and a stream of
        record batches is hashed one batch at a time.
    algorithm
        A name from ``batchkeccak.algorithms`` (``sha3_256``, ``keccak_256``, ``shake_256``...)
        or a resolved :class:`~batchkeccak.Hasher`.
    length
        Output bytes for the extendable-output functions (SHAKE, TurboSHAKE); required for
        them and rejected for the others.
    hex
        Return lowercase hex strings (``string``) instead of raw digests.
    threads
        Threads to hash with; None (the default) uses every available core.
    **params
        Parameters of a mode, as for :func:`batchkeccak.hasher`. A keyed mode's ``key`` may
        be a list of keys, one per row of ``values`` in order (across the chunks of a
        ChunkedArray, and for every row of a dictionary array, whose rows are then hashed one
        by one rather than per dictionary value). Null rows count: the list holds an entry for
        each of them, and they stay null whatever their key.

    Returns
    -------
    pyarrow.Array or pyarrow.ChunkedArray
        ``fixed_size_binary(digest size)`` (or ``string`` with ``hex=True``), one value per
        input value, null where the input is null. A ChunkedArray (or a stream) comes back as
        a ChunkedArray with the same chunk lengths. The digests of a dictionary array are
        plain values, not a dictionary.

    Raises
    ------
    TypeError
        ``values`` has another type (the message names it), or ``length`` is wrong for
        ``algorithm``.
    ValueError
        Unknown ``algorithm``; hex output over 2 GiB in a single array; a list of keys whose
        length is not the number of rows of ``values``.

    Notes
    -----
    Arrow buffers are read in place: offsets from ``array.offset`` (slices) on, each chunk by
    itself, int64 offsets for the large types. Only view types are gathered into one buffer
    first, since their values are not stored back to back. A dictionary array hashes each
    dictionary value once and gives every row its value's digest.

    Examples
    --------
    >>> import pyarrow as pa
    >>> from batchkeccak.arrow import hash_array
    >>> hash_array(pa.array(["abc", None]), "sha3_256", hex=True).to_pylist()[0][:16]
    '3a985da74fe225b2'
    """
    resolved = hasher(algorithm, length=length, threads=threads, **params)
    values = arrow_column(values, "values", "hash_array")
    check_hashable_type(values.type, "values", "hash_array")
    per_row = resolved.batch_size
    if per_row is not None and not isinstance(values, ColumnStream) and per_row != len(values):
        raise _keys_mismatch(resolved, len(values))
    if isinstance(values, pa.Array):
        return hash_chunk(values, resolved, hex, "values")
    out_type = pa.string() if hex else pa.binary(resolved.output_length)
    # Per-row keys run across the chunks: each chunk takes the keys of its own rows.
    chunks = hash_chunks(
        resolved,
        values.chunks,
        lambda chunk, chunk_hasher: hash_chunk(chunk, chunk_hasher, hex, "values"),
        lambda rows: _keys_mismatch(resolved, rows),
    )
    return pa.chunked_array(chunks, type=out_type)


def _keys_mismatch(resolved: Hasher, rows: object) -> ValueError:
    return ValueError(
        f"{resolved.name}: key (or initial_state) holds {resolved.batch_size} entries, one per "
        f"row of values (null rows included), but values has {rows} rows"
    )


# ---------------------------------------------------------------------------------------------
# Rows

ROW_TYPES = (
    "integers, floats, booleans, dates, times, timestamps, durations, decimals, binary and "
    "string types (view, large and fixed-size ones too), null, and dictionaries of those"
)


def row_encodable(arrow_type: pa.DataType) -> bool:
    """Whether :func:`hash_rows` has an encoding for a column of this type (the type table's
    ``row``, :mod:`batchkeccak.inputs.arrow_types`)."""
    rule = type_rule(arrow_type)
    return rule is not None and rule.row


_NO_BYTES = readonly(np.empty(0, dtype=np.uint8))
_NO_OFFSETS = readonly(np.empty(0, dtype=np.int64))
"""Offsets of a field whose values all have one width (the kernels then step by it)."""
_NO_BYTES_OUT = np.empty(0, dtype=np.uint8)
"""The output of a pass that only measures."""


def _field_layout(array: pa.Array, name: str) -> tuple[np.ndarray, np.ndarray, int]:
    """Each row's field value as the row encoding writes it: ``(data, offsets, width)``.

    Row ``i``'s value is ``data[offsets[i]:offsets[i + 1]]``, or, where ``offsets`` is empty,
    ``data[i * width:(i + 1) * width]`` (numbers need no offsets array). Read-only arrays, so
    that every column shares one compiled kernel.
    """
    array = normalize(array)
    arrow_type = array.type
    count = len(array)
    rule = type_rule(arrow_type)
    layout = "" if rule is None else rule.layout
    if layout == "none":
        return _NO_BYTES, _NO_OFFSETS, 0
    if layout == "bits":
        bits = buffer_as_uint8(array.buffers()[1], name)
        first_byte, first_bit = divmod(array.offset, 8)
        values = np.unpackbits(bits[first_byte:], count=first_bit + count, bitorder="little")
        return readonly(values[first_bit:]), _NO_OFFSETS, 1
    if layout == "fixed":
        width = arrow_type.byte_width
        data = buffer_as_uint8(array.buffers()[1], name)
        data = data[array.offset * width : (array.offset + count) * width]
        if sys.byteorder == "big":
            # The encoding is little-endian everywhere; Arrow buffers are in native order.
            data = np.ascontiguousarray(data.reshape(count, width)[:, ::-1]).reshape(-1)
        return readonly(data), _NO_OFFSETS, width
    if layout == "nested":
        data, offsets = _nested_payload(array, name)
        return data, offsets, 0
    data, offsets = value_buffers(array, name)
    return data, offsets, 0


def _children_fields(
    children: Sequence[pa.Array], count: int, name: str
) -> tuple[np.ndarray, np.ndarray]:
    """The concatenated row fields of ``children`` (arrays of ``count`` rows), row by row:
    ``(data, offsets)`` as :func:`_encoded_rows` gives them."""
    if not children:
        return _NO_BYTES, readonly(np.zeros(count + 1, dtype=np.int64))
    names = [f"{name}.{index}" for index in range(len(children))]
    return _encoded_rows(pa.RecordBatch.from_arrays(list(children), names=names))


def _list_offsets(array: pa.Array, name: str) -> np.ndarray:
    """The ``len(array) + 1`` offsets of a list or map array's rows into its child, from the
    array's slice on (int64)."""
    count = len(array)
    if count == 0:
        return np.zeros(1, dtype=np.int64)
    offset_type = np.int64 if pa.types.is_large_list(array.type) else np.int32
    buffer = array.buffers()[1]
    width = np.dtype(offset_type).itemsize
    if buffer is None or buffer.size < (array.offset + count + 1) * width:
        raise ValueError(f"column {name!r}: its offsets are too short for its {count} rows")
    offsets = np.frombuffer(buffer, dtype=offset_type, count=count + 1, offset=array.offset * width)
    if offsets[0] < 0 or np.any(np.diff(offsets) < 0):
        raise ValueError(f"column {name!r}: its offsets are not ascending")
    return offsets.astype(np.int64)


def _nested_payload(array: pa.Array, name: str) -> tuple[np.ndarray, np.ndarray]:
    """Each row's nested value as the bytes the row encoding puts after its tag and length:
    its children's fields one after another (docs/arrow.md, "Nested values").

    The children are read in place (a slice of the child array, never a copy of it) and
    encoded once, element after element, so that a list's elements are a contiguous run of
    that encoding: a row's bytes are then addressed by offsets alone. Null rows get whatever
    their slots hold; the field's ``0x00`` tag drops them."""
    arrow_type = array.type
    count = len(array)
    if pa.types.is_struct(arrow_type):
        children = [array.field(index) for index in range(arrow_type.num_fields)]
        return _children_fields(children, count, name)
    if pa.types.is_list_view(arrow_type) or pa.types.is_large_list_view(arrow_type):
        return _list_view_payload(array, name)
    if pa.types.is_fixed_size_list(arrow_type):
        size = arrow_type.list_size
        offsets = np.arange(count + 1, dtype=np.int64) * size
        values = array.values.slice(array.offset * size, count * size)
    else:
        offsets = _list_offsets(array, name)
        first = int(offsets[0])
        values = array.values.slice(first, int(offsets[-1]) - first)
        offsets = offsets - first
    if pa.types.is_map(arrow_type):
        children = [values.field(0), values.field(1)]  # each entry: its key, then its value
    else:
        children = [values]
    data, element_offsets = _children_fields(children, len(values), name)
    return data, readonly(element_offsets[offsets])


def _shallow_layout(array: pa.Array, name: str) -> tuple | None:
    """A ``list``, ``large_list`` or ``map`` column of flat values, or a ``struct`` of one or
    two flat fields, as :func:`encode_shallow_field` reads it in place: ``(elements,
    children, *first child's field, *second child's field)``; None for other nested columns
    (encoded by :func:`_nested_payload`)."""
    arrow_type = array.type
    if pa.types.is_struct(arrow_type):
        if not 1 <= arrow_type.num_fields <= 2:
            return None
        children = [array.field(index) for index in range(arrow_type.num_fields)]
        elements = np.arange(len(array) + 1, dtype=np.int64)
    elif (
        pa.types.is_list(arrow_type)
        or pa.types.is_large_list(arrow_type)
        or pa.types.is_map(arrow_type)
    ):
        offsets = _list_offsets(array, name)
        first = int(offsets[0])
        values = array.values.slice(first, int(offsets[-1]) - first)
        elements = offsets - first
        children = [values.field(0), values.field(1)] if pa.types.is_map(arrow_type) else [values]
    else:
        return None
    fields = []
    for child in children:
        child = normalize(child)
        if _is_nested(child.type):
            return None
        field = (*_presence(child), *_field_layout(child, name))
        present, first_bit, data, offsets, width = field
        size = len(child)
        if (
            (present.shape[0] and first_bit + size > 8 * present.shape[0])
            or (offsets.shape[0] and offsets.shape[0] < size + 1)
            or (not offsets.shape[0] and size * width > data.shape[0])
            or int(elements[-1]) > size
        ):
            raise ValueError(f"column {name!r}: its buffers are too short for its values")
        fields.append(field)
    second = fields[-1]  # a list's unused second slot repeats its child, of the same types
    return (readonly(elements), len(fields), *fields[0], *second)


def _is_nested(arrow_type: pa.DataType) -> bool:
    rule = type_rule(arrow_type)
    return rule is not None and rule.layout == "nested"


def _list_view_payload(array: pa.Array, name: str) -> tuple[np.ndarray, np.ndarray]:
    """A ``list_view``'s rows, whose elements may lie anywhere in the child and overlap:
    the child is encoded once, then each row's run of it is gathered."""
    count = len(array)
    starts = array.offsets.to_numpy(zero_copy_only=False).astype(np.int64)
    sizes = array.sizes.to_numpy(zero_copy_only=False).astype(np.int64)
    valid = _valid_rows(array)
    if valid is not None:
        sizes[~valid] = 0  # a null row's slots need not point into the child
        starts[~valid] = 0
    values = array.values
    if count and (np.any(starts < 0) or np.any(sizes < 0) or np.any(starts + sizes > len(values))):
        raise ValueError(f"column {name!r}: its offsets and sizes point outside its values")
    data, element_offsets = _children_fields([values], len(values), name)
    begin = element_offsets[starts]
    lengths = element_offsets[starts + sizes] - begin
    offsets = np.zeros(count + 1, dtype=np.int64)
    np.cumsum(lengths, out=offsets[1:])
    positions = np.repeat(begin - offsets[:-1], lengths) + np.arange(offsets[-1], dtype=np.int64)
    return readonly(data[positions]), readonly(offsets)


def _field_bytes(array: pa.Array, name: str) -> tuple[np.ndarray, np.ndarray]:
    """Each row's field value as bytes: checked ``(data, offsets)``."""
    data, offsets, width = _field_layout(array, name)
    if offsets.shape[0] == 0:
        return check_flat(data, np.arange(len(array) + 1, dtype=np.int64) * width)
    return data, offsets


def _presence(array: pa.Array) -> tuple[np.ndarray, int]:
    """The rows that hold a value, as a little-endian bitmap and the bit of row 0; an empty
    bitmap where every row does. Not for dictionaries: decoded first, their null entries are
    nulls of the result (Arrow counts only null indices)."""
    if array.null_count == 0:
        return _NO_BYTES, 0
    bitmap = array.buffers()[0]
    if bitmap is None:  # the null type: nulls without a bitmap
        return readonly(np.zeros((len(array) + 7) // 8, dtype=np.uint8)), 0
    return readonly(buffer_as_uint8(bitmap, "validity")), array.offset


def encode_rows(batch: pa.RecordBatch) -> FlatMessages:
    """The row encoding of every row of ``batch`` (all its columns, in order), as
    :class:`batchkeccak.FlatMessages`: what :func:`hash_rows` hashes.

    Row ``i`` is ``data[offsets[i]:offsets[i + 1]]`` of the result's read-only ``data`` and
    int64 ``offsets``; ``hash_many(encode_rows(batch))`` gives one digest per row. A plain
    ``(data, offsets)`` tuple would be taken there as two messages, hence the named type.

    Field by field: a null is the single byte ``0x00``; a present value is ``0x01``, its byte
    length as 8-byte little-endian unsigned integer, then its bytes (see :func:`hash_rows`).
    """
    return FlatMessages(*_encoded_rows(batch))


def _encoded_rows(batch: pa.RecordBatch) -> tuple[np.ndarray, np.ndarray]:
    """:func:`encode_rows` as checked ``(data, offsets)`` arrays."""
    count = batch.num_rows
    fields = []
    row_lengths = np.zeros(count, dtype=np.int64)
    for name, column in zip(batch.schema.names, batch.columns):
        column = normalize(column)
        shallow = _shallow_layout(column, name) if _is_nested(column.type) else None
        if shallow is None:
            kernel, field = encode_field, (*_presence(column), *_field_layout(column, name))
        else:  # its children's values written straight into the rows
            lengths = np.zeros(count, dtype=np.int64)
            presence = _presence(column)
            kernel, field = encode_shallow_field, (*presence, shallow[0], lengths, *shallow[1:])
        if not kernel(_NO_BYTES_OUT, row_lengths, *field, False):
            raise ValueError(f"column {name!r}: its buffers are too short for its {count} rows")
        fields.append((name, kernel, field))
    row_offsets = np.zeros(count + 1, dtype=np.int64)
    np.cumsum(row_lengths, out=row_offsets[1:])
    encoded = np.empty(int(row_offsets[-1]), dtype=np.uint8)
    positions = row_offsets[:-1].copy()
    for name, kernel, field in fields:
        if not kernel(encoded, positions, *field, True):
            raise RuntimeError(f"column {name!r} changed while its rows were encoded")
    if not np.array_equal(positions, row_offsets[1:]):
        raise RuntimeError("a column changed while the rows were encoded")
    # Offsets summed here from lengths of at least one byte, ending at the buffer's end:
    # what check_flat would check holds already.
    return readonly(encoded), readonly(row_offsets)


ENCODED_ROWS = 16 * 1024
"""Rows encoded and hashed at a time by :func:`hash_encoded_rows`: their encoding (1.4 MB
for rows of 90 bytes) is hashed while it is still in the cache, and its memory is reused for
the next rows rather than mapped afresh. The rows of a 10M-row table of 6 columns took 1.3 s
of CPU this way against 1.6-2.0 s in blocks of 256k rows (``bench/bench_tables.py``'s files,
one thread)."""


def hash_encoded_rows(batch: pa.RecordBatch, resolved: Hasher) -> np.ndarray:
    """The digest of every row's encoding (:func:`encode_rows`): (N, output_length) uint8.

    Rows go :data:`ENCODED_ROWS` at a time to the hasher's threads, each encoding and hashing
    its rows alone. A hasher with one key per row takes the batch in one call.
    """
    if resolved.batch_size is not None:
        return resolved.hash_flat(*_encoded_rows(batch))
    count = batch.num_rows
    digests = np.empty((count, resolved.output_length), dtype=np.uint8)
    blocks = [(start, min(start + ENCODED_ROWS, count)) for start in range(0, count, ENCODED_ROWS)]
    alone = resolved if resolved.threads == 1 or len(blocks) == 1 else hasher(resolved, threads=1)

    def encode_and_hash(block: tuple[int, int]) -> None:
        start, stop = block
        rows = _encoded_rows(batch.slice(start, stop - start))
        alone.hash_flat(*rows, out=digests[start:stop])

    parallel.run_parallel(encode_and_hash, blocks, workers=resolved.threads)
    return digests


def _hash_tuple_rows(batch: pa.RecordBatch, resolved) -> np.ndarray:
    """TupleHash of every row's fields (``hash_rows(..., encoding="tuplehash")``)."""
    fields = []
    for name, column in zip(batch.schema.names, batch.columns):
        column = normalize(column)  # a dictionary's null entries are nulls too
        if column.null_count:
            raise ValueError(
                f"hash_rows: column {name!r} has nulls, which encoding='tuplehash' cannot "
                "represent (use the default encoding, or fill the nulls first)"
            )
        fields.append(_field_bytes(column, name))
    return resolved.hash_columns(fields, batch.num_rows)


def selected_columns(names: Sequence[str], columns: Sequence[str] | str | None) -> list[str]:
    """``columns`` as a list of names (all of ``names`` for None, one name for a str);
    ValueError when it names none. What every ``hash_rows`` takes as its columns."""
    if columns is None:
        selected = list(names)
    elif isinstance(columns, str):
        selected = [columns]
    else:
        selected = list(columns)
    if not selected:
        raise ValueError("columns must name at least one column")
    return selected


def _select_columns(schema: pa.Schema, columns: Sequence[str] | str | None) -> list[str]:
    names = list(schema.names)
    selected = selected_columns(names, columns)
    for name in selected:
        if not isinstance(name, str):
            raise TypeError(f"columns must be column names (str), got {type(name).__name__}")
        matches = names.count(name)
        if matches == 0:
            raise ValueError(f"columns: no column named {name!r}; the table has {names}")
        if matches > 1:
            raise ValueError(f"columns: the table has {matches} columns named {name!r}")
        arrow_type = schema.field(name).type
        if not row_encodable(arrow_type):
            raise TypeError(
                f"hash_rows: column {name!r} has type {arrow_type}, which has no row "
                f"encoding; supported: {ROW_TYPES}"
            )
    return selected


@releases_on_error
def hash_rows(
    table: pa.Table | pa.RecordBatch,
    columns: Sequence[str] | str | None = None,
    algorithm: str | Algorithm | Hasher = "sha3_256",
    *,
    length: int | None = None,
    hex: bool = False,
    threads: int | None = None,
    encoding: str = "tagged",
    **params: object,
) -> pa.Array | pa.ChunkedArray:
    """One digest per row over several columns, with an unambiguous encoding.

    Parameters
    ----------
    table
        ``pa.Table``, ``pa.RecordBatch`` or ``pa.RecordBatchReader``, or any object that
        exports record batches through the Arrow PyCapsule interface (a Polars or pandas
        DataFrame, a DuckDB relation, an arro3 table): read without copying, and a stream one
        batch at a time.
    columns
        Column names in the order they are encoded (order matters); None takes every column
        in schema order.
    algorithm, length, hex, threads, params
        As for :func:`hash_array`.
    encoding
        ``"tagged"`` (the default, below) or ``"tuplehash"``: each row is the tuple of its
        fields' bytes (as below, without tag and length), hashed by a ``tuplehash_*``
        algorithm, so a row's digest equals ``batchkeccak.tuplehash_many([fields])``.
        TupleHash has no null: a null field raises ValueError.

    Returns
    -------
    pyarrow.Array or pyarrow.ChunkedArray
        ``fixed_size_binary`` digests (``string`` with ``hex=True``), never null: an Array for
        a RecordBatch, a ChunkedArray (one chunk per record batch) for a Table or a stream.

    Raises
    ------
    TypeError
        A selected column has a type without an encoding (lists, structs, maps...).
    ValueError
        A name is missing from the table, or names several of its columns.

    Notes
    -----
    Each row is hashed as the concatenation of its fields in ``columns`` order, each field

    - ``0x00`` if the value is null, else
    - ``0x01``, then the value's byte length as an 8-byte little-endian unsigned integer,
      then the value's bytes:

      - integers, floats (IEEE 754), dates, times, timestamps, durations and decimals: their
        Arrow value as little-endian bytes of the type's width (a timestamp's time zone and
        unit are not encoded: they are the column's, not the row's);
      - booleans: one byte, ``0x00`` or ``0x01``;
      - binary and string types: the bytes themselves (UTF-8 for strings);
      - dictionaries: the value the index points at.

    Every field says where it ends, so the fields of two different rows can never run into
    each other: ``("ab", "c")`` and ``("a", "bc")``, a null and an empty string, or two
    columns swapped all encode differently.
    """
    table = arrow_table(table, "table", "hash_rows")
    resolved = hasher(algorithm, length=length, threads=threads, **params)
    if encoding not in ("tagged", "tuplehash"):
        raise ValueError(f"encoding must be 'tagged' or 'tuplehash', got {encoding!r}")
    if encoding == "tuplehash":
        from batchkeccak.derived.sp800_185 import TupleHasher

        if not isinstance(resolved, TupleHasher):
            raise ValueError(
                f"encoding='tuplehash' needs a tuplehash_* algorithm, got {resolved.name}"
            )
    selected = _select_columns(table.schema, columns)
    if isinstance(table, pa.RecordBatch):
        return _hash_row_batch(table.select(selected), resolved, hex, encoding)
    # A Table's columns may be chunked differently; to_batches slices them to common
    # boundaries without copying. A reader gives one batch at a time.
    batches = (
        table.select(selected).to_batches()
        if isinstance(table, pa.Table)
        else (batch.select(selected) for batch in table)
    )
    results = [_hash_row_batch(batch, resolved, hex, encoding) for batch in batches]
    out_type = pa.string() if hex else pa.binary(resolved.output_length)
    return pa.chunked_array(results, type=out_type)


def _hash_row_batch(batch: pa.RecordBatch, resolved: Hasher, hex: bool, encoding: str) -> pa.Array:
    if encoding == "tuplehash":
        digests = _hash_tuple_rows(batch, resolved)
    else:
        digests = hash_encoded_rows(batch, resolved)
    if hex:
        return _hex_array(digests, None, 0, resolved.threads)
    return _digest_array(digests, None, 0)


# ---------------------------------------------------------------------------------------------
# pyarrow compute functions

COMPUTE_XOF_LENGTHS = MappingProxyType(
    {name: spec.capacity for name, spec in algorithms.items() if spec.xof}
)
"""Output bytes of the extendable-output compute functions (a compute function's output type is
fixed when it is registered): the capacity, twice the security level, as SHA3-256 and SHA3-512
have. Derived from the table, so a new XOF row needs no entry here."""

_COMPUTE_SUMMARY = "batchkeccak: {name} of each binary value"
_register_lock = threading.Lock()


def _compute_function(resolved: Hasher):
    out_type = pa.binary(resolved.output_length)

    def digest_values(context, values):
        if isinstance(values, pa.Scalar):
            if not values.is_valid:
                return pa.scalar(None, type=out_type)
            return pa.scalar(resolved.hash_one(values.as_py()), type=out_type)
        return hash_array(values, resolved)

    return digest_values


def register() -> tuple[str, ...]:
    """Register one pyarrow compute function per algorithm; calling it again does nothing.

    Each function is named after its algorithm (``sha3_256``, ``keccak_256``...), takes one
    ``binary`` argument and returns ``fixed_size_binary`` digests, nulls staying null. They
    work wherever pyarrow compute functions do: ``pc.call_function``, dataset projections and
    filters (:func:`compute_expression` builds the expression), Acero plans. pyarrow gives a
    user-defined function one kernel, matched on the exact argument type (pyarrow 15 to 26
    have no way to add a ``string`` kernel beside the ``binary`` one), so cast other string
    and binary columns first: ``pc.cast(column, pa.binary())`` (free for ``string``: same
    buffers); :func:`compute_expression` casts for you.
    The extendable-output functions give :data:`COMPUTE_XOF_LENGTHS` bytes.

    Returns
    -------
    tuple of str
        The names of the functions (registered now or before).

    Raises
    ------
    ValueError
        Another function with one of these names is already registered.
    """
    names = []
    with _register_lock:
        existing = set(pc.list_functions())
        for name, spec in algorithms.items():
            names.append(name)
            if name in existing:
                summary = getattr(getattr(pc.get_function(name), "_doc", None), "summary", "")
                if not str(summary).startswith("batchkeccak:"):
                    raise ValueError(
                        f"a different compute function named {name!r} is already registered"
                    )
                continue
            resolved = hasher(spec, length=COMPUTE_XOF_LENGTHS[name] if spec.xof else None)
            out_len = resolved.output_length
            doc = {
                "summary": _COMPUTE_SUMMARY.format(name=name),
                "description": f"The {out_len}-byte {name} digest of each value; nulls stay null.",
            }
            pc.register_scalar_function(
                _compute_function(resolved),
                name,
                doc,
                {"values": pa.binary()},
                pa.binary(out_len),
            )
    return tuple(names)


def compute_expression(algorithm: str, column: str | pc.Expression) -> pc.Expression:
    """The expression that applies the compute function ``algorithm`` (registered here by
    :func:`register`, called first) to ``column``, for dataset projections and filters and
    Acero plans: ``column`` (a field name or an expression) is cast to ``binary`` first, so
    that ``string``, ``large_string``, ``string_view``, ``large_binary`` and ``binary_view``
    columns hash their bytes (UTF-8 for strings), as ``hash_array`` does.

    Raises
    ------
    ValueError
        ``algorithm`` spells none of ``batchkeccak.algorithms`` (any spelling the command
        line takes, ``SHA3-256`` included); the message suggests the nearest names.
    TypeError
        ``algorithm`` is not a str (a Hasher's parameters have no registered function), or
        ``column`` is neither a str nor a ``pyarrow.compute.Expression``.
    """
    if not isinstance(algorithm, str):
        raise TypeError(
            f"algorithm must be the name of a registered compute function (a row of "
            f"batchkeccak.algorithms), got {type(algorithm).__name__}"
        )
    spelled = canonical_name(algorithm, algorithms)  # SHA3-256, sha3-256: the CLI's spellings
    if spelled is None:
        from batchkeccak.derived.table import canonical_algorithm

        functions = (
            "the compute functions are the fixed-output and extendable-output algorithms, "
            f"the names register() returns: {', '.join(algorithms)}"
        )
        if canonical_algorithm(algorithm) is not None:
            raise ValueError(
                f"algorithm: {algorithm!r} is a mode (batchkeccak.modes), which has no compute "
                f"function: {functions}; hash the column with hash_array(column, "
                f"{algorithm!r}, ...) or a bk.hasher({algorithm!r}, ...)"
            )
        hint = did_you_mean(algorithm, algorithms)
        raise ValueError(
            f"unknown algorithm {algorithm!r}{': ' + hint if hint else ''} ({functions}; a mode "
            "of batchkeccak.modes goes through hash_array or bk.hasher)"
        )
    algorithm = spelled
    if isinstance(column, str):
        column = pc.field(column)
    if not isinstance(column, pc.Expression):
        raise TypeError(
            f"column must be a field name or a pyarrow.compute.Expression, got "
            f"{type(column).__name__}"
        )
    register()
    # pyarrow builds the calls of its own compute functions this way (pyarrow.compute's
    # wrappers); it makes no wrapper for a function registered later.
    return pc.Expression._call(algorithm, [column.cast(pa.binary())])
