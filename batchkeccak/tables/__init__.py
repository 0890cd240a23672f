"""Table fingerprints and diffs: digests of whole tables, the rows that changed between two,
and per-key-range digests for comparing tables on two machines.

Modules: ``sources`` (every accepted table form, read batch by batch), ``keys`` (row keys as
order-preserving bytes), ``runs`` (row digests sorted by key in runs, spilled and merged),
``roots`` (RFC 9162 roots of leaves streamed in order), ``join`` (two sorted sides walked
together, for ``diff``), ``digest`` (:func:`table_digest`),
``changes`` (:func:`diff`), ``segments`` (:func:`segment_digests` and the bisection over them);
``_kernels`` holds the package's compiled functions (the walk, the key escaping).
See docs/tables.md.
"""

from batchkeccak.tables.changes import CHANGE_KINDS, diff
from batchkeccak.tables.digest import TableDigest, table_digest
from batchkeccak.tables.segments import SegmentDigests, differing_segments, segment_digests

__all__ = [
    "CHANGE_KINDS",
    "SegmentDigests",
    "TableDigest",
    "diff",
    "differing_segments",
    "segment_digests",
    "table_digest",
]
