"""The tile permutation must compile to SIMD code: a silent de-vectorization fails here.

LLVM decides whether the loop over the states of a tile becomes vector code; a harmless-looking
change (a runtime stride, an in-place round) can make it stay scalar and lose the speed-up
without changing a digest. On an AVX2 host the compiled round must do its xor / and-not /
shift work in ymm registers (or zmm, where the host has AVX-512).
"""

from __future__ import annotations

import re
import subprocess
import sys
import textwrap

import pytest


def _host_has_avx2() -> bool:
    import llvmlite.binding as llvm

    features = llvm.get_host_cpu_features()
    return bool(features.get("avx2"))


pytestmark = pytest.mark.skipif(
    not (sys.platform.startswith(("linux", "darwin", "win")) and _host_has_avx2()),
    reason="vector-register check is written for x86-64 hosts with AVX2",
)

_SCRIPT = textwrap.dedent(
    """
    import numpy as np
    from batchkeccak.permutation import TILE_WIDTH, tile_permute
    tile = np.zeros(25 * TILE_WIDTH, dtype=np.uint64)
    tile_permute(tile, np.empty_like(tile), 0)
    print("\\n".join(tile_permute.inspect_asm().values()))
    """
)


def test_tile_permutation_uses_ymm_registers(tmp_path):
    # A fresh cache directory forces a real compile: numba cannot show assembly of cached code.
    env = {**__import__("os").environ, "NUMBA_CACHE_DIR": str(tmp_path)}
    asm = subprocess.run(
        [sys.executable, "-c", _SCRIPT], capture_output=True, text=True, env=env, check=True
    ).stdout
    assert "tile_round" in asm or "tile_permute" in asm, "did not get the kernel's assembly"
    # Vector integer ALU work on 256- or 512-bit registers: xor, and-not, shifts, or, and on
    # AVX-512 hosts the ternary-logic and rotate instructions that replace several of them.
    vector_alu = re.findall(r"^\s*(vp[a-z]+)\s+[^\n]*%[yz]mm", asm, flags=re.MULTILINE)
    assert len(vector_alu) >= 150, (
        f"only {len(vector_alu)} vector ALU instructions: the tile round is not vectorized"
    )
    assert any(op.startswith(("vpxor", "vpternlog")) for op in vector_alu), "no vector xor"
