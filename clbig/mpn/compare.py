"""Three-way comparison of limb vectors: the LTop reduction on GPUs, one item per instance on CPUs
and for small GPU batches (as the additions, add_n.serial)."""
from __future__ import annotations

import numpy as np

from ..runtime import plan as P
from .add_n import SERIAL_WG, serial, vec_ok
from ..runtime.render import DoesNotFit, kernel, launch, memoized


def compare3(ctx, a, sa: int, ma: int, b, sb: int, mb: int, n: int) -> np.ndarray:
    """Per instance: 0 where a == b, 1 where a < b, 2 where a > b (numpy uint8)."""
    if n == 0:
        return np.zeros(0, np.uint8)
    out, fold = compare3_device(ctx, a, sa, ma, b, sb, mb, n)
    return fold(ctx.get(out))


def compare3_device(ctx, a, sa: int, ma: int, b, sb: int, mb: int, n: int):
    """compare3 launched, not read: (the device array of block results, fold), fold(its host
    copy) giving compare3's answer; for reading it together with other results (n >= 1)."""
    if serial(ctx, n, max(ma, mb)):      # CPUs, small GPU batches: one item per instance
        k = kernel(ctx, "compare_serial.cl.mako", "compare_serial", None)
        out = ctx.empty((n,), np.uint8)
        wg = min(SERIAL_WG, ctx.max_items)
        launch(ctx, k, P.ceil_div(n, wg), wg, a, np.uint64(sa), b, np.uint64(sb), out.data,
               np.uint32(n), np.uint32(ma), np.uint32(mb))
        return out, lambda host: host[:n]
    vec = vec_ok(4, ma, sa) and vec_ok(4, mb, sb)
    key = ("compare3", P.width_class(max(ma, mb)), vec, P.batch_class(ctx, n),
           ctx.profile.settings.version)
    got = memoized(ctx, key, lambda: _choose(ctx, max(ma, mb), vec, n))
    if not got:
        raise RuntimeError(f"no comparison kernel fits this device for {max(ma, mb)} limbs")
    pl, k = got
    out = ctx.empty((n * pl.G,), np.uint8)
    launch(ctx, k, pl.groups(n), pl.work_group, a, np.uint64(sa), b, np.uint64(sb), out.data,
           np.uint32(n), np.uint32(ma), np.uint32(mb))

    def fold(host: np.ndarray) -> np.ndarray:
        res = host.reshape(n, pl.G)
        if pl.G == 1:
            return res[:, 0]
        # The most significant block that differs decides.
        nz = res != 0
        top = pl.G - 1 - np.argmax(nz[:, ::-1], axis=1)
        return np.where(nz.any(axis=1), res[np.arange(n), top], 0).astype(np.uint8)
    return out, fold


def _choose(ctx, m, vec, n):
    """(plan, kernel) of the first plan for instances of m limbs' class (plan.width_class) whose
    kernel fits this device, else False; the kernels take the widths at run time."""
    for pl in P.scan_plans(ctx, P.width_class(m), n):
        try:
            return pl, kernel(ctx, "compare.cl.mako", "compare", pl.work_group, MODE=pl.mode, Q=pl.Q,
                              IPI=pl.IPI, IPB=pl.IPB, G=pl.G, VEC=vec and pl.Q % 4 == 0)
        except DoesNotFit:
            continue
    return False
