"""OpenZeppelin's Merkle trees, byte for byte as ``@openzeppelin/merkle-tree`` builds them.

The rules (``src/core.ts``, ``src/merkletree.ts``, ``src/hashes.ts`` of that library):

- A leaf is 32 bytes. ``SimpleMerkleTree`` takes the leaves as given (bytes32 values);
  ``StandardMerkleTree`` makes each one ``keccak256(keccak256(abi.encode(types, row)))``.
- By default the leaves are sorted in ascending byte order first (a stable sort, so equal
  leaves keep their input order); ``sort_leaves=False`` keeps the input order.
- A parent is ``keccak256(min(a, b) || max(a, b))``: the two children concatenated in
  ascending byte order, so a proof needs no left/right flags.
- The tree is one array of ``2n - 1`` nodes in heap order: node ``i`` has children
  ``2i + 1`` and ``2i + 2``, the root is node 0, and leaf ``j`` (in sorted order) sits at
  ``2n - 2 - j``, i.e. the leaves fill the end of the array in reverse order.
- Odd-node rule: there is none. The heap layout is a complete binary tree, so every internal
  node has exactly two children; when ``n`` is not a power of two the leaves occupy the last
  two levels (the first ``2n - 2**D`` sorted leaves pair up on the deepest level ``D``, the
  rest sit one level higher), never a lone node that is promoted or duplicated.
"""

from __future__ import annotations

import sys
from collections import deque
from collections.abc import Iterator, Mapping, Sequence
from typing import Unpack

import numpy as np

from batchkeccak.api import hasher as resolve_hasher
from batchkeccak.core.hashers import Hasher
from batchkeccak.inputs import readonly
from batchkeccak.merkle import abi
from batchkeccak.merkle._bytes import (
    as_bytes,
    as_node_list,
    fixed_rows,
    hex_matrix,
)
from batchkeccak.merkle._kernels import key_order, sorted_pairs
from batchkeccak.merkle.base import (
    PAIRS_PER_CALL,
    BuildOptions,
    MerkleTree,
    MultiProof,
    ProofOptions,
    check_index,
)
from batchkeccak.support.checks import is_int
from batchkeccak.support.hextext import encode_hex_rows

NODE_SIZE = 32
ALGORITHM = "keccak_256"
_LEAF_RULE = "the openzeppelin scheme takes 32-byte leaves (bytes32 values)"


def _hasher(algorithm: str | Hasher | None, threads: int | None) -> Hasher:
    """Keccak-256, the scheme's one function: given by any spelling of its name or as a
    resolved plain hasher of it; anything else is refused by name."""
    resolved = resolve_hasher(ALGORITHM if algorithm is None else algorithm, threads=threads)
    if not (
        type(resolved) is Hasher
        and resolved.name == ALGORITHM
        and resolved.domain == resolved.algorithm.suffix
        and not resolved.initial_state.any()
    ):
        raise ValueError(
            f"the openzeppelin scheme is defined with keccak_256, got algorithm={algorithm!r}"
        )
    return resolved


# ----------------------------------------------------------------------------------------
# Levels


def _leading_words(rows: np.ndarray, column: int) -> np.ndarray:
    """Bytes ``8 * column .. 8 * column + 7`` of every row as native uint64, compared as the
    big-endian numbers they spell (so integer order is byte order). One copy, no temporaries."""
    # Always a copy (ascontiguousarray may return a view, and the swap below is in place).
    words = rows[:, 8 * column : 8 * column + 8].copy().view(np.uint64)
    if sys.byteorder == "little":
        words.byteswap(inplace=True)
    return words.reshape(rows.shape[0])


BUCKET_LIMIT = 256
"""Largest bucket of equal 16-bit prefixes the bucket sort takes on (see ``key_order``)."""


def sort_order(leaves: np.ndarray) -> np.ndarray:
    """The stable ascending byte-order permutation of (n, 32) leaves.

    The first 8 bytes of random leaves (hashes) settle the order: a bucket sort on them
    (``key_order``), or numpy's sort when their prefixes bunch up. Only when two leaves share
    those 8 bytes does the full four-word lexicographic sort run; without such ties every
    sort gives the same order, so numpy's faster unstable sort may serve, and the fallback,
    which sees the ties, is stable.
    """
    count = leaves.shape[0]
    first = _leading_words(leaves, 0)
    order, tied = key_order(first, BUCKET_LIMIT)
    if order.shape[0] != count:
        order = np.argsort(first)
        ranked = first[order]
        tied = count > 1 and bool((ranked[1:] == ranked[:-1]).any())
        del ranked
    del first
    if tied:
        order = np.lexsort([_leading_words(leaves, c) for c in (3, 2, 1, 0)])
    return order


