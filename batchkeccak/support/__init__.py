"""Small utilities every layer shares: argument checks, hex text, atomic output files
and stop signals held back across a fork or a temporary file's removal.

Nothing is imported here: ``import batchkeccak`` stays lazy.
"""
