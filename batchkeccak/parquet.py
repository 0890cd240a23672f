"""Add digest columns to a Parquet file or dataset, streaming one record batch at a time.

Files are read with ``ParquetFile.iter_batches`` (one row group decoded at a time), batches of
``batch_size`` rows get their digest columns (:func:`batchkeccak.arrow.hash_array`) and go
straight to a ``ParquetWriter``. Memory therefore follows the batch and the source's row
groups, not the file. The output is written to a temporary file beside ``dst`` and renamed
over it only once complete, so an error or a crash leaves the old ``dst`` (or none), never
half a file; a ``dst`` that is a device or a FIFO (``/dev/stdout`` into a pipe) is written
through as a stream (:mod:`batchkeccak.support.output`).
"""

from __future__ import annotations

import errno
import os
import time
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.dataset as ds
import pyarrow.parquet as pq

from batchkeccak.api import hasher
from batchkeccak.arrow import hash_array
from batchkeccak.core.hashers import Hasher
from batchkeccak.core.parameters import Algorithm
from batchkeccak.inputs import exports_arrow
from batchkeccak.inputs.arrow_buffers import check_hashable_type
from batchkeccak.inputs.arrow_producers import arrow_table, releases_on_error
from batchkeccak.permutation.constants import TILE_WIDTH
from batchkeccak.support.checks import check_int
from batchkeccak.support.output import arrow_sink, check_output_path, open_output
from batchkeccak.support.progress import progress_bar

__all__ = ["DIGEST_MARK", "HashFileReport", "hash_file"]

DEFAULT_BATCH_SIZE = 128 * 1024
"""Rows per record batch: large enough that per-batch costs vanish, small enough that a batch
of wide rows stays in the tens of megabytes."""

_WRITER_CODECS = {"none", "snappy", "gzip", "brotli", "zstd", "lz4", "lz4_raw"}


@dataclass
class HashFileReport:
    """What :func:`hash_file` did and where its time went.

    The three phase times are the wall time the loop spent in each step. (A Dataset object
    passed in is scanned by pyarrow, which decodes ahead on its own threads: ``read_seconds``
    then counts only the time spent waiting for it.)
    """

    path: Path
    """The file written."""
    rows: int
    batches: int
    decoded_bytes: int
    """Arrow size of the batches read (all columns, decompressed and decoded)."""
    digest_columns: dict[str, str] = field(default_factory=dict)
    """Source column -> digest column name."""
    read_seconds: float = 0.0
    hash_seconds: float = 0.0
    write_seconds: float = 0.0
    total_seconds: float = 0.0
    load_seconds: float = 0.0
    """Time spent loading the kernels (numba's first compile, or its cache load) before the
    clock started: in none of the figures above."""

    @property
    def rows_per_second(self) -> float:
        return self.rows / self.total_seconds if self.total_seconds else 0.0

    @property
    def megabytes_per_second(self) -> float:
        return self.decoded_bytes / 1e6 / self.total_seconds if self.total_seconds else 0.0


def _open_source(src: object) -> tuple[ds.Dataset | pa.RecordBatchReader, Path | None]:
    """hash_file's ``src``: a path or Dataset (:func:`open_dataset`), or a table from any
    Arrow producer (a stream stays a reader, read once, one batch at a time)."""
    if isinstance(src, (ds.Dataset, str, os.PathLike)):
        return open_dataset(src)
    if not exports_arrow(src):
        raise TypeError(
            "src must be a path, a pyarrow.dataset.Dataset or a table (pyarrow, or any "
            f"object with the Arrow PyCapsule interface), got {type(src).__name__}"
        )
    table = arrow_table(src, "src", "hash_file")
    if isinstance(table, pa.RecordBatchReader):
        return table, None
    if isinstance(table, pa.RecordBatch):
        table = pa.Table.from_batches([table])
    return ds.dataset(table), None


