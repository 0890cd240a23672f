"""The compiled kernels of :mod:`batchkeccak.inputs`: CPython's lists, tuples and object
arrays of ``bytes`` and ``str`` read straight from memory (``_pylist`` describes the layouts
and when these may run; it self-checks them once per process before any is used), the
places of an Arrow view array's values (``arrow_views``), and the views of equal-length
digests (``arrow_views.fixed_as_views``).

Every kernel here but :func:`gather`, :func:`gather_places`, :func:`view_places`,
:func:`view_runs` and :func:`fixed_views` (which read immutable memory that their caller
holds, or numpy arrays only) holds the GIL while it runs (no ``nogil``): nothing can
resize a container or free an item under it. Each reads the container's size and item array
itself, inside the call, because another thread may resize a list between any two Python
statements.
"""

from __future__ import annotations

import ctypes
import sys

import numpy as np
from llvmlite import ir
from numba import types
from numba.core import cgutils
from numba.extending import intrinsic

from batchkeccak.native.emitters import emit_prefetch
from batchkeccak.native.jit import njit

POINTER_SIZE = ctypes.sizeof(ctypes.c_void_p)
VAR_HEADER = 3 * POINTER_SIZE  # ob_refcnt, ob_type, ob_size; then a list's ob_item
TYPE_AT = POINTER_SIZE
SIZE_AT = 2 * POINTER_SIZE
BYTES_DATA_AT = VAR_HEADER + POINTER_SIZE  # after ob_shash
STR_STATE_AT = VAR_HEADER + POINTER_SIZE  # a str's state bits, after its cached hash
COMPACT_ASCII = (1 << 5) | (1 << 6)
"""The ``compact`` and ``ascii`` bits of a str's state: its characters are its UTF-8 bytes,
stored right after the object's header (``PyASCIIObject``)."""
STR_DATA_AT = sys.getsizeof("") - 1  # the header of a compact ASCII str (its size less the NUL)

LIST, TUPLE, ITEM_ARRAY = 0, 1, 2
"""How a container holds its item pointers: a list points to its array, a tuple holds it
inline, and an ``ITEM_ARRAY`` is the array itself (a numpy object array's data: its caller
holds the array, whose size cannot change while it is referenced, and passes the count)."""

CHANGED = -(1 << 62)
"""What the walkers return when the container no longer holds what the caller measured."""

AHEAD = 16
"""Objects are fetched this many items ahead: they lie wherever the allocator put them."""

SMALL_COPY = 64
"""Items up to this size are copied in 8-byte words (overlapping at the tail), not by a call
of ``memcpy`` each."""


@intrinsic
def load_unaligned(typingctx, address):
    """The 64-bit word at integer ``address``, any alignment."""
    sig = types.int64(address)

    def codegen(context, builder, signature, args):
        pointer = builder.inttoptr(args[0], ir.IntType(64).as_pointer())
        return builder.load(pointer, align=1)

    return sig, codegen


load_word = load_unaligned
"""An object's header field (8-byte aligned, which a load of any alignment serves alike)."""


@intrinsic
def store_unaligned(typingctx, destination, start, word):
    """Write the 64-bit ``word`` at ``destination[start:start + 8]`` (a uint8 array), any
    alignment."""
    sig = types.void(destination, start, word)

    def codegen(context, builder, signature, args):
        view = context.make_array(signature.args[0])(context, builder, args[0])
        target = builder.gep(view.data, [args[1]])
        pointer = builder.bitcast(target, ir.IntType(64).as_pointer())
        builder.store(args[2], pointer, align=1)
        return context.get_dummy_value()

    return sig, codegen


@intrinsic
def load_byte(typingctx, address):
    """The byte at integer ``address``, as an int64."""
    sig = types.int64(address)

    def codegen(context, builder, signature, args):
        pointer = builder.inttoptr(args[0], ir.IntType(8).as_pointer())
        return builder.zext(builder.load(pointer), ir.IntType(64))

    return sig, codegen


@intrinsic
def prefetch_address(typingctx, address):
    """Hint the CPU to fetch the cache line at integer ``address`` (no fault, no effect)."""
    sig = types.void(address)

    def codegen(context, builder, signature, args):
        emit_prefetch(builder, builder.inttoptr(args[0], ir.IntType(8).as_pointer()))
        return context.get_dummy_value()

    return sig, codegen


