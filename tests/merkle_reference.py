"""Plain per-pair Merkle trees for the tests: one hash call per node, written from the specs.

Digests come from pycryptodome (Keccak) and hashlib (SHA-3, SHAKE); nothing here imports
batchkeccak.
"""

from __future__ import annotations

import hashlib
from collections import deque
from functools import lru_cache

from Crypto.Hash import TurboSHAKE128, TurboSHAKE256, keccak


def keccak256(data: bytes) -> bytes:
    return keccak.new(digest_bits=256, data=data).digest()


def digest(algorithm: str, data: bytes, length: int | None = None) -> bytes:
    if algorithm.startswith("keccak_"):
        return keccak.new(digest_bits=int(algorithm[7:]), data=data).digest()
    if algorithm == "turboshake128":
        return TurboSHAKE128.new().update(data).read(length)
    if algorithm == "turboshake256":
        return TurboSHAKE256.new().update(data).read(length)
    if algorithm.startswith("shake_"):
        return hashlib.new(algorithm, data).digest(length)
    return hashlib.new(algorithm, data).digest()


# ---------------------------------------------------------------------------------------
# OpenZeppelin (@openzeppelin/merkle-tree src/core.ts, src/merkletree.ts)


def oz_node(a: bytes, b: bytes) -> bytes:
    return keccak256(min(a, b) + max(a, b))


def oz_tree(leaves: list[bytes], sort_leaves: bool = True) -> tuple[list[bytes], list[int]]:
    """The JS tree array and each input leaf's tree index, one node at a time."""
    order = list(range(len(leaves)))
    if sort_leaves:
        order.sort(key=lambda i: leaves[i])  # Python's sort is stable, like JS's
    tree: list[bytes] = [b""] * (2 * len(leaves) - 1)
    tree_index = [0] * len(leaves)
    for j, i in enumerate(order):
        tree[len(tree) - 1 - j] = leaves[i]
        tree_index[i] = len(tree) - 1 - j
    for i in range(len(tree) - 1 - len(leaves), -1, -1):
        tree[i] = oz_node(tree[2 * i + 1], tree[2 * i + 2])
    return tree, tree_index


def oz_proof(tree: list[bytes], index: int) -> list[bytes]:
    proof = []
    while index > 0:
        proof.append(tree[index - (-1) ** (index % 2)])
        index = (index - 1) // 2
    return proof


def oz_process_proof(leaf: bytes, proof: list[bytes]) -> bytes:
    node = leaf
    for sibling in proof:
        node = oz_node(node, sibling)
    return node


def oz_process_multiproof(leaves: list[bytes], proof: list[bytes], flags: list[bool]) -> bytes:
    assert len(leaves) + len(proof) == len(flags) + 1
    stack = deque(leaves)
    rest = deque(proof)
    for flag in flags:
        a = stack.popleft()
        b = stack.popleft() if flag else rest.popleft()
        stack.append(oz_node(a, b))
    assert len(stack) + len(rest) == 1
    return stack.pop() if stack else rest.popleft()


# ---------------------------------------------------------------------------------------
# RFC 9162 section 2.1, transcribed


def largest_power_of_two_below(n: int) -> int:
    k = 1
    while k * 2 < n:
        k *= 2
    return k


class RFC9162Reference:
    """MTH, PATH and PROOF exactly as the RFC's recursive definitions read."""

    def __init__(self, values: list[bytes], algorithm: str = "sha3_256", length: int | None = None):
        self.values = values
        self.h = lambda data: digest(algorithm, data, length)
        self.mth = lru_cache(maxsize=None)(self._mth)

    def _mth(self, start: int, stop: int) -> bytes:
        n = stop - start
        if n == 0:
            return self.h(b"")
        if n == 1:
            return self.h(b"\x00" + self.values[start])
        k = largest_power_of_two_below(n)
        return self.h(b"\x01" + self.mth(start, start + k) + self.mth(start + k, stop))

    def root(self, size: int | None = None) -> bytes:
        return self.mth(0, len(self.values) if size is None else size)

    def path(self, m: int, start: int = 0, stop: int | None = None) -> list[bytes]:
        stop = len(self.values) if stop is None else stop
        n = stop - start
        if n == 1:
            return []
        k = largest_power_of_two_below(n)
        if m < k:
            return self.path(m, start, start + k) + [self.mth(start + k, stop)]
        return self.path(m - k, start + k, stop) + [self.mth(start, start + k)]

    def consistency(self, m: int, size: int | None = None) -> list[bytes]:
        size = len(self.values) if size is None else size
        return self._subproof(m, 0, size, True)

    def _subproof(self, m: int, start: int, stop: int, b: bool) -> list[bytes]:
        n = stop - start
        if m == n:
            return [] if b else [self.mth(start, stop)]
        k = largest_power_of_two_below(n)
        if m <= k:
            return self._subproof(m, start, start + k, b) + [self.mth(start + k, stop)]
        return self._subproof(m - k, start + k, stop, False) + [self.mth(start, start + k)]
