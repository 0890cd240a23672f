"""batchkeccak.duckdb: every algorithm and mode as a DuckDB SQL function, against hashlib,
hmac, pycryptodome and the SP 800-185 / RFC 9861 transcriptions."""

from __future__ import annotations

import hashlib
import re
import struct
import threading
from concurrent.futures import ThreadPoolExecutor

import pytest

duckdb = pytest.importorskip("duckdb")

from Crypto.Hash import keccak
from test_rows import le_int, row_digest

from batchkeccak._sql import sql_functions
from batchkeccak.arrow import hash_rows as arrow_hash_rows
from batchkeccak.duckdb import MAX_ROW_FIELDS, register

from engine_oracles import engine_oracle

pytestmark = pytest.mark.every_backend  # every oracle test on every backend policy
QUICK_RUN_POLICIES = ("kernels",)  # the quick run: forced kernels; the whole suite: every policy

KEY = bytes(range(40))
VALUES = ["", "abc", "ada@example.org", "caf\u00e9 \u2603", "a\\x41b", "x" * 300, None]
"""Texts with a backslash and non-ASCII characters: hashed as their UTF-8 bytes, never
unescaped; one longer than a block; a null."""


@pytest.fixture(scope="module")
def con():
    connection = duckdb.connect()
    connection.execute("SET enable_progress_bar = false")
    register(connection, keys={"pii": KEY, "other": b"k"})
    connection.execute("CREATE TABLE t (i INTEGER, s VARCHAR)")
    connection.executemany("INSERT INTO t VALUES (?, ?)", list(enumerate(VALUES)))
    return connection


def sql_call(function, column: str) -> tuple[str, dict]:
    """The SQL arguments for one function and what they mean to the oracle."""
    arguments, oracle_args = [column], {}
    if function.keyed:
        arguments.append("'pii'")
        oracle_args["key"] = KEY
    if function.takes_length:
        arguments.append("24")
        oracle_args["length"] = 24
    if function.customized:
        arguments.append("'Email \u00e9'")
        oracle_args["customization"] = "Email \u00e9".encode()
    return ", ".join(arguments), oracle_args


@pytest.mark.parametrize("name", list(sql_functions()))
def test_every_function_on_varchar_and_blob(con, name):
    function = sql_functions()[name]
    arguments, oracle_args = sql_call(function, "s")
    blob_arguments, _ = sql_call(function, "encode(s)")
    rows = con.execute(
        f"SELECT s, {name}({arguments}), {name}({blob_arguments}), {name}_hex({arguments}) "
        "FROM t ORDER BY i"
    ).fetchall()
    for value, raw, from_blob, hex_text in rows:
        if value is None:
            assert (raw, from_blob, hex_text) == (None, None, None)
            continue
        want = engine_oracle(name, value.encode(), **oracle_args)
        assert raw == want, (name, value)
        assert from_blob == want, (name, value)
        assert hex_text == want.hex(), (name, value)


def test_results_are_blob_and_hex_is_varchar(con):
    types = con.execute("SELECT sha3_256('a') AS d, sha3_256_hex('a') AS h").description
    assert [t[1] for t in types] == ["BLOB", "VARCHAR"]


@pytest.mark.kernels_only  # registration and errors: no digest path to vary
def test_a_key_is_named_in_sql_and_an_unknown_name_is_a_clear_error(con):
    rows = con.execute("SELECT kmac_256(s, 'other', 32) FROM t WHERE i = 1").fetchall()
    assert rows[0][0] == engine_oracle("kmac_256", b"abc", length=32, key=b"k")
    with pytest.raises(duckdb.Error, match="no key named 'missing'.*'other', 'pii'"):
        con.execute("SELECT kmac_256(s, 'missing', 32) FROM t").fetchall()


