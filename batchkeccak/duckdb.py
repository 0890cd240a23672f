"""Every batchkeccak algorithm and mode as a DuckDB SQL function, and a row fingerprint.

After ``register(connection)``, ``SELECT sha3_256(email) FROM t`` hashes the column inside
DuckDB, and ``SELECT hash_rows(id, email) FROM t`` gives each row the digest that
:func:`batchkeccak.arrow.hash_rows` gives it. Each function is a vectorized (Arrow) Python
function: DuckDB hands it a vector of values (2048 rows) as Arrow arrays and takes the digests
back as one, so no Python object is made per row and the kernels run with the GIL released.

DuckDB keeps Python functions in its system catalog, which every connection and cursor of a
database shares, so the functions, and the keys they read, belong to the database: a
``con.cursor()`` on another thread calls them as ``con`` does.

DuckDB imports only when :func:`register` is called, never by ``import batchkeccak``.
"""

from __future__ import annotations

import re
import threading
import uuid
from collections.abc import Mapping
from dataclasses import dataclass, field

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from batchkeccak._sql import SqlFunction, check_keys, sql_functions
from batchkeccak.arrow import ROW_TYPES, encode_rows, hash_in_place, row_encodable
from batchkeccak.core import parallel
from batchkeccak.core.dispatch import kernels_loaded
from batchkeccak.support.extras import engine_import

__all__ = ["MAX_ROW_FIELDS", "ROW_FIELD_TYPES", "VALUE_TYPE", "register"]

VALUE_TYPE = "UNION(text VARCHAR, bytes BLOB)"
"""The value's SQL type where DuckDB has no typed macro parameters (older releases): one
Python function per name, over a union that DuckDB casts a VARCHAR or a BLOB to without
changing its bytes. It gives the same digests as the typed overloads, about 3x slower
(DuckDB builds the union row by row)."""

ROW_FIELD_TYPES = {
    "BOOLEAN": "BOOLEAN", "TINYINT": "TINYINT", "SMALLINT": "SMALLINT", "INTEGER": "INTEGER",
    "BIGINT": "BIGINT", "HUGEINT": "HUGEINT", "UTINYINT": "UTINYINT", "USMALLINT": "USMALLINT",
    "UINTEGER": "UINTEGER", "UBIGINT": "UBIGINT", "FLOAT": "FLOAT", "DOUBLE": "DOUBLE",
    "DATE": "DATE", "TIME": "TIME", "TIMESTAMP": "TIMESTAMP", "TIMESTAMP_S": "TIMESTAMP_S",
    "TIMESTAMP_MS": "TIMESTAMP_MS", "TIMESTAMP_NS": "TIMESTAMP_NS",
    "TIMESTAMPTZ": "TIMESTAMP WITH TIME ZONE", "UUID": "UUID", "VARCHAR": "VARCHAR",
    "BLOB": "BLOB",
}  # fmt: skip
"""The SQL types ``hash_rows`` and ``encode_row`` take a field of, to what ``typeof`` calls
them. Each is read as DuckDB hands it to Arrow (``HUGEINT`` as ``decimal128(38, 0)``, ``UUID``
as its text...), which is what ``batchkeccak.arrow.hash_rows`` reads from the same query's
``.to_arrow_table()``; an ``ENUM`` field is read as its ``VARCHAR``. Any other type is an
error naming it (a ``DECIMAL`` would otherwise be cast to ``DOUBLE`` and hash differently):
cast it."""

MAX_ROW_FIELDS = 32
"""The most fields ``hash_rows(...)`` takes in SQL: one macro overload per count, each bound
when it is created, so more would make every ``register`` slower. A wider row is the
concatenation of its parts' encodings: ``sha3_256(encode_row(a, ...) || encode_row(b, ...))``."""

_ROW_ALGORITHM = "sha3_256"
"""The hash of SQL ``hash_rows``, as of :func:`batchkeccak.arrow.hash_rows`' default; any
other is ``name(encode_row(...))``."""

