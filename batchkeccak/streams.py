"""Incremental hashing: hashlib-style objects and many independent streams at once.

Objects for every algorithm of the table, used as hashlib's (``update`` returns None:
``h = bk.sha3_256(b"ab"); h.update(b"c"); h.digest()``), and :class:`StreamHasher`, which
keeps many incremental states and absorbs the whole blocks of many streams together
through the tile kernel (``batchkeccak.sponge_states``).
"""

from __future__ import annotations

import copy
import itertools
import threading
from collections.abc import Iterable, Sequence

import numpy as np

from batchkeccak import _parallel
from batchkeccak.hashers import output_length
from batchkeccak.inputs import readonly as _readonly
from batchkeccak.inputs.sequences import message_view
from batchkeccak.parameters import Algorithm, algorithms, get_algorithm
from batchkeccak.permutation import LANE_COUNT
from batchkeccak.sponge_states import absorb_jobs, absorb_pieces, finish_states

algorithms_available: frozenset[str] = frozenset(algorithms)
"""Names :func:`new` accepts, like ``hashlib.algorithms_available``."""

_EMPTY = _readonly(np.zeros(0, dtype=np.uint8))
_MIN_BLOCKS_PER_THREAD = 2048
"""Below this many blocks for each extra thread, starting it costs more than it saves."""


def _as_array(view: memoryview) -> np.ndarray:
    return _readonly(np.frombuffer(view, dtype=np.uint8)) if view.nbytes else _EMPTY


