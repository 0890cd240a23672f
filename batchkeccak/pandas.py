"""A ``bk`` accessor on pandas Series and DataFrames: ``df["email"].bk.sha3_256()``.

Importing this module registers the accessor. A Series is handed to
:func:`batchkeccak.arrow.hash_array` as Arrow data: Arrow-backed columns (``str`` in pandas 3,
``string[pyarrow]``, ``pd.ArrowDtype``) without a copy, object columns of ``bytes`` or ASCII
``str`` read by the compiled list reader (others converted once by Arrow), categoricals as dictionaries (each category hashed once). The result
is an Arrow-backed Series with the input's index and name.

pandas imports when this module does, never by ``import batchkeccak``.
"""

from __future__ import annotations

import numpy as np
import pyarrow as pa

from batchkeccak._sql import add_shortcuts
from batchkeccak.api import hash_many, hasher
from batchkeccak.arrow import digest_array, hash_array
from batchkeccak.arrow import hash_rows as arrow_hash_rows
from batchkeccak.core import parallel
from batchkeccak.core.hashers import Hasher
from batchkeccak.core.parameters import Algorithm
from batchkeccak.derived.table import unknown_method
from batchkeccak.inputs import readonly
from batchkeccak.inputs._pylist import object_array_flat
from batchkeccak.inputs.arrow_buffers import is_value_type
from batchkeccak.inputs.arrow_types import type_rule
from batchkeccak.inputs.sequences import COMPILED_READ_MIN, unencodable_text
from batchkeccak.support.extras import engine_import

with engine_import("pandas", "pandas"):
    import pandas as pd

__all__ = ["ACCESSOR", "HashFrameAccessor", "HashSeriesAccessor"]

ACCESSOR = "bk"
"""The name the accessor is registered under: ``series.bk``, ``frame.bk``."""


_VALUE_TYPES = (bytes, bytearray, memoryview, str)
"""What a value of an object column may be, when it is not missing."""


def _type_name(value: object) -> str:
    kind = type(value)
    return kind.__name__ if kind.__module__ == "builtins" else f"{kind.__module__}.{kind.__name__}"


def _object_values(series: pd.Series) -> pa.Array:
    """An object column as Arrow: its missing values (None, NaN, NA, NaT) null, the others
    bytes-like or str; TypeError naming the first row that holds anything else, which Arrow
    or ``hash_many`` would otherwise read as bytes (a numpy scalar or array has a buffer)."""
    values = series.to_numpy(dtype=object)
    missing = pd.isna(values)
    kind = pd.api.types.infer_dtype(values, skipna=True)
    if kind not in ("bytes", "string", "empty"):
        # Mixed kinds (bytes and str, or NaT, which infer_dtype does not skip): row by row.
        for position, value in enumerate(values):
            if not missing[position] and not isinstance(value, _VALUE_TYPES):
                raise TypeError(
                    f"bk: {_row(series, position)} is of type {_type_name(value)}, "
                    "not bytes or str (only None, NaN, NA and NaT count as missing)"
                )
    try:
        return pa.array(
            values,
            type=pa.string() if kind == "string" else pa.binary(),
            mask=missing if missing.any() else None,
            from_pandas=True,
        )
    except UnicodeEncodeError:
        fault = unencodable_text(values)
        if fault is None:
            raise
        raise ValueError(
            f"bk: {_row(series, fault[0])} is not valid UTF-8 text: {fault[1]}"
        ) from None


def _row(series: pd.Series, position: int) -> str:
    """A row named by its position and its index label, for an error."""
    label = series.index[position]
    label = label.item() if isinstance(label, np.generic) else label
    return f"row {position} (index {label!r})"


