"""Hash Spark DataFrame columns on the executors, one Arrow batch per call.

Spark hands each batch of a column to Python as an Arrow array and takes the digests back as
one; here each batch is exactly one :func:`batchkeccak.arrow.hash_array` (or
:func:`batchkeccak.arrow.hash_rows`) call, reading Spark's Arrow buffers in place, with no
Python object per row. PySpark 4.1 and later have Arrow UDFs (``arrow_udf``), which carry only
the hashed columns to Python; older releases go through ``DataFrame.mapInArrow``, which
carries every column of the frame there and back.

PySpark is imported when a function here is called, never by ``import batchkeccak``. The
executors need batchkeccak installed, and must run the same Python as the driver
(``PYSPARK_PYTHON``).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import pyarrow as pa

from batchkeccak._sql import SqlFunction, check_keys, sql_functions
from batchkeccak.api import hasher
from batchkeccak.arrow import hash_array, selected_columns
from batchkeccak.arrow import hash_rows as arrow_hash_rows
from batchkeccak.core import parallel
from batchkeccak.inputs.arrow_types import type_rule
from batchkeccak.support.extras import engine_import

__all__ = ["hash_column", "hash_rows", "register"]


def _import_pyspark():
    with engine_import("spark", "PySpark", note="(and Java 17 or later)"):
        import pyspark.sql
    return pyspark.sql


def _arrow_udf_factory():
    """``pyspark.sql.functions.arrow_udf``, or None where this PySpark predates it (< 4.1)."""
    try:
        from pyspark.sql.functions import arrow_udf
    except ImportError:
        return None
    return arrow_udf


def _column_ref(name: str):
    from pyspark.sql import functions as F

    # Backticks keep a name with dots from being read as a struct field.
    return F.col("`" + name.replace("`", "``") + "`")


def _task_threads(threads: int | None) -> int:
    """Hashing threads inside one Spark task: ``threads``, else the CPUs Spark gave the task."""
    if threads is not None:
        return threads
    from pyspark import TaskContext

    context = TaskContext.get()
    try:
        return max(int(context.cpus()), 1) if context is not None else 1
    except (AttributeError, TypeError, ValueError):
        return 1


def _arrow_type(spark_type) -> pa.DataType:
    try:
        from pyspark.sql.pandas.types import to_arrow_type
    except ImportError:  # pragma: no cover - every PySpark with Arrow support has it
        return None
    try:
        return to_arrow_type(spark_type)
    except Exception:  # noqa: BLE001 - Spark types without an Arrow mapping: the caller reports
        return None


def _find_field(df, column: object, argument: str):
    if not isinstance(column, str):
        raise TypeError(f"{argument} must be a column name (str), got {type(column).__name__}")
    matches = [field for field in df.schema.fields if field.name == column]
    if not matches:
        raise ValueError(f"{argument}: no column named {column!r}; the frame has {df.columns}")
    if len(matches) > 1:
        raise ValueError(f"{argument}: the frame has {len(matches)} columns named {column!r}")
    return matches[0]


def _check_threads(threads: object) -> int | None:
    return None if threads is None else parallel.resolve_threads(threads)


def _resolve(algorithm, length, params):
    # Every option (and a mode's parameters, such as a key) is checked here on the driver,
    # so that a mistake fails before a job rather than in its first task.
    return hasher(algorithm, length=length, threads=1, **params)


# The closures below are shipped to the workers by value (cloudpickle), with the globals they
# name. They call these module-level functions, which travel by reference and are imported
# on the worker, so a worker always runs this module's own code, whatever the driver's
# globals hold.


def _column_digests(values: pa.Array, resolved, hex, threads) -> pa.Array:
    return hash_array(values, resolved, hex=hex, threads=_task_threads(threads))


def _row_digests(arrays, columns, resolved, hex, threads) -> pa.Array:
    batch = pa.RecordBatch.from_arrays(list(arrays), names=list(columns))
    return arrow_hash_rows(batch, None, resolved, hex=hex, threads=_task_threads(threads))


def _digest_function(resolved, hex, threads):
    # A closure, not functools.partial: a partial's repr would show the keyword values (a key).
    def digests(values: pa.Array) -> pa.Array:
        return _column_digests(values, resolved, hex, threads)

    digests.__name__ = digests.__qualname__ = resolved.name
    return digests


def _row_digest_function(resolved, columns, hex, threads):
    def row_digests(*arrays: pa.Array) -> pa.Array:
        return _row_digests(arrays, columns, resolved, hex, threads)

    row_digests.__name__ = row_digests.__qualname__ = f"row_{resolved.name}"
    return row_digests


def _with_digests(df, name: str, compute, arguments: Sequence[str], out_type, use_arrow_udf):
    """``df`` with column ``name`` set to ``compute(*argument arrays)``, batch by batch."""
    from pyspark.sql.types import BinaryType, StringType, StructField, StructType

    spark_type = StringType() if pa.types.is_string(out_type) else BinaryType()
    arrow_udf = _arrow_udf_factory() if use_arrow_udf else None
    if arrow_udf is not None:
        udf = arrow_udf(compute, spark_type)
        return df.withColumn(name, udf(*[_column_ref(a) for a in arguments]))

    # mapInArrow: every column travels; the result replaces ``name`` in place, or is appended.
    fields = list(df.schema.fields)
    positions = [i for i, field in enumerate(fields) if field.name == name]
    new_field = StructField(name, spark_type, True)
    if positions:
        fields[positions[0]] = new_field
    else:
        fields.append(new_field)
    schema = StructType(fields)
    names = df.columns
    indices = [names.index(a) for a in arguments]

    def batches_with_digests(batches):
        for batch in batches:
            digests = compute(*[batch.column(i) for i in indices])
            if pa.types.is_fixed_size_binary(digests.type):
                digests = digests.cast(pa.binary())
            if positions:
                yield batch.set_column(positions[0], name, digests)
            else:
                yield batch.append_column(name, digests)

    batches_with_digests.__name__ = getattr(compute, "__name__", "digests")
    return df.mapInArrow(batches_with_digests, schema)


def hash_column(
    df,
    column: str,
    algorithm: str = "sha3_256",
    *,
    output: str | None = None,
    hex: bool = False,
    length: int | None = None,
    threads: int | None = None,
    _use_arrow_udf: bool = True,
    **params,
):
    """The DataFrame with a digest column: each value of ``column`` hashed on the executors.

    Parameters
    ----------
    df
        A ``pyspark.sql.DataFrame`` (any partitioning; read from Parquet or made any way).
    column
        A top-level ``StringType`` (hashed as UTF-8, as Spark's ``sha2`` does) or
        ``BinaryType`` column.
    algorithm
        A name from ``batchkeccak.algorithms`` (``sha3_256``, ``keccak_256``, ``shake_128``...).
    output
        Name of the digest column; default ``column + "_" + algorithm``. An existing column
        of that name is replaced, as ``withColumn`` does.
    hex
        Lowercase hex digests (``StringType``) instead of raw ones (``BinaryType``).
    length
        Output bytes of the extendable-output functions (required for them, refused
        otherwise).
    threads
        Hashing threads per Spark task; None uses the CPUs Spark gives each task
        (``spark.task.cpus``, 1 unless configured), since Spark already runs a task per core.
    **params
        Passed unchanged to :func:`batchkeccak.arrow.hash_array` on every batch (keyed
        algorithms' ``key=``, say). They travel to the executors inside the task, as any UDF
        argument does; batchkeccak never prints or logs them.

    Returns
    -------
    pyspark.sql.DataFrame
        Lazily computed; null digests where ``column`` is null, digests of empty values
        otherwise.

    Raises
    ------
    ValueError
        No column (or several) named ``column``; unknown ``algorithm``; a bad option.
    TypeError
        ``column`` is neither string nor binary, or ``length`` is wrong for ``algorithm``.
        Both are raised here, on the driver, before any Spark job runs.

    Notes
    -----
    Each Arrow batch (``spark.sql.execution.arrow.maxRecordsPerBatch`` rows, 10,000 by
    default) is one ``hash_array`` call over Spark's buffers. With PySpark 4.1 or later this
    is an Arrow UDF; older releases use ``mapInArrow``.
    """
    _import_pyspark()
    from pyspark.sql.types import BinaryType, StringType

    resolved = _resolve(algorithm, length, params)
    field = _find_field(df, column, "column")
    if not isinstance(field.dataType, (StringType, BinaryType)):
        raise TypeError(
            f"hash_column: column {column!r} has Spark type {field.dataType.simpleString()}; "
            "expected string or binary (cast other types first, e.g. to string)"
        )
    threads = _check_threads(threads)
    arrow_type = pa.string() if isinstance(field.dataType, StringType) else pa.binary()
    hash_array(pa.array([], type=arrow_type), resolved, hex=hex)  # zero rows: checks the rest
    out_type = pa.string() if hex else pa.binary()
    name = output if output is not None else f"{column}_{resolved.name}"
    if not isinstance(name, str):
        raise TypeError(f"output must be a column name (str), got {type(name).__name__}")
    compute = _digest_function(resolved, hex, threads)
    return _with_digests(df, name, compute, [column], out_type, _use_arrow_udf)


def hash_rows(
    df,
    columns: Sequence[str] | str | None = None,
    algorithm: str = "sha3_256",
    *,
    output: str | None = None,
    hex: bool = False,
    length: int | None = None,
    threads: int | None = None,
    _use_arrow_udf: bool = True,
    **params,
):
    """The DataFrame with one digest per row over ``columns``, as
    :func:`batchkeccak.arrow.hash_rows` encodes rows.

    Parameters
    ----------
    df
        A ``pyspark.sql.DataFrame``.
    columns
        Column names, in the order they are encoded; None takes every column.
    algorithm, hex, length, threads, **params
        As for :func:`hash_column`.
    output
        Name of the digest column; default ``"row_" + algorithm``.

    Returns
    -------
    pyspark.sql.DataFrame
        Lazily computed; the digest column is never null.

    Raises
    ------
    ValueError
        A name is not a column of ``df``; unknown ``algorithm``.
    TypeError
        A column's type has no row encoding (intervals, or arrays, maps and structs holding
        one); checked on the driver.

    Notes
    -----
    Each field is encoded from the Arrow value Spark sends: integers at their Spark width
    (``int`` as 4 bytes, ``bigint`` as 8), ``double`` / ``float`` as IEEE 754, ``date`` as
    days, ``timestamp`` as microseconds since the epoch in UTC, ``decimal`` as 16-byte
    decimal128, strings as UTF-8. A local fingerprint equals Spark's when its Arrow table has
    the same types, as a Parquet file read by both has.
    """
    _import_pyspark()
    resolved = _resolve(algorithm, length, params)
    selected = selected_columns(df.columns, columns)
    arrow_fields = []
    for name in selected:
        field = _find_field(df, name, "columns")
        arrow_type = _arrow_type(field.dataType)
        if arrow_type is None:
            raise TypeError(
                f"hash_rows: column {name!r} has Spark type {field.dataType.simpleString()}, "
                "which has no row encoding"
            )
        arrow_fields.append(pa.field(name, arrow_type))
    threads = _check_threads(threads)
    # Zero rows through the local function: checks every type, option and keyword here.
    arrow_hash_rows(pa.schema(arrow_fields).empty_table(), None, resolved, hex=hex)
    name = output if output is not None else f"row_{resolved.name}"
    if not isinstance(name, str):
        raise TypeError(f"output must be a column name (str), got {type(name).__name__}")
    compute = _row_digest_function(resolved, selected, hex, threads)
    out_type = pa.string() if hex else pa.binary()
    return _with_digests(df, name, compute, selected, out_type, _use_arrow_udf)


def _check_sql_values(name: str, values: pa.Array) -> None:
    rule = type_rule(values.type)
    # string, large_string, binary, large_binary: the type table's offsets layout, undecoded
    if pa.types.is_dictionary(values.type) or rule is None or rule.layout != "offsets":
        raise TypeError(
            f"{name}(): the first argument must be a string or binary column, "
            f"got Arrow type {values.type}"
        )


def _sql_digests(function: SqlFunction, keys, cache, values: pa.Array, arguments) -> pa.Array:
    _check_sql_values(function.name, values)
    return function.digests(values, list(arguments), keys, threads=_task_threads(None), cache=cache)


def _sql_function(function: SqlFunction, keys):
    cache: dict = {}
    # Spark reads the number of arguments from the Python signature: one function per arity.
    arity = len(function.arguments)
    if arity == 1:

        def digests(values: pa.Array) -> pa.Array:
            return _sql_digests(function, keys, cache, values, [])
    elif arity == 2:

        def digests(  # type: ignore[misc]  # one signature per arity
            values: pa.Array, a: pa.Array
        ) -> pa.Array:
            return _sql_digests(function, keys, cache, values, [a])
    else:

        def digests(  # type: ignore[misc]  # one signature per arity
            values: pa.Array, a: pa.Array, b: pa.Array
        ) -> pa.Array:
            return _sql_digests(function, keys, cache, values, [a, b])

    # A closure, not a partial: its repr shows no key.
    digests.__name__ = digests.__qualname__ = function.name
    return digests


def register(spark, *, keys: Mapping[str, bytes] | None = None) -> tuple[str, ...]:
    """Add one SQL function per algorithm and mode of batchkeccak to ``spark``.

    The same functions and arguments as :func:`batchkeccak.duckdb.register`: ``sha3_256(col)``,
    ``keccak_256(col)``; ``shake_128(col, n)``, ``kt128(col, n)`` where the output length is
    free; ``kmac_256(col, key_name, n)`` and ``hmac_sha3_256(col, key_name)`` for the keyed
    modes; ``cshake_128(col, n, customization)``. Each returns ``BINARY`` digests, null for a
    null value, length or key name; ``lower(hex(sha3_256(col)))`` gives hex strings. The
    functions are temporary: they belong to this ``SparkSession``.

    Parameters
    ----------
    spark
        A ``pyspark.sql.SparkSession``.
    keys
        Key names to key bytes: ``kmac_256(email, 'pii', 32)`` hashes with ``keys["pii"]``,
        so the key never appears in SQL text, query logs or plans. The keys travel to the
        executors inside the functions, as any UDF argument does; an unknown name fails the
        query with a message listing the names registered.

    Returns
    -------
    tuple of str
        The names registered.

    Raises
    ------
    RuntimeError
        PySpark is older than 4.1 (no Arrow UDFs); :func:`hash_column` works there.
    TypeError
        ``keys`` is not a mapping of str to bytes.

    Examples
    --------
    ``register(spark, keys={"pii": key}); spark.sql("SELECT kmac_256(email, 'pii', 32) FROM t")``
    """
    _import_pyspark()
    from pyspark.sql.types import BinaryType

    checked_keys = check_keys(keys)
    arrow_udf = _arrow_udf_factory()
    if arrow_udf is None:
        import pyspark

        raise RuntimeError(
            f"register needs Arrow UDFs, which PySpark {pyspark.__version__} lacks (4.1 and "
            "later have them); use batchkeccak.spark.hash_column on this version"
        )
    names = []
    for name, function in sql_functions().items():
        spark.udf.register(name, arrow_udf(_sql_function(function, checked_keys), BinaryType()))
        names.append(name)
    return tuple(names)
