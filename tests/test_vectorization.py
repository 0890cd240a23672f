"""The tile permutation must compile to SIMD code: a silent de-vectorization fails here.

LLVM decides whether the loop over the states of a tile becomes vector code; a harmless-looking
change (a runtime stride, an in-place round) can make it stay scalar and lose the speed-up
without changing a digest. So the compiled round is read back as machine code:

- for the CPU the tests run on: ymm registers on x86-64 with AVX2, and where the host has
  AVX-512F the 512-bit tile permutation on zmm registers beside them (both builds, one chosen
  when the kernels run); NEON q/v registers or SVE z registers on aarch64;
- on x86-64 also for named x86 targets, whatever CPU runs the tests: an AVX-512 CPU gets the
  zmm permutation, an AVX2 CPU none (its kernels never carry 512-bit code);
- on aarch64 (a real one, or qemu-aarch64 in ``.ci/aarch64.sh``) also for named ARM targets,
  whatever CPU runs the tests: NEON (generic), NEON with the ARMv8.2 SHA3 instructions
  (apple-m1), SVE (neoverse-v1) and SVE2 (neoverse-v2). The code is compiled for them, never
  run here; ``test_aarch64_builds.py`` runs it under emulation and checks its digests.
"""

from __future__ import annotations

import os
import platform
import re
import subprocess
import sys
import textwrap
from concurrent.futures import ThreadPoolExecutor

import pytest

MACHINE = platform.machine().lower()
ON_X86_64 = MACHINE in ("x86_64", "amd64")
ON_AARCH64 = MACHINE in ("aarch64", "arm64")

pytestmark = pytest.mark.aarch64

_SCRIPT = textwrap.dedent(
    """
    from numba import types
    from batchkeccak.permutation import tile_permute
    # Compiled for a signature rather than called: code for a named CPU may use instructions
    # the CPU running this does not have.
    words = types.Array(types.uint64, 1, "C")
    signature = (words, words, types.int64)
    tile_permute.compile(signature)
    print(tile_permute.inspect_asm(signature))
    """
)


def _compile_asm(tmp_path, cpu_name: str | None = None) -> str:
    """The tile kernel's assembly, from a fresh interpreter with its own numba cache.

    A fresh cache directory forces a real compile: numba cannot show assembly of cached code.
    ``cpu_name`` selects an LLVM CPU; an empty NUMBA_CPU_FEATURES then means that CPU's own
    features. Without it, the features would be those LLVM reads from the host, and under
    qemu-user that is the x86-64 host's /proc/cpuinfo: ``-sha3,-sve`` whatever the name says.
    """
    env = {**os.environ, "NUMBA_CACHE_DIR": str(tmp_path)}
    if cpu_name is not None:
        env.update(NUMBA_CPU_NAME=cpu_name, NUMBA_CPU_FEATURES="")
    else:
        env.pop("NUMBA_CPU_NAME", None)
        env.pop("NUMBA_CPU_FEATURES", None)
    asm = subprocess.run(
        [*_interpreter(), "-c", _SCRIPT], capture_output=True, text=True, env=env, check=False
    )
    assert asm.returncode == 0, f"compiling for {cpu_name or 'this CPU'} failed:\n{asm.stderr}"
    assert "tile_permute" in asm.stdout or "tile_round" in asm.stdout, (
        "did not get the kernel's assembly"
    )
    return asm.stdout


def _interpreter() -> list[str]:
    """This interpreter; under qemu-user, the emulator in front of it (an emulated process
    cannot exec an aarch64 binary where binfmt_misc is not set up, as in most containers)."""
    emulator = os.environ.get("BATCHKECCAK_EMULATOR")
    return [emulator, sys.executable] if emulator and ON_AARCH64 else [sys.executable]


# --- x86-64 ---------------------------------------------------------------------------------

_X86_VECTOR_ALU = re.compile(r"^\s*(vp[a-z]+)\s+[^\n]*%([yz])mm", flags=re.MULTILINE)


def x86_vector_alu(asm: str, register: str = "yz") -> list[str]:
    """Vector integer ALU work on 256-bit (``y``) or 512-bit (``z``) registers: xor, and-not,
    shifts, or, and on AVX-512 hosts the ternary-logic and rotate instructions that replace
    several of them."""
    return [op for op, kind in _X86_VECTOR_ALU.findall(asm) if kind in register]


def _functions(asm: str) -> dict[str, str]:
    """The assembly of each function, by its symbol: from ``.type NAME,@function`` to
    ``.size NAME``."""
    bodies = re.findall(
        r"^\s*\.type\s+\"?([^\",\s]+)\"?,@function$(.*?)^\s*\.size\s+\"?\1\"?,",
        asm,
        flags=re.MULTILINE | re.DOTALL,
    )
    return dict(bodies)


