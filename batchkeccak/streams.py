"""Incremental hashing: hashlib-style objects and many independent streams at once.

``bk.sha3_256(b"ab").update(b"c").digest()``-style objects for every algorithm of the table,
and :class:`StreamHasher`, which keeps many incremental states and absorbs the whole blocks of
many streams together through the tile kernel (``batchkeccak.sponge_states``).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

import numpy as np

from batchkeccak import _parallel
from batchkeccak.algorithms import Algorithm, algorithms, get_algorithm
from batchkeccak.hashers import output_length
from batchkeccak.inputs import readonly as _readonly
from batchkeccak.permutation import LANE_COUNT
from batchkeccak.sponge_states import absorb_jobs, finish_states, keep_tails

algorithms_available: frozenset[str] = frozenset(algorithms)
"""Names :func:`new` accepts, like ``hashlib.algorithms_available``."""

_EMPTY = _readonly(np.zeros(0, dtype=np.uint8))
_MIN_BLOCKS_PER_THREAD = 2048
"""Below this many blocks for each extra thread, starting it costs more than it saves."""


def _as_bytes_view(data: object, argument: str) -> memoryview:
    if isinstance(data, str):
        raise TypeError(
            f"{argument} is a str: strings must be encoded before hashing "
            "(for example s.encode('utf-8'))"
        )
    try:
        view = memoryview(data)  # type: ignore[arg-type]
    except TypeError:
        raise TypeError(f"{argument} must be a bytes-like object, got {type(data).__name__}") from None
    if not view.c_contiguous:
        raise ValueError(f"{argument} is not C-contiguous; copy it first")
    return view.cast("B") if view.format != "B" or view.ndim != 1 else view


def _as_array(view: memoryview) -> np.ndarray:
    return _readonly(np.frombuffer(view, dtype=np.uint8)) if view.nbytes else _EMPTY


class _States:
    """``n`` stored sponge states with their waiting bytes (fewer than ``rate`` each)."""

    def __init__(self, spec: Algorithm, count: int) -> None:
        self.spec = spec
        self.rate = spec.rate
        self.first_round = 24 - spec.rounds
        self.lanes = np.zeros((count, LANE_COUNT), dtype=np.uint64)
        self.pending = np.zeros((count, spec.rate), dtype=np.uint8)
        self.pending_len = np.zeros(count, dtype=np.int64)

    def absorb(
        self, data: np.ndarray, job_state: np.ndarray, job_start: np.ndarray,
        job_blocks: np.ndarray, threads: int = 1,
    ) -> None:
        """Whole blocks of ``data`` into the states (one job per state at most)."""
        count = job_state.shape[0]
        if count == 0:
            return
        total = int(job_blocks.sum())
        threads = max(1, min(threads, count, total // _MIN_BLOCKS_PER_THREAD))
        job_state, job_start, job_blocks = map(_readonly, (job_state, job_start, job_blocks))
        if threads == 1:
            absorb_jobs(
                self.lanes, data, job_state, job_start, job_blocks, self.rate, self.first_round
            )
            return
        # Contiguous runs of jobs holding about equal numbers of blocks, a few per thread.
        cuts = np.searchsorted(
            np.cumsum(job_blocks), np.linspace(0, total, 4 * threads + 1)[1:-1], side="right"
        )
        bounds = sorted(set([0, *cuts.tolist(), count]))
        spans = [(a, b) for a, b in zip(bounds, bounds[1:]) if b > a]

        def run(span: tuple[int, int]) -> None:
            a, b = span
            absorb_jobs(
                self.lanes, data, job_state[a:b], job_start[a:b], job_blocks[a:b],
                self.rate, self.first_round,
            )

        _parallel.run_parallel(run, spans, workers=threads)

    def finish(self, which: np.ndarray, out_len: int) -> np.ndarray:
        out = np.empty((which.shape[0], out_len), dtype=np.uint8)
        finish_states(
            self.lanes, _readonly(self.pending), _readonly(self.pending_len), _readonly(which),
            self.rate, self.spec.suffix, self.first_round, out,
        )
        return out


def _one_job(blocks: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(state, start, blocks) arrays of one job: state 0, from byte 0 of the buffer."""
    return _ZERO, _ZERO, np.array([blocks], dtype=np.int64)


