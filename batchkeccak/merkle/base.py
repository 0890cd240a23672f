"""What every Merkle tree shares: the :class:`MerkleTree` base class, argument checks, the
:class:`MultiProof` record, and the table of tree classes by scheme and dump format.

Each scheme module (``openzeppelin``, ``rfc9162``) subclasses :class:`MerkleTree` with a
``scheme`` and its ``dump_formats``; subclassing enters the class in the table, from which
:meth:`MerkleTree.build` and :meth:`MerkleTree.load` choose. This module imports no scheme,
so no scheme module has to import its way back here through the package.
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import ClassVar, Required, TypedDict, Unpack

import numpy as np

from batchkeccak.core.parameters import canonical_name
from batchkeccak.errors import LeafIndexError
from batchkeccak.merkle._bytes import json_item
from batchkeccak.support.checks import check_int
from batchkeccak.support.hextext import hex_0x


class BuildOptions(TypedDict, total=False):
    """The options of :meth:`MerkleTree.build` and :func:`merkle_root` besides ``scheme``,
    which each scheme's own ``build`` and ``merkle_root`` take as keywords."""

    algorithm: object
    sort_leaves: bool | None
    types: Sequence[str] | None
    length: int | None
    threads: int | None


class ConsistencyOptions(TypedDict, total=False):
    """The arguments of :func:`batchkeccak.merkle.verify_consistency` besides the roots, the
    proof and ``scheme``, which the rfc9162 scheme's ``verify_consistency`` takes."""

    old_size: Required[int]
    new_size: Required[int]
    algorithm: str | None
    length: int | None


class ProofOptions(TypedDict, total=False):
    """The options of :func:`batchkeccak.merkle.verify` besides ``scheme``, which each
    scheme's ``verify_proof`` takes as keywords (refusing by name those it does not take)."""

    types: Sequence[str] | None
    index: int | None
    size: int | None
    algorithm: str | None
    length: int | None


SCHEMES = ("openzeppelin", "rfc9162")
"""Tree constructions, each byte-exact with its reference (see docs/merkle.md)."""

PAIRS_PER_CALL = 1 << 14
"""Parent messages assembled per batch call when a level's messages must be copied first
(sorted pairs, a 0x01 prefix): large enough that each call keeps 16 cores busy and its fixed
cost (about 0.1 ms) stays under 2 % of it, small enough that the scratch buffer (1 MiB of
64-byte messages) adds little to the tree instead of another copy of a level."""


DUMP_FORMATS = ("simple-v1", "standard-v1", "rfc9162-v1")
"""``format`` values of :meth:`MerkleTree.dump`: the first two are the JavaScript library's."""


_TREE_CLASSES: dict[str, type[MerkleTree]] = {}
"""The registry of schemes: scheme name -> tree class, each class entered as its module
defines it. A class is its scheme's one object: its tree, its dump formats, its root-only
function (:meth:`MerkleTree.root_only`), its proof check (:meth:`MerkleTree.verify_proof`)
and which other proofs it defines; :data:`SCHEMES` and :data:`DUMP_FORMATS` name what it
holds (tests/test_merkle_api.py checks that they agree)."""


def check_scheme(scheme: object) -> str:
    """``scheme`` as one of :data:`SCHEMES`; TypeError / ValueError naming the choices."""
    if not isinstance(scheme, str):
        raise TypeError(
            f"scheme must be a str, one of {', '.join(SCHEMES)}; got {type(scheme).__name__}"
        )
    key = canonical_name(scheme, SCHEMES)
    if key is None:
        raise ValueError(f"unknown scheme {scheme!r}; valid schemes: {', '.join(SCHEMES)}")
    return key


def check_index(index: object, size: int, argument: str = "index") -> int:
    """A leaf index in input order, as an int in ``[0, size)``."""
    position = check_int(index, argument)
    if not 0 <= position < size:
        raise LeafIndexError(
            f"{argument} {position} is out of range for a tree of {size} leaves"
            + (f" (valid: 0..{size - 1})" if size else "")
        )
    return position


