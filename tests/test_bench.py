"""The benchmark harness, run at toy sizes: structure, outputs and the digest cross-check.

Nothing here looks at a time: these tests pass on any machine at any load.
"""

from __future__ import annotations

import hashlib
import importlib.util
import json
import os
import sys

import numpy as np
import pytest

from batchkeccak import benchmark
from batchkeccak.benchmark import competitors as competitors_module
from batchkeccak.benchmark.workloads import log_uniform_lengths
from batchkeccak.cli import main

TINY = benchmark.PRESETS["quick"].scaled(
    preset="tiny",
    repeats=1,
    small_count=70,
    competitor_messages=20,
    large_count=2,
    large_size=4096,
    varied_count=80,
    varied_max=600,
    single_size=10_000,
    permutation_calls=2,
    absorb_size=1024,
    sweep_sizes=(8, 200),
    sweep_bytes=4096,
    sweep_max_count=40,
    sweep_competitor_bytes=1024,
    sweep_repeats=1,
    sample=8,
)

HAS_MATPLOTLIB = importlib.util.find_spec("matplotlib") is not None


def _flipped(digest: bytes) -> bytes:
    return digest[:-1] + bytes([digest[-1] ^ 1])


def _broken_factory(algorithm, length):
    # Right algorithm, wrong last bit: the kind of bug a benchmark must not time quietly.
    if not algorithm.startswith("sha3_"):
        return None
    new = getattr(hashlib, algorithm)

    def loop(messages):
        for m in messages:
            new(m).digest()

    return benchmark.Adapter(lambda m: _flipped(new(m).digest()), loop)


def _missing_factory(algorithm, length):
    raise ImportError("No module named 'not_a_keccak_library'")


BROKEN = benchmark.Competitor("broken", "none", _broken_factory)
MISSING = benchmark.Competitor("missing", "not-a-keccak-library", _missing_factory)


@pytest.fixture(scope="module")
def report():
    return benchmark.run_suite(TINY)


def test_every_workload_but_startup_runs(report):
    names = [w.name for w in report.workloads]
    assert names == [w for w in benchmark.WORKLOADS if w != "startup"]
    for workload in report.workloads:
        assert workload.rows, workload.name
        for row in workload.rows:
            assert len(row.seconds) == (
                TINY.sweep_repeats if workload.name == "sweep" else TINY.repeats
            )
            assert row.items > 0


def test_comparison_rows(report):
    small = report.workload("small")
    keys = [row.key for row in small.rows]
    assert keys[:2] == ["batchkeccak-1", "batchkeccak-all"]
    assert "hashlib" in keys
    hashlib_row = small.row("hashlib")
    assert hashlib_row.items == TINY.competitor_messages
    assert "timed on 20 of 70 messages" in hashlib_row.note
    assert small.row("batchkeccak-1").items == TINY.small_count
    keccak = report.workload("small_keccak")
    assert keccak.algorithm == "keccak_256"
    assert keccak.row("hashlib") is None  # hashlib has no Keccak-256


def test_layers_and_figures(report):
    permutation = report.workload("permutation")
    from batchkeccak.core.parallel import available_cores

    keys = {row.key for row in permutation.rows}
    assert {"tile", "state"} <= keys
    assert "tile_over_state" in permutation.figures
    if available_cores() > 1:
        assert "tile_all_cores" in keys and "tile_core_scaling" in permutation.figures
        assert {"chain", "chain_all_cores"} <= keys
        assert "chain_core_scaling" in permutation.figures
    assert "permutation loops" in report.compile_s
    assert "kernels (compile or cache load)" in report.compile_s
    absorb = report.workload("absorb")
    assert {row.key for row in absorb.rows} == {
        "long",
        "short",
        "varied-sorted",
        "varied-natural",
        "tile",
    }
    assert "sorted_over_natural_time" in absorb.figures
    # The varied rows time varied_count messages of the drawn lengths; a (data, offsets)
    # tuple taken as two messages once timed the data and the offsets instead.
    lengths = log_uniform_lengths(TINY.varied_count, TINY.varied_max, TINY.seed + 4)
    for key in ("varied-sorted", "varied-natural"):
        (row,) = [row for row in absorb.rows if row.key == key]
        assert row.nbytes == int(lengths.sum())
        assert row.items >= TINY.varied_count  # at least one permutation per message
    forms = report.workload("forms")
    assert {"list", "array2d", "flat", "to_flat"} <= {row.key for row in forms.rows}
    varied = report.workload("varied")
    assert {"bytes_ratio", "permutation_rate_ratio"} <= set(varied.figures)
    sweep = report.workload("sweep")
    assert {row.size for row in sweep.rows} == set(TINY.sweep_sizes)


