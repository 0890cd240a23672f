"""The command line's errors in its own words: option names, never the library's argument or
function names (``columns=``, ``src:``, ``hash_file:``), and sources that are not Parquet
said for what they are."""

from __future__ import annotations

import os
import re
import sys

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from batchkeccak.cli import main
from batchkeccak.cli.words import COMMON, in_cli_words

PYTHON_NAMES = re.compile(
    r"(^|[ ;(])(src|dst|source|columns|hash_file|table_digest|memory_limit|batch_size|length"
    r"|a|b)(:|=| is required| applies| must)"
)
"""A Python parameter or function name where the message names what it refers to."""


@pytest.fixture(scope="module")
def folder(tmp_path_factory):
    where = tmp_path_factory.mktemp("words")
    table = pa.table({"id": [1, 2], "email": ["a", None], "age": [30, 40]})
    pq.write_table(table, where / "a.parquet")
    (where / "log.txt").write_text("GET /index.html 200\nGET /missing 404\n")
    (where / "empty").write_bytes(b"")
    (where / "no-parquet").mkdir()
    return where


def _error(capsys, argv, status=2):
    assert main(argv) == status
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and err.startswith("batchkeccak: error: "), err
    message = err[len("batchkeccak: error: ") : -1]
    assert not PYTHON_NAMES.search(message), message
    assert "internal error" not in err
    return message


@pytest.mark.parametrize(
    "argv,expected",
    [
        (["-c", "nope"], "--column: no column named 'nope'"),
        (["-c", "age"], "column 'age' has type int64"),
        (["-c", "email", "-a", "shake_128"], "--length is required for shake_128"),
        (["-c", "email", "--length", "5"], "--length applies only to extendable-output"),
    ],
)
def test_parquet_errors_name_the_options(folder, tmp_path, capsys, argv, expected):
    message = _error(capsys, ["parquet", str(folder / "a.parquet"), str(tmp_path / "o"), *argv])
    assert message.startswith(expected), message


@pytest.mark.parametrize(
    "argv",
    [
        ["parquet", "{missing}", "{out}", "-c", "email"],
        ["digest", "{missing}"],
        ["diff", "{a}", "{missing}", "-k", "id"],
        ["merkle", "root", "{missing}", "-s", "rfc9162", "-f", "hex"],
        ["merkle", "root", "{missing}", "-s", "rfc9162", "-f", "parquet", "-c", "email"],
    ],
    ids=lambda argv: " ".join(argv[:4]),
)
def test_a_missing_input_is_said_as_every_missing_file(folder, tmp_path, capsys, argv):
    # GNU's words, FILE: REASON, as `hash` says it (tests/test_cli_hash.py), in every command.
    missing = str(folder / "missing.parquet")
    names = {"missing": missing, "out": str(tmp_path / "o"), "a": str(folder / "a.parquet")}
    message = _error(capsys, [a.format(**names) for a in argv])
    assert message == f"{missing}: No such file or directory"


@pytest.mark.parametrize(
    "name,expected",
    [
        ("empty", "is empty (0 bytes), not a Parquet file"),
        ("log.txt", "is a text file, not a Parquet file"),
        ("no-parquet", "holds no Parquet files"),
    ],
)
def test_digest_says_what_a_source_that_is_not_parquet_is(folder, capsys, name, expected):
    path = str(folder / name)
    message = _error(capsys, ["digest", path])
    assert path in message and expected in message, message


@pytest.mark.skipif(not os.path.exists("/dev/null") or sys.platform == "win32", reason="devices")
def test_digest_of_dev_null_says_it_is_a_device(capsys):
    message = _error(capsys, ["digest", "/dev/null"])
    assert message == "'/dev/null' is a character device, not a Parquet file or a folder of them"


def test_diff_names_the_file_not_the_argument(folder, capsys):
    text = str(folder / "log.txt")
    message = _error(capsys, ["diff", str(folder / "a.parquet"), text, "-k", "id"])
    assert message == f"{text!r} is a text file, not a Parquet file"


def test_merkle_root_of_a_text_log_points_to_format_lines(folder, capsys):
    log = str(folder / "log.txt")
    message = _error(capsys, ["merkle", "root", "-s", "rfc9162", log])
    assert message.endswith("(for one value per line, use --format lines)"), message
    # Named explicitly, the format is not assumed: no hint.
    message = _error(capsys, ["merkle", "root", "-s", "rfc9162", "-f", "hex", log])
    assert "--format lines" not in message
    assert main(["merkle", "root", "-s", "rfc9162", "-f", "lines", log]) == 0


def test_merkle_programming_errors_are_internal_errors(folder, capsys, monkeypatch):
    # Its own wrapper used to report any ValueError or TypeError as the user's.
    from batchkeccak.cli import merkle

    def broken(args):
        return int("not a number")  # a bug, not a raise statement

    monkeypatch.setattr(merkle, "_tree_from_args", broken)
    assert main(["merkle", "root", "-s", "rfc9162", str(folder / "log.txt")]) == 1
    assert "internal error" in capsys.readouterr().err


@pytest.mark.parametrize(
    "message,expected",
    [
        ("hash_file: column 'x' has type int64", "column 'x' has type int64"),
        ("src: no such file or directory: 'x'", "no such file or directory: 'x'"),
        ("columns: no column named 'x'", "--column: no column named 'x'"),
        ("length is required for shake_128", "--length is required for shake_128"),
        ("memory_limit must be at least 65536", "--memory-limit must be at least 65536"),
        ("give batch_size=5 or less", "give --batch-size 5 or less"),
        ("the length of 'x' is 3", "the length of 'x' is 3"),  # an English word stays
        ("no column 'memory_limit'", "no column 'memory_limit'"),  # a quoted name stays
    ],
)
def test_in_cli_words(message, expected):
    assert in_cli_words(message, COMMON) == expected


def test_a_suggested_keyword_becomes_its_option_with_no_stray_space():
    from batchkeccak.cli.words import COMMON, in_cli_words

    said = in_cli_words("column 'gap' has no row encoding (leave it out with exclude=); ok", COMMON)
    assert said == "column 'gap' has no row encoding (leave it out with --exclude); ok"


def test_a_suggested_keyword_before_a_word_takes_one_space():
    from batchkeccak.cli.words import COMMON, in_cli_words

    said = in_cli_words(
        "pass columns= to compare the columns they share, or exclude= to leave those out",
        COMMON,
    )
    assert (
        said == "pass --column to compare the columns they share, or --exclude to leave those out"
    )


@pytest.mark.parametrize(
    "message,expected",
    [
        ("leave the column out with exclude='n'", "leave the column out with --exclude n"),
        ("(leave it out with exclude='gap'); ok", "(leave it out with --exclude gap); ok"),
        ("leave it out with exclude='a b'", "leave it out with --exclude 'a b'"),
        ('pass columns="it\'s" instead', 'pass --column "it\'s" instead'),
    ],
)
def test_a_suggested_keyword_with_its_value_becomes_the_option_and_the_name(message, expected):
    # "exclude='n'" became "--exclude 'n'"; before the library named the column it was
    # "--exclude " with nothing after it.
    assert in_cli_words(message, COMMON) == expected
