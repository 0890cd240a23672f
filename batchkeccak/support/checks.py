"""Checks of the arguments every layer takes, written once so that they agree: an int is a
Python or numpy integer and never a bool, and the error names the argument."""

from __future__ import annotations

import sys
from typing import TYPE_CHECKING, TypeGuard

if TYPE_CHECKING:
    import numpy as np


def is_int(value: object) -> TypeGuard[int | np.integer]:
    """A Python or numpy integer; a bool (an int to Python) is not one.

    numpy is not imported here: the thread pools and the numpy-free paths (a few small files
    from the command line) check their ints with this, and a numpy integer can only exist
    once numpy is loaded."""
    if isinstance(value, int):
        return not isinstance(value, bool)
    numpy = sys.modules.get("numpy")
    return numpy is not None and isinstance(value, numpy.integer)


def check_int(
    value: object,
    argument: str,
    minimum: int | None = None,
    maximum: int | None = None,
    *,
    expected: str = "an int",
    note: str = "",
) -> int:
    """``value`` as a Python int: TypeError naming ``argument`` unless :func:`is_int`,
    ValueError below ``minimum`` or above ``maximum``.

    ``expected`` words the TypeError ("``threads`` must be a positive int or None"),
    ``note`` follows the bound in the ValueError ("must be >= 1 (or None for every core)").
    """
    if not is_int(value):
        raise TypeError(f"{argument} must be {expected}, got {type(value).__name__}")
    number = int(value)
    if minimum is not None and number < minimum:
        raise ValueError(f"{argument} must be >= {minimum}{note}, got {number}")
    if maximum is not None and number > maximum:
        raise ValueError(f"{argument} must be at most {maximum}{note}, got {number}")
    return number
