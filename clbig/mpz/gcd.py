"""Greatest common divisors and modular inverses of batches (the mpz layer over clbig.mpn.gcd_n):
operand coercion, broadcasting, Python's semantics and errors.

    gcd(a, b)                    gcd(0, 0) = 0; capacity min(a.bits, b.bits), see below
    invert(a, m, strict=True)    a^-1 mod m (as pow(a, -1, m)); capacity m.bits

Operands are BigIntArrays, ints / gmpy2 mpz or lists; lengths match or one side has length one
and broadcasts. Two plain integers give a plain int (invert with strict=False: (int, bool)).

gcd's result fits min(a.bits, b.bits) wherever both operands are non-zero; where one is zero
the result is the other operand, which may be wider: if any such value does not fit, the whole
result takes max(a.bits, b.bits) (the kernel reports it; it runs again, wider).

invert follows pow(a, -1, m): a is reduced mod m, m = 1 gives 0, m = 0 raises ValueError
naming the first such index. Where no inverse exists, strict=True raises ValueError naming the
first such index; strict=False returns (inv, ok) with 0 there and ok a numpy bool array.
Odd moduli run the binary kernel directly. An even modulus m (a rare case: the binary method
divides by 2 mod m) goes through an odd one: x = a mod m must be odd, z = m^-1 mod x by the
kernel, and then x (m - k) = m (x - z) + 1 for k = (m z - 1) / x, so the inverse is m - k,
computed with clbig's exact products and divisions; those rows are gathered and scattered back
on the host.
"""
from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from ..mpn import gcd_n
from ..mpn.div_q import bitlen
from . import hostarrays, hostrows, signs
from .array import BigIntArray, from_limbs, limbs_for
from .coerce import is_scalar, operands
from .ops import add, divmod_arrays, floordiv, mod, mul, sub
from .dispatch import rows

if TYPE_CHECKING:   # a hint only: modular imports this module (invert), so not at run time
    from .modular import Modulus
    from .types import Operand


def _empty(ctx, bits: int) -> BigIntArray:
    return BigIntArray(ctx, ctx.empty((0, limbs_for(bits)), np.uint32), bits)


def _check_fail(stat, what: str):
    bad = np.nonzero(stat & gcd_n.FAIL)[0]
    if len(bad):   # Pornin's bound held on every input tried: this is a bug, never wrong output
        raise RuntimeError(f"{what}: the binary GCD exceeded its round bound at index {int(bad[0])}")


@rows("gcd")
def gcd(a: Operand, b: Operand) -> BigIntArray | int:
    """The greatest common divisor of every pair, exactly as Python's `math.gcd`.

    Non-negative whatever the signs (``gcd(-4, 6) == 2``), and ``gcd(0, 0) == 0``. A binary
    GCD on the device, one pair per work-item. Operands broadcast: each has the batch's
    length or length one.

    The result's capacity is ``min(a.bits, b.bits)`` wherever both operands are non-zero;
    where one is zero the result is the other operand, which may be wider: if such a value
    does not fit, the whole result takes ``max(a.bits, b.bits)`` (the kernel reports it and
    runs again, wider).

    Parameters
    ----------
    a, b : BigIntArray, int, list of int, or integer numpy array
        The operands, any signs.

    Returns
    -------
    BigIntArray or int
        The gcds; an int for two plain integers.

    Raises
    ------
    ValueError
        For lengths that differ and are not one.
    TypeError
        For an operand that is not an integer or a sequence of them.
    RuntimeError
        Where the binary GCD exceeds its round bound (never seen: it would be a bug, and it
        is raised instead of a wrong value).

    Examples
    --------
    >>> import clbig
    >>> clbig.gcd([12, -4, 0], [18, 6, 0])
    BigIntArray([6, 2, 0], n=3, bits=32)
    >>> clbig.gcd(clbig.array([12]), [18, 8, 7]).tolist(), clbig.gcd(-4, 6)
    ([6, 4, 1], 2)
    """
    if is_scalar(a) and is_scalar(b):
        return gcd([a], [b]).tolist()[0]
    a, b, n, sa, sb = operands(a, b, signed=True)
    if n:
        got = hostarrays.gcd(a, b, n)         # a first call on values the host holds
        if got is not None:
            return got
    a, b = abs(a), abs(b)                     # math.gcd(-4, 6) == 2: magnitudes, same limbs
    bits = min(a.bits, b.bits)
    if n == 0:
        return _empty(a.ctx, bits)
    ctx = a.ctx
    hostrows.bought(ctx, "gcd")
    out, stat = gcd_n.gcd(ctx, a.data.data, sa, a.m, b.data.data, sb, b.m, n, limbs_for(bits), bits)
    _check_fail(stat, "gcd")
    if not (stat & gcd_n.OK).all():         # a zero operand beside a wider value
        bits = max(a.bits, b.bits)
        out, stat = gcd_n.gcd(ctx, a.data.data, sa, a.m, b.data.data, sb, b.m, n,
                              limbs_for(bits), bits)
        _check_fail(stat, "gcd")
    return BigIntArray(ctx, out, bits)


