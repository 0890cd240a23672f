"""The walk of one call through the package's modules: which modules it enters (rooms), and
how often control goes from a module to one in a higher layer (climbs), by the layers of
tests/test_layers.py: a return to the caller, or a call from lower code into higher code (a
callback, counted apart: the climbs a layering should not have).

    python bench/walk.py [--files 3000] [--large 2]

Traces ``batchkeccak hash -a sha3_256`` (the command line, the walk of
``hash_files:algorithm`` as a user runs it) over ``--files`` files of 1 KiB and ``--large``
files of 2 MiB, with the dispatcher's choice and with the kernels forced, and
``bk.hash_files`` over the same files with the kernels forced. Control is followed on the
calling thread (calls and returns between the package's functions); a climb is counted
once per pair of modules, so a loop over many files counts once.
"""

from __future__ import annotations

import argparse
import contextlib
import io
import sys
import tempfile
import threading
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))

from test_layers import layer_of


def _module(frame) -> str | None:
    name = frame.f_globals.get("__name__", "")
    return name if name == "batchkeccak" or name.startswith("batchkeccak.") else None


def walk(call) -> tuple[list[str], list[str], list[str]]:
    rooms: dict[str, None] = {}
    climbs: dict[str, None] = {}
    callbacks: dict[str, None] = {}
    where: list[str] = []  # the module control is in, on the calling thread

    def enter(module: str | None, calling: bool) -> None:
        if module is None:
            return
        if where and where[-1] != module and layer_of(module) > layer_of(where[-1]):
            climbs.setdefault(f"{where[-1]} -> {module}")
            if calling:
                callbacks.setdefault(f"{where[-1]} -> {module}")
        where[:] = [module]

    def profile(frame, event, arg):
        if frame.f_code.co_name == "<module>":
            return
        module = _module(frame)
        if module is not None:
            rooms.setdefault(module)
        if event == "call":
            if frame.f_back is None or _module(frame.f_back) is None:
                where.clear()  # entered from outside the package (this script): no climb
            enter(module, calling=True)
        elif event == "return" and frame.f_back is not None:
            enter(_module(frame.f_back), calling=False)

    def in_threads(frame, event, arg):
        module = _module(frame)
        if event == "call" and module is not None and frame.f_code.co_name != "<module>":
            rooms.setdefault(module)

    threading.setprofile(in_threads)
    sys.setprofile(profile)
    try:
        call()
    finally:
        sys.setprofile(None)
        threading.setprofile(None)  # type: ignore[arg-type]
    return list(rooms), list(climbs), list(callbacks)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--files", type=int, default=3000)
    parser.add_argument("--large", type=int, default=2)
    args = parser.parse_args()
    import batchkeccak as bk
    from batchkeccak.cli import main as cli

    folder = Path(tempfile.mkdtemp())
    names = []
    for i in range(args.files):
        names.append(str(folder / f"small{i}"))
        Path(names[-1]).write_bytes(bytes([i % 251]) * 1024)
    for i in range(args.large):
        names.append(str(folder / f"large{i}"))
        Path(names[-1]).write_bytes(bytes([i % 251]) * (2 << 20))

    def command() -> None:
        with contextlib.redirect_stdout(io.TextIOWrapper(io.BytesIO())):
            cli(["hash", "-a", "sha3_256", *names])

    from batchkeccak.core.dispatch import forced_backend

    def kernels(call):
        def forced() -> None:
            with forced_backend("kernels"):
                call()

        return forced

    for title, call in (
        ("batchkeccak hash -a sha3_256", command),
        ("batchkeccak hash -a sha3_256, kernels forced", kernels(command)),
        (
            "bk.hash_files(paths, 'sha3_256'), kernels forced",
            kernels(lambda: bk.hash_files(names, "sha3_256")),
        ),
    ):
        rooms, climbs, callbacks = walk(call)
        print(
            f"{title}: {len(rooms)} modules, {len(climbs)} climbs, "
            f"{len(callbacks)} of them calls from a lower layer into a higher one"
        )
        print("  modules:", ", ".join(rooms))
        for climb in climbs:
            print("  climb:", climb, "(a call)" if climb in callbacks else "(a return)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
