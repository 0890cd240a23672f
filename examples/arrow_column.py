"""Hash Arrow columns and rows with batchkeccak, and use the digests as compute functions.

Run: python examples/arrow_column.py
"""

import hashlib

import pyarrow as pa
import pyarrow.compute as pc

from batchkeccak.arrow import hash_array, hash_rows, register


def main() -> None:
    users = pa.table(
        {
            "email": ["ada@example.org", None, "grace@example.org", ""],
            "country": pa.array(["UK", "US", "US", "UK"]).dictionary_encode(),
            "age": pa.array([36, 41, None, 29], pa.int32()),
        }
    )

    # One digest per value, nulls stay null; the buffers are read where Arrow keeps them.
    email_digests = hash_array(users["email"], "sha3_256")
    print(email_digests.type, email_digests.null_count, "null")
    assert email_digests[0].as_py() == hashlib.sha3_256(b"ada@example.org").digest()

    # Hex strings, Ethereum's Keccak-256, a dictionary column hashed once per distinct value.
    print(hash_array(users["email"], "keccak_256", hex=True).to_pylist()[0])
    print(hash_array(users["country"], hex=True).to_pylist())

    # One digest per row over several columns (length-prefixed fields, null != empty).
    row_digests = hash_rows(users, ["email", "age"], hex=True)
    print(row_digests.to_pylist()[1])

    # Compute functions named after the algorithms (binary input: cast strings, it is free).
    register()
    as_binary = pc.cast(users["email"], pa.binary())
    print(pc.call_function("keccak_256", [as_binary]).type)

    print(users.append_column("email_sha3_256", email_digests).schema)


if __name__ == "__main__":
    main()