_SQL_TYPES = {"value": VALUE_TYPE, "key_name": "VARCHAR", "n": "BIGINT",
              "customization": "VARCHAR"}  # fmt: skip

_PREFIX = re.compile(r"(?:[A-Za-z_][A-Za-z0-9_]*)?")
"""An empty prefix, or the start of a SQL identifier: it is written into SQL text."""

_HIDDEN_START = "_bk_"
"""How the names of the Python functions and helper macros behind the SQL names begin."""

_register_lock = threading.Lock()


def _import_duckdb():
    with engine_import("duckdb", "DuckDB"):
        import duckdb
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


@dataclass
class _Settings:
    """What the Python functions of one database hash with: replaced as a whole when
    :func:`register` runs again, so a call reads one consistent set."""

    keys: Mapping[str, bytes]
    threads: int
    caches: dict = field(default_factory=dict)
    """Per hidden function name: its resolved hashers by arguments (see SqlFunction.resolve)."""
    one_calls: dict = field(default_factory=dict)
    """Per hidden function name: its one-call kernel and width, or False (see _one_call)."""


class _Registration:
    """The Python functions of one DuckDB database, and the settings they read.

    DuckDB keeps them in its system catalog, shared by every connection and cursor of the
    database, where they stay; a later :func:`register` from any of them finds this object
    through the token that ``_bk_registration()`` returns, and replaces its settings.
    """

    def __init__(self, settings: _Settings, typed_macros: bool) -> None:
        self.token = uuid.uuid4().hex
        self.settings = settings
        self.typed_macros = typed_macros
        self.functions: list = []
        """The Python functions created for it, kept alive with it: see _registrations."""


_registrations: dict[str, _Registration] = {}
"""By token, for the life of the process. DuckDB's catalog does not own a Python function: the
connection that created it does, and a call after that connection (a cursor, say) is gone
would read freed memory. So every registration, and the functions it holds, stays here."""


def _one_call(function: SqlFunction, hidden: str, settings: _Settings):
    """``(kernel, output length)`` of ``name(value)``'s hasher, for vectors hashed in one
    kernel call each; None while the kernels are not loaded (until then the dispatcher may
    give small work to hashlib, and keeps the account of it); False where there is no such
    path (a mode without a one-call kernel, or threads of its own per call)."""
    if settings.threads != 1:
        return False
    if not kernels_loaded():
        return None
    cache = settings.caches.setdefault(hidden, {})
    resolved = function.resolve((), settings.keys, settings.threads, cache)
    kernel = resolved.one_call()
    return False if kernel is None else (kernel, resolved.output_length)


def _udf(function: SqlFunction, hidden: str, registration: _Registration, hex: bool):
    def hashed(values, arguments):
        settings = registration.settings
        return function.digests(
            union_values(values),
            arguments,
            settings.keys,
            hex=hex,
            threads=settings.threads,
            cache=settings.caches.setdefault(hidden, {}),
        )

    # DuckDB reads the number of arguments from the Python signature: one function per arity.
    arity = len(function.arguments)
    if arity == 1:

        def digests(values):
            # DuckDB calls once per vector of 2048 values, from several threads that share
            # the GIL: every Python step here is paid once per vector, while the GIL is held.
            settings = registration.settings
            one_call = settings.one_calls.get(hidden)
            if one_call is None:
                one_call = _one_call(function, hidden, settings)
                if one_call is not None:
                    settings.one_calls[hidden] = one_call
            if one_call and isinstance(values, pa.ChunkedArray) and values.num_chunks == 1:
                result = hash_in_place(values.chunk(0), one_call[0], one_call[1], hex)
                if result is not None:
                    return result
            return hashed(values, [])
    elif arity == 2:

        def digests(values, a):  # type: ignore[misc]  # one signature per arity
            return hashed(values, [a])
    else:

        def digests(values, a, b):  # type: ignore[misc]  # one signature per arity
            return hashed(values, [a, b])

    digests.__name__ = digests.__qualname__ = hidden
    return digests


