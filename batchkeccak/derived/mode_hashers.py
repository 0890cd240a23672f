"""The hashers of the modes: :class:`~batchkeccak.Hasher` with a mode's prefix state, domain
byte and per-message framing.

Everything here is written against two contracts of the layer below: ``Hasher.hash_flat``
(many messages from one initial state, or one state per message) and
``sponge.absorb_prefixes`` (the state a whole-block prefix leaves).
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Iterable
from typing import TYPE_CHECKING, ClassVar, cast

import numpy as np

from batchkeccak.core import parallel
from batchkeccak.core.dispatch import ONESHOT
from batchkeccak.core.dispatch import plan as plan_backend
from batchkeccak.core.executor import Executor
from batchkeccak.core.hashers import (
    ZERO_STATE,
    Hasher,
    OnePass,
    all_slots,
    hash_places,
    restore,
)
from batchkeccak.core.oneshot import mode_oneshot
from batchkeccak.core.parameters import Algorithm
from batchkeccak.core.stored_states import StoredStates
from batchkeccak.derived.encoding import left_encode
from batchkeccak.derived.table import Mode
from batchkeccak.inputs import readonly, sequence_to_flat, single_message
from batchkeccak.permutation import TILE_WIDTH

IN_PLACE_BYTES = 1 << 13
"""Batches whose every message is at least this long are hashed where they lie
(:meth:`FramedHasher._hash_in_place`): below it, copying a message with its framing costs
less than one more pass over the batch's states."""


TREE_IN_PLACE_BYTES = 1 << 19
"""A tree mode's message in a list of ``bytes`` this long or longer (64 leaves of 8 KiB)
is hashed where it lies, its leaves alone in the tiles, rather than copied into one
buffer with the other messages: copying costs more than a last partial tile of leaves."""

TREE_LIST_MAX = 1024
"""The longest list :meth:`TreeHasher.hash_list` reads message by message: longer ones
are many short messages, for the batch path."""


