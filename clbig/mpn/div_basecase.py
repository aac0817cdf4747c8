"""Schoolbook division of batches in one launch (GMP's divrem basecase: Knuth's Algorithm D).

`divmod` returns u // v as (n, mu) limbs and u % v as (n, mv) limbs, exactly, for divisors of
any length (one limb up to longer than the dividend) and any bit length per element. The
kernel (kernels_cl/div_basecase.cl.mako) normalizes every divisor on the fly to K limbs with
its top bit set, estimates each quotient limb by the 3-by-2 division of the window's top
limbs with a precomputed reciprocal (never too small, at most one too large), subtracts, and
adds back in the rare step that went negative. One step per quotient limb, no verification
needed: every quantity is computed exactly (see div_q's docstring for what the tests cover).

Shape: K + 1 = C*Q window limbs per instance over C work-items of Q limbs each, held in
registers (its chunk of the window and of the divisor); local memory only carries each
step's exchange, a few words per work-item, so local memory never limits the size. Up to
SINGLE_MAX window limbs one work-item does it alone (no barrier at all; builds per divisor
limb count); beyond, C work-items cooperate with one barrier per step in the common case,
and K is rounded up to C*Q - 1 (a longer normalized divisor, a few zero limbs more) so that
kernels are built per (Q, C, IPB), not per divisor width. An instance must fit one
work-group (C <= the device's and the built kernel's work-group limits); larger divisors
take the Newton path (div_q).
"""
from __future__ import annotations

import numpy as np

from ..runtime import config
from ..runtime import plan as P
from ..runtime.render import DoesNotFit, kernel, launch

# The DIVBC_SINGLE, DIVBC_Q and DIVBC_ITEMS settings override these for tuning (SINGLE_MAX and
# ITEMS are those settings' defaults in the settings table, read back here). A step costs
# each work-item Q multiply-adds plus a fixed part (the barrier, the exchange, the top item's
# estimate): larger Q amortizes that part, up to what the registers hold (2Q limbs and the
# unrolled chains). H100, 2026-11-22 (python -m clbig.bench --ops div, 2^32-bit batches):
# 2^11 bits (33-limb window) 6844 us alone in one work-item, 5168 us as 2 x 17 limbs, 5062 as
# 4 x 9; 2^13 bits (129 limbs) 6878 us as 4 x 33, 7459 as 8 x 17, 9771 as 16 x 9.
SINGLE_MAX = config.SETTINGS["DIVBC_SINGLE"].default   # 16 window limbs one work-item holds alone
Q_SMALL = 17      # window limbs per work-item for windows of up to 4 * Q_SMALL limbs
Q_MAX = 33        # window limbs per work-item when C > 1: the window of a divisor of 2^k
                  # limbs (2^k + 1) then splits into 2^(k-5) items or just under, which fill
                  # whole SIMD groups on GPUs where 32 would give 2^(k-5) + 1 (17, 129 items)
Q_MIN = 8         # the one-barrier step needs Q >= 6 (see the kernel)
# 64 work-items per group aimed at (several instances per group when C is small)
ITEMS = config.SETTINGS["DIVBC_ITEMS"].default


def shape(ctx, mv: int):
    """(K, Q, C) for divisors of mv limbs: normalized length, limbs per item, items per instance."""
    k0 = max(mv, 2)
    s = ctx.profile.settings
    if k0 + 1 <= s.divbc_single:
        return k0, k0 + 1, 1
    q_max = max(Q_MIN, s.get("divbc_q", Q_SMALL if k0 + 1 <= 4 * Q_SMALL else Q_MAX))
    c = P.ceil_div(k0 + 1, q_max)
    q = max(Q_MIN, P.ceil_div(k0 + 1, c))
    return c * q - 1, q, c


def _local_bytes(c: int, ipb: int, stage=None) -> int:
    """stage: (mu, mv) when the rows are staged in local memory (C = 1)."""
    wg = c * ipb
    if stage:
        return P.WORD * ipb * 2 * (stage[0] + stage[1] + 2)
    return 0 if c == 1 else P.WORD * (6 * wg + 3 * ipb + 3)


def _stage(ctx) -> bool:
    """Rows staged in local memory for one item per instance: on GPUs (coalescing; H200, see
    the kernel), not on CPUs, whose caches serve a work-item's row walk as they are;
    the DIVBC_STAGE setting (0 / 1) forces either (tests reach both paths on any device)."""
    return ctx.profile.settings.get("divbc_stage", P.is_gpu(ctx))


