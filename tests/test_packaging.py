"""The wheel and the sdist: what each carries, the metadata a package index shows, and an
sdist whose test suite collects from it alone."""

from __future__ import annotations

import email
import re
import shutil
import subprocess
import sys
import tarfile
import zipfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]

# One build per run: the tests share it, and two builds at once (pytest-xdist) would write
# the same build/ and egg-info folders of the checkout.
pytestmark = [pytest.mark.slow, pytest.mark.xdist_group("packaging")]


def tracked_files() -> list[str]:
    if shutil.which("git") is None or not (ROOT / ".git").exists():
        pytest.skip("not a git checkout: the files the sdist must carry are git's list")
    listed = subprocess.run(
        ["git", "ls-files"], cwd=ROOT, capture_output=True, text=True, check=True
    ).stdout.split()
    return [name for name in listed if (ROOT / name).is_file()]


@pytest.fixture(scope="module")
def dist(tmp_path_factory) -> dict[str, Path]:
    out = tmp_path_factory.mktemp("dist")
    # Without isolation: the test extra installs setuptools, so nothing is downloaded.
    built = subprocess.run(  # noqa: PLW1510  (the status is checked below)
        [sys.executable, "-m", "build", "--no-isolation", "--outdir", str(out), str(ROOT)],
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert built.returncode == 0, built.stdout[-3000:] + built.stderr[-3000:]
    shutil.rmtree(ROOT / "build", ignore_errors=True)  # setuptools' scratch folder
    (sdist,) = out.glob("*.tar.gz")
    (wheel,) = out.glob("*.whl")
    return {"sdist": sdist, "wheel": wheel}


def sdist_names(sdist: Path) -> set[str]:
    with tarfile.open(sdist) as archive:
        top = f"{sdist.name.removesuffix('.tar.gz')}/"
        return {m.name.removeprefix(top) for m in archive.getmembers() if m.isfile()}


def test_the_sdist_carries_every_file_of_the_checkout(dist):
    names = sdist_names(dist["sdist"])
    missing = sorted(set(tracked_files()) - names)
    assert missing == []
    for needed in (
        "tests/conftest.py",
        "tests/oracles.py",
        "tests/reference_keccak.py",
        "tests/sp800_185_reference.py",
        "tests/data/merkle_openzeppelin.json",
        "LICENSE",
        "CHANGELOG.md",
        "CONTRIBUTING.md",
        "mkdocs.yml",
    ):
        assert needed in names
    assert not [n for n in names if "__pycache__" in n or n.startswith("site/")]


def test_the_sdist_test_suite_collects_from_the_sdist_alone(dist, tmp_path):
    with tarfile.open(dist["sdist"]) as archive:
        archive.extractall(tmp_path, filter="data")
    (unpacked,) = tmp_path.iterdir()
    collected = subprocess.run(  # noqa: PLW1510  (the status is checked below)
        [sys.executable, "-m", "pytest", "--collect-only", "-q", "-p", "no:cacheprovider", "tests"],
        cwd=unpacked,
        capture_output=True,
        text=True,
        timeout=600,
        env={"PATH": "/usr/bin:/bin", "PYTHONPATH": str(unpacked), "HOME": str(tmp_path)},
    )
    assert collected.returncode == 0, collected.stdout[-3000:] + collected.stderr[-3000:]
    count = re.search(r"(\d+) tests? collected", collected.stdout)
    assert count and int(count.group(1)) > 1000, collected.stdout[-1000:]


def test_the_wheel_carries_the_package_and_its_license_only(dist):
    with zipfile.ZipFile(dist["wheel"]) as wheel:
        names = wheel.namelist()
        metadata = email.message_from_bytes(
            wheel.read(next(n for n in names if n.endswith(".dist-info/METADATA")))
        )
        entry_points = wheel.read(
            next(n for n in names if n.endswith(".dist-info/entry_points.txt"))
        ).decode()
    package = {n for n in names if not n.split("/")[0].endswith(".dist-info")}
    assert all(n.startswith("batchkeccak/") for n in package), sorted(package)
    source = {
        str(p.relative_to(ROOT))
        for p in (ROOT / "batchkeccak").rglob("*.py")
        if "__pycache__" not in p.parts
    }
    assert source <= package
    assert {"batchkeccak/py.typed", "batchkeccak/core/crossover.json"} <= package
    assert not [n for n in package if n.endswith((".nbi", ".nbc", ".pyc"))]
    assert any(n.endswith(".dist-info/licenses/LICENSE") for n in names)
    assert metadata["License-Expression"] == "MIT"
    assert metadata["Requires-Python"] == ">=3.11"
    assert "Programming Language :: Python :: 3.11" in metadata.get_all("Classifier")
    assert "batchkeccak = batchkeccak.cli:main" in entry_points
    assert metadata.get_payload().startswith("# batchkeccak")  # the README, shown by an index


def test_readme_links_reach_files_the_sdist_carries(dist):
    """On a package index the README's relative links resolve only where its files are
    shipped: each must name a file of the sdist (or be absolute)."""
    names = sdist_names(dist["sdist"])
    readme = (ROOT / "README.md").read_text()
    targets = re.findall(r"\]\(([^)\s]+)\)", readme)
    relative = [t.split("#")[0] for t in targets if "://" not in t and not t.startswith("#")]
    assert relative
    assert [t for t in relative if t not in names] == []
