"""``table_digest``: one digest of a table, whatever its row order and physical layout.

The construction (docs/tables.md states it with its collision argument):

1. Every row is encoded as :func:`batchkeccak.arrow.hash_rows` encodes it, over the selected
   columns in name order (key columns included), and hashed as an RFC 9162 leaf:
   ``H(0x00 || encoding)``.
2. The rows are put in order: by key with ``key=``, else by their leaf hashes (bytes order),
   which makes the digest independent of row order while counting duplicate rows.
3. ``root`` is the RFC 9162 Merkle tree hash (``MTH``) of that sequence of leaves: a row's
   inclusion proof verifies with :func:`batchkeccak.merkle.verify` (``scheme="rfc9162"``).
4. ``digest = H(header || "\\n" || root)``, where ``header`` is canonical JSON of the format,
   the algorithm, the key, the columns with their logical types, the order and the row count.
"""

from __future__ import annotations

import json
import os
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from batchkeccak.api import hasher as resolve_hasher
from batchkeccak.core.hashers import Hasher
from batchkeccak.core.parallel import resolve_threads
from batchkeccak.core.parameters import Algorithm
from batchkeccak.inputs.arrow_producers import releases_on_error
from batchkeccak.inputs.arrow_types import logical_type
from batchkeccak.tables.keys import KeyEncoder, equal_neighbours, key_names
from batchkeccak.tables.roots import StreamingRoot
from batchkeccak.tables.runs import (
    DEFAULT_MEMORY_LIMIT,
    Chunk,
    RunBuilder,
    Spill,
    digest_source,
    duplicate_key,
    merged_chunks,
)
from batchkeccak.tables.sources import TableSource, no_column, open_source

FORMAT = "batchkeccak-table-v1"
"""The ``format`` field of the header: changes whenever the construction does."""

MIN_MEMORY_LIMIT = 1 << 16

MIN_TABLE_HASH_BYTES = 16
"""The shortest output ``algorithm`` may have for a table digest, diff or segment digest:
128 bits, so a changed table keeps its digest by chance with probability about 2^-128, and
finding two tables with one digest (a collision of ``H``) takes about 2^64 work; docs/tables.md
says why."""


@dataclass(frozen=True)
class TableDigest:
    """The digest of a table, and what it covers. It reads like a hashlib object:
    ``digest()`` gives ``H(header || b"\\n" || root)`` and ``hexdigest()`` its lowercase hex,
    equal for two tables exactly when their columns (names and logical types), key, row
    count and rows agree; the repr shows the hex. Two results compare equal (``==``) when
    all they hold is equal.

    Attributes
    ----------
    root
        The RFC 9162 Merkle root over the rows' leaf hashes in order (by key, or by leaf hash).
    rows
        The number of rows.
    key
        The key columns, or None (rows ordered by their digests).
    columns
        ``(name, logical type)`` of each column encoded, in name order (key columns included).
    algorithm
        The hash's name.
    """

    _digest: bytes
    root: bytes
    rows: int
    key: tuple[str, ...] | None
    columns: tuple[tuple[str, str], ...]
    algorithm: str

    def digest(self) -> bytes:
        """``H(header || b"\\n" || root)``, as bytes (hashlib's ``digest()``)."""
        return self._digest

    def hexdigest(self) -> str:
        """:meth:`digest` as lowercase hex (hashlib's ``hexdigest()``)."""
        return self._digest.hex()

    def __bytes__(self) -> bytes:
        return self._digest

    def __repr__(self) -> str:
        return (
            f"TableDigest({self.hexdigest()!r}, algorithm={self.algorithm!r}, "
            f"rows={self.rows}, key={self.key!r})"
        )

    @property
    def header(self) -> bytes:
        """The canonical JSON hashed in front of the root."""
        return header_bytes(self.algorithm, self.key, self.columns, self.rows)


def header_bytes(
    algorithm: str, key: Sequence[str] | None, columns: Sequence[tuple[str, str]], rows: int
) -> bytes:
    """Canonical JSON (sorted keys, no spaces, ASCII) of what a table digest covers."""
    header = {
        "algorithm": algorithm,
        "columns": [list(column) for column in columns],
        "format": FORMAT,
        "key": None if key is None else list(key),
        "order": "digest" if key is None else "key",
        "rows": rows,
    }
    return json.dumps(header, sort_keys=True, separators=(",", ":"), ensure_ascii=True).encode()


