"""Read a list or tuple of ``bytes`` objects straight from CPython's memory, in compiled code.

Turning 2**20 small ``bytes`` objects into one flat buffer with ``b"".join`` and a ``len`` pass
costs more than hashing them (each step is a Python-level loop over the objects). CPython's
object layouts are stable and public in its headers: a list keeps a pointer to an array of
item pointers right after its variable-size header, a tuple keeps the array inline, and a
``bytes`` object keeps its size in that header and its characters after the cached hash. The
kernels below walk those structures directly and hold the GIL while they do, so nothing can
change under them; they read the container's size and item array themselves, inside the
call, because another thread may resize a list between any two Python statements.

A self-check runs once per process on known objects; if the layout ever differs (another
Python implementation, a free-threaded build, a future CPython) the fast path switches itself
off and the portable join is used instead.
"""

from __future__ import annotations

import functools
import sys
import threading

import numpy as np

from batchkeccak.inputs import _kernels
from batchkeccak.inputs._kernels import CHANGED, ITEM_ARRAY, LIST, POINTER_SIZE, TUPLE
from batchkeccak.inputs.flat import changed_while_hashing, memory_span
from batchkeccak.support.hextext import NIBBLES

_GUESSED_ITEM_SIZE = 64

SCRATCH_BYTES = 64 << 20
"""The largest copy buffer a thread keeps for its next list (``read_flat(reuse=True)``):
fresh pages cost their first write (about 4 ms of the 14 ms copy of 2^20 x 32 B), a kept
buffer does not. 64 MiB of address space, of which only what a list filled is resident."""

_SCRATCH = threading.local()


def _buffer(size: int, reuse: bool) -> np.ndarray:
    """``size`` bytes to copy into: this thread's kept buffer where ``reuse`` (its caller is
    done with the data before the thread reads another list) and it fits, else fresh."""
    if not reuse or size > SCRATCH_BYTES:
        return np.empty(size, dtype=np.uint8)
    held = getattr(_SCRATCH, "buffer", None)
    if held is None or held.shape[0] < size:
        held = np.empty(max(size, 1 << 20), dtype=np.uint8)
        _SCRATCH.buffer = held
    return held[:size]


_NO_ADDRESSES = np.zeros(0, dtype=np.int64)


def _kind(container: list | tuple) -> int:
    return TUPLE if type(container) is tuple else LIST


def _flatten(
    sequence: list | tuple,
    start: int,
    stop: int,
    text: bool = False,
    binary: bool = True,
    reuse: bool = False,
) -> tuple[np.ndarray, np.ndarray, bool] | None:
    """``(data, offsets, equal)``: ``equal`` says every item has the same length (the
    reader saw every length, so the offsets need no second look)."""
    count = stop - start
    offsets = np.empty(count + 1, dtype=np.int64)
    if count == 0:
        offsets[0] = 0
        return np.empty(0, dtype=np.uint8), offsets, True
    return _read(id(sequence), _kind(sequence), sequence, start, stop, offsets, text, binary, reuse)


def _read(
    container: int,
    kind: int,
    sequence: object,
    start: int,
    stop: int,
    offsets: np.ndarray,
    text: bool,
    binary: bool,
    reuse: bool = False,
) -> tuple[np.ndarray, np.ndarray, bool] | None:
    count = stop - start
    text_type = id(str) if text else 0
    bytes_type = id(bytes) if binary else 0  # no object's type is at address 0
    # Room for 64 bytes per item (keys, digests, Merkle pairs fit): pages never written are
    # never committed, so the unused part costs address space only.
    data = _buffer(_GUESSED_ITEM_SIZE * count, reuse)
    report = np.zeros(1, dtype=np.int64)
    total = _kernels.measure_and_copy(
        container, kind, start, stop, bytes_type, text_type, offsets, data, False, report
    )
    if total == CHANGED:
        raise changed_while_hashing()
    if total < 0:
        return None
    equal = bool(report[0])
    if total <= data.shape[0]:
        return data[:total], offsets, equal
    if kind == ITEM_ARRAY:
        # The caller's object array is held for the call and each pass holds the GIL:
        # copied again, whole, into a buffer of the size measured (the offsets and the
        # report written again with it).
        data = np.empty(total, dtype=np.uint8)
        again = _kernels.measure_and_copy(
            container, kind, start, stop, bytes_type, text_type, offsets, data, False, report
        )
        if again != total:
            # Another thread replaced items between the two passes (the GIL is free
            # between them): what was measured is no longer there.
            raise changed_while_hashing()
        return data, offsets, bool(report[0])  # the second pass's lengths and report
    # Longer items: the bulk of the work is the copy, done without the GIL (other threads,
    # the other chunks of hash_many's list, run meanwhile). A private slice holds every item
    # for it: another thread may drop them from the caller's list once the GIL is free. The
    # slice is checked to hold items of the sizes measured (it was taken after the first
    # pass), and its items' places are recorded while the GIL is held.
    part = sequence[start:stop]  # type: ignore[index]  # a list or tuple (ITEM_ARRAY returned above)
    if len(part) != count:
        raise changed_while_hashing()
    addresses = np.empty(count, dtype=np.int64)
    if (
        _kernels.measure_and_copy(
            id(part), _kind(part), 0, count, bytes_type, text_type, offsets, data, True, addresses
        )
        == CHANGED
    ):
        raise changed_while_hashing()
    data = np.empty(total, dtype=np.uint8)
    _kernels.gather(addresses, offsets, data)
    del part  # the objects may go only after the copy
    return data, offsets, equal