@intrinsic
def copy_from_address(typingctx, destination, start, address, count):
    """memcpy ``count`` bytes from integer ``address`` to ``destination[start:]``."""
    sig = types.void(destination, start, address, count)

    def codegen(context, builder, signature, args):
        view = context.make_array(signature.args[0])(context, builder, args[0])
        target = builder.gep(view.data, [args[1]])
        source = builder.inttoptr(args[2], ir.IntType(8).as_pointer())
        cgutils.raw_memcpy(builder, target, source, args[3], 1)
        return context.get_dummy_value()

    return sig, codegen


@njit(cache=True, inline="always")
def copy_bytes(destination, start, address, count):
    """Copy ``count`` bytes from ``address`` to ``destination[start:]``: a short run in
    8-byte words, the last one overlapping the one before it (never a byte outside either
    range), a longer one by ``memcpy``."""
    if count >= 8 and count <= SMALL_COPY:
        last = count - 8
        for k in range(0, last, 8):
            store_unaligned(destination, start + k, load_unaligned(address + k))
        store_unaligned(destination, start + last, load_unaligned(address + last))
    else:
        copy_from_address(destination, start, address, count)


@njit(cache=True, inline="always")
def range_items(container, kind, start, stop):
    """Address of item ``start``'s pointer, or 0 if the container now holds fewer than
    ``stop`` items. A tuple's item array is inline after its header; a list's header
    points to it; an ``ITEM_ARRAY`` is the array."""
    if kind == ITEM_ARRAY:
        return container + POINTER_SIZE * start
    if stop > load_word(container + SIZE_AT):
        return 0
    items = container + VAR_HEADER if kind == TUPLE else load_word(container + VAR_HEADER)
    return items + POINTER_SIZE * start


@njit(cache=True, inline="always")
def item_data(item, bytes_type, text_type):
    """Address of the bytes of ``item``: an exact ``bytes``, or an exact compact ASCII
    ``str`` where ``text_type`` is ``id(str)``; 0 for anything else. A bytes object's
    size and a str's length (characters, here its bytes) share one place in the header."""
    kind = load_word(item + TYPE_AT)
    if kind == bytes_type:
        return item + BYTES_DATA_AT
    if kind == text_type and (load_word(item + STR_STATE_AT) & COMPACT_ASCII) == COMPACT_ASCII:
        return item + STR_DATA_AT
    return 0


@njit(cache=True, inline="always")
def item_prefetching_ahead(items, i, count):
    """Item ``i`` of the pointer array at ``items``, prefetching the object ``AHEAD`` items on
    (its header and the first bytes of its data), so the pass waits on no cache miss."""
    if i + AHEAD < count:
        ahead = load_word(items + POINTER_SIZE * (i + AHEAD))
        prefetch_address(ahead)
        prefetch_address(ahead + 64)
    return load_word(items + POINTER_SIZE * i)


