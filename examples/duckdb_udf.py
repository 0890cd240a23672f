"""batchkeccak's algorithms as DuckDB SQL functions.

``batchkeccak.duckdb.register`` adds every algorithm and mode to a connection. DuckDB hands
each vector of values to the function as Arrow arrays and takes the digests back as one; no
Python object is made per row. An Ethereum address is hashed as its 20 bytes, so the ``0x``
text is decoded first (``unhex``); ``keccak_256(address)`` would hash its characters.

Run: python examples/duckdb_udf.py
"""

import tempfile
from pathlib import Path

import duckdb
import pyarrow as pa
import pyarrow.parquet as pq

import batchkeccak.duckdb


def main() -> None:
    addresses = ["0x" + "ab" * 20, None, "0x" + "Cd" * 20]
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "accounts.parquet"
        pq.write_table(pa.table({"address": addresses, "blob": [b"\x01", b"", None]}), path)
        connection = duckdb.connect()
        batchkeccak.duckdb.register(connection)
        rows = connection.sql(
            "SELECT address, keccak_256(unhex(substr(address, 3))), sha3_256_hex(blob) "
            f"FROM '{path}'"
        ).fetchall()
        for row in rows:
            print(row)


if __name__ == "__main__":
    main()
