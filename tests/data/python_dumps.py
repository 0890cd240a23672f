"""Print trees built by batchkeccak (dumps, roots, proofs) as JSON, for check_merkle_dumps.js.

    python tests/data/python_dumps.py | NODE_PATH=/tmp/oz/node_modules \
        node tests/data/check_merkle_dumps.js

The JavaScript side loads every dump with the @openzeppelin/merkle-tree library (which
validates every node), compares its root, and verifies the proofs and multiproofs with the
library's own verifiers. Values here are written as Python users pass them (ints, bytes), so
the check covers the conversion of batchkeccak's dumps to the forms the library reads.
"""

from __future__ import annotations

import json
import random
import sys

from batchkeccak import merkle


def case(tree):
    size = tree.size
    indices = sorted(random.Random(size).sample(range(size), min(size, 3)))
    multiproof = tree.multiproof(indices).to_json()
    return {
        "dump": tree.dump(),
        "root": "0x" + tree.root.hex(),
        "proofs": [["0x" + p.hex() for p in tree.proof(i)] for i in range(size)],
        "multiproof": multiproof,
    }


def main() -> None:
    rng = random.Random(1)
    cases = []
    for n in (1, 2, 3, 5, 8, 13, 100):
        leaves = [rng.randbytes(32) for _ in range(n)]
        for sort in (True, False):
            cases.append(
                case(merkle.MerkleTree.build(leaves, scheme="openzeppelin", sort_leaves=sort))
            )
    rows = [[rng.randbytes(20), rng.randrange(10**24)] for _ in range(37)]
    cases.append(
        case(merkle.MerkleTree.build(rows, scheme="openzeppelin", types=["address", "uint256"]))
    )
    mixed = [
        [
            rng.random() < 0.5,
            rng.randrange(-128, 128),
            rng.randbytes(4),
            f"text {i}",
            rng.randbytes(i),
            [rng.randrange(2**64) for _ in range(i % 3)],
        ]
        for i in range(9)
    ]
    types = ["bool", "int8", "bytes4", "string", "bytes", "uint64[]"]
    for sort in (True, False):
        cases.append(
            case(
                merkle.MerkleTree.build(mixed, scheme="openzeppelin", types=types, sort_leaves=sort)
            )
        )
    json.dump(cases, sys.stdout)


if __name__ == "__main__":
    main()