@njit(cache=True)
def measure_and_copy(
    container, kind, start, stop, bytes_type, text_type, offsets, data, measured, addresses
):
    """Fill ``offsets`` from the sizes of items ``start..stop`` and copy their bytes into
    ``data`` while they fit. Returns the total size (more than ``data`` holds: call again,
    ``measured``, with a ``data`` of that size), ``-1 - i`` for the first item ``start + i``
    that is neither exactly ``bytes`` nor (when ``text_type`` is ``id(str)``, not 0) an
    exact compact ASCII ``str``, or ``CHANGED`` if the container now holds fewer than
    ``stop`` items. A compact ASCII str's characters are its UTF-8 bytes, stored after its
    header: they are copied as they lie, with no encoding (any other str falls back).

    ``addresses[0]`` is set to 1 where every item has the same length, else 0 (the first
    pass sees every length: the caller then skips checking the offsets again); ``addresses``
    holds at least one entry.

    One pass over the objects instead of two: each object is fetched from memory once.
    ``measured``: the second pass, which records the address of every item's bytes in
    ``addresses`` (for ``gather`` to copy without the GIL) and returns 0, or ``CHANGED``
    if any item is no longer the ``bytes`` (or str) of the size the first pass measured (the
    GIL was free between the two passes). One function for both passes: one compile, where
    two cost twice the fixed part of it.
    """
    items = range_items(container, kind, start, stop)
    if items == 0:
        return CHANGED
    count = stop - start
    if measured:
        for i in range(count):
            item = load_word(items + POINTER_SIZE * i)
            if i + AHEAD < count:
                prefetch_address(load_word(items + POINTER_SIZE * (i + AHEAD)) + BYTES_DATA_AT)
            length = offsets[i + 1] - offsets[i]
            at = item_data(item, bytes_type, text_type)
            if at == 0 or load_word(item + SIZE_AT) != length:
                return CHANGED
            addresses[i] = at
        return 0
    offsets[0] = 0
    total = 0
    capacity = data.shape[0]
    first = -1
    equal = 1
    for i in range(count):
        item = item_prefetching_ahead(items, i, count)
        at = item_data(item, bytes_type, text_type)
        if at == 0:
            return -1 - i
        size = load_word(item + SIZE_AT)
        if size != first:
            if first >= 0:
                equal = 0
            first = size
        if total + size <= capacity:
            copy_bytes(data, total, at, size)
        total += size
        offsets[i + 1] = total
    addresses[0] = equal
    return total


@njit(cache=True, nogil=True)
def gather(addresses, offsets, data):
    """Copy ``offsets[i + 1] - offsets[i]`` bytes from each ``addresses[i]`` to ``data`` at
    ``offsets[i]``, without the GIL: the caller holds a private list of the objects, which
    are immutable (exact ``bytes`` and ``str``), so nothing can free or change them."""
    for i in range(addresses.shape[0]):
        copy_from_address(data, offsets[i], addresses[i], offsets[i + 1] - offsets[i])


# The two view kernels below repeat their checks and reads rather than share inlined helper
# functions: with the helpers (numba's inline="always"), the loop was measured 15x slower.


@njit(cache=True, nogil=True)
def view_places(
    views, bits, bit_start, views_address, buffer_addresses, buffer_sizes, addresses, lengths
):
    """Record the place of each value of an Arrow view array: ``views`` its 16-byte views as
    an ``(N, 4)`` int32 array (length, then a value of up to 12 bytes inline, or a prefix,
    the data buffer's index and the offset in it), ``bits`` its validity bitmap from bit
    ``bit_start`` (empty where no value is null), ``views_address`` the first view's
    address, ``buffer_*`` the variadic data buffers' addresses and sizes. A null's place is
    an empty value.

    Returns the values' total size, or ``-1 - i`` for the first valid view ``i`` that
    leaves its buffer (a negative length or offset, an index past the buffers, an end past
    the buffer's size). Every size is checked here, none trusted from the caller: the views
    and bitmap are read from numpy arrays, the values never. No GIL: the caller holds the
    array, whose buffers are immutable."""
    count = addresses.shape[0]
    if (
        views.shape[0] != count
        or views.shape[1] != 4
        or lengths.shape[0] != count
        or buffer_sizes.shape[0] != buffer_addresses.shape[0]
        or (bits.shape[0] != 0 and bits.shape[0] * 8 < bit_start + count)
        or bit_start < 0
    ):
        raise ValueError("view_places: the views, bitmap and outputs do not match")
    buffers = buffer_sizes.shape[0]
    nulls = bits.shape[0] != 0
    total = 0
    for i in range(count):
        if nulls:
            bit = bit_start + i
            if (bits[bit >> 3] >> (bit & 7)) & 1 == 0:
                addresses[i] = views_address
                lengths[i] = 0
                continue
        size = np.int64(views[i, 0])
        if size < 0:
            return -1 - i
        if size <= 12:
            addresses[i] = views_address + 16 * i + 4
        else:
            index = np.int64(views[i, 2])
            offset = np.int64(views[i, 3])
            if index < 0 or index >= buffers or offset < 0 or offset + size > buffer_sizes[index]:
                return -1 - i
            addresses[i] = buffer_addresses[index] + offset
        lengths[i] = size
        total += size
    return total


