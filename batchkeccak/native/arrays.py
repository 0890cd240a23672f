"""Arrays typed read-only inside the kernels, so that one compiled specialization serves them.

numba compiles a function once per argument type, and a writable and a read-only array are
two types. The package passes read-only arrays (``batchkeccak.inputs.readonly``) into every
kernel it calls from Python; a kernel that calls another with an array it made itself (its
own copy of the offsets, a queue, a start state) passes it through :func:`read_only`, so the
callee is not compiled a second time for the writable type. Arrays made inside a kernel are
always writable, and numba has no read-only view of its own: this intrinsic changes the
type only, the array is the same.
"""

from __future__ import annotations

from numba import types
from numba.core.imputils import impl_ret_borrowed
from numba.extending import intrinsic


@intrinsic
def read_only(typingctx, array):
    """``array`` itself, typed read-only (for a call into another kernel)."""
    if not isinstance(array, types.Array):
        return None
    result = array.copy(readonly=True)

    def codegen(context, builder, signature, args):
        return impl_ret_borrowed(context, builder, signature.return_type, args[0])

    return result(array), codegen
