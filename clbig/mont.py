"""Montgomery products and powers of limb vectors (kernels_cl/mont.cl.mako), the mpn layer.

Every instance has its own odd modulus m (NM limbs, stride sm; 0 shares one) and R^2 mod m
(stride sr2), with R = B^NP for the plan's NP = C*Q >= NM limbs (`plan`). `mulmod` and
`powmod` return (n, NM) device arrays of exact results for the odd moduli; an even modulus's
row is meaningless (modular.py routes those elsewhere). `powmod(..., pow2=True)` computes
a^e mod B^NP instead (no modulus: the power-of-two part of an even modulus).

Shapes: one work-item per instance holds the whole number in registers up to ONE_MAX limbs
(no barriers, no local memory beyond the multiplier's row); larger moduli spread over C
items of Q limbs (one barrier per limb of the multiplier). An instance must fit one
work-group; `plan` returns None where it cannot (modular.py then composes clbig's mul and
divmod).
"""
from __future__ import annotations

import numpy as np

from . import plan as P
from .render import DoesNotFit, kernel, launch

# CLBIG_MONT_ONE, CLBIG_MONT_Q, CLBIG_MONT_ITEMS override these (tuning, and tests that force
# the cooperative shape on small sizes). H200, 2026-11-24, batches of 100000 with 512-bit
# exponents (bench/results/modular-h200-2026-11-24.log): one item per instance wins at 1024
# bits (3.48 M/s against 2.84 as 4 x 8 limbs) and at 2048 (0.87 against 0.78 as 2 x 32 and
# 0.74 as 8 x 8); from 4096 bits the fewest items of the most limbs win (4 x 32: 0.196 M/s,
# 8 x 16: 0.186; 8192 bits 8 x 32: 0.0499, 16 x 16: 0.0462): fewer barriers per product.
ONE_MAX = 64      # limbs one work-item holds alone
Q_COOP = (32, 16, 8)   # limbs per item when C > 1, the first that keeps C within ITEMS
ITEMS = 64        # work-items per group aimed at (128 measured the same at 1024 bits)


def shape(ctx, nm: int):
    """(Q, C) for moduli of nm limbs, or None when an instance cannot fit a work-group."""
    one = P.env_ints("CLBIG_MONT_ONE", (ONE_MAX,))[0]
    if nm <= one:
        return nm, 1
    items = P.env_ints("CLBIG_MONT_ITEMS", (ITEMS,))[0]
    qs = P.env_ints("CLBIG_MONT_Q", Q_COOP)
    for q in qs:
        c = P.ceil_div(nm, q)
        if c <= min(items, ctx.max_items) or q == qs[-1]:
            break
    q = max(q, 2)     # the one-barrier iteration needs each item's limb 1
    c = max(2, P.ceil_div(nm, q))
    if c > ctx.max_items or _local_bytes(q, c, 1, True) > ctx.local_mem:
        return None
    return q, c


def _local_bytes(q: int, c: int, ipb: int, pow2: bool) -> int:
    xld = q * c + 1
    words = ipb * xld * (2 if pow2 else 1)
    if c > 1:
        words += ipb * (5 * c + 2)
    return P.WORD * words + 16


def plan(ctx, nm: int, n: int, pow2: bool = False):
    """dict(Q, C, IPB, NP) for n instances of nm-limb moduli, or None (see shape)."""
    sh = shape(ctx, nm)
    if sh is None:
        return None
    q, c = sh
    items = P.env_ints("CLBIG_MONT_ITEMS", (ITEMS,))[0]
    ipb = max(1, min(items, ctx.max_items) // c)
    ipb = min(ipb, P.next_pow2(max(n, 1)))
    while ipb > 1 and _local_bytes(q, c, ipb, pow2) > ctx.local_mem:
        ipb //= 2
    return dict(Q=q, C=c, IPB=ipb, NP=q * c)


def window(ebits: int) -> int:
    """Window width for exponents of ebits bits: the fewest products ebits/W + 2^W."""
    return min(range(1, 8), key=lambda w: (P.ceil_div(ebits, w) + (1 << w), w))


def _build(ctx, pl, name, **params):
    """The kernel for plan pl, halving IPB while the build refuses the group size."""
    while True:
        wg = pl["IPB"] * pl["C"]
        try:
            return kernel(ctx, "mont.cl.mako", name, wg, KERNEL=name, Q=pl["Q"], C=pl["C"],
                          IPB=pl["IPB"], NP=pl["NP"], XLD=pl["NP"] + 1, **params), wg
        except DoesNotFit:
            if pl["IPB"] == 1:
                raise
            pl["IPB"] //= 2


def mulmod(ctx, pl, a, sa, ma, b, sb, mb, m, sm, nm, r2, sr2, n):
    """a*b mod m for n instances (ma, mb <= NP limbs); an (n, nm) device array."""
    out = ctx.empty((n, nm), np.uint32)
    if n == 0:
        return out
    pl = dict(pl)
    k, wg = _build(ctx, pl, "mulmod", NM=nm, MA=ma, MB=mb, ME=0, W=1, SHARED_E=False, POW2=False)
    launch(ctx, k, P.ceil_div(n, pl["IPB"]), wg, a, np.uint64(sa), b, np.uint64(sb), m,
           np.uint64(sm), r2, np.uint64(sr2), out.data, np.uint32(n))
    return out


def powmod(ctx, pl, a, sa, ma, e, se, me, m, sm, nm, r2, sr2, n, pow2=False, w=None):
    """a^e mod m (pow2: a^e mod B^NP, m and r2 unused) for n instances, ma <= NP limbs of a and
    me of e; an (n, nm) device array."""
    out = ctx.empty((n, nm), np.uint32)
    if n == 0:
        return out
    pl = dict(pl)
    w = w or window(32 * me)
    shared_e = se == 0
    k, wg = _build(ctx, pl, "powmod", NM=nm, MA=ma, MB=0, ME=me, W=w, SHARED_E=shared_e,
                   POW2=bool(pow2))
    groups = P.ceil_div(n, pl["IPB"])
    tab = ctx.buffer(P.WORD * (groups * pl["IPB"]) * pl["NP"] << w)
    if pow2:
        m = r2 = tab   # not read
    launch(ctx, k, groups, wg, a, np.uint64(sa), e, np.uint64(se), m, np.uint64(sm), r2,
           np.uint64(sr2), out.data, tab, np.uint32(n))
    return out
