"""Every batchkeccak algorithm and mode as a DuckDB SQL function.

After ``register(connection)``, ``SELECT sha3_256(email) FROM t`` hashes the column inside
DuckDB. Each function is a vectorized (Arrow) Python function: DuckDB hands it a vector of
values (2048 rows) as Arrow arrays and takes the digests back as one, so no Python object is
made per row and the kernels run with the GIL released.

DuckDB imports only when :func:`register` is called, never by ``import batchkeccak``.
"""

from __future__ import annotations

import threading
from collections.abc import Mapping

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from batchkeccak import _parallel
from batchkeccak._sql import SqlFunction, check_keys, sql_functions
from batchkeccak.arrow import hash_in_place
from batchkeccak.dispatch import kernels_loaded

__all__ = ["VALUE_TYPE", "register"]

_INSTALL_HINT = "pip install 'batchkeccak[duckdb]'"

VALUE_TYPE = "UNION(text VARCHAR, bytes BLOB)"
"""The value's SQL type where DuckDB has no typed macro parameters (older releases): one Python function per
name, over a union that DuckDB casts a VARCHAR or a BLOB to without changing its bytes. It
gives the same digests as the typed overloads, about 3x slower (DuckDB builds the union
row by row)."""

_SQL_TYPES = {"value": VALUE_TYPE, "key_name": "VARCHAR", "n": "BIGINT",
              "customization": "VARCHAR"}  # fmt: skip

_register_lock = threading.Lock()


def _import_duckdb():
    try:
        import duckdb
    except ImportError as error:
        raise ImportError(f"batchkeccak.duckdb needs DuckDB: {_INSTALL_HINT}") from error
    return duckdb


def union_values(values: pa.Array | pa.ChunkedArray) -> pa.Array | pa.ChunkedArray:
    """The values of a VARCHAR-or-BLOB union column as one plain Arrow column.

    A column has one SQL type, so every row of a batch usually carries the same member and
    that member's child is the column, unchanged. Rows of mixed members (a ``UNION`` value
    built by hand) are gathered as binary.
    """
    if isinstance(values, pa.ChunkedArray):
        if values.num_chunks == 1:
            return union_values(values.chunk(0))
        return pa.chunked_array(
            [union_values(chunk) for chunk in values.chunks] or [pa.array([], pa.binary())]
        )
    if not pa.types.is_union(values.type):
        return values
    if values.type.mode != "sparse":
        raise TypeError(f"expected a sparse union of VARCHAR and BLOB, got {values.type}")
    codes = np.frombuffer(values.buffers()[1], dtype=np.int8)[
        values.offset : values.offset + len(values)
    ]
    children = [values.field(i) for i in range(values.type.num_fields)]
    members = {code: child for code, child in zip(values.type.type_codes, children)}
    present = np.unique(codes)
    if len(present) == 1:
        return members[int(present[0])]
    gathered = pa.nulls(len(values), pa.binary())
    for code in present:
        gathered = pc.if_else(
            pa.array(codes == code), members[int(code)].cast(pa.binary()), gathered
        )
    return gathered


def _one_call(function: SqlFunction, keys: Mapping[str, bytes], threads: int, cache: dict):
    """``(kernel, output length)`` of ``name(value)``'s hasher, for vectors hashed in one
    kernel call each; None while the kernels are not loaded (until then the dispatcher may
    give small work to hashlib, and keeps the account of it); False where there is no such
    path (a mode without a one-call kernel, or threads of its own per call)."""
    if threads != 1:
        return False
    if not kernels_loaded():
        return None
    resolved = function.resolve((), keys, threads, cache)
    kernel = resolved.one_call()
    return False if kernel is None else (kernel, resolved.output_length)


def _udf(function: SqlFunction, keys: Mapping[str, bytes], hex: bool, threads: int):
    cache: dict = {}

    def hashed(values, arguments):
        return function.digests(
            union_values(values), arguments, keys, hex=hex, threads=threads, cache=cache
        )

    # DuckDB reads the number of arguments from the Python signature: one function per arity.
    arity = len(function.arguments)
    if arity == 1:
        one_call = None

        def digests(values):
            # DuckDB calls once per vector of 2048 values, from several threads that share
            # the GIL: every Python step here is paid once per vector, while the GIL is held.
            nonlocal one_call
            if one_call is None:
                one_call = _one_call(function, keys, threads, cache)
            if one_call and isinstance(values, pa.ChunkedArray) and values.num_chunks == 1:
                result = hash_in_place(values.chunk(0), one_call[0], one_call[1], hex)
                if result is not None:
                    return result
            return hashed(values, [])
    elif arity == 2:
        def digests(values, a):
            return hashed(values, [a])
    else:
        def digests(values, a, b):
            return hashed(values, [a, b])

    digests.__name__ = digests.__qualname__ = function.name + ("_hex" if hex else "")
    return digests


