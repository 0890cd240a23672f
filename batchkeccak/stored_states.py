"""Stored sponge states: many states absorbed side by side, and one state fed incrementally.

:class:`StoredStates` keeps ``count`` states with their waiting bytes and absorbs whole blocks
of many of them together through the tile kernel (``batchkeccak.sponge_states``); the
streams, the files and the tree modes keep their states here. :class:`IncrementalSponge` is
one such state fed bytes of any length, what a hash object or a chunk that arrives in
pieces needs.
"""

from __future__ import annotations

import itertools

import numpy as np

from batchkeccak import _parallel
from batchkeccak.inputs import readonly as _readonly
from batchkeccak.parameters import Algorithm, get_algorithm
from batchkeccak.permutation import LANE_COUNT
from batchkeccak.sponge_states import absorb_jobs, finish_states

_EMPTY = _readonly(np.zeros(0, dtype=np.uint8))
MIN_BLOCKS_PER_THREAD = 2048
"""Below this many blocks for each extra thread, starting it costs more than it saves."""


def as_array(view: memoryview) -> np.ndarray:
    return _readonly(np.frombuffer(view, dtype=np.uint8)) if view.nbytes else _EMPTY


class StoredStates:
    """``count`` stored sponge states of one algorithm, with their waiting bytes.

    ``lanes[s]`` is state ``s`` (25 lanes, ``batchkeccak.sponge_states``' layout);
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
        self, data: np.ndarray, job_state: np.ndarray, job_start: np.ndarray,
        job_blocks: np.ndarray, threads: int = 1,
    ) -> None:
        """Whole blocks of ``data`` into the states (one job per state at most)."""
        count = job_state.shape[0]
        if count == 0:
            return
        total = int(job_blocks.sum())
        threads = max(1, min(threads, count, total // MIN_BLOCKS_PER_THREAD))
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

    def finish(self, which: np.ndarray, out_len: int, domain: int | None = None) -> np.ndarray:
        """Digests of ``out_len`` bytes of the states ``which`` (the states stay as they are),
        padded with ``domain`` (the row's own domain byte by default)."""
        out = np.empty((which.shape[0], out_len), dtype=np.uint8)
        if out_len == 0:
            return out
        finish_states(
            self.lanes, _readonly(self.pending), _readonly(self.pending_len), _readonly(which),
            self.rate, self.spec.suffix if domain is None else domain, self.first_round, out,
        )
        return out


def _one_job(blocks: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(state, start, blocks) arrays of one job: state 0, from byte 0 of the buffer."""
    return _ZERO, _ZERO, np.array([blocks], dtype=np.int64)


_ZERO = _readonly(np.zeros(1, dtype=np.int64))


class IncrementalSponge:
    """One sponge state of ``spec`` fed bytes of any length: whole blocks are absorbed as they
    complete, the rest waits (fewer than ``rate`` bytes). Not thread-safe: its owner locks.

    ``initial`` is the start state (a mode's key or prefix absorbed; zeros by default) and
    ``domain`` the byte that starts the padding (the row's own by default).
    """

    __slots__ = ("_buffer", "_states", "domain", "spec")

    def __init__(self, spec: Algorithm, initial: np.ndarray | None = None,
                 domain: int | None = None) -> None:
        self.spec = spec
        self.domain = spec.suffix if domain is None else domain
        self._states = StoredStates(spec, 1, initial)
        self._buffer = bytearray()

    def absorb(self, view: memoryview) -> None:
        """Append ``view``'s bytes to the message."""
        rate = self.spec.rate
        buffered = len(self._buffer)
        if buffered + view.nbytes < rate:
            self._buffer += view
            return
        states = self._states
        if buffered:
            # Complete the waiting block first; the rest is then read where it lies.
            taken = rate - buffered
            self._buffer += view[:taken]
            states.absorb(as_array(memoryview(bytes(self._buffer))), *_one_job(1))
            view = view[taken:]
        whole = view.nbytes // rate
        if whole:
            states.absorb(as_array(view), *_one_job(whole))
        self._buffer = bytearray(view[whole * rate :])

    def finish(self, out_len: int) -> bytes:
        """Pad what was absorbed and squeeze ``out_len`` bytes; the state stays as it was."""
        states = self._states
        states.pending[0, : len(self._buffer)] = np.frombuffer(bytes(self._buffer), np.uint8)
        states.pending_len[0] = len(self._buffer)
        return states.finish(_ZERO, out_len, self.domain).tobytes()

    def copy(self) -> IncrementalSponge:
        """An independent copy."""
        clone = IncrementalSponge(self.spec, self._states.lanes, self.domain)
        clone._buffer = bytearray(self._buffer)
        return clone

    def __getstate__(self) -> tuple[str, int, bytes, bytes]:
        return self.spec.name, self.domain, self._states.lanes.tobytes(), bytes(self._buffer)

    def __setstate__(self, state: tuple[str, int, bytes, bytes]) -> None:
        name, domain, lanes, waiting = state
        self.__init__(get_algorithm(name), np.frombuffer(lanes, dtype=np.uint64), domain)
        self._buffer = bytearray(waiting)
