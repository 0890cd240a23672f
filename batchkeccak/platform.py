"""What this machine made the package choose: ``python -m batchkeccak.platform``.

Five choices are made per process, each from what the machine has, a tuning file measured on
the reference machines, or an environment variable that overrides both:

- **backend policy** (:mod:`batchkeccak.core.dispatch`): which work goes to hashlib or
  pycryptodome instead of the kernels; the measured limits of ``crossover.json``, or
  ``BATCHKECCAK_BACKEND``;
- **backend family** (:mod:`batchkeccak.core.oneshot`): which one-shot backend has each row;
- **tile width** (:mod:`batchkeccak.permutation.vector_width`): 256- or 512-bit tiles, from
  the CPU's features, ``tile_bits.json`` or ``BATCHKECCAK_TILE_BITS``;
- **file reader** (:mod:`batchkeccak.io.small_files`): the compiled reader of small files
  (Linux with statx) or the portable one;
- **list reader** (:mod:`batchkeccak.inputs._pylist`): lists of ``bytes`` read from CPython's
  memory by compiled code, or joined in Python where the interpreter's layout differs.

:func:`report` returns them; ``batchkeccak warmup`` prints them after its kernels are ready.
"""

from __future__ import annotations

import os
import sys
from dataclasses import dataclass

__all__ = ["SOURCES", "Choice", "report"]

SOURCES = ("detected", "tuning file", "environment", "forced in code")
"""Where a choice comes from: the machine as found, a tuning file of the package, an
environment variable, or a ``forced_backend`` block of the running program."""


@dataclass(frozen=True)
class Choice:
    """One chooser's result: ``name``, what was ``chosen``, its ``source`` (one of
    :data:`SOURCES`) and a ``detail`` that says what it was chosen from."""

    name: str
    chosen: str
    source: str
    detail: str

    def line(self) -> str:
        return f"{self.name}: {self.chosen} ({self.source}: {self.detail})"


def _backend_policy() -> Choice:
    from batchkeccak.core import dispatch

    variable = dispatch.ENVIRONMENT_VARIABLE
    forced = dispatch.policy()  # ValueError naming the variable for a value it refuses
    name = "backend policy"
    if forced is not None and os.environ.get(variable) == forced:
        return Choice(name, f"always {forced}", "environment", f"{variable}={forced}")
    if forced is not None:
        return Choice(name, f"always {forced}", "forced in code", "dispatch.forced_backend")
    return Choice(
        name,
        "measured limits (small work to hashlib or pycryptodome)",
        "tuning file",
        dispatch.CROSSOVER_FILE.name,
    )


def _backend_family() -> Choice:
    import hashlib
    import ssl

    from batchkeccak.core.oneshot import backend_family
    from batchkeccak.core.parameters import algorithms

    families: dict[str, list[str]] = {}
    for row in algorithms.values():
        family = backend_family(row, row.suffix)
        families.setdefault(family or "kernels only", []).append(row.name)
    chosen = "; ".join(f"{family}: {', '.join(names)}" for family, names in families.items())
    sha3 = "sha3_256" in hashlib.algorithms_available
    return Choice(
        "backend family",
        chosen,
        "detected",
        f"hashlib on {ssl.OPENSSL_VERSION}{'' if sha3 else ' (no SHA-3)'}, pycryptodome",
    )


def _tile_width() -> Choice:
    from batchkeccak.permutation import vector_width

    bits = vector_width.tile_bits()
    variable = vector_width.ENVIRONMENT_VARIABLE
    text = os.environ.get(variable, "").strip().lower()
    name = "tile width"
    if text not in ("", "auto"):
        return Choice(name, f"{bits} bits", "environment", f"{variable}={text}")
    avx512 = vector_width.host_has_avx512f()
    cpu = vector_width.llvm.get_host_cpu_name()
    if avx512 and cpu in vector_width.measured_choices()["cpus"]:
        return Choice(
            name, f"{bits} bits", "tuning file", f"{vector_width.TILE_BITS_FILE.name}: {cpu}"
        )
    features = "AVX-512F" if avx512 else "no AVX-512F"
    return Choice(name, f"{bits} bits", "detected", f"CPU {cpu}, {features}")


def _file_reader() -> Choice:
    from batchkeccak.io.small_files import COMPILED_READER

    chosen = "compiled" if COMPILED_READER else "portable"
    return Choice(
        "file reader",
        chosen,
        "detected",
        "Linux with statx" if COMPILED_READER else "no statx (Linux 4.11 and glibc 2.28 have it)",
    )


def _list_reader() -> Choice:
    from batchkeccak.inputs._pylist import layout_matches

    matches = layout_matches()
    return Choice(
        "list reader",
        "compiled" if matches else "portable",
        "detected",
        f"{sys.implementation.name} {sys.version.split()[0]}: object layout "
        f"{'as expected' if matches else 'differs'}",
    )


CHOOSERS = (_backend_policy, _backend_family, _tile_width, _file_reader, _list_reader)
"""Every chooser of the package, in the order the report lists them."""


def report() -> list[Choice]:
    """What this process chose, chooser by chooser (loads the kernels the list reader's
    self-check needs). ValueError naming the variable where an environment variable holds
    a value the package refuses."""
    return [chooser() for chooser in CHOOSERS]


def main() -> int:
    try:
        choices = report()
    except ValueError as exc:
        print(f"batchkeccak: error: {exc}", file=sys.stderr)
        return 1
    try:
        for choice in choices:
            print(choice.line(), flush=True)
    except BrokenPipeError:
        # The reader went away (| head): stop quietly, as other Unix tools do, and keep
        # Python from complaining again when it flushes stdout at exit.
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        os.close(devnull)
        return 141
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
