"""Merkle trees built one level per batch hash call.

Every level of a Merkle tree is a batch of independent messages (pairs of child nodes), so
each level is one :func:`batchkeccak.hash_many`-style call instead of a Python loop over pairs.

Two schemes, each byte-exact with its reference (rules in docs/merkle.md):

``"openzeppelin"``
    ``@openzeppelin/merkle-tree``: ``SimpleMerkleTree`` (bytes32 leaves) and, with
    ``types=``, ``StandardMerkleTree`` (rows of ABI values); Keccak-256, sorted pairs, the
    JavaScript library's proofs, multiproofs and JSON dumps.
``"rfc9162"``
    Certificate-Transparency trees (RFC 9162 / RFC 6962) with any batchkeccak algorithm
    (default SHA3-256): inclusion and consistency proofs.

Modules: ``base`` (the :class:`MerkleTree` base class and argument checks), ``openzeppelin``
and ``rfc9162`` (one per scheme), ``schemes`` (``merkle_root`` and ``verify*`` by scheme name),
``proofs`` (proofs and dumps as JSON), ``abi`` (Solidity ABI encoding of standard-tree rows).

Examples
--------
>>> from batchkeccak import merkle
>>> leaves = [bytes([i]) * 32 for i in range(5)]
>>> tree = merkle.MerkleTree.build(leaves, scheme="openzeppelin")
>>> merkle.verify(leaves[2], tree.proof(2), tree.root, scheme="openzeppelin")
True
>>> merkle.merkle_root(leaves, scheme="openzeppelin") == tree.root
True
"""

from batchkeccak.merkle.base import DUMP_FORMATS, SCHEMES, LeafIndexError, MerkleTree, MultiProof
from batchkeccak.merkle.schemes import merkle_root, verify, verify_consistency, verify_multiproof

__all__ = [
    "DUMP_FORMATS",
    "SCHEMES",
    "LeafIndexError",
    "MerkleTree",
    "MultiProof",
    "merkle_root",
    "verify",
    "verify_consistency",
    "verify_multiproof",
]
