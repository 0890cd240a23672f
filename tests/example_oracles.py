"""Every digest and Merkle root that example programs and documentation blocks compute,
checked as they compute it against implementations batchkeccak shares no code with.

``checked_against_oracles()`` wraps the public entry points (``hash_many``,
``hexdigest_many``, ``hash_one``, ``batchkeccak.arrow.hash_array``,
``merkle.MerkleTree.build``, ``merkle.merkle_root``, ``merkle.verify``) for the length of a
``with`` block. Each wrapped call runs as usual, then its result is compared with hashlib /
pycryptodome (digests) and with the one-hash-per-node trees of ``merkle_reference`` (Merkle
trees, standard-tree leaves through ``eth_abi.encode``). Large calls are checked on a sample
of messages or leaves. A mismatch raises ``AssertionError`` at the call; the returned record
lists what was checked, so a test can tell a program that computed nothing checkable.
"""

from __future__ import annotations

import contextlib
import functools
import inspect
from collections.abc import Iterator

import numpy as np

from batchkeccak import FlatMessages

from merkle_reference import RFC9162Reference, keccak256, oz_process_proof, oz_tree
from oracles import oracle

SAMPLE = 256
"""Messages (or leaves) checked per call at most: every one below this, a spread above."""

FULL_TREE = 4096
"""Trees up to this many leaves are rebuilt node by node; larger ones are checked through
sampled leaves and their proofs."""


def sample_indices(count: int) -> list[int]:
    if count <= SAMPLE:
        return list(range(count))
    return sorted({round(k * (count - 1) / (SAMPLE - 1)) for k in range(SAMPLE)})


def _as_bytes(value: object) -> bytes:
    if isinstance(value, str):
        return value.encode("utf-8")
    if isinstance(value, np.ndarray):
        return value.tobytes()
    return bytes(memoryview(value).cast("B"))  # type: ignore[arg-type]


def message_reader(messages: object):
    """``(count, message_at)`` for any hash_many input form, or None for a form this module
    does not read (which then goes unchecked, and unrecorded)."""
    if isinstance(messages, np.ndarray) and messages.ndim == 2:
        return messages.shape[0], lambda i: messages[i].tobytes()
    # Only the named type is a flat buffer: hash_many reads a plain tuple, even one of two
    # arrays, as a sequence of messages, and so must the oracle.
    if isinstance(messages, FlatMessages):
        flat = bytes(memoryview(messages.data).cast("B"))  # type: ignore[arg-type]
        offsets = [int(o) for o in messages.offsets]  # type: ignore[attr-defined]
        return len(offsets) - 1, lambda i: flat[offsets[i] : offsets[i + 1]]
    if hasattr(messages, "to_pylist"):
        values = messages.to_pylist()  # type: ignore[attr-defined]
        return len(values), lambda i: None if values[i] is None else _as_bytes(values[i])
    if hasattr(messages, "to_list"):  # a Polars Series
        values = messages.to_list()  # type: ignore[attr-defined]
        return len(values), lambda i: None if values[i] is None else _as_bytes(values[i])
    if isinstance(messages, (list, tuple)):
        return len(messages), lambda i: _as_bytes(messages[i])
    return None


XOF_PREFIXES = ("shake_", "turboshake")


def _algorithm(arguments) -> tuple[str, int | None] | None:
    """``(name, length)`` of a plain hash call, or None for a mode's parameters (a
    customization string, a key, ...), which these oracles do not model."""
    if arguments.get("params"):
        return None
    algorithm = arguments.get("algorithm", "sha3_256")
    length = arguments.get("length")
    if not isinstance(algorithm, str):
        # An Algorithm row, or a resolved Hasher (which carries its output length); a
        # subclass of Hasher is a mode, with parameters of its own.
        if hasattr(algorithm, "output_length"):
            from batchkeccak.core.hashers import Hasher

            if type(algorithm) is not Hasher:
                return None
            if length is None and algorithm.name.startswith(XOF_PREFIXES):
                length = algorithm.output_length
        algorithm = algorithm.name
    return algorithm, length


class OracleRecord:
    """What the oracles checked during one ``with checked_against_oracles()`` block."""

    def __init__(self) -> None:
        self.checked: list[str] = []

    def add(self, what: str) -> None:
        self.checked.append(what)


