"""The platform report: every chooser of the package, what it chose and from what."""

from __future__ import annotations

import pytest

from batchkeccak import platform
from batchkeccak.core import dispatch
from batchkeccak.permutation import vector_width

NAMES = ["backend policy", "backend family", "tile width", "file reader", "list reader"]


def _by_name() -> dict[str, platform.Choice]:
    return {choice.name: choice for choice in platform.report()}


def test_the_report_names_each_chooser_and_its_source():
    choices = platform.report()
    assert [choice.name for choice in choices] == NAMES
    for choice in choices:
        assert choice.source in platform.SOURCES
        assert choice.chosen and choice.detail
        assert choice.line().startswith(f"{choice.name}: {choice.chosen} ({choice.source}: ")
    found = {choice.name: choice for choice in choices}
    # The suite's own setting (tests/conftest.py): the kernels, from the environment.
    assert found["backend policy"].source == "environment"
    assert found["backend policy"].chosen == "always kernels"
    assert f"{vector_width.tile_bits()} bits" == found["tile width"].chosen
    assert "sha3_256" in found["backend family"].chosen
    assert found["file reader"].chosen in ("compiled", "portable")
    assert found["list reader"].chosen in ("compiled", "portable")


def test_the_measured_limits_come_from_the_tuning_file(monkeypatch):
    monkeypatch.delenv("BATCHKECCAK_BACKEND")
    with dispatch.forced_backend(None):
        policy = _by_name()["backend policy"]
    assert (policy.source, policy.detail) == ("tuning file", "crossover.json")
    with dispatch.forced_backend("oneshot"):
        assert _by_name()["backend policy"].source == "forced in code"


def test_a_tile_width_from_the_environment_says_so(monkeypatch):
    monkeypatch.setenv("BATCHKECCAK_TILE_BITS", "256")
    with vector_width.tile_bits_set(256):
        width = _by_name()["tile width"]
    assert (width.chosen, width.source) == ("256 bits", "environment")
    assert width.detail == "BATCHKECCAK_TILE_BITS=256"
    monkeypatch.delenv("BATCHKECCAK_TILE_BITS")
    assert _by_name()["tile width"].source in ("detected", "tuning file")


def test_a_refused_backend_variable_stops_the_report(monkeypatch, capsys):
    monkeypatch.setenv("BATCHKECCAK_BACKEND", "kernal")
    monkeypatch.setattr(dispatch, "_forced", dispatch._policy_from_environment())
    with pytest.raises(ValueError, match="BATCHKECCAK_BACKEND must be one of kernels, oneshot"):
        platform.report()
    assert platform.main() == 1
    message = (
        "batchkeccak: error: BATCHKECCAK_BACKEND must be one of kernels, oneshot (or unset for "
        "the measured limits), got 'kernal'"
    )
    assert capsys.readouterr().err.splitlines() == [message]


def test_the_module_prints_one_line_per_chooser(capsys):
    assert platform.main() == 0
    lines = capsys.readouterr().out.splitlines()
    assert [line.split(":")[0] for line in lines] == NAMES


def test_a_reader_that_goes_away_ends_the_report_quietly():
    # ``python -m batchkeccak.platform | head -1``: no traceback, the pipe's status.
    import subprocess
    import sys

    process = subprocess.Popen(
        [sys.executable, "-m", "batchkeccak.platform"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    assert process.stdout is not None and process.stderr is not None
    process.stdout.close()  # before it writes a line: every write meets a closed pipe
    error = process.stderr.read()
    assert process.wait(timeout=120) == 141
    assert b"Traceback" not in error and error == b""
