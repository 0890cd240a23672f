"""An unknown algorithm gets one short answer, the same from every entry point: what the name
is when it is a well-known hash that is not Keccak, the closest names, and where the full list
is (not the list itself)."""

from __future__ import annotations

import pytest

import batchkeccak as bk
from batchkeccak import cli
from batchkeccak.core.parameters import EVERY_NAME

pa = pytest.importorskip("pyarrow")


def _entry_points():
    table = pa.table({"a": [b"x"]})
    return {
        "hash_many": lambda name: bk.hash_many([b"a"], name),
        "hash_one": lambda name: bk.hash_one(b"a", name),
        "hasher": lambda name: bk.hasher(name),
        "new": lambda name: bk.new(name),
        "hash_files": lambda name: bk.hash_files([], name),
        "table_digest": lambda name: bk.table_digest(table, algorithm=name),
    }


@pytest.mark.parametrize("entry", sorted(_entry_points()))
@pytest.mark.parametrize(
    ("name", "words"),
    [
        ("sha256", "unknown algorithm 'sha256': SHA-256 is SHA-2, not SHA-3"),
        ("SHA-512", "SHA-512 is SHA-2, not SHA-3"),
        ("blake3", "BLAKE3 is not a Keccak hash"),
        ("md5", "MD5 is not a Keccak hash"),
        ("sha3_257", "did you mean 'sha3_256'"),
        ("kt129", "did you mean 'kt128'?"),
    ],
)
def test_every_entry_point_answers_an_unknown_name_alike(entry, name, words):
    with pytest.raises(ValueError) as error:
        _entry_points()[entry](name)
    message = str(error.value)
    assert words in message, message
    assert message.startswith(f"unknown algorithm {name!r}"), message  # names the argument
    assert EVERY_NAME in message  # where the full list is...
    assert "kmac_256" not in message and len(message) < 250, message  # ...not the list itself


def test_sha2_suggests_the_sha3_of_the_same_size():
    for name, suggested in [
        ("sha256", "sha3_256"),
        ("sha-384", "sha3_384"),
        ("SHA512", "sha3_512"),
    ]:
        with pytest.raises(ValueError, match=f"did you mean '{suggested}'\\?"):
            bk.hasher(name)
    with pytest.raises(ValueError) as error:
        bk.hasher("blake3")
    assert "did you mean" not in str(error.value)


ALGORITHM_OPTIONS = {
    "hash": ["hash", "-a", "{name}", "-"],
    "parquet": ["parquet", "in.parquet", "out.parquet", "-c", "x", "--algorithm", "{name}"],
    "digest": ["digest", "in.parquet", "-a", "{name}"],
    "merkle root": ["merkle", "root", "in.txt", "-s", "rfc9162", "-a", "{name}"],
    "demo": ["demo", "--algorithm", "{name}"],
    "bench": ["bench", "--algorithm", "{name}"],
}
"""Each subcommand's ``-a``/``--algorithm``, with inputs that are never read: the name is
checked first. ``diff``'s (exit 2, as GNU diff's misuse) is in tests/test_tables_cli.py."""


@pytest.mark.parametrize("command", sorted(ALGORITHM_OPTIONS))
def test_the_cli_answers_the_same(command, capsys, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)  # nothing there to read, and nothing written
    argv = ALGORITHM_OPTIONS[command]
    # A usage error, as GNU sha256sum's: the did-you-mean, then the pointer to --help.
    assert cli.main([a.format(name="sha256") for a in argv]) == 1
    err = capsys.readouterr().err
    assert "SHA-256 is SHA-2" in err and "did you mean 'sha3_256'" in err, err
    assert err.startswith("batchkeccak: unknown") and "error:" not in err, err
    assert f"Try 'batchkeccak {command} --help'" in err and "Traceback" not in err
    assert len(err.splitlines()) == 2, err
    assert cli.main([a.format(name="blake3") for a in argv]) == 1
    assert "BLAKE3 is not a Keccak hash" in capsys.readouterr().err
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize("command", ["demo", "bench"])
def test_a_mode_where_only_algorithms_run_is_said_to_be_one(command, capsys, tmp_path):
    argv = [a.format(name="kmac_256") for a in ALGORITHM_OPTIONS[command]]
    assert cli.main(argv) == 1
    first, second = capsys.readouterr().err.splitlines()
    assert first.startswith("batchkeccak: --algorithm kmac_256 is a mode"), first
    assert "unknown" not in first and second.startswith(f"Try 'batchkeccak {command} --help'")


def test_the_accessors_answer_the_same():
    pl = pytest.importorskip("polars")
    import batchkeccak.polars  # noqa: F401  # registers the bk namespace

    with pytest.raises(ValueError, match="SHA-256 is SHA-2.*did you mean 'sha3_256'"):
        pl.col("s").bk.hash("sha256")
    with pytest.raises(AttributeError, match="no method 'blake3': BLAKE3 is not a Keccak hash"):
        pl.col("s").bk.blake3()


@pytest.mark.parametrize(
    ("name", "first"),
    [("keccak", "'keccak_256'"), ("sha3", "'sha3_256'"), ("shake", "'shake_128'")],
)
def test_equally_close_names_come_most_used_first(name, first):
    # "keccak" suggested 'keccak_512' or 'keccak_384' or 'keccak_256': difflib breaks ties
    # by the name, last first.
    with pytest.raises(ValueError) as error:
        bk.hasher(name)
    assert f"did you mean {first} or " in str(error.value)
    assert main_usage_first_line(["hash", "-a", name]).startswith(
        f"batchkeccak: unknown algorithm {name!r}: did you mean {first} or "
    )


def main_usage_first_line(argv):
    import contextlib
    import io

    err = io.StringIO()
    with contextlib.redirect_stderr(err):
        assert cli.main(argv) == 1
    return err.getvalue().splitlines()[0]


def test_an_empty_algorithm_is_no_name(capsys, tmp_path):
    # hash took -a '' for its default; every other -a refuses it.
    (tmp_path / "f").write_bytes(b"x")
    assert cli.main(["hash", "-a", "", str(tmp_path / "f")]) == 1
    err = capsys.readouterr().err
    assert err.startswith("batchkeccak: unknown algorithm ''") and "Try 'batchkeccak hash" in err
