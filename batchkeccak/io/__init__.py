"""Reading files and streams: paths -> batches of whole files, files -> chunks side by side,
a stream -> pieces, a text stream -> batches of lines.

Every module here reads and nothing hashes: what is read goes to a caller's function (the
files are hashed by :mod:`batchkeccak.files`, a tree mode's pieces by
:mod:`batchkeccak.derived`), except :mod:`.backend_files`, which feeds each file to the
one-shot backend's own object as it reads it (small work, no numpy).

- ``reads.py``: the one retry of a read that a file refuses for its count (``ENOMEM`` or
  ``EINVAL``, as /proc and /sys files do), and the names of read errors;
- ``pool.py``: the one pool of reading threads, and reading ahead into a second buffer;
- ``small_files.py`` and ``_kernels.py``: small files read whole, back to back, a
  buffer-full at a time (on Linux by the compiled reader in ``_kernels.py``, through Python
  elsewhere);
- ``chunks.py``: large files and pipes in chunks, many side by side, or one file;
- ``pieces.py``: one stream in pieces of a multiple of a unit (the tree modes' messages);
- ``lines.py``: a text stream in batches of lines, and one read at a time from a terminal;
- ``backend_files.py``: files through hashlib or pycryptodome one by one, in this process or
  shared with forked children.
"""
