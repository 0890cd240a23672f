"""batchkeccak.dask.hash_column on a real two-process cluster, against the local result."""

from __future__ import annotations

import pytest

pd = pytest.importorskip("pandas")
dd = pytest.importorskip("dask.dataframe")
distributed = pytest.importorskip("distributed")

import pyarrow as pa

from batchkeccak.arrow import hash_array
from batchkeccak.dask import hash_column

from oracles import oracle

ROWS = 2000


def frame():
    return pd.DataFrame(
        {
            "id": range(ROWS),
            "email": pd.Series(
                [None if i % 11 == 0 else f"user{i}@example.org" for i in range(ROWS)],
                dtype="string[pyarrow]",
            ),
            "payload": pd.Series(
                [bytes([i % 251]) * (i % 200) for i in range(ROWS)],
                dtype=pd.ArrowDtype(pa.binary()),
            ),
        }
    )


@pytest.mark.slow
def test_hash_column_on_a_two_worker_local_cluster():
    local = frame()
    with (
        distributed.LocalCluster(
            n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None
        ) as cluster,
        distributed.Client(cluster) as client,
    ):
        assert len(client.scheduler_info()["workers"]) == 2
        ddf = dd.from_pandas(local, npartitions=6)
        ddf["email_keccak_256"] = hash_column(ddf, "email", "keccak_256", threads=1)
        ddf["payload_hex"] = hash_column(ddf, "payload", hex=True, threads=1, name="payload_hex")
        result = ddf.compute()
        workers_used = client.run(lambda: 1)

    assert len(workers_used) == 2
    result = result.sort_index()
    expected_email = hash_array(pa.array(local["email"].array), "keccak_256").to_pylist()
    assert [None if pd.isna(v) else v for v in result["email_keccak_256"]] == expected_email
    assert expected_email[:30] == [
        None if v is None else oracle("keccak_256", v.encode())
        for v in local["email"].astype(object).where(local["email"].notna(), None)[:30]
    ]
    assert list(result["payload_hex"])[:30] == [
        oracle("sha3_256", v).hex() for v in local["payload"][:30]
    ]


def test_hash_column_local_scheduler_and_errors():
    ddf = dd.from_pandas(frame(), npartitions=3)
    series = hash_column(ddf, "payload", "shake_128", length=8)
    assert str(series.dtype) == "binary[pyarrow]"
    fixed = hash_column(ddf, "payload", "shake_128", length=8, fixed_size=True)
    assert str(fixed.dtype) == "fixed_size_binary[8][pyarrow]"
    assert list(fixed.compute(scheduler="sync")[:3]) == list(series.compute(scheduler="sync")[:3])
    computed = series.compute(scheduler="sync")
    assert list(computed[:5]) == [oracle("shake_128", bytes([i]) * i, 8) for i in range(5)]
    objects = dd.from_pandas(
        pd.DataFrame({"b": pd.Series([b"x", None], dtype=object)}), npartitions=1
    )
    assert list(hash_column(objects, "b").compute(scheduler="sync").isna()) == [False, True]
    with pytest.raises(ValueError, match="no column named 'nope'"):
        hash_column(ddf, "nope")
    with pytest.raises(TypeError, match="column 'id' has dtype int64"):
        hash_column(ddf, "id")


def test_written_digests_read_back_with_pandas(tmp_path):
    # The docs' recipe: hash, write Parquet, read the result back (pandas 3 cannot rebuild a
    # fixed_size_binary column from the metadata Dask writes, so the default is binary).
    ddf = dd.from_pandas(frame(), npartitions=3)
    ddf["email_sha3_256"] = hash_column(ddf, "email", "sha3_256")
    ddf.to_parquet(str(tmp_path / "hashed"))
    back = pd.read_parquet(tmp_path / "hashed").sort_values("id")
    emails = frame()["email"]
    assert [None if pd.isna(d) else d for d in back["email_sha3_256"]][:40] == [
        None if pd.isna(e) else oracle("sha3_256", e.encode()) for e in emails[:40]
    ]
    assert list(dd.read_parquet(str(tmp_path / "hashed"))["email_sha3_256"].compute().isna())[
        :12
    ] == [i % 11 == 0 for i in range(12)]
