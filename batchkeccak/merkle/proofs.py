"""Proofs as JSON: the documents that ``batchkeccak merkle proof`` writes and ``verify`` reads.

A proof document carries everything a verifier needs besides the root it trusts:

- an inclusion proof: ``{"scheme", "algorithm", "root", "index", <leaf>, "proof"}``, where
  ``<leaf>`` is ``"leaf"`` (an OpenZeppelin simple tree), ``"types"`` and ``"value"`` (a
  standard tree), or ``"leafHash"`` and, when the values are at hand, ``"value"`` (RFC 9162,
  which adds ``"digestSize"`` and ``"size"``); ``proof`` lists ``0x`` hex nodes, leaf to root;
- several inclusion proofs: ``{"proofs": [...]}``, or JSON Lines of single proofs;
- a multiproof: ``{"scheme", "algorithm", "root", ["types"], "multiproof"}`` with the
  JavaScript library's ``{"leaves", "proof", "proofFlags"}``;
- a consistency proof: ``{"scheme", "algorithm", "digestSize", "oldSize", "newSize",
  "oldRoot", "newRoot", "proof"}``.

Tree dumps (``MerkleTree.dump``) are written and read here too, atomically.
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterable, Iterator, Mapping, Sequence
from pathlib import Path

import numpy as np

from batchkeccak.merkle import abi, openzeppelin, rfc9162, schemes
from batchkeccak.merkle._bytes import hex_to_bytes
from batchkeccak.merkle.base import MerkleTree
from batchkeccak.support.atomic import atomic_output
from batchkeccak.support.hextext import encode_hex_rows, hex_0x

__all__ = [
    "consistency_proof_json",
    "inclusion_proof_json",
    "inclusion_proof_lines",
    "load_dump",
    "multiproof_json",
    "parse_proofs",
    "verify_proofs",
    "write_dump",
    "write_text_atomic",
]

BLOCK = 1 << 14
"""Proofs assembled per step of :func:`inclusion_proof_lines`: the sibling nodes of a block of
leaves are gathered and hex-encoded level by level with numpy, and the block's lines are
handed out before the next."""


# ----------------------------------------------------------------------------------------
# Writing proofs


def _value_bytes(values: object, index: int) -> bytes:
    """Value ``index`` of RFC 9162 leaves given in any form ``MerkleTree.build`` takes."""
    if isinstance(values, np.ndarray):
        return values[index].tobytes()
    if hasattr(values, "to_pylist"):
        value = values[index].as_py()  # type: ignore[index]  # an Arrow array (has to_pylist): indexable, untyped pyarrow
        return value.encode("utf-8") if isinstance(value, str) else value
    return bytes(values[index])  # type: ignore[index]  # any other form MerkleTree.build took is a sequence of bytes-like values


def _leaf_fields(tree: MerkleTree, values: object, index: int) -> dict:
    """What the verifier needs besides the proof: the leaf, in the scheme's terms."""
    if isinstance(tree, openzeppelin.OpenZeppelinTree):
        if tree.types is None:
            return {"leaf": hex_0x(tree.value(index))}
        row = tree.value(index)
        return {
            "types": list(tree.types),
            "value": [abi.json_value(t, v) for t, v in zip(tree.types, row)],  # type: ignore[call-overload]  # types is not None (checked above), so each row is a list of values
        }
    entry = {"leafHash": hex_0x(tree.leaf_hash(index))}
    if values is not None:
        entry["value"] = hex_0x(_value_bytes(values, index))
    return entry


def _head(tree: MerkleTree) -> dict:
    head: dict[str, object] = {
        "scheme": tree.scheme,
        "algorithm": tree.algorithm,
        "root": hex_0x(tree.root),
    }
    if isinstance(tree, rfc9162.RFC9162Tree):
        head.update(digestSize=tree.digest_size, size=tree.size)
    return head


def inclusion_proof_json(tree: MerkleTree, index: int, values: object = None) -> dict:
    """The inclusion proof of leaf ``index`` (input order) as a JSON-ready dict.

    Parameters
    ----------
    tree
        Any :class:`~batchkeccak.merkle.MerkleTree`.
    index
        The leaf, in input order.
    values
        RFC 9162 trees: the values the tree was built from, to put the value itself into the
        proof (without them the proof carries the leaf hash alone). Ignored otherwise.

    Returns
    -------
    dict
        The document described in this module's docstring; :func:`verify_proofs` reads it.
    """
    proof = [hex_0x(node) for node in tree.proof(index)]
    entry = dict(_head(tree), index=int(index))
    entry.update(_leaf_fields(tree, values, int(index)))
    entry["proof"] = proof
    return entry


