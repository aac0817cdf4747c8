"""The number-theory kernels under Oclgrind (run by tests/oclgrind_cases.py, which picks up every
tests/oclgrind_more_*.py): the popcount over limbs (one chunk and several chunks per row, a
broadcast stride, padding items in the last group) and the binary Jacobi kernel called directly
(x < y, y odd: zeros, y = 1, common factors, whole zero limbs stripped from x, pairs that swap),
so that only these two kernels run in the simulator."""
from __future__ import annotations

import gmpy2
import numpy as np

import clbig
from clbig.mpn import numtheory_n


def popcounts(ctx, tag, vals, bits):
    a = clbig.array(vals, bits=bits, ctx=ctx)
    got = numtheory_n.popcount(ctx, a.data.data, a.m, a.m, len(a)).tolist()
    want = [v.bit_count() for v in vals]
    if got != want:
        raise AssertionError(f"{tag} popcount: got {got}, want {want}")
    got = numtheory_n.popcount(ctx, a.data.data, 0, a.m, 3).tolist()     # row 0 broadcast
    if got != [want[0]] * 3:
        raise AssertionError(f"{tag} popcount broadcast: got {got}")


def jacobis(ctx, tag, pairs, bits):
    xs, ys = zip(*pairs)
    x = clbig.array(list(xs), bits=bits, ctx=ctx)
    y = clbig.array(list(ys), bits=bits, ctx=ctx)
    got = numtheory_n.jacobi(ctx, x.data.data, x.m, y.data.data, y.m, x.m, len(x)).tolist()
    want = [gmpy2.jacobi(u, v) for u, v in pairs]
    if got != want:
        raise AssertionError(f"{tag} jacobi: got {got}, want {want}")


def run(wide_ctx, small_ctx, guarded, check, values):
    rng = np.random.default_rng(37)
    big = [int(v) for v in rng.integers(0, 2 ** 62, 8)]
    for ctx, tag in ((wide_ctx, "wide"), (small_ctx, "small-wg")):
        guarded(f"popcount {tag}", popcounts, ctx, tag, values(96, 7), 96)
        # 4128 bits: 129 limbs, three chunks of 64 (the last of one limb)
        guarded(f"popcount chunks {tag}", popcounts, ctx, tag, values(4128, 5), 4128)
        p = (1 << 127) - 1
        pairs = [(0, 1), (0, 9), (1, 1), (2 ** 64, p), (3 * 2 ** 70, 2 ** 96 - 3),
                 (15, 21), (p - 1, p), (big[0] % 1000003, 1000003),
                 ((big[1] << 40) % (2 ** 95 + 1), 2 ** 95 + 1)]
        guarded(f"jacobi {tag}", jacobis, ctx, tag, pairs, 128)
