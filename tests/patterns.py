"""Test messages of a known pattern, made fast: the suite builds millions of their bytes."""

from __future__ import annotations

import numpy as np


def cyclic_bytes(length: int, start: int = 0, step: int = 1) -> bytes:
    """``bytes((start + step * i) % 251 for i in range(length))``: 251 is prime, so no two
    blocks of any rate line up by accident (as BLAKE3's tests fill their inputs)."""
    positions = np.arange(length, dtype=np.int64)
    return ((start + step * positions) % 251).astype(np.uint8).tobytes()
