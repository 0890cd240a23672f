"""Hashing files: many at once with bounded memory, or one file object like hashlib's.

Small files are read whole, in parallel, into one flat buffer per batch and hashed together
through :func:`batchkeccak.hash_many` (they share the tiles); large files (and anything that is
not a regular file, such as a pipe) are read in fixed chunks and absorbed into stored states,
up to a tile's worth of files side by side, while the next chunks are being read. Memory stays
bounded whatever the sizes of the files. The reading is :mod:`batchkeccak.io`'s; this module
hashes what it reads.

numpy and the kernels are imported by the functions that use them: small work given to the
one-shot backend (:func:`digest_files`, :func:`digest_stream`: the command line's calls)
runs without either.
"""

from __future__ import annotations

import os
from collections.abc import Iterable
from typing import TYPE_CHECKING, Any, Literal, cast

from batchkeccak.core.dispatch import (
    ONESHOT,
    kernels_loaded,
    one_stream_to_backend,
    oneshot_bytes,
    plan,
)
from batchkeccak.core.oneshot import oneshot_object
from batchkeccak.core.parameters import Algorithm, algorithms, canonical_name
from batchkeccak.io.backend_files import (
    ONESHOT_THREAD_BYTES,
    digest_paths,
    digest_paths_forked,
    total_file_bytes,
)
from batchkeccak.io.chunks import CHUNK_BYTES, STREAM_GROUP, chunk_rounds, chunk_size
from batchkeccak.io.pool import reader_pool
from batchkeccak.io.reads import named_error, stream_chunks

if TYPE_CHECKING:
    import numpy as np

    from batchkeccak.core.hashers import Hasher
    from batchkeccak.streams import KeccakHash

__all__ = ["digest_files", "digest_stream", "file_digest", "hash_files"]


def _check_paths(paths: object) -> list[str | bytes]:
    if isinstance(paths, (str, bytes, os.PathLike)):
        raise TypeError(
            f"paths must be a sequence of paths, got a single {type(paths).__name__}; "
            "wrap one path in a list: [path]"
        )
    if not isinstance(paths, Iterable):
        raise TypeError(f"paths must be a sequence of paths, got {type(paths).__name__}")
    given = list(paths)
    if all(type(path) is str for path in given):
        checked = given  # the usual case, checked in one pass
    else:
        checked = []
        for i, path in enumerate(given):
            try:
                checked.append(os.fspath(path))
            except TypeError:
                raise TypeError(
                    f"paths[{i}] must be a str, bytes or os.PathLike, got {type(path).__name__}"
                ) from None
    # Refused here, before any file is opened, whichever backend then reads them.
    for i, path in enumerate(checked):
        if ("\0" if isinstance(path, str) else b"\0") in path:
            raise ValueError(f"paths[{i}] contains a NUL byte")
    return checked


