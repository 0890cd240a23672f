"""The hashing core: the compiler wrapper, the parameter table, the sponge and its
stored states, the Hasher, the one-shot backends and the choice between them, and the
threads that run the kernels.

Nothing is imported here: ``import batchkeccak`` stays lazy and loads no numba or numpy.
"""