_ZERO = _readonly(np.zeros(1, dtype=np.int64))


class KeccakHash:
    """An incremental hash with hashlib's interface, for one algorithm of the table.

    Made by :func:`new` or by the constructor named after the algorithm
    (``batchkeccak.sha3_256(data)``); equal to hashlib's (and pycryptodome's, for Keccak and
    TurboSHAKE) however the data is cut into ``update`` calls.
    """

    __slots__ = ("_buffer", "_spec", "_states")

    def __init__(self, name: str, data: object = b"") -> None:
        self._spec = get_algorithm(name)
        self._states = _States(self._spec, 1)
        self._buffer = bytearray()  # bytes waiting for a whole block, fewer than block_size
        if not (isinstance(data, bytes) and not data):
            self.update(data)

    @property
    def name(self) -> str:
        """The algorithm's name in ``batchkeccak.algorithms`` (hashlib's where it has one)."""
        return self._spec.name

    @property
    def digest_size(self) -> int:
        """Digest bytes; 0 for the extendable-output functions, as hashlib's shake objects."""
        return self._spec.digest_size or 0

    @property
    def block_size(self) -> int:
        """The rate in bytes."""
        return self._spec.rate

    def update(self, data: object) -> None:
        """Absorb ``data`` (any bytes-like object) after what was given before."""
        view = _as_bytes_view(data, "data")
        rate = self._spec.rate
        buffered = len(self._buffer)
        if buffered + view.nbytes < rate:
            self._buffer += view
            return
        states = self._states
        if buffered:
            # Complete the waiting block first; the rest is then read where it lies.
            taken = rate - buffered
            self._buffer += view[:taken]
            states.absorb(_as_array(memoryview(bytes(self._buffer))), *_one_job(1))
            view = view[taken:]
        whole = view.nbytes // rate
        if whole:
            states.absorb(_as_array(view), *_one_job(whole))
        self._buffer = bytearray(view[whole * rate :])

    def _output(self, out_len: int) -> bytes:
        states = self._states
        states.pending[0, : len(self._buffer)] = np.frombuffer(bytes(self._buffer), np.uint8)
        states.pending_len[0] = len(self._buffer)
        return states.finish(np.zeros(1, dtype=np.int64), out_len).tobytes()

    def _out_len(self, length: object) -> int:
        if self._spec.xof and length is None:
            raise TypeError(
                f"digest() of {self._spec.name} needs a length (an extendable-output function)"
            )
        return output_length(self._spec, length)

    def digest(self, length: int | None = None) -> bytes:
        """The digest of everything absorbed so far; ``length`` bytes for the XOFs.

        The object can be updated further afterwards, as with hashlib.
        """
        return self._output(self._out_len(length))

    def hexdigest(self, length: int | None = None) -> str:
        """:meth:`digest` as lowercase hex."""
        return self.digest(length).hex()

    def copy(self) -> KeccakHash:
        """An independent copy of the current state."""
        clone = object.__new__(KeccakHash)
        clone._spec = self._spec
        clone._states = _States(self._spec, 1)
        clone._states.lanes[:] = self._states.lanes
        clone._buffer = bytearray(self._buffer)
        return clone

    def __repr__(self) -> str:
        return f"<{self._spec.name} batchkeccak.KeccakHash object @ {hex(id(self))}>"


def new(name: str, data: object = b"", **params: object) -> KeccakHash:
    """A new hash object for algorithm ``name``, like ``hashlib.new``.

    Parameters
    ----------
    name
        A name from ``batchkeccak.algorithms_available`` (``"sha3_256"``, ``"keccak_256"``,
        ``"shake_128"``, ``"turboshake256"``, ...).
    data
        Bytes-like data to absorb first.
    **params
        ``usedforsecurity`` is accepted for compatibility with hashlib and ignored; any other
        parameter is a ``TypeError``.

    Returns
    -------
    KeccakHash

    Examples
    --------
    >>> import batchkeccak as bk
    >>> h = bk.new("sha3_256", b"ab")
    >>> h.update(b"c")
    >>> h.hexdigest()[:16]
    '3a985da74fe225b2'
    """
    unknown = set(params) - {"usedforsecurity"}
    if unknown:
        raise TypeError(f"new() got unexpected keyword argument(s): {', '.join(sorted(unknown))}")
    return KeccakHash(name, data)


