"""Incremental hashing: hashlib-style objects and many independent streams at once.

Objects for every algorithm of the table, used as hashlib's (``update`` returns None:
``h = bk.sha3_256(b"ab"); h.update(b"c"); h.digest()``), and :class:`StreamHasher`, which
keeps many incremental states and absorbs the whole blocks of many streams together
through the tile kernel (``batchkeccak.sponge``).
"""

from __future__ import annotations

import copy
import threading
from collections.abc import Callable, Iterable, Sequence
from typing import TYPE_CHECKING, Protocol

import numpy as np

from batchkeccak.api import algorithm_names, hasher
from batchkeccak.core.hashers import MAX_OUTPUT_LENGTH, Hasher
from batchkeccak.core.parameters import Algorithm, algorithms
from batchkeccak.core.stored_states import StoredStates
from batchkeccak.inputs.sequences import message_view

# names: begin __all__ (written by python bench/names.py: these objects and the rows)
__all__ = [
    "KeccakHash", "StreamHasher", "algorithms_available", "keccak_224", "keccak_256", "keccak_384",
    "keccak_512", "new", "sha3_224", "sha3_256", "sha3_384", "sha3_512", "shake_128", "shake_256",
    "turboshake128", "turboshake256",
]  # fmt: skip
# names: end

algorithms_available: frozenset[str] = frozenset(algorithm_names())
"""Names :func:`new` accepts, like ``hashlib.algorithms_available``: the table's rows and
the modes (other spellings of them, such as ``"SHA3-256"``, are accepted too)."""


class _IncrementalStream(Protocol):
    """What :meth:`Hasher.incremental` returns: one message absorbed in pieces."""

    def absorb(self, data: bytes | memoryview, /) -> None: ...

    def finish(self, out_len: int, /) -> bytes: ...

    def copy(self) -> _IncrementalStream: ...


