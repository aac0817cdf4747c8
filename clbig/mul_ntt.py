"""Multiplication by number-theoretic transform over p = 2^64 - 2^32 + 1 (kernels_cl/ntt.cl.mako).

Operands are cut into 16-bit digits; a transform of length N >= da + db - 1 (digits actually
needed: only the low ceil(bits/16) digits of each operand matter for a product mod 2**bits)
makes the cyclic convolution equal the exact one, and every coefficient is below N * 2^32 < p,
so the product is exact with one prime. The transform runs as passes of radix-2 stages in
local memory (as many points per work-group as the device's local memory holds, capped at
MAX_POINTS): one pass for N up to that, more for longer transforms, the last forward pass of b
fused with the pointwise product and the first inverse pass. The same code serves a batch of
midsize products (many short transforms, one per instance) and one huge product (one long
transform across the device). Coefficients go back to limbs as two vectors added by the scan
addition (clbig.add_n).
"""
from __future__ import annotations

import numpy as np
import pyopencl as cl
import pyopencl.array as cla

from . import add_n
from . import plan as P
from .render import DoesNotFit, kernel, launch

PRIME = 0xFFFFFFFF00000001
GENERATOR = 7            # generates the multiplicative group of PRIME
MAX_LOG = 30             # N * (2^16 - 1)^2 < PRIME needs N < 2^32; keep a margin
STRIDED_GROUPS = 8       # groups per work-group in strided passes: 64-byte contiguous runs


def transform_log(ma: int, mb: int, bits: int) -> tuple[int, int, int]:
    """(L, da, db): transform length 2^L and the digits of a and b that take part."""
    need = P.ceil_div(bits, 16)
    da, db = min(2 * ma, need), min(2 * mb, need)
    return max(1, (da + db - 2).bit_length()), da, db


def _max_points(ctx) -> int:
    cap = P.env_ints("CLBIG_NTT_POINTS", (4096,))[0]
    fit = (ctx.local_mem - 256) // 8
    return 1 << (min(cap, fit).bit_length() - 1)


def supports(ctx, ma: int, mb: int, bits: int) -> str | None:
    """None when this device can run the product, else why not."""
    L, _, _ = transform_log(ma, mb, bits)
    if L > MAX_LOG:
        return f"a transform of 2^{L} points exceeds the 2^{MAX_LOG} this prime allows"
    per = (8 << L)
    limit = int(ctx.device.max_mem_alloc_size)
    if per > limit:
        return (f"one transform of 2^{L} points needs {per >> 20} MiB, more than this device's "
                f"largest allocation ({limit >> 20} MiB)")
    if _max_points(ctx) < 2:
        return "too little local memory for a transform pass"
    return None


