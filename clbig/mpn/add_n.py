"""Addition and subtraction of limb vectors at a fixed width (the mpn layer under + and -).

`addsub` returns (a ± b) mod 2**bits and, on request, bit `bits` of the wide result: the carry
of a + b, or 1 exactly where a - b borrowed. op "ctl" chooses per instance (the signed
operations' one pass): see CTL_* and `addsub`'s `ctl`.
"""
from __future__ import annotations

import numpy as np

from ..runtime import plan as P
from ..runtime import tiers
from ..runtime.render import DoesNotFit, kernel, launch, memoized

# Bits of the per-instance control byte of op "ctl" (kernels_cl/add.cl.mako): the kernel
# computes r = ((a + b') + cin) ^ (all ones if CTL_NOT_R), b' = ((b & keep) ^ flip) at the
# result's width, so that with A = |a|, B = |b|:
#   A + B: 0   A - B (A >= B): NOT_B|CIN   B - A (A < B): NOT_B|NOT_R   A + 1: DROP_B|CIN
#   A - 1 (A >= 1): DROP_B|NOT_B   A: DROP_B
CTL_NOT_B, CTL_CIN, CTL_NOT_R, CTL_DROP_B = 1, 2, 4, 8


# The control byte of a uniform operation (op "ctl" reads one per instance instead), and the
# other bits of the kernels' `how` argument (kernels_cl/blocks/arith.mako, add_how_defs).
CTL_OF = {"add": 0, "sub": CTL_NOT_B | CTL_CIN, "ctl": 0}
HOW_PER, HOW_FLAG = 16, 32


def _how_args(op: str, ma: int, mb: int, bits: int, want_flag) -> tuple:
    """The scalar arguments wid, op of the additions taking their operation at run time
    (kernels_cl/blocks/arith.mako, add_how_defs)."""
    if max(ma, mb) >> 32:
        raise ValueError(f"addsub: operands of {max(ma, mb)} limbs; at most 2**32 - 1 per instance")
    how = CTL_OF[op] | (HOW_PER if op == "ctl" else 0) | (HOW_FLAG if want_flag else 0)
    return np.uint64(ma | mb << 32), np.uint64(how | bits << 8)


def _flag_params(bits: int, want_flag: bool):
    mr = P.ceil_div(bits, 32)
    top = (1 << (bits % 32)) - 1 if bits % 32 else 0xFFFFFFFF
    if want_flag:
        return mr, top, bits // 32, bits % 32
    return mr, top, None, 0


# The settings the plans read (scan_plans' and _rows_plans') are in the memo key by their version.
# Plans are made for min(n, N_CLASS) instances, so longer batches share one memo entry: n only
# caps the instances per group (at most 1024) and rows per group (at most the ADD_ROWS setting,
# reached by n >= 256 * rows), so the plans are the same for any ADD_ROWS up to 256.
N_CLASS = 1 << 16


