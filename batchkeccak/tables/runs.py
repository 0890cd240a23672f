"""Row digests in key order, in bounded memory: digest, sort into runs, spill, merge.

One pass reads a source batch by batch; worker threads encode each batch's keys
(:mod:`batchkeccak.tables.keys`) and hash its rows. The ``(key, digest)`` pairs gather into a
*run* until the run reaches its share of the memory limit; the run is then sorted by key and,
if more are to follow, written to the spill folder as an Arrow IPC file. Reading the runs back
block by block and merging them (:func:`merged_chunks`) gives every row's digest in key order,
holding one block per run.

A row's digest is the RFC 9162 leaf hash of its row encoding: ``H(0x00 || encoding)``, with
the encoding of :func:`batchkeccak.arrow.hash_rows` over the columns in name order. (A null
field encodes as the one byte ``0x00``: a null column put first makes ``encode_rows`` write
the leaf prefix itself, and the batch is hashed in one call.)
"""

from __future__ import annotations

import contextlib
import contextvars
import errno
import mmap
import os
import re
import tempfile
import threading
from collections import deque
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Self

import numpy as np
import pyarrow as pa

from batchkeccak.arrow import hash_encoded_rows
from batchkeccak.core.hashers import Hasher
from batchkeccak.core.parallel import call_pool
from batchkeccak.errors import DuplicateKeyError
from batchkeccak.support.progress import progress_bar
from batchkeccak.tables.keys import (
    KeyEncoder,
    bisect_keys,
    digest_order,
    equal_neighbours,
    key_bytes,
    key_order,
    keys_ascending,
)
from batchkeccak.tables.sources import TableSource

DEFAULT_MEMORY_LIMIT = 1280 << 20
"""Bytes of keys and digests held at once by default (1.25 GiB); beyond it runs are spilled.
Enough that ``diff`` of two 10M-row tables with an integer key (40 bytes a row, a third of
the limit for each table) sorts each in one run, held in memory: spilling and merging runs
cost about a third of its CPU time at that size, and the process peaks under 1.5 GB."""

BLOCK_ROWS = 256 * 1024
"""Rows per block of a run, as written to the spill folder and as merged."""


def row_digests(batch: pa.RecordBatch, columns: Sequence[str], hasher: Hasher) -> np.ndarray:
    """``H(0x00 || encoding)`` of every row of ``batch`` over ``columns``: (N, d) uint8."""
    count = batch.num_rows
    fields = [pa.nulls(count)] + [batch.column(name) for name in columns]
    return hash_encoded_rows(pa.RecordBatch.from_arrays(fields, names=["", *columns]), hasher)


def run_buffer(rows: int, width: int) -> np.ndarray:
    """An uninitialized (rows, width) uint8 array of anonymous memory, its pages mapped
    lazily and never huge.

    numpy asks the kernel for huge pages for every large array; where free huge pages are
    scarce (``defrag`` set to ``madvise``, the common default), each first touch of 2 MB then
    waits for the kernel to compact memory: adding 10M digests (320 MB) to a run took
    0.7-1.0 s that way on the reference machine (most of it in the kernel), 0.25 s with
    ordinary pages.
    """
    memory = mmap.mmap(-1, max(rows * width, 1))
    if hasattr(mmap, "MADV_NOHUGEPAGE"):  # Linux
        memory.madvise(mmap.MADV_NOHUGEPAGE)
    return np.frombuffer(memory, dtype=np.uint8, count=rows * width).reshape(rows, width)


def take_rows(matrix: np.ndarray, order: np.ndarray) -> np.ndarray:
    """``matrix[order]`` for an (N, d) uint8 array, each row moved as one d-byte item (numpy
    moves a 2-D uint8 array's rows byte by byte: several times slower)."""
    count, width = matrix.shape
    if count == 0 or width == 0:
        return matrix[order]
    rows = np.ascontiguousarray(matrix).view(f"V{width}").reshape(count)
    return np.take(rows, order).view(np.uint8).reshape(-1, width)