@rows("gcd")
def invert(a: Operand, m: Operand | Modulus, strict: bool = True
           ) -> BigIntArray | int | tuple[BigIntArray, np.ndarray] | tuple[int, bool]:
    """The inverse of every a modulo m, as Python's ``pow(a, -1, m)``.

    a is reduced mod m first (negative a too: ``pow(-3, -1, 7) == 2``), and m = 1 gives 0.
    Odd moduli run the binary algorithm on the device directly; an even modulus (rare: the
    binary method divides by 2 mod m) goes through the odd modulus x = a mod m with clbig's
    exact products and divisions, those rows gathered and scattered back on the host.
    Operands broadcast: each has the batch's length or length one.

    Parameters
    ----------
    a : BigIntArray, int, list of int, or integer numpy array
        The values to invert, any signs.
    m : BigIntArray, int, list of int, integer numpy array, or Modulus
        The moduli, every one >= 1 (a Modulus: its moduli).
    strict : bool, optional
        True (the default): raise where no inverse exists. False: return the inverses with 0
        there, and a mask of where one exists.

    Returns
    -------
    BigIntArray or int or tuple
        The inverses, of capacity m.bits; with ``strict=False`` a pair (inverses, ok), ok a
        numpy bool array. Two plain integers give an int, or (int, bool).

    Raises
    ------
    ValueError
        Where a modulus is 0 or negative, or (with `strict`) where a is not invertible, in
        each case naming the first such index; for lengths that differ and are not one.
    TypeError
        For an operand that is not an integer or a sequence of them.
    RuntimeError
        Where the binary algorithm exceeds its round bound (a bug, raised instead of a
        wrong value).

    Examples
    --------
    >>> import clbig
    >>> clbig.invert([3, 2, -3], [7, 9, 7]).tolist()
    [5, 5, 2]
    >>> clbig.invert([2, 3], 4, strict=False)
    (BigIntArray([0, 3], n=2, bits=3), array([False,  True]))
    >>> clbig.invert(2, 4)
    Traceback (most recent call last):
    ...
    ValueError: invert: not invertible (gcd(a, m) != 1) at index 0
    """
    if not isinstance(m, BigIntArray) and isinstance(getattr(m, "m", None), BigIntArray):
        m = m.m                                  # a Modulus: its moduli
    if is_scalar(a) and is_scalar(m):
        r = invert([a], [m], strict)
        return r.tolist()[0] if strict else (r[0].tolist()[0], bool(r[1][0]))
    a, m, n, sa, sm = operands(a, m, signed=True)
    mneg = signs.clean_neg(m) if m.neg is not None else None
    if mneg is not None and mneg.any():
        i = int(np.argmax(mneg))
        raise ValueError(f"invert: the modulus is negative at index {i} (moduli are positive)")
    if a.neg is None and m.neg is None:
        got = hostarrays.invert(a, m, n, strict)     # a first call on values the host holds
        if got is not None:
            return got
    if a.neg is not None and a.neg.any():       # pow(-3, -1, 7): a reduced mod m first
        _no_zero_modulus(m)
        a = mod(a, m)
        sa = 0 if (len(a) == 1 and n != 1) else a.m
    ctx, bits = a.ctx, m.bits
    if n == 0:
        return _empty(ctx, bits) if strict else (_empty(ctx, bits), np.zeros(0, bool))
    if a.bits > m.bits:                       # the kernel takes a of at most m's limbs
        _no_zero_modulus(m)
        a = mod_rows(a, m, n, sa, sm)
        sa = a.m
    out, stat = gcd_n.invert(ctx, a.data.data, sa, a.m, m.data.data, sm, m.m, n)
    hostrows.bought(ctx, "invert")
    _check_fail(stat, "invert")
    zero = np.nonzero(stat & gcd_n.ZERO)[0]
    if len(zero):
        raise ValueError(f"invert: the modulus is 0 at index {int(zero[0])}")
    ok = (stat & gcd_n.OK) != 0
    even = np.nonzero(stat & gcd_n.EVEN)[0]
    if len(even):
        out, ok = _even_rows(a, sa, m, sm, out, ok, even)
    if strict and not ok.all():
        raise ValueError(f"invert: not invertible (gcd(a, m) != 1) at index {int(np.argmin(ok))}")
    res = BigIntArray(ctx, out, bits)
    return res if strict else (res, ok)


