"""Montgomery products and powers with the widths at run time (kernels_cl/mont_loop.cl.mako).

The first tier of the CPUs' modular arithmetic (issue 43): one build serves every width, where
mont and mont52 build a kernel per width whose first launch PoCL compiles for seconds. The
calls are mont's and mont52's (`mpz.modular._kernel` hands out one of the three), so the
plan is {"NP": nm}: R = B^nm, operands of at most nm limbs, r2 = R^2 mod m. Results are exact
(n, nm) device arrays for odd moduli. Slower per product than the unrolled kernels; runtime.tiers
gives a width its own kernel once it has been asked for often enough.
"""
from __future__ import annotations

import numpy as np

from ..runtime import plan as P
from ..runtime.render import kernel, launch
from .mont import window

SCRATCH = 64 << 20          # bytes of scratch rows per launch: larger batches run in chunks


def plan(ctx, nm: int, n: int) -> dict:
    return {"NP": nm}


def fit(pl) -> int:
    return pl["NP"]


def rbits(pl) -> int:
    return 32 * pl["NP"]


def _run(ctx, name: str, k_bases: int, n: int, nm: int, per: int, args: list, tail: list):
    """Launch `name` over n rows in chunks whose scratch rows fit SCRATCH bytes."""
    k = kernel(ctx, "mont_loop.cl.mako", name + "_loop", None, KERNEL=name, K=k_bases)
    wg, rows = P.scratch_rows(ctx, n, 4 * per, SCRATCH)
    scr = ctx.buffer(4 * per * rows)
    for first in range(0, n, rows):
        g = P.ceil_div(min(rows, n - first), wg)
        launch(ctx, k, g, wg, *args, scr, np.uint64(per), *tail, np.uint32(first), np.uint32(n))


def _per(nm: int, tables: int = 0, w: int = 0) -> int:
    """Scratch words per item: t (nm + 2), y, x, m, r2, then the tables."""
    return 5 * nm + 2 + (tables * nm << w)


def mulmod(ctx, pl, a, sa, ma, b, sb, mb, m, sm, nm, r2, sr2, n):
    """a*b mod m for n instances (ma, mb <= nm limbs); an (n, nm) device array."""
    out = ctx.empty((n, nm), np.uint32)
    if n:
        _run(ctx, "mulmod", 0, n, nm, _per(nm),
             [a, np.uint64(sa), np.uint32(ma), b, np.uint64(sb), np.uint32(mb), m, np.uint64(sm),
              np.uint32(nm), r2, np.uint64(sr2), out.data], [])
    return out


def powmod(ctx, pl, a, sa, ma, e, se, me, m, sm, nm, r2, sr2, n, w=None):
    """a^e mod m for n instances (ma <= nm limbs of a, me of e); an (n, nm) device array."""
    out = ctx.empty((n, nm), np.uint32)
    if n:
        w = w or ctx.profile.settings.mont_w or window(32 * me)
        _run(ctx, "powmod", 0, n, nm, _per(nm, 1, w),
             [a, np.uint64(sa), np.uint32(ma), e, np.uint64(se), np.uint32(me), m, np.uint64(sm),
              np.uint32(nm), r2, np.uint64(sr2), out.data], [np.uint32(w)])
    return out


def multi_powmod(ctx, pl, bases, exps, m, sm, nm, r2, sr2, n, ebits, w=None):
    """prod_k b_k^e_k mod m for n instances by one chain of squares (the contract of
    mont52_powm.multi_powmod); an (n, nm) device array."""
    out = ctx.empty((n, nm), np.uint32)
    if n:
        K = len(bases)
        w = w or ctx.profile.settings.mont_w or window(ebits)
        args = []
        for (b, sb, mb), (e, se, me) in zip(bases, exps):
            args += [b, np.uint64(sb), np.uint32(mb), e, np.uint64(se), np.uint32(me)]
        _run(ctx, "multipow", K, n, nm, _per(nm, K, w),
             args + [m, np.uint64(sm), np.uint32(nm), r2, np.uint64(sr2), out.data],
             [np.uint32(w), np.uint32(P.ceil_div(ebits, w))])
    return out