def _field_encoder(values: pa.Array | pa.ChunkedArray) -> pa.Array:
    """Each value's field in the row encoding of :func:`batchkeccak.arrow.encode_rows`:
    ``0x00`` for a null, else ``0x01``, the 8-byte length and the bytes."""
    if isinstance(values, pa.ChunkedArray):
        values = values.combine_chunks() if values.num_chunks != 1 else values.chunk(0)
    if not row_encodable(values.type):  # a nested value holding a type without an encoding
        raise TypeError(
            f"hash_rows: a field of type {values.type} has no row encoding (a nested value "
            f"encodes when everything in it does: {ROW_TYPES}); cast it"
        )
    rows = encode_rows(pa.RecordBatch.from_arrays([values], ["value"]))
    return pa.Array.from_buffers(
        pa.large_binary(),
        len(values),
        [None, pa.py_buffer(rows.offsets), pa.py_buffer(rows.data)],
    )


def _check_prefix(prefix: object) -> str:
    if not isinstance(prefix, str):
        raise TypeError(f"prefix must be a str, got {type(prefix).__name__}")
    if not _PREFIX.fullmatch(prefix):
        raise ValueError(
            "prefix must be empty or start a SQL identifier (ASCII letters, digits and _, "
            f"not starting with a digit), got {prefix!r}"
        )
    if prefix.lower().startswith(_HIDDEN_START):
        raise ValueError(
            f"prefix must not start with {_HIDDEN_START!r}, which begins the names of "
            f"batchkeccak's hidden functions; got {prefix!r}"
        )
    return prefix