class KeccakHash:
    """An incremental hash with hashlib's interface, for any algorithm or mode.

    Made by :func:`new` (``bk.new("sha3_256")``, ``bk.new("kmac_256", key=k, length=32)``,
    ``bk.new(hasher)``) or by the constructor named after a row of the table
    (``batchkeccak.sha3_256(data)``); equal to hashlib's (and pycryptodome's, for Keccak,
    TurboSHAKE and the modes) however the data is cut into ``update`` calls.

    An object may be shared by threads, as hashlib's may: the digest is that of the updates
    in some order, each one whole. A small update is one append to the buffer (whole under
    the GIL); whatever runs the kernel (the update that fills the buffer, ``digest``,
    ``copy``) holds the object's lock, since the kernels release the GIL and two of them
    would mix their blocks into the one state.
    """

    __slots__ = ("_hasher", "_length_given", "_lock", "_stream", "_waiting", "_waiting_limit")

    def __init__(self, resolved: Hasher, data: object = b"", length_given: bool = True) -> None:
        self._hasher = resolved
        self._length_given = length_given
        self._lock = threading.Lock()
        self._bind(resolved.incremental())
        if not (isinstance(data, bytes) and not data):
            self.update(data)

    def _bind(self, stream: _IncrementalStream) -> None:
        self._stream = stream
        # A stream with a buffer lets a small update append to it here, with no further
        # call: per update that is most of the difference from hashlib's C object.
        waiting: bytearray | None = getattr(stream, "waiting", None)
        self._waiting_limit: int = getattr(stream, "waiting_limit", 0)
        self._waiting = bytearray() if waiting is None else waiting

    @property
    def name(self) -> str:
        """The algorithm's name in ``batchkeccak.algorithms`` (hashlib's where it has one) or
        ``batchkeccak.modes``."""
        return self._hasher.name

    @property
    def digest_size(self) -> int:
        """Digest bytes; 0 for an extendable-output function made without a length, as
        hashlib's shake objects."""
        return self._hasher.output_length if self._length_given else 0

    @property
    def block_size(self) -> int:
        """The rate in bytes."""
        return self._hasher.algorithm.rate

    def update(self, data: object) -> None:
        """Absorb ``data`` (any bytes-like object) after what was given before."""
        # bytes cannot change size: read as it is, with no buffer export to pin it.
        if type(data) is not bytes:
            data = message_view(data, "data")
        waiting = self._waiting
        if len(waiting) + len(data) < self._waiting_limit:
            # Appended without the lock: one C call, whole under the GIL, so concurrent
            # updates land whole, in some order. The stream takes only a prefix of this
            # buffer and puts bytes back at its front, under the lock (below).
            waiting += data
            return
        with self._lock:
            self._stream.absorb(data)

    def _out_len(self, length: object) -> int:
        if length is None:
            if not self._length_given:
                raise TypeError(
                    f"digest() of {self.name} needs a length (an extendable-output function)"
                )
            return self._hasher.output_length
        if isinstance(length, bool):
            length = int(length)  # hashlib's shake digest(True) is one byte
        if not self._hasher.free_length:
            if length == self._hasher.output_length:
                return int(length)
            raise TypeError(
                f"{self.name} returns {self._hasher.output_length} bytes (its length is part "
                "of its input, fixed when the object was made); digest() takes no other length"
            )
        return _checked_free_length(length, self.name)

    def digest(self, length: int | None = None) -> bytes:
        """The digest of everything absorbed so far; ``length`` bytes for the XOFs.

        The object can be updated further afterwards, as with hashlib.
        """
        out_len = self._out_len(length)
        with self._lock:
            return self._stream.finish(out_len)

    def hexdigest(self, length: int | None = None) -> str:
        """:meth:`digest` as lowercase hex."""
        return self.digest(length).hex()

    def copy(self) -> KeccakHash:
        """An independent copy of the current state."""
        clone = object.__new__(KeccakHash)
        clone._hasher = self._hasher
        clone._length_given = self._length_given
        with self._lock:
            clone._bind(self._stream.copy())
        clone._lock = threading.Lock()
        return clone

    def __getstate__(self) -> tuple:
        # What pickling saves: the hasher, and a copy of the state taken under the lock.
        with self._lock:
            return self._hasher, self._length_given, self._stream.copy()

    def __setstate__(self, state: tuple) -> None:
        self._hasher, self._length_given, stream = state
        self._bind(stream)
        self._lock = threading.Lock()

    def __repr__(self) -> str:
        return f"<{self.name} batchkeccak.KeccakHash object @ {hex(id(self))}>"


def _checked_free_length(length: object, name: str) -> int:
    if isinstance(length, bool) or not isinstance(length, (int, np.integer)):
        raise TypeError(f"length must be an int, got {type(length).__name__}")
    if not 0 <= length <= MAX_OUTPUT_LENGTH:
        raise ValueError(f"length must be in [0, {MAX_OUTPUT_LENGTH}] for {name}, got {length}")
    return int(length)


