"""The ``batchkeccak`` command: one module per subcommand, each with ``register(subparsers)``."""

from __future__ import annotations

import _thread
import importlib
import os
import signal
import sys
import threading
from typing import Any

from batchkeccak.errors import BatchKeccakError, WriteError
from batchkeccak.native.signals import STOP_SIGNALS, deferring
from batchkeccak.support.output import GuardedStream

SUBCOMMANDS = ("demo", "hash", "parquet", "merkle", "digest", "diff", "bench", "warmup")
"""Modules under ``batchkeccak.cli`` that each add one subcommand."""

USAGE_STATUS = 1
"""Exit status of a misused command line, as GNU's ``sha256sum``, ``cp`` or ``ls`` give it."""

TROUBLE_STATUS = 2
"""Exit status of bad input and of a write error where a subcommand declares none: each
subcommand module declares its own ``TROUBLE_STATUS`` (``hash`` 1 as ``sha256sum``; ``diff``
2 as GNU diff, whose 1 means "the tables differ"). Without a subcommand (``batchkeccak
--help``), :data:`USAGE_STATUS`."""


class CommandError(Exception):
    """A user-facing failure: printed as ``batchkeccak: error: ...`` with the subcommand's
    trouble status (its module's ``TROUBLE_STATUS``)."""


class UsageError(CommandError):
    """A misused command line (an unknown option, a missing argument, options that do not
    go together): reported as GNU's tools report one, ``batchkeccak: MESSAGE`` and a line
    that points to the subcommand's ``--help``, with exit status :data:`USAGE_STATUS`.

    ``prog`` and ``status`` are the parser's (``batchkeccak merkle root``); a subcommand
    raising it leaves them out and ``main`` takes them from the parsed arguments.
    """

    def __init__(self, message: str, prog: str | None = None, status: int | None = None):
        super().__init__(message)
        self.prog = prog
        self.status = status


class Terminated(KeyboardInterrupt):
    """SIGTERM (``kill``, ``docker stop``) or SIGHUP (the terminal closed, ``ssh`` dropped),
    raised where the program is, like Ctrl-C.

    A subclass of KeyboardInterrupt so that every cleanup written for Ctrl-C (temporary
    output files, progress bars) runs for it too.
    """

    def __init__(self, signum: int = signal.SIGTERM) -> None:
        super().__init__(signum)
        self.signum = signum


CAUGHT_SIGNALS = STOP_SIGNALS
"""Signals that end the program as Ctrl-C does, cleanup included: SIGINT, SIGTERM and
SIGHUP (absent on Windows)."""

MAX_COUNT = 2**31 - 1
"""The largest count an option takes (rows per batch, threads): Arrow's and the C APIs'
limit."""


def positive_int(text: str) -> int:
    """argparse type for counts that must be at least 1 (``--batch-size``, ``--threads``)."""
    from argparse import ArgumentTypeError

    try:
        value = int(text)
    except ValueError:
        raise ArgumentTypeError(f"expected a positive integer, got {text!r}") from None
    if value < 1:
        raise ArgumentTypeError(f"must be a positive integer, got {text!r}")
    if value > MAX_COUNT:
        raise ArgumentTypeError(f"must be at most {MAX_COUNT}, got {text!r}")
    return value


class _Stop:
    """The handler of the stop signals while the command runs: it records each signal and
    raises KeyboardInterrupt (Ctrl-C) or :class:`Terminated` where the program is, so that
    every cleanup runs, unless a stop is already under way (a cleanup is not cut short by a
    second signal) or the command has finished. Made to wait inside
    ``batchkeccak.native.signals.held`` blocks (a fork, a temporary file's removal)."""

    def __init__(self) -> None:
        self.received: list[int] = []
        self.finishing = False
        self.passed_on: Any = None  # the unraisablehook it replaced, while installed

    def __call__(self, signum, frame) -> None:
        self.received.append(signum)
        if self.finishing or isinstance(sys.exc_info()[1], KeyboardInterrupt):
            return
        if signum == signal.SIGINT:
            raise KeyboardInterrupt
        raise Terminated(signum)

    def unraisable(self, unraisable) -> None:
        """``sys.unraisablehook`` while the command runs. A signal that lands while a
        finalizer (``__del__``, a weakref callback: numba's and llvmlite's run at any
        time) executes raises there, where Python can only print it as a traceback and go
        on. Delivered again to the main thread a moment later instead (from a timer thread:
        delivered from here, it would run the handler inside this hook), it stops the
        program where it is, quietly, as any other signal does."""
        if isinstance(unraisable.exc_value, KeyboardInterrupt) and self.received:
            if not self.finishing:
                again = threading.Timer(
                    0.01, _thread.interrupt_main, (signal.Signals(self.received[-1]),)
                )
                again.daemon = True
                again.start()
            return
        (self.passed_on or sys.__unraisablehook__)(unraisable)