def test_arguments_may_vary_by_row_and_nulls_give_null(con):
    rows = con.execute(
        "SELECT v, n, k, shake_128(v, n), hmac_sha3_256(v, k) FROM (VALUES "
        "('a', 1, 'pii'), ('b', 40, 'other'), ('c', NULL, NULL), ('d', 3, 'pii')) t(v, n, k)"
    ).fetchall()
    for value, n, key_name, shake, mac in rows:
        if n is None:
            assert shake is None and mac is None
            continue
        assert shake == engine_oracle("shake_128", value.encode(), length=n)
        key = {"pii": KEY, "other": b"k"}[key_name]
        assert mac == engine_oracle("hmac_sha3_256", value.encode(), key=key)


def test_many_vectors(con):
    # More rows than one DuckDB vector (2048): several calls, each one batch.
    rows = con.execute(
        "SELECT i::VARCHAR, keccak_256(i::VARCHAR) FROM range(5000) r(i) ORDER BY i"
    ).fetchall()
    assert all(d == engine_oracle("keccak_256", v.encode()) for v, d in rows)


@pytest.mark.parametrize("threads", [None, 2])
def test_vectors_from_several_duckdb_threads_with_nulls(threads):
    # DuckDB calls from its own threads at once, a vector each: equal-length values (whole
    # tiles), varied ones, nulls among both, as VARCHAR and as BLOB; register(threads=2)
    # also spreads each vector over threads of its own.
    connection = duckdb.connect()
    connection.execute("SET threads = 4")
    register(connection, keys={"pii": KEY}, threads=threads)
    rows = connection.execute(
        "SELECT v, sha3_256(v), sha3_256_hex(v), keccak_256(encode(v)), shake_128(v, 200), "
        "kmac_256(encode(v), 'pii', 32) FROM (SELECT CASE WHEN i % 7 = 3 THEN NULL "
        "WHEN i < 6000 THEN 'user' || (i + 1000000)::VARCHAR || '@example.org' "
        "ELSE repeat('x', (i % 300)::INTEGER) END AS v FROM range(10000) r(i))"
    ).fetchall()
    assert len(rows) == 10000
    for value, raw, hex_text, from_blob, xof, mac in rows:
        if value is None:
            assert (raw, hex_text, from_blob, xof, mac) == (None,) * 5
            continue
        message = value.encode()
        assert raw == engine_oracle("sha3_256", message)
        assert hex_text == raw.hex()
        assert from_blob == engine_oracle("keccak_256", message)
        assert xof == engine_oracle("shake_128", message, length=200)
        assert mac == engine_oracle("kmac_256", message, length=32, key=KEY)


@pytest.mark.kernels_only  # registration and errors: no digest path to vary
def test_without_typed_macros_one_function_over_a_union(monkeypatch):
    # Older DuckDB releases: each name is one function over UNION(text VARCHAR, bytes BLOB).
    import batchkeccak.duckdb as bk_duckdb

    monkeypatch.setattr(bk_duckdb, "_supports_typed_macros", lambda connection, duckdb: False)
    connection = duckdb.connect()
    register(connection, keys={"pii": KEY})
    rows = connection.execute(
        "SELECT v, sha3_256(v), sha3_256_hex(encode(v)), hmac_sha3_256(v, 'pii') FROM "
        "(SELECT CASE WHEN i % 5 = 0 THEN NULL ELSE 'v' || i::VARCHAR END AS v "
        "FROM range(3000) r(i))"
    ).fetchall()
    for value, raw, hex_text, mac in rows:
        if value is None:
            assert (raw, hex_text, mac) == (None, None, None)
            continue
        assert raw == engine_oracle("sha3_256", value.encode())
        assert hex_text == raw.hex()
        assert mac == engine_oracle("hmac_sha3_256", value.encode(), key=KEY)


def test_an_ethereum_address_is_hashed_as_its_20_bytes(con):
    address = "0x" + "ab" * 20
    as_bytes, as_text = con.execute(
        "SELECT keccak_256(unhex(substr(a, 3))), keccak_256(a) FROM (VALUES (?)) t(a)",
        [address],
    ).fetchone()
    assert as_bytes == keccak.new(digest_bits=256, data=bytes.fromhex("ab" * 20)).digest()
    assert as_text == keccak.new(digest_bits=256, data=address.encode()).digest()


