"""Digests from every aarch64 build of the kernels, run under qemu-aarch64.

LLVM compiles the tile loop differently for each ARM target (``test_vectorization.py`` shows
which instructions): plain NEON, NEON with the SHA3 instructions (xar, bcax, eor3, rax1), and
a vector-length-agnostic SVE loop whose number of states per vector is only known when it
runs. A wrong digest in any of them would pass every test run on x86-64, so each build
hashes the same messages here, with every algorithm, against hashlib and pycryptodome:

- NEON + SHA3: compiled for apple-m1;
- SVE: compiled once for neoverse-v1, run with 128-, 256- and 512-bit vectors (2, 4 and 8
  states per vector, and a tile of 32 states that is not always a whole number of vectors);
- SVE2: compiled for neoverse-v2.

Plain NEON (LLVM's generic aarch64) is the build the rest of the suite runs under
emulation. These tests need qemu: ``.ci/aarch64.sh`` runs them, with BATCHKECCAK_EMULATOR
naming qemu-aarch64, which starts each build in a fresh interpreter with its own CPU model
(QEMU_CPU); elsewhere they are skipped.
"""

from __future__ import annotations

import json
import os
import platform
import signal
import subprocess
import sys
import textwrap
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import numpy as np
import pytest

from oracles import ALL_ALGORITHMS, XOFS, oracle
from patterns import cyclic_bytes

EMULATOR = os.environ.get("BATCHKECCAK_EMULATOR")
ON_AARCH64 = platform.machine().lower() in ("aarch64", "arm64")

pytestmark = [
    pytest.mark.aarch64,
    pytest.mark.skipif(
        not (EMULATOR and ON_AARCH64),
        reason="runs under qemu-aarch64 (.ci/aarch64.sh sets BATCHKECCAK_EMULATOR)",
    ),
]

# name: (LLVM CPU the kernels are compiled for, qemu CPU model that runs them, SVE bits)
BUILDS = {
    "neon-sha3": ("apple-m1", "max,sve=off", None),
    "sve-128": ("neoverse-v1", "max,sve128=on", 128),
    "sve-256": ("neoverse-v1", "max,sve256=on", 256),
    "sve-512": ("neoverse-v1", "max,sve512=on", 512),
    "sve2-256": ("neoverse-v2", "max,sve256=on", 256),
}

# The SVE build once more, on an emulated CPU without SVE (and every other extension kept):
# it must die on its first SVE instruction, which shows that the runs above executed SVE code
# and not a fallback that any ARM core runs.
WITHOUT_SVE = "sve-build-without-sve"
RUNS = {**BUILDS, WITHOUT_SVE: ("neoverse-v1", "max,sve=off", None)}

XOF_LENGTH = 400  # more than any rate: the squeeze runs the permutation again
ROW_LENGTH = 200

_CHILD = textwrap.dedent(
    """
    import ctypes, json, sys
    import numba
    import numpy as np
    import batchkeccak as bk

    folder = sys.argv[1]
    data = np.fromfile(folder + "/data.bin", dtype=np.uint8)
    offsets = np.fromfile(folder + "/offsets.bin", dtype=np.int64)
    messages = [data[offsets[i]:offsets[i + 1]].tobytes() for i in range(len(offsets) - 1)]
    rows = np.fromfile(folder + "/rows.bin", dtype=np.uint8).reshape(-1, int(sys.argv[2]))
    xof_length = int(sys.argv[3])
    result = {"cpu": numba.config.CPU_NAME, "features": numba.config.CPU_FEATURES}
    PR_SVE_GET_VL = 51
    vl = ctypes.CDLL(None, use_errno=True).prctl(PR_SVE_GET_VL, 0, 0, 0, 0)
    result["sve_bits"] = (vl & 0xFFFF) * 8 if vl >= 0 else None
    print("hashing", file=sys.stderr, flush=True)
    for name, spec in bk.algorithms.items():
        length = xof_length if spec.xof else None
        result[name] = {
            "messages": bk.hexdigest_many(messages, name, length=length, threads=1),
            "rows": bk.hexdigest_many(rows, name, length=length, threads=1),
        }
    print(json.dumps(result))
    """
)


