"""The ``batchkeccak`` command: one module per subcommand, each with ``register(subparsers)``."""

from __future__ import annotations

import argparse
import importlib
import os
import sys

SUBCOMMANDS = ("demo", "hash", "parquet", "merkle", "bench")
"""Modules under ``batchkeccak.cli`` that each add one subcommand."""


class CommandError(Exception):
    """A user-facing failure: printed as ``batchkeccak: error: ...`` with exit status 2."""


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
        return int(args.run(args) or 0)
    except CommandError as exc:
        print(f"batchkeccak: error: {exc}", file=sys.stderr)
        return 2
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
