"""Comparisons (operators and clbig.compare) against gmpy2.cmp."""
import gmpy2
import numpy as np
import pytest

import clbig
from conftest import (BATCH, LARGE_ADD_BITS, POW2_ADD, SMALL_CTX_BITS, WIDTH_PAIRS, check_bools,
                      cmp_pairs, mask, rand_value)


def expect_cmp(xs, ys):
    if len(xs) == 1:
        xs = xs * len(ys)
    if len(ys) == 1:
        ys = ys * len(xs)
    return [gmpy2.cmp(gmpy2.mpz(x), gmpy2.mpz(y)) for x, y in zip(xs, ys)]


def check_all(a, b, xs, ys, what):
    """Every operator and compare(a, b, "cmp") on (a, b) against gmpy2.cmp of (xs, ys)."""
    c = expect_cmp(xs, ys)
    got = clbig.compare(a, b, "cmp")
    assert got.dtype == np.int8, f"{what}: compare dtype {got.dtype}"
    bad = np.nonzero(np.asarray(got) != np.array(c))[0]
    if len(bad):
        i = bad[0]
        pytest.fail(f"{what}: compare cmp wrong at index {i}: got {got[i]}, expected {c[i]}")
    check_bools(a < b, [v < 0 for v in c], what + " <")
    check_bools(a <= b, [v <= 0 for v in c], what + " <=")
    check_bools(a > b, [v > 0 for v in c], what + " >")
    check_bools(a >= b, [v >= 0 for v in c], what + " >=")
    check_bools(a == b, [v == 0 for v in c], what + " ==")
    check_bools(a != b, [v != 0 for v in c], what + " !=")


def run_cmp(pairs, ba, bb, what):
    xs, ys = [p[0] for p in pairs], [p[1] for p in pairs]
    check_all(clbig.array(xs, bits=ba), clbig.array(ys, bits=bb), xs, ys, what)


@pytest.mark.parametrize("ba,bb", [(1, 1), (32, 32), (96, 64), (7, 2048), (2 ** 14 + 5, 2 ** 14)])
def test_serial_compare(monkeypatch, rng, ba, bb):
    """The CPUs' one-item comparison (compare_serial.cl.mako, chosen with the one-item additions;
    the suite runs the scan kernels by default): unequal and odd widths, one limb, equal values
    of different widths, values that differ only in the lowest limb, batches of 0, 1 and odd
    lengths, either side broadcast, and one build for every width."""
    from clbig.mpn import compare
    monkeypatch.setenv("CLBIG_ADD_SERIAL", "1")
    ran = []
    real = compare.kernel
    monkeypatch.setattr(compare, "kernel", lambda ctx, t, *a, **k: ran.append(t) or real(ctx, t, *a, **k))
    what = f"serial compare {ba} vs {bb}"
    pairs = cmp_pairs(rng, ba, bb)
    low = min(ba, bb)
    x = rand_value(rng, low) | 1
    pairs += [(x, x), (x, x ^ 1), (x ^ 1, x), (0, 0), (mask(ba), mask(bb)), (mask(low), mask(low))]
    run_cmp(pairs, ba, bb, what)
    for n in (0, 1):
        run_cmp(pairs[:n], ba, bb, f"{what} n={n}")
    xs = [rand_value(rng, ba) for _ in range(7)] + [mask(ba), 0]
    one = [rand_value(rng, bb)]
    check_all(clbig.array(xs, bits=ba), clbig.array(one, bits=bb), xs, one, what + " a vs [c]")
    check_all(clbig.array(one, bits=bb), clbig.array(xs, bits=ba), one, xs, what + " [c] vs a")
    assert set(ran) <= {"compare_serial.cl.mako"} and ran, ran


@pytest.mark.parametrize("bits", POW2_ADD)
def test_compare_pow2(rng, bits):
    run_cmp(cmp_pairs(rng, bits, bits), bits, bits, f"compare {bits} bits")


