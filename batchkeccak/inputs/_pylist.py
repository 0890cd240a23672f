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

import ctypes
import functools
import sys

import numpy as np
from llvmlite import ir
from numba import types
from numba.core import cgutils
from numba.extending import intrinsic

from batchkeccak.core.jit import njit
from batchkeccak.inputs.flat import changed_while_hashing
from batchkeccak.permutation.lanes import emit_prefetch

_POINTER_SIZE = ctypes.sizeof(ctypes.c_void_p)
_VAR_HEADER = 3 * _POINTER_SIZE  # ob_refcnt, ob_type, ob_size; then a list's ob_item
_TYPE_AT = _POINTER_SIZE
_SIZE_AT = 2 * _POINTER_SIZE
_BYTES_DATA_AT = _VAR_HEADER + _POINTER_SIZE  # after ob_shash


@intrinsic
def _load_word(typingctx, address):
    """The 64-bit word at integer ``address``."""
    sig = types.int64(address)

    def codegen(context, builder, signature, args):
        pointer = builder.inttoptr(args[0], ir.IntType(64).as_pointer())
        return builder.load(pointer)

    return sig, codegen


_GUESSED_ITEM_SIZE = 64

_AHEAD = 16
"""Objects are fetched this many items ahead: they lie wherever the allocator put them."""


@intrinsic
def _prefetch_address(typingctx, address):
    """Hint the CPU to fetch the cache line at integer ``address`` (no fault, no effect)."""
    sig = types.void(address)

    def codegen(context, builder, signature, args):
        emit_prefetch(builder, builder.inttoptr(args[0], ir.IntType(8).as_pointer()))
        return context.get_dummy_value()

    return sig, codegen


@intrinsic
def _copy_from_address(typingctx, destination, start, address, count):
    """memcpy ``count`` bytes from integer ``address`` to ``destination[start:]``."""
    sig = types.void(destination, start, address, count)

    def codegen(context, builder, signature, args):
        view = context.make_array(signature.args[0])(context, builder, args[0])
        target = builder.gep(view.data, [args[1]])
        source = builder.inttoptr(args[2], ir.IntType(8).as_pointer())
        cgutils.raw_memcpy(builder, target, source, args[3], 1)
        return context.get_dummy_value()

    return sig, codegen


_CHANGED = -(1 << 62)
"""What the walkers return when the container no longer holds what the caller measured."""


@njit(cache=True, inline="always")
def _range_items(container, is_tuple, start, stop):
    """Address of item ``start``'s pointer, or 0 if the container now holds fewer than
    ``stop`` items. A tuple's item array is inline after its header; a list's header
    points to it."""
    if stop > _load_word(container + _SIZE_AT):
        return 0
    items = container + _VAR_HEADER if is_tuple else _load_word(container + _VAR_HEADER)
    return items + _POINTER_SIZE * start


@njit(cache=True)
def _measure_and_copy(container, is_tuple, start, stop, bytes_type, offsets, data, measured):
    """Fill ``offsets`` from the sizes of items ``start..stop`` and copy their bytes into
    ``data`` while they fit. Returns the total size (more than ``data`` holds: call again,
    ``measured``, with a ``data`` of that size), ``-1 - i`` for the first item ``start + i``
    that is not exactly ``bytes``, or ``_CHANGED`` if the container now holds fewer than
    ``stop`` items.

    One pass over the objects instead of two: each object is fetched from memory once.
    ``measured``: the second pass, which copies every item to the ``offsets`` the first one
    measured and returns 0, or ``_CHANGED`` if any item is no longer the ``bytes`` of the
    measured size (the GIL was free between the two passes). One function for both passes:
    one compile, where two cost twice the fixed part of it.
    """
    items = _range_items(container, is_tuple, start, stop)
    if items == 0:
        return _CHANGED
    count = stop - start
    if measured:
        for i in range(count):
            item = _load_word(items + _POINTER_SIZE * i)
            if i + _AHEAD < count:
                _prefetch_address(_load_word(items + _POINTER_SIZE * (i + _AHEAD)) + _BYTES_DATA_AT)
            length = offsets[i + 1] - offsets[i]
            if _load_word(item + _TYPE_AT) != bytes_type or _load_word(item + _SIZE_AT) != length:
                return _CHANGED
            _copy_from_address(data, offsets[i], item + _BYTES_DATA_AT, length)
        return 0
    offsets[0] = 0
    total = 0
    capacity = data.shape[0]
    for i in range(count):
        item = _load_word(items + _POINTER_SIZE * i)
        if i + _AHEAD < count:
            _prefetch_address(_load_word(items + _POINTER_SIZE * (i + _AHEAD)))
        if _load_word(item + _TYPE_AT) != bytes_type:
            return -1 - i
        size = _load_word(item + _SIZE_AT)
        if total + size <= capacity:
            _copy_from_address(data, total, item + _BYTES_DATA_AT, size)
        total += size
        offsets[i + 1] = total
    return total


