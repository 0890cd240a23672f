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


def test_the_cli_answers_the_same(capsys):
    assert cli.main(["hash", "-a", "sha256", "-"]) == 1  # a usage error, as GNU sha256sum
    err = capsys.readouterr().err
    assert "SHA-256 is SHA-2" in err and "did you mean 'sha3_256'" in err, err
    assert "batchkeccak hash --help" in err and "Traceback" not in err
    assert len(err.splitlines()) <= 3, err
    assert cli.main(["hash", "-a", "blake3", "-"]) == 1
    assert "BLAKE3 is not a Keccak hash" in capsys.readouterr().err


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
