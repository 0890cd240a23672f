"""batchkeccak.dask.hash_column on a real two-process cluster and the local scheduler, every
digest against hashlib / pycryptodome."""

from __future__ import annotations

import pyarrow as pa
import pytest
from Crypto.Hash import KMAC256

from batchkeccak.dask import hash_column

from oracles import oracle

pd = dd = distributed = None
"""pandas, dask.dataframe and distributed, imported when the module's first test runs:
collecting this module, as every worker of every run does, need not load Dask."""


@pytest.fixture(scope="module", autouse=True)
def dask_modules():
    global pd, dd, distributed
    pd = pytest.importorskip("pandas")
    dd = pytest.importorskip("dask.dataframe")
    distributed = pytest.importorskip("distributed")


KEY = b"do-not-print-this-dask-key-0123456789"
"""A KMAC key (32 bytes or more, as pycryptodome asks) that no repr of a graph may show."""

ROWS = 2000


def email(i: int) -> str | None:
    return None if i % 11 == 0 else f"user{i}@example.org"


def payload(i: int) -> bytes:
    return bytes([i % 251]) * (i % 200)


def expected(values, algorithm="sha3_256", length=None):
    """The oracle's digest of each value (str as UTF-8), None for None."""
    return [
        None if v is None else oracle(algorithm, v.encode() if isinstance(v, str) else v, length)
        for v in values
    ]


def present(values):
    """pandas' missing values (None, pd.NA) as None."""
    return [None if pd.isna(v) else v for v in values]


def frame():
    return pd.DataFrame(
        {
            "id": range(ROWS),
            "email": pd.Series(
                [email(i) for i in range(ROWS)],
                dtype="string[pyarrow]",
            ),
            "payload": pd.Series(
                [payload(i) for i in range(ROWS)],
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
    assert list(result["id"]) == list(range(ROWS))
    emails = [email(i) for i in range(ROWS)]
    assert present(result["email_keccak_256"]) == expected(emails, "keccak_256")
    assert list(result["payload_hex"]) == [
        d.hex() for d in expected([payload(i) for i in range(ROWS)])
    ]


def test_hash_column_local_scheduler_and_errors():
    ddf = dd.from_pandas(frame(), npartitions=3)
    series = hash_column(ddf, "payload", "shake_128", length=8)
    assert str(series.dtype) == "binary[pyarrow]"
    fixed = hash_column(ddf, "payload", "shake_128", length=8, fixed_size=True)
    assert str(fixed.dtype) == "fixed_size_binary[8][pyarrow]"
    want = expected([payload(i) for i in range(ROWS)], "shake_128", 8)
    assert list(series.compute(scheduler="sync")) == want
    assert list(fixed.compute(scheduler="sync")) == want
    keyed = hash_column(ddf, "email", "kmac_256", length=24, key=KEY, customization=b"mail")
    shown = repr(keyed) + repr(dict(keyed.dask))
    assert KEY.decode() not in shown and KEY.hex() not in shown
    assert present(keyed.compute(scheduler="sync")) == [
        None
        if e is None
        else KMAC256.new(key=KEY, data=e.encode(), mac_len=24, custom=b"mail").digest()
        for e in (email(i) for i in range(ROWS))
    ]
    objects = dd.from_pandas(
        pd.DataFrame({"b": pd.Series([b"x", None], dtype=object)}), npartitions=1
    )
    assert present(hash_column(objects, "b").compute(scheduler="sync")) == expected([b"x", None])
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
    assert list(back["id"]) == list(range(ROWS))
    want = expected([email(i) for i in range(ROWS)])
    assert present(back["email_sha3_256"]) == want
    again = dd.read_parquet(str(tmp_path / "hashed")).compute().sort_values("id")
    assert present(again["email_sha3_256"]) == want