def addsub(ctx, op: str, a, sa: int, ma: int, b, sb: int, mb: int, n: int, bits: int,
           want_flag: bool = False, out=None, ctl=None):
    """(a ± b) mod 2**bits on n instances; a, b are device buffers of limbs with instance
    strides sa, sb (0 broadcasts) and ma, mb limbs. Returns (out (n, mr) array, flags or None):
    the flags as a numpy bool array, or with want_flag="device" as a uint8 device array of at
    least n bytes, not read (the caller reads it with others: Context.get_many).
    op "ctl": `ctl` is a device buffer of n control bytes (CTL_*), no flags."""
    if (op == "ctl") != (ctl is not None) or (ctl is not None and want_flag):
        raise ValueError("addsub: op 'ctl' takes a control buffer and gives no flags")
    mr = P.ceil_div(bits, 32)
    if out is None:
        out = ctx.empty((n, mr), np.uint32)
    flags = ctx.empty((max(n, 1),), np.uint8) if want_flag else None
    if n == 0:
        return out, (flags if want_flag == "device" else np.zeros(0, bool) if want_flag else None)
    flag_buf = flags.data if want_flag else (ctl if ctl is not None else out.data)  # unread then
    args = (a, np.uint64(sa), b, np.uint64(sb), out.data, flag_buf)
    how = _how_args(op, ma, mb, bits, want_flag)
    if serial(ctx, n, max(ma, mb, mr)):
        k = None
        if n >= SERIAL_FIXED_ROWS and n * max(ma, mb, mr) >= SERIAL_FIXED_LIMBS \
                and not P.is_gpu(ctx):                # widths built in (PoCL's loops: 2x)
            _, top, flag_limb, flag_bit = _flag_params(bits, want_flag)
            fixed = dict(OP=op, WIDTHS=(("MA", ma), ("MB", mb), ("MR", mr), ("TOP_MASK", top),
                                        ("FLAG_LIMB", flag_limb), ("FLAG_BIT", flag_bit)))
            if tiers.fixed_kernel(ctx, "add_serial.cl.mako", "add_serial", fixed,
                                  n * max(ma, mb, mr), SERIAL_REPAYS_LIMBS):
                k = kernel(ctx, "add_serial.cl.mako", "add_serial", None, **fixed)
        if k is None:                                  # one build for every width and op
            k = kernel(ctx, "add_serial.cl.mako", "add_serial", None, OP="any", WIDTHS=None)
        wg = min(SERIAL_WG, ctx.max_items)
        launch(ctx, k, P.ceil_div(n, wg), wg, *args, np.uint32(n), *how)
    else:
        key = ("addsub", op, ma, mb, bits, want_flag, sa, sb, min(n, N_CLASS),
               ctx.profile.settings.version)
        got = memoized(ctx, key, lambda: _choose(ctx, op, ma, mb, bits, want_flag, sa, sb, min(n, N_CLASS)))
        if not got:
            raise RuntimeError(f"no addition kernel fits this device for {max(ma, mb, mr)} limbs")
        pl, ks = got
        if len(ks) == 1:
            launch(ctx, ks[0], pl.groups(n), pl.work_group, *args, out.data, np.uint32(n), *how)
        else:   # multi-group: block summaries, then the pass that applies them
            blk = ctx.buffer(n * pl.G)
            for k in ks:
                launch(ctx, k, pl.groups(n), pl.work_group, *args, blk, np.uint32(n), *how)
    if want_flag == "device":
        return out, flags
    return out, (ctx.get(flags)[:n].astype(bool) if want_flag else None)


# The one-item kernels (add_serial.cl.mako, compare_serial.cl.mako) run in groups of 16
# (Intel's runtime vectorizes 16 items at once; small GPU batches were measured so).
SERIAL_WG = 16
# From this many limbs in a batch the serial kernel is built for the operands' limb counts
# (loops of fixed bounds: about 2x faster on PoCL); smaller batches run one build that takes
# the widths at run time, since there the build, not the run, is what a user waits for
# (issue 43). Few rows never take it: a product tree's one 16374-limb sum built for its widths
# took 5.4 s on PoCL to save microseconds.
SERIAL_FIXED_LIMBS = 4096
SERIAL_FIXED_ROWS = 64
# ... and then only once the width's calls have summed to this many limbs (runtime.tiers): the
# run-time form's 2x on PoCL (2048 sums of 512 bits, 30-50 µs more) is a build's 0.1-0.2 s
# (with the first launch's work-group compile) past 2^26 limbs.
SERIAL_REPAYS_LIMBS = 1 << 26


# GPUs: batches of at most this many rows of at most this many limbs also take the one-item
# kernels (add_serial, compare_serial), whose run-time form serves every width and operation.
# There the GPU waits on the launch either way: H200, 2026-11-29, a sum, a difference and a
# comparison of 3 to 1000 rows of up to 2048 bits took the same wall time within 3 µs of
# ~40 / ~85-150 / ~85-130 µs by either kernel, while 3 rows of 8192 bits took 48 against
# 39 µs (a longer loop per item). With this rule a cold gcdext built 10 kernels instead of 16
# (3.1 against 5.6 s) and the counter loop of 100 sums 1 instead of 3 (0.15 against 0.45 s);
# that loop warm took 4.4-5.7 ms against 3.2-5.7 ms over the calls (same day, scattered).
GPU_SERIAL_ROWS = 256
GPU_SERIAL_LIMBS = 80


