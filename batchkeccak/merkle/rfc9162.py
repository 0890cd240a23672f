"""Certificate-Transparency trees (RFC 9162 section 2.1, as RFC 6962 before it), any hash.

The rules, for a list of values ``D[n]`` and a hash ``H`` (default SHA3-256):

- ``MTH({}) = H("")``: the empty tree's root is the hash of the empty string.
- ``MTH({d}) = H(0x00 || d)``: a leaf.
- ``MTH(D[n]) = H(0x01 || MTH(D[0:k]) || MTH(D[k:n]))`` with ``k`` the largest power of two
  smaller than ``n``: a parent, children in order (no sorting).
- Odd-node rule: built level by level, a level with an odd number of nodes promotes its last
  node unchanged to the next level (no duplication, no hashing). This is the same tree as the
  split at the largest power of two: the left subtree is always perfect, and the right edge
  of the tree is the only place a node can lack a sibling.
- Inclusion proofs (audit paths) list siblings from the leaf up, skipping levels where the
  node was promoted; consistency proofs follow ``SUBPROOF`` of section 2.1.4.1. Both verify
  with the algorithms of sections 2.1.3.2 and 2.1.4.2.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Unpack

import numpy as np

from batchkeccak.api import hasher as resolve_hasher
from batchkeccak.core.hashers import Hasher
from batchkeccak.merkle._bytes import (
    as_bytes,
    as_node_list,
    flat_messages,
    hex_matrix,
)
from batchkeccak.merkle.base import (
    PAIRS_PER_CALL,
    BuildOptions,
    ConsistencyOptions,
    MerkleTree,
    ProofOptions,
    check_count,
    check_index,
)
from batchkeccak.support.checks import is_int
from batchkeccak.support.hextext import encode_hex_rows

DEFAULT_ALGORITHM = "sha3_256"
LEAF_PREFIX = b"\x00"
NODE_PREFIX = b"\x01"


def _hasher(algorithm: str | Hasher | None, length: int | None, threads: int | None) -> Hasher:
    return resolve_hasher(
        DEFAULT_ALGORITHM if algorithm is None else algorithm, length=length, threads=threads
    )


def leaf_hashes(values: object, hasher: Hasher) -> np.ndarray:
    """``H(0x00 || value)`` of every value, as an (n, digest) array."""
    if isinstance(values, np.ndarray) and values.ndim == 2 and values.dtype == np.uint8:
        messages = np.empty((values.shape[0], values.shape[1] + 1), dtype=np.uint8)
        messages[:, 0] = 0
        messages[:, 1:] = values
        return hasher.hash_rows(messages)
    data, offsets = flat_messages(values, "values")
    start = int(offsets[0])
    relative = offsets - start
    # One 0x00 byte in front of every value: inserted before each value's first byte (empty
    # values get theirs at the same place, in order), so value i moves right by i bytes.
    prefixed = np.insert(data[start : int(offsets[-1])], relative[:-1], 0)
    return hasher.hash_flat(prefixed, relative + np.arange(relative.shape[0], dtype=np.int64))


def parent_level(level: np.ndarray, hasher: Hasher) -> np.ndarray:
    """The level above ``level``: ``H(0x01 || left || right)`` of each pair, in order."""
    count, size = level.shape
    pairs = count // 2
    parents = np.empty((pairs + count % 2, size), dtype=np.uint8)
    scratch = np.empty((min(pairs, PAIRS_PER_CALL), 1 + 2 * size), dtype=np.uint8)
    scratch[:, 0] = NODE_PREFIX[0]
    joined = level[: 2 * pairs].reshape(pairs, 2 * size)
    for start in range(0, pairs, PAIRS_PER_CALL):
        stop = min(pairs, start + PAIRS_PER_CALL)
        messages = scratch[: stop - start]
        messages[:, 1:] = joined[start:stop]
        hasher.hash_rows(messages, out=parents[start:stop])
    if count % 2:
        # Odd node left over: it moves up a level unchanged (RFC 9162's split at the largest
        # power of two, seen level by level).
        parents[-1] = level[-1]
    return parents


def build_levels(hashes: np.ndarray, hasher: Hasher) -> list[np.ndarray]:
    """Every level from the leaf hashes up to the root; ``[]`` for an empty tree."""
    if hashes.shape[0] == 0:
        return []
    levels = [hashes]
    while levels[-1].shape[0] > 1:
        levels.append(parent_level(levels[-1], hasher))
    return levels


def merkle_root(leaves: object, **options: Unpack[BuildOptions]) -> bytes:
    """``MTH(D[n])`` of the values ``leaves``, keeping one level in memory at a time
    (:meth:`RFC9162Tree.root_only`)."""
    hasher = _build_hasher(**options)
    level = leaf_hashes(leaves, hasher)
    if level.shape[0] == 0:
        return hasher.hash_one(b"")
    while level.shape[0] > 1:
        level = parent_level(level, hasher)
    return level[0].tobytes()


def _node(hasher: Hasher, left: bytes, right: bytes) -> bytes:
    return hasher.hash_one(NODE_PREFIX + left + right)


class RFC9162Tree(MerkleTree):
    """An RFC 9162 (Certificate Transparency) Merkle tree.

    Attributes
    ----------
    levels : list of numpy.ndarray
        ``levels[0]`` the (n, d) leaf hashes, each next level the parents (with promoted odd
        nodes), the last one the (1, d) root; empty for the empty tree.
    """

    scheme = "rfc9162"
    dump_formats = ("rfc9162-v1",)
    consistency_proofs = True

    root_only = staticmethod(merkle_root)

    @staticmethod
    def verify_proof(
        leaf: object, proof: Sequence[object], root: object, **options: Unpack[ProofOptions]
    ) -> bool:
        index, size = options.get("index"), options.get("size")
        algorithm, length = options.get("algorithm"), options.get("length")
        if options.get("types") is not None:
            raise TypeError("types applies to the openzeppelin scheme only (standard trees)")
        if index is None or size is None:
            raise TypeError("the rfc9162 scheme needs index= and size= to verify a proof")
        return verify_leaf_hash(
            leaf_hash(leaf, algorithm, length),
            proof,
            root,
            index=index,
            size=size,
            algorithm=algorithm,
            length=length,
        )

    def __init__(self, levels: list[np.ndarray], hasher: Hasher):
        for level in levels:
            level.flags.writeable = False
        self.levels = levels
        self._hasher = hasher
        self.algorithm = hasher.name

    @classmethod
    def build(  # type: ignore[override]  # no scheme=: the class is the scheme (MerkleTree.build dispatches on it)
        cls, leaves: object, **options: Unpack[BuildOptions]
    ) -> RFC9162Tree:
        """See :meth:`MerkleTree.build`; ``leaves`` are the values ``D[n]``."""
        hasher = _build_hasher(**options)
        return cls(build_levels(leaf_hashes(leaves, hasher), hasher), hasher)

    @property
    def size(self) -> int:
        return self.levels[0].shape[0] if self.levels else 0

    @property
    def digest_size(self) -> int:
        """Bytes per node."""
        return self._hasher.output_length

    @property
    def root(self) -> bytes:
        if not self.levels:
            return self._hasher.hash_one(b"")
        return self.levels[-1][0].tobytes()

    def leaf_hash(self, index: int) -> bytes:
        return self.levels[0][check_index(index, self.size)].tobytes()

    def proof(self, index: int) -> list[bytes]:
        """The audit path of leaf ``index`` (RFC 9162 ``PATH(m, D[n])``), leaf to root."""
        position = check_index(index, self.size)
        path = []
        for level in self.levels[:-1]:
            sibling = position ^ 1
            # No sibling: this node was promoted (odd-node rule), so this level adds nothing.
            if sibling < level.shape[0]:
                path.append(level[sibling].tobytes())
            position >>= 1
        return path

    def sibling_levels(self, indices: np.ndarray) -> list[tuple[np.ndarray, np.ndarray]]:
        """The audit paths of many leaves at once, level by level: ``(has_sibling, nodes)``
        per level, ``nodes[k]`` the sibling for leaf ``indices[k]`` where it has one (see
        :meth:`MerkleTree.sibling_levels`)."""
        position = np.asarray(indices, dtype=np.int64)
        steps = []
        for level in self.levels[:-1]:
            sibling = position ^ 1
            active = sibling < level.shape[0]
            steps.append((active, level[np.where(active, sibling, 0)]))
            position = position >> 1
        return steps

    def _subtree(self, start: int, stop: int) -> bytes:
        """``MTH(D[start:stop])`` for a range the RFC recursion visits: a perfect aligned
        subtree, or one that ends at the tree's right edge."""
        height = (stop - start - 1).bit_length()
        return self.levels[height][start >> height].tobytes()

    def _subproof(self, m: int, start: int, stop: int, complete: bool) -> list[bytes]:
        n = stop - start
        if m == n:
            return [] if complete else [self._subtree(start, stop)]
        k = 1 << ((n - 1).bit_length() - 1)
        if m <= k:
            return self._subproof(m, start, start + k, complete) + [self._subtree(start + k, stop)]
        return self._subproof(m - k, start + k, stop, False) + [self._subtree(start, start + k)]

    def consistency_proof(self, old_size: int) -> list[bytes]:
        """RFC 9162 ``PROOF(old_size, D[n])``: the tree of the first ``old_size`` leaves is a
        prefix of this one. Empty for ``old_size`` 0 or equal to the size."""
        old_size = check_count(old_size, "old_size")
        if old_size > self.size:
            raise ValueError(f"old_size {old_size} is larger than the tree ({self.size} leaves)")
        if old_size == 0 or old_size == self.size:
            return []
        return self._subproof(old_size, 0, self.size, True)

    def root_at(self, size: int) -> bytes:
        """``MTH(D[0:size])``: the root this tree had when it held ``size`` leaves."""
        size = check_count(size, "size")
        if size > self.size:
            raise ValueError(f"size {size} is larger than the tree ({self.size} leaves)")
        if size == 0:
            return self._hasher.hash_one(b"")
        # D[0:size] splits into perfect subtrees, one per set bit of size, largest first;
        # MTH folds them from the right.
        nodes = []
        start = 0
        for height in range(size.bit_length() - 1, -1, -1):
            if size >> height & 1:
                nodes.append(self.levels[height][start >> height].tobytes())
                start += 1 << height
        root = nodes[-1]
        for node in reversed(nodes[:-1]):
            root = _node(self._hasher, node, root)
        return root

    def dump(self) -> dict:
        """``{"format": "rfc9162-v1", "algorithm", "digestSize", "size", "leaves"}``.

        ``leaves`` holds the leaf hashes (not the values); :meth:`MerkleTree.load` rebuilds
        the levels from them.
        """
        leaves = encode_hex_rows(self.levels[0], "0x") if self.levels else []
        return {
            "format": "rfc9162-v1",
            "algorithm": self.algorithm,
            "digestSize": self.digest_size,
            "size": self.size,
            "leaves": leaves,
        }

    @classmethod
    def from_dump(cls, data: Mapping, threads: int | None = None) -> RFC9162Tree:
        """Read an ``"rfc9162-v1"`` dump."""
        for key in ("algorithm", "digestSize", "size", "leaves"):
            if key not in data:
                raise ValueError(f"rfc9162-v1 dump lacks {key!r}")
        from batchkeccak.core.parameters import get_algorithm

        spec = get_algorithm(data["algorithm"])
        stored_size = data["digestSize"]
        if not is_int(stored_size) or stored_size < 1:
            raise ValueError(f"dump digestSize must be a positive int, got {stored_size!r}")
        size = int(stored_size)
        if not spec.xof and size != spec.digest_size:
            raise ValueError(
                f"dump digestSize {size} does not match {spec.name} ({spec.digest_size} bytes)"
            )
        hasher = _hasher(spec.name, size if spec.xof else None, threads)
        leaves = data["leaves"]
        if not isinstance(leaves, list):
            raise ValueError("dump 'leaves' must be a list of hex leaf hashes")  # noqa: TRY004
        if data["size"] != len(leaves):
            raise ValueError(f"dump size {data['size']!r} does not match its {len(leaves)} leaves")
        hashes = hex_matrix(leaves, size, "dump leaves")
        return cls(build_levels(hashes, hasher), hasher)


