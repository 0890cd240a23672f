"""Files read in chunks, many side by side, a chunk of each per round, read ahead while the
caller hashes the round before (large files, pipes): memory stays bounded whatever the
sizes. (One stream chunk after chunk: :func:`batchkeccak.io.reads.stream_chunks`.)"""

from __future__ import annotations

from collections.abc import Iterator
from io import FileIO
from typing import TYPE_CHECKING

from batchkeccak.io.pool import read_ahead
from batchkeccak.io.reads import fill, named_error

if TYPE_CHECKING:
    import numpy as np

CHUNK_BYTES = 1 << 20
"""Bytes read per step from one streamed file (rounded down to whole blocks); with many
files streamed side by side the chunk shrinks so that all of them fit in STREAM_BYTES."""

STREAM_BYTES = 8 << 20
"""Buffer space for the files streamed side by side (twice: one set is read while the
other is hashed)."""

STREAM_GROUP = 32
"""Large files streamed side by side: one tile's worth of states."""


def chunk_size(unit: int, files: int) -> int:
    """Bytes of each file's chunk when ``files`` are read side by side: a multiple of
    ``unit`` (the sponge's rate), all of them within :data:`STREAM_BYTES`."""
    return max(unit, min(CHUNK_BYTES, STREAM_BYTES // files) // unit * unit)


def chunk_rounds(
    names: list,
    group: list[int],
    chunk: int,
    failures: dict[int, OSError],
) -> Iterator[tuple[np.ndarray, dict[int, int]]]:
    """Files ``names[i]`` for ``i`` in ``group``, read side by side: per round, a
    ``(len(group), chunk)`` uint8 array whose row ``r`` holds the next chunk of file
    ``group[r]``, and ``{r: bytes read}`` for the files read this round (a file whose count
    is short of ``chunk`` has ended; -1: its read failed). The next round is read on a
    reading thread while the caller works on this one; the array is valid until it asks
    for the next. A file that cannot be opened or read goes into ``failures``.
    """
    import numpy as np

    handles: dict[int, FileIO] = {}  # row in this group -> open file
    for row, index in enumerate(group):
        try:
            handles[row] = open(names[index], "rb", buffering=0)  # noqa: SIM115
        except OSError as exc:
            failures[index] = named_error(exc, names[index])
    buffers = [np.empty((len(group), chunk), dtype=np.uint8) for _ in range(2)]

    def read_round(turn: int, rows: list[int]) -> dict[int, int]:
        got = {}
        flat = memoryview(buffers[turn].reshape(-1))  # type: ignore[arg-type]  # numpy's stubs give ndarray __buffer__ only on Python 3.12+
        for row in rows:
            try:
                got[row] = fill(handles[row], flat[row * chunk : (row + 1) * chunk])
            except OSError as exc:
                got[row] = -1
                failures[group[row]] = named_error(exc, names[group[row]])
        return got

    def still_reading(filled: dict[int, int]) -> list[int] | None:
        return [row for row, got in filled.items() if got == chunk] or None

    rounds = read_ahead(read_round, list(handles), still_reading)
    try:
        for turn, filled in rounds:
            yield buffers[turn], filled
    finally:
        rounds.close()  # the read ahead is done before its files are closed
        for handle in handles.values():
            handle.close()
