"""Per-message framing: each message with a length prefix and/or a trailer, in one new buffer.

SP 800-185 ends every KMAC, TupleHash and ParallelHash input with ``right_encode(L)`` and
TupleHash starts each string with its bit length; KangarooTwelve appends the customization
string. A prefix that is the same for every message is absorbed once into the initial
state instead (:func:`batchkeccak.sponge.absorb_prefixes`); what follows a message cannot
be, so those bytes are written beside each message here: one pass over the data.
"""

from __future__ import annotations

import numpy as np

from batchkeccak.derived._kernels import append_encoded_strings, frame, framed_size
from batchkeccak.inputs import readonly


def frame_messages(
    data: np.ndarray, offsets: np.ndarray, trailer: bytes, length_prefix: bool = False
) -> tuple[np.ndarray, np.ndarray]:
    """Every message ``m`` as ``[left_encode(8 * len(m))] || m || trailer``, flat.

    Takes and returns flat views under :mod:`batchkeccak.inputs`' contract.
    """
    trailer_array = readonly(np.frombuffer(trailer, dtype=np.uint8))
    data, offsets = readonly(data), readonly(offsets)  # one specialization of each kernel
    size = framed_size(offsets, length_prefix, trailer_array.shape[0])
    out_data = np.empty(size, dtype=np.uint8)
    out_offsets = np.empty(offsets.shape[0], dtype=np.int64)
    frame(data, offsets, length_prefix, trailer_array, out_data, out_offsets)
    return readonly(out_data), readonly(out_offsets)


def encode_string_rows(
    fields: list[tuple[np.ndarray, np.ndarray]], count: int, trailer: bytes
) -> tuple[np.ndarray, np.ndarray]:
    """Rows of fields as ``encode_string(f1) || ... || encode_string(fk) || trailer``, flat:
    TupleHash's input for each row. ``fields`` holds each column's ``(data, offsets)``."""
    row_lengths = np.full(count, len(trailer), dtype=np.int64)
    for _, offsets in fields:
        sizes = np.diff(offsets)
        bits = sizes * 8
        widths = np.ones(count, dtype=np.int64)
        for k in range(1, 8):
            widths += bits >= (1 << (8 * k))
        row_lengths += 1 + widths + sizes
    row_offsets = np.zeros(count + 1, dtype=np.int64)
    np.cumsum(row_lengths, out=row_offsets[1:])
    encoded = np.empty(int(row_offsets[-1]), dtype=np.uint8)
    positions = row_offsets[:-1].copy()
    for data, offsets in fields:
        append_encoded_strings(encoded, positions, data, offsets)
    if trailer:
        tail = np.frombuffer(trailer, dtype=np.uint8)
        ends = row_offsets[1:]
        for k, byte in enumerate(tail):
            encoded[ends - len(tail) + k] = byte
    return readonly(encoded), readonly(row_offsets)