def test_table_lists_every_workload_and_target(report):
    text = benchmark.format_report(report)
    for workload in report.workloads:
        assert f"== {workload.name}:" in text
    assert "hashlib loop" in text
    assert "== targets (measured at tiny sizes)" in text
    for result in report.targets:
        assert result.target.text in text
    # Start-up was not run, so its targets are not reported.
    assert all(r.target.workload != "startup" for r in report.targets)


def test_json_round_trip(report, tmp_path):
    path = tmp_path / "deeper" / "results.json"
    report.write_json(path)
    data = json.loads(path.read_text())
    assert data["schema"] == benchmark.report.SCHEMA_VERSION
    assert {"config", "machine", "compile_s", "workloads", "targets", "notes"} <= set(data)
    assert data["config"]["preset"] == "tiny"
    assert data["machine"]["cores_available"] >= 1
    row = data["workloads"][0]["rows"][0]
    assert {
        "key",
        "label",
        "threads",
        "items",
        "bytes",
        "best_s",
        "repeats_s",
        "ns_per_item",
        "mb_per_s",
        "note",
    } <= set(row)
    target = data["targets"][0]
    assert {"text", "metric", "op", "threshold", "value", "met"} <= set(target)


@pytest.mark.skipif(not HAS_MATPLOTLIB, reason="matplotlib is not installed")
def test_plot_writes_a_png(report, tmp_path):
    path = tmp_path / "throughput.png"
    benchmark.plot_throughput(report, path)
    assert path.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_plot_needs_the_sweep(tmp_path):
    empty = benchmark.Report(TINY, {})
    with pytest.raises(ValueError, match="sweep"):
        benchmark.plot_throughput(empty, tmp_path / "x.png")


def test_wrong_competitor_digest_is_caught():
    with pytest.raises(benchmark.DigestMismatch, match="broken and batchkeccak disagree"):
        benchmark.run_suite(TINY, workloads=["small"], competitors=[BROKEN])


@pytest.mark.parametrize("workload", ["large", "single", "varied", "sweep"])
def test_every_comparison_checks_digests(workload):
    with pytest.raises(benchmark.DigestMismatch):
        benchmark.run_suite(TINY, workloads=[workload], competitors=[BROKEN])


def test_check_digests_names_the_message():
    messages = [b"", b"abc"]
    digests = np.frombuffer(
        b"".join(hashlib.sha3_256(m).digest() for m in messages), np.uint8
    ).reshape(2, 32)
    benchmark.check_digests(
        "hashlib",
        lambda m: hashlib.sha3_256(m).digest(),
        messages.__getitem__,
        digests,
        [0, 1],
        "t",
    )
    with pytest.raises(benchmark.DigestMismatch, match="message 1 \\(3 bytes\\)"):
        benchmark.check_digests(
            "bad",
            lambda m: _flipped(hashlib.sha3_256(m).digest()) if m else hashlib.sha3_256(m).digest(),
            messages.__getitem__,
            digests,
            [0, 1],
            "t",
        )


def test_missing_competitor_is_skipped_with_a_note():
    report = benchmark.run_suite(TINY, workloads=["small"], competitors=[MISSING])
    assert any("missing skipped: not installed" in note for note in report.notes)
    assert [row.key for row in report.workload("small").rows] == [
        "batchkeccak-1",
        "batchkeccak-all",
    ]


