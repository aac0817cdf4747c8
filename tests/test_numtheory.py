"""clbig's number theory (clbig/mpz/numtheory.py) against gmpy2 and Python ints: bit_count,
lcm, gcdext, iroot, jacobi, is_prime and next_prime over random signed values, edges (zero,
one, all-ones limbs, one limb, odd limb counts, unequal widths), exhaustive small ranges,
Carmichael numbers and strong pseudoprimes, large primes and composites (512..2203 bits),
broadcasting, plain ints, empty and one-element batches and every error.

Widths are few and shared (each is a kernel specialisation)."""
from __future__ import annotations

import math
import random

import gmpy2
import numpy as np
import pytest

import clbig
from clbig.mpz import numtheory
from conftest import BATCH, edge_values, mask, rand_value

WIDTHS = [(32, 32), (96, 64), (100, 1000), (1056, 1056)]


def signed(rng, bits: int) -> int:
    v = rand_value(rng, bits)
    return -v if rng.random() < 0.4 else v


def signed_pairs(rng, ba: int, bb: int, n: int = 2 * BATCH):
    w = min(ba, bb)
    g = rng.getrandbits(max(1, w // 3)) | 1
    x = rng.getrandbits(w) | 1
    edges = [(0, 0), (0, 1), (1, 0), (0, -mask(bb)), (-mask(ba), 0), (1, 1), (-1, 1), (x, x),
             (x, -x), (mask(w), mask(w)), (1 << (ba - 1), 1 << (bb - 1)), (mask(ba), mask(bb)),
             (2 * x & mask(ba), x), (-(2 * x & mask(ba)), x), (x, 2 * x & mask(bb)),
             (g * (rng.getrandbits(max(1, w - g.bit_length())) | 1) & mask(ba),
              -(g * rng.getrandbits(max(1, w - g.bit_length())) & mask(bb))),
             (mask(ba), 1), (-mask(ba), -mask(bb))]
    pairs = list(edges)
    while len(pairs) < n:
        pairs.append((signed(rng, ba), signed(rng, bb)))
    rng.shuffle(pairs)
    return pairs


def arrays(pairs, ba, bb):
    xs, ys = [p[0] for p in pairs], [p[1] for p in pairs]
    return clbig.array(xs, bits=ba), clbig.array(ys, bits=bb), xs, ys


# -- bit_count ----------------------------------------------------------------------------------
@pytest.mark.parametrize("bits", [1, 33, 96, 1056, 4128])   # 4128 bits: three chunks per row
def test_bit_count(rng, bits):
    vals = edge_values(bits) + [signed(rng, bits) for _ in range(BATCH)]
    vals += [-v for v in edge_values(bits)[:5]]
    x = clbig.array(vals, bits=bits)
    want = [abs(v).bit_count() for v in vals]
    assert clbig.bit_count(x).tolist() == want
    assert x.bit_count().tolist() == want                   # the method
    assert x.bit_count().dtype == np.int64
    assert [gmpy2.mpz(v).bit_count() for v in vals] == want  # gmpy2 counts |x| too
    assert x[3:4].bit_count().tolist() == want[3:4]          # one element


def test_bit_count_plain_and_empty():
    assert clbig.bit_count(-(2**200 - 1)) == 200 and clbig.bit_count(0) == 0
    assert clbig.bit_count(gmpy2.mpz(5)) == 2
    assert isinstance(clbig.bit_count(7), int)
    assert clbig.bit_count([]).tolist() == []
    assert clbig.bit_count(clbig.array([], bits=64)).tolist() == []
    with pytest.raises(TypeError):
        clbig.bit_count(1.5)


# -- lcm ----------------------------------------------------------------------------------------
@pytest.mark.parametrize("ba,bb", WIDTHS)
def test_lcm(rng, ba, bb):
    pairs = signed_pairs(rng, ba, bb)
    a, b, xs, ys = arrays(pairs, ba, bb)
    got = clbig.lcm(a, b)
    assert got.tolist() == [int(gmpy2.lcm(x, y)) for x, y in zip(xs, ys)]
    assert got.bits == ba + bb and got.sign().min() >= 0


def test_lcm_broadcast_plain_empty():
    assert clbig.lcm([4, 6, 0, -10], 6).tolist() == [12, 6, 0, 30]
    assert clbig.lcm(-21, [6]).tolist() == [42]
    assert clbig.lcm(-4, 6) == 12 and clbig.lcm(0, 0) == 0
    assert isinstance(clbig.lcm(3, 5), int)
    assert clbig.lcm([], []).tolist() == []
    with pytest.raises(ValueError, match="length mismatch"):
        clbig.lcm([1, 2], [1, 2, 3])


# -- gcdext -------------------------------------------------------------------------------------
def check_gcdext(xs, ys, got):
    g, s, t = (x.tolist() for x in got)
    for i, (x, y) in enumerate(zip(xs, ys)):
        want = tuple(int(v) for v in gmpy2.gcdext(x, y))
        assert (g[i], s[i], t[i]) == want, f"index {i}: gcdext({x}, {y})"
        assert g[i] == x * s[i] + y * t[i]


def test_gcdext_exhaustive_small():
    """Every pair in [-13, 13]^2: GMP's special cases (|a| = |b|, |a| = 2g, b = 0, ...)."""
    rng_ = range(-13, 14)
    xs = [x for x in rng_ for _ in rng_]
    ys = [y for _ in rng_ for y in rng_]
    check_gcdext(xs, ys, clbig.gcdext(xs, ys))


@pytest.mark.parametrize("ba,bb", [(32, 32), (100, 1000), (1056, 1056)])
def test_gcdext(rng, ba, bb):
    pairs = signed_pairs(rng, ba, bb)
    a, b, xs, ys = arrays(pairs, ba, bb)
    got = clbig.gcdext(a, b)
    check_gcdext(xs, ys, got)
    assert (got[1].bits, got[2].bits) == (bb, ba)       # abs(s) <= abs(b), abs(t) <= abs(a)


def test_gcdext_broadcast_plain_empty(rng):
    p = gmpy2.next_prime(2**89)
    xs = [rng.getrandbits(100) for _ in range(5)] + [0, int(p), -int(p), 2 * int(p)]
    check_gcdext(xs, [int(p)] * len(xs), clbig.gcdext(xs, int(p)))
    check_gcdext([6] * 3, [4, -9, 0], clbig.gcdext(6, [4, -9, 0]))
    assert clbig.gcdext(240, 46) == (2, -9, 47)
    assert clbig.gcdext(0, -5) == (5, 0, -1) and clbig.gcdext(0, 0) == (0, 0, 0)
    assert all(isinstance(v, int) for v in clbig.gcdext(3, 5))
    assert [len(x) for x in clbig.gcdext([], [])] == [0, 0, 0]
    check_gcdext([7], [-3], clbig.gcdext([7], [-3]))
    with pytest.raises(ValueError, match="length mismatch"):
        clbig.gcdext([1, 2], [1, 2, 3])


# -- iroot --------------------------------------------------------------------------------------
def check_iroot(vals, k, got):
    r, exact = got
    want = [gmpy2.iroot(v, k) for v in vals]
    assert r.tolist() == [int(w[0]) for w in want]
    assert exact.tolist() == [bool(w[1]) for w in want]
    assert exact.dtype == bool


@pytest.mark.parametrize("k", [1, 2, 3, 4, 5, 9])
def test_iroot_small_exhaustive(k):
    vals = list(range(0, 700))
    check_iroot(vals, k, clbig.iroot(vals, k))


@pytest.mark.parametrize("k", [2, 3, 64, 1055, 1056, 5000])
def test_iroot_large(rng, k):
    bits = 1056
    roots = [rng.getrandbits(max(1, bits // k)) | 1 for _ in range(4)]
    vals = edge_values(bits) + [rng.getrandbits(bits) for _ in range(BATCH)]
    for r in roots:                                 # exact powers and their neighbours
        p = r ** k
        if p.bit_length() <= bits:
            vals += [p, p - 1, p + 1 if (p + 1).bit_length() <= bits else p]
    x = clbig.array(vals, bits=bits)
    r, exact = clbig.iroot(x, k)
    check_iroot(vals, k, (r, exact))
    assert r.bits == -(-bits // k)


def test_iroot_plain_errors_empty():
    assert clbig.iroot(2**100, 4) == (2**25, True)
    assert clbig.iroot(gmpy2.mpz(26), 3) == (2, False) and clbig.iroot(0, 7) == (0, True)
    r, e = clbig.iroot([], 3)
    assert r.tolist() == [] and e.tolist() == []
    with pytest.raises(ValueError, match="element 2 is negative"):
        clbig.iroot([1, 8, -8], 3)
    with pytest.raises(ValueError, match="k must be >= 1"):
        clbig.iroot([8], 0)
    with pytest.raises(TypeError, match="iroot: k must be an integer"):
        clbig.iroot([8], 2.0)
    with pytest.raises(ValueError):
        gmpy2.iroot(-8, 3)                          # gmpy2 refuses negatives as well


# -- jacobi -------------------------------------------------------------------------------------
def test_jacobi_exhaustive_small():
    """a in [-40, 40], n odd in [-41, 41]: negative n as gmpy2 (Kronecker's (a / -1))."""
    ns = [n for n in range(-41, 42) if n % 2]
    xs = [a for a in range(-40, 41) for _ in ns]
    ys = [n for _ in range(-40, 41) for n in ns]
    got = clbig.jacobi(xs, ys)
    assert got.dtype == np.int8
    assert got.tolist() == [gmpy2.jacobi(a, n) for a, n in zip(xs, ys)]


@pytest.mark.parametrize("ba,bb", [(96, 64), (100, 1000), (1056, 1056)])
def test_jacobi_random(rng, ba, bb):
    xs = [signed(rng, ba) for _ in range(2 * BATCH)] + [0, 1, -1, mask(ba)]
    ys = [(signed(rng, bb) | 1) for _ in range(len(xs) - 4)] + [1, mask(bb), -mask(bb), mask(bb)]
    p = int(gmpy2.next_prime(1 << (bb - 2)))        # prime modulus: Legendre symbols, and zeros
    xs += [3 * p if 3 * p < 2 ** ba else 0, rng.getrandbits(ba), 2 ** (ba - 1)]
    ys += [p, p, p]
    got = clbig.jacobi(clbig.array(xs, bits=ba), clbig.array(ys, bits=bb))
    assert got.tolist() == [gmpy2.jacobi(a, n) for a, n in zip(xs, ys)]


def test_jacobi_broadcast_plain_errors():
    p = 2**127 - 1
    vals = [0, 1, 2, 3, -3, p - 1, p + 5, 2**200 + 7]
    assert clbig.jacobi(vals, p).tolist() == [gmpy2.jacobi(v, p) for v in vals]
    ns = [3, 7, 9, 11, -11]
    assert clbig.jacobi(5, ns).tolist() == [gmpy2.jacobi(5, n) for n in ns]
    assert clbig.jacobi(1001, 9907) == -1 and clbig.jacobi(-3, -5) == gmpy2.jacobi(-3, -5)
    assert isinstance(clbig.jacobi(2, 7), int)
    assert clbig.jacobi([], []).tolist() == []
    with pytest.raises(ValueError, match="n is even at index 2"):
        clbig.jacobi([1, 2, 3], [3, 5, 8])
    with pytest.raises(ValueError, match="n is even at index 1"):
        clbig.jacobi([1, 2], [3, 0])


# -- is_prime -----------------------------------------------------------------------------------
CARMICHAEL = [561, 1105, 1729, 2465, 2821, 6601, 8911, 10585, 15841, 29341, 41041, 46657, 52633,
              62745, 63973, 75361, 101101, 115921, 126217, 162401, 172081, 188461, 252601,
              278545, 294409, 314821, 334153, 340561, 399001, 410041, 449065, 488881, 512461]
# Strong pseudoprimes to the first 1, 2, ... prime bases (the smallest of each, psi_t), and
# others the issue names: 3215031751 (bases 2, 3, 5, 7), 2152302898747, 3474749660383,
# 341550071728321, 3825123056546413051 (bases up to 23), psi_12 and psi_13 (bases up to 41).
STRONG_PSEUDOPRIMES = [2047, 1373653, 25326001, 3215031751, 2152302898747, 3474749660383,
                       341550071728321, 3825123056546413051, 318665857834031151167461,
                       3317044064679887385961981]


def chernick(bits: int, count: int) -> list[int]:
    """Carmichael numbers (6k+1)(12k+1)(18k+1) with all three factors prime, about `bits` bits."""
    out, k = [], 1 << max(1, (bits - 11) // 3)
    while len(out) < count:
        f = (6 * k + 1, 12 * k + 1, 18 * k + 1)
        if all(gmpy2.is_prime(x) for x in f):
            out.append(f[0] * f[1] * f[2])
        k += 1
    return out


def check_is_prime(vals, reps=25, bits=None):
    x = clbig.array(vals, bits=bits) if bits else vals
    got = clbig.is_prime(x, reps)
    assert got.dtype == bool
    want = [bool(gmpy2.is_prime(v, reps)) for v in vals]
    bad = [v for v, g, w in zip(vals, got.tolist(), want) if g != w]
    assert not bad, f"is_prime disagrees with gmpy2 on {bad[:5]}"


def test_is_prime_small_exhaustive():
    check_is_prime(list(range(-30, 5000)))


@pytest.mark.parametrize("reps", [0, 1, 25])
def test_is_prime_pseudoprimes(reps):
    vals = CARMICHAEL + STRONG_PSEUDOPRIMES + chernick(64, 3) + chernick(100, 2)
    vals += [int(gmpy2.next_prime(v)) for v in STRONG_PSEUDOPRIMES]      # primes beside them
    vals += [1009 ** 2, 1009 * 1013, 997 * 997, 1018081 - 2, 1018081 + 2, 2**61 - 1, 2**64 + 1]
    check_is_prime(vals, reps)
    assert not clbig.is_prime(STRONG_PSEUDOPRIMES, reps).any()


def test_is_prime_large(rng):
    """512..2203 bits: primes, products of two primes, squares, Mersenne numbers, p + 2."""
    vals = []
    for bits in (512, 1024, 2048):
        p = int(gmpy2.next_prime(rng.getrandbits(bits) | (1 << (bits - 1))))
        q = int(gmpy2.next_prime(rng.getrandbits(bits // 2) | (1 << (bits // 2 - 1))))
        r = int(gmpy2.next_prime(q))
        vals += [p, p + 2, p * 3, q * r, q * q, rng.getrandbits(bits) | 1]
    vals += [2**521 - 1, 2**607 - 1, 2**1279 - 1, 2**2203 - 1, 2**1024 - 1, 2**2048 + 1,
             2**523 - 1, -(2**521 - 1)]
    vals += chernick(512, 1)
    check_is_prime(vals, bits=2208)


def test_is_prime_plain_errors_empty():
    assert clbig.is_prime(2**127 - 1) is True and clbig.is_prime(561) is False
    assert clbig.is_prime(-7) is False and clbig.is_prime(gmpy2.mpz(13)) is True
    assert clbig.is_prime([]).tolist() == []
    assert clbig.is_prime([1_000_003]).tolist() == [True]
    with pytest.raises(ValueError, match="reps must be between 0 and 1000"):
        clbig.is_prime([7], -1)
    with pytest.raises(ValueError, match="reps must be between 0 and 1000"):
        clbig.is_prime([7], 1001)
    with pytest.raises(TypeError, match="reps must be an integer"):
        clbig.is_prime([7], 2.5)


# -- next_prime ---------------------------------------------------------------------------------
def check_next_prime(vals, bits=None):
    got = clbig.next_prime(clbig.array(vals, bits=bits) if bits else vals)
    assert got.tolist() == [int(gmpy2.next_prime(v)) for v in vals]


def test_next_prime_small():
    check_next_prime(list(range(-20, 400)) + [1018080, 1018081, 2**31 - 2, 2**32 - 6])


def test_next_prime_large(rng):
    vals = [rng.getrandbits(1024) for _ in range(3)] + [2**1023, 2**1024 - 1000]
    vals.append(int(gmpy2.next_prime(rng.getrandbits(1024))))           # from a prime
    check_next_prime(vals, bits=1024)
    check_next_prime([rng.getrandbits(64) for _ in range(BATCH)] + [2**64 - 59 - 1])


def test_prime_tests_at_the_values_width(rng, monkeypatch):
    """Values held at a far wider capacity (a product's, say) are tested at their own width:
    Miller-Rabin at 9001 bits took 300x longer for 1000-bit values."""
    vals = [rng.getrandbits(1000) | 1 << 999 for _ in range(3)]
    widths = []
    real = numtheory._mr_rows
    monkeypatch.setattr(numtheory, "_mr_rows", lambda x, b: widths.append(x.bits) or real(x, b))
    wide = clbig.array(vals, bits=9000)
    assert clbig.next_prime(wide).tolist() == [int(gmpy2.next_prime(v)) for v in vals]
    assert clbig.prev_prime(wide).tolist() == [int(gmpy2.prev_prime(v)) for v in vals]
    assert widths and max(widths) <= 1024, widths


def test_next_prime_plain_empty():
    assert clbig.next_prime(10**12) == 1000000000039 and clbig.next_prime(-5) == 2
    assert isinstance(clbig.next_prime(7), int)
    assert clbig.next_prime([]).tolist() == []
    assert clbig.next_prime([2**89 - 1]).tolist() == [int(gmpy2.next_prime(2**89 - 1))]


def test_docstring_examples():
    """The examples in the docstrings (the API reference shows them) give what they say."""
    import doctest
    import importlib
    mod = importlib.import_module("clbig.mpz.numtheory")
    res = doctest.testmod(mod, optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE)
    assert res.failed == 0 and res.attempted >= 14


# -- a few rows of plain ints on the host (HOST_ROWS; the suite sets 0 for the kernels) -----------
def _same(dev, host):
    """Two results of one call, the device path's and the host path's: values, capacities,
    signs (of non-zero values), and numpy flags, element by element."""
    if isinstance(dev, tuple):
        assert isinstance(host, tuple) and len(dev) == len(host)
        for d, h in zip(dev, host):
            _same(d, h)
    elif isinstance(dev, clbig.BigIntArray):
        assert isinstance(host, clbig.BigIntArray) and host.bits == dev.bits
        assert host.tolist() == dev.tolist()
        assert (host.sign() == dev.sign()).all()
    elif isinstance(dev, np.ndarray):
        assert isinstance(host, np.ndarray) and host.dtype == dev.dtype and (host == dev).all()
    else:
        assert type(host) is type(dev) and host == dev


def test_few_rows_on_the_host_answer_as_the_device(rng, monkeypatch):
    """Within HOST_ROWS, lcm, gcdext, iroot, is_prime, next_prime and prev_prime of plain ints
    run with gmpy2 on the host (clbig.profile says so, no kernel runs), with the device path's
    values, capacities and signs: signed edges, broadcasting, plain ints, mixed widths; and
    their results feed device operations."""
    calls = []
    for bits in (32, 33, 100):
        pairs = signed_pairs(rng, bits, bits + 40, n=9)
        a, b = [p[0] for p in pairs], [p[1] for p in pairs]
        mags = [abs(v) for v in a]
        calls += [(clbig.lcm, (a, b)), (clbig.lcm, (a, b[0])), (clbig.lcm, (a[1], b[2])),
                  (clbig.gcdext, (a, b)), (clbig.gcdext, (a[0], b)), (clbig.gcdext, (a[3], b[4])),
                  (clbig.iroot, (mags, 2)), (clbig.iroot, (mags, 3)), (clbig.iroot, (mags, bits)),
                  (clbig.iroot, (mags[1], 1)), (clbig.is_prime, (a,)), (clbig.is_prime, (a, 0)),
                  (clbig.next_prime, (a,)), (clbig.next_prime, (a[2],)),
                  (clbig.prev_prime, ([v + 3 for v in mags],)), (clbig.prev_prime, (mags[0] + 3, 2))]
    calls += [(clbig.is_prime, ([0, 1, 2, 3, 997, 1009, 1018081, 1018087, 561, 3215031751,
                                 1009 * 1013 * 1019, 2**127 - 1, -7],)),
              (clbig.next_prime, ((-5, 0, 1, 2, 13, 1018080, 2**64),)),
              (clbig.prev_prime, ([3, 4, 5, 14, 1018090, 2**64],))]
    for fn, args in calls:
        monkeypatch.setenv("CLBIG_HOST_ROWS", "0")
        dev = fn(*args)
        monkeypatch.setenv("CLBIG_HOST_ROWS", "32")
        with clbig.profile() as p:
            host = fn(*args)
        assert p.kernels == 0 and any("on the host" in s for s in p.notes), (fn.__name__, p.notes)
        _same(dev, host)
    g, s, t = clbig.gcdext([240, -6, 5], [46, 4, 0])          # host results on the device next
    assert (g + 1).tolist() == [3, 3, 6] and (s * 3).tolist() == [-27, -3, 3]
    assert (clbig.array([240, -6, 5]) * s + clbig.array([46, 4, 0]) * t).tolist() == g.tolist()


def test_few_rows_on_the_host_leave_the_rest_to_the_device(rng, monkeypatch):
    """Past the limit, with keywords, mpz or numpy operands, the device computes; input the
    device refuses gets its errors (naming the index) from the device path."""
    monkeypatch.setenv("CLBIG_HOST_ROWS", "3")
    vals = [rng.getrandbits(64) for _ in range(4)]
    for fn, args, kw in [(clbig.lcm, (vals, vals), {}), (clbig.is_prime, (vals[:2],), {"reps": 3}),
                         (clbig.gcdext, ([gmpy2.mpz(5), 7], 3), {}),
                         (clbig.iroot, (np.array(vals[:2], np.uint64), 2), {})]:
        with clbig.profile() as p:
            fn(*args, **kw)
        assert p.kernels > 0 and not any("on the host" in s for s in p.notes), fn.__name__
    with pytest.raises(ValueError, match="element 1 is negative"):
        clbig.iroot([4, -4], 2)
    with pytest.raises(ValueError, match="index 1"):
        clbig.prev_prime([5, 2])
    with pytest.raises(ValueError, match="reps"):
        clbig.is_prime([5], 1001)
    for fn in (clbig.next_prime, clbig.prev_prime):        # the function named, on both paths
        for a in ([5], clbig.array([5])):
            with pytest.raises(ValueError, match=f"{fn.__name__}: reps"):
                fn(a, 1001)
    with pytest.raises(ValueError, match="length mismatch"):
        clbig.lcm([1, 2], [1, 2, 3])
    with pytest.raises(TypeError):
        clbig.gcdext([1, True], 2)


def test_host_row_limits_by_device_kind_and_width(ctx, monkeypatch):
    """Without HOST_ROWS the limits are the table's for the device's kind, shrinking with the
    operands' width (1024 / bits, squared for the prime tests), and a call past them runs on
    the device."""
    from clbig.mpz import hostrows
    from clbig.runtime import plan
    monkeypatch.delenv("CLBIG_HOST_ROWS", raising=False)
    monkeypatch.setenv("CLBIG_HOST_FIRST_MS", "0")      # no first-call allowance past the limit
    kind = 0 if plan.is_gpu(ctx) else 1
    for fam, row in hostrows.LIMITS.items():
        assert hostrows.limit(ctx, fam, 64) == hostrows.limit(ctx, fam, 1024) == row[kind]
        assert hostrows.limit(ctx, fam, 2048) == row[kind] // 2 ** row[2]
    m = hostrows.limit(ctx, "is_prime", 2048)
    wide = [(v << 2016) + 1 for v in range(10**9, 10**9 + m + 1)]     # 2048 bits
    for rows, on_host in ((wide[:m], True), (wide, False)):
        with clbig.profile() as p:
            assert clbig.is_prime(rows).tolist() == [bool(gmpy2.is_prime(v)) for v in rows]
        assert (p.kernels == 0) == on_host


def test_first_calls_past_the_host_limit_rent_until_the_allowance_is_spent(ctx, monkeypatch):
    """Until a family has run on the device in a context, a call of up to FIRST_FACTOR times
    its host limit runs on the host while such calls' host time stays within HOST_FIRST_MS; a
    larger call, or any once that time is spent, goes to the device, and from then on the
    limit alone decides. Arrays take the device (and end the allowance); HOST_ROWS and
    HOST_FIRST_MS=0 turn it off. prod (lists and arrays) and sum (lists) likewise, in bits."""
    from clbig.mpz import hostrows
    monkeypatch.delenv("CLBIG_HOST_ROWS", raising=False)
    monkeypatch.setenv("CLBIG_HOST_FIRST_MS", "60000")
    monkeypatch.setitem(hostrows.LIMITS, "lcm", (2, 2, 1))
    monkeypatch.setitem(hostrows.LIMITS, "prod", (2, 2, 1))     # 2048 bits in all
    monkeypatch.setitem(hostrows.LIMITS, "sum", (2, 2, 1))
    f = hostrows.FIRST_FACTOR
    r = random.Random(43)
    a = [r.getrandbits(900) for _ in range(4 * f)]
    b = [r.getrandbits(700) for _ in range(4 * f)]

    def lcm_where(n):
        with clbig.profile() as p:
            assert clbig.lcm(a[:n], b[:n]).tolist() == [math.lcm(x, y) for x, y in zip(a[:n], b[:n])]
        return "host" if p.kernels == 0 else "device"

    ctx.profile.clear("host_first")
    assert [lcm_where(n) for n in (2, 2 * f, 2 * f)] == ["host"] * 3
    assert hostrows._spent(ctx)["lcm"] > 0
    assert lcm_where(2 * f + 1) == "device"                 # past FIRST_FACTOR times the limit
    assert [lcm_where(n) for n in (3, 2)] == ["device", "host"]    # bought: the limit alone
    ctx.profile.clear("host_first")
    hostrows.spend(ctx, "lcm", 59.0)
    assert lcm_where(3) == "host"
    hostrows.spend(ctx, "lcm", 1.0)                          # the allowance spent
    assert lcm_where(3) == "device"
    ctx.profile.clear("host_first")
    clbig.lcm(clbig.array(a[:3]), b[:3])                     # an array: the device path
    assert lcm_where(3) == "device"
    ctx.profile.clear("host_first")                          # no device rows: still open
    assert clbig.lcm([], []).tolist() == []
    with pytest.raises(TypeError):
        clbig.lcm([1, True], [2, 3])
    assert lcm_where(3) == "host"
    assert clbig.lcm(a[:3], b=b[:3]).tolist() == [math.lcm(x, y) for x, y in zip(a, b[:3])]
    assert lcm_where(3) == "device"                          # a keyword call ran the device
    for var, val in (("CLBIG_HOST_FIRST_MS", "0"), ("CLBIG_HOST_ROWS", "2")):
        ctx.profile.clear("host_first")
        monkeypatch.setenv(var, val)
        assert lcm_where(3) == "device"
        monkeypatch.setenv("CLBIG_HOST_FIRST_MS", "60000")
        monkeypatch.delenv("CLBIG_HOST_ROWS", raising=False)

    # A rented call whose allowance runs out between rows stops there and goes to the device.
    monkeypatch.setitem(hostrows.LIMITS, "is_prime", (2, 2, 0))
    monkeypatch.setenv("CLBIG_HOST_FIRST_MS", "1")
    primes = [int(gmpy2.next_prime(r.getrandbits(1024))) for _ in range(2 * f)]   # 25 rounds each
    ctx.profile.clear("host_first")
    with clbig.profile() as p:
        assert clbig.is_prime(primes).all()
    assert p.kernels > 0 and hostrows._spent(ctx)["is_prime"] is None
    monkeypatch.setenv("CLBIG_HOST_FIRST_MS", "60000")

    ctx.profile.clear("host_first")
    vals = [r.getrandbits(256) - 2 ** 255 for _ in range(8 * f)]   # capacity 256 bits each

    for fn, ref in ((clbig.prod, math.prod), (clbig.sum, sum)):
        def where(x):
            with clbig.profile() as p:
                assert fn(x) == ref(x.tolist() if isinstance(x, clbig.BigIntArray) else x)
            return "host" if p.kernels == 0 else "device"

        assert where(vals[:8 * f]) == "host"                 # 8 f x 256 bits = f x the limit
        if fn is clbig.prod:                                 # (arrays are summed on the device)
            assert where(clbig.array(vals[:8 * f])) == "host"
        assert where(vals[:8 * f] + [3]) == "device"          # past it: the device's tree
        assert where(vals[:9]) == "device"
    from clbig.mpz import reduce
    monkeypatch.setattr(reduce, "RENT_BITS", 4096)               # one gmpy2 tree: capped
    ctx.profile.clear("host_first")
    for x in (vals[:32], clbig.array(vals[:32])):                  # 8192 bits in all
        with clbig.profile() as p:
            assert clbig.prod(x) == math.prod(vals[:32])
        assert p.kernels > 0


def test_iroot_of_a_huge_k_as_the_device_gives_it(monkeypatch):
    """k past gmpy2's unsigned long: the host path leaves it to the device (roots 0 or 1)."""
    for host_rows in ("0", None):
        if host_rows is None:
            monkeypatch.delenv("CLBIG_HOST_ROWS", raising=False)
        else:
            monkeypatch.setenv("CLBIG_HOST_ROWS", host_rows)
        assert clbig.iroot(8, 2**64) == (1, False)
        r, exact = clbig.iroot([0, 1, 8], 2**64)
        assert r.tolist() == [0, 1, 1] and exact.tolist() == [True, True, False]


def test_array_operators_first_calls_on_values_the_host_holds(ctx, monkeypatch, rng):
    """A product, sum, quotient, inverse or gcd of arrays whose values the host holds (a small
    clbig.array, or a result computed on the host) runs on the host until that operator has
    run on the device in the context, with the device path's values, capacities and signs:
    the same results as the device gives with the allowance closed, chained through an
    expression, broadcasting a plain int and a length-one array. A zero divisor, a value with
    no inverse (strict), a forced algorithm, signed sums and quotients, arrays made on the
    device and batches past ARRAY_RENT_BITS take the device path and its errors; the suite's
    HOST_ROWS turns it off."""
    from clbig.mpz import hostrows
    monkeypatch.delenv("CLBIG_HOST_ROWS", raising=False)
    a = [rng.getrandbits(300) for _ in range(7)] + [0, 1, (1 << 300) - 1]
    b = [rng.getrandbits(200) | 1 for _ in range(10)]

    def tour():
        A, B = clbig.array(a), clbig.array(b)
        e = (A * B + clbig.array([5])) % 1000003
        q, r = clbig.divmod(A * 7, B)
        inv, ok = clbig.invert(A, B, strict=False)
        s = clbig.array([1, 2, 3])
        for _ in range(5):
            s = s + s
        g = clbig.gcd(A * 6, clbig.array([-4] + b[1:]))
        g0 = clbig.gcd(clbig.array([0, 5]), clbig.array([1 << 100, 0], bits=32 * 4))   # a zero beside a wider value
        out = [(x.tolist(), x.bits, None if x.neg is None else x.neg.tolist()) for x in (e, q, r, inv, s, g, g0)]
        return out + [ok.tolist(), clbig.mul(A, clbig.array([-3])).tolist(), clbig.invert([3, 5], 7).tolist()]

    def where(fn):
        with clbig.profile() as p:
            got = fn()
        return got, "host" if p.kernels == 0 else "device"

    monkeypatch.setenv("CLBIG_HOST_FIRST_MS", "0")
    want, at = where(tour)
    assert at == "device"
    monkeypatch.setenv("CLBIG_HOST_FIRST_MS", "60000")
    ctx.profile.clear("host_first")
    assert where(tour) == (want, "host")
    assert set(hostrows._spent(ctx)) == {"mul", "add", "div", "invert", "gcd"}

    A, B = clbig.array(a), clbig.array(b)
    for fn, err in ((lambda: clbig.divmod(A, clbig.array([0] + b[1:])), "index 0"),
                    (lambda: clbig.invert(clbig.array([3, 5, 2, 7]), clbig.array([4])), "index 2")):
        ctx.profile.clear("host_first")
        with pytest.raises((ZeroDivisionError, ValueError), match=err):
            fn()
    for fn in (lambda: clbig.mul(A, B, algorithm="classical"), lambda: clbig.array([-1, 2]) + B[:2],
               lambda: clbig.divmod(clbig.array([-7]), B), lambda: clbig.from_limbs(A.to_limbs()) * B,
               lambda: clbig.array([1 << 5000] * 2000) * 3):
        ctx.profile.clear("host_first")
        assert where(fn)[1] == "device"
    ctx.profile.clear("host_first")
    A, B = clbig.array(a), clbig.array(b)    # (to_limbs above read A's buffer: values dropped)
    assert where(lambda: (A * B).tolist())[1] == "host"
    assert where(lambda: clbig.mul(A, B, algorithm="classical").tolist())[1] == "device"
    assert where(lambda: (A * B).tolist()) == ([x * y for x, y in zip(a, b)], "device")   # bought
    for f in hostrows.ARRAY_FAMILIES:
        hostrows.bought(ctx, f)
    assert clbig.array(a).host_values() is None          # none left to rent: nothing kept
    monkeypatch.setenv("CLBIG_HOST_ROWS", "0")
    ctx.profile.clear("host_first")
    assert clbig.array(a).host_values() is None and where(lambda: (A * 3).tolist())[1] == "device"
    monkeypatch.delenv("CLBIG_HOST_ROWS")
    x = clbig.array(a)
    assert x.host_values() == a
    x.data.fill(0)                       # a buffer handed out may be written: values dropped
    assert x.host_values() is None and (x * 1).tolist() == [0] * len(a)
