"""The compiled reader of small files (Linux): stat, open, read and close each file from
jitted code with the GIL released, so every thread reads and hashes its own files.

Through Python's os.open / os.read the per-file work held the GIL and was about as slow as
hashlib's loop. A path is stat'ed before it is opened and only a regular file is ever opened
here: opening a pipe would take its writer's only open (or block until one comes), and its
bytes could not be read a second time by the streaming path. Imported by
:mod:`batchkeccak.io.small_files` only when the kernels hash the files.
"""

from __future__ import annotations

import errno
import os
import stat

import numpy as np
from llvmlite import ir
from numba import types
from numba.core import cgutils
from numba.extending import intrinsic

from batchkeccak.native.jit import njit

_I8P = ir.IntType(8).as_pointer()
_I32 = ir.IntType(32)
_I64 = ir.IntType(64)
# O_NONBLOCK: should a path become a pipe between its stat and its open, the open returns at
# once instead of waiting for a writer (regular files ignore the flag).
OPEN_FLAGS = os.O_RDONLY | os.O_NONBLOCK | os.O_NOCTTY | getattr(os, "O_CLOEXEC", 0)
_EINTR = errno.EINTR
_ENOMEM = errno.ENOMEM
_EINVAL = errno.EINVAL
_UNSIZED_READ = 128 << 10
"""The count of each read of a file whose size says nothing (/proc files report 0)."""
_EISDIR = errno.EISDIR
NOT_REGULAR = 1
"""Reader status: a pipe, socket or device, to be streamed (never opened by the reader)."""
TOO_BIG = 2
"""Reader status: larger than a small file, to be streamed."""
# struct statx has the same layout on every Linux architecture (include/uapi/linux/stat.h).
_AT_FDCWD = -100
_STATX_TYPE_AND_SIZE = 0x0001 | 0x0200  # STATX_TYPE | STATX_SIZE
_STATX_BYTES = 256
_STATX_MODE_AT = 0x1C  # u16 stx_mode
_STATX_SIZE_AT = 0x28  # u64 stx_size
_S_IFMT = stat.S_IFMT(0xFFFF)
_S_IFREG = stat.S_IFREG
_S_IFDIR = stat.S_IFDIR


def _byte_address(context, builder, array_type, array, offset, offset_type):
    view = context.make_array(array_type)(context, builder, array)
    position = context.cast(builder, offset, offset_type, types.int64)
    return builder.bitcast(builder.gep(view.data, [position]), _I8P)


def _libc(builder, name, result, arguments, var_arg=False):
    return cgutils.get_or_insert_function(
        builder.module, ir.FunctionType(result, arguments, var_arg=var_arg), name
    )


@intrinsic
def _c_statx(typingctx, paths, offset, info):
    """``statx(AT_FDCWD, &paths[offset], 0, STATX_TYPE | STATX_SIZE, &info[0])``: follows
    symbolic links, as ``open`` does; ``info`` is a uint8 array of ``_STATX_BYTES``."""
    sig = types.int32(paths, offset, info)

    def codegen(context, builder, signature, args):
        address = _byte_address(
            context, builder, signature.args[0], args[0], args[1], signature.args[1]
        )
        result = _byte_address(
            context,
            builder,
            signature.args[2],
            args[2],
            context.get_constant(types.int64, 0),
            types.int64,
        )
        function = _libc(builder, "statx", _I32, [_I32, _I8P, _I32, _I32, _I8P])
        return builder.call(
            function,
            [
                _I32(_AT_FDCWD),
                address,
                _I32(0),
                _I32(_STATX_TYPE_AND_SIZE),
                result,
            ],
        )

    return sig, codegen


@intrinsic
def _c_open(typingctx, paths, offset, flags):
    """``open(&paths[offset], flags)``: the path is NUL-terminated in ``paths``."""
    sig = types.int32(paths, offset, flags)

    def codegen(context, builder, signature, args):
        address = _byte_address(
            context, builder, signature.args[0], args[0], args[1], signature.args[1]
        )
        flag = context.cast(builder, args[2], signature.args[2], types.int32)
        return builder.call(
            _libc(builder, "open", _I32, [_I8P, _I32], var_arg=True), [address, flag]
        )

    return sig, codegen