def _constructor(name: str):
    def construct(data: object = b"", **params: object) -> KeccakHash:
        return new(name, data, **params)

    construct.__name__ = construct.__qualname__ = name
    construct.__doc__ = (
        f"A new {name} hash object, like ``hashlib.{name}``: ``update``, ``digest``, "
        "``hexdigest``, ``copy``."
    )
    return construct


for _name in algorithms:
    globals()[_name] = _constructor(_name)
del _name


def _split_evenly(jobs: list, parts: int) -> list[list]:
    """``jobs`` (each ``(stream, size, pieces)``) cut into up to ``parts`` contiguous runs of
    about equal size."""
    if parts <= 1 or len(jobs) <= 1:
        return [jobs]
    total = sum(job[1] for job in jobs)
    groups: list[list] = [[]]
    done = 0
    for job in jobs:
        if groups[-1] and done >= total * len(groups) / parts:
            groups.append([])
        groups[-1].append(job)
        done += job[1]
    return groups


class StreamHasher:
    """Many independent incremental hashes of one algorithm, updated in any order.

    Parameters
    ----------
    algorithm
        A name from ``batchkeccak.algorithms``.
    n_streams
        How many streams; they are numbered ``0 .. n_streams - 1``.
    length
        Output bytes for the XOFs (required for them, rejected for the others).
    threads
        Threads for :meth:`update_many`; None uses every available core.

    Notes
    -----
    Whole blocks from many streams are absorbed together, W states to a tile; the bytes of a
    stream that do not fill a block wait in its buffer (fewer than ``block_size`` bytes per
    stream), so memory is ``n_streams * (200 + block_size)`` bytes plus one call's chunks.
    A stream is finished by :meth:`digest`, :meth:`hexdigest` or :meth:`digests`; updating it
    afterwards is an error.

    Examples
    --------
    >>> import batchkeccak as bk
    >>> streams = bk.StreamHasher("sha3_256", 2)
    >>> streams.update_many([0, 1, 0], [b"a", b"xyz", b"bc"])
    >>> streams.hexdigest(0)[:16]
    '3a985da74fe225b2'
    """

    def __init__(
        self, algorithm: str, n_streams: int, *, length: int | None = None,
        threads: int | None = None,
    ) -> None:
        self._spec = get_algorithm(algorithm)
        self._out_len = output_length(self._spec, length)
        if isinstance(n_streams, bool) or not isinstance(n_streams, (int, np.integer)):
            raise TypeError(f"n_streams must be an int, got {type(n_streams).__name__}")
        if n_streams < 0:
            raise ValueError(f"n_streams must be >= 0, got {n_streams}")
        self._threads = _parallel.resolve_threads(threads)
        self._count = int(n_streams)
        self._states = _States(self._spec, self._count)
        self._finished = np.zeros(self._count, dtype=bool)

    @property
    def algorithm(self) -> str:
        return self._spec.name

    @property
    def n_streams(self) -> int:
        return self._count

    @property
    def digest_size(self) -> int:
        """Output bytes of every stream (``length`` for the XOFs)."""
        return self._out_len

    @property
    def block_size(self) -> int:
        return self._spec.rate

    def __len__(self) -> int:
        return self._count

    def _index(self, index: object, argument: str) -> int:
        if isinstance(index, bool) or not isinstance(index, (int, np.integer)):
            raise TypeError(f"{argument} must be an int, got {type(index).__name__}")
        if not 0 <= index < self._count:
            raise IndexError(
                f"{argument} = {index} is out of range for {self._count} streams"
            )
        return int(index)

    def update(self, index: int, chunk: object) -> None:
        """Append ``chunk`` (bytes-like) to stream ``index``."""
        self.update_many([index], [chunk])

    def update_many(self, indices: Iterable[int], chunks: Iterable[object]) -> None:
        """Append ``chunks[k]`` to stream ``indices[k]`` for every ``k``, in order.

        A stream may appear several times; its chunks are absorbed in the order given. The
        whole blocks of all streams go through the tiles together.
        """
        if not isinstance(indices, (Sequence, np.ndarray)):
            indices = list(indices)
        if not isinstance(chunks, Sequence):
            chunks = list(chunks)
        if isinstance(chunks, (str, bytes, bytearray, memoryview)):
            raise TypeError(
                "chunks must be a sequence of bytes-like objects, got a single "
                f"{type(chunks).__name__}; use update(index, chunk) for one chunk"
            )
        if len(indices) != len(chunks):
            raise ValueError(
                f"indices and chunks must have the same length, got {len(indices)} and "
                f"{len(chunks)}"
            )
        # Group the chunks by stream, keeping each stream's order.
        grouped: dict[int, list[memoryview]] = {}
        sizes: dict[int, int] = {}
        for k, (index, chunk) in enumerate(zip(indices, chunks)):
            i = self._index(index, f"indices[{k}]")
            view = _as_bytes_view(chunk, f"chunks[{k}]")
            if self._finished[i]:
                raise ValueError(f"stream {i} is finished (its digest was read); it cannot be updated")
            if i in grouped:
                grouped[i].append(view)
                sizes[i] += view.nbytes
            else:
                grouped[i] = [view]
                sizes[i] = view.nbytes
        states = self._states
        rate = self._spec.rate
        pending, pending_len = states.pending, states.pending_len
        jobs: list[tuple[int, int, list[object]]] = []  # (stream, bytes in all, pieces)
        for i, views in grouped.items():
            waiting = int(pending_len[i])
            total = waiting + sizes[i]
            if total < rate:
                # Still less than a block: it all waits.
                for view in views:
                    pending[i, waiting : waiting + view.nbytes] = np.frombuffer(view, np.uint8)
                    waiting += view.nbytes
                pending_len[i] = waiting
                continue
            pieces: list[object] = [pending[i, :waiting].tobytes()] if waiting else []
            pieces.extend(views)
            jobs.append((i, total, pieces))
        if not jobs:
            return
        total_bytes = sum(job[1] for job in jobs)
        threads = max(1, min(self._threads, total_bytes // (rate * _MIN_BLOCKS_PER_THREAD)))
        # Each group of streams is joined into one buffer and absorbed by the thread that
        # takes it: joining holds the GIL and absorbing releases it, so one thread copies
        # while the others hash instead of the whole copy running alone in front of them.
        groups = _split_evenly(jobs, 4 * threads if threads > 1 else 1)
        _parallel.run_parallel(self._absorb_group, groups, workers=threads)

    def _absorb_group(self, jobs: list[tuple[int, int, list[object]]]) -> None:
        rate = self._spec.rate
        count = len(jobs)
        job_state = np.empty(count, dtype=np.int64)
        job_start = np.empty(count, dtype=np.int64)
        job_blocks = np.empty(count, dtype=np.int64)
        tail_start = np.empty(count, dtype=np.int64)
        tail_len = np.empty(count, dtype=np.int64)
        pieces: list[object] = []
        position = 0
        for j, (i, total, parts) in enumerate(jobs):
            whole = total // rate
            job_state[j] = i
            job_start[j] = position
            job_blocks[j] = whole
            tail_start[j] = position + whole * rate
            tail_len[j] = total - whole * rate
            pieces.extend(parts)
            position += total
        data = _readonly(np.frombuffer(b"".join(pieces), dtype=np.uint8))  # type: ignore[arg-type]
        job_state = _readonly(job_state)
        self._states.absorb(data, job_state, job_start, job_blocks)
        keep_tails(
            data, job_state, _readonly(tail_start), _readonly(tail_len),
            self._states.pending, self._states.pending_len,
        )

    def _finish(self, which: np.ndarray) -> np.ndarray:
        self._finished[which] = True
        return self._states.finish(which, self._out_len)

    def digest(self, index: int) -> bytes:
        """Finish stream ``index`` and return its digest."""
        i = self._index(index, "index")
        return self._finish(np.array([i], dtype=np.int64)).tobytes()

    def hexdigest(self, index: int) -> str:
        """:meth:`digest` as lowercase hex."""
        return self.digest(index).hex()

    def digests(self) -> np.ndarray:
        """Finish every stream; ``(n_streams, digest_size)`` uint8, row ``i`` stream ``i``."""
        return self._finish(np.arange(self._count, dtype=np.int64))
