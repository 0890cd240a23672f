"""A plain, slow Keccak written straight from FIPS 202, used as an independent oracle.

Deliberately shares nothing with ``batchkeccak``: its own round constants (from the rc LFSR),
its own rho/pi walk, and the sponge in the words of FIPS 202 section 4 and 5.
"""

from __future__ import annotations

MASK = (1 << 64) - 1


def _rot(v: int, n: int) -> int:
    n %= 64
    return ((v << n) | (v >> (64 - n))) & MASK


def _rc_bit(t: int) -> int:
    if t % 255 == 0:
        return 1
    r = [1, 0, 0, 0, 0, 0, 0, 0]
    for _ in range(t % 255):
        r = [0] + r
        r[0] ^= r[8]
        r[4] ^= r[8]
        r[5] ^= r[8]
        r[6] ^= r[8]
        r = r[:8]
    return r[0]


ROUND_CONSTANTS = []
for _ir in range(24):
    _rc = 0
    for _j in range(7):
        _rc |= _rc_bit(_j + 7 * _ir) << ((1 << _j) - 1)
    ROUND_CONSTANTS.append(_rc)

RHO = [[0] * 5 for _ in range(5)]  # RHO[x][y]
_x, _y = 1, 0
for _t in range(24):
    RHO[_x][_y] = ((_t + 1) * (_t + 2) // 2) % 64
    _x, _y = _y, (2 * _x + 3 * _y) % 5


def keccak_p(lanes: list[int], rounds: int = 24) -> list[int]:
    """Keccak-p[1600, rounds] on 25 lanes indexed x + 5*y; returns new lanes."""
    a = [[lanes[x + 5 * y] for y in range(5)] for x in range(5)]
    for ir in range(24 - rounds, 24):
        c = [a[x][0] ^ a[x][1] ^ a[x][2] ^ a[x][3] ^ a[x][4] for x in range(5)]
        d = [c[(x - 1) % 5] ^ _rot(c[(x + 1) % 5], 1) for x in range(5)]
        a = [[a[x][y] ^ d[x] for y in range(5)] for x in range(5)]
        b = [[0] * 5 for _ in range(5)]
        for x in range(5):
            for y in range(5):
                b[y][(2 * x + 3 * y) % 5] = _rot(a[x][y], RHO[x][y])
        a = [
            [b[x][y] ^ ((~b[(x + 1) % 5][y]) & b[(x + 2) % 5][y]) for y in range(5)]
            for x in range(5)
        ]
        a[0][0] ^= ROUND_CONSTANTS[ir]
    return [a[x][y] for y in range(5) for x in range(5)]


def sponge(rate: int, suffix: int, message: bytes, out_len: int, rounds: int = 24) -> bytes:
    """Keccak[c](M || suffix bits, d) with pad10*1, byte-aligned, rate in bytes."""
    padded = bytearray(message) + bytes([suffix])
    padded += bytes(-len(padded) % rate)
    padded[-1] |= 0x80
    state = [0] * 25
    for block_start in range(0, len(padded), rate):
        block = padded[block_start : block_start + rate]
        for i in range(rate // 8):
            state[i] ^= int.from_bytes(block[8 * i : 8 * i + 8], "little")
        state = keccak_p(state, rounds)
    out = b""
    while True:
        out += b"".join(lane.to_bytes(8, "little") for lane in state)[:rate]
        if len(out) >= out_len:
            return out[:out_len]
        state = keccak_p(state, rounds)
