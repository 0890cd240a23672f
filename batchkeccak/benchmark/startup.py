"""Start-up cost in fresh interpreters, with a warm and with an empty kernel cache."""

from __future__ import annotations

import json
import os
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


def _spawn(algorithm: str, env: dict[str, str]) -> dict[str, float]:
    started = time.perf_counter()
    done = subprocess.run(
        [sys.executable, "-c", _STARTUP_SCRIPT, algorithm],
        env=env, capture_output=True, text=True, check=False,
    )
    wall = time.perf_counter() - started
    if done.returncode != 0:
        raise RuntimeError(f"start-up probe failed ({done.returncode}): {done.stderr.strip()}")
    figures = json.loads(done.stdout.strip().splitlines()[-1])
    figures["process_s"] = wall
    return figures


def measure_startup(
    algorithm: str = "sha3_256", repeats: int = 5, cold_repeats: int = 1, log=None
) -> Workload:
    """Wall seconds of fresh interpreters that import batchkeccak and hash one message.

    Warm: numba's usual cache, filled by one untimed run first. Cold: ``NUMBA_CACHE_DIR`` set
    to a new empty folder for each run, so every kernel compiles. ``cold_repeats=0`` skips the
    cold runs. Each row's time is the best run; ``process`` is the whole interpreter, from
    spawn to exit, ``import`` and ``first call`` are timed inside it.
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
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(p for p in (root, env.get("PYTHONPATH")) if p)
    _spawn(algorithm, env)  # fills the cache if it is empty
    runs = [_spawn(algorithm, env) for _ in range(repeats)]
    phases = {"process": "process_s", "import": "import_s", "first-call": "first_call_s"}
    for suffix, name in phases.items():
        workload.rows.append(Row(f"warm-{suffix}", f"warm cache: {suffix.replace('-', ' ')}", 1, 1,
                                 0, [r[name] for r in runs]))
    if cold_repeats > 0:
        if log:
            log("startup: compiling every kernel in a fresh interpreter (tens of seconds)")
        cold = []
        for _ in range(cold_repeats):
            with tempfile.TemporaryDirectory(prefix="batchkeccak-cold-") as cache:
                cold.append(_spawn(algorithm, {**env, "NUMBA_CACHE_DIR": cache}))
        for suffix, name in phases.items():
            workload.rows.append(Row(f"cold-{suffix}", f"empty cache: {suffix.replace('-', ' ')}",
                                     1, 1, 0, [r[name] for r in cold]))
    return workload