def register(
    connection,
    *,
    keys: Mapping[str, bytes] | None = None,
    prefix: str = "",
    threads: int | None = None,
) -> tuple[str, ...]:
    """Add every algorithm and mode of batchkeccak to ``connection`` as SQL functions.

    Each name takes a ``VARCHAR`` (hashed as its UTF-8 bytes) or a ``BLOB`` as its first
    argument and returns ``BLOB`` digests; ``name_hex`` returns lowercase hex ``VARCHAR``.
    Null values (or a null length or key name) give null.

    ============================================  ======================================
    SQL                                           functions
    ============================================  ======================================
    ``name(value)``                               ``sha3_*``, ``keccak_*``
    ``name(value, n)``, n output bytes            ``shake_*``, ``turboshake*``, ``kt128``,
                                                  ``kt256``, ``tuplehash_*``,
                                                  ``parallelhash_*``
    ``name(value, key_name, n)``                  ``kmac_*``
    ``name(value, key_name)``                     ``hmac_sha3_*``
    ``name(value, n, customization)``             ``cshake_*``
    ============================================  ======================================

    Parameters
    ----------
    connection
        A ``duckdb.DuckDBPyConnection`` (``duckdb.connect()``); the functions belong to it.
    keys
        Key names to key bytes, for the keyed modes: ``kmac_256(email, 'pii', 32)`` hashes
        with ``keys["pii"]``. The bytes never appear in SQL text, so they stay out of query
        logs and plans. An unknown name is an error when the query runs.
    prefix
        Put before every name (``prefix="bk_"`` registers ``bk_sha3_256``...). None of the
        names clash with DuckDB's own functions today; a name that does (in a later DuckDB, or
        from an extension) raises ValueError rather than hiding DuckDB's function.
    threads
        Hashing threads per call. None (the default) hashes on the thread DuckDB calls from:
        DuckDB already calls from several of its threads at once (its ``threads`` setting),
        and a vector of 2048 values is too little work to share out again.

    Returns
    -------
    tuple of str
        The SQL names registered.

    Raises
    ------
    TypeError
        ``keys`` is not a mapping of str to bytes, or ``prefix`` is not a str.
    ValueError
        A name would shadow one of DuckDB's own functions.

    Notes
    -----
    A DuckDB Python function has one signature per name, so each name is a temporary macro
    with two typed overloads, ``(value VARCHAR, ...)`` and ``(value BLOB, ...)``, each calling
    a Python function registered as ``_bk_varchar_<name>`` / ``_bk_blob_<name>``. The macro is
    expanded when the query is planned and costs nothing per row. Other value types are a
    binder error ("does not support the supplied arguments"): cast them first. Where DuckDB
    has no typed macro parameters, each name is one function over :data:`VALUE_TYPE`.

    Registering again on the same connection replaces this package's functions (with the new
    keys).
    """
    duckdb = _import_duckdb()
    checked_keys = check_keys(keys)
    if not isinstance(prefix, str):
        raise TypeError(f"prefix must be a str, got {type(prefix).__name__}")
    threads = 1 if threads is None else _parallel.resolve_threads(threads)
    planned = [
        (prefix + function.name + suffix, function, suffix == "_hex")
        for function in sql_functions().values()
        for suffix in ("", "_hex")
    ]
    with _register_lock:
        ours, theirs = _existing_functions(connection)
        for name, _, _ in planned:
            if name in theirs:
                raise ValueError(
                    f"DuckDB already has a function named {name!r}; pass prefix= "
                    "(for example prefix='bk_') so that it stays reachable"
                )
        for name in ours:
            connection.remove_function(name)  # from an earlier register: new keys replace
        typed_macros = _supports_typed_macros(connection, duckdb)
        for name, function, hex in planned:
            _register_one(connection, name, function, checked_keys, hex, threads, typed_macros)
    return tuple(name for name, _, _ in planned)


_HIDDEN = "_bk_{member}_{name}"
"""The typed Python functions behind each SQL name, one per member of the value's type."""


def _existing_functions(connection) -> tuple[set[str], set[str]]:
    """(the Python functions an earlier register added, every other function name)."""
    rows = connection.sql(
        "SELECT DISTINCT function_name, function_type, macro_definition FROM duckdb_functions()"
    ).fetchall()
    ours, our_macros, theirs = set(), set(), set()
    for name, kind, definition in rows:
        if name.startswith(("_bk_varchar_", "_bk_blob_")):
            ours.add(name)
        elif kind == "macro" and str(definition).startswith(("_bk_varchar_", "_bk_blob_")):
            our_macros.add(name)  # an earlier register's: CREATE OR REPLACE replaces it
        else:
            theirs.add(name)
    return ours, theirs - our_macros


def _supports_typed_macros(connection, duckdb) -> bool:
    # Typed macro parameters give one name two signatures; older DuckDB releases lack them.
    try:
        connection.sql("CREATE OR REPLACE TEMP MACRO _bk_probe(x VARCHAR) AS x")
    except duckdb.Error:
        return False
    connection.sql("DROP MACRO IF EXISTS _bk_probe")
    return True


def _register_one(connection, name, function, keys, hex, threads, typed_macros) -> None:
    result_type = "VARCHAR" if hex else "BLOB"
    other_types = [_SQL_TYPES[argument] for argument in function.arguments[1:]]
    if not typed_macros:
        # One function over the union: slower (DuckDB builds the union row by row), same bytes.
        connection.create_function(
            name, _udf(function, keys, hex, threads), [VALUE_TYPE, *other_types], result_type,
            type="arrow", null_handling="special",
        )
        return
    overloads = []
    for member in ("varchar", "blob"):
        hidden = _HIDDEN.format(member=member, name=name)
        connection.create_function(
            hidden, _udf(function, keys, hex, threads), [member.upper(), *other_types],
            result_type, type="arrow",
            # Nulls are ours to keep: a null value, length or key name gives null.
            null_handling="special",
        )
        arguments = ", ".join(function.arguments)
        typed = ", ".join([f"value {member.upper()}", *function.arguments[1:]])
        overloads.append(f"({typed}) AS {hidden}({arguments})")
    connection.sql(f"CREATE OR REPLACE TEMP MACRO {name}" + ", ".join(overloads))