def resolve_table_hasher(algorithm: object, threads: object) -> Hasher:
    """``algorithm`` (a name, an :class:`Algorithm` or a :class:`Hasher`) on ``threads``: the
    one check of what a hasher must be for :func:`table_digest`, :func:`segment_digests`,
    :func:`diff` and the CLI's ``digest`` and ``diff`` (one hasher for every row, an output of
    at least :data:`MIN_TABLE_HASH_BYTES`)."""
    try:
        resolved = resolve_hasher(algorithm, threads=threads)  # type: ignore[arg-type]  # resolve_hasher checks both and names the argument it rejects
    except TypeError as exc:
        if not isinstance(algorithm, str) or "length is required" not in str(exc):
            raise
        # A name carries no output length: say which argument, and how to give one.
        raise TypeError(
            f"algorithm: {algorithm} needs an output length, which a name cannot give: pass "
            f"a Hasher with one, bk.hasher({algorithm!r}, length={MIN_TABLE_HASH_BYTES * 2})"
        ) from None
    if resolved.batch_size is not None:
        raise ValueError(
            f"algorithm: {resolved.name} holds one key (or state) per message; a table digest "
            "needs one hasher for every row"
        )
    if resolved.output_length < MIN_TABLE_HASH_BYTES:
        raise ValueError(
            f"algorithm: {resolved.name} with a {resolved.output_length}-byte output is too "
            f"short for a table digest; it needs at least {MIN_TABLE_HASH_BYTES} bytes "
            f"({8 * MIN_TABLE_HASH_BYTES} bits) so that different tables do not collide"
        )
    return resolved


def check_memory_limit(memory_limit: object) -> int:
    if memory_limit is None:
        return DEFAULT_MEMORY_LIMIT
    if isinstance(memory_limit, bool) or not isinstance(memory_limit, int):
        raise TypeError(f"memory_limit must be an int (bytes), got {type(memory_limit).__name__}")
    if memory_limit < MIN_MEMORY_LIMIT:
        raise ValueError(
            f"memory_limit must be at least {MIN_MEMORY_LIMIT} bytes, got {memory_limit}"
        )
    # A limit past the machine's memory could never be used; taken as given it reserves
    # (lazily) more address space than the system grants and fails with an OSError.
    return max(min(memory_limit, physical_memory()), MIN_MEMORY_LIMIT)


def physical_memory() -> int:
    """The machine's memory in bytes (``1 << 48`` where the system does not say)."""
    try:
        return os.sysconf("SC_PHYS_PAGES") * os.sysconf("SC_PAGE_SIZE")
    except (AttributeError, OSError, ValueError):
        return 1 << 48


def check_spill_dir(spill_dir: object) -> str | None:
    if spill_dir is None:
        return None
    if not isinstance(spill_dir, (str, os.PathLike)):
        raise TypeError(f"spill_dir must be a path, got {type(spill_dir).__name__}")
    if not Path(spill_dir).is_dir():
        raise FileNotFoundError(f"spill_dir: no such folder: {str(spill_dir)!r}")
    return os.fspath(spill_dir)


def given_columns(columns: object, argument: str = "columns") -> list[str]:
    """``columns=`` (or ``exclude=``, named by ``argument``) as a list of names: one name or a
    sequence of them, not empty."""
    if isinstance(columns, str):
        return [columns]
    if isinstance(columns, (bytes, bytearray)) or not isinstance(columns, Sequence):
        raise TypeError(
            f"{argument} must be a column name or a list of them, got {type(columns).__name__}"
        )
    names = list(columns)
    for name in names:
        if not isinstance(name, str):
            raise TypeError(f"{argument} must be column names (str), got {type(name).__name__}")
    if not names:
        raise ValueError(f"{argument} must name at least one column (or be None)")
    return names


def excluded_columns(
    sources: Sequence[TableSource], key: Sequence[str] | None, columns: object, exclude: object
) -> list[str]:
    """``exclude=`` as a list of names: each a column of at least one of ``sources``, none of
    them a key column, and not given with ``columns=``."""
    if exclude is None:
        return []
    if columns is not None:
        raise TypeError(
            "pass columns or exclude, not both: columns names the columns covered, exclude "
            "the ones left out of all of them"
        )
    names = given_columns(exclude, "exclude")
    for name in names:
        if not any(name in source.schema.names for source in sources):
            raise no_column("exclude", sources, name)
        if name in (key or ()):
            raise ValueError(f"exclude: {name!r} is a key column, and the key is always covered")
    return names


