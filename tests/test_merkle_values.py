"""OpenZeppelin trees by leaf value: JSON value files on the command line, proofs looked up
by value, entries(), render(), and the hint about types=; checked against the recorded output
of the JavaScript library (tests/data/merkle_openzeppelin.json) and its documented tests."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from batchkeccak import merkle
from batchkeccak.cli import main

from merkle_reference import keccak256, oz_proof, oz_tree

pytestmark = pytest.mark.every_backend  # every oracle test on every backend policy

FIXTURES = json.loads(
    (Path(__file__).resolve().parent / "data" / "merkle_openzeppelin.json").read_text()
)


def run(capsys, *argv):
    code = main(list(argv))
    captured = capsys.readouterr()
    return code, captured.out, captured.err


@pytest.mark.parametrize(
    "case", FIXTURES["standard"], ids=lambda c: f"{c['name']}-{c['sortLeaves']}"
)
def test_cli_reads_standard_tree_values_as_json(capsys, tmp_path, case):
    path = tmp_path / "values.json"
    path.write_text(json.dumps(case["values"]))
    argv = [
        "merkle",
        "root",
        str(path),
        "--scheme",
        "openzeppelin",
        "--types",
        ",".join(case["types"]),
    ]
    if not case["sortLeaves"]:
        argv.append("--keep-order")
    code, out, err = run(capsys, *argv)
    assert (code, err) == (0, "")
    assert out.strip() == case["root"]


@pytest.mark.parametrize(
    "case", FIXTURES["simple"][:12], ids=lambda c: f"{c['name']}-{c['sortLeaves']}"
)
def test_cli_reads_simple_tree_values_as_json(capsys, tmp_path, case):
    path = tmp_path / "leaves.data"
    path.write_text(json.dumps(case["leaves"]))
    argv = ["merkle", "root", str(path), "--format", "json", "--scheme", "openzeppelin"]
    if not case["sortLeaves"]:
        argv.append("--keep-order")
    code, out, _ = run(capsys, *argv)
    assert code == 0 and out.strip() == case["root"]


@pytest.mark.parametrize(
    "text, types, message",
    [
        ('{"a": 1}', "address", "expected a JSON array of values, got a JSON dict"),
        ("[1, 2", "address", "is not JSON"),
        ('[["0x' + "11" * 20 + '"]]', "address,uint256", "row 0: expected 2 fields"),
        ('["0x' + "11" * 20 + '"]', "address,uint256", 'row 0 is "0x11'),
        ('[["0x' + "11" * 20 + '", "5"]]', None, "is an array (a row): give its --types"),
    ],
)
def test_cli_json_errors(capsys, tmp_path, text, types, message):
    path = tmp_path / "values.json"
    path.write_text(text)
    argv = ["merkle", "root", str(path), "--scheme", "openzeppelin"]
    if types:
        argv += ["--types", types]
    code, _, err = run(capsys, *argv)
    assert code == 2 and message in err


def test_rows_without_types_say_to_pass_types():
    rows = [["0x" + "11" * 20, 5], ["0x" + "22" * 20, 7]]
    with pytest.raises(TypeError, match=r"pass their types, for example types=\["):
        merkle.MerkleTree.build(rows, scheme="openzeppelin")


@pytest.mark.parametrize(
    "case",
    FIXTURES["standard"][:2] + FIXTURES["standard"][-2:],
    ids=lambda c: f"{c['name']}-{c['sortLeaves']}",
)
def test_proof_for_a_value_is_the_recorded_proof(case):
    tree = merkle.MerkleTree.build(
        case["values"],
        scheme="openzeppelin",
        types=case["types"],
        sort_leaves=case["sortLeaves"],
    )
    for index, value in enumerate(case["values"]):
        assert tree.index_of(value) == case["values"].index(value)
        assert ["0x" + p.hex() for p in tree.proof_for(value)] == case["proofs"][index]
    assert [i for i, _ in tree.entries()] == list(range(len(case["values"])))
    assert [list(v) for _, v in tree.entries()] == case["values"]


def test_proof_for_a_simple_leaf_and_a_missing_value():
    case = FIXTURES["simple"][10]
    leaves = [bytes.fromhex(x[2:]) for x in case["leaves"]]
    tree = merkle.MerkleTree.build(leaves, scheme="openzeppelin", sort_leaves=case["sortLeaves"])
    for index, leaf in enumerate(leaves):
        assert ["0x" + p.hex() for p in tree.proof_for(leaf)] == case["proofs"][index]
    with pytest.raises(ValueError, match="not a leaf of this tree"):
        tree.proof_for(b"\x00" * 32)


# OpenZeppelin's src/simple.test.ts renders the sorted tree of keccak256("a") .. ("f") as this
# text (node hashes as its documented vectors list them).
RENDERED_SIMPLE = """\
0) 0x1b404f199ea828ec5771fb30139c222d8417a82175fefad5cd42bc3a189bd8d5
├─ 1) 0xec554bdfb01d31fa838d0830339b0e6e8a70e0d55a8f172ffa8bebbf8e8d5ba0
│  ├─ 3) 0x434d51cfeb80272378f4c3a8fd2824561c2cad9fce556ea600d46f20550976a6
│  │  ├─ 7) 0xb5553de315e0edf504d9150af82dafa5c4667fa618ed0a6f19c69b41166c5510
│  │  └─ 8) 0xa8982c89d80987fb9a510e25981ee9170206be21af3c8e0eb312ef1d3382e761
│  └─ 4) 0x7dea550f679f3caab547cbbc5ee1a4c978c8c039b572ba00af1baa6481b88360
│     ├─ 9) 0x3ac225168df54212a25c1c01fd35bebfea408fdac2e31ddd6f80a4bbf9a5f1cb
│     └─ 10) 0x0b42b6393c1f53060fe3ddbfcd7aadcca894465a5a438f69c87d790b2299b9b2
└─ 2) 0xaf46af0745b433e1d5bed9a04b1fdf4002f67a733c20db2fca5b2af6120d9bcb
   ├─ 5) 0xf1918e8562236eb17adc8502332f4c9c82bc14e19bfc0aa10ab674ff75b3d2f3
   └─ 6) 0xd1e8aeb79500496ef3dc2e57ba746a8315d048b7a664a2bf948db4fa91960483"""


def test_render_matches_the_javascript_layout():
    leaves = [keccak256(c.encode()) for c in "abcdef"]
    tree = merkle.MerkleTree.build(leaves, scheme="openzeppelin")
    assert tree.render() == RENDERED_SIMPLE
    one = merkle.MerkleTree.build(leaves[:1], scheme="openzeppelin")
    assert one.render() == "0) 0x" + leaves[0].hex()


# --- row arity: every row of a value file has one field per --types entry ------------------
# (CSV: one per header column). Exit status 2, one line naming the file, the row and both
# counts.

A1, A2 = "0x" + "11" * 20, "0x" + "22" * 20


@pytest.mark.parametrize(
    "name, text, where, found",
    [
        ("short.csv", f"account,amount\n{A1},5\n{A2}\n", "line 3", 1),
        ("long.csv", f"account,amount\n{A1},5\n{A2},6,7\n", "line 3", 3),
        ("empty-field.csv", f"account,amount\n{A1},5,\n", "line 2", 3),
        ("quoted.csv", f'account,amount\n"{A1}",5\n"{A2}\n",6,x\n', "line 3", 3),
        ("short.json", json.dumps([[A1, "5"], [A2]]), "row 1", 1),
        ("long.json", json.dumps([[A1, "5"], [A2, "6", "7"]]), "row 1", 3),
    ],
)
def test_value_file_rows_of_the_wrong_arity_are_refused(capsys, tmp_path, name, text, where, found):
    path = tmp_path / name
    path.write_text(text)
    code, out, err = run(
        capsys, "merkle", "root", str(path), "-s", "openzeppelin", "--types", "address,uint256"
    )
    assert (code, out) == (2, "")
    assert err.count("\n") == 1 and err.startswith("batchkeccak: error: ")
    what = "account,amount" if name.endswith(".csv") else "address,uint256"  # header or types
    assert f"{path}: {where}: expected 2 fields ({what}), found {found}" in err


def test_csv_arity_counts_the_header_when_columns_are_picked(capsys, tmp_path):
    path = tmp_path / "picked.csv"
    path.write_text(f"account,amount,note\n{A1},5,x\n{A2},6\n")
    argv = ["-s", "openzeppelin", "--types", "address,uint256", "-c", "account", "-c", "amount"]
    code, _, err = run(capsys, "merkle", "root", str(path), *argv)
    assert code == 2
    assert f"{path}: line 3: expected 3 fields (account,amount,note), found 2" in err
    # Rows of the right arity give the reference root: the picked columns, in --column order.
    path.write_text(f"note,amount,account\nx,5,{A1}\ny,6,{A2}\n")
    code, out, _ = run(capsys, "merkle", "root", str(path), *argv)
    leaves = [
        keccak256(keccak256(bytes(12) + bytes.fromhex(a[2:]) + v.to_bytes(32, "big")))
        for a, v in ((A1, 5), (A2, 6))
    ]
    assert (code, out.strip()) == (0, "0x" + oz_tree(leaves, True)[0][0].hex())


# --- by value, a repeated leaf is its last copy ----------------------------------------------
# @openzeppelin/merkle-tree builds hashLookup with Object.fromEntries(values.map(... =>
# [hash, valueIndex])), so a later copy of a leaf overwrites an earlier one and getProof(value)
# proves the last copy. A Python dict built in input order does the same.


def _js_lookup(leaves: list) -> dict:
    return {leaf: index for index, leaf in enumerate(leaves)}


@pytest.mark.parametrize("sort_leaves", [True, False])
def test_proof_for_a_repeated_simple_leaf_is_the_last_copys(sort_leaves):
    case = next(
        c
        for c in FIXTURES["simple"]
        if c["name"] == "duplicates-7" and c["sortLeaves"] == sort_leaves
    )
    lookup = _js_lookup(case["leaves"])
    assert len(lookup) < len(case["leaves"])  # the fixture does repeat leaves
    leaves = [bytes.fromhex(x[2:]) for x in case["leaves"]]
    tree = merkle.MerkleTree.build(leaves, scheme="openzeppelin", sort_leaves=sort_leaves)
    for text, leaf in zip(case["leaves"], leaves):
        assert tree.index_of(leaf) == lookup[text]
        # The JavaScript library's recorded getProof(valueIndex) of the last copy.
        assert ["0x" + p.hex() for p in tree.proof_for(leaf)] == case["proofs"][lookup[text]]


def _airdrop_leaf(address: str, amount: int) -> bytes:
    return keccak256(keccak256(bytes(12) + bytes.fromhex(address[2:]) + amount.to_bytes(32, "big")))


@pytest.mark.parametrize("sort_leaves", [True, False])
def test_repeated_rows_by_value_and_address_prove_the_last_copy(capsys, tmp_path, sort_leaves):
    rows = [[A1, 5], [A2, 6], [A1, 5], [A1, 7], [A2, 6], [A1, 5]]
    leaves = [_airdrop_leaf(a, v) for a, v in rows]
    nodes, tree_index = oz_tree(leaves, sort_leaves)
    lookup = _js_lookup(leaves)
    assert [lookup[leaf] for leaf in leaves] == [5, 4, 5, 3, 4, 5]

    def expected(index):
        return ["0x" + p.hex() for p in oz_proof(nodes, tree_index[index])]

    tree = merkle.MerkleTree.build(
        rows, scheme="openzeppelin", types=["address", "uint256"], sort_leaves=sort_leaves
    )
    for row, leaf in zip(rows, leaves):
        assert tree.index_of(row) == lookup[leaf]
        assert ["0x" + p.hex() for p in tree.proof_for(row)] == expected(lookup[leaf])

    path = tmp_path / "rows.json"
    path.write_text(json.dumps([[a, str(v)] for a, v in rows]))
    options = ["-s", "openzeppelin", "--types", "address,uint256"]
    options += [] if sort_leaves else ["--keep-order"]
    code, out, err = run(capsys, "merkle", "proof", str(path), *options, "--value", f"{A1},5")
    assert code == 0, err
    document = json.loads(out)
    assert (document["index"], document["proof"]) == (5, expected(5))
    # --address: each distinct row of the address once, at its last copy, in input order.
    code, out, err = run(capsys, "merkle", "proof", str(path), *options, "--address", A1)
    assert code == 0, err
    found = json.loads(out)["proofs"]
    assert [p["index"] for p in found] == [3, 5]
    assert [p["proof"] for p in found] == [expected(3), expected(5)]
    code, out, err = run(capsys, "merkle", "proof", str(path), *options, "--address", A2)
    assert code == 0, err
    document = json.loads(out)
    assert (document["index"], document["proof"]) == (4, expected(4))
