"""Classical (schoolbook) multiplication of limb vectors by the load-balanced convolution.

One work-group holds IPB whole instances when the operands fit its local memory (b may stay in
global memory when only a fits, e.g. two 2^18-bit operands against 48 KiB); larger products
take the multi-group path, whose partial chunks are finished by one multi-group addition.
"""
from __future__ import annotations

import numpy as np

from . import add_n, mul_fp64
from ..runtime import plan as P
from ..runtime.render import DoesNotFit, kernel, largest_fitting, launch


def _q_options(s, mr: int, carry: str = "", square: bool = False, few: bool = False):
    """Limbs per work-item to try, best first: the MUL_Q setting of `s` (the context's
    settings, ctx.profile.settings), else by size."""
    # A product or two on a GPU is one work-group each: smaller chunks give it more items (one
    # 2^14-bit low half as 256 items of Q=2: 34 against 49 µs as 64 of Q=8; 2^15 61 against 81;
    # full 2^13 23 against 32. H200, 2026-11-25, profiling events; `few`).
    # Carry chains keep a chunk in Q+2 registers instead of 3Q: Q=16 then wins from 2^13 bits
    # on an H100 (4.5 against 4.5-5.1 ms, 15.1 against 16.2 ms at 2^15), Q=8 below (1.6 against
    # 3.1 ms at 2^11). Not for squares: their edge blocks test Q² terms (2^13: 4.3 against 3.0
    # ms; the fused Poly 23.0 against 15.8 ms).
    if few and mr >= 64 and not carry and not square:
        q = (2, 4, 8)
    elif mr >= 256 and carry and not square:
        q = (16, 8)
    elif mr >= 64:
        q = (8, 16)
    elif mr >= 8:
        q = (4, 8, 16)
    else:
        q = (2, 4)
    return s.get("mul_q", q)


def _chunks(mr: int, q: int, regions: int) -> int:
    step = 2 * regions
    return P.ceil_div(P.ceil_div(mr, q), step) * step


def _ops_words(ipb, q, ma, mb, b_global, square):
    """Local words holding the operands (mul.cl.mako's OPS): a apart unless a square's one
    operand sits in b's zero-margined layout, b unless it is read from global memory."""
    a_own = not (square and not b_global)
    return ipb * ((ma + q if a_own else 0) + (0 if b_global else 5 * q + mb))


def _local_bytes(ipb, q, ma, mb, c, b_global, square=False):
    return P.WORD * (_ops_words(ipb, q, ma, mb, b_global, square) + ipb * c * 3) + 16


