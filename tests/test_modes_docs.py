"""Every Python block in docs/modes.md runs."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

MODES_DOC = Path(__file__).resolve().parents[1] / "docs" / "modes.md"
BLOCKS = re.findall(r"```python\n(.*?)```", MODES_DOC.read_text(), flags=re.DOTALL)


def test_modes_doc_has_examples():
    assert len(BLOCKS) >= 3


@pytest.mark.parametrize("index", range(len(BLOCKS)))
def test_modes_doc_block_runs(index, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    exec(compile(BLOCKS[index], f"docs/modes.md block {index}", "exec"), {"__name__": "__doc__"})  # noqa: S102