@pytest.mark.kernels_only  # registration and errors: no digest path to vary
def test_other_types_are_a_binder_error(con):
    with pytest.raises(duckdb.BinderException, match="sha3_256"):
        con.execute("SELECT sha3_256(42)").fetchall()


@pytest.mark.kernels_only  # registration and errors: no digest path to vary
def test_prefix_and_registering_again():
    connection = duckdb.connect()
    names = register(connection, prefix="bk_", keys={"a": b"1"})
    assert "bk_sha3_256" in names and "bk_kmac_256_hex" in names
    assert all(name.startswith("bk_") for name in names)
    # Registering again replaces the functions, keys included.
    register(connection, prefix="bk_", keys={"a": b"2"})
    got = connection.execute("SELECT bk_hmac_sha3_256('x', 'a')").fetchone()[0]
    assert got == engine_oracle("hmac_sha3_256", b"x", key=b"2")


@pytest.mark.kernels_only  # registration and errors: no digest path to vary
def test_never_shadows_duckdb_functions():
    connection = duckdb.connect()
    connection.execute("CREATE MACRO sha3_256(x) AS x")  # stands for a function DuckDB has
    with pytest.raises(ValueError, match="already has a function named 'sha3_256'.*prefix="):
        register(connection)
    assert "bk_sha3_256" in register(connection, prefix="bk_")
    # DuckDB's own sha256 is untouched.
    got = connection.execute("SELECT sha256('abc')").fetchone()[0]
    assert got == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"


@pytest.mark.kernels_only  # registration and errors: no digest path to vary
@pytest.mark.parametrize(
    "keys, error, match",
    [
        ({"pii": "secret"}, TypeError, r"keys\['pii'\] must be bytes"),
        ([b"k"], TypeError, "keys must be a mapping"),
        ({1: b"k"}, TypeError, "key name must be a str"),
    ],
)
def test_bad_keys(keys, error, match):
    with pytest.raises(error, match=match):
        register(duckdb.connect(), keys=keys)


# ---------------------------------------------------------------------------------------------
# Names written into SQL


def _function_names(connection) -> set[str]:
    rows = connection.sql("SELECT function_name FROM duckdb_functions()").fetchall()
    return {row[0] for row in rows}


@pytest.mark.kernels_only  # registration and errors: no digest path to vary
@pytest.mark.parametrize(
    "prefix",
    [
        "x(v VARCHAR) AS 1; DROP TABLE victim; CREATE TEMP MACRO y",
        "bk_; DROP TABLE victim; --",
        'bk"',
        "bk ",
        "1bk_",
        "bk-",
        "b\u00e9_",
        "_bk_",
    ],
)
def test_a_prefix_that_is_no_identifier_registers_nothing(prefix):
    connection = duckdb.connect()
    connection.execute("CREATE TABLE victim AS SELECT 42 AS kept")
    before = _function_names(connection)
    with pytest.raises(ValueError, match="prefix must"):
        register(connection, prefix=prefix)
    assert connection.execute("SELECT kept FROM victim").fetchall() == [(42,)]
    assert _function_names(connection) == before
    # Nothing was left half done: a good prefix registers afterwards.
    assert "bk_sha3_256" in register(connection, prefix="bk_")


# ---------------------------------------------------------------------------------------------
# Cursors: DuckDB's way to run queries from several Python threads


def _check_rows(rows, key):
    for value, raw, mac, row in rows:
        message = value.encode()
        assert raw == engine_oracle("sha3_256", message)
        assert mac == engine_oracle("kmac_256", message, length=32, key=key)
        assert row == row_digest([le_int(len(value), 8), message])


CURSOR_QUERY = (
    "SELECT v, sha3_256(v), kmac_256(v, 'pii', 32), hash_rows(length(v), v) FROM "
    "(SELECT 'u' || (i * ?)::VARCHAR || repeat('x', (i % 150)::INTEGER) AS v FROM range(2100) r(i))"
)
"""Over one DuckDB vector (2048 rows) of values of many lengths; each thread its own step."""


