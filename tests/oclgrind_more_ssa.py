"""Schönhage–Strassen (clbig.mul_ssa) cases for tests/oclgrind_cases.py: tiny products that
still reach every SSA kernel (the first forward and inverse stages, the in-place stages in
both directions, recomposition), several butterflies per group and one per group over
several groups (the 4-item context), broadcast operands and a low-half product."""
from __future__ import annotations

import os

import clbig
from clbig.mpn import mul_ssa
from clbig.mpz.array import limbs_to_ints


def _case(ctx, tag, ba, bb, n, k, check, values, bits=None, broadcast=""):
    """broadcast: the operands ("a", "b" or "ab") given once for all n instances."""
    bits = bits or ba + bb
    xs = values(ba, 1 if "a" in broadcast else n)
    ys = values(bb, 1 if "b" in broadcast else n)
    a, b = clbig.array(xs, bits=ba, ctx=ctx), clbig.array(ys, bits=bb, ctx=ctx)
    os.environ["CLBIG_SSA_K"] = str(k)
    try:
        r = mul_ssa.mul(ctx, a.data.data, a.m if len(xs) > 1 else 0, a.m,
                        b.data.data, b.m if len(ys) > 1 else 0, b.m, n, bits)
    finally:
        del os.environ["CLBIG_SSA_K"]
    want = [(xs[i % len(xs)] * ys[i % len(ys)]) % (1 << bits) for i in range(n)]
    check(f"{tag} ssa {ba}x{bb} bits mod 2^{bits}, k={k}", limbs_to_ints(r.get(queue=ctx.queue)), want)


def run(wide_ctx, small_ctx, guarded, check, values):
    cases = [
        (wide_ctx, "ssa", 200, 150, 3, 3, None, ""),             # 12 butterflies in one group
        (wide_ctx, "ssa bcast low", 300, 100, 2, 2, 250, "b"),   # b transformed once, tiled
        (wide_ctx, "ssa bcast both", 100, 70, 2, 2, None, "ab"),  # one product, tiled
        (small_ctx, "ssa small-wg", 1000, 900, 1, 2, None, ""),   # 4 items of 8 words, 1 per group
    ]
    for ctx, tag, ba, bb, n, k, bits, bc in cases:
        guarded(tag, _case, ctx, tag, ba, bb, n, k, check, values, bits, bc)