@functools.lru_cache(maxsize=1)
def layout_matches() -> bool:
    """Whether this interpreter's objects look as the kernels expect (checked on samples)."""
    if sys.implementation.name != "cpython" or POINTER_SIZE != 8:
        return False
    if getattr(sys, "_is_gil_enabled", lambda: True)() is False:
        return False
    # Small enough for the one-pass copy: the self-check then loads one kernel, not two.
    samples = [
        b"",
        b"a",
        b"0123456789abcdef" * 9,
        bytes(range(0, 256, 3)),
        b"\x00" * 7,
        b"01234567",
        b"0123456789abc",
        bytes(range(64)),
    ]
    texts: list[str | bytes] = [
        "",
        "a",
        "0123456789abcdef" * 9,
        b"mixed",
        "".join(map(chr, range(32, 127))),
    ]
    try:
        for sequence in (samples, tuple(samples), [b"x"] * 3, ()):
            got = _flatten(sequence, 0, len(sequence))
            expected_offsets = np.cumsum([0, *map(len, sequence)])
            if (
                got is None
                or got[0].tobytes() != b"".join(sequence)
                or not np.array_equal(got[1], expected_offsets)
            ):
                return False
        if _flatten([b"ok", bytearray(b"no")], 0, 2) is not None:
            return False
        if _flatten(samples, 3, 5)[0].tobytes() != b"".join(samples[3:5]):  # type: ignore[index]  # a list of bytes: the fast path applies, so not None (else the except)
            return False
        encoded = [t.encode() if isinstance(t, str) else t for t in texts]
        got = _flatten(texts, 0, len(texts), text=True)
        if (
            got is None
            or got[0].tobytes() != b"".join(encoded)
            or not np.array_equal(got[1], np.cumsum([0, *map(len, encoded)]))
        ):
            return False
        # Not ASCII, a subclass of str, and str where text is not taken: the portable path.
        for refused, text, binary in (
            (["ok", "\u00e9"], True, True),
            (["ok", _Text("x")], True, True),
            (["ok"], False, True),
            (["ok", b"no"], True, False),
        ):
            if _flatten(refused, 0, len(refused), text, binary) is not None:
                return False
    except Exception:  # noqa: BLE001 - any surprise here means: do not use the fast path
        return False
    return True


class _Text(str):
    """A subclass of str, which the compiled reader must refuse (the self-check's sample)."""


def flatten_bytes(
    sequence: object,
    start: int = 0,
    stop: int | None = None,
    *,
    text: bool = False,
    binary: bool = True,
) -> tuple[np.ndarray, np.ndarray] | None:
    """``(data, offsets)`` of items ``start..stop`` of a list or tuple of exact ``bytes``
    (and, with ``text``, exact ``str`` of ASCII characters, read as their UTF-8 bytes from
    where CPython keeps them).

    None when the fast path does not apply (another sequence type, any item in the range that
    is not exactly ``bytes`` or such a str, or an interpreter whose layout failed the
    self-check): use the portable path. ``binary=False`` (with ``text``) takes str only: a
    column of text that must refuse ``bytes``. ``RuntimeError`` if the list has shrunk below
    ``stop`` or its items were replaced between the two passes (another thread changed it
    while it was being hashed).
    """
    flat = read_flat(sequence, start, stop, text=text, binary=binary)
    return None if flat is None else (flat[0], flat[1])


def read_flat(
    sequence: object,
    start: int = 0,
    stop: int | None = None,
    *,
    text: bool = False,
    binary: bool = True,
    reuse: bool = False,
) -> tuple[np.ndarray, np.ndarray, bool] | None:
    """:func:`flatten_bytes` and whether every item has the same length: ``(data, offsets,
    equal)``. The reader measures every item, so the hasher need not look at the offsets
    again to find rows of one length.

    ``reuse``: the data may lie in this thread's kept buffer (:data:`SCRATCH_BYTES`), which
    the thread's next ``reuse`` read overwrites: only for a caller that is done with the
    data before then (``hash_many`` hashes it at once)."""
    if type(sequence) not in (list, tuple) or not layout_matches():
        return None
    if stop is None:
        stop = len(sequence)  # type: ignore[arg-type]  # type(sequence) is list or tuple (checked above)
    return _flatten(sequence, start, stop, text, binary, reuse)  # type: ignore[arg-type]  # type(sequence) is list or tuple (checked above)


