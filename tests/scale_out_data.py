"""The table every engine test hashes, and the row encoding rebuilt with struct + hashlib."""

from __future__ import annotations

import struct

import pyarrow as pa

from oracles import oracle
from patterns import cyclic_bytes

ROWS = 300

ENGINE_GROUP = "spark-ray"
"""The xdist group of every test that uses the test process's Spark session or Ray runtime
(tests/conftest.py): tests/test_spark.py, tests/test_ray.py and the docs page that starts
both, so that one worker starts each engine once."""


def text_value(i: int) -> str | None:
    """Nulls, empty strings, non-ASCII text, and a few values of several KiB."""
    if i % 13 == 0:
        return None
    if i % 17 == 0:
        return ""
    if i % 50 == 7:
        return "ü€" * (1500 + i)  # multi-KiB of multi-byte UTF-8
    return f"user{i}@example.org"


def binary_value(i: int) -> bytes | None:
    if i % 11 == 0:
        return None
    if i % 19 == 0:
        return b""
    if i % 60 == 5:
        return cyclic_bytes(4096 + i, i)
    return cyclic_bytes(i % 200, i)


def table() -> pa.Table:
    """``id`` (int64), ``text`` (string), ``payload`` (binary), ``score`` (float64 with nulls),
    ``flag`` (bool), ``small`` (int32): each of the types Spark and Ray keep as they are."""
    ids = list(range(ROWS))
    return pa.table(
        {
            "id": pa.array(ids, pa.int64()),
            "text": pa.array([text_value(i) for i in ids], pa.string()),
            "payload": pa.array([binary_value(i) for i in ids], pa.binary()),
            "score": pa.array([None if i % 7 == 0 else i / 8 for i in ids], pa.float64()),
            "flag": pa.array([i % 3 == 0 for i in ids], pa.bool_()),
            "small": pa.array([None if i % 5 == 0 else -i for i in ids], pa.int32()),
        }
    )


def expected_digests(values, algorithm="sha3_256", length=None, hex=False):
    """hashlib / pycryptodome digests of Python values, None for None."""
    result = []
    for value in values:
        if value is None:
            result.append(None)
            continue
        message = value.encode() if isinstance(value, str) else value
        digest = oracle(algorithm, message, length)
        result.append(digest.hex() if hex else digest)
    return result


_FIELD_FORMATS = {"id": "<q", "score": "<d", "flag": "<?", "small": "<i"}


def _field(name, value) -> bytes:
    if value is None:
        return b"\x00"
    if name in _FIELD_FORMATS:
        raw = struct.pack(_FIELD_FORMATS[name], value)
    else:
        raw = value.encode() if isinstance(value, str) else value
    return b"\x01" + struct.pack("<Q", len(raw)) + raw


def expected_kmac256(values, key: bytes, length: int, customization: bytes = b""):
    """pycryptodome's KMAC256 of each value under ``key``, None for None."""
    from Crypto.Hash import KMAC256

    return [
        None
        if value is None
        else KMAC256.new(
            key=key,
            data=value.encode() if isinstance(value, str) else value,
            mac_len=length,
            custom=customization,
        ).digest()
        for value in values
    ]


KEY = b"do-not-print-this-key-7f3a-0123456789abcdef"
"""A KMAC key (32 bytes or more, as pycryptodome's KMAC256 asks) that must never be shown."""


def expected_row_digests(columns, algorithm="sha3_256"):
    """The documented row encoding of ``table()``'s rows over ``columns``, hashed by hashlib."""
    rows = table().select(columns).to_pylist()
    return [
        oracle(algorithm, b"".join(_field(name, row[name]) for name in columns)) for row in rows
    ]


def write_with_dask(folder) -> list:
    """The docs' Dask recipe: ``text`` hashed with sha3_256 and written as Parquet to
    ``folder``; returns the expected digests by ``id``."""
    import dask.dataframe as dd

    from batchkeccak.dask import hash_column

    ddf = dd.from_pandas(table().select(["id", "text"]).to_pandas(types_mapper=_arrow_dtype), 3)
    ddf["text_sha3_256"] = hash_column(ddf, "text", "sha3_256", threads=1)
    ddf.to_parquet(str(folder), compute_kwargs={"scheduler": "sync"})
    return expected_digests(table()["text"].to_pylist())


def _arrow_dtype(arrow_type):
    import pandas as pd

    return pd.ArrowDtype(arrow_type)