def _build_hasher(
    algorithm=None, sort_leaves=None, types=None, length=None, threads=None
) -> Hasher:
    """The hasher of ``build`` and ``merkle_root``, refusing OpenZeppelin's options."""
    reject_openzeppelin_options(sort_leaves, types)
    return _hasher(algorithm, length, threads)


def reject_openzeppelin_options(sort_leaves: object, types: object) -> None:
    """TypeError for the options that only OpenZeppelin trees take."""
    if sort_leaves is not None:
        raise TypeError(
            "sort_leaves applies to the openzeppelin scheme only; rfc9162 keeps "
            "leaves in their order"
        )
    if types is not None:
        raise TypeError("types applies to the openzeppelin scheme only (standard trees)")


def _value_bytes(value: object) -> bytes:
    if isinstance(value, str):
        raise TypeError("leaf is a str: values must be bytes (encode it, e.g. s.encode('utf-8'))")
    return as_bytes(value, "leaf")


def _shift_until_odd(fn: int, sn: int) -> tuple[int, int]:
    """RFC 9162's "right-shift fn and sn equally until either LSB(fn) is set or fn is 0",
    a step of both verification algorithms (section 2.1.3.2 and 2.1.4.2)."""
    while not fn & 1 and fn != 0:
        fn >>= 1
        sn >>= 1
    return fn, sn


