"""Every table a caller may pass, as one schema and record batches read one at a time.

A source is a pyarrow ``Table``, ``RecordBatch``, ``RecordBatchReader`` or
``pyarrow.dataset.Dataset``, a path (a Parquet file, a directory of Parquet files with hive
partitions, or an Arrow IPC file: ``.arrow``, ``.feather``, ``.ipc``), or any object that
exports the Arrow PyCapsule interface (``__arrow_c_stream__``: Polars and pandas data frames,
DuckDB relations; ``__arrow_c_array__``: a struct array). Paths are read one row group at a
time (:func:`batchkeccak.parquet.file_batches`), so memory follows the row groups, not the
file.

Columns are compared by their *logical* type (``logical_type`` of the type table
:mod:`batchkeccak.inputs.arrow_types`): the string types are one type (``string``,
``large_string`` and ``string_view`` all encode a value as its UTF-8 bytes), so are the binary
ones, a dictionary column is its values, and a timestamp in any time zone is
``timestamp[unit, tz=UTC]`` (it stores UTC instants). That is what lets a table read from
Parquet, from an IPC file, by Polars (``string_view``), by pandas (``large_string``) or by
DuckDB (its session's time zone) give one digest.
"""

from __future__ import annotations

import os
import weakref
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path

import pyarrow as pa
import pyarrow.dataset as ds

from batchkeccak.arrow import ROW_TYPES, row_encodable
from batchkeccak.inputs.arrow_producers import exported, exported_stream
from batchkeccak.parquet import file_batches, open_dataset

BATCH_ROWS = 64 * 1024
"""Rows per record batch handed to a worker: enough that per-batch costs vanish, few enough
that every core gets batches to work on and a batch's row encoding stays small."""

IPC_SUFFIXES = (".arrow", ".feather", ".ipc")
"""File name endings read as Arrow IPC files; every other path is Parquet."""


@dataclass
class TableSource:
    """A source opened once: its schema, its row count where known without reading it, and
    its batches, as often as it can give them."""

    argument: str
    """The argument's name (``source``, ``a``, ``b``), for messages."""
    schema: pa.Schema
    rows: int | None
    rereadable: bool
    """False for a ``RecordBatchReader``: its batches can be read once."""
    _open: Callable[[list[str]], Iterator[pa.RecordBatch]]
    _reads: int = 0
    exclusive: bool = False
    """True for a producer that serves one query at a time (a DuckDB relation: its
    connection refuses a query while one of its results is open): two such sources are read
    one after another, never at once."""

    def batches(self, columns: Sequence[str]) -> Iterator[pa.RecordBatch]:
        """Record batches of ``columns`` (in that order), at most :data:`BATCH_ROWS` rows each."""
        if self._reads and not self.rereadable:
            raise ValueError(f"{self.argument}: a RecordBatchReader can be read only once")
        self._reads += 1
        for batch in self._open(list(columns)):
            if batch.num_rows > BATCH_ROWS:
                for start in range(0, batch.num_rows, BATCH_ROWS):
                    yield batch.slice(start, BATCH_ROWS)
            elif batch.num_rows:
                yield batch

    def check_columns(self, names: Sequence[str], role: str) -> None:
        """ValueError for a name the source lacks or holds twice, TypeError for a column
        without a row encoding; ``role`` says what the names are (``key``, ``columns``)."""
        present = list(self.schema.names)
        for name in names:
            count = present.count(name)
            if count == 0:
                raise no_column(role, [self], name)
            if count > 1:
                raise ValueError(f"{role}: {self.argument} has {count} columns named {name!r}")
            arrow_type = self.schema.field(name).type
            if not row_encodable(arrow_type):
                raise TypeError(
                    f"{self.argument}: column {name!r} has type {arrow_type}, which has no row "
                    f"encoding (leave it out with exclude={name!r}); supported: {ROW_TYPES}"
                )


def no_column(role: str, sources: Sequence[TableSource], name: str) -> ValueError:
    """The one wording of a column name that none of ``sources`` has: each source's columns
    listed in its schema's order (``key: a has no column named 'x'; it has [...]``)."""
    if len(sources) == 1:
        (source,) = sources
        return ValueError(
            f"{role}: {source.argument} has no column named {name!r}; it has "
            f"{list(source.schema.names)}"
        )
    owners = " nor ".join(source.argument for source in sources)
    lists = " and ".join(str(list(source.schema.names)) for source in sources)
    return ValueError(f"{role}: neither {owners} has a column named {name!r}; they have {lists}")


def _table_batches(table: pa.Table) -> Callable[[list[str]], Iterator[pa.RecordBatch]]:
    def read(columns: list[str]) -> Iterator[pa.RecordBatch]:
        return iter(table.select(columns).to_batches(max_chunksize=BATCH_ROWS))

    return read


