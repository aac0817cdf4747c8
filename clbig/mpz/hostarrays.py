"""Array operators' first calls on the host (issue 43).

A process's first product, sum, quotient, inverse or gcd of arrays builds that operator's kernels:
0.1-0.8 s each on NVIDIA's compiler (bench/README.md, "First calls"), for a batch the host
computes in a millisecond. mpz.hostrows answers that for plain ints (rent until the rent paid
equals the price); this module does the same for arrays whose values the host holds: a small
batch clbig.array kept (`hostrows.keeps`) or a result computed here. Until the operator's
device path has run in the context, such a call runs row by row on the host, with the device
path's values, signs and capacities, and returns a host result (its limbs go to the device
when something reads them). Its time counts against the same allowance (HOST_FIRST_MS); once
that is spent, or the call is larger (hostrows.ARRAY_RENT_BITS), or any row is one the device
path refuses (a zero divisor, a non-invertible value where that raises), the device path runs,
with its errors, and marks the operator bought (`hostrows.bought`).

Products take any signs (their capacity is a.bits + b.bits whatever the signs); sums and
quotients only non-negative operands, where their capacity rules are the plain ones (signed
sums have cases: signs.addsub); signed ones go to the device as before.
"""
from __future__ import annotations

import operator
from itertools import starmap

import gmpy2
import numpy as np

from . import hostrows
from .array import BigIntArray, host_result


def _columns(ctx, family: str, n: int, xs: tuple) -> list | None:
    """One list of n host ints per operand (a length-one operand repeated), where every
    operand's values are on the host and the call may run there as a first call."""
    cols = []
    for x in xs:                 # most calls end here: arrays on the device (a few 100 ns)
        c = x.host_values()
        if c is None:
            return None
        cols.append(c)
    if not hostrows.renting(ctx, family, n, max(x.bits for x in xs)):
        return None
    return [c if len(c) == n else c * n for c in cols]


def mul(a: BigIntArray, b: BigIntArray, n: int, bits: int) -> BigIntArray | None:
    """a * b of capacity `bits` on the host as a first call, or None."""
    return _rowwise("mul", operator.mul, a, b, n, bits)


def add(a: BigIntArray, b: BigIntArray, n: int, bits: int) -> BigIntArray | None:
    """a + b of non-negative operands, capacity `bits`, on the host as a first call, or None."""
    return _rowwise("add", operator.add, a, b, n, bits)


def _rowwise(family: str, op, a: BigIntArray, b: BigIntArray, n: int, bits: int):
    """op of each row's two values, capacity `bits`, as a first call of `family`, or None."""
    cols = _columns(a.ctx, family, n, (a, b))
    if cols is None:
        return None
    vals = hostrows.rented(a.ctx, family, lambda: list(starmap(op, hostrows.paced(zip(*cols)))))
    return None if vals is None else host_result(a.ctx, vals, bits)


def divmod(a: BigIntArray, b: BigIntArray, n: int) -> tuple[BigIntArray, BigIntArray] | None:
    """(a // b, a % b) of non-negative operands, capacities a.bits and b.bits, on the host as
    a first call, or None (a zero divisor included: the device path names it)."""
    cols = _columns(a.ctx, "div", n, (a, b))
    if cols is None or 0 in cols[1]:
        return None

    def rows():      # GMP's division: several times CPython's own at thousands of bits
        qr = [gmpy2.f_divmod(x, y) for x, y in hostrows.paced(zip(*cols))]
        return [int(q) for q, _ in qr], [int(r) for _, r in qr]
    got = hostrows.rented(a.ctx, "div", rows)
    if got is None:
        return None
    return host_result(a.ctx, got[0], a.bits), host_result(a.ctx, got[1], b.bits)


def gcd(a: BigIntArray, b: BigIntArray, n: int) -> BigIntArray | None:
    """The gcds of a and b (any signs), on the host as a first call, or None: capacity
    min(a.bits, b.bits), or max(a.bits, b.bits) where a zero beside a wider value does not fit
    it (the device path's rule: it runs again wider)."""
    cols = _columns(a.ctx, "gcd", n, (a, b))
    if cols is None:
        return None
    vals = hostrows.rented(a.ctx, "gcd", lambda: [int(gmpy2.gcd(x, y)) for x, y in hostrows.paced(zip(*cols))])
    if vals is None:
        return None
    bits = min(a.bits, b.bits)
    if max(vals, default=0).bit_length() > bits:
        bits = max(a.bits, b.bits)
    return host_result(a.ctx, vals, bits)


def invert(a: BigIntArray, m: BigIntArray, n: int, strict: bool):
    """The inverses of a modulo m (a >= 0, m >= 1), capacity m.bits, on the host as a first
    call: an array, or with strict=False (array, ok); None where a modulus is 0, or (strict)
    a value has no inverse: the device path raises, naming the index."""
    cols = _columns(a.ctx, "invert", n, (a, m))
    if cols is None or 0 in cols[1]:
        return None

    def rows():
        out, ok = [], []
        for x, y in hostrows.paced(zip(*cols)):
            try:
                out.append(int(gmpy2.invert(x, y)) if y != 1 else 0)
                ok.append(True)
            except ZeroDivisionError:          # no inverse
                if strict:
                    return None
                out.append(0)
                ok.append(False)
        return out, ok
    got = hostrows.rented(a.ctx, "invert", rows)
    if got is None:
        return None
    inv = host_result(a.ctx, got[0], m.bits)
    return inv if strict else (inv, np.array(got[1], bool))