def register(
    connection,
    *,
    keys: Mapping[str, bytes] | None = None,
    prefix: str = "",
    threads: int | None = None,
    hex: bool = False,
) -> tuple[str, ...]:
    """Add every algorithm and mode of batchkeccak to ``connection``'s database as SQL
    functions, with ``hash_rows`` and ``encode_row`` for whole rows.

    Each name takes a ``VARCHAR`` (hashed as its UTF-8 bytes) or a ``BLOB`` as its first
    argument and returns ``BLOB`` digests (lowercase hex ``VARCHAR`` with ``hex=True``);
    ``name_hex`` returns lowercase hex ``VARCHAR`` either way. Null values (or a null length
    or key name) give null.

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
    ``hash_rows(field, ...)``                     SHA3-256 of the row, as
                                                  ``batchkeccak.arrow.hash_rows``
    ``encode_row(field, ...)``                    the row's bytes (``BLOB``) that
                                                  ``hash_rows`` hashes
    ============================================  ======================================

    Parameters
    ----------
    connection
        A ``duckdb.DuckDBPyConnection`` (``duckdb.connect()``) or one of its cursors.
    keys
        Key names to key bytes, for the keyed modes: ``kmac_256(email, 'pii', 32)`` hashes
        with ``keys["pii"]``. The bytes never appear in SQL text, so they stay out of query
        logs and plans. An unknown name is an error when the query runs. The keys belong to
        the database: registering again, from any of its connections, replaces them.
    prefix
        Put before every name (``prefix="bk_"`` registers ``bk_sha3_256``...): empty, or the
        start of a SQL identifier (ASCII letters, digits and ``_``). None of the names clash
        with DuckDB's own functions today; a name that does (in a later DuckDB, or from an
        extension) raises ValueError rather than hiding DuckDB's function.
    threads
        Hashing threads per call. None (the default) hashes on the thread DuckDB calls from:
        DuckDB already calls from several of its threads at once (its ``threads`` setting),
        and a vector of 2048 values is too little work to share out again.
    hex
        Plain names return lowercase hex ``VARCHAR``, as DuckDB's own ``sha256`` does,
        instead of ``BLOB``.

    Returns
    -------
    tuple of str
        The SQL names registered.

    Raises
    ------
    TypeError
        ``keys`` is not a mapping of str to bytes, ``prefix`` is not a str, or ``hex`` is not
        a bool.
    ValueError
        ``prefix`` is not the start of an identifier, or a name would shadow one of DuckDB's
        own functions. Nothing is registered then.

    Notes
    -----
    A DuckDB Python function has one signature per name, so each name is a macro with two
    typed overloads, ``(value VARCHAR, ...)`` and ``(value BLOB, ...)``, each calling a Python
    function registered as ``_bk_varchar_<name>`` / ``_bk_blob_<name>``. The macro is
    expanded when the query is planned and costs nothing per row. Other value types are a
    binder error ("does not support the supplied arguments"): cast them first. Where DuckDB
    has no typed macro parameters, each name calls one function over :data:`VALUE_TYPE`, and
    ``hash_rows`` and ``encode_row`` are not registered.

    On an in-memory database the macros are the database's, so every cursor, made before or
    after, sees them. On a database file (or a read-only one) they are temporary macros of
    ``connection``, since DuckDB would otherwise store them in the file: call ``register``
    on each cursor there (it reuses the database's Python functions and adds only the
    macros).
    """
    duckdb = _import_duckdb()
    checked_keys = check_keys(keys)
    prefix = _check_prefix(prefix)
    if not isinstance(hex, bool):
        raise TypeError(f"hex must be a bool, got {type(hex).__name__}")
    threads = 1 if threads is None else parallel.resolve_threads(threads)
    settings = _Settings(checked_keys, threads)
    functions = sql_functions()
    with _register_lock:
        registration = _find_registration(connection)
        typed_macros = (
            registration.typed_macros
            if registration is not None
            else _supports_typed_macros(connection, duckdb)
        )
        macros = _macros(functions, prefix, hex, typed_macros)
        theirs = _other_functions(connection)
        for name in macros:
            if name.lower() in theirs:
                raise ValueError(
                    f"DuckDB already has a function named {name!r}; pass prefix= "
                    "(for example prefix='bk_') so that it stays reachable"
                )
        if registration is None:
            registration = _Registration(settings, typed_macros)
            _create_python_functions(connection, functions, registration)
        _create_macros(connection, macros, typed_macros)
        # New keys and threads for every connection, once nothing can fail any more.
        registration.settings = settings
    return tuple(macros)


def _find_registration(connection) -> _Registration | None:
    """The registration of ``connection``'s database, when one was made in this process."""
    present = connection.sql(
        "SELECT count(*) FROM duckdb_functions() WHERE function_name = '_bk_registration'"
    ).fetchall()[0][0]
    if not present:
        return None
    token = connection.sql("SELECT _bk_registration()").fetchall()[0][0]
    registration = _registrations.get(token)
    if registration is None:  # pragma: no cover - the catalog holds it while it exists
        raise RuntimeError("this DuckDB database holds batchkeccak functions of another import")
    return registration


def _other_functions(connection) -> set[str]:
    """Every function name of the catalog but this package's, lowercase (SQL names are
    case-insensitive)."""
    rows = connection.sql(
        "SELECT DISTINCT function_name, function_type, macro_definition FROM duckdb_functions()"
    ).fetchall()
    ours, theirs = set(), set()
    for name, kind, definition in rows:
        if name.lower().startswith(_HIDDEN_START) or (
            kind == "macro" and str(definition).startswith(_HIDDEN_START)
        ):
            ours.add(name.lower())  # an earlier register's: CREATE OR REPLACE replaces it
        else:
            theirs.add(name.lower())
    return theirs - ours


def _supports_typed_macros(connection, duckdb) -> bool:
    # Typed macro parameters give one name two signatures; older DuckDB releases lack them.
    try:
        connection.sql("CREATE OR REPLACE TEMP MACRO _bk_probe(x VARCHAR) AS x")
    except duckdb.Error:
        return False
    connection.sql("DROP MACRO IF EXISTS _bk_probe")
    return True