def _flatten(sequence: list | tuple, start: int, stop: int) -> tuple[np.ndarray, np.ndarray] | None:
    count = stop - start
    offsets = np.empty(count + 1, dtype=np.int64)
    if count == 0:
        offsets[0] = 0
        return np.empty(0, dtype=np.uint8), offsets
    container = id(sequence)
    is_tuple = type(sequence) is tuple
    # Room for 64 bytes per item (keys, digests, Merkle pairs fit): pages never written are
    # never committed, so the unused part costs address space only.
    data = np.empty(_GUESSED_ITEM_SIZE * count, dtype=np.uint8)
    total = _measure_and_copy(container, is_tuple, start, stop, id(bytes), offsets, data, False)
    if total == _CHANGED:
        raise changed_while_hashing()
    if total < 0:
        return None
    if total > data.shape[0]:
        data = np.empty(total, dtype=np.uint8)
        if (
            _measure_and_copy(container, is_tuple, start, stop, id(bytes), offsets, data, True)
            == _CHANGED
        ):
            raise changed_while_hashing()
        return data, offsets
    return data[:total], offsets


@functools.lru_cache(maxsize=1)
def layout_matches() -> bool:
    """Whether this interpreter's objects look as the kernels expect (checked on samples)."""
    if sys.implementation.name != "cpython" or _POINTER_SIZE != 8:
        return False
    if getattr(sys, "_is_gil_enabled", lambda: True)() is False:
        return False
    # Small enough for the one-pass copy: the self-check then loads one kernel, not two.
    samples = [b"", b"a", b"0123456789abcdef" * 9, bytes(range(0, 256, 3)), b"\x00" * 7]
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
        if _flatten(samples, 1, 3)[0].tobytes() != b"".join(samples[1:3]):  # type: ignore[index]  # a list of bytes: the fast path applies, so not None (else the except)
            return False
    except Exception:  # noqa: BLE001 - any surprise here means: do not use the fast path
        return False
    return True


def flatten_bytes(
    sequence: object, start: int = 0, stop: int | None = None
) -> tuple[np.ndarray, np.ndarray] | None:
    """``(data, offsets)`` of items ``start..stop`` of a list or tuple of exact ``bytes``.

    None when the fast path does not apply (another sequence type, any item in the range that
    is not exactly ``bytes``, or an interpreter whose layout failed the self-check): use the
    portable path. ``RuntimeError`` if the list has shrunk below ``stop`` or its items were
    replaced between the two passes (another thread changed it while it was being hashed).
    """
    if type(sequence) not in (list, tuple) or not layout_matches():
        return None
    if stop is None:
        stop = len(sequence)  # type: ignore[arg-type]  # type(sequence) is list or tuple (checked above)
    return _flatten(sequence, start, stop)  # type: ignore[arg-type]  # type(sequence) is list or tuple (checked above)
