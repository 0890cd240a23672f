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

from batchkeccak.inputs.flat import changed_while_hashing
from batchkeccak.native.emitters import emit_prefetch
from batchkeccak.native.jit import njit

_POINTER_SIZE = ctypes.sizeof(ctypes.c_void_p)
_VAR_HEADER = 3 * _POINTER_SIZE  # ob_refcnt, ob_type, ob_size; then a list's ob_item
_TYPE_AT = _POINTER_SIZE
_SIZE_AT = 2 * _POINTER_SIZE
_BYTES_DATA_AT = _VAR_HEADER + _POINTER_SIZE  # after ob_shash
_STR_STATE_AT = _VAR_HEADER + _POINTER_SIZE  # a str's state bits, after its cached hash
_COMPACT_ASCII = (1 << 5) | (1 << 6)
"""The ``compact`` and ``ascii`` bits of a str's state: its characters are its UTF-8 bytes,
stored right after the object's header (``PyASCIIObject``)."""
_STR_DATA_AT = sys.getsizeof("") - 1  # the header of a compact ASCII str (its size less the NUL)


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


@njit(cache=True, inline="always")
def _item_data(item, bytes_type, text_type):
    """Address of the bytes of ``item``: an exact ``bytes``, or an exact compact ASCII
    ``str`` where ``text_type`` is ``id(str)``; 0 for anything else. A bytes object's
    size and a str's length (characters, here its bytes) share one place in the header."""
    kind = _load_word(item + _TYPE_AT)
    if kind == bytes_type:
        return item + _BYTES_DATA_AT
    if kind == text_type and (_load_word(item + _STR_STATE_AT) & _COMPACT_ASCII) == _COMPACT_ASCII:
        return item + _STR_DATA_AT
    return 0


@njit(cache=True)
def _measure_and_copy(
    container, is_tuple, start, stop, bytes_type, text_type, offsets, data, measured, addresses
):
    """Fill ``offsets`` from the sizes of items ``start..stop`` and copy their bytes into
    ``data`` while they fit. Returns the total size (more than ``data`` holds: call again,
    ``measured``, with a ``data`` of that size), ``-1 - i`` for the first item ``start + i``
    that is neither exactly ``bytes`` nor (when ``text_type`` is ``id(str)``, not 0) an
    exact compact ASCII ``str``, or ``_CHANGED`` if the container now holds fewer than
    ``stop`` items. A compact ASCII str's characters are its UTF-8 bytes, stored after its
    header: they are copied as they lie, with no encoding (any other str falls back).

    One pass over the objects instead of two: each object is fetched from memory once.
    ``measured``: the second pass, which records the address of every item's bytes in
    ``addresses`` (for ``_gather`` to copy without the GIL) and returns 0, or ``_CHANGED``
    if any item is no longer the ``bytes`` (or str) of the size the first pass measured (the
    GIL was free between the two passes). One function for both passes: one compile, where
    two cost twice the fixed part of it.
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
            at = _item_data(item, bytes_type, text_type)
            if at == 0 or _load_word(item + _SIZE_AT) != length:
                return _CHANGED
            addresses[i] = at
        return 0
    offsets[0] = 0
    total = 0
    capacity = data.shape[0]
    for i in range(count):
        item = _load_word(items + _POINTER_SIZE * i)
        if i + _AHEAD < count:
            _prefetch_address(_load_word(items + _POINTER_SIZE * (i + _AHEAD)))
        at = _item_data(item, bytes_type, text_type)
        if at == 0:
            return -1 - i
        size = _load_word(item + _SIZE_AT)
        if total + size <= capacity:
            _copy_from_address(data, total, at, size)
        total += size
        offsets[i + 1] = total
    return total


@njit(cache=True, nogil=True)
def _gather(addresses, offsets, data):
    """Copy ``offsets[i + 1] - offsets[i]`` bytes from each ``addresses[i]`` to ``data`` at
    ``offsets[i]``, without the GIL: the caller holds a private list of the objects, which
    are immutable (exact ``bytes`` and ``str``), so nothing can free or change them."""
    for i in range(addresses.shape[0]):
        _copy_from_address(data, offsets[i], addresses[i], offsets[i + 1] - offsets[i])


_NO_ADDRESSES = np.zeros(0, dtype=np.int64)


def _flatten(
    sequence: list | tuple, start: int, stop: int, text: bool = False, binary: bool = True
) -> tuple[np.ndarray, np.ndarray] | None:
    count = stop - start
    offsets = np.empty(count + 1, dtype=np.int64)
    if count == 0:
        offsets[0] = 0
        return np.empty(0, dtype=np.uint8), offsets
    container = id(sequence)
    is_tuple = type(sequence) is tuple
    text_type = id(str) if text else 0
    bytes_type = id(bytes) if binary else 0  # no object's type is at address 0
    # Room for 64 bytes per item (keys, digests, Merkle pairs fit): pages never written are
    # never committed, so the unused part costs address space only.
    data = np.empty(_GUESSED_ITEM_SIZE * count, dtype=np.uint8)
    total = _measure_and_copy(
        container, is_tuple, start, stop, bytes_type, text_type, offsets, data, False, _NO_ADDRESSES
    )
    if total == _CHANGED:
        raise changed_while_hashing()
    if total < 0:
        return None
    if total <= data.shape[0]:
        return data[:total], offsets
    # Longer items: the bulk of the work is the copy, done without the GIL (other threads,
    # the other chunks of hash_many's list, run meanwhile). A private slice holds every item
    # for it: another thread may drop them from the caller's list once the GIL is free. The
    # slice is checked to hold items of the sizes measured (it was taken after the first
    # pass), and its items' places are recorded while the GIL is held.
    part = sequence[start:stop]
    if len(part) != count:
        raise changed_while_hashing()
    addresses = np.empty(count, dtype=np.int64)
    if (
        _measure_and_copy(
            id(part),
            type(part) is tuple,
            0,
            count,
            bytes_type,
            text_type,
            offsets,
            data,
            True,
            addresses,
        )
        == _CHANGED
    ):
        raise changed_while_hashing()
    data = np.empty(total, dtype=np.uint8)
    _gather(addresses, offsets, data)
    del part  # the objects may go only after the copy
    return data, offsets


@functools.lru_cache(maxsize=1)
def layout_matches() -> bool:
    """Whether this interpreter's objects look as the kernels expect (checked on samples)."""
    if sys.implementation.name != "cpython" or _POINTER_SIZE != 8:
        return False
    if getattr(sys, "_is_gil_enabled", lambda: True)() is False:
        return False
    # Small enough for the one-pass copy: the self-check then loads one kernel, not two.
    samples = [b"", b"a", b"0123456789abcdef" * 9, bytes(range(0, 256, 3)), b"\x00" * 7]
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
    if type(sequence) not in (list, tuple) or not layout_matches():
        return None
    if stop is None:
        stop = len(sequence)  # type: ignore[arg-type]  # type(sequence) is list or tuple (checked above)
    return _flatten(sequence, start, stop, text, binary)  # type: ignore[arg-type]  # type(sequence) is list or tuple (checked above)


