"""batchkeccak.parquet.hash_file and ``batchkeccak parquet``: round trips and error paths."""

from __future__ import annotations

import hashlib
import io
import os
import subprocess
import sys
import threading

import pyarrow as pa
import pyarrow.dataset as ds
import pyarrow.parquet as pq
import pytest

from batchkeccak import parquet
from batchkeccak.cli import main
from batchkeccak.core.executor import Executor
from batchkeccak.parquet import hash_file

from oracles import oracle

pytestmark = pytest.mark.every_backend  # every oracle test on every backend policy

ROWS = 1000


def sample_table(rows=ROWS, start=0):
    ids = list(range(start, start + rows))
    return pa.table(
        {
            "id": pa.array(ids, pa.int64()),
            "email": [None if i % 7 == 0 else f"user{i}@example.org" * (i % 5) for i in ids],
            "payload": pa.array([bytes([i % 251]) * (i % 300) for i in ids], pa.large_binary()),
            "score": pa.array([i / 3 for i in ids], pa.float64()),
        }
    ).replace_schema_metadata({"owner": "analytics", "version": "3"})


def digest(value, algorithm="sha3_256", length=None):
    if value is None:
        return None
    return oracle(algorithm, value.encode() if isinstance(value, str) else value, length)


def leftovers(folder):
    return sorted(name for name in os.listdir(folder) if name.endswith(".tmp"))


@pytest.fixture
def source(tmp_path):
    path = tmp_path / "source.parquet"
    pq.write_table(sample_table(), path, compression="zstd", row_group_size=300)
    return path


def test_round_trip_larger_than_one_batch(source, tmp_path):
    dst = tmp_path / "hashed.parquet"
    report = hash_file(source, dst, ["email", "payload"], "keccak_256", batch_size=128)
    assert report.rows == ROWS and report.batches >= ROWS // 128
    assert report.digest_columns == {"email": "email_keccak_256", "payload": "payload_keccak_256"}
    written = pq.read_table(dst)
    original = sample_table()
    assert written.schema.names == original.schema.names + list(report.digest_columns.values())
    assert written.schema.metadata == original.schema.metadata
    assert written.select(original.schema.names).equals(original)
    assert written["email_keccak_256"].type == pa.binary(32)
    assert written["email_keccak_256"].to_pylist() == [
        digest(v, "keccak_256") for v in original["email"].to_pylist()
    ]
    assert written["payload_keccak_256"].to_pylist() == [
        digest(v, "keccak_256") for v in original["payload"].to_pylist()
    ]
    metadata = pq.ParquetFile(dst).metadata
    assert all(metadata.row_group(i).num_rows <= 128 for i in range(metadata.num_row_groups))
    codecs = {
        metadata.row_group(0).column(i).path_in_schema: metadata.row_group(0).column(i).compression
        for i in range(metadata.num_columns)
    }
    assert codecs["email"] == "ZSTD" and codecs["email_keccak_256"] == "UNCOMPRESSED"
    assert leftovers(tmp_path) == []


def test_hex_xof_and_suffix(source, tmp_path):
    dst = tmp_path / "hex.parquet"
    hash_file(source, dst, "email", "shake_256", length=12, hex=True, suffix="_id")
    written = pq.read_table(dst, columns=["email", "email_id"])
    assert written["email_id"].type == pa.string()
    assert written["email_id"].to_pylist() == [
        None if v is None else digest(v, "shake_256", 12).hex()
        for v in written["email"].to_pylist()
    ]


def test_dataset_directory_with_partitions(tmp_path):
    folder = tmp_path / "events"
    for part in (1, 2):
        (folder / f"part={part}").mkdir(parents=True)
        pq.write_table(
            sample_table(200, start=part * 1000), folder / f"part={part}" / "data.parquet"
        )
    dst = tmp_path / "events_hashed.parquet"
    report = hash_file(folder, dst, "email", batch_size=64)
    assert report.rows == 400
    written = pq.read_table(dst)
    assert "part" in written.schema.names
    assert written["email_sha3_256"].to_pylist() == [
        digest(v) for v in written["email"].to_pylist()
    ]


