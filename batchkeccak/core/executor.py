"""How a batch runs: the one place that decides, for one hash function, which backend hashes
a batch (the kernels, or hashlib / pycryptodome one message at a time), on how many threads,
and how many bytes small work may hold.

An :class:`Executor` is built from a hasher's fields (the row, domain byte, output length,
threads) and a description of the one-shot backend that computes the hasher's function,
never from the hasher itself: :class:`~batchkeccak.core.hashers.Hasher` is what a function
*is*, and asks its executor (:attr:`Hasher.executor <batchkeccak.core.hashers.Hasher.executor>`,
built once per hasher) how each batch runs. A mode with a one-shot form of its own (cSHAKE,
KMAC and TupleHash in pycryptodome, HMAC-SHA3 in ``hmac``) supplies it here, as ``family`` and
``form``; nothing else about a mode is the executor's business.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable

import numpy as np

from batchkeccak.core import parallel
from batchkeccak.core.dispatch import KERNELS, ONESHOT, kernels_loaded, oneshot_bytes
from batchkeccak.core.dispatch import plan as plan_backend
from batchkeccak.core.oneshot import mode_oneshot, oneshot_function
from batchkeccak.core.parameters import Algorithm
from batchkeccak.inputs import readonly


class Executor:
    """How the batches of one hash function run: immutable, shared by every thread.

    Attributes
    ----------
    algorithm, domain, output_length, threads
        The hasher's fields: its table row, domain byte, bytes of output per message and the
        threads a batch is spread over.
    family
        The backend family (``"hashlib"`` or ``"pycryptodome"``) whose measured costs decide
        where small work goes (:func:`batchkeccak.core.dispatch.plan`); None where no one-shot
        backend computes the function.
    form
        None: the backend computes the row's own sponge from the all-zero state with
        ``domain`` (:func:`~batchkeccak.core.oneshot.oneshot_function`); else a mode's form,
        for :func:`~batchkeccak.core.oneshot.mode_oneshot`.
    stands_in
        Whether the backend computes what the kernels' batch path computes for each message
        as given (the hasher is a plain sponge): only then may :meth:`plan` answer
        :data:`ONESHOT`. A mode that frames its messages asks :meth:`small_work` from its own
        ``hash_flat``.
    """

    __slots__ = (
        "_digest",
        "algorithm",
        "domain",
        "family",
        "form",
        "output_length",
        "stands_in",
        "threads",
    )

    algorithm: Algorithm
    domain: int
    output_length: int
    threads: int
    family: str | None
    form: tuple | None
    stands_in: bool

    def __init__(
        self,
        algorithm: Algorithm,
        domain: int,
        output_length: int,
        threads: int,
        family: str | None = None,
        form: tuple | None = None,
        stands_in: bool = True,
    ) -> None:
        self.algorithm, self.domain = algorithm, domain
        self.output_length, self.threads = output_length, threads
        self.family, self.form, self.stands_in = family, form, stands_in
        self._digest: Callable | None = None

    def __repr__(self) -> str:
        return (
            f"Executor({self.algorithm.name!r}, domain={self.domain:#04x}, "
            f"output_length={self.output_length}, threads={self.threads}, "
            f"family={self.family!r}, stands_in={self.stands_in})"
        )

    @property
    def oneshot_backend(self) -> bool:
        """Whether hashlib or pycryptodome computes the row's own function for every message
        as the batch path would (a plain sponge from the all-zero state, with a domain byte
        they take): what the byte budget, lists and files read without the kernels ask."""
        return self.stands_in and self.form is None and self.family is not None

    # -- the decisions -------------------------------------------------------------------------

    def plan(self, count: int, total_bytes: int, backend_threads: int = 1) -> str:
        """Which backend hashes ``count`` messages of ``total_bytes`` in all for the batch path:
        :data:`ONESHOT` (hashlib or pycryptodome, one message at a time) or :data:`KERNELS`.

        The one decision every entry point asks: only a backend that stands in for the batch
        path may get ``ONESHOT``, and then as the dispatcher's measured limits say
        (:func:`batchkeccak.core.dispatch.plan`, which books the work it gives the backend).
        ``backend_threads``: the threads the backend would run on (files).
        """
        if not self.stands_in or (count == 0 and self.form is not None):
            return KERNELS
        return self._dispatch(count, total_bytes, backend_threads)

    def small_work(self, count: int, total_bytes: int, backend_threads: int = 1) -> bool:
        """Whether ``count`` messages of ``total_bytes`` in all go to the one-shot backend by
        the dispatcher's rule (which books the work it gives it), whatever the batch path:
        the question a mode's own ``hash_flat`` asks of its one-shot form."""
        return count > 0 and self._dispatch(count, total_bytes, backend_threads) == ONESHOT

    def _dispatch(self, count: int, total_bytes: int, backend_threads: int) -> str:
        # The dispatcher's measured rule for this row, threads and backend family (KERNELS
        # where no one-shot backend computes the function); it books what it plans ONESHOT.
        family = self.family
        if family is None:
            return KERNELS
        return plan_backend(
            self.algorithm,
            self.domain,
            count,
            total_bytes,
            self.threads,
            backend_threads,
            family=family,
        )

    def oneshot_byte_budget(self, count: int, backend_threads: int = 1) -> int:
        """The most bytes ``count`` messages may hold in all and still be planned
        :data:`ONESHOT` (-1 when none may), for work whose size shows only as it is read;
        the caller then books what it did with :meth:`plan`."""
        if not self.oneshot_backend:
            return -1
        return oneshot_bytes(self.algorithm, self.domain, count, self.threads, backend_threads)

    def threads_for(self, count: int, total_bytes: int) -> int:
        """Threads worth starting for ``count`` messages of ``total_bytes`` in all."""
        rate = self.algorithm.rate
        permutations = total_bytes // rate + count * (1 + (self.output_length - 1) // rate)
        return max(1, min(self.threads, permutations // parallel.MIN_PERMUTATIONS_PER_THREAD))

    # -- the one-shot backend ------------------------------------------------------------------

    def digest(self) -> Callable:
        """The backend's function of one bytes-like message, returning its digest
        (``output_length`` bytes); made once. Only where :attr:`family` is set."""
        digest = self._digest
        if digest is None:
            if self.form is None:
                digest = oneshot_function(self.algorithm, self.domain, self.output_length)
            else:
                digest = mode_oneshot(self.form, self.output_length)[0]
            self._digest = digest
        return digest

    def oneshot_rows(self, messages: Iterable, out: np.ndarray) -> np.ndarray:
        """Fill ``out`` (``(N, output_length)`` uint8) with the backend's digests of
        ``messages`` (bytes-like), one message at a time."""
        joined = b"".join(map(self.digest(), messages))
        out[:] = np.frombuffer(joined, dtype=np.uint8).reshape(out.shape)
        return out

    def oneshot_flat(self, data: np.ndarray, offsets: np.ndarray, out: np.ndarray) -> np.ndarray:
        """:meth:`oneshot_rows` of flat messages (``data`` cut by ``offsets``), after the
        kernels' own entry check: a slice past the data would silently shorten a message,
        where the kernels refuse it."""
        view = data.data  # the array's buffer as a memoryview
        bounds = offsets.tolist()  # a copy: what is checked is what is read
        if bounds[0] < 0 or bounds[-1] > len(view) or any(map(int.__gt__, bounds[:-1], bounds[1:])):
            raise ValueError("hash_flat: a message's offsets leave the data buffer")
        pieces = map(view.__getitem__, map(slice, bounds[:-1], bounds[1:]))
        return self.oneshot_rows(pieces, out)

    def hash_list(self, messages: list[bytes]) -> np.ndarray | None:
        """The digests of a list of ``bytes`` when it is small work for the row's own
        one-shot backend (read as it is: no flat copy, no compiled reader); None otherwise,
        for the batch path. ``(N, output_length)`` uint8.

        Another thread may resize the list between any two statements: everything after the
        first check reads one private snapshot of it (its count included), so the digests are
        of the items it held at that moment."""
        if self.oneshot_byte_budget(len(messages)) < 0:
            return None  # no one-shot backend, or too many messages whatever their sizes
        snapshot = messages[:]  # one atomic copy of the item pointers (small: checked above)
        count = len(snapshot)
        if self.oneshot_byte_budget(count) < 0:
            return None
        total = 0
        for message in snapshot:
            if type(message) is not bytes:
                return None
            total += len(message)
        if self.plan(count, total) != ONESHOT:
            return None
        out = np.empty((count, self.output_length), dtype=np.uint8)
        return self.oneshot_rows(snapshot, out) if self.output_length else out

    def hash_in_one_call(
        self,
        one_call: Callable[[], Callable | None],
        data: np.ndarray,
        offsets: np.ndarray,
        out: np.ndarray,
    ) -> bool:
        """Hash a batch with the kernel ``one_call()`` makes (a hasher's
        :meth:`~batchkeccak.core.hashers.Hasher.one_call`) where that is the best path; True
        if it did. False, having done nothing, where the batch path does better: no one-call
        kernel, work the dispatcher gives to the one-shot backend (and every batch before the
        kernels are loaded, so that the dispatcher keeps its account), or work worth
        spreading over several threads."""
        count = offsets.shape[0] - 1
        total_bytes = int(offsets[-1]) - int(offsets[0])
        if (
            self.stands_in
            and self.family is not None
            and (not kernels_loaded() or self.plan(count, total_bytes) == ONESHOT)
        ):
            return False
        if self.threads > 1 and self.threads_for(count, total_bytes) > 1:
            return False
        kernel = one_call()
        if kernel is None:
            return False
        kernel(readonly(data), readonly(offsets), out)
        return True


__all__ = ["KERNELS", "ONESHOT", "Executor"]