def _dataset_source(dataset: ds.Dataset, argument: str, from_path: bool) -> TableSource:
    def read(columns: list[str]) -> Iterator[pa.RecordBatch]:
        if (
            from_path
            and isinstance(dataset, ds.FileSystemDataset)
            and isinstance(dataset.format, ds.ParquetFileFormat)
        ):
            return file_batches(dataset, BATCH_ROWS, columns)
        # A Dataset passed in may carry its own filters and options: pyarrow scans it as
        # given, reading ahead by one batch and one file.
        return iter(
            dataset.to_batches(
                columns=columns, batch_size=BATCH_ROWS, batch_readahead=1, fragment_readahead=1
            )
        )

    return TableSource(argument, dataset.schema, dataset.count_rows(), True, read)


def _one_query_at_a_time(producer: object) -> bool:
    """Whether ``producer`` is a DuckDB relation: its connection (``duckdb.sql``'s default
    one, or ``con``'s) refuses every query while one of its results is open."""
    return type(producer).__module__.split(".")[0] in ("duckdb", "_duckdb")


def _stream_source(producer: object, argument: str) -> TableSource:
    # The first stream serves the schema and the first read; each later read asks the
    # producer again (a Polars or pandas frame exports itself anew, a DuckDB relation
    # runs its query again). A DuckDB relation's first stream is closed at once: another
    # relation of the same connection (diff's other side) could not be opened beside it.
    first: list[pa.RecordBatchReader] = [exported_stream(producer, argument)]
    schema = first[0].schema
    exclusive = _one_query_at_a_time(producer)
    if exclusive:
        first.pop().close()

    def read(columns: list[str]) -> Iterator[pa.RecordBatch]:
        reader = first.pop() if first else exported_stream(producer, argument)
        try:
            for batch in reader:
                yield batch.select(columns)
        finally:
            reader.close()  # the connection takes the next query at once, not at collection

    return TableSource(argument, schema, None, True, read, exclusive=exclusive)


_READERS_READ: weakref.WeakSet = weakref.WeakSet()
"""The RecordBatchReaders whose batches a call began to read (their batches are gone)."""


def open_source(source: object, argument: str = "source") -> TableSource:
    """``source`` in any accepted form (see the module's description) as a :class:`TableSource`.

    Raises
    ------
    TypeError
        ``source`` is none of the accepted forms.
    FileNotFoundError, ValueError
        A path that does not exist or is not a readable Parquet or IPC file.
    """
    if isinstance(source, pa.RecordBatch):
        source = pa.Table.from_batches([source])
    if isinstance(source, pa.Table):
        return TableSource(argument, source.schema, source.num_rows, True, _table_batches(source))
    if isinstance(source, pa.RecordBatchReader):
        reader = source
        if reader in _READERS_READ:
            # A read reader gives no more batches: digesting it again would be the empty
            # table's digest, and a diff against it every row removed.
            raise ValueError(
                f"{argument}: this RecordBatchReader was read already (a reader can be read "
                "only once): pass a Table, a Dataset or a new reader"
            )

        def read_once(columns: list[str]) -> Iterator[pa.RecordBatch]:
            _READERS_READ.add(reader)
            for batch in reader:
                yield batch.select(columns)

        return TableSource(argument, reader.schema, None, False, read_once)
    if isinstance(source, ds.Dataset):
        return _dataset_source(source, argument, from_path=False)
    if isinstance(source, (str, os.PathLike)):
        path = Path(source)
        if path.suffix.lower() in IPC_SUFFIXES and not path.is_dir():
            if not path.exists():
                raise FileNotFoundError(f"{argument}: no such file: {str(path)!r}")
            try:
                dataset = ds.dataset(path, format="ipc")
            except pa.ArrowInvalid as exc:
                raise ValueError(
                    f"{argument}: {str(path)!r} is not a readable Arrow IPC file: {exc}"
                ) from None
            return _dataset_source(dataset, argument, from_path=True)
        dataset, _ = open_dataset(path, argument)
        return _dataset_source(dataset, argument, from_path=True)
    if hasattr(source, "__arrow_c_stream__"):
        return _stream_source(source, argument)
    if hasattr(source, "__arrow_c_array__"):
        batch = pa.record_batch(exported(source, "__arrow_c_array__", argument))
        return open_source(batch, argument)
    raise TypeError(
        f"{argument} must be a pyarrow Table, RecordBatch, RecordBatchReader or Dataset, a "
        "path to a Parquet or Arrow IPC file or dataset, or an object exporting the Arrow "
        f"PyCapsule interface (a Polars or pandas DataFrame, a DuckDB relation); got "
        f"{type(source).__name__}"
    )