def test_dataset_object_with_dictionary_columns(source, tmp_path):
    parquet_format = ds.ParquetFileFormat(
        read_options=ds.ParquetReadOptions(dictionary_columns=["email"])
    )
    dataset = ds.dataset(source, format=parquet_format)
    assert pa.types.is_dictionary(dataset.schema.field("email").type)
    dst = tmp_path / "dict.parquet"
    hash_file(dataset, dst, "email")
    written = pq.read_table(dst)
    assert written["email_sha3_256"].to_pylist() == [
        digest(v) for v in written["email"].to_pylist()
    ]


def test_memory_follows_the_batch_not_the_file(tmp_path, monkeypatch):
    rows, width = 20_000, 512  # 10 MB of payload in 20 row groups
    payload = pa.array([bytes([i % 251]) * width for i in range(rows)], pa.binary())
    src = tmp_path / "wide.parquet"
    pq.write_table(pa.table({"payload": payload}), src, compression="none", row_group_size=1000)
    del payload
    held = []
    real_hash_array = parquet.hash_array

    def recording_hash_array(*args, **kwargs):
        held.append(pa.total_allocated_bytes())
        return real_hash_array(*args, **kwargs)

    monkeypatch.setattr(parquet, "hash_array", recording_hash_array)
    monkeypatch.setattr(parquet, "_load_kernels", lambda *a: 0.0)  # its samples are no batch
    before = pa.total_allocated_bytes()
    hash_file(src, tmp_path / "out.parquet", "payload", batch_size=1000)
    assert len(held) == 20
    # About one row group (0.5 MB) is alive at a time, not the 10 MB file.
    assert max(held) - before < 3_000_000


def test_existing_destination_is_replaced_only_when_complete(source, tmp_path, monkeypatch):
    dst = tmp_path / "out.parquet"
    dst.write_bytes(b"previous contents")
    calls = []
    real_hash_array = parquet.hash_array

    def failing_after_two_batches(*args, **kwargs):
        calls.append(1)
        if len(calls) > 2:
            raise RuntimeError("simulated crash mid-file")
        return real_hash_array(*args, **kwargs)

    monkeypatch.setattr(parquet, "hash_array", failing_after_two_batches)
    with pytest.raises(RuntimeError, match="mid-file"):
        hash_file(source, dst, "email", batch_size=100)
    assert dst.read_bytes() == b"previous contents"
    assert leftovers(tmp_path) == []
    monkeypatch.setattr(parquet, "hash_array", real_hash_array)
    hash_file(source, dst, "email", batch_size=100)
    assert pq.read_table(dst).num_rows == ROWS


@pytest.mark.parametrize(
    "kwargs,error,message",
    [
        ({"columns": "missing"}, ValueError, r"no column named 'missing'.*'email'"),
        ({"columns": "score"}, TypeError, r"column 'score' has type double; expected binary"),
        ({"columns": "email", "suffix": "_name", "collide": True}, ValueError, "already exists"),
        ({"columns": []}, ValueError, "at least one column"),
        ({"columns": "email", "algorithm": "md5"}, ValueError, "unknown algorithm"),
        ({"columns": "email", "algorithm": "shake_128"}, TypeError, "length is required"),
        ({"columns": "email", "batch_size": 0}, ValueError, "batch_size"),
    ],
    ids=[
        "missing-column",
        "unsupported-type",
        "name-taken",
        "no-columns",
        "algorithm",
        "xof-length",
        "batch-size",
    ],
)
def test_argument_errors_leave_nothing_behind(tmp_path, kwargs, error, message):
    kwargs = dict(kwargs)  # the parameter set is shared by every backend policy's run
    table = sample_table(10)
    if kwargs.pop("collide", False):
        table = table.append_column("email_name", pa.array(["x"] * 10))
    src = tmp_path / "src.parquet"
    pq.write_table(table, src)
    dst = tmp_path / "dst.parquet"
    columns = kwargs.pop("columns")
    with pytest.raises(error, match=message):
        hash_file(src, dst, columns, **kwargs)
    assert not dst.exists() and leftovers(tmp_path) == []