def verify_inclusion(
    leaf_hash: bytes, index: int, size: int, path: Sequence[bytes], root: bytes, hasher: Hasher
) -> bool:
    """RFC 9162 section 2.1.3.2, step by step."""
    if index >= size:
        return False
    fn, sn = index, size - 1
    node = leaf_hash
    for p in path:
        if sn == 0:
            return False
        if fn & 1 or fn == sn:
            node = _node(hasher, p, node)
            fn, sn = _shift_until_odd(fn, sn)
        else:
            node = _node(hasher, node, p)
        fn, sn = fn >> 1, sn >> 1
    return sn == 0 and node == root


def leaf_hash(value: object, algorithm: str | None = None, length: int | None = None) -> bytes:
    """``H(0x00 || value)``: the hash of one leaf, as :func:`verify_leaf_hash` takes it."""
    return _hasher(algorithm, length, 1).hash_one(LEAF_PREFIX + _value_bytes(value))


def verify_leaf_hash(
    leaf_hash: object,
    proof: Sequence[object],
    root: object,
    *,
    index: int,
    size: int,
    algorithm: str | None = None,
    length: int | None = None,
) -> bool:
    """An inclusion proof of the leaf whose hash is ``leaf_hash`` (:func:`leaf_hash`); see
    :func:`batchkeccak.merkle.verify`."""
    hasher = _hasher(algorithm, length, 1)
    (index, size), (leaf, root_bytes), path = _checked_proof(
        hasher, proof, {"index": index, "size": size}, {"leaf_hash": leaf_hash, "root": root}
    )
    return verify_inclusion(leaf, index, size, path, root_bytes, hasher)


