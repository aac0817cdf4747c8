"""clbig.mpz.gcd.gcd and clbig.mpz.gcd.invert against Python's math.gcd and pow(a, -1, m): random and
edge values (zeros, ones, equal operands, divisors, powers of two, Fibonacci neighbours, common
factors, m = 1, 2, 3, 2^k, 2^k +- 1, a >= m, no inverse), unequal widths, both storage modes
of the kernel, broadcasting, plain ints, empty batches and every error.

Kernel builds are per (digits, mode, storage): the widths below are few and shared."""
import importlib
import math

import numpy as np
import pytest

import clbig
G = importlib.import_module("clbig.mpz.gcd")   # the module: clbig.gcd is the function
from clbig.mpn import gcd_n
from conftest import BATCH, check_bools, check_values, mask, rand_value

GCD_WIDTHS = [(32, 32), (96, 64), (100, 1000), (1056, 1056)]
INV_BITS = [32, 100, 1056]


def fib_pair(bits: int):
    """The largest Fibonacci neighbours below 2^bits: the worst case of Euclid's algorithm."""
    x, y = 1, 1
    while x + y < 1 << bits:
        x, y = y, x + y
    return y, x


def gcd_pairs(rng, ba: int, bb: int, n: int = 3 * BATCH):
    w = min(ba, bb)
    f1, f0 = fib_pair(w)
    g = rng.getrandbits(max(1, w // 3)) | 1
    x = rng.getrandbits(w)
    edges = [
        (0, 0), (0, 1), (1, 0), (0, mask(bb)), (mask(ba), 0), (1, 1), (x, x), (mask(w), mask(w)),
        (f1, f0), (f0, f1), (1 << (ba - 1), 1 << (bb - 1)), (1 << (ba - 1), mask(bb)),
        (mask(ba), 1 << (bb - 1)), (x & ~1 & mask(ba), (x << 1) & mask(bb)),  # both even
        (x * 3 & mask(ba), x & mask(bb)), (x >> 1, x),           # one divides the other
        (g * (rng.getrandbits(w - g.bit_length()) | 1), g * rng.getrandbits(w - g.bit_length())),
        ((g << 7) & mask(ba), (g << 5) & mask(bb)), (2, 4), (mask(ba), mask(bb) - 1 if bb > 1 else 1),
    ]
    edges = [(u & mask(ba), v & mask(bb)) for u, v in edges]
    pairs = list(edges)
    while len(pairs) < n:
        pairs.append((rand_value(rng, ba), rand_value(rng, bb)))
    rng.shuffle(pairs)
    return pairs


def run_gcd(pairs, ba, bb, what):
    xs, ys = [p[0] for p in pairs], [p[1] for p in pairs]
    r = G.gcd(clbig.array(xs, bits=ba), clbig.array(ys, bits=bb))
    want = [math.gcd(x, y) for x, y in zip(xs, ys)]
    check_values(r.tolist(), want, what, (xs, ys))
    return r, want


@pytest.mark.parametrize("ba,bb", GCD_WIDTHS)
def test_gcd(rng, ba, bb):
    pairs = [(x, y) for x, y in gcd_pairs(rng, ba, bb) if (x and y) or max(x, y) < 1 << min(ba, bb)]
    r, _ = run_gcd(pairs, ba, bb, f"gcd {ba} / {bb} bits")
    assert r.bits == min(ba, bb)


@pytest.mark.parametrize("store", ["private", "global"])
def test_gcd_storage(rng, monkeypatch, store):
    """Both storage modes of the working digits (the defaults pick by size)."""
    monkeypatch.setenv("CLBIG_GCD_STORE", store)
    run_gcd(gcd_pairs(rng, 1056, 1056), 1056, 1056, f"gcd, {store} storage")


def test_gcd_zero_beside_wider(rng):
    """gcd(0, b) = b may not fit min(a.bits, b.bits): the result then takes max(...)."""
    pairs = [(0, mask(1000)), (5, 10), (0, 7), (0, 0)]
    r, want = run_gcd(pairs, 100, 1000, "gcd with a zero beside a wider value")
    assert r.bits == 1000
    r, _ = run_gcd([(0, 7), (6, 9)], 100, 1000, "gcd with a zero, result fits")
    assert r.bits == 100


def test_gcd_rounds_bound(ctx, rng):
    """The kernel's rounds never exceed ceil((2 bitlen - 1) / 30) (Pornin's bound), on its worst
    cases (2^(k-1) against 2^k - 1) and random pairs."""
    bits = 1056
    pairs = [(1 << (bits - 1), mask(bits)), (mask(bits), 1 << (bits - 1)), fib_pair(bits),
             (1, mask(bits)), (mask(bits) - 2, mask(bits))]
    pairs += [(rng.getrandbits(bits), rng.getrandbits(bits) | 1) for _ in range(16)]
    a = clbig.array([p[0] for p in pairs], bits=bits)
    b = clbig.array([p[1] for p in pairs], bits=bits)
    out, st = gcd_n.gcd(ctx, a.data.data, a.m, a.m, b.data.data, b.m, b.m, len(pairs), a.m, bits)
    rounds = st >> 8
    bound = [-(-(2 * max(x.bit_length(), y.bit_length()) - 1) // 30) for x, y in pairs]
    assert (rounds <= np.array(bound)).all(), list(zip(rounds.tolist(), bound))
    assert rounds[0] == bound[0]            # the worst case reaches it


def test_gcd_broadcast_and_ints(rng):
    xs = [rng.getrandbits(96) for _ in range(BATCH)]
    y = 3 * 5 * 7 * 2 ** 40
    check_values(G.gcd(clbig.array(xs, bits=96), y).tolist(), [math.gcd(x, y) for x in xs], "a, int")
    check_values(G.gcd(y, xs).tolist(), [math.gcd(x, y) for x in xs], "int, list")
    check_values(G.gcd(clbig.array([y]), clbig.array(xs)).tolist(), [math.gcd(x, y) for x in xs],
                 "length one, batch")
    assert G.gcd(2 ** 200 * 3, 2 ** 100 * 9) == 2 ** 100 * 3
    assert G.gcd(0, 0) == 0 and G.gcd(0, 17) == 17 and G.gcd(1, 0) == 1
    assert isinstance(G.gcd(12, 18), int)
    import gmpy2
    assert G.gcd(gmpy2.mpz(12), 18) == 6
    assert G.gcd([7], [21]).tolist() == [7]           # a batch of one


def test_gcd_empty_and_errors():
    r = G.gcd(clbig.array([], bits=64), clbig.array([], bits=32))
    assert len(r) == 0 and r.bits == 32
    with pytest.raises(ValueError, match="length mismatch"):
        G.gcd([1, 2, 3], [4, 5])
    with pytest.raises(TypeError):
        G.gcd(1.5, 3)
    with pytest.raises(TypeError, match="element 1"):
        G.gcd([1, True], [1, 2])
    assert G.gcd([4, -2], 2).tolist() == [2, 2]      # magnitudes, as math.gcd


def test_gcd_small_work_groups(rng, small_ctx):
    """Work-groups capped at 8 items: the kernel is built for that size."""
    run_gcd(gcd_pairs(rng, 96, 64), 96, 64, "gcd on 8-item work-groups")


# -- inverse ------------------------------------------------------------------------------------
def expected_inv(x, m):
    try:
        return pow(x, -1, m), True
    except ValueError:
        return 0, False


def moduli(rng, bits: int, n: int, odd: bool):
    special = [1, 3, mask(bits), (1 << (bits - 1)) + 1, mask(bits) - 2, fib_pair(bits)[0] | 1]
    if not odd:
        special = [2, 4, 6, 1 << (bits - 1), mask(bits) - 1, 1 << (bits // 2), 3 << (bits - 2)]
    ms = [v for v in special if 0 < v < 1 << bits]
    while len(ms) < n:
        v = rand_value(rng, bits) or 1
        ms.append(v | 1 if odd else (v & ~1) or 2)
    return ms[:n]


def inv_values(rng, ms, bits_a):
    """For each modulus an a: random (a >= m too), 0, 1, m - 1, m, a multiple of a factor of m
    (no inverse), a Fibonacci neighbour of m."""
    xs = []
    for i, m in enumerate(ms):
        kind = i % 8
        if kind == 0:
            x = 0
        elif kind == 1:
            x = 1
        elif kind == 2:
            x = m - 1
        elif kind == 3:
            x = m if m < 1 << bits_a else 1
        elif kind == 4:                       # shares the factor 3 or 5 with m where m has it
            x = (3 if m % 3 == 0 else 5 if m % 5 == 0 else 7) * rng.getrandbits(bits_a // 2)
        elif kind == 5:
            x = fib_pair(max(2, m.bit_length()))[1]
        else:
            x = rand_value(rng, bits_a)
        xs.append(x & mask(bits_a))
    return xs


def run_inv(xs, ms, ba, bm, what, strict=False):
    a, m = clbig.array(xs, bits=ba), clbig.array(ms, bits=bm)
    r, ok = G.invert(a, m, strict=False)
    want = [expected_inv(x, y) for x, y in zip(xs, ms)]
    check_values(r.tolist(), [w[0] for w in want], what, (xs, ms))
    check_bools(ok, [w[1] for w in want], what + " (ok)")
    assert r.bits == bm
    if strict:
        good = [i for i, w in enumerate(want) if w[1]]
        r = G.invert(clbig.array([xs[i] for i in good], bits=ba), clbig.array([ms[i] for i in good], bits=bm))
        check_values(r.tolist(), [want[i][0] for i in good], what + " strict")
    return ok


@pytest.mark.parametrize("bits", INV_BITS)
def test_invert_odd(rng, bits):
    ms = moduli(rng, bits, 3 * BATCH, odd=True)
    ok = run_inv(inv_values(rng, ms, bits), ms, bits, bits, f"invert mod odd {bits}-bit m", strict=True)
    assert ok.any() and not ok.all()


@pytest.mark.parametrize("store", ["private", "global"])
def test_invert_storage(rng, monkeypatch, store):
    monkeypatch.setenv("CLBIG_GCD_STORE", store)
    ms = moduli(rng, 1056, BATCH, odd=True)
    run_inv(inv_values(rng, ms, 1056), ms, 1056, 1056, f"invert, {store} storage")


@pytest.mark.parametrize("cof", ["1", "2"])
def test_invert_cofactor_schedules(rng, ctx, monkeypatch, cof):
    """Both cofactor schedules (every round; every two rounds, with a round left over where the
    count is odd: both counts are seen) on moduli that fill their 30-bit digits (480 bits = 16
    digits, so the lazy cofactors, up to 2w, need the spare digit), the largest near 2^480."""
    monkeypatch.setenv("CLBIG_GCD_COF", cof)
    bits = 480
    ms = [mask(bits), mask(bits) - 2, mask(bits) - (1 << 32), (1 << bits) - (1 << 240) + 1]
    while len(ms) < 3 * BATCH:
        ms.append(rng.getrandbits(bits) | 1 | 3 << (bits - 2))
    xs = inv_values(rng, ms, bits)
    xs[-6:] = [mask(bits) - 1, 1 << (bits - 1), 2, mask(bits) >> 1, 3, (1 << bits) - 3]
    run_inv(xs, ms, bits, bits, f"invert, 480-bit m, {cof} round(s) per cofactor update")
    a, m = clbig.array(xs, bits=bits), clbig.array(ms, bits=bits)
    _, st = gcd_n.invert(ctx, a.data.data, a.m, a.m, m.data.data, m.m, m.m, len(ms))
    assert {int(r) & 1 for r in st[(st & gcd_n.OK) != 0] >> 8} == {0, 1}


def test_invert_schedule_error(monkeypatch):
    monkeypatch.setenv("CLBIG_GCD_COF", "3")
    with pytest.raises(ValueError, match="CLBIG_GCD_COF must be 1 or 2, not '3'"):
        G.invert([3], [7])


@pytest.mark.parametrize("bits", [32, 100])
def test_invert_even(rng, bits):
    """Even moduli (m = 2, 4, 6, 2^k, random even), alone and mixed with odd ones."""
    ms = moduli(rng, bits, BATCH, odd=False)
    xs = [x | 1 if i % 3 else x for i, x in enumerate(inv_values(rng, ms, bits))]
    run_inv(xs, ms, bits, bits, f"invert mod even {bits}-bit m")
    ms2 = [m if i % 2 else m | 1 for i, m in enumerate(moduli(rng, bits, BATCH, odd=False))]
    run_inv(inv_values(rng, ms2, bits), ms2, bits, bits, f"invert, even and odd {bits}-bit m")


def test_invert_wide_a(rng):
    """a wider than m: reduced first (a >= m for every modulus)."""
    ms = moduli(rng, 100, BATCH, odd=True)[:-2] + [6, 2 ** 64]
    xs = [rng.getrandbits(1000) | 1 << 999 for _ in ms]
    xs[0] = ms[0] * 12345
    run_inv(xs, ms, 1000, 100, "invert, a of 1000 bits mod m of 100")


def test_invert_broadcast_and_ints(rng):
    m = (1 << 127) - 1
    xs = [rng.getrandbits(127) for _ in range(BATCH)]
    r = G.invert(clbig.array(xs, bits=128), m, strict=False)[0]
    check_values(r.tolist(), [expected_inv(x, m)[0] for x in xs], "a batch mod one m")
    ms = [rng.getrandbits(100) | 1 for _ in range(BATCH)]
    r = G.invert(12345, ms, strict=False)[0]
    check_values(r.tolist(), [expected_inv(12345, y)[0] for y in ms], "one a mod a batch")
    for x, y in [(3, 7), (10 ** 30 + 1, 12), (5, 1), (0, 1), (7, 2 ** 64), (2 ** 200 + 1, 2 ** 100 - 1),
                 (1, 2), (4, 2 ** 65 + 1)]:
        assert G.invert(x, y) == pow(x, -1, y), (x, y)
    assert G.invert(2, 8, strict=False) == (0, False)
    assert G.invert(3, 8, strict=False) == (3, True)
    assert G.invert([3], [7]).tolist() == [5]


def test_invert_errors():
    with pytest.raises(ValueError, match="modulus is 0 at index 2"):
        G.invert([1, 2, 3], [5, 7, 0])
    with pytest.raises(ValueError, match="modulus is 0 at index 1"):
        G.invert([1, 2], [5, 0], strict=False)
    with pytest.raises(ValueError, match="modulus is 0 at index 0"):
        G.invert(clbig.array([2 ** 100]), clbig.array([0, 3]))      # the reduction path
    with pytest.raises(ValueError, match="modulus is 0"):
        G.invert(3, 0)
    with pytest.raises(ValueError, match="not invertible .* index 1"):
        G.invert([3, 4, 5], [7, 8, 9])
    with pytest.raises(ValueError, match="not invertible .* index 0"):
        G.invert(6, 9)
    with pytest.raises(ValueError, match="length mismatch"):
        G.invert([1, 2, 3], [5, 7])
    with pytest.raises(TypeError):
        G.invert("3", 7)
    assert G.invert(-3, 7) == pow(-3, -1, 7)          # reduced mod m first, as Python
    with pytest.raises(ValueError, match="negative at index 0"):
        G.invert(3, -7)
    r, ok = G.invert(clbig.array([], bits=32), clbig.array([], bits=64), strict=False)
    assert len(r) == 0 and r.bits == 64 and ok.dtype == np.bool_ and len(ok) == 0


def test_invert_small_work_groups(rng, small_ctx):
    ms = moduli(rng, 100, BATCH, odd=True)
    run_inv(inv_values(rng, ms, 100), ms, 100, 100, "invert on 8-item work-groups")


@pytest.mark.large
def test_large_sizes(rng):
    """8192-bit operands, a few instances."""
    bits = 8192
    pairs = [(rng.getrandbits(bits), rng.getrandbits(bits)) for _ in range(3)] + [fib_pair(bits)]
    g = rng.getrandbits(3000) | 1
    pairs.append((g * rng.getrandbits(bits - 3000), g * rng.getrandbits(bits - 3000)))
    run_gcd(pairs, bits, bits, "gcd 8192 bits")
    ms = [rng.getrandbits(bits) | 1 | 1 << (bits - 1) for _ in range(3)] + [mask(bits)]
    run_inv([rng.getrandbits(bits) for _ in ms], ms, bits, bits, "invert 8192 bits")