@njit(cache=True, nogil=True)
def view_runs(
    views, bits, bit_start, views_address, buffer_addresses, buffer_sizes, low, offsets, runs
):
    """The values of an Arrow view array (as :func:`view_places` takes it) as runs of values
    that lie back to back, each non-empty value where the one before it ended (empty values
    and nulls join any run), in memory from address ``low``: the first row of run ``k`` in
    ``runs[k]``, for at most ``runs.shape[0]`` runs, and each run's flat offsets (less
    ``low``) in ``offsets``, run ``k``'s from entry ``runs[k] + k``: its start, then the end
    of each of its values (``offsets`` holds ``N + runs.shape[0]`` entries; no entry is
    shared between two runs).

    Returns ``(total, runs found)``: the values' total size, ``-1 - i`` for the first valid
    view ``i`` that leaves its buffer (checked as in :func:`view_places`), and the count of
    runs; past ``runs.shape[0]`` runs it stops early, returning that count plus one."""
    count = views.shape[0]
    if (
        views.shape[1] != 4
        or buffer_sizes.shape[0] != buffer_addresses.shape[0]
        or (bits.shape[0] != 0 and bits.shape[0] * 8 < bit_start + count)
        or bit_start < 0
        or runs.shape[0] == 0
        or offsets.shape[0] != count + runs.shape[0]
    ):
        raise ValueError("view_runs: the views, bitmap, runs and offsets do not match")
    buffers = buffer_sizes.shape[0]
    nulls = bits.shape[0] != 0
    total = 0
    found = 1
    runs[0] = 0
    offsets[0] = 0
    end = -1  # no value read yet: the first non-empty one starts run 0 where it lies
    for i in range(count):
        size = np.int64(0)
        if nulls:
            bit = bit_start + i
            if (bits[bit >> 3] >> (bit & 7)) & 1 != 0:
                size = np.int64(views[i, 0])
        else:
            size = np.int64(views[i, 0])
        if size < 0:
            return -1 - i, 0
        if size != 0:
            if size <= 12:
                at = views_address + 16 * i + 4
            else:
                index = np.int64(views[i, 2])
                offset = np.int64(views[i, 3])
                if (
                    index < 0
                    or index >= buffers
                    or offset < 0
                    or offset + size > buffer_sizes[index]
                ):
                    return -1 - i, 0
                at = buffer_addresses[index] + offset
            if end == -1:
                for j in range(i + 1):  # run 0 starts here, and its empty values before
                    offsets[j] = at - low
            elif at != end:
                if found == runs.shape[0]:
                    return total, found + 1
                runs[found] = i
                offsets[i + found] = at - low  # this run's start, after the last one's end
                found += 1
            end = at + size
            total += size
        offsets[i + found] = 0 if end == -1 else end - low
    return total, found


@njit(cache=True, inline="always")
def _word(rows, i, start, stop):
    """Bytes ``start..stop`` (at most 4) of row ``i`` as a little-endian int32, zero-padded."""
    value = np.int64(0)
    for k in range(start, stop):
        value |= np.int64(rows[i, k]) << (8 * (k - start))
    return np.int32(value - (1 << 32) if value >= 1 << 31 else value)


@njit(cache=True, nogil=True)
def fixed_views(rows, views):
    """Write the 16-byte Arrow views (``views``, ``(N, 4)`` int32) of the ``(N, w)`` uint8
    ``rows`` as values of one ``binary_view`` array whose one data buffer is ``rows``
    itself: each row inline where ``w`` is at most 12, else its first 4 bytes, buffer 0 and
    its offset ``i * w`` (``N * w`` must fit in int32, checked here)."""
    count, width = rows.shape
    if views.shape[0] != count or views.shape[1] != 4 or count * width >= 1 << 31:
        raise ValueError("fixed_views: the rows and views do not match")
    for i in range(count):
        views[i, 0] = width
        if width > 12:
            views[i, 1] = _word(rows, i, 0, 4)
            views[i, 2] = 0
            views[i, 3] = i * width
        else:
            views[i, 1] = _word(rows, i, 0, min(width, 4))
            views[i, 2] = _word(rows, i, 4, min(width, 8))
            views[i, 3] = _word(rows, i, 8, width)
    return count