def _on_cursors(connection, cursors, query=CURSOR_QUERY):
    """Run ``query`` on every cursor at once, each from a thread of its own."""
    start = threading.Barrier(len(cursors))

    def run(index):
        start.wait()
        return cursors[index].execute(query, [index + 1]).fetchall()

    with ThreadPoolExecutor(len(cursors)) as pool:
        return list(pool.map(run, range(len(cursors))))


def test_cursors_on_threads_call_the_functions_registered_once():
    connection = duckdb.connect()
    made_before = connection.cursor()
    register(connection, keys={"pii": KEY})
    cursors = [made_before] + [connection.cursor() for _ in range(3)]
    for rows in _on_cursors(connection, cursors):
        assert len(rows) == 2100
        _check_rows(rows, KEY)


def test_registering_on_a_cursor(tmp_path):
    # The cursor's register reaches the database: the connection and other cursors see it.
    connection = duckdb.connect()
    register(connection.cursor(), keys={"pii": KEY})
    _check_rows(connection.execute(CURSOR_QUERY, [7]).fetchall(), KEY)
    # Keys belong to the database: registering again, from any cursor, replaces them.
    register(connection.cursor(), keys={"pii": b"k2"})
    _check_rows(connection.cursor().execute(CURSOR_QUERY, [7]).fetchall(), b"k2")


@pytest.mark.slow  # a database file and its reopening; the whole suite runs it
@pytest.mark.kernels_only  # registration and errors: no digest path to vary
def test_a_database_file_keeps_no_macros_and_each_cursor_registers(tmp_path):
    path = str(tmp_path / "users.duckdb")
    connection = duckdb.connect(path)
    register(connection, keys={"pii": KEY})
    cursors = [connection.cursor() for _ in range(2)]
    with pytest.raises(duckdb.CatalogException, match="sha3_256"):
        cursors[0].execute("SELECT sha3_256('a')")
    for cursor in cursors:
        register(cursor, keys={"pii": KEY})
    for rows in _on_cursors(connection, [connection, *cursors]):
        _check_rows(rows, KEY)
    for cursor in cursors:
        cursor.close()
    connection.close()
    reopened = duckdb.connect(path)
    assert not {"sha3_256", "hash_rows"} & _function_names(reopened)
    reopened.close()
    # A read-only database takes them too.
    read_only = duckdb.connect(path, read_only=True)
    register(read_only)
    assert read_only.execute("SELECT sha3_256('a')").fetchone()[0] == engine_oracle(
        "sha3_256", b"a"
    )


@pytest.mark.kernels_only  # registration and errors: no digest path to vary
def test_registering_inside_an_open_transaction():
    connection = duckdb.connect()
    connection.execute("BEGIN TRANSACTION")
    register(connection)
    connection.execute("COMMIT")
    assert connection.execute("SELECT sha3_256('abc')").fetchone()[0] == engine_oracle(
        "sha3_256", b"abc"
    )


# ---------------------------------------------------------------------------------------------
# hex=True: DuckDB's own habit


def test_hex_true_makes_the_plain_names_hex_as_duckdb_sha256_is():
    connection = duckdb.connect()
    names = register(connection, hex=True, keys={"pii": KEY})
    assert "sha3_256" in names and "sha3_256_hex" in names
    row = connection.execute(
        "SELECT sha256('abc'), sha3_256('abc'), sha3_256_hex('abc'), shake_128(encode('abc'), 5), "
        "kmac_256('abc', 'pii', 32), hash_rows('abc')"
    ).fetchone()
    assert row == (
        hashlib.sha256(b"abc").hexdigest(),
        engine_oracle("sha3_256", b"abc").hex(),
        engine_oracle("sha3_256", b"abc").hex(),
        engine_oracle("shake_128", b"abc", length=5).hex(),
        engine_oracle("kmac_256", b"abc", length=32, key=KEY).hex(),
        row_digest([b"abc"]).hex(),
    )
    types = connection.execute("SELECT sha3_256('a') AS d, hash_rows(1) AS r").description
    assert [t[1] for t in types] == ["VARCHAR", "VARCHAR"]


