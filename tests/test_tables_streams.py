"""Every producer's stream a table call exports is released on every error path, those that
``diff`` opens on its reader threads included: a DuckDB connection answers inside the
``except`` block."""

from __future__ import annotations

import pyarrow as pa
import pytest

import batchkeccak as bk
from batchkeccak.errors import DuplicateKeyError
from batchkeccak.inputs.arrow_producers import exported_stream, releases_on_error
from batchkeccak.tables import sources
from batchkeccak.tables.keys import KeyEncoder
from batchkeccak.tables.runs import RunBuilder, Spill, digest_sources
from batchkeccak.tables.sources import open_source

duckdb = pytest.importorskip("duckdb")


@pytest.fixture
def con():
    connection = duckdb.connect()
    connection.execute("create table good as select i as id, i * 2 as v from range(1000) r(i)")
    connection.execute("create table dup as select i % 7 as id, i * 2 as v from range(1000) r(i)")
    connection.execute(
        "create table nul as select case when i = 100 then null else i end as id, i as v "
        "from range(5000000) r(i)"
    )
    yield connection
    connection.close()


@pytest.mark.parametrize("threads", [1, 2, 4])
def test_diff_with_a_duckdb_second_table_and_a_bad_key(con, threads):
    a = con.sql("select * from good").arrow().read_all()
    try:
        bk.diff(a, con.sql("select * from nul"), key="id", threads=threads)
    except ValueError:
        assert con.execute("select 42").fetchall() == [(42,)]
    try:
        bk.diff(a, con.sql("select * from dup"), key="id", threads=threads)
    except DuplicateKeyError:
        assert con.execute("select 42").fetchall() == [(42,)]
    with pytest.raises(ValueError, match="no column named 'nope'"):
        bk.diff(a, con.sql("select * from dup"), key="nope", threads=threads)
    assert con.execute("select 42").fetchall() == [(42,)]


def _closed(reader) -> bool:
    try:
        reader.read_next_batch()
    except pa.ArrowInvalid as exc:
        return "closed" in str(exc)
    except StopIteration:
        return False
    return False


def test_streams_opened_on_reader_threads_are_released(con, monkeypatch):
    """A source read a second time exports a new stream where it is read: on diff's reader
    threads. That stream too is closed when the call fails, even while something else
    (here: the list below) still holds it."""
    exported = []

    def recorded(*args, **kwargs):
        reader = exported_stream(*args, **kwargs)
        exported.append(reader)
        return reader

    monkeypatch.setattr(sources, "exported_stream", recorded)

    @releases_on_error
    def read_twice_then_fail() -> None:
        a = open_source(con.sql("select * from good").arrow().read_all(), "a")
        b = open_source(con.sql("select * from nul"), "b")
        for _ in b.batches(["id"]):  # the first stream, read here in full
            pass
        encoders = [KeyEncoder.of(a, ["id"]), KeyEncoder.of(b, ["id"])]
        with Spill(None) as spill:
            builders = [
                RunBuilder(side, source.argument, encoder, 1 << 20, spill, 32)
                for side, (source, encoder) in enumerate(zip([a, b], encoders))
            ]
            digest_sources([a, b], builders, ["v"], bk.hasher("sha3_256"), 2, False)

    try:
        read_twice_then_fail()
    except ValueError as exc:  # the traceback, alive here, holds the reader thread's frames
        assert "null" in str(exc)
        # The schema's stream (a DuckDB relation's is closed at once), the full read, and
        # the reader thread's.
        assert len(exported) == 3 and all(_closed(reader) for reader in exported)
        assert con.execute("select 42").fetchall() == [(42,)]
    else:
        pytest.fail("a null key raised nothing")


def _dict_diff(a: dict, b: dict) -> dict:
    """diff's answer by a plain model: key -> change, for rows given as {key: value}."""
    changes = {k: "removed" for k in a.keys() - b.keys()}
    changes.update({k: "added" for k in b.keys() - a.keys()})
    changes.update({k: "changed" for k in a.keys() & b.keys() if a[k] != b[k]})
    return changes


@pytest.mark.parametrize("rows", [1, 10, 100_000])
@pytest.mark.parametrize("changed_columns", [True, False])
@pytest.mark.parametrize("threads", [1, 4])
def test_diff_of_two_relations_of_one_connection(rows, changed_columns, threads):
    # Both sides used to stream from one connection at once: "connection has an open
    # result; drain or destroy it before starting a new query", whatever the sizes.
    connection = duckdb.connect()
    a_sql = f"select i as id, i % 7 as v from range({rows}) t(i)"
    b_sql = f"select i + 1 as id, i % 5 as v from range({rows}) t(i)"
    got = bk.diff(
        connection.sql(a_sql), connection.sql(b_sql), key="id",
        changed_columns=changed_columns, threads=threads,
    )  # fmt: skip
    want = _dict_diff({i: i % 7 for i in range(rows)}, {i + 1: i % 5 for i in range(rows)})
    assert dict(zip(got["id"].to_pylist(), got["change"].to_pylist())) == want
    assert connection.execute("select 42").fetchall() == [(42,)]  # no result left open
    connection.close()


def test_diff_of_two_relations_of_the_default_connection():
    got = bk.diff(
        duckdb.sql("select 1 as id, 'a' as s"), duckdb.sql("select 1 as id, 'b' as s"), key="id"
    )
    assert got.to_pylist() == [{"id": 1, "change": "changed", "changed_columns": ["s"]}]
    assert duckdb.sql("select 42").fetchall() == [(42,)]
