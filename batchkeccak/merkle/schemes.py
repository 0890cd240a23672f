"""The scheme-independent ``merkle_root`` and ``verify*`` functions, which pass each call to
the scheme it names.

The tree classes enter :mod:`batchkeccak.merkle.base`'s registry of schemes when their
modules define them (importing this module imports both); each call here asks the registry
(:func:`~batchkeccak.merkle.base.tree_class`), with no branch per scheme.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from batchkeccak.merkle import openzeppelin, rfc9162
from batchkeccak.merkle.base import MultiProof, tree_class


def merkle_root(
    leaves: object,
    *,
    scheme: str,
    algorithm: str | None = None,
    sort_leaves: bool | None = None,
    types: Sequence[str] | None = None,
    length: int | None = None,
    threads: int | None = None,
) -> bytes:
    """The root alone, keeping one level in memory at a time.

    Takes the arguments of :meth:`MerkleTree.build` and returns what its ``root`` would be,
    without storing the tree: peak memory is the leaves, one more level (at most half their
    size) and, for sorted OpenZeppelin trees, the sort permutation (8 bytes per leaf).

    Examples
    --------
    >>> from batchkeccak import merkle
    >>> merkle.merkle_root([], scheme="rfc9162").hex()[:16]  # SHA3-256 of b""
    'a7ffc6f8bf1ed766'
    """
    return tree_class(scheme).root_only(
        leaves,
        algorithm=algorithm,
        sort_leaves=sort_leaves,
        types=types,
        length=length,
        threads=threads,
    )


def verify(
    leaf: object,
    proof: Sequence[object],
    root: object,
    *,
    scheme: str,
    types: Sequence[str] | None = None,
    index: int | None = None,
    size: int | None = None,
    algorithm: str | None = None,
    length: int | None = None,
) -> bool:
    """Check an inclusion proof.

    Parameters
    ----------
    leaf
        ``"openzeppelin"``: the 32-byte leaf (bytes or hex) of a simple tree, or with
        ``types`` the row of values of a standard tree. ``"rfc9162"``: the leaf's value
        (bytes), hashed here as ``H(0x00 || value)``.
    proof
        Sibling nodes from leaf to root (bytes or hex strings), as :meth:`MerkleTree.proof`
        or the JavaScript library's ``getProof`` return them.
    root
        The trusted root (bytes or hex).
    scheme
        ``"openzeppelin"`` or ``"rfc9162"``.
    types
        ``"openzeppelin"`` standard trees: the ABI types of ``leaf``.
    index, size
        ``"rfc9162"``: the leaf's index and the tree size; required.
    algorithm, length
        ``"rfc9162"``: the hash (default ``"sha3_256"``) and XOF output length.

    Returns
    -------
    bool
        True when the proof leads from ``leaf`` to ``root``. A wrong leaf, proof, root,
        index or size gives False; only malformed input (nodes of the wrong size, values
        that do not encode) raises.
    """
    return tree_class(scheme).verify_proof(
        leaf, proof, root, types=types, index=index, size=size, algorithm=algorithm, length=length
    )


def verify_multiproof(
    multiproof: MultiProof | Mapping,
    root: object,
    *,
    scheme: str = "openzeppelin",
    types: Sequence[str] | None = None,
) -> bool:
    """Check an OpenZeppelin multiproof (:meth:`MerkleTree.multiproof` or the JS library's).

    Parameters
    ----------
    multiproof
        A :class:`MultiProof` or a ``{"leaves", "proof", "proofFlags"}`` mapping.
    root
        The trusted root.
    scheme
        ``"openzeppelin"``, the only scheme with multiproofs.
    types
        For standard trees, the ABI types of each leaf row.

    Returns
    -------
    bool
        False for any multiproof that does not lead to ``root``, including ones whose
        counts do not fit together (where the JavaScript library throws).
    """
    if not tree_class(scheme).multiproofs:
        raise ValueError("multiproofs are defined by the openzeppelin scheme only")
    if isinstance(multiproof, Mapping):
        multiproof = MultiProof.from_json(multiproof)
    if not isinstance(multiproof, MultiProof):
        raise TypeError(
            f"multiproof must be a MultiProof or a mapping, got {type(multiproof).__name__}"
        )
    return openzeppelin.verify_multiproof(multiproof, root, types=types)


def verify_consistency(
    old_root: object,
    new_root: object,
    proof: Sequence[object],
    *,
    old_size: int,
    new_size: int,
    scheme: str = "rfc9162",
    algorithm: str | None = None,
    length: int | None = None,
) -> bool:
    """Check an RFC 9162 consistency proof: the tree of ``old_size`` leaves is a prefix.

    Follows RFC 9162 section 2.1.4.2. Equal sizes need an empty proof and equal roots;
    ``old_size == 0`` needs an empty proof and the empty-tree root ``H("")``.

    Returns
    -------
    bool
        False for a wrong proof, wrong roots or ``old_size > new_size``.
    """
    if not tree_class(scheme).consistency_proofs:
        raise ValueError("consistency proofs are defined by the rfc9162 scheme only")
    return rfc9162.verify_consistency(
        old_root,
        new_root,
        proof,
        old_size=old_size,
        new_size=new_size,
        algorithm=algorithm,
        length=length,
    )
