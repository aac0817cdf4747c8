"""Python's &, |, ^ on signed batches (infinite two's complement), over mpn.bitwise's kernels
and the sign-mark passes of signs (see signs' module doc for the scheme)."""
from __future__ import annotations

import numpy as np

from ..mpn import bitwise as _bitwise
from .array import BigIntArray, check_fits, limbs_for
from .dispatch import rows
from .coerce import operands
from .signs import _KEEP, _MINUS1, _PLUS1, clean_neg, marked, marks, neg_of, pick, step, with_neg

_IO = {"and": np.logical_and, "or": np.logical_or, "xor": np.logical_xor}


@rows("add")
def bitwise(op: str, a, b) -> BigIntArray:
    """a & b, a | b, a ^ b with Python's semantics (see module doc). Capacity max(a.bits,
    b.bits), plus one where a result can be negative by the sign marks alone (both operands
    marked for &, either for | and ^): -(2^bits) = -(2^bits - 1) & -2 needs it."""
    a, b, n, sa, sb = operands(a, b, signed=True)
    ctx = a.ctx
    ha, hb = marked(a), marked(b)
    if not ha and not hb:                        # non-negative: one map, no control bytes
        bits = max(a.bits, b.bits)
        check_fits(ctx, n, bits, f"a {op} b")
        out = _bitwise.bitwise(ctx, op, a.data.data, sa, a.m, b.data.data, sb, b.m, n,
                               limbs_for(bits), None)
        return BigIntArray(ctx, out, bits)
    can_neg = (ha and hb) if op == "and" else True
    bits = max(a.bits, b.bits) + int(can_neg)
    check_fits(ctx, n, bits, f"a {op} b")
    got = _bitwise.signed(ctx, op, a.data.data, sa, a.m, b.data.data, sb, b.m, n, limbs_for(bits),
                          marks(a).data if ha else None, 1 if sa else 0,
                          marks(b).data if hb else None, 1 if sb else 0)
    if got is not None:
        out, nr = got
        neg = None if nr is None else ctx.get(nr)[:n].view(bool)
        return BigIntArray(ctx, out, bits, neg if neg is not None and neg.any() else None)
    return _bitwise_passes(op, a, b, n, sa, sb, bits)


def _bitwise_passes(op, a, b, n, sa, sb, bits: int) -> BigIntArray:
    """bitwise() where an instance does not fit one work-group: zero tests, |x| - 1 passes,
    the masked map and a + 1 pass, at bitwise()'s capacity `bits` (the same whichever the
    path)."""
    ctx = a.ctx
    na, nb = clean_neg(a), clean_neg(b)
    if na is None and nb is None:                # only zeros were marked
        out = _bitwise.bitwise(ctx, op, a.data.data, sa, a.m, b.data.data, sb, b.m, n,
                               limbs_for(bits), None)
        return BigIntArray(ctx, out, bits)
    if na is not None:
        a = step(a, pick(na, _MINUS1, _KEEP))   # a' = |a| - 1
    if nb is not None:
        b = step(b, pick(nb, _MINUS1, _KEEP))
    ea = np.zeros(n, bool) if na is None else neg_of(with_neg(a, na), n, sa)
    eb = np.zeros(n, bool) if nb is None else neg_of(with_neg(b, nb), n, sb)
    io = _IO[op](ea, eb)
    ctl = pick(ea, _bitwise.CTL_IA, 0) | pick(eb, _bitwise.CTL_IB, 0) | pick(io, _bitwise.CTL_IO, 0)
    c = ctx.to_device(ctl)
    out = _bitwise.bitwise(ctx, op, a.data.data, sa, a.m, b.data.data, sb, b.m, n, limbs_for(bits),
                           c.data)
    r = BigIntArray(ctx, out, bits)
    if not io.any():
        return r
    return with_neg(step(r, pick(io, _PLUS1, _KEEP)), io)