# The default build's rounds: one LLVM function, whatever calls it (see permutation/_kernels).
DEFAULT_ROUNDS_SYMBOL = "batchkeccak.permutation.tile_rounds"


def _assert_x86_builds(asm: str, what: str, avx512: bool) -> None:
    """The default build's rounds in vector code: on ymm registers, or on zmm where the CPU
    has AVX-512F and LLVM's tuning for it prefers 512-bit vectors (AMD Zen 4 does; Intel's
    AVX-512 CPUs prefer 256). With AVX-512F also the 512-bit permutation outside them, whose
    rotations are ``vprolq`` and whose and-nots are ``vpternlogq`` on zmm registers. Without
    AVX-512F no zmm register at all: such a CPU's kernels carry no 512-bit code."""
    functions = _functions(asm)
    assert DEFAULT_ROUNDS_SYMBOL in functions, (
        f"{what}: no {DEFAULT_ROUNDS_SYMBOL} in the assembly (functions: {sorted(functions)})"
    )
    default_rounds = functions[DEFAULT_ROUNDS_SYMBOL]
    rest = asm.replace(default_rounds, "")
    # The flag that chooses between the builds is read only where the 512-bit one exists.
    reads_flag = "batchkeccak_tile_vector_bits" in asm
    if not avx512:
        _assert_vector_code(x86_vector_alu(default_rounds, "y"), f"{what} (256-bit build)")
        assert "%zmm" not in asm, f"{what}: zmm registers in a build for a CPU without AVX-512F"
        assert not reads_flag, f"{what}: a 512-bit permutation for a CPU without AVX-512F"
        return
    _assert_vector_code(x86_vector_alu(default_rounds, "yz"), f"{what} (default build)")
    assert reads_flag, f"{what}: the tile does not read the flag that chooses its width"
    wide = x86_vector_alu(rest, "z")
    _assert_vector_code(wide, f"{what} (512-bit build)")
    # Per round XKCP's times8 issues 35 vpternlogq and 29 rotations; the wide permutation's
    # loop body holds ROUNDS_PER_PASS (2) rounds.
    assert wide.count("vpternlogq") >= 60 and wide.count("vprolq") >= 50, (
        f"{what}: the 512-bit rounds lack vpternlogq / vprolq: "
        f"{wide.count('vpternlogq')} and {wide.count('vprolq')}"
    )


# --- aarch64 --------------------------------------------------------------------------------

# xar (xor and rotate), bcax (bit clear and xor), eor3 (three-way xor), rax1 (rotate by one
# and xor): the ARMv8.2 SHA3 extension on v registers, SVE2 on z registers.
SHA3_OPS = ("xar", "bcax", "eor3", "rax1")
_ARM_ALU = r"(eor|eor3|bic|bcax|xar|rax1|orr|and|shl|ushr|usra|sri|sli|lsl|lsr)"
# NEON names a vector register v<n> with an arrangement (v3.2d, v7.16b); SVE names z<n>.d.
_NEON_ALU = re.compile(rf"^\s*{_ARM_ALU}\s+v\d+\.(?:2d|16b)\b", flags=re.MULTILINE)
_SVE_ALU = re.compile(rf"^\s*{_ARM_ALU}\s+z\d+\.[db]\b", flags=re.MULTILINE)
_SVE_LOOP = re.compile(r"^\s*whilelo\s+p\d+\.d\b", flags=re.MULTILINE)


def neon_alu(asm: str) -> list[str]:
    return _NEON_ALU.findall(asm)


def sve_alu(asm: str) -> list[str]:
    return _SVE_ALU.findall(asm)


# One Keccak round on one vector of states is about 25 xors for theta, 25 and-nots and 25
# xors for chi and 24 rotates (2 or 3 ops each without SHA3); a scalar loop has none of this
# on vector registers. 150 is under half of what a vectorized pair of rounds needs. With the
# SHA3 instructions a round shrinks to about 66 (eor3 and rax1 for theta, one xar per lane
# for theta's xor and the rotate, one bcax per lane for chi): 132 for a pair of rounds.
MIN_VECTOR_ALU = 150
MIN_SHA3_VECTOR_ALU = 120
MIN_SHA3_OPS = 100


def _assert_vector_code(ops: list[str], what: str, minimum: int = MIN_VECTOR_ALU) -> None:
    assert len(ops) >= minimum, (
        f"{what}: only {len(ops)} vector ALU instructions: the tile round is not vectorized"
    )
    assert any(op.startswith(("eor", "vpxor", "vpternlog")) for op in ops), f"{what}: no vector xor"


