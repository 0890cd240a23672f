"""OpenZeppelin trees: byte-exact with @openzeppelin/merkle-tree and a per-pair reference.

Expected values come from three sources that share no code with batchkeccak: the vectors
OpenZeppelin documents in its own tests (src/simple.test.ts, src/standard.test.ts), fixtures
made by the JavaScript library itself (tests/data/merkle_openzeppelin.json, written by
tests/data/make_merkle_fixtures.js), and the one-hash-per-node reference in
tests/merkle_reference.py (pycryptodome Keccak).
"""

from __future__ import annotations

import json
import random
from pathlib import Path

import numpy as np
import pytest

from batchkeccak import FlatMessages, merkle
from batchkeccak.merkle import openzeppelin

from merkle_reference import (
    keccak256,
    oz_process_multiproof,
    oz_process_proof,
    oz_proof,
    oz_tree,
)

pytestmark = pytest.mark.every_backend  # every oracle test on every backend policy
QUICK_RUN_POLICIES = ("kernels",)  # the quick run: forced kernels; the whole suite: every policy

FIXTURES = json.loads((Path(__file__).parent / "data" / "merkle_openzeppelin.json").read_text())


def hx(nodes):
    return ["0x" + bytes(n).hex() for n in nodes]


def unhex(text: str) -> bytes:
    return bytes.fromhex(text[2:])


# ---------------------------------------------------------------------------------------
# OpenZeppelin's documented vectors: the tree renders in src/simple.test.ts and
# src/standard.test.ts (leaves keccak256("a") .. keccak256("f"), node i at position i).

DOCUMENTED_SIMPLE = {
    True: [
        "0x1b404f199ea828ec5771fb30139c222d8417a82175fefad5cd42bc3a189bd8d5",
        "0xec554bdfb01d31fa838d0830339b0e6e8a70e0d55a8f172ffa8bebbf8e8d5ba0",
        "0xaf46af0745b433e1d5bed9a04b1fdf4002f67a733c20db2fca5b2af6120d9bcb",
        "0x434d51cfeb80272378f4c3a8fd2824561c2cad9fce556ea600d46f20550976a6",
        "0x7dea550f679f3caab547cbbc5ee1a4c978c8c039b572ba00af1baa6481b88360",
        "0xf1918e8562236eb17adc8502332f4c9c82bc14e19bfc0aa10ab674ff75b3d2f3",
        "0xd1e8aeb79500496ef3dc2e57ba746a8315d048b7a664a2bf948db4fa91960483",
        "0xb5553de315e0edf504d9150af82dafa5c4667fa618ed0a6f19c69b41166c5510",
        "0xa8982c89d80987fb9a510e25981ee9170206be21af3c8e0eb312ef1d3382e761",
        "0x3ac225168df54212a25c1c01fd35bebfea408fdac2e31ddd6f80a4bbf9a5f1cb",
        "0x0b42b6393c1f53060fe3ddbfcd7aadcca894465a5a438f69c87d790b2299b9b2",
    ],
    False: [
        "0x9012f1e18a87790d2e01faace75aaaca38e53df437cdce2c0552464dda4af49c",
        "0x68203f90e9d07dc5859259d7536e87a6ba9d345f2552b5b9de2999ddce9ce1bf",
        "0xf0b49bb4b0d9396e0315755ceafaa280707b32e75e6c9053f5cdf2679dcd5c6a",
        "0xd253a52d4cb00de2895e85f2529e2976e6aaaa5c18106b68ab66813e14415669",
        "0x805b21d846b189efaeb0377d6bb0d201b3872a363e607c25088f025b0c6ae1f8",
        "0xd1e8aeb79500496ef3dc2e57ba746a8315d048b7a664a2bf948db4fa91960483",
        "0xa8982c89d80987fb9a510e25981ee9170206be21af3c8e0eb312ef1d3382e761",
        "0xf1918e8562236eb17adc8502332f4c9c82bc14e19bfc0aa10ab674ff75b3d2f3",
        "0x0b42b6393c1f53060fe3ddbfcd7aadcca894465a5a438f69c87d790b2299b9b2",
        "0xb5553de315e0edf504d9150af82dafa5c4667fa618ed0a6f19c69b41166c5510",
        "0x3ac225168df54212a25c1c01fd35bebfea408fdac2e31ddd6f80a4bbf9a5f1cb",
    ],
}

