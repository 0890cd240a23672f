"""Checks of the arguments every layer takes, written once so that they agree: an int is a
Python or numpy integer and never a bool, and the error names the argument."""

from __future__ import annotations

from typing import TypeGuard

import numpy as np


def is_int(value: object) -> TypeGuard[int | np.integer]:
    """A Python or numpy integer; a bool (an int to Python) is not one."""
    return isinstance(value, (int, np.integer)) and not isinstance(value, bool)


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
