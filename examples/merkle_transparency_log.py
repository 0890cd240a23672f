"""An append-only log as an RFC 9162 (Certificate Transparency) Merkle tree, with SHA3-256.

An auditor who saw the root of the first 1,000 entries checks that today's log of 1,500 still
starts with exactly those entries (a consistency proof), and that an entry is in the log
(an inclusion proof), without downloading the log.

Run: python examples/merkle_transparency_log.py
"""

from batchkeccak import merkle


def main() -> None:
    entries = [f"entry {i}: user {i % 97} signed in".encode() for i in range(1_500)]

    yesterday = merkle.MerkleTree.build(entries[:1_000], scheme="rfc9162")  # sha3_256
    today = merkle.MerkleTree.build(entries, scheme="rfc9162")
    print(f"root of the first {yesterday.size} entries: 0x{yesterday.root.hex()}")
    print(f"root of all {today.size} entries: 0x{today.root.hex()}")

    # The log proves it only appended: the old tree is a prefix of the new one.
    proof = today.consistency_proof(1_000)
    assert today.root_at(1_000) == yesterday.root
    assert merkle.verify_consistency(
        yesterday.root, today.root, proof, old_size=1_000, new_size=1_500
    )
    print(f"consistency 1000 -> 1500: {len(proof)} nodes")

    # Entry 1234 is in today's log.
    path = today.proof(1_234)
    assert merkle.verify(
        entries[1_234], path, today.root, scheme="rfc9162", index=1_234, size=1_500
    )
    assert not merkle.verify(
        b"forged entry", path, today.root, scheme="rfc9162", index=1_234, size=1_500
    )
    print(f"inclusion of entry 1234: {len(path)} nodes")

    # Any batchkeccak algorithm: Keccak-256, or a 20-byte SHAKE128 for smaller proofs.
    small = merkle.MerkleTree.build(entries, scheme="rfc9162", algorithm="shake_128", length=20)
    print(f"root with shake_128, 20-byte nodes: 0x{small.root.hex()}")


if __name__ == "__main__":
    main()