DOCUMENTED_STANDARD_STRINGS = {
    True: [
        "0x6deb52b5da8fd108f79fab00341f38d2587896634c646ee52e49f845680a70c8",
        "0x52426e0f1f65ff7e209a13b8c29cffe82e3acaf3dad0a9b9088f3b9a61a929c3",
        "0xfd3cf45654e88d1cc5d663578c82c76f4b5e3826bacaa1216441443504538f51",
        "0x8076923e76cf01a7c048400a2304c9a9c23bbbdac3a98ea3946340fdafbba34f",
        "0x965b92c6cf08303cc4feb7f3e0819c436c2cec17c6f0688a6af139c9a368707c",
        "0xeba909cf4bb90c6922771d7f126ad0fd11dfde93f3937a196274e1ac20fd2f5b",
        "0xc62a8cfa41edc0ef6f6ae27a2985b7d39c7fea770787d7e104696c6e81f64848",
        "0x9cf5a63718145ba968a01c1d557020181c5b252f665cf7386d370eddb176517b",
        "0x9c15a6a0eaeed500fd9eed4cbeab71f797cefcc67bfd46683e4d2e6ff7f06d1c",
        "0x9a4f64e953595df82d1b4f570d34c4f4f0cfaf729a61e9d60e83e579e1aa283e",
        "0x19ba6c6333e0e9a15bf67523e0676e2f23eb8e574092552d5e888c64a4bb3681",
    ],
    False: [
        "0x23be0977360f08bb0bd7f709a7d543d2cd779c79c66d74e0441919871647de2b",
        "0x8f7234e8cfe39c08ca84a3a3e3274f574af26fd15165fe29e09cbab742daccd9",
        "0x7b0c6cd04b82bfc0e250030a5d2690c52585e0cc6a4f3bc7909d7723b0236ece",
        "0x03707d7802a71ca56a8ad8028da98c4f1dbec55b31b4a25d536b5309cc20eda9",
        "0xfa914d99a18dc32d9725b3ef1c50426deb40ec8d0885dac8edcc5bfd6d030016",
        "0xc62a8cfa41edc0ef6f6ae27a2985b7d39c7fea770787d7e104696c6e81f64848",
        "0x9a4f64e953595df82d1b4f570d34c4f4f0cfaf729a61e9d60e83e579e1aa283e",
        "0xeba909cf4bb90c6922771d7f126ad0fd11dfde93f3937a196274e1ac20fd2f5b",
        "0x9cf5a63718145ba968a01c1d557020181c5b252f665cf7386d370eddb176517b",
        "0x19ba6c6333e0e9a15bf67523e0676e2f23eb8e574092552d5e888c64a4bb3681",
        "0x9c15a6a0eaeed500fd9eed4cbeab71f797cefcc67bfd46683e4d2e6ff7f06d1c",
    ],
}


@pytest.mark.aarch64
@pytest.mark.parametrize("sort_leaves", [True, False])
def test_documented_simple_tree(sort_leaves):
    leaves = [keccak256(c.encode()) for c in "abcdef"]
    tree = merkle.MerkleTree.build(leaves, scheme="openzeppelin", sort_leaves=sort_leaves)
    assert hx(tree.nodes) == DOCUMENTED_SIMPLE[sort_leaves]
    assert tree.root == unhex(DOCUMENTED_SIMPLE[sort_leaves][0])


@pytest.mark.parametrize("sort_leaves", [True, False])
def test_documented_standard_tree(sort_leaves):
    rows = [[c] for c in "abcdef"]
    tree = merkle.MerkleTree.build(
        rows, scheme="openzeppelin", types=["string"], sort_leaves=sort_leaves
    )
    assert hx(tree.nodes) == DOCUMENTED_STANDARD_STRINGS[sort_leaves]


def test_default_sorts_leaves():
    leaves = [keccak256(c.encode()) for c in "abcdef"]
    tree = merkle.MerkleTree.build(leaves, scheme="openzeppelin")
    assert tree.root == unhex(DOCUMENTED_SIMPLE[True][0])


# ---------------------------------------------------------------------------------------
# Fixtures made by the JavaScript library