def _messages() -> list[bytes]:
    """Lengths around every rate and block boundary up to a few blocks, then 40 messages of
    several blocks each, so that whole tiles run the steady multi-block path and a partial
    tile is finished one state at a time."""
    lengths = [*range(40), *range(64, 1100, 23), *range(3000, 3040)]
    return [cyclic_bytes(n, seed * 7) for seed, n in enumerate(lengths)]


def _rows() -> np.ndarray:
    """Equal-length rows as a 2-D array: the uniform-length path, 48 rows (a tile and a half)."""
    return np.arange(48 * ROW_LENGTH, dtype=np.uint64).astype(np.uint8).reshape(48, ROW_LENGTH)


@pytest.fixture(scope="module")
def build_results(tmp_path_factory):
    """Every build's digests. The builds of one CPU run one after another, so the first
    compiles the kernels into that CPU's numba cache and the others load them; different
    CPUs run side by side, each with its own cache folder."""
    folder = tmp_path_factory.mktemp("messages")
    messages = _messages()
    np.frombuffer(b"".join(messages), dtype=np.uint8).tofile(folder / "data.bin")
    np.cumsum([0, *map(len, messages)], dtype=np.int64).tofile(folder / "offsets.bin")
    _rows().tofile(folder / "rows.bin")
    cache_root = Path(os.environ.get("NUMBA_CACHE_DIR") or tmp_path_factory.mktemp("numba"))

    def run(key: str) -> subprocess.CompletedProcess:
        cpu, qemu_cpu, _ = RUNS[key]
        env = {
            **os.environ,
            "NUMBA_CPU_NAME": cpu,
            # Empty: the named CPU's own features, not those LLVM reads from the host.
            "NUMBA_CPU_FEATURES": "",
            "QEMU_CPU": qemu_cpu,
            "NUMBA_CACHE_DIR": str(cache_root / "aarch64-builds" / cpu),
        }
        return subprocess.run(
            [EMULATOR, sys.executable, "-c", _CHILD, str(folder), str(ROW_LENGTH),
             str(XOF_LENGTH)],
            capture_output=True, text=True, env=env, check=False,
        )  # fmt: skip

    def run_cpu(cpu: str) -> dict:
        return {key: run(key) for key, spec in RUNS.items() if spec[0] == cpu}

    cpus = list(dict.fromkeys(spec[0] for spec in RUNS.values()))
    with ThreadPoolExecutor(max(1, min(len(cpus), os.cpu_count() or 1))) as pool:
        results: dict = {}
        for part in pool.map(run_cpu, cpus):
            results.update(part)
    return results


@pytest.fixture(scope="module")
def expected():
    messages = _messages()
    rows = [row.tobytes() for row in _rows()]
    out = {}
    for name in ALL_ALGORITHMS:
        length = XOF_LENGTH if name in XOFS else None
        out[name] = {
            "messages": [oracle(name, m, length).hex() for m in messages],
            "rows": [oracle(name, r, length).hex() for r in rows],
        }
    return out


@pytest.mark.parametrize("build", list(BUILDS))
def test_build_hashes_every_algorithm_correctly(build, build_results, expected):
    cpu, _, sve_bits = BUILDS[build]
    child = build_results[build]
    assert child.returncode == 0, f"{build} build failed:\n{child.stderr[-3000:]}"
    result = json.loads(child.stdout)
    # The child really was that build on that machine: the CPU numba compiled for and, for
    # SVE, the vector length the emulated CPU ran with (None: SVE switched off).
    assert (result["cpu"], result["features"]) == (cpu, "")
    assert result["sve_bits"] == sve_bits
    assert set(ALL_ALGORITHMS) <= set(result), "an algorithm of the table was not hashed"
    for name in ALL_ALGORITHMS:
        for form in ("messages", "rows"):
            got, want = result[name][form], expected[name][form]
            assert len(got) == len(want) > 0
            wrong = [i for i, (g, w) in enumerate(zip(got, want, strict=True)) if g != w]
            assert not wrong, f"{build}, {name}, {form}: wrong digests at {wrong[:10]}"


def test_sve_build_executes_sve_instructions(build_results):
    child = build_results[WITHOUT_SVE]
    assert "hashing" in child.stderr, f"died before hashing:\n{child.stderr[-2000:]}"
    assert child.returncode in (-signal.SIGILL, 128 + signal.SIGILL), (
        f"the SVE build ran on a CPU without SVE (exit status {child.returncode}):"
        f" its kernels are not SVE code\n{child.stderr[-2000:]}"
    )
