"""The public API: resolve the hasher once, lay the input out flat, hash.

``hasher()`` turns an algorithm name and its parameters into a :class:`~batchkeccak.Hasher`;
``hash_many`` and the integrations take its result wherever they take an algorithm name.
Input forms are turned into flat buffers by :mod:`batchkeccak.inputs`, the one layer that
reads the caller's objects.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from batchkeccak.core import parallel as _parallel
from batchkeccak.core.dispatch import (
    ACCOUNT,
    KERNELS,
    LoadAccount,
    kernels_on_this_thread,
    policy,
)
from batchkeccak.core.dispatch import plan as plan_backend
from batchkeccak.core.hashers import Hasher, hash_places, plain_hasher
from batchkeccak.core.parameters import Algorithm, unknown_algorithm
from batchkeccak.derived import factories as mode_factories
from batchkeccak.derived.table import algorithm_names, canonical_algorithm
from batchkeccak.inputs import exports_arrow, to_flat
from batchkeccak.inputs.flat import IN_PLACE_MIN_BYTES
from batchkeccak.inputs.sequences import sequence_to_flat_equal
from batchkeccak.permutation import TILE_WIDTH
from batchkeccak.support.hextext import encode_hex_rows

__all__ = [
    "algorithm_names",
    "hash_many",
    "hash_one",
    "hasher",
    "hexdigest_many",
    "warmup",
]

MODES: dict[str, Callable[..., Hasher]] = mode_factories()
"""Algorithms that are constructions over the sponge (keyed, customized, tree modes), by
name: each factory takes ``length``, ``threads`` and the mode's own keyword parameters and
returns a :class:`Hasher`. Rows of the plain table are not here: one factory per row of the
modes' table (:func:`batchkeccak.derived.factories`), built here, not registered by import."""


def hasher(
    algorithm: str | Algorithm | Hasher = "sha3_256",
    *,
    length: int | None = None,
    threads: int | None = None,
    **params: object,
) -> Hasher:
    """Resolve an algorithm and its parameters once, for many calls.

    Parameters
    ----------
    algorithm
        A name from ``batchkeccak.algorithms`` (or a mode such as ``kmac_256``), an
        :class:`~batchkeccak.Algorithm`, or a :class:`~batchkeccak.Hasher` (returned as it
        is, or on other ``threads`` if given).
    length
        Output bytes for the extendable-output functions; rejected for the others.
    threads
        Threads to use; None (the default) uses every available core.
    **params
        The parameters of a mode (``key=``, ``customization=``...); none for plain rows.

    Returns
    -------
    Hasher

    Examples
    --------
    >>> import batchkeccak as bk
    >>> h = bk.hasher("shake_128", length=16, threads=1)
    >>> bk.hash_many([b"abc"], h).shape
    (1, 16)
    """
    if isinstance(algorithm, Hasher):
        if length is not None or params:
            raise TypeError(
                "algorithm is already a resolved Hasher: length and mode parameters were "
                "fixed when it was built"
            )
        return algorithm if threads is None else algorithm.with_threads(threads)
    if isinstance(algorithm, str):
        name = canonical_algorithm(algorithm)
        if name is None:
            raise unknown_algorithm(algorithm, algorithm_names())
        if name in MODES:
            return MODES[name](length=length, threads=threads, **params)
        algorithm = name
    elif not isinstance(algorithm, Algorithm):
        raise TypeError(
            f"algorithm must be a name, an Algorithm or a Hasher, got {type(algorithm).__name__}"
        )
    if params:
        shown = getattr(algorithm, "name", algorithm)
        raise TypeError(
            f"{shown} takes no parameter(s) {', '.join(sorted(params))}; only length "
            "(extendable-output functions) and threads"
        )
    return plain_hasher(algorithm, length, threads)