@pytest.mark.parametrize("ba,bb", WIDTH_PAIRS)
def test_compare_widths(rng, ba, bb):
    run_cmp(cmp_pairs(rng, ba, bb), ba, bb, f"compare {ba} vs {bb} bits")


def test_equal_values_of_different_widths(rng):
    """Equality is by value: a 32-bit and a 2048-bit array holding the same numbers."""
    xs = [0, 1, mask(32), 2 ** 31, 12345]
    run_cmp(list(zip(xs, xs)), 32, 2048, "equal values, 32 vs 2048 bits")
    run_cmp(list(zip(xs, [x + 2 ** 2000 for x in xs])), 32, 2048, "high limb only, 32 vs 2048 bits")


@pytest.mark.parametrize("n", [1, 7, 1000])
def test_compare_batch_lengths(rng, n):
    run_cmp(cmp_pairs(rng, 160, 160, n), 160, 160, f"compare n={n}")


@pytest.mark.parametrize("bits", [96, 1024])
def test_compare_broadcast(rng, bits):
    xs = [rand_value(rng, bits) for _ in range(BATCH)]
    pivot = xs[3]
    xs += [pivot, pivot + 1 if pivot < mask(bits) else pivot - 1, 0, mask(bits)]
    a, p = clbig.array(xs, bits=bits), clbig.array([pivot], bits=bits)
    check_all(a, p, xs, [pivot], "a vs [p]")
    check_all(p, a, [pivot], xs, "[p] vs a")
    check_all(a, pivot, xs, [pivot], "a vs int")
    check_all(a, 0, xs, [0], "a vs 0")
    check_all(a, 2 ** (bits + 50), xs, [2 ** (bits + 50)], "a vs wider int")
    # reflected operators: int on the left
    c = expect_cmp([pivot], xs)
    check_bools(pivot < a, [v < 0 for v in c], "int < a")
    check_bools(pivot >= a, [v >= 0 for v in c], "int >= a")
    check_bools(pivot == a, [v == 0 for v in c], "int == a")
    check_all(p, clbig.array([pivot], bits=bits), [pivot], [pivot], "[p] vs [p]")


@pytest.mark.parametrize("bits", SMALL_CTX_BITS)
def test_compare_small_workgroups(small_ctx, rng, bits):
    run_cmp(cmp_pairs(rng, bits, bits, 9), bits, bits, f"compare {bits} bits, wg<=8")


def test_compare_small_workgroups_block_positions(small_ctx, rng):
    """Differences confined to the lowest, a middle, or the highest block of a multi-group
    instance, and differences in several blocks pointing opposite ways."""
    bits = 2 ** 14
    x = rng.getrandbits(bits)
    ys = [x, x ^ 1, x ^ (1 << 5000), x ^ (1 << (bits - 1)), x ^ 1 ^ (1 << (bits - 1)),
          x ^ (1 << 4095), x ^ (1 << 4096), x ^ (1 << 4100) ^ (1 << 9000), (x ^ (1 << 100)) ^ (1 << 12000)]
    run_cmp([(x, y) for y in ys], bits, bits, "block positions, wg<=8")
    run_cmp([(y, x) for y in ys], bits, bits, "block positions reversed, wg<=8")