def _catch_stop_signals(stop: _Stop, previous: dict) -> None:
    """Install ``stop`` for the stop signals (and for a signal raised inside a finalizer),
    recording in ``previous`` each handler it replaces as it goes (a signal may come between
    two). A signal ignored when the program started stays ignored (``nohup``, a background
    job's SIGINT); only the main thread may set handlers: an embedding program (tests
    calling main() from a worker thread) keeps its own."""
    if threading.current_thread() is not threading.main_thread():
        return
    handler = deferring(stop)
    stop.passed_on = sys.unraisablehook
    sys.unraisablehook = stop.unraisable
    for signum in CAUGHT_SIGNALS:
        if signal.getsignal(signum) is not signal.SIG_IGN:
            previous[signum] = signal.getsignal(signum)
            signal.signal(signum, handler)


def _say(message: str) -> None:
    # After a hang-up the terminal may be gone: a failed message must not become a traceback.
    try:
        print(message, file=sys.stderr, flush=True)
    except (OSError, ValueError, AttributeError):
        pass


def say_usage(prog: str, message: str) -> None:
    """GNU's two lines for a misused command line, ``prog`` the (sub)command's name."""
    top = prog.split(" ")[0]
    _say(f"{top}: {message}\nTry '{prog} --help' for more information.")


def build_parser(argv: list[str] | None = None):
    """The command's parser; with ``argv``, only the subcommand it names (when it names one)
    is imported: ``batchkeccak hash`` need not import what ``merkle`` or ``demo`` do."""
    from batchkeccak import __version__
    from batchkeccak.cli.usage import GnuParser

    parser = GnuParser(
        prog="batchkeccak",
        description="SHA-3 / SHAKE / Keccak-256 over many messages at once.",
    )
    parser.add_argument("--version", action="version", version=f"batchkeccak {__version__}")
    subparsers = parser.add_subparsers(dest="command", metavar="COMMAND", required=True)
    named = [argv[0]] if argv and argv[0] in SUBCOMMANDS else SUBCOMMANDS
    for name in named:
        try:
            module = importlib.import_module(f"batchkeccak.cli.{name}")
        except ModuleNotFoundError as exc:
            if exc.name != f"batchkeccak.cli.{name}":
                raise
            continue
        module.register(subparsers)
        subparsers.choices[name].set_defaults(trouble_status=module.TROUBLE_STATUS)
    parser.set_defaults(subcommands=subparsers.choices)
    return parser


def main(argv: list[str] | None = None) -> int:
    """Run the command and return its exit status; ``argv`` None: this process's arguments.

    A stop signal (Ctrl-C, SIGTERM, SIGHUP) at any moment ends it with 128 + the signal's
    number (130, 143, 129) once its cleanup has run: temporary files removed, child
    processes ended. Run as the program (``argv`` None), the signals are left to their
    default action once it is done, so one that comes while Python exits ends the process
    with the same status.
    """
    try:
        stop = _Stop()
        previous: dict[int, Any] = {}  # signal number -> the handler it had
        try:
            try:
                try:
                    _catch_stop_signals(stop, previous)
                    status = _run(sys.argv[1:] if argv is None else argv, stop)
                finally:
                    stop.finishing = True
            except KeyboardInterrupt:
                status = None
        finally:
            if stop.passed_on is not None:
                sys.unraisablehook = stop.passed_on
            for signum, handler in previous.items():
                signal.signal(signum, signal.SIG_DFL if argv is None else handler)
        received = stop.received
    except KeyboardInterrupt as exc:  # before the handlers were in place, or as they left
        status, received = None, [getattr(exc, "signum", signal.SIGINT)]
    if received or status is None:
        signum = received[0] if received else signal.SIGINT
        said: dict[int, str] = {
            signal.SIGINT: "batchkeccak: interrupted",
            signal.SIGTERM: "batchkeccak: terminated",
        }
        _say(said.get(signum, "batchkeccak: hang-up"))
        return 128 + signum
    return status


