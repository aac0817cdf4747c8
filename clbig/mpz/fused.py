"""Fused expressions: several operations in one kernel, intermediates kept in registers and
local memory. These are the papers' 6-Add and Poly benchmarks, all modulo 2**bits; when a
fused kernel cannot fit the device it falls back to the same expression operation by
operation (still exact, only slower)."""
from __future__ import annotations

import numpy as np

from ..mpn import mul_basecase, mul_n
from ..runtime import plan as P
from ..mpn.add_n import vec_ok
from .array import BigIntArray, check_bits, from_limbs
from .coerce import operands
from .ops import add_fixed, mul_low
from ..runtime.render import DoesNotFit, kernel, launch
from .dispatch import rows


def _setup(a, b, bits):
    a, b, n, sa, sb = operands(a, b)
    bits = max(a.bits, b.bits) if bits is None else check_bits(bits)
    mr = P.ceil_div(bits, 32)
    top = (1 << (bits % 32)) - 1 if bits % 32 else 0xFFFFFFFF
    return a, b, n, sa, sb, bits, mr, top


@rows("add")
def six_add(a, b, bits: int | None = None) -> BigIntArray:
    """6a + 10b mod 2**bits by six chained additions in one kernel."""
    a, b, n, sa, sb, bits, mr, top = _setup(a, b, bits)
    ctx = a.ctx
    out = ctx.empty((n, mr), np.uint32)
    for pl in P.scan_plans(ctx, mr, n, chained=True):
        if pl.mode != "single":
            break
        try:
            k = kernel(ctx, "six_add.cl.mako", "six_add", pl.work_group, Q=pl.Q, IPI=pl.IPI, IPB=pl.IPB,
                       MA=min(a.m, mr), MB=min(b.m, mr), MR=mr, TOP_MASK=top,
                       VEC_A=vec_ok(pl.Q, a.m, sa) and a.m <= mr, VEC_B=vec_ok(pl.Q, b.m, sb) and b.m <= mr,
                       VEC_R=vec_ok(pl.Q, mr, mr))
        except DoesNotFit:
            continue
        if n:
            launch(ctx, k, pl.groups(n), pl.work_group, a.data.data, np.uint64(sa), b.data.data,
                   np.uint64(sb), out.data, np.uint32(n))
        return BigIntArray(ctx, out, bits)
    t1 = add_fixed(a, b, bits)[0]
    t2 = add_fixed(t1, t1, bits)[0]
    t3 = add_fixed(t2, b, bits)[0]
    t4 = add_fixed(t3, t3, bits)[0]
    t5 = add_fixed(t4, t3, bits)[0]
    return add_fixed(t5, b, bits)[0]


@rows("mul")
def poly(a, b, bits: int | None = None, fused: bool | None = None) -> BigIntArray:
    """(a·a + b)·(b·b + b) + a·b mod 2**bits.

    fused=True: in one kernel (classical products, intermediates on chip) wherever it fits;
    False: operation by operation, each product by the best algorithm (mul_n); None (auto):
    fused unless the products would take the NTT, which from 2^15 bits makes the four
    products faster than one fused kernel of classical ones (H100: 2^15-bit batch ~60 against
    95 ms)."""
    a, b, n, sa, sb, bits, mr, top = _setup(a, b, bits)
    ctx = a.ctx
    if fused is None:
        fused = mul_n.choose(ctx, mr, mr, bits, max(n, 1)) == "classical"
    if fused and a.m <= mr and b.m <= mr:
        out = ctx.empty((n, mr), np.uint32)
        # Poly squares twice
        for q in mul_basecase._q_options(ctx.profile.settings, mr, ctx.carry, square=True):
            c = P.ceil_div(P.ceil_div(mr, q), 2) * 2
            ipi = c // 2
            ld = 5 * q + mr
            ipb = max(1, min(min(128, ctx.max_items) // ipi, P.batch_class(ctx, n)))
            while ipb > 1 and P.WORD * ipb * (2 * ld + 3 * c) + 16 > ctx.local_mem:
                ipb //= 2
            if ipi > ctx.max_items or P.WORD * ipb * (2 * ld + 3 * c) + 16 > ctx.local_mem:
                continue
            # operands narrower than the width read as zero-extended
            a_full = a if a.m == mr else _widen(a, mr)
            b_full = b if b.m == mr else _widen(b, mr)
            try:
                k = kernel(ctx, "poly.cl.mako", "poly", ipb * ipi, Q=q, C=c, IPI=ipi, IPB=ipb, M=mr, MR=mr,
                           TOP_MASK=top)
            except DoesNotFit:
                continue
            if n:
                launch(ctx, k, P.ceil_div(n, ipb), ipb * ipi, a_full.data.data,
                       np.uint64(0 if sa == 0 else mr), b_full.data.data, np.uint64(0 if sb == 0 else mr),
                       out.data, np.uint32(n))
            return BigIntArray(ctx, out, bits)
    u = add_fixed(mul_low(a, a, bits), b, bits)[0]
    v = add_fixed(mul_low(b, b, bits), b, bits)[0]
    return add_fixed(mul_low(u, v, bits), mul_low(a, b, bits), bits)[0]


def _widen(x: BigIntArray, m: int) -> BigIntArray:
    limbs = x.to_limbs()
    wide = np.zeros((limbs.shape[0], m), np.uint32)
    wide[:, :limbs.shape[1]] = limbs
    return from_limbs(wide, ctx=x.ctx)
