"""Progress bars on stderr, shown only when it is a terminal (or never, when not asked for);
in a Jupyter notebook, a widget bar (``tqdm.auto``) when ipywidgets is installed, else the
text bar, said once on stderr.

tqdm is imported when a bar is made, so importing the package never imports it.
"""

from __future__ import annotations

import contextlib
import importlib.util
import sys
import threading
from collections.abc import Callable, Iterator
from typing import Any

NOTEBOOK_NOTE = (
    "batchkeccak: progress: ipywidgets is not installed, so this notebook shows the text "
    "bar (pip install ipywidgets for a widget bar)"
)
"""Said once on stderr when a bar is asked for in a notebook without ipywidgets."""

_noted = threading.Event()


def in_notebook() -> bool:
    """Whether this runs in a Jupyter kernel (an IPython shell that talks to a notebook)."""
    shell = sys.modules.get("IPython")
    get_ipython = getattr(shell, "get_ipython", None)
    if get_ipython is None:
        return False
    try:
        ip = get_ipython()
    except Exception:  # noqa: BLE001 - any failure of the probe means "not a notebook"
        return False
    return ip is not None and "IPKernelApp" in getattr(ip, "config", {})


def has_widgets() -> bool:
    """Whether ipywidgets, which tqdm's notebook bar draws with, can be imported."""
    return importlib.util.find_spec("ipywidgets") is not None


def bar_kind(enabled: bool) -> str:
    """Which bar :func:`progress_bar` draws: ``none`` (not asked for), ``terminal`` (text on
    stderr when it is a terminal), ``widget`` (a notebook with ipywidgets) or ``text`` (a
    notebook without: the text bar, drawn on stderr, with :data:`NOTEBOOK_NOTE` said once)."""
    if not enabled:
        return "none"
    if not in_notebook():
        return "terminal"
    if has_widgets():
        return "widget"
    if not _noted.is_set():
        _noted.set()
        print(NOTEBOOK_NOTE, file=sys.stderr, flush=True)
    return "text"


def progress_bar(
    total: int | None,
    description: str,
    *,
    unit: str = "rows",
    enabled: bool = True,
    position: int = 0,
    delay: float = 0.0,
    leave: bool = True,
) -> Any:
    """A tqdm bar counting ``unit`` up to ``total`` (None: a count without an end), drawn
    only once ``delay`` seconds have passed (short work shows none), and erased when it
    closes unless ``leave``. In a notebook (see :func:`bar_kind`) the bar is shown there."""
    kind = bar_kind(enabled)
    if kind == "widget":
        from tqdm.auto import tqdm as widget_tqdm

        return widget_tqdm(
            total=total, unit=unit, unit_scale=True, desc=description, delay=delay, leave=leave
        )
    from tqdm import tqdm

    return tqdm(
        total=total,
        position=position,
        unit=unit,
        unit_scale=True,
        desc=description,
        file=sys.stderr,
        # None: only when stderr is a terminal; a notebook's stderr is none, and is shown
        disable={"none": True, "terminal": None}.get(kind, False),
        dynamic_ncols=True,
        delay=delay,
        leave=leave,
    )


@contextlib.contextmanager
def bar_cleared(bar: Any, flush: Callable[[], None]) -> Iterator[None]:
    """Erase ``bar`` (where it has been drawn) while lines go to the terminal: the lines are
    written and ``flush``-ed, then the bar is drawn again below them."""
    drawn = (
        not getattr(bar, "disable", True)
        and getattr(bar, "last_print_t", 0) >= getattr(bar, "start_t", 0) + bar.delay
    )
    if drawn:
        bar.clear()
    try:
        yield
    finally:
        if drawn:
            flush()
            bar.refresh()
