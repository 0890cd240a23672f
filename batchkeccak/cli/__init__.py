"""The ``batchkeccak`` command: one module per subcommand, each with ``register(subparsers)``."""

from __future__ import annotations

import argparse
import contextlib
import importlib
import os
import signal
import sys

SUBCOMMANDS = ("demo", "hash", "parquet", "merkle", "digest", "diff", "bench", "warmup")
"""Modules under ``batchkeccak.cli`` that each add one subcommand."""


class CommandError(Exception):
    """A user-facing failure: printed as ``batchkeccak: error: ...`` with exit status 2."""


class Terminated(KeyboardInterrupt):
    """SIGTERM (``kill``, ``docker stop``) or SIGHUP (the terminal closed, ``ssh`` dropped),
    raised where the program is, like Ctrl-C.

    A subclass of KeyboardInterrupt so that every cleanup written for Ctrl-C (temporary
    output files, progress bars) runs for it too.
    """

    def __init__(self, signum: int = signal.SIGTERM) -> None:
        super().__init__(signum)
        self.signum = signum


CAUGHT_SIGNALS = tuple(
    getattr(signal, name) for name in ("SIGTERM", "SIGHUP") if hasattr(signal, name)
)
"""Signals that end the program as Ctrl-C does, cleanup included (SIGHUP is absent on
Windows)."""

MAX_COUNT = 2**31 - 1
"""The largest count an option takes (rows per batch, threads): Arrow's and the C APIs'
limit."""


def positive_int(text: str) -> int:
    """argparse type for counts that must be at least 1 (``--batch-size``, ``--threads``)."""
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a positive integer, got {text!r}") from None
    if value < 1:
        raise argparse.ArgumentTypeError(f"must be a positive integer, got {text!r}")
    if value > MAX_COUNT:
        raise argparse.ArgumentTypeError(f"must be at most {MAX_COUNT}, got {text!r}")
    return value


def _raise_terminated(signum, frame) -> None:
    raise Terminated(signum)


@contextlib.contextmanager
def _sigterm_as_interrupt():
    # Only the main thread may set handlers; an embedding program (tests calling main()
    # from a worker thread) keeps its own.
    previous = {}
    try:
        for signum in CAUGHT_SIGNALS:
            previous[signum] = signal.signal(signum, _raise_terminated)
    except ValueError:
        pass
    try:
        yield
    finally:
        for signum, handler in previous.items():
            signal.signal(signum, handler)


def _say(message: str) -> None:
    # After a hang-up the terminal may be gone: a failed message must not become a traceback.
    try:
        print(message, file=sys.stderr, flush=True)
    except (OSError, ValueError, AttributeError):
        pass


def build_parser(argv: list[str] | None = None) -> argparse.ArgumentParser:
    """The command's parser; with ``argv``, only the subcommand it names (when it names one)
    is imported: ``batchkeccak hash`` need not import what ``merkle`` or ``demo`` do."""
    from batchkeccak import __version__

    parser = argparse.ArgumentParser(
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
    parser.set_defaults(subcommands=subparsers.choices)
    return parser


def main(argv: list[str] | None = None) -> int:
    if argv is None:
        argv = sys.argv[1:]
    parser = build_parser(argv)
    subcommands = parser.get_default("subcommands")
    if argv and argv[0] in subcommands:
        # Straight to the subcommand's parser: the top level would read every argument
        # (20,000 file names) once more only to hand them on.
        args = subcommands[argv[0]].parse_args(argv[1:])
        args.command = argv[0]
    else:
        args = parser.parse_args(argv)
    try:
        with _sigterm_as_interrupt():
            return int(args.run(args) or 0)
    except CommandError as exc:
        _say(f"batchkeccak: error: {exc}")
        return 2
    except Terminated as exc:
        _say("batchkeccak: hang-up" if exc.signum != signal.SIGTERM else "batchkeccak: terminated")
        return 128 + exc.signum
    except KeyboardInterrupt:
        _say("batchkeccak: interrupted")
        return 130
    except MemoryError:
        # What GNU tools say when an allocation fails; the options that size a run are
        # checked before it starts, so this is the machine's limit, not a typo.
        _say("batchkeccak: memory exhausted")
        return 1
    except BrokenPipeError:
        # The reader went away (| head): stop quietly, as other Unix tools do, and keep
        # Python from complaining again when it flushes stdout at exit.
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 141


if __name__ == "__main__":
    raise SystemExit(main())