@pytest.mark.large
def test_compare_large(rng):
    bits = LARGE_ADD_BITS
    x = rng.getrandbits(bits)
    ys = [x, x ^ 1, x ^ (1 << (bits - 1)), x ^ (1 << (bits // 2))]
    run_cmp([(x, y) for y in ys], bits, bits, f"compare {bits} bits")


# -- the fixed-width flags are comparisons: carry <=> a + b >= 2**bits, borrow <=> a < b --------
def test_fixed_flags_of_wider_operands_issue_examples():
    """Operands wider than `bits`: the flags keep their documented meaning (issue 20, 1c)."""
    d, borrow = clbig.sub_fixed(clbig.array([2 ** 70]), clbig.array([2 ** 40]), bits=40)
    assert d.tolist() == [(2 ** 70 - 2 ** 40) % 2 ** 40] and borrow.tolist() == [False]
    s, carry = clbig.add_fixed(clbig.array([600]), clbig.array([0]), bits=8)
    assert s.tolist() == [600 % 256] and carry.tolist() == [True]


@pytest.mark.parametrize("ba,bb,bits", [(96, 32, 40), (32, 96, 40), (96, 96, 33), (64, 32, 1),
                                        (1056, 40, 64), (64, 64, 64), (33, 100, 100), (100, 33, 200)])
def test_fixed_flags_wide_and_narrow_mixes(rng, ba, bb, bits):
    """Random and edge pairs of every width mix against Python ints, broadcasting included:
    the result mod 2**bits, the carry exactly where a + b >= 2**bits, the borrow where a < b."""
    pairs = [(rand_value(rng, ba), rand_value(rng, bb)) for _ in range(BATCH)]
    pairs += [(mask(ba), mask(bb)), (0, 0), (mask(ba), 0), (0, mask(bb)), (mask(bits) & mask(ba), 1),
              (1 << (bits - 1) if bits <= ba else 1, 1 << (bits - 1) if bits <= bb else 1),
              (mask(min(ba, bits)), mask(min(bb, bits))), (1 << min(bits, ba - 1), 0)]
    xs, ys = [p[0] for p in pairs], [p[1] for p in pairs]
    a, b = clbig.array(xs, bits=ba), clbig.array(ys, bits=bb)
    m = mask(bits)
    s, carry = clbig.add_fixed(a, b, bits=bits)
    assert s.bits == bits and s.tolist() == [(x + y) & m for x, y in pairs]
    check_bools(carry, [x + y > m for x, y in pairs], f"add_fixed carry {ba}/{bb}/{bits}")
    d, borrow = clbig.sub_fixed(a, b, bits=bits)
    assert d.bits == bits and d.tolist() == [(x - y) & m for x, y in pairs]
    check_bools(borrow, [x < y for x, y in pairs], f"sub_fixed borrow {ba}/{bb}/{bits}")
    # one operand broadcast over the batch, as a length-1 array and as a Python int
    y0 = ys[1]
    for other in (clbig.array([y0], bits=bb), y0):
        s, carry = clbig.add_fixed(a, other, bits=bits)
        assert s.tolist() == [(x + y0) & m for x in xs]
        check_bools(carry, [x + y0 > m for x in xs], "add_fixed carry, broadcast b")
        d, borrow = clbig.sub_fixed(other, a, bits=bits)
        assert d.tolist() == [(y0 - x) & m for x in xs]
        check_bools(borrow, [y0 < x for x in xs], "sub_fixed borrow, broadcast a")


def test_fixed_flags_one_and_empty():
    s, carry = clbig.add_fixed(clbig.array([2 ** 64 - 1], bits=64), clbig.array([1], bits=64), bits=32)
    assert s.tolist() == [0] and carry.tolist() == [True]
    s, carry = clbig.add_fixed(clbig.array([2 ** 64 - 1], bits=64), clbig.array([0], bits=64), bits=64)
    assert s.tolist() == [2 ** 64 - 1] and carry.tolist() == [False]
    e = clbig.array([], bits=96)
    for f in (clbig.add_fixed, clbig.sub_fixed):
        r, flag = f(e, e, bits=40)
        assert len(r) == 0 and flag.shape == (0,)


@pytest.mark.parametrize("ba,bb,bits", [(96, 32, 40), (32, 32, 32), (64, 200, 100)])
def test_add_low_is_add_fixed_without_the_carry(rng, ba, bb, bits):
    from clbig.mpz.ops import add_low
    pairs = [(rand_value(rng, ba), rand_value(rng, bb)) for _ in range(9)] + [(mask(ba), mask(bb))]
    a, b = clbig.array([p[0] for p in pairs], bits=ba), clbig.array([p[1] for p in pairs], bits=bb)
    r = add_low(a, b, bits)
    assert r.bits == bits and r.tolist() == [(x + y) & mask(bits) for x, y in pairs]
