"""The documentation site builds with no warning, and its pages render with no broken link.

``mkdocs build --strict`` (what ``.ci/run`` builds) writes the site into a scratch folder;
headless Chromium renders the home page, the API page of ``hash_many`` and the performance
page, and every internal link of what it rendered must reach a file of the site, and an
element with that id where the link names an anchor.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from html.parser import HTMLParser
from pathlib import Path
from urllib.parse import unquote, urlsplit

import pytest

ROOT = Path(__file__).resolve().parents[1]
CHROMIUM = next(
    (path for name in ("chromium", "chromium-browser") if (path := shutil.which(name))), None
)
PAGES = ["index.html", "api/index.html", "performance/index.html"]

pytestmark = [pytest.mark.slow, pytest.mark.xdist_group("docs-site")]  # one build per run


class _Links(HTMLParser):
    """The ``href`` of every link and the ``id`` of every element of one HTML document."""

    def __init__(self) -> None:
        super().__init__()
        self.hrefs: list[str] = []
        self.ids: set[str] = set()

    def handle_starttag(self, tag, attrs):
        attributes = dict(attrs)
        if attributes.get("id"):
            self.ids.add(attributes["id"])
        if tag in ("a", "link") and attributes.get("href"):
            self.hrefs.append(attributes["href"])


def parse(html: str) -> _Links:
    links = _Links()
    links.feed(html)
    return links


@pytest.fixture(scope="module")
def site(tmp_path_factory) -> Path:
    folder = tmp_path_factory.mktemp("site")
    built = subprocess.run(  # noqa: PLW1510  (the status is checked below)
        [sys.executable, "-m", "mkdocs", "build", "--strict", "--site-dir", str(folder)],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=300,
        env={**os.environ, "NO_MKDOCS_2_WARNING": "1"},
    )
    assert built.returncode == 0, built.stderr[-4000:]
    return folder


def rendered(page: Path) -> str:
    """The DOM of ``page`` after Chromium has run its scripts."""
    if CHROMIUM is None:
        pytest.skip(
            "chromium is not installed (Debian: apt-get install chromium); .ci/run installs it"
        )
    result = subprocess.run(  # noqa: PLW1510  (the status is checked below)
        [CHROMIUM, "--headless", "--no-sandbox", "--disable-gpu", "--dump-dom", page.as_uri()],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert result.returncode == 0, result.stderr[-2000:]
    assert "</html>" in result.stdout, result.stderr[-2000:]
    return result.stdout


def broken_links(site: Path, page: Path, links: _Links) -> list[str]:
    broken = []
    for href in links.hrefs:
        parts = urlsplit(href)
        if parts.scheme or parts.netloc or href.startswith(("mailto:", "javascript:")):
            continue  # not the site's own
        if parts.path:
            target = (page.parent / unquote(parts.path)).resolve()
            if parts.path.endswith("/") or target.is_dir():
                target = target / "index.html"
        else:
            target = page
        if not target.is_relative_to(site.resolve()) or not target.is_file():
            broken.append(f"{href} (no file {target})")
            continue
        if parts.fragment and target.suffix == ".html":
            ids = links.ids if target == page else parse(target.read_text()).ids
            if unquote(parts.fragment) not in ids:
                broken.append(f"{href} (no element with id {parts.fragment!r} in {target.name})")
    return broken


@pytest.mark.parametrize("name", PAGES)
def test_page_renders_with_no_broken_internal_link(site, name):
    page = (site / name).resolve()
    dom = rendered(page)
    links = parse(dom)
    internal = [h for h in links.hrefs if not urlsplit(h).scheme]
    assert len(internal) > 10, f"{name} rendered with only {internal}"
    assert broken_links(site, page, links) == []


def test_the_api_page_documents_hash_many_from_its_docstring(site):
    links = parse(rendered((site / "api/index.html").resolve()))
    assert "batchkeccak.api.hash_many" in links.ids
    import batchkeccak as bk

    first_line = bk.hash_many.__doc__.strip().splitlines()[0]
    assert first_line in (site / "api/index.html").read_text()


def test_a_broken_link_is_found(tmp_path):
    (tmp_path / "index.html").write_text(
        '<a href="there/">x</a><a href="#here">y</a><a href="gone.html">z</a>'
        '<a href="there/#missing">w</a><p id="here"></p>'
    )
    (tmp_path / "there").mkdir()
    (tmp_path / "there" / "index.html").write_text('<p id="present"></p>')
    page = tmp_path / "index.html"
    found = broken_links(tmp_path, page, parse(page.read_text()))
    assert [b.split(" ")[0] for b in found] == ["gone.html", "there/#missing"]