def hash_files(
    paths: Iterable[str | bytes | os.PathLike],
    algorithm: str | Algorithm | Hasher = "sha3_256",
    *,
    length: int | None = None,
    threads: int | None = None,
    errors: Literal["raise", "collect"] = "raise",
    **params: object,
) -> np.ndarray | list[bytes | OSError]:
    """Hash the contents of many files, with memory bounded whatever their sizes.

    Parameters
    ----------
    paths
        Paths (``str``, ``bytes`` or ``os.PathLike``). A path may be a pipe or a device; it
        is read to its end.
    algorithm
        A name from ``batchkeccak.algorithms`` or ``batchkeccak.modes`` (``"kmac_256"``,
        ``"kt128"``...), or a resolved :class:`~batchkeccak.Hasher`.
    length
        Output bytes for the extendable-output functions and the modes that take one.
    threads
        Threads for reading and hashing; None uses every available core.
    **params
        A mode's parameters (``key=``, ``customization=``...): one key for every file.
    errors
        ``"raise"`` (default): the first file (in input order) that cannot be read raises
        its ``OSError``, which names the file. ``"collect"``: every file is attempted and the
        result holds the error in place of the digest.

    Returns
    -------
    numpy.ndarray or list
        With ``errors="raise"``, ``(N, digest_size)`` uint8, row ``i`` the digest of
        ``paths[i]``. With ``errors="collect"``, a list of N items: the digest as ``bytes``,
        or the ``OSError`` that reading the file raised.

    Examples
    --------
    >>> import batchkeccak as bk, tempfile, pathlib
    >>> folder = pathlib.Path(tempfile.mkdtemp())
    >>> (folder / "a.txt").write_bytes(b"abc")
    3
    >>> bk.hash_files([folder / "a.txt"], "sha3_256")[0].tobytes().hex()[:16]
    '3a985da74fe225b2'
    >>> bk.hash_files([folder / "missing"], errors="collect")[0].strerror
    'No such file or directory'
    """
    import numpy as np

    from batchkeccak.api import hasher
    from batchkeccak.io.small_files import read_small_files

    resolved = hasher(algorithm, length=length, threads=threads, **params)
    if resolved.batch_size not in (None, 1):
        raise ValueError(
            f"{resolved.name}: hash_files takes one key for every file, not one per file"
        )
    out_len = resolved.output_length
    if errors not in ("raise", "collect"):
        raise ValueError(f"errors must be 'raise' or 'collect', got {errors!r}")
    names = _check_paths(paths)
    out = np.zeros((len(names), out_len), dtype=np.uint8)
    failures: dict[int, OSError] = {}
    executor = resolved.executor
    total = total_file_bytes(names) if executor.oneshot_backend and not kernels_loaded() else -1
    # Reading and hashing a small file holds the GIL (hashlib lets go of it only for updates
    # over 2 KiB): the backend's threads help only where the files are large.
    backend_threads = resolved.threads if total >= ONESHOT_THREAD_BYTES * len(names) else 1
    if total >= 0 and executor.plan(len(names), total, backend_threads) == ONESHOT:
        _hash_files_oneshot(names, resolved.with_threads(backend_threads), out, failures)
        if errors == "raise":
            if failures:
                raise failures[min(failures)]
            return out
        return [failures.get(i) or out[i].tobytes() for i in range(len(names))]
    if getattr(resolved, "small_work_oneshot", False) and not kernels_loaded():
        # A mode with a one-shot backend (KT128, cSHAKE, KMAC, TupleHash: pycryptodome;
        # HMAC-SHA3: hmac) on small work: each file through it, which loads no kernel.
        total = total_file_bytes(names)
        if total >= 0 and resolved.plan_small_files(len(names), total):  # type: ignore[attr-defined]  # a mode's (small_work_oneshot)
            for index, name in enumerate(names):
                try:
                    digest = resolved.digest_small_file(name)  # type: ignore[attr-defined]  # a mode's
                    out[index] = np.frombuffer(digest, np.uint8)
                except OSError as exc:
                    failures[index] = named_error(exc, name)
                    if errors == "raise":
                        raise failures[index] from None
            if errors == "raise":
                return out
            return [failures.get(i) or out[i].tobytes() for i in range(len(names))]
    streamed = read_small_files(
        names, resolved.threads, _batch_hasher(resolved, out), failures, errors == "raise"
    )
    if errors == "raise" and failures:
        # Only a streamed file before the first failure could fail earlier in input order.
        streamed = [i for i in streamed if i < min(failures)]
    for first in range(0, len(streamed), STREAM_GROUP):
        group = streamed[first : first + STREAM_GROUP]
        _stream_files(names, group, resolved, out, failures)
        if errors == "raise" and failures:
            raise failures[min(failures)]
    if errors == "raise":
        if failures:
            raise failures[min(failures)]
        return out
    return [failures.get(i) or out[i].tobytes() for i in range(len(names))]


