"""Exact powers x ** e and integer square roots, built on ops' products, shifts and divisions."""
from __future__ import annotations

import numbers

import numpy as np

from . import ops
from .array import BigIntArray, check_fits, limbs_for
from .dispatch import rows
from .ops import _coerce, _context_of
from .signs import _KEEP, _MINUS1, _PLUS1, clean_neg, pick, select, step, with_neg


@rows("mul")
def power(x: BigIntArray, e) -> BigIntArray:
    """x ** e for an integer e >= 0, exact (capacity x.bits * e): squares and products."""
    if isinstance(e, (bool, np.bool_)) or not isinstance(e, numbers.Integral) and not _is_mpz(e):
        raise TypeError(f"BigIntArray ** e: e must be an integer >= 0, got {type(e).__name__} "
                        "(pow(x, e, m) or clbig.powmod for modular powers)")
    e = int(e)
    if e < 0:
        raise ValueError(f"BigIntArray ** {e}: negative exponent (the result would not be an integer)")
    n = len(x)
    if e == 0:                                   # 0 ** 0 == 1, as Python's
        one = np.zeros((n, 1), np.uint32)
        one[:, 0] = 1
        return BigIntArray(x.ctx, x.ctx.to_device(one), 1)
    check_fits(x.ctx, n, x.bits * e, f"a ** {e}")
    odd = e & 1                                  # the sign: negative iff x < 0 and e odd
    base, acc = abs(x), None
    while True:
        if e & 1:
            acc = base if acc is None else ops.mul(acc, base)
        e >>= 1
        if not e:
            break
        base = ops.mul(base, base)
    return with_neg(acc, x.neg if odd else None)


def isqrt_array(x: BigIntArray) -> BigIntArray:
    """floor(sqrt(x)) of non-negative x by Newton's iteration y = (z + x // z) // 2 from
    z = 2^ceil(bitlen/2) >= sqrt(x): z decreases to isqrt(x), where y >= z first. The batch
    iterates until no element decreases (each keeps its own z). Capacity ceil(x.bits / 2)."""
    neg = clean_neg(x)
    if neg is not None:
        i = int(np.argmax(neg))
        raise ValueError(f"isqrt: element {i} is negative")
    ctx, n = x.ctx, len(x)
    cap = -(-x.bits // 2)
    if n == 0:
        return BigIntArray(ctx, ctx.empty((0, limbs_for(cap)), np.uint32), cap)
    x = abs(x)
    bl = x.bit_length()
    zero = bl == 0
    if zero.any():                               # isqrt(1) = 1 instead of a division by 0
        x = step(x, pick(zero, _PLUS1, _KEEP), x.bits)
        bl = np.maximum(bl, 1)
    e = (bl + 1) // 2                            # 2^e >= sqrt(x), and < 2^(cap + 1)
    m0 = limbs_for(cap + 1)
    z0 = np.zeros((n, m0), np.uint32)
    z0[np.arange(n), e // 32] = np.left_shift(np.uint32(1), (e % 32).astype(np.uint32))
    z = BigIntArray(ctx, ctx.to_device(z0), cap + 1)
    while True:
        y = ops.shift_right(ops.add(z, ops.floordiv(x, z)), 1)
        down = ops.compare(y, z, "lt")
        if not down.any():
            break
        z = select(down, z, y, cap + 1)          # y < z: fits z's capacity
    z = BigIntArray(ctx, z.data, cap + 1)
    if zero.any():
        z = step(z, pick(zero, _MINUS1, _KEEP), cap + 1)
    out = select(np.zeros(n, bool), z, z, cap)   # at the result's capacity (isqrt < 2^cap)
    return out


def _is_mpz(e) -> bool:
    import gmpy2
    return isinstance(e, type(gmpy2.mpz(0)))


@rows("div")
def isqrt(a) -> BigIntArray:
    """floor(sqrt(a)) of every element (math.isqrt), exact, capacity ceil(a.bits / 2);
    ValueError naming the first negative element."""
    return isqrt_array(_coerce(a, _context_of(a), "a", signed=True))
