"""Multiplication of limb vectors by the best algorithm for the size (GMP's mpn_mul).

`mul` has the contract of every multiplication module (mul_basecase, mul_ntt, mul_ssa):
(a * b) mod 2**bits for n instances of ma- and mb-limb operands with instance strides sa, sb
(0 broadcasts), returned as an (n, ceil(bits/32)) uint32 device array. Division and the
user-facing layer call this, never one algorithm directly, so they get the fastest one.
"""
from __future__ import annotations

from . import mul_basecase

ALGORITHMS = ("classical",)


def mul(ctx, a, sa: int, ma: int, b, sb: int, mb: int, n: int, bits: int, algorithm: str = "auto"):
    if algorithm not in ("auto",) + ALGORITHMS:
        raise ValueError(f"unknown multiplication algorithm {algorithm!r}; choose from auto, "
                         + ", ".join(ALGORITHMS))
    return mul_basecase.mul(ctx, a, sa, ma, b, sb, mb, n, bits)