def open_dataset(src: object, argument: str = "src") -> tuple[ds.Dataset, Path | None]:
    """``src`` (a Parquet file, a directory of them with hive partitions, or a Dataset) as a
    Dataset, with its path when it was given one; errors name ``argument``."""
    if isinstance(src, ds.Dataset):
        return src, None
    if not isinstance(src, (str, os.PathLike)):
        raise TypeError(
            f"{argument} must be a path or a pyarrow.dataset.Dataset, got {type(src).__name__}"
        )
    path = Path(src)
    if not path.exists():
        # errno and the path as OSError's own fields: the command line reports it as every
        # missing file, "PATH: No such file or directory".
        raise FileNotFoundError(errno.ENOENT, f"{argument}: no such file or directory", str(path))
    kind = _special_file_kind(path)
    if kind is not None:
        raise ValueError(
            f"{argument}: {str(path)!r} is {kind}, not a Parquet file or a folder of them"
        )
    try:
        if path.is_dir():
            dataset = ds.dataset(path, format="parquet", partitioning="hive")
            if not dataset.files:
                raise ValueError(f"{argument}: the folder {str(path)!r} holds no Parquet files")
            return dataset, path
        return ds.dataset(path, format="parquet"), path
    except pa.ArrowInvalid as exc:
        raise ValueError(f"{argument}: {str(path)!r} {_what_it_is(path, exc)}") from None


def _special_file_kind(path: Path) -> str | None:
    """What ``path`` is when it is neither a regular file nor a folder (None otherwise)."""
    import stat

    mode = path.stat().st_mode
    kinds = (
        (stat.S_ISCHR, "a character device"),
        (stat.S_ISBLK, "a block device"),
        (stat.S_ISFIFO, "a FIFO"),
        (stat.S_ISSOCK, "a socket"),
    )
    return next((name for test, name in kinds if test(mode)), None)


def _what_it_is(path: Path, exc: Exception) -> str:
    """Why the file ``path`` could not be read as Parquet, in words: empty, text, or
    pyarrow's reason."""
    if path.is_dir():
        return f"is not a readable Parquet dataset: {exc}"
    try:
        with open(path, "rb") as file:
            head = file.read(4096)
    except OSError:
        head = None
    if head == b"":
        return "is empty (0 bytes), not a Parquet file"
    if head is not None and b"\0" not in head:
        try:
            head.decode("utf-8")
        except UnicodeDecodeError as error:
            text = error.start >= len(head) - 3  # a character cut at the end of the sample
        else:
            text = True
        if text:
            return "is a text file, not a Parquet file"
    return f"is not a readable Parquet file: {exc}"


def _output_path(dst: object, src_path: Path | None) -> Path:
    if not isinstance(dst, (str, os.PathLike)):
        raise TypeError(f"dst must be a path, got {type(dst).__name__}")
    check_output_path(dst, "dst")
    path = Path(dst)
    inside_source = (
        src_path is not None
        and src_path.is_dir()
        and path.resolve().is_relative_to(src_path.resolve())
    )
    if inside_source:
        raise ValueError(
            f"dst {str(path)!r} lies inside the source dataset {str(src_path)!r}; "
            "it would become part of the dataset on the next read"
        )
    return path


DIGEST_MARK = b"batchkeccak.algorithm"
"""The field metadata key of every digest column :func:`hash_file` writes (appended or in
place of its column), its value the algorithm's name (``b"sha3_256"``): such a column is
refused as a column to hash, so that a job run twice does not hash digests."""


