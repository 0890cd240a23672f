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

# Each build runs in a copy of the tree of its own (the fixture below), never in the checkout:
# whichever workers pytest-xdist gives these tests, and whether or not it keeps a module's
# tests on one worker, no two builds share a build/ or egg-info folder.
pytestmark = pytest.mark.slow

# What a copy leaves out where git cannot list the tree (an unpacked sdist): build outputs.
NOT_SOURCE = shutil.ignore_patterns(
    ".git",
    "__pycache__",
    "*.py[cod]",
    "*.nbi",
    "*.nbc",
    "*.egg-info",
    "build",
    "dist",
    ".pytest_cache",
    ".hypothesis",
    ".venv",
    "site",
    "results",
)


def is_git_checkout() -> bool:
    return shutil.which("git") is not None and (ROOT / ".git").exists()


def git_files(*options: str) -> list[str]:
    if not is_git_checkout():
        pytest.skip("not a git checkout: the files the sdist must carry are git's list")
    listed = subprocess.run(
        ["git", "ls-files", "-z", *options], cwd=ROOT, capture_output=True, text=True, check=True
    ).stdout.split("\0")
    return [name for name in listed if name and (ROOT / name).is_file()]


def tracked_files() -> list[str]:
    return git_files()


def copy_of_the_tree(dest: Path) -> Path:
    """The checkout's source in `dest`: the files git tracks, with those it would track (new,
    not ignored), as a build in the checkout sees them; where git cannot list them (an
    unpacked sdist), the tree less its build outputs."""
    if is_git_checkout():
        for name in git_files("--cached", "--others", "--exclude-standard"):
            target = dest / name
            target.parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(ROOT / name, target)
    else:
        shutil.copytree(ROOT, dest, ignore=NOT_SOURCE, dirs_exist_ok=True)
    return dest


@pytest.fixture(scope="module")
def dist(tmp_path_factory) -> dict[str, Path]:
    tree = copy_of_the_tree(tmp_path_factory.mktemp("tree"))
    out = tmp_path_factory.mktemp("dist")
    # Without isolation: the test extra installs setuptools, so nothing is downloaded.
    built = subprocess.run(  # noqa: PLW1510  (the status is checked below)
        [sys.executable, "-m", "build", "--no-isolation", "--outdir", str(out), str(tree)],
        cwd=tree,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert built.returncode == 0, built.stdout[-3000:] + built.stderr[-3000:]
    (sdist,) = out.glob("*.tar.gz")
    (wheel,) = out.glob("*.whl")
    return {"sdist": sdist, "wheel": wheel, "tree": tree}


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
    tree = dist["tree"]
    source = {
        str(p.relative_to(tree))
        for p in (tree / "batchkeccak").rglob("*.py")
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
