"""Progress bars on stderr, shown only when it is a terminal (or never, when not asked for).

tqdm is imported when a bar is made, so importing the package never imports it.
"""

from __future__ import annotations

import sys
from typing import Any


def progress_bar(
    total: int | None,
    description: str,
    *,
    unit: str = "rows",
    enabled: bool = True,
    position: int = 0,
) -> Any:
    """A tqdm bar counting ``unit`` up to ``total`` (None: a count without an end)."""
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
    )
