"""Writes ``_unrolled.py``: the Keccak-f[1600] round written out lane by lane.

numba cannot unroll the 25-lane theta/rho/pi/chi/iota steps from loops over tables without
losing the straight-line code LLVM needs to keep lanes in registers and to vectorize the tile
loop, so the round is generated once from the tables in ``constants`` and committed.
``tests/test_permutation.py`` fails if the committed file differs from what this script writes.

Run ``python -m batchkeccak.permutation.codegen`` after changing this file, ``TILE_WIDTH`` or
``ROUNDS_PER_PASS`` (in ``constants.py``).
"""

from __future__ import annotations

import sys
from pathlib import Path

from batchkeccak.permutation.constants import (
    LANE_COUNT,
    PI_TARGET,
    RHO_OFFSETS,
    ROUNDS_PER_PASS,
    TILE_WIDTH,
)

_PI_SOURCE = {target: source for source, target in enumerate(PI_TARGET)}


GENERATED_PATH = Path(__file__).with_name("_unrolled.py")


def _rotl(expr: str, n: int) -> str:
    if n == 0:
        return expr
    return f"(({expr} << _U{n}) | ({expr} >> _U{64 - n}))"


def _round_body(load, store, indent: str, rc: str) -> list[str]:
    """One round from lanes named by ``load(i)`` into targets ``store(i, expr)``.

    The targets must not be the sources: the round is written plane by plane (the five ``b``
    lanes of output row ``y``, then their chi), so early outputs are stored while later rows
    still read the inputs. This order keeps about ten vectors live instead of all 25 ``b``
    lanes, which measured 1.28x faster for the tile (fewer spills) and 1.12x for one state.
    """
    lines = []
    for x in range(5):
        column = " ^ ".join(load(x + 5 * y) for y in range(5))
        lines.append(f"c{x} = {column}")
    for x in range(5):
        lines.append(f"d{x} = c{(x - 1) % 5} ^ {_rotl(f'c{(x + 1) % 5}', 1)}")
    for y in range(5):
        # theta, rho and pi into row y: b[pi(i)] = rot(a[i] ^ d[x], rho[i])
        for x in range(5):
            i = _PI_SOURCE[x + 5 * y]
            lines.append(f"t = {load(i)} ^ d{i % 5}")
            lines.append(f"b{x} = {_rotl('t', RHO_OFFSETS[i])}")
        # chi along the row, with iota folded into lane 0
        for x in range(5):
            i = x + 5 * y
            expr = f"b{x} ^ (~b{(x + 1) % 5} & b{(x + 2) % 5})"
            if i == 0:
                expr = f"{expr} ^ {rc}"
            lines.append(store(i, expr))
    return [indent + line for line in lines]


def _alternating_rounds(count: int, indent: str, rc, last_store=None) -> list[str]:
    """``count`` rounds on locals: ``a`` lanes to ``e`` lanes and back (``count`` even unless
    ``last_store`` writes the final round elsewhere). ``rc(step)`` names a round constant."""
    lines = []
    for step in range(count):
        source, target = ("a", "e") if step % 2 == 0 else ("e", "a")
        if last_store is not None and step == count - 1:
            store = last_store
        else:
            store = lambda i, e, target=target: f"{target}{i} = {e}"
        lines += _round_body(lambda i, source=source: f"{source}{i}", store, indent, rc(step))
    return lines


def _tile_pass_body() -> list[str]:
    """Loads of one state's lanes, ROUNDS_PER_PASS rounds in locals, stores to ``dst``."""
    indent = "        "
    lines = [f"{indent}a{i} = src[{i} * TILE_WIDTH + j]" for i in range(LANE_COUNT)]
    lines += _alternating_rounds(
        ROUNDS_PER_PASS, indent, lambda step: f"_RC[first + {step}]",
        last_store=lambda i, e: f"dst[{i} * TILE_WIDTH + j] = {e}",
    )
    return lines


MAX_RATE_WORDS = 21
"""The largest rate in 64-bit words (SHAKE128's 168 bytes)."""


