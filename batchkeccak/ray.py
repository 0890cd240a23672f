"""Hash a Ray Data column block by block, on the Ray workers, one Arrow batch per call.

``map_batches(..., batch_format="pyarrow")`` hands each batch over as a ``pyarrow.Table``
whose buffers are read in place by :func:`batchkeccak.arrow.hash_array`; the digests come back
as one new column of that table.

Ray is imported only when a function here needs it, never by ``import batchkeccak``. This
module is ``batchkeccak.ray``; ``import ray`` below is absolute (``from __future__ import
annotations`` and Python 3 make every import absolute), so it always means the real Ray.
"""

from __future__ import annotations

from collections.abc import Sequence

import pyarrow as pa

from batchkeccak.api import hasher
from batchkeccak.arrow import hash_array
from batchkeccak.arrow import hash_rows as arrow_hash_rows
from batchkeccak.core import parallel
from batchkeccak.support.extras import engine_import

__all__ = ["hash_column", "hash_rows"]


def _import_ray_data():
    with engine_import("ray", "Ray Data"):
        import ray.data
    return ray.data


def _worker_threads(threads: int | None) -> int:
    """Hashing threads in one Ray task: ``threads``, else the CPUs Ray assigned to it."""
    if threads is not None:
        return threads
    try:
        import ray

        cpus = ray.get_runtime_context().get_assigned_resources().get("CPU", 1)
        return max(int(cpus), 1)
    except Exception:  # noqa: BLE001 - outside a task, or an older Ray: one thread, as a task has
        # one CPU by default
        return 1


def _known_schema(ds) -> pa.Schema | None:
    """The Arrow schema when Ray knows it without running anything, else None."""
    schema = ds.schema(fetch_if_missing=False)
    base = getattr(schema, "base_schema", None)
    return base if isinstance(base, pa.Schema) else None


def _check_output(output: object) -> None:
    if not isinstance(output, str):
        raise TypeError(f"output must be a column name (str), got {type(output).__name__}")


def _set_column(table: pa.Table, name: str, values) -> pa.Table:
    if name in table.column_names:
        return table.set_column(table.column_names.index(name), name, values)
    return table.append_column(name, values)


# The closures below are shipped to the workers by value (cloudpickle), with the globals they
# name. They call these module-level functions, which travel by reference and are imported
# on the worker, so a worker always runs this module's own code, whatever the driver's
# globals hold.


def _add_column_digests(batch: pa.Table, resolved, column: str, name, hex, threads) -> pa.Table:
    if column not in batch.column_names:
        raise ValueError(
            f"column: no column named {column!r}; the dataset has {batch.column_names}"
        )
    digests = hash_array(batch.column(column), resolved, hex=hex, threads=_worker_threads(threads))
    return _set_column(batch, name, digests)


def _add_row_digests(batch: pa.Table, resolved, selected, name, hex, threads) -> pa.Table:
    digests = arrow_hash_rows(batch, selected, resolved, hex=hex, threads=_worker_threads(threads))
    return _set_column(batch, name, digests)


def _column_function(resolved, column: str, name, hex, threads):
    # A closure rather than fn_kwargs or a partial, so no repr ever shows the parameters.
    def add_digests(batch: pa.Table) -> pa.Table:
        return _add_column_digests(batch, resolved, column, name, hex, threads)

    add_digests.__name__ = add_digests.__qualname__ = f"{resolved.name}_digests"
    return add_digests


def hash_column(
    ds,
    column: str,
    algorithm: str = "sha3_256",
    *,
    output: str | None = None,
    hex: bool = False,
    length: int | None = None,
    threads: int | None = None,
    **params,
):
    """The Dataset with a digest column: each value of ``column`` hashed by the Ray workers.

    Parameters
    ----------
    ds
        A ``ray.data.Dataset``.
    column
        A string or binary column (any type :func:`batchkeccak.arrow.hash_array` takes).
    algorithm, hex, length
        As for :func:`batchkeccak.arrow.hash_array`.
    output
        Name of the digest column; default ``column + "_" + algorithm``. A column of that name
        is replaced.
    threads
        Hashing threads per Ray task; None uses the CPUs Ray assigned to the task (1 by
        default, since Ray already runs a task per CPU).
    **params
        Passed unchanged to ``hash_array`` on every batch (a keyed algorithm's ``key=``, say);
        never printed or logged by batchkeccak.

    Returns
    -------
    ray.data.Dataset
        Lazily computed; the digest column is ``fixed_size_binary`` (``string`` with
        ``hex=True``), null where ``column`` is null.

    Raises
    ------
    ValueError
        Unknown ``algorithm``; a name missing from the dataset when its schema is known
        without running it (for instance after ``read_parquet``), else when the first batch
        is hashed.
    TypeError
        ``column``'s type cannot be hashed (checked when the schema is known), or ``length``
        is wrong for ``algorithm``.
    """
    _import_ray_data()
    # The algorithm, its length and a mode's parameters (a key...) resolved and checked once.
    resolved = hasher(algorithm, length=length, threads=1, **params)
    if not isinstance(column, str):
        raise TypeError(f"column must be a column name (str), got {type(column).__name__}")
    schema = _known_schema(ds)
    arrow_type = pa.binary()
    if schema is not None:
        if column not in schema.names:
            raise ValueError(f"column: no column named {column!r}; the dataset has {schema.names}")
        arrow_type = schema.field(column).type
    threads = None if threads is None else parallel.resolve_threads(threads)
    # Zero rows of the column's type: every option and keyword is checked before Ray runs.
    hash_array(pa.array([], type=arrow_type), resolved, hex=hex)
    name = output if output is not None else f"{column}_{resolved.name}"
    _check_output(name)
    return ds.map_batches(
        _column_function(resolved, column, name, hex, threads),
        batch_format="pyarrow",
        zero_copy_batch=True,
    )


def hash_rows(
    ds,
    columns: Sequence[str] | str | None = None,
    algorithm: str = "sha3_256",
    *,
    output: str | None = None,
    hex: bool = False,
    length: int | None = None,
    threads: int | None = None,
    **params,
):
    """The Dataset with one digest per row, encoded as :func:`batchkeccak.arrow.hash_rows`
    encodes rows (so it equals a local fingerprint of the same Arrow data).

    Parameters
    ----------
    ds
        A ``ray.data.Dataset``.
    columns
        Column names in encoding order; None takes every column.
    algorithm, hex, length, threads, **params
        As for :func:`hash_column`.
    output
        Name of the digest column; default ``"row_" + algorithm``.

    Returns
    -------
    ray.data.Dataset
        Lazily computed; the digests are never null.

    Raises
    ------
    ValueError, TypeError
        As :func:`batchkeccak.arrow.hash_rows` raises them, before Ray runs when the schema
        is known.
    """
    _import_ray_data()
    resolved = hasher(algorithm, length=length, threads=1, **params)
    selected = None if columns is None else [columns] if isinstance(columns, str) else list(columns)
    schema = _known_schema(ds)
    threads = None if threads is None else parallel.resolve_threads(threads)
    if schema is not None:
        arrow_hash_rows(schema.empty_table(), selected, resolved, hex=hex)
    name = output if output is not None else f"row_{resolved.name}"
    _check_output(name)

    def add_row_digests(batch: pa.Table) -> pa.Table:
        return _add_row_digests(batch, resolved, selected, name, hex, threads)

    add_row_digests.__name__ = add_row_digests.__qualname__ = f"row_{resolved.name}_digests"
    return ds.map_batches(add_row_digests, batch_format="pyarrow", zero_copy_batch=True)
