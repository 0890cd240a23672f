"""batchkeccak.ray on a real local Ray cluster (one per test process: tests/conftest.py),
against hashlib;
and the row fingerprint the same in Arrow, Dask and Ray."""

from __future__ import annotations

import runpy
import subprocess
import sys
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from batchkeccak.arrow import hash_rows as arrow_hash_rows

import scale_out_data as data

EXAMPLES = Path(__file__).resolve().parent.parent / "examples"

pytestmark = pytest.mark.xdist_group(data.ENGINE_GROUP)

ROW_COLUMNS = ["id", "text", "payload", "score", "flag", "small"]


ray = None
"""The ray module, imported by the first test that runs (``ray_cluster``): collecting this
module, as every worker of every run does, need not load Ray."""


@pytest.fixture(scope="module", autouse=True)
def ray_cluster(ray_runtime):
    """The test process's Ray runtime (tests/conftest.py), shared with the docs page that
    starts Ray."""
    global ray
    ray = ray_runtime
    return ray_runtime


@pytest.fixture(scope="module")
def parquet_dataset(ray_cluster, tmp_path_factory):
    """``scale_out_data.table()`` as a folder of 3 Parquet files (several row groups each)."""
    folder = tmp_path_factory.mktemp("ray") / "table"
    folder.mkdir()
    source = data.table()
    for part, start in enumerate(range(0, data.ROWS, 100)):
        pq.write_table(source.slice(start, 100), folder / f"part-{part}.parquet", row_group_size=30)
    return ray.data.read_parquet(str(folder))


def sorted_columns(ds, *columns):
    refs = ds.select_columns(["id", *columns]).to_arrow_refs()
    table = pa.concat_tables(ray.get(refs)).sort_by("id")
    assert table["id"].to_pylist() == list(range(data.ROWS))
    return {column: table[column].to_pylist() for column in columns}


@pytest.mark.slow  # a child process; the whole suite runs it
def test_the_module_name_does_not_shadow_ray():
    # batchkeccak/ray.py imports "ray" absolutely: the Ray it gets, and the one a user gets
    # after importing batchkeccak.ray, is the real package, not this module.
    import batchkeccak

    code = (
        "import batchkeccak.ray as mine; found = mine._import_ray_data(); import ray; "
        "print(found.__file__); print(ray.__file__); print(mine.__name__)"
    )
    found, real, name = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True
    ).stdout.split()
    package_folder = str(Path(batchkeccak.__file__).parent)
    assert name == "batchkeccak.ray"
    assert not found.startswith(package_folder) and not real.startswith(package_folder)
    assert Path(found).parent.name == "data" and Path(real).parent.name == "ray"


@pytest.mark.slow
def test_hash_column_equals_hashlib(parquet_dataset):
    from batchkeccak.ray import hash_column

    ds = parquet_dataset.repartition(4)
    ds = hash_column(ds, "text")
    ds = hash_column(ds, "payload", "keccak_256", hex=True)
    ds = hash_column(ds, "payload", "turboshake128", length=40, output="xof")
    ds = hash_column(ds, "text", "sha3_384", output="flag")  # replaces the column
    got = sorted_columns(ds, "text_sha3_256", "payload_keccak_256", "xof", "flag")

    source = data.table()
    texts, payloads = source["text"].to_pylist(), source["payload"].to_pylist()
    assert got["text_sha3_256"] == data.expected_digests(texts)
    assert got["payload_keccak_256"] == data.expected_digests(payloads, "keccak_256", hex=True)
    assert got["xof"] == data.expected_digests(payloads, "turboshake128", 40)
    assert got["flag"] == data.expected_digests(texts, "sha3_384")
    assert None in texts and "" in texts and b"" in payloads


