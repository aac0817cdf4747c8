"""Signed values under Oclgrind (run by tests/oclgrind_cases.py, which picks up every
tests/oclgrind_more_*.py): add.cl.mako's per-instance control byte (op "ctl") in one group
with several instances, one instance per group and the multi-group summary/apply passes (small
context: 4-item groups), every control value; bitwise.cl.mako's map with 16-byte vectors
(aligned widths) and single limbs (odd widths), every mask combination, a broadcast operand and
a partial last group; its "select"; and the host paths built on them (signed ±, floor division
fixes, shifts of negatives, ~, isqrt); the one-launch signed kernels bitwise_signed.cl.mako
and shift_signed.cl.mako with one instance per work-item (no local memory), several work-items
per instance (16-byte and single-limb staging, the scans), several instances per group and a
partial last group, broadcast operands, zeros marked negative; and the multi-pass fallbacks
where an instance outgrows the small context's 4-item groups."""
from __future__ import annotations

import math
import operator

import numpy as np

import clbig
from clbig.mpn import add_n
from clbig.mpz import signs
from clbig.mpz.array import limbs_for


def _signed(values, bits, n):
    vals = values(bits, n)
    return [v if i % 3 else -v for i, v in enumerate(vals)]


def ctl_kernel(ctx, check, values, tag, bits, n):
    xs, ys = values(bits, n), values(bits - 3, n)[::-1]
    a, b = clbig.array(xs, bits=bits, ctx=ctx), clbig.array(ys, bits=bits - 3, ctx=ctx)
    codes = [0, 3, 5, 8, 9, 10, 1, 2, 4, 6, 7]
    ctl = np.array([codes[i % len(codes)] for i in range(n)], np.uint8)
    w = 32 * limbs_for(bits + 1)
    want = []
    for x, y, c in zip(xs, ys, ctl.tolist()):
        y = 0 if c & 8 else y
        y = y ^ (2 ** w - 1) if c & 1 else y
        r = (x + y + ((c >> 1) & 1)) % 2 ** w
        r = r ^ (2 ** w - 1) if c & 4 else r
        want.append(r % 2 ** (bits + 1))
    # add_n's op "ctl" itself, masked at bits + 1 (signs.ctl_pass runs whole limbs: its
    # callers' results fit; these codes' results need not)
    c = ctx.to_device(ctl)
    out, _ = add_n.addsub(ctx, "ctl", a.data.data, a.m, a.m, b.data.data, b.m, b.m, n, bits + 1, ctl=c.data)
    check(f"{tag} ctl", clbig.BigIntArray(ctx, out, bits + 1), want, bits + 1)


def signed_ops(ctx, check, values, tag, bits, n):
    xs, ys = _signed(values, bits, n), _signed(values, bits, n)[::-1]
    a, b = clbig.array(xs, bits=bits, ctx=ctx), clbig.array(ys, bits=bits, ctx=ctx)
    check(f"{tag} a+b", a + b, [x + y for x, y in zip(xs, ys)])
    check(f"{tag} a-b", a - b, [x - y for x, y in zip(xs, ys)])
    check(f"{tag} a<b", np.asarray(a < b, int), [int(x < y) for x, y in zip(xs, ys)])


def bitwise_ops(ctx, check, values, tag, ba, bb, n):
    xs, ys = _signed(values, ba, n), _signed(values, bb, n)[::-1]
    a, b = clbig.array(xs, bits=ba, ctx=ctx), clbig.array(ys, bits=bb, ctx=ctx)
    for f in (operator.and_, operator.or_, operator.xor):
        check(f"{tag} {f.__name__}", f(a, b), [f(x, y) for x, y in zip(xs, ys)])
    check(f"{tag} & broadcast", a & b[1:2], [x & ys[1] for x in xs])
    check(f"{tag} | non-negative (no control bytes)", abs(a) | abs(b), [abs(x) | abs(y) for x, y in zip(xs, ys)])
    check(f"{tag} ~", ~a, [~x for x in xs])
    pick = np.array([i % 2 == 0 for i in range(n)])
    check(f"{tag} select", signs.select(pick, abs(a), abs(a[::-1]), ba),
          [abs(xs[::-1][i]) if p else abs(xs[i]) for i, p in enumerate(pick)])


