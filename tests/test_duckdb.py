"""batchkeccak.duckdb: every algorithm and mode as a DuckDB SQL function, against hashlib,
hmac, pycryptodome and the SP 800-185 / RFC 9861 transcriptions."""

from __future__ import annotations

import pytest

duckdb = pytest.importorskip("duckdb")

from Crypto.Hash import keccak

from batchkeccak._sql import sql_functions
from batchkeccak.duckdb import register

from engine_oracles import engine_oracle

pytestmark = pytest.mark.every_backend  # every oracle test on every backend policy

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


def test_other_types_are_a_binder_error(con):
    with pytest.raises(duckdb.BinderException, match="sha3_256"):
        con.execute("SELECT sha3_256(42)").fetchall()


def test_prefix_and_registering_again():
    connection = duckdb.connect()
    names = register(connection, prefix="bk_", keys={"a": b"1"})
    assert "bk_sha3_256" in names and "bk_kmac_256_hex" in names
    assert all(name.startswith("bk_") for name in names)
    # Registering again replaces the functions, keys included.
    register(connection, prefix="bk_", keys={"a": b"2"})
    got = connection.execute("SELECT bk_hmac_sha3_256('x', 'a')").fetchone()[0]
    assert got == engine_oracle("hmac_sha3_256", b"x", key=b"2")


def test_never_shadows_duckdb_functions():
    connection = duckdb.connect()
    connection.execute("CREATE MACRO sha3_256(x) AS x")  # stands for a function DuckDB has
    with pytest.raises(ValueError, match="already has a function named 'sha3_256'.*prefix="):
        register(connection)
    assert "bk_sha3_256" in register(connection, prefix="bk_")
    # DuckDB's own sha256 is untouched.
    got = connection.execute("SELECT sha256('abc')").fetchone()[0]
    assert got == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"


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
