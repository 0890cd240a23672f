"""Ethereum's hexary Merkle Patricia trie, for many tries at once, stored nowhere.

As reth's ``HashBuilder`` does, a root is computed from the sorted keys alone: the common-prefix
lengths of neighbouring keys give every node (leaf, extension, branch) of every trie of the
batch (:func:`~batchkeccak.ethereum._kernels.trie_shapes`); the nodes are then encoded and
hashed level by level, deepest first, one batch hash per level across all the tries. A node
whose RLP is under 32 bytes is embedded in its parent instead of hashed.
"""

from __future__ import annotations

import threading
from collections.abc import Sequence
from itertools import chain

import numpy as np

from batchkeccak.api import hasher
from batchkeccak.core import parallel
from batchkeccak.core.hashers import Hasher
from batchkeccak.ethereum import _kernels
from batchkeccak.inputs import FlatMessages, readonly, to_flat
from batchkeccak.support.checks import is_int

__all__ = [
    "EMPTY_ROOT",
    "ordered_trie_root",
    "ordered_trie_roots",
    "trie_proofs",
    "trie_root",
    "trie_roots",
    "verify_trie_proofs",
]

EMPTY_ROOT = bytes.fromhex("56e81f171bcc55a6ff8345e692c0f86e5b48e01b996cadc001622fb5e363b421")
"""The root of the empty trie: Keccak-256 of ``rlp(b"")`` (0x80)."""


CHUNK_BYTES = 1 << 22
"""Bytes of node encodings hashed per batch call: enough for every core (thousands of
nodes), few enough to stay in a buffer that is reused and mostly in cache."""

MIN_PART_NODES = 4096
"""Nodes a thread takes at least from a level: fewer cost more to hand out than they save."""

PARTS_PER_THREAD = 4
"""Pieces of a level per thread, taken by whichever thread is free: on a shared machine a
slowed core then delays the level by a small piece, not by half of it."""


SCRATCH_KEPT_BYTES = 1 << 26
"""Work memory kept from one call to the next, at most. Memory written for the first time
costs a page fault per 4 KiB: with fresh work arrays in every call, the faults were measured
to take a sixth of a secure trie's time."""

_scratch: list[np.ndarray] = []
_scratch_lock = threading.Lock()


def take_scratch(size: int) -> np.ndarray:
    """A uint8 block of at least ``size`` bytes: the smallest kept one that is large enough,
    or a new one."""
    with _scratch_lock:
        fits = [k for k, block in enumerate(_scratch) if block.shape[0] >= size]
        if fits:
            return _scratch.pop(min(fits, key=lambda k: _scratch[k].shape[0]))
    return np.empty(max(size, 1), dtype=np.uint8)


def keep_scratch(block: np.ndarray) -> None:
    """Keep a block for later calls while the kept ones stay under ``SCRATCH_KEPT_BYTES``
    (the largest kept first)."""
    with _scratch_lock:
        _scratch.append(block)
        _scratch.sort(key=lambda kept: -kept.shape[0])
        total = 0
        for k, kept in enumerate(_scratch):
            total += kept.shape[0]
            if total > SCRATCH_KEPT_BYTES:
                del _scratch[k:]
                break


Layout = Sequence[tuple[tuple[int, ...], type]]
"""Arrays' shapes and dtypes, to be laid out in one block of memory."""


def _places(shapes: Layout) -> tuple[list[tuple[int, int]], int]:
    """Each array's ``(start, size)`` in bytes, each on a 64-byte boundary; the bytes in all."""
    places, at = [], 0
    for shape, dtype in shapes:
        size = int(np.prod(shape)) * np.dtype(dtype).itemsize
        places.append((at, size))
        at += (size + 63) & ~63
    return places, at


def carved_bytes(shapes: Layout) -> int:
    """The bytes :func:`carve` needs for ``shapes``."""
    return _places(shapes)[1]


def carve(block: np.ndarray, shapes: Layout) -> list[np.ndarray]:
    """Arrays of these shapes and dtypes laid out in ``block``, each on a 64-byte boundary."""
    return [
        block[start : start + size].view(dtype).reshape(shape)
        for (start, size), (shape, dtype) in zip(_places(shapes)[0], shapes)
    ]