def pass_plan(ctx, L: int) -> list[tuple[int, int, int]]:
    """Forward passes as (H, RB, G): the strided ones first, the contiguous one (H == RB)
    last. The inverse runs the same passes in reverse order."""
    pmax = _max_points(ctx)
    lmax = pmax.bit_length() - 1
    smax = max(1, (pmax // STRIDED_GROUPS).bit_length() - 1)
    # as few passes as possible, the stages shared evenly (2^13 points as 7 + 6 stages, not
    # 12 + 1: a one-stage pass costs a whole read and write of the data for little work)
    rc = min(L, lmax)
    if L > lmax:
        passes = 1 + P.ceil_div(L - lmax, smax)
        rc = max(L - (passes - 1) * smax, P.ceil_div(L, passes))
    rest = L - rc
    out = []
    h = L
    while rest > 0:
        parts = P.ceil_div(rest, smax)
        rb = P.ceil_div(rest, parts)
        out.append((h, rb, min(STRIDED_GROUPS, 1 << (h - rb))))
        h -= rb
        rest -= rb
    out.append((rc, rc, pmax >> rc))   # G groups of 2^rc points: may span several instances
    return out


def _roots(L: int) -> tuple[int, int, int]:
    w = pow(GENERATOR, (PRIME - 1) >> L, PRIME)
    return w, pow(w, PRIME - 2, PRIME), pow(1 << L, PRIME - 2, PRIME)


def _twiddles(ctx, L: int):
    """w^k and w^-k for k < N/2, made on the device once per length and context."""
    cache = ctx.__dict__.setdefault("_ntt_twiddles", {})
    if L not in cache:
        w, wi, _ = _roots(L)
        half = max(1, 1 << (L - 1))
        k = kernel(ctx, "ntt.cl.mako", "ntt_twiddles", **dict(_NIL, KERNEL="twiddles"))
        tabs = []
        for root in (w, wi):
            t = cla.empty(ctx.queue, half, np.uint64)
            k(ctx.queue, (P.ceil_div(half, 64) * 64,), (64,), t.data, np.uint64(root), np.uint32(half))
            tabs.append(t)
        cache[L] = tuple(tabs)
    return cache[L]


_NIL = dict(L=1, H=1, RB=1, G=1, WG=1, LOAD=False, FWD=False, MID=False, INV=False)


def _pass_kernel(ctx, L, H, RB, G, **flags):
    wg = min(256, ctx.max_items, max(1, (G << RB) // 2))
    while True:
        try:
            params = dict(_NIL, KERNEL="pass", L=L, H=H, RB=RB, G=G, WG=wg, **flags)
            return kernel(ctx, "ntt.cl.mako", "ntt_pass", wg, **params), wg
        except DoesNotFit:
            if wg == 1:
                raise
            wg //= 2


def _chunk(ctx, n: int, N: int, step: int) -> int:
    """Instances per round: two transforms of the chunk within a quarter of device memory and
    its largest allocation, a multiple of `step` (instances per work-group of the last pass)."""
    budget = min(int(ctx.device.max_mem_alloc_size), int(ctx.device.global_mem_size) // 4)
    c = max(step, budget // (8 * N) // step * step)
    return min(c, P.ceil_div(n, step) * step)


def mul(ctx, a, sa: int, ma: int, b, sb: int, mb: int, n: int, bits: int):
    """(a * b) mod 2**bits for n instances (contract of clbig.mul_basecase.mul)."""
    why = supports(ctx, ma, mb, bits)
    if why:
        raise DoesNotFit(f"ntt: {why}")
    mr = P.ceil_div(bits, 32)
    X = cla.empty(ctx.queue, (n, mr), np.uint32)
    if n == 0:
        return X
    Y = cla.empty(ctx.queue, (n, mr), np.uint32)
    L, da, db = transform_log(ma, mb, bits)
    N = 1 << L
    tw, itw = _twiddles(ctx, L)
    scale = np.uint64(_roots(L)[2])
    plan = pass_plan(ctx, L)
    last = len(plan) - 1
    fwd = [_pass_kernel(ctx, L, *hrg, LOAD=i == 0, FWD=True) for i, hrg in enumerate(plan[:last])]
    inv = [_pass_kernel(ctx, L, *hrg, INV=True) for hrg in plan[:last]]
    a_last = _pass_kernel(ctx, L, *plan[last], LOAD=last == 0, FWD=True)
    b_last = _pass_kernel(ctx, L, *plan[last], LOAD=last == 0, FWD=True, MID=True, INV=True)
    carry = kernel(ctx, "ntt.cl.mako", "ntt_carry", **dict(_NIL, KERNEL="carry", L=L))

    step = max(1, (plan[last][2] << plan[last][1]) // N)
    chunk = _chunk(ctx, n, N, step)
    ta = cla.empty(ctx.queue, chunk * N, np.uint64)
    tb = cla.empty(ctx.queue, chunk * N, np.uint64)
    for inst0 in range(0, n, chunk):
        count = min(chunk, n - inst0)
        rows = P.ceil_div(count, step) * step

        def run(k_wg, hrg, buf, src=None, stride=0, m=0, dc=0):
            (k, wg), (H, RB, G) = k_wg, hrg
            launch(ctx, k, rows * N // (G << RB), wg, buf.data, ta.data if src is None else src,
                   np.uint64(stride), np.uint32(m), np.uint32(dc), ta.data, tw.data, itw.data,
                   scale, np.uint32(inst0), np.uint32(n))

        for i in range(last):
            run(fwd[i], plan[i], ta, a, sa, ma, da)   # the operand is read by pass 0 only
        run(a_last, plan[last], ta, a, sa, ma, da)
        for i in range(last):
            run(fwd[i], plan[i], tb, b, sb, mb, db)
        run(b_last, plan[last], tb, b, sb, mb, db)
        for i in range(last - 1, -1, -1):
            run(inv[i], plan[i], tb)
        launch(ctx, carry, P.ceil_div(count * mr, 256), 256, tb.data, X.data, Y.data,
               np.uint32(mr), np.uint32(inst0), np.uint32(count))
    out, _ = add_n.addsub(ctx, "add", X.data, mr, mr, Y.data, mr, mr, n, bits)
    return out
