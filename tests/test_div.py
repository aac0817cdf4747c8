"""Division (a // b, a % b, divmod, clbig.divmod) against gmpy2, and the inverse against the model.

Sizes reuse conftest's lists (each (a.bits, b.bits, batch length) is a set of kernel builds: the
Newton steps alone build about eight kernels per precision level, the basecase one per divisor
shape). The width tests run both algorithms forced; the API tests run "auto". Within one batch
the divisors have very different lengths, since every element is normalized on its own. The
basecase kernel's own edges (estimate, add-back, slow path, shapes) are in test_div_basecase.py.
"""
import random

import gmpy2
import numpy as np
import pytest
from hypothesis import given, strategies as st

import clbig
from clbig.mpn import div_q
from clbig.mpz import ops
from conftest import BATCH, SMALL_CTX_BITS, WIDTH_PAIRS, check_values, edge_values, mask, rand_value

B = 1 << 32
POW2_DIV = [(2 ** 10, 2 ** 9), (2 ** 14, 2 ** 13)]      # dividend and divisor of half its size
SMALL_DIV = [(SMALL_CTX_BITS[4], SMALL_CTX_BITS[2]), (SMALL_CTX_BITS[2], SMALL_CTX_BITS[4])]  # 4128 / 1056
LARGE_DIV_BITS = 2 ** 20


