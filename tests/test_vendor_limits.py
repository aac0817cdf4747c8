"""The core operations under other vendors' limits, emulated by capping a Context.

AMD GPUs commonly give 256-item work-groups and 64 KiB of local memory, Intel GPUs up to 64 KiB,
NVIDIA 1024 items and 48 KiB through OpenCL. `clbig.Context(max_work_group_size=...,
max_local_mem=...)` makes the planner obey such limits on any device, and render.kernel refuses a
built kernel whose local memory exceeds the cap (DoesNotFit), as the real device would, so every
launch path these caps select is exercised here on PoCL, exact against gmpy2.

Sizes are the smallest that reach each path under the caps: one limb, a few limbs, a 1000-bit
operand against a 31-bit one, and widths past one work-group (add: 256 items of 32 limbs; mul:
products whose operands no longer fit 32 KiB of local memory).
"""
from __future__ import annotations

import gmpy2
import pytest

import clbig
from clbig import fused

from conftest import check_bools, check_values, mask, rand_value

LIMITS = [(256, 32 * 1024), (256, 64 * 1024), (1024, 48 * 1024)]
# (a.bits, b.bits, batch length): one limb, unequal widths, broadcast, sizes beyond one group
SHAPES = [(32, 32, 5), (1000, 31, 3), (31, 1000, 1), (2 ** 14, 2 ** 13, 3), (2 ** 17 + 32, 2 ** 16, 1)]


@pytest.fixture(scope="module", params=LIMITS, ids=[f"{w}items-{m // 1024}KiB" for w, m in LIMITS])
def capped(request):
    wg, lm = request.param
    c = clbig.Context(max_work_group_size=wg, max_local_mem=lm)
    assert c.max_items <= wg and c.local_mem <= lm
    return c


def _values(rng, bits, n):
    vals = [rand_value(rng, bits) for _ in range(n)]
    vals[0] = mask(bits)          # carry chains through every limb
    return vals


@pytest.mark.parametrize("ba,bb,n", SHAPES)
def test_core_ops_under_limits(capped, rng, ba, bb, n):
    xs, ys = _values(rng, ba, n), _values(rng, bb, 1 if n == 3 else n)
    with capped:
        a, b = clbig.array(xs, bits=ba), clbig.array(ys, bits=bb)
        ye = ys * (n // len(ys))
        check_values((a + b).tolist(), [x + y for x, y in zip(xs, ye)], "add")
        r, c = clbig.sub_fixed(a, b)
        w = max(ba, bb)
        check_values(r.tolist(), [(x - y) & mask(w) for x, y in zip(xs, ye)], "sub_fixed")
        check_bools(c, [x < y for x, y in zip(xs, ye)], "sub_fixed borrow")
        assert clbig.compare(a, b).tolist() == [(x > y) - (x < y) for x, y in zip(xs, ye)]
        check_values((a << 33).tolist(), [x << 33 for x in xs], "shift left")
        check_values((a >> 31).tolist(), [x >> 31 for x in xs], "shift right")
        prod = [gmpy2.mpz(x) * y for x, y in zip(xs, ye)]
        algos = ["classical", "ntt"] + (["ssa"] if max(ba, bb) >= 2 ** 13 else [])
        for alg in algos:
            check_values(clbig.mul(a, b, algorithm=alg).tolist(), prod, f"mul {alg}")
        check_values(clbig.mul_low(a, b, bits=w).tolist(), [p & mask(w) for p in prod], "mul_low")
        yd = [y or 1 for y in ys]
        d = clbig.array(yd, bits=bb)
        yde = yd * (n // len(yd))
        algs = ["basecase", "newton"] if max(ba, bb) <= 2 ** 14 else ["auto"]
        for alg in algs:
            q, rem = clbig.divmod(a, d, algorithm=alg)
            check_values(q.tolist(), [x // y for x, y in zip(xs, yde)], f"floordiv {alg}")
            check_values(rem.tolist(), [x % y for x, y in zip(xs, yde)], f"mod {alg}")
        if max(ba, bb) <= 2 ** 14:
            bits = min(w, 2048)
            check_values(fused.six_add(a, b, bits).tolist(),
                         [(6 * x + 10 * y) & mask(bits) for x, y in zip(xs, ye)], "six_add")
            check_values(fused.poly(a, b, bits).tolist(),
                         [((x * x + y) * (y * y + y) + x * y) & mask(bits) for x, y in zip(xs, ye)], "poly")


def test_caps_are_checked():
    with pytest.raises(ValueError, match="max_local_mem"):
        clbig.Context(max_local_mem=0)
    with pytest.raises(TypeError, match="max_local_mem"):
        clbig.Context(max_local_mem=1.5)
    c = clbig.Context(max_local_mem=10 ** 12)   # a cap above the device's limit changes nothing
    assert c.local_mem == int(c.device.local_mem_size)
