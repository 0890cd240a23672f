"""Hash a column of a Ray Dataset on the Ray workers, block by block in Arrow.

Run: python examples/ray_column.py   (needs `pip install 'batchkeccak[ray]'`)
"""

import hashlib
import os
import tempfile

import pyarrow as pa
import pyarrow.parquet as pq
import ray

from batchkeccak.ray import hash_column, hash_rows


def main() -> None:
    with tempfile.TemporaryDirectory() as folder:
        path = os.path.join(folder, "users.parquet")
        emails = [f"user{i}@example.org" for i in range(1000)] + [None, ""]
        pq.write_table(pa.table({"id": range(len(emails)), "email": emails}), path)

        # Rows in the file's order, so that the first three come out first (a sort would
        # shuffle the whole dataset to get them).
        ray.data.DataContext.get_current().execution_options.preserve_order = True
        users = ray.data.read_parquet(path)
        hashed = hash_column(users, "email", "sha3_256", hex=True, output="email_sha3")
        hashed = hash_rows(hashed, ["id", "email"], "keccak_256", output="fingerprint")
        rows = hashed.take(3)
        assert [row["id"] for row in rows] == [0, 1, 2]
        assert rows[0]["email_sha3"] == hashlib.sha3_256(b"user0@example.org").hexdigest()
        for row in rows:
            print(row["id"], row["email"], row["email_sha3"][:16], row["fingerprint"].hex()[:16])


if __name__ == "__main__":
    ray.init(num_cpus=2, include_dashboard=False)
    try:
        main()
    finally:
        ray.shutdown()