def keccak256() -> Hasher:
    return hasher("keccak_256")


# -- arguments ---------------------------------------------------------------------------------


def flat_rows(messages: object, argument: str) -> tuple[np.ndarray, np.ndarray]:
    """Any input form of ``hash_many`` as ``(data, offsets)`` with offsets from 0."""
    data, offsets = to_flat(messages, argument)
    if offsets[0] != 0:
        data = data[int(offsets[0]) :]
        offsets = offsets - offsets[0]
    return data, offsets


def check_group_offsets(offsets: object, rows: int, argument: str = "offsets") -> np.ndarray:
    """``offsets`` as G + 1 int64 group bounds that start at 0, end at ``rows`` and never
    decrease; ValueError naming the first position that does not."""
    if isinstance(offsets, (str, bytes)):
        raise TypeError(
            f"{argument} must be a sequence of G + 1 ints, got {type(offsets).__name__}"
        )
    array = np.asarray(offsets)
    if array.ndim != 1 or array.shape[0] == 0:
        raise ValueError(f"{argument} must be a 1-D sequence of G + 1 ints (G >= 0 tries)")
    if array.dtype.kind not in "iu":
        if array.dtype == object and all(is_int(x) for x in array):
            array = array.astype(np.int64)
        else:
            raise TypeError(f"{argument} must hold ints, got {array.dtype}")
    bounds = array.astype(np.int64)
    if bounds[0] != 0:
        raise ValueError(f"{argument}[0] must be 0 (the first row), got {int(bounds[0])}")
    if bounds[-1] != rows:
        raise ValueError(
            f"{argument}[-1] must be {rows}, the number of rows, got {int(bounds[-1])}: the "
            "tries must cover every row"
        )
    falls = np.flatnonzero(np.diff(bounds) < 0)
    if falls.size:
        g = int(falls[0])
        raise ValueError(
            f"{argument} must not decrease: {argument}[{g}] = {int(bounds[g])} > "
            f"{argument}[{g + 1}] = {int(bounds[g + 1])}"
        )
    return bounds


def key_rows(keys: object, secure: bool, argument: str = "keys") -> tuple[np.ndarray, np.ndarray]:
    """The trie keys: the keys themselves, or their Keccak-256 for a secure trie."""
    data, offsets = flat_rows(keys, argument)
    if not secure:
        return data, offsets
    digests = keccak256().hash_flat(data, offsets)
    return digests.reshape(-1), np.arange(0, 32 * digests.shape[0] + 1, 32, dtype=np.int64)


def matching_values(values: object, rows: int) -> tuple[np.ndarray, np.ndarray]:
    data, offsets = flat_rows(values, "values")
    if offsets.shape[0] - 1 != rows:
        raise ValueError(
            f"values has {offsets.shape[0] - 1} rows but keys has {rows}: one value per key"
        )
    return data, offsets


# -- the tries ---------------------------------------------------------------------------------


