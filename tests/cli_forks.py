"""``python -m batchkeccak ARGV`` in a process of its own, forked from one that has already
imported the command's modules: the tests that run the command dozens of times with bad
arguments pay the interpreter's start and pyarrow's import once, not per run.

Each run is still a real process: its own file descriptors 0, 1 and 2 (stdin, and files that
catch stdout and stderr), its own working folder, ``sys.argv`` as the interpreter sets it for
``-m``, and the interpreter's own ending: an exception that escapes prints its traceback and
exits 1, ``SystemExit`` gives its status, and standard streams are flushed at exit, so a
traceback or a wrong status shows here as it would from a shell. What it cannot show is a
failure to import the command (the forking process would have failed first, which fails the
test too) or what the interpreter does when a standard stream is closed before it starts
(``<&-``): the tests of closed streams start the command as a plain child process.

Run as a script, this module is the forking process: it reads requests on stdin (a 4-byte
length, then JSON) and answers each with the run's exit status on stdout.
"""

from __future__ import annotations

import gc
import json
import os
import struct
import subprocess
import sys
import tempfile
from pathlib import Path

_LENGTH = struct.Struct("<I")

EVERY_SUBCOMMAND = (
    "batchkeccak.cli",
    "batchkeccak.merkle",
    "batchkeccak.parquet",
    "batchkeccak.tables",
)
"""What the forking process imports when the runs may use any subcommand. Fewer modules make
each run's interpreter end sooner (it releases every object it holds): a forking process for
``hash`` alone preloads ``batchkeccak.cli.hash`` (0.04 s a run against 0.1 s, measured)."""


def _read_exactly(fd: int, size: int) -> bytes:
    chunks = []
    while size:
        chunk = os.read(fd, size)
        if not chunk:
            raise EOFError
        chunks.append(chunk)
        size -= len(chunk)
    return b"".join(chunks)


def _serve(modules: list[str]) -> None:
    # The modules the runs' subcommands import, loaded once: what each run would import first.
    import importlib

    for module in modules:
        importlib.import_module(module)

    # The imported objects out of the collector's sight: a child's collections (and the
    # one at its interpreter's end) would otherwise touch every page they sit on, copying
    # each (0.25 s a run against 0.08 s, measured), as gc.freeze's documentation explains.
    gc.disable()
    while True:
        try:
            (size,) = _LENGTH.unpack(_read_exactly(0, _LENGTH.size))
        except EOFError:
            return
        request = json.loads(_read_exactly(0, size))
        sys.stdout.flush()
        sys.stderr.flush()
        gc.freeze()
        pid = os.fork()
        if pid == 0:
            gc.enable()  # the run collects its own garbage, as any process does
            _become_the_command(request)  # returns only by raising, to the interpreter's end
        _, status = os.waitpid(pid, 0)
        answer = json.dumps({"returncode": os.waitstatus_to_exitcode(status)}).encode()
        os.write(1, _LENGTH.pack(len(answer)) + answer)


def _become_the_command(request: dict) -> None:
    os.chdir(request["cwd"])
    for fd, path, flags in (
        (0, request["stdin"], os.O_RDONLY),
        (1, request["stdout"], os.O_WRONLY | os.O_TRUNC),
        (2, request["stderr"], os.O_WRONLY | os.O_TRUNC),
    ):
        opened = os.open(path, flags)
        os.dup2(opened, fd)
        os.close(opened)
    sys.path[0] = os.getcwd()  # as ``-m`` puts the working folder first
    # As the interpreter decodes a command line: the file system encoding, surrogateescape.
    sys.argv = ["-m", *(os.fsdecode(bytes.fromhex(arg)) for arg in request["argv"])]
    import runpy

    runpy._run_module_as_main(request["module"])  # what ``python -m MODULE`` runs
    raise SystemExit(0)


class CommandForks:
    """The forking process (importing ``preload``), started on first use; ``run`` is ``subprocess.run``'s answer for
    ``python -m batchkeccak ARGV`` with stdin from ``/dev/null`` (or ``stdin``, a file, or
    ``input``, bytes)."""

    def __init__(
        self, env: dict[str, str], timeout: float, preload: tuple[str, ...] = EVERY_SUBCOMMAND
    ) -> None:
        self._env = env
        self._timeout = timeout
        self._preload = preload
        self._server: subprocess.Popen | None = None
        self._folder = Path(tempfile.mkdtemp(prefix="batchkeccak-forks-"))

    def run(
        self,
        argv: list[bytes],
        cwd,
        stdin: str = os.devnull,
        module: str = "batchkeccak",
        input: bytes | None = None,
    ) -> subprocess.CompletedProcess:
        if self._server is None:
            self._server = subprocess.Popen(
                [sys.executable, __file__, *self._preload],
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                env=self._env,
            )
        out, err = self._folder / "stdout", self._folder / "stderr"
        out.write_bytes(b"")
        err.write_bytes(b"")
        if input is not None:
            stdin = str(self._folder / "stdin")
            Path(stdin).write_bytes(input)
        request = {
            "module": module,
            "argv": [arg.hex() for arg in argv],
            "cwd": str(cwd),
            "stdin": str(stdin),
            "stdout": str(out),
            "stderr": str(err),
        }
        payload = json.dumps(request).encode()
        server = self._server
        assert server.stdin is not None and server.stdout is not None
        server.stdin.write(_LENGTH.pack(len(payload)) + payload)
        server.stdin.flush()
        answer = self._answer(server)
        return subprocess.CompletedProcess(
            [module, *argv], answer["returncode"], out.read_bytes(), err.read_bytes()
        )

    def _answer(self, server: subprocess.Popen) -> dict:
        import selectors

        assert server.stdout is not None
        fd = server.stdout.fileno()
        with selectors.DefaultSelector() as selector:
            selector.register(fd, selectors.EVENT_READ)
            if not selector.select(self._timeout):
                self.close()
                raise TimeoutError(f"the command ran past {self._timeout} s")
        try:
            (size,) = _LENGTH.unpack(_read_exactly(fd, _LENGTH.size))
            return json.loads(_read_exactly(fd, size))
        except EOFError:
            raise RuntimeError(f"the forking process ended (status {server.wait()})") from None

    def close(self) -> None:
        if self._server is not None:
            self._server.kill()
            self._server.wait()
            for stream in (self._server.stdin, self._server.stdout):
                if stream is not None:
                    stream.close()
            self._server = None
        for entry in self._folder.iterdir():
            entry.unlink()
        self._folder.rmdir()


if __name__ == "__main__":
    _serve(sys.argv[1:])
