"""Which vector width the tile permutation runs at: 512-bit registers or the default build's.

On Intel's x86-64 CPUs with AVX-512F, LLVM still compiles the tile loop to 256-bit ``ymm``
code: its tuning for them prefers 256-bit vectors (``prefer-256-bit``; for AMD's Zen 4 it
prefers 512, and the loop becomes ``zmm`` code that stores the tile every two rounds). The
kernels therefore
carry a second tile permutation there, written for ``zmm`` registers (eight states per
instruction) and compiled with the function attributes that keep LLVM on 512-bit vectors, and
choose between the two when they run, by a flag they read at every ``tile_permute`` call. That
way numba's configuration (``NUMBA_CPU_NAME``, ``NUMBA_CPU_FEATURES``) and the user's own
numba functions are left alone, and one cached build serves either choice:

- the 512-bit permutation is compiled in only where numba compiles for a CPU with AVX-512F.
  numba keys its cache on the CPU's name and features, so a build that holds it is never
  loaded on a CPU without AVX-512F, and the flag refuses 512 where the CPU running the
  process lacks it;
- the choice per CPU is data (``tile_bits.json`` beside this file, written by
  ``python bench/tile_bits.py --write``): the CPUs on which 512-bit tiles measured slower
  keep 256; any other CPU with AVX-512F takes 512;
- ``BATCHKECCAK_TILE_BITS=256`` (or ``512``) overrides the data for the whole process.

Elsewhere (AVX2-only x86-64, aarch64) nothing of this is compiled and the flag is never read.
The flag is an ``int64`` that the kernels reach as the external symbol ``FLAG_SYMBOL``,
registered with LLVM when this module loads, before any kernel is compiled or loaded (as
OpenSSL's ``OPENSSL_ia32cap_P`` is read by its assembly).
"""

from __future__ import annotations

import contextlib
import ctypes
import functools
import json
import os
import platform
import warnings
from collections.abc import Iterator
from pathlib import Path

import llvmlite.binding as llvm
import numba

WIDE_BITS = 512
"""The width of the wide tile permutation (``zmm`` registers: eight 64-bit words)."""
DEFAULT_BITS = 256
"""What the flag says when the wide permutation is not used: the default build's tile
(``ymm`` on AVX2; on other CPUs whatever LLVM makes of the loop)."""

ENVIRONMENT_VARIABLE = "BATCHKECCAK_TILE_BITS"
TILE_BITS_FILE = Path(__file__).with_name("tile_bits.json")
FLAG_SYMBOL = "batchkeccak_tile_vector_bits"

# LLVM's x86-64 CPU names with AVX-512F, for a build for a named CPU whose features numba
# leaves to LLVM (NUMBA_CPU_NAME set, NUMBA_CPU_FEATURES empty).
_AVX512_CPU_NAMES = frozenset(
    {
        "knl",
        "knm",
        "skylake-avx512",
        "skx",
        "cascadelake",
        "cooperlake",
        "cannonlake",
        "icelake-client",
        "icelake-server",
        "tigerlake",
        "rocketlake",
        "sapphirerapids",
        "emeraldrapids",
        "graniterapids",
        "graniterapids-d",
        "diamondrapids",
        "znver4",
        "znver5",
        "x86-64-v4",
    }
)

_X86_64 = platform.machine().lower() in ("x86_64", "amd64")


def _has_avx512f(features: str) -> bool:
    return "+avx512f" in features.split(",")


def compiles_wide_tiles() -> bool:
    """Whether numba compiles for an x86-64 CPU with AVX-512F here, so that the kernels carry
    the 512-bit tile permutation: numba's target CPU (``NUMBA_CPU_NAME``, ``NUMBA_CPU_FEATURES``)
    or the host's."""
    if not _X86_64:
        return False
    features = numba.config.CPU_FEATURES  # type: ignore[attr-defined]  # set at run time
    if features is None:
        return host_has_avx512f()
    if features:
        return _has_avx512f(features)
    name = numba.config.CPU_NAME  # type: ignore[attr-defined]  # set at run time
    return (name or llvm.get_host_cpu_name()) in _AVX512_CPU_NAMES


@functools.cache
def host_has_avx512f() -> bool:
    """Whether the CPU running this process has AVX-512F."""
    return _X86_64 and bool(llvm.get_host_cpu_features().get("avx512f"))