def test_path_errors(tmp_path, source):
    with pytest.raises(FileNotFoundError, match="no such file"):
        hash_file(tmp_path / "absent.parquet", tmp_path / "dst.parquet", "email")
    with pytest.raises(IsADirectoryError):
        hash_file(source, tmp_path, "email")
    with pytest.raises(FileNotFoundError, match="does not exist"):
        hash_file(source, tmp_path / "no" / "dst.parquet", "email")
    not_parquet = tmp_path / "notes.parquet"
    not_parquet.write_text("not parquet at all")
    with pytest.raises(ValueError, match="is a text file, not a Parquet file"):
        hash_file(not_parquet, tmp_path / "dst.parquet", "email")
    not_parquet.write_bytes(b"\x00\x01 binary, but no Parquet footer")
    with pytest.raises(ValueError, match="not a readable Parquet file"):
        hash_file(not_parquet, tmp_path / "dst.parquet", "email")
    folder = tmp_path / "dataset"
    folder.mkdir()
    pq.write_table(sample_table(5), folder / "a.parquet")
    with pytest.raises(ValueError, match="inside the source dataset"):
        hash_file(folder, folder / "hashed.parquet", "email")
    assert not (tmp_path / "dst.parquet").exists() and leftovers(tmp_path) == []


def test_progress_bar_shows_rows_and_throughput_on_a_terminal(source, tmp_path, monkeypatch):
    class Terminal(io.StringIO):
        def isatty(self):
            return True

    terminal = Terminal()
    monkeypatch.setattr("sys.stderr", terminal)
    hash_file(source, tmp_path / "p.parquet", "email", batch_size=100, progress=True)
    shown = terminal.getvalue()
    assert "rows" in shown and "MB/s" in shown


def test_cli_success_is_silent_on_stderr_when_not_a_terminal(source, tmp_path, capsys):
    dst = tmp_path / "cli.parquet"
    assert (
        main(
            [
                "parquet",
                str(source),
                str(dst),
                "--column",
                "email",
                "--column",
                "payload",
                "--algorithm",
                "keccak_256",
                "--hex",
                "--batch-size",
                "256",
            ]
        )
        == 0
    )
    captured = capsys.readouterr()
    assert captured.err == ""
    assert "1,000 rows" in captured.out and "email -> email_keccak_256" in captured.out
    written = pq.read_table(dst, columns=["payload", "payload_keccak_256"])
    assert written["payload_keccak_256"].to_pylist()[:20] == [
        digest(v, "keccak_256").hex() for v in written["payload"].to_pylist()[:20]
    ]


@pytest.mark.parametrize(
    "arguments,message",
    [
        (["{missing}", "{dst}", "--column", "email"], "missing.parquet: No such file or directory"),
        (["{src}", "{dst}", "--column", "nope"], "no column named 'nope'"),
        (["{src}", "{dst}", "--column", "id"], "column 'id' has type int64"),
    ],
    ids=["missing-file", "missing-column", "unsupported-type"],
)
def test_cli_errors_exit_2_and_leave_no_output(source, tmp_path, capsys, arguments, message):
    dst = tmp_path / "never.parquet"
    paths = {"missing": str(tmp_path / "missing.parquet"), "src": str(source), "dst": str(dst)}
    status = main(["parquet"] + [a.format(**paths) for a in arguments])
    captured = capsys.readouterr()
    assert status == 2
    assert captured.err.startswith("batchkeccak: error: ") and message in captured.err
    assert not dst.exists() and leftovers(tmp_path) == []