def _digest_names(
    schema: pa.Schema, columns: Sequence[str] | str, suffix: str | None
) -> dict[str, str]:
    """Source column -> digest column name; ``suffix`` None: each digest replaces its column
    (the same name)."""
    selected = [columns] if isinstance(columns, str) else list(columns)
    if not selected:
        raise ValueError("columns must name at least one column to hash")
    names = list(schema.names)
    digest_columns: dict[str, str] = {}
    for name in selected:
        if not isinstance(name, str):
            raise TypeError(f"columns must be column names (str), got {type(name).__name__}")
        if name not in names:
            raise ValueError(f"columns: no column named {name!r}; the source has {names}")
        if name in digest_columns:
            raise ValueError(f"columns: {name!r} is named twice")
        algorithm = (schema.field(name).metadata or {}).get(DIGEST_MARK)
        if algorithm is not None:
            raise ValueError(
                f"columns: column {name!r} already holds batchkeccak "
                f"{algorithm.decode(errors='replace')} digests (its field metadata has "
                f"{DIGEST_MARK.decode()}); hashing it again would give digests of digests, "
                "which no longer join: name a column of the original data"
            )
        check_hashable_type(schema.field(name).type, f"column {name!r}", "hash_file")
        if suffix is None:
            digest_columns[name] = name
            continue
        digest_name = f"{name}{suffix}"
        if digest_name in names or digest_name in digest_columns.values():
            raise ValueError(
                f"the digest column for {name!r} would be named {digest_name!r}, which already "
                "exists; choose another suffix"
            )
        digest_columns[name] = digest_name
    return digest_columns


def _writer_options(
    dataset: ds.Dataset | pa.RecordBatchReader, digest_names: list[str]
) -> dict[str, object]:
    """Compression, dictionary and statistics settings that keep the source's codecs for the
    kept columns and spare the digest columns work that random bytes never repay."""
    metadata = None
    if isinstance(dataset, ds.FileSystemDataset):
        for fragment in dataset.get_fragments():
            metadata = fragment.metadata
            break
    if metadata is None or metadata.num_row_groups == 0:
        return {"compression": "snappy"}
    row_group = metadata.row_group(0)
    compression: dict[str, str] = {}
    for i in range(row_group.num_columns):
        column = row_group.column(i)
        codec = column.compression.lower()
        codec = "none" if codec == "uncompressed" else codec
        compression[column.path_in_schema] = codec if codec in _WRITER_CODECS else "snappy"
    kept_columns = [name for name in compression if name not in digest_names]
    compression.update(dict.fromkeys(digest_names, "none"))
    return {
        "compression": compression,
        "use_dictionary": kept_columns,
        "write_statistics": kept_columns,
    }


def _conform(batch: pa.RecordBatch, schema: pa.Schema, partition_values: dict) -> pa.RecordBatch:
    """``batch`` (one file's columns) as a batch of the dataset's ``schema``."""
    count = batch.num_rows
    columns = []
    for schema_field in schema:
        if schema_field.name in batch.schema.names:
            column = batch.column(schema_field.name)
            if column.type != schema_field.type:
                column = column.cast(schema_field.type)
        elif partition_values.get(schema_field.name) is not None:
            value = pa.scalar(partition_values[schema_field.name], type=schema_field.type)
            column = pa.nulls(count, schema_field.type).fill_null(value)
        else:
            column = pa.nulls(count, schema_field.type)
        columns.append(column)
    return pa.RecordBatch.from_arrays(columns, schema=schema)


def file_batches(
    dataset: ds.FileSystemDataset, batch_size: int, columns: Sequence[str] | None = None
) -> Iterator[pa.RecordBatch]:
    """Batches of ``dataset.schema`` (only ``columns``, in that order, when given), one file
    and about one row group in memory at a time.

    pyarrow's dataset scanner reads ahead without a bound when its consumer is slower than
    the disk (over 600 MB held for a 1.4 GB file, measured); ``ParquetFile.iter_batches``
    without pre-buffering decodes one row group at a time as batches are asked for.
    """
    schema = dataset.schema
    if columns is not None:
        schema = pa.schema([schema.field(name) for name in columns])
    dictionary_columns = list(dataset.format.read_options.dictionary_columns or [])
    for fragment in dataset.get_fragments():
        partition_values = ds.get_partition_keys(fragment.partition_expression)
        with dataset.filesystem.open_input_file(fragment.path) as source:
            parquet_file = pq.ParquetFile(
                source, read_dictionary=dictionary_columns or None, pre_buffer=False
            )
            file_columns = set(parquet_file.schema_arrow.names)
            present = [name for name in schema.names if name in file_columns]
            for batch in parquet_file.iter_batches(batch_size=batch_size, columns=present):
                yield _conform(batch, schema, partition_values)


