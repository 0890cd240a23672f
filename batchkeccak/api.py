"""The public API: validate once, lay the input out flat, schedule, run the kernels."""

from __future__ import annotations

import numpy as np

from batchkeccak import _parallel
from batchkeccak._messages import is_flat_pair, sequence_to_flat, to_flat
from batchkeccak.algorithms import Algorithm, get_algorithm
from batchkeccak.permutation import TILE_WIDTH
from batchkeccak.sponge import hash_queue, hash_uniform


def output_length(spec: Algorithm, length: object) -> int:
    """The output size for ``spec``: its digest size, or ``length`` for an XOF."""
    if spec.xof:
        if length is None:
            raise TypeError(f"length is required for {spec.name} (an extendable-output function)")
        if isinstance(length, bool) or not isinstance(length, (int, np.integer)):
            raise TypeError(f"length must be an int, got {type(length).__name__}")
        if length < 1:
            raise ValueError(f"length must be >= 1 for {spec.name}, got {length}")
        return int(length)
    if length is not None:
        raise TypeError(
            f"length applies only to extendable-output functions; {spec.name} always "
            f"returns {spec.digest_size} bytes"
        )
    return spec.digest_size  # type: ignore[return-value]


def _hash_range(span, data, offsets, rate, suffix, first_round, out):
    # Each range works on views of its own offsets and output rows, and builds its own queue,
    # so no per-message array is made for the whole batch up front.
    start, stop = span
    hash_queue(
        data, offsets[start : stop + 1], np.arange(stop - start, dtype=np.int64),
        rate, suffix, first_round, out[start:stop],
    )


def _hash_uniform_range(span, data, offsets, rate, suffix, first_round, out):
    # Whole tiles of equal, back-to-back single-block messages; the last few (fewer than a
    # tile) go through the general queue.
    start, stop = span
    tiles_end = start + (stop - start) // TILE_WIDTH * TILE_WIDTH
    if tiles_end > start:
        length = int(offsets[start + 1] - offsets[start])
        hash_uniform(
            data, offsets[start], tiles_end - start, length, rate, suffix, first_round,
            out[start:tiles_end],
        )
    if stop > tiles_end:
        _hash_range((tiles_end, stop), data, offsets, rate, suffix, first_round, out)


def _single_block_uniform(
    offsets: np.ndarray, rate: int, out_len: int, equal_lengths: bool
) -> bool:
    """Whether every message has the same length < rate, back to back, with one output block."""
    count = offsets.shape[0] - 1
    length = int(offsets[1] - offsets[0])
    if length >= rate or out_len > rate or count < TILE_WIDTH:
        return False
    if equal_lengths:
        return True
    if int(offsets[-1] - offsets[0]) != length * count:
        return False
    return bool((np.diff(offsets) == length).all())