def _case_id(case):
    return f"{case['name']}-{'sorted' if case['sortLeaves'] else 'unsorted'}"


def _multiproof_json(case_multiproof):
    return {k: case_multiproof[k] for k in ("leaves", "proof", "proofFlags")}


@pytest.mark.parametrize("case", FIXTURES["simple"], ids=_case_id)
def test_simple_tree_matches_javascript(case):
    tree = merkle.MerkleTree.build(
        case["leaves"], scheme="openzeppelin", sort_leaves=case["sortLeaves"]
    )
    assert tree.root == unhex(case["root"])
    assert [hx(tree.proof(i)) for i in range(tree.size)] == case["proofs"]
    for expected in case["multiproofs"]:
        assert tree.multiproof(expected["indices"]).to_json() == _multiproof_json(expected)
    assert tree.dump() == case["dump"]
    assert json.loads(tree.dumps()) == case["dump"]


@pytest.mark.parametrize("case", FIXTURES["simple"], ids=_case_id)
def test_simple_javascript_proofs_verify(case):
    root = case["root"]
    for leaf, proof in zip(case["leaves"], case["proofs"]):
        assert merkle.verify(leaf, proof, root, scheme="openzeppelin")
    for expected in case["multiproofs"]:
        assert merkle.verify_multiproof(_multiproof_json(expected), root)
    other = keccak256(b"not a leaf")
    assert not merkle.verify(other, case["proofs"][0], root, scheme="openzeppelin")


@pytest.mark.parametrize("case", FIXTURES["simple"], ids=_case_id)
def test_simple_javascript_dump_loads(case):
    tree = merkle.MerkleTree.load(case["dump"])
    assert tree.root == unhex(case["root"])
    assert [hx(tree.proof(i)) for i in range(tree.size)] == case["proofs"]
    assert [tree.value(i) for i in range(tree.size)] == [unhex(v) for v in case["leaves"]]
    assert tree.dump() == case["dump"]


@pytest.mark.parametrize("case", FIXTURES["standard"], ids=_case_id)
def test_standard_tree_matches_javascript(case):
    tree = merkle.MerkleTree.build(
        case["values"], scheme="openzeppelin", types=case["types"], sort_leaves=case["sortLeaves"]
    )
    assert [tree.leaf_hash(i) for i in range(tree.size)] == [unhex(h) for h in case["leafHashes"]]
    assert tree.root == unhex(case["root"])
    assert [hx(tree.proof(i)) for i in range(tree.size)] == case["proofs"]
    for expected in case["multiproofs"]:
        assert tree.multiproof(expected["indices"]).to_json() == _multiproof_json(expected)
    assert tree.dump() == case["dump"]


@pytest.mark.parametrize("case", FIXTURES["standard"], ids=_case_id)
def test_standard_javascript_dump_loads_and_proofs_verify(case):
    tree = merkle.MerkleTree.load(json.dumps(case["dump"]))
    assert tree.root == unhex(case["root"])
    assert tree.types == tuple(case["types"])
    assert [hx(tree.proof(i)) for i in range(tree.size)] == case["proofs"]
    assert tree.dump() == case["dump"]
    for row, proof in zip(case["values"], case["proofs"]):
        assert merkle.verify(row, proof, case["root"], scheme="openzeppelin", types=case["types"])
    for expected in case["multiproofs"]:
        assert merkle.verify_multiproof(
            _multiproof_json(expected), case["root"], types=case["types"]
        )


def test_standard_python_values_dump_as_javascript_writes_them():
    case = next(c for c in FIXTURES["standard"] if c["name"] == "airdrop" and c["sortLeaves"])
    rows = [[address, int(amount)] for address, amount in case["values"]]
    tree = merkle.MerkleTree.build(rows, scheme="openzeppelin", types=case["types"])
    assert tree.dump() == case["dump"]  # ints are written as decimal strings