def hash_sorted_pairs(
    children: np.ndarray, out: np.ndarray, hasher: Hasher, order: np.ndarray | None = None
) -> None:
    """``out[i] = keccak256(sorted(children[2i], children[2i + 1]))`` for every pair.

    ``children`` is a C-contiguous (2k, 32) array and ``out`` a C-contiguous (k, 32) one. The
    pairs are copied, each in ascending order, to a scratch buffer ``PAIRS_PER_CALL`` at a
    time, so each batch call sees 64-byte messages without a second copy of the level.

    With ``order``, 2k row numbers of ``children`` in ascending byte order of their rows (a
    slice of a sort permutation), pair ``i`` is ``children[order[2i]], children[order[2i +
    1]]``: sorted leaves read in place, whose pairs are already in ascending order, so the
    gathered rows are the messages as they are.
    """
    count = out.shape[0]
    rows = readonly(children)
    if order is None:
        pairs = rows.reshape(count, 2 * NODE_SIZE)
        pair_words = rows.view(np.uint64).reshape(count, 8)
    scratch = np.empty((min(count, PAIRS_PER_CALL), 2 * NODE_SIZE), dtype=np.uint8)
    for start in range(0, count, PAIRS_PER_CALL):
        stop = min(count, start + PAIRS_PER_CALL)
        messages = scratch[: stop - start]
        if order is None:
            sorted_pairs(pairs[start:stop], pair_words[start:stop], messages.view(np.uint64))
        else:
            np.take(
                rows,
                order[2 * start : 2 * stop],
                axis=0,
                out=messages.reshape(-1, NODE_SIZE),
                mode="clip",  # valid indices; "raise" would copy through a buffer first
            )
        hasher.hash_rows(messages, out=out[start:stop])


def node_hash(a: bytes, b: bytes, hasher: Hasher) -> bytes:
    """``keccak256`` of the two nodes concatenated in ascending byte order."""
    return hasher.hash_one(a + b if a <= b else b + a)


def fill_internal_nodes(tree: np.ndarray, hasher: Hasher) -> None:
    """Hash every internal node of a (2n - 1, 32) heap whose leaves are in place.

    Depth ``d`` holds nodes ``2**d - 1 .. 2**(d + 1) - 2``; the internal ones among them have
    their children in one contiguous run, so each depth is one batch of sorted pairs.
    """
    internal = (tree.shape[0] - 1) // 2
    if internal == 0:
        return
    # No odd-node rule is needed: in a heap of 2n - 1 nodes every internal node has both
    # children, even when the last depth is only partly filled (its leaves then sit a depth
    # higher, among the internal nodes' siblings).
    for depth in range(internal.bit_length() - 1, -1, -1):
        first = (1 << depth) - 1
        stop = min((1 << (depth + 1)) - 1, internal)
        hash_sorted_pairs(tree[2 * first + 1 : 2 * stop + 1], tree[first:stop], hasher)


def build_heap(
    leaves: np.ndarray, sort_leaves: bool, hasher: Hasher
) -> tuple[np.ndarray, np.ndarray]:
    """The JavaScript library's tree array and each input leaf's position in it.

    Returns ``(tree, tree_index)``: ``tree`` is (2n - 1, 32), ``tree[tree_index[i]]`` the
    leaf of input ``i``.
    """
    count = leaves.shape[0]
    # Sort before the tree exists, so that the sort's scratch and the tree never coexist.
    order = sort_order(leaves) if sort_leaves else None
    tree = np.empty((2 * count - 1, NODE_SIZE), dtype=np.uint8)
    index_type = np.int32 if 2 * count - 1 <= np.iinfo(np.int32).max else np.int64
    # Sorted leaf j goes to 2n - 2 - j: the leaves fill the end of the array backwards.
    if order is None:
        tree[count - 1 :] = leaves[::-1]
        tree_index = np.arange(2 * count - 2, count - 2, -1, dtype=index_type)
    else:
        np.take(leaves, order[::-1], axis=0, out=tree[count - 1 :], mode="clip")
        tree_index = np.empty(count, dtype=index_type)
        for start in range(0, count, PAIRS_PER_CALL):  # in steps: no second n-long temporary
            stop = min(count, start + PAIRS_PER_CALL)
            tree_index[order[start:stop]] = np.arange(
                2 * count - 2 - start, 2 * count - 2 - stop, -1, dtype=index_type
            )
        del order
    fill_internal_nodes(tree, hasher)
    return tree, tree_index


