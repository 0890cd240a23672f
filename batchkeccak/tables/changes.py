"""``diff``: the keys added, removed and changed between two tables.

Both sources are digested at once, each on its own thread, into runs sorted by key
(:mod:`batchkeccak.tables.runs`). Each key is then classified where it stands in key order:
only in ``a`` (removed), only in ``b`` (added), or in both with different row digests
(changed). Fixed-width keys (integers, temporal types, booleans) are matched by walking the
two sides' sorted streams together in a compiled kernel (:mod:`batchkeccak.tables.join`);
variable-length ones by merging the runs of both into one stream. Memory holds the runs'
blocks, not the tables. The columns that changed are found
afterwards by reading again only the changed rows of each source (``changed_columns=True``)
and comparing each column's field digest.

The row digests are compared within the call and never leave it, so by default they are
TurboSHAKE128 (RFC 9861: Keccak-p[1600] with 12 rounds, half of SHA3-256's 24) with a 32-byte
output (:data:`DIFF_ROW_HASH`): what ``diff`` reports does not depend on the hash, only the
time it takes. The digests of :func:`batchkeccak.table_digest` are unchanged.
"""

from __future__ import annotations

import os
from collections.abc import Iterator, Sequence

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from batchkeccak.core.hashers import Hasher
from batchkeccak.core.parallel import resolve_threads
from batchkeccak.core.parameters import Algorithm
from batchkeccak.inputs.arrow_producers import releases_on_error
from batchkeccak.inputs.arrow_types import key_kind, logical_type, normalize, normalize_batch
from batchkeccak.tables.digest import (
    check_memory_limit,
    check_spill_dir,
    check_unique,
    excluded_columns,
    given_columns,
    resolve_table_hasher,
)
from batchkeccak.tables.join import ADDED, CHANGED, REMOVED, sorted_differences
from batchkeccak.tables.keys import KeyEncoder, KeyPart, equal_neighbours, key_names, key_order
from batchkeccak.tables.runs import (
    Chunk,
    Run,
    RunBuilder,
    Spill,
    digest_sources,
    duplicate_key,
    merged_chunks,
    row_digests,
    rows_differ,
    take_rows,
)
from batchkeccak.tables.sources import TableSource, open_source

CHANGE_KINDS = ("added", "removed", "changed")
"""Values of the ``change`` column: a key only in ``b``, only in ``a``, or in both with rows
that differ."""

DIFF_ROW_HASH = ("turboshake128", 32)
"""The row digest ``diff`` compares when ``algorithm`` is None (the default): TurboSHAKE128
with a 32-byte output. Its 12 rounds cost half of SHA3-256's 24 per block, and a 32-byte
output keeps SHA3-256's 128-bit collision resistance; the digests never leave the call."""

CHANGE_COLUMN = "change"
COLUMNS_COLUMN = "changed_columns"


def compared_columns(
    a: TableSource,
    b: TableSource,
    key: Sequence[str],
    columns: object,
    exclude: object = None,
    widen: bool = False,
) -> list[str]:
    """The columns two rows of one key are compared on, in name order: ``columns`` (every
    column but those in ``exclude`` for None) less the key columns, which are compared by
    value as keys (so an ``int32`` key matches an ``int64`` one). With ``widen``, integer
    columns of one signedness compare whatever their widths."""
    left_out = excluded_columns([a, b], key, columns, exclude)
    if columns is None:
        names_a = [name for name in a.schema.names if name not in left_out]
        names_b = [name for name in b.schema.names if name not in left_out]
        only_a = [name for name in names_a if name not in names_b]
        only_b = [name for name in names_b if name not in names_a]
        if only_a or only_b:
            raise ValueError(
                f"a and b have different columns (only in a: {only_a}; only in b: {only_b}); "
                "pass columns= to compare the columns they share, or exclude= to leave "
                "those out"
            )
        names = names_a
    else:
        names = given_columns(columns)
    for source in (a, b):
        source.check_columns(names, "columns")
    names = sorted(set(names) - set(key))
    for name in names:
        type_a, type_b = a.schema.field(name).type, b.schema.field(name).type
        if widen and _integer_kind(type_a) and _integer_kind(type_b):
            if _integer_kind(type_a) != _integer_kind(type_b):
                raise ValueError(
                    f"column {name!r} is {logical_type(type_a)} in a and "
                    f"{logical_type(type_b)} in b: widen compares integers of one signedness "
                    "(signed with signed, unsigned with unsigned); cast one side, or leave "
                    f"the column out with exclude={name!r}"
                )
            continue
        if logical_type(type_a) != logical_type(type_b):
            hint = " (or pass widen=True for integers of other widths)" if (
                _integer_kind(type_a) and _integer_kind(type_b)
            ) else ""  # fmt: skip
            raise ValueError(
                f"column {name!r} is {logical_type(type_a)} in a and {logical_type(type_b)} in "
                f"b, so no row would compare equal; cast one side{hint}, or leave the column "
                f"out with exclude={name!r}"
            )
    return names