def _stream_batches(reader: pa.RecordBatchReader, batch_size: int) -> Iterator[pa.RecordBatch]:
    """A stream's batches cut to at most ``batch_size`` rows (slices: no copy)."""
    for batch in reader:
        for start in range(0, batch.num_rows, batch_size):
            yield batch.slice(start, batch_size)


def _record_batches(
    dataset: ds.Dataset | pa.RecordBatchReader, batch_size: int, opened_here: bool
) -> Iterator[pa.RecordBatch]:
    if isinstance(dataset, pa.RecordBatchReader):
        return _stream_batches(dataset, batch_size)
    if opened_here:
        return file_batches(dataset, batch_size)
    # A Dataset passed in may carry its own filters and options: pyarrow scans it as given.
    return iter(dataset.to_batches(batch_size=batch_size, batch_readahead=1, fragment_readahead=1))


def _timed(batches: Iterator[pa.RecordBatch], report: HashFileReport) -> Iterator[pa.RecordBatch]:
    while True:
        started = time.perf_counter()
        batch = next(batches, None)
        report.read_seconds += time.perf_counter() - started
        if batch is None:
            return
        yield batch


def _with_digest_fields(
    schema: pa.Schema, digest_columns: dict[str, str], digest_type: pa.DataType, algorithm: str
) -> pa.Schema:
    """The source's schema with one digest field appended per hashed column, in order, or
    in place of its column where the two have the same name (``replace=True``); each digest
    field carries :data:`DIGEST_MARK`."""
    mark = {DIGEST_MARK: algorithm.encode()}
    for name, digest_name in digest_columns.items():
        if digest_name == name:
            source = schema.field(name)
            schema = schema.set(
                schema.get_field_index(name),
                pa.field(name, digest_type, source.nullable, metadata=mark),
            )
        else:
            schema = schema.append(pa.field(digest_name, digest_type, metadata=mark))
    return schema


def _progress_bar(dataset: ds.Dataset | pa.RecordBatchReader, desc: str, progress: bool) -> Any:
    """A tqdm bar over the source's rows (of unknown total for a stream: its length is known
    only once it has been read), shown only when asked and stderr is a terminal."""
    total_rows = None if isinstance(dataset, pa.RecordBatchReader) else dataset.count_rows()
    return progress_bar(total_rows, desc, enabled=progress)


def _hashed_size(dataset: ds.Dataset | pa.RecordBatchReader, columns: list[str]) -> int | None:
    """Uncompressed bytes of ``columns`` in a Parquet source's metadata (None: unknown)."""
    if not isinstance(dataset, ds.FileSystemDataset):
        return None
    wanted = set(columns)
    total = 0
    for fragment in dataset.get_fragments():
        metadata = fragment.metadata
        for i in range(metadata.num_row_groups):
            row_group = metadata.row_group(i)
            for j in range(row_group.num_columns):
                column = row_group.column(j)
                if column.path_in_schema in wanted:
                    total += column.total_uncompressed_size
    return total


def _warm_sample(value_type: pa.DataType) -> pa.ChunkedArray:
    """Values of ``value_type`` to load its kernels with: a chunk of equal short values, no
    null among them, more than a tile's worth (such batches, a fixed-size column's included,
    have a kernel of their own), and one of mixed lengths with a null."""
    if pa.types.is_fixed_size_binary(value_type):
        width = value_type.byte_width
        return pa.chunked_array(
            [
                pa.array([b"x" * width] * (2 * TILE_WIDTH), value_type),
                pa.array([b"y" * width, None] * 4, value_type),
            ]
        )
    chunks = []
    for sample in (
        pa.array([b"y" * 32] * (2 * TILE_WIDTH), pa.binary()),
        pa.array([b"x" * 200, b"", None, b"abc"] * 2, pa.binary()),
    ):
        try:
            chunks.append(sample.cast(value_type))
        except (pa.ArrowInvalid, pa.ArrowNotImplementedError):
            chunks.append(sample)  # a type binary does not cast to: hashed as binary
    return pa.chunked_array([chunk for chunk in chunks if chunk.type == chunks[0].type])


