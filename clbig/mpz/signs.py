"""Signed values (the mpz layer's signs): Python's int semantics on sign and magnitude.

A BigIntArray holds magnitudes on the device and its signs on the host (`neg`, see
clbig/mpz/array.py). Most operations here run the unsigned kernels on magnitudes and settle signs
on the host, with at most one extra pass where signs matter; &, |, ^ and >> have kernels of
their own that settle the signs on the device:
  * a ± b: one pass of add_n's op "ctl", which per instance adds |a| + |b|, subtracts
    |a| - |b| or |b| - |a|; where effective signs differ, a comparison of the magnitudes (one
    pass) decides which;
  * floor division: |a| divmod |b|, then q + 1 and |b| - r where the signs differ and r != 0;
  * a >> k of a negative a: -ceil(|a| / 2^k) = -((|a| + 2^k - 1) >> k), one launch
    (clbig/mpn/shift.py's shift_right_signed) that reads the sign marks on the device; the result
    keeps a's marks (a -0 stays a -0). Where an instance does not fit one work-group:
    -(((|a| - 1) >> k) + 1) in three passes after a zero test;
  * &, |, ^: a negative x reads as ~(|x| - 1) = ~|x| + 1 in infinite two's complement, so with
    x' = |x| - 1 (negative x) or |x|, and masks ix = all ones where x < 0:
        a OP b = ((a' ^ ia) OP (b' ^ ib)),  negative iff (a < 0) OP (b < 0) =: io,
    and the magnitude of a negative result is (r ^ io) + 1. One launch (clbig/mpn/bitwise.py's
    `signed`) does all of it, the zero tests included, from the limbs and sign-mark bytes and
    hands back the result's sign bytes (one read of n bytes, none for & with an operand
    without negatives); where an instance does not fit one work-group, zero tests, |x| - 1
    passes, the map (clbig/mpn/bitwise.py's `bitwise`) and a + 1 pass do it;
    Capacities of &, |, ^ and >>: the sign marks alone decide them, so the one-launch paths
    need no zero test first: one bit more than the unsigned result's where a negative result
    is possible by the marks (& : both operands marked; |, ^: either; >>: a marked), even
    where the marks turn out to sit on zeros only (then one bit more than needed; the values
    stay exact). Operands with no mark (neg None or all false) take the unsigned kernels;
  * ~a = -a - 1, a ** k by squares and products, isqrt by Newton's iteration.
"zero marked negative" (-0) is 0 everywhere; `clean_neg` drops those marks by a zero test
where an operation must know (|x| - 1 of a zero would wrap).
"""
from __future__ import annotations


import numpy as np

from ..mpn import add_n, bitwise as _bitwise, compare as _compare, shift as _shift
from ..mpn.add_n import CTL_CIN, CTL_DROP_B, CTL_NOT_B, CTL_NOT_R
from .array import BigIntArray, check_fits, limbs_for
from .dispatch import rows

_KEEP, _PLUS1, _MINUS1 = CTL_DROP_B, CTL_DROP_B | CTL_CIN, CTL_DROP_B | CTL_NOT_B


# -- sign bookkeeping -----------------------------------------------------------------------
def neg_of(x: BigIntArray, n: int, stride: int) -> np.ndarray:
    """x's sign marks broadcast to n instances (stride 0: x's one value everywhere)."""
    if x.neg is None:
        return np.zeros(n, bool)
    return np.broadcast_to(x.neg, (n,)).copy() if stride == 0 and n != len(x) else x.neg.copy()


def nonzero(x: BigIntArray) -> np.ndarray:
    """Where x's magnitude is not zero (one comparison pass)."""
    if not len(x):
        return np.zeros(0, bool)
    zero = x.ctx.to_device(np.zeros(1, np.uint32))
    return _compare.compare3(x.ctx, x.data.data, x.m, x.m, zero.data, 0, 1, len(x)) != 0


def marked(x: BigIntArray) -> bool:
    """x has a value marked negative (maybe a -0)."""
    return x.neg is not None and bool(x.neg.any())


def marks(x: BigIntArray):
    """x's sign marks as a device array of bytes (1 = marked negative)."""
    return x.ctx.to_device(np.ascontiguousarray(x.neg).view(np.uint8))


def clean_neg(x: BigIntArray) -> np.ndarray | None:
    """x's negative values (zeros not counted): None when none is."""
    if x.neg is None:
        return None
    neg = x.neg & nonzero(x)
    return neg if neg.any() else None


def sign(x: BigIntArray) -> np.ndarray:
    nz = nonzero(x)
    s = nz.astype(np.int8)
    if x.neg is not None:
        s[x.neg & nz] = -1
    return s


def pick(mask: np.ndarray, yes: int, no: int) -> np.ndarray:
    """Control bytes: `yes` where mask, else `no` (uint8 arithmetic: batches of millions)."""
    return (mask.view(np.uint8) * np.uint8(yes ^ no)) ^ np.uint8(no)


def with_neg(x: BigIntArray, neg) -> BigIntArray:
    return BigIntArray(x.ctx, x.data, x.bits, neg)