def test_unknown_workload():
    with pytest.raises(ValueError, match="unknown workload"):
        benchmark.run_suite(TINY, workloads=["nope"])


def test_targets_are_ratios_of_rows():
    def row(key, mb, seconds=1.0):
        return benchmark.Row(key, key, 1, 1, int(mb * 1e6 * seconds), [seconds])

    small = benchmark.Workload(
        "small",
        "",
        "sha3_256",
        "message",
        [row("batchkeccak-1", 70), row("batchkeccak-all", 90), row("hashlib", 10)],
    )
    forms = benchmark.Workload(
        "forms", "", "sha3_256", "message", [row("to_flat", 1, 0.2), row("flat", 1, 1.0)]
    )
    report = benchmark.Report(benchmark.PRESETS["full"], {}, workloads=[small, forms])
    results = {(r.target.workload, r.target.key): r for r in benchmark.evaluate_targets(report)}
    assert results[("small", "batchkeccak-1")].value == pytest.approx(7.0)
    assert results[("small", "batchkeccak-1")].met
    assert not results[("small", "batchkeccak-all")].met  # 9x < 10x
    assert results[("forms", "to_flat")].value == pytest.approx(0.2)
    assert results[("forms", "to_flat")].met
    # A sha3_256 target says nothing about a keccak_256 run of the same workload.
    small.algorithm = "keccak_256"
    assert all(r.target.workload != "small" for r in benchmark.evaluate_targets(report))


def test_a_smaller_run_reports_ratios_without_verdicts(report):
    # The tiny run times 2 x 4 KiB where the target names 64 x 1 MiB: the ratio is shown for
    # what was measured, and no target is called met or missed on another workload.
    assert report.targets
    sized = [r for r in report.targets if r.target.sizes]
    assert sized and all(r.met is None and not r.applies for r in sized)
    large = next(r for r in report.targets if r.target.workload == "large")
    assert large.measured_on == f"{TINY.large_count} x 4 KiB"
    text = benchmark.format_report(report)
    table = text[text.index("== targets") :]
    assert "MISSED" not in table and " met" not in table
    assert "targets apply to the full suite, `python bench/run.py`" in table
    assert report.to_dict()["targets"][0]["applies"] is False


def test_full_sizes_get_a_verdict():
    # The same rows under the full preset's sizes: now the targets are judged.
    def row(key, mb, size):
        return benchmark.Row(key, key, 1, 64, int(mb * 1e6), [1.0], size)

    large = benchmark.Workload(
        "large",
        "",
        "sha3_256",
        "message",
        [
            row("batchkeccak-1", 400, 1 << 20),
            row("batchkeccak-all", 500, 1 << 20),
            row("hashlib", 100, 1 << 20),
        ],
    )
    full = benchmark.Report(benchmark.PRESETS["full"], {}, workloads=[large])
    results = benchmark.evaluate_targets(full)
    assert [(r.applies, r.met) for r in results] == [(True, True), (True, False)]
    text = benchmark.format_report(
        full.__class__(full.config, {}, workloads=[large], targets=results)
    )
    assert "MISSED" in text and "targets apply to the full suite" not in text
    quick = benchmark.Report(benchmark.PRESETS["quick"], {}, workloads=[large])
    assert [r.met for r in benchmark.evaluate_targets(quick)] == [None, None]


def test_repeats_are_interleaved():
    calls = []
    times = benchmark.interleaved(
        {"a": lambda: calls.append("a"), "b": lambda: calls.append("b")}, 3
    )
    assert calls == ["a", "b"] * 3
    assert [len(v) for v in times.values()] == [3, 3]


def test_log_uniform_lengths_stay_in_range():
    lengths = log_uniform_lengths(10_000, 4096, seed=1)
    assert lengths.min() >= 0 and lengths.max() <= 4096
    assert (lengths < 64).any() and (lengths > 1024).any()