def _digest_checks(record: OracleRecord, name: str, arguments, digest_at) -> None:
    reader = message_reader(arguments.get("messages"))
    if reader is None:
        return
    resolved = _algorithm(arguments)
    if resolved is None:
        return
    algorithm, length = resolved
    count, message_at = reader
    for i in sample_indices(count):
        expected = oracle(algorithm, message_at(i), length)
        assert digest_at(i) == expected, f"{name} message {i} ({algorithm}) differs from the oracle"
    record.add(f"{name}({count} x {algorithm})")


def _check_hash_many(record, arguments, result):
    _digest_checks(record, "hash_many", arguments, lambda i: result[i].tobytes())


def _check_hexdigest_many(record, arguments, result):
    _digest_checks(record, "hexdigest_many", arguments, lambda i: bytes.fromhex(result[i]))


def _check_hash_one(record, arguments, result):
    resolved = _algorithm(arguments)
    if resolved is None:
        return
    algorithm, length = resolved
    expected = oracle(algorithm, _as_bytes(arguments["message"]), length)
    assert result == expected, f"hash_one ({algorithm}) differs from the oracle"
    record.add(f"hash_one({algorithm})")


def _check_hash_array(record, arguments, result):
    values = arguments["values"]
    reader = message_reader(values)
    if reader is None:
        return
    count, message_at = reader
    resolved = _algorithm(arguments)
    if resolved is None:
        return
    algorithm, length = resolved
    digests = result.to_pylist()
    assert len(digests) == count
    for i in sample_indices(count):
        message = message_at(i)
        if message is None:
            assert digests[i] is None, f"hash_array row {i}: a null became a digest"
            continue
        expected = oracle(algorithm, message, length)
        got = bytes.fromhex(digests[i]) if arguments.get("hex") else digests[i]
        assert got == expected, f"hash_array row {i} ({algorithm}) differs from the oracle"
    record.add(f"hash_array({count} x {algorithm})")


def _standard_leaf(types, row) -> bytes:
    import eth_abi

    from batchkeccak.merkle import abi

    # The row's spellings (decimal strings, 0x hex) in the plain Python forms eth-abi takes.
    plain = [_plain_value(abi.parse_type(t), v) for t, v in zip(types, row)]
    return keccak256(keccak256(eth_abi.encode(list(types), plain)))


def _plain_value(t, value):
    if t.kind == "array":
        return [_plain_value(t.item, v) for v in value]
    if t.kind in ("uint", "int"):
        if isinstance(value, str):
            negative = value.startswith("-")
            digits = value.lstrip("-")
            number = int(digits, 16) if digits[:2] in ("0x", "0X") else int(digits)
            return -number if negative else number
        return int(value)
    if t.kind == "bool":
        return value if isinstance(value, bool) else value == "true"
    if t.kind in ("address", "bytesN", "bytes") and isinstance(value, str):
        return bytes.fromhex(value[2:])
    if t.kind == "string":
        return value
    return _as_bytes(value)


def _oz_input_leaves(tree, arguments) -> list[bytes] | None:
    """Each input leaf node as the oracles compute it, in input order."""
    types = arguments.get("types")
    leaves = arguments["leaves"]
    if types is None:
        # Hex text (a list of str, an Arrow string column) is read as hex, as build() does.
        text = leaves.to_pylist() if hasattr(leaves, "to_pylist") else leaves
        if isinstance(text, (list, tuple)) and text and isinstance(text[0], str):
            return [_node_bytes(x) for x in text]
        reader = message_reader(leaves)
        if reader is None:
            return None
        count, message_at = reader
        return [message_at(i) for i in range(count)]
    return [_standard_leaf(types, tree.value(i)) for i in range(tree.size)]