# -- values ---------------------------------------------------------------------------------
def divisor_value(rng, bb):
    """A non-zero divisor below 2**bb: random of any length, powers of the base and of two and
    their neighbours (just below / above B^k), one limb, all ones, limb patterns."""
    kind = rng.randrange(8)
    if kind <= 1:
        v = rand_value(rng, bb)
    elif kind == 2:
        v = rng.getrandbits(rng.randint(1, bb))
    elif kind == 3:                                 # B^k + {-1, 0, 1}
        k = rng.randrange(0, -(-bb // 32))
        v = B ** k + rng.choice((-1, 0, 1))
    elif kind == 4:                                 # 2^k + small, 2^k - small
        k = rng.randrange(bb)
        v = (1 << k) + rng.choice((-3, -1, 0, 1, 2))
    elif kind == 5:
        v = rng.getrandbits(min(32, bb))
    elif kind == 6:
        v = mask(rng.randint(1, bb))
    else:
        v = rng.choice(edge_values(bb))
    v = v & mask(bb)
    return v if v > 0 else 1 + rng.getrandbits(min(bb, 8)) % max(1, mask(bb))


def dividend_for(rng, v, ba):
    """A dividend below 2**ba for divisor v: random, exact multiples and their neighbours
    (c*v, c*v - 1, c*v + v - 1), v itself, the maximum, zero."""
    top = mask(ba)
    kind = rng.randrange(8)
    if kind <= 2:
        return rand_value(rng, ba)
    c = rng.randint(1, max(1, top // v)) if v <= top else 0
    u = {3: c * v, 4: c * v - 1, 5: c * v + v - 1, 6: v, 7: rng.choice((top, 0, 1, top - 1))}[kind]
    return u if 0 <= u <= top else rand_value(rng, ba)


def div_pairs(rng, ba, bb, n=BATCH):
    edges = [(mask(ba), 1), (0, 1), (0, mask(bb)), (mask(ba), mask(bb)), (1, mask(bb)),
             (mask(ba), min(mask(bb), B - 1)), (mask(ba), 1 << (bb - 1))]
    w = min(ba, bb)
    y = max(1, rng.getrandbits(w))
    edges += [(y, y), (y - 1, y), (mask(ba) // y * y, y)]
    pairs = edges[:n]
    while len(pairs) < n:
        v = divisor_value(rng, bb)
        pairs.append((dividend_for(rng, v, ba), v))
    rng.shuffle(pairs)
    return pairs


# -- checking -------------------------------------------------------------------------------
def expected(xs, ys):
    qr = [gmpy2.f_divmod(gmpy2.mpz(x), y) for x, y in zip(xs, ys)]
    return [q for q, _ in qr], [r for _, r in qr]


def run_div(pairs, ba, bb, what, algorithm=None, **kw):
    """Divide as arrays of capacities ba, bb (with divmod_arrays when an algorithm or a test
    hook is given, else the builtin divmod) and compare quotient and remainder with gmpy2."""
    xs, ys = [p[0] for p in pairs], [p[1] for p in pairs]
    a, b = clbig.array(xs, bits=ba), clbig.array(ys, bits=bb)
    stats = {}
    if algorithm or kw:
        q, r = ops.divmod_arrays(a, b, len(pairs), a.m, b.m, algorithm=algorithm or "auto",
                                   stats=stats, **kw)
        assert algorithm in (None, "auto", stats["algorithm"])
    else:
        q, r = divmod(a, b)
    assert (q.bits, r.bits) == (ba, bb), f"{what}: capacities {q.bits}, {r.bits}, expected {ba}, {bb}"
    assert len(q) == len(r) == len(pairs)
    eq, er = expected(xs, ys)
    check_values(q.tolist(), eq, what + ": quotient", (xs, ys))
    check_values(r.tolist(), er, what + ": remainder", (xs, ys))
    check_values(a.tolist(), xs, what + ": dividend modified")
    check_values(b.tolist(), ys, what + ": divisor modified")
    return stats


def device_inverse(ys, bb, mu, start=None):
    b = clbig.array(ys, bits=bb)
    lens = div_q.bitlen(b.ctx, b.data.data, b.m, b.m, len(ys))
    w = div_q.inverse(b.ctx, b.data.data, b.m, b.m, len(ys), lens, mu, start=start)
    return clbig.BigIntArray(b.ctx, w, 32 * w.shape[1]).tolist()


def over_estimate(v, mu, mv):
    """reference_inverse(v) - floor(B^(K+mu+1) / v^): 0, or 1 where the inverse over-estimates."""
    K = max(mv, 2)
    vh = v << (32 * K - v.bit_length())
    return div_q.reference_inverse(v, mu, mv) - B ** (K + mu + 1) // vh


# -- sizes ------------------------------------------------------------------------------------
ALGOS = ["newton", "basecase"]


@pytest.mark.parametrize("algorithm", ALGOS)
@pytest.mark.parametrize("ba,bb", WIDTH_PAIRS)
def test_div_widths(rng, ba, bb, algorithm):
    run_div(div_pairs(rng, ba, bb), ba, bb, f"divmod {ba} / {bb} bits, {algorithm}", algorithm)


@pytest.mark.parametrize("algorithm", ALGOS)
@pytest.mark.parametrize("ba,bb", POW2_DIV)
def test_div_pow2(rng, ba, bb, algorithm):
    run_div(div_pairs(rng, ba, bb), ba, bb, f"divmod {ba} / {bb} bits, {algorithm}", algorithm)


@pytest.mark.parametrize("ba,bb", SMALL_DIV)
def test_div_multi_group(rng, small_ctx, ba, bb):
    """Work-groups of at most 8 items: the products, sums and comparisons inside Newton's
    division take their multi-work-group paths."""
    run_div(div_pairs(rng, ba, bb), ba, bb, f"divmod {ba} / {bb} bits, small work-groups", "newton")


@pytest.mark.parametrize("algorithm", ALGOS)
def test_div_mixed_divisor_lengths(rng, algorithm):
    """One batch, one capacity, divisors from 1 bit to beyond the dividend: each element is
    normalized by its own bit length."""
    ba = bb = 1056
    lengths = [1, 2, 31, 32, 33, 63, 64, 65, 96, 200, 500, 527, 528, 529, 1000, 1055, 1056]
    ys = [rng.getrandbits(k) | (1 << (k - 1)) for k in lengths] + [B, B ** 2 - 1, B ** 32 + 1, B ** 16]
    xs = [rng.getrandbits(ba) for _ in ys]
    xs[-5] = ys[-5] - 1                     # quotient 0: divisor larger than the dividend
    xs[-6] = ys[-6]                         # quotient 1, remainder 0
    run_div(list(zip(xs, ys)), ba, bb, f"mixed divisor lengths, {algorithm}", algorithm)


@pytest.mark.parametrize("algorithm", ALGOS)
def test_div_base_powers(rng, algorithm):
    """Divisors B^k, B^k - 1, B^k + 1, 2^k, 2^k - 1 of every length against full dividends."""
    ba = bb = 1056
    ys = [y for k in (1, 2, 5, 16, 31, 32) for y in (B ** k - 1, B ** k + 1)]
    ys += [1, 2, 3, B - 1, B, 2 ** 1055, 2 ** 1056 - 1, B ** 16, 2 ** 999 - 1]
    assert len(ys) == BATCH
    xs = [mask(ba) if i % 3 else rng.getrandbits(ba) for i in range(len(ys))]
    run_div(list(zip(xs, ys)), ba, bb, f"powers of the base, {algorithm}", algorithm)


# -- the inverse and the quotient correction ------------------------------------------------------
@pytest.mark.parametrize("ba,bb,start", [(100, 1000, 1), (1056, 1056, 1), (1056, 1056, 3),
                                         (1056, 1056, None), (2 ** 14, 2 ** 13, None)])
def test_inverse_matches_model(rng, ba, bb, start):
    """The device's Newton iteration gives exactly the integers of the pure-Python model, from
    level 1 (inv_init), from a schoolbook first iterate (start 3: level 3 of 34; default: all
    34 levels at 1056 bits, level 33 then 4 steps to 513 at 2^14 bits)."""
    ys = [p[1] for p in div_pairs(rng, ba, bb)]
    mu, mv = -(-ba // 32), -(-bb // 32)
    check_values(device_inverse(ys, bb, mu, start), [div_q.reference_inverse(y, mu, mv, start=start) for y in ys],
                 f"inverse {ba} / {bb} from {start}", (ys,))


def _tail_model(z, w, p, j, J):
    """What div_q._tail computes, from the Newton step's own definition (step 2)."""
    width = p + 2 * j + 1
    num = (z + (w << (32 * (p + j))) - (w << (32 * p))) % B ** width
    return num >> (32 * (p + 2 * j - J))


def _tail_hits(z, w, p, j, q=4):
    """Chunk boundaries (chunks of q limbs of T + w B^j + ~w + 1) where a carry of 2 enters a
    chunk whose own sum is all ones or all ones but B - 2 at the bottom: the carry maps'
    rarest entries (blocks/arith.mako add3_chunk)."""
    ml, hits, carry = 2 * j + 1, 0, 1
    lim = [((z >> (32 * (p + l))) % B, (w >> (32 * (l - j))) % B if l >= j else 0,
            ~(w >> (32 * l)) % B if l <= j else B - 1) for l in range(ml)]
    for k in range(0, ml, q):
        chunk = lim[k:k + q]
        own, h = [], 0
        for x, y, c in chunk:
            t = x + y + c + h
            own.append(t % B)
            h = t >> 32
        if carry == 2 and own[1:] == [B - 1] * (len(own) - 1) and own[0] >= B - 2:
            hits += 1
        for x, y, c in chunk:
            carry = (x + y + c + carry) >> 32
    return hits


def _tail_limb(rng):
    return rng.choice((0, 1, B - 2, B - 1, B - 1, B - 1, rng.getrandbits(32)))


@pytest.mark.parametrize("small", [False, True])
@pytest.mark.parametrize("p,j,J,n", [(3, 1, 2, 1), (6, 5, 9, 7), (34, 33, 65, 3), (130, 129, 257, 5),
                                     (2050, 2049, 4097, 2)])
def test_newton_tail(rng, request, small, p, j, J, n):
    """The fused tail of a Newton step (one scan, carries of 0..2 between chunks) equals its
    definition on structured operands: limbs of 0, 1, B - 2 and B - 1 make long carry chains,
    carries of 2 and all-ones chunks; both one-group plans and (small work-groups, or 4099
    limbs) the two-kernel multi-group path; odd batches; w with a wider stride than its
    j + 1 limbs. Batches of more than two chunks (Q = 4) must reach the rarest carry-map
    entries, or the test fails."""
    ctx = request.getfixturevalue("small_ctx" if small else "ctx")
    width, sw = p + 2 * j + 1, j + 3
    zs, ws, hits = [], [], 0
    for _ in range(max(n, 3 if width > 1000 else 300 if width > 100 else 400)):
        z = sum(_tail_limb(rng) << (32 * i) for i in range(width))
        w = sum(_tail_limb(rng) << (32 * i) for i in range(j + 1))
        zs.append(z), ws.append(w)
        hits += _tail_hits(z, w, p, j)
    if 8 < 2 * j + 1 and width < 1000:
        assert hits, "no carry of 2 into an all-ones chunk: the batch tests too little"
    za = clbig.array(zs, bits=32 * width, ctx=ctx).data
    wa = clbig.array(ws, bits=32 * sw, ctx=ctx).data
    got = div_q._tail(ctx, za, p, wa, j, J, len(zs))
    assert got.shape == (len(zs), J + 1)
    check_values(clbig.BigIntArray(ctx, got, 32 * (J + 1)).tolist(),
                 [_tail_model(z, w, p, j, J) for z, w in zip(zs, ws)], f"newton tail {p} {j} {J}", (zs, ws))


@pytest.mark.parametrize("tail", ["fused", "parts"])
def test_inverse_tail_paths(rng, monkeypatch, tail):
    """Newton's inverse gives the model's integers whether a step's tail is the fused scan or
    the five operations it replaced (CLBIG_DIV_TAIL=parts; also where no plan fits)."""
    if tail == "parts":
        monkeypatch.setenv("CLBIG_DIV_TAIL", "parts")
    ba, bb = 2 ** 14, 2 ** 13
    ys = [p[1] for p in div_pairs(rng, ba, bb)]
    mu, mv = ba // 32, bb // 32
    check_values(device_inverse(ys, bb, mu), [div_q.reference_inverse(y, mu, mv) for y in ys],
                 f"inverse {ba} / {bb}, tail {tail}", (ys,))


def test_start_levels():
    """The first iterate's level: the highest planned level within the limit, with the Newton
    steps after it; level 1 keeps the whole iteration."""
    assert div_q.start_level(513, 256, 64) == (33, 34)
    assert [s[:2] for s in div_q.schedule(513, 256, 64)] == [(33, 65), (65, 129), (129, 257), (257, 513)]
    assert div_q.start_level(513, 20, 64) == (33, 20)        # a prefix no longer than v^
    assert div_q.start_level(34, 33, 64) == (34, 33) and div_q.schedule(34, 33, 64) == []
    assert div_q.start_level(5, 2, 1) == (1, 2) and div_q.schedule(5, 2)[0] == (1, 2, 2)


def test_over_estimated_inverse(rng):
    """Divisors just above a power of two, longer than the prefixes of the last Newton step:
    the inverse comes out one too large (the paper's rare over-estimate), and the quotients
    are still exact, with no downward correction (the guard limb absorbs it)."""
    ba, bb = 100, 1000                               # the last step uses a 6-limb prefix of 32
    mu, mv = 4, 32
    ys = [v for v in ((1 << k) + d for k in range(193, 1000, 37) for d in (1, 2, 3))
          if over_estimate(v, mu, mv) == 1][:BATCH]
    assert len(ys) == BATCH
    check_values(device_inverse(ys, bb, mu), [div_q.reference_inverse(y, mu, mv) for y in ys],
                 "over-estimated inverse", (ys,))
    xs = [dividend_for(rng, y, ba) for y in ys]
    stats = run_div(list(zip(xs, ys)), ba, bb, "over-estimated inverse", "newton")
    assert stats["down"] == 0


def test_model_error_bounds():
    """The model on small bases (B = 16, 256), where the error terms are largest: every inverse
    within (-1, 2) of B^(K+nf)/v^ and every first quotient u//v or u//v - 1."""
    rng = random.Random(7)
    for lb in (4, 8):
        base = 1 << lb
        for _ in range(1500):
            mu, mv = rng.randint(1, 24), rng.randint(1, 24)
            vb = lb * mv
            v = rng.choice([rng.getrandbits(vb), (1 << rng.randrange(vb)) + rng.randint(0, 3),
                            mask(rng.randint(1, vb)), rng.getrandbits(rng.randint(1, vb))])
            v = min(max(v, 1), mask(vb))
            K, nf, L = max(mv, 2), mu + 1, v.bit_length()
            vh = v << (lb * K - L)
            for start in (1, 3, 6):                     # first iterates from inv_init and schoolbook
                w = div_q.reference_inverse(v, mu, mv, limb_bits=lb, start=start)
                e = base ** (K + nf) - w * vh           # e / vh is the error of the inverse
                assert -vh < e < 2 * vh, (lb, mu, mv, v, start)
            w = div_q.reference_inverse(v, mu, mv, limb_bits=lb, start=1)
            for u in (rng.getrandbits(lb * mu), (mask(lb * mu) // v) * v, mask(lb * mu)):
                q0 = (u * w) >> (lb * nf + L)
                assert u // v - q0 in (0, 1), (lb, mu, mv, u, v)
            # the shorter inverse of full-length batches (nf from the shortest divisor): the
            # first quotient may then also be one too large, never further off
            nf = div_q.fraction_limbs(mu, L, lb)
            w = div_q.reference_inverse(v, mu, mv, limb_bits=lb, nf=nf, start=rng.choice((1, 4)))
            e = base ** (K + nf) - w * vh
            assert -vh < e < 2 * vh, (lb, mu, mv, v, nf)
            for u in (rng.getrandbits(lb * mu), (mask(lb * mu) // v) * v, (mask(lb * mu) // v) * v - 1,
                      mask(lb * mu)):
                q0 = (u * w) >> (lb * nf + L)
                assert u // v - q0 in (-1, 0, 1), (lb, mu, mv, u, v, nf)


def test_short_inverse_near_multiples(rng):
    """Full-length divisors take the short inverse (nf = mu - mv + 1 limbs); dividends just
    below, at and above multiples of v, where a first quotient one off in either direction
    is corrected on the device."""
    ba, bb = 2048, 1024
    ys = [rng.getrandbits(bb) | (1 << (bb - 1)) for _ in range(BATCH)]
    pairs = []
    for i, y in enumerate(ys):
        k = rng.getrandbits(ba - bb) | 1
        pairs.append((k * y + (i % 3) - 1, y))
    assert div_q.fraction_limbs(64, bb) == 33
    run_div(pairs, ba, bb, "short inverse near multiples", "newton")


def test_correction_up(rng):
    """Exact multiples: the first quotient is one short (the inverse is below B^h/v) and the
    device adds one where needed."""
    ba, bb = 1056, 1056
    ys = [divisor_value(rng, 600) for _ in range(BATCH)]
    xs = [rng.randint(1, mask(ba) // y) * y for y in ys]
    stats = run_div(list(zip(xs, ys)), ba, bb, "exact multiples", "newton")
    assert stats["up"] > 0 and stats["down"] == 0


def test_newton_reads_twice(rng, ctx, monkeypatch):
    """A Newton division waits for the device twice when no correction is needed: the divisors'
    bit lengths, then the borrow of u - q v and compare(r, v) read together."""
    ba, bb = 1056, 1056
    ys = [divisor_value(rng, 600) | 1 << 599 for _ in range(BATCH)]
    xs = [rng.getrandbits(ba) for _ in ys]
    a, b = clbig.array(xs, bits=ba), clbig.array(ys, bits=bb)
    stats = {}
    ops.divmod_arrays(a, b, len(xs), a.m, b.m, algorithm="newton", stats=stats)   # kernels built
    reads = []
    for name in ("get", "get_many"):
        real = getattr(ctx, name)
        monkeypatch.setattr(ctx, name, lambda *x, _r=real, _n=name, **k: reads.append(_n) or _r(*x, **k))
    q, r = ops.divmod_arrays(a, b, len(xs), a.m, b.m, algorithm="newton", stats=stats)
    assert (stats["down"], stats["up"]) == (0, 0) and reads == ["get", "get_many"]
    check_values(q.tolist(), [x // y for x, y in zip(xs, ys)], "quotients")
    check_values(r.tolist(), [x % y for x, y in zip(xs, ys)], "remainders")


def test_correction_down(rng):
    """A first quotient forced one too large everywhere: the downward branch fixes it."""
    ba, bb = 1056, 1056
    stats = run_div(div_pairs(rng, ba, bb), ba, bb, "quotient + 1", "newton", q_offset=1)
    assert stats["down"] > 0


@pytest.mark.parametrize("offset", [B - 3, -(B - 3)])
def test_theorem_slack(rng, offset):
    """The one-step bound holds for any inverse error below one limb: an inverse pushed up by
    B - 3 never needs a correction, one pushed down by B - 3 only ever needs +1."""
    ba, bb = 1056, 1056
    pairs = div_pairs(rng, ba, bb)
    stats = run_div(pairs, ba, bb, f"inverse {offset:+d}", "newton", w_offset=offset)
    if offset > 0:
        assert (stats["down"], stats["up"]) == (0, 0)
    else:
        assert stats["down"] == 0 and stats["up"] > 0


def test_unverified_result_is_never_returned(rng):
    """A quotient two short cannot be fixed within the proven one step: RuntimeError, no result."""
    ba, bb = 1056, 1056
    ys = [divisor_value(rng, 600) for _ in range(BATCH)]
    xs = [rng.randint(2, max(2, mask(ba) // y)) * y for y in ys]
    a, b = clbig.array(xs, bits=ba), clbig.array(ys, bits=bb)
    with pytest.raises(RuntimeError, match="internal error"):
        ops.divmod_arrays(a, b, BATCH, a.m, b.m, algorithm="newton", q_offset=-1)


# -- API: operators, broadcasting, Python ints, errors -------------------------------------------
def test_operators(rng):
    ba, bb = 96, 64
    pairs = div_pairs(rng, ba, bb)
    xs, ys = [p[0] for p in pairs], [p[1] for p in pairs]
    a, b = clbig.array(xs, bits=ba), clbig.array(ys, bits=bb)
    eq, er = expected(xs, ys)
    check_values((a // b).tolist(), eq, "a // b", (xs, ys))
    check_values((a % b).tolist(), er, "a % b", (xs, ys))
    q, r = divmod(a, b)
    check_values(q.tolist(), eq, "divmod(a, b)[0]", (xs, ys))
    check_values(r.tolist(), er, "divmod(a, b)[1]", (xs, ys))
    q, r = clbig.divmod(a, b)
    check_values(q.tolist() + r.tolist(), eq + er, "clbig.divmod(a, b)", (xs, ys))
    check_values(clbig.floordiv(a, b).tolist(), eq, "clbig.floordiv", (xs, ys))
    check_values(clbig.mod(a, b).tolist(), er, "clbig.mod", (xs, ys))
    check_values((xs // b).tolist(), eq, "list // b", (xs, ys))


def test_broadcast_divisor(rng):
    """One divisor for a whole batch: a length-one array, a Python int, an mpz."""
    ba = 160
    xs = [rand_value(rng, ba) for _ in range(BATCH)]
    a = clbig.array(xs, bits=ba)
    for y in (0xFFFFFFFB, 7, 1):
        for d in (clbig.array([y], bits=32), y, gmpy2.mpz(y)):
            q, r = divmod(a, d)
            # a plain int takes its own bit length as capacity (docs/semantics.rst)
            rb = 32 if isinstance(d, clbig.BigIntArray) else max(1, y.bit_length())
            assert (q.bits, r.bits, len(q), len(r)) == (ba, rb, BATCH, BATCH)
            check_values(q.tolist(), [x // y for x in xs], f"a // {y}", (xs,))
            check_values(r.tolist(), [x % y for x in xs], f"a % {y}", (xs,))
    y = rng.getrandbits(1000) | 1 << 999                # a long broadcast divisor
    b = clbig.array([y], bits=1000)
    a = clbig.array([rng.getrandbits(1056) for _ in range(BATCH - 2)] + [y - 1, y], bits=1056)
    xs = a.tolist()
    q, r = divmod(a, b)
    check_values(q.tolist(), [x // y for x in xs], "a // one long divisor", (xs,))
    check_values(r.tolist(), [x % y for x in xs], "a % one long divisor", (xs,))


def test_broadcast_dividend(rng):
    """One dividend (a Python int) over a batch of divisors."""
    bb = 64
    ys = [divisor_value(rng, bb) for _ in range(BATCH)]
    b = clbig.array(ys, bits=bb)
    x = rng.getrandbits(96)
    for u in (x, gmpy2.mpz(x), clbig.array([x], bits=96)):
        q, r = divmod(u, b)
        assert len(q) == len(r) == BATCH and r.bits == bb
        check_values(q.tolist(), [x // y for y in ys], "int // b", (ys,))
        check_values(r.tolist(), [x % y for y in ys], "int % b", (ys,))
    check_values((x // b).tolist(), [x // y for y in ys], "x // b (__rfloordiv__)", (ys,))
    check_values((x % b).tolist(), [x % y for y in ys], "x % b (__rmod__)", (ys,))


def test_python_ints():
    """Two plain integers (or mpz): ints back, computed on the device."""
    cases = [(10 ** 30 + 7, 12345), (2 ** 127, 3 ** 20), (gmpy2.mpz(10) ** 38, gmpy2.mpz(7) ** 11),
             (2 ** 96 - 1, 2 ** 32 + 1), (2 ** 64, 2 ** 32), (7, 2 ** 100), (0, 5), (5, 5)]
    for x, y in cases:
        q, r = clbig.divmod(x, y)
        assert type(q) is int and type(r) is int
        assert (q, r) == divmod(int(x), int(y)), (x, y)
        assert clbig.floordiv(x, y) == int(x) // int(y)
        assert clbig.mod(x, y) == int(x) % int(y)


@pytest.mark.parametrize("algorithm", ["auto"] + ALGOS)
def test_algorithm_keyword(rng, algorithm):
    """clbig.divmod / floordiv / mod take the algorithm; plain ints too."""
    ba, bb = 96, 64
    pairs = div_pairs(rng, ba, bb)
    xs, ys = [p[0] for p in pairs], [p[1] for p in pairs]
    a, b = clbig.array(xs, bits=ba), clbig.array(ys, bits=bb)
    eq, er = expected(xs, ys)
    q, r = clbig.divmod(a, b, algorithm=algorithm)
    check_values(q.tolist() + r.tolist(), eq + er, f"clbig.divmod(a, b, {algorithm})", (xs, ys))
    check_values(clbig.floordiv(a, b, algorithm=algorithm).tolist(), eq, "floordiv", (xs, ys))
    check_values(clbig.mod(a, b, algorithm=algorithm).tolist(), er, "mod", (xs, ys))
    if algorithm != "newton":          # (Newton's kernels for one instance are other builds)
        x, y = 2 ** 95 + 12345, 2 ** 33 + 7
        assert clbig.divmod(x, y, algorithm=algorithm) == divmod(x, y)


def test_algorithm_errors():
    a, b = clbig.array([7, 8]), clbig.array([2, 3])
    with pytest.raises(ValueError, match="unknown division algorithm 'schoolbook'"):
        clbig.divmod(a, b, algorithm="schoolbook")
    with pytest.raises(ValueError, match="Newton path only"):
        ops.divmod_arrays(a, b, 2, a.m, b.m, algorithm="basecase", q_offset=1)


def test_auto_choice(rng, monkeypatch):
    """auto: basecase for short quotients; Newton once the quotient is longer than
    SERIAL_STEPS limbs (the constant forced here), and the basecase again just below it."""
    ba, bb = 96, 64
    stats = run_div(div_pairs(rng, ba, bb), ba, bb, "auto, small", "auto")
    assert stats["algorithm"] == "basecase"
    monkeypatch.setattr(div_q, "SERIAL_STEPS", 1)    # 96 / 64 bits: quotients of 2 limbs
    stats = run_div(div_pairs(rng, ba, bb), ba, bb, "auto, long quotients", "auto")
    assert stats["algorithm"] == "newton"
    monkeypatch.setattr(div_q, "SERIAL_STEPS", 2)
    stats = run_div(div_pairs(rng, ba, bb), ba, bb, "auto, at the limit", "auto")
    assert stats["algorithm"] == "basecase"


@pytest.mark.parametrize("algorithm", ["auto"] + ALGOS)
def test_empty_batch(algorithm):
    a, b = clbig.array([]), clbig.array([], bits=64)
    q, r = clbig.divmod(a, b, algorithm=algorithm)
    assert (len(q), len(r), q.bits, r.bits) == (0, 0, 32, 64)


@pytest.mark.parametrize("ys,idx", [([1, 2, 3, 0, 5, 0], 3), ([0], 0), ([0, 1], 0), ([5, 0], 1),
                                    # past the first work-groups of the length kernel, which
                                    # reports one least length per group (256 items at most)
                                    ([1] * 700 + [0] + [1] * 99 + [0], 700),
                                    ([3] * 511 + [0], 511), ([2] * 256 + [0] * 3, 256)])
def test_zero_divisor(ys, idx):
    """ZeroDivisionError names the first zero divisor, whichever algorithm was asked for.
    Newton runs nothing but the length check; the schoolbook kernel (these sizes' "auto") is
    queued before the check's read, so that the device does not wait for the host, and its
    output is dropped."""
    a = clbig.array([7] * len(ys))
    b = clbig.array(ys, bits=64)
    for op, kernels in ((lambda: a // b, 2), (lambda: a % b, 2), (lambda: divmod(a, b), 2),
                        (lambda: clbig.divmod(a, b), 2),
                        (lambda: clbig.divmod(a, b, algorithm="basecase"), 2),
                        (lambda: clbig.divmod(a, b, algorithm="newton"), 1)):
        with clbig.profile() as prof, pytest.raises(ZeroDivisionError, match=rf"index {idx}\b"):
            op()
        assert prof.kernels == kernels
    with pytest.raises(ZeroDivisionError, match=r"index 0\b"):
        a // 0
    with pytest.raises(ZeroDivisionError, match=r"index 0\b"):
        clbig.divmod(12, 0)


def test_bad_operands():
    a = clbig.array([1, 2, 3])
    with pytest.raises(ValueError, match="length mismatch"):
        a // clbig.array([1, 2])
    assert (a // -3).tolist() == [1 // -3, 2 // -3, 3 // -3]    # signed: Python's floor
    with pytest.raises(TypeError):
        a // 2.5


# -- properties -----------------------------------------------------------------------------
PROP_WIDTHS = [(96, 64), (64, 96), (160, 32)]   # shared with test_div_widths' kernels


@st.composite
def div_operands(draw):
    ba, bb = draw(st.sampled_from(PROP_WIDTHS))
    val = lambda bits, lo: st.one_of(
        st.integers(lo, mask(bits)), st.integers(1, bits).map(lambda k: max(lo, mask(k))),
        st.integers(0, bits - 1).map(lambda k: 1 << k))
    ys = draw(st.lists(val(bb, 1), min_size=BATCH, max_size=BATCH))
    xs = draw(st.lists(val(ba, 0), min_size=BATCH, max_size=BATCH))
    return ba, bb, xs, ys


@given(div_operands())
def test_div_property(ops):
    """q*v + r == u and 0 <= r < v, through the library's own multiplication and comparison."""
    ba, bb, xs, ys = ops
    a, b = clbig.array(xs, bits=ba), clbig.array(ys, bits=bb)
    q, r = divmod(a, b)
    check_values((q * b + r).tolist(), xs, "q*v + r", (xs, ys))
    assert (r < b).all()
    check_values(q.tolist(), [x // y for x, y in zip(xs, ys)], "q", (xs, ys))


# -- large ----------------------------------------------------------------------------------
@pytest.mark.large
def test_div_2_20_bits(rng):
    bits = LARGE_DIV_BITS
    x = rng.getrandbits(bits) | 1 << (bits - 1)
    y = rng.getrandbits(bits // 2 + 77) | 1 << (bits // 2 + 76)
    run_div([(x, y)], bits, bits, f"divmod {bits} / {bits // 2 + 77} bits", "newton")
