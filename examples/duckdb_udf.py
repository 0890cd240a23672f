"""Register batchkeccak as a vectorized DuckDB function over Arrow batches.

DuckDB hands each vector of values to the function as a pyarrow array and takes the digests
back as one; no Python object is made per row.

Run: python examples/duckdb_udf.py
"""

import tempfile
from pathlib import Path

import duckdb
import pyarrow as pa
import pyarrow.parquet as pq

from batchkeccak.arrow import hash_array


def register_hash_function(
    connection: duckdb.DuckDBPyConnection,
    algorithm: str = "keccak_256",
    *,
    name: str | None = None,
    input_type: str = "VARCHAR",
    hex: bool = False,
    length: int | None = None,
) -> str:
    """Register ``name(value)`` in ``connection``; returns the SQL name.

    DuckDB functions have one signature each: ``input_type`` is ``VARCHAR`` or ``BLOB``
    (register both under two names if both occur). The result is ``BLOB`` digests, or
    ``VARCHAR`` lowercase hex with ``hex=True``.
    """

    def digests(values):
        return hash_array(values, algorithm, length=length, hex=hex)

    name = name or algorithm
    connection.create_function(
        name, digests, [input_type], "VARCHAR" if hex else "BLOB", type="arrow"
    )
    return name


def main() -> None:
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "accounts.parquet"
        pq.write_table(
            pa.table({"address": ["0xab", None, "0xcd"], "blob": [b"\x01", b"", None]}), path
        )
        connection = duckdb.connect()
        register_hash_function(connection, "keccak_256")
        register_hash_function(
            connection, "sha3_256", name="sha3_256_hex", input_type="BLOB", hex=True
        )
        rows = connection.sql(
            f"SELECT address, keccak_256(address), sha3_256_hex(blob) FROM '{path}'"
        ).fetchall()
        for row in rows:
            print(row)


if __name__ == "__main__":
    main()
