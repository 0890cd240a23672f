"""batchkeccak.spark on a real local[2] Spark session (one per test process, shared with the
docs page that starts Spark: tests/conftest.py), against hashlib."""

from __future__ import annotations

import runpy
from pathlib import Path

import pytest

pytest.importorskip("pyspark")

import pyarrow.parquet as pq

from batchkeccak import algorithms
from batchkeccak.arrow import hash_rows as arrow_hash_rows

import scale_out_data as data

EXAMPLES = Path(__file__).resolve().parent.parent / "examples"

pytestmark = [pytest.mark.slow, pytest.mark.xdist_group(data.ENGINE_GROUP)]

ROW_COLUMNS = ["id", "text", "payload", "score", "flag", "small"]


@pytest.fixture(scope="module")
def spark(spark_session):
    """The test process's Spark session (tests/conftest.py), shared with the docs page that
    starts Spark."""
    return spark_session


@pytest.fixture(scope="module")
def parquet_frame(spark, tmp_path_factory):
    """``scale_out_data.table()`` written as Parquet (several row groups), read by Spark and
    spread over 5 partitions."""
    path = tmp_path_factory.mktemp("spark") / "table.parquet"
    pq.write_table(data.table(), path, row_group_size=64)
    return spark.read.parquet(str(path)).repartition(5)


def collect_sorted(df, *columns):
    rows = df.select("id", *columns).orderBy("id").collect()
    assert [row["id"] for row in rows] == list(range(data.ROWS))
    return {column: [row[column] for row in rows] for column in columns}


def as_bytes(values):
    return [None if v is None else bytes(v) for v in values]


@pytest.mark.parametrize("use_arrow_udf", [True, False], ids=["arrow_udf", "mapInArrow"])
def test_hash_column_equals_hashlib(spark, parquet_frame, use_arrow_udf):
    from batchkeccak.spark import hash_column

    assert parquet_frame.rdd.getNumPartitions() == 5
    df = hash_column(parquet_frame, "text", _use_arrow_udf=use_arrow_udf)
    df = hash_column(df, "payload", "keccak_256", hex=True, _use_arrow_udf=use_arrow_udf)
    df = hash_column(
        df, "payload", "shake_128", length=20, output="xof", _use_arrow_udf=use_arrow_udf
    )
    # An existing column is replaced in place, as withColumn does.
    df = hash_column(df, "text", "sha3_512", output="flag", _use_arrow_udf=use_arrow_udf)
    types = dict(df.dtypes)
    assert types["text_sha3_256"] == "binary" and types["payload_keccak_256"] == "string"
    assert df.columns.index("flag") == 4 and types["flag"] == "binary"

    got = collect_sorted(df, "text_sha3_256", "payload_keccak_256", "xof", "flag")
    source = data.table()
    texts, payloads = source["text"].to_pylist(), source["payload"].to_pylist()
    assert as_bytes(got["text_sha3_256"]) == data.expected_digests(texts)
    assert got["payload_keccak_256"] == data.expected_digests(payloads, "keccak_256", hex=True)
    assert as_bytes(got["xof"]) == data.expected_digests(payloads, "shake_128", 20)
    assert as_bytes(got["flag"]) == data.expected_digests(texts, "sha3_512")
    # The cases the table is built to hold really are there.
    assert None in texts and "" in texts and max(len((t or "").encode()) for t in texts) > 4096
    assert None in payloads and b"" in payloads


def test_sql_functions_from_the_algorithm_table(spark, parquet_frame):
    from batchkeccak.spark import register

    names = register(spark)
    assert set(algorithms) <= set(names) and {"kmac_256", "kt128", "hmac_sha3_256"} <= set(names)
    parquet_frame.createOrReplaceTempView("t")
    calls = [
        f"{name}(payload, 24) AS {name}" if spec.xof else f"{name}(text) AS {name}"
        for name, spec in algorithms.items()
    ]
    rows = spark.sql(f"SELECT id, {', '.join(calls)} FROM t ORDER BY id").collect()
    source = data.table()
    for name, spec in algorithms.items():
        values = source["payload" if spec.xof else "text"].to_pylist()
        expected = data.expected_digests(values, name, 24 if spec.xof else None)
        assert as_bytes([row[name] for row in rows]) == expected, name

    # A length per row (null gives null), and the hex idiom the docs show.
    rows = spark.sql(
        "SELECT id, shake_256(text, CAST(IF(id % 4 = 0, NULL, id % 3 + 1) AS INT)) AS d, "
        "lower(hex(keccak_256(text))) AS h FROM t ORDER BY id"
    ).collect()
    for row, text in zip(rows, source["text"].to_pylist()):
        i = row["id"]
        length = None if i % 4 == 0 else i % 3 + 1
        expected = (
            None
            if text is None or length is None
            else data.expected_digests([text], "shake_256", length)[0]
        )
        assert (None if row["d"] is None else bytes(row["d"])) == expected, i
    assert [row["h"] for row in rows] == data.expected_digests(
        source["text"].to_pylist(), "keccak_256", hex=True
    )


