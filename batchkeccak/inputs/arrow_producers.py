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

from collections.abc import Iterator

import pyarrow as pa

__all__ = ["ColumnStream", "arrow_column", "arrow_table"]


class ColumnStream:
    """The one column of a stream of record batches, read one batch at a time.

    ``type`` is the column's type, known before any batch is read; ``chunks`` yields the
    column of each batch in turn (once: a stream is read only once).
    """

    def __init__(self, reader: pa.RecordBatchReader) -> None:
        self._reader = reader
        self.type: pa.DataType = reader.schema.field(0).type

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


def _import_stream(value: object) -> pa.RecordBatchReader | pa.ChunkedArray:
    """A producer's stream: a reader when it carries record batches, else a whole column."""
    # Which kind of stream this is: from the schema where the producer gives it apart (which
    # opens no stream), else from a first export.
    reads_schema = hasattr(type(value), "__arrow_c_schema__")
    try:
        if reads_schema:
            pa.schema(value)  # only a struct (a table's rows) imports as a schema
        return pa.RecordBatchReader.from_stream(value)
    except pa.ArrowInvalid as exc:
        if "non-struct" not in str(exc):
            raise
    # A stream of plain arrays (a Polars Series): producers without __arrow_c_schema__ export
    # a new stream on every call, so the column is asked for once more.
    return pa.chunked_array(value)


def _import(value: object, argument: str, function: str, forms: str):
    """``value`` as a pyarrow Array, ChunkedArray, RecordBatch, Table or RecordBatchReader."""
    if isinstance(value, (pa.Array, pa.ChunkedArray, pa.RecordBatch, pa.Table)):
        return value
    if isinstance(value, pa.RecordBatchReader):
        return value
    kind = type(value)
    try:
        if hasattr(kind, "__arrow_c_stream__"):
            return _import_stream(value)
        if hasattr(kind, "__arrow_c_array__"):
            array = pa.array(value)
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