def _load_kernels(
    dataset: ds.Dataset | pa.RecordBatchReader,
    digest_columns: dict[str, str],
    resolved: Hasher,
    hex: bool,
) -> float:
    """Load the kernels the hashing will use (numba compiles them, or loads them from its
    cache, on first use) before the clock starts, so that the hash time is hashing; the
    seconds it took. Nothing is loaded for a source small enough that the dispatcher gives
    it to hashlib instead."""
    from batchkeccak.core.dispatch import kernels_on_this_thread

    if isinstance(dataset, ds.Dataset):
        count = dataset.count_rows() * len(digest_columns)
        size = _hashed_size(dataset, list(digest_columns))
        if size is not None and size <= resolved.executor.oneshot_byte_budget(count):
            return 0.0
    started = time.perf_counter()
    with kernels_on_this_thread():
        for name in digest_columns:
            hash_array(_warm_sample(dataset.schema.field(name).type), resolved, hex=hex)
    return time.perf_counter() - started


def _hash_and_write(
    batch: pa.RecordBatch,
    digest_columns: dict[str, str],
    resolved: Hasher,
    hex: bool,
    out_schema: pa.Schema,
    writer: pq.ParquetWriter,
    report: HashFileReport,
) -> None:
    """Hash one batch's columns and write the batch with its digest columns (a row group):
    appended, or in place of the hashed columns (``replace=True``)."""
    hash_started = time.perf_counter()
    digests = {name: hash_array(batch.column(name), resolved, hex=hex) for name in digest_columns}
    write_started = time.perf_counter()
    report.hash_seconds += write_started - hash_started
    replaced = {name: digests[name] for name, out in digest_columns.items() if out == name}
    kept = [replaced.get(name, column) for name, column in zip(batch.schema.names, batch.columns)]
    appended = [digests[name] for name, out in digest_columns.items() if out != name]
    writer.write_batch(pa.RecordBatch.from_arrays(kept + appended, schema=out_schema))
    report.write_seconds += time.perf_counter() - write_started


def _count_batch(batch: pa.RecordBatch, report: HashFileReport, bar: Any, started: float) -> None:
    """Add a written batch to the report and the progress bar (with the rate so far)."""
    report.rows += batch.num_rows
    report.batches += 1
    report.decoded_bytes += batch.nbytes
    bar.update(batch.num_rows)
    elapsed = time.perf_counter() - started
    bar.set_postfix_str(f"{report.decoded_bytes / 1e6 / elapsed:,.0f} MB/s", refresh=False)


