"""Every ``# type: ignore`` in the package names its error code and says why.

mypy itself runs in CI (``.ci/run``, configured in pyproject.toml); this keeps the ignores it
accepts narrow and explained, so that one never hides a second, unrelated error.
"""

from __future__ import annotations

import io
import re
import tokenize
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parents[1] / "batchkeccak"

_IGNORE = re.compile(r"type:\s*ignore")
_EXPLAINED = re.compile(r"# type: ignore\[[a-z0-9-]+(, [a-z0-9-]+)*\]  # \S")


def unexplained_ignores(source: str) -> list[int]:
    """Lines whose comment holds a ``type: ignore`` without ``[code]`` and a ``# reason``."""
    lines = []
    for token in tokenize.generate_tokens(io.StringIO(source).readline):
        if (
            token.type == tokenize.COMMENT
            and _IGNORE.search(token.string)
            and not _EXPLAINED.match(token.string)
        ):
            lines.append(token.start[0])
    return lines


@pytest.mark.parametrize(
    "comment",
    [
        "# type: ignore",
        "# type: ignore  # numpy",
        "# type: ignore[arg-type]",
        "# type: ignore[arg-type] # one space",
        "# type: ignore[arg-type]  #",
        "# type:ignore[arg-type]  # squeezed",
        "# noqa: E501  # type: ignore[arg-type]  # after another comment",
    ],
)
def test_an_ignore_without_a_code_and_a_reason_is_found(comment):
    assert unexplained_ignores(f"x = f(y)  {comment}\n") == [1]


def test_an_ignore_with_codes_and_a_reason_passes():
    source = (
        "x = f(y)  # type: ignore[arg-type]  # f checks y itself\n"
        "z = g(y)  # type: ignore[index, union-attr]  # set above\n"
        's = "# type: ignore"  # a string, not a comment\n'
    )
    assert unexplained_ignores(source) == []


def test_every_ignore_in_the_package_has_a_code_and_a_reason():
    found = [
        f"{path.relative_to(PACKAGE.parent)}:{line}"
        for path in sorted(PACKAGE.rglob("*.py"))
        for line in unexplained_ignores(path.read_text(encoding="utf-8"))
    ]
    assert not found, "write each as '# type: ignore[code]  # why' (or fix the type): " + ", ".join(
        found
    )