def test_standard_tree_from_arrow_table_and_columns():
    pa = pytest.importorskip("pyarrow")
    case = next(c for c in FIXTURES["standard"] if c["name"] == "airdrop" and c["sortLeaves"])
    addresses = [bytes.fromhex(a[2:]) for a, _ in case["values"]]
    amounts = [int(v) for _, v in case["values"]]
    table = pa.table(
        {
            "account": pa.array(addresses, pa.binary(20)),
            "amount": pa.array(amounts, pa.decimal256(76, 0)),
        }
    )
    tree = merkle.MerkleTree.build(table, scheme="openzeppelin", types=case["types"])
    assert tree.root == unhex(case["root"])
    columns = {
        "account": np.frombuffer(b"".join(addresses), np.uint8).reshape(-1, 20),
        "amount": [a for a in amounts],
    }
    assert merkle.merkle_root(columns, scheme="openzeppelin", types=case["types"]) == tree.root
    # Arrow rows come back as Python values; the dump writes them the JS way.
    assert tree.dump()["values"][3]["value"] == case["values"][3]


# ---------------------------------------------------------------------------------------
# The per-pair reference, every size from 1 to 70


def _random_leaves(n: int, seed: int, duplicates: bool = False) -> list[bytes]:
    rng = random.Random(seed)
    leaves = [rng.randbytes(32) for _ in range(n)]
    if duplicates and n > 2:
        for _ in range(n // 3):
            leaves[rng.randrange(n)] = leaves[rng.randrange(n)]
    return leaves


@pytest.mark.aarch64
@pytest.mark.parametrize("sort_leaves", [True, False])
def test_every_size_and_index_against_reference(sort_leaves):
    for n in range(1, 71):
        leaves = _random_leaves(n, seed=n, duplicates=n % 5 == 0)
        ref_tree, ref_index = oz_tree(leaves, sort_leaves)
        tree = merkle.MerkleTree.build(leaves, scheme="openzeppelin", sort_leaves=sort_leaves)
        assert [bytes(r) for r in tree.nodes] == ref_tree, n
        assert tree.tree_index.tolist() == ref_index
        assert (
            merkle.merkle_root(leaves, scheme="openzeppelin", sort_leaves=sort_leaves)
            == ref_tree[0]
        )
        for i in range(n):
            proof = tree.proof(i)
            assert proof == oz_proof(ref_tree, ref_index[i])
            assert oz_process_proof(leaves[i], proof) == ref_tree[0]
            assert merkle.verify(leaves[i], proof, tree.root, scheme="openzeppelin")


def test_tampered_proofs_are_rejected():
    for n in (2, 3, 7, 16, 33):
        leaves = _random_leaves(n, seed=100 + n)
        tree = merkle.MerkleTree.build(leaves, scheme="openzeppelin")
        for i in range(n):
            proof = tree.proof(i)
            for k in range(len(proof)):
                for position in (0, 31):
                    bad = list(proof)
                    flipped = bytearray(bad[k])
                    flipped[position] ^= 0x01
                    bad[k] = bytes(flipped)
                    assert not merkle.verify(leaves[i], bad, tree.root, scheme="openzeppelin")
            assert not merkle.verify(leaves[i], proof[:-1], tree.root, scheme="openzeppelin")
            assert not merkle.verify(
                leaves[i], proof + [tree.root], tree.root, scheme="openzeppelin"
            )
            wrong_leaf = leaves[(i + 1) % n]
            if wrong_leaf != leaves[i]:
                assert not merkle.verify(wrong_leaf, proof, tree.root, scheme="openzeppelin")
            wrong_root = bytes(32)
            assert not merkle.verify(leaves[i], proof, wrong_root, scheme="openzeppelin")


def test_multiproofs_against_reference_and_tampering():
    rng = random.Random(7)
    for n in list(range(1, 41)) + [64, 65]:
        leaves = _random_leaves(n, seed=200 + n)
        tree = merkle.MerkleTree.build(leaves, scheme="openzeppelin", sort_leaves=n % 2 == 0)
        for _ in range(6):
            indices = rng.sample(range(n), rng.randint(0, n))
            mp = tree.multiproof(indices)
            assert sorted(mp.leaves) == sorted(leaves[i] for i in indices)
            assert oz_process_multiproof(mp.leaves, mp.proof, mp.proof_flags) == tree.root
            assert merkle.verify_multiproof(mp, tree.root)
            if mp.proof_flags:
                flipped = list(mp.proof_flags)
                flipped[0] = not flipped[0]
                assert not merkle.verify_multiproof(
                    merkle.MultiProof(mp.leaves, mp.proof, flipped), tree.root
                )
            if mp.proof:
                bad = [bytes(32)] + mp.proof[1:]
                assert not merkle.verify_multiproof(
                    merkle.MultiProof(mp.leaves, bad, mp.proof_flags), tree.root
                )
            if mp.leaves:
                assert not merkle.verify_multiproof(
                    merkle.MultiProof(mp.leaves[1:], mp.proof, mp.proof_flags), tree.root
                )


def test_large_tree_crossing_batch_chunks(monkeypatch):
    # Small chunks make every level span several batch calls, as 2**17+ leaves would.
    monkeypatch.setattr(openzeppelin, "PAIRS_PER_CALL", 5)
    leaves = _random_leaves(203, seed=3, duplicates=True)
    ref_tree, _ = oz_tree(leaves, True)
    tree = merkle.MerkleTree.build(leaves, scheme="openzeppelin")
    assert [bytes(r) for r in tree.nodes] == ref_tree
    assert merkle.merkle_root(leaves, scheme="openzeppelin") == ref_tree[0]


@pytest.mark.aarch64
def test_thousands_of_leaves_root_matches_reference():
    leaves = _random_leaves(3001, seed=11)
    ref_tree, _ = oz_tree(leaves, True)
    array = np.frombuffer(b"".join(leaves), np.uint8).reshape(-1, 32)
    assert merkle.merkle_root(array, scheme="openzeppelin", threads=2) == ref_tree[0]
    assert merkle.MerkleTree.build(array, scheme="openzeppelin").root == ref_tree[0]


def test_proof_and_multiproof_leaves_use_input_order():
    leaves = _random_leaves(9, seed=5)
    tree = merkle.MerkleTree.build(leaves, scheme="openzeppelin")
    for i in range(9):
        assert tree.value(i) == leaves[i]
        assert tree.leaf_hash(i) == leaves[i]
    assert tree.multiproof([4]).leaves == [leaves[4]]


# ---------------------------------------------------------------------------------------
# Input forms


def test_every_leaf_input_form_gives_the_same_root():
    pa = pytest.importorskip("pyarrow")
    leaves = _random_leaves(37, seed=9)
    expected = oz_tree(leaves, True)[0][0]
    joined = b"".join(leaves)
    forms = [
        leaves,
        [bytearray(x) for x in leaves],
        [memoryview(x) for x in leaves],
        np.frombuffer(joined, np.uint8).reshape(-1, 32),
        FlatMessages(
            np.frombuffer(joined, np.uint8), np.arange(0, 37 * 32 + 1, 32, dtype=np.int64)
        ),
        # Offsets into a larger buffer: the rows start one byte past a word boundary.
        FlatMessages(
            np.frombuffer(b"x" + joined, np.uint8), np.arange(1, 37 * 32 + 2, 32, dtype=np.int64)
        ),
        pa.array(leaves, pa.binary()),
        pa.array(leaves, pa.binary(32)),
        ["0x" + x.hex() for x in leaves],
        [x.hex().upper() for x in leaves],
        pa.array(["0x" + x.hex() for x in leaves]),  # a text column of hex leaves
        pa.chunked_array(
            [
                pa.array([x.hex() for x in leaves[:5]], pa.large_string()),
                pa.array([x.hex() for x in leaves[5:]], pa.large_string()),
            ]
        ),
    ]
    for form in forms:
        assert merkle.merkle_root(form, scheme="openzeppelin") == expected
        assert merkle.MerkleTree.build(form, scheme="openzeppelin").root == expected


def test_build_does_not_modify_the_leaf_array():
    leaves = np.frombuffer(b"".join(_random_leaves(20, seed=1)), np.uint8).reshape(-1, 32).copy()
    before = leaves.copy()
    merkle.MerkleTree.build(leaves, scheme="openzeppelin")
    merkle.merkle_root(leaves, scheme="openzeppelin")
    assert np.array_equal(leaves, before)


# ---------------------------------------------------------------------------------------
# Bad input


def test_leaves_of_the_wrong_size():
    with pytest.raises(ValueError, match=r"leaves\[1\] is 31 bytes.*32-byte leaves"):
        merkle.MerkleTree.build([bytes(32), bytes(31)], scheme="openzeppelin")
    with pytest.raises(ValueError, match="rows are 20 bytes"):
        merkle.merkle_root(np.zeros((3, 20), np.uint8), scheme="openzeppelin")
    with pytest.raises(ValueError, match=r"leaves\[0\] must be 32 bytes"):
        merkle.MerkleTree.build(["0x1234"], scheme="openzeppelin")
    with pytest.raises(ValueError, match=r"leaves\[1\] is not a hex string"):
        merkle.MerkleTree.build(["0x" + "00" * 32, "0x" + "zz" * 32], scheme="openzeppelin")
    with pytest.raises(ValueError, match="empty"):
        merkle.MerkleTree.build([], scheme="openzeppelin")
    with pytest.raises(TypeError, match="leaves"):
        merkle.MerkleTree.build(12, scheme="openzeppelin")
    pa = pytest.importorskip("pyarrow")
    with pytest.raises(ValueError, match="leaves holds 1 null"):
        merkle.MerkleTree.build(pa.array([bytes(32), None], pa.binary(32)), scheme="openzeppelin")
    with pytest.raises(ValueError, match="leaves holds 1 null"):
        merkle.merkle_root(pa.array(["00" * 32, None]), scheme="openzeppelin")


@pytest.mark.parametrize("algorithm", ["keccak_256", "KECCAK-256", "keccak256", "hasher"])
def test_keccak_256_in_any_form(algorithm):
    import batchkeccak as bk

    case = FIXTURES["simple"][0]
    given = bk.hasher("keccak_256", threads=1) if algorithm == "hasher" else algorithm
    tree = merkle.MerkleTree.build(
        case["leaves"], scheme="openzeppelin", sort_leaves=case["sortLeaves"], algorithm=given
    )
    assert tree.root == unhex(case["root"])


def test_bad_options():
    import batchkeccak as bk

    leaves = [bytes(32)] * 3
    with pytest.raises(ValueError, match="keccak_256"):
        merkle.MerkleTree.build(leaves, scheme="openzeppelin", algorithm="sha3_256")
    with pytest.raises(ValueError, match="keccak_256"):  # a keccak_256 hasher of another form
        merkle.MerkleTree.build(
            leaves, scheme="openzeppelin", algorithm=bk.hasher("turboshake128", length=32)
        )
    with pytest.raises(ValueError, match="unknown scheme"):
        merkle.MerkleTree.build(leaves, scheme="bitcoin")
    with pytest.raises(TypeError, match="sort_leaves"):
        merkle.MerkleTree.build(leaves, scheme="openzeppelin", sort_leaves="yes")
    with pytest.raises(TypeError):
        merkle.MerkleTree.build(leaves)  # scheme is required


def test_index_out_of_range():
    tree = merkle.MerkleTree.build([bytes([i]) * 32 for i in range(4)], scheme="openzeppelin")
    for bad in (4, -1, 100):
        with pytest.raises(IndexError, match=rf"index {bad} is out of range.*0\.\.3"):
            tree.proof(bad)
    with pytest.raises(ValueError, match="out of range"):  # also a ValueError
        tree.leaf_hash(4)
    with pytest.raises(TypeError, match="index must be an int"):
        tree.proof("1")
    with pytest.raises(ValueError, match=r"indices\[1\] 9 is out of range"):
        tree.multiproof([0, 9])
    with pytest.raises(ValueError, match="repeat"):
        tree.multiproof([1, 2, 1])
    with pytest.raises(TypeError, match="consistency proofs are defined by the rfc9162"):
        tree.consistency_proof(2)


def test_malformed_proofs_raise_and_wrong_ones_return_false():
    tree = merkle.MerkleTree.build([bytes([i]) * 32 for i in range(5)], scheme="openzeppelin")
    leaf, proof, root = bytes([2]) * 32, tree.proof(2), tree.root
    with pytest.raises(ValueError, match=r"proof\[0\] must be 32 bytes"):
        merkle.verify(leaf, [proof[0][:31]] + proof[1:], root, scheme="openzeppelin")
    with pytest.raises(TypeError, match="proof must be a list"):
        merkle.verify(leaf, proof[0], root, scheme="openzeppelin")
    with pytest.raises(ValueError, match="leaf must be 32 bytes"):
        merkle.verify(leaf[:20], proof, root, scheme="openzeppelin")
    with pytest.raises(ValueError, match="root must be 32 bytes"):
        merkle.verify(leaf, proof, root + b"\0", scheme="openzeppelin")
    with pytest.raises(TypeError, match="index, size"):
        merkle.verify(leaf, proof, root, scheme="openzeppelin", index=2)
    # Well-formed but wrong: False, never an exception.
    assert not merkle.verify(leaf, proof[::-1], root, scheme="openzeppelin")
    assert not merkle.verify(leaf, [], root, scheme="openzeppelin")
    mp = tree.multiproof([0, 1])
    assert not merkle.verify_multiproof(
        merkle.MultiProof(mp.leaves, mp.proof + [root], mp.proof_flags), root
    )
    assert not merkle.verify_multiproof(
        merkle.MultiProof(mp.leaves, mp.proof, [True] * len(mp.proof_flags)), root
    )
    with pytest.raises(TypeError, match=r"proof_flags\[0\] must be a bool"):
        merkle.verify_multiproof(merkle.MultiProof(mp.leaves, mp.proof, [1, 0, 0, 0]), root)
    with pytest.raises(ValueError, match="lacks proofFlags"):
        merkle.verify_multiproof({"leaves": [], "proof": []}, root)


def _simple_dump():
    return merkle.MerkleTree.build(
        [bytes([i]) * 32 for i in range(5)], scheme="openzeppelin"
    ).dump()


def test_malformed_dumps():
    with pytest.raises(ValueError, match="unknown dump format 'nonstandard'"):
        merkle.MerkleTree.load({"format": "nonstandard"})
    with pytest.raises(ValueError, match="not valid JSON"):
        merkle.MerkleTree.load("{not json")
    with pytest.raises(ValueError, match="lacks 'format'"):
        merkle.MerkleTree.load({"tree": []})
    with pytest.raises(TypeError, match="dump must be"):
        merkle.MerkleTree.load(42)

    dump = _simple_dump()
    dump["tree"][1] = "0x" + "00" * 32
    with pytest.raises(ValueError, match="node 1 is not the hash of its children"):
        merkle.MerkleTree.load(dump)

    dump = _simple_dump()
    dump["values"][2]["value"] = "0x" + "ab" * 32
    with pytest.raises(ValueError, match=r"values\[2\] does not hash to its tree node"):
        merkle.MerkleTree.load(dump)

    dump = _simple_dump()
    dump["values"][1]["treeIndex"] = dump["values"][0]["treeIndex"]
    with pytest.raises(ValueError, match="share a treeIndex"):
        merkle.MerkleTree.load(dump)

    dump = _simple_dump()
    dump["values"][0]["treeIndex"] = 0
    with pytest.raises(ValueError, match="not a leaf position"):
        merkle.MerkleTree.load(dump)

    dump = _simple_dump()
    dump["tree"].pop()
    with pytest.raises(ValueError, match="must hold 9 nodes"):
        merkle.MerkleTree.load(dump)

    dump = _simple_dump()
    dump["tree"][0] = "0x1234"
    with pytest.raises(ValueError, match=r"dump tree\[0\] must be 32 bytes"):
        merkle.MerkleTree.load(dump)

    dump = _simple_dump()
    dump["hash"] = "custom"
    with pytest.raises(ValueError, match="custom node hash"):
        merkle.MerkleTree.load(dump)

    case = next(c for c in FIXTURES["standard"] if c["name"] == "airdrop")
    dump = json.loads(json.dumps(case["dump"]))
    dump["values"][0]["value"][1] = "1"
    with pytest.raises(ValueError, match=r"values\[0\] does not hash"):
        merkle.MerkleTree.load(dump)
    del dump["leafEncoding"]
    with pytest.raises(ValueError, match="leafEncoding"):
        merkle.MerkleTree.load(dump)


def test_dump_round_trip_through_a_file(tmp_path):
    tree = merkle.MerkleTree.build(
        _random_leaves(12, seed=4), scheme="openzeppelin", sort_leaves=False
    )
    path = tmp_path / "tree.json"
    path.write_text(tree.dumps())
    loaded = merkle.MerkleTree.load(path)
    assert loaded.root == tree.root
    assert [loaded.proof(i) for i in range(12)] == [tree.proof(i) for i in range(12)]


def test_verify_many_agrees_with_verify():
    leaves = _random_leaves(45, seed=21, duplicates=True)
    tree = merkle.MerkleTree.build(leaves, scheme="openzeppelin")
    proofs = [tree.proof(i) for i in range(45)]
    proofs[3] = proofs[3][:-1]
    proofs[10] = [bytes(32)] + proofs[10][1:]
    claimed = list(leaves)
    claimed[20] = keccak256(b"someone else")
    expected = [oz_process_proof(leaf, proof) == tree.root for leaf, proof in zip(claimed, proofs)]
    assert expected.count(False) == 3
    assert openzeppelin.verify_many(claimed, proofs, tree.root).tolist() == expected
    hex_proofs = [hx(p) for p in proofs]
    assert openzeppelin.verify_many(hx(claimed), hex_proofs, "0x" + tree.root.hex()).tolist() == (
        expected
    )


def test_verify_many_standard_rows():
    case = next(c for c in FIXTURES["standard"] if c["name"] == "dynamic")
    rows, proofs = case["values"], case["proofs"]
    valid = openzeppelin.verify_many(rows, proofs, case["root"], types=case["types"])
    assert valid.all()
    rotated = rows[1:] + rows[:1]
    assert not openzeppelin.verify_many(rotated, proofs, case["root"], types=case["types"]).any()


UPSTREAM_DUMPS = json.loads(
    (Path(__file__).parent / "data" / "openzeppelin_dumps_1_0_6.json").read_text()
)["dumps"]


# Which documented tree each upstream dump holds (the plain "standard-v1" one is unsorted).
UPSTREAM_SORTED = {
    "simple-v1.sorted.1_0_6.json": True,
    "simple-v1.unsorted.1_0_6.json": False,
    "standard-v1.sorted.1_0_6.json": True,
    "standard-v1.unsorted.1_0_6.json": False,
    "standard-v1.1_0_6.json": False,
}


@pytest.mark.parametrize("name", sorted(UPSTREAM_DUMPS))
def test_upstream_dumps_of_an_older_library_version_load(name):
    # The library's own dump fixtures (test/dumps/, written by version 1.0.6): they load,
    # every node checks, and the nodes are the documented ones.
    dump = UPSTREAM_DUMPS[name]
    tree = merkle.MerkleTree.load(dump)
    simple = dump["format"] == "simple-v1"
    documented = DOCUMENTED_SIMPLE if simple else DOCUMENTED_STANDARD_STRINGS
    assert hx(tree.nodes) == documented[UPSTREAM_SORTED[name]]
    for i in range(tree.size):
        assert merkle.verify(
            tree.value(i), tree.proof(i), tree.root, scheme="openzeppelin", types=tree.types
        )


@pytest.mark.parametrize("limit", [openzeppelin.BUCKET_LIMIT, 2])
def test_every_sort_path_gives_the_stable_byte_order(monkeypatch, limit):
    # Bucket sort, numpy's sort when prefixes bunch up (limit 2 forces it), and the
    # four-word sort when leaves share their first 8 bytes or repeat.
    monkeypatch.setattr(openzeppelin, "BUCKET_LIMIT", limit)
    rng = random.Random(limit)
    cases = [
        _random_leaves(500, seed=1),
        [b"\x00\x00" + rng.randbytes(30) for _ in range(300)],  # one 16-bit bucket
        [i.to_bytes(32, "big") for i in rng.sample(range(10**6), 300)],  # small integers
        _random_leaves(200, seed=2, duplicates=True),
        [b"\x07" * 8 + rng.choice([b"\x01", b"\x02"]) * 24 for _ in range(50)],
    ]
    for leaves in cases:
        rows = np.frombuffer(b"".join(leaves), np.uint8).reshape(-1, 32)
        expected = sorted(range(len(leaves)), key=lambda i: leaves[i])  # stable
        assert openzeppelin.sort_order(rows).tolist() == expected
        ref_tree, _ = oz_tree(leaves, True)
        assert merkle.merkle_root(rows, scheme="openzeppelin") == ref_tree[0]
