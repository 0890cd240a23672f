"""One resolved hash function: what every entry point builds once and passes down.

A :class:`Hasher` is an algorithm from the table with everything a call decides fixed: the
output length, the thread count and, for the keyed and customized modes, the sponge state
that every message starts from. ``hash_many``, the Arrow, Parquet and Dask integrations,
the Merkle trees and the CLI all resolve their arguments into one (:func:`batchkeccak.hasher`)
and then only call its methods, so a parameter is validated in one place and a new mode is
one new subclass, not a new argument threaded through every integration.

Inputs arrive here already laid out flat by :mod:`batchkeccak.inputs`, under its contract:
read-only uint8 data, private int64 offsets that are non-decreasing and inside the data.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, ClassVar

import numpy as np

from batchkeccak.core import parallel
from batchkeccak.core.dispatch import ONESHOT
from batchkeccak.core.executor import Executor
from batchkeccak.core.oneshot import backend_family
from batchkeccak.core.parameters import Algorithm, get_algorithm
from batchkeccak.inputs import readonly, rows_to_flat, single_message
from batchkeccak.permutation import LANE_COUNT, TILE_WIDTH
from batchkeccak.support.checks import check_int

if TYPE_CHECKING:
    from batchkeccak.core.stored_states import IncrementalSponge

_SINGLE_QUEUE = readonly(np.zeros(1, dtype=np.int64))

_EXECUTORS: dict[tuple, Executor] = {}
"""The executors of the hashers built so far, by their fields (:meth:`Hasher.make_executor`)."""

ZERO_STATE = readonly(np.zeros((1, LANE_COUNT), dtype=np.uint64))
"""The all-zero initial state of the plain functions: one (1, 25) state for the whole batch."""


def output_length(
    spec: Algorithm, length: object, argument: str = "length", name: str | None = None
) -> int:
    """The output size for ``spec``: its digest size, or ``length`` for an XOF.

    ``argument`` is the caller's name for ``length`` in error messages (``--length`` for
    the command line); ``name`` the function's name in them (a mode's, over its sponge row).
    """
    name = spec.name if name is None else name
    if spec.xof:
        if length is None:
            raise TypeError(f"{argument} is required for {name} (an extendable-output function)")
        number = check_int(length, argument, 0, note=f" for {name}")
        if number > MAX_OUTPUT_LENGTH:
            raise ValueError(
                f"{argument} must be at most {MAX_OUTPUT_LENGTH} bytes per message, got {number}"
            )
        return number
    if length is not None:
        raise TypeError(
            f"{argument} applies only to extendable-output functions; {name} always "
            f"returns {spec.digest_size} bytes"
        )
    return spec.digest_size  # type: ignore[return-value]  # not an XOF (checked above): the row has a digest_size


MAX_OUTPUT_LENGTH = 2**40
"""The longest output a call may ask for per message (1 TiB): far past any memory, but a
bound that keeps ``N * length`` inside numpy's index range, so an absurd ``length`` is
refused by name instead of by an allocation error."""


def _initial_rows(initial, start, stop):
    # One state for the batch, or the rows of this range's messages.
    return initial if initial.shape[0] == 1 else initial[start:stop]


def _hash_range(span, data, offsets, initial, rate, suffix, first_round, out):
    # Each range works on views of its own offsets and output rows, and builds its own queue,
    # so no per-message array is made for the whole batch up front. The queue is read-only,
    # as hash_one's is: one compiled specialization serves both.
    from batchkeccak.sponge import run_jobs

    start, stop = span
    run_jobs(
        data,
        offsets[start : stop + 1],
        None,
        readonly(np.arange(stop - start, dtype=np.int64)),
        None,
        _initial_rows(initial, start, stop),
        None,
        rate,
        suffix,
        first_round,
        out[start:stop],
    )


def _hash_uniform_range(span, data, offsets, initial, rate, suffix, first_round, out):
    # Equal, back-to-back single-block messages, a partial last tile included: a first call
    # of such messages compiles this kernel alone. Only for one initial state for the batch.
    from batchkeccak.sponge import hash_uniform

    start, stop = span
    length = int(offsets[start + 1] - offsets[start])
    hash_uniform(
        data,
        offsets[start],
        stop - start,
        length,
        initial,
        rate,
        suffix,
        first_round,
        out[start:stop],
        0,
        0,
    )


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


class Hasher:
    """An algorithm with its output length and thread count resolved: immutable.

    Build one with :func:`batchkeccak.hasher`; every function that takes an ``algorithm``
    also takes a ``Hasher`` in its place.

    Attributes
    ----------
    algorithm
        The table row (:class:`~batchkeccak.Algorithm`): rate, domain byte, rounds.
    output_length
        Bytes of output per message.
    threads
        Threads a batch is spread over (1: the calling thread only).
    initial_state
        The sponge state every message starts from: a read-only ``(1, 25)`` uint64 array
        (zeros for the plain functions; a key or customization prefix already absorbed for
        the modes) or ``(N, 25)``, one state per message of a batch of exactly N.
    domain
        The domain-separation byte that starts the padding (the table's ``suffix`` unless a
        mode sets another: 0x04 for cSHAKE, a TurboSHAKE domain byte...).
    """

    __slots__ = ("_executor", "algorithm", "domain", "initial_state", "output_length", "threads")

    plain_sponge: ClassVar[bool] = True
    """Whether :meth:`hash_flat` is the table row's sponge over each message exactly as given
    (from ``initial_state``, padded with ``domain``): the capability that lets hashlib or
    pycryptodome (:attr:`executor`) and the one-call kernel (:meth:`one_call`) stand in for it.
    A mode that frames its messages, hashes them twice or as a tree declares False, and then
    only its own :meth:`hash_flat` hashes for it."""

    algorithm: Algorithm
    output_length: int
    threads: int
    initial_state: np.ndarray
    domain: int
    _executor: Executor | None  # built on first use (executor): not a field

    def __init__(
        self,
        algorithm: Algorithm,
        output_length: int,
        threads: int,
        initial_state: np.ndarray | None = None,
        domain: int | None = None,
    ):
        object.__setattr__(self, "_executor", None)
        object.__setattr__(self, "algorithm", algorithm)
        object.__setattr__(self, "output_length", output_length)
        object.__setattr__(self, "threads", threads)
        object.__setattr__(self, "initial_state", _checked_state(initial_state))
        object.__setattr__(
            self, "domain", algorithm.suffix if domain is None else check_domain(domain)
        )

    def __setattr__(self, name: str, value: object) -> None:
        raise AttributeError(f"{type(self).__name__} is immutable; build another with hasher()")

    def __repr__(self) -> str:
        return (
            f"{type(self).__name__}({self.name!r}, output_length={self.output_length}, "
            f"threads={self.threads})"
        )

    @property
    def name(self) -> str:
        """The algorithm's name, as in ``batchkeccak.algorithms``."""
        return self.algorithm.name

    @property
    def digest_size(self) -> int:
        """Alias of ``output_length``, named as hashlib names it."""
        return self.output_length

    @property
    def batch_size(self) -> int | None:
        """The number of messages a batch must hold: N for per-message initial states,
        None when any batch will do."""
        rows = self.initial_state.shape[0]
        return None if rows == 1 else rows

    @property
    def executor(self) -> Executor:
        """How this hasher's batches run (:class:`~batchkeccak.core.executor.Executor`): the
        backend plan, threads and byte budgets, from this hasher's fields; built once."""
        executor = self._executor
        if executor is None:
            executor = self.make_executor()
            object.__setattr__(self, "_executor", executor)
        return executor

    def make_executor(self) -> Executor:
        """The :attr:`executor` of this hasher's fields: the row's own one-shot backend where
        it computes this function (a plain sponge from the all-zero state, with a domain
        byte hashlib or pycryptodome takes). A mode with a one-shot form of its own
        describes that one instead."""
        state, spec, plain = self.initial_state, self.algorithm, self.plain_sponge
        family = None
        if plain and (state is ZERO_STATE or (state.shape[0] == 1 and not state.any())):
            family = backend_family(spec, self.domain)
        # Shared by the hashers of the same fields (a hasher built per call, as hash_one by
        # name does, then builds no executor): executors are immutable.
        key = (spec.name, self.domain, self.output_length, self.threads, family, plain)
        executor = _EXECUTORS.get(key)
        if executor is None or executor.algorithm is not spec:
            if len(_EXECUTORS) >= 1024:
                _EXECUTORS.clear()
            executor = Executor(
                spec, self.domain, self.output_length, self.threads, family, stands_in=plain
            )
            _EXECUTORS[key] = executor
        return executor

    def with_threads(self, threads: object) -> Hasher:
        """The same hasher on another number of threads (None: every available core)."""
        fields = self.fields()
        fields["threads"] = parallel.resolve_threads(threads)
        return restore(type(self), fields)

    def fields(self) -> dict[str, object]:
        """Every slot by name: what pickling saves, and what a mode copies to derive a hasher."""
        return {name: getattr(self, name) for name in all_slots(type(self))}

    def __reduce__(self):
        # Pickled as its fields (Dask, Spark and Ray ship hashers to their workers); the
        # immutability guard would refuse the default slot-by-slot restore.
        return restore, (type(self), self.fields())

    # -- what the modes override ---------------------------------------------------------------

    def hash_flat(
        self,
        data: np.ndarray,
        offsets: np.ndarray,
        *,
        out: np.ndarray | None = None,
        equal_lengths: bool = False,
    ) -> np.ndarray:
        """Hash flat messages laid out under :mod:`batchkeccak.inputs`' contract.

        ``out``, when given, is a C-contiguous ``(N, output_length)`` uint8 array to fill.
        ``equal_lengths`` says the messages are known to have one length and lie back to back
        (rows of a 2-D array), which saves checking the offsets.
        """
        # Read-only views: one compiled specialization serves every caller's arrays.
        data, offsets = readonly(data), readonly(offsets)
        count = offsets.shape[0] - 1
        out_len = self.output_length
        batch_size = self.batch_size
        self.check_batch(count)
        if out is None:
            out = np.empty((count, out_len), dtype=np.uint8)
        if count == 0 or out_len == 0:
            return out
        spec = self.algorithm
        executor = self.executor
        if executor.plan(count, int(offsets[-1]) - int(offsets[0])) == ONESHOT:
            return executor.oneshot_flat(data, offsets, out)
        initial = readonly(self.initial_state)
        # Messages go to the lanes in buffer order: each lane takes the next message as soon
        # as its own is done, so lanes stay busy without sorting by length, and neighbouring
        # lanes read neighbouring memory (sorting by length was measured 1.2x slower).
        total_bytes = int(offsets[-1]) - int(offsets[0])  # an upper bound is all it needs
        threads = executor.threads_for(count, total_bytes)
        uniform = batch_size is None and _single_block_uniform(
            offsets, spec.rate, out_len, equal_lengths
        )
        parallel.run_parallel(
            _hash_uniform_range if uniform else _hash_range,
            parallel.chunk_ranges(count, threads),
            data,
            offsets,
            initial,
            spec.rate,
            self.domain,
            spec.first_round,
            out,
            workers=threads,
        )
        return out

    def one_call(self):
        """This hasher's batch kernel as a function ``(data, offsets, out)`` that hashes on the
        calling thread in one compiled call; None for a mode with its own :meth:`hash_flat`
        (framing, HMAC's second hash, trees) or with states per message.

        For engines that call once per vector of a few thousand values, from threads of
        their own (DuckDB): what :meth:`hash_flat` checks and chooses in Python, in numpy
        calls that each may hand the GIL to another of those threads, is done inside the
        kernel. ``data`` and ``offsets`` (int32 or int64, ``N + 1`` entries) are read-only
        arrays; the offsets may be the caller's own, unchecked (Arrow's, read in place): the
        kernel copies them and checks the copy. ``out`` is a C-contiguous
        ``(N, output_length)`` uint8 array. It loads the kernels, and never hands work to
        hashlib: the caller decides when that is worth it (:meth:`Executor.hash_in_one_call
        <batchkeccak.core.executor.Executor.hash_in_one_call>`).
        """
        if not self.plain_sponge or self.batch_size is not None:
            return None
        from batchkeccak.sponge import hash_offsets

        initial, domain = self.initial_state, self.domain
        rate, first_round = self.algorithm.rate, self.algorithm.first_round

        def hash_batch(data: np.ndarray, offsets: np.ndarray, out: np.ndarray) -> None:
            hash_offsets(data, offsets, initial, rate, domain, first_round, out)

        return hash_batch

    def check_batch(self, count: int) -> None:
        """ValueError unless a batch of ``count`` messages fits this hasher: any count, or
        exactly one message per key (or initial state) it holds."""
        batch_size = self.batch_size
        if batch_size is not None and batch_size != count:
            raise ValueError(
                f"{self.name}: key (or initial_state) holds {batch_size} entries, one per "
                f"message, but {count} messages were given"
            )

    # -- one message in pieces ----------------------------------------------------------------

    @property
    def free_length(self) -> bool:
        """Whether one state can be squeezed to any length (the extendable-output functions):
        a hash object of this hasher may then be read at other lengths than ``output_length``."""
        return self.algorithm.xof

    def one_pass(self) -> OnePass:
        """How one message goes through the sponge in one pass, for the objects that feed it
        in pieces (:meth:`incremental`, ``StreamHasher``, the files): start state, domain
        byte, what follows the message and an outer hash. TypeError for a mode that cannot
        be hashed so (a tree mode, TupleHash)."""
        return OnePass(self.initial_state, self.domain)

    def incremental(self):
        """One message fed in pieces: an object with ``absorb(memoryview)``,
        ``finish(out_len) -> bytes`` (which leaves it as it was) and ``copy()``, what the
        hashlib-style objects and the files are built on."""
        from batchkeccak.core.stored_states import IncrementalSponge

        form = self.one_pass()
        if form.initial_state.shape[0] != 1:
            raise ValueError(
                f"{self.name}: this hasher holds {form.initial_state.shape[0]} keys (or "
                "states), one per message of a batch; one message in pieces needs one"
            )
        return MessageStream(
            IncrementalSponge(self.algorithm, form.initial_state[0], form.domain), form
        )

    # -- built on hash_flat ------------------------------------------------------------------

    def hash_rows(self, rows: np.ndarray, out: np.ndarray | None = None) -> np.ndarray:
        """Hash every row of a 2-D uint8 array (equal-length messages); returns ``(k, size)``."""
        data, offsets = rows_to_flat(rows)
        return self.hash_flat(data, offsets, out=out, equal_lengths=True)

    def hash_one(self, message: object) -> bytes:
        """The digest of one bytes-like message, on the calling thread, with no scheduling.

        A few microseconds: for chains of single hashes (Merkle proof steps, the last node
        of a tree mode), where the batch path's scheduling would cost more than the hash.
        """
        data, offsets = single_message(message)
        out = np.empty((1, self.output_length), dtype=np.uint8)
        if not self.plain_sponge:
            return self.hash_flat(data, offsets, out=out).tobytes()
        if self.batch_size not in (None, 1):
            raise ValueError(
                f"this {self.name} hasher holds one state per message for {self.batch_size} "
                "messages; hash_one takes one message"
            )
        if self.output_length:
            spec = self.algorithm
            executor = self.executor
            if executor.plan(1, int(offsets[1])) == ONESHOT:
                return executor.digest()(data.data)
            from batchkeccak.sponge import run_jobs

            run_jobs(
                data,
                offsets,
                None,
                _SINGLE_QUEUE,
                None,
                readonly(self.initial_state),
                None,
                spec.rate,
                self.domain,
                spec.first_round,
                out,
            )
        return out.tobytes()


