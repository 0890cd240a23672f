"""Hash columns of a Spark DataFrame on the executors, and call the digests from Spark SQL.

Run: python examples/spark_column.py   (needs `pip install 'batchkeccak[spark]'` and Java 17+)
On a cluster, the executors need batchkeccak installed and the driver's Python version:
set PYSPARK_PYTHON to that interpreter, as below.
"""

import hashlib
import os
import sys
import tempfile

import pyarrow as pa
import pyarrow.parquet as pq
from pyspark.sql import SparkSession

from batchkeccak.spark import hash_column, hash_rows, register


def main(spark: SparkSession) -> None:
    with tempfile.TemporaryDirectory() as folder:
        path = os.path.join(folder, "users.parquet")
        emails = [f"user{i}@example.org" for i in range(1000)] + [None, ""]
        pq.write_table(pa.table({"id": range(len(emails)), "email": emails}), path)

        users = spark.read.parquet(path).repartition(4)
        hashed = hash_column(users, "email", "sha3_256", hex=True, output="email_sha3")
        hashed = hash_rows(hashed, ["id", "email"], "keccak_256", output="fingerprint")
        first = hashed.orderBy("id").first()
        assert first["email_sha3"] == hashlib.sha3_256(b"user0@example.org").hexdigest()
        hashed.orderBy("id").show(3, truncate=40)

        register(spark)  # sha3_256(col), keccak_256(col), shake_128(col, n)...
        users.createOrReplaceTempView("users")
        spark.sql(
            "SELECT email, lower(hex(keccak_256(email))) AS keccak, shake_128(email, 8) AS tag "
            "FROM users WHERE id < 3 ORDER BY id"
        ).show(truncate=False)


if __name__ == "__main__":
    os.environ.setdefault("PYSPARK_PYTHON", sys.executable)
    session = SparkSession.builder.master("local[2]").getOrCreate()
    session.sparkContext.setLogLevel("ERROR")
    try:
        main(session)
    finally:
        session.stop()
