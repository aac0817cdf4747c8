"""Bit shifts of limb vectors (mpn_lshift / mpn_rshift), and Python's floor a >> k of signed
values in one launch (`shift_right_signed`)."""
from __future__ import annotations

import numpy as np

from ..runtime import plan as P
from .add_n import vec_ok
from ..runtime.render import kernel, largest_fitting, launch, memoized


def shift(ctx, a, sa: int, ma: int, n: int, k: int, left: bool, bits_out: int):
    """a << k (left) or a >> k, as an (n, ceil(bits_out/32)) device array."""
    mr = P.ceil_div(bits_out, 32)
    out = ctx.empty((n, mr), np.uint32)
    if n == 0:
        return out
    krn, wg = _shift_kernel(ctx, ma, mr, left, False)
    launch(ctx, krn, P.ceil_div(n * mr, wg), wg, a, np.uint64(sa), out.data, np.uint32(n),
           np.uint64(k // 32), np.uint32(k % 32))
    return out


def shift_rows(ctx, a, sa: int, ma: int, n: int, ks, sk: int, left: bool, bits_out: int):
    """Instance i shifted by its own count ks[i * sk] (ks: a device array of uint64; sk = 0
    shifts every instance by ks[0]), as an (n, ceil(bits_out/32)) device array."""
    mr = P.ceil_div(bits_out, 32)
    out = ctx.empty((n, mr), np.uint32)
    if n == 0:
        return out
    krn, wg = _shift_kernel(ctx, ma, mr, left, True)
    launch(ctx, krn, P.ceil_div(n * mr, wg), wg, a, np.uint64(sa), out.data, np.uint32(n),
           ks, np.uint64(sk))
    return out


def _shift_kernel(ctx, ma: int, mr: int, left: bool, per_row: bool):
    # The kernel and its work-group depend only on the widths and the direction (memoized:
    # the search below cost ~10 µs a call, ~100 calls per huge division).
    return memoized(ctx, ("shift", ma, mr, left, per_row), lambda: largest_fitting(
        min(256, ctx.max_items), lambda wg: kernel(ctx, "shift.cl.mako", "shift", wg, MA=ma, MR=mr,
                                                   LEFT=left, WG=wg, PER_ROW=per_row)))


def shift_right_signed(ctx, a, sa: int, ma: int, n: int, k: int, bits_out: int, na):
    """floor(x / 2^k) of n signed instances as the (n, ceil(bits_out/32)) device array of the
    magnitudes: |x| >> k, or ceil(|x| / 2^k) where the device buffer na of sign-mark bytes
    says x < 0 (a zero marked negative gives 0). The results' signs are the marks (a result
    of a negative x is negative, a -0 stays a -0). k must be at most 32 * ma; bits_out must
    hold ceil(|x| / 2^k). None (nothing launched) where an instance does not fit one
    work-group (kernels_cl/shift_signed.cl.mako): the caller takes its multi-pass path."""
    if not 0 <= k <= 32 * ma:
        raise ValueError(f"shift_right_signed: k = {k} beyond the operand's {ma} limbs")
    mr = P.ceil_div(bits_out, 32)
    key = ("shift_signed", ma, mr, sa % 4 == 0, min(n, ctx.max_items), ctx.profile.settings.version)
    got = P.one_group(ctx, key, ma + 1, n, lambda pl: kernel(
        ctx, "shift_signed.cl.mako", "shift_signed", pl.work_group, MA=ma, MR=mr, Q=pl.Q,
        IPI=pl.IPI, IPB=pl.IPB, VEC_A=vec_ok(pl.Q, ma, sa)))
    if got is None:
        return None
    pl, krn = got
    out = ctx.empty((n, mr), np.uint32)
    if n:
        launch(ctx, krn, pl.groups(n), pl.work_group, a, np.uint64(sa), out.data, na, np.uint32(n),
               np.uint32(k // 32), np.uint32(k % 32))
    return out