def _state_absorb_function() -> list[str]:
    """``state_absorb``: whole blocks into one state whose lanes stay in registers throughout,
    and ``state_permute``, the same with nothing absorbed."""
    rate_lanes = range(MAX_RATE_WORDS)
    return [
        "@njit(cache=True, nogil=True)",
        "def state_absorb(lanes, data, pos, blocks, rate_words, first_round):",
        '    """XOR ``blocks`` whole blocks of ``rate_words`` words from ``data[pos:]`` into one',
        "    state, permuting after each. The state stays in locals from the first block to the",
        "    last, so a long message pays for no loads or stores of its state between blocks.",
        "    ``rate_words`` 0 absorbs nothing: ``blocks`` bare permutations (the squeeze).",
        '    """',
        *[f"    a{i} = lanes[{i}]" for i in range(LANE_COUNT)],
        "    for block in range(blocks):",
        "        # The block is XORed into the state's own array, between a store and a reload",
        "        # of the lanes a rate can reach: straight-line code for any rate, with no",
        "        # buffer to allocate (a branch per word past the smallest rate cost seconds of",
        "        # compile time and nothing measurable at run time).",
        *[f"        lanes[{k}] = a{k}" for k in rate_lanes],
        "        base = pos + block * 8 * rate_words",
        "        for k in range(rate_words):",
        "            lanes[k] ^= load_le64(data, base + 8 * k)",
        *[f"        a{k} = lanes[{k}]" for k in rate_lanes],
        "        for r in range(first_round, 24, 2):",
        *_alternating_rounds(2, "            ", lambda step: f"_RC[r + {step}]"),
        *[f"    lanes[{i}] = a{i}" for i in range(LANE_COUNT)],
        "",
        "",
        "@njit(cache=True, nogil=True)",
        "def state_permute(lanes, first_round):",
        '    """Rounds ``first_round``..23 on one state of 25 uint64 lanes, in place:',
        "    ``state_absorb`` of nothing. One compiled round body serves both; a second copy",
        "    cost as much compile time again.",
        '    """',
        "    # int64 values, not literals: a literal argument would compile another copy.",
        "    nothing = np.int64(0)",
        "    state_absorb(lanes, _NO_BYTES, nothing, np.int64(1), nothing, first_round)",
        "",
    ]


def _shift_constants() -> list[str]:
    needed = {1, 63} | {n for n in RHO_OFFSETS if n} | {64 - n for n in RHO_OFFSETS if n}
    return [f"_U{n} = np.uint64({n})" for n in sorted(needed)]


def generate() -> str:
    out = [
        '"""Generated by batchkeccak/permutation/codegen.py: do not edit by hand."""',
        "",
        "import numpy as np",
        "",
        "from batchkeccak._jit import njit",
        "from batchkeccak.permutation._words import load_le64",
        "from batchkeccak.permutation.constants import ROUND_CONSTANTS_ARRAY as _RC",
        "",
        "# Typed as the read-only buffers the sponge passes: state_permute shares their",
        "# specialization of state_absorb.",
        "_NO_BYTES = np.zeros(0, dtype=np.uint8)",
        "_NO_BYTES.flags.writeable = False",
        "",
        f"TILE_WIDTH = {TILE_WIDTH}",
        f"TILE_ROUND_STEP = {2 * ROUNDS_PER_PASS}  # rounds per tile_permute step",
        "",
        *_shift_constants(),
        "",
        "",
        "@njit(cache=True, nogil=True)",
        "def tile_rounds(src, dst, first):",
        f'    """Rounds first .. first+{ROUNDS_PER_PASS - 1} from ``src`` into ``dst``, every state of the tile."""',
        "    for j in range(TILE_WIDTH):",
        *_tile_pass_body(),
        "",
        "",
        "@njit(cache=True, nogil=True)",
        "def tile_permute(tile, spare, first_round):",
        '    """Rounds ``first_round``..23 on every state of ``tile``; ``spare`` is scratch.',
        "",
        f"    The round count 24 - first_round must be a multiple of {2 * ROUNDS_PER_PASS}: a step is",
        "    two passes, tile to spare and back, so that each pass reads one array and writes the",
        "    other (what lets LLVM vectorize the loop over states without aliasing checks inside",
        "    the round) and the result ends in ``tile``.",
        '    """',
        f"    for r in range(first_round, 24, {2 * ROUNDS_PER_PASS}):",
        "        tile_rounds(tile, spare, r)",
        f"        tile_rounds(spare, tile, r + {ROUNDS_PER_PASS})",
        "",
        "",
        *_state_absorb_function(),
    ]
    return "\n".join(out)


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    text = generate()
    if argv == ["--check"]:
        current = GENERATED_PATH.read_text() if GENERATED_PATH.exists() else ""
        if current != text:
            print(f"{GENERATED_PATH} is stale: run python -m batchkeccak.permutation.codegen")
            return 1
        return 0
    GENERATED_PATH.write_text(text)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
