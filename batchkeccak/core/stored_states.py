"""Stored sponge states: many states absorbed side by side, and one state fed incrementally.

:class:`StoredStates` keeps ``count`` states with their waiting bytes and absorbs whole blocks
of many of them together through the tile kernel (``batchkeccak.sponge``); the
streams, the files and the tree modes keep their states here. :class:`IncrementalSponge` is
one such state fed bytes of any length, what a hash object or a chunk that arrives in
pieces needs.
"""

from __future__ import annotations

import numpy as np

from batchkeccak.core import parallel
from batchkeccak.core.dispatch import ONESHOT, plan
from batchkeccak.core.oneshot import oneshot_digest
from batchkeccak.core.parameters import Algorithm, get_algorithm
from batchkeccak.inputs import readonly as _readonly
from batchkeccak.permutation import LANE_COUNT

_EMPTY = _readonly(np.zeros(0, dtype=np.uint8))
MIN_BLOCKS_PER_THREAD = 2048
"""Below this many blocks for each extra thread, starting it costs more than it saves."""


def as_array(view: bytes | memoryview) -> np.ndarray:
    """A read-only uint8 array over ``view``'s bytes (no copy)."""
    return _readonly(np.frombuffer(view, dtype=np.uint8)) if len(view) else _EMPTY


