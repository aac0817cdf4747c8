"""Limb-wise bitwise maps of limb vectors (the mpn layer under &, |, ^ and per-instance selects).

`bitwise` computes r = ((a ^ ia) OP (b ^ ib)) ^ io over mr limbs per instance, the masks ia,
ib, io (all ones or zero) chosen per instance by a control byte (CTL_*). With the two's
complement of a negative a read as ~(|a| - 1) (clbig/signs.py prepares |a| - 1), that is
Python's bitwise operation on signed values, computed on magnitudes. OP "select" picks b where
CTL_IA is set, else a (r = a or b per instance, one pass).

`signed` does the whole of Python's &, |, ^ on sign and magnitude in one launch where an
instance fits one work-group (kernels_cl/bitwise_signed.cl.mako): the device settles the signs
itself from sign-mark bytes and the limbs (a zero marked negative reads as 0 there), without
the |x| - 1 and + 1 passes and the host's control bytes.
"""
from __future__ import annotations

import numpy as np

from ..runtime import plan as P
from .add_n import vec_ok
from ..runtime.render import kernel, largest_fitting, launch

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
        ctx, "bitwise.cl.mako", "bitwise", wg, OP=op, V=v, WG=wg, CTL=ctl is not None))
    launch(ctx, krn, P.ceil_div(n * (mr // v), wg), wg, a, np.uint64(sa), b, np.uint64(sb),
           out.data, out.data if ctl is None else ctl, np.uint32(n),   # (ctl unread without CTL)
           np.uint32(ma), np.uint32(mb), np.uint32(mr))
    return out


def signed(ctx, op: str, a, sa: int, ma: int, b, sb: int, mb: int, n: int, mr: int, na, sna: int,
           nb, snb: int):
    """Python's a OP b (OP "and", "or", "xor") of n signed instances as (r, nr): r the (n, mr)
    device array of magnitudes, nr a device array of n result sign bytes, or None where no
    result can be negative (OP "and" with an unmarked operand). na, nb: device buffers of sign
    marks (bytes, 1 = negative; a zero may be marked) with instance strides sna, snb (0
    broadcasts), or None where that operand has no negative value. mr must exceed both
    operands by a bit where a result can be negative (the magnitude of -(2^bits) carries out).
    None (nothing launched) where no instance fits one work-group: the caller takes its
    multi-pass path."""
    if op not in ("and", "or", "xor"):
        raise ValueError(f"bitwise.signed: unknown operation {op!r}")
    has_a, has_b = na is not None, nb is not None
    sign_out = (has_a and has_b) if op == "and" else (has_a or has_b)
    key = ("bitwise_signed", op, ma, mb, mr, sa % 4 == 0, sb % 4 == 0, has_a, has_b,
           min(n, ctx.max_items), ctx.profile.settings.version)
    got = P.one_group(ctx, key, mr, n, lambda pl: kernel(
        ctx, "bitwise_signed.cl.mako", "bitwise_signed", pl.work_group, OP=op, MA=ma, MB=mb, MR=mr,
        Q=pl.Q, IPI=pl.IPI, IPB=pl.IPB, NA=has_a, NB=has_b, SIGN_OUT=sign_out,
        VEC_A=vec_ok(pl.Q, ma, sa), VEC_B=vec_ok(pl.Q, mb, sb), VEC_R=vec_ok(pl.Q, mr, mr)))
    if got is None:
        return None
    pl, krn = got
    out = ctx.empty((n, mr), np.uint32)
    nr = ctx.empty((max(n, 1),), np.uint8) if sign_out else None
    if n:
        unused = out.data    # a buffer argument the kernel does not read
        launch(ctx, krn, pl.groups(n), pl.work_group, a, np.uint64(sa), b, np.uint64(sb), out.data,
               na if has_a else unused, np.uint32(sna), nb if has_b else unused, np.uint32(snb),
               nr.data if sign_out else unused, np.uint32(n))
    return out, nr
