"""MkDocs hooks: the README, CHANGELOG.md and CONTRIBUTING.md as pages of the site.

They live at the top of the repository, where a package index and a clone show them, so the
site takes them from there instead of keeping copies; their links into docs/ are made
relative to the site.
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
}
_INTO_DOCS = re.compile(r"\]\(docs/")


def on_files(files: Files, config) -> Files:
    for page, source in PAGES.items():
        text = _INTO_DOCS.sub("](", (ROOT / source).read_text(encoding="utf-8"))
        files.append(File.generated(config, page, content=text))
    return files
