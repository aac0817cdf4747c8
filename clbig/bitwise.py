"""Limb-wise bitwise maps of limb vectors (the mpn layer under &, |, ^ and per-instance selects).

`bitwise` computes r = ((a ^ ia) OP (b ^ ib)) ^ io over mr limbs per instance, the masks ia,
ib, io (all ones or zero) chosen per instance by a control byte (CTL_*). With the two's
complement of a negative a read as ~(|a| - 1) (clbig/signs.py prepares |a| - 1), that is
Python's bitwise operation on signed values, computed on magnitudes. OP "select" picks b where
CTL_IA is set, else a (r = a or b per instance, one pass).
"""
from __future__ import annotations

import numpy as np

from . import plan as P
from .render import kernel, largest_fitting, launch

CTL_IA, CTL_IB, CTL_IO = 1, 2, 4
OPS = ("and", "or", "xor", "select")


def bitwise(ctx, op: str, a, sa: int, ma: int, b, sb: int, mb: int, n: int, mr: int, ctl):
    """The (n, mr) device array r (see module doc); a, b device buffers with instance strides
    sa, sb (0 broadcasts), ctl a device buffer of n control bytes, or None: all masks zero."""
    if op not in OPS:
        raise ValueError(f"bitwise: unknown operation {op!r}")
    out = ctx.empty((n, mr), np.uint32)
    if n == 0:
        return out
    # 16-byte accesses need whole, aligned vectors in every operand and the result
    v = 4 if all(x % 4 == 0 for x in (ma, mb, mr, sa, sb)) else 1
    krn, wg = largest_fitting(min(256, ctx.max_items), lambda wg: kernel(
        ctx, "bitwise.cl.mako", "bitwise", wg, OP=op, MA=ma, MB=mb, MR=mr, V=v, WG=wg,
        CTL=ctl is not None))
    launch(ctx, krn, P.ceil_div(n * (mr // v), wg), wg, a, np.uint64(sa), b, np.uint64(sb),
           out.data, out.data if ctl is None else ctl, np.uint32(n))   # (unread without CTL)
    return out
