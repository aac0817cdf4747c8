"""Multiplication (exact a * b and the low half mul_low) against gmpy2."""
import dataclasses

import gmpy2
import pytest

import clbig
from conftest import (BATCH, LARGE_MUL_BITS, POW2_MUL, WIDTH_PAIRS, check_values, limb_pattern,
                      mask, rand_value)

# Work-group cap 8: products up to 4096 x 4096 bits fit one group; 4128 bits and up do not.
SMALL_MUL_BITS = [1056, 4096, 4128, 2 ** 14]


def mul_pairs(rng, ba, bb, n=BATCH):
    """n pairs: maxima (the largest partial-product carries), 0, 1, powers of two, limb patterns,
    then random values."""
    edges = [
        (mask(ba), mask(bb)), (mask(ba), 1), (1, mask(bb)), (0, mask(bb)), (mask(ba), 0), (0, 0),
        (1, 1), (1 << (ba - 1), 1 << (bb - 1)), (mask(ba), 1 << (bb - 1)),
        (mask(ba // 2 or 1), mask(bb)), (limb_pattern(rng, ba), limb_pattern(rng, bb)),
        (mask(ba) ^ min(0xFFFFFFFF, mask(ba)), mask(bb)),
    ]
    pairs = edges[:n]
    while len(pairs) < n:
        pairs.append((rand_value(rng, ba), rand_value(rng, bb)))
    rng.shuffle(pairs)
    return pairs


def run_mul(pairs, ba, bb, what, low_bits=()):
    xs, ys = [p[0] for p in pairs], [p[1] for p in pairs]
    a, b = clbig.array(xs, bits=ba), clbig.array(ys, bits=bb)
    full = [gmpy2.mpz(x) * y for x, y in pairs]
    r = a * b
    assert r.bits == ba + bb, f"{what}: capacity of a*b is {r.bits}, expected {ba + bb}"
    assert len(r) == len(pairs)
    check_values(r.tolist(), full, what, (xs, ys))
    check_values(clbig.mul(a, b).tolist(), full, what + " (clbig.mul)", (xs, ys))
    check_values(a.tolist(), xs, what + ": operand a modified")
    check_values(b.tolist(), ys, what + ": operand b modified")
    lo = clbig.mul_low(a, b)
    w = max(ba, bb)
    assert lo.bits == w, f"{what}: mul_low default bits {lo.bits}, expected {w}"
    check_values(lo.tolist(), [p & mask(w) for p in full], what + " mul_low", (xs, ys))
    for bits in low_bits:
        lo = clbig.mul_low(a, b, bits=bits)
        assert lo.bits == bits
        check_values(lo.tolist(), [p & mask(bits) for p in full], f"{what} mul_low bits={bits}", (xs, ys))


@pytest.mark.parametrize("ba, bb", [(4096, 4096), (8192 + 160, 8000), (1 << 14, 1 << 14)])
def test_few_products_on_a_gpu_take_small_chunks(monkeypatch, rng, ba, bb):
    """A few instances on a GPU run the one-group kernel in chunks of Q = 2 limbs (more items
    per instance); PoCL runs the same launches here: exact, full and low halves, 1 and 3."""
    from clbig.mpn import mul_basecase as mb
    monkeypatch.setattr(mb, "_few_on_gpu", lambda ctx, n: True)
    monkeypatch.setenv("CLBIG_MUL_RADIX", "32")      # not the FP64 kernels
    qs = []
    real = mb.kernel
    monkeypatch.setattr(mb, "kernel", lambda *a, **kw: qs.append(kw.get("Q")) or real(*a, **kw))
    for n in (1, 3):
        run_mul(mul_pairs(rng, ba, bb, n), ba, bb, f"few {ba}x{bb} n={n}", low_bits=(ba - 3,))
    assert qs and set(qs) == {2}, qs


@pytest.mark.parametrize("bits", POW2_MUL)
def test_mul_pow2(rng, bits):
    run_mul(mul_pairs(rng, bits, bits), bits, bits, f"mul {bits} bits")


def test_mul_2_17_bits(rng):
    bits = 2 ** 17
    pairs = [(mask(bits), mask(bits)), (rand_value(rng, bits), rand_value(rng, bits)),
             (limb_pattern(rng, bits), mask(bits))]
    run_mul(pairs, bits, bits, f"mul {bits} bits")


@pytest.mark.parametrize("ba,bb", WIDTH_PAIRS)
def test_mul_widths(rng, ba, bb):
    run_mul(mul_pairs(rng, ba, bb), ba, bb, f"mul {ba}x{bb} bits")


def test_mul_low_explicit_bits(rng):
    ba, bb = 96, 64
    run_mul(mul_pairs(rng, ba, bb), ba, bb, "mul_low 96x64",
            low_bits=[1, 31, 32, 33, 100, ba + bb, ba + bb + 40])


@pytest.mark.parametrize("n", [1, 7, 1000])
def test_mul_batch_lengths(rng, n):
    run_mul(mul_pairs(rng, 160, 160, n), 160, 160, f"mul n={n}")


@pytest.mark.parametrize("bits", [96, 1024])
def test_mul_broadcast(rng, bits):
    xs = [rand_value(rng, bits) for _ in range(BATCH)] + [mask(bits), 0, 1]
    c = mask(bits)
    a, cb = clbig.array(xs, bits=bits), clbig.array([c], bits=bits)
    for r, what in ((a * cb, "a * [c]"), (cb * a, "[c] * a"), (clbig.mul(cb, a), "mul([c], a)")):
        assert r.bits == 2 * bits
        check_values(r.tolist(), [gmpy2.mpz(x) * c for x in xs], what)
    lo = clbig.mul_low(cb, a)
    check_values(lo.tolist(), [(x * c) & mask(bits) for x in xs], "mul_low([c], a)")
    check_values((cb * cb).tolist(), [c * c], "[c] * [c]")


@pytest.mark.parametrize("k", [0, 1, 3, 2 ** 32 - 1, 2 ** 100 + 7])
def test_mul_python_int(rng, k):
    bits = 96
    xs = [rand_value(rng, bits) for _ in range(BATCH)] + [mask(bits), 0]
    a = clbig.array(xs, bits=bits)
    check_values((a * k).tolist(), [gmpy2.mpz(x) * k for x in xs], f"a * {k}")
    check_values((k * a).tolist(), [gmpy2.mpz(x) * k for x in xs], f"{k} * a")
    check_values(clbig.mul(k, a).tolist(), [gmpy2.mpz(x) * k for x in xs], f"mul({k}, a)")


@pytest.mark.parametrize("bits", SMALL_MUL_BITS)
def test_mul_small_workgroups(small_ctx, rng, bits):
    run_mul(mul_pairs(rng, bits, bits, 9), bits, bits, f"mul {bits} bits, wg<=8")


def test_mul_small_workgroups_unequal(small_ctx, rng):
    run_mul(mul_pairs(rng, 2 ** 14, 96, 9), 2 ** 14, 96, "mul 2^14 x 96 bits, wg<=8")
    run_mul(mul_pairs(rng, 96, 2 ** 14, 9), 96, 2 ** 14, "mul 96 x 2^14 bits, wg<=8")


@pytest.mark.large
def test_mul_large(rng):
    bits = LARGE_MUL_BITS
    y = limb_pattern(rng, bits)
    run_mul([(mask(bits), y)], bits, bits, f"mul {bits} bits")


# The FP64 kernel forced at 64 x 33 limbs is 861 unrolled digit products (89 s in Intel's CPU
# compiler); test_fp64_digit_products covers that kernel's unrolled shapes at this scale.
@pytest.mark.parametrize("radix,ma,mb", [(r, ma, mb) for r in ("30", "32", "51")
                                         for ma, mb in [(1, 1), (3, 7), (16, 16), (64, 33), (300, 300)]
                                         if (r, ma, mb) != ("51", 64, 33)])
def test_both_radices_at_small_sizes(monkeypatch, radix, ma, mb):
    """Each multiplication kernel (32-bit limbs, radix-2^30 digits) normally serves only some
    sizes; forcing one checks it everywhere, including all-ones carry chains."""
    import random
    monkeypatch.setenv("CLBIG_MUL_RADIX", radix)
    rng = random.Random(ma * 1000 + mb)
    A = [(1 << (32 * ma)) - 1, 1, rng.getrandbits(32 * ma)]
    B = [(1 << (32 * mb)) - 1, (1 << (32 * mb)) - 1, rng.getrandbits(32 * mb)]
    a, b = clbig.array(A, bits=32 * ma), clbig.array(B, bits=32 * mb)
    assert (a * b).tolist() == [x * y for x, y in zip(A, B)]
    low = 32 * max(ma, mb) - 5
    assert clbig.mul_low(a, b, low).tolist() == [(x * y) % (1 << low) for x, y in zip(A, B)]


def run_square(rng, bits, n, what, monkeypatch):
    """x * x takes the square kernels (each cross product once, doubled, plus the diagonal);
    a spy on the kernel builder makes sure they really ran."""
    import clbig.mpn.mul_basecase as mb
    monkeypatch.setenv("CLBIG_MUL_RADIX", "32")   # not the FP64 kernels, which take squares too
    built = []
    real = mb.kernel

    def spy(ctx, name, entry, wg, **params):
        built.append(params.get("SQUARE"))
        return real(ctx, name, entry, wg, **params)
    monkeypatch.setattr(mb, "kernel", spy)
    edges = [mask(bits), 0, 1, 1 << (bits - 1), limb_pattern(rng, bits), mask(bits) ^ 1,
             mask(bits // 2 or 1), (1 << bits) - (1 << (bits // 2))]
    xs = (edges + [rand_value(rng, bits) for _ in range(n)])[:n]
    a = clbig.array(xs, bits=bits)
    sq = [gmpy2.mpz(x) * x for x in xs]
    check_values((a * a).tolist(), sq, what, (xs,))
    check_values(clbig.mul_low(a, a).tolist(), [v & mask(bits) for v in sq], what + " mul_low", (xs,))
    low = max(1, bits - 3)
    check_values(clbig.mul_low(a, a, low).tolist(), [v & mask(low) for v in sq], f"{what} mod 2^{low}", (xs,))
    assert built and all(built), f"{what}: the square kernels were not used ({built})"
    # the same values in a second array are an ordinary product, and agree
    check_values((a * clbig.array(xs, bits=bits)).tolist(), sq, what + " as a*b", (xs,))


@pytest.mark.parametrize("bits", [32, 96, 160, 1000, 2048, 2 ** 13, 2 ** 14 + 96])
def test_square(rng, monkeypatch, bits):
    run_square(rng, bits, BATCH if bits <= 2 ** 13 else 5, f"square {bits} bits", monkeypatch)


# one group's worth and just past it (the multi-group path); 2^14 bits would add five minutes
# of kernel builds on PoCL for no path the others miss
@pytest.mark.parametrize("bits", [1056, 4128])
def test_square_small_workgroups(small_ctx, rng, monkeypatch, bits):
    run_square(rng, bits, 9, f"square {bits} bits, wg<=8", monkeypatch)


def test_squares_far_below_the_result_width():
    """Issue 20 (1a): a square whose result is much wider than the product (31-bit values mod
    2^1000) has chunks far above it, where the diagonal terms a_(k/2) lie past a's zero margin:
    the kernel read past its local array and added what earlier kernels left there. Chained
    operations in one process (as here) leave that garbage; every result is checked."""
    import random
    rng = random.Random(3)
    xs = [rng.getrandbits(1000)]
    ys = [rng.getrandbits(31) for _ in range(3)]
    ys[1] = mask(31)
    a, b = clbig.array(xs, bits=1000), clbig.array(ys, bits=31)
    m = mask(1000)
    for it in range(8):
        u = clbig.add_fixed(clbig.mul_low(a, a, 1000), b, 1000)[0]
        check_values(u.tolist(), [(xs[0] ** 2 + y) & m for y in ys], f"round {it}: a*a + b")
        bb = clbig.mul_low(b, b, 1000)
        check_values(bb.tolist(), [y * y for y in ys], f"round {it}: b*b mod 2^1000", (ys,))
        v = clbig.add_fixed(bb, b, 1000)[0]
        r = clbig.add_fixed(clbig.mul_low(u, v, 1000), clbig.mul_low(a, b, 1000), 1000)[0]
        want = [(((xs[0] ** 2 + y) & m) * (y * y + y) + xs[0] * y) & m for y in ys]
        check_values(r.tolist(), want, f"round {it}: u*v + a*b", (ys,))
    for bits in (32, 33, 64, 95, 2 * 32 * 7 + 1):     # one limb squared to widths past 2 limbs
        for w in (31, 32, 64):
            vals = [mask(w), 1, rng.getrandbits(w), mask(w) ^ 1, 0]
            x = clbig.array(vals, bits=w)
            check_values(clbig.mul_low(x, x, bits).tolist(), [v * v & mask(bits) for v in vals],
                         f"{w}-bit squares mod 2^{bits}", (vals,))


def carry_modes():
    """"c" everywhere; "ptx" too when the session's device is NVIDIA's (it takes inline PTX)."""
    dev = clbig.Context().device
    return ["c"] + (["ptx"] if "nvidia" in dev.platform.name.lower() else [])


@pytest.mark.parametrize("mode", carry_modes())
def test_carry_chain_accumulators(monkeypatch, rng, mode):
    """The classical kernels' carry-chain accumulators (conv.mako's CARRY: the PTX path on
    NVIDIA, its OpenCL C twin elsewhere) on products, squares, low halves and the multi-group
    path, with all-ones operands for the longest carry chains."""
    monkeypatch.setenv("CLBIG_CARRY", mode)
    monkeypatch.setenv("CLBIG_MUL_RADIX", "32")
    for wg, sizes in ((None, [(32, 32), (96, 416), (2048, 2048), (4128, 1000)]), (8, [(1056, 1056)])):
        ctx = clbig.Context(max_work_group_size=wg) if wg else clbig.Context()
        assert ctx.carry == mode
        with ctx:
            for ba, bb in sizes:
                pairs = mul_pairs(rng, ba, bb, n=7)
                xs, ys = [p[0] for p in pairs], [p[1] for p in pairs]
                a, b = clbig.array(xs, bits=ba), clbig.array(ys, bits=bb)
                what = f"carry={mode} wg={wg} {ba}x{bb}"
                check_values((a * b).tolist(), [x * y for x, y in pairs], what, (xs, ys))
                w = max(ba, bb)
                check_values(clbig.mul_low(a, b).tolist(), [x * y & mask(w) for x, y in pairs],
                             what + " mul_low", (xs, ys))
                check_values((a * a).tolist(), [x * x for x in xs], what + " square", (xs,))
                check_values(clbig.mul_low(a, a).tolist(), [x * x & mask(ba) for x in xs],
                             what + " square mul_low", (xs,))


def test_carry_mode_checked(monkeypatch):
    monkeypatch.setenv("CLBIG_CARRY", "fast")
    with pytest.raises(ValueError, match="CLBIG_CARRY"):
        clbig.Context()


def check_forced_products(rng, sizes, what, lows):
    """Full products, low halves mod 2^(each of lows(ba, bb)), squares and both operands
    broadcast, at (ba, bb, n) of each of sizes, through whichever kernel the caller forced."""
    for ba, bb, n in sizes:
        pairs = mul_pairs(rng, ba, bb, n=n)
        xs, ys = [p[0] for p in pairs], [p[1] for p in pairs]
        a, b = clbig.array(xs, bits=ba), clbig.array(ys, bits=bb)
        w = f"{what} {ba}x{bb}"
        check_values((a * b).tolist(), [x * y for x, y in pairs], w, (xs, ys))
        for bits in lows(ba, bb):
            check_values(clbig.mul_low(a, b, bits).tolist(), [x * y & mask(bits) for x, y in pairs],
                         f"{w} mul_low {bits}", (xs, ys))
        check_values((a * a).tolist(), [x * x for x in xs], w + " square", (xs,))
        one = clbig.array([ys[0]], bits=bb)   # stride 0
        check_values((a * one).tolist(), [x * ys[0] for x in xs], w + " broadcast b", (xs,))
        one = clbig.array([xs[0]], bits=ba)
        check_values((one * b).tolist(), [xs[0] * y for y in ys], w + " broadcast a", (ys,))


def spy_on(monkeypatch, module, name) -> list:
    """Replace module.name by a wrapper that records each call's result; returns the record."""
    taken = []
    real = getattr(module, name)
    monkeypatch.setattr(module, name, lambda *a, **k: taken.append(real(*a, **k)) or taken[-1])
    return taken


@pytest.mark.parametrize("stage,xloc", [(0, 0), (0, 1), (1, 0), (1, 1)])
def test_fp64_digit_products(monkeypatch, rng, stage, xloc):
    """The FP64 kernel (mul_fp64: 51-bit digits, product scanning) in each of its variants:
    staged rows or own rows, a's digits in registers or local memory; digit boundaries that
    cut limbs everywhere, unequal and odd sizes, masked top limbs, broadcasting, batches of 1
    and odd lengths, all-ones operands (every column's largest value)."""
    from clbig.mpn import mul_fp64
    if not clbig.Context().profile.facts.exact_fma:
        pytest.skip("the device has no correctly rounded FP64 fma")
    monkeypatch.setenv("CLBIG_MUL_RADIX", "51")
    monkeypatch.setenv("CLBIG_MUL52_STAGE", str(stage))
    monkeypatch.setenv("CLBIG_MUL52_XLOC", str(xloc))
    taken = spy_on(monkeypatch, mul_fp64, "mul")
    sizes = [(32, 32, 1), (33, 64, 5), (64, 33, 3), (51, 102, 7), (200, 1000, 5), (1000, 200, 1),
             (512, 512, 9)]
    if stage:   # the GPUs' variants at the largest size they take by default (fresh PoCL
        sizes.append((1024, 1024, 3))   # builds of the unrolled kernel take seconds each)
    check_forced_products(rng, sizes, f"fp64 stage={stage} xloc={xloc}",
                          lambda ba, bb: (max(ba, bb), max(ba, bb) - 7, 31))
    assert taken and all(taken), "the FP64 kernel did not run"


@pytest.mark.parametrize("w,c,ipb", [(8, None, 4), (3, 5, 3), (5, 1, 1)])
def test_fp64_cooperative_products(monkeypatch, rng, w, c, ipb):
    """The cooperative FP64 kernel (mul52_coop: an instance's column blocks over several items)
    forced at sizes it does not take by default: block widths that do and do not divide the
    columns, more items than blocks (idle items), one item, groups with a partial last instance,
    unequal and odd sizes, low halves with masked top limbs, broadcasting both ways, all-ones
    operands (every column's largest value), batches of 1 and odd lengths."""
    from clbig.mpn import mul_fp64
    if not clbig.Context().profile.facts.exact_fma:
        pytest.skip("the device has no correctly rounded FP64 fma")
    monkeypatch.setenv("CLBIG_MUL52_COOP", "1")
    monkeypatch.setenv("CLBIG_MUL52_COOP_W", str(w))
    monkeypatch.setenv("CLBIG_MUL52_COOP_IPB", str(ipb))
    if c:
        monkeypatch.setenv("CLBIG_MUL52_COOP_C", str(c))
    taken = spy_on(monkeypatch, mul_fp64, "coop_mul")
    check_forced_products(rng, [(32, 32, 1), (33, 700, 5), (700, 33, 3), (2048, 2048, 7), (1500, 999, 9)],
                          f"fp64 coop W={w} C={c} IPB={ipb}", lambda ba, bb: (max(ba, bb), max(ba, bb) - 7))
    assert taken and all(taken), "the cooperative kernel did not run"


@pytest.mark.parametrize("w,c", [(8, 4), (1, 8), (2, 3), (16, 1)])
def test_fp64_lanes_products(monkeypatch, rng, w, c):
    """The CPUs' lanes kernel (mul52_lanes: W instances per item in vector lanes, C columns a
    pass) forced at each shape: lanes past the batch's end, unequal and odd sizes, one limb,
    low halves with masked top limbs, broadcasting both ways, all-ones operands, batches of 1
    and odd lengths, and launches split into chunks of scratch."""
    from clbig.mpn import mul_fp64
    facts = clbig.Context().profile.facts
    if not facts.exact_fma:
        pytest.skip("the device has no correctly rounded FP64 fma")
    monkeypatch.setenv("CLBIG_MUL52_LANES", "1")
    if w > 4 and not facts.wide_fma:
        # PyPI's PoCL on AMD Zen aborts on fma of double8 and gets double16's wrong: a clear
        # error instead, and the 4 lanes auto takes there run the cases below
        monkeypatch.setenv("CLBIG_MUL52_LANES_W", str(w))
        with pytest.raises(ValueError, match="double8"):
            clbig.mul([3 ** 300] * 4, [5 ** 300] * 4)
        w = 4
    monkeypatch.setenv("CLBIG_MUL52_LANES_W", str(w))
    monkeypatch.setenv("CLBIG_MUL52_LANES_C", str(c))
    taken = spy_on(monkeypatch, mul_fp64, "lanes_mul")
    check_forced_products(rng, [(32, 32, 1), (33, 700, 5), (700, 33, 3), (2048, 2048, 7), (1500, 999, 9)],
                          f"fp64 lanes W={w} C={c}", lambda ba, bb: (max(ba, bb), max(ba, bb) - 7, 31))
    # a few KiB of scratch per launch: the batch runs as several launches over one buffer
    monkeypatch.setattr(mul_fp64, "LANES_SCRATCH", 4096)
    check_forced_products(rng, [(300, 400, 37)], f"fp64 lanes W={w} C={c} chunks", lambda ba, bb: (350,))
    # the widths at run time (wide operands take them so; here every width does)
    monkeypatch.setattr(mul_fp64, "LANES_RT_DIGITS", 0)
    check_forced_products(rng, [(32, 32, 1), (33, 700, 5), (1500, 999, 9), (6000, 5300, 3)],
                          f"fp64 lanes W={w} C={c} run-time widths", lambda ba, bb: (max(ba, bb), 31))
    assert taken and all(taken), "the lanes kernel did not run"


def test_cpu_auto_path_with_lanes(monkeypatch, rng):
    """What users on a CPU get by default (the suite turns the lanes kernel off elsewhere):
    auto's products at every size class, from one limb to past the NTT's crossover, unequal,
    low halves, squares, signed values, batches of 0, 1 and odd lengths, and the operations
    built on products (division by Newton's method, powers, mulmod), against Python."""
    from clbig.mpn import mul_fp64
    ctx = clbig.Context()
    if not ctx.profile.facts.exact_fma or ctx.profile.facts.is_gpu:
        pytest.skip("auto takes the lanes kernel only on CPUs with an exact FP64 fma")
    monkeypatch.delenv("CLBIG_MUL52_LANES", raising=False)
    monkeypatch.delitem(ctx.profile.cache("mul"), "crossovers", raising=False)   # lanes move the NTT's
    taken = spy_on(monkeypatch, mul_fp64, "lanes_mul")
    for ba, bb, n in [(32, 32, 5), (31, 5000, 3), (2048, 2048, 33), (2048, 1024, 1), (8192, 8192, 9),
                      (20000, 3000, 4), (40000, 40000, 3)]:
        pairs = mul_pairs(rng, ba, bb, n=n)
        xs, ys = [p[0] for p in pairs], [p[1] for p in pairs]
        a, b = clbig.array(xs, bits=ba), clbig.array(ys, bits=bb)
        w = f"cpu auto {ba}x{bb} n={n}"
        check_values((a * b).tolist(), [x * y for x, y in pairs], w, (xs, ys))
        low = max(ba, bb) - 3
        check_values(clbig.mul_low(a, b, low).tolist(), [x * y & mask(low) for x, y in pairs], w + " low", (xs, ys))
        check_values((a * a).tolist(), [x * x for x in xs], w + " square", (xs,))
        sx = [-x if i % 2 else x for i, x in enumerate(xs)]
        check_values((clbig.array(sx) * b).tolist(), [x * y for x, y in zip(sx, ys)], w + " signed", (sx, ys))
    assert clbig.array([], bits=64).__mul__(clbig.array([], bits=64)).tolist() == []
    big = [rand_value(rng, 9000) | 1 for _ in range(5)]
    small = [rand_value(rng, 3000) | 1 for _ in range(5)]
    A, B = clbig.array(big), clbig.array(small)
    check_values((A // B).tolist(), [x // y for x, y in zip(big, small)], "cpu auto division", (big, small))
    check_values((A % B).tolist(), [x % y for x, y in zip(big, small)], "cpu auto remainder", (big, small))
    from clbig.mpn import div_q                  # Newton with the lanes kernel's products
    assert not div_q._basecase_wins(ctx, 512, 256, 8)
    nums = [rand_value(rng, 16384) for _ in range(3)] + [mask(16384)]
    dens = [rand_value(rng, 8192) | (1 << 8191) for _ in range(3)] + [(1 << 8191) + 1]
    N, D = clbig.array(nums, bits=16384), clbig.array(dens, bits=8192)
    check_values((N // D).tolist(), [x // y for x, y in zip(nums, dens)], "cpu auto Newton quotient", (nums, dens))
    check_values((N % D).tolist(), [x % y for x, y in zip(nums, dens)], "cpu auto Newton remainder", (nums, dens))
    check_values((B ** 3).tolist(), [y ** 3 for y in small], "cpu auto cubes", (small,))
    check_values(clbig.mulmod(A, A, B).tolist(), [x * x % y for x, y in zip(big, small)], "cpu auto mulmod")
    assert taken and all(taken), "auto did not take the lanes kernel on this CPU"


def test_fp64_lanes_routing(monkeypatch):
    """Auto takes the lanes kernel for classical products on CPUs with an exact FP64 fma, and
    there the NTT takes products later; never on GPUs; narrower vectors where a batch would
    leave cores idle; the settings force it, forbid it, and shape it (a lane width outside
    1..16 powers of two is a clear error)."""
    from clbig.mpn import mul_fp64, mul_n
    ctx = clbig.Context()
    monkeypatch.delenv("CLBIG_MUL52_LANES", raising=False)   # conftest turns it off
    # a CPU of 2 cores with an exact fma, not Intel's runtime (the profile's device facts)
    fake = lambda **kw: monkeypatch.setattr(ctx.profile, "facts", dataclasses.replace(ctx.profile.facts, **kw))
    fake(exact_fma=True, fast_fp64=True, compute_units=2, is_gpu=False, intel_cpu_runtime=False,
         wide_fma=True)
    got = mul_fp64.lanes_plan(ctx, 64, 64, 128, 1000, False)
    assert got == dict(MA=64, MB=64, MR=128, W=8, C=4, WG=8)
    fake(wide_fma=False)             # PoCL 3.0 on AMD Zen fails on fma of double8/16: 4 lanes
    assert mul_fp64.lanes_plan(ctx, 64, 64, 128, 1000, False)["W"] == 4
    for w in (8, 16):
        monkeypatch.setenv("CLBIG_MUL52_LANES_W", str(w))
        with pytest.raises(ValueError, match="double8"):
            mul_fp64.lanes_plan(ctx, 64, 64, 128, 1000, False)
    monkeypatch.delenv("CLBIG_MUL52_LANES_W")
    fake(wide_fma=True)
    assert mul_fp64.lanes_plan(ctx, 8, 8, 16, 1000, True)                  # small, squares too
    assert mul_fp64.lanes_plan(ctx, 64, 64, 128, 3, False)["W"] == 2      # 2 items for 2 cores
    assert mul_fp64.lanes_plan(ctx, 64, 64, 128, 10, False)["WG"] == 1    # 2 items: a group each
    fake(intel_cpu_runtime=True)                                           # vectorizes 16 items
    assert mul_fp64.lanes_plan(ctx, 64, 64, 128, 20, False) == dict(MA=64, MB=64, MR=128, W=1, C=8, WG=16)
    monkeypatch.delitem(ctx.profile.cache("mul"), "crossovers", raising=False)
    assert mul_n.crossovers(ctx)["ntt_from_bits"] == 1 << 16
    fake(intel_cpu_runtime=False)
    mul_n.set_crossovers(ctx, None)
    assert mul_n.crossovers(ctx)["ntt_from_bits"] == 1 << 17
    assert mul_fp64.lanes_plan(ctx, 9000, 9000, 18000, 10, False) is None   # past 4095 digits
    monkeypatch.setenv("CLBIG_MUL52_LANES_W", "3")
    with pytest.raises(ValueError, match="MUL52_LANES_W"):
        mul_fp64.lanes_plan(ctx, 64, 64, 128, 1000, False)
    monkeypatch.delenv("CLBIG_MUL52_LANES_W")
    monkeypatch.setenv("CLBIG_MUL52_LANES", "0")
    assert mul_fp64.lanes_plan(ctx, 64, 64, 128, 1000, False) is None
    monkeypatch.setenv("CLBIG_MUL52_LANES", "")
    monkeypatch.setenv("CLBIG_MUL_RADIX", "51")     # the one-item FP64 kernel's tests
    assert mul_fp64.lanes_plan(ctx, 64, 64, 128, 1000, False) is None
    monkeypatch.setenv("CLBIG_MUL_RADIX", "auto")
    fake(is_gpu=True)
    assert mul_fp64.lanes_plan(ctx, 64, 64, 128, 1000, False) is None
    monkeypatch.setenv("CLBIG_MUL52_LANES", "1")    # forced: runs there too
    assert mul_fp64.lanes_plan(ctx, 64, 64, 128, 1000, False)


def test_fp64_cooperative_routing(monkeypatch):
    """Auto takes the cooperative kernel only for large batches on GPUs with fast FP64: full
    products of 43..900 digits in all, squares to 2^13 bits, low halves from 2^13; never on
    CPUs. Where it runs, the NTT takes full products later."""
    from clbig.mpn import mul_fp64
    ctx = clbig.Context()
    # a GPU of 132 units with fast FP64 and an exact fma (the profile's device facts)
    fake = lambda **kw: monkeypatch.setattr(ctx.profile, "facts", dataclasses.replace(ctx.profile.facts, **kw))
    fake(exact_fma=True, fast_fp64=True, compute_units=132, is_gpu=True)
    n = 1 << 20
    got = mul_fp64.coop_plan(ctx, 64, 64, 128, n, False)
    assert got and got["C"] * got["IPB"] <= min(ctx.max_items, 256)
    assert mul_fp64.coop_plan(ctx, 64, 64, 64, n, False) is None       # low half, 2^11
    assert mul_fp64.coop_plan(ctx, 256, 256, 256, n, False)["C"] == 15  # low half, 2^13
    assert mul_fp64.coop_plan(ctx, 64, 64, 128, n, True)                # square, 2^11 bits
    assert mul_fp64.coop_plan(ctx, 512, 512, 1024, n, True) is None     # square, 2^14: int32's
    assert mul_fp64.coop_plan(ctx, 64, 64, 128, 1000, False) is None    # too few
    assert mul_fp64.coop_plan(ctx, 16, 16, 32, n, False) is None        # one item holds it
    assert mul_fp64.coop_plan(ctx, 512, 512, 1024, n, False)["C"] == 32  # 2^14 bits
    assert mul_fp64.coop_plan(ctx, 1024, 1024, 2048, n, False) is None  # the NTT's (2^15 bits)
    monkeypatch.setenv("CLBIG_MUL52_COOP", "0")
    assert mul_fp64.coop_plan(ctx, 64, 64, 128, n, False) is None
    assert not mul_fp64.coop_auto(ctx)
    monkeypatch.delenv("CLBIG_MUL52_COOP")
    assert mul_fp64.coop_auto(ctx)
    from clbig.mpn import mul_n
    from clbig.runtime import tuned as tune   # the NTT takes full products later where this kernel runs them
    monkeypatch.delitem(ctx.profile.cache("mul"), "crossovers", raising=False)
    monkeypatch.setattr(tune, "tuned", lambda ctx: {})
    assert mul_n.crossovers(ctx)["ntt_from_bits"] == mul_fp64.NTT_FROM_BITS
    assert mul_n.choose(ctx, 512, 512, 1 << 15) == "classical"
    mul_n.set_crossovers(ctx, None)
    fake(is_gpu=False)
    assert mul_fp64.coop_plan(ctx, 64, 64, 128, n, False) is None
    assert not mul_fp64.coop_auto(ctx)
