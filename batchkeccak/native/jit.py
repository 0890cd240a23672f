"""``njit`` for every compiled function of the package: cached on disk where numba can write
a cache, compiled in memory where it cannot.

numba refuses ``cache=True`` outright (``RuntimeError: cannot cache function ...: no locator
available``) when neither ``NUMBA_CACHE_DIR``, the package's own ``__pycache__`` nor the
user's cache folder (``$XDG_CACHE_HOME`` or ``~/.cache``) is writable: a system-wide install
run by a service user with no home, a read-only container, a cluster executor. There the
package compiles its kernels in memory instead, once per process, and says so once with an
:class:`UncachedKernelsWarning` (``docs/deploying.md`` shows how to keep a cache).

Only numba's documented interface is used: ``njit(cache=True)`` and ``NUMBA_CACHE_DIR``.
numba keys a cached function on the file that defines it, but the sponge kernels inline the
permutation from other files: after an edit to one of those, a cached kernel would still run
the old code. An installed release never changes under its cache (an upgrade rewrites every
file, so every stamp changes); a developer editing the sources runs
``python -m batchkeccak.native.jit clear-cache``, and the test suite does that by itself whenever a
compiled source changed since its last run (``tests/conftest.py``).
"""

from __future__ import annotations

import functools
import hashlib
import sys
import threading
import warnings
from pathlib import Path

import numba

from batchkeccak.native.signals import held

__all__ = [
    "UncachedKernelsWarning",
    "cache_available",
    "clear_cache",
    "compiled_sources_digest",
    "compiled_with_signals_held",
    "njit",
]

PACKAGE_DIR = Path(__file__).resolve().parent.parent


class UncachedKernelsWarning(RuntimeWarning):
    """No writable cache folder: the kernels are compiled in memory in every process."""


_uncached: list[str] = []
_warned = threading.Lock()


def cache_available() -> bool:
    """False once a function of the package had to be compiled without the on-disk cache."""
    return not _uncached


def _warn_uncached(name: str) -> None:
    first = not _uncached
    _uncached.append(name)
    if first and _warned.acquire(blocking=False):
        warnings.warn(
            "batchkeccak: numba finds no writable cache folder (the package folder, "
            "NUMBA_CACHE_DIR and ~/.cache are not writable), so the kernels are compiled in "
            "memory in this process (seconds on first use). Set NUMBA_CACHE_DIR to a "
            "writable folder to keep them; see 'Deploying' in the batchkeccak docs.",
            UncachedKernelsWarning,
            stacklevel=4,
        )


FIRST_COMPILE_SECONDS = 5
"""About how long the kernels take to compile on a cold cache (docs/performance.md: "kernels
ready in" 4.0-4.4 s on the 2-core reference machine)."""

COMPILE_NOTICE = (
    f"batchkeccak: compiling the kernels for this machine (about {FIRST_COMPILE_SECONDS} s, "
    "once; later runs load them from numba's cache)"
)


class _CompileNotice(numba.core.event.Listener):
    """Says :data:`COMPILE_NOTICE` on stderr, when stderr is a terminal, at the first
    compilation of one of the package's functions. numba fires ``numba:compile`` only on a cache miss: a warm cache says nothing."""

    def __init__(self) -> None:
        self.said = threading.Lock()

    def on_start(self, event) -> None:
        dispatcher = (event.data or {}).get("dispatcher")
        module = getattr(getattr(dispatcher, "py_func", None), "__module__", "") or ""
        if (
            module.startswith("batchkeccak.")
            and _stderr_is_a_terminal()
            and self.said.acquire(blocking=False)
        ):
            try:
                print(COMPILE_NOTICE, file=sys.stderr, flush=True)
            except (OSError, ValueError):
                pass  # stderr closed: nowhere to say it

    def on_end(self, event) -> None:
        pass


def _stderr_is_a_terminal() -> bool:
    # A person waiting at a terminal is told why the first run pauses; a script's captured
    # stderr (a log, a test comparing it) gets no line that depends on the cache's state.
    try:
        return sys.stderr is not None and sys.stderr.isatty()
    except (AttributeError, ValueError):
        return False