def _checked_proof(
    hasher: Hasher, proof: object, counts: dict[str, object], nodes: dict[str, object]
) -> tuple[list[int], list[bytes], list[bytes]]:
    """A verification's arguments, each checked under its own name: the ``counts`` (indices
    and sizes), the ``nodes`` (each one digest long) and the proof's list of nodes."""
    width = hasher.output_length
    return (
        [check_count(value, name) for name, value in counts.items()],
        [as_bytes(value, name, width) for name, value in nodes.items()],
        as_node_list(proof, "proof", width),
    )


def verify_consistency(
    old_root: object,
    new_root: object,
    proof: Sequence[object],
    **options: Unpack[ConsistencyOptions],
) -> bool:
    """RFC 9162 section 2.1.4.2; see :func:`batchkeccak.merkle.verify_consistency`, which
    takes the same keywords (and checks that no other is given)."""
    hasher = _hasher(options.get("algorithm"), options.get("length"), 1)
    (first, second), (first_hash, second_hash), path = _checked_proof(
        hasher,
        proof,
        {"old_size": options["old_size"], "new_size": options["new_size"]},
        {"old_root": old_root, "new_root": new_root},
    )
    if first > second:
        return False
    if first == second:
        return not path and first_hash == second_hash
    if first == 0:
        return not path and first_hash == hasher.hash_one(b"")
    if not path:
        return False
    if first & (first - 1) == 0:
        path = [first_hash] + path
    fn, sn = first - 1, second - 1
    while fn & 1:
        fn >>= 1
        sn >>= 1
    fr = sr = path[0]
    for c in path[1:]:
        if sn == 0:
            return False
        if fn & 1 or fn == sn:
            fr = _node(hasher, c, fr)
            sr = _node(hasher, c, sr)
            fn, sn = _shift_until_odd(fn, sn)
        else:
            sr = _node(hasher, sr, c)
        fn, sn = fn >> 1, sn >> 1
    return fr == first_hash and sr == second_hash and sn == 0
