"""The ``batchkeccak`` command: one module per subcommand, each with ``register(subparsers)``."""

from __future__ import annotations

import argparse
import contextlib
import importlib
import os
import signal
import sys

SUBCOMMANDS = ("demo", "hash", "parquet", "merkle", "bench", "warmup")
"""Modules under ``batchkeccak.cli`` that each add one subcommand."""


class CommandError(Exception):
    """A user-facing failure: printed as ``batchkeccak: error: ...`` with exit status 2."""


class Terminated(KeyboardInterrupt):
    """SIGTERM (``kill``, ``docker stop``), raised where the program is, like Ctrl-C.

    A subclass of KeyboardInterrupt so that every cleanup written for Ctrl-C (temporary
    output files, progress bars) runs for it too.
    """


def positive_int(text: str) -> int:
    """argparse type for counts that must be at least 1 (``--batch-size``, ``--threads``)."""
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a positive integer, got {text!r}") from None
    if value < 1:
        raise argparse.ArgumentTypeError(f"must be a positive integer, got {text!r}")
    return value


def _raise_terminated(signum, frame) -> None:
    raise Terminated


@contextlib.contextmanager
def _sigterm_as_interrupt():
    # Only the main thread may set handlers; an embedding program (tests calling main()
    # from a worker thread) keeps its own.
    try:
        previous = signal.signal(signal.SIGTERM, _raise_terminated)
    except ValueError:
        yield
        return
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, previous)


def build_parser() -> argparse.ArgumentParser:
    from batchkeccak import __version__

    parser = argparse.ArgumentParser(
        prog="batchkeccak",
        description="SHA-3 / SHAKE / Keccak-256 over many messages at once.",
    )
    parser.add_argument("--version", action="version", version=f"batchkeccak {__version__}")
    subparsers = parser.add_subparsers(dest="command", metavar="COMMAND", required=True)
    for name in SUBCOMMANDS:
        try:
            module = importlib.import_module(f"batchkeccak.cli.{name}")
        except ModuleNotFoundError as exc:
            if exc.name != f"batchkeccak.cli.{name}":
                raise
            continue
        module.register(subparsers)
    return parser


def main(argv: list[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        with _sigterm_as_interrupt():
            return int(args.run(args) or 0)
    except CommandError as exc:
        print(f"batchkeccak: error: {exc}", file=sys.stderr)
        return 2
    except Terminated:
        print("batchkeccak: terminated", file=sys.stderr)
        return 128 + signal.SIGTERM
    except KeyboardInterrupt:
        print("batchkeccak: interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:
        # The reader went away (| head): stop quietly, as other Unix tools do, and keep
        # Python from complaining again when it flushes stdout at exit.
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 141


if __name__ == "__main__":
    raise SystemExit(main())
