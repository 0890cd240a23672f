"""RFC 9162 trees against the RFC's recursive definitions (tests/merkle_reference.py)."""

from __future__ import annotations

import json
import random

import numpy as np
import pytest

from batchkeccak import FlatMessages, merkle
from batchkeccak.merkle import rfc9162

from merkle_reference import RFC9162Reference, digest

pytestmark = pytest.mark.every_backend  # every oracle test on every backend policy


def _values(n: int, seed: int = 0) -> list[bytes]:
    # Lengths 0..70 so that empty values and multi-block values both occur.
    rng = random.Random(seed)
    return [bytes((seed + i + k) % 251 for k in range(rng.randint(0, 70))) for i in range(n)]


@pytest.mark.aarch64
def test_structure_for_every_size_up_to_70():
    for n in range(71):
        values = _values(n, seed=n)
        ref = RFC9162Reference(values)
        tree = merkle.MerkleTree.build(values, scheme="rfc9162")
        assert tree.size == n
        assert tree.root == ref.root(), n
        assert merkle.merkle_root(values, scheme="rfc9162") == ref.root()
        for i in range(n):
            assert tree.leaf_hash(i) == digest("sha3_256", b"\x00" + values[i])
            path = tree.proof(i)
            assert path == ref.path(i), (n, i)
            assert merkle.verify(values[i], path, tree.root, scheme="rfc9162", index=i, size=n)


def test_consistency_proofs_for_every_pair_of_sizes():
    values = _values(70, seed=1)
    ref = RFC9162Reference(values)
    for n in range(1, 71):
        tree = merkle.MerkleTree.build(values[:n], scheme="rfc9162")
        for m in range(n + 1):
            proof = tree.consistency_proof(m)
            expected = [] if m in (0, n) else ref.consistency(m, n)
            assert proof == expected, (m, n)
            assert tree.root_at(m) == ref.root(m)
            assert merkle.verify_consistency(
                ref.root(m), ref.root(n), proof, old_size=m, new_size=n
            )


def test_tampered_inclusion_proofs_are_rejected():
    for n in (2, 3, 5, 8, 13, 33):
        values = _values(n, seed=50 + n)
        tree = merkle.MerkleTree.build(values, scheme="rfc9162")
        root = tree.root
        for i in range(n):
            path = tree.proof(i)
            for k in range(len(path)):
                bad = list(path)
                bad[k] = bytes([bad[k][0] ^ 1]) + bad[k][1:]
                assert not merkle.verify(values[i], bad, root, scheme="rfc9162", index=i, size=n)
            assert not merkle.verify(
                values[i] + b"x", path, root, scheme="rfc9162", index=i, size=n
            )
            assert not merkle.verify(values[i], path[:-1], root, scheme="rfc9162", index=i, size=n)
            assert not merkle.verify(
                values[i], path + [root], root, scheme="rfc9162", index=i, size=n
            )
            # A path too short for the claimed size (the leaf-0 path of 3 leaves is also the
            # leaf-0 path of 4, so only sizes that change its length are wrong for sure).
            assert not merkle.verify(values[i], path, root, scheme="rfc9162", index=i, size=4 * n)
            assert not merkle.verify(values[i], path, root, scheme="rfc9162", index=n, size=n)
            if i + 1 < n and values[i + 1] != values[i]:
                assert not merkle.verify(
                    values[i], path, root, scheme="rfc9162", index=i + 1, size=n
                )


def test_tampered_consistency_proofs_are_rejected():
    values = _values(40, seed=2)
    ref = RFC9162Reference(values)
    for n in (2, 7, 8, 9, 21, 40):
        tree = merkle.MerkleTree.build(values[:n], scheme="rfc9162")
        for m in range(1, n):
            proof = tree.consistency_proof(m)
            old, new = ref.root(m), tree.root
            for k in range(len(proof)):
                bad = list(proof)
                bad[k] = bytes([bad[k][0] ^ 1]) + bad[k][1:]
                assert not merkle.verify_consistency(old, new, bad, old_size=m, new_size=n)
            assert not merkle.verify_consistency(old, new, proof[:-1], old_size=m, new_size=n)
            assert not merkle.verify_consistency(old, new, [], old_size=m, new_size=n)
            assert not merkle.verify_consistency(new, old, proof, old_size=m, new_size=n)
            if m + 1 < n:
                assert not merkle.verify_consistency(old, new, proof, old_size=m + 1, new_size=n)
    empty = digest("sha3_256", b"")
    assert merkle.verify_consistency(empty, ref.root(5), [], old_size=0, new_size=5)
    assert not merkle.verify_consistency(ref.root(1), ref.root(5), [], old_size=0, new_size=5)
    assert not merkle.verify_consistency(
        ref.root(5), ref.root(5), [ref.root(5)], old_size=5, new_size=5
    )
    assert not merkle.verify_consistency(ref.root(5), ref.root(3), [], old_size=5, new_size=3)


@pytest.mark.aarch64
@pytest.mark.parametrize(
    ("algorithm", "length"),
    [
        ("keccak_256", None),
        ("sha3_512", None),
        ("sha3_224", None),
        ("shake_128", 32),
        ("turboshake256", 48),
        ("keccak_384", None),
    ],
)
def test_other_algorithms(algorithm, length):
    for n in (0, 1, 2, 5, 17):
        values = _values(n, seed=n + 3)
        ref = RFC9162Reference(values, algorithm, length)
        tree = merkle.MerkleTree.build(values, scheme="rfc9162", algorithm=algorithm, length=length)
        assert tree.root == ref.root()
        assert tree.algorithm == algorithm
        for i in range(n):
            assert tree.proof(i) == ref.path(i)
            assert merkle.verify(
                values[i],
                tree.proof(i),
                tree.root,
                scheme="rfc9162",
                index=i,
                size=n,
                algorithm=algorithm,
                length=length,
            )
        loaded = merkle.MerkleTree.load(tree.dump())
        assert loaded.root == tree.root and loaded.algorithm == algorithm