@releases_on_error
def hash_file(
    src: object,
    dst: str | os.PathLike,
    columns: Sequence[str] | str,
    algorithm: str | Algorithm | Hasher = "sha3_256",
    *,
    length: int | None = None,
    hex: bool = False,
    suffix: str | None = None,
    replace: bool = False,
    batch_size: int = DEFAULT_BATCH_SIZE,
    threads: int | None = None,
    progress: bool = False,
    **params: object,
) -> HashFileReport:
    """Copy a Parquet file or dataset to ``dst`` with one digest column per hashed column.

    Parameters
    ----------
    src
        A Parquet file, a directory of Parquet files (hive partitions become columns), or a
        ``pyarrow.dataset.Dataset`` (scanned by pyarrow with its own options and filters;
        pyarrow's scanner may read ahead of the hashing, so memory is bounded only for paths
        and streams), or a table: pyarrow's, or any object that exports record batches
        through the Arrow PyCapsule interface (a Polars or pandas DataFrame, a DuckDB
        relation). A stream is read once, one batch at a time.
    dst
        The Parquet file to write; replaced atomically if it exists.
    columns
        Column name(s) to hash: binary or string types, or dictionaries of those (the types
        :func:`batchkeccak.arrow.hash_array` accepts).
    algorithm, length, hex, threads, params
        As for :func:`batchkeccak.arrow.hash_array` (a mode's parameters, such as a key, are
        never written to the output's metadata).
    suffix
        Appended to a column's name to name its digest column; default ``"_" + algorithm``
        (``email`` -> ``email_sha3_256``). Not with ``replace``.
    replace
        Write each digest column in place of its column (the same name and position, the
        digest's type) instead of appending it: pseudonymize a column.
    batch_size
        Rows per record batch read, hashed and written (one row group each).
    progress
        Show a progress bar (rows, MB/s) on stderr when it is a terminal.

    Returns
    -------
    HashFileReport
        Rows, bytes and the time spent reading, hashing and writing.

    Raises
    ------
    FileNotFoundError
        ``src`` does not exist, or ``dst``'s folder does not.
    ValueError
        A column is missing, a digest column name is taken, a column holds digests this
        function wrote (its field carries :data:`DIGEST_MARK`), or ``src`` is not Parquet.
    TypeError
        A column's type cannot be hashed.

    Notes
    -----
    All columns of the source are kept, with the schema's metadata and each column's
    compression codec (each hashed one too, unless ``replace``); digest columns are appended in
    ``columns`` order (or take their column's place), uncompressed and without dictionary
    encoding (digests do not compress); each digest field's metadata holds
    ``{b"batchkeccak.algorithm": b"<algorithm>"}`` (:data:`DIGEST_MARK`). Nothing is written
    before every
    argument has been checked, and nothing is left behind on error.
    """
    resolved = hasher(algorithm, length=length, threads=threads, **params)
    batch_size = check_int(batch_size, "batch_size", 1, expected="a positive int")
    if not isinstance(replace, bool):
        raise TypeError(f"replace must be a bool, got {type(replace).__name__}")
    if replace and suffix is not None:
        raise ValueError(
            "suffix names appended digest columns; with replace=True each digest takes its "
            "column's name: give one or the other"
        )
    if suffix is None and not replace:
        suffix = f"_{resolved.name}"
    if not replace and (not isinstance(suffix, str) or not suffix):
        raise ValueError(f"suffix must be a non-empty str, got {suffix!r}")
    dataset, src_path = _open_source(src)
    dst_path = _output_path(dst, src_path)
    digest_columns = _digest_names(dataset.schema, columns, suffix)
    digest_type = pa.string() if hex else pa.binary(resolved.output_length)
    out_schema = _with_digest_fields(dataset.schema, digest_columns, digest_type, resolved.name)
    writer_options = _writer_options(dataset, list(digest_columns.values()))

    report = HashFileReport(dst_path, 0, 0, 0, digest_columns)
    report.load_seconds = _load_kernels(dataset, digest_columns, resolved, hex)
    started = time.perf_counter()
    bar = _progress_bar(dataset, f"{resolved.name} {', '.join(digest_columns)}", progress)
    try:
        scan = _record_batches(dataset, batch_size, opened_here=src_path is not None)
        # pyarrow gets an opened file object, never the path: it removes a path it fails to
        # write, and a FIFO or /dev/stdout is written through as a stream.
        with (
            open_output(dst_path) as sink,
            pq.ParquetWriter(arrow_sink(sink), out_schema, **writer_options) as writer,
        ):
            for batch in _timed(scan, report):
                if batch.num_rows == 0:
                    continue
                _hash_and_write(batch, digest_columns, resolved, hex, out_schema, writer, report)
                _count_batch(batch, report, bar, started)
            close_started = time.perf_counter()
        report.write_seconds += time.perf_counter() - close_started
    finally:
        bar.close()
    report.total_seconds = time.perf_counter() - started
    return report
