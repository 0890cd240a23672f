"""The scheme-independent face of ``batchkeccak.merkle``: build, load, prove, verify."""

from __future__ import annotations

import json
import os
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from decimal import Decimal

import numpy as np

SCHEMES = ("openzeppelin", "rfc9162")
"""Tree constructions, each byte-exact with its reference (see docs/merkle.md)."""

DUMP_FORMATS = ("simple-v1", "standard-v1", "rfc9162-v1")
"""``format`` values of :meth:`MerkleTree.dump`: the first two are the JavaScript library's."""


class LeafIndexError(IndexError, ValueError):
    """A leaf index outside ``0 .. size - 1`` (both an IndexError and a ValueError)."""


def check_scheme(scheme: object) -> str:
    """``scheme`` as one of :data:`SCHEMES`; TypeError / ValueError naming the choices."""
    if not isinstance(scheme, str):
        raise TypeError(
            f"scheme must be a str, one of {', '.join(SCHEMES)}; got {type(scheme).__name__}"
        )
    key = scheme.lower().replace("-", "").replace("_", "")
    if key not in SCHEMES:
        raise ValueError(f"unknown scheme {scheme!r}; valid schemes: {', '.join(SCHEMES)}")
    return key


def check_index(index: object, size: int, argument: str = "index") -> int:
    """A leaf index in input order, as an int in ``[0, size)``."""
    if isinstance(index, (bool, np.bool_)) or not isinstance(index, (int, np.integer)):
        raise TypeError(f"{argument} must be an int, got {type(index).__name__}")
    if not 0 <= index < size:
        raise LeafIndexError(
            f"{argument} {int(index)} is out of range for a tree of {size} leaves"
            + (f" (valid: 0..{size - 1})" if size else "")
        )
    return int(index)


def check_count(value: object, argument: str) -> int:
    """A non-negative int (a tree size)."""
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, (int, np.integer)):
        raise TypeError(f"{argument} must be an int, got {type(value).__name__}")
    if value < 0:
        raise ValueError(f"{argument} must be >= 0, got {int(value)}")
    return int(value)


@dataclass
class MultiProof:
    """A proof that several leaves belong to one OpenZeppelin tree.

    The fields are those of ``getMultiProof`` in ``@openzeppelin/merkle-tree`` and of
    ``MerkleProof.multiProofVerify`` in OpenZeppelin Contracts.

    Attributes
    ----------
    leaves
        The proven leaves in the order the verifier consumes them (the order of their
        positions in the tree, not the order they were asked for): 32-byte ``bytes`` for
        simple trees, rows of values for standard trees.
    proof
        The sibling nodes the verifier cannot compute itself, as 32-byte ``bytes``.
    proof_flags
        One flag per hash: True takes the second operand from the queue of computed nodes,
        False from ``proof``.
    """

    leaves: list = field(default_factory=list)
    proof: list[bytes] = field(default_factory=list)
    proof_flags: list[bool] = field(default_factory=list)

    def to_json(self) -> dict:
        """The JavaScript library's JSON shape: ``{"leaves", "proof", "proofFlags"}``."""

        def leaf(value: object) -> object:
            if isinstance(value, (bytes, bytearray, memoryview)):
                return "0x" + bytes(value).hex()
            return _json_item(value)

        return {
            "leaves": [leaf(v) for v in self.leaves],
            "proof": ["0x" + bytes(p).hex() for p in self.proof],
            "proofFlags": [bool(f) for f in self.proof_flags],
        }

    @classmethod
    def from_json(cls, data: Mapping) -> MultiProof:
        """Read the JavaScript library's ``{"leaves", "proof", "proofFlags"}`` object.

        Leaves and proof nodes stay as given (hex strings or rows); :func:`verify_multiproof`
        checks them.
        """
        if not isinstance(data, Mapping):
            raise TypeError(f"multiproof must be a mapping, got {type(data).__name__}")
        missing = [k for k in ("leaves", "proof", "proofFlags") if k not in data]
        if missing:
            raise ValueError(f"multiproof lacks {', '.join(missing)}")
        return cls(list(data["leaves"]), list(data["proof"]), list(data["proofFlags"]))


def _json_item(value: object) -> object:
    if isinstance(value, np.generic):
        value = value.item()
    if isinstance(value, (bytes, bytearray, memoryview)):
        return "0x" + bytes(value).hex()
    if isinstance(value, (int, Decimal)) and not isinstance(value, bool):
        return str(int(value))
    if isinstance(value, (list, tuple)):
        return [_json_item(v) for v in value]
    return value