def prefix_states(
    spec: Algorithm,
    prefixes: list[bytes],
    initial: np.ndarray = ZERO_STATE,
    threads: int = 1,
) -> np.ndarray:
    """The states ``initial`` reaches after absorbing each whole-block prefix: ``(k, 25)``."""
    from batchkeccak.sponge import absorb_prefixes  # the kernels load on first use

    data = np.frombuffer(b"".join(prefixes), dtype=np.uint8)
    lengths = np.fromiter((len(p) for p in prefixes), dtype=np.int64, count=len(prefixes))
    offsets = np.zeros(len(prefixes) + 1, dtype=np.int64)
    np.cumsum(lengths, out=offsets[1:])
    data, offsets, initial = readonly(data), readonly(offsets), readonly(initial)
    count = len(prefixes)
    ranges = parallel.chunk_ranges(count, max(1, min(threads, count // 4096)))
    if len(ranges) == 1:
        return absorb_prefixes(initial, data, offsets, spec.rate, spec.first_round)
    states = np.empty((count, 25), dtype=np.uint64)

    def absorb_range(span: tuple[int, int]) -> None:
        start, stop = span
        rows = initial if initial.shape[0] == 1 else initial[start:stop]
        states[start:stop] = absorb_prefixes(
            rows, data, readonly(offsets[start : stop + 1]), spec.rate, spec.first_round
        )

    parallel.run_parallel(absorb_range, ranges, workers=threads)
    return states


WHOLE_FILE_BYTES = 1 << 24
"""The largest small work of files that a mode whose one-shot form takes a message whole
(TupleHash: a file is one string of the tuple) reads into memory; more goes to the kernels,
which read it in pieces."""

SMALL_FILE_PIECE = 1 << 20
"""Bytes per read of a file hashed by a mode's one-shot backend."""


class LazyState:
    """A mode's start state, computed with the kernels the first time it is read: the states
    ``base`` (None: the all-zero state; an array; or another ``LazyState``) reaches after
    absorbing each whole-block prefix of ``prefixes`` (:func:`prefix_states`).

    Building a hasher computes nothing, so small work that the one-shot backends take
    (:meth:`ModeHasher.small_work`) never loads the kernels."""

    def __init__(
        self,
        spec: Algorithm,
        prefixes: list[bytes],
        base: np.ndarray | LazyState | None = None,
        threads: int = 1,
    ) -> None:
        self.spec, self.prefixes, self.base, self.threads = spec, prefixes, base, threads

    @property
    def rows(self) -> int:
        """How many states it holds: one, or one per message of a batch."""
        return len(self.prefixes)

    def compute(self) -> np.ndarray:
        base = self.base
        if isinstance(base, LazyState):
            base = base.compute()
        states = prefix_states(
            self.spec, self.prefixes, ZERO_STATE if base is None else base, self.threads
        )
        return readonly(np.array(states, dtype=np.uint64, order="C", copy=True))


class LazyField:
    """A hasher's state slot read through :class:`LazyState`: computed on the first read,
    then stored in the slot. Setting it stores what it is given (an array or a
    ``LazyState``), as building, copying and unpickling a hasher do."""

    def __init__(self, slot) -> None:
        self.slot = slot  # the slot's own descriptor, from the class that declares it

    def __get__(self, instance: object, owner: type | None = None) -> np.ndarray:
        if instance is None:
            return self  # type: ignore[return-value]  # the class attribute itself
        value = self.slot.__get__(instance, owner)
        if isinstance(value, LazyState):
            value = value.compute()
            self.slot.__set__(instance, value)
        return value

    def __set__(self, instance: object, value: object) -> None:
        self.slot.__set__(instance, value)

    def raw(self, instance: object) -> np.ndarray | LazyState:
        """The stored value, computing nothing."""
        return self.slot.__get__(instance, type(instance))


class ModeHasher(Hasher):
    """A hasher of :data:`batchkeccak.derived.modes`: a sponge row with the mode's initial state
    and domain byte. Its repr names the mode, never a key or a state.

    Its start state may be a :class:`LazyState`, computed on first use. Where the mode has
    a one-shot form elsewhere (``oneshot_form``: cSHAKE, KMAC and TupleHash in pycryptodome,
    HMAC-SHA3 in ``hmac``), small work goes there by the sponges' dispatch rule
    (:func:`batchkeccak.core.dispatch.plan`, the backend family's measured costs), and the
    kernels are never loaded for it."""

    __slots__ = ("key_count", "mode", "oneshot_form")

    initial_state = LazyField(Hasher.__dict__["initial_state"])  # reads as the array

    oneshot_family: ClassVar[str] = "pycryptodome"
    """The backend family whose measured costs decide where small work goes."""

    oneshot_form: tuple | None
    """What :func:`batchkeccak.core.oneshot.mode_oneshot` makes the one-shot functions of;
    None where no backend has the function with these parameters."""

    per_message_fields: tuple[str, ...] = ("initial_state",)
    """The fields holding one row per message when the hasher has per-message keys."""

    mode: Mode
    key_count: int | None
    """The number of per-message keys (the batch must hold as many messages), or None."""

    def __init__(
        self,
        mode: Mode,
        spec: Algorithm,
        output_length: int,
        threads: int,
        initial_state: np.ndarray | LazyState | None = None,
        domain: int | None = None,
        **fields: object,
    ):
        """The sponge row of ``Hasher`` with ``mode``; ``fields`` sets the subclass's extra
        (immutable) fields, such as a trailer or the outer states of HMAC. ``initial_state``
        may be a :class:`LazyState`."""
        if isinstance(initial_state, LazyState):
            super().__init__(spec, output_length, threads, None, domain)
            object.__setattr__(self, "initial_state", initial_state)
        else:
            super().__init__(spec, output_length, threads, initial_state, domain)
        object.__setattr__(self, "mode", mode)
        object.__setattr__(self, "key_count", None)
        object.__setattr__(self, "oneshot_form", None)
        for name, value in fields.items():
            object.__setattr__(self, name, value)

    def fields(self) -> dict[str, object]:
        # A state not computed yet stays so in a copy or a pickle.
        fields: dict[str, object] = {}
        for name in all_slots(type(self)):
            attribute = getattr(type(self), name, None)
            if isinstance(attribute, LazyField):
                fields[name] = attribute.raw(self)
            else:
                fields[name] = getattr(self, name)
        return fields

    def make_executor(self) -> Executor:
        """The mode's one-shot form where it has one (never with one key per message), whose
        family's costs decide small work; else the sponge's backend, which applies only to a
        state from zeros: never one not computed."""
        form = self.oneshot_form if self.key_count is None else None
        if form is None and not isinstance(self.raw_initial_state, LazyState):
            return super().make_executor()
        return Executor(
            self.algorithm,
            self.domain,
            self.output_length,
            self.threads,
            family=None if form is None else self.oneshot_family,
            form=form,
            stands_in=self.plain_sponge,
        )

    @property
    def raw_initial_state(self) -> np.ndarray | LazyState:
        """The start state as stored: an array, or a :class:`LazyState` not computed yet."""
        return ModeHasher.__dict__["initial_state"].raw(self)

    @property
    def small_work_oneshot(self) -> bool:
        """Whether small work of this hasher may go to a one-shot backend of the mode."""
        return self.oneshot_form is not None

    def small_work(self, count: int, total_bytes: int, backend_threads: int = 1) -> bool:
        """Whether ``count`` messages of ``total_bytes`` in all go to the mode's one-shot
        backend (the dispatcher's rule, which books the work it gives it): never for a
        hasher with one key per message."""
        executor = self.executor
        return executor.form is not None and executor.small_work(
            count, total_bytes, backend_threads
        )

    def plan_small_files(self, count: int, total_bytes: int) -> bool:
        """Whether ``count`` files of ``total_bytes`` in all are small work for the mode's
        one-shot backend, each then hashed by :meth:`digest_small_file`."""
        if not self.small_work_oneshot:
            return False
        if self.oneshot_form is None:  # KT128: its sponge's backend family decides
            planned = plan_backend(self.algorithm, self.domain, count, total_bytes)
            return planned == ONESHOT
        if self.oneshot_form[0] == "tuplehash" and total_bytes > WHOLE_FILE_BYTES:
            return False
        return self.small_work(count, total_bytes)

    def digest_small_file(self, name: object) -> bytes:
        """One file of small work (:meth:`plan_small_files`), read in pieces by the one-shot
        backend (whole, for TupleHash); a tree mode's through its one-message form."""
        with open(name, "rb", buffering=0) as handle:  # type: ignore[call-overload]  # a path checked by the caller
            if self.oneshot_form is None:
                return cast("TreeHasher", self).hash_message(handle, "paths")
            one, start, finish = mode_oneshot(self.oneshot_form, self.output_length)
            if start is None:
                return one(handle.readall())
            stream = start()
            while piece := handle.read(SMALL_FILE_PIECE):
                stream.update(piece)
            return finish(stream)

    def _hash_small(self, data: np.ndarray, offsets: np.ndarray, out: np.ndarray | None):
        """The digests of small work through the mode's one-shot backend; None, having done
        nothing, where the kernels take the batch."""
        count = offsets.shape[0] - 1
        if self.oneshot_form is None or count == 0:
            return None
        # Decided on the ends alone: the copy of every offset (tens of ms for a million
        # messages) is taken only for the work that goes to the one-shot backend.
        if not self.small_work(count, int(offsets[count]) - int(offsets[0])):
            return None
        bounds = offsets.tolist()  # a copy: what is checked is what is read
        view = data.data.cast("B")
        if bounds[0] < 0 or bounds[-1] > len(view) or any(map(int.__gt__, bounds, bounds[1:])):
            raise ValueError("hash_flat: a message's offsets leave the data buffer")
        if out is None:
            out = np.empty((count, self.output_length), dtype=np.uint8)
        if self.output_length:
            one = self.executor.digest()
            joined = b"".join(one(view[a:b]) for a, b in itertools.pairwise(bounds))
            out[:] = np.frombuffer(joined, dtype=np.uint8).reshape(out.shape)
        return out

    def hash_one(self, message: object) -> bytes:
        if self.oneshot_form is not None and self.output_length:
            data, offsets = single_message(message)
            if self.small_work(1, int(offsets[1])):
                return self.executor.digest()(data.data)
        return super().hash_one(message)

    @property
    def batch_size(self) -> int | None:
        """N for a hasher built with one key per message (its batches hold N messages)."""
        if self.key_count is not None:
            return self.key_count
        state = self.raw_initial_state
        rows = state.rows if isinstance(state, LazyState) else state.shape[0]
        return None if rows == 1 else rows

    @property
    def name(self) -> str:
        """The mode's name, as in ``batchkeccak.derived.modes``."""
        return self.mode.name

    @property
    def free_length(self) -> bool:
        """SP 800-185's XOF forms, cSHAKE and KangarooTwelve: the output length is not part of
        the input, so one state can be read at any length."""
        return self.mode.xof or self.mode.family in ("cshake", "kangarootwelve")

    def sponge_hasher(
        self,
        initial_state: np.ndarray | None = None,
        domain: int | None = None,
        threads: int | None = None,
        output_length: int | None = None,
    ) -> Hasher:
        """A plain :class:`Hasher` of this mode's sponge, output length and state (or the
        given ones): the layer below, without the mode's framing."""
        return restore(
            Hasher,
            {
                "algorithm": self.algorithm,
                "output_length": self.output_length if output_length is None else output_length,
                "threads": self.threads if threads is None else threads,
                "initial_state": self.initial_state if initial_state is None else initial_state,
                "domain": self.domain if domain is None else domain,
            },
        )


class TreeHasher(ModeHasher):
    """A tree mode (KangarooTwelve, ParallelHash): a message is cut into chunks hashed apart,
    so it has no one-pass form; :meth:`incremental` is its own."""

    __slots__ = ()

    plain_sponge = False

    if TYPE_CHECKING:
        # Each tree mode's own: one message, bytes-like, a path or a binary file object.
        def hash_message(
            self,
            data: object,
            argument: str = ...,
            piece_bytes: int = ...,
        ) -> bytes: ...

    def hash_list(self, messages: list[bytes]) -> np.ndarray | None:
        """A few messages of which some are long ``bytes`` (:data:`TREE_IN_PLACE_BYTES` and
        more): each long one is hashed where it lies, its leaves filling the tiles on their
        own (as ``bk.kt128`` does), the others as one batch; None for any other list (the
        batch path, after a copy into one buffer)."""
        if len(messages) > TREE_LIST_MAX:
            return None
        long = []
        for i, message in enumerate(messages):
            if type(message) is not bytes:
                return None
            if len(message) >= TREE_IN_PLACE_BYTES:
                long.append(i)
        if not long:
            return None
        in_place = getattr(self, "hash_places", None)
        if in_place is not None:
            # Every message long (KT128): their leaves share one queue, read where they lie.
            from batchkeccak.inputs._pylist import bytes_places  # the compiled reader

            places = bytes_places(messages)
            digests = None if places is None else in_place(*places)
            if digests is not None:
                return digests
        out = np.empty((len(messages), self.output_length), dtype=np.uint8)
        for i in long:
            out[i] = np.frombuffer(self.hash_message(messages[i], f"messages[{i}]"), np.uint8)
        taken = set(long)
        rest = [i for i in range(len(messages)) if i not in taken]
        if rest:
            data, offsets = sequence_to_flat([messages[i] for i in rest])
            out[rest] = self.hash_flat(data, offsets)
        return out

    def one_pass(self) -> OnePass:
        raise TypeError(
            f"{self.name} is a tree mode: its streams cannot share stored sponge states; hash "
            f"each stream with batchkeccak.new({self.name!r}, ...) or files with hash_files"
        )


def hash_leaves(
    leaf: Hasher, data: np.ndarray, offsets: np.ndarray, order: np.ndarray
) -> np.ndarray:
    """The tree modes' leaves of many messages, read where they lie, sharing the tiles.

    ``offsets`` (N + 1, Arrow's layout, read-only int64) cut ``data`` into items; the items
    ``order`` lists (read-only int64, in buffer order) are leaves, hashed with ``leaf``'s
    sponge from the all-zero state and its domain byte; the others (what lies between the
    leaves of two messages) are never read. Returns ``(N, leaf.output_length)``: the rows of
    the queued items are the chaining values, the other rows are left unset. The queue is
    split over ``leaf.threads``; each range is one call of the lane scheduler, so the
    leaves of several messages share its tiles.
    """
    from batchkeccak.sponge import run_jobs

    spec = leaf.algorithm
    out = np.empty((offsets.shape[0] - 1, leaf.output_length), dtype=np.uint8)
    jobs = order.shape[0]
    if jobs == 0:
        return out
    leaf_bytes = int(offsets[order[0] + 1] - offsets[order[0]])
    permutations = jobs * (1 + leaf_bytes // spec.rate)
    threads = max(1, min(leaf.threads, permutations // parallel.MIN_PERMUTATIONS_PER_THREAD))
    initial = readonly(leaf.initial_state)

    def hash_range(span: tuple[int, int]) -> None:
        start, stop = span
        run_jobs(
            data,
            offsets,
            None,
            readonly(order[start:stop]),
            None,
            initial,
            None,
            spec.rate,
            leaf.domain,
            spec.first_round,
            out,
        )

    parallel.run_parallel(hash_range, parallel.chunk_ranges(jobs, threads), workers=threads)
    return out


class FramedHasher(ModeHasher):
    """A mode whose every message is framed before it is hashed: ``m || trailer`` (KMAC's
    ``right_encode(L)``), or ``encode_string(m) || trailer`` (a one-string TupleHash)."""

    __slots__ = ("length_prefix", "trailer")

    plain_sponge = False

    trailer: bytes
    length_prefix: bool

    def one_pass(self) -> OnePass:
        if self.length_prefix:
            raise TypeError(
                f"{self.name} cannot be hashed incrementally: each string's length comes "
                "before it; hash whole messages with hash_many or tuplehash_many"
            )
        return OnePass(self.initial_state, self.domain, trailer=self.trailer)

    def hash_flat(self, data, offsets, *, out=None, equal_lengths=False):
        count = offsets.shape[0] - 1
        self.check_batch(count)
        small = self._hash_small(data, offsets, out)
        if small is not None:
            return small
        if (
            count > 0
            and int(offsets[count] - offsets[0]) >= count * IN_PLACE_BYTES
            and int(np.diff(offsets).min()) >= IN_PLACE_BYTES
        ):
            return self._hash_in_place(data, offsets[:-1], offsets[1:], out)
        prefix = self._framing_in_state(offsets, equal_lengths)
        if prefix is not None:
            return self._hash_short_in_place(data, offsets, out, prefix)
        from batchkeccak.derived._layout import frame_messages  # compiled: loaded on use

        framed_data, framed_offsets = frame_messages(
            data, offsets, self.trailer, self.length_prefix
        )
        return self.sponge_hasher().hash_flat(
            framed_data, framed_offsets, out=out, equal_lengths=equal_lengths
        )

    def _framing_in_state(self, offsets: np.ndarray, equal_lengths: bool) -> bytes | None:
        """The length prefix (``b""`` without one) when the batch is equal single-block
        messages, each framed the same way, all from one start state: then the prefix and
        the trailer are XORed into that state once and the messages are read in place
        (``hash_uniform``'s ``shift`` and ``trailer``); else
        None."""
        count = offsets.shape[0] - 1
        if self.initial_state.shape[0] != 1 or count < TILE_WIDTH:
            return None
        length = int(offsets[1] - offsets[0])
        prefix = left_encode(8 * length) if self.length_prefix else b""
        rate = self.algorithm.rate
        if len(prefix) + length + len(self.trailer) >= rate or self.output_length > rate:
            return None
        if equal_lengths:
            return prefix
        if int(offsets[count] - offsets[0]) != length * count:
            return None
        return prefix if bool(np.all(np.diff(offsets) == length)) else None

    def _short_start(self, length: int, prefix: bytes) -> np.ndarray:
        """The start state of equal rows of ``length`` bytes that fit one block with their
        framing: the mode's state with ``prefix`` XORed into bytes ``0..`` and the trailer
        into the bytes after the row; read-only ``(1, 25)``."""
        shift = len(prefix)
        trailer = np.frombuffer(self.trailer, dtype=np.uint8)
        start = np.array(self.initial_state, dtype=np.uint64).reshape(1, 25)
        block = start.view(np.uint8).reshape(-1)
        block[:shift] ^= np.frombuffer(prefix, dtype=np.uint8)
        block[shift + length : shift + length + trailer.shape[0]] ^= trailer
        return readonly(start)

    def _uniform_rows(self, data, first, count, length, prefix, start, out) -> None:
        """``count`` rows of ``length`` bytes from ``data[first:]`` into ``out``, in one
        kernel call on the calling thread (``start``: :meth:`_short_start`)."""
        from batchkeccak.sponge import hash_uniform

        spec = self.algorithm
        hash_uniform(
            data,
            first,
            count,
            length,
            start,
            spec.rate,
            self.domain,
            spec.first_round,
            out,
            len(prefix),
            len(self.trailer),
        )

    def _hash_short_in_place(self, data, offsets, out, prefix=b""):
        count = offsets.shape[0] - 1
        length = int(offsets[1] - offsets[0])
        start = self._short_start(length, prefix)
        if out is None:
            out = np.empty((count, self.output_length), dtype=np.uint8)
        # One permutation a message: threads as Hasher.hash_flat would start for them.
        threads = max(1, min(self.threads, count // parallel.MIN_PERMUTATIONS_PER_THREAD))

        def hash_range(span: tuple[int, int]) -> None:
            first, stop = span
            self._uniform_rows(
                data, offsets[first], stop - first, length, prefix, start, out[first:stop]
            )

        parallel.run_parallel(hash_range, parallel.chunk_ranges(count, threads), workers=threads)
        return out

    def one_call(self) -> Callable[[np.ndarray, np.ndarray, np.ndarray], None] | None:
        """The batch function ``(data, offsets, out)`` of :meth:`Hasher.one_call
        <batchkeccak.core.hashers.Hasher.one_call>` for engines that call once per vector
        (DuckDB): the offsets copied and checked, and equal rows that fit one block with
        their framing hashed, in one compiled call on the calling thread
        (``hash_framed_offsets``); small work and any other batch go through
        :meth:`hash_flat`, from the checked copy. None with one key per message."""
        if self.batch_size is not None:
            return None
        from batchkeccak.derived._kernels import hash_framed_offsets

        spec = self.algorithm
        initial = readonly(self.initial_state)
        trailer = readonly(np.frombuffer(self.trailer, dtype=np.uint8))
        length_prefix = bool(self.length_prefix)

        def hash_batch(data: np.ndarray, offsets: np.ndarray, out: np.ndarray) -> None:
            if self._hash_small(data, offsets, out) is not None:
                return
            own = np.empty(offsets.shape[0], dtype=np.int64)
            if not hash_framed_offsets(
                data,
                offsets,
                own,
                initial,
                length_prefix,
                trailer,
                spec.rate,
                self.domain,
                spec.first_round,
                out,
            ):
                self.hash_flat(data, readonly(own), out=out)

        return hash_batch

    def hash_places(
        self, data: np.ndarray, starts: np.ndarray, ends: np.ndarray
    ) -> np.ndarray | None:
        """The digests of messages ``data[starts[i]:ends[i]]`` read where they lie (a list's
        ``bytes`` objects: ``batchkeccak.inputs._pylist.bytes_places``) when every one is
        long enough to be hashed in place (:data:`IN_PLACE_BYTES`), as a flat batch of
        such messages is; None, having done nothing, for any other batch (the caller lays
        it out flat)."""
        count = starts.shape[0]
        if count == 0 or ends.shape != (count,) or self.batch_size is not None:
            return None
        lengths = ends - starts
        if int(lengths.min()) < IN_PLACE_BYTES or int(starts.min()) < 0:
            return None
        if int(ends.max()) > data.shape[0]:
            raise ValueError("hash_places: a message leaves the data buffer")
        self.check_batch(count)
        return self._hash_in_place(data, starts, ends, None)

    def _hash_in_place(self, data, starts, ends, out):
        """Long messages ``data[starts[i]:ends[i]]``: their whole blocks absorbed where they
        lie, in the tile's lanes from the mode's stored state; only each message's last
        partial block is framed.

        A length prefix (TupleHash's ``left_encode``) shifts a message against the blocks,
        so each message's first block (prefix and first bytes) is absorbed on its own
        first, and its other blocks are read in place from there.
        """
        spec = self.algorithm
        rate = spec.rate
        starts = starts.astype(np.int64)
        count = starts.shape[0]
        lengths = ends.astype(np.int64) - starts
        initial = self.initial_state
        if self.length_prefix:
            firsts, taken = [], []
            for start, length in zip(starts.tolist(), lengths.tolist(), strict=True):
                head = left_encode(8 * length)
                taken.append(rate - len(head))
                firsts.append(head + data[start : start + taken[-1]].tobytes())
            skip = np.array(taken, dtype=np.int64)
            states = prefix_states(spec, firsts, initial, self.threads)
        else:
            skip = np.zeros(count, dtype=np.int64)
            states = initial
        whole = (lengths - skip) // rate * rate
        body = starts + skip
        stored = StoredStates(spec, count, states)
        stored.run(data, body, body + whole, np.arange(count), None, whole // rate, self.threads)
        tails = [
            data[a:b].tobytes() + self.trailer
            for a, b in zip((body + whole).tolist(), ends.tolist(), strict=True)
        ]
        tail_data, tail_offsets = sequence_to_flat(tails, argument="data")
        return self.sponge_hasher(initial_state=readonly(stored.lanes), threads=1).hash_flat(
            tail_data, tail_offsets, out=out
        )


class _HmacSlots(ModeHasher):
    __slots__ = ("outer_state",)

    plain_sponge = False


class HmacHasher(_HmacSlots):
    """HMAC (FIPS 198-1) over a SHA-3 row: the inner hash from the state ``K0 ^ ipad`` leaves,
    the outer hash of the inner digests from the state ``K0 ^ opad`` leaves (both may be
    :class:`LazyState`). Small work with one key goes to ``hmac`` with hashlib's SHA-3."""

    __slots__ = ()

    plain_sponge = False

    oneshot_family = "hashlib"

    per_message_fields = ("initial_state", "outer_state")

    outer_state = LazyField(_HmacSlots.__dict__["outer_state"])

    def one_pass(self) -> OnePass:
        if self.batch_size is not None:
            raise ValueError(
                f"{self.name}: this hasher holds {self.batch_size} keys, one per message of "
                "a batch; an incremental hash takes one key"
            )
        return OnePass(
            self.initial_state, self.domain, outer=self.sponge_hasher(self.outer_state, threads=1)
        )

    def hash_flat(self, data, offsets, *, out=None, equal_lengths=False):
        self.check_batch(offsets.shape[0] - 1)
        small = self._hash_small(data, offsets, out)
        if small is not None:
            return small
        inner = self.sponge_hasher().hash_flat(data, offsets, equal_lengths=equal_lengths)
        return self.sponge_hasher(self.outer_state).hash_rows(inner, out=out)

    def hash_places(
        self, data: np.ndarray, starts: np.ndarray, ends: np.ndarray
    ) -> np.ndarray | None:
        """The digests of messages ``data[starts[i]:ends[i]]`` read where they lie (a list's
        ``bytes`` objects): the inner hash as a plain sponge's
        (:func:`~batchkeccak.core.hashers.hash_places`), then the outer hash of the inner
        digests; None, having done nothing, with one key per message."""
        if self.batch_size is not None:
            return None
        inner = hash_places(self.sponge_hasher(), data, starts, ends)
        if inner is None:
            return None
        return self.sponge_hasher(self.outer_state).hash_rows(inner)


def messages_between(resolved: Hasher, start: int, stop: int) -> Hasher:
    """The hasher of messages ``start..stop`` of a batch that ``resolved`` holds one key (or
    initial state) per message for: what hashes one chunk of a column with its own rows' keys.
    """
    fields = resolved.fields()
    for name in getattr(type(resolved), "per_message_fields", ("initial_state",)):
        rows = cast("np.ndarray", getattr(resolved, name))  # computed, if it was not yet
        fields[name] = readonly(np.ascontiguousarray(rows[start:stop]))
    if fields.get("key_count") is not None:
        fields["key_count"] = stop - start
    return restore(type(resolved), fields)


def hash_chunks(
    resolved: Hasher,
    chunks: Iterable,
    hash_chunk: Callable,
    mismatch: Callable[[str | int], Exception],
) -> list:
    """``hash_chunk(chunk, hasher)`` for each chunk of a column that comes in pieces, in order.

    Where ``resolved`` holds one key (or initial state) per message, these run across the
    chunks: each chunk gets the hasher of its own rows (:func:`messages_between`), and
    ``mismatch(rows)`` is raised as soon as the rows outnumber the keys, or at the end
    where they are fewer.
    """
    per_message = resolved.batch_size
    parts, start = [], 0
    for chunk in chunks:
        stop = start + len(chunk)
        if per_message is not None and stop > per_message:
            raise mismatch(f"more than {per_message}")
        chunk_hasher = resolved if per_message is None else messages_between(resolved, start, stop)
        parts.append(hash_chunk(chunk, chunk_hasher))
        start = stop
    if per_message is not None and start != per_message:
        raise mismatch(start)
    return parts
