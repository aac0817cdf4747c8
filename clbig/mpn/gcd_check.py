"""Known answers for the batched gcd and inverse kernels (clbig/gcd_n.py checks each built
specialisation on them once per context, through clbig/runtime/kernel_check.py).

A compiler fault that depends on the kernel's specialisation (Intel's CPU runtime, issue #33:
the private arrays' size, M digits, decided it) shows on any values run through that build,
so the values stay small (at most CAP_BITS) whatever M is, and the check costs one launch of N
instances. They mix everything the kernel branches on, among work-items vectorised together:
both operand orders (the kernel puts the odd one of a >> z, b >> z in y), common powers of two,
common odd factors, zeros, ones, equal operands, all-ones limbs, and for the inverse no inverse,
a >= w and a = w - 1.
"""
from __future__ import annotations

import math
import random

import numpy as np

N = 64                   # instances: more than a CPU runtime's vector lanes (Intel: 16)
CAP_BITS = {"gcd": 2048, "inv": 1024}   # the inverse's cofactors run all M digits every round


def limbs_for(mode: str, m: int) -> int:
    """32-bit limbs of the operands: what M digits hold (the inverse keeps a spare bit),
    at most CAP_BITS."""
    room = 30 * m - (1 if mode == "inv" else 0)
    return max(1, min(room // 32, CAP_BITS[mode] // 32))


def to_rows(values, limbs: int) -> np.ndarray:
    """(len(values), limbs) uint32 little-endian limbs."""
    out = np.zeros((len(values), limbs), np.uint32)
    for i, v in enumerate(values):
        for j in range(limbs):
            out[i, j] = (v >> (32 * j)) & 0xFFFFFFFF
    return out


def from_rows(rows: np.ndarray) -> list[int]:
    return [int.from_bytes(r.astype("<u4").tobytes(), "little") for r in rows]


def _width(rng: random.Random, bits: int) -> int:
    return rng.getrandbits(rng.randint(1, bits))


def gcd_cases(m: int):
    """(a, b, limbs, want): N pairs of at most limbs 32-bit limbs and their gcds."""
    limbs = limbs_for("gcd", m)
    bits = 32 * limbs
    top = (1 << bits) - 1
    rng = random.Random(f"gcd:{m}")
    pairs = [(0, 0), (0, 1), (1, 0), (0, top), (top, 0), (1, 1), (top, top), (top, top - 1),
             (top - 1, top), (2, 4), (4, 2), (1 << (bits - 1), top)]
    while len(pairs) < N:
        k = len(pairs)
        x, y = _width(rng, bits), _width(rng, bits)
        if k % 3 == 0:                       # a common odd factor and common powers of two
            g = (rng.getrandbits(max(1, bits // 3)) | 1) << rng.randint(0, 8)
            x, y = g * (x >> g.bit_length()), g * (y >> g.bit_length())
        # alternate the operand order the kernel picks (y: the odd one of x >> z, y >> z),
        # side by side in the batch: swap the pair where that gives this instance's order
        z = ((x | y) & -(x | y)).bit_length() - 1
        if z >= 0 and ((y >> z) & 1) != k % 2:
            x, y = y, x
        pairs.append((x & top, y & top))
    a, b = [p[0] for p in pairs], [p[1] for p in pairs]
    return a, b, limbs, [math.gcd(x, y) for x, y in pairs]


def inv_cases(m: int):
    """(a, w, limbs, want, ok): N pairs, w odd and >= 3, with a^-1 mod w (0 where none)."""
    limbs = limbs_for("inv", m)
    bits = 32 * limbs
    top = (1 << bits) - 1
    rng = random.Random(f"inv:{m}")
    pairs = [(0, 3), (1, 3), (2, 3), (3, 3), (top, top), (top - 1, top), (top, 5), (5, top)]
    while len(pairs) < N:
        k = len(pairs)
        w = _width(rng, bits) | 1
        w = w if w >= 3 else 3
        a = _width(rng, bits)                # often >= w
        if k % 4 == 1:
            a = w - 1
        elif k % 4 == 2:                     # no inverse: the common factor 3
            w, a = 3 * (rng.getrandbits(bits - 2) | 1), 3 * rng.getrandbits(bits - 2)
        pairs.append((a, w))
    a, w = [p[0] for p in pairs], [p[1] for p in pairs]
    want, ok = [], []
    for x, y in pairs:
        inv = pow(x, -1, y) if math.gcd(x, y) == 1 else 0
        want.append(inv)
        ok.append(math.gcd(x, y) == 1)
    return a, w, limbs, want, ok


def first_wrong(got: list[int], stat: np.ndarray, want: list[int], ok: list[bool],
                operands) -> str | None:
    """A description of the first instance whose value or ok bit (stat bit 0) differs, or
    which exceeded the round bound (bit 1); None when all are right."""
    for i, (g, w, o) in enumerate(zip(got, want, ok)):
        s = int(stat[i])
        if g != w or bool(s & 1) != o or s & 2:
            args = ", ".join(hex(v)[:24] for v in operands[i])
            return (f"instance {i} of ({args}): got {hex(g)[:24]} (status {s & 3}), "
                    f"want {hex(w)[:24]} (status {int(o)})")
    return None


__all__ = ["gcd_cases", "inv_cases", "first_wrong", "to_rows", "from_rows", "N"]