def _no_zero_modulus(m: BigIntArray):
    lens = m.ctx.get(bitlen(m.ctx, m.data.data, m.m, m.m, len(m)))[:len(m)]
    if not lens.all():
        raise ValueError(f"invert: the modulus is 0 at index {int(np.argmin(lens))}")


def mod_rows(a: BigIntArray, m: BigIntArray, n: int, sa: int, sm: int) -> BigIntArray:
    return divmod_arrays(a, m, n, sa, sm)[1]


def _rows(x: BigIntArray, stride: int, idx: np.ndarray) -> BigIntArray:
    """Rows idx of a possibly broadcast operand (stride 0: its one row), as a new array."""
    host = x.to_limbs()
    return from_limbs(host[idx if stride else np.zeros(len(idx), int)], bits=x.bits, ctx=x.ctx)


def _even_rows(a, sa, m, sm, out, ok, idx):
    """Inverses modulo the even moduli at rows idx, through the odd modulus x = a mod m (see
    the module doc), scattered into out and ok."""
    ctx = m.ctx
    mE = _rows(m, sm, idx)
    x = mod(_rows(a, sa, idx), mE)            # capacity m.bits
    xh = x.to_limbs()
    big = xh[:, 1:].any(axis=1) if xh.shape[1] > 1 else np.zeros(len(idx), bool)
    is_one = (xh[:, 0] == 1) & ~big
    good = (xh[:, 0] & 1).astype(bool) & ~is_one        # odd x > 1: the general case
    xh[~good] = 0
    xh[~good, 0] = 3                                    # any odd x > 1 keeps the rest defined
    x = from_limbs(xh, bits=x.bits, ctx=ctx)
    y = mod(mE, x)
    z, st = gcd_n.invert(ctx, y.data.data, y.m, y.m, x.data.data, x.m, x.m, len(idx))
    _check_fail(st, "invert")
    z = BigIntArray(ctx, z, x.bits)
    # k1 = (m z + x - 1) // x = k + 1 where m z - 1 = k x; the inverse m - k = (m + 1) - k1
    k1 = floordiv(add(mul(mE, z), sub(x, 1)), x)
    inv = sub(add(mE, 1), k1).to_limbs()[:, :m.m]
    has = good & ((st & gcd_n.OK) != 0)
    inv[~has] = 0
    inv[is_one] = 0
    inv[is_one, 0] = 1                                  # 1 * 1 = 1 mod any m >= 2
    host = ctx.get(out)
    host[idx] = inv
    ok = ok.copy()
    ok[idx] = has | is_one
    return ctx.to_device(host), ok


__all__ = ["gcd", "invert"]