WIDEST = {"int": pa.int64(), "uint": pa.uint64()}
"""What ``widen=True`` encodes an integer column as, by signedness."""


def _integer_kind(arrow_type: pa.DataType) -> str | None:
    """``int`` or ``uint`` for an integer type (a dictionary of one too), else None."""
    kind = key_kind(arrow_type)
    return kind if kind in WIDEST else None


def widened(source: TableSource, names: Sequence[str]) -> TableSource:
    """``source`` with its integer columns among ``names`` read as int64 / uint64 (by
    signedness): the values, and so their row encoding, no longer depend on the width."""
    targets = {}
    for name in names:
        kind = _integer_kind(source.schema.field(name).type)
        if kind is not None:
            targets[name] = WIDEST[kind]
    if not targets:
        return source
    fields = [
        field.with_type(targets[field.name]) if field.name in targets else field
        for field in source.schema
    ]

    def read(columns: list[str]) -> Iterator[pa.RecordBatch]:
        for batch in source.batches(columns):
            arrays = [
                pc.cast(normalize(column), targets[name]) if name in targets else column
                for name, column in zip(batch.schema.names, batch.columns)
            ]
            yield pa.RecordBatch.from_arrays(arrays, names=batch.schema.names)

    return TableSource(
        source.argument, pa.schema(fields, source.schema.metadata), source.rows,
        source.rereadable, read, exclusive=source.exclusive,
    )  # fmt: skip


def _output_type(part_a: KeyPart, part_b: KeyPart) -> pa.DataType:
    """A type that holds the key values of both sides."""
    if part_a.arrow_type == part_b.arrow_type:
        return part_a.arrow_type
    return {
        "int": pa.int64(), "uint": pa.uint64(), "string": pa.large_string(),
        "binary": pa.large_binary(),
    }.get(part_a.kind, part_a.arrow_type)  # fmt: skip


