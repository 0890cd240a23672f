"""Read a list or tuple of ``bytes`` objects straight from CPython's memory, in compiled code.

Turning 2**20 small ``bytes`` objects into one flat buffer with ``b"".join`` and a ``len`` pass
costs more than hashing them (each step is a Python-level loop over the objects). CPython's
object layouts are stable and public in its headers: a list keeps a pointer to an array of
item pointers right after its variable-size header, a tuple keeps the array inline, and a
``bytes`` object keeps its size in that header and its characters after the cached hash. The
kernels below walk those structures directly while the caller holds the GIL, so nothing can
change under them.

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
from numba import njit, types
from numba.core import cgutils
from numba.extending import intrinsic

_POINTER_SIZE = ctypes.sizeof(ctypes.c_void_p)
_VAR_HEADER = 3 * _POINTER_SIZE  # ob_refcnt, ob_type, ob_size
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
    """Hint the CPU to fetch the cache line at integer ``address`` (no fault, no effect).

    The sponge has its own on array elements; this module may not import from the kernel
    layer, whose changes its numba cache stamp would not see (``_kernel_cache``).
    """
    sig = types.void(address)

    def codegen(context, builder, signature, args):
        byte_pointer = ir.IntType(8).as_pointer()
        i32 = ir.IntType(32)
        prefetch = cgutils.get_or_insert_function(
            builder.module,
            ir.FunctionType(ir.VoidType(), [byte_pointer, i32, i32, i32]),
            "llvm.prefetch.p0",
        )
        builder.call(prefetch, [builder.inttoptr(args[0], byte_pointer), i32(0), i32(3), i32(1)])
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


@njit(cache=True)
def _measure_and_copy(items, count, bytes_type, offsets, data):
    """Fill ``offsets`` from the items' sizes and copy their bytes into ``data`` while they
    fit. Returns the total size (more than ``data`` holds: copy again with ``_gather``), or
    ``-1 - i`` for the first item ``i`` that is not exactly ``bytes``.

    One pass over the objects instead of two: each object is fetched from memory once.
    """
    offsets[0] = 0
    total = 0
    capacity = data.shape[0]
    for i in range(count):
        item = _load_word(items + 8 * i)
        if i + _AHEAD < count:
            _prefetch_address(_load_word(items + 8 * (i + _AHEAD)))
        if _load_word(item + 8) != bytes_type:
            return -1 - i
        size = _load_word(item + 16)
        if total + size <= capacity:
            _copy_from_address(data, total, item + 32, size)
        total += size
        offsets[i + 1] = total
    return total


@njit(cache=True)
def _gather(items, count, offsets, data):
    for i in range(count):
        item = _load_word(items + 8 * i)
        if i + _AHEAD < count:
            _prefetch_address(_load_word(items + 8 * (i + _AHEAD)) + 32)
        _copy_from_address(data, offsets[i], item + 32, offsets[i + 1] - offsets[i])


def _items_address(sequence: list | tuple) -> int:
    if type(sequence) is tuple:
        return id(sequence) + _VAR_HEADER
    return ctypes.c_void_p.from_address(id(sequence) + _VAR_HEADER).value or 0


def _flatten(sequence: list | tuple) -> tuple[np.ndarray, np.ndarray] | None:
    count = len(sequence)
    offsets = np.empty(count + 1, dtype=np.int64)
    if count == 0:
        offsets[0] = 0
        return np.empty(0, dtype=np.uint8), offsets
    items = _items_address(sequence)
    # Room for 64 bytes per item (keys, digests, Merkle pairs fit): pages never written are
    # never committed, so the unused part costs address space only.
    data = np.empty(_GUESSED_ITEM_SIZE * count, dtype=np.uint8)
    total = _measure_and_copy(items, count, id(bytes), offsets, data)
    if total < 0:
        return None
    if total > data.shape[0]:
        data = np.empty(total, dtype=np.uint8)
        _gather(items, count, offsets, data)
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
            got = _flatten(sequence)
            expected_offsets = np.cumsum([0, *map(len, sequence)])
            if (
                got is None
                or got[0].tobytes() != b"".join(sequence)
                or not np.array_equal(got[1], expected_offsets)
            ):
                return False
        if _flatten([b"ok", bytearray(b"no")]) is not None:
            return False
    except Exception:  # noqa: BLE001 - any surprise here means: do not use the fast path
        return False
    return True


def flatten_bytes(sequence: object) -> tuple[np.ndarray, np.ndarray] | None:
    """``(data, offsets)`` of a list or tuple made only of exact ``bytes`` objects.

    None when the fast path does not apply (another sequence type, any item that is not exactly
    ``bytes``, or an interpreter whose layout failed the self-check): use the portable path.
    """
    if type(sequence) not in (list, tuple) or not layout_matches():
        return None
    return _flatten(sequence)  # type: ignore[arg-type]