@pytest.mark.slow
def test_hash_rows_same_in_arrow_dask_and_ray(parquet_dataset, tmp_path):
    dd = pytest.importorskip("dask.dataframe")
    import pandas as pd

    from batchkeccak.ray import hash_rows

    expected = data.expected_row_digests(ROW_COLUMNS)
    assert arrow_hash_rows(data.table(), ROW_COLUMNS).to_pylist() == expected

    ray_rows = sorted_columns(hash_rows(parquet_dataset, ROW_COLUMNS), "row_sha3_256")
    assert ray_rows["row_sha3_256"] == expected

    # Dask: the same Parquet data, partition by partition through the Arrow function.
    path = tmp_path / "table.parquet"
    pq.write_table(data.table(), path, row_group_size=64)
    ddf = dd.read_parquet(str(path), dtype_backend="pyarrow", split_row_groups=True)

    def row_digests(frame: pd.DataFrame) -> pd.Series:
        table = pa.Table.from_pandas(frame[ROW_COLUMNS], preserve_index=False)
        digests = arrow_hash_rows(table, ROW_COLUMNS)
        return pd.Series(pd.arrays.ArrowExtensionArray(digests), index=frame.index)

    meta = pd.Series([], dtype=pd.ArrowDtype(pa.binary(32)))
    dask_rows = ddf.map_partitions(row_digests, meta=meta).compute(scheduler="sync")
    assert ddf.npartitions > 1
    assert list(dask_rows) == expected


@pytest.mark.slow
def test_hash_rows_of_nested_columns_against_the_model(ray_cluster, tmp_path):
    # Lists, structs and maps (the issue table of tests/test_rows_nested.py), read from
    # Parquet in several blocks, against the plain model of docs/arrow.md's encoding.
    from test_rows_nested import NESTED_SCHEMA, model_rows, nested_rows, sha3

    from batchkeccak.ray import hash_rows

    rows = nested_rows(300, seed=8)
    table = pa.Table.from_pylist(rows, schema=NESTED_SCHEMA)
    folder = tmp_path / "nested"
    folder.mkdir()
    for part, start in enumerate(range(0, len(rows), 100)):
        pq.write_table(table.slice(start, 100), folder / f"part-{part}.parquet", row_group_size=40)
    ds = hash_rows(ray.data.read_parquet(str(folder)), ["tags", "address", "attributes", "id"])
    result = pa.concat_tables(ray.get(ds.to_arrow_refs())).sort_by("id")
    reordered = pa.schema([NESTED_SCHEMA.field(n) for n in ("tags", "address", "attributes", "id")])
    assert result["row_sha3_256"].to_pylist() == [sha3(e) for e in model_rows(rows, reordered)]


@pytest.mark.slow
def test_bad_input_and_extra_keywords(parquet_dataset):
    from batchkeccak.ray import hash_column, hash_rows

    with pytest.raises(ValueError, match=r"column: no column named 'nope'"):
        hash_column(parquet_dataset, "nope")
    with pytest.raises(TypeError, match=r"values has type int64"):
        hash_column(parquet_dataset, "id")
    with pytest.raises(TypeError, match="length is required for shake_256"):
        hash_column(parquet_dataset, "text", "shake_256")
    with pytest.raises(ValueError, match=r"columns: no column named 'nope'"):
        hash_rows(parquet_dataset, ["id", "nope"])

    with pytest.raises(TypeError, match="key") as error:
        hash_column(parquet_dataset, "text", key=data.KEY)  # sha3_256 takes no key
    assert data.KEY.decode() not in str(error.value) and data.KEY.hex() not in str(error.value)


@pytest.mark.slow
def test_keyed_mode_equals_pycryptodome_and_the_key_is_never_shown(parquet_dataset):
    from batchkeccak.ray import hash_column

    secret = data.KEY
    ds = hash_column(
        parquet_dataset.repartition(4),
        "payload",
        "kmac_256",
        key=secret,
        length=48,
        customization=b"rows",
    )
    ds = hash_column(ds, "text", "kmac_256", key=secret, length=20, output="tag")
    shown = repr(ds) + str(ds.schema())
    assert secret.decode() not in shown and secret.hex() not in shown

    got = sorted_columns(ds, "payload_kmac_256", "tag")
    source = data.table()
    payloads, texts = source["payload"].to_pylist(), source["text"].to_pylist()
    assert got["payload_kmac_256"] == data.expected_kmac256(payloads, secret, 48, b"rows")
    assert got["tag"] == data.expected_kmac256(texts, secret, 20)


@pytest.mark.slow
def test_example_and_reading_dask_output(ray_cluster, tmp_path, capsys):
    example = runpy.run_path(str(EXAMPLES / "ray_column.py"), run_name="example")
    example["main"]()  # on the module's cluster
    assert "user0@example.org" in capsys.readouterr().out

    expected = data.write_with_dask(tmp_path / "hashed")
    back = pa.concat_tables(
        ray.get(ray.data.read_parquet(str(tmp_path / "hashed")).to_arrow_refs())
    )
    assert back.sort_by("id")["text_sha3_256"].to_pylist() == expected
