"""Per-key-range digests, and finding the ranges where two tables differ by exchanging
digests only.

:func:`segment_digests` cuts a table's rows, in key order, into key ranges (*segments*) and
gives each the RFC 9162 root of its rows (the ``root`` :func:`batchkeccak.table_digest` gives
for those rows alone). The segment digests are in turn the leaves of an RFC 9162 tree. Two
machines compare tables the way datafold's data-diff compares databases, without a database:

1. Machine A computes ``segment_digests(A, key=..., segments=N)`` and sends the boundaries.
2. Machine B computes ``segment_digests(B, key=..., boundaries=...)`` with the same ones.
3. They compare the trees' roots; where two nodes differ they compare the nodes' children
   (:func:`differing_segments`), down to the segments that differ: about
   ``2 * changed * log2(N)`` digests for ``changed`` differing segments, not ``N``.
4. Only the rows of those key ranges need to move (or be diffed).
"""

from __future__ import annotations

import itertools
import math
import numbers
import os
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np
import pyarrow as pa

from batchkeccak.core.hashers import Hasher
from batchkeccak.core.parallel import resolve_threads
from batchkeccak.core.parameters import Algorithm
from batchkeccak.inputs.arrow_producers import releases_on_error
from batchkeccak.merkle.rfc9162 import RFC9162Tree
from batchkeccak.tables.digest import (
    check_memory_limit,
    check_spill_dir,
    check_unique,
    described_columns,
    header_bytes,
    resolve_table_hasher,
    selected_columns,
)
from batchkeccak.tables.keys import KeyEncoder, bisect_keys, key_bytes, key_names
from batchkeccak.tables.roots import StreamingRoot
from batchkeccak.tables.runs import RunBuilder, Spill, digest_source, merged_chunks
from batchkeccak.tables.sources import open_source

DEFAULT_SEGMENTS = 16


@dataclass(frozen=True)
class SegmentDigests:
    """A table's digests per key range, and the Merkle tree over them.

    Segment ``i`` holds the rows whose key is at least ``boundaries[i - 1]`` (no lower bound
    for the first) and less than ``boundaries[i]`` (no upper bound for the last).

    Attributes
    ----------
    key, columns, algorithm, rows
        As in :class:`batchkeccak.tables.TableDigest`.
    boundaries
        The keys where segments start, in order: a value per boundary, or a tuple of values
        for a key of several columns. One fewer than the segments.
    digests
        Each segment's RFC 9162 root over its rows' leaf hashes in key order (``H("")`` for
        an empty segment).
    counts
        Rows per segment.
    tree
        The RFC 9162 tree whose leaves are ``H(0x00 || digests[i])``.
    digest
        ``H(header || b"\\n" || tree.root)``: equal for two tables cut at the same
        boundaries exactly when their columns, key, row count and rows agree.
    """

    key: tuple[str, ...]
    columns: tuple[tuple[str, str], ...]
    algorithm: str
    rows: int
    boundaries: tuple
    digests: tuple[bytes, ...]
    counts: tuple[int, ...]
    tree: RFC9162Tree
    digest: bytes

    @property
    def root(self) -> bytes:
        """The root of the tree over the segment digests."""
        return self.tree.root

    def __len__(self) -> int:
        return len(self.digests)

    def key_range(self, index: int) -> tuple[object, object]:
        """``(low, high)`` of segment ``index``: low included, high excluded, None where the
        segment has no bound on that side."""
        if not 0 <= index < len(self.digests):
            raise IndexError(f"segment {index} is out of range (0..{len(self.digests) - 1})")
        low = self.boundaries[index - 1] if index else None
        high = self.boundaries[index] if index < len(self.boundaries) else None
        return low, high

    def proof(self, index: int) -> list[bytes]:
        """The RFC 9162 audit path of segment ``index``: verifies ``digests[index]`` against
        ``root`` with ``merkle.verify(..., scheme="rfc9162", index=index, size=len(self))``."""
        return self.tree.proof(index)

    def nodes(self, level: int, indices: Sequence[int]) -> list[bytes]:
        """Nodes of the tree (level 0: the segments' leaf hashes; the top level: the root),
        what the other machine asks for in :func:`differing_segments`."""
        levels = self.tree.levels
        if not 0 <= level < len(levels):
            raise IndexError(f"level {level} is out of range (0..{len(levels) - 1})")
        return [levels[level][index].tobytes() for index in indices]