class ClosedStdoutError(WriteError):
    """A write to the standard output the program was started without (``>&-``)."""


def discard_stdout() -> None:
    """Point descriptor 1 at the null device once a write to it failed: what is still
    buffered would fail again when Python flushes stdout at exit."""
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, 1)
        os.close(devnull)
    except OSError:
        pass


def _run(argv: list[str], stop: _Stop | None = None) -> int:
    """The command, its errors reported; KeyboardInterrupt (a stop signal) goes on.

    Standard output is the one output writer's (:class:`GuardedStream`) while the command
    runs, so that every failed write is a :class:`WriteError`, whatever wrote it; a closed
    one (``>&-``, which Python leaves None) fails each write with EBADF."""
    import warnings

    original = sys.stdout
    sys.stdout = guarded = GuardedStream(original)
    shown = warnings.showwarning
    warnings.showwarning = _show_warning
    try:
        return _run_command(argv, guarded, stop)
    finally:
        warnings.showwarning = shown
        sys.stdout = original


def _show_warning(message, category, filename, lineno, file=None, line=None) -> None:
    """A Python warning while the command runs (a corrupt tuning file's RuntimeWarning) as
    one line, ``batchkeccak: warning: MESSAGE``, not Python's file, line and source line."""
    text = str(message).removeprefix("batchkeccak: ")  # the library's own say where they are from
    _say(f"batchkeccak: warning: {text}")


def _trouble_status(argv: list[str], parser, args) -> int:
    """The trouble status of the subcommand ``argv`` names (USAGE_STATUS without one)."""
    status = getattr(args, "trouble_status", None)
    if status is None and parser is not None and argv:
        subcommand = parser.get_default("subcommands").get(argv[0])
        status = None if subcommand is None else subcommand.get_default("trouble_status")
    return USAGE_STATUS if status is None else int(status)


def _run_command(argv: list[str], stdout: GuardedStream, stop: _Stop | None = None) -> int:
    """The one error map: each failure the subcommand lets out, as one line on stderr and
    its exit status. A failure after a stop signal came (``stop.received``) is the signal's
    doing, said by :func:`main` as such: a KeyboardInterrupt that landed inside an import
    comes out as that module's ImportError, numpy's a 26-line one."""
    args = parser = None
    try:
        try:
            parser = build_parser(argv)
            subcommands = parser.get_default("subcommands")
            if argv and argv[0] in subcommands:
                # Straight to the subcommand's parser: the top level would read every argument
                # (20,000 file names) once more only to hand them on.
                args = subcommands[argv[0]].parse_args(argv[1:])
                args.command = argv[0]
            else:
                args = parser.parse_args(argv)
            status = int(args.run(args) or 0)
        except SystemExit as exc:  # argparse's --help and --version, after their output
            if exc.code:
                raise
            _close_stdout(stdout)
            raise
        _close_stdout(stdout)
        return status
    except UsageError as exc:
        prog = exc.prog or getattr(args, "usage_prog", None) or "batchkeccak"
        usage = exc.status if exc.status is not None else getattr(args, "usage_status", None)
        say_usage(prog, str(exc))
        return USAGE_STATUS if usage is None else int(usage)
    except CommandError as exc:
        _say(f"batchkeccak: error: {one_line(str(exc))}")
        return _trouble_status(argv, parser, args)
    except BrokenPipeError:
        # The reader went away (| head): stop quietly, as other Unix tools do, and keep
        # Python from complaining again when it flushes stdout at exit.
        discard_stdout()
        return 141
    except WriteError as exc:
        # GNU's words: ``sort: write error: No space left on device``.
        discard_stdout()
        where = f"{exc.filename}: " if exc.filename and exc.filename != "/dev/stdout" else ""
        _say(f"batchkeccak: write error: {where}{exc.strerror or exc}")
        return _trouble_status(argv, parser, args)
    except SystemExit as exc:
        if exc.code or stdout.failed is None:
            raise
        discard_stdout()  # --help or --version that could not be written
        _say(f"batchkeccak: write error: {stdout.failed.strerror}")
        return _trouble_status(argv, parser, args)
    except MemoryError:
        # What GNU tools say when an allocation fails; the options that size a run are
        # checked before it starts, so this is the machine's limit, not a typo. Trouble, with
        # the subcommand's status: diff's 1 would say that the tables differ.
        _say("batchkeccak: memory exhausted")
        return _trouble_status(argv, parser, args)
    except RecursionError:
        # Bad input, as a JSON document nested thousands deep is: the subcommand's status.
        _say("batchkeccak: error: input nested too deeply to read (a few thousand levels or more)")
        return _trouble_status(argv, parser, args)
    except Exception as exc:  # noqa: BLE001 - never a traceback: one line that can be reported
        if stop is not None and stop.received:
            return 1  # main says which signal ended the run, and returns its status
        if is_user_error(exc):
            _say(f"batchkeccak: error: {one_line(user_message(exc, argv, args))}")
            return _trouble_status(argv, parser, args)
        _say(
            "batchkeccak: internal error, please report it: "
            f"{type(exc).__name__}: {one_line(str(exc))}"
        )
        return 1