def hash_flat(
    data: np.ndarray,
    offsets: np.ndarray,
    spec: Algorithm,
    out_len: int,
    threads: int,
    out: np.ndarray | None = None,
    equal_lengths: bool = False,
) -> np.ndarray:
    """Hash validated, read-only flat messages; the layer every input form ends in.

    ``out``, when given, is a C-contiguous ``(N, out_len)`` uint8 array to fill.
    ``equal_lengths`` tells that the messages are known to have one length and to lie back
    to back (rows of a 2-D array), which saves checking the offsets.
    """
    count = offsets.shape[0] - 1
    if out is None:
        out = np.empty((count, out_len), dtype=np.uint8)
    if count == 0:
        return out
    # Messages go to the lanes in buffer order: each lane takes the next message as soon as its
    # own is done, so lanes stay busy without sorting by length, and neighbouring lanes read
    # neighbouring memory (sorting by length was measured 1.2x slower on mixed lengths).
    total_bytes = int(offsets[-1]) - int(offsets[0])  # an upper bound is all the estimate needs
    permutations = total_bytes // spec.rate + count * (1 + (out_len - 1) // spec.rate)
    threads = max(1, min(threads, permutations // _parallel.MIN_PERMUTATIONS_PER_THREAD))
    uniform = _single_block_uniform(offsets, spec.rate, out_len, equal_lengths)
    _parallel.run_parallel(
        _hash_uniform_range if uniform else _hash_range,
        _parallel.chunk_ranges(count, threads),
        data, offsets, spec.rate, spec.suffix, 24 - spec.rounds, out,
        workers=threads,
    )
    return out


def hash_many(
    messages: object,
    algorithm: str = "sha3_256",
    *,
    length: int | None = None,
    threads: int | None = None,
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
        3. a pair ``(data, offsets)``: a flat uint8 buffer and N + 1 int32/int64 offsets,
           message ``i`` being ``data[offsets[i]:offsets[i+1]]`` (Arrow's layout);
        4. a pyarrow binary or string array without nulls.
    algorithm
        A name from ``batchkeccak.algorithms``: ``sha3_224`` ... ``sha3_512``, ``shake_128``,
        ``shake_256``, ``keccak_224`` ... ``keccak_512`` (Ethereum's Keccak-256 is
        ``keccak_256``), ``turboshake128``, ``turboshake256``.
    length
        Output bytes for the extendable-output functions (SHAKE, TurboSHAKE); required for
        them and rejected for the others.
    threads
        Threads to use; None (the default) uses every available core, 1 runs on the calling
        thread. The GIL is released while hashing.

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
    spec = get_algorithm(algorithm)
    out_len = output_length(spec, length)
    thread_count = _parallel.resolve_threads(threads)
    if type(messages) in (list, tuple) and not is_flat_pair(messages):
        # Every message is at least one permutation, so the count alone says whether a list
        # has work for several threads before its sizes are known.
        count = len(messages)  # type: ignore[arg-type]
        chunk_threads = min(thread_count, count // _parallel.MIN_PERMUTATIONS_PER_THREAD)
        if chunk_threads > 1:
            return _hash_sequence_in_chunks(messages, spec, out_len, chunk_threads)  # type: ignore[arg-type]
    data, offsets = to_flat(messages)
    rows = isinstance(messages, np.ndarray)  # a 2-D array: equal lengths, back to back
    return hash_flat(data, offsets, spec, out_len, thread_count, equal_lengths=rows)


def _hash_sequence_in_chunks(
    messages: list | tuple, spec: Algorithm, out_len: int, threads: int
) -> np.ndarray:
    """A long list or tuple: each thread converts the chunk it takes, then hashes it.

    Reading Python objects holds the GIL and hashing releases it, so while one thread
    converts its chunk the others hash theirs. Converted all at once up front, the list
    would be serial work in front of the parallel hashing: 1.08x-1.39x slower on two cores
    for lists of 32 B to 16 KiB ``bytes``, and the more cores hash, the more the serial part
    weighs. Each chunk is read in place from the caller's list (no slice of it is made:
    slicing increfs every item, which cost as much as the conversion itself).
    """
    count = len(messages)
    out = np.empty((count, out_len), dtype=np.uint8)

    def convert_and_hash(span: tuple[int, int]) -> None:
        start, stop = span
        data, offsets = sequence_to_flat(messages, start, stop)
        hash_flat(data, offsets, spec, out_len, 1, out=out[start:stop])

    _parallel.run_parallel(
        convert_and_hash, _parallel.chunk_ranges(count, threads), workers=threads
    )
    return out


def hexdigest_many(
    messages: object,
    algorithm: str = "sha3_256",
    *,
    length: int | None = None,
    threads: int | None = None,
) -> list[str]:
    """Like :func:`hash_many`, as a list of lowercase hex strings."""
    digests = hash_many(messages, algorithm, length=length, threads=threads)
    if digests.shape[0] == 0:
        return []
    width = digests.shape[1]
    joined = digests.tobytes().hex()
    step = 2 * width
    return [joined[i : i + step] for i in range(0, len(joined), step)]


_SINGLE_QUEUE = np.zeros(1, dtype=np.int64)
_SINGLE_QUEUE.flags.writeable = False


def hash_bytes(message: bytes, spec: Algorithm, out_len: int) -> bytes:
    """One digest of ``bytes``, with no validation or scheduling: a few microseconds.

    For callers that chain single hashes (Merkle proof steps) and have already resolved
    ``spec`` and ``out_len``.
    """
    data = np.frombuffer(message, dtype=np.uint8)
    offsets = np.array([0, len(message)], dtype=np.int64)
    offsets.flags.writeable = False
    out = np.empty((1, out_len), dtype=np.uint8)
    hash_queue(data, offsets, _SINGLE_QUEUE, spec.rate, spec.suffix, 24 - spec.rounds, out)
    return out.tobytes()


def hash_one(message: object, algorithm: str = "sha3_256", *, length: int | None = None) -> bytes:
    """One digest as ``bytes``: ``hash_one(m, a) == hash_many([m], a)[0].tobytes()``.

    Takes the same bytes-like messages as :func:`hash_many` and runs on the calling thread,
    without the batch scheduling.
    """
    spec = get_algorithm(algorithm)
    out_len = output_length(spec, length)
    data, offsets = to_flat([message])
    out = np.empty((1, out_len), dtype=np.uint8)
    hash_queue(data, offsets, _SINGLE_QUEUE, spec.rate, spec.suffix, 24 - spec.rounds, out)
    return out.tobytes()


def warmup() -> None:
    """Compile (or load from the on-disk cache) the hashing kernels now, not on first use.

    For services that would rather pay start-up before taking traffic. One call covers every
    algorithm and input form: they all share the same compiled kernels.
    """
    hash_many([b"", b"x" * 200], "sha3_256", threads=1)