@njit(cache=True, nogil=True)
def gather_places(addresses, lengths, offsets, data):
    """Copy ``lengths[i]`` bytes from each ``addresses[i]`` to ``data`` back to back, writing
    ``offsets`` (``count + 1`` entries) on the way; short values in 8-byte words. Returns
    whether every length is the same. Each write is checked against ``data``'s size (a
    ValueError, never a write outside it). No GIL: the caller holds the memory read, which
    is immutable (an Arrow array's buffers)."""
    count = addresses.shape[0]
    if lengths.shape[0] != count or offsets.shape[0] != count + 1:
        raise ValueError("gather_places: the addresses, lengths and offsets do not match")
    size = data.shape[0]
    total = 0
    offsets[0] = 0
    equal = True
    for i in range(count):
        length = lengths[i]
        if length < 0 or length > size - total:
            raise ValueError("gather_places: the values do not fit the data buffer")
        if length != lengths[0]:
            equal = False
        copy_bytes(data, total, addresses[i], length)
        total += length
        offsets[i + 1] = total
    return equal


@njit(cache=True)
def places(container, kind, count, bytes_type, addresses, lengths):
    """Record the address and the size of each of the first ``count`` items (exact
    ``bytes``) in ``addresses`` and ``lengths``, in one pass over the objects; returns their
    total size, or ``-1 - i`` for the first item ``i`` that is not exactly ``bytes``, or
    ``CHANGED`` if the container holds fewer than ``count`` items."""
    items = range_items(container, kind, 0, count)
    if items == 0:
        return CHANGED
    total = 0
    for i in range(count):
        item = load_word(items + POINTER_SIZE * i)
        if i + AHEAD < count:
            prefetch_address(load_word(items + POINTER_SIZE * (i + AHEAD)))
        if load_word(item + TYPE_AT) != bytes_type:
            return -1 - i
        size = load_word(item + SIZE_AT)
        addresses[i] = item + BYTES_DATA_AT
        lengths[i] = size
        total += size
    return total


@njit(cache=True)
def decode_hex_texts(container, kind, count, text_type, none_address, digits, nibbles, rows, nulls):
    """Read ``count`` items, each an exact compact ASCII ``str`` of ``digits`` hex digits
    (either case) after an optional ``0x`` / ``0X``, or None (where ``none_address`` is
    ``id(None)``, else 0): the digits as bytes into ``rows`` (``(count, digits // 2)``
    uint8), ``nulls[i]`` set for a None (its row zeros). One pass over the objects, the
    characters read where CPython keeps them; ``nibbles`` (256 uint8) is each byte's value
    as a hex digit, 255 for any other byte: a lookup, where a test of the digit's range
    costs a mispredicted branch on about every third digit.

    Returns the number of Nones, or ``-1 - i`` for the first item ``i`` that is anything
    else (another type, a str not ASCII or of another length, a character that is not a
    hex digit): the caller then takes the portable path, which says what is wrong with it.
    ``CHANGED`` if the container holds fewer than ``count`` items.
    """
    items = range_items(container, kind, 0, count)
    if items == 0:
        return CHANGED
    width = digits // 2
    missing = 0
    for i in range(count):
        item = item_prefetching_ahead(items, i, count)
        if item == none_address:
            nulls[i] = True
            for k in range(width):
                rows[i, k] = 0
            missing += 1
            continue
        nulls[i] = False
        if load_word(item + TYPE_AT) != text_type:
            return -1 - i
        if (load_word(item + STR_STATE_AT) & COMPACT_ASCII) != COMPACT_ASCII:
            return -1 - i
        size = load_word(item + SIZE_AT)
        at = item + STR_DATA_AT
        if size == digits + 2:
            if load_byte(at) != 48 or (load_byte(at + 1) | 32) != 120:  # "0x" or "0X"
                return -1 - i
            at += 2
        elif size != digits:
            return -1 - i
        bad = 0
        for k in range(width):
            high = nibbles[load_byte(at + 2 * k)]
            low = nibbles[load_byte(at + 2 * k + 1)]
            bad |= high | low
            rows[i, k] = (high << 4) | (low & 15)
        if bad > 15:
            return -1 - i
    return missing