def plans(ctx, mv: int, n: int, mu: int = 0):
    """Launch parameters (K, Q, C, IPB, STAGE, MU, MV), fastest first; none when an instance
    cannot fit. mu: the dividend's limbs (the staged kernels are built per mu and mv)."""
    k, q, c = shape(ctx, mv)
    if c > ctx.max_items or _local_bytes(c, 1) > ctx.local_mem:
        return
    items = ctx.profile.settings.divbc_items
    fit = max(1, min(items, ctx.max_items) // c)
    top = 1 << (fit.bit_length() - 1)         # powers of two: few builds
    if c > 1:   # a padding instance costs a whole instance's work there (it must meet barriers)
        top = min(top, P.next_pow2(max(n, 1)))
    if c == 1 and mu and _stage(ctx):
        ipb = min(top, P.next_pow2(max(n, 1)))
        while ipb >= 1:
            if _local_bytes(1, ipb, (mu, mv)) <= ctx.local_mem:
                yield dict(K=k, Q=q, C=c, IPB=ipb, STAGE=True, MU=mu, MV=mv)
                break
            ipb //= 2
    ipb = top
    while ipb >= 1:
        if _local_bytes(c, ipb) <= ctx.local_mem:
            yield dict(K=k, Q=q, C=c, IPB=ipb, STAGE=False, MU=0, MV=0)
        ipb //= 2


def fits(ctx, mv: int) -> bool:
    """Whether the device's limits allow one instance per work-group (the build may still
    refuse the group size: `divmod` then raises DoesNotFit)."""
    return next(plans(ctx, mv, 1), None) is not None


def divmod(ctx, u, su: int, mu: int, v, sv: int, mv: int, lens, sl: int, n: int, stats=None):
    """(u // v as an (n, mu) device array, u % v as an (n, mv) one) for n >= 1 instances; u, v
    buffers with instance strides su, sv (0 broadcasts); lens: bitlen(v) per divisor (a uint32
    device array, stride sl), none zero. Raises DoesNotFit when no launch fits the device.
    stats, a dict, receives the launch plan and per instance the steps that took the slow
    path ("slow") and the add-backs ("addback") as numpy arrays."""
    q = ctx.empty((n, mu), np.uint32)
    r = ctx.empty((n, mv), np.uint32)
    st = ctx.empty((n, 2), np.uint32)
    for pl in plans(ctx, mv, n, mu):
        wg = pl["IPB"] * pl["C"]
        try:
            k = kernel(ctx, "div_basecase.cl.mako", "div_basecase", wg, **pl)
        except DoesNotFit:
            continue
        launch(ctx, k, P.ceil_div(n, pl["IPB"]), wg, u, np.uint64(su), np.uint32(mu), v,
               np.uint64(sv), np.uint32(mv), lens, np.uint32(sl), q.data, r.data, st.data,
               np.uint32(n))
        if stats is not None:
            counts = ctx.get(st)
            stats.update(plan=pl, slow=counts[:, 0], addback=counts[:, 1])
        return q, r
    raise DoesNotFit(f"no basecase division kernel fits this device for {mv}-limb divisors")


# The first tier on CPUs (runtime.tiers, via div_q.divmod): div_loop.cl.mako, one item per
# instance and every width at run time, one build for all. Scratch rows per launch at most
# this many bytes (larger batches run in chunks).
LOOP_SCRATCH = 64 << 20


def divmod_loop(ctx, u, su: int, mu: int, v, sv: int, mv: int, lens, sl: int, n: int, stats=None):
    """`divmod`'s contract by the loop kernel (any widths, no plan to fit)."""
    q = ctx.empty((n, mu), np.uint32)
    r = ctx.empty((n, mv), np.uint32)
    st = ctx.empty((n, 2), np.uint32)
    k = kernel(ctx, "div_loop.cl.mako", "div_loop", None)
    per = max(mu, mv) + 1 + mv                       # words: the dividend, then the divisor
    wg, rows = P.scratch_rows(ctx, n, 4 * per, LOOP_SCRATCH)
    scr = ctx.buffer(4 * per * rows)
    for first in range(0, n, rows):
        launch(ctx, k, P.ceil_div(min(rows, n - first), wg), wg, u, np.uint64(su), np.uint32(mu),
               v, np.uint64(sv), np.uint32(mv), lens, np.uint32(sl), q.data, r.data, st.data,
               np.uint32(n), scr, np.uint64(per), np.uint32(first))
    if stats is not None:
        counts = ctx.get(st)
        stats.update(plan={"loop": True}, slow=counts[:, 0], addback=counts[:, 1])
    return q, r
