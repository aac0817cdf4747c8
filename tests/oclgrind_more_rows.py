"""Row moves and sum trees under Oclgrind (run by tests/oclgrind_cases.py): rows.cl.mako's
gather (indexing, sorting, where, full, concatenation at another width, trim to fewer limbs)
and pairsum (sum's tree: odd and even counts, carries through every limb), with the
grid-stride loops made to go round (one work-group for many rows) and without."""
from __future__ import annotations

import clbig
from clbig.mpz import reduce, rowops


def gathers(ctx, check, values, tag, bits, n):
    xs = values(bits, n)
    xs = [-v if i % 3 == 0 else v for i, v in enumerate(xs)]
    with ctx:
        a = clbig.array(xs, bits=bits)
        idx = [n - 1, 0, 2, 2, -1]
        check(f"{tag} a[idx]", a[idx], [xs[i] for i in idx])
        check(f"{tag} a[mask]", a[a > 0], [x for x in xs if x > 0])
        check(f"{tag} sort", clbig.sort(a), sorted(xs))
        check(f"{tag} where", clbig.where(a > 0, a, -1), [x if x > 0 else -1 for x in xs])
        check(f"{tag} full", clbig.full(3, xs[1]), [xs[1]] * 3)
        narrow = clbig.array([5, -7, 2**33], bits=40)
        check(f"{tag} concatenate", clbig.concatenate([narrow, a]), [5, -7, 2**33] + xs)
        check(f"{tag} trim", clbig.array([1, -(2**40)], bits=bits).trim(), [1, -(2**40)])


def sums(ctx, check, values, tag, bits, n):
    ones = (1 << bits) - 1
    with ctx:
        for xs in (values(bits, n), [ones] * n, [ones] * (n + 1)):
            got = reduce.sum(clbig.array(xs, bits=bits))
            check(f"{tag} sum of {len(xs)}", clbig.array([got]), [sum(xs)])
            signed = [-x if i % 2 else x for i, x in enumerate(xs)]
            got = reduce.sum(clbig.array(signed, bits=bits))
            check(f"{tag} signed sum of {len(xs)}", clbig.array([got]), [sum(signed)])


def run(wide_ctx, small_ctx, guarded, check, values):
    guarded("rows gather", gathers, wide_ctx, check, values, "rows", 100, 7)
    guarded("rows sum", sums, wide_ctx, check, values, "rows", 97, 5)
    guarded("rows gather several groups", gathers, small_ctx, check, values, "rows groups", 100, 7)
    saved, rowops._MAX_GROUPS = rowops._MAX_GROUPS, 1   # one group: the loops go round
    try:
        guarded("rows gather looping", gathers, small_ctx, check, values, "rows loop", 160, 6)
        guarded("rows sum looping", sums, small_ctx, check, values, "rows loop", 64, 9)
    finally:
        rowops._MAX_GROUPS = saved
