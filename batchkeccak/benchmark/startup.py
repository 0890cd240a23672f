"""Start-up cost in fresh interpreters, with a warm and with an empty kernel cache."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tempfile
import time

from batchkeccak.benchmark.report import Row, Workload

_STARTUP_SCRIPT = """
import json, sys, time
t0 = time.perf_counter()
import batchkeccak
t1 = time.perf_counter()
name = sys.argv[1]
batchkeccak.hash_many([b"x"], name, length=32 if batchkeccak.algorithms[name].xof else None)
t2 = time.perf_counter()
print(json.dumps({"import_s": t1 - t0, "first_call_s": t2 - t1}))
"""

# The same where SciPy is not installed (batchkeccak does not need it): numba's arraymath
# imports SciPy's BLAS when it loads its registries, a sixth of a second where SciPy is there.
_NO_SCIPY_SCRIPT = "import sys\nsys.modules['scipy'] = None\n" + _STARTUP_SCRIPT

# The floor under the warm figure: numba's own import and the set-up of its compiler on the
# first cached call, which every numba library pays once per process.
_FLOOR_MODULE = """
import numba

@numba.njit(cache=True)
def add_one(x):
    return x + 1
"""

# Small work, as a first meeting looks: a hundred short messages. The dispatcher gives them to
# hashlib without loading numba; the comparison is a process that does the same with hashlib.
_SMALL_SCRIPT = """
import sys
import batchkeccak
name = sys.argv[1]
batchkeccak.hash_many([b"x"] * 100, name, length=32 if name.startswith("shake") else None)
print("{}")
"""

_HASHLIB_LOOP_SCRIPT = """
import hashlib, sys
import numpy
name = sys.argv[1]
digests = [hashlib.new(name, m) for m in [b"x"] * 100]
[d.digest(32) if name.startswith("shake") else d.digest() for d in digests]
print("{}")
"""

_HASHLIB_ROWS = ("sha3_224", "sha3_256", "sha3_384", "sha3_512", "shake_128", "shake_256")

_FLOOR_SCRIPT = """
import json, time
t0 = time.perf_counter()
import numba
t1 = time.perf_counter()
import startup_floor
startup_floor.add_one(1)
t2 = time.perf_counter()
print(json.dumps({"import_s": t1 - t0, "first_call_s": t2 - t1}))
"""


def _spawn(algorithm: str, env: dict[str, str], script: str = _STARTUP_SCRIPT) -> dict[str, float]:
    started = time.perf_counter()
    done = subprocess.run(
        [sys.executable, "-c", script, algorithm],
        env=env,
        capture_output=True,
        text=True,
        check=False,
    )
    wall = time.perf_counter() - started
    if done.returncode != 0:
        raise RuntimeError(f"start-up probe failed ({done.returncode}): {done.stderr.strip()}")
    figures = json.loads(done.stdout.strip().splitlines()[-1])
    figures["process_s"] = wall
    return figures


def _command_line(env: dict[str, str]) -> list[str]:
    """How a user runs the command: the installed script next to this interpreter, else
    ``python -m batchkeccak``."""
    script = os.path.join(os.path.dirname(sys.executable), "batchkeccak")
    if os.access(script, os.X_OK):
        return [script]
    return [sys.executable, "-m", "batchkeccak"]


def _time_command(command: list[str], env: dict[str, str] | None = None) -> float:
    started = time.perf_counter()
    done = subprocess.run(
        command, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, check=False
    )
    wall = time.perf_counter() - started
    if done.returncode != 0:
        raise RuntimeError(f"{command[0]} failed ({done.returncode}): {done.stderr.decode()}")
    return wall


def _write_files(folder: str, count: int, size: int) -> list[str]:
    names = []
    block = os.urandom(size)
    for i in range(count):
        name = os.path.join(folder, f"f{i:06d}")
        with open(name, "wb") as handle:
            handle.write(block[i % size :] + block[: i % size])  # every file different
        names.append(name)
    return names


FILE_SETS = {"small-files": (20_000, 1 << 10), "big-files": (8, 64 << 20)}
"""``batchkeccak hash`` over these (count, bytes each), against ``sha256sum`` for the many
small files and ``openssl dgst -sha3-256`` for the big ones, the tools a user compares with."""


def measure_command_line(env: dict[str, str], repeats: int, workload: Workload) -> None:
    """``batchkeccak hash`` over many small and a few big files against the system's tools,
    alternating, best of ``repeats`` each (the files are read once first, so every run
    reads from the page cache). Rows and figures are added to ``workload``; a tool that is
    not installed is left out."""
    ours = _command_line(env)
    peers = {"small-files": ["sha256sum"], "big-files": ["openssl", "dgst", "-sha3-256"]}
    for set_name, (count, size) in FILE_SETS.items():
        peer = peers[set_name]
        with tempfile.TemporaryDirectory(prefix=f"batchkeccak-{set_name}-") as folder:
            names = _write_files(folder, count, size)
            commands = {"batchkeccak": [*ours, "hash", *names]}
            if shutil.which(peer[0]):
                commands[peer[0]] = [*peer, *names]
            times: dict[str, list[float]] = {key: [] for key in commands}
            for key, command in commands.items():
                _time_command(command, env)  # warms the page cache and numba's
            for _ in range(repeats):
                for key, command in commands.items():
                    times[key].append(_time_command(command, env))
        what = f"{count:,} files of {size >> 10:,} KiB"
        for key, seconds in times.items():
            label = "`batchkeccak hash`" if key == "batchkeccak" else f"`{' '.join(peer)}`"
            workload.rows.append(
                Row(f"{key}-{set_name}", f"{label} over {what}", 1, count, count * size, seconds)
            )
        if peer[0] in times:
            ratio = min(times["batchkeccak"]) / min(times[peer[0]])
            workload.figures[f"{set_name}_over_{peer[0]}"] = ratio
            workload.notes.append(f"batchkeccak hash over {what}: {ratio:.2f}x {peer[0]}")


def _add_phase_rows(workload, phases: dict, prefix: str, label: str, runs: list) -> None:
    """One row per phase of the spawned runs (each run's phase times, by phase name)."""
    for suffix, name in phases.items():
        times = [run[name] for run in runs]
        workload.rows.append(
            Row(f"{prefix}-{suffix}", f"{label}: {suffix.replace('-', ' ')}", 1, 1, 0, times)
        )


def measure_startup(
    algorithm: str = "sha3_256",
    repeats: int = 5,
    cold_repeats: int = 1,
    log=None,
    files: bool = False,
) -> Workload:
    """Wall seconds of fresh interpreters that import batchkeccak and hash one message.

    Warm: numba's usual cache, filled by one untimed run first. Cold: ``NUMBA_CACHE_DIR`` set
    to a new empty folder for each run, so every kernel compiles. ``cold_repeats=0`` skips the
    cold runs. Each row's time is the best run; ``process`` is the whole interpreter, from
    spawn to exit, ``import`` and ``first call`` are timed inside it. ``numba alone`` is a
    process that imports numba and calls one cached function: the part of the warm start that
    belongs to numba, not to batchkeccak (``figures["warm_above_numba_s"]`` is the rest).
    ``files=True`` adds :func:`measure_command_line` (it writes 532 MB of files).
    """
    workload = Workload(
        "startup",
        f"fresh interpreters: import batchkeccak; hash_many([b'x'], {algorithm!r})",
        algorithm,
        "process",
    )
    import batchkeccak

    # The probe must import this very batchkeccak, installed or not.
    root = os.path.dirname(os.path.dirname(os.path.abspath(batchkeccak.__file__)))
    base_env = dict(os.environ)
    base_env.pop("BATCHKECCAK_BACKEND", None)
    base_env["PYTHONPATH"] = os.pathsep.join(p for p in (root, base_env.get("PYTHONPATH")) if p)
    # These probes time the kernels' start: one message would otherwise go to hashlib.
    env = {**base_env, "BATCHKECCAK_BACKEND": "kernels"}
    phases = {"process": "process_s", "import": "import_s", "first-call": "first_call_s"}
    with tempfile.TemporaryDirectory(prefix="batchkeccak-floor-") as floor_dir:
        with open(os.path.join(floor_dir, "startup_floor.py"), "w") as module:
            module.write(_FLOOR_MODULE)
        floor_env = {
            **env,
            "PYTHONPATH": os.pathsep.join((floor_dir, env["PYTHONPATH"])),
            "NUMBA_CACHE_DIR": os.path.join(floor_dir, "cache"),
        }
        _spawn(algorithm, env)  # fills the cache if it is empty
        _spawn(algorithm, floor_env, _FLOOR_SCRIPT)
        runs, floor, no_scipy = [], [], []
        for _ in range(repeats):  # interleaved, so all see the same machine
            runs.append(_spawn(algorithm, env))
            floor.append(_spawn(algorithm, floor_env, _FLOOR_SCRIPT))
            no_scipy.append(_spawn(algorithm, env, _NO_SCIPY_SCRIPT))
    _add_phase_rows(workload, phases, "warm", "warm cache", runs)
    workload.rows.append(
        Row(
            "warm-first-call-without-scipy",
            "warm cache, SciPy not importable: first call",
            1,
            1,
            0,
            [r["first_call_s"] + r["import_s"] for r in no_scipy],
        )
    )
    workload.rows.append(
        Row(
            "numba-process",
            "numba alone (import, one cached call): process",
            1,
            1,
            0,
            [r["process_s"] for r in floor],
        )
    )
    above = min(r["process_s"] for r in runs) - min(r["process_s"] for r in floor)
    workload.figures["warm_above_numba_s"] = above
    workload.notes.append(f"batchkeccak's warm start is {above:.2f} s above numba's own")
    if algorithm in _HASHLIB_ROWS:
        small, loop = [], []
        for _ in range(repeats):
            small.append(_spawn(algorithm, base_env, _SMALL_SCRIPT)["process_s"])
            loop.append(_spawn(algorithm, base_env, _HASHLIB_LOOP_SCRIPT)["process_s"])
        workload.rows.append(
            Row(
                "small-process",
                "small work: import batchkeccak; hash_many([b'x'] * 100): process",
                1,
                1,
                0,
                small,
            )
        )
        workload.rows.append(
            Row(
                "hashlib-loop-process",
                "numpy and a hashlib loop over the same 100 messages: process",
                1,
                1,
                0,
                loop,
            )
        )
        ratio = min(small) / min(loop)
        workload.figures["small_over_hashlib_loop"] = ratio
        workload.notes.append(f"small work takes {ratio:.2f}x the hashlib loop's process")
    if files:
        if log:
            log("startup: batchkeccak hash over files, against sha256sum and openssl")
        measure_command_line(base_env, repeats, workload)
    if cold_repeats > 0:
        if log:
            log("startup: compiling every kernel in a fresh interpreter (tens of seconds)")
        cold = []
        for _ in range(cold_repeats):
            with tempfile.TemporaryDirectory(prefix="batchkeccak-cold-") as cache:
                cold.append(_spawn(algorithm, {**env, "NUMBA_CACHE_DIR": cache}))
        _add_phase_rows(workload, phases, "cold", "empty cache", cold)
    return workload