class OnePass:
    """A hasher's one-pass form: every message starts from ``initial_state`` (``(1, 25)``, or
    ``(N, 25)`` one per message), is followed by ``trailer`` and padded with ``domain``;
    ``outer``, when set, hashes the digest once more (HMAC)."""

    __slots__ = ("domain", "initial_state", "outer", "trailer")

    def __init__(
        self,
        initial_state: np.ndarray,
        domain: int,
        trailer: bytes = b"",
        outer: Hasher | None = None,
    ) -> None:
        self.initial_state = initial_state
        self.domain = domain
        self.trailer = trailer
        self.outer = outer


class MessageStream:
    """One message of a one-pass hasher fed in pieces (see :meth:`Hasher.incremental`)."""

    __slots__ = ("_form", "_sponge", "absorb", "waiting", "waiting_limit")

    def __init__(self, sponge: IncrementalSponge, form: OnePass) -> None:
        self._sponge, self._form = sponge, form
        # The sponge's own method and buffer: an update that only appends to the buffer
        # (under waiting_limit bytes in all) may do so directly, as hash objects do.
        self.absorb = sponge.absorb
        self.waiting = sponge.waiting
        self.waiting_limit = sponge.BUFFER_BYTES

    def finish(self, out_len: int) -> bytes:
        form = self._form
        sponge = self._sponge
        if form.trailer:
            sponge = sponge.copy()
            sponge.absorb(memoryview(form.trailer))
        if form.outer is None:
            return sponge.finish(out_len)
        return form.outer.hash_one(sponge.finish(out_len))

    def copy(self) -> MessageStream:
        return MessageStream(self._sponge.copy(), self._form)

    def __getstate__(self) -> tuple[IncrementalSponge, OnePass]:
        return self._sponge, self._form

    def __setstate__(self, state: tuple[IncrementalSponge, OnePass]) -> None:
        MessageStream.__init__(self, *state)


