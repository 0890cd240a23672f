"""RFC 9162 Merkle roots of leaf hashes that arrive in order, in bounded memory.

``MTH(D[n])`` splits ``D`` at the largest power of two below ``n``, so the tree of ``n``
leaves is its perfect subtrees, one per set bit of ``n``, largest first, folded from the
right: ``H(0x01 || P_a || H(0x01 || P_b || ... ))``. Leaves are taken in blocks of
:data:`BLOCK_LEAVES` (a power of two); each full block is one perfect subtree hashed level by
level in batch calls, and subtrees of equal height are joined as they arrive, as a binary
counter carries. What is left at the end (fewer than a block) is its own tree, which is
exactly the right end of the fold. Memory: one block and one node per bit of ``n``.

Blocks that arrive together are hashed side by side, one per thread: each level of one block
is too small a batch to keep two threads busy (most of its calls ran on one thread).
"""

from __future__ import annotations

import numpy as np

from batchkeccak.api import hasher as resolve_hasher
from batchkeccak.core.hashers import Hasher
from batchkeccak.core.parallel import run_parallel
from batchkeccak.merkle.rfc9162 import NODE_PREFIX, parent_level

BLOCK_LEAVES = 1 << 17
"""Leaves hashed into one perfect subtree at a time: large enough that each level is a batch
worth spreading over threads."""


def _tree_root(leaves: np.ndarray, hasher: Hasher) -> bytes:
    level = leaves
    while level.shape[0] > 1:
        level = parent_level(level, hasher)
    return level[0].tobytes()


class StreamingRoot:
    """``MTH`` of the leaf hashes passed to :meth:`add` in order (``H(0x00 || d)`` each)."""

    def __init__(self, hasher: Hasher, block_leaves: int = BLOCK_LEAVES) -> None:
        if block_leaves < 1 or block_leaves & (block_leaves - 1):
            raise ValueError(f"block_leaves must be a power of two, got {block_leaves}")
        self.hasher = hasher
        self._single = hasher if hasher.threads == 1 else resolve_hasher(hasher, threads=1)
        self.block_leaves = block_leaves
        self.size = 0
        self._pending: list[np.ndarray] = []
        self._pending_count = 0
        self._subtrees: list[tuple[int, bytes]] = []  # (leaf count, root), largest first

    def add(self, leaf_hashes: np.ndarray) -> None:
        self.size += leaf_hashes.shape[0]
        self._pending.append(leaf_hashes)
        self._pending_count += leaf_hashes.shape[0]
        if self._pending_count < self.block_leaves:
            return
        pending = np.concatenate(self._pending) if len(self._pending) > 1 else self._pending[0]
        full = pending.shape[0] - pending.shape[0] % self.block_leaves
        starts = list(range(0, full, self.block_leaves))
        roots = dict.fromkeys(starts, b"")

        def subtree(start: int) -> None:
            roots[start] = _tree_root(pending[start : start + self.block_leaves], self._single)

        run_parallel(subtree, starts, workers=self.hasher.threads)
        for start in starts:
            self._push(self.block_leaves, roots[start])
        rest = pending[full:]
        self._pending = [rest] if rest.shape[0] else []
        self._pending_count = rest.shape[0]

    def _push(self, count: int, node: bytes) -> None:
        while self._subtrees and self._subtrees[-1][0] == count:
            left_count, left = self._subtrees.pop()
            node = self.hasher.hash_one(NODE_PREFIX + left + node)
            count += left_count
        self._subtrees.append((count, node))

    def root(self) -> bytes:
        """``MTH`` of every leaf added (``H("")`` when none was)."""
        nodes = [node for _, node in self._subtrees]
        if self._pending_count:
            nodes.append(_tree_root(np.concatenate(self._pending), self.hasher))
        if not nodes:
            return self.hasher.hash_one(b"")
        root = nodes[-1]
        for node in reversed(nodes[:-1]):
            root = self.hasher.hash_one(NODE_PREFIX + node + root)
        return root