_NO_DATA = np.empty(0, dtype=np.uint8)


class _Span:
    """Numpy's array interface over ``size`` bytes of memory from ``address``: the range
    that holds every item of ``held`` (a private list or tuple of exact ``bytes``, immutable,
    kept alive by the array that this object is the base of). Nothing in the range is read
    but the items' own bytes: the kernels' offsets into it are checked against its size."""

    def __init__(self, address: int, size: int, held: list | tuple) -> None:
        self.held = held
        self.__array_interface__ = {
            "data": (address, True),  # read-only
            "shape": (size,),
            "typestr": "|u1",
            "version": 3,
        }


@njit(cache=True)
def _places(container, is_tuple, count, bytes_type, addresses, lengths):
    """Record the address and the size of each of the first ``count`` items (exact
    ``bytes``) in ``addresses`` and ``lengths``, in one pass over the objects; returns their
    total size, or ``-1 - i`` for the first item ``i`` that is not exactly ``bytes``, or
    ``_CHANGED`` if the container holds fewer than ``count`` items."""
    items = _range_items(container, is_tuple, 0, count)
    if items == 0:
        return _CHANGED
    total = 0
    for i in range(count):
        item = _load_word(items + _POINTER_SIZE * i)
        if i + _AHEAD < count:
            _prefetch_address(_load_word(items + _POINTER_SIZE * (i + _AHEAD)))
        if _load_word(item + _TYPE_AT) != bytes_type:
            return -1 - i
        size = _load_word(item + _SIZE_AT)
        addresses[i] = item + _BYTES_DATA_AT
        lengths[i] = size
        total += size
    return total


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
    total = _places(id(part), type(part) is tuple, count, id(bytes), addresses, lengths)
    if total == _CHANGED:
        raise changed_while_hashing()  # pragma: no cover - the slice is private
    if total < 0:
        return None
    base = int(addresses.min()) if count else 0
    starts = addresses - base
    ends = starts + lengths
    span = int(ends.max()) if count else 0
    data = np.asarray(_Span(base, span, part)) if count else _NO_DATA
    for array in (starts, ends):
        array.flags.writeable = False
    return data, starts, ends
