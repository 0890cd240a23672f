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
        (lambda a, b, t: ["diff", a, t / "missing.parquet", "-k", "id"], "no such file"),
        (lambda a, b, t: ["diff", a, b, "-k", "nope"], "key: a has no column named 'nope'"),
        (lambda a, b, t: ["diff", a, t / "dup.parquet", "-k", "id"], "b: key (id) is not unique"),
        (lambda a, b, t: ["digest", t / "dup.parquet", "-k", "id"], "is not unique: 2"),
        (
            lambda a, b, t: ["diff", a, b, "-k", "id", "-o", t / "no" / "x.parquet"],
            "does not exist",
        ),
        (lambda a, b, t: ["digest", a, "--memory-limit", "12"], "memory_limit must be at least"),
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
    assert main(argv) == 2
    err = capsys.readouterr().err.splitlines()
    assert len(err) == 2 and err[1] == f"Try 'batchkeccak {argv[0]} --help' for more information."


@pytest.mark.skipif(not os.path.exists("/usr/bin/diff"), reason="GNU diff absent")
def test_gnu_diff_answers_a_misused_command_line_with_2():
    done = subprocess.run(["/usr/bin/diff", "--bogus"], capture_output=True, check=False)
    assert done.returncode == 2