def _assert_sha3_code(ops: list[str], what: str) -> None:
    _assert_vector_code(ops, what, MIN_SHA3_VECTOR_ALU)
    sha3 = [op for op in ops if op in SHA3_OPS]
    assert len(sha3) >= MIN_SHA3_OPS, f"{what}: only {len(sha3)} xar/bcax/eor3/rax1"
    assert {"xar", "bcax", "eor3"} <= set(sha3), f"{what}: uses only {sorted(set(sha3))}"


def _skip_unless_checkable_here() -> None:
    if ON_X86_64:
        import llvmlite.binding as llvm

        if not llvm.get_host_cpu_features().get("avx2"):
            pytest.skip("an x86-64 CPU without AVX2: batchkeccak's x86 target is AVX2")
    elif not ON_AARCH64:
        pytest.skip(f"no vector-code check written for {platform.machine()}")


def test_tile_permutation_is_vector_code_on_this_cpu(tmp_path):
    _skip_unless_checkable_here()
    asm = _compile_asm(tmp_path)
    if ON_X86_64:
        import llvmlite.binding as llvm

        avx512 = bool(llvm.get_host_cpu_features().get("avx512f"))
        _assert_x86_builds(asm, "x86-64 (this CPU)", avx512)
        return
    # NEON on most ARM cores, with or without SHA3; an SVE core (Graviton3) may get a
    # scalable loop on z registers instead.
    ops = max(neon_alu(asm), sve_alu(asm), key=len)
    if any(op in SHA3_OPS for op in ops):
        _assert_sha3_code(ops, "aarch64 (this CPU)")
    else:
        _assert_vector_code(ops, "aarch64 (this CPU)")


# --- named x86 targets ----------------------------------------------------------------------

# (LLVM CPU, has AVX-512F): compiled for, never run. Defined on x86-64 only, not skipped
# elsewhere: .ci/aarch64.sh fails on any test of this module that does not run under qemu.
X86_TARGETS = {"haswell": False, "sapphirerapids": True, "znver4": True}

if ON_X86_64:

    @pytest.mark.slow  # two compilations for named CPUs; the quick run checks this CPU's
    def test_named_x86_targets_get_the_builds_their_cpu_runs(tmp_path_factory):
        with ThreadPoolExecutor(max(1, min(len(X86_TARGETS), os.cpu_count() or 1))) as pool:
            jobs = {
                cpu: pool.submit(_compile_asm, tmp_path_factory.mktemp(cpu), cpu)
                for cpu in X86_TARGETS
            }
            for cpu, avx512 in X86_TARGETS.items():
                _assert_x86_builds(jobs[cpu].result(), cpu, avx512)


# --- named ARM targets ----------------------------------------------------------------------

ARM_TARGETS = ("generic", "apple-m1", "neoverse-v1", "neoverse-v2")


@pytest.fixture(scope="module")
def arm_asm(tmp_path_factory):
    """The tile kernel compiled for every named ARM target, the compiles side by side (each
    is a fresh interpreter: under emulation about 20 s of CPU)."""
    if not ON_AARCH64:
        pytest.skip("named ARM targets are compiled on aarch64 (or under qemu-aarch64)")
    workers = max(1, min(len(ARM_TARGETS), os.cpu_count() or 1))
    with ThreadPoolExecutor(workers) as pool:
        jobs = {
            cpu: pool.submit(_compile_asm, tmp_path_factory.mktemp(cpu), cpu) for cpu in ARM_TARGETS
        }
        return {cpu: job.result() for cpu, job in jobs.items()}


def test_generic_arm_is_neon(arm_asm):
    ops = neon_alu(arm_asm["generic"])
    _assert_vector_code(ops, "generic aarch64 (NEON)")
    # Plain ARMv8.0 has no SHA3 instructions: rotates are shifts, and-nots are bic.
    assert not any(op in SHA3_OPS for op in ops), "generic aarch64 code uses SHA3 instructions"
    assert "bic" in ops and ("usra" in ops or "sri" in ops or "ushr" in ops)


def test_apple_m1_uses_the_sha3_instructions(arm_asm):
    _assert_sha3_code(neon_alu(arm_asm["apple-m1"]), "apple-m1 (NEON + SHA3)")


def test_neoverse_v1_is_a_scalable_sve_loop(arm_asm):
    asm = arm_asm["neoverse-v1"]
    _assert_vector_code(sve_alu(asm), "neoverse-v1 (SVE)")
    # Vector-length agnostic: the loop over a tile's states is predicated by whilelo, so the
    # same code covers 2, 4 or 8 states per vector (128-, 256-, 512-bit SVE).
    assert _SVE_LOOP.search(asm), "no whilelo-predicated loop: not a scalable SVE loop"


def test_neoverse_v2_uses_sve2(arm_asm):
    # 128-bit vectors (neoverse-v2's own width) worked on with SVE2's xar, bcax and eor3.
    _assert_sha3_code(sve_alu(arm_asm["neoverse-v2"]), "neoverse-v2 (SVE2)")
