"""bench/plot.py draws the docs' pictures from small benchmark JSON: valid images, named
after what they show, and one line on stderr (status 2) for JSON it cannot draw."""

from __future__ import annotations

import importlib.util
import json
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

pytest.importorskip("matplotlib")

ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture(scope="module")
def plot():
    spec = importlib.util.spec_from_file_location("bench_plot", ROOT / "bench" / "plot.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _sweep(path: Path) -> Path:
    rows = []
    for size in (32, 1024, 1 << 20):
        for key, label, rate in (
            ("batchkeccak-1", "batchkeccak, 1 thread, 512-bit tiles", 900.0),
            ("batchkeccak-all", "batchkeccak, 2 threads", 1500.0),
            ("hashlib", "hashlib loop", 300.0),
            ("duckdb", "DuckDB sha256(col), 2 threads (SHA-256)", 200.0),
        ):
            rows.append({"key": f"{key}@{size}", "label": label, "size": size, "mb_per_s": rate})
    report = {
        "schema": 1,
        "config": {"sweep_repeats": 3},
        "machine": {
            "cpu": "Test CPU",
            "cpu_flags": ["avx2", "avx512f"],
            "cores_available": 2,
            "load_average_start": [1.5, 1.0, 0.5],
            "load_average_end": [2.5, 1.0, 0.5],
        },
        "workloads": [{"name": "sweep", "algorithm": "sha3_256", "rows": rows}],
    }
    path.write_text(json.dumps(report))
    return path


def _tables(folder: Path, rows: int) -> Path:
    results = {
        task: {"seconds": seconds * rows / 1e5}
        for task, seconds in (
            ("bk-diff", 0.12),
            ("duckdb-join", 0.08),
            ("bk-digest-key", 0.18),
            ("duckdb-digest", 0.27),
        )
    }
    path = folder / f"tables-{rows}.json"
    path.write_text(
        json.dumps(
            {
                "rows": rows,
                "threads": 2,
                "cpu": "Test CPU",
                "cpu_flags": ["avx2"],
                "load_average_start": [3.0, 2.0, 1.0],
                "load_average_end": [4.0, 2.0, 1.0],
                "results": results,
                "summary": {},
            }
        )
    )
    return path


def _svg_text(path: Path) -> str:
    root = ET.parse(path).getroot()
    assert root.tag == "{http://www.w3.org/2000/svg}svg"
    assert path.stat().st_size < 100_000
    return "".join(root.itertext())


def test_throughput_and_tables_from_json(plot, tmp_path, capsys):
    sweep = _sweep(tmp_path / "throughput.json")
    tables = [_tables(tmp_path, rows) for rows in (100_000, 300_000)]
    out = tmp_path / "images"
    assert plot.main([str(sweep), *map(str, tables), str(out)]) == 0
    assert sorted(p.name for p in out.iterdir()) == [
        "tables.svg",
        "throughput-small.svg",
        "throughput.svg",
    ]
    text = _svg_text(out / "throughput.svg")
    # The CPU, its SIMD level and the load the figures were taken at are on the picture.
    assert "Test CPU, AVX-512, 2 cores" in text
    assert "load average 1.5-2.5" in text
    assert "DuckDB sha256(col)" in text and "1 MiB" in text
    _svg_text(out / "throughput-small.svg")
    text = _svg_text(out / "tables.svg")
    assert "Test CPU, AVX2" in text and "load average 3.0-4.0" in text
    assert "100k" in text and "300k" in text
    assert "wrote" in capsys.readouterr().out


def test_layers_and_png(plot, tmp_path):
    assert plot.main(["--layers", "--format", "png", str(tmp_path)]) == 0
    assert (tmp_path / "layers.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert plot.main(["--layers", str(tmp_path)]) == 0
    text = _svg_text(tmp_path / "layers.svg")
    assert "permutation/" in text and "integrations" in text


def test_json_it_cannot_draw(plot, tmp_path, capsys):
    other = tmp_path / "other.json"
    other.write_text(json.dumps({"workloads": []}))
    assert plot.main([str(other), str(tmp_path / "out")]) == 2
    assert "neither a sweep report nor a bench_tables.py result" in capsys.readouterr().err
    broken = tmp_path / "broken.json"
    broken.write_text("{")
    assert plot.main([str(broken), str(tmp_path / "out")]) == 2
    assert capsys.readouterr().err.startswith("plot.py: ")
    with pytest.raises(SystemExit):
        plot.main([str(tmp_path / "out")])  # a folder and nothing to draw
