"""Exact powers x ** e and integer square roots, built on ops' products, shifts and divisions."""
from __future__ import annotations

import numbers

import numpy as np

from . import ops
from .array import BigIntArray, check_fits, limbs_for
from .dispatch import rows
from .coerce import coerce, context_of, is_scalar
from .types import MPZ, Counts, Operand
from .signs import _KEEP, _MINUS1, _PLUS1, clean_neg, pick, select, step, with_neg


@rows("mul")
def power(x: Operand, e: Counts) -> BigIntArray:
    """x ** e, exact, for exponents e >= 0: one for the batch, or one per element.

    Parameters
    ----------
    x : BigIntArray, int, list of ints or integer ndarray
        The bases, any signs.
    e : int, or one exponent per element (list, ndarray or BigIntArray)
        Non-negative exponents; a length-one side broadcasts (``2 ** clbig.array([1, 2])``).

    Returns
    -------
    BigIntArray or int
        Capacity ``x.bits * max(e)`` (1 bit where every exponent is 0); an int when both
        arguments are plain ints. ``0 ** 0 == 1``, as Python's.

    Raises
    ------
    TypeError
        An exponent that is not an integer (its position named).
    ValueError
        A negative exponent (its position named): the result would not be an integer;
        ``pow(x, e, m)`` (clbig.powmod) takes negative exponents through the inverse.

    Examples
    --------
    >>> (clbig.array([3, -2, 10]) ** 3).tolist()
    [27, -8, 1000]
    >>> (2 ** clbig.array([0, 10, 100])).tolist()
    [1, 1024, 1267650600228229401496703205376]
    >>> (clbig.array([-3, -3, 7]) ** [2, 3, 0]).tolist()
    [9, -27, 1]
    """
    if isinstance(e, np.ndarray) and e.ndim == 0:     # one exponent, as numpy broadcasts it
        e = e[()]
    if isinstance(e, (bool, np.bool_)) or not isinstance(e, (numbers.Integral, list, tuple, np.ndarray, BigIntArray)) \
            and not _is_mpz(e):
        raise TypeError(f"x ** e: e must be an integer >= 0 or one per element, got {type(e).__name__} "
                        "(pow(x, e, m) or clbig.powmod for modular powers)")
    if not isinstance(e, (numbers.Integral,)) and not _is_mpz(e):
        try:
            counts = ops.shift_counts(e, "exponent")
        except ops.NegativeCount as err:
            raise ValueError(f"x ** e: {err}: the result would not be an integer (pow(x, e, m) "
                             "takes negative exponents)") from None
        except ValueError as err:
            raise ValueError(f"x ** e: {err}") from None
        return _power_rows(x, counts)
    x = coerce(x, context_of(x), "x", signed=True)
    e = int(e)
    if e < 0:
        raise ValueError(f"x ** {e}: negative exponent (the result would not be an integer; "
                         "pow(x, e, m) takes negative exponents)")
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


def _power_rows(x, e: list) -> BigIntArray:
    """x ** e[i] per element: 2^j ** e as one shift; else square-and-multiply over the bits
    of max(e), each product kept where the element's exponent has that bit."""
    if is_scalar(x) and int(x) > 0 and int(x) & (int(x) - 1) == 0:
        j = int(x).bit_length() - 1
        return ops.shift_left(1, [j * k for k in e])
    x, e, n = ops.per_row(x, e, "x ** e")
    if len(e) != n:                     # one exponent for every row: the masks below are per row
        e = e * n
    emax = max(e, default=0)
    cap = max(x.bits * emax, 1)
    check_fits(x.ctx, n, cap, "x ** e")
    ev = np.array(e, dtype=object)
    acc = BigIntArray(x.ctx, x.ctx.to_device(np.ones((n, 1), np.uint32)), 1)
    base = abs(x)
    for i in range(emax.bit_length()):
        use = ((ev >> i) & 1).astype(bool)
        if use.any():
            acc = select(use, acc, ops.mul_low(acc, base, cap), cap)
        if i + 1 < emax.bit_length():
            base = ops.mul_low(base, base, min(cap, 2 * base.bits))
    neg = clean_neg(x)
    if neg is not None:
        neg = neg & (ev % 2 == 1).astype(bool)
        neg = neg if neg.any() else None
    return with_neg(acc, neg)


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
    return isinstance(e, MPZ)


@rows("div")
def isqrt(a: Operand) -> BigIntArray:
    """floor(sqrt(a)) of every element (math.isqrt), exact.

    Parameters
    ----------
    a : BigIntArray, int, list of ints or integer ndarray
        Non-negative values.

    Returns
    -------
    BigIntArray or int
        Capacity ``ceil(a.bits / 2)``; an int when `a` is a plain int.

    Raises
    ------
    ValueError
        A negative element (the first one's index named).

    Examples
    --------
    >>> clbig.isqrt(clbig.array([0, 1, 99, 100, 10**40])).tolist()
    [0, 1, 9, 10, 100000000000000000000]
    >>> clbig.isqrt(99)
    9
    """
    return isqrt_array(coerce(a, context_of(a), "a", signed=True))
