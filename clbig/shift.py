"""Bit shifts of limb vectors (mpn_lshift / mpn_rshift)."""
from __future__ import annotations

import numpy as np

from . import plan as P
from .render import kernel, largest_fitting, launch, memo


def shift(ctx, a, sa: int, ma: int, n: int, k: int, left: bool, bits_out: int):
    """a << k (left) or a >> k, as an (n, ceil(bits_out/32)) device array."""
    mr = P.ceil_div(bits_out, 32)
    out = ctx.empty((n, mr), np.uint32)
    if n == 0:
        return out
    # The kernel and its work-group depend only on the widths and the direction (memoized:
    # the search below cost ~10 µs a call, ~100 calls per huge division).
    key = ("shift", ma, mr, left)
    plans = memo(ctx)
    got = plans.get(key)
    if got is None:
        got = plans[key] = largest_fitting(min(256, ctx.max_items), lambda wg: kernel(
            ctx, "shift.cl.mako", "shift", wg, MA=ma, MR=mr, LEFT=left, WG=wg))
    krn, wg = got
    launch(ctx, krn, P.ceil_div(n * mr, wg), wg, a, np.uint64(sa), out.data, np.uint32(n),
           np.uint64(k // 32), np.uint32(k % 32))
    return out
