"""The ground floor: what every package's compiled code is built with.

``jit.py`` is the ``njit`` every compiled function is declared with, in its package's
``_kernels.py`` (numba's cache, or in memory where none is writable); ``words.py`` reads and writes little-endian words of byte
arrays in one load or store; ``emitters.py`` holds the LLVM IR emitters the intrinsics share
(``splat``, ``emit_loop``, ``emit_if``, ``emit_prefetch``) and the ``prefetch`` hint;
``signals.py`` holds the stop signals back while a step must not be cut in two (a function
compiling or loading, a fork, a temporary file's removal). Nothing
here imports another batchkeccak module, and this ``__init__`` imports nothing, so
``import batchkeccak`` loads neither numba nor numpy.
"""