@pytest.mark.parametrize(
    "arguments,message",
    [
        (["--column", "email", "--column", "email"], "--column names column 'email' twice"),
        (["--column", "email", "--algorithm", "sha1"], "unknown --algorithm 'sha1'"),
        (["--column", "email", "--algorithm", "kecak_256"], "did you mean 'keccak_256'"),
    ],
    ids=["column-twice", "algorithm", "did-you-mean"],
)
def test_cli_misused_command_lines_exit_1(source, tmp_path, capsys, arguments, message):
    # A column named twice and an unknown --algorithm were trouble (exit 2); as in hash, they
    # are a misused command line: GNU's two lines and exit 1.
    dst = tmp_path / "never.parquet"
    status = main(["parquet", str(source), str(dst), *arguments])
    err = capsys.readouterr().err.splitlines()
    assert status == 1 and len(err) == 2
    assert err[0].startswith("batchkeccak: ") and message in err[0] and "error:" not in err[0]
    assert err[1] == "Try 'batchkeccak parquet --help' for more information."
    assert not dst.exists() and leftovers(tmp_path) == []


@pytest.mark.parametrize("algorithm", ["sha3_256", "keccak_256", "shake_256"])
def test_demo_runs_the_parquet_path_and_checks_against_the_reference(capsys, algorithm):
    assert main(["demo", "--count", "3000", "--algorithm", algorithm]) == 0
    captured = capsys.readouterr()
    # The demo names the independent loop it checked against (hashlib or pycryptodome).
    reference = "pycryptodome" if algorithm == "keccak_256" else "hashlib"
    assert "checked 3,000 random digests against " in captured.out
    assert ": all equal" in captured.out and reference in captured.out
    assert f"added payload_{algorithm}" in captured.out
    assert captured.err == ""


# ----------------------------------------------------------------------------------------
# --replace: the digest in place of its column


def _sha3_256(value):
    if value is None:
        return None
    return hashlib.sha3_256(value.encode() if isinstance(value, str) else value).digest()


@pytest.mark.parametrize("hex", [False, True])
def test_replace_writes_each_digest_in_place_of_its_column(source, tmp_path, hex):
    dst = tmp_path / "replaced.parquet"
    report = hash_file(source, dst, ["payload", "email"], replace=True, hex=hex, batch_size=128)
    assert report.digest_columns == {"payload": "payload", "email": "email"}
    written, original = pq.read_table(dst), sample_table()
    assert written.schema.names == original.schema.names  # same names, same order
    assert written.schema.metadata == original.schema.metadata
    digest_type = pa.string() if hex else pa.binary(32)
    assert written.schema.field("email").type == digest_type
    assert written.schema.field("payload").type == digest_type
    for name in ("email", "payload"):
        expected = [_sha3_256(v) for v in original[name].to_pylist()]
        if hex:
            expected = [None if d is None else d.hex() for d in expected]
        assert written[name].to_pylist() == expected  # nulls stay null
    for name in ("id", "score"):
        assert written[name].equals(original[name])


def test_replace_and_suffix_do_not_go_together(source, tmp_path):
    with pytest.raises(ValueError, match="suffix.*replace=True"):
        hash_file(source, tmp_path / "dst.parquet", "email", replace=True, suffix="_h")
    with pytest.raises(TypeError, match="replace must be a bool"):
        hash_file(source, tmp_path / "dst.parquet", "email", replace="yes")
    assert leftovers(tmp_path) == [] and not (tmp_path / "dst.parquet").exists()


def test_cli_replace(source, tmp_path, capsys):
    dst = tmp_path / "cli.parquet"
    status = main(["parquet", str(source), str(dst), "-c", "email", "-c", "payload", "--replace"])
    captured = capsys.readouterr()
    assert status == 0, captured.err
    assert "email replaced, payload replaced" in captured.out
    written, original = pq.read_table(dst), sample_table()
    assert written.schema.names == original.schema.names
    assert written["email"].to_pylist() == [_sha3_256(v) for v in original["email"].to_pylist()]
    assert written["payload"].to_pylist() == [_sha3_256(v) for v in original["payload"].to_pylist()]
    assert written["id"].equals(original["id"]) and written["score"].equals(original["score"])


