"""gmpy2's functions on batches (issue 45 item 3) against gmpy2 itself: random values and the
edges (zero, one, minus one, all-ones limbs, one limb, odd sizes, negative values), batches of
length 0, 1 and odd, broadcasting, plain-int calls, and gmpy2's exception types with the index
named."""
from __future__ import annotations

import gmpy2
import numpy as np
import pytest

import clbig

from conftest import edge_values, mask, rand_value


def _values(rng, bits, n=9, signed=True):
    vals = [rand_value(rng, bits) for _ in range(n)] + edge_values(bits)[:6]
    return [-v if signed and i % 3 == 1 else v for i, v in enumerate(vals)]


def _ints(xs):
    return [None if v is None else int(v) for v in xs]


@pytest.mark.parametrize("bits", [31, 100, 2048])
def test_rounding_divisions(rng, bits):
    xs = _values(rng, bits) + [0, 1, -1]
    ys = [rand_value(rng, max(1, bits // 2)) | 1 for _ in xs]
    ys = [-y if i % 4 == 2 else y for i, y in enumerate(ys)]
    for name in ("t_div", "c_div", "f_div"):
        f, g = getattr(clbig, name), getattr(gmpy2, name)
        assert f(xs, ys).tolist() == [int(g(x, y)) for x, y in zip(xs, ys)], name
        assert f(xs, 7).tolist() == [int(g(x, 7)) for x in xs], name + " broadcast"
        assert f(xs[0], ys[0]) == int(g(xs[0], ys[0])), name + " scalars"
        with pytest.raises(ZeroDivisionError, match="index 2"):
            f([1, 2, 3], [1, 1, 0])
    assert clbig.divexact([x * y for x, y in zip(xs, ys)], ys).tolist() == xs
    for name in ("t_div_2exp", "c_div_2exp", "f_div_2exp"):
        f, g = getattr(clbig, name), getattr(gmpy2, name)
        for k in (0, 1, 31, 32, 33, bits + 5):
            assert f(xs, k).tolist() == [int(g(x, k)) for x in xs], f"{name} {k}"
        ks = [i % 70 for i in range(len(xs))]
        assert f(xs, ks).tolist() == [int(g(x, k)) for x, k in zip(xs, ks)], name + " per row"
        with pytest.raises(OverflowError):
            f(xs, -1)
        with pytest.raises(OverflowError, match="index 1"):
            f([5, 6], [0, -2])
    for f in (clbig.t_div, clbig.c_div_2exp):
        assert len(f([], 3)) == 0


@pytest.mark.parametrize("bits", [33, 1000])
def test_single_bits(rng, bits):
    xs = _values(rng, bits) + [0, -1, mask(64), -(1 << 64)]
    for k in (0, 1, 31, 32, 64, bits, bits + 40):
        assert clbig.bit_test(xs, k).tolist() == [gmpy2.bit_test(x, k) for x in xs], k
        for name in ("bit_set", "bit_clear", "bit_flip"):
            got = getattr(clbig, name)(xs, k).tolist()
            assert got == [int(getattr(gmpy2, name)(x, k)) for x in xs], f"{name} {k}"
        for name in ("bit_scan0", "bit_scan1"):
            want = [getattr(gmpy2, name)(x, k) for x in xs]
            got = getattr(clbig, name)(xs, k).tolist()
            assert got == [-1 if w is None else w for w in want], f"{name} {k}"
    ks = [(7 * i) % (bits + 3) for i in range(len(xs))]
    assert clbig.bit_set(xs, ks).tolist() == [int(gmpy2.bit_set(x, k)) for x, k in zip(xs, ks)]
    assert clbig.bit_scan1(xs, ks).tolist() == [
        -1 if gmpy2.bit_scan1(x, k) is None else gmpy2.bit_scan1(x, k) for x, k in zip(xs, ks)]
    assert clbig.popcount(xs).tolist() == [gmpy2.popcount(x) for x in xs]
    assert clbig.bit_scan1(0) is None and clbig.bit_scan0(-1) is None and clbig.bit_scan1(-8) == 3
    assert clbig.bit_test(-1, 10 ** 4) is True and clbig.bit_flip(-1, 64) == int(gmpy2.bit_flip(-1, 64))
    with pytest.raises(OverflowError, match="index 2"):
        clbig.bit_test([1, 2, 3], [0, 0, -1])
    assert clbig.popcount([]).tolist() == [] and clbig.bit_scan0([]).tolist() == []


@pytest.mark.parametrize("bits", [30, 64, 513])
def test_roots_with_remainders_and_power_tests(rng, bits):
    xs = [abs(v) for v in _values(rng, bits)] + [0, 1, 2, 3, 4]
    xs += [rand_value(rng, bits // 2) ** 2, rand_value(rng, bits // 3) ** 3]
    s, r = clbig.isqrt_rem(xs)
    assert (s.tolist(), r.tolist()) == ([int(gmpy2.isqrt_rem(x)[0]) for x in xs],
                                        [int(gmpy2.isqrt_rem(x)[1]) for x in xs])
    for k in (1, 2, 3, 7, bits, bits + 1, 2 ** 40):   # from the width on, roots of 0 or 1
        r, rem = clbig.iroot_rem(xs, k)
        want = [gmpy2.iroot_rem(x, k) for x in xs]
        assert r.tolist() == [int(w[0]) for w in want] and rem.tolist() == [int(w[1]) for w in want], k
    signed = xs + [-x for x in xs] + [-8, -27, -(3 ** 41), -4, -1]
    assert clbig.is_square(signed).tolist() == [gmpy2.is_square(x) for x in signed]
    assert clbig.is_power(signed).tolist() == [gmpy2.is_power(x) for x in signed]
    assert clbig.isqrt_rem(10) == (3, 1) and clbig.iroot_rem(10, 3) == (2, 2)
    with pytest.raises(ValueError, match="element 1 is negative"):
        clbig.isqrt_rem([4, -1])
    with pytest.raises(ValueError, match="element 2 is negative"):
        clbig.iroot_rem([8, 1, -8], 3)
    with pytest.raises(ValueError):
        clbig.iroot_rem([8], 0)
    assert len(clbig.isqrt_rem([])[0]) == 0 and clbig.is_square([]).tolist() == []


def test_symbols(rng):
    primes = [3, 5, 7, 2 ** 61 - 1, int(gmpy2.next_prime(rand_value(rng, 200)))]
    xs = _values(rng, 300, n=5)[:len(primes)] + [0, 1, -1]
    ps = (primes * 2)[:len(xs)]
    assert clbig.legendre(xs, ps).tolist() == [gmpy2.legendre(x, p) for x, p in zip(xs, ps)]
    with pytest.raises(ValueError, match="index 1"):
        clbig.legendre([1, 2], [3, 8])
    with pytest.raises(ValueError, match="index 0"):
        clbig.legendre([1, 2], [-3, 7])
    ys = [0, 1, -1, 2, -2, 8, -8, 12, 2 ** 70, -(2 ** 70) * 3, 15, -15, 1024 * 3]
    xs = [0, 1, -1, 2, 3, -3, 5, -5, 7, 2 ** 65 + 1, -(2 ** 65) - 3, 6, rand_value(rng, 90)]
    pairs = [(x, y) for x in xs for y in ys]
    a, b = [p[0] for p in pairs], [p[1] for p in pairs]
    assert clbig.kronecker(a, b).tolist() == [gmpy2.kronecker(x, y) for x, y in pairs]
    assert clbig.kronecker(a, 12).tolist() == [gmpy2.kronecker(x, 12) for x in a]
    assert clbig.kronecker(-3, -8) == 1 and clbig.kronecker([], 3).tolist() == []


def test_prev_prime(rng):
    xs = [3, 4, 5, 6, 13, 14, 2 ** 64, 2 ** 89 - 1, rand_value(rng, 300) | 3]
    assert clbig.prev_prime(xs).tolist() == [int(gmpy2.prev_prime(x)) for x in xs]
    assert clbig.prev_prime(10 ** 12) == int(gmpy2.prev_prime(10 ** 12))
    with pytest.raises(ValueError, match="x must be >= 3, not at index 1"):
        clbig.prev_prime([5, 2])
    assert len(clbig.prev_prime([])) == 0


def test_crt(rng):
    ms = [[3, 5, 2 ** 61 - 1, 1], [7, 11, 2 ** 31 - 1, 5], [4, 13, 2 ** 89 - 1, 1]]
    rs = [[rand_value(rng, 100) * (-1) ** i for i in range(4)] for _ in ms]
    got = clbig.crt(rs, ms).tolist()
    for j in range(4):
        mods = [int(m[j]) for m in ms]
        x = got[j]
        assert 0 <= x < mods[0] * mods[1] * mods[2]
        assert all((x - r[j]) % m == 0 for r, m in zip(rs, mods)), j
    assert clbig.crt([2, 3, 2], [3, 5, 7]) == 23
    assert clbig.crt([[5, 6]], [[7, 4]]).tolist() == [5, 2]       # k = 1: r mod m
    assert clbig.crt([[2, 1], 3], [[3, 5], 7]).tolist() == [17, 31]
    with pytest.raises(ValueError, match=r"moduli\[1\] is not coprime .* at index 1"):
        clbig.crt([[1, 1], [1, 1]], [[3, 4], [5, 6]])
    with pytest.raises(ValueError, match=r"moduli\[0\] is below 1 at index 1"):
        clbig.crt([[1, 1]], [[3, 0]])
    with pytest.raises(ValueError, match="2 residues and 1 moduli"):
        clbig.crt([1, 2], [3])
    with pytest.raises(ValueError, match=r"lengths do not broadcast: residues \[2, 1\], moduli \[2, 3\]"):
        clbig.crt([[1, 2], 3], [[4, 5], [7, 9, 11]])     # once called "not coprime"


def test_combinatorics():
    ns = [0, 1, 2, 5, 20, 101, 300]
    assert clbig.fac(ns).tolist() == [int(gmpy2.fac(n)) for n in ns]
    assert clbig.fib(np.array(ns)).tolist() == [int(gmpy2.fib(n)) for n in ns]
    ks = [0, 1, 3, 7, 2, 50, 299]
    big = [5, -3, 2 ** 70, 0, -1, 100, 300]
    assert clbig.binomial(big, ks).tolist() == [int(gmpy2.comb(n, k)) for n, k in zip(big, ks)]
    assert clbig.binomial(big, 2).tolist() == [int(gmpy2.comb(n, 2)) for n in big]
    assert clbig.fac(25) == int(gmpy2.fac(25)) and clbig.binomial(-3, 2) == 6
    assert (clbig.fac(ns) + 1).tolist() == [int(gmpy2.fac(n)) + 1 for n in ns]   # on the device
    with pytest.raises(OverflowError, match="element 1 is negative"):
        clbig.fac([3, -1])
    with pytest.raises(OverflowError, match="element 0 is negative"):
        clbig.binomial([5], [-1])
    with pytest.raises(TypeError, match="element 0 is float"):
        clbig.fib([1.5])
    for call in (lambda: clbig.fac([3, 2**64]), lambda: clbig.fib([3, 2**64]),
                 lambda: clbig.binomial([3, 5], [1, 2**64])):   # gmpy2's unsigned long
        with pytest.raises(OverflowError, match="element 1 is 18446744073709551616"):
            call()

    class Index:                       # an integer by __index__ alone
        def __index__(self):
            return 4
    assert clbig.fac([3, Index()]).tolist() == [6, 24]
    assert clbig.fac([]).tolist() == []


def test_scalars_against_rows_and_refusals():
    """One plain x against a list of shifts (the sign mask broadcast to the rows), numpy and
    gmpy2 integer scalars where ints go, and floats or bools refused with the function's name."""
    for f, g in ((clbig.t_div_2exp, gmpy2.t_div_2exp), (clbig.f_div_2exp, gmpy2.f_div_2exp),
                 (clbig.c_div_2exp, gmpy2.c_div_2exp)):
        for x in (13, -13, 0):
            assert f(x, [0, 1, 2, 70]).tolist() == [int(g(x, k)) for k in (0, 1, 2, 70)], (f, x)
    assert clbig.fac(np.int32(10)) == 3628800 and clbig.fib(np.int64(10)) == 55
    assert clbig.binomial(gmpy2.mpz(10), np.int64(3)) == 120
    for call, what in ((lambda: clbig.fac(2.0), "fac: element 0 is float"),
                       (lambda: clbig.fib(True), "fib: element 0 is bool"),
                       (lambda: clbig.t_div_2exp(5, 1.5), "t_div_2exp: the power of two must be an integer")):
        with pytest.raises(TypeError, match=what):
            call()


def test_counts_and_arguments_checked_per_row_and_zero_d():
    """Per-row counts name the index of a non-integer (TypeError) or a 2-d shape (ValueError);
    a 0-d numpy array is one count or argument; scans refuse starts past int64 by name;
    fac/fib/binomial refuse bytes, dicts and sets (gmpy2 does); where broadcasts a
    one-element condition to zero rows, as numpy's."""
    for call, err, what in (
            (lambda: clbig.f_div_2exp([5, 6], [1, None]), TypeError, "f_div_2exp: the power of two at index 1"),
            (lambda: clbig.bit_test([5, 6], [1, "a"]), TypeError, "bit_test: the bit index at index 1"),
            (lambda: clbig.t_div_2exp([5, 6], [1, -1.5]), TypeError, "index 1 must be an integer, got float"),
            (lambda: clbig.bit_set([5, 6], np.array([[1, 2]])), ValueError, "one-dimensional"),
            (lambda: clbig.bit_scan1([5, -6], [1, 2**63]), OverflowError, "bit_scan1: the start .* at index 1"),
            (lambda: clbig.bit_scan0(5, 2**63), OverflowError, "beyond 2..63 - 1"),
            (lambda: clbig.fac(b"ab"), TypeError, "got bytes"),
            (lambda: clbig.fib({3: 4}), TypeError, "got dict"),
            (lambda: clbig.binomial({5}, 2), TypeError, "got set"),
            (lambda: clbig.where([True], [1, 2], [5, 6, 7]), ValueError, "x has 2 elements, y 3")):
        with pytest.raises(err, match=what):
            call()
    assert clbig.f_div_2exp([5, 6, 7], range(3)).tolist() == [5, 3, 1]
    assert clbig.f_div_2exp([5, 6], np.array(1)).tolist() == [2, 3]
    assert clbig.bit_test([5, 6], np.array(1)).tolist() == [False, True]
    assert clbig.bit_scan1([5, -6], [1, 2**63 - 1]).tolist() == [2, 2**63 - 1]
    assert clbig.fac(np.array(5)) == 120 and clbig.binomial(10, np.array(3)) == 120
    assert clbig.where([True], [], [5]).tolist() == [] and clbig.where([False], [7], []).tolist() == []
