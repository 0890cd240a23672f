"""Add digest columns to a Parquet file, streaming it batch by batch.

Run: python examples/parquet_file.py
The same from a shell:
    batchkeccak parquet users.parquet users_hashed.parquet --column email --algorithm sha3_256
"""

import tempfile
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq

import batchkeccak
from batchkeccak.parquet import hash_file


def main() -> None:
    with tempfile.TemporaryDirectory() as folder:
        source = Path(folder) / "users.parquet"
        target = Path(folder) / "users_hashed.parquet"
        pq.write_table(
            pa.table(
                {
                    "id": list(range(100_000)),
                    "email": [f"user{i}@example.org" for i in range(100_000)],
                }
            ),
            source,
        )
        batchkeccak.warmup()  # compile (or load) the kernels before the timed run
        report = hash_file(source, target, ["email"], "sha3_256", hex=True, progress=True)
        print(
            f"{report.rows:,} rows in {report.total_seconds:.2f} s "
            f"(read {report.read_seconds:.2f}, hash {report.hash_seconds:.2f}, "
            f"write {report.write_seconds:.2f})"
        )
        print(pq.read_table(target).slice(0, 3).to_pylist())


if __name__ == "__main__":
    main()