def inclusion_proof_lines(
    tree: MerkleTree, values: object = None, block: int = BLOCK
) -> Iterator[str]:
    """One JSON line per leaf, in input order, ``block`` leaves per yielded chunk.

    The same documents as :func:`inclusion_proof_json`, without holding every proof in
    memory: each block's sibling nodes come from one :meth:`MerkleTree.sibling_levels` call.
    """
    head = _head(tree)
    simple = isinstance(tree, openzeppelin.OpenZeppelinTree)
    json_values = tree.json_values() if simple else None  # type: ignore[attr-defined]  # simple is the isinstance check above; mypy does not narrow through it
    types = list(tree.types) if simple and tree.types is not None else None  # type: ignore[attr-defined]  # simple is the isinstance check above; mypy does not narrow through it
    for start in range(0, tree.size, block):
        indices = np.arange(start, min(tree.size, start + block))
        steps = [(has, encode_hex_rows(nodes, "0x")) for has, nodes in tree.sibling_levels(indices)]
        if not simple:
            leaf_hashes = encode_hex_rows(tree.levels[0][indices], "0x")  # type: ignore[attr-defined]  # not simple: an RFC 9162 tree, which has levels
        lines = []
        for k, index in enumerate(indices.tolist()):
            entry = dict(head, index=index)
            if simple:
                if types is None:
                    entry["leaf"] = json_values[index]  # type: ignore[index]  # simple: json_values was set above
                else:
                    entry.update(types=types, value=json_values[index])  # type: ignore[index]  # simple: json_values was set above
            else:
                entry["leafHash"] = leaf_hashes[k]
                if values is not None:
                    entry["value"] = hex_0x(_value_bytes(values, index))
            entry["proof"] = [nodes[k] for has, nodes in steps if has[k]]
            lines.append(json.dumps(entry) + "\n")
        yield "".join(lines)


def multiproof_json(tree: MerkleTree, indices: Sequence[int]) -> dict:
    """One OpenZeppelin multiproof for the leaves at ``indices``, as a JSON-ready dict."""
    if not isinstance(tree, openzeppelin.OpenZeppelinTree):
        raise TypeError(
            f"multiproofs are defined by the openzeppelin scheme; this tree is {tree.scheme}"
        )
    multiproof = tree.multiproof(indices)
    result: dict[str, object] = {
        "scheme": tree.scheme,
        "algorithm": tree.algorithm,
        "root": hex_0x(tree.root),
    }
    if tree.types is not None:
        result["types"] = list(tree.types)
    result["multiproof"] = multiproof.to_json()
    return result


def consistency_proof_json(tree: MerkleTree, old_size: int) -> dict:
    """An RFC 9162 consistency proof from the first ``old_size`` leaves, as a JSON-ready dict."""
    if not isinstance(tree, rfc9162.RFC9162Tree):
        raise TypeError(
            f"consistency proofs are defined by the rfc9162 scheme; this tree is {tree.scheme}"
        )
    proof = tree.consistency_proof(old_size)
    return {
        "scheme": tree.scheme,
        "algorithm": tree.algorithm,
        "digestSize": tree.digest_size,
        "oldSize": old_size,
        "newSize": tree.size,
        "oldRoot": hex_0x(tree.root_at(old_size)),
        "newRoot": hex_0x(tree.root),
        "proof": [hex_0x(p) for p in proof],
    }


# ----------------------------------------------------------------------------------------
# Dumps


def write_text_atomic(path: str | os.PathLike, chunks: str | Iterable[str]) -> None:
    """Write text to ``path`` so that readers see the old file or the whole new one.

    Through ``batchkeccak.support.atomic`` (a temporary file beside ``path``, flushed, then renamed
    over it). A folder, or a path in a folder that does not exist, is refused first with an
    error that says so.
    """
    target = Path(path)
    if target.is_dir():
        raise IsADirectoryError(f"{str(target)!r} is a directory; name the file to write")
    if not target.parent.is_dir():
        raise FileNotFoundError(
            f"cannot write {str(target)!r}: folder {str(target.parent)!r} does not exist"
        )
    with atomic_output(target) as temporary, open(temporary, "w", encoding="utf-8") as handle:
        handle.writelines([chunks] if isinstance(chunks, str) else chunks)


def write_dump(tree: MerkleTree, path: str | os.PathLike) -> None:
    """Write :meth:`MerkleTree.dumps` to ``path`` atomically (old file or whole new one)."""
    write_text_atomic(path, tree.dumps() + "\n")


def load_dump(path: str | os.PathLike, *, threads: int | None = None) -> MerkleTree:
    """:meth:`MerkleTree.load` of the JSON file at ``path``, every node checked."""
    return MerkleTree.load(Path(path), threads=threads)


# ----------------------------------------------------------------------------------------
# Reading and verifying proofs


