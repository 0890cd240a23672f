"""Hash a Dask DataFrame column partition by partition, for data that outgrows one machine.

Each partition's column goes to :func:`batchkeccak.arrow.hash_array` on the worker that holds
it. Arrow-backed columns (``string[pyarrow]``, pandas' default ``str`` and ``pd.ArrowDtype``
columns, as ``dd.read_parquet`` makes them) are handed over without copying; Python-object
columns are converted to Arrow first.
"""

from __future__ import annotations

import pyarrow as pa

from batchkeccak.api import hasher
from batchkeccak.arrow import hash_array
from batchkeccak.inputs.arrow_buffers import check_hashable_type

__all__ = ["hash_column"]


def _arrow_values(series) -> pa.Array | pa.ChunkedArray:
    backing = series.array
    if hasattr(backing, "__arrow_array__") and str(series.dtype) != "object":
        return backing.__arrow_array__()
    return pa.array(backing, from_pandas=True)


def _hash_partition(series, resolved, hex, name, fixed_size=False):
    import pandas as pd

    digests = hash_array(_arrow_values(series), resolved, hex=hex)
    if not hex and not fixed_size:
        digests = digests.cast(pa.binary())
    if isinstance(digests, pa.Array):
        digests = pa.chunked_array([digests])
    return pd.Series(pd.arrays.ArrowExtensionArray(digests), index=series.index, name=name)


def _check_dtype(dtype, column: str) -> None:
    import pandas as pd

    if isinstance(dtype, pd.ArrowDtype):
        check_hashable_type(dtype.pyarrow_dtype, f"column {column!r}", "hash_column")
    elif isinstance(dtype, pd.StringDtype) or dtype == object:
        return  # strings, or Python objects checked when each partition is converted
    else:
        raise TypeError(
            f"hash_column: column {column!r} has dtype {dtype}; expected strings or bytes "
            "(an Arrow-backed string/binary dtype, or Python objects)"
        )


def hash_column(
    ddf,
    column: str,
    algorithm: str = "sha3_256",
    *,
    length: int | None = None,
    hex: bool = False,
    threads: int | None = None,
    name: str | None = None,
    fixed_size: bool = False,
    **params: object,
):
    """Digests of one column of a Dask DataFrame, computed where each partition lives.

    Parameters
    ----------
    ddf
        A ``dask.dataframe.DataFrame``.
    column
        The column to hash: strings or bytes.
    algorithm, length, hex
        As for :func:`batchkeccak.arrow.hash_array`.
    threads
        Hashing threads per task; None uses every core of the worker's machine. With several
        worker processes or threads per machine, pass cores divided by them.
    name
        Name of the result; default ``column + "_" + algorithm``.
    fixed_size
        Give raw digests the Arrow type ``fixed_size_binary(n)`` instead of ``binary``.
        ``binary`` (the default) is what pandas, Spark and Ray read back from Parquet;
        pandas 3 cannot rebuild a ``fixed_size_binary`` column from the metadata Dask writes
        with it (``pd.read_parquet`` and ``dd.read_parquet`` raise NotImplementedError).
    **params
        A mode's parameters (``key``, ``customization``...), as for
        :func:`batchkeccak.arrow.hash_array`: resolved once here, then carried to every task
        inside the hasher, whose repr never shows them.

    Returns
    -------
    dask.dataframe.Series
        Lazily computed, partitioned like ``ddf``, dtype ``pd.ArrowDtype(pa.binary())``
        (``fixed_size_binary`` with ``fixed_size=True``, ``pd.ArrowDtype(pa.string())`` with
        ``hex=True``); null where the input is null.
        Assign it with ``ddf[name] = hash_column(ddf, column)``.

    Raises
    ------
    ValueError
        ``column`` is not in ``ddf``, or ``algorithm`` is unknown.
    TypeError
        ``column``'s dtype cannot be hashed.
    """
    import pandas as pd

    resolved = hasher(algorithm, length=length, threads=threads, **params)
    if column not in ddf.columns:
        raise ValueError(f"column: no column named {column!r}; the frame has {list(ddf.columns)}")
    _check_dtype(ddf.dtypes[column], column)
    name = name or f"{column}_{resolved.name}"
    if hex:
        out_type = pa.string()
    else:
        out_type = pa.binary(resolved.output_length) if fixed_size else pa.binary()
    meta = pd.Series([], dtype=pd.ArrowDtype(out_type), name=name)
    return ddf[column].map_partitions(
        _hash_partition, resolved, hex, name, bool(fixed_size), meta=meta
    )