def rows_differ(left: np.ndarray, right: np.ndarray) -> np.ndarray:
    """``result[i]``: row ``i`` of two (N, d) uint8 arrays differ, compared word by word."""
    width = left.shape[1]
    if width % 8 == 0 and left.flags.c_contiguous and right.flags.c_contiguous:
        left, right = left.view(np.uint64), right.view(np.uint64)
    return np.any(left != right, axis=1)


def _grown(rows: np.ndarray | None, capacity: int, width: int, filled: int) -> np.ndarray:
    """A run buffer of ``capacity`` rows holding the first ``filled`` rows of ``rows``."""
    grown = run_buffer(capacity, width)
    if rows is not None:
        grown[:filled] = rows[:filled]
    return grown


def digests_as_keys(digests: np.ndarray) -> pa.Array:
    """(N, d) digests (or fixed-width keys) as a ``fixed_size_binary(d)`` array over the same
    memory."""
    count, width = digests.shape
    return pa.Array.from_buffers(pa.binary(width), count, [None, pa.py_buffer(digests)])


class Spill:
    """The spill folder: made on first use, removed with everything in it on exit, whatever
    ends the ``with`` block (an error, Ctrl-C, SIGTERM as the command raises it). Sources
    read side by side spill into it from their own threads."""

    def __init__(self, parent: str | Path | None) -> None:
        self.parent = parent
        self._folder: tempfile.TemporaryDirectory | None = None
        self._count = 0
        self._lock = threading.Lock()

    def new_path(self, stem: str) -> Path:
        with self._lock:
            if self._folder is None:
                self._folder = tempfile.TemporaryDirectory(
                    prefix="batchkeccak-runs-", dir=self.parent
                )
            self._count += 1
            return Path(self._folder.name) / f"{stem}-{self._count}.arrow"

    @property
    def folder(self) -> str | None:
        """The spill folder, once made."""
        return None if self._folder is None else self._folder.name

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *exc_info: object) -> None:
        if self._folder is not None:
            self._folder.cleanup()
            self._folder = None


@dataclass
class Run:
    """Rows of one side sorted by key: in memory, or in an IPC file of blocks.

    In memory, the digests stay where they arrived and ``order`` says which comes next: each
    block is gathered as it is read, so sorting a run never holds a second copy of it.
    ``order`` is None where the rows arrived in key order (a table stored by its key): the
    blocks are then slices of the digests, neither sorted nor copied.
    """

    side: int
    rows: int
    keys: pa.Array | None = None
    """Sorted keys (in memory, with a key)."""
    digests: np.ndarray | None = None
    order: np.ndarray | None = None
    path: Path | None = None
    keys_are_digests: bool = False

    def blocks(self) -> Iterator[tuple[pa.Array, np.ndarray]]:
        if self.path is None:
            assert self.digests is not None
            yield from sorted_blocks(self.keys, self.digests, self.order)
            return
        with pa.OSFile(str(self.path)) as file:
            reader = pa.ipc.open_file(file)
            for index in range(reader.num_record_batches):
                batch = reader.get_batch(index)
                keys = batch.column(0)
                if self.keys_are_digests:
                    digests = _fixed_matrix(keys)
                else:
                    digests = _fixed_matrix(batch.column(1))
                yield keys, digests


def sorted_blocks(
    keys: pa.Array | None, digests: np.ndarray, order: np.ndarray | None
) -> Iterator[tuple[pa.Array, np.ndarray]]:
    """``(keys, digests)`` of :data:`BLOCK_ROWS` rows at a time in key order: ``keys`` sorted
    already (None: the digests are the keys), ``digests`` in arrival order, ``order`` the
    rows in key order (None: arrival order is key order)."""
    for start in range(0, digests.shape[0], BLOCK_ROWS):
        if order is None:
            block = digests[start : start + BLOCK_ROWS]
        else:
            block = take_rows(digests, order[start : start + BLOCK_ROWS])
        if keys is None:
            yield digests_as_keys(block), block
        else:
            yield keys.slice(start, BLOCK_ROWS), block


def _fixed_matrix(array: pa.Array) -> np.ndarray:
    width = array.type.byte_width
    data = np.frombuffer(array.buffers()[1], dtype=np.uint8)
    start = array.offset * width
    return data[start : start + len(array) * width].reshape(len(array), width)


