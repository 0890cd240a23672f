"""``progress=True`` in a notebook: a widget bar with ipywidgets, else the text bar and a note
said once; the environment is faked (no Jupyter needed)."""

from __future__ import annotations

import sys
import types

import pyarrow as pa
import pytest

import batchkeccak as bk
from batchkeccak.support import progress


@pytest.fixture
def fresh_note(monkeypatch):
    monkeypatch.setattr(progress, "_noted", type(progress._noted)())


def _fake_ipython(monkeypatch, config):
    shell = types.SimpleNamespace(config=config)
    module = types.ModuleType("IPython")
    module.get_ipython = lambda: shell  # type: ignore[attr-defined]
    monkeypatch.setitem(sys.modules, "IPython", module)


def test_in_notebook_reads_the_kernel(monkeypatch):
    monkeypatch.delitem(sys.modules, "IPython", raising=False)
    assert not progress.in_notebook()
    _fake_ipython(monkeypatch, {"IPKernelApp": {}})
    assert progress.in_notebook()
    _fake_ipython(monkeypatch, {"TerminalInteractiveShell": {}})  # plain ipython
    assert not progress.in_notebook()


@pytest.mark.parametrize(
    ("notebook", "widgets", "kind"),
    [(False, False, "terminal"), (False, True, "terminal"), (True, True, "widget"),
     (True, False, "text")],
)  # fmt: skip
def test_bar_kind(monkeypatch, capsys, fresh_note, notebook, widgets, kind):
    monkeypatch.setattr(progress, "in_notebook", lambda: notebook)
    monkeypatch.setattr(progress, "has_widgets", lambda: widgets)
    assert progress.bar_kind(False) == "none"
    assert progress.bar_kind(True) == kind
    assert progress.bar_kind(True) == kind
    err = capsys.readouterr().err
    # the note comes once, and only where the text bar stands in for a widget
    assert err.count(progress.NOTEBOOK_NOTE) == (1 if kind == "text" else 0)


def test_widget_bar_is_tqdm_auto(monkeypatch, fresh_note):
    import tqdm.auto

    monkeypatch.setattr(progress, "in_notebook", lambda: True)
    monkeypatch.setattr(progress, "has_widgets", lambda: True)
    made = []
    monkeypatch.setattr(tqdm.auto, "tqdm", lambda **kw: made.append(kw) or kw)
    progress.progress_bar(10, "source")
    assert made and made[0]["total"] == 10 and "disable" not in made[0]


def test_text_bar_in_a_notebook_is_drawn_on_stderr(monkeypatch, capsys, fresh_note):
    monkeypatch.setattr(progress, "in_notebook", lambda: True)
    monkeypatch.setattr(progress, "has_widgets", lambda: False)
    table = pa.table({"id": list(range(100))})
    bk.table_digest(table, key="id", progress=True, threads=1)
    err = capsys.readouterr().err
    assert err.count(progress.NOTEBOOK_NOTE) == 1 and "source" in err  # the bar was drawn
    bar = progress.progress_bar(5, "x")
    assert bar.disable is False
    bar.close()