def single_plans(ctx, ma: int, mb: int, mr: int, n: int, target_items: int | None = None,
                 square: bool = False, carry: str = "", few: bool = False, s=None):
    """Candidate one-group launch parameters, fastest first (few: a few instances on a GPU;
    s: the settings where the caller has read them, a read less per product)."""
    s = s or ctx.profile.settings
    target_items = target_items or s.mul_items  # best of 64/128/256 on an H100
    regions = 2 if mr > max(ma, mb) else 1
    for q in _q_options(s, mr, carry, square, few):
        c = _chunks(mr, q, regions)
        ipi = c // 2
        if ipi > ctx.max_items:
            continue
        for b_global in (False, True):
            ipb = max(1, min(min(target_items, ctx.max_items) // ipi, P.batch_class(ctx, n)))
            while ipb > 1 and _local_bytes(ipb, q, ma, mb, c, b_global, square) > ctx.local_mem:
                ipb //= 2
            if _local_bytes(ipb, q, ma, mb, c, b_global, square) <= ctx.local_mem:
                yield dict(Q=q, C=c, IPI=ipi, IPB=ipb, REGIONS=regions, B_GLOBAL=b_global)
                break


def digit_plans(ctx, ma: int, mb: int, mr: int, n: int, target_items: int | None = None, s=None):
    """One-group plans in radix-2^30 digits (mul_digits.cl.mako): both operands must fit the
    group's local memory as digits (s: the settings, as for single_plans)."""
    s = s or ctx.profile.settings
    target_items = target_items or s.mul_items
    da, db = P.ceil_div(32 * ma, 30), P.ceil_div(32 * mb, 30)
    dr = (32 * mr - 1) // 30 + 1
    regions = 2 if dr > max(da, db) else 1
    for q in s.get("digit_q", (8, 16) if dr >= 64 else (4, 8, 16)):
        c = _chunks(dr, q, regions)
        ipi = c // 2
        dld = (da + q) + (db + 5 * q)
        if ipi > ctx.max_items or c * q + 2 > dld:
            continue
        ipb = max(1, min(min(target_items, ctx.max_items) // ipi, P.batch_class(ctx, n)))

        def local(ipb):
            return P.WORD * ipb * (dld + 3 * c) + 16
        while ipb > 1 and local(ipb) > ctx.local_mem:
            ipb //= 2
        if local(ipb) <= ctx.local_mem:
            yield dict(Q=q, C=c, IPI=ipi, IPB=ipb, REGIONS=regions, DA=da, DB=db)


def mul(ctx, a, sa: int, ma: int, b, sb: int, mb: int, n: int, bits: int):
    """(a * b) mod 2**bits for n instances; returns an (n, ceil(bits/32)) device array.
    A square (the same buffer as both operands) takes each cross product once."""
    mr = P.ceil_div(bits, 32)
    top = (1 << (bits % 32)) - 1 if bits % 32 else 0xFFFFFFFF
    out = ctx.empty((n, mr), np.uint32)
    if n == 0:
        return out
    square = P.is_square(ctx, a, sa, ma, b, sb, mb)
    # Carry chains pay where the device is full; a few instances (a group or so each) are
    # latency-bound, and there Q independent column accumulators beat one serial chain (H100,
    # one 2^15-bit product: 0.075 against 0.110 ms; bench/results/classical-carry-h100-*.log).
    carry = ctx.carry if ctx.carry_always or not P.few(ctx, n) else ""
    common = dict(MA=ma, MB=mb, MR=mr, TOP_MASK=top, SQUARE=square, CARRY=carry)
    pl = mul_fp64.lanes_plan(ctx, ma, mb, mr, n, square)   # CPUs: instances in vector lanes
    if pl and mul_fp64.lanes_mul(ctx, pl, a, sa, b, sb, out, n, top):
        return out
    # Small batches in FP64 digits where the device has fast double precision (mul_fp64).
    p52 = mul_fp64.plan(ctx, ma, mb, mr, n, square)
    if p52 and mul_fp64.mul(ctx, p52, a, sa, b, sb, out, n, top):
        return out
    pc = mul_fp64.coop_plan(ctx, ma, mb, mr, n, square)
    if pc and mul_fp64.coop_mul(ctx, pc, a, sa, b, sb, out, n, top):
        return out
    # Radix-2^30 digits (one wide multiply-add per term, no carries) beat 32-bit limbs from
    # 2^16 bits where limbs take a 64-bit add per term (H100: 34.8 against 41.4 ms for the
    # 2^32-bit batch) and lose below (2.5 against 1.1 ms at 2^9: conversions dominate small
    # sizes). Limbs with carry chains (ctx.carry) beat them everywhere: 29.1 against 34.8 ms at
    # 2^16, 57.4 against 72.0 at 2^17. The MUL_RADIX setting (30 or 32) forces one (tests use it to
    # cover both at every size).
    s = ctx.profile.settings
    radix = s.mul_radix
    # a square's halved work beats the digits' faster multiply-adds
    if radix == "30" or (radix == "auto" and max(ma, mb, mr) >= 2048 and not square and not carry):
        for p in digit_plans(ctx, ma, mb, mr, n, s=s):
            wg = p["IPB"] * p["IPI"]
            try:
                k = kernel(ctx, "mul_digits.cl.mako", "mul_digits", wg, **p, **common)
            except DoesNotFit:
                continue
            launch(ctx, k, P.ceil_div(n, p["IPB"]), wg, a, np.uint64(sa), b, np.uint64(sb), out.data,
                   np.uint32(n))
            return out
    few = not carry and _few_on_gpu(ctx, n)
    for p in single_plans(ctx, ma, mb, mr, n, square=square, carry=carry, few=few, s=s):
        wg = p["IPB"] * p["IPI"]
        try:
            k = kernel(ctx, "mul.cl.mako", "mul", wg, MODE="single", **p, **common)
        except DoesNotFit:
            continue
        launch(ctx, k, P.ceil_div(n, p["IPB"]), wg, a, np.uint64(sa), b, np.uint64(sb), out.data,
               out.data, np.uint32(n))
        return out
    return _mul_multi(ctx, a, sa, ma, b, sb, mb, n, bits, out, common)


def _few_on_gpu(ctx, n: int) -> bool:
    return P.few(ctx, n) and P.is_gpu(ctx)


def _mul_multi(ctx, a, sa, ma, b, sb, mb, n, bits, out, common):
    mr = common["MR"]
    regions = 2 if mr > max(ma, mb) else 1
    q = 8 if mr >= 64 else 2
    c = _chunks(mr, q, regions)
    ipi = c // 2
    spills = ctx.zeros((n, mr), np.uint32)
    k, wg = largest_fitting(min(128, ctx.max_items, P.next_pow2(ipi)), lambda wg: kernel(
        ctx, "mul.cl.mako", "mul", wg, MODE="multi", Q=q, C=c, IPI=ipi, IPB=wg, REGIONS=regions,
        B_GLOBAL=True, **dict(common, TOP_MASK=0xFFFFFFFF)))
    launch(ctx, k, n * P.ceil_div(ipi, wg), wg, a, np.uint64(sa), b, np.uint64(sb), out.data,
           spills.data, np.uint32(n))
    res, _ = add_n.addsub(ctx, "add", out.data, mr, mr, spills.data, mr, mr, n, bits)
    return res