@pytest.mark.kernels_only  # registration and errors: no digest path to vary
def test_bad_hex():
    with pytest.raises(TypeError, match="hex must be a bool"):
        register(duckdb.connect(), hex="yes")


# ---------------------------------------------------------------------------------------------
# hash_rows and encode_row: one row, one digest, as everywhere else

EVERY_FIELD_TYPE = """
    SELECT * FROM (VALUES
      (0, -1::TINYINT, -300::SMALLINT, 2147483647, (-9223372036854775808)::BIGINT,
       (-170141183460469231731687303715884105727)::HUGEINT, 255::UTINYINT, 65535::USMALLINT,
       4294967295::UINTEGER, 18446744073709551615::UBIGINT, 1.25::FLOAT, (-0.0)::DOUBLE, true,
       DATE '2024-02-29', TIME '12:30:01.25', TIMESTAMP '2024-02-29 12:30:01.25',
       TIMESTAMP_S '1969-12-31 23:59:59', TIMESTAMP_MS '2024-02-29 12:30:01.25',
       TIMESTAMP_NS '2024-02-29 12:30:01.123456789', TIMESTAMPTZ '2024-02-29 12:30:01+00',
       '6ba7b810-9dad-11d1-80b4-00c04fd430c8'::UUID, 'caf\u00e9 \u2603', '\\xAB\\x00'::BLOB,
       'b'::ENUM('a', 'b')),
      (1, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL,
       NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL),
      (2, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, false, DATE '1970-01-01', TIME '00:00:00',
       TIMESTAMP '1970-01-01', TIMESTAMP_S '1970-01-01', TIMESTAMP_MS '1970-01-01',
       TIMESTAMP_NS '1970-01-01', TIMESTAMPTZ '1970-01-01 00:00:00+00',
       '00000000-0000-0000-0000-000000000000'::UUID, '', ''::BLOB, 'a')
    ) t(i, i8, i16, i32, i64, i128, u8, u16, u32, u64, f32, f64, b, d, tm, ts, ts_s, ts_ms,
        ts_ns, tstz, id, s, bin, e)
"""


@pytest.fixture(scope="module")
def every_type():
    connection = duckdb.connect()
    connection.execute("SET TimeZone = 'UTC'")
    register(connection)
    connection.execute("CREATE TABLE every_type AS " + EVERY_FIELD_TYPE)
    return connection


def test_hash_rows_reads_every_field_type_as_arrow_hash_rows_does(every_type):
    table = every_type.sql("SELECT * EXCLUDE (i) FROM every_type ORDER BY i").to_arrow_table()
    want = arrow_hash_rows(table).to_pylist()
    got = every_type.execute(
        "SELECT hash_rows(*COLUMNS(* EXCLUDE (i))) FROM every_type ORDER BY i"
    ).fetchall()
    assert [row[0] for row in got] == want
    # A struct_pack value, through its fields; hex; and any algorithm over encode_row.
    got = every_type.execute(
        "SELECT hash_rows_hex(*COLUMNS(r.*)), keccak_256(encode_row(*COLUMNS(r.*))) FROM "
        "(SELECT i, struct_pack(*COLUMNS(* EXCLUDE (i))) AS r FROM every_type) ORDER BY i"
    ).fetchall()
    assert [row[0] for row in got] == arrow_hash_rows(table, hex=True).to_pylist()
    assert [row[1] for row in got] == arrow_hash_rows(table, None, "keccak_256").to_pylist()


