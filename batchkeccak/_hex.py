"""Digests as hex text: one place for the row-splitting every caller needs."""

from __future__ import annotations

import numpy as np


def hex_rows(rows: np.ndarray, prefix: str = "") -> list[str]:
    """Each row of an ``(n, w)`` uint8 array as lowercase hex, after ``prefix`` (``"0x"``).

    One ``bytes.hex`` over the whole array, then slices: about 3x faster than ``.hex()`` per
    row for 32-byte digests.
    """
    count = rows.shape[0]
    step = 2 * rows.shape[1]
    if count == 0:
        return []
    if step == 0:
        return [prefix] * count
    joined = np.ascontiguousarray(rows).tobytes().hex()
    return [prefix + joined[i : i + step] for i in range(0, len(joined), step)]


def hex_0x(data: object) -> str:
    """``0x``-prefixed lowercase hex of a bytes-like value, as Ethereum tools write it."""
    return "0x" + bytes(memoryview(data).cast("B")).hex()  # type: ignore[arg-type]