def _run_as_the_program() -> bool:
    """Whether this process is the ``batchkeccak`` command (the console script or
    ``python -m batchkeccak``), not a library call or an in-process test of the CLI."""
    main = sys.modules.get("__main__")
    spec = getattr(main, "__spec__", None)
    if spec is not None and spec.name in ("batchkeccak.__main__", "batchkeccak.cli"):
        return True
    return bool(sys.argv) and Path(sys.argv[0]).stem == "batchkeccak"


if _run_as_the_program():  # the command says so once; a library call stays quiet
    numba.core.event.register("numba:compile", _CompileNotice())


def njit(*args, **options):
    """``numba.njit`` with the same arguments; ``cache=True`` falls back to an in-memory
    compilation (and one warning) where numba has nowhere to write its cache. Each
    function compiles, or loads from the cache, with the stop signals held
    (:func:`compiled_with_signals_held`)."""
    if args:  # used bare: @njit
        return njit(**options)(args[0])

    def decorate(function):
        try:
            dispatcher = numba.njit(**options)(function)
        except RuntimeError as exc:
            if not options.get("cache") or "no locator available" not in str(exc):
                raise
            _warn_uncached(function.__qualname__)
            dispatcher = numba.njit(**{**options, "cache": False})(function)
        return compiled_with_signals_held(dispatcher)

    return decorate


def compiled_with_signals_held(dispatcher):
    """``dispatcher`` made to compile each signature, or load it from numba's cache, inside
    :func:`batchkeccak.native.signals.held`: a stop signal (Ctrl-C, SIGTERM) that comes
    meanwhile is delivered once the function is ready.

    Loading and compiling, LLVM calls back into Python (numba's object-cache hooks, through
    ctypes) and hands modules to its engine. A KeyboardInterrupt raised inside such a
    callback is swallowed by ctypes, and LLVM goes on with a buffer that was never filled:
    ``batchkeccak parquet`` stopped by SIGTERM while a kernel loaded died of heap corruption
    ("double free or corruption") instead of exiting 143. The wait is one function's compile
    at most (seconds on a cold cache, milliseconds from the cache)."""
    compile_signature = dispatcher.compile

    @functools.wraps(compile_signature)
    def compile_held(signature):
        with held():
            return compile_signature(signature)

    dispatcher.compile = compile_held
    return dispatcher


def compiled_sources() -> list[Path]:
    """The package's files that define compiled functions, the intrinsics they inline, or
    the LLVM IR and symbols those emit (``llvmlite``: the tile's vector width, say)."""
    marks = ("njit(", "@intrinsic", "import llvmlite")
    return sorted(
        path
        for path in PACKAGE_DIR.rglob("*.py")
        if path != Path(__file__).resolve()
        and any(mark in path.read_text(encoding="utf-8") for mark in marks)
    )


def compiled_sources_digest() -> str:
    """SHA-256 over the relative path and contents of every compiled source."""
    digest = hashlib.sha256()
    for path in compiled_sources():
        digest.update(path.relative_to(PACKAGE_DIR).as_posix().encode() + b"\0")
        digest.update(path.read_bytes())
    return digest.hexdigest()


def clear_cache() -> int:
    """Delete numba's cache files for the package from its ``__pycache__`` folders (and from
    ``NUMBA_CACHE_DIR`` when set); the number of files deleted."""
    folders = [PACKAGE_DIR]
    cache_dir = numba.config.CACHE_DIR  # type: ignore[attr-defined]  # set at run time
    if cache_dir:
        folders.append(Path(cache_dir))
    removed = 0
    for folder in folders:
        for pattern in ("*.nbi", "*.nbc"):
            for path in folder.rglob(pattern):
                if folder is PACKAGE_DIR or "batchkeccak" in path.as_posix():
                    path.unlink(missing_ok=True)
                    removed += 1
    return removed


if __name__ == "__main__":
    if sys.argv[1:] != ["clear-cache"]:
        sys.exit("usage: python -m batchkeccak.native.jit clear-cache")
    print(f"removed {clear_cache()} cached kernel files")