def object_array_flat(
    values: np.ndarray, *, text: bool = False, binary: bool = True, reuse: bool = False
) -> tuple[np.ndarray, np.ndarray, bool] | None:
    """:func:`read_flat` of a 1-D numpy object array (a pandas object column's values),
    read from the array's own item pointers: no ``tolist()``. The array holds its items for
    the call, and the compiled reader holds the GIL while it reads them, so no item can be
    replaced or freed under it. None where the reader does not apply (another dtype, a
    strided array, an item that is not exactly ``bytes`` or an ASCII ``str``). ``reuse`` as
    for :func:`read_flat`."""
    if (
        type(values) is not np.ndarray
        or values.dtype != object
        or values.ndim != 1
        or (values.shape[0] > 1 and values.strides[0] != POINTER_SIZE)  # (0 when empty)
        or not layout_matches()
    ):
        return None
    count = values.shape[0]
    offsets = np.empty(count + 1, dtype=np.int64)
    if count == 0:
        offsets[0] = 0
        return np.empty(0, dtype=np.uint8), offsets, True
    return _read(values.ctypes.data, ITEM_ARRAY, values, 0, count, offsets, text, binary, reuse)


def hex_texts(sequence: object, digits: int) -> tuple[np.ndarray, np.ndarray | None] | None:
    """A list or tuple of exact ASCII ``str``, each ``digits`` hex digits (either case) after
    an optional ``0x``, or None, decoded in one compiled pass from where CPython keeps the
    characters: ``(rows, nulls)``, ``rows`` ``(N, digits // 2)`` uint8 (zeros for a None),
    ``nulls`` the mask of the Nones or None when there are none.

    None where anything else is met (another type, a str not ASCII, of another length or
    holding a character that is not a hex digit, another container, a layout that failed
    the self-check): the portable path then reads it and names what is wrong.
    """
    if type(sequence) not in (list, tuple) or not layout_matches():
        return None
    count = len(sequence)  # type: ignore[arg-type]  # type(sequence) is list or tuple (checked above)
    rows = np.empty((count, digits // 2), dtype=np.uint8)
    nulls = np.empty(count, dtype=np.bool_)
    if count == 0:
        return rows, None
    kind = _kind(sequence)  # type: ignore[arg-type]  # type(sequence) is list or tuple (checked above)
    missing = _kernels.decode_hex_texts(
        id(sequence), kind, count, id(str), id(None), digits, NIBBLES, rows, nulls
    )
    if missing == CHANGED:
        raise changed_while_hashing()
    if missing < 0:
        return None
    return rows, (nulls if missing else None)


_NO_DATA = np.empty(0, dtype=np.uint8)


def bytes_places(
    sequence: object, start: int = 0, stop: int | None = None
) -> tuple[np.ndarray, np.ndarray, np.ndarray] | None:
    """``(data, starts, ends)`` of items ``start..stop`` of a list or tuple of exact ``bytes``,
    read where they lie: item ``i`` is ``data[starts[i]:ends[i]]``, ``data`` a read-only
    uint8 array over the memory range that holds them all (its base object holds a private
    slice of the items, so they live as long as ``data``, whatever another thread does to
    the caller's list). None where the compiled reader does not apply.

    The places and sizes are measured once, from the private slice, under the GIL: ``bytes``
    objects never change, so they stay true for as long as ``data`` lives, and the kernels
    check every ``(start, end)`` against ``data``'s size before reading.
    """
    if type(sequence) not in (list, tuple) or not layout_matches():
        return None
    part = sequence[start:stop]  # type: ignore[index]  # type(sequence) is list or tuple (checked above)
    count = len(part)
    addresses = np.empty(count, dtype=np.int64)
    lengths = np.empty(count, dtype=np.int64)
    total = _kernels.places(id(part), _kind(part), count, id(bytes), addresses, lengths)
    if total == CHANGED:
        raise changed_while_hashing()  # pragma: no cover - the slice is private
    if total < 0:
        return None
    base = int(addresses.min()) if count else 0
    starts = addresses - base
    ends = starts + lengths
    span = int(ends.max()) if count else 0
    data = memory_span(base, span, part) if count else _NO_DATA
    for array in (starts, ends):
        array.flags.writeable = False
    return data, starts, ends
