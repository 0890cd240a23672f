"""Signals held back while a few steps must not be cut in two: a compiled function
compiling or loading from numba's cache (:func:`batchkeccak.native.jit.njit`), forking a
child and recording it, stopping children, creating or removing a temporary output file.

Python runs a signal handler on the main thread between two bytecodes, wherever they are. An
exception the handler raises inside an after-fork hook (``os.register_at_fork``), a
``__del__`` or a weakref callback is printed as "Exception ignored" and lost: the program
goes on as if the signal had never come; one raised inside a ctypes callback that LLVM makes
while it loads compiled code is swallowed too, and LLVM goes on with memory it never got
(heap corruption). One raised between a ``fork`` and the line that
records the child leaves a child its parent does not know of. Inside :func:`held`, the
signals that stop a program (SIGINT, SIGTERM, SIGHUP) wait:

- the operating system keeps them pending (``pthread_sigmask``, where it exists), so no
  handler runs on this thread;
- a handler made by :func:`deferring` (the ``batchkeccak`` command's) records one that
  reaches it anyway (another thread took it from the kernel) and returns at once;

and when the outermost block ends, each one is delivered again, to whatever handler is then
installed.
"""

from __future__ import annotations

import contextlib
import signal
import threading
from collections.abc import Callable, Iterator

STOP_SIGNALS = tuple(
    getattr(signal, name) for name in ("SIGINT", "SIGTERM", "SIGHUP") if hasattr(signal, name)
)
"""The signals held: those that ask a program to stop (SIGHUP is absent on Windows)."""

_depth = 0
"""How many :func:`held` blocks the main thread is inside."""
_waiting: list[int] = []
"""Signals a :func:`deferring` handler recorded while held, in the order they came."""


def deferring(handler: Callable) -> Callable:
    """``handler`` made to wait while the main thread is inside :func:`held`: the signal is
    recorded and delivered again when the block ends."""

    def handle(signum, frame):
        if _depth:
            if signum not in _waiting:
                _waiting.append(signum)
            return
        handler(signum, frame)

    return handle


@contextlib.contextmanager
def held() -> Iterator[None]:
    """Run the block with the stop signals held back (see the module's docstring).

    On any thread but the main one it holds nothing: Python runs handlers on the main thread
    only, so no handler can cut such a block in two.
    """
    global _depth
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    masks = hasattr(signal, "pthread_sigmask")
    # The mask as it is, asked first: a handler that runs inside the call that changes it
    # may raise, and the mask must still be put back.
    previous = signal.pthread_sigmask(signal.SIG_BLOCK, ()) if masks else set()
    _depth += 1
    try:
        if masks:
            signal.pthread_sigmask(signal.SIG_BLOCK, STOP_SIGNALS)
        yield
    finally:
        _depth -= 1
        waiting = []
        if not _depth:
            waiting = _waiting[:]
            _waiting.clear()
        try:
            if masks:
                # What the kernel kept pending reaches the handler here.
                signal.pthread_sigmask(signal.SIG_SETMASK, previous)
        finally:
            for signum in waiting:
                signal.raise_signal(signum)


def reset_in_child() -> None:
    """For a child just forked inside :func:`held`: the stop signals end it as they end any
    process (the parent's handlers clean up the parent's files; the child has none), and
    they are held no longer. A signal that came between the fork and this call ends the
    child here."""
    global _depth
    _depth = 0
    _waiting.clear()
    for signum in STOP_SIGNALS:
        signal.signal(signum, signal.SIG_DFL)
    if hasattr(signal, "pthread_sigmask"):
        signal.pthread_sigmask(signal.SIG_UNBLOCK, STOP_SIGNALS)