@functools.cache
def measured_choices() -> dict:
    """``tile_bits.json``: ``{"cpus": {llvm_cpu_name: {"bits": 256 | 512, ...}}, ...}``.

    A tuning file never stops hashing: one that is missing, unreadable, not JSON or not of
    that shape counts as no measurements (``{"cpus": {}}``: the rule of ``preferred_bits``
    alone), with one ``RuntimeWarning`` per process saying why."""
    try:
        choices = json.loads(TILE_BITS_FILE.read_text(encoding="utf-8"))
        _check_choices(choices)
    except (OSError, ValueError, TypeError) as exc:  # UnicodeDecodeError, JSONDecodeError too
        warnings.warn(
            f"batchkeccak: ignoring the tuning file {str(TILE_BITS_FILE)!r} ({exc}); tiles "
            "run at 512 bits on CPUs with AVX-512F, else 256",
            RuntimeWarning,
            stacklevel=2,
        )
        return {"cpus": {}}
    return choices


def _check_choices(choices: object) -> None:
    cpus = choices.get("cpus") if isinstance(choices, dict) else None
    if not isinstance(cpus, dict):
        raise TypeError('expected an object with a "cpus" object')
    for name, entry in cpus.items():
        if not isinstance(entry, dict) or entry.get("bits", WIDE_BITS) not in (
            DEFAULT_BITS,
            WIDE_BITS,
        ):
            raise ValueError(f'cpus[{name!r}]: expected {{"bits": 256 or 512, ...}}')


def preferred_bits() -> int:
    """The width this process runs its tiles at unless told otherwise: 512 on a CPU with
    AVX-512F, unless the measurements of ``tile_bits.json`` say 256 for it."""
    if not host_has_avx512f():
        return DEFAULT_BITS
    entry = measured_choices()["cpus"].get(llvm.get_host_cpu_name(), {})
    return int(entry.get("bits", WIDE_BITS))


def bits_from_environment() -> int:
    """The width ``BATCHKECCAK_TILE_BITS`` asks for (256, 512, or ``auto``: the measured
    choice, ``preferred_bits``), as this CPU can run it."""
    text = os.environ.get(ENVIRONMENT_VARIABLE, "").strip().lower()
    if text in ("", "auto"):
        return preferred_bits()
    if text not in (str(DEFAULT_BITS), str(WIDE_BITS)):
        raise ValueError(
            f"{ENVIRONMENT_VARIABLE}: expected {DEFAULT_BITS}, {WIDE_BITS} or auto, got {text!r}"
        )
    # 512 on a CPU without AVX-512F cannot be honoured: such a CPU runs its only build.
    return WIDE_BITS if int(text) == WIDE_BITS and host_has_avx512f() else DEFAULT_BITS


_flag = ctypes.c_int64(DEFAULT_BITS)
llvm.add_symbol(FLAG_SYMBOL, ctypes.addressof(_flag))
_flag.value = bits_from_environment()


def tile_bits() -> int:
    """The width the tile permutation runs at in this process: ``WIDE_BITS`` (512) when it
    runs the 512-bit code, ``DEFAULT_BITS`` (256) otherwise. (On a CPU with AVX-512F whose
    kernels were compiled for a CPU without it, the flag may say 512 while the kernels, which
    carry no 512-bit code, run their only build: see ``compiles_wide_tiles``.)"""
    return _flag.value


def set_tile_bits(bits: int) -> int:
    """Run the tile permutation at ``bits`` (256 or 512) from now on, in every thread;
    returns the previous width. For benchmarks and tests: set it while no kernel runs."""
    if bits not in (DEFAULT_BITS, WIDE_BITS):
        raise ValueError(f"bits: expected {DEFAULT_BITS} or {WIDE_BITS}, got {bits!r}")
    if bits == WIDE_BITS and not host_has_avx512f():
        raise ValueError("bits: 512-bit tiles need a CPU with AVX-512F; this one has none")
    previous = _flag.value
    _flag.value = bits
    return previous


@contextlib.contextmanager
def tile_bits_set(bits: int) -> Iterator[None]:
    """``set_tile_bits(bits)`` for the duration of a ``with`` block."""
    previous = set_tile_bits(bits)
    try:
        yield
    finally:
        _flag.value = previous