class StoredStates:
    """``count`` stored sponge states of one algorithm, with their waiting bytes.

    ``lanes[s]`` is state ``s`` (25 lanes, ``batchkeccak.sponge_states``' layout);
    ``pending[s, :pending_len[s]]`` are its bytes not yet absorbed (fewer than ``rate``).
    The stream objects and ``batchkeccak.files`` keep their states here.
    """

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
        bounds = sorted({0, *cuts.tolist(), count})
        spans = [(a, b) for a, b in itertools.pairwise(bounds) if b > a]

        def run(span: tuple[int, int]) -> None:
            a, b = span
            absorb_jobs(
                self.lanes, data, job_state[a:b], job_start[a:b], job_blocks[a:b],
                self.rate, self.first_round,
            )

        _parallel.run_parallel(run, spans, workers=threads)

    def finish(self, which: np.ndarray, out_len: int) -> np.ndarray:
        """Digests of ``out_len`` bytes of the states ``which`` (the states stay as they are)."""
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

    An object may be shared by threads, as hashlib's may: each ``update``, ``digest`` and
    ``copy`` holds the object's lock, so the digest is that of the updates in some order,
    each one whole. (The kernels release the GIL; without the lock two updates would mix
    their blocks into the one state.)
    """

    __slots__ = ("_buffer", "_lock", "_spec", "_states")

    def __init__(self, name: str, data: object = b"") -> None:
        self._spec = get_algorithm(name)
        self._states = StoredStates(self._spec, 1)
        self._buffer = bytearray()  # bytes waiting for a whole block, fewer than block_size
        self._lock = threading.Lock()
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
        view = message_view(data, "data")
        with self._lock:
            self._absorb(view)

    def _absorb(self, view: memoryview) -> None:
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
        with self._lock:
            return self._squeeze(out_len)

    def _squeeze(self, out_len: int) -> bytes:
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
        clone.__setstate__(self.__getstate__())
        return clone

    def __getstate__(self) -> tuple[str, bytes, bytes]:
        # (algorithm, state lanes, waiting bytes): also what pickling saves.
        with self._lock:
            return self._spec.name, self._states.lanes.tobytes(), bytes(self._buffer)

    def __setstate__(self, state: tuple[str, bytes, bytes]) -> None:
        name, lanes, waiting = state
        self._spec = get_algorithm(name)
        self._states = StoredStates(self._spec, 1)
        self._states.lanes[0] = np.frombuffer(lanes, dtype=np.uint64)
        self._buffer = bytearray(waiting)
        self._lock = threading.Lock()

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


def _chunk_array(chunk: object, position: int) -> np.ndarray:
    """``chunk`` as a uint8 array over its own memory, holding one export of it: its length
    is measured once, and a resizable exporter cannot change size while the array lives."""
    if type(chunk) is bytes:  # immutable: no export to pin
        return np.frombuffer(chunk, dtype=np.uint8)
    return np.frombuffer(message_view(chunk, f"chunks[{position}]"), dtype=np.uint8)


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

    Threads may share one object: each call holds its lock, so every stream's digest is
    that of its chunks with each call's chunks whole and in their order, calls in some order.

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
        self._states = StoredStates(self._spec, self._count)
        self._finished = np.zeros(self._count, dtype=bool)
        self._lock = threading.Lock()

    def __getstate__(self) -> dict[str, object]:
        with self._lock:
            state = self.__dict__.copy()
            del state["_lock"]
            state["_states"] = copy.deepcopy(self._states)
            state["_finished"] = self._finished.copy()
            return state

    def __setstate__(self, state: dict[str, object]) -> None:
        self.__dict__.update(state)
        self._lock = threading.Lock()

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
        count = len(chunks)
        if count == 0:
            return
        stream_of = np.empty(count, dtype=np.int64)
        address = np.zeros(count, dtype=np.int64)
        size = np.empty(count, dtype=np.int64)
        arrays = []  # every chunk's array: its export stays alive until the kernels return
        for k, (index, chunk) in enumerate(zip(indices, chunks)):
            stream_of[k] = self._index(index, f"indices[{k}]")
            array = _chunk_array(chunk, k)
            arrays.append(array)
            size[k] = array.shape[0]
            if size[k]:
                address[k] = array.ctypes.data
        with self._lock:
            self._absorb_chunks(stream_of, address, size)
        del arrays  # the chunks may be released (and resized) from here on

    def _absorb_chunks(self, stream_of: np.ndarray, address: np.ndarray, size: np.ndarray) -> None:
        finished = self._finished[stream_of]
        if finished.any():
            i = int(stream_of[np.argmax(finished)])
            raise ValueError(f"stream {i} is finished (its digest was read); it cannot be updated")
        present = size > 0
        if not present.any():
            return
        # The chunks of each stream, in the order given: one run of pieces per stream.
        order = np.argsort(stream_of, kind="stable")
        streams = stream_of[order]
        run_first = np.flatnonzero(np.diff(streams, prepend=-1, append=-1))
        run_state = streams[run_first[:-1]]
        base = int(address[present].min())
        extent = int((address + size)[present].max()) - base
        piece_start = np.where(present, address - base, 0)[order]
        piece_len = size[order]
        run_bytes = np.cumsum(np.add.reduceat(piece_len, run_first[:-1]))
        rate = self._spec.rate
        total = int(run_bytes[-1])
        threads = max(1, min(self._threads, run_state.shape[0],
                             total // (rate * _MIN_BLOCKS_PER_THREAD)))
        # Contiguous runs of streams holding about equal numbers of bytes, a few per thread.
        cuts = np.searchsorted(run_bytes, np.linspace(0, total, 4 * threads + 1)[1:-1])
        bounds = sorted({0, *cuts.tolist(), run_state.shape[0]})
        spans = [(a, b) for a, b in itertools.pairwise(bounds) if b > a]
        states = self._states
        first_round = states.first_round

        def absorb(span: tuple[int, int]) -> None:
            a, b = span
            absorb_pieces(
                states.lanes, states.pending, states.pending_len, base, extent,
                piece_start, piece_len, run_state[a:b], run_first[a : b + 1], rate, first_round,
            )

        _parallel.run_parallel(absorb, spans, workers=threads)

    def _finish(self, which: np.ndarray) -> np.ndarray:
        with self._lock:
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