def check_domain(domain: object, argument: str = "domain") -> int:
    """A domain-separation byte: an int in [0x01, 0x7F] (it carries the first padding bit)."""
    byte = check_int(domain, argument, expected="an int in [0x01, 0x7F]")
    if not 0x01 <= byte <= 0x7F:
        raise ValueError(f"{argument} must be in [0x01, 0x7F], got {byte:#04x}")
    return byte


def _checked_state(state: np.ndarray | None) -> np.ndarray:
    if state is None:
        return ZERO_STATE
    if (
        not isinstance(state, np.ndarray)
        or state.dtype != np.uint64
        or state.ndim != 2
        or state.shape[1] != LANE_COUNT
        or state.shape[0] < 1
    ):
        raise TypeError("initial_state must be a (1, 25) or (N, 25) uint64 array")
    # A private copy: the caller's array could change after it was checked.
    return readonly(np.array(state, dtype=np.uint64, order="C", copy=True))


def all_slots(cls: type) -> list[str]:
    """A hasher class's fields: its slots but the cache of its executor (built again on use)."""
    return [
        name
        for klass in cls.__mro__
        for name in getattr(klass, "__slots__", ())
        if name != "_executor"
    ]


def restore(cls: type[Hasher], fields: dict[str, object]) -> Hasher:
    """A ``cls`` with its slots set from ``fields`` as they are (already checked): how a
    hasher is unpickled, and how a mode builds a plain hasher of its own state."""
    restored = object.__new__(cls)
    object.__setattr__(restored, "_executor", None)
    for name, value in fields.items():
        object.__setattr__(restored, name, value)
    return restored