class MerkleTree:
    """A Merkle tree over a batch of leaves, built one level per batch hash call.

    Create one with :meth:`build` or :meth:`load`; the scheme decides the rules
    (``"openzeppelin"`` or ``"rfc9162"``, see docs/merkle.md).

    Attributes
    ----------
    scheme : str
        ``"openzeppelin"`` or ``"rfc9162"``.
    algorithm : str
        The hash (``"keccak_256"`` for OpenZeppelin trees).
    """

    scheme: str = ""
    algorithm: str = ""

    @classmethod
    def build(
        cls,
        leaves: object,
        *,
        scheme: str,
        algorithm: str | None = None,
        sort_leaves: bool | None = None,
        types: Sequence[str] | None = None,
        length: int | None = None,
        threads: int | None = None,
    ) -> MerkleTree:
        """Build the tree of ``leaves``.

        Parameters
        ----------
        leaves
            For ``scheme="openzeppelin"`` without ``types``: 32-byte leaves in any
            :func:`batchkeccak.hash_many` input form (a list of bytes, an (n, 32) uint8
            array, a ``(data, offsets)`` pair, a pyarrow binary column) or a list of hex
            strings. With ``types``: rows of ABI values (a list of rows, a mapping of
            columns, a pyarrow Table). For ``scheme="rfc9162"``: values of any length in any
            ``hash_many`` input form; each is hashed as a leaf.
        scheme
            ``"openzeppelin"`` or ``"rfc9162"``.
        algorithm
            ``"rfc9162"``: any batchkeccak algorithm (default ``"sha3_256"``).
            ``"openzeppelin"``: only ``"keccak_256"`` (the default).
        sort_leaves
            ``"openzeppelin"`` only: sort leaf hashes before building (the JavaScript
            library's default, True). Has no meaning for ``"rfc9162"``.
        types
            ``"openzeppelin"`` only: ABI types of each row's values; makes a
            ``StandardMerkleTree`` (leaf = keccak256(keccak256(abi.encode(types, row)))).
        length
            Output bytes when ``algorithm`` is an extendable-output function.
        threads
            As for :func:`batchkeccak.hash_many`.

        Returns
        -------
        MerkleTree

        Examples
        --------
        >>> from batchkeccak import merkle
        >>> t = merkle.MerkleTree.build([bytes([i]) * 32 for i in range(5)],
        ...                             scheme="openzeppelin")
        >>> merkle.verify(bytes([3]) * 32, t.proof(3), t.root, scheme="openzeppelin")
        True
        """
        scheme = check_scheme(scheme)
        if scheme == "openzeppelin":
            from batchkeccak.merkle.openzeppelin import OpenZeppelinTree

            if length is not None:
                raise TypeError("length does not apply to the openzeppelin scheme (keccak_256)")
            return OpenZeppelinTree.build(
                leaves,
                algorithm=algorithm,
                sort_leaves=sort_leaves,
                types=types,
                threads=threads,
            )
        from batchkeccak.merkle.rfc9162 import RFC9162Tree

        _reject_openzeppelin_options(sort_leaves, types)
        return RFC9162Tree.build(leaves, algorithm=algorithm, length=length, threads=threads)

    @classmethod
    def load(cls, dump: object, *, threads: int | None = None) -> MerkleTree:
        """Rebuild a tree from :meth:`dump` output, checking every node.

        Parameters
        ----------
        dump
            A dict as :meth:`dump` returns (``"simple-v1"`` and ``"standard-v1"`` dumps from
            the JavaScript library load too), its JSON text (str or bytes), or a
            ``pathlib.Path`` to a JSON file.
        threads
            As for :func:`batchkeccak.hash_many`.

        Raises
        ------
        ValueError
            For an unknown format, a malformed dump, or nodes that are not the hashes
            their positions say (a tampered or corrupted dump).
        """
        data = _read_dump(dump)
        fmt = data.get("format")
        if fmt in ("simple-v1", "standard-v1"):
            from batchkeccak.merkle.openzeppelin import OpenZeppelinTree

            return OpenZeppelinTree.from_dump(data, threads=threads)
        if fmt == "rfc9162-v1":
            from batchkeccak.merkle.rfc9162 import RFC9162Tree

            return RFC9162Tree.from_dump(data, threads=threads)
        raise ValueError(f"unknown dump format {fmt!r}; expected one of {', '.join(DUMP_FORMATS)}")

    # The methods below are implemented by each scheme.

    @property
    def root(self) -> bytes:
        """The root node."""
        raise NotImplementedError

    @property
    def size(self) -> int:
        """Number of leaves."""
        raise NotImplementedError

    def __len__(self) -> int:
        return self.size

    def leaf_hash(self, index: int) -> bytes:
        """The leaf node of input ``index`` (its position in the tree depends on the scheme)."""
        raise NotImplementedError

    def proof(self, index: int) -> list[bytes]:
        """The inclusion proof of the leaf at input ``index``: sibling nodes, leaf to root."""
        raise NotImplementedError

    def multiproof(self, indices: Sequence[int]) -> MultiProof:
        """A proof for several leaves at once (OpenZeppelin trees only)."""
        raise TypeError(
            f"multiproofs are defined by the openzeppelin scheme; this tree is {self.scheme}"
        )

    def consistency_proof(self, old_size: int) -> list[bytes]:
        """A proof that the first ``old_size`` leaves form an earlier tree (RFC 9162 only)."""
        raise TypeError(
            f"consistency proofs are defined by the rfc9162 scheme; this tree is {self.scheme}"
        )

    def dump(self) -> dict:
        """The tree as a JSON-serializable dict that :meth:`load` reads back."""
        raise NotImplementedError

    def dumps(self) -> str:
        """:meth:`dump` as JSON text."""
        return json.dumps(self.dump())

    def __repr__(self) -> str:
        return (
            f"<MerkleTree scheme={self.scheme} algorithm={self.algorithm} "
            f"size={self.size} root=0x{self.root.hex()}>"
        )