def _series_values(series: pd.Series) -> pa.Array | pa.ChunkedArray:
    """The Series as Arrow data; TypeError naming its dtype when it holds no bytes or text."""
    array = series.array
    if hasattr(array, "__arrow_array__") and not isinstance(series.dtype, pd.CategoricalDtype):
        values = pa.array(array)  # Arrow-backed: the same buffers
    elif series.dtype == object:
        values = _object_values(series)
    else:
        try:
            values = pa.array(series, from_pandas=True)
        except (pa.ArrowInvalid, pa.ArrowTypeError) as error:
            raise TypeError(
                f"bk: expected a Series of bytes or str, got dtype {series.dtype} whose values "
                f"Arrow cannot read as one binary or string column ({error})"
            ) from None
    value_type = values.type.value_type if pa.types.is_dictionary(values.type) else values.type
    if getattr(type_rule(values.type), "layout", None) == "none":  # the null type
        return pa.nulls(len(values), pa.binary())
    if not is_value_type(value_type):
        raise TypeError(
            f"bk: expected a Series of bytes or str, got dtype {series.dtype} (Arrow type "
            f"{values.type}); convert it first, for example .astype(str)"
        )
    return values


def _object_digests(series: pd.Series, resolved: Hasher, hex: bool) -> pa.Array | None:
    """An object column of exact ``bytes`` or ``str`` of ASCII characters, nothing missing, is
    read from its numpy object array's item pointers by the compiled reader (a str's UTF-8
    bytes where CPython keeps them, with no encoding) rather than first copied into an Arrow
    column or a list; None for any other column, which Arrow reads.

    The reader takes exact ``bytes`` and ``str`` only, and refuses the column at the first
    other value: a NaN (``numpy.float64``), a ``NaT`` or a numpy array has a buffer, whose raw
    bytes must never be hashed. A short column goes through ``hash_many``'s own list path
    (bytes only), which needs no compiled reader for a few values."""
    count = len(series)
    if series.dtype != object or count == 0:
        return None
    if count < COMPILED_READ_MIN:
        values = series.tolist()
        if pd.api.types.infer_dtype(values, skipna=False) != "bytes":
            return None
        return digest_array(hash_many(values, resolved), hex=hex, threads=resolved.threads)
    # The column's own object array, read through its item pointers (no tolist(): a list
    # of 2**20 items cost 12 ms more than the copy itself); held here for the read.
    items = series.to_numpy(dtype=object, copy=False)
    # Every value is at least one permutation: the count says whether there is work for
    # several threads. Each then copies the parts it takes and hashes them, so the copy
    # (which holds the GIL) overlaps the other threads' hashing instead of preceding it.
    threads = min(resolved.threads, count // parallel.MIN_PERMUTATIONS_PER_THREAD)
    if resolved.batch_size is None and threads > 1:
        digests = _hash_object_parts(items, resolved, threads)
    else:
        flat = object_array_flat(items, text=True, reuse=True)
        if flat is None:
            return None
        digests = resolved.hash_flat(readonly(flat[0]), readonly(flat[1]), equal_lengths=flat[2])
        del flat  # this thread's kept copy buffer (reuse): done with before the next read
    if digests is None:
        return None
    return digest_array(digests, hex=hex, threads=resolved.threads)


class _NotRead(Exception):
    """A part of an object column holds a value the compiled reader does not take."""


def _hash_object_parts(items: np.ndarray, resolved: Hasher, threads: int) -> np.ndarray | None:
    """The digests of an object array of ``bytes`` and ASCII ``str``, each thread reading
    (``object_array_flat``) and hashing the parts it takes; None where a part holds a value
    the reader does not take (the whole column then goes through Arrow)."""
    count = items.shape[0]
    out = np.empty((count, resolved.output_length), dtype=np.uint8)
    single_thread = resolved.with_threads(1)

    def read_and_hash(span: tuple[int, int]) -> None:
        start, stop = span
        flat = object_array_flat(items[start:stop], text=True, reuse=True)
        if flat is None:
            raise _NotRead
        single_thread.hash_flat(
            readonly(flat[0]), readonly(flat[1]), out=out[start:stop], equal_lengths=flat[2]
        )

    try:
        parallel.run_parallel(read_and_hash, parallel.chunk_ranges(count, threads), workers=threads)
    except _NotRead:
        return None
    return out


def _as_series(
    digests: pa.Array | pa.ChunkedArray, like: pd.Series | pd.DataFrame, name: object
) -> pd.Series:
    return pd.Series(pd.arrays.ArrowExtensionArray(digests), index=like.index, name=name)


def _resolve(algorithm, length, threads, params) -> Hasher:
    return hasher(algorithm, length=length, threads=threads, **params)


@pd.api.extensions.register_series_accessor(ACCESSOR)
class HashSeriesAccessor:
    """``series.bk``: digests of every value, as an Arrow-backed Series."""

    def __init__(self, series: pd.Series) -> None:
        self._series = series

    def __getattr__(self, name: str):
        # Only for names that are not there: a typo (``.bk.sha256()``) hears what is.
        if name.startswith("_"):
            raise AttributeError(name)
        raise unknown_method(f"Series.{ACCESSOR} (batchkeccak.pandas)", name, ("hash",))

    def hash(
        self,
        algorithm: str | Algorithm | Hasher = "sha3_256",
        *,
        hex: bool = False,
        length: int | None = None,
        threads: int | None = None,
        **params: object,
    ) -> pd.Series:
        """Hash every value; missing values (None, NaN, NA, NaT) stay missing.

        Parameters
        ----------
        algorithm
            A name from ``batchkeccak.algorithms`` or ``batchkeccak.modes``, or a
            :class:`~batchkeccak.Hasher`.
        hex
            Lowercase hex strings instead of raw digests.
        length
            Output bytes, for the functions whose output length is free (SHAKE, KMAC...).
        threads
            Hashing threads; None uses every core.
        **params
            A mode's parameters (``key=``, ``customization=``...), as for
            :func:`batchkeccak.hasher`; ``key`` may list one key per row.

        Returns
        -------
        pandas.Series
            ``ArrowDtype(fixed_size_binary(n))`` digests (``ArrowDtype(string)`` with
            ``hex=True``), with the input's index and name. Strings hash their UTF-8 bytes.

        Raises
        ------
        TypeError
            The dtype holds no bytes or text (the message names it), a value of an object
            column is neither missing, bytes-like nor str (the message names its row), or
            ``length`` is wrong for ``algorithm``.
        ValueError
            An unknown ``algorithm``, or a ``str`` of an object column that UTF-8 cannot
            encode (a lone surrogate; the message names its row).
        """
        resolved = _resolve(algorithm, length, threads, params)
        series = self._series
        digests = _object_digests(series, resolved, bool(hex))
        if digests is None:
            digests = hash_array(_series_values(series), resolved, hex=bool(hex))
        return _as_series(digests, series, series.name)


@pd.api.extensions.register_dataframe_accessor(ACCESSOR)
class HashFrameAccessor:
    """``frame.bk``: one digest per row."""

    def __init__(self, frame: pd.DataFrame) -> None:
        self._frame = frame

    def __getattr__(self, name: str):
        if name.startswith("_"):
            raise AttributeError(name)
        raise unknown_method(f"DataFrame.{ACCESSOR} (batchkeccak.pandas)", name, ("hash_rows",))

    def hash_rows(
        self,
        algorithm: str | Algorithm | Hasher = "sha3_256",
        *,
        encoding: str = "tagged",
        hex: bool = False,
        length: int | None = None,
        threads: int | None = None,
        **params: object,
    ) -> pd.Series:
        """One digest per row over every column of the frame, in column order.

        ``df[["id", "email"]].bk.hash_rows()`` equals :func:`batchkeccak.arrow.hash_rows` on
        ``pa.Table.from_pandas(df[["id", "email"]], preserve_index=False)``: the values are
        encoded as Arrow types them (``int64``, ``double``, UTF-8 strings...). The parameters
        are as there.

        Returns
        -------
        pandas.Series
            Arrow-backed digests, never missing, with the frame's index.
        """
        resolved = _resolve(algorithm, length, threads, params)
        table = pa.Table.from_pandas(self._frame, preserve_index=False)
        digests = arrow_hash_rows(table, None, resolved, hex=bool(hex), encoding=encoding)
        return _as_series(digests, self._frame, None)


add_shortcuts(HashSeriesAccessor)