def _hidden(member: str, name: str, hex: bool) -> str:
    return f"{_HIDDEN_START}{member}_{name}" + ("_hex" if hex else "")


def _field_encoder_name(sql_type: str) -> str:
    return f"{_HIDDEN_START}field_{sql_type.lower()}"


def _create_python_functions(connection, functions, registration: _Registration) -> None:
    """Every Python function behind the SQL names, once per database: in DuckDB's system
    catalog, where all its connections find them."""
    token = registration.token
    _registrations[token] = registration
    created = registration.functions

    def create(name, function, *args, **kwargs):
        created.append(function)
        connection.create_function(name, function, *args, **kwargs)

    create("_bk_registration", lambda: token, [], "VARCHAR", side_effects=False)
    members = ("varchar", "blob") if registration.typed_macros else ("union",)
    for function in functions.values():
        other_types = [_SQL_TYPES[argument] for argument in function.arguments[1:]]
        for hex in (False, True):
            for member in members:
                hidden = _hidden(member, function.name, hex)
                value_type = VALUE_TYPE if member == "union" else member.upper()
                create(
                    hidden,
                    _udf(function, hidden, registration, hex),
                    [value_type, *other_types],
                    "VARCHAR" if hex else "BLOB",
                    type="arrow",
                    # Nulls are ours to keep: a null value, length or key name gives null.
                    null_handling="special",
                )
    if registration.typed_macros:
        for sql_type in ROW_FIELD_TYPES:
            create(
                _field_encoder_name(sql_type),
                _field_encoder,
                [sql_type],
                "BLOB",
                type="arrow",
                null_handling="special",
            )
        # LIST, ARRAY, STRUCT and MAP of any children: one function without parameter types
        # (DuckDB then passes every type as it is, uncast), as Arrow hands the value over.
        create(
            _field_encoder_name(_NESTED),
            _field_encoder,
            None,
            "BLOB",
            type="arrow",
            null_handling="special",
        )


_NESTED = "NESTED"
"""The name of the field encoder of nested SQL values (LIST, ARRAY, STRUCT, MAP)."""
_NESTED_TYPE = (
    "(ends_with(t, ']') OR starts_with(t, 'STRUCT(') OR starts_with(t, 'MAP(')) "
    "AND NOT starts_with(t, 'UNION(')"
)
"""SQL: whether ``typeof`` names a nested type (``INTEGER[]``, ``VARCHAR[3]``,
``STRUCT(...)``, ``MAP(...)``)."""


def _field_names(count: int) -> list[str]:
    return [f"field_{i}" for i in range(1, count + 1)]


def _encoded_row(count: int) -> str:
    return " || ".join(
        f"{_HIDDEN_START}row_field({name}, typeof({name}))" for name in _field_names(count)
    )


def _macros(functions, prefix: str, hex: bool, typed_macros: bool) -> dict[str, str]:
    """Each SQL name and the overloads of its macro, in ``CREATE MACRO`` syntax."""
    macros = {}
    for function in functions.values():
        arguments = ", ".join(function.arguments)
        for suffix, returns_hex in (("", hex), ("_hex", True)):
            if not typed_macros:
                hidden = _hidden("union", function.name, returns_hex)
                macros[prefix + function.name + suffix] = f"({arguments}) AS {hidden}({arguments})"
                continue
            overloads = []
            for member in ("varchar", "blob"):
                typed = ", ".join([f"value {member.upper()}", *function.arguments[1:]])
                hidden = _hidden(member, function.name, returns_hex)
                overloads.append(f"({typed}) AS {hidden}({arguments})")
            macros[prefix + function.name + suffix] = ", ".join(overloads)
    if not typed_macros:
        return macros
    counts = range(1, MAX_ROW_FIELDS + 1)
    macros[prefix + "encode_row"] = ", ".join(
        f"({', '.join(_field_names(n))}) AS {_encoded_row(n)}" for n in counts
    )
    for suffix, returns_hex in (("", hex), ("_hex", True)):
        hidden = _hidden("blob", _ROW_ALGORITHM, returns_hex)
        macros[prefix + "hash_rows" + suffix] = ", ".join(
            f"({', '.join(_field_names(n))}) AS {hidden}({_encoded_row(n)})" for n in counts
        )
    return macros