class StoredStates:
    """``count`` stored sponge states of one algorithm, with their waiting bytes.

    ``lanes[s]`` is state ``s`` (25 lanes, ``batchkeccak.sponge``' layout);
    ``pending[s, :pending_len[s]]`` are its bytes not yet absorbed (fewer than ``rate``).
    The stream objects and ``batchkeccak.files`` keep their states here.
    """

    def __init__(self, spec: Algorithm, count: int, initial: np.ndarray | None = None) -> None:
        self.spec = spec
        self.rate = spec.rate
        self.first_round = 24 - spec.rounds
        self.lanes = np.zeros((count, LANE_COUNT), dtype=np.uint64)
        if initial is not None:
            self.lanes[:] = initial  # a mode's start state (a key or prefix absorbed)
        self.pending = np.zeros((count, spec.rate), dtype=np.uint8)
        self.pending_len = np.zeros(count, dtype=np.int64)

    def absorb(
        self,
        data: np.ndarray,
        job_state: np.ndarray,
        job_start: np.ndarray,
        job_blocks: np.ndarray,
        threads: int = 1,
    ) -> None:
        """Whole blocks of ``data`` into the states (one job per state at most)."""
        count = job_state.shape[0]
        if count == 0:
            return
        # One item per state, indexed by the state (run_jobs' rows are its items).
        starts = np.zeros(self.lanes.shape[0], dtype=np.int64)
        ends = np.zeros(self.lanes.shape[0], dtype=np.int64)
        starts[job_state] = job_start
        ends[job_state] = job_start + job_blocks * self.rate
        self.run(_readonly(data), starts, ends, job_state, None, job_blocks, threads)

    def run(
        self,
        data: np.ndarray,
        starts: np.ndarray,
        ends: np.ndarray,
        heads: np.ndarray,
        follow: np.ndarray | None,
        blocks: np.ndarray,
        threads: int,
    ) -> None:
        """``batchkeccak.sponge.run_jobs`` on the states ``heads``, their items kept (the
        states' whole blocks), spread over up to ``threads`` threads by ``blocks``, each
        head's blocks in all."""
        from batchkeccak.sponge import NO_DIGESTS, NO_FOLLOW, run_jobs

        count = heads.shape[0]
        total = int(blocks.sum())
        threads = max(1, min(threads, count, total // MIN_BLOCKS_PER_THREAD))
        starts, ends, heads = map(_readonly, (starts, ends, heads))
        follow = NO_FOLLOW if follow is None else _readonly(follow)
        lanes = self.lanes
        initial = _readonly(lanes)

        def run(span: tuple[int, int]) -> None:
            a, b = span
            run_jobs(
                data,
                starts,
                ends,
                heads[a:b],
                follow,
                initial,
                lanes,
                self.rate,
                0,
                self.first_round,
                NO_DIGESTS,
            )

        if threads == 1:
            run((0, count))
            return
        # Contiguous runs of jobs holding about equal numbers of blocks, a few per thread.
        spans = parallel.split_ranges(0, count, 4 * threads, weights=blocks)
        parallel.run_parallel(run, spans, workers=threads)

    def finish(
        self, which: np.ndarray, out_len: int, domain: int | None = None, trailer: bytes = b""
    ) -> np.ndarray:
        """Digests of ``out_len`` bytes of the states ``which`` (the states stay as they are),
        each message followed by ``trailer`` (a mode's framing, KMAC's ``right_encode(L)``)
        and padded with ``domain`` (the row's own domain byte by default)."""
        from batchkeccak.sponge import finish_states

        out = np.empty((which.shape[0], out_len), dtype=np.uint8)
        if out_len == 0:
            return out
        lanes, pending, pending_len = self.lanes, self.pending, self.pending_len
        if trailer:
            # The waiting bytes and the trailer, in copies of the states: a block they fill
            # is absorbed there, what is left waits for the final block.
            lanes, pending = lanes[which], np.zeros((which.shape[0], self.rate), np.uint8)
            pending_len = np.zeros(which.shape[0], dtype=np.int64)
            absorb = _state_absorb()
            for row, state in enumerate(which.tolist()):
                waiting = self.pending[state, : self.pending_len[state]].tobytes() + trailer
                whole = len(waiting) // self.rate * self.rate
                if whole:
                    blocks = as_array(waiting[:whole])
                    rate_words = self.rate >> 3
                    absorb(lanes[row], blocks, 0, whole // self.rate, rate_words, self.first_round)
                rest = waiting[whole:]
                pending[row, : len(rest)] = np.frombuffer(rest, dtype=np.uint8)
                pending_len[row] = len(rest)
            which = np.arange(which.shape[0], dtype=np.int64)
        finish_states(
            lanes,
            _readonly(pending),
            _readonly(pending_len),
            _readonly(which),
            self.rate,
            self.spec.suffix if domain is None else domain,
            self.first_round,
            out,
        )
        return out


def _state_absorb():
    from batchkeccak.permutation._kernels import state_absorb

    return state_absorb


_ZERO = _readonly(np.zeros(1, dtype=np.int64))


class IncrementalSponge:
    """One sponge state of ``spec`` fed bytes of any length. Not thread-safe: its owner locks.

    ``initial`` is the start state (a mode's key or prefix absorbed; zeros by default) and
    ``domain`` the byte that starts the padding (the row's own by default).

    Bytes wait in a buffer until ``BUFFER_BYTES`` have come, then all their whole blocks go
    through the kernel in one call: a call costs microseconds, so absorbing each small update
    on its own would cost many times what hashlib spends on it. A message that never fills
    the buffer is finished by hashlib or pycryptodome where they have the function
    (:mod:`batchkeccak.core.oneshot`), so a short one never waits for the kernels to load.
    """

    __slots__ = ("_fresh", "_lanes", "_states", "domain", "spec", "waiting")

    BUFFER_BYTES = 1 << 14

    def __init__(
        self, spec: Algorithm, initial: np.ndarray | None = None, domain: int | None = None
    ) -> None:
        self.spec = spec
        self.domain = spec.suffix if domain is None else domain
        self._states = StoredStates(spec, 1, initial)
        self._lanes = self._states.lanes[0]
        # Bytes not yet absorbed: the same bytearray for the object's whole life. A hash
        # object appends small updates to it directly, without its lock (one append is one
        # C call, whole under the GIL); so this class only ever takes a prefix from it, puts
        # bytes back at its front, and reads it through copies, never through an export.
        self.waiting = bytearray()
        # True while the state is all zeros: the one-shot backends start from there.
        self._fresh = initial is None or not np.any(initial)

    def absorb(self, data: bytes | memoryview) -> None:
        """Append ``data``'s bytes (``bytes`` or a 1-D byte ``memoryview``) to the message."""
        waiting = self.waiting
        if len(waiting) + len(data) < self.BUFFER_BYTES:
            waiting += data
            return
        rate = self.spec.rate
        head = bytes(waiting)
        del waiting[: len(head)]  # bytes appended meanwhile stay: they come after data
        if len(data) < self.BUFFER_BYTES:
            # A copy of a few KiB costs less than a second kernel call.
            head += data
            whole = len(head) // rate * rate
            if whole:
                self._absorb_blocks(as_array(head), whole)
            waiting[0:0] = head[whole:]
            return
        # Complete head's last block from data, absorb head's whole blocks, then data's
        # whole blocks where they lie; what is left goes back in front of waiting.
        taken = -len(head) % rate
        view = memoryview(data)
        head += view[:taken]
        if head:
            self._absorb_blocks(as_array(head), len(head))
        array = as_array(view[taken:])
        whole = len(array) // rate * rate
        if whole:
            self._absorb_blocks(array, whole)
        waiting[0:0] = array[whole:].tobytes()

    def _absorb_blocks(self, blocks: np.ndarray, size: int) -> None:
        """Absorb ``blocks[:size]`` (read-only; ``size`` a multiple of the rate)."""
        rate = self.spec.rate
        # One state: the kernel that keeps it in registers, called with no job arrays.
        _state_absorb()(self._lanes, blocks, 0, size // rate, rate >> 3, self._states.first_round)
        self._fresh = False

    def finish(self, out_len: int) -> bytes:
        """Pad what was absorbed and squeeze ``out_len`` bytes; the state stays as it was."""
        waiting = bytes(self.waiting)
        if self._fresh and plan(self.spec, self.domain, 1, len(waiting)) == ONESHOT:
            return oneshot_digest(  # type: ignore[return-value]  # the one-shot plan is given only where the backend has the function: never None
                self.spec, self.domain, waiting, out_len
            )
        rate = self.spec.rate
        if len(waiting) >= rate:
            # Whole blocks still wait: absorb them into a copy, keep this state as it is.
            whole = len(waiting) // rate * rate
            clone = IncrementalSponge(self.spec, self._states.lanes, self.domain)
            clone._absorb_blocks(as_array(waiting), whole)
            clone.waiting += waiting[whole:]
            return clone.finish(out_len)
        states = self._states
        states.pending[0, : len(waiting)] = np.frombuffer(waiting, np.uint8)
        states.pending_len[0] = len(waiting)
        return states.finish(_ZERO, out_len, self.domain).tobytes()

    def copy(self) -> IncrementalSponge:
        """An independent copy."""
        clone = IncrementalSponge(self.spec, self._states.lanes, self.domain)
        clone.waiting += self.waiting
        clone._fresh = self._fresh
        return clone

    def __getstate__(self) -> tuple[str, int, bytes, bytes]:
        return self.spec.name, self.domain, self._states.lanes.tobytes(), bytes(self.waiting)

    def __setstate__(self, state: tuple[str, int, bytes, bytes]) -> None:
        name, domain, lanes, waiting = state
        IncrementalSponge.__init__(
            self, get_algorithm(name), np.frombuffer(lanes, dtype=np.uint64), domain
        )
        self.waiting += waiting
