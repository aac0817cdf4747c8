"""The fused expressions (clbig.fused: the papers' 6-Add and Poly, modulo 2**bits) against
gmpy2: the one-kernel versions, their operation-by-operation fallbacks, and Poly's choice."""
import gmpy2
import pytest

import clbig
from clbig import fused
from clbig.mpn import mul_n
from conftest import BATCH, add_pairs, check_values, mask
from test_mul import mul_pairs

# (a.bits, b.bits, bits): one limb, odd widths, unequal operands, widths past one limb multiple
SIZES = [(32, 32, 32), (45, 45, 45), (300, 40, 300), (96, 96, 64), (1056, 1056, 1056), (4096, 4096, 4096)]


def want_six(xs, ys, bits):
    return [(6 * gmpy2.mpz(x) + 10 * y) & mask(bits) for x, y in zip(xs, ys)]


def want_poly(xs, ys, bits):
    m = mask(bits)
    return [((gmpy2.mpz(x) * x + y) * (gmpy2.mpz(y) * y + y) + gmpy2.mpz(x) * y) & m for x, y in zip(xs, ys)]


@pytest.mark.parametrize("ba,bb,bits", SIZES)
def test_six_add(rng, ba, bb, bits):
    pairs = add_pairs(rng, ba, bb)
    xs, ys = [p[0] for p in pairs], [p[1] for p in pairs]
    r = fused.six_add(clbig.array(xs, bits=ba), clbig.array(ys, bits=bb), bits)
    assert r.bits == bits
    check_values(r.tolist(), want_six(xs, ys, bits), f"six_add {ba}x{bb} mod 2^{bits}", (xs, ys))


@pytest.mark.parametrize("ba,bb,bits", SIZES)
@pytest.mark.parametrize("how", [True, False, None])
def test_poly(rng, ba, bb, bits, how):
    pairs = mul_pairs(rng, ba, bb)
    xs, ys = [p[0] for p in pairs], [p[1] for p in pairs]
    r = fused.poly(clbig.array(xs, bits=ba), clbig.array(ys, bits=bb), bits, fused=how)
    assert r.bits == bits
    check_values(r.tolist(), want_poly(xs, ys, bits), f"poly {ba}x{bb} mod 2^{bits} fused={how}", (xs, ys))


@pytest.mark.parametrize("n", [1, BATCH])
def test_broadcast_and_batch_lengths(rng, n):
    xs = [rng.getrandbits(500) for _ in range(n)]
    y = rng.getrandbits(500)
    a = clbig.array(xs, bits=512)
    check_values(fused.six_add(a, y, 512).tolist(), want_six(xs, [y] * n, 512), f"six_add n={n}")
    check_values(fused.poly(a, y, 512).tolist(), want_poly(xs, [y] * n, 512), f"poly n={n}")
    check_values(fused.poly(y, a, 512).tolist(), want_poly([y] * n, xs, 512), f"poly scalar a n={n}")


@pytest.mark.parametrize("how", [False, True])
def test_poly_wide_value_over_narrow_ones(rng, how):
    """Issue 20 (1a): one 1000-bit value broadcast over three 31-bit ones. Unfused, b·b mod
    2^1000 is a square far narrower than its result, whose chunks above the product read past
    the kernel's local array; repeated, so that earlier kernels leave local memory dirty."""
    x = rng.getrandbits(1000) | 1 << 999
    ys = [mask(31), rng.getrandbits(31), 1]
    a, b = clbig.array([x], bits=1000), clbig.array(ys, bits=31)
    for it in range(6):
        check_values(fused.poly(a, b, 1000, fused=how).tolist(), want_poly([x] * 3, ys, 1000),
                     f"poly fused={how} round {it}", ([x], ys))
        check_values(fused.poly(b, a, 1000, fused=how).tolist(), want_poly(ys, [x] * 3, 1000),
                     f"poly(b, a) fused={how} round {it}", (ys, [x]))


def test_too_big_for_a_group_falls_back(rng, small_ctx):
    pairs = mul_pairs(rng, 2200, 2200, 3)
    xs, ys = [p[0] for p in pairs], [p[1] for p in pairs]
    a, b = clbig.array(xs, bits=2200), clbig.array(ys, bits=2200)
    check_values(fused.six_add(a, b).tolist(), want_six(xs, ys, 2200), "six_add multi-group")
    check_values(fused.poly(a, b, fused=True).tolist(), want_poly(xs, ys, 2200), "poly multi-group")


def test_auto_poly_follows_the_products(monkeypatch, rng):
    """auto fuses while the products (low halves) are classical and goes product by product
    once they would take the NTT (tuned crossovers lowered so that a small width crosses)."""
    ctx = clbig.current_context()
    xs, ys = [rng.getrandbits(2048) for _ in range(3)], [rng.getrandbits(2048) for _ in range(3)]
    a, b = clbig.array(xs), clbig.array(ys)
    monkeypatch.setitem(ctx.profile.cache("mul"), "crossovers", dict(
        mul_n.DEFAULT_CROSSOVERS, ntt_from_bits_low=1024, ntt_from_bits_low_few=1024))
    assert mul_n.choose(ctx, 64, 64, 2048, 3) == "ntt"
    with clbig.profile() as prof:
        r = fused.poly(a, b)
    assert prof.kernels > 1
    check_values(r.tolist(), want_poly(xs, ys, 2048), "poly auto, NTT products")
    monkeypatch.setitem(ctx.profile.cache("mul"), "crossovers", dict(
        mul_n.DEFAULT_CROSSOVERS, ntt_from_bits_low=1 << 30, ntt_from_bits_low_few=1 << 30))
    with clbig.profile() as prof:
        r = fused.poly(a, b)
    assert prof.kernels == 1
    check_values(r.tolist(), want_poly(xs, ys, 2048), "poly auto, one kernel")