def _check_openzeppelin_tree(record, tree, arguments) -> None:
    sort_leaves = arguments.get("sort_leaves")
    sort_leaves = True if sort_leaves is None else sort_leaves
    if tree.size <= FULL_TREE:
        leaves = _oz_input_leaves(tree, arguments)
        if leaves is None:
            return
        nodes, _ = oz_tree(leaves, sort_leaves)
        assert tree.root == nodes[0], "openzeppelin root differs from the per-node reference"
        record.add(f"openzeppelin tree of {tree.size} leaves, every node")
        return
    types = arguments.get("types")
    for i in sample_indices(tree.size)[:: max(1, SAMPLE // 32)]:
        leaf = _standard_leaf(types, tree.value(i)) if types is not None else tree.leaf_hash(i)
        assert tree.leaf_hash(i) == leaf, f"openzeppelin leaf {i} differs from eth-abi + keccak"
        assert oz_process_proof(leaf, tree.proof(i)) == tree.root, f"proof {i} misses the root"
    record.add(f"openzeppelin tree of {tree.size} leaves, sampled leaves and proofs")


def _check_rfc9162_tree(record, tree, arguments) -> None:
    reader = message_reader(arguments["leaves"])
    if reader is None:
        return
    count, message_at = reader
    algorithm = arguments.get("algorithm") or "sha3_256"
    length = arguments.get("length")
    if count <= FULL_TREE:
        reference = RFC9162Reference([message_at(i) for i in range(count)], algorithm, length)
        assert tree.root == reference.root(), "rfc9162 root differs from the RFC's definition"
        record.add(f"rfc9162 tree of {count} leaves ({algorithm}), every node")


def _check_build(record, arguments, tree):
    if tree.scheme == "openzeppelin":
        _check_openzeppelin_tree(record, tree, arguments)
    else:
        _check_rfc9162_tree(record, tree, arguments)


def _check_merkle_root(record, arguments, root):
    from batchkeccak import merkle

    # The same arguments through MerkleTree.build, itself checked against the reference.
    options = {k: v for k, v in arguments.items() if k not in ("leaves",)}
    tree = merkle.MerkleTree.build(arguments["leaves"], **options)
    assert root == tree.root, "merkle_root differs from the root of MerkleTree.build"
    record.add("merkle_root")


def _check_verify(record, arguments, valid):
    if arguments.get("scheme") != "openzeppelin":
        return
    types = arguments.get("types")
    leaf = arguments["leaf"]
    node = _standard_leaf(types, leaf) if types is not None else _node_bytes(leaf)
    proof = [_node_bytes(p) for p in arguments["proof"]]
    expected = oz_process_proof(node, proof) == _node_bytes(arguments["root"])
    assert valid == expected, "merkle.verify disagrees with the reference's processProof"
    record.add("merkle.verify")


def _node_bytes(value) -> bytes:
    if isinstance(value, str):
        return bytes.fromhex(value[2:] if value[:2] in ("0x", "0X") else value)
    return _as_bytes(value)


def _wrap(record, function, check):
    signature = inspect.signature(function)

    @functools.wraps(function)
    def wrapper(*args, **kwargs):
        result = function(*args, **kwargs)
        arguments = signature.bind(*args, **kwargs).arguments
        check(record, dict(arguments), result)
        return result

    return wrapper


@contextlib.contextmanager
def checked_against_oracles() -> Iterator[OracleRecord]:
    """Check every call of the public entry points inside the block; see the module doc."""
    import batchkeccak
    from batchkeccak import arrow, merkle

    record = OracleRecord()
    build = merkle.MerkleTree.__dict__["build"].__func__
    originals = [
        (batchkeccak, "hash_many", batchkeccak.hash_many, _check_hash_many),
        (batchkeccak, "hexdigest_many", batchkeccak.hexdigest_many, _check_hexdigest_many),
        (batchkeccak, "hash_one", batchkeccak.hash_one, _check_hash_one),
        (arrow, "hash_array", arrow.hash_array, _check_hash_array),
        (merkle, "merkle_root", merkle.merkle_root, _check_merkle_root),
        (merkle, "verify", merkle.verify, _check_verify),
    ]
    try:
        for owner, name, function, check in originals:
            setattr(owner, name, _wrap(record, function, check))
        signature = inspect.signature(build)

        @functools.wraps(build)
        def checked_build(cls, *args, **kwargs):
            tree = build(cls, *args, **kwargs)
            arguments = signature.bind(cls, *args, **kwargs).arguments
            _check_build(record, dict(arguments), tree)
            return tree

        merkle.MerkleTree.build = classmethod(checked_build)  # type: ignore[method-assign]
        yield record
    finally:
        for owner, name, function, _ in originals:
            setattr(owner, name, function)
        merkle.MerkleTree.build = classmethod(build)  # type: ignore[method-assign]