def parse_proofs(text: str) -> list:
    """The proof documents in ``text``: one JSON document, ``{"proofs": [...]}``, or JSON
    Lines (as :func:`inclusion_proof_lines` writes).

    Raises
    ------
    ValueError
        When ``text`` is neither JSON nor JSON Lines, or holds no proofs.
    """
    try:
        document = json.loads(text)
    except ValueError:
        try:
            entries = [json.loads(line) for line in text.splitlines() if line.strip()]
        except ValueError as exc:
            raise ValueError(f"proof text is neither JSON nor JSON Lines: {exc}") from None
    else:
        if isinstance(document, Mapping) and "proofs" in document:
            entries = document["proofs"]
            if not isinstance(entries, list):
                raise ValueError("'proofs' must be a list of proof objects")
        else:
            entries = [document]
    if not entries:
        raise ValueError("proof text holds no proofs")
    return entries


def _xof_length(entry: Mapping) -> int | None:
    from batchkeccak.core.parameters import get_algorithm

    spec = get_algorithm(entry.get("algorithm") or rfc9162.DEFAULT_ALGORITHM)
    return entry["digestSize"] if spec.xof else None


def _trusted_root(entry: Mapping, root: object) -> object:
    trusted = root if root is not None else entry.get("root")
    if trusted is None:
        raise ValueError("the proof names no root; give the root you trust")
    return trusted


def _verify_entry(entry: object, root: object) -> tuple[bool, str]:
    """Check one proof document; returns (valid, what it proves)."""
    if not isinstance(entry, Mapping):
        raise TypeError("a proof must be a JSON object")
    scheme = entry.get("scheme")
    if "oldSize" in entry:
        ok = schemes.verify_consistency(
            entry["oldRoot"],
            root if root is not None else entry["newRoot"],
            entry["proof"],
            old_size=entry["oldSize"],
            new_size=entry["newSize"],
            algorithm=entry.get("algorithm"),
            length=_xof_length(entry),
        )
        return ok, f"consistency {entry['oldSize']} -> {entry['newSize']}"
    trusted = _trusted_root(entry, root)
    if "multiproof" in entry:
        ok = schemes.verify_multiproof(entry["multiproof"], trusted, types=entry.get("types"))
        return ok, "multiproof"
    if scheme == "openzeppelin":
        if "types" in entry:
            ok = schemes.verify(
                entry["value"], entry["proof"], trusted, scheme=scheme, types=entry["types"]
            )
        else:
            ok = schemes.verify(entry["leaf"], entry["proof"], trusted, scheme=scheme)
        return ok, f"leaf {entry.get('index', '?')}"
    if scheme == "rfc9162":
        options = {
            "index": entry["index"],
            "size": entry["size"],
            "algorithm": entry.get("algorithm"),
            "length": _xof_length(entry),
        }
        if "value" in entry:
            value = hex_to_bytes(entry["value"], "value")
            ok = schemes.verify(value, entry["proof"], trusted, scheme=scheme, **options)
        else:
            ok = rfc9162.verify_leaf_hash(entry["leafHash"], entry["proof"], trusted, **options)
        return ok, f"leaf {entry['index']}"
    raise ValueError(f"unknown scheme {scheme!r} in proof")


def _verify_openzeppelin_batches(entries: list, root: object, failed: list[str]) -> list:
    """Check OpenZeppelin inclusion proofs in batches (one hash call per proof step for all
    proofs with the same root and types); returns the entries left for one-by-one checks."""
    groups: dict = {}
    rest = []
    for entry in entries:
        if (
            isinstance(entry, Mapping)
            and entry.get("scheme") == "openzeppelin"
            and "proof" in entry
            and "multiproof" not in entry
        ):
            types = tuple(entry["types"]) if "types" in entry else None
            groups.setdefault((_trusted_root(entry, root), types), []).append(entry)
        else:
            rest.append(entry)
    for (trusted, types), group in groups.items():
        leaves = [e["value"] for e in group] if types else [e["leaf"] for e in group]
        proofs = [e["proof"] for e in group]
        valid = openzeppelin.verify_many(leaves, proofs, trusted, types=types)
        failed.extend(f"leaf {e.get('index', '?')}" for e, ok in zip(group, valid) if not ok)
    return rest


def verify_proofs(entries: Sequence[object], root: object = None) -> list[str]:
    """Check proof documents (as :func:`parse_proofs` returns them).

    Parameters
    ----------
    entries
        Inclusion, multi- and consistency proof documents, in any mix.
    root
        The root you trust (bytes or hex); None checks each proof against the root written
        in it, which proves only that the document is consistent with itself.

    Returns
    -------
    list of str
        What failed (``"leaf 7"``, ``"multiproof"``, ``"consistency 3 -> 9"``); empty when
        every proof holds.

    Raises
    ------
    ValueError, TypeError
        For malformed documents: a missing field, nodes of the wrong size, an unknown scheme.
    """
    failed: list[str] = []
    try:
        for entry in _verify_openzeppelin_batches(list(entries), root, failed):
            ok, what = _verify_entry(entry, root)
            if not ok:
                failed.append(what)
    except KeyError as exc:
        raise ValueError(f"proof lacks {exc.args[0]!r}") from None
    return failed