def differing_segments(
    local: SegmentDigests, remote_nodes: Callable[[int, list[int]], Sequence[bytes]]
) -> list[int]:
    """The segments where ``local`` and a remote table differ, found top down.

    Parameters
    ----------
    local
        This machine's segments.
    remote_nodes
        ``remote_nodes(level, indices)`` returns the other machine's tree nodes (what its
        :meth:`SegmentDigests.nodes` returns); over a network, one request per level. The
        other machine must have cut its table at ``local.boundaries``.

    Returns
    -------
    list of int
        Indices of the differing segments, in key order; empty when the trees agree.
    """
    levels = local.tree.levels
    level = len(levels) - 1
    frontier = [0]
    while True:
        theirs = remote_nodes(level, frontier)
        if len(theirs) != len(frontier):
            raise ValueError(
                f"remote_nodes returned {len(theirs)} nodes for {len(frontier)} indices"
            )
        ours = local.nodes(level, frontier)
        frontier = [i for i, mine, other in zip(frontier, ours, theirs) if bytes(other) != mine]
        if level == 0 or not frontier:
            return frontier
        level -= 1
        below = levels[level].shape[0]
        frontier = [child for i in frontier for child in (2 * i, 2 * i + 1) if child < below]


def _encoded_boundaries(boundaries: object, encoder: KeyEncoder) -> list[bytes]:
    if isinstance(boundaries, (str, bytes)) or not isinstance(boundaries, Sequence):
        raise TypeError(f"boundaries must be a list of key values, got {type(boundaries).__name__}")
    values = list(boundaries)
    if not values:
        return []
    width = len(encoder.parts)
    if width > 1:
        for value in values:
            if not isinstance(value, (tuple, list)) or len(value) != width:
                raise ValueError(
                    f"boundaries: each boundary of a key of {width} columns is a tuple of "
                    f"{width} values, got {value!r}"
                )
        columns = [[value[k] for value in values] for k in range(width)]
    else:
        columns = [values]
    for column, part in zip(columns, encoder.parts):
        if pa.types.is_integer(part.arrow_type):
            for value in column:
                # pyarrow truncates 10.5 to 10 for an integer type: a cut nobody asked for.
                if (
                    isinstance(value, numbers.Real)
                    and not isinstance(value, numbers.Integral)
                    and not (math.isfinite(value) and float(value).is_integer())
                ):
                    raise ValueError(
                        f"boundaries: {value!r} is not a whole number, and key column "
                        f"{part.name!r} holds integers ({part.arrow_type})"
                    )
    try:
        arrays = [
            pa.array(column, type=part.arrow_type) for column, part in zip(columns, encoder.parts)
        ]
    except (pa.ArrowInvalid, pa.ArrowTypeError, TypeError, OverflowError) as exc:
        raise ValueError(f"boundaries: values do not fit the key's types: {exc}") from None
    for array, part in zip(arrays, encoder.parts):
        if array.null_count:
            raise ValueError(
                f"boundaries: {array.null_count} boundary value(s) of key column {part.name!r} "
                "are None; a key is never null"
            )
    batch = pa.RecordBatch.from_arrays(arrays, names=encoder.names)
    keys = encoder.encode(batch)
    encoded = [key_bytes(keys, index) for index in range(len(keys))]
    if any(low >= high for low, high in itertools.pairwise(encoded)):
        raise ValueError("boundaries must be strictly increasing keys")
    return encoded


def _decoded_boundaries(encoded: list[bytes], encoder: KeyEncoder) -> tuple:
    if not encoded:
        return ()
    width = encoder.fixed_width
    keys = pa.array(encoded, pa.binary(width) if width else pa.large_binary())
    columns = encoder.decode(keys, [part.arrow_type for part in encoder.parts])
    values = [column.to_pylist() for column in columns]
    return tuple(values[0]) if len(values) == 1 else tuple(zip(*values))