def test_cli_replace_with_suffix_is_a_usage_error(source, tmp_path, capsys):
    dst = tmp_path / "never.parquet"
    status = main(["parquet", str(source), str(dst), "-c", "email", "--replace", "--suffix", "_h"])
    err = capsys.readouterr().err
    assert status == 1
    assert err.startswith("batchkeccak: --replace and --suffix do not go together")
    assert "Try 'batchkeccak parquet --help'" in err
    assert not dst.exists()


@pytest.mark.parametrize("hex", [False, True])
def test_digest_columns_carry_the_mark_and_are_not_hashed_again(source, tmp_path, hex):
    # A pseudonymization job run twice replaced the digests by digests of digests, silently.
    once, twice = tmp_path / "once.parquet", tmp_path / "twice.parquet"
    hash_file(source, once, "email", "keccak_256", replace=True, hex=hex)
    hash_file(source, tmp_path / "suffixed.parquet", "email", hex=hex)
    assert pq.read_schema(once).field("email").metadata == {b"batchkeccak.algorithm": b"keccak_256"}
    suffixed = pq.read_schema(tmp_path / "suffixed.parquet")
    assert suffixed.field("email_sha3_256").metadata == {b"batchkeccak.algorithm": b"sha3_256"}
    assert suffixed.field("email").metadata is None  # the source's column is left unmarked
    for path, column in ((once, "email"), (tmp_path / "suffixed.parquet", "email_sha3_256")):
        for replace in (True, False):
            with pytest.raises(ValueError, match=f"column '{column}' already holds batchkeccak"):
                hash_file(path, twice, column, replace=replace)
    assert not twice.exists() and leftovers(tmp_path) == []


def test_cli_replace_twice_is_refused(source, tmp_path, capsys):
    data = tmp_path / "c.parquet"
    pq.write_table(sample_table(), data)
    argv = ["parquet", str(data), str(data), "--column", "email", "--replace"]
    assert main(argv) == 0
    first = pq.read_table(data)
    capsys.readouterr()
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert err == (
        "batchkeccak: error: --column: column 'email' already holds batchkeccak sha3_256 "
        "digests (its field metadata has batchkeccak.algorithm); hashing it again would give "
        "digests of digests, which no longer join: name a column of the original data\n"
    )
    assert pq.read_table(data).equals(first)  # the digests of the first run, untouched


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="FIFOs")
def test_cli_replace_into_a_fifo(source, tmp_path, capsys):
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    received = {}

    def read():
        with open(fifo, "rb") as stream:
            received["data"] = stream.read()

    reader = threading.Thread(target=read, daemon=True)
    reader.start()
    status = main(["parquet", str(source), str(fifo), "-c", "email", "--replace"])
    reader.join(30)
    assert status == 0, capsys.readouterr().err
    written, original = pq.read_table(pa.BufferReader(received["data"])), sample_table()
    assert written.schema.names == original.schema.names
    assert written["email"].to_pylist() == [_sha3_256(v) for v in original["email"].to_pylist()]
    assert written["payload"].equals(original["payload"])


# ----------------------------------------------------------------------------------------
# Kernel loading is not hash time


def test_kernels_are_loaded_before_the_clock_starts(source, tmp_path, monkeypatch):
    from batchkeccak.core import dispatch

    calls = []
    real_hash_array = parquet.hash_array
    process_policy = dispatch._forced

    def recording(values, *args, **kwargs):
        # The policy in force on the hashing thread, and the process-wide one beside it.
        calls.append((len(values), (dispatch.policy(), dispatch._forced)))
        return real_hash_array(values, *args, **kwargs)

    monkeypatch.setattr(parquet, "hash_array", recording)
    # A budget of nothing: the whole source is the kernels' work.
    monkeypatch.setattr(Executor, "oneshot_byte_budget", lambda *a: -1)
    report = hash_file(source, tmp_path / "k.parquet", ["email", "payload"], batch_size=500)
    warm, batches = calls[:2], calls[2:]
    # One load per hashed column, on the kernels for this thread alone: the process's own
    # policy is never swapped (another thread's calls keep theirs).
    assert [forced for _, forced in warm] == [("kernels", process_policy)] * 2
    assert sum(count for count, _ in batches) == 2 * ROWS
    assert all(count == 500 for count, _ in batches)
    assert report.load_seconds > 0