@intrinsic
def _c_read(typingctx, fd, buffer, offset, count):
    """``read(fd, &buffer[offset], count)``."""
    sig = types.int64(fd, buffer, offset, count)

    def codegen(context, builder, signature, args):
        address = _byte_address(
            context, builder, signature.args[1], args[1], args[2], signature.args[2]
        )
        descriptor = context.cast(builder, args[0], signature.args[0], types.int32)
        size = context.cast(builder, args[3], signature.args[3], types.int64)
        return builder.call(
            _libc(builder, "read", _I64, [_I32, _I8P, _I64]), [descriptor, address, size]
        )

    return sig, codegen


@intrinsic
def _c_close(typingctx, fd):
    sig = types.int32(fd)

    def codegen(context, builder, signature, args):
        descriptor = context.cast(builder, args[0], signature.args[0], types.int32)
        return builder.call(_libc(builder, "close", _I32, [_I32]), [descriptor])

    return sig, codegen


@intrinsic
def _c_errno(typingctx):
    """The calling thread's ``errno`` (glibc and musl: ``*__errno_location()``)."""
    sig = types.int32()

    def codegen(context, builder, signature, args):
        location = builder.call(_libc(builder, "__errno_location", _I32.as_pointer(), []), [])
        return builder.load(location)

    return sig, codegen


@njit(cache=True, nogil=True, inline="always")
def _le_uint(info, at, count):
    value = 0
    for b in range(count):
        value |= np.int64(info[at + b]) << (8 * b)
    return value


@njit(cache=True, nogil=True)
def read_small_files(
    paths, path_starts, first, stop, small, flags, smallest_read, buffer, starts, status
):
    """Read the regular files ``first, first + 1, ...`` whole into ``buffer``, back to back.

    File ``i``'s bytes go to ``buffer[starts[i - first]:starts[i - first + 1]]``;
    ``status[i]`` is 0, minus the errno of a failed stat, open or read (``EISDIR`` for a
    directory), ``NOT_REGULAR`` (not opened) or ``TOO_BIG`` (over ``small`` bytes, not
    opened): those two are left for the streaming path and their ranges are empty. Returns
    the index of the first file not read: ``stop``, or the file that did not fit in what is
    left of the buffer. A read refused for its size (ENOMEM or EINVAL, as some /proc files
    refuse large counts) is tried again at half the count, down to ``smallest_read`` bytes.
    """
    capacity = buffer.shape[0]
    info = np.zeros(_STATX_BYTES, dtype=np.uint8)
    position = 0
    for i in range(first, stop):
        starts[i - first] = position
        status[i] = 0
        if _c_statx(paths, path_starts[i], info) != 0:
            status[i] = -_c_errno()
            continue
        kind = _le_uint(info, _STATX_MODE_AT, 2) & _S_IFMT
        if kind == _S_IFDIR:
            status[i] = -_EISDIR
            continue
        if kind != _S_IFREG:
            status[i] = NOT_REGULAR
            continue
        size = _le_uint(info, _STATX_SIZE_AT, 8)
        if size > small:
            status[i] = TOO_BIG
            continue
        if position > 0 and size >= capacity - position:
            return i  # the next buffer-full starts with it
        fd = _c_open(paths, path_starts[i], flags)
        if fd < 0:
            status[i] = -_c_errno()
            continue
        got = 0
        full = False
        # One count past the size: a file that grew fills it too. /proc files report size 0
        # and some refuse a count larger than a page or two, as their kernel handler
        # allocates the whole count up front.
        limit = size + 1 if size > 0 else _UNSIZED_READ
        while True:
            room = capacity - position - got
            if room == 0:
                full = True
                break
            count = _c_read(fd, buffer, position + got, min(room, limit))
            if count < 0:
                error = _c_errno()
                if error == _EINTR:
                    continue
                if (error == _ENOMEM or error == _EINVAL) and limit > smallest_read:
                    limit = max(smallest_read, min(room, limit) // 2)
                    continue
                status[i] = -error
                break
            if count == 0:
                break
            got += count
            # A regular file's read comes back short only at its end: one read suffices.
            # (Files in /proc report size 0 and are read to their end.)
            if got == size and count < room:
                break
        _c_close(fd)
        if full:
            if position == 0:
                status[i] = TOO_BIG  # it grew past the whole buffer: stream it
                continue
            return i
        if status[i] == 0:
            position += got
    starts[stop - first] = position
    return stop
