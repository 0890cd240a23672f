"""Any Arrow producer as pyarrow data: the one adapter every Arrow entry point calls.

``hash_many``, :func:`batchkeccak.arrow.hash_array`, :func:`batchkeccak.arrow.hash_rows` and
:func:`batchkeccak.parquet.hash_file` take pyarrow objects, and any object that exports the
Arrow PyCapsule interface (``__arrow_c_array__``, ``__arrow_c_stream__``): Polars Series and
DataFrames, DuckDB relations, pandas Series and DataFrames, nanoarrow and arro3 arrays,
tables and streams. Each is read here, once, into pyarrow objects over the producer's own
memory (the C data interface moves buffers, it copies none):

- an object with ``__arrow_c_stream__`` whose stream is of record batches (a table: a
  DataFrame, a DuckDB relation, a reader) becomes a ``pa.RecordBatchReader``, read one batch
  at a time, so memory follows the batch, not the table;
- any other stream (a column: a Polars Series, a chunked nanoarrow or arro3 array) becomes a
  ``pa.ChunkedArray`` (a column's chunks are already in the producer's memory);
- an object with ``__arrow_c_array__`` only becomes a ``pa.Array``, or a ``pa.RecordBatch``
  when it is a struct (a record batch).

A table stands for a column where one column is wanted only when it has exactly one column
(``SELECT email FROM users``); nothing else is guessed. pyarrow's own objects pass through
as they are.
"""

from __future__ import annotations

import ctypes
import functools
from collections.abc import Callable, Iterator
from contextvars import ContextVar
from typing import TypeVar

import pyarrow as pa

__all__ = [
    "ColumnStream",
    "arrow_column",
    "arrow_table",
    "exported",
    "exported_stream",
    "release",
    "releases_on_error",
]


class ColumnStream:
    """The one column of a stream of record batches, read one batch at a time.

    ``type`` is the column's type, known before any batch is read; ``chunks`` yields the
    column of each batch in turn (once: a stream is read only once).
    """

    def __init__(self, reader: pa.RecordBatchReader) -> None:
        self._reader = reader
        self.type: pa.DataType = reader.schema.field(0).type

    def close(self) -> None:
        """Release the producer's stream (a DuckDB connection takes no query while one of
        its results is open)."""
        self._reader.close()

    @property
    def chunks(self) -> Iterator[pa.Array]:
        for batch in self._reader:
            yield batch.column(0)


TABLE_FORMS = (
    "a pyarrow Table, RecordBatch or RecordBatchReader, or an object exporting record "
    "batches through the Arrow PyCapsule interface (a Polars or pandas DataFrame, a DuckDB "
    "relation)"
)
COLUMN_FORMS = (
    "a pyarrow Array or ChunkedArray, or an object exporting one column through the Arrow "
    "PyCapsule interface (a Polars or pandas Series, a nanoarrow or arro3 array)"
)


CAPSULE_NAMES = {
    "__arrow_c_schema__": ("arrow_schema",),
    "__arrow_c_array__": ("arrow_schema", "arrow_array"),
    "__arrow_c_stream__": ("arrow_array_stream",),
}
"""What each method of the Arrow PyCapsule interface returns: capsules of these names."""

_capsule_name = ctypes.pythonapi.PyCapsule_GetName
_capsule_name.restype = ctypes.c_char_p
_capsule_name.argtypes = [ctypes.py_object]


def _name_of(capsule: object) -> str | None:
    """A capsule's name (quoted), None for anything that is not a capsule."""
    if type(capsule).__name__ != "PyCapsule":
        return None
    name = _capsule_name(capsule)
    return repr(None if name is None else name.decode("utf-8", "replace"))


def _capsules(names: tuple[str, ...]) -> str:
    listed = names[0] if len(names) == 1 else ", ".join(names[:-1]) + " and " + names[-1]
    return ("capsules named " if len(names) > 1 else "a capsule named ") + listed


class _Exported:
    """Capsules already taken from a producer, handed to pyarrow as a producer of its own:
    the producer is asked once, and what it returned is checked first."""

    def __init__(self, capsules: object) -> None:
        self._capsules = capsules

    def __arrow_c_schema__(self) -> object:
        return self._capsules

    def __arrow_c_array__(self, requested_schema: object = None) -> object:
        return self._capsules

    def __arrow_c_stream__(self, requested_schema: object = None) -> object:
        return self._capsules


def exported(value: object, method: str, argument: str, function: str = "") -> _Exported:
    """``value.method()``, checked: the capsules the Arrow PyCapsule interface names, else a
    TypeError naming ``argument`` (after ``function``, where given) and what was expected.
    The one check every entry point's producer goes through; what it returns is a producer
    that gives pyarrow those capsules, once."""
    capsules = getattr(value, method)()
    expected = tuple(repr(name) for name in CAPSULE_NAMES[method])
    parts = capsules if isinstance(capsules, tuple) else (capsules,)
    names = tuple(_name_of(part) for part in parts)
    if names != expected:
        got = (
            _capsules(names)  # type: ignore[arg-type]  # no None among them
            if parts and None not in names
            else f"{type(capsules).__name__} {capsules!r:.60}"
        )
        where = f"{function}: {argument}" if function else argument
        raise TypeError(f"{where}: {method} returned {got}, expected {_capsules(expected)}")
    return _Exported(capsules)


