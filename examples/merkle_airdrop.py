"""An airdrop allowlist as an OpenZeppelin Merkle tree: root, claim proofs, dump for the site.

The tree is what ``StandardMerkleTree.of(rows, ["address", "uint256"])`` builds in the
@openzeppelin/merkle-tree JavaScript library, so the root goes into a contract that checks
claims with OpenZeppelin's ``MerkleProof.verify``, and the dump loads in the JavaScript
library as it is.

Run: python examples/merkle_airdrop.py
"""

import json
import tempfile
import time
from pathlib import Path

import numpy as np
import pyarrow as pa

from batchkeccak import merkle


def allowlist(count: int) -> pa.Table:
    """``count`` (account, amount) rows: 20-byte addresses and wei amounts past 2**64."""
    rng = np.random.default_rng(2026)
    accounts = rng.integers(0, 256, (count, 20), dtype=np.uint8)
    whole_tokens = rng.integers(1, 100_000, count)
    return pa.table(
        {
            "account": pa.array([row.tobytes() for row in accounts], pa.binary(20)),
            # Wide uint256 amounts live in decimal columns; Python ints work as well.
            "amount": pa.array([int(t) * 10**18 for t in whole_tokens], pa.decimal256(76, 0)),
        }
    )


def main() -> None:
    table = allowlist(100_000)
    types = ["address", "uint256"]

    started = time.perf_counter()
    tree = merkle.MerkleTree.build(table, scheme="openzeppelin", types=types)
    print(
        f"{tree.size:,} claims ({time.perf_counter() - started:.2f} s, leaves hashed and "
        "sorted as the JS library does)"
    )
    print(f"root: 0x{tree.root.hex()}")

    # What the claim page sends to the contract for claimant 12345 (input order).
    claimant = 12_345
    account, amount = tree.value(claimant)
    proof = tree.proof(claimant)
    claim = {
        "account": "0x" + account.hex(),
        "amount": str(amount),
        "proof": ["0x" + node.hex() for node in proof],
    }
    print(f"claim {claimant}: {json.dumps(claim)}")
    assert merkle.verify([account, amount], proof, tree.root, scheme="openzeppelin", types=types)
    assert not merkle.verify(
        [account, amount + 1], proof, tree.root, scheme="openzeppelin", types=types
    )

    # Several claims at once (MerkleProof.multiProofVerify on chain).
    multiproof = tree.multiproof([3, 14, 15, 92, 653])
    assert merkle.verify_multiproof(multiproof, tree.root, types=types)
    print(
        f"multiproof for 5 claims: {len(multiproof.proof)} nodes, "
        f"{len(multiproof.proof_flags)} flags"
    )

    # The dump is the JavaScript library's "standard-v1" JSON: StandardMerkleTree.load reads it.
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "tree.json"
        path.write_text(tree.dumps())
        print(
            f"dump: {path.stat().st_size / 1e6:.1f} MB, first value "
            f"{json.loads(path.read_text())['values'][0]['value']}"
        )
        loaded = merkle.MerkleTree.load(path)  # every node is re-hashed and checked
        assert loaded.root == tree.root and loaded.proof(claimant) == proof

    # The root alone, without keeping the tree: one level in memory at a time.
    assert merkle.merkle_root(table, scheme="openzeppelin", types=types) == tree.root


if __name__ == "__main__":
    main()