@releases_on_error
def segment_digests(
    source: object,
    *,
    key: str | Sequence[str],
    segments: int | None = None,
    boundaries: Sequence[object] | None = None,
    columns: str | Sequence[str] | None = None,
    exclude: str | Sequence[str] | None = None,
    algorithm: str | Algorithm | Hasher = "sha3_256",
    threads: int | None = None,
    memory_limit: int | None = None,
    spill_dir: str | os.PathLike | None = None,
    progress: bool = False,
) -> SegmentDigests:
    """Digests of a table's rows per key range, and the Merkle tree over them.

    Parameters
    ----------
    source, key, columns, exclude, algorithm, threads, memory_limit, spill_dir, progress
        As for :func:`batchkeccak.table_digest` (``key`` is required).
    segments
        Cut the rows into this many ranges of (nearly) equal row counts, the boundaries
        taken from this table's keys (default 16; fewer when the table has fewer rows).
    boundaries
        Cut at these keys instead (another table's ``boundaries``): strictly increasing
        values of the key's type (tuples for a key of several columns), N - 1 of them for N
        segments. Not with ``segments``.

    Returns
    -------
    SegmentDigests
    """
    if segments is not None and boundaries is not None:
        raise TypeError("pass segments or boundaries, not both")
    if boundaries is None:
        segments = DEFAULT_SEGMENTS if segments is None else segments
        if isinstance(segments, bool) or not isinstance(segments, (int, np.integer)):
            raise TypeError(f"segments must be an int, got {type(segments).__name__}")
        if segments < 1:
            raise ValueError(f"segments must be at least 1, got {segments}")
    threads = resolve_threads(threads)
    hasher = resolve_table_hasher(algorithm, threads)
    limit = check_memory_limit(memory_limit)
    spill_parent = check_spill_dir(spill_dir)
    opened = open_source(source, "source")
    names = key_names(key)
    encoder = KeyEncoder.of(opened, names)
    covered = selected_columns(opened, names, columns, exclude)
    cuts = None if boundaries is None else _encoded_boundaries(boundaries, encoder)

    with Spill(spill_parent) as spill:
        builder = RunBuilder(0, "source", encoder, limit // 2, spill, hasher.output_length)
        rows = digest_source(opened, builder, covered, hasher, threads, progress)
        if cuts is None:
            assert segments is not None  # set above whenever no boundaries are given
            # Segment k starts at row ceil(k * rows / segments) in key order. With at least as
            # many segments as rows every row starts one, and the work is bounded by the rows,
            # not by the count asked for.
            if segments >= rows:
                starts = list(range(1, rows))
            else:
                starts = sorted({-(-k * rows // segments) for k in range(1, int(segments))})
        roots, counts = [StreamingRoot(hasher)], [0]
        found: list[bytes] = []
        seen = 0
        for chunk in merged_chunks(builder.finish()):
            check_unique(chunk, encoder, "source")
            size = len(chunk.keys)
            position = 0
            while True:
                if cuts is None:
                    if len(found) == len(starts) or starts[len(found)] >= seen + size:
                        break
                    cut = starts[len(found)] - seen
                    found.append(key_bytes(chunk.keys, cut))
                else:
                    if len(roots) > len(cuts):
                        break
                    cut = bisect_keys(chunk.keys, cuts[len(roots) - 1], position, after=False)
                    if cut == size:
                        break
                roots[-1].add(chunk.digests[position:cut])
                counts[-1] += cut - position
                roots.append(StreamingRoot(hasher))
                counts.append(0)
                position = cut
            roots[-1].add(chunk.digests[position:])
            counts[-1] += size - position
            seen += size
        while cuts is not None and len(roots) <= len(cuts):  # ranges past the last key
            roots.append(StreamingRoot(hasher))
            counts.append(0)
        digests = tuple(tree.root() for tree in roots)

    encoded = found if cuts is None else cuts
    described = described_columns(opened, covered)
    tree = RFC9162Tree.build(
        np.frombuffer(b"".join(digests), np.uint8).reshape(len(digests), -1), algorithm=hasher
    )
    header = header_bytes(hasher.name, names, described, rows)
    return SegmentDigests(
        key=tuple(names),
        columns=described,
        algorithm=hasher.name,
        rows=rows,
        boundaries=_decoded_boundaries(encoded, encoder),
        digests=digests,
        counts=tuple(counts),
        tree=tree,
        digest=hasher.hash_one(header + b"\n" + tree.root),
    )
