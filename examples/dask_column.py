"""Hash a column across a Dask cluster: each worker hashes the partitions it holds.

Run: python examples/dask_column.py
With a real cluster, point Client at its scheduler and read the data with dd.read_parquet.
"""

import dask.dataframe as dd
import pandas as pd
from distributed import Client, LocalCluster

from batchkeccak.dask import hash_column


def main() -> None:
    with (
        LocalCluster(n_workers=2, threads_per_worker=1, dashboard_address=None) as cluster,
        Client(cluster),
    ):
        frame = pd.DataFrame(
            {
                "email": pd.Series(
                    [f"user{i}@example.org" for i in range(10_000)], dtype="string[pyarrow]"
                )
            }
        )
        ddf = dd.from_pandas(frame, npartitions=4)
        # Two workers on one machine: one hashing thread each.
        ddf["email_keccak_256"] = hash_column(ddf, "email", "keccak_256", hex=True, threads=1)
        print(ddf.head())


if __name__ == "__main__":
    main()
