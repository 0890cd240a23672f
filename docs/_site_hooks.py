"""MkDocs hooks: the README, CHANGELOG.md, CONTRIBUTING.md and LICENSE as pages of the site.

They live at the top of the repository, where a package index and a clone show them, so the
site takes them from there instead of keeping copies; their links are made relative to the
site (``docs/arrow.md`` -> ``arrow.md``, ``CHANGELOG.md`` -> ``changelog.md``).
"""

from __future__ import annotations

import re
from pathlib import Path

from mkdocs.structure.files import File, Files

ROOT = Path(__file__).resolve().parents[1]
PAGES = {
    "index.md": "README.md",
    "changelog.md": "CHANGELOG.md",
    "contributing.md": "CONTRIBUTING.md",
    "license.md": "LICENSE",
}
_LINK_TARGET = re.compile(r"\]\((docs/|CHANGELOG\.md|CONTRIBUTING\.md|LICENSE)")
_SITE_TARGET = {source: page for page, source in PAGES.items()} | {"docs/": ""}


def _page_text(source: str) -> str:
    text = (ROOT / source).read_text(encoding="utf-8")
    if not source.endswith(".md"):
        return f"# {source.title()}\n\n```text\n{text}```\n"
    return _LINK_TARGET.sub(lambda m: "](" + _SITE_TARGET[m.group(1)], text)


def on_files(files: Files, config) -> Files:
    for page, source in PAGES.items():
        files.append(File.generated(config, page, content=_page_text(source)))
    return files