def root_of_leaves(leaves: np.ndarray, sort_leaves: bool, hasher: Hasher) -> bytes:
    """The root of the heap over ``leaves`` with one level in memory at a time.

    With ``D = floor(log2(2n - 1))`` the deepest level holds the first ``c = 2n - 2**D``
    sorted leaves, paired in order (0, 1), (2, 3), ...; the level above holds the other
    leaves and those ``c / 2`` parents. Read right to left, every level above is a run of
    consecutive pairs; since the node hash sorts its operands, reading the levels backwards
    pairs the same nodes as the heap does.
    """
    count = leaves.shape[0]
    if count == 1:
        return leaves[0].tobytes()
    # Sorted leaves are read through the permutation, never copied in sorted order.
    order = sort_order(leaves) if sort_leaves else None
    depth = (2 * count - 1).bit_length() - 1
    # No node is left over: 'bottom' is even, and the level above it has 2**(depth - 1)
    # nodes, so every level from there up pairs off exactly.
    bottom = 2 * count - (1 << depth)
    level = np.empty((count - bottom // 2, NODE_SIZE), dtype=np.uint8)
    if order is None:
        level[: count - bottom] = leaves[bottom:]
        hash_sorted_pairs(leaves[:bottom], level[count - bottom :], hasher)
    else:
        np.take(leaves, order[bottom:], axis=0, out=level[: count - bottom], mode="clip")
        hash_sorted_pairs(leaves, level[count - bottom :], hasher, order[:bottom])
    del leaves, order
    while level.shape[0] > 1:
        parents = np.empty((level.shape[0] // 2, NODE_SIZE), dtype=np.uint8)
        hash_sorted_pairs(level, parents, hasher)
        level = parents
    return level[0].tobytes()


# ----------------------------------------------------------------------------------------
# Leaves


def _leaf_rows(leaves: object, types: object, hasher: Hasher) -> tuple[np.ndarray, object]:
    """(n, 32) leaf nodes in input order, and the rows they came from (standard trees)."""
    if types is None:
        try:
            rows = fixed_rows(leaves, NODE_SIZE, "leaves", _LEAF_RULE)
        except TypeError as error:
            hint = _rows_hint(leaves)
            if hint is None:
                raise
            raise TypeError(hint) from error
        return rows, None
    parsed = abi.parse_types(types)
    source = abi.Rows(leaves, len(parsed), "leaves")
    return standard_leaf_hashes(parsed, source, hasher), source


def _rows_hint(leaves: object) -> str | None:
    """What to say when leaves without ``types`` look like rows of ABI values."""
    first = None
    if isinstance(leaves, (list, tuple)) and leaves:
        first = leaves[0]
        if not isinstance(first, (list, tuple, dict)):
            return None
        what = f"leaves[0] is a {type(first).__name__} (a row of values)"
    elif isinstance(leaves, Mapping) or type(leaves).__name__ in ("Table", "RecordBatch"):
        what = f"leaves is a {type(leaves).__name__} of columns"
    else:
        return None
    return (
        f"{what}: rows make a StandardMerkleTree, whose leaves are the hashes of their ABI "
        "encoding, so pass their types, for example types=['address', 'uint256']; without "
        "types= the leaves must be 32-byte values (a SimpleMerkleTree)"
    )


def standard_leaf_hashes(
    types: Sequence, rows: object, hasher: Hasher, argument: str = "leaves"
) -> np.ndarray:
    """``keccak256(keccak256(abi.encode(types, row)))`` of every row, as (n, 32)."""
    names = [t.name if isinstance(t, abi.AbiType) else t for t in types]
    data, offsets = abi.encode_rows(names, rows, argument)
    once = hasher.hash_flat(data, offsets)
    return hasher.hash_rows(once)


def _standard_leaf(types: Sequence[str], row: object, hasher: Hasher) -> bytes:
    return hasher.hash_one(hasher.hash_one(abi.encode(types, row)))  # type: ignore[arg-type]  # row is one of the rows abi.Rows read: a list of values


def merkle_root(leaves: object, **options: Unpack[BuildOptions]) -> bytes:
    """The root of ``OpenZeppelinTree.build(...)`` without building the tree array
    (:meth:`OpenZeppelinTree.root_only`)."""
    hasher, sort, rows, _ = _checked_leaves(leaves, **options)
    return root_of_leaves(rows, sort, hasher)


# ----------------------------------------------------------------------------------------
# The tree


class OpenZeppelinTree(MerkleTree):
    """An OpenZeppelin ``SimpleMerkleTree`` (``types is None``) or ``StandardMerkleTree``.

    Build with :meth:`MerkleTree.build` (``scheme="openzeppelin"``) or load a dump.

    Attributes
    ----------
    nodes : numpy.ndarray
        The (2n - 1, 32) tree array in the JavaScript library's order (read-only).
    types : tuple of str or None
        The ABI types of a standard tree's rows; None for a simple tree.
    """

    scheme = "openzeppelin"
    algorithm = ALGORITHM
    dump_formats = ("simple-v1", "standard-v1")
    multiproofs = True

    root_only = staticmethod(merkle_root)

    @staticmethod
    def verify_proof(
        leaf: object, proof: Sequence[object], root: object, **options: Unpack[ProofOptions]
    ) -> bool:
        if any(options.get(name) is not None for name in ("index", "size", "length")):
            raise TypeError("index, size and length apply to the rfc9162 scheme only")
        return verify(
            leaf, proof, root, types=options.get("types"), algorithm=options.get("algorithm")
        )

    def __init__(
        self,
        nodes: np.ndarray,
        tree_index: np.ndarray,
        hasher: Hasher,
        types: Sequence[str] | None = None,
        rows: abi.Rows | None = None,
        json_rows: list | None = None,
    ):
        nodes.flags.writeable = False
        self.nodes = nodes
        self._tree_index = tree_index
        self._hasher = hasher
        self.types = tuple(types) if types is not None else None
        self._rows = rows
        self._json_rows = json_rows
        self._input_of: np.ndarray | None = None

    @classmethod
    def build(  # type: ignore[override]  # no scheme=: the class is the scheme (MerkleTree.build dispatches on it)
        cls, leaves: object, **options: Unpack[BuildOptions]
    ) -> OpenZeppelinTree:
        """See :meth:`MerkleTree.build`."""
        hasher, sort, rows, source = _checked_leaves(leaves, **options)
        tree, tree_index = build_heap(rows, sort, hasher)
        types = options.get("types")
        return cls(
            tree, tree_index, hasher, types=list(types) if types is not None else None, rows=source
        )

    @property
    def root(self) -> bytes:
        return self.nodes[0].tobytes()

    @property
    def size(self) -> int:
        return self._tree_index.shape[0]

    @property
    def tree_index(self) -> np.ndarray:
        """``tree_index[i]``: the position of input leaf ``i`` in :attr:`nodes`."""
        return readonly(self._tree_index)

    def leaf_hash(self, index: int) -> bytes:
        index = check_index(index, self.size)
        return self.nodes[self._tree_index[index]].tobytes()

    def value(self, index: int) -> object:
        """The leaf of input ``index``: 32 bytes (simple tree) or its row (standard tree)."""
        index = check_index(index, self.size)
        if self.types is None:
            return self.nodes[self._tree_index[index]].tobytes()
        if self._json_rows is not None:
            return list(self._json_rows[index])
        assert self._rows is not None
        return self._rows.row(index)

    def entries(self) -> Iterator[tuple[int, object]]:
        """``(index, value)`` for every leaf in input order, as the JavaScript library's
        ``entries()``; values as :meth:`value` gives them."""
        for index in range(self.size):
            yield index, self.value(index)

    def index_of(self, value: object) -> int:
        """The input index of the last leaf equal to ``value``: a 32-byte leaf (simple tree)
        or a row of values (standard tree), hashed as :meth:`MerkleTree.build` hashes it.

        A leaf given several times is found at its last copy, as the JavaScript library's
        ``getProof(value)`` finds it (its ``hashLookup`` maps each leaf hash to the last input
        index that has it).

        Raises
        ------
        ValueError
            No leaf of the tree is ``value`` (a row in another form hashes alike: ``5`` and
            ``"5"`` for a ``uint256``).
        """
        leaf = np.frombuffer(_leaf_node(value, self.types, self._hasher, "value"), np.uint8)
        leaves = self.nodes[self._tree_index]
        found = np.flatnonzero((leaves == leaf).all(axis=1))
        if found.shape[0] == 0:
            raise ValueError(f"value is not a leaf of this tree: {value!r:.100}")
        return int(found[-1])

    def proof_for(self, value: object) -> list[bytes]:
        """:meth:`proof` of the leaf equal to ``value`` (the JavaScript library's
        ``getProof(value)``); see :meth:`index_of`."""
        return self.proof(self.index_of(value))

    def render(self) -> str:
        """The tree as text, laid out as the JavaScript library's ``render()``: one line per
        node, ``position) 0x<hash>``, children below their parent, left child first."""
        lines = []
        stack: list[tuple[int, list[bool]]] = [(0, [])]
        count = self.nodes.shape[0]
        while stack:
            position, path = stack.pop()
            # path[k]: whether the ancestor at depth k + 1 has a sibling drawn below it.
            indent = "".join("\u2502  " if more else "   " for more in path[:-1])
            branch = ("\u251c\u2500 " if path[-1] else "\u2514\u2500 ") if path else ""
            lines.append(f"{indent}{branch}{position}) 0x{self.nodes[position].tobytes().hex()}")
            if 2 * position + 2 < count:
                stack.append((2 * position + 2, [*path, False]))
                stack.append((2 * position + 1, [*path, True]))
        return "\n".join(lines)

    def proof(self, index: int) -> list[bytes]:
        """The sibling nodes from leaf ``index`` (input order) up to the root.

        The same list as the JavaScript library's ``getProof(index)``; verify it with
        :func:`batchkeccak.merkle.verify` or OpenZeppelin's ``MerkleProof.verify``.
        """
        position = int(self._tree_index[check_index(index, self.size)])
        proof = []
        while position > 0:
            # Odd positions are left children: the sibling is the next node, else the previous.
            sibling = position + 1 if position % 2 else position - 1
            proof.append(self.nodes[sibling].tobytes())
            position = (position - 1) // 2
        return proof

    def sibling_levels(self, indices: np.ndarray) -> list[tuple[np.ndarray, np.ndarray]]:
        """The proofs of many leaves at once, one step at a time from the leaves up.

        Returns ``(has_sibling, nodes)`` per step: ``nodes[k]`` is the sibling for leaf
        ``indices[k]`` where ``has_sibling[k]`` (proofs of leaves on the upper of the two
        leaf levels are one step shorter). See :meth:`MerkleTree.sibling_levels`.
        """
        position = self._tree_index[indices].astype(np.int64)
        steps: list[tuple[np.ndarray, np.ndarray]] = []
        while True:
            active = position > 0
            if not active.any():
                return steps
            sibling = np.where(position % 2 == 1, position + 1, position - 1)
            steps.append((active, self.nodes[np.where(active, sibling, 0)]))
            position = np.where(active, (position - 1) // 2, 0)

    def json_values(self) -> list:
        """Every leaf value in the JSON form of :meth:`dump`, in input order: ``0x`` hex
        leaves for a simple tree, rows of JSON values for a standard tree."""
        if self.types is None:
            return encode_hex_rows(self.nodes[self._tree_index], "0x")
        return self._json_rows if self._json_rows is not None else self._json_from_rows()

    def multiproof(self, indices: Sequence[int]) -> MultiProof:
        """A proof for the leaves at ``indices`` (input order), as ``getMultiProof`` makes it.

        Returns
        -------
        MultiProof
            ``leaves`` in the order the verifier consumes them (descending tree position),
            ``proof`` and ``proof_flags``; for no indices, ``proof`` is ``[root]``.

        Raises
        ------
        ValueError
            When an index repeats.
        """
        if isinstance(indices, (str, bytes)) or not isinstance(indices, (Sequence, np.ndarray)):
            raise TypeError(f"indices must be a list of ints, got {type(indices).__name__}")
        positions = [
            int(self._tree_index[check_index(i, self.size, f"indices[{k}]")])
            for k, i in enumerate(indices)
        ]
        positions.sort(reverse=True)
        for k in range(1, len(positions)):
            if positions[k] == positions[k - 1]:
                raise ValueError("indices must not repeat: cannot prove the same leaf twice")
        stack = deque(positions)
        proof: list[bytes] = []
        flags: list[bool] = []
        # The verifier's queue, replayed: take the deepest pending node; if its sibling is
        # the next pending node both are known (flag True), else the sibling joins the proof.
        while stack and stack[0] > 0:
            position = stack.popleft()
            sibling = position + 1 if position % 2 else position - 1
            if stack and stack[0] == sibling:
                flags.append(True)
                stack.popleft()
            else:
                flags.append(False)
                proof.append(self.nodes[sibling].tobytes())
            stack.append((position - 1) // 2)
        if not positions:
            proof.append(self.root)
        input_of = self._input_of_position()
        leaves = [self.value(int(input_of[p - (self.size - 1)])) for p in positions]
        return MultiProof(leaves, proof, flags)

    def _input_of_position(self) -> np.ndarray:
        if self._input_of is None:
            inverse = np.empty(self.size, dtype=np.int64)
            inverse[self._tree_index - (self.size - 1)] = np.arange(self.size, dtype=np.int64)
            self._input_of = inverse
        return self._input_of

    def dump(self) -> dict:
        """The JavaScript library's dump: ``"simple-v1"`` or ``"standard-v1"`` JSON object.

        ``SimpleMerkleTree.load`` / ``StandardMerkleTree.load`` read it, and so does
        :meth:`MerkleTree.load`. Standard-tree values are written as the JavaScript library
        reads them: integers as decimal strings, bytes as ``0x`` hex.
        """
        tree = encode_hex_rows(self.nodes, "0x")
        positions = self._tree_index.tolist()
        if self.types is None:
            values = [{"value": tree[p], "treeIndex": p} for p in positions]
            return {"format": "simple-v1", "tree": tree, "values": values}
        values = [{"value": row, "treeIndex": p} for row, p in zip(self.json_values(), positions)]
        return {
            "format": "standard-v1",
            "leafEncoding": list(self.types),
            "tree": tree,
            "values": values,
        }

    def _json_from_rows(self) -> list:
        assert self._rows is not None and self.types is not None
        parsed = [abi.parse_type(t) for t in self.types]
        return [
            [abi.json_value(t, v) for t, v in zip(parsed, row)] for row in self._rows.python_rows()
        ]

    @classmethod
    def from_dump(cls, data: Mapping, threads: int | None = None) -> OpenZeppelinTree:
        """Read a ``"simple-v1"`` / ``"standard-v1"`` dump, checking every node as
        ``load`` + ``validate`` do in the JavaScript library."""
        hasher = _hasher(None, threads)
        fmt = data["format"]
        if data.get("hash") == "custom":
            raise ValueError(
                "dump was made with a custom node hash; batchkeccak builds "
                "OpenZeppelin trees with the standard node hash only"
            )
        tree_hex = data.get("tree")
        entries = data.get("values")
        if not isinstance(tree_hex, list) or not tree_hex:
            raise ValueError("dump 'tree' must be a non-empty list of hex nodes")
        if not isinstance(entries, list) or not entries:
            raise ValueError("dump 'values' must be a non-empty list of {value, treeIndex}")
        count = len(entries)
        if len(tree_hex) != 2 * count - 1:
            raise ValueError(
                f"dump holds {count} values, so 'tree' must hold {2 * count - 1} "
                f"nodes; it holds {len(tree_hex)}"
            )
        for k, entry in enumerate(entries):
            if not isinstance(entry, Mapping) or "value" not in entry or "treeIndex" not in entry:
                raise ValueError(f"dump values[{k}] must be an object with value and treeIndex")
        nodes = hex_matrix(tree_hex, NODE_SIZE, "dump tree")
        tree_index = _tree_positions([e["treeIndex"] for e in entries])
        types = None
        json_rows = None
        if fmt == "simple-v1":
            leaves = hex_matrix([e["value"] for e in entries], NODE_SIZE, "dump values")
        else:
            types = data.get("leafEncoding")
            if not isinstance(types, list):
                raise ValueError("dump 'leafEncoding' must be a list of ABI types")
            json_rows = [e["value"] for e in entries]
            leaves = standard_leaf_hashes(abi.parse_types(types), json_rows, hasher, "dump values")
        wrong = np.flatnonzero((nodes[tree_index] != leaves).any(axis=1))
        if wrong.size:
            k = int(wrong[0])
            raise ValueError(
                f"dump values[{k}] does not hash to its tree node "
                f"{int(tree_index[k])}: the dump is corrupt or tampered with"
            )
        expected = nodes.copy()
        fill_internal_nodes(expected, hasher)
        wrong = np.flatnonzero((expected != nodes).any(axis=1))
        if wrong.size:
            raise ValueError(
                f"dump tree node {int(wrong[0])} is not the hash of its children: "
                "the dump is corrupt or tampered with"
            )
        return cls(nodes, tree_index, hasher, types=types, json_rows=json_rows)


def _reject_length(length: object) -> None:
    if length is not None:
        raise TypeError("length does not apply to the openzeppelin scheme (keccak_256)")


def _sort_flag(sort_leaves: object) -> bool:
    if sort_leaves is None:
        return True
    if not isinstance(sort_leaves, (bool, np.bool_)):
        raise TypeError(f"sort_leaves must be a bool, got {type(sort_leaves).__name__}")
    return bool(sort_leaves)


def _tree_positions(values: list) -> np.ndarray:
    count = len(values)
    for k, p in enumerate(values):
        if not is_int(p):
            # Bad content of a dump rather than a wrong argument type: ValueError, as for
            # every other malformed dump.
            raise ValueError(f"dump values[{k}].treeIndex must be an int, got {p!r}")
    positions = np.array(values, dtype=np.int64)
    # Leaves occupy the last n positions of the 2n - 1 array, each exactly once.
    seen = np.zeros(count, dtype=np.int64)
    outside = np.flatnonzero((positions < count - 1) | (positions > 2 * count - 2))
    if outside.size:
        k = int(outside[0])
        raise ValueError(
            f"dump values[{k}].treeIndex {values[k]} is not a leaf position "
            f"(leaves sit at {count - 1}..{2 * count - 2})"
        )
    np.add.at(seen, positions - (count - 1), 1)
    if (seen != 1).any():
        raise ValueError("dump values share a treeIndex; each leaf position must appear once")
    return positions


# ----------------------------------------------------------------------------------------
# Root only, and verification


def _checked_leaves(
    leaves, algorithm=None, sort_leaves=None, types=None, length=None, threads=None
):
    """``(hasher, sort, leaf rows, source)`` from the arguments ``build`` and ``merkle_root``
    share, each checked."""
    _reject_length(length)
    hasher = _hasher(algorithm, threads)
    sort = _sort_flag(sort_leaves)
    rows, source = _leaf_rows(leaves, types, hasher)
    if rows.shape[0] == 0:
        raise ValueError("leaves is empty: an openzeppelin tree needs at least one leaf")
    return hasher, sort, rows, source


def _leaf_node(
    leaf: object, types: Sequence[str] | None, hasher: Hasher, argument: str = "leaf"
) -> bytes:
    if types is None:
        return as_bytes(leaf, argument, NODE_SIZE)
    return _standard_leaf(types, leaf, hasher)


def process_proof(leaf: bytes, proof: Sequence[bytes], hasher: Hasher) -> bytes:
    """The root that ``proof`` leads to from ``leaf`` (``processProof``)."""
    node = leaf
    for sibling in proof:
        node = node_hash(node, sibling, hasher)
    return node


def verify(
    leaf: object,
    proof: Sequence[object],
    root: object,
    *,
    types: Sequence[str] | None = None,
    algorithm: str | None = None,
) -> bool:
    """See :func:`batchkeccak.merkle.verify`."""
    hasher = _hasher(algorithm, 1)
    root_bytes = as_bytes(root, "root", NODE_SIZE)
    nodes = as_node_list(proof, "proof", NODE_SIZE)
    return process_proof(_leaf_node(leaf, types, hasher), nodes, hasher) == root_bytes


def verify_many(
    leaves: object,
    proofs: Sequence[Sequence[object]],
    root: object,
    *,
    types: Sequence[str] | None = None,
    threads: int | None = None,
) -> np.ndarray:
    """Check many inclusion proofs against one root, one batch hash call per proof step.

    Parameters
    ----------
    leaves
        Simple trees: the 32-byte leaves (any form :meth:`MerkleTree.build` takes). Standard
        trees (``types``): their rows.
    proofs
        One proof per leaf: lists of 32-byte nodes (bytes or hex strings).
    root
        The trusted root.
    types
        ABI types, for standard trees.
    threads
        As for :func:`batchkeccak.hash_many`.

    Returns
    -------
    numpy.ndarray
        One bool per proof: True where it leads from its leaf to ``root``.
    """
    hasher = _hasher(None, threads)
    root_bytes = as_bytes(root, "root", NODE_SIZE)
    current, _ = _leaf_rows(leaves, types, hasher)
    current = np.array(current)  # a private copy: the steps below overwrite it
    if current.shape[0] != len(proofs):
        raise ValueError(f"{current.shape[0]} leaves but {len(proofs)} proofs")
    lengths = np.fromiter(map(len, proofs), np.int64, len(proofs))
    for step in range(int(lengths.max(initial=0))):
        rows = np.flatnonzero(lengths > step).tolist()
        nodes = [proofs[r][step] for r in rows]
        texts = [n for n in nodes if isinstance(n, str)]
        if len(texts) == len(nodes):
            siblings = hex_matrix(texts, NODE_SIZE, f"proofs (step {step})")
        else:
            joined = b"".join(
                as_bytes(n, f"proofs[{r}][{step}]", NODE_SIZE) for r, n in zip(rows, nodes)
            )
            siblings = np.frombuffer(joined, dtype=np.uint8).reshape(-1, NODE_SIZE)
        children = np.empty((2 * len(rows), NODE_SIZE), dtype=np.uint8)
        children[0::2] = current[rows]
        children[1::2] = siblings
        parents = np.empty((len(rows), NODE_SIZE), dtype=np.uint8)
        hash_sorted_pairs(children, parents, hasher)
        current[rows] = parents
    return (current == np.frombuffer(root_bytes, dtype=np.uint8)).all(axis=1)


def verify_multiproof(
    multiproof: MultiProof, root: object, *, types: Sequence[str] | None = None
) -> bool:
    """See :func:`batchkeccak.merkle.verify_multiproof` (``processMultiProof``)."""
    hasher = _hasher(None, 1)
    root_bytes = as_bytes(root, "root", NODE_SIZE)
    if isinstance(multiproof.leaves, (str, bytes)) or not isinstance(
        multiproof.leaves, (Sequence, np.ndarray)
    ):
        raise TypeError("multiproof leaves must be a list")
    leaves = [
        _leaf_node(v, types, hasher, f"multiproof leaves[{k}]")
        for k, v in enumerate(multiproof.leaves)
    ]
    proof = as_node_list(multiproof.proof, "multiproof proof", NODE_SIZE)
    flags = multiproof.proof_flags
    if isinstance(flags, (str, bytes)) or not isinstance(flags, (Sequence, np.ndarray)):
        raise TypeError("multiproof proof_flags must be a list of bools")
    for k, flag in enumerate(flags):
        if not isinstance(flag, (bool, np.bool_)):
            raise TypeError(f"multiproof proof_flags[{k}] must be a bool, got {flag!r}")
    # Counts that cannot fit together make the JavaScript library throw; here they are
    # simply a proof that does not verify.
    if len(leaves) + len(proof) != len(flags) + 1:
        return False
    queue = deque(leaves)
    remaining = deque(proof)
    for flag in flags:
        if not queue:
            return False
        a = queue.popleft()
        source = queue if flag else remaining
        if not source:
            return False
        queue.append(node_hash(a, source.popleft(), hasher))
    if len(queue) + len(remaining) != 1:
        return False
    computed = queue.pop() if queue else remaining.popleft()
    return computed == root_bytes