class TrieBatch:
    """The nodes of many tries, encoded and hashed: roots, and each hashed node's RLP.

    Every node has an item, where its digest (at row ``node_items.slot[item]`` of ``digests``)
    or, for a node embedded in its parent, its RLP (``node_items.embedded``) is kept: a leaf the
    position of its key in ``order``, any other node ``n`` the item ``len(order) + n``.
    """

    def __init__(
        self,
        key_data,
        key_offsets,
        value_data,
        value_offsets,
        order,
        group_starts,
        keep_nodes: bool = False,
    ) -> None:
        # Read-only inputs, as every kernel is compiled for (batchkeccak.native.arrays).
        self.keys = _kernels.SortedKeys(readonly(key_data), readonly(key_offsets), order)
        self.values = _kernels.Values(readonly(value_data), readonly(value_offsets))
        self.group_starts = group_starts
        count = order.shape[0]
        # Room for the leaves and for as many nodes as trie_shapes may make (a leaf, a branch
        # or an extension per key at most), though only the hashed items (digests) or the
        # embedded ones (embedded) are written. The arrays are listed in the order of the
        # fields of the tuples they go to (NodeItems, TrieNodes).
        items, capacity = 4 * count + 1, 3 * count + 1
        item_arrays: Layout = [
            ((items,), np.int64),
            ((items, 32), np.uint8),
            ((32 * items,), np.uint8),
            ((items,), np.int64),
        ]
        node_arrays: Layout = [
            ((capacity,), np.int8),
            ((capacity,), np.int64),
            ((capacity,), np.int64),
            ((capacity,), np.int32),
            ((capacity,), np.int64),
        ]
        work_arrays: Layout = [((capacity,), np.int64), ((max(count, 1),), np.int64)]
        layout = [*item_arrays, *node_arrays, *work_arrays]
        block = take_scratch(carved_bytes(layout))
        self.block: np.ndarray | None = block
        arrays = carve(block, layout)
        self.digests = arrays[1]
        self.node_items = _kernels.NodeItems(arrays[0], self.digests.reshape(-1), *arrays[2:4])
        self.trie = _kernels.TrieNodes(*arrays[4:9])
        self.node_hi, self.shared = arrays[9:]
        self.keep_nodes = keep_nodes
        self.chunks: list[tuple[np.ndarray, np.ndarray, np.ndarray]] = []
        threads = parallel.available_cores()
        self.spare: list[np.ndarray] = []
        keccak = keccak256()
        one_thread = hasher("keccak_256", threads=1)
        # The leaves are encoded and hashed while the other nodes are worked out: the shapes
        # are one task, the leaves the others, taken by whichever thread is free.
        tasks = [("shapes", 0, 0)] + [
            ("leaves", first, stop) for first, stop in self.parts(0, count, threads)
        ]
        parallel.run_parallel(
            self.run_task, tasks, one_thread if threads > 1 else keccak, workers=threads
        )
        levels = self.levels
        for level in range(levels.shape[0] - 2, -1, -1):
            spans = self.parts(int(levels[level]), int(levels[level + 1]), threads)
            if len(spans) == 1:
                self.encode_range(_kernels.encode_level, *spans[0], keccak)
                continue
            # Each thread encodes and hashes its own nodes, where one thread encoding for all
            # the threads hashing would leave the others idle a third of the time.
            parallel.run_parallel(
                self.run_task,
                [("nodes", first, stop) for first, stop in spans],
                one_thread,
                workers=threads,
            )
        present = self.root_nodes >= 0
        self.roots = np.empty((group_starts.shape[0] - 1, 32), dtype=np.uint8)
        self.roots[:] = np.frombuffer(EMPTY_ROOT, dtype=np.uint8)
        self.roots[present] = self.digests[
            self.node_items.slot[self.items(self.root_nodes[present])]
        ]

    def release(self) -> None:
        """Give the work memory back for later calls; nothing of the batch but its roots may
        be read after."""
        kept = self.spare if self.block is None else [self.block, *self.spare]
        for block in kept:
            keep_scratch(block)
        self.block = None
        self.spare = []

    @staticmethod
    def parts(first: int, stop: int, threads: int) -> list[tuple[int, int]]:
        count = min(PARTS_PER_THREAD * threads, (stop - first) // MIN_PART_NODES)
        if threads == 1 or count <= 1:
            return [(first, stop)]
        return parallel.split_ranges(first, stop, count)

    def run_task(self, task: tuple[str, int, int], keccak: Hasher) -> None:
        what, first, stop = task
        if what == "shapes":
            nodes, self.root_nodes, self.levels = _kernels.trie_shapes(
                self.keys, self.group_starts, self.trie, self.node_hi, self.shared
            )
            self.trie = _kernels.TrieNodes(*(array[:nodes] for array in self.trie))
            self.root_count = int((self.root_nodes >= 0).sum())
        elif what == "leaves":
            self.encode_range(_kernels.encode_leaves, first, stop, keccak)
        else:
            self.encode_range(_kernels.encode_level, first, stop, keccak)

    def encode_range(self, kernel, first: int, stop: int, keccak: Hasher) -> None:
        """Encode and hash the leaves (``encode_leaves``) or the other nodes
        (``encode_level``) among ``first:stop``, a buffer at a time."""
        shape: tuple[object, ...]
        if kernel is _kernels.encode_leaves:
            shape = (self.group_starts,)
        else:
            shape = (self.root_count, self.trie)
        # Buffers go back to a pool shared by every level and thread: memory written for
        # the first time costs a page fault per 4 KiB, which was measured to take longer
        # than encoding and hashing the nodes written there.
        buffer = self.spare.pop() if self.spare else take_scratch(CHUNK_BYTES)
        while first < stop:
            # Room for a node per 32 bytes of the buffer, what the kernels reserve for each
            # (a short root takes less: they stop when these rows are full).
            most = min(stop - first, buffer.shape[0] // 32 + 1)
            offsets = np.empty(most + 1, dtype=np.int64)
            items = np.empty(most, dtype=np.int64)
            reached, needed, hashed = kernel(
                first, stop, *shape, self.keys, self.values, self.node_items, buffer, offsets, items
            )
            offsets, items = offsets[: hashed + 1], items[:hashed]
            if hashed:
                slot = int(self.node_items.slot[items[0]])
                keccak.hash_flat(buffer, offsets, out=self.digests[slot : slot + hashed])
                if self.keep_nodes:
                    self.chunks.append((buffer, offsets, items))
                    buffer = np.empty(buffer.shape[0], dtype=np.uint8)
            if needed:  # a node larger than the whole buffer: it gets one of its size
                self.spare.append(buffer)
                buffer = np.empty(needed, dtype=np.uint8)
            first = int(reached)
        self.spare.append(buffer)

    def items(self, nodes: np.ndarray) -> np.ndarray:
        """The item of each node: a leaf's key position, another node's ``len(order) + n``."""
        trie, order = self.trie, self.keys.order
        return np.where(
            trie.kind[nodes] == _kernels.LEAF, trie.key_row[nodes], order.shape[0] + nodes
        )

    def node_rlp(self, nodes: np.ndarray) -> dict[int, bytes]:
        """The RLP of some hashed nodes, by node (for the proofs)."""
        size = self.node_items.slot.shape[0]
        chunk_of = np.full(size, -1, dtype=np.int64)
        start_of = np.zeros(size, dtype=np.int64)
        stop_of = np.zeros(size, dtype=np.int64)
        for c, (_, offsets, items) in enumerate(self.chunks):
            chunk_of[items] = c
            start_of[items] = offsets[:-1]
            stop_of[items] = offsets[1:]
        items = self.items(nodes)
        chunks = chunk_of[items]
        blobs = {
            c: self.chunks[c][0][: int(self.chunks[c][1][-1])].tobytes()
            for c in np.unique(chunks).tolist()
        }
        return {
            node: blobs[chunk][start:stop]
            for node, chunk, start, stop in zip(
                nodes.tolist(),
                chunks.tolist(),
                start_of[items].tolist(),
                stop_of[items].tolist(),
            )
        }


def sorted_rows(key_data, key_offsets, group_starts, value_offsets, argument="keys"):
    """The rows of each group in key order, absent keys (empty values) left out, and the new
    group bounds; ValueError naming two rows with equal keys."""
    rows = key_offsets.shape[0] - 1
    groups = group_starts.shape[0] - 1
    key_data, key_offsets = readonly(key_data), readonly(key_offsets)
    prefixes = _kernels.key_prefixes(key_data, key_offsets)
    if groups == 1:
        # Ties on the prefix are put in key order below, so this sort need not be stable;
        # numpy's unstable sort was measured 5 times faster than lexsort here.
        order = np.argsort(prefixes)
    elif rows:
        group_of_row = np.repeat(np.arange(groups, dtype=np.int64), np.diff(group_starts))
        order = np.lexsort((prefixes, group_of_row))
    else:
        order = np.zeros(0, dtype=np.int64)
    # Sorted by (trie, prefix), the rows of trie g are at positions group_starts[g]: on.
    duplicate = _kernels.finish_key_order(key_data, key_offsets, group_starts, prefixes, order)
    if duplicate >= 0:
        a, b = sorted((int(order[duplicate]), int(order[duplicate + 1])))
        trie = int(np.searchsorted(group_starts, duplicate, side="right")) - 1
        where = f" of trie {trie}" if groups > 1 else ""
        raise ValueError(
            f"{argument} rows {a} and {b}{where} are equal: keys must be unique (set each "
            "key once, an empty value to leave it out)"
        )
    return drop_absent(order, value_offsets, group_starts)


def drop_absent(order, value_offsets, group_starts):
    """``order`` without the rows whose value is empty, and the bounds of each trie in it
    (trie g at positions ``group_starts[g]:group_starts[g + 1]`` of ``order``)."""
    order = order.astype(np.int64, copy=False)
    lengths = np.diff(value_offsets)
    if lengths.shape[0] == 0 or lengths.min() > 0:
        return order, group_starts
    present = lengths[order] > 0
    kept = np.zeros(order.shape[0] + 1, dtype=np.int64)
    np.cumsum(present, out=kept[1:])
    return order[present], kept[group_starts]


def roots_of(key_data, key_offsets, value_data, value_offsets, group_starts) -> np.ndarray:
    order, present_starts = sorted_rows(key_data, key_offsets, group_starts, value_offsets)
    batch = TrieBatch(key_data, key_offsets, value_data, value_offsets, order, present_starts)
    batch.release()
    return batch.roots


def trie_roots(
    keys: object, values: object, offsets: object, *, secure: bool = False
) -> np.ndarray:
    """The roots of many Merkle Patricia tries at once, hashed together level by level.

    Parameters
    ----------
    keys, values
        The rows of every trie, in any form :func:`batchkeccak.hash_many` takes (a sequence
        of bytes-like objects, a 2-D uint8 array, ``FlatMessages``, a pyarrow binary column);
        one value per key. Keys of one trie are unique, in any order; an empty value leaves
        its key out, as in Ethereum.
    offsets
        G + 1 ints: trie g is made of rows ``offsets[g]:offsets[g + 1]``; ``offsets[0]`` is 0
        and ``offsets[-1]`` the number of rows.
    secure
        Hash each key with Keccak-256 first, as the state and storage tries do.

    Returns
    -------
    numpy.ndarray
        ``(G, 32)`` uint8, row g the root of trie g (``EMPTY_ROOT`` for an empty one).

    Examples
    --------
    >>> from batchkeccak.ethereum import trie_roots
    >>> roots = trie_roots([b"do", b"dog", b"horse"], [b"verb", b"puppy", b"stallion"], [0, 2, 3])
    >>> roots.shape
    (2, 32)
    """
    key_data, key_offsets = key_rows(keys, secure)
    rows = key_offsets.shape[0] - 1
    value_data, value_offsets = matching_values(values, rows)
    group_starts = check_group_offsets(offsets, rows)
    return roots_of(key_data, key_offsets, value_data, value_offsets, group_starts)


def trie_root(keys: object, values: object, *, secure: bool = False) -> bytes:
    """The root of one Merkle Patricia trie of key/value pairs.

    Parameters
    ----------
    keys, values
        As for :func:`trie_roots`: any form ``hash_many`` takes, one value per unique key;
        an empty value means the key is absent.
    secure
        Hash each key with Keccak-256 first (the state and storage tries).

    Returns
    -------
    bytes
        The 32-byte root; ``EMPTY_ROOT`` (``0x56e81f...b421``) for no pairs.

    Examples
    --------
    >>> from batchkeccak.ethereum import trie_root
    >>> trie_root([b"do", b"dog"], [b"verb", b"puppy"]).hex()[:16]
    '779db3986dd4f384'
    """
    key_data, key_offsets = key_rows(keys, secure)
    rows = key_offsets.shape[0] - 1
    value_data, value_offsets = matching_values(values, rows)
    group_starts = np.array([0, rows], dtype=np.int64)
    return roots_of(key_data, key_offsets, value_data, value_offsets, group_starts)[0].tobytes()


def ordered_trie_roots(values: object, offsets: object) -> np.ndarray:
    """The roots of many tries whose item i has the key ``rlp(i)``: the transactions,
    receipts and withdrawals tries of blocks, hashed together level by level.

    Parameters
    ----------
    values
        The items of every trie, in any form ``hash_many`` takes: the encoded transactions
        (receipts, withdrawals) of every block, back to back.
    offsets
        G + 1 ints: trie g holds items ``offsets[g]:offsets[g + 1]``, item ``offsets[g] + i``
        at key ``rlp(i)``.

    Returns
    -------
    numpy.ndarray
        ``(G, 32)`` uint8 roots.

    Examples
    --------
    >>> from batchkeccak.ethereum import ordered_trie_roots
    >>> ordered_trie_roots([b"\\x01", b"\\x02", b"\\x03"], [0, 1, 3]).shape
    (2, 32)
    """
    value_data, value_offsets = flat_rows(values, "values")
    rows = value_offsets.shape[0] - 1
    group_starts = check_group_offsets(offsets, rows)
    key_data, key_offsets, order = _kernels.ordered_keys(group_starts)
    order, present_starts = drop_absent(order, value_offsets, group_starts)
    batch = TrieBatch(key_data, key_offsets, value_data, value_offsets, order, present_starts)
    batch.release()
    return batch.roots


def ordered_trie_root(values: object) -> bytes:
    """The root of the trie whose item i has the key ``rlp(i)`` (a block's
    transactionsRoot, receiptsRoot or withdrawalsRoot).

    Parameters
    ----------
    values
        The items in order, in any form ``hash_many`` takes.

    Returns
    -------
    bytes
        The 32-byte root.

    Examples
    --------
    >>> from batchkeccak.ethereum import ordered_trie_root
    >>> ordered_trie_root([]).hex()[:8]
    '56e81f17'
    """
    value_data, value_offsets = flat_rows(values, "values")
    return ordered_trie_roots(
        FlatMessages(value_data, value_offsets), [0, value_offsets.shape[0] - 1]
    )[0].tobytes()


def trie_proofs(
    keys: object, values: object, query_keys: object, *, secure: bool = False
) -> list[list[bytes]]:
    """Merkle proofs of some keys of one trie, as ``eth_getProof`` returns them.

    Parameters
    ----------
    keys, values
        The trie, as for :func:`trie_root`.
    query_keys
        The keys to prove, in any form ``hash_many`` takes (unhashed for a secure trie, as
        for ``keys``). A key that is not in the trie gets its proof of absence.
    secure
        Hash each key with Keccak-256 first (the state and storage tries).

    Returns
    -------
    list of list of bytes
        For each query key, the RLP of the nodes from the root down to where the key's path
        ends; a node embedded in its parent (RLP under 32 bytes) travels inside the parent.
        The empty trie's proofs are empty.

    Examples
    --------
    >>> from batchkeccak.ethereum import trie_proofs
    >>> proof = trie_proofs([b"do", b"dog"], [b"verb", b"puppy"], [b"dog"])[0]
    >>> len(proof)
    1
    """
    key_data, key_offsets = key_rows(keys, secure)
    rows = key_offsets.shape[0] - 1
    value_data, value_offsets = matching_values(values, rows)
    group_starts = np.array([0, rows], dtype=np.int64)
    order, present_starts = sorted_rows(key_data, key_offsets, group_starts, value_offsets)
    batch = TrieBatch(
        key_data, key_offsets, value_data, value_offsets, order, present_starts, keep_nodes=True
    )
    query_data, query_offsets = key_rows(query_keys, secure, "query_keys")
    queries = query_offsets.shape[0] - 1
    root = int(batch.root_nodes[0])
    if root < 0:
        return [[] for _ in range(queries)]
    nodes, starts = _kernels.proof_paths(
        root,
        readonly(query_data),
        readonly(query_offsets),
        batch.trie,
        batch.keys,
        batch.node_items.slot,
    )
    encoded = batch.node_rlp(np.unique(nodes))
    path_nodes = nodes.tolist()
    bounds = starts.tolist()
    return [
        [encoded[node] for node in path_nodes[bounds[q] : bounds[q + 1]]] for q in range(queries)
    ]


PROOF_ERRORS = {
    _kernels.PROOF_MISSING_NODE: "ends before the key's path does (a node is missing)",
    _kernels.PROOF_WRONG_HASH: "does not lead to the root: its node {node} does not hash to "
    "the reference above it",
    _kernels.PROOF_MALFORMED: "is malformed: node {node} is not a valid trie node",
    _kernels.PROOF_EXTRA_NODES: "has nodes past the end of the key's path (from node {node})",
}


def root_bytes(root: object) -> np.ndarray:
    if isinstance(root, str):
        text = root[2:] if root[:2].lower() == "0x" else root
        try:
            root = bytes.fromhex(text)
        except ValueError:
            raise ValueError(f"root must be 32 bytes or their hex, got {root!r}") from None
    try:
        view = memoryview(root).cast("B")  # type: ignore[arg-type]  # probing the buffer protocol: TypeError is caught below
    except TypeError:
        raise TypeError(
            f"root must be 32 bytes (bytes-like) or a hex string, got {type(root).__name__}"
        ) from None
    if view.nbytes != 32:
        raise ValueError(f"root must be 32 bytes, got {view.nbytes}")
    return np.frombuffer(bytes(view), dtype=np.uint8)


def verify_trie_proofs(
    root: object,
    query_keys: object,
    proofs: Sequence[Sequence[bytes]],
    *,
    secure: bool = False,
) -> list[bytes | None]:
    """Check many Merkle proofs against one root at once; the value each one proves.

    Parameters
    ----------
    root
        The trie's 32-byte root (bytes-like, or its hex).
    query_keys
        One key per proof, in any form ``hash_many`` takes (unhashed for a secure trie).
    proofs
        One proof per key: the RLP-encoded nodes from the root down, as ``eth_getProof``
        (and :func:`trie_proofs`) returns them.
    secure
        Hash each key with Keccak-256 first (the state and storage tries).

    Returns
    -------
    list of (bytes or None)
        The proven value of each key, or None where the proof shows the key absent.

    Raises
    ------
    ValueError
        Naming the first proof that does not lead to ``root``, ends early, is malformed or
        has nodes past the key's path.

    Examples
    --------
    >>> from batchkeccak.ethereum import trie_proofs, trie_root, verify_trie_proofs
    >>> keys, values = [b"do", b"dog"], [b"verb", b"puppy"]
    >>> proofs = trie_proofs(keys, values, [b"dog", b"cat"])
    >>> verify_trie_proofs(trie_root(keys, values), [b"dog", b"cat"], proofs)
    [b'puppy', None]
    """
    expected = root_bytes(root)
    query_data, query_offsets = key_rows(query_keys, secure, "query_keys")
    queries = query_offsets.shape[0] - 1
    if isinstance(proofs, (str, bytes)) or not hasattr(proofs, "__len__"):
        raise TypeError("proofs must be a sequence of proofs (each a sequence of bytes)")
    if len(proofs) != queries:
        raise ValueError(
            f"proofs has {len(proofs)} proofs but query_keys has {queries}: one proof per key"
        )
    # The usual case, lists (or tuples) of nodes, is recognised in one pass over the types;
    # anything else is looked at proof by proof, to name the first that is not a sequence.
    if not set(map(type, proofs)) <= {list, tuple}:
        for q, proof in enumerate(proofs):
            if isinstance(proof, (str, bytes, bytearray, memoryview)) or not hasattr(
                proof, "__len__"
            ):
                raise TypeError(
                    f"proofs[{q}] must be a sequence of RLP-encoded nodes (bytes), got "
                    f"{type(proof).__name__}"
                )
    sizes = list(map(len, proofs))
    proof_starts = np.zeros(queries + 1, dtype=np.int64)
    np.cumsum(np.asarray(sizes, dtype=np.int64), out=proof_starts[1:])
    nodes = list(chain.from_iterable(proofs))
    if nodes:
        data, node_offsets = flat_rows(nodes, "proofs")
        digests = keccak256().hash_flat(data, node_offsets)
    else:
        data = np.zeros(0, dtype=np.uint8)
        node_offsets = np.zeros(1, dtype=np.int64)
        digests = np.zeros((0, 32), dtype=np.uint8)
    status, value_start, value_stop, bad_node = _kernels.verify_walk(
        expected,
        readonly(data),
        readonly(node_offsets),
        proof_starts,
        digests,
        readonly(query_data),
        readonly(query_offsets),
        np.frombuffer(EMPTY_ROOT, dtype=np.uint8),
    )
    failed = np.flatnonzero(status)
    if failed.size:
        q = int(failed[0])
        reason = PROOF_ERRORS[int(status[q])].format(node=int(bad_node[q]))
        raise ValueError(f"proofs[{q}] {reason}")
    view = data.data  # slices of a memoryview were measured faster than of the array
    return [
        None if start < 0 else view[start:stop].tobytes()
        for start, stop in zip(value_start.tolist(), value_stop.tolist())
    ]