@dataclass
class RunBuilder:
    """Gathers one side's ``(key, digest)`` pairs into sorted runs of at most ``budget`` bytes."""

    side: int
    argument: str
    encoder: KeyEncoder | None
    """None: the rows are ordered by their digests (no key), and duplicates are allowed."""
    budget: int
    """Bytes of keys and digests per run (sorting a run adds its order and sorted keys, about
    16 bytes a row; the digests are never copied whole)."""
    spill: Spill
    width: int
    """Bytes per digest."""
    runs: list[Run] = field(default_factory=list)
    _keys: list[pa.Array] = field(default_factory=list)
    """Keys of varying width, as they arrived."""
    _key_bytes: int = 0
    _digests: np.ndarray | None = None
    """The run's digests, written in place as they arrive (no copy when the run is sealed)."""
    _fixed_keys: np.ndarray | None = None
    """Keys of one width, written in place like the digests. Concatenating them at the end
    took 0.16 s for 10M 8-byte keys, nearly all of it the first touch of fresh memory (in
    huge pages) on the thread that finishes the run, while nothing else runs."""
    _filled: int = 0

    def add(self, keys: pa.Array | None, digests: np.ndarray) -> None:
        count = digests.shape[0]
        if self._filled and (self._filled + count) * self.width + self._key_bytes > self.budget:
            self._seal(spill=True)
        key_width = self.encoder.fixed_width if self.encoder is not None else 0
        if self._digests is None or self._filled + count > self._digests.shape[0]:
            # Pages are mapped lazily: a small table touches only what it fills.
            capacity = max(self.budget // max(self.width, 1), self._filled + count)
            self._digests = _grown(self._digests, capacity, self.width, self._filled)
            if key_width:
                self._fixed_keys = _grown(self._fixed_keys, capacity, key_width, self._filled)
        self._digests[self._filled : self._filled + count] = digests
        if keys is not None:
            if key_width:
                assert self._fixed_keys is not None
                self._fixed_keys[self._filled : self._filled + count] = _fixed_matrix(keys)
            else:
                self._keys.append(keys)
            self._key_bytes += keys.nbytes
        self._filled += count

    def finish(self) -> list[Run]:
        """The runs, sorted: every one spilled but the last, which stays in memory (it fits
        the budget, and writing it out only to read it back would cost a pass)."""
        if self._filled or not self.runs:
            self._seal(spill=False)
        self._digests = self._fixed_keys = None  # the last run holds them now
        return self.runs

    def _seal(self, spill: bool) -> None:
        if self._digests is None:
            self._digests = np.empty((0, self.width), dtype=np.uint8)
        filled = self._digests[: self._filled]
        if self.encoder is None:
            keys = digests_as_keys(filled)
        elif self._fixed_keys is not None:
            keys = digests_as_keys(self._fixed_keys[: self._filled])
        elif self._keys:
            keys = pa.concat_arrays(self._keys)
        else:
            keys = pa.array([], self.encoder.key_type)
        self._keys.clear()
        self._key_bytes = 0
        self._filled = 0
        count = len(keys)
        order: np.ndarray | None
        if self.encoder is None:
            order = digest_order(keys)
            sorted_keys = None
        elif keys_ascending(keys):
            order, sorted_keys = None, keys
        else:
            order = key_order(keys)
            sorted_keys = keys.take(order)
            del keys  # the unsorted keys go before the duplicate check: a lower peak
        if sorted_keys is not None:
            same = np.flatnonzero(equal_neighbours(sorted_keys))
            if same.shape[0]:
                assert self.encoder is not None
                raise duplicate_key(self.encoder, sorted_keys, int(same[0]), self.argument)
        run = Run(self.side, count, keys_are_digests=self.encoder is None)
        if spill:
            try:
                run.path = self.spill.new_path(f"{self.argument}-run")
                _write_run(
                    run.path, sorted_blocks(sorted_keys, filled, order), self.encoder is None
                )
            except OSError as exc:
                raise spill_error(exc, self.spill) from None
        else:
            run.keys, run.digests, run.order = sorted_keys, filled, order
        self.runs.append(run)


def spill_error(exc: OSError, spill: Spill) -> OSError:
    """A failure to write a sorted run (a full disk, a folder that cannot be written) as one
    that names the spill folder and the argument that moves it."""
    code = exc.errno or errno.EIO
    reason = exc.strerror or os.strerror(code)
    if exc.errno is None:  # pyarrow's own: "[Errno 28] Error writing bytes to file ..."
        found = re.match(r"\[Errno (\d+)\]", str(exc))
        if found:
            code = int(found.group(1))
            reason = os.strerror(code)
    folder = spill.folder or (spill.parent if spill.parent is not None else tempfile.gettempdir())
    return OSError(
        code,
        f"spill_dir: cannot write sorted runs into the spill folder {str(folder)!r} ({reason}); "
        "give spill_dir= a folder with more room, or a larger memory_limit",
    )


def _write_run(
    path: Path, blocks: Iterator[tuple[pa.Array, np.ndarray]], keys_are_digests: bool
) -> None:
    writer = None
    with pa.OSFile(str(path), "wb") as file:
        for keys, digests in blocks:
            columns = [keys] if keys_are_digests else [keys, digests_as_keys(digests)]
            batch = pa.RecordBatch.from_arrays(columns, names=["key", "digest"][: len(columns)])
            if writer is None:
                writer = pa.ipc.new_file(file, batch.schema)
            writer.write_batch(batch)
        if writer is not None:
            writer.close()


def duplicate_key(encoder: KeyEncoder, keys: pa.Array, index: int, argument: str) -> ValueError:
    """The error for a key found twice: it names the source and the key's value."""
    types = [part.arrow_type for part in encoder.parts]
    values = [column[0].as_py() for column in encoder.decode(keys.slice(index, 1), types)]
    shown = values[0] if len(values) == 1 else tuple(values)
    names = ", ".join(encoder.names)
    return DuplicateKeyError(
        f"{argument}: key ({names}) is not unique: {shown!r} appears more than once; "
        "a key must name one row"
    )


def digest_source(
    source: TableSource,
    builder: RunBuilder,
    columns: Sequence[str],
    hasher: Hasher,
    threads: int,
    progress: bool,
    stop: threading.Event | None = None,
) -> int:
    """Read ``source`` once into ``builder``'s runs; returns the rows read.

    Batches are encoded and hashed on ``threads`` workers (each hashing on one thread),
    while the calling thread reads the next ones; results are taken in source order.
    ``stop``, once set, ends the reading early (another source read beside this one failed).
    """
    encoder = builder.encoder
    needed = list(dict.fromkeys([*(encoder.names if encoder else []), *columns]))
    single = hasher if hasher.threads == 1 else _one_thread(hasher)

    def work(batch: pa.RecordBatch) -> tuple[pa.Array | None, np.ndarray]:
        keys = encoder.encode(batch) if encoder is not None else None
        return keys, row_digests(batch, columns, single)

    rows = 0
    with (
        call_pool(threads, "tables") as pool,
        contextlib.closing(
            progress_bar(source.rows, source.argument, enabled=progress, position=builder.side)
        ) as bar,
    ):
        pending: deque = deque()
        try:
            for batch in source.batches(needed):
                if stop is not None and stop.is_set():
                    return rows
                pending.append(pool.submit(work, batch))
                while len(pending) > 2 * threads or (pending and pending[0].done()):
                    keys, digests = pending.popleft().result()
                    builder.add(keys, digests)
                    rows += digests.shape[0]
                    bar.update(digests.shape[0])
            while pending:
                keys, digests = pending.popleft().result()
                builder.add(keys, digests)
                rows += digests.shape[0]
                bar.update(digests.shape[0])
        finally:
            for future in pending:
                future.cancel()
    return rows


def digest_sources(
    sources: Sequence[TableSource],
    builders: Sequence[RunBuilder],
    columns: Sequence[str],
    hasher: Hasher,
    threads: int,
    progress: bool,
) -> list[int]:
    """:func:`digest_source` of each source into its builder, all at once: each source is
    read on its own thread with its share of ``threads`` workers, so reading one (Parquet
    decoding releases the GIL) overlaps hashing the other. One thread reads them in turn.

    Returns the rows read from each. The first error (a duplicate or null key, a bad file)
    stops the other sources' reading and is raised once every thread has ended. Sources
    that serve one query at a time (``TableSource.exclusive``: DuckDB relations, which may
    share a connection) are read one after another, each with every thread.
    """
    if threads < len(sources) or sum(source.exclusive for source in sources) > 1:
        return [
            digest_source(source, builder, columns, hasher, threads, progress)
            for source, builder in zip(sources, builders)
        ]
    stop = threading.Event()
    share = threads // len(sources)

    def read(source: TableSource, builder: RunBuilder) -> int:
        try:
            return digest_source(source, builder, columns, hasher, share, progress, stop)
        except BaseException:
            stop.set()
            raise

    with call_pool(len(sources), "sources") as readers:
        # Each reader runs in a copy of this thread's context, so that a stream a source
        # exports there (a second read) is closed by the entry point's releases_on_error too.
        futures = [
            readers.submit(contextvars.copy_context().run, read, source, builder)
            for source, builder in zip(sources, builders)
        ]
        try:
            return [future.result() for future in futures]
        finally:
            stop.set()  # an interrupt in this thread ends the readers too


def _one_thread(hasher: Hasher) -> Hasher:
    from batchkeccak.api import hasher as resolve

    return resolve(hasher, threads=1)


# ---------------------------------------------------------------------------------------------
# Merging runs


@dataclass
class Chunk:
    """Rows in key order; no key has rows in two chunks."""

    keys: pa.Array
    digests: np.ndarray
    sides: np.ndarray


class _Cursor:
    def __init__(self, run: Run) -> None:
        self.side = run.side
        self._blocks = run.blocks()
        self.keys: pa.Array = pa.array([])
        self.digests = np.empty((0, 0), dtype=np.uint8)
        self.position = 0
        self.advance()

    def advance(self) -> bool:
        for keys, digests in self._blocks:
            if len(keys):
                self.keys, self.digests, self.position = keys, digests, 0
                return True
        self.keys = pa.array([])
        return False

    @property
    def exhausted(self) -> bool:
        return self.position >= len(self.keys)

    def last_key(self) -> bytes:
        return key_bytes(self.keys, len(self.keys) - 1)


def merged_chunks(runs: list[Run]) -> Iterator[Chunk]:
    """Every row of ``runs`` in key order (rows of equal keys in ``runs`` order), a chunk at a
    time; all rows of one key are in one chunk.

    Each step takes, from every run's current block, the rows up to the smallest of the
    blocks' last keys: no run can hold a smaller key later, and the run whose block ends there
    moves on to its next block, so each step finishes at least one block.
    """
    if len(runs) == 1:
        for block_keys, block_digests in runs[0].blocks():
            if len(block_keys):
                yield Chunk(
                    block_keys, block_digests, np.full(len(block_keys), runs[0].side, dtype=np.int8)
                )
        return
    cursors = [cursor for cursor in map(_Cursor, runs) if not cursor.exhausted]
    while cursors:
        bound = min(cursor.last_key() for cursor in cursors)
        keys: list[pa.Array] = []
        digests: list[np.ndarray] = []
        sides: list[np.ndarray] = []
        for cursor in cursors:
            stop = bisect_keys(cursor.keys, bound, cursor.position)
            if stop > cursor.position:
                keys.append(cursor.keys.slice(cursor.position, stop - cursor.position))
                digests.append(cursor.digests[cursor.position : stop])
                sides.append(np.full(stop - cursor.position, cursor.side, dtype=np.int8))
            cursor.position = stop
            if cursor.exhausted:
                cursor.advance()
        cursors = [cursor for cursor in cursors if not cursor.exhausted]
        joined = pa.concat_arrays(keys)
        order = key_order(joined, merging=True)
        yield Chunk(
            joined.take(order),
            take_rows(np.concatenate(digests), order),
            np.concatenate(sides)[order],
        )