def plain_hasher(algorithm: object, length: object = None, threads: object = None) -> Hasher:
    """A :class:`Hasher` for a row of the table (no key, no customization)."""
    spec = get_algorithm(algorithm)
    return Hasher(spec, output_length(spec, length), parallel.resolve_threads(threads))


def hash_places(
    hasher: Hasher, data: np.ndarray, starts: np.ndarray, ends: np.ndarray
) -> np.ndarray | None:
    """The digests of messages ``data[starts[i]:ends[i]]`` read where they lie (a list's
    ``bytes`` objects: ``batchkeccak.inputs._pylist.bytes_places``), ``(N, output_length)``
    uint8; None for a hasher that is not a plain sponge with one start state (a mode frames
    its messages: the caller lays them out flat instead).

    The batch is shared out by bytes: contiguous runs of messages of about equal work (bytes
    plus one block a message), a few per thread, each a whole tile where the batch allows.
    Each run is one call of the lane queue in the flat path's own compiled form (no kernel
    to compile for this path): its offsets are the pairs ``start_i, end_i`` one after the
    other and its queue the even entries, so that job ``2i`` reads exactly
    ``data[starts[i]:ends[i]]`` into row ``2i`` of a twice-as-tall output; ``run_jobs``
    checks every queued pair against ``data`` before it reads.
    """
    if not hasher.plain_sponge or hasher.batch_size is not None:
        return None
    count = starts.shape[0]  # the one count: every other length is checked against it
    if ends.shape != (count,):
        raise ValueError(f"hash_places: {ends.shape} ends for {count} starts")
    out_len = hasher.output_length
    if count == 0 or out_len == 0:
        return np.empty((count, out_len), dtype=np.uint8)
    spec = hasher.algorithm
    lengths = ends - starts
    total = int(lengths.sum())
    executor = hasher.executor
    if executor.plan(count, total) == ONESHOT:
        # The executor's one-shot function: a mode's own form where it has one (cSHAKE).
        out = np.empty((count, out_len), dtype=np.uint8)
        digest = executor.digest()
        view = data.data
        joined = b"".join(digest(view[a:b]) for a, b in zip(starts.tolist(), ends.tolist()))
        out[:] = np.frombuffer(joined, dtype=np.uint8).reshape(out.shape)
        return out
    from batchkeccak.sponge import run_jobs

    pairs = np.empty(2 * count, dtype=np.int64)
    pairs[0::2] = starts
    pairs[1::2] = ends
    pairs = readonly(pairs)
    tall = np.empty((2 * count, out_len), dtype=np.uint8)
    rate = spec.rate
    threads = executor.threads_for(count, total)
    parts = 1
    if threads > 1:
        parts = max(threads, min(threads * parallel.CHUNKS_PER_THREAD, count // TILE_WIDTH))
    initial = readonly(hasher.initial_state)

    def hash_run(span: tuple[int, int]) -> None:
        start, stop = span
        run_jobs(
            data,
            pairs[2 * start : 2 * stop],
            None,
            readonly(np.arange(0, 2 * (stop - start), 2, dtype=np.int64)),
            None,
            initial,
            None,
            rate,
            hasher.domain,
            spec.first_round,
            tall[2 * start : 2 * stop],
        )

    ranges = parallel.split_ranges(0, count, parts, None if parts == 1 else lengths + rate)
    parallel.run_parallel(hash_run, ranges, workers=threads)
    return np.ascontiguousarray(tall[0::2])
