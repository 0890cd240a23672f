"""batchkeccak inside pyarrow compute, datasets and Acero, DuckDB and Polars; the examples run."""

from __future__ import annotations

import importlib.util
import runpy
from pathlib import Path

import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.dataset as ds
import pyarrow.parquet as pq
import pytest

from batchkeccak.arrow import COMPUTE_XOF_LENGTHS, hash_array, register

from oracles import ALL_ALGORITHMS, oracle

pytestmark = pytest.mark.every_backend  # every oracle test on every backend policy

EXAMPLES = Path(__file__).resolve().parent.parent / "examples"
VALUES = [b"abc", None, b"", b"\x00" * 200]


def expected(values, algorithm="sha3_256", length=None):
    return [None if v is None else oracle(algorithm, v, length) for v in values]


def load_example(name):
    spec = importlib.util.spec_from_file_location(f"example_{name}", EXAMPLES / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


# --- pyarrow compute --------------------------------------------------------------------------


def test_register_is_idempotent_and_covers_every_algorithm():
    first = register()
    second = register()
    assert first == second == tuple(ALL_ALGORITHMS)
    for name in first:
        assert name in pc.list_functions()


@pytest.mark.parametrize("algorithm", ALL_ALGORITHMS)
def test_call_function_matches_oracle(algorithm):
    register()
    length = COMPUTE_XOF_LENGTHS.get(algorithm)
    result = pc.call_function(algorithm, [pa.array(VALUES)])
    assert result.to_pylist() == expected(VALUES, algorithm, length)


def test_call_function_on_scalars_and_chunked_arrays():
    register()
    assert pc.call_function("keccak_256", [pa.scalar(b"abc")]).as_py() == oracle(
        "keccak_256", b"abc"
    )
    assert pc.call_function("keccak_256", [pa.scalar(None, pa.binary())]).as_py() is None
    chunked = pa.chunked_array([[b"a"], [], [None, b"b"]])
    assert pc.call_function("sha3_224", [chunked]).to_pylist() == expected(
        [b"a", None, b"b"], "sha3_224"
    )


def test_compute_functions_take_binary_and_strings_cast_for_free():
    register()
    strings = pa.array(["abc", None])
    with pytest.raises(pa.ArrowNotImplementedError, match="string"):
        pc.call_function("sha3_256", [strings])
    assert pc.call_function("sha3_256", [pc.cast(strings, pa.binary())]).to_pylist() == expected(
        [b"abc", None]
    )


def test_dataset_projection_and_acero_plan(tmp_path):
    from pyarrow import acero

    register()
    path = tmp_path / "data.parquet"
    pq.write_table(pa.table({"b": VALUES, "s": ["x", "y", None, "z"]}), path)
    projected = ds.dataset(path).to_table(
        columns={
            "b_keccak": pc.Expression._call("keccak_256", [pc.field("b")]),
            "s_sha3": pc.Expression._call("sha3_256", [pc.field("s").cast(pa.binary())]),
        }
    )
    assert projected["b_keccak"].to_pylist() == expected(VALUES, "keccak_256")
    assert projected["s_sha3"].to_pylist() == expected([b"x", b"y", None, b"z"])

    plan = acero.Declaration.from_sequence(
        [
            acero.Declaration("table_source", acero.TableSourceNodeOptions(pq.read_table(path))),
            acero.Declaration(
                "project",
                acero.ProjectNodeOptions(
                    [pc.Expression._call("shake_256", [pc.field("b")])], ["digest"]
                ),
            ),
        ]
    )
    assert plan.to_table()["digest"].to_pylist() == expected(VALUES, "shake_256", 64)


# --- DuckDB -----------------------------------------------------------------------------------


def test_duckdb_arrow_udf_over_a_parquet_file(tmp_path):
    duckdb = pytest.importorskip("duckdb")
    from batchkeccak.duckdb import register

    path = tmp_path / "accounts.parquet"
    addresses = ["0xab", None, "", "0x" + "cd" * 40]
    blobs = [b"\x01", b"", None, bytes(range(200))]
    pq.write_table(pa.table({"col": addresses, "raw": blobs}), path)
    connection = duckdb.connect()
    register(connection)
    rows = connection.sql(f"SELECT keccak_256(col), sha3_512_hex(raw) FROM '{path}'").fetchall()
    assert [r[0] for r in rows] == expected(
        [None if a is None else a.encode() for a in addresses], "keccak_256"
    )
    assert [r[1] for r in rows] == [
        None if b is None else oracle("sha3_512", b).hex() for b in blobs
    ]


# --- Polars -----------------------------------------------------------------------------------


def test_polars_series_and_lazy_expression():
    pl = pytest.importorskip("polars")
    emails = ["ada@example.org", None, "", "a-much-longer-address@example.org"]
    frame = pl.DataFrame({"email": emails, "raw": [e.encode() if e else None for e in emails]})
    digests = hash_array(frame["email"], "sha3_256", hex=True)
    assert isinstance(digests, pa.ChunkedArray)
    assert pl.Series("d", digests).to_list() == [
        None if e is None else oracle("sha3_256", e.encode()).hex() for e in emails
    ]
    keccak = pl.col("raw").map_batches(
        lambda series: pl.Series(hash_array(series, "keccak_256")), return_dtype=pl.Binary
    )
    result = frame.lazy().select(keccak.alias("k")).collect()["k"].to_list()
    assert result == expected([e.encode() if e else None for e in emails], "keccak_256")


# --- examples ---------------------------------------------------------------------------------


@pytest.mark.parametrize("name", ["arrow_column", "duckdb_udf", "polars_column", "parquet_file"])
def test_example_runs(name, capsys):
    runpy.run_path(str(EXAMPLES / f"{name}.py"), run_name="__main__")
    assert capsys.readouterr().out