def exported_stream(value: object, argument: str, function: str = "") -> pa.RecordBatchReader:
    """``value.__arrow_c_stream__()`` (checked as :func:`exported` checks) as a reader,
    closed if the entry point that opened it (see :func:`releases_on_error`) raises."""
    reader = pa.RecordBatchReader.from_stream(
        exported(value, "__arrow_c_stream__", argument, function)
    )
    opened = _opened.get()
    if opened is not None:
        opened.append(reader)
    return reader


_opened: ContextVar[list[pa.RecordBatchReader] | None] = ContextVar("_opened", default=None)
"""The streams opened during the outermost :func:`releases_on_error` call now running."""

F = TypeVar("F", bound=Callable)


def releases_on_error(function: F) -> F:
    """Make ``function`` close every producer's stream it opened before an exception leaves
    it: a DuckDB connection refuses every query while one of its results is open, and the
    exception's traceback would hold the stream for as long as the exception lives."""

    @functools.wraps(function)
    def wrapper(*args: object, **kwargs: object) -> object:
        if _opened.get() is not None:  # an outer entry point is watching already
            return function(*args, **kwargs)
        token = _opened.set([])
        try:
            return function(*args, **kwargs)
        except BaseException:
            for reader in _opened.get() or ():
                reader.close()
            raise
        finally:
            _opened.reset(token)

    return wrapper  # type: ignore[return-value]  # functools.wraps keeps the signature


def release(imported: object) -> None:
    """Close what an import holds of a producer's memory (a reader, a column stream), so that
    an error raised after it leaves no stream open. Nothing for pyarrow's other objects."""
    if isinstance(imported, (pa.RecordBatchReader, ColumnStream)):
        imported.close()


def _import_stream(
    value: object, argument: str, function: str
) -> pa.RecordBatchReader | pa.ChunkedArray:
    """A producer's stream: a reader when it carries record batches, else a whole column."""
    # Which kind of stream this is: from the schema where the producer gives it apart (which
    # opens no stream), else from a first export.
    reads_schema = hasattr(type(value), "__arrow_c_schema__")
    try:
        if reads_schema:
            # only a struct (a table's rows) imports as a schema
            pa.schema(exported(value, "__arrow_c_schema__", argument, function))
        return exported_stream(value, argument, function)
    except pa.ArrowInvalid as exc:
        if "non-struct" not in str(exc):
            raise
    # A stream of plain arrays (a Polars Series): producers without __arrow_c_schema__ export
    # a new stream on every call, so the column is asked for once more.
    return pa.chunked_array(exported(value, "__arrow_c_stream__", argument, function))


def _import(value: object, argument: str, function: str, forms: str):
    """``value`` as a pyarrow Array, ChunkedArray, RecordBatch, Table or RecordBatchReader."""
    if isinstance(value, (pa.Array, pa.ChunkedArray, pa.RecordBatch, pa.Table)):
        return value
    if isinstance(value, pa.RecordBatchReader):
        return value
    kind = type(value)
    try:
        if hasattr(kind, "__arrow_c_stream__"):
            return _import_stream(value, argument, function)
        if hasattr(kind, "__arrow_c_array__"):
            array = pa.array(exported(value, "__arrow_c_array__", argument, function))
            if pa.types.is_struct(array.type):
                if array.null_count:
                    raise TypeError(
                        f"{function}: {argument} is a struct array with {array.null_count} "
                        "null row(s), not a table; pass its fields, or hash_rows over a table"
                    )
                return pa.RecordBatch.from_struct_array(array)
            return array
    except pa.ArrowException as exc:
        raise TypeError(
            f"{function}: {argument} ({kind.__name__}) could not be read through the Arrow "
            f"PyCapsule interface: {exc}"
        ) from exc
    raise TypeError(f"{function}: {argument} must be {forms}, got {kind.__name__}")


def arrow_column(
    values: object, argument: str = "values", function: str = "hash_array"
) -> pa.Array | pa.ChunkedArray | ColumnStream:
    """``values`` as one Arrow column: a ``pa.Array``, a ``pa.ChunkedArray`` or, for a
    stream of record batches of one column, a :class:`ColumnStream` read batch by batch.

    A table (Table, RecordBatch, reader or a producer of record batches) is its one column;
    a table of several columns raises TypeError naming them.
    """
    imported = _import(values, argument, function, COLUMN_FORMS)
    if isinstance(imported, (pa.Array, pa.ChunkedArray)):
        return imported
    schema = imported.schema
    if len(schema) != 1:
        release(imported)  # a DuckDB connection takes no query while its stream is open
        raise TypeError(
            f"{function}: {argument} is a table of {len(schema)} columns {schema.names}; "
            "pass one column (table['name'], or SELECT one column), or use hash_rows"
        )
    if isinstance(imported, (pa.Table, pa.RecordBatch)):
        return imported.column(0)
    return ColumnStream(imported)


def arrow_table(
    table: object, argument: str = "table", function: str = "hash_rows"
) -> pa.Table | pa.RecordBatch | pa.RecordBatchReader:
    """``table`` as a pyarrow Table, RecordBatch or (for a stream) RecordBatchReader.

    A column (an Array, a Series) is refused with TypeError: a row needs named columns.
    """
    imported = _import(table, argument, function, TABLE_FORMS)
    if isinstance(imported, (pa.Array, pa.ChunkedArray)):
        raise TypeError(
            f"{function}: {argument} must be {TABLE_FORMS}, got a column of type "
            f"{imported.type} ({type(table).__name__})"
        )
    return imported
