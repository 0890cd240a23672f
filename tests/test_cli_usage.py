"""Every subcommand, read from the command's own registry, reports a misused command line as
GNU's tools do: ``batchkeccak: MESSAGE``, then ``Try 'batchkeccak SUB --help' for more
information.``, nothing on stdout, and the subcommand's usage status (1, as ``sha256sum``
and ``ls`` give; a subcommand answering 0/1/2 like ``cmp`` and ``diff`` may declare 2). A
subcommand added later is covered without editing this file."""

from __future__ import annotations

import re

import pytest

from batchkeccak.cli import USAGE_STATUS, build_parser, main


def every_parser() -> dict[str, object]:
    """``{"hash": parser, "merkle": parser, "merkle root": parser, ...}``: every subcommand
    and the subcommands of subcommands."""
    found = {}
    waiting = list(build_parser().commands().items())
    while waiting:
        name, parser = waiting.pop(0)
        found[name] = parser
        waiting += [(f"{name} {sub}", child) for sub, child in parser.commands().items()]
    return found


PARSERS = every_parser()


def test_the_registry_is_read():
    assert {
        "hash",
        "parquet",
        "merkle",
        "merkle root",
        "merkle proof",
        "merkle verify",
        "demo",
        "bench",
        "warmup",
    } <= set(PARSERS)
    assert USAGE_STATUS == 1


def usage_lines(prog: str, message: str) -> str:
    return f"batchkeccak: {message}\nTry '{prog} --help' for more information.\n"


@pytest.mark.parametrize("name", sorted(PARSERS))
def test_an_unknown_option(name, capsys):
    parser = PARSERS[name]
    # README's error contract: 1, as GNU's tools; diff 2, as GNU diff (1: the tables differ).
    assert parser.usage_status == (2 if name == "diff" else 1)
    for option in ("--no-such-option", "--no-such-option=1"):
        assert main([*name.split(" "), option]) == parser.usage_status
        captured = capsys.readouterr()
        assert captured.out == ""
        assert captured.err == usage_lines(f"batchkeccak {name}", f"unrecognized option '{option}'")


@pytest.mark.parametrize("name", sorted(PARSERS))
def test_help_is_not_an_error(name, capsys):
    with pytest.raises(SystemExit) as done:
        main([*name.split(" "), "--help"])
    assert done.value.code == 0
    captured = capsys.readouterr()
    assert captured.out.startswith(f"usage: batchkeccak {name}") and captured.err == ""


@pytest.mark.parametrize("name", sorted(n for n, p in PARSERS.items() if p.commands()))
def test_an_unknown_or_missing_subcommand(name, capsys):
    parser = PARSERS[name]
    assert main([*name.split(" "), "no-such-action"]) == parser.usage_status
    first, second = capsys.readouterr().err.splitlines()
    assert first.startswith("batchkeccak: ") and "'no-such-action'" in first
    assert second == f"Try 'batchkeccak {name} --help' for more information."
    assert main(name.split(" ")) == parser.usage_status
    first, _ = capsys.readouterr().err.splitlines()
    assert first.startswith("batchkeccak: ") and "required" in first


def test_the_top_level(capsys):
    for argv, words in (
        ([], "required: COMMAND"),
        (["no-such-command"], "'no-such-command'"),
        (["--no-such-option"], "unrecognized option '--no-such-option'"),
    ):
        assert main(argv) == USAGE_STATUS
        captured = capsys.readouterr()
        first, second = captured.err.splitlines()
        assert captured.out == "" and first.startswith("batchkeccak: ") and words in first
        assert second == "Try 'batchkeccak --help' for more information."


def test_gnu_words_for_getopts_errors(capsys):
    # The wording GNU's getopt gives, checked against sha256sum 9.1's own output.
    cases = [
        (["hash", "-Q", "x"], "invalid option -- 'Q'"),
        (
            ["hash", "--st", "-c", "x"],
            "option '--st' is ambiguous; possibilities: '--status' '--strict'",
        ),
        (["merkle", "verify", "a", "b"], "extra operand 'b'"),
    ]
    for argv, message in cases:
        assert main(argv) == 1
        prog = "batchkeccak " + " ".join(argv[:2] if argv[0] == "merkle" else argv[:1])
        assert capsys.readouterr().err == usage_lines(prog, message)


def test_hash_help_names_every_algorithm_hash_takes(capsys):
    # README points to `batchkeccak hash --help` for the names: every name of the tables that
    # `hash -a` takes is there, by its table spelling.
    import batchkeccak as bk
    from batchkeccak.cli.sums import resolve_algorithm

    with pytest.raises(SystemExit):
        main(["hash", "--help"])
    words = set(re.findall(r"[\w]+", capsys.readouterr().out))
    taken = []
    for name in dict.fromkeys([*bk.algorithms, *bk.modes]):
        try:
            resolve_algorithm(name)
        except ValueError:
            continue  # TupleHash frames each string: it hashes lines in Python, not files
        taken.append(name)
    assert len(taken) >= 20 and "tuplehash_128" not in taken
    assert [name for name in taken if name not in words] == []