@releases_on_error
def diff(
    a: object,
    b: object,
    *,
    key: str | Sequence[str],
    columns: str | Sequence[str] | None = None,
    exclude: str | Sequence[str] | None = None,
    widen: bool = False,
    changed_columns: bool = True,
    algorithm: str | Algorithm | Hasher | None = None,
    threads: int | None = None,
    memory_limit: int | None = None,
    spill_dir: str | os.PathLike | None = None,
    progress: bool = False,
) -> pa.Table:
    """The keys added, removed and changed from table ``a`` to table ``b``.

    Parameters
    ----------
    a, b
        Tables in any form :func:`batchkeccak.table_digest` takes (pyarrow tables, batches,
        readers and datasets, Parquet or IPC paths, Polars / pandas / DuckDB objects).
    key
        Column name(s) that identify a row in both: unique and never null in each. Integer
        keys of different widths match by value; strings by their UTF-8 bytes.
    columns
        Columns to compare (key columns always are); None compares every column, and then
        ``a`` and ``b`` must have the same column names (in any order). A compared column
        must have the same logical type on both sides (``string`` and ``large_string`` do).
    exclude
        Column name(s) to leave out, every other column being compared; a name may be a
        column of only one side (a column added in ``b``). Not with ``columns``; a key
        column cannot be left out.
    widen
        Compare integer columns of different widths by value: each integer column of both
        sides (compared, not key) is encoded as ``int64`` (signed) or ``uint64``
        (unsigned), so ``int32`` 7 in ``a`` equals ``int64`` 7 in ``b``. Only within one
        signedness: a signed column against an unsigned one is still a ValueError. It
        changes the row digests ``diff`` compares, never what it reports for columns whose
        types agree; :func:`batchkeccak.table_digest` of either side is unchanged.
    changed_columns
        Name the columns that differ in each changed row, by reading the changed rows of both
        sources again (a second pass). False leaves ``changed_columns`` null, in one pass;
        a ``RecordBatchReader`` (which can be read once) needs False.
    algorithm
        The hash of the row digests compared: None (the default) is TurboSHAKE128 with a
        32-byte output (:data:`DIFF_ROW_HASH`), since they never leave the call; any
        algorithm :func:`batchkeccak.table_digest` takes may be named instead. The result
        is the same whichever is used (unless two different rows of one key collide).
    threads, memory_limit, spill_dir, progress
        As for :func:`batchkeccak.table_digest`.

    Returns
    -------
    pyarrow.Table
        One row per difference, in key order: the key column(s), ``change`` (``"added"``,
        ``"removed"`` or ``"changed"``) and ``changed_columns`` (a list of column names for
        changed rows, null otherwise). Empty when the tables agree. The schema's metadata
        holds the row counts: ``batchkeccak.rows_a``, ``batchkeccak.rows_b`` and
        ``batchkeccak.unchanged``.

    Raises
    ------
    ValueError
        Different columns or column types, a null or duplicate key (naming the source and
        the key), a key column named ``change`` or ``changed_columns``.
    TypeError
        As for :func:`batchkeccak.table_digest`.
    """
    threads = resolve_threads(threads)
    hasher = resolve_table_hasher(_row_hash() if algorithm is None else algorithm, threads)
    limit = check_memory_limit(memory_limit)
    spill_parent = check_spill_dir(spill_dir)
    if not isinstance(changed_columns, bool):
        raise TypeError(f"changed_columns must be a bool, got {type(changed_columns).__name__}")
    if not isinstance(widen, bool):
        raise TypeError(f"widen must be a bool, got {type(widen).__name__}")
    names = key_names(key)
    for reserved in (CHANGE_COLUMN, COLUMNS_COLUMN):
        if reserved in names:
            raise ValueError(f"key column {reserved!r} clashes with the result's own column")
    if a is b and isinstance(a, pa.RecordBatchReader):
        raise ValueError("a and b are one RecordBatchReader, which can be read only once")
    source_a, source_b = open_source(a, "a"), open_source(b, "b")
    encoder_a, encoder_b = KeyEncoder.of(source_a, names), KeyEncoder.of(source_b, names)
    encoder_a.check_matches(encoder_b)
    compared = compared_columns(source_a, source_b, names, columns, exclude, widen)
    if widen:
        source_a, source_b = widened(source_a, compared), widened(source_b, compared)
    if changed_columns:
        _require_rereadable(source_a, source_b)

    with Spill(spill_parent) as spill:
        builders = [
            RunBuilder(side, source.argument, encoder, limit // 3, spill, hasher.output_length)
            for side, (source, encoder) in enumerate([(source_a, encoder_a), (source_b, encoder_b)])
        ]
        rows = digest_sources([source_a, source_b], builders, compared, hasher, threads, progress)
        runs_a, runs_b = builders[0].finish(), builders[1].finish()
        if encoder_a.fixed_width:
            steps = sorted_differences(
                _unique_chunks(runs_a, encoder_a), _unique_chunks(runs_b, encoder_b),
                encoder_a.fixed_width, hasher.output_length,
            )  # fmt: skip
        else:
            encoders = [encoder_a, encoder_b]
            steps = (_classify(chunk, encoders) for chunk in merged_chunks(runs_a + runs_b))
        keys, kinds = [], []
        matched = 0
        for step_keys, step_kinds, step_matched in steps:
            matched += step_matched
            if len(step_keys):
                keys.append(step_keys)
                kinds.append(step_kinds)
    differences = pa.concat_arrays(keys) if keys else pa.array([], encoder_a.key_type)
    kind_codes = np.concatenate(kinds) if kinds else np.zeros(0, dtype=np.int8)
    return _differences_table(
        [source_a, source_b],
        [encoder_a, encoder_b],
        names,
        differences,
        kind_codes,
        rows,
        matched,
        compared,
        hasher,
        changed_columns,
    )


def _row_hash() -> Hasher:
    from batchkeccak.api import hasher

    name, length = DIFF_ROW_HASH
    return hasher(name, length=length)


def _require_rereadable(*sources: TableSource) -> None:
    """Refuse a source that changed_columns=True cannot read a second time."""
    for source in sources:
        if not source.rereadable:
            raise ValueError(
                f"{source.argument}: a RecordBatchReader can be read only once, and "
                "changed_columns=True reads the changed rows again; pass "
                "changed_columns=False, or a table, dataset or path"
            )


def _differences_table(
    sources: list[TableSource],
    encoders: list[KeyEncoder],
    names: list[str],
    differences: pa.Array,
    kind_codes: np.ndarray,
    rows: list[int],
    matched: int,
    compared: list[str],
    hasher: Hasher,
    changed_columns: bool,
) -> pa.Table:
    """diff's result: the key columns decoded from ``differences``, ``change`` from
    ``kind_codes``, the changed columns of each changed row (a second pass over the sources
    when ``changed_columns``), and the row counts in the schema's metadata."""
    encoder_a, encoder_b = encoders
    changed_count = int(np.count_nonzero(kind_codes == CHANGED))
    output_types = [_output_type(pa_, pb) for pa_, pb in zip(encoder_a.parts, encoder_b.parts)]
    key_columns = encoder_a.decode(differences, output_types)
    detail = pa.nulls(len(differences), pa.list_(pa.string()))
    if changed_columns and changed_count:
        detail = _changed_columns(sources, encoders, differences, kind_codes, compared, hasher)
    change = pa.DictionaryArray.from_arrays(
        pa.array(kind_codes, pa.int8()), pa.array(CHANGE_KINDS)
    ).cast(pa.string())
    metadata = {
        "batchkeccak.rows_a": str(rows[0]),
        "batchkeccak.rows_b": str(rows[1]),
        "batchkeccak.unchanged": str(matched - changed_count),
    }
    schema = pa.schema(
        [pa.field(name, column.type) for name, column in zip(names, key_columns)]
        + [pa.field(CHANGE_COLUMN, pa.string()), pa.field(COLUMNS_COLUMN, detail.type)],
        metadata=metadata,
    )
    return pa.Table.from_arrays([*key_columns, change, detail], schema=schema)


def _unique_chunks(runs: list[Run], encoder: KeyEncoder) -> Iterator[Chunk]:
    """One side's rows in key order, checked unique across its runs (each run was checked as
    it was sorted)."""
    for chunk in merged_chunks(runs):
        if len(runs) > 1:
            check_unique(chunk, encoder, encoder.argument)
        yield chunk


def _classify(chunk: Chunk, encoders: list[KeyEncoder]) -> tuple[pa.Array, np.ndarray, int]:
    """The differences in one merged chunk: their keys, kinds, and the count of keys in both."""
    sides = chunk.sides
    same = equal_neighbours(chunk.keys)
    # Rows of one key are adjacent, a's before b's; two of one side is a duplicate that
    # two runs of that side held (one run's duplicates are caught when it is sorted).
    duplicated = np.flatnonzero(same & (sides[1:] == sides[:-1]))
    if duplicated.shape[0]:
        index = int(duplicated[0])
        side = int(sides[index])
        raise duplicate_key(encoders[side], chunk.keys, index, "ab"[side])
    first = np.flatnonzero(same)  # a's row of a key in both; b's is the next one
    in_both = np.zeros(len(sides), dtype=bool)
    in_both[first] = True
    in_both[first + 1] = True
    removed = np.flatnonzero(~in_both & (sides == 0))
    added = np.flatnonzero(~in_both & (sides == 1))
    differs = rows_differ(take_rows(chunk.digests, first), take_rows(chunk.digests, first + 1))
    changed = first[differs]
    rows = np.concatenate([added, removed, changed])
    codes = np.concatenate(
        [
            np.full(added.shape[0], ADDED, np.int8),
            np.full(removed.shape[0], REMOVED, np.int8),
            np.full(changed.shape[0], CHANGED, np.int8),
        ]
    )
    order = np.argsort(rows, kind="stable")
    return chunk.keys.take(rows[order]), codes[order], int(first.shape[0])


def _changed_rows(
    source: TableSource, encoder: KeyEncoder, wanted: pa.Array, columns: list[str]
) -> pa.Table:
    """The rows of ``source`` whose keys are in ``wanted`` (sorted, encoded), in that order."""
    tables, found = [], []
    needed = list(dict.fromkeys([*encoder.names, *columns]))
    for batch in source.batches(needed):
        # Plain columns (views cast to their large form): pyarrow filters and takes no views.
        batch = normalize_batch(batch, offsets=True)
        keys = encoder.encode(batch)
        mask = pc.is_in(keys, value_set=wanted)
        if pc.any(mask).as_py():
            tables.append(pa.Table.from_batches([batch.filter(mask)]))
            found.append(keys.filter(mask))
    if not found:
        found_keys = pa.array([], wanted.type)
        rows = pa.Table.from_batches([], pa.schema([source.schema.field(n) for n in needed]))
    else:
        found_keys = pa.concat_arrays(found)
        rows = pa.concat_tables(tables)
    if len(found_keys) != len(wanted):
        raise RuntimeError(
            f"{source.argument} changed while it was compared: {len(wanted)} changed rows were "
            f"found in the first pass and {len(found_keys)} in the second"
        )
    return rows.take(key_order(found_keys))


def _changed_columns(
    sources: list[TableSource],
    encoders: list[KeyEncoder],
    differences: pa.Array,
    kind_codes: np.ndarray,
    value_columns: list[str],
    hasher: Hasher,
) -> pa.Array:
    """For each difference, the columns that differ (changed rows) or null (the others)."""
    changed_at = np.flatnonzero(kind_codes == CHANGED)
    wanted = differences.take(changed_at)
    rows_a, rows_b = (
        _changed_rows(source, encoder, wanted, value_columns)
        for source, encoder in zip(sources, encoders)
    )
    differs = np.zeros((changed_at.shape[0], len(value_columns)), dtype=bool)
    batch_a = rows_a.combine_chunks().to_batches()
    batch_b = rows_b.combine_chunks().to_batches()
    if batch_a and batch_b:
        for position, name in enumerate(value_columns):
            digests_a = row_digests(batch_a[0], [name], hasher)
            digests_b = row_digests(batch_b[0], [name], hasher)
            differs[:, position] = rows_differ(digests_a, digests_b)
    row_of, column_of = np.nonzero(differs)
    names = pa.array(value_columns, pa.string()).take(column_of)
    offsets = np.zeros(changed_at.shape[0] + 1, dtype=np.int32)
    np.cumsum(np.bincount(row_of, minlength=changed_at.shape[0]), out=offsets[1:])
    lists = pa.ListArray.from_arrays(pa.array(offsets), names)
    # Spread the lists over every difference: null where the change is not "changed".
    list_at = np.full(kind_codes.shape[0], -1, dtype=np.int64)
    list_at[changed_at] = np.arange(changed_at.shape[0])
    index = pa.array(list_at, mask=list_at < 0)
    return lists.take(index)