def user_message(exc: BaseException, argv: list[str], args: Any = None) -> str:
    """The one line for a user error ``exc`` in the command line's words
    (:mod:`batchkeccak.cli.words`): the options of the subcommand ``argv`` names where the
    library named its arguments (``args``, the parsed command line, for the words that
    depend on it: ``diff``'s tables by their paths); an operating system's error as
    ``FILE: REASON``, REASON in the system's words for its errno (as GNU's tools say it, whichever
    part of the package or of Python raised it)."""
    from batchkeccak.cli.words import in_cli_words, words_for

    if isinstance(exc, OSError) and exc.strerror and len(exc.args) >= 2:
        from batchkeccak.cli.quoting import quotef

        reason = os.strerror(exc.errno) if isinstance(exc.errno, int) else exc.strerror
        message = f"{quotef(exc.filename)}: {reason}" if exc.filename else exc.strerror
    else:
        message = str(exc)
    name = argv[0] if argv else None
    module = sys.modules.get(f"batchkeccak.cli.{name}") if name in SUBCOMMANDS else None
    return in_cli_words(message, words_for(name, module, args))


def one_line(message: str) -> str:
    """``message`` on one line, as every error is: a line break that came in with a name
    (a file name may hold one) is written as a backslash and ``n``."""
    return message.replace("\r", "\\r").replace("\n", "\\n")


def _close_stdout(stdout: GuardedStream) -> None:
    """GNU's ``close_stdout``: what is buffered is written now, and a write that failed
    unseen (argparse swallows its own) is reported."""
    stdout.flush()
    if stdout.failed is not None:
        raise stdout.failed


def is_user_error(exc: BaseException) -> bool:
    """Whether ``exc`` is bad input rather than a bug: an error the library raises on purpose
    (:mod:`batchkeccak.errors`), an operating system error (a missing file), one of
    pyarrow's (a file that is not Parquet, a column that does not cast), text that does not
    decode, or a ValueError / TypeError / OverflowError / RuntimeError / ImportError (an
    optional package missing) raised by a ``raise`` statement of this package or pyarrow (the checks that name the argument). The same
    exception types arising inside an operation (``int('x')``, a call with the wrong
    arguments) are bugs."""
    if isinstance(exc, (BatchKeccakError, OSError, UnicodeError)):
        return True
    arrow = sys.modules.get("pyarrow.lib")
    if arrow is not None and isinstance(exc, arrow.ArrowException):
        return True
    if not isinstance(exc, (ValueError, TypeError, OverflowError, RuntimeError, ImportError)):
        return False
    return _raised_on_purpose(exc)


_CHECKED_PACKAGES = ("batchkeccak", "pyarrow")


def _raised_on_purpose(exc: BaseException) -> bool:
    import linecache

    trace = exc.__traceback__
    if trace is None:
        return False
    while trace.tb_next is not None:
        trace = trace.tb_next
    filename = trace.tb_frame.f_code.co_filename
    parts = os.path.normpath(filename).split(os.sep)
    if not any(package in parts for package in _CHECKED_PACKAGES):
        return False
    return linecache.getline(filename, trace.tb_lineno).lstrip().startswith("raise ")


if __name__ == "__main__":
    raise SystemExit(main())