def serial(ctx, n: int | None = None, m: int | None = None) -> bool:
    """Whether additions (and comparisons) of n instances of at most m limbs run one item per
    instance here: on CPUs, and on GPUs for small batches (GPU_SERIAL_*; n, m None: any
    batch, so a GPU says no); the ADD_SERIAL setting decides where set (1 everywhere, 0
    never)."""
    got = ctx.profile.settings.add_serial
    if got is not None:
        return got
    if not P.is_gpu(ctx):
        return True
    return n is not None and m is not None and n <= GPU_SERIAL_ROWS and m <= GPU_SERIAL_LIMBS


def _choose(ctx, op, ma, mb, bits, want_flag, sa, sb, n):
    """(plan, kernels) of the first plan whose kernels fit this device, else False; n is the
    batch length's class (min(n, N_CLASS)). The row layout is built for its widths and op; the
    map-scan kernels take widths, flag and op at run time, their plans made for the width's
    class (plan.width_class), so nearby widths and every op share them."""
    mr, top, flag_limb, flag_bit = _flag_params(bits, want_flag)
    m_need = max(ma, mb, mr)
    for pl in (_rows_plans(ctx, m_need, n, ma, mb, mr, sa, sb) if op != "ctl" else []):
        width = pl.IPI * (4 if not pl.chain else pl.Q) * pl.G
        try:
            return pl, (kernel(ctx, "add.cl.mako", "add_sub", pl.work_group, MODE="rows", IPB=pl.IPB,
                               OP=op, MA=ma, MB=mb, MR=mr, TOP_MASK=top, FLAG_LIMB=flag_limb,
                               FLAG_BIT=flag_bit, FLAG_TOP=want_flag and flag_limb >= width,
                               Q=pl.Q, IPI=pl.IPI, G=pl.G, CHAIN=pl.chain, VEC=False),)
        except DoesNotFit:
            pass
    vec = vec_ok(4, ma, sa) and vec_ok(4, mb, sb) and vec_ok(4, mr, mr)
    for pl in P.scan_plans(ctx, P.width_class(m_need), n):
        params = dict(Q=pl.Q, IPI=pl.IPI, G=pl.G, VEC=vec and pl.Q % 4 == 0)
        try:
            if pl.mode == "single":
                ks = (kernel(ctx, "add.cl.mako", "add_sub", pl.work_group, MODE="single", IPB=pl.IPB,
                             **params),)
            else:
                ks = tuple(kernel(ctx, "add.cl.mako", "add_sub", pl.work_group, MODE=mode, IPB=1, **params)
                           for mode in ("summary", "apply"))
        except DoesNotFit:
            continue
        return pl, ks
    return False


def vec_ok(q: int, m: int, stride: int) -> bool:
    """16-byte vector access is possible: whole, aligned vectors of 4 limbs per work-item."""
    return q % 4 == 0 and m % 4 == 0 and stride % 4 == 0


def _rows_plans(ctx, m_need, n, ma, mb, mr, sa, sb):
    """Plans for the 16-byte row layout (MODE "rows" in add.cl.mako), 16-byte aligned operands
    only: big instances as up to 16 chained rows of 4*256 limbs; small ones as R independent
    rows of IPB instances each (the ADD_ROWS setting tunes R)."""
    if not all(x % 4 == 0 for x in (ma, mb, mr, sa, sb)):
        return []
    ipi = min(256, ctx.max_items)
    if m_need > 4 * ipi:
        rows = P.ceil_div(m_need, 4 * ipi)
        return [P.Plan("rows", 4 * rows, ipi, 1, chain=True)] if rows <= 16 else []
    ipi = m_need // 4
    nb = P.batch_class(ctx, n)   # a few kernels for every n
    ipb = max(1, min(min(256, ctx.max_items) // ipi, nb))
    rows = ctx.profile.settings.add_rows if P.is_gpu(ctx) else min(ctx.profile.settings.add_rows, P.ceil_div(nb, ipb))
    return [P.Plan("rows", 4 * rows, ipi, ipb, chain=False)]