def check_count(value: object, argument: str) -> int:
    """A non-negative int (a tree size)."""
    return check_int(value, argument, 0)


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

        return {
            "leaves": [json_item(v) for v in self.leaves],
            "proof": [hex_0x(p) for p in self.proof],
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
    dump_formats: ClassVar[tuple[str, ...]] = ()
    """The ``format`` values of this scheme's dumps, which :meth:`load` hands to it."""
    multiproofs: ClassVar[bool] = False
    """Whether the scheme defines multiproofs (:func:`~batchkeccak.merkle.verify_multiproof`)."""
    consistency_proofs: ClassVar[bool] = False
    """Whether it defines consistency proofs (:func:`~batchkeccak.merkle.verify_consistency`)."""

    def __init_subclass__(cls, **kwargs: object) -> None:
        super().__init_subclass__(**kwargs)
        if cls.__dict__.get("scheme"):
            _TREE_CLASSES[cls.scheme] = cls

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
            array, a :class:`batchkeccak.FlatMessages`, a pyarrow binary column) or a list of hex
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
        # Each scheme's own build, which takes the options without the scheme.
        build_tree: Callable[..., MerkleTree] = tree_class(scheme).build
        return build_tree(
            leaves,
            algorithm=algorithm,
            sort_leaves=sort_leaves,
            types=types,
            length=length,
            threads=threads,
        )

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
        data = read_dump(dump)
        fmt = data.get("format")
        for tree_type in _TREE_CLASSES.values():
            if fmt in tree_type.dump_formats:
                return tree_type.from_dump(data, threads=threads)
        raise ValueError(f"unknown dump format {fmt!r}; expected one of {', '.join(DUMP_FORMATS)}")

    # The methods below are implemented by each scheme.

    @staticmethod
    def root_only(leaves: object, **options: Unpack[BuildOptions]) -> bytes:
        """What ``build(leaves, **options).root`` would be, one level in memory at a time
        (:func:`batchkeccak.merkle.merkle_root`)."""
        raise NotImplementedError

    @staticmethod
    def verify_proof(
        leaf: object, proof: Sequence[object], root: object, **options: Unpack[ProofOptions]
    ) -> bool:
        """An inclusion proof checked (:func:`batchkeccak.merkle.verify`), refusing by name
        the arguments the scheme does not take."""
        raise NotImplementedError

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

    @classmethod
    def from_dump(cls, data: Mapping, threads: int | None = None) -> MerkleTree:
        """Read a dump of one of :attr:`dump_formats` (implemented by each scheme)."""
        raise NotImplementedError

    def sibling_levels(self, indices: np.ndarray) -> list[tuple[np.ndarray, np.ndarray]]:
        """The inclusion proofs of many leaves at once, one level at a time.

        Parameters
        ----------
        indices
            Leaf indices in input order, as an int array.

        Returns
        -------
        list of (numpy.ndarray, numpy.ndarray)
            One ``(has_sibling, nodes)`` pair per level from the leaves up: ``nodes[k]`` is
            the next sibling on the proof of leaf ``indices[k]`` where ``has_sibling[k]``;
            ``proof(indices[k])`` is those nodes in order.
        """
        raise NotImplementedError

    def dumps(self) -> str:
        """:meth:`dump` as JSON text."""
        return json.dumps(self.dump())

    def __repr__(self) -> str:
        return (
            f"<MerkleTree scheme={self.scheme} algorithm={self.algorithm} "
            f"size={self.size} root={hex_0x(self.root)}>"
        )


def tree_class(scheme: object) -> type[MerkleTree]:
    """The tree class of ``scheme`` (checked as :func:`check_scheme` does)."""
    return _TREE_CLASSES[check_scheme(scheme)]


def read_dump(dump: object) -> dict:
    """A dump given as a dict, JSON text (str or bytes) or a path, as a dict with a format."""
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