def _row_field_macro() -> str:
    """``_bk_row_field(x, typeof(x))``: one typed overload per field type, each checking
    that DuckDB did not cast the value to reach it."""
    accepted_types = ", ".join(ROW_FIELD_TYPES)
    overloads = []
    for sql_type, type_name in ROW_FIELD_TYPES.items():
        accepted = f"t = '{type_name}'"
        if sql_type == "VARCHAR":
            accepted += " OR starts_with(t, 'ENUM(')"  # read as its text, as Arrow does
        overloads.append(
            f"(x {sql_type}, t) AS CASE WHEN {accepted} THEN {_field_encoder_name(sql_type)}(x) "
            f"ELSE error('hash_rows: a field of type ' || t || ' has no row encoding in SQL; "
            f"cast it to one of {accepted_types}') END"
        )
    # Every other type: LIST, ARRAY, STRUCT and MAP are read as Arrow hands them over (their
    # values uncast: the nested encoder checks every child); the rest (INTERVAL, TIMETZ,
    # BIT...) get an untyped overload, so that DuckDB binds it and the message names the
    # type, rather than a binder error about this macro.
    overloads.append(
        f"(x, t) AS CASE WHEN {_NESTED_TYPE} THEN {_field_encoder_name(_NESTED)}(x) "
        f"ELSE error('hash_rows: a field of type ' || t || ' has no row encoding in SQL; "
        f"cast it to one of {accepted_types} (or a LIST, ARRAY, STRUCT or MAP of "
        "those)')::BLOB END"
    )
    return ", ".join(overloads)


def _quoted(name: str) -> str:
    return '"' + name.replace('"', '""') + '"'


def _create_macros(connection, macros: dict[str, str], typed_macros: bool) -> None:
    """The macros of one register call, in one transaction: a failure leaves none of them,
    and a query of another cursor never sees them half replaced."""
    path, read_only = connection.sql(
        "SELECT path, readonly FROM duckdb_databases() WHERE database_name = current_database()"
    ).fetchall()[0]
    # A database file would keep the macros, calling functions that only this process has.
    scope = "" if path is None and not read_only else "TEMP "
    statements = []
    if typed_macros:
        # A macro's body is bound when it is created, and an argument of no type yet matches
        # every typed overload of the field macro: the row macros are created against a
        # one-overload stand-in, which the typed overloads then replace.
        row_field = _quoted(f"{_HIDDEN_START}row_field")
        statements.append(f"CREATE OR REPLACE {scope}MACRO {row_field}(x, t) AS NULL::BLOB")
    statements += [
        f"CREATE OR REPLACE {scope}MACRO {_quoted(name)}{overloads}"
        for name, overloads in macros.items()
    ]
    if typed_macros:
        statements.append(f"CREATE OR REPLACE {scope}MACRO {row_field}{_row_field_macro()}")
    ours = _begin(connection)
    try:
        for statement in statements:
            connection.execute(statement)
    except BaseException:
        if ours:
            connection.execute("ROLLBACK")
        raise
    if ours:
        connection.execute("COMMIT")


def _begin(connection) -> bool:
    """Start a transaction unless one is open; whether this call started it."""
    # A failed BEGIN would abort the caller's open transaction: ask first. Outside a
    # transaction every statement is one of its own, with a new id.
    first, second = (connection.sql("SELECT txid_current()").fetchall()[0][0] for _ in range(2))
    if first == second:
        return False
    connection.execute("BEGIN TRANSACTION")
    return True