def division_and_shifts(ctx, check, values, tag):
    xs = [7, -7, 7, -7, 6, -6, 0, -(2 ** 70 + 5)]
    ys = [2, 2, -2, -2, -3, 3, -5, 2 ** 33]
    a, b = clbig.array(xs, bits=80, ctx=ctx), clbig.array(ys, bits=40, ctx=ctx)
    q, r = divmod(a, b)
    check(f"{tag} //", q, [x // y for x, y in zip(xs, ys)])
    check(f"{tag} %", r, [x % y for x, y in zip(xs, ys)])
    for k in (0, 1, 33, 90):
        check(f"{tag} >> {k}", a >> k, [x >> k for x in xs])
    vs = [0, 1, 15, 16, 2 ** 64 - 1, 10 ** 20, 99, 2 ** 79]
    check(f"{tag} isqrt", clbig.isqrt(clbig.array(vs, bits=80, ctx=ctx)), [math.isqrt(v) for v in vs])


def _mixed(values, bits, n):
    """n signed values, every other one negative, none of them zero (the -0 cases come apart)."""
    vals = [v or 3 for v in values(bits, n + 1)[1:]]
    return [-v if i % 2 == 0 else v for i, v in enumerate(vals)]


def _with_neg_zeros(ctx, xs, bits):
    """xs with every third value a zero marked negative ("-0"), as (values, array)."""
    xs = [0 if i % 3 == 1 else x for i, x in enumerate(xs)]
    mags = clbig.array([abs(x) for x in xs], bits=bits, ctx=ctx).to_limbs()
    sign = [-1 if i % 3 == 1 or x < 0 else 1 for i, x in enumerate(xs)]
    return xs, clbig.from_limbs(mags, bits=bits, ctx=ctx, sign=sign)


def fused_bitwise(ctx, check, values, tag, ba, bb, n):
    xs, ys = _mixed(values, ba, n), _mixed(values, bb, n)[::-1]
    a, b = clbig.array(xs, bits=ba, ctx=ctx), clbig.array(ys, bits=bb, ctx=ctx)
    zs, z = _with_neg_zeros(ctx, xs, ba)
    for f in (operator.and_, operator.or_, operator.xor):
        check(f"{tag} {f.__name__}", f(a, b), [f(x, y) for x, y in zip(xs, ys)])
        check(f"{tag} -0 {f.__name__}", f(b, z), [f(y, x) for x, y in zip(zs, ys)])
        check(f"{tag} {f.__name__} broadcast", f(b[2:3], a), [f(ys[2], x) for x in xs])
    check(f"{tag} & unmarked (no sign bytes)", a & abs(b), [x & abs(y) for x, y in zip(xs, ys)])


def fused_shift(ctx, check, values, tag, bits, n, ks):
    xs = _mixed(values, bits, n)
    a = clbig.array(xs, bits=bits, ctx=ctx)
    zs, z = _with_neg_zeros(ctx, xs, bits)
    for k in ks:
        check(f"{tag} >> {k}", a >> k, [x >> k for x in xs])
    check(f"{tag} -0 >> 3", z >> 3, [x >> 3 for x in zs])


def run(wide_ctx, small_ctx, guarded, check, values):
    guarded("signed ctl several per group", ctl_kernel, wide_ctx, check, values, "ctl", 100, 11)
    guarded("signed ctl one per group", ctl_kernel, wide_ctx, check, values, "ctl big", 2000, 3)
    guarded("signed ctl multi-group", ctl_kernel, small_ctx, check, values, "ctl multi", 1900, 3)
    guarded("signed +- small", signed_ops, wide_ctx, check, values, "signed", 96, 7)
    guarded("signed +- multi-group", signed_ops, small_ctx, check, values, "signed multi", 1900, 3)
    guarded("bitwise vec4", bitwise_ops, wide_ctx, check, values, "bitwise vec4", 128, 128, 7)
    guarded("bitwise scalar limbs", bitwise_ops, small_ctx, check, values, "bitwise odd", 100, 40, 5)
    guarded("signed divmod, shifts, isqrt", division_and_shifts, wide_ctx, check, values, "signed")
    # one-launch signed kernels: IPI = 1 (one instance per item), IPI = 2 (16-byte staging),
    # IPI = 3 (single limbs), one instance per 4-item group and a partial last group (small)
    guarded("fused bitwise per item", fused_bitwise, wide_ctx, check, values, "fbw 64", 64, 40, 7)
    guarded("fused bitwise vec4", fused_bitwise, wide_ctx, check, values, "fbw 255", 255, 255, 5)
    guarded("fused bitwise odd", fused_bitwise, wide_ctx, check, values, "fbw 300", 300, 200, 4)
    guarded("fused bitwise small groups", fused_bitwise, small_ctx, check, values, "fbw small", 100, 70, 5)
    guarded("fused bitwise one per group", fused_bitwise, small_ctx, check, values, "fbw small 3", 300, 70, 3)
    guarded("bitwise fallback", fused_bitwise, small_ctx, check, values, "fbw fallback", 600, 600, 3)
    guarded("fused shift per item", fused_shift, wide_ctx, check, values, "fsh 64", 64, 7, (0, 1, 32, 33, 70))
    guarded("fused shift vec4", fused_shift, wide_ctx, check, values, "fsh 255", 255, 5, (0, 31, 64, 97, 255))
    guarded("fused shift odd", fused_shift, wide_ctx, check, values, "fsh 300", 300, 4, (1, 65, 299))
    guarded("fused shift small groups", fused_shift, small_ctx, check, values, "fsh small", 100, 5, (0, 33, 99))
    guarded("shift fallback", fused_shift, small_ctx, check, values, "fsh fallback", 600, 3, (1, 64))
