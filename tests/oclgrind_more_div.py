"""Basecase division under Oclgrind (run by tests/oclgrind_cases.py): tiny batches reaching
every path of kernels_cl/div_basecase.cl.mako and the estimate kernel of div.cl.mako.

  * one work-item per instance (C = 1): add-back, all-ones quotients (the B - 1 estimate),
    divisors longer than the dividend, a broadcast divisor, a group with padding items; rows
    walked in global memory and staged in local memory (CLBIG_DIVBC_STAGE);
  * C = 2 (limits lowered through CLBIG_DIVBC_SINGLE / CLBIG_DIVBC_Q): the one-barrier fast
    step, the slow path (remainders of zero limbs) with its add-back, a padding instance;
  * C = 3 on 4-item work-groups, one instance per group over two groups;
  * Newton's first iterate: the kernel on a broadcast dividend B^k with broadcast bit lengths.
Each case checks its results against Python ints and that the kernel reports the add-back and
slow-path steps it was built to reach (a case that reaches neither fails).
"""
from __future__ import annotations

import random

import numpy as np
import pyopencl.array as cla

import clbig
from oclgrind_env import env as set_env
from clbig.mpz import ops
from clbig.runtime.render import kernel, launch

B = 1 << 32
RNG = random.Random(20240612)