def test_a_source_small_enough_for_hashlib_loads_nothing(tmp_path, monkeypatch):
    from batchkeccak.core import dispatch

    calls = []
    real_hash_array = parquet.hash_array
    monkeypatch.setattr(
        parquet,
        "hash_array",
        lambda v, *a, **k: calls.append(len(v)) or real_hash_array(v, *a, **k),
    )
    src = tmp_path / "small.parquet"
    pq.write_table(sample_table(3), src)
    report = hash_file(src, tmp_path / "k.parquet", "email")
    if dispatch._forced == "kernels":  # the policy that gives every call to the kernels
        assert len(calls) == 2 and calls[1] == 3  # the kernels' samples, then the column
    else:
        assert calls == [3] and report.load_seconds == 0.0


_NOTHING_LOADS_LATE = """
import sys
import numba.core.dispatcher
from batchkeccak import parquet
from batchkeccak.cli import main

compile_signature = numba.core.dispatcher.Dispatcher.compile
load_kernels = parquet._load_kernels
late = []


def compile_recorded(dispatcher, signature):
    if getattr(load_kernels, "done", False):
        late.append(dispatcher.py_func.__qualname__)
    return compile_signature(dispatcher, signature)


def load_then_mark(*args):
    seconds = load_kernels(*args)
    load_kernels.done = True
    return seconds


numba.core.dispatcher.Dispatcher.compile = compile_recorded
parquet._load_kernels = load_then_mark
status = main(sys.argv[1:])
print(status, ",".join(late))
"""


@pytest.mark.slow  # a child process of its own
@pytest.mark.kernels_only  # the command's process is given the kernels itself
def test_no_kernel_loads_after_the_clock_starts(tmp_path):
    # In a fresh process (kernels loaded from the cache or compiled, nothing in memory yet):
    # every compile or cache load happens in the load phase, none as a batch is hashed.
    # Columns of equal single-block values take a kernel of their own.
    src = tmp_path / "in.parquet"
    values = [bytes([i % 256]) * 48 for i in range(3000)]
    table = pa.table(
        {
            "fixed": pa.array(values, pa.binary(48)),
            "binary": pa.array(values, pa.binary()),
            "text": pa.array([v.hex()[:48] for v in values], pa.string()),
        }
    )
    pq.write_table(table, src)
    columns = [arg for name in table.column_names for arg in ("-c", name)]
    done = subprocess.run(
        [
            sys.executable,
            "-c",
            _NOTHING_LOADS_LATE,
            "parquet",
            str(src),
            str(tmp_path / "o.parquet"),
        ]
        + [*columns, "--threads", "1"],
        capture_output=True,
        text=True,
        check=False,
        timeout=600,
        env={
            **os.environ,
            "BATCHKECCAK_BACKEND": "kernels",
            "PYTHONPATH": os.pathsep.join(sys.path),
        },
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines()[-1] == "0 ", done.stdout


def test_cli_summary_names_the_kernel_load_apart(source, tmp_path, capsys, monkeypatch):
    monkeypatch.setattr(parquet, "_load_kernels", lambda *a: 1.25)
    assert main(["parquet", str(source), str(tmp_path / "s.parquet"), "-c", "email"]) == 0
    assert capsys.readouterr().out.rstrip().endswith("; kernels loaded in 1.25 s")
    monkeypatch.setattr(parquet, "_load_kernels", lambda *a: 0.0)
    assert main(["parquet", str(source), str(tmp_path / "s.parquet"), "-c", "email"]) == 0
    assert "kernels loaded" not in capsys.readouterr().out