def new(
    name: str | Algorithm | Hasher,
    data: object = b"",
    *,
    length: int | None = None,
    string: object = None,
    usedforsecurity: bool = True,
    **params: object,
) -> KeccakHash:
    """A new hash object, like ``hashlib.new``, for any algorithm or mode.

    Parameters
    ----------
    name
        A name (``"sha3_256"``, ``"SHA3-256"``, ``"keccak256"``, ``"shake128"``, an OID such
        as ``"2.16.840.1.101.3.4.2.8"``, a mode such as ``"kmac_256"``...), an
        :class:`~batchkeccak.Algorithm`, or a resolved :class:`~batchkeccak.Hasher`.
    data
        Bytes-like data to absorb first (``string=`` is accepted for it, as OpenSSL's
        constructors accept it).
    length
        For the modes: their output length (required where the mode requires it). For the
        plain extendable-output functions it may be left out and given to ``digest``.
    usedforsecurity
        Accepted for compatibility with hashlib and ignored.
    **params
        The mode's own parameters (``key=``, ``customization=``, ``block_size=``...).

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
    if string is not None:
        if not (isinstance(data, bytes) and not data):
            raise TypeError("new() takes data or string=, not both")
        data = string
    resolved, length_given = resolve_for_stream(name, length, params)
    return KeccakHash(resolved, data, length_given)


def resolve_for_stream(
    name: str | Algorithm | Hasher,
    length: int | None,
    params: dict,
) -> tuple[Hasher, bool]:
    """The hasher of an incremental object, and whether its length was left to ``digest``:
    an extendable-output function may be made without a length (hashlib's shake objects
    are), and ``digest(length)`` then chooses it."""
    if isinstance(name, Hasher):
        resolved = hasher(name, length=length, **params) if length is not None or params else name
        return resolved.with_threads(1) if resolved.threads != 1 else resolved, True
    if length is None:
        unsized: Hasher | None
        try:
            unsized = hasher(name, length=0, threads=1, **params)
        except TypeError:
            unsized = None  # a function of fixed output: its own checks speak below
        if unsized is not None and unsized.free_length:
            return unsized, False
    return hasher(name, length=length, threads=1, **params), True


def _constructor(name: str):
    def construct(
        data: object = b"", *, usedforsecurity: bool = True, string: object = None
    ) -> KeccakHash:
        return new(name, data, string=string)

    construct.__name__ = construct.__qualname__ = name
    construct.__doc__ = (
        f"A new {name} hash object, like ``hashlib.{name}``: ``update``, ``digest``, "
        "``hexdigest``, ``copy``."
    )
    return construct


for _name in algorithms:
    globals()[_name] = _constructor(_name)
del _name

if TYPE_CHECKING:  # what the loop above makes, for type checkers and editors
    # names: begin constructors (written by python bench/names.py from the table)
    sha3_224: Callable[..., KeccakHash]
    sha3_256: Callable[..., KeccakHash]
    sha3_384: Callable[..., KeccakHash]
    sha3_512: Callable[..., KeccakHash]
    shake_128: Callable[..., KeccakHash]
    shake_256: Callable[..., KeccakHash]
    keccak_224: Callable[..., KeccakHash]
    keccak_256: Callable[..., KeccakHash]
    keccak_384: Callable[..., KeccakHash]
    keccak_512: Callable[..., KeccakHash]
    turboshake128: Callable[..., KeccakHash]
    turboshake256: Callable[..., KeccakHash]
    # names: end


def _chunk_array(chunk: object, position: int) -> np.ndarray:
    """``chunk`` as a uint8 array over its own memory, holding one export of it: its length
    is measured once, and a resizable exporter cannot change size while the array lives."""
    if type(chunk) is bytes:  # immutable: no export to pin
        return np.frombuffer(chunk, dtype=np.uint8)
    return np.frombuffer(message_view(chunk, f"chunks[{position}]"), dtype=np.uint8)


class _Window:
    __slots__ = ("__array_interface__",)
    __array_interface__: dict[str, object]


def _memory_window(base: int, extent: int) -> np.ndarray:
    """A read-only uint8 array over the addresses ``[base, base + extent)``, which hold the
    chunks of one call (owned by their own objects, kept alive by the caller). Only the
    chunks in it are ever read. Read-only, so that the kernel reading it shares the
    compiled single-state kernel with every other path: a writable variant of it would be
    compiled again."""
    window = _Window()
    window.__array_interface__ = {
        "data": (base, True),
        "shape": (extent,),
        "typestr": "|u1",
        "version": 3,
    }
    return np.asarray(window)


class StreamHasher:
    """Many independent incremental hashes of one algorithm, updated in any order.

    Parameters
    ----------
    algorithm
        A name from ``batchkeccak.algorithms``, a mode that hashes in one pass
        (``kmac_*``, ``hmac_sha3_*``, ``cshake_*``, ``turboshake*`` with a ``domain``), or a
        resolved :class:`~batchkeccak.Hasher` of one. The tree modes (KangarooTwelve,
        ParallelHash) and TupleHash have no one-pass form: a TypeError says so.
    n_streams
        How many streams; they are numbered ``0 .. n_streams - 1``.
    length
        Output bytes for the XOFs and the modes that take one (required for them,
        rejected for the others).
    threads
        Threads for :meth:`update_many`; None uses every available core.
    **params
        The mode's parameters (``key=``, ``customization=``...). A list of ``n_streams``
        keys gives every stream a key of its own (KMAC).

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
        self,
        algorithm: str | Algorithm | Hasher,
        n_streams: int,
        *,
        length: int | None = None,
        threads: int | None = None,
        **params: object,
    ) -> None:
        if isinstance(n_streams, bool) or not isinstance(n_streams, (int, np.integer)):
            raise TypeError(f"n_streams must be an int, got {type(n_streams).__name__}")
        if n_streams < 0:
            raise ValueError(f"n_streams must be >= 0, got {n_streams}")
        resolved = hasher(algorithm, length=length, threads=threads, **params)
        form = resolved.one_pass()
        states = form.initial_state.shape[0]
        if states not in (1, n_streams):
            raise ValueError(
                f"{resolved.name}: the hasher holds {states} keys (or states), one per "
                f"stream, but n_streams is {n_streams}"
            )
        self._hasher = resolved
        self._form = form
        self._spec = resolved.algorithm
        self._out_len = resolved.output_length
        self._threads = resolved.threads
        self._count = int(n_streams)
        self._states = StoredStates(self._spec, self._count, form.initial_state)
        self._trailer = np.frombuffer(form.trailer, dtype=np.uint8)
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
        return self._hasher.name

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
            raise IndexError(f"{argument} = {index} is out of range for {self._count} streams")
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
        piece_len = size[order]
        rate = self._spec.rate
        states = self._states
        pieces = piece_len.shape[0]
        # Blocks that span two pieces (or a state's waiting bytes and a piece) are copied
        # here; every other block is read where it lies. At most one such block per piece,
        # and one more for each run's waiting bytes.
        scratch = np.zeros((pieces + 1) * rate, dtype=np.uint8)
        low = min(int(address[present].min()), scratch.ctypes.data)
        high = max(int((address + size)[present].max()), scratch.ctypes.data + scratch.shape[0])
        window = _memory_window(low, high - low)
        piece_start = np.where(present, address - low, 0)[order]
        items = states.lanes.shape[0] + 2 * pieces
        starts = np.empty(items, dtype=np.int64)
        ends = np.empty(items, dtype=np.int64)
        follow = np.empty(items, dtype=np.int64)
        heads = np.empty(run_state.shape[0], dtype=np.int64)
        from batchkeccak.sponge import plan_pieces

        jobs = plan_pieces(
            states.pending,
            states.pending_len,
            window,
            (piece_start, piece_len),
            (run_state, run_first),
            rate,
            scratch,
            scratch.ctypes.data - low,
            (starts, ends, follow, heads),
        )
        heads = heads[:jobs]
        # Each state's blocks in all, to share the jobs out among threads.
        run_bytes = np.add.reduceat(piece_len, run_first[:-1])
        blocks = (run_bytes[np.isin(run_state, heads)] // rate) + 1
        states.run(window, starts, ends, heads, follow, blocks, self._threads)

    def _finish(self, which: np.ndarray) -> np.ndarray:
        form = self._form
        with self._lock:
            if self._trailer.shape[0]:
                # What follows every message (KMAC's length), once per stream as it finishes.
                fresh = np.unique(which[~self._finished[which]])
                if fresh.shape[0]:
                    count = fresh.shape[0]
                    self._absorb_chunks(
                        fresh,
                        np.full(count, self._trailer.ctypes.data, dtype=np.int64),
                        np.full(count, self._trailer.shape[0], dtype=np.int64),
                    )
            self._finished[which] = True
            digests = self._states.finish(which, self._out_len, form.domain)
        if form.outer is None:
            return digests
        return form.outer.with_threads(self._threads).hash_rows(digests)

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
