"""The input boundary: every accepted form of messages becomes one validated flat view.

Everything above this layer (``batchkeccak.api``, the integrations) hands its messages here;
everything below it (the hasher and the sponge kernels) reads only what comes out. What comes
out is ``(data, offsets)`` under one contract, which the compiled kernels rely on:

- ``data`` is a 1-D, C-contiguous, read-only ``uint8`` array; message ``i`` is
  ``data[offsets[i]:offsets[i + 1]]``.
- ``offsets`` is a private, read-only 1-D ``int64`` array of ``N + 1`` entries (a copy the
  caller never sees, so no other thread can change it), non-decreasing, ``offsets[0] >= 0`` and
  ``offsets[-1] <= len(data)``.
- The bytes hashed are exactly the bytes that were measured. Each message is measured and
  read through one buffer export (one ``memoryview``), which also pins its size: a
  ``bytearray`` or numpy array cannot be resized while it is exported. Code that runs while
  messages are read (a ``__len__``, a ``__buffer__``, another thread) can therefore change
  *which* bytes are hashed, never *how many*. A list shortened or refilled by another thread
  while it is read raises :func:`changed_while_hashing`'s ``RuntimeError``.
- ``data`` (and whatever owns its memory) stays alive and the same size for the call: the
  returned array holds the reference.

As a last line of defence the kernels check the offsets against ``data`` on entry
(``sponge.run_jobs``'s entry check), so no caller mistake can make them read outside the buffer.

The accepted forms (nothing is guessed from a dtype):

1. a sequence or iterable of bytes-like objects (``bytes``, ``bytearray``, ``memoryview``,
   contiguous numpy arrays: their raw bytes, as hashlib hashes them);
2. a 2-D ``uint8`` numpy array, one message per row;
3. :class:`FlatMessages` ``(data, offsets)``: Arrow's layout, named so that it is never
   mistaken for a tuple of two messages;
4. a binary or string column of pyarrow, or of any object that exports the Arrow PyCapsule
   interface (:mod:`batchkeccak.inputs.arrow_producers` reads those;
   :mod:`batchkeccak.inputs.arrow_buffers` reads the column's buffers).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from collections.abc import Set as AbstractSet

import numpy as np

from batchkeccak.inputs.flat import (
    FlatMessages,
    NotContiguousError,
    check_flat,
    flat_to_rows,
    readonly,
    rows_to_flat,
)
from batchkeccak.inputs.sequences import (
    changed_while_hashing,
    sequence_to_flat,
    single_message,
)

__all__ = [
    "FlatMessages",
    "NotContiguousError",
    "changed_while_hashing",
    "check_flat",
    "exports_arrow",
    "flat_to_rows",
    "readonly",
    "rows_to_flat",
    "sequence_to_flat",
    "single_message",
    "to_flat",
]


def exports_arrow(value: object) -> bool:
    """Whether ``value`` exports the Arrow PyCapsule interface (pyarrow's objects all do).

    Such an object is read as Arrow data even where it is also iterable (a pandas Series):
    its values are read in place, and strings hash their UTF-8 bytes, as Arrow stores them.
    """
    kind = type(value)
    return hasattr(kind, "__arrow_c_stream__") or hasattr(kind, "__arrow_c_array__")


def to_flat(messages: object, argument: str = "messages") -> tuple[np.ndarray, np.ndarray]:
    """Any accepted input form as ``(data, offsets)`` under the contract above.

    ``argument`` is the caller's name for ``messages``, used in error messages.
    """
    if isinstance(messages, FlatMessages):
        return check_flat(messages.data, messages.offsets)
    if isinstance(messages, (str, bytes, bytearray, memoryview)):
        raise TypeError(
            f"{argument} must be a sequence of messages, got a single "
            f"{type(messages).__name__}; wrap one message in a list: [message]"
        )
    if isinstance(messages, np.ndarray):
        if messages.ndim == 2:
            return rows_to_flat(messages, argument)
        raise TypeError(
            f"a {argument} array must be 2-D uint8 (one message per row), got "
            f"{messages.ndim}-D {messages.dtype}; pass one message as [array], or a flat "
            "buffer as batchkeccak.FlatMessages(data, offsets)"
        )
    if exports_arrow(messages) or type(messages).__module__.startswith("pyarrow"):
        from batchkeccak.inputs.arrow_buffers import binary_buffers

        return binary_buffers(messages, argument=argument)
    if not isinstance(messages, Iterable):
        raise TypeError(
            f"{argument} must be a sequence of bytes-like objects, a 2-D uint8 array, "
            "batchkeccak.FlatMessages or a binary column of Arrow (pyarrow, or any object with "
            f"the Arrow PyCapsule interface), got {type(messages).__name__}"
        )
    if isinstance(messages, (AbstractSet, Mapping)):
        # Row i of the result belongs to message i: a set has no order to keep, and a
        # mapping would give its keys.
        raise TypeError(
            f"{argument} must be an ordered sequence of messages, got a "
            f"{type(messages).__name__}; pass sorted(...) or a list"
        )
    return sequence_to_flat(messages, argument=argument)