def hash_many(
    messages: object,
    algorithm: str | Algorithm | Hasher = "sha3_256",
    *,
    length: int | None = None,
    threads: int | None = None,
    **params: object,
) -> np.ndarray:
    """Hash many independent messages at once.

    Parameters
    ----------
    messages
        One of

        1. a sequence (or iterable) of bytes-like objects: ``bytes``, ``bytearray``,
           ``memoryview``, contiguous numpy arrays (their raw bytes are hashed, as hashlib
           does);
        2. a 2-D uint8 array, one message per row;
        3. :class:`batchkeccak.FlatMessages` ``(data, offsets)``: a flat uint8 buffer and
           N + 1 int32/int64 offsets, message ``i`` being ``data[offsets[i]:offsets[i+1]]``
           (Arrow's layout). A plain tuple is always a sequence of messages;
        4. a binary or string Arrow column without nulls: pyarrow, or any object with the
           Arrow PyCapsule interface (a Polars or pandas Series, a nanoarrow or arro3
           array, a table of one column such as a DuckDB relation); strings hash their
           UTF-8 bytes. A stream of record batches is hashed one batch at a time.
    algorithm
        A name from ``batchkeccak.algorithms``: ``sha3_224`` ... ``sha3_512``, ``shake_128``,
        ``shake_256``, ``keccak_224`` ... ``keccak_512`` (Ethereum's Keccak-256 is
        ``keccak_256``), ``turboshake128``, ``turboshake256``; or a resolved
        :class:`~batchkeccak.Hasher` (see :func:`hasher`).
    length
        Output bytes for the extendable-output functions (SHAKE, TurboSHAKE); required for
        them and rejected for the others. ``0`` gives empty digests, as hashlib does.
    threads
        Threads to use; None (the default) uses every available core, 1 runs on the calling
        thread. The GIL is released while hashing.
    **params
        Parameters of a mode (see :func:`hasher`).

    Returns
    -------
    numpy.ndarray
        ``(N, digest_size)`` uint8, row ``i`` the digest of message ``i``.

    Examples
    --------
    >>> import batchkeccak as bk
    >>> bk.hash_many([b"abc"], "sha3_256")[0].tobytes().hex()[:16]
    '3a985da74fe225b2'
    """
    resolved = hasher(algorithm, length=length, threads=threads, **params)
    if type(messages) in (list, tuple):
        small = resolved.executor.hash_list(messages)  # type: ignore[arg-type]  # type(messages) is list or tuple (checked above)
        # A tree mode's own list path (TreeHasher.hash_list: long items read where they lie).
        # Asked by name, not by isinstance: importing the class here costs a small call 1 us.
        tree_list = None if small is not None else getattr(resolved, "hash_list", None)
        if tree_list is not None:
            small = tree_list(messages)
        if small is not None:
            return small
    if type(messages) in (list, tuple):
        digests = _hash_long_items(messages, resolved)  # type: ignore[arg-type]  # type(messages) is list or tuple (checked above)
        if digests is not None:
            return digests
    # (A hasher with one state per message takes its batch whole: its states are not split.)
    if type(messages) in (list, tuple) and resolved.batch_size is None:
        # Every message is at least one permutation, so the count alone says whether a list
        # has work for several threads before its sizes are known.
        count = len(messages)  # type: ignore[arg-type]  # type(messages) is list or tuple (checked above)
        chunk_threads = min(resolved.threads, count // _parallel.MIN_PERMUTATIONS_PER_THREAD)
        if chunk_threads > 1:
            return _hash_sequence_in_chunks(messages, resolved, chunk_threads, count)  # type: ignore[arg-type]  # type(messages) is list or tuple (checked above)
    if exports_arrow(messages):
        return _hash_arrow(messages, resolved)
    if type(messages) in (list, tuple):
        # The list reader saw every length: it says whether they are all equal.
        data, offsets, rows = sequence_to_flat_equal(messages, reuse=True)  # type: ignore[arg-type]  # type(messages) is list or tuple (checked above)
    else:
        data, offsets = to_flat(messages)
        rows = isinstance(messages, np.ndarray)  # a 2-D array: equal lengths, back to back
    return resolved.hash_flat(data, offsets, equal_lengths=rows)


_SAMPLE = 32
"""Items of a list sampled to guess whether they are long (worth measuring them all first)."""


def _hash_long_items(messages: list | tuple, resolved: Hasher) -> np.ndarray | None:
    """A list or tuple of long ``bytes`` items: read where they lie (a plain sponge), or
    copied on every thread with the threads' shares cut by bytes (the modes, which frame
    their messages, and items too short on average to be worth reading in place); None for
    short items (a sample says so: the count split below serves them, without a measuring
    pass) and for lists the compiled reader does not take.
    """
    sample = messages[:_SAMPLE]
    if not sample or sum(len(m) if type(m) is bytes else 0 for m in sample) < (
        IN_PLACE_MIN_BYTES * len(sample)
    ):
        return None
    if not _kernels_take(messages, resolved):
        return None  # small work: the one-shot backend takes it below, with no compiler loaded
    from batchkeccak.inputs._pylist import bytes_places  # the compiled reader: loads numba

    places = bytes_places(messages)
    if places is None:
        return None
    lengths = places[2] - places[1]
    count = lengths.shape[0]
    total = int(lengths.sum())
    if resolved.plain_sponge and total >= IN_PLACE_MIN_BYTES * count:
        return hash_places(resolved, *places)
    mode_places = getattr(resolved, "hash_places", None)  # a mode's long messages, in place
    if mode_places is not None:
        digests = mode_places(*places)
        if digests is not None:
            return digests
    del places  # the items are read again, in chunks, by the threads that copy them
    if resolved.batch_size is not None:
        return None  # one state per message: the batch is hashed whole, below
    rate = resolved.algorithm.rate
    permutations = total // rate + count * (1 + (resolved.output_length - 1) // rate)
    threads = min(resolved.threads, permutations // _parallel.MIN_PERMUTATIONS_PER_THREAD)
    if threads <= 1:
        return None
    return _hash_sequence_in_chunks(messages, resolved, threads, count, lengths + rate)


def _kernels_take(messages: list | tuple, resolved: Hasher) -> bool:
    """Whether the kernels hash this list of ``bytes`` (what the one-shot backend would take
    is asked of the dispatcher, without booking it: the path that hashes the list books it);
    False also for a list with an item that is not exactly ``bytes``, which the compiled
    reader does not take. The items' sizes are summed only when the count alone leaves the
    one-shot backend a budget, which bounds that pass."""
    executor = resolved.executor
    family = executor.family  # None for KT128: its sponge's backend family decides
    if family is None and not getattr(resolved, "small_work_oneshot", False):
        return True  # no one-shot backend computes the function
    forced = policy()
    if forced is not None:
        return forced == KERNELS

    def planned(total_bytes: int) -> str:
        scratch = LoadAccount()  # a copy of the process's account: nothing is booked
        scratch.spent_us = ACCOUNT.spent_us
        return plan_backend(
            executor.algorithm,
            executor.domain,
            len(messages),
            total_bytes,
            executor.threads,
            account=scratch,
            family=family,
        )

    if planned(0) == KERNELS:
        return True  # too many messages for the one-shot backend, whatever their sizes
    total = 0
    for message in messages:
        if type(message) is not bytes:
            return False
        total += len(message)
    return planned(total) == KERNELS


def _hash_sequence_in_chunks(
    messages: list | tuple,
    resolved: Hasher,
    threads: int,
    count: int,
    weights: np.ndarray | None = None,
) -> np.ndarray:
    """A long list or tuple: each thread converts the chunk it takes, then hashes it.

    Reading Python objects holds the GIL and hashing releases it, so while one thread
    converts its chunk the others hash theirs. Converted all at once up front, the list
    would be serial work in front of the parallel hashing: 1.08x-1.39x slower on two cores
    for lists of 32 B to 16 KiB ``bytes``, and the more cores hash, the more the serial part
    weighs. Each chunk is read in place from the caller's list (no slice of it is made:
    slicing increfs every item, which cost as much as the conversion itself).

    ``weights`` (the work of each message: its bytes and a block) cuts the list into runs of
    about equal work, a few per thread (each a whole tile where the list allows); without it
    the runs hold equal counts (short items, whose sizes were not measured).

    ``count``: the number of messages, taken once by the caller (with ``weights``, from the
    same snapshot as they). Another thread may resize the list meanwhile: the chunks read
    items ``0..count`` of it, and one that finds the list shorter than its range raises
    ``RuntimeError`` (``sequence_to_flat``), so the result never has another size.
    """
    if weights is not None and weights.shape[0] != count:
        raise ValueError(f"{weights.shape[0]} weights for {count} messages")
    out = np.empty((count, resolved.output_length), dtype=np.uint8)
    single_thread = resolved.with_threads(1)

    def convert_and_hash(span: tuple[int, int]) -> None:
        start, stop = span
        data, offsets, equal = sequence_to_flat_equal(messages, start, stop, reuse=True)
        single_thread.hash_flat(data, offsets, out=out[start:stop], equal_lengths=equal)

    if weights is None:
        ranges = _parallel.chunk_ranges(count, threads)
    else:
        parts = max(threads, min(threads * _parallel.CHUNKS_PER_THREAD, count // TILE_WIDTH))
        ranges = _parallel.split_ranges(0, count, parts, weights)
    _parallel.run_parallel(convert_and_hash, ranges, workers=threads)
    return out


def _hash_arrow(messages: object, resolved: Hasher) -> np.ndarray:
    """:func:`_hash_arrow_column`, with any producer's stream it opened closed on an error."""
    from batchkeccak.inputs.arrow_producers import releases_on_error

    return releases_on_error(_hash_arrow_column)(messages, resolved)


def _hash_arrow_column(messages: object, resolved: Hasher) -> np.ndarray:
    """An Arrow column; a stream of record batches (a DuckDB relation, say) batch by batch,
    so that only one batch of messages is held at a time."""
    from batchkeccak.derived.mode_hashers import hash_chunks
    from batchkeccak.inputs.arrow_buffers import binary_buffers
    from batchkeccak.inputs.arrow_producers import ColumnStream, arrow_column

    column = arrow_column(messages, "messages", "hash_many")
    if not isinstance(column, ColumnStream):
        return resolved.hash_flat(*binary_buffers(column, "messages"))
    parts = hash_chunks(
        resolved,
        column.chunks,
        lambda chunk, chunk_hasher: chunk_hasher.hash_flat(*binary_buffers(chunk, "messages")),
        lambda count: _keys_mismatch(resolved, count),
    )
    if not parts:
        return np.empty((0, resolved.output_length), dtype=np.uint8)
    return parts[0] if len(parts) == 1 else np.concatenate(parts)


def _keys_mismatch(resolved: Hasher, count: str | int) -> ValueError:
    return ValueError(
        f"{resolved.name}: key (or initial_state) holds {resolved.batch_size} entries, one per "
        f"message, but {count} messages were given"
    )


def hexdigest_many(
    messages: object,
    algorithm: str | Algorithm | Hasher = "sha3_256",
    *,
    length: int | None = None,
    threads: int | None = None,
    **params: object,
) -> list[str]:
    """Like :func:`hash_many`, as a list of lowercase hex strings."""
    return encode_hex_rows(hash_many(messages, algorithm, length=length, threads=threads, **params))


def hash_one(
    message: object,
    algorithm: str | Algorithm | Hasher = "sha3_256",
    *,
    length: int | None = None,
    **params: object,
) -> bytes:
    """One digest as ``bytes``: ``hash_one(m, a) == hash_many([m], a)[0].tobytes()``.

    Takes the same bytes-like messages as :func:`hash_many` and runs on the calling thread,
    without the batch scheduling.
    """
    return hasher(algorithm, length=length, threads=1, **params).hash_one(message)


def warmup() -> None:
    """Compile (or load from the on-disk cache) the hashing kernels now, not on first use.

    For services that would rather pay start-up before taking traffic. One call covers every
    algorithm and input form of ``hash_many``: they all share the same compiled kernels. (After
    it, even small calls may use the kernels: their load is paid.)
    """
    with kernels_on_this_thread():  # this thread's calls only: other threads keep the policy
        hash_many([b"", b"x" * 200], "sha3_256", threads=1)