def whole_limbs(bits: int) -> int:
    """bits rounded up to whole limbs: the width an exact result's kernel computes modulo.
    Where the result fits `bits` (every exact sum, difference and product does), reducing
    modulo 2^(32 ceil(bits / 32)) gives the same limbs, and the kernel depends on the limb
    counts only, not on the bit count: a loop whose capacity grows a bit a step (s = s + s)
    builds one kernel per limb count instead of one per step (issue 43). A borrow out of the
    whole limbs says a - b < 0 as one out of bit `bits` does, both operands being below 2^bits."""
    return 32 * -(-bits // 32)


def ctl_pass(ctx, a, sa: int, ma: int, b, sb: int, mb: int, n: int, bits: int, ctl: np.ndarray):
    """One pass of add_n's op "ctl" with per-instance control bytes `ctl` (numpy); every
    caller's result fits `bits`, so the kernel runs on whole limbs (whole_limbs)."""
    if len(ctl) != n:   # the kernel reads a byte per row: a short array would be read past
        raise AssertionError(f"ctl_pass: {len(ctl)} control bytes for {n} rows")
    if n == 0:          # nothing to launch (and an empty control array has no device buffer)
        return ctx.empty((0, -(-bits // 32)), np.uint32)
    c = ctx.to_device(np.ascontiguousarray(ctl, dtype=np.uint8))
    out, _ = add_n.addsub(ctx, "ctl", a, sa, ma, b, sb, mb, n, whole_limbs(bits), ctl=c.data)
    return out


def step(x: BigIntArray, ctl: np.ndarray, bits: int | None = None) -> BigIntArray:
    """|x| + 1 / |x| - 1 / |x| per instance (_PLUS1 / _MINUS1 / _KEEP in ctl), unsigned."""
    bits = x.bits if bits is None else bits
    out = ctl_pass(x.ctx, x.data.data, x.m, x.m, x.data.data, x.m, x.m, len(x), bits, ctl)
    return BigIntArray(x.ctx, out, bits)


# -- + and - --------------------------------------------------------------------------------
def addsub(op: str, a: BigIntArray, b: BigIntArray, n: int, sa: int, sb: int) -> BigIntArray:
    """Exact a + b or a - b with any signs (ops.add / ops.sub send the signed cases here).
    Capacity max(a.bits, b.bits), plus one where some instance adds magnitudes."""
    ctx = a.ctx
    ea, eb = neg_of(a, n, sa), neg_of(b, n, sb)
    if op == "sub":
        eb = ~eb
    same = ea == eb                       # magnitudes add; elsewhere they subtract
    bits = max(a.bits, b.bits) + (1 if same.any() else 0)
    check_fits(ctx, n, bits, f"a {'+' if op == 'add' else '-'} b")
    ctl, neg = np.zeros(n, np.uint8), ea
    diff = ~same
    if diff.any():
        c = _compare.compare3(ctx, a.data.data, sa, a.m, b.data.data, sb, b.m, n)
        lt = diff & (c == 1)
        # |a| - |b| with a's sign where |a| >= |b|; |b| - |a| = ~(|a| + ~|b|) with b's elsewhere
        ctl = pick(diff, CTL_NOT_B | CTL_CIN, 0) ^ pick(lt, CTL_CIN ^ CTL_NOT_R, 0)
        neg = ((lt & eb) | (~lt & ea)) & ~(diff & (c == 0))   # (np.where: slow on random masks)
    out = ctl_pass(ctx, a.data.data, sa, a.m, b.data.data, sb, b.m, n, bits, ctl)
    return BigIntArray(ctx, out, bits, neg)


def sub_unsigned(a: BigIntArray, b: BigIntArray, n: int, sa: int, sb: int) -> BigIntArray:
    """a - b of non-negative operands: today's one pass where a >= b everywhere; where some
    b > a (the borrow flags say where), a second pass makes those |b| - |a|, negative."""
    ctx = a.ctx
    bits = max(a.bits, b.bits)
    out, borrow = add_n.addsub(ctx, "sub", a.data.data, sa, a.m, b.data.data, sb, b.m, n,
                               whole_limbs(bits), want_flag=True)
    if not borrow.any():
        return BigIntArray(ctx, out, bits)
    ctl = pick(borrow, CTL_NOT_B | CTL_NOT_R, CTL_NOT_B | CTL_CIN)
    out = ctl_pass(ctx, a.data.data, sa, a.m, b.data.data, sb, b.m, n, bits, ctl)
    return BigIntArray(ctx, out, bits, borrow)


# -- comparison -----------------------------------------------------------------------------


def cmp_code(m: np.ndarray) -> np.ndarray:
    """-1 / 0 / 1 back to compare3's codes 1 / 0 / 2 (arithmetic: no gathers, no np.where)."""
    return (m == -1).view(np.uint8) | ((m == 1).view(np.uint8) << np.uint8(1))
def compare3(a: BigIntArray, b: BigIntArray, n: int, sa: int, sb: int) -> np.ndarray:
    """-1 / 0 / 1 (int8) per instance, signed."""
    c = _compare.compare3(a.ctx, a.data.data, sa, a.m, b.data.data, sb, b.m, n)
    m = (c == 2).view(np.int8) - (c == 1).view(np.int8)   # codes 0 / 1 / 2: equal, less, greater
    if a.neg is None and b.neg is None:
        return m
    ea, eb = neg_of(a, n, sa), neg_of(b, n, sb)
    diff = ea != eb
    # equal signs: the magnitudes decide; differing signs: the negative is less...
    d = diff.view(np.int8)
    res = (m * (1 - d) + d) * (1 - 2 * ea.view(np.int8))
    both0 = diff & (c == 0)                           # ...unless both are zero
    if both0.any():
        za = ~nonzero(a)
        za = np.broadcast_to(za, (n,)) if sa == 0 and n != len(a) else za
        res[both0 & za] = 0
    return res


# -- multiplication, negation ---------------------------------------------------------------
def product_neg(a: BigIntArray, b: BigIntArray, n: int, sa: int, sb: int):
    if a.neg is None and b.neg is None:
        return None
    return neg_of(a, n, sa) ^ neg_of(b, n, sb)


@rows("add")
def negative(x: BigIntArray) -> BigIntArray:
    """-x: the same magnitudes (shared: operations never write into an array), signs flipped."""
    neg = np.ones(len(x), bool) if x.neg is None else ~x.neg
    return with_neg(x, neg)


@rows("add")
def invert(x: BigIntArray) -> BigIntArray:
    """~x = -x - 1: |x| + 1 (negative) where x >= 0, |x| - 1 (non-negative) where x < 0."""
    neg = clean_neg(x)
    if neg is None:
        neg = np.zeros(len(x), bool)
    bits = x.bits + (0 if neg.all() else 1)
    out = step(x, pick(neg, _MINUS1, _PLUS1), bits)
    return with_neg(out, ~neg)


# -- division and shifts --------------------------------------------------------------------
def floor_divmod(a: BigIntArray, b: BigIntArray, n: int, sa: int, sb: int, q: BigIntArray,
                 r: BigIntArray):
    """Python's floor quotient and remainder from those of the magnitudes, q and r."""
    ea, eb = neg_of(a, n, sa), neg_of(b, n, sb)
    diff = ea != eb
    if not diff.any():
        return q, with_neg(r, eb)          # both negative: q > 0, r takes the sign of b
    fix = diff & nonzero(r)                 # -(q + 1) and |b| - r with b's sign
    if fix.any():
        q = step(q, pick(fix, _PLUS1, _KEEP))   # q + 1 <= |a|: |b| >= 2
        ctl = pick(fix, CTL_NOT_B | CTL_NOT_R, _KEEP)   # ~(r + ~|b|)
        out = ctl_pass(a.ctx, r.data.data, r.m, r.m, b.data.data, sb, b.m, n, r.bits, ctl)
        r = BigIntArray(a.ctx, out, r.bits)
    return with_neg(q, diff), with_neg(r, eb)


def shift_right(a: BigIntArray, k, shift_mag, kmin: int | None = None):
    """a >> k with floor semantics; shift_mag(x, k, bits) shifts a magnitude array. k is one
    count, or per-row counts (any object shift_mag takes) whose least is kmin. Capacity
    max(a.bits - k, 1), or max(a.bits - k, 0) + 1 where a value is marked negative
    (-(2^bits - 1) >> 1 = -2^(bits-1): one bit more; conservative where only -0 is marked)."""
    low = k if kmin is None else kmin
    if not marked(a):
        return shift_mag(abs(a), k, max(a.bits - low, 1))
    bits = max(a.bits - low, 0) + 1
    if kmin is None:
        # from k = a.bits on every bit is shifted out: ceil(|a| / 2^k) = 1 (0 for a zero)
        out = _shift.shift_right_signed(a.ctx, a.data.data, a.m, a.m, len(a), min(k, a.bits),
                                        bits, marks(a).data)
        if out is not None:
            return BigIntArray(a.ctx, out, bits, a.neg)
    neg = clean_neg(a)                       # instances beyond one work-group: three passes
    if neg is None:
        return shift_mag(abs(a), k, bits)    # (the same capacity whichever the path)
    t = step(a, pick(neg, _MINUS1, _KEEP))
    t = shift_mag(t, k, bits)
    return with_neg(step(t, pick(neg, _PLUS1, _KEEP)), neg)


# -- bitwise --------------------------------------------------------------------------------
def select(pick_b: np.ndarray, a: BigIntArray, b: BigIntArray, bits: int) -> BigIntArray:
    """Per instance b where pick_b, else a (magnitudes of equal-length arrays), at `bits` (the
    picked values must fit)."""
    ctx = a.ctx
    if len(pick_b) != len(a) or len(b) != len(a):   # a byte and a row of each per row
        raise AssertionError(f"select: {len(pick_b)} choices for rows {len(a)} and {len(b)}")
    c = ctx.to_device(pick(pick_b, _bitwise.CTL_IA, 0))
    out = _bitwise.bitwise(ctx, "select", a.data.data, a.m, a.m, b.data.data, b.m, b.m, len(a),
                           limbs_for(bits), c.data)
    return BigIntArray(ctx, out, bits)
