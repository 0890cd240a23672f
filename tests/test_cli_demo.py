"""``batchkeccak demo`` names the reference it checks and times against: hashlib where it has
the algorithm, pycryptodome's Keccak and TurboSHAKE where it is installed, else the plain
sponge (too slow to time)."""

from __future__ import annotations

import sys

import pytest

from batchkeccak import cli


def _demo(capsys, algorithm: str) -> str:
    assert cli.main(["demo", "--count", "300", "--algorithm", algorithm]) == 0
    return capsys.readouterr().out


def test_the_reference_loop_is_named(capsys):
    out = _demo(capsys, "sha3_256")
    assert "against hashlib.sha3_256: all equal" in out
    assert "reference loop (hashlib.sha3_256, one call per value)" in out


def test_pycryptodome_keccak_is_the_reference_when_installed(capsys):
    pytest.importorskip("Crypto.Hash.keccak")
    out = _demo(capsys, "keccak-256")  # any spelling the library reads
    assert "against pycryptodome's Crypto.Hash.keccak: all equal" in out
    assert "reference loop (pycryptodome's Crypto.Hash.keccak" in out


def test_without_pycryptodome_the_plain_sponge_checks_and_nothing_is_timed(capsys, monkeypatch):
    monkeypatch.setitem(sys.modules, "Crypto.Hash", None)  # import fails as if not installed
    monkeypatch.setitem(sys.modules, "Crypto.Hash.keccak", None)
    out = _demo(capsys, "keccak_256")
    assert "against the plain-Python sponge of batchkeccak.cli.demo: all equal" in out
    assert "no loop to compare the throughput with" in out
    assert "reference loop" not in out


def test_an_unknown_algorithm_gets_the_hint(capsys):
    assert (
        cli.main(["demo", "--algorithm", "sha256"]) == 1
    )  # as every -a: tests/test_unknown_names.py
    err = capsys.readouterr().err
    assert "did you mean 'sha3_256'" in err and "Traceback" not in err


def test_an_extendable_output_says_its_length(capsys):
    out = _demo(capsys, "shake_128")
    assert "shake_128 is extendable-output: 32 bytes per digest" in out
    assert "against hashlib.shake_128: all equal" in out