def test_hash_rows_against_the_encoding_and_polars_and_pandas():
    # Ints, strings, binary and nulls: the documented encoding rebuilt here, and the same
    # rows through every engine's hash_rows.
    import pandas as pd
    import polars as pl

    import batchkeccak.pandas
    import batchkeccak.polars  # noqa: F401

    rows = [
        (7, -2, "caf\u00e9", b"\x00\xff", 2.5, True),
        (None, 0, "", b"", None, None),
        (2**63 - 1, None, None, None, -0.0, False),
    ]
    want = [
        row_digest(
            [
                le_int(n, 8),
                None if b is None else b.to_bytes(2, "little", signed=True),
                None if s is None else s.encode(),
                blob,
                None if f is None else struct.pack("<d", f),
                None if flag is None else bytes([flag]),
            ]
        )
        for n, b, s, blob, f, flag in rows
    ]
    connection = duckdb.connect()
    register(connection)
    connection.execute(
        "CREATE TABLE t (i INTEGER, n BIGINT, b SMALLINT, s VARCHAR, blob BLOB, f DOUBLE, "
        "flag BOOLEAN)"
    )
    connection.executemany(
        "INSERT INTO t VALUES (?, ?, ?, ?, ?, ?, ?)", [(i, *row) for i, row in enumerate(rows)]
    )
    in_sql = connection.execute(
        "SELECT hash_rows(n, b, s, blob, f, flag) FROM t ORDER BY i"
    ).fetchall()
    assert [row[0] for row in in_sql] == want
    table = connection.sql("SELECT * EXCLUDE (i) FROM t ORDER BY i").to_arrow_table()
    assert arrow_hash_rows(table).to_pylist() == want
    frame = pl.from_arrow(table)
    assert frame.select(d=pl.struct(pl.all()).bk.hash_rows())["d"].to_list() == want
    assert frame.to_series(3).dtype == pl.Binary
    pandas_frame = table.to_pandas(types_mapper=pd.ArrowDtype)
    assert pandas_frame.bk.hash_rows().tolist() == want


@pytest.mark.kernels_only  # registration and errors: no digest path to vary
def test_hash_rows_takes_up_to_max_row_fields_and_names_a_type_it_cannot_read(every_type):
    fields = ", ".join(f"{i}::BIGINT" for i in range(MAX_ROW_FIELDS))
    got = every_type.execute(f"SELECT hash_rows({fields})").fetchone()[0]
    assert got == row_digest([le_int(i, 8) for i in range(MAX_ROW_FIELDS)])
    with pytest.raises(duckdb.Error, match=r"a field of type DECIMAL\(3,1\) has no row encoding"):
        every_type.execute("SELECT hash_rows(1, 1.5::DECIMAL(3, 1))").fetchall()
    # Every type without a row encoding gets that message naming it, not a binder error
    # about the macro behind hash_rows.
    for value, type_name in [
        ("INTERVAL 1 DAY", "INTERVAL"),
        ("'12:00:00+01'::TIMETZ", "TIME WITH TIME ZONE"),
        ("'101'::BIT", "BIT"),
    ]:
        message = rf"hash_rows: a field of type {re.escape(type_name)} has no row encoding"
        with pytest.raises(duckdb.InvalidInputException, match=message):
            every_type.execute(f"SELECT hash_rows('a', {value})").fetchall()
    # and the types it reads still hash as hashlib does
    got = every_type.execute("SELECT hash_rows('abc')").fetchone()[0]
    assert got == hashlib.sha3_256(b"\x01" + (3).to_bytes(8, "little") + b"abc").digest()


def test_a_wider_row_is_its_parts_encodings_concatenated(every_type):
    first = ", ".join(f"{i}::BIGINT" for i in range(MAX_ROW_FIELDS))
    wide = every_type.execute(
        f"SELECT sha3_256(encode_row({first}) || encode_row('last', NULL::BLOB))"
    ).fetchone()[0]
    fields = [le_int(i, 8) for i in range(MAX_ROW_FIELDS)] + [b"last", None]
    assert wide == row_digest(fields)


@pytest.mark.kernels_only  # registration and errors: no digest path to vary
def test_a_user_function_named_hash_rows_is_not_hidden():
    connection = duckdb.connect()
    connection.execute("CREATE MACRO hash_rows(x) AS x")
    with pytest.raises(ValueError, match="already has a function named 'hash_rows'"):
        register(connection)
    assert "bk_hash_rows" in register(connection, prefix="bk_")
    assert connection.execute("SELECT hash_rows(5)").fetchone()[0] == 5
