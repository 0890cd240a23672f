"""Little-endian 64-bit words read from and written to byte arrays, for the compiled kernels.

One unaligned load or store each, written as LLVM IR. Spelled in Python as eight byte
accesses, shifts and ORs, a word cost numba some forty typed statements at every call site,
and LLVM had to merge them back into one load: compile time for nothing, in every kernel
that reads a message. numba's targets are all little-endian, as the sponge's byte order
requires (``batchkeccak.sponge`` checks it at import). No bounds are checked: callers keep
``pos + 8`` inside the array.
"""

from __future__ import annotations

from llvmlite import ir
from numba import types
from numba.extending import intrinsic

_WORD = ir.IntType(64)


def _byte_array(data) -> bool:
    return isinstance(data, types.Array) and data.dtype == types.uint8 and data.ndim == 1


def _word_pointer(context, builder, array_type, array, pos, pos_type):
    view = context.make_array(array_type)(context, builder, array)
    position = context.cast(builder, pos, pos_type, types.int64)
    return builder.bitcast(builder.gep(view.data, [position]), _WORD.as_pointer())


@intrinsic
def load_le64(typingctx, data, pos):
    """``data[pos:pos + 8]`` (a 1-D uint8 array) as one little-endian uint64."""
    if not _byte_array(data) or not isinstance(pos, types.Integer):
        return None
    sig = types.uint64(data, pos)

    def codegen(context, builder, signature, args):
        address = _word_pointer(
            context, builder, signature.args[0], args[0], args[1], signature.args[1]
        )
        return builder.load(address, align=1)

    return sig, codegen


@intrinsic
def store_le64(typingctx, data, pos, word):
    """Write the uint64 ``word`` to ``data[pos:pos + 8]`` (a writable 1-D uint8 array)."""
    if not _byte_array(data) or not data.mutable or not isinstance(pos, types.Integer):
        return None
    sig = types.void(data, pos, types.uint64)

    def codegen(context, builder, signature, args):
        address = _word_pointer(
            context, builder, signature.args[0], args[0], args[1], signature.args[1]
        )
        builder.store(args[2], address, align=1)
        return context.get_dummy_value()

    return sig, codegen