def selected_columns(
    source: TableSource, key: Sequence[str] | None, columns: object, exclude: object = None
) -> list[str]:
    """The columns a row's encoding covers, in name order: ``columns`` (every column but
    those in ``exclude`` for None) and the key columns."""
    left_out = excluded_columns([source], key, columns, exclude)
    if columns is None:
        names = [name for name in source.schema.names if name not in left_out]
        if not names and not key:
            raise ValueError("exclude leaves no column to cover")
    else:
        names = given_columns(columns)
    source.check_columns(names, "columns")
    return sorted(set(names) | set(key or ()))


def described_columns(source: TableSource, names: Sequence[str]) -> tuple[tuple[str, str], ...]:
    return tuple((name, logical_type(source.schema.field(name).type)) for name in names)


@releases_on_error
def table_digest(
    source: object,
    *,
    key: str | Sequence[str] | None = None,
    columns: str | Sequence[str] | None = None,
    exclude: str | Sequence[str] | None = None,
    algorithm: str | Algorithm | Hasher = "sha3_256",
    threads: int | None = None,
    memory_limit: int | None = None,
    spill_dir: str | os.PathLike | None = None,
    progress: bool = False,
) -> TableDigest:
    """One digest of a table: equal for two tables exactly when they hold the same rows.

    Parameters
    ----------
    source
        A pyarrow Table, RecordBatch, RecordBatchReader or Dataset; a path to a Parquet file,
        a directory of Parquet files or an Arrow IPC file (``.arrow``, ``.feather``, ``.ipc``);
        or an object exporting the Arrow PyCapsule interface (a Polars or pandas DataFrame, a
        DuckDB relation).
    key
        Column name(s) whose values identify a row: rows are ordered by key, which must be
        unique and never null. None (the default): rows are ordered by their own digests,
        so the digest is that of the multiset of rows (duplicates count).
    columns
        Columns to cover (key columns are always covered); None for all. Order does not
        matter: columns are encoded in name order.
    exclude
        Column name(s) to leave out, every other column being covered (a list or struct
        column, say): the digest is the one ``columns=`` naming the rest gives. Not with
        ``columns``; a key column cannot be left out.
    algorithm
        A name from ``batchkeccak.algorithms`` (``sha3_256`` by default) or a resolved
        :class:`~batchkeccak.Hasher` (an XOF with its length, a keyed ``kmac_256``...).
    threads
        Threads to read, encode and hash with; None for every core.
    memory_limit
        Bytes of keys and digests held at once (default 1.25 GiB); larger tables are sorted in
        runs spilled to ``spill_dir``.
    spill_dir
        Where the spill folder is made (default: the system's temporary folder); it is
        removed when the call returns or fails.
    progress
        A progress bar on stderr when it is a terminal.

    Returns
    -------
    TableDigest
        ``digest()`` (bytes), ``hexdigest()``, the Merkle ``root``, ``rows`` and what was covered.

    Raises
    ------
    TypeError
        An argument of the wrong type, or a column type without a row encoding (lists,
        structs...) or a key type that makes no key (floats).
    ValueError
        A missing column (in ``columns``, ``key`` or ``exclude``), an excluded key column, a
        null or duplicate key.
    """
    threads = resolve_threads(threads)
    hasher = resolve_table_hasher(algorithm, threads)
    limit = check_memory_limit(memory_limit)
    spill_parent = check_spill_dir(spill_dir)
    opened = open_source(source, "source")
    names = None if key is None else key_names(key)
    encoder = None if names is None else KeyEncoder.of(opened, names)
    covered = selected_columns(opened, names, columns, exclude)
    with Spill(spill_parent) as spill:
        builder = RunBuilder(0, "source", encoder, limit // 2, spill, hasher.output_length)
        rows = digest_source(opened, builder, covered, hasher, threads, progress)
        tree = StreamingRoot(hasher)
        for chunk in merged_chunks(builder.finish()):
            check_unique(chunk, encoder, "source")
            tree.add(chunk.digests)
        root = tree.root()
    described = described_columns(opened, covered)
    algorithm_name = hasher.name
    header = header_bytes(algorithm_name, names, described, rows)
    digest = hasher.hash_one(header + b"\n" + root)
    return TableDigest(
        digest, root, rows, None if names is None else tuple(names), described, algorithm_name
    )


def check_unique(chunk: Chunk, encoder: KeyEncoder | None, argument: str) -> None:
    """DuplicateKeyError for a key twice in a merged chunk of one source (keys found twice
    within one run are caught as the run is sorted)."""
    if encoder is None:
        return
    same = equal_neighbours(chunk.keys)
    if same.any():
        raise duplicate_key(encoder, chunk.keys, int(same.argmax()), argument)
