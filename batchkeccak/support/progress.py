"""Progress bars on stderr, shown only when it is a terminal (or never, when not asked for).

tqdm is imported when a bar is made, so importing the package never imports it.
"""

from __future__ import annotations

import contextlib
import sys
from collections.abc import Callable, Iterator
from typing import Any


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
    closes unless ``leave``."""
    from tqdm import tqdm

    return tqdm(
        total=total,
        position=position,
        unit=unit,
        unit_scale=True,
        desc=description,
        file=sys.stderr,
        disable=None if enabled else True,  # None: only when stderr is a terminal
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