def _addback(mv: int, t: int):
    """(u, v): the 3-by-2 estimate of quotient limb t is one too large (see test_div_basecase)."""
    d = RNG.randrange(B * B // 2, B * B)
    v = d * B ** (mv - 2) + B ** (mv - 2) - 1
    return (RNG.randrange(2, B) * d * B ** (mv - 2) + 5) * B ** t + RNG.getrandbits(32 * t), v


def _zero_rich(mv: int, mu: int):
    v = B ** (mv - 1) * RNG.randrange(1, B) + 1
    return B ** (mu - 1) + B ** 3, v


def _divide(ctx, check, tag, pairs, ba, bb, env=None, broadcast=False):
    with set_env(**(env or {})):
        xs, ys = [p[0] for p in pairs], [p[1] for p in pairs]
        a = clbig.array(xs, bits=ba, ctx=ctx)
        b = clbig.array(ys[:1] if broadcast else ys, bits=bb, ctx=ctx)
        if broadcast:
            ys = ys[:1] * len(xs)
        stats = {}
        q, r = ops.divmod_arrays(a, b, len(xs), a.m, 0 if broadcast else b.m,
                                   algorithm="basecase", stats=stats)
        check(f"{tag} quotient", q, [x // y for x, y in zip(xs, ys)], ba)
        check(f"{tag} remainder", r, [x % y for x, y in zip(xs, ys)], bb)
        return stats


def _need(tag, stats, C, slow=False, addback=False):
    got = (stats["plan"]["C"], int(stats["slow"].sum()) > 0, int(stats["addback"].sum()) > 0)
    if got[0] != C or (slow and not got[1]) or (addback and not got[2]):
        raise AssertionError(f"{tag}: reached C={got[0]}, slow path {got[1]}, add-back {got[2]}; "
                             f"wanted C={C}{', slow path' if slow else ''}{', add-back' if addback else ''}")


def one_item(ctx, check):
    mv, ba, bb = 3, 192, 96
    v = _addback(mv, 1)[1]
    pairs = [_addback(mv, 1), _addback(mv, 2), (v * B ** 2 - 1, v), (5, v), (2 ** 191 - 1, 7)]
    for stage in ("0", "1"):     # rows walked in global memory / staged in local memory
        env = {"CLBIG_DIVBC_STAGE": stage}
        tag = f"div basecase one item, stage={stage}"
        stats = _divide(ctx, check, tag, pairs, ba, bb, env)
        _need(tag, stats, 1, addback=True)
        if stats["plan"]["STAGE"] != (stage == "1"):
            raise AssertionError(f"{tag}: the plan has STAGE={stats['plan']['STAGE']}")
        _divide(ctx, check, tag + ", one divisor", pairs, ba, bb, env, broadcast=True)


COOP = {"CLBIG_DIVBC_SINGLE": "4", "CLBIG_DIVBC_Q": "8"}


def coop(ctx, check):
    mv, mu = 10, 16                                       # C = 2, Q = 8; 3 instances, 4 per group
    pairs = [_addback(mv, 2), _zero_rich(mv, mu), (RNG.getrandbits(32 * mu), RNG.getrandbits(32 * mv))]
    stats = _divide(ctx, check, "div basecase coop", pairs, 32 * mu, 32 * mv, COOP)
    _need("coop", stats, 2, slow=True, addback=True)


def coop_small(ctx, check):
    mv, mu = 20, 24                                       # C = 3 of the 4 items, IPB = 1
    pairs = [_addback(mv, 1), (RNG.getrandbits(32 * mu), RNG.getrandbits(32 * mv - 5))]
    _need("coop small", _divide(ctx, check, "div basecase coop 4 items", pairs, 32 * mu, 32 * mv, COOP),
          3, addback=True)


def zero_divisor(ctx, check):
    """A zero divisor inside a batch: the schoolbook kernel is queued before the host reads the
    lengths, so it runs on the zero (one item per instance, staged or not, and cooperative);
    it must stay within bounds and initialized memory, and the call raises."""
    for env, ba, bb in (({"CLBIG_DIVBC_STAGE": "0"}, 192, 96), ({"CLBIG_DIVBC_STAGE": "1"}, 192, 96),
                        (COOP, 512, 320)):
        with set_env(**env):
            a = clbig.array([RNG.getrandbits(ba), B ** 3 - 1, 5], bits=ba, ctx=ctx)
            b = clbig.array([7, 0, RNG.getrandbits(bb)], bits=bb, ctx=ctx)
            try:
                ops.divmod_arrays(a, b, 3, a.m, b.m, algorithm="basecase")
            except ZeroDivisionError as e:
                if "index 1" not in str(e):
                    raise AssertionError(f"zero divisor: {e}") from None
            else:
                raise AssertionError("zero divisor: no ZeroDivisionError")
            ctx.finish()


def estimate(ctx, check):
    cases = [(0x7FFFFFFF, 5, 9, 0x80000000, 0), (0xFFFFFFFF, 0xFFFFFFFE, 3, 0xFFFFFFFF, 0xFFFFFFFF),
             (0x80000000, 1, 0, 0x80000000, 1), (0, 0, 7, 0x80000000, 0), (123, 456, 789, 0x91234567, 8)]
    x = cla.to_device(ctx.queue, np.array(cases, dtype=np.uint32))
    q = cla.empty(ctx.queue, (len(cases),), np.uint32)
    k = kernel(ctx, "div.cl.mako", "div_3by2_cases", KERNEL="div_3by2", MA=0, MR=0, WG=0)
    launch(ctx, k, 1, len(cases), x.data, q.data, np.uint32(len(cases)))
    want = [B - 1 if (n2, n1) == (d1, d0) else ((n2 << 64) + (n1 << 32) + n0) // ((d1 << 32) + d0)
            for n2, n1, n0, d1, d0 in cases]
    check("div 3-by-2 estimate", q.get().tolist(), want)


def first_iterate(ctx, check):
    """Newton's first iterate by the basecase kernel (div_q.inverse, start 3 of 5 levels):
    a broadcast dividend B^(p0+j0) (stride 0) and broadcast bit lengths (stride 0), then two
    Newton steps, against the model; three divisors of 6 limbs of different bit lengths."""
    from clbig.mpn import div_q
    ys = [RNG.getrandbits(192) | 1 << 191, RNG.getrandbits(170) | 1 << 169, (1 << 160) + 1]
    b = clbig.array(ys, bits=192, ctx=ctx)
    lens = div_q.bitlen(ctx, b.data.data, b.m, b.m, len(ys))
    w = div_q.inverse(ctx, b.data.data, b.m, b.m, len(ys), lens, 8, start=3)
    got = clbig.BigIntArray(ctx, w, 32 * w.shape[1]).tolist()
    check("div Newton first iterate", got, [div_q.reference_inverse(y, 8, 6, start=3) for y in ys])


def newton_tail(ctx, check, p=18, j=17, J=33):
    """The fused tail of a Newton step (kernels_cl/newton_tail.cl.mako) on 4-item work-groups:
    35 limbs over three blocks (summary, then apply), with limbs of B - 1 and B - 2 that send
    carries of 2 across chunks and blocks; three instances, w with a stride of j + 3."""
    from clbig.mpn import div_q
    width = p + 2 * j + 1
    pick = lambda: RNG.choice((B - 1, B - 1, B - 1, B - 2, 0, RNG.getrandbits(32)))
    zs = [sum(pick() << (32 * i) for i in range(width)) for _ in range(3)]
    ws = [sum(pick() << (32 * i) for i in range(j + 1)) for _ in range(3)]
    za = clbig.array(zs, bits=32 * width, ctx=ctx).data
    wa = clbig.array(ws, bits=32 * (j + 3), ctx=ctx).data
    got = div_q._tail(ctx, za, p, wa, j, J, 3)
    want = [((z + (w << (32 * (p + j))) - (w << (32 * p))) % B ** width) >> (32 * (p + 2 * j - J))
            for z, w in zip(zs, ws)]
    check("div Newton tail, multi-group", clbig.BigIntArray(ctx, got, 32 * (J + 1)).tolist(), want)


def run(wide_ctx, small_ctx, guarded, check, values):
    guarded("div Newton first iterate", first_iterate, wide_ctx, check)
    guarded("div basecase one item", one_item, wide_ctx, check)
    guarded("div basecase coop", coop, wide_ctx, check)
    guarded("div basecase coop small-wg", coop_small, small_ctx, check)
    guarded("div 3-by-2 estimate", estimate, wide_ctx, check)
    guarded("div basecase zero divisor", zero_divisor, wide_ctx, check)
    guarded("div Newton tail multi-group", newton_tail, small_ctx, check)
