"""``batchkeccak digest`` and ``batchkeccak diff``: output, exit statuses as diff and cmp
(0 same, 1 different, 2 trouble), one-line errors, atomic output files."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pyarrow as pa
import pyarrow.parquet as pq
import pytest
import table_reference as ref

from batchkeccak.cli import main


def run(capsys, *argv):
    code = main([str(arg) for arg in argv])
    captured = capsys.readouterr()
    return code, captured.out, captured.err


@pytest.fixture
def files(tmp_path):
    before = {"id": [1, 2, 3, 4], "name": ["a", "b", "c\td", None], "n": [1, 2, 3, 4]}
    after = {"id": [4, 2, 3, 5], "name": [None, "B", "c\td", "e"], "n": [4, 2, 30, 5]}
    types = {"id": "int64", "name": "string", "n": "int64"}
    paths = []
    for name, columns in (("a", before), ("b", after)):
        path = tmp_path / f"{name}.parquet"
        pq.write_table(pa.table(columns), path, row_group_size=2)
        paths.append(path)
    return paths, before, after, types


def test_digest_prints_the_reference_digest(capsys, files):
    (a, b), before, _, types = files
    code, out, err = run(capsys, "digest", a, "--key", "id")
    assert (code, err) == (0, "")
    assert out == f"{ref.table_digest(before, types, ['id'])[0].hex()}  {a}\n"
    code, out, _ = run(capsys, "digest", a, b)
    lines = out.splitlines()
    assert lines[0] == f"{ref.table_digest(before, types)[0].hex()}  {a}"
    assert len(lines) == 2 and code == 0
    code, out, _ = run(capsys, "digest", a, "-k", "id", "--json")
    record = json.loads(out)
    assert record["rows"] == 4 and record["key"] == ["id"]
    assert record["digest"] == ref.table_digest(before, types, ["id"])[0].hex()


def test_diff_prints_each_difference_and_exits_1(capsys, files):
    (a, b), before, after, types = files
    code, out, err = run(capsys, "diff", a, b, "--key", "id")
    assert (code, err) == (1, "")
    expected = ref.diff(before, after, types, ["id"])
    marks = {"added": "+", "removed": "-", "changed": "~"}
    assert out.splitlines() == [
        "\t".join([marks[change], str(key[0])] + ([",".join(columns)] if columns else []))
        for key, change, columns in expected
    ]
    code, out, _ = run(capsys, "diff", a, a, "--key", "id")
    assert (code, out) == (0, "")


def test_diff_quiet_and_output_file(capsys, files, tmp_path):
    (a, b), _, _, _ = files
    code, out, _ = run(capsys, "diff", a, b, "-k", "id", "-q")
    assert (code, out) == (1, f"Tables {a} and {b} differ\n")
    code, out, _ = run(capsys, "diff", a, a, "-k", "id", "-q")
    assert (code, out) == (0, "")
    target = tmp_path / "changes.parquet"
    code, out, _ = run(capsys, "diff", a, b, "-k", "id", "-o", target)
    assert code == 1
    assert out == "1 added, 1 removed, 2 changed (4 rows in A, 4 in B)\n"
    written = pq.read_table(target)
    assert written["id"].to_pylist() == [1, 2, 3, 5]
    assert written["changed_columns"].to_pylist() == [None, ["name"], ["n"], None]
    assert sorted(os.listdir(tmp_path)) == ["a.parquet", "b.parquet", "changes.parquet"]


@pytest.mark.parametrize(
    ("make_args", "message"),
    [
        (
            lambda a, b, t: ["diff", a, t / "missing.parquet", "-k", "id"],
            "missing.parquet: No such file or directory",
        ),
        (lambda a, b, t: ["diff", a, b, "-k", "nope"], "--key: a has no column named 'nope'"),
        (
            lambda a, b, t: ["diff", a, t / "dup.parquet", "-k", "id"],
            "dup.parquet: key (id) is not unique",
        ),
        (lambda a, b, t: ["digest", t / "dup.parquet", "-k", "id"], "is not unique: 2"),
        (
            lambda a, b, t: ["diff", a, b, "-k", "id", "-o", t / "no" / "x.parquet"],
            "does not exist",
        ),
    ],
)
def test_trouble_is_one_line_and_exit_2(capsys, files, tmp_path, make_args, message):
    (a, b), _, _, _ = files
    pq.write_table(
        pa.table({"id": [1, 2, 2], "name": ["x", "y", "z"], "n": [1, 2, 3]}),
        tmp_path / "dup.parquet",
    )
    code, out, err = run(capsys, *make_args(a, b, tmp_path))
    assert code == 2 and out == ""
    assert err.startswith("batchkeccak: error: ") and err.count("\n") == 1
    assert message in err


def test_diff_in_a_fresh_process_without_a_traceback(files, tmp_path):
    (a, _), _, _, _ = files
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "batchkeccak",
            "diff",
            str(a),
            str(tmp_path / "gone.parquet"),
            "--key",
            "id",
        ],
        capture_output=True,
        text=True,
        check=False,
        timeout=120,
    )
    assert done.returncode == 2
    assert done.stderr.startswith("batchkeccak: error: ") and "Traceback" not in done.stderr


@pytest.mark.parametrize(
    "argv", [["diff", "--bogus"], ["diff", "a"], ["digest", "--bogus"], ["digest"]]
)
def test_a_misused_command_line_is_trouble_too(capsys, argv):
    # GNU diff and cmp answer 0 (same), 1 (different) and 2 for any trouble, a misused
    # command line included: a script testing for 1 must never take a typo for a difference.
    # digest has no "different" answer: a misused command line exits 1, as everywhere else.
    assert main(argv) == (2 if argv[0] == "diff" else 1)
    err = capsys.readouterr().err.splitlines()
    assert len(err) == 2 and err[1] == f"Try 'batchkeccak {argv[0]} --help' for more information."


@pytest.mark.skipif(not os.path.exists("/usr/bin/diff"), reason="GNU diff absent")
def test_gnu_diff_answers_a_misused_command_line_with_2():
    done = subprocess.run(["/usr/bin/diff", "--bogus"], capture_output=True, check=False)
    assert done.returncode == 2


def _table_files(tmp_path):
    """a: id, int32 n, a list column; b: the same with int64 n and a column of its own."""
    a = pa.table({"id": [1, 2, 3], "n": pa.array([1, 2, 3], pa.int32()), "tags": [[1], [2], [3]]})
    b = pa.table(
        {
            "id": [1, 2, 4],
            "n": pa.array([1, 20, 4], pa.int64()),
            "tags": [[1], [2], [4]],
            "extra": ["x", "y", "z"],
        }
    )
    paths = tmp_path / "a.parquet", tmp_path / "b.parquet"
    pq.write_table(a, paths[0])
    pq.write_table(b, paths[1])
    return paths


def test_digest_exclude_and_length(capsys, tmp_path):
    import hashlib

    a, _ = _table_files(tmp_path)
    plain = {"id": [1, 2, 3], "n": [1, 2, 3]}
    expected, _ = ref.table_digest(plain, {"id": "int64", "n": "int32"}, key=["id"])
    code, out, err = run(capsys, "digest", a, "--key", "id", "--exclude", "tags")
    assert (code, err) == (0, "") and out == f"{expected.hex()}  {a}\n"
    # shake_128 with --length 16: the same construction with a 16-byte H (hashlib's shake)
    code, out, err = run(capsys, "digest", a, "--exclude", "tags", "-a", "shake_128",
                         "--length", "16", "--json")  # fmt: skip
    assert code == 0, err
    result = json.loads(out)
    header = json.dumps(
        {
            "algorithm": result["algorithm"],
            "columns": [["id", "int64"], ["n", "int32"]],
            "format": "batchkeccak-table-v1",
            "key": None,
            "order": "digest",
            "rows": 3,
        },
        sort_keys=True,
        separators=(",", ":"),
    ).encode()
    root = bytes.fromhex(result["root"])
    assert result["digest"] == hashlib.shake_128(header + b"\n" + root).hexdigest(16)
    assert len(root) == 16


def test_diff_exclude_and_widen(capsys, tmp_path):
    a, b = _table_files(tmp_path)
    code, out, err = run(capsys, "diff", a, b, "-k", "id", "--exclude", "tags",
                         "--exclude", "extra", "--widen")  # fmt: skip
    # the dict model: id 2 changed in n (2 -> 20), 3 removed, 4 added
    assert (code, err) == (1, "")
    assert out.splitlines() == ["~\t2\tn", "-\t3", "+\t4"]
    code, out, err = run(capsys, "diff", a, b, "-k", "id", "--exclude", "tags",
                         "--exclude", "extra")  # fmt: skip
    assert code == 2 and "--widen" in err and "widen=" not in err


@pytest.mark.parametrize(
    ("argv", "words"),
    [
        (["digest", "A", "-a", "shake_128"], "--length"),
        (["digest", "A", "-a", "shake_128", "--length", "8"], "--length 8 is too short"),
        (["diff", "A", "B", "-k", "id", "-a", "shake_256", "--length", "15"], "at least 16"),
        (["digest", "A", "-a", "sha3_256", "--length", "32"], "--length is for the"),
        (["digest", "A", "--memory-limit", "12"], "--memory-limit: must be at least 64K"),
        (["diff", "A", "B", "-k", "id", "--memory-limit", "1K"], "--memory-limit"),
        (["digest", "A", "-k", "id", "-k", "id"], "--key names column 'id' twice"),
        (["digest", "A", "-c", "n", "--exclude", "tags"], "--column and --exclude"),
        # It said "kmac_256 requires key=": digest and diff have no key option.
        (
            ["digest", "A", "-a", "kmac_256", "--length", "32"],
            (
                "keyed algorithms need a key, which the digest command does not take: "
                "use batchkeccak.table_digest with bk.hasher(...)"
            ),
        ),
        (["diff", "A", "B", "-k", "id", "-a", "hmac_sha3_256"], "use batchkeccak.diff with"),
    ],
)
def test_misused_table_options_say_the_options(capsys, tmp_path, argv, words):
    a, b = _table_files(tmp_path)
    argv = [str(a) if arg == "A" else str(b) if arg == "B" else arg for arg in argv]
    assert main(argv) == (2 if argv[0] == "diff" else 1)  # README's error contract
    err = capsys.readouterr().err
    assert words in err and err.count("\n") == 2 and "Traceback" not in err
    for library_word in ("memory_limit", "columns=", "length is required", "suffix"):
        assert library_word not in err


@pytest.mark.parametrize(
    ("argv", "words"),
    [
        (["digest", "A", "-c", "zz"], "batchkeccak: error: --column: source has no column"),
        (["digest", "A", "--exclude", "zz"], "batchkeccak: error: --exclude: source has no"),
        (["diff", "A", "B", "-k", "id", "--exclude", "zz"], "--exclude: neither a nor b"),
    ],
)
def test_table_errors_say_the_options(capsys, tmp_path, argv, words):
    a, b = _table_files(tmp_path)
    argv = [str(a) if arg == "A" else str(b) if arg == "B" else arg for arg in argv]
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert err.startswith(words) if words.startswith("batchkeccak") else words in err
    assert err.count("\n") == 1 and "exclude=" not in err and "columns=" not in err


def test_a_column_without_an_encoding_points_to_exclude(capsys, tmp_path):
    # Parquet holds no type without a row encoding any longer (nested ones encode); an Arrow
    # IPC file can: an interval column.
    path = tmp_path / "intervals.arrow"
    table = pa.table(
        {"id": [1, 2], "gap": pa.array([(1, 2, 3), None], pa.month_day_nano_interval())}
    )
    with pa.OSFile(str(path), "wb") as sink, pa.ipc.new_file(sink, table.schema) as writer:
        writer.write_table(table)
    assert main(["digest", str(path)]) == 2
    err = capsys.readouterr().err
    assert "leave it out with --exclude" in err and err.count("\n") == 1
    assert "exclude=" not in err and "columns=" not in err
    assert main(["digest", str(path), "--exclude", "gap"]) == 0


def test_a_key_left_out_is_a_misused_command_line(capsys, tmp_path):
    # Options that do not go together: exit 1 and GNU's two lines (README's contract).
    a, _ = _table_files(tmp_path)
    assert main(["digest", str(a), "-k", "id", "--exclude", "id"]) == 1
    err = capsys.readouterr().err.splitlines()
    assert err == [
        "batchkeccak: --key and --exclude both name 'id': a key cannot be left out",
        "Try 'batchkeccak digest --help' for more information.",
    ]


@pytest.mark.parametrize(
    "argv, function",
    [
        (["digest", "a.parquet"], "table_digest"),
        (["diff", "a.parquet", "b.parquet", "--key", "id"], "diff"),
    ],
)
def test_each_table_command_hashes_with_its_functions_default(argv, function):
    """The command and the function it calls choose the same hash when none is named (diff's
    row digests are TurboSHAKE128 by default in both)."""
    import inspect

    import batchkeccak as bk
    from batchkeccak.cli import build_parser
    from batchkeccak.cli.table_options import table_keywords

    args = build_parser(argv).parse_args(argv)
    default = inspect.signature(getattr(bk, function)).parameters["algorithm"].default
    assert table_keywords(args)["algorithm"] == default


def test_diff_length_without_an_algorithm_is_a_misused_command_line(capsys, tmp_path):
    a, b = _table_files(tmp_path)
    assert main(["diff", str(a), str(b), "--key", "id", "--length", "32"]) == 2
    err = capsys.readouterr().err
    assert "--length" in err and "--algorithm" in err and "Traceback" not in err


@pytest.mark.parametrize(
    ("argv", "words"),
    [
        (["digest", "A", "-a", "nope"], "unknown --algorithm 'nope'"),
        (["diff", "A", "B", "-k", "id", "-a", "nope"], "unknown --algorithm 'nope'"),
        (["diff", "A", "B", "-k", "id", "-a", "sha3_265"], "did you mean 'sha3_256'"),
        (["digest", "A", "-a", "sha1"], "SHA-1 is not a Keccak hash"),
    ],
)
def test_an_unknown_algorithm_is_a_misused_command_line(capsys, tmp_path, argv, words):
    # It was trouble (exit 2, "batchkeccak: error: ...", "or batchkeccak hash --help") in
    # digest and diff, a usage error in hash: now a usage error everywhere, pointing to the
    # subcommand's own --help.
    a, b = _table_files(tmp_path)
    argv = [str(a) if arg == "A" else str(b) if arg == "B" else arg for arg in argv]
    assert main(argv) == (2 if argv[0] == "diff" else 1)
    err = capsys.readouterr().err.splitlines()
    assert len(err) == 2 and err[0].startswith("batchkeccak: unknown") and words in err[0]
    assert "hash --help" not in err[0] and "error:" not in err[0]
    assert err[1] == f"Try 'batchkeccak {argv[0]} --help' for more information."


def test_diff_length_without_algorithm_says_the_default_is_fixed(capsys, tmp_path):
    a, b = _table_files(tmp_path)
    assert main(["diff", str(a), str(b), "-k", "id", "--length", "16"]) == 2
    err = capsys.readouterr().err.splitlines()
    assert err[0] == (
        "batchkeccak: --length needs an --algorithm: the default row digest (turboshake128, "
        "32 bytes) has its length fixed; give an extendable-output --algorithm (shake_128, "
        "shake_256...) with --length"
    )


def _mismatched_files(tmp_path):
    a = pa.table({"id": [1], "n": pa.array([1], pa.int32()), "u": pa.array([1], pa.int32())})
    b = pa.table({"id": [1], "n": pa.array([1], pa.int64()), "u": pa.array([1], pa.uint64())})
    paths = tmp_path / "a.parquet", tmp_path / "b.parquet"
    pq.write_table(a, paths[0])
    pq.write_table(b, paths[1])
    return paths


@pytest.mark.parametrize(
    ("argv", "ending"),
    [
        # int32 against int64: the hint to --widen, then --exclude naming the column.
        (["--exclude", "u"], "or leave the column out with --exclude n"),
        # --widen with signed against unsigned.
        (["--exclude", "n", "--widen"], "cast one side, or leave the column out with --exclude u"),
    ],
)
def test_diffs_hints_name_the_column_to_exclude(capsys, tmp_path, argv, ending):
    # It ended "... leave the column out with --exclude " (the Python text's "exclude=").
    a, b = _mismatched_files(tmp_path)
    code = main(["diff", str(a), str(b), "-k", "id", *argv])
    err = capsys.readouterr().err
    assert code == 2 and err.count("\n") == 1
    assert err.rstrip("\n").endswith(ending)
    assert "=" not in err


def test_diff_of_other_columns_names_the_options(capsys, tmp_path):
    a, _ = _mismatched_files(tmp_path)
    other = tmp_path / "other.parquet"
    pq.write_table(pa.table({"id": [1], "n": pa.array([1], pa.int32()), "w": [2]}), other)
    assert main(["diff", str(a), str(other), "-k", "id"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "=" not in err
    assert "pass --column to compare the columns they share, or --exclude to leave those out" in err


def test_a_columns_without_an_encoding_names_it_to_exclude(capsys, tmp_path):
    path = tmp_path / "intervals.arrow"
    table = pa.table({"id": [1], "gap": pa.array([(1, 2, 3)], pa.month_day_nano_interval())})
    with pa.OSFile(str(path), "wb") as sink, pa.ipc.new_file(sink, table.schema) as writer:
        writer.write_table(table)
    assert main(["digest", str(path)]) == 2
    err = capsys.readouterr().err
    assert "(leave it out with --exclude gap)" in err and "=" not in err


@pytest.mark.parametrize(
    ("argv", "tail"),
    [
        (["digest", "S", "--exclude", "nope"], "; it has ['zeta', 'id', 'alpha']"),
        (["digest", "S", "--column", "ID"], "; it has ['zeta', 'id', 'alpha']"),
        (["diff", "S", "S", "--key", "idd"], "; it has ['zeta', 'id', 'alpha']"),
        (
            ["diff", "S", "T", "--key", "id", "--exclude", "nope"],
            "; they have ['zeta', 'id', 'alpha'] and ['id', 'beta']",
        ),
    ],
)
def test_column_lists_are_in_schema_order_in_one_wording(capsys, tmp_path, argv, tail):
    # --exclude said "the columns are [sorted]", --column and --key "it has [schema order]".
    s, t = tmp_path / "s.parquet", tmp_path / "t.parquet"
    pq.write_table(pa.table({"zeta": [1], "id": [1], "alpha": ["x"]}), s)
    pq.write_table(pa.table({"id": [1], "beta": ["x"]}), t)
    argv = [str(s) if arg == "S" else str(t) if arg == "T" else arg for arg in argv]
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert err.rstrip("\n").endswith(tail) and err.count("\n") == 1


def test_memory_exhausted_is_trouble_not_a_difference(capsys, files, monkeypatch):
    # diff's 1 says "the tables differ": a run that ran out of memory is trouble (2), as any.
    import batchkeccak.tables

    def exhausted(*args, **kwargs):
        raise MemoryError

    monkeypatch.setattr(batchkeccak.tables, "diff", exhausted)
    (a, _), _, _, _ = files
    code, out, err = run(capsys, "diff", a, a, "-k", "id")
    assert (code, out, err) == (2, "", "batchkeccak: memory exhausted\n")


def test_a_file_name_with_a_line_break_stays_on_one_line(capsys, tmp_path):
    missing = tmp_path / "miss\ning.parquet"
    code, _, err = run(capsys, "digest", missing)
    assert code == 2 and err.count("\n") == 1, err
    assert err.endswith("ing.parquet': No such file or directory\n") and "$'\\n'" in err, err
