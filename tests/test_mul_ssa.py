"""Schönhage–Strassen multiplication (clbig.mul_ssa) against gmpy2 / Python integers.

Every distinct ring size P costs a pointwise kernel build and every result width a carry
addition build (about a second each on PoCL, cold), so the sizes below are few and chosen to
cross the plan's edges: one limb, odd limb counts, both sides of a change of transform length,
very unbalanced operands, low halves. The transform kernels themselves are checked row by row
against the definition of the transforms, on arbitrary residues (0, 1, 2^K - 1, 2^K = -1).
"""
from __future__ import annotations

import random

import gmpy2
import numpy as np
import pyopencl as cl
import pyopencl.array as cla
import pytest

import clbig
from clbig.mpn import mul_basecase
from clbig.mpn import mul_ssa
from clbig.mpz.array import limbs_to_ints
from clbig.runtime.render import DoesNotFit
from conftest import check_values, edge_values, limb_pattern, mask, rand_value


def operand(ctx, values, bits):
    """(buffer, instance stride, limbs): one value is a broadcast operand (stride 0)."""
    x = clbig.array(values, bits=bits, ctx=ctx)
    return x.data.data, (x.m if len(values) > 1 else 0), x.m


def ssa(ctx, xs, ys, ba, bb, bits=None, pointwise=None):
    bits = bits or ba + bb
    a, sa, ma = operand(ctx, xs, ba)
    b, sb, mb = operand(ctx, ys, bb)
    n = max(len(xs), len(ys))
    r = mul_ssa.mul(ctx, a, sa, ma, b, sb, mb, n, bits, pointwise)
    assert r.shape == (n, -(-bits // 32)) and r.dtype == np.uint32
    return limbs_to_ints(r.get(queue=ctx.queue))


def check(ctx, xs, ys, ba, bb, bits=None, what="", pointwise=None):
    bits = bits or ba + bb
    got = ssa(ctx, xs, ys, ba, bb, bits, pointwise)
    n = max(len(xs), len(ys))
    want = [(gmpy2.mpz(xs[i % len(xs)]) * ys[i % len(ys)]) & mask(bits) for i in range(n)]
    check_values(got, want, f"ssa {ba}x{bb} bits mod 2^{bits} {what}", (xs, ys))


def pairs(rng, ba, bb, n=5):
    """Edges first (maxima, 0, 1, powers of two, limb patterns), then random values."""
    ea, eb = edge_values(ba), edge_values(bb)
    xs = [mask(ba), mask(ba), 0, 1, 1 << (ba - 1), limb_pattern(rng, ba)] + rng.sample(ea, min(3, len(ea)))
    ys = [mask(bb), 1, mask(bb), mask(bb), 1 << (bb - 1), limb_pattern(rng, bb)] + rng.sample(eb, min(3, len(eb)))
    xs, ys = xs[:n], ys[:n]
    while len(xs) < n:
        xs.append(rand_value(rng, ba))
        ys.append(rand_value(rng, bb))
    return xs, ys


# (a.bits, b.bits): one limb, widths off the limb grid, odd limb counts, the default plan's
# transform lengths 2^1 .. 2^7, unbalanced both ways.
SIZES = [(32, 32), (33, 7), (96, 160), (1000, 1000), (4192, 4064), (2 ** 14, 2 ** 14 + 160),
         (2 ** 16, 2 ** 16), (2 ** 16 + 96, 64), (32, 2 ** 15)]


@pytest.mark.parametrize("ba,bb", SIZES)
def test_sizes(ctx, rng, ba, bb):
    xs, ys = pairs(rng, ba, bb)
    check(ctx, xs, ys, ba, bb)


def test_transform_length_changes(ctx, rng):
    """Both sides of the first size where the default plan switches its number of rows."""
    ma = 100
    k0 = mul_ssa.plan(ctx, ma, ma, 64 * ma)["k"]
    while mul_ssa.plan(ctx, ma + 1, ma + 1, 64 * (ma + 1))["k"] == k0:
        ma += 1
    for m in (ma, ma + 1):
        xs, ys = pairs(rng, 32 * m, 32 * m, 3)
        check(ctx, xs, ys, 32 * m, 32 * m, what=f"(k = {mul_ssa.plan(ctx, m, m, 64 * m)['k']})")


@pytest.mark.parametrize("k", [1, 3, 6, 9])
def test_forced_transform_lengths(ctx, rng, monkeypatch, k):
    """One size through transforms of 2^1 .. 2^9 rows (down to one-limb pieces)."""
    monkeypatch.setenv("CLBIG_SSA_K", str(k))
    xs, ys = pairs(rng, 3000, 2000)
    assert mul_ssa.plan(ctx, 94, 63, 5000)["k"] == k
    check(ctx, xs, ys, 3000, 2000, what=f"k={k}")


@pytest.mark.parametrize("bits", [1, 31, 33, 2000, 3001, 5000, 5100])
def test_low_bits(ctx, rng, bits):
    """(a*b) mod 2^bits below, at and above the full width; the operands are truncated to
    the bits that matter, which changes the plan."""
    xs, ys = pairs(rng, 3000, 2000)
    check(ctx, xs, ys, 3000, 2000, bits)


def test_broadcast(ctx, rng):
    xs, ys = pairs(rng, 2000, 1500, 5)
    check(ctx, xs, ys[:1], 2000, 1500, what="b broadcast")
    check(ctx, xs[:1], ys, 2000, 1500, what="a broadcast")
    check(ctx, xs[:1], ys[:1], 2000, 1500, what="both one instance")
    a, _, ma = operand(ctx, xs[:1], 2000)
    b, _, mb = operand(ctx, ys[:1], 1500)
    r = mul_ssa.mul(ctx, a, 0, ma, b, 0, mb, 3, 3500)
    check_values(limbs_to_ints(r.get()), [xs[0] * ys[0]] * 3, "both broadcast, n=3")


def test_square_and_batch_lengths(ctx, rng):
    for n in (1, 5):
        xs = [rand_value(rng, 2000) for _ in range(n - 1)] + [mask(2000)]
        a, sa, ma = operand(ctx, xs, 2000)
        r = mul_ssa.mul(ctx, a, sa, ma, a, sa, ma, n, 4000)   # the same buffer: one transform
        check_values(limbs_to_ints(r.get()), [x * x for x in xs], f"square n={n}")
    a, _, ma = operand(ctx, xs, 2000)
    assert mul_ssa.mul(ctx, a, ma, ma, a, ma, ma, 0, 4000).shape == (0, 125)


def test_pointwise_plug(ctx, rng):
    """The pointwise products go through the given callable: here Python integers on the host,
    so a right answer proves its results were used."""
    calls = []

    def host_mul(ctx_, a, sa, ma, b, sb, mb, n, bits):
        calls.append((ma, mb, n, bits))
        mr = -(-bits // 32)

        def rows(buf, s, m):
            h = np.empty(max(1, s) * (n - 1) + m, np.uint32)
            cl.enqueue_copy(ctx_.queue, h, buf)
            return limbs_to_ints(np.stack([h[i * s:i * s + m] for i in range(n)]))
        prods = [(x * y) & mask(bits) for x, y in zip(rows(a, sa, ma), rows(b, sb, mb))]
        limbs = np.array([[(p >> (32 * j)) & 0xFFFFFFFF for j in range(mr)] for p in prods], np.uint32)
        return cla.to_device(ctx_.queue, limbs)

    xs, ys = pairs(rng, 1000, 700, 3)
    check(ctx, xs, ys, 1000, 700, pointwise=host_mul, what="host pointwise")
    pl = mul_ssa.plan(ctx, 32, 22, 1700)
    assert calls == [(pl["P"] + 1, pl["P"] + 1, 3 * pl["N"], 32 * (2 * pl["P"] + 1))]


def test_small_work_groups(small_ctx, rng, monkeypatch):
    """Work-groups of at most 8 items: butterflies of 8 words per item, one per group."""
    monkeypatch.setenv("CLBIG_SSA_K", "2")
    xs, ys = pairs(rng, 1000, 1000, 3)
    pl = mul_ssa.plan(small_ctx, 32, 32, 2000)
    assert pl["ipi"] <= 8 < -(-pl["P"] // 4)
    check(small_ctx, xs, ys, 1000, 1000)


def test_kernel_item_limit(ctx, rng, monkeypatch):
    """A built kernel that allows fewer work-items than planned: passes split, still exact."""
    real = mul_ssa._max_items
    monkeypatch.setattr(mul_ssa, "_max_items", lambda *a: (real(*a)[0], 2 * mul_ssa.plan(ctx, 32, 32, 2000)["ipi"]))
    xs, ys = pairs(rng, 1000, 1000)
    check(ctx, xs, ys, 1000, 1000, what="at most 2 butterflies per group")


def test_does_not_fit(ctx, monkeypatch):
    assert mul_ssa.supports(ctx, 2 ** 14, 2 ** 14, 2 ** 20) is None
    monkeypatch.setattr(mul_ssa, "_limits", lambda c: (1 << 20, 1 << 18))
    reason = mul_ssa.supports(ctx, 2 ** 14, 2 ** 14, 2 ** 20)
    assert reason and "memory" in reason and str(1 << 20) in reason
    a = clbig.array([1], bits=2 ** 19, ctx=ctx)
    with pytest.raises(DoesNotFit, match="device memory"):
        mul_ssa.mul(ctx, a.data.data, 0, a.m, a.data.data, 0, a.m, 1, 2 ** 20)
    monkeypatch.setattr(mul_ssa, "_limits", lambda c: (1 << 20, 1 << 30))   # one instance fits
    b = clbig.array([1] * 2000, bits=2 ** 10, ctx=ctx)
    with pytest.raises(DoesNotFit, match="2000 instances"):
        mul_ssa.mul(ctx, b.data.data, b.m, b.m, b.data.data, b.m, b.m, 2000, 2 ** 11)
    with pytest.raises(ValueError, match="limbs"):
        mul_ssa.mul(ctx, a.data.data, 0, 0, a.data.data, 0, a.m, 1, 64)
    monkeypatch.setenv("CLBIG_SSA_K", "31")
    with pytest.raises(ValueError, match="CLBIG_SSA_K"):
        mul_ssa.plan(ctx, 4, 4, 256)


# -- the transforms, row by row against their definitions ------------------------------------
def _model_plan(ctx, monkeypatch, k, levels=6):
    monkeypatch.setenv("CLBIG_SSA_K", str(k))
    monkeypatch.setenv("CLBIG_SSA_LEVELS", str(levels))
    pl = mul_ssa.plan(ctx, 40, 40, 2560)
    return pl, 32 * pl["P"], (1 << (32 * pl["P"])) + 1


def _read_rows(ctx, buf, rows, width):
    h = np.empty((rows, width), np.uint32)
    cl.enqueue_copy(ctx.queue, h, buf)
    return limbs_to_ints(h)


def _special_residues(rng, K, count):
    """0, 1, 2^K - 1, 2^K (= -1), single bits, then random residues in [0, 2^K]."""
    v = [0, 1, (1 << K) - 1, 1 << K, 1 << (K - 1), (1 << K) - 2, 2, 1 << 32, mask(K) ^ 1]
    while len(v) < count:
        v.append(rng.getrandbits(K) if rng.random() < 0.8 else 1 << K)
    rng.shuffle(v)
    return v[:count]


@pytest.mark.parametrize("k,levels", [(3, 6), (5, 2)])
def test_forward_transform(ctx, rng, monkeypatch, k, levels):
    """Row i of a's transform is sum_t piece_t * w^(i t) mod 2^K + 1, w = 2^(2K/N), in one
    pass through local memory or in passes of at most `levels` stages."""
    pl, K, F = _model_plan(ctx, monkeypatch, k, levels)
    N, M = pl["N"], pl["M"]
    xs = [mask(32 * 40), limb_pattern(rng, 32 * 40)]
    a, sa, ma = operand(ctx, xs, 32 * 40)
    T = mul_ssa._forward(ctx, pl, a, 0, sa, ma, 2)
    got = _read_rows(ctx, T, 2 * N, pl["P"] + 1)
    w = pow(2, 2 * K // N, F)
    for s, x in enumerate(xs):
        pieces = [(x >> (32 * M * t)) & mask(32 * M) for t in range(N)]
        want = [sum(p * pow(w, i * t, F) for t, p in enumerate(pieces)) % F for i in range(N)]
        check_values(got[s * N:(s + 1) * N], want, f"forward transform k={k}, instance {s}")


@pytest.mark.parametrize("k,levels", [(2, 6), (4, 2)])
def test_inverse_transform(ctx, rng, monkeypatch, k, levels):
    """From arbitrary products p_t <= 2^2K (reduced on the fly): sum_t p_t w^(-i t) mod F."""
    pl, K, F = _model_plan(ctx, monkeypatch, k, levels)
    N, P = pl["N"], pl["P"]
    prods = [(1 << (2 * K)), 1 << K, (1 << K) - 1, ((1 << K) - 1) << K, 0, 1 << (2 * K - 1)]
    while len(prods) < 2 * N:
        x, y = _special_residues(rng, K, 2)
        prods.append(x * y)
    rng.shuffle(prods)
    limbs = np.array([[(p >> (32 * j)) & 0xFFFFFFFF for j in range(2 * P + 1)] for p in prods], np.uint32)
    src = cla.to_device(ctx.queue, limbs)
    T = cl.Buffer(ctx.cl_context, cl.mem_flags.READ_WRITE, 4 * 2 * N * (P + 1))
    mul_ssa._inverse(ctx, pl, src.data, T, 2)
    got = _read_rows(ctx, T, 2 * N, P + 1)
    wi = pow(2, 2 * K - 2 * K // N, F)
    for s in range(2):
        ps = prods[s * N:(s + 1) * N]
        want = [sum(p * pow(wi, i * t, F) for t, p in enumerate(ps)) % F for i in range(N)]
        check_values(got[s * N:(s + 1) * N], want, f"inverse transform k={k}, instance {s}")


@pytest.mark.parametrize("inv", [0, 1])
def test_stages_on_residues(ctx, rng, monkeypatch, inv):
    """In-place passes alone (stages 1..2, then 3), on residues that include 2^K = -1 and
    2^K - 1, two instances."""
    pl, K, F = _model_plan(ctx, monkeypatch, 4)
    N, P = pl["N"], pl["P"]
    rows = _special_residues(rng, K, 2 * N)
    limbs = np.array([[(r >> (32 * j)) & 0xFFFFFFFF for j in range(P + 1)] for r in rows], np.uint32)
    T = cla.to_device(ctx.queue, limbs)
    mul_ssa._levels(ctx, pl, "rows", T.data, 0, 0, T.data, 2, 1, 2, inv)
    mul_ssa._levels(ctx, pl, "rows", T.data, 0, 0, T.data, 2, 3, 1, inv)
    for i in range(2):
        want = _model_stages(rows[i * N:(i + 1) * N], pl["k"], K, F, inv)
        check_values(limbs_to_ints(T.get())[i * N:(i + 1) * N], want, f"stages inv={inv}, instance {i}")


def _model_stages(rows, k, K, F, inv):
    """DIT stages 1..k-1 in Python: the twiddle of stage h = 2^s is 2^(j K / h), inverse 2^-..."""
    N = 1 << k
    want = list(rows)
    for s in range(1, k):
        h = 1 << s
        for blk in range(0, N, 2 * h):
            for j in range(h):
                e = j * K // h
                t = want[blk + j + h] * pow(2, (2 * K - e) if inv and e else e, F) % F
                x = want[blk + j]
                want[blk + j], want[blk + j + h] = (x + t) % F, (x - t) % F
    return want


@pytest.mark.large
def test_large(ctx, rng):
    bits = 2 ** 22
    x, y = rng.getrandbits(bits), limb_pattern(rng, bits)
    check(ctx, [x, mask(bits)], [y, mask(bits)], bits, bits, what="2^22 bits")


@pytest.mark.large
def test_large_unbalanced(ctx, rng):
    bits = 2 ** 22
    check(ctx, [rng.getrandbits(bits), mask(bits)], [mask(64), rng.getrandbits(64)], bits, 64)