def test_sql_modes_with_named_keys(spark, parquet_frame):
    from batchkeccak.spark import register

    from engine_oracles import engine_oracle

    key = bytes(range(40))
    register(spark, keys={"pii": key})
    parquet_frame.createOrReplaceTempView("t")
    rows = spark.sql(
        "SELECT id, text, kmac_256(text, 'pii', 32) AS kmac, hmac_sha3_256(text, 'pii') AS mac, "
        "cshake_128(text, 16, 'Email') AS cs, kt128(text, 16) AS kt FROM t ORDER BY id"
    ).collect()
    for row in rows:
        if row["text"] is None:
            assert (row["kmac"], row["mac"], row["cs"], row["kt"]) == (None,) * 4
            continue
        text = row["text"].encode()
        assert bytes(row["kmac"]) == engine_oracle("kmac_256", text, length=32, key=key)
        assert bytes(row["mac"]) == engine_oracle("hmac_sha3_256", text, key=key)
        assert bytes(row["cs"]) == engine_oracle("cshake_128", text, 16, customization=b"Email")
        assert bytes(row["kt"]) == engine_oracle("kt128", text, 16)
    with pytest.raises(Exception, match="no key named 'missing'"):
        spark.sql("SELECT kmac_256(text, 'missing', 32) FROM t").collect()


@pytest.mark.parametrize("use_arrow_udf", [True, False], ids=["arrow_udf", "mapInArrow"])
def test_hash_rows_equals_the_local_arrow_fingerprint(spark, parquet_frame, use_arrow_udf):
    from batchkeccak.spark import hash_rows

    df = hash_rows(parquet_frame, ROW_COLUMNS, _use_arrow_udf=use_arrow_udf)
    df = hash_rows(df, ["text", "id"], hex=True, output="h", _use_arrow_udf=use_arrow_udf)
    got = collect_sorted(df, "row_sha3_256", "h")
    local = arrow_hash_rows(data.table(), ROW_COLUMNS).to_pylist()
    assert as_bytes(got["row_sha3_256"]) == local == data.expected_row_digests(ROW_COLUMNS)
    assert got["h"] == [d.hex() for d in data.expected_row_digests(["text", "id"])]


def test_bad_input_fails_on_the_driver(spark, parquet_frame):
    from pyspark.sql import functions as F

    from batchkeccak.spark import hash_column, hash_rows

    with pytest.raises(ValueError, match=r"column: no column named 'nope'"):
        hash_column(parquet_frame, "nope")
    with pytest.raises(TypeError, match=r"column 'id' has Spark type bigint; expected string"):
        hash_column(parquet_frame, "id")
    with pytest.raises(ValueError, match="unknown algorithm 'sha2'"):
        hash_column(parquet_frame, "text", "sha2")
    with pytest.raises(TypeError, match="length is required for shake_128"):
        hash_column(parquet_frame, "text", "shake_128")
    with pytest.raises(TypeError, match="length applies only"):
        hash_column(parquet_frame, "text", length=5)
    with pytest.raises(ValueError, match="threads must be >= 1"):
        hash_column(parquet_frame, "text", threads=0)
    with pytest.raises(ValueError, match=r"columns: no column named 'nope'"):
        hash_rows(parquet_frame, ["id", "nope"])
    # a nested column hashes as the local function hashes the same Arrow rows
    nested = parquet_frame.withColumn("tags", F.array(F.col("text"), F.lit(None)))
    nested = nested.withColumn("pair", F.struct(F.col("id"), F.col("tags")))
    rows = hash_rows(nested, ["id", "tags", "pair"], output="d").select("d", "id", "tags", "pair")
    table = rows.toArrow()
    local = arrow_hash_rows(table, ["id", "tags", "pair"]).to_pylist()
    assert table.column("d").to_pylist() == local


@pytest.mark.parametrize("use_arrow_udf", [True, False], ids=["arrow_udf", "mapInArrow"])
def test_keyed_mode_equals_pycryptodome_and_the_key_is_never_shown(
    spark, parquet_frame, use_arrow_udf
):
    from batchkeccak.spark import hash_column

    secret = data.KEY
    df = hash_column(
        parquet_frame,
        "payload",
        "kmac_256",
        key=secret,
        length=48,
        customization=b"rows",
        _use_arrow_udf=use_arrow_udf,
    )
    df = hash_column(
        df, "text", "kmac_256", key=secret, length=20, output="tag", _use_arrow_udf=use_arrow_udf
    )
    got = collect_sorted(df, "payload_kmac_256", "tag")
    source = data.table()
    payloads, texts = source["payload"].to_pylist(), source["text"].to_pylist()
    assert as_bytes(got["payload_kmac_256"]) == data.expected_kmac256(payloads, secret, 48, b"rows")
    assert as_bytes(got["tag"]) == data.expected_kmac256(texts, secret, 20)

    plan = df._jdf.queryExecution().toString()
    shown = plan + repr(df) + str(df.schema)
    assert secret.decode() not in shown and secret.hex() not in shown


def test_a_key_for_an_unkeyed_algorithm_is_refused_without_showing_it(spark, parquet_frame):
    from batchkeccak.spark import hash_column

    with pytest.raises(TypeError, match="key") as error:
        hash_column(parquet_frame, "text", "sha3_256", key=data.KEY)
    assert data.KEY.decode() not in str(error.value) and data.KEY.hex() not in str(error.value)


def test_example_and_reading_dask_output(spark, tmp_path, capsys):
    example = runpy.run_path(str(EXAMPLES / "spark_column.py"), run_name="example")
    example["main"](spark)  # the module's session: no second JVM
    assert "keccak" in capsys.readouterr().out

    expected = data.write_with_dask(tmp_path / "hashed")
    rows = spark.read.parquet(str(tmp_path / "hashed")).orderBy("id").collect()
    assert as_bytes([row["text_sha3_256"] for row in rows]) == expected