def _hash_files_oneshot(
    names: list, resolved: Hasher, out: np.ndarray, failures: dict[int, OSError]
) -> None:
    """Small work: every file through hashlib or pycryptodome, on the reading threads (both
    release the GIL while they hash a large update), without loading the kernels."""
    import numpy as np

    spec, domain, out_len = resolved.algorithm, resolved.domain, resolved.output_length

    def digest_files(span: tuple[int, int]) -> None:
        first, stop = span
        results, _ = digest_paths(names[first:stop], spec, domain, out_len)
        for index, result in enumerate(results, first):
            if isinstance(result, OSError):
                failures[index] = named_error(result, names[index])
            else:
                out[index] = np.frombuffer(result, dtype=np.uint8)

    count = len(names)
    threads = min(resolved.threads, count)
    if threads <= 1:
        digest_files((0, count))
        return
    # A few runs of files per thread, so that one slow file does not hold the others back
    # (cut by count, not in whole tiles as a kernel's batch is: eight large files are eight).
    runs = min(count, 4 * threads)
    spans = [(count * i // runs, count * (i + 1) // runs) for i in range(runs)]
    for done in [reader_pool().submit(digest_files, span) for span in spans]:
        done.result()


def _batch_hasher(resolved: Hasher, out: np.ndarray):
    """What hashes a batch of small files read whole into their rows of ``out``, on the
    threads the reader says: one (the reading thread hashes what it read) or the hasher's."""
    single_thread = resolved.with_threads(1)

    def hash_batch(rows, data: np.ndarray, offsets: np.ndarray, threads: int) -> None:
        chosen = single_thread if threads == 1 else resolved
        if isinstance(rows, slice):
            chosen.hash_flat(data, offsets, out=out[rows])
        else:
            out[rows] = chosen.hash_flat(data, offsets)

    return hash_batch


def _stream_files(
    names: list,
    group: list[int],
    resolved: Hasher,
    out: np.ndarray,
    failures: dict[int, OSError],
) -> None:
    """Hash up to a tile's worth of files chunk by chunk, side by side: the kernels absorb
    one round of chunks while the next round is read (:func:`batchkeccak.io.chunks.chunk_rounds`)."""
    import numpy as np

    from batchkeccak.core.stored_states import StoredStates
    from batchkeccak.inputs import readonly

    try:
        # A keyed or customized mode whose message goes through in one pass (cSHAKE, KMAC,
        # HMAC) streams in the lanes from its stored start state, as a plain row does.
        form = resolved.one_pass()
    except (TypeError, ValueError):
        form = None
    if form is None or form.initial_state.shape[0] != 1:
        # A mode that splits its message or frames it first (a tree mode, TupleHash): each
        # file is fed to its own incremental form.
        for index in group:
            try:
                out[index] = np.frombuffer(_digest_path(names[index], resolved), np.uint8)
            except OSError as exc:
                failures[index] = named_error(exc, names[index])
        return
    spec, out_len, threads = resolved.algorithm, resolved.output_length, resolved.threads
    rate = spec.rate
    chunk = chunk_size(rate, len(group))
    states = StoredStates(spec, len(group), form.initial_state[0])
    for buffer, filled in chunk_rounds(names, group, chunk, failures):
        data = readonly(buffer.reshape(-1))
        jobs = [(row, got) for row, got in filled.items() if got >= rate]
        if jobs:
            job_state = np.array([row for row, _ in jobs], dtype=np.int64)
            states.absorb(
                data,
                job_state,
                job_state * chunk,
                np.array([got // rate for _, got in jobs], dtype=np.int64),
                threads,
            )
        for row, got in filled.items():
            if 0 <= got < chunk:
                tail = got % rate
                states.pending[row, :tail] = buffer[row, got - tail : got]
                states.pending_len[row] = tail
    done = [row for row, index in enumerate(group) if index not in failures]
    if done:
        rows = np.array(done, dtype=np.int64)
        digests = states.finish(rows, out_len, form.domain, form.trailer)
        if form.outer is not None:
            digests = form.outer.hash_rows(digests)
        out[np.array(group, dtype=np.int64)[rows]] = digests


def _digest_path(name: str | bytes, resolved: Hasher) -> bytes:
    """One file through the hasher's incremental form, read in chunks; a tree mode's file
    in pieces of whole leaves, the next read while the leaves of the last are hashed on
    every thread (as ``bk.kt128(path)``)."""
    from batchkeccak.derived.mode_hashers import TreeHasher

    if isinstance(resolved, TreeHasher):
        with open(name, "rb", buffering=0) as handle:
            return resolved.hash_message(handle, "paths")
    stream = resolved.incremental()
    with open(name, "rb", buffering=0) as handle:
        for chunk in stream_chunks(handle, CHUNK_BYTES):
            stream.absorb(chunk)
    return stream.finish(resolved.output_length)


def digest_files(
    paths: Iterable[str | bytes | os.PathLike],
    algorithm: str = "sha3_256",
    *,
    length: int | None = None,
    processes: bool = False,
    **params: Any,
) -> list[bytes | OSError]:
    """:func:`hash_files` with ``errors="collect"``, small work first: while the dispatcher
    says the work is too small to be worth loading the kernels, the files go one after
    another through hashlib or pycryptodome without importing numpy (one file alone with a
    function hashlib has goes there whatever its size: :func:`digest_stream`); the rest go
    to :func:`hash_files`.

    ``processes``: share those files with child processes on the other cores
    (:func:`batchkeccak.io.backend_files.digest_paths_forked`), for a command-line process.
    """
    names = _check_paths(paths)
    found: list = []
    row = plain_row(algorithm, length, params)
    if row is not None and names:
        # plain_row gives no length only with a fixed-length row
        out_len = cast(int, row.digest_size) if length is None else length
        if len(names) == 1 and one_stream_to_backend(row, row.suffix):
            try:
                with open(names[0], "rb") as stream:
                    return [_backend_digest(stream, row, out_len)]
            except OSError as exc:
                return [exc]
        budget = oneshot_bytes(row, row.suffix, len(names))
        if budget >= 0:

            def read(paths: list, byte_limit: int | None) -> tuple[list, int]:
                # A large file stops it too: large files are hashed on several threads.
                return digest_paths(
                    paths, row, row.suffix, out_len, byte_limit, ONESHOT_THREAD_BYTES
                )

            found, total = (
                digest_paths_forked(names, read, budget) if processes else read(names, budget)
            )
            plan(row, row.suffix, len(found), total)  # the backend's share, booked
    if len(found) < len(names):
        found += hash_files(
            names[len(found) :], algorithm, length=length, errors="collect", **params
        )
    return found


def digest_stream(
    stream: object, algorithm: str = "sha3_256", *, length: int | None = None, **params: Any
) -> bytes:
    """The digest of a binary stream read to its end (standard input, a pipe): through
    hashlib where it has the function (no kernels loaded), a tree mode's pieces on every
    core, or :func:`file_digest`."""
    row = plain_row(algorithm, length, params)
    if row is not None and one_stream_to_backend(row, row.suffix):
        # plain_row gives no length only with a fixed-length row
        return _backend_digest(
            stream, row, cast(int, row.digest_size) if length is None else length
        )
    from batchkeccak.api import hasher
    from batchkeccak.derived.mode_hashers import TreeHasher

    resolved = hasher(algorithm, length=length, **params)
    if isinstance(resolved, TreeHasher):
        # Read in pieces on a reading thread, the leaves hashed on every core.
        return resolved.hash_message(stream)
    return file_digest(stream, resolved).digest()


PLAIN_LENGTH_LIMIT = 1 << 30
"""The longest XOF output :func:`digest_files` and :func:`digest_stream` give without a
hasher (the command line's own limit); a longer one is the hasher's to check."""


def plain_row(algorithm: object, length: object, params: dict) -> Algorithm | None:
    """The table's row when ``algorithm`` names one with no parameters and ``length`` is one
    it takes: what the one-shot backend may hash without a Hasher built (and numpy
    imported). None otherwise: the hasher then checks it all, with its messages."""
    if params or not isinstance(algorithm, str):
        return None
    key = canonical_name(algorithm, algorithms)
    if key is None:
        return None
    row = algorithms[key]
    if not row.xof:
        return row if length is None else None
    return row if type(length) is int and 0 <= length <= PLAIN_LENGTH_LIMIT else None


def _backend_digest(stream: object, row: Algorithm, out_len: int) -> bytes:
    state, read = oneshot_object(row, row.suffix)
    for chunk in stream_chunks(stream, CHUNK_BYTES):
        state.update(chunk)
    return read(state, out_len)


def file_digest(fileobj: object, digest: object, /, **params: Any) -> KeccakHash:
    """Hash a binary file object to its end, like ``hashlib.file_digest``.

    Parameters
    ----------
    fileobj
        A file object opened for reading in binary mode (``open(path, "rb")``, a socket's
        file, ``io.BytesIO``).
    digest
        What :func:`batchkeccak.new` takes (a name from ``batchkeccak.algorithms_available``,
        a mode's name, a :class:`~batchkeccak.Hasher`), or, as ``hashlib.file_digest``
        takes, a callable that returns a new hash object (``bk.sha3_256``, ``hashlib.md5``).
    **params
        With a name: ``length`` and a mode's parameters (``key=``...), as :func:`new` takes.

    Returns
    -------
    KeccakHash
        Call ``digest()`` (``digest(length)`` for the XOFs) or ``hexdigest()`` on it (the
        callable's object, when one was given).

    Examples
    --------
    >>> import io, batchkeccak as bk
    >>> bk.file_digest(io.BytesIO(b"abc"), "sha3_256").hexdigest()[:16]
    '3a985da74fe225b2'
    """
    hash_object: Any  # a KeccakHash, or what the given constructor makes (hashlib.md5())
    if callable(digest):
        if params:
            raise TypeError("file_digest: parameters go with a name, not with a constructor")
        hash_object = digest()
    else:
        from batchkeccak.streams import new

        hash_object = new(digest, **params)  # type: ignore[arg-type]  # new() checks the name and says what is wrong
    if hasattr(fileobj, "getbuffer"):
        # io.BytesIO: hash its buffer where it lies.
        hash_object.update(fileobj.getbuffer())
        return hash_object
    if not (hasattr(fileobj, "readinto") and hasattr(fileobj, "readable") and fileobj.readable()):
        raise ValueError(
            f"fileobj must be a file-like object opened for reading in binary mode, got "
            f"{type(fileobj).__name__}"
        )
    block = getattr(hash_object, "block_size", 0) or 1
    for chunk in stream_chunks(fileobj, max(block, CHUNK_BYTES // block * block)):
        hash_object.update(chunk)
    return hash_object