def test_empty_tree():
    tree = merkle.MerkleTree.build([], scheme="rfc9162")
    assert tree.root == digest("sha3_256", b"")
    assert tree.size == 0 and len(tree) == 0
    assert tree.consistency_proof(0) == []
    with pytest.raises(IndexError, match="out of range for a tree of 0 leaves"):
        tree.proof(0)
    assert merkle.MerkleTree.load(tree.dump()).root == tree.root


def test_every_value_input_form_gives_the_same_root():
    pa = pytest.importorskip("pyarrow")
    values = _values(29, seed=8)
    expected = RFC9162Reference(values).root()
    lengths = np.array([0] + [len(v) for v in values], np.int64)
    flat = FlatMessages(np.frombuffer(b"".join(values), np.uint8), np.cumsum(lengths))
    for form in (
        values,
        [bytearray(v) for v in values],
        flat,
        pa.array(values, pa.binary()),
        pa.array(values, pa.large_binary()),
    ):
        assert merkle.MerkleTree.build(form, scheme="rfc9162").root == expected
        assert merkle.merkle_root(form, scheme="rfc9162") == expected
    rows = np.arange(29 * 40, dtype=np.uint64).astype(np.uint8).reshape(29, 40)
    row_values = [bytes(r) for r in rows]
    assert merkle.merkle_root(rows, scheme="rfc9162") == RFC9162Reference(row_values).root()
    # Offsets that do not start at zero (a slice of a larger buffer).
    data = np.frombuffer(b"junk" + b"".join(values), np.uint8)
    assert (
        merkle.merkle_root(FlatMessages(data, np.cumsum(lengths) + 4), scheme="rfc9162") == expected
    )


def test_levels_crossing_batch_chunks(monkeypatch):
    monkeypatch.setattr(rfc9162, "PAIRS_PER_CALL", 3)
    values = _values(77, seed=9)
    ref = RFC9162Reference(values)
    tree = merkle.MerkleTree.build(values, scheme="rfc9162")
    assert tree.root == ref.root()
    assert [tree.proof(i) for i in range(77)] == [ref.path(i) for i in range(77)]


def test_dump_round_trip():
    values = _values(23, seed=4)
    tree = merkle.MerkleTree.build(values, scheme="rfc9162", algorithm="keccak_256")
    dump = json.loads(tree.dumps())
    assert dump["format"] == "rfc9162-v1" and dump["size"] == 23 and dump["digestSize"] == 32
    loaded = merkle.MerkleTree.load(dump)
    assert loaded.root == tree.root
    assert loaded.consistency_proof(11) == tree.consistency_proof(11)


def test_bad_input():
    tree = merkle.MerkleTree.build(_values(5), scheme="rfc9162")
    with pytest.raises(IndexError, match=r"index 5 is out of range.*0\.\.4"):
        tree.proof(5)
    with pytest.raises(ValueError, match="old_size 6 is larger than the tree"):
        tree.consistency_proof(6)
    with pytest.raises(ValueError, match="old_size must be >= 0"):
        tree.consistency_proof(-1)
    with pytest.raises(TypeError, match="multiproofs are defined by the openzeppelin"):
        tree.multiproof([0])
    with pytest.raises(TypeError, match="sort_leaves applies to the openzeppelin"):
        merkle.MerkleTree.build(_values(5), scheme="rfc9162", sort_leaves=False)
    with pytest.raises(TypeError, match="types applies"):
        merkle.merkle_root(_values(5), scheme="rfc9162", types=["uint256"])
    with pytest.raises(ValueError, match="unknown algorithm"):
        merkle.MerkleTree.build(_values(5), scheme="rfc9162", algorithm="md5")
    with pytest.raises(TypeError, match="length is required"):
        merkle.MerkleTree.build(_values(5), scheme="rfc9162", algorithm="shake_256")
    with pytest.raises(TypeError, match="values"):
        merkle.MerkleTree.build("abc", scheme="rfc9162")
    with pytest.raises(TypeError, match="needs index= and size="):
        merkle.verify(b"", [], tree.root, scheme="rfc9162")
    with pytest.raises(ValueError, match=r"proof\[0\] must be 32 bytes"):
        merkle.verify(b"", [b"x"], tree.root, scheme="rfc9162", index=0, size=5)
    with pytest.raises(TypeError, match="leaf is a str"):
        merkle.verify("abc", [], tree.root, scheme="rfc9162", index=0, size=1)
    with pytest.raises(ValueError, match="index must be >= 0"):
        merkle.verify(b"", [], tree.root, scheme="rfc9162", index=-1, size=5)

    dump = tree.dump()
    dump["size"] = 4
    with pytest.raises(ValueError, match="does not match its 5 leaves"):
        merkle.MerkleTree.load(dump)
    dump = tree.dump()
    dump["digestSize"] = 64
    with pytest.raises(ValueError, match="digestSize 64 does not match sha3_256"):
        merkle.MerkleTree.load(dump)
    dump = tree.dump()
    dump["leaves"][2] = dump["leaves"][2][:-2]
    with pytest.raises(ValueError, match=r"dump leaves\[2\] must be 32 bytes"):
        merkle.MerkleTree.load(dump)