def _reject_openzeppelin_options(sort_leaves: object, types: object) -> None:
    if sort_leaves is not None:
        raise TypeError(
            "sort_leaves applies to the openzeppelin scheme only; rfc9162 keeps "
            "leaves in their order"
        )
    if types is not None:
        raise TypeError("types applies to the openzeppelin scheme only (standard trees)")


def _read_dump(dump: object) -> dict:
    if isinstance(dump, os.PathLike):
        with open(dump, "rb") as handle:
            dump = handle.read()
    if isinstance(dump, (str, bytes, bytearray)):
        try:
            dump = json.loads(dump)
        except ValueError as exc:
            raise ValueError(f"dump is not valid JSON: {exc}") from None
    if not isinstance(dump, Mapping):
        raise TypeError(
            f"dump must be a dict, JSON text or a pathlib.Path, got {type(dump).__name__}"
        )
    if "format" not in dump:
        raise ValueError(f"dump lacks 'format'; expected one of {', '.join(DUMP_FORMATS)}")
    return dict(dump)


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
    scheme = check_scheme(scheme)
    if scheme == "openzeppelin":
        from batchkeccak.merkle import openzeppelin

        if length is not None:
            raise TypeError("length does not apply to the openzeppelin scheme (keccak_256)")
        return openzeppelin.merkle_root(
            leaves, algorithm=algorithm, sort_leaves=sort_leaves, types=types, threads=threads
        )
    from batchkeccak.merkle import rfc9162

    _reject_openzeppelin_options(sort_leaves, types)
    return rfc9162.merkle_root(leaves, algorithm=algorithm, length=length, threads=threads)


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
    scheme = check_scheme(scheme)
    if scheme == "openzeppelin":
        from batchkeccak.merkle import openzeppelin

        if index is not None or size is not None or length is not None:
            raise TypeError("index, size and length apply to the rfc9162 scheme only")
        return openzeppelin.verify(leaf, proof, root, types=types, algorithm=algorithm)
    from batchkeccak.merkle import rfc9162

    if types is not None:
        raise TypeError("types applies to the openzeppelin scheme only (standard trees)")
    if index is None or size is None:
        raise TypeError("the rfc9162 scheme needs index= and size= to verify a proof")
    return rfc9162.verify(
        leaf, proof, root, index=index, size=size, algorithm=algorithm, length=length
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
    if check_scheme(scheme) != "openzeppelin":
        raise ValueError("multiproofs are defined by the openzeppelin scheme only")
    from batchkeccak.merkle import openzeppelin

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
    if check_scheme(scheme) != "rfc9162":
        raise ValueError("consistency proofs are defined by the rfc9162 scheme only")
    from batchkeccak.merkle import rfc9162

    return rfc9162.verify_consistency(
        old_root,
        new_root,
        proof,
        old_size=old_size,
        new_size=new_size,
        algorithm=algorithm,
        length=length,
    )