@pytest.mark.slow
def test_startup_probe_structure():
    workload = benchmark.measure_startup("sha3_256", repeats=1, cold_repeats=0)
    assert [row.key for row in workload.rows] == [
        "warm-process",
        "warm-import",
        "warm-first-call",
        "warm-first-call-without-scipy",
        "numba-process",
        "small-process",
        "hashlib-loop-process",
    ]
    assert all(row.best > 0 for row in workload.rows)
    above = workload.figures["warm_above_numba_s"]
    assert above == workload.row("warm-process").best - workload.row("numba-process").best
    ratio = workload.figures["small_over_hashlib_loop"]
    assert ratio == workload.row("small-process").best / workload.row("hashlib-loop-process").best


def test_command_line_probe_structure(monkeypatch):
    from batchkeccak.benchmark import startup

    monkeypatch.setattr(startup, "FILE_SETS", {"small-files": (30, 1024), "big-files": (2, 5000)})
    env = {k: v for k, v in os.environ.items() if k != "BATCHKECCAK_BACKEND"}
    env["PYTHONPATH"] = os.pathsep.join(sys.path)
    workload = benchmark.Workload("startup", "", "sha3_256", "process")
    startup.measure_command_line(env, 1, workload)
    keys = [row.key for row in workload.rows]
    assert keys[0] == "batchkeccak-small-files" and "batchkeccak-big-files" in keys
    for peer, set_name in (("sha256sum", "small-files"), ("openssl", "big-files")):
        if f"{peer}-{set_name}" in keys:
            assert workload.figures[f"{set_name}_over_{peer}"] == (
                workload.row(f"batchkeccak-{set_name}").best
                / workload.row(f"{peer}-{set_name}").best
            )
    assert all(row.best > 0 for row in workload.rows)


# The command line -----------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("argv", "message", "status"),
    [
        # A misused command line: GNU's two lines and 1, as every subcommand but diff.
        (["--repeats", "0"], "--repeats must be >= 1", 1),
        (["--workload", "nope"], "unknown --workload nope", 1),
        (["--workload", "small", "--plot", "x.png"], "--plot draws the sweep workload", 1),
        # An algorithm it does not know, or a mode: as in every subcommand's -a.
        (["--algorithm", "md5"], "MD5 is not a Keccak hash", 1),
        (["--algorithm", "kmac_256"], "kmac_256 is a mode", 1),
    ],
)
def test_cli_rejects_bad_arguments(argv, message, status, capsys):
    assert main(["bench", *argv]) == status
    err = capsys.readouterr().err
    assert message in err
    assert ("Try 'batchkeccak bench --help'" in err) == (status == 1)


def test_cli_rejects_a_directory_as_output(tmp_path, capsys):
    assert main(["bench", "--json", str(tmp_path)]) == 2
    assert "is a directory" in capsys.readouterr().err


def test_cli_writes_table_json_and_plot(tmp_path, monkeypatch, capsys):
    monkeypatch.setitem(benchmark.PRESETS, "quick", TINY)
    out = tmp_path / "r.json"
    argv = ["bench", "--quick", "--workload", "small", "--workload", "sweep", "--json", str(out)]
    if HAS_MATPLOTLIB:
        argv += ["--plot", str(tmp_path / "t.png")]
    assert main(argv) == 0
    captured = capsys.readouterr()
    assert "== small:" in captured.out and "== sweep:" in captured.out
    assert "running small" in captured.err
    data = json.loads(out.read_text())
    assert [w["name"] for w in data["workloads"]] == ["small", "sweep"]
    if HAS_MATPLOTLIB:
        assert (tmp_path / "t.png").stat().st_size > 0


def test_cli_reports_a_digest_mismatch(monkeypatch, capsys):
    monkeypatch.setitem(benchmark.PRESETS, "quick", TINY)
    monkeypatch.setattr(competitors_module, "COMPETITORS", (BROKEN,))
    assert main(["bench", "--quick", "--workload", "small"]) == 1
    assert "DIGEST MISMATCH" in capsys.readouterr().err


def test_the_help_names_every_workload():
    from batchkeccak.cli.bench import WORKLOAD_NAMES

    assert WORKLOAD_NAMES == tuple(benchmark.WORKLOADS)
