"""Schoolbook (basecase) division against gmpy2: its quotient limb estimate, its add-back and
slow paths, its two kernel shapes, padding, broadcasting, and where it cannot run.

Shapes (clbig.mpn.div_basecase.shape): divisors up to 15 limbs run one work-item per instance
(C = 1); longer ones C work-items of Q limbs (17 up to a 68-limb window, then 33). The `coop` fixture lowers both limits
(CLBIG_DIVBC_SINGLE=4, CLBIG_DIVBC_Q=8) so that small operands take the cooperative kernel:
cheap to build and run, with its slow path (remainders full of zero limbs) and groups with
padding instances easy to reach. Each kernel reports per instance how many steps took the slow
path and how many added back (stats), so the tests can insist that each path ran.
"""
import random

import numpy as np
import pyopencl.array as cla
import pytest

import clbig
from clbig.mpn import div_basecase
from clbig.mpn import div_q
from clbig.runtime.render import kernel, launch
from conftest import BATCH, SMALL_CTX_BITS, check_values, mask
from test_div import div_pairs, expected, run_div

B = 1 << 32


@pytest.fixture
def coop(monkeypatch):
    """Cooperative shapes for small divisors: 4 window limbs at most on one work-item, 8 per
    work-item beyond (mv = 8..15 limbs: C = 2; mv = 33: C = 5)."""
    monkeypatch.setenv("CLBIG_DIVBC_SINGLE", "4")
    monkeypatch.setenv("CLBIG_DIVBC_Q", "8")


def limbs(*ls):
    """An int from limbs, least significant first."""
    return sum(x << (32 * i) for i, x in enumerate(ls))


def addback_pair(rng, mv, t):
    """(u, v) where the 3-by-2 estimate of quotient limb t is one too large: v's top two limbs
    D and a large rest, the window there qhat * D * B^(mv-2) + (less than B). The estimate
    (from the top limbs only) is qhat, the true limb qhat - 1."""
    d = rng.randrange(B * B // 2, B * B)
    v = d * B ** (mv - 2) + B ** (mv - 2) - 1 - rng.randrange(B ** (mv - 3))
    x = rng.randrange(2, B) * d * B ** (mv - 2) + rng.randrange(B)
    return x * B ** t + rng.getrandbits(32 * t), v


def addback_pairs(rng, mv, n=BATCH):
    pairs = [addback_pair(rng, mv, rng.randrange(4)) for _ in range(n - 3)]
    v = pairs[0][1]
    pairs += [(v * B ** 3 - 1, v), (v * B - 1, v), (v * (B - 1), v)]   # all-ones quotients: the
    return pairs                                                        # top limbs equal v's


# -- the estimate ---------------------------------------------------------------------------
def model_3by2(n2, n1, n0, d1, d0, lb):
    """The kernel's div_inv and div_3by2 (blocks/div.mako) on lb-bit limbs, operation by operation."""
    b, m1, m2 = 1 << lb, (1 << lb) - 1, (1 << 2 * lb) - 1
    if (n2, n1) == (d1, d0):
        return m1
    D = d1 * b + d0
    r, dinv = m2 - D, 0
    for _ in range(lb):
        top, r, dinv = r >> (2 * lb - 1), ((r << 1) | 1) & m2, dinv << 1
        if top or r >= D:
            r, dinv = (r - D) & m2, dinv | 1
    t = (n2 * dinv + ((n2 << lb) | n1)) & m2
    q, q0 = t >> lb, t & m1
    r = (((((n1 - d1 * q) & m1) << lb) | n0) - D - d0 * q) & m2
    q = (q + 1) & m1
    mask_ = m1 if (r >> lb) >= q0 else 0
    q, r = (q + mask_) & m1, (r + (D & ((mask_ << lb) | mask_))) & m2
    return (q + 1) & m1 if r >= D else q


def test_estimate_model_exhaustive():
    """On 4-bit limbs, every (n2 n1 n0) below (d1 d0) * B and every normalized (d1 d0): the
    estimate is floor((n2 n1 n0) / (d1 d0)), and B - 1 where (n2 n1) == (d1 d0)."""
    b = 16
    for D in range(b * b // 2, b * b):
        for N in range(D * b):
            assert model_3by2(N >> 8, (N >> 4) & 15, N & 15, D >> 4, D & 15, 4) == N // D, (N, D)
        assert model_3by2(D >> 4, D & 15, 7, D >> 4, D & 15, 4) == b - 1


def test_knuth_model_one_addback():
    """Knuth's Algorithm D with that estimate (on 8-bit limbs, where its errors are largest):
    per step the estimate is never low and at most one high, so one add-back always suffices;
    and u = v * B^k - 1 takes the (n2 n1) == (d1 d0) branch, whose B - 1 is exact."""
    rng = random.Random(11)
    lb, b = 8, 256
    hist = [0, 0]
    for _ in range(3000):
        k = rng.randint(2, 6)
        v = rng.getrandbits(lb * k) | 1 << (lb * k - 1)
        u = rng.choice([rng.randrange(v * b ** 4), v * b ** 3 - 1, v * rng.getrandbits(lb * 3)])
        r, q = u >> (lb * 4), 0                 # the window starts below v: u < v * B^4
        for j in range(3, -1, -1):
            w = r * b + ((u >> (lb * j)) & (b - 1))
            top = w >> (lb * (k - 2))
            est = model_3by2(top >> 2 * lb, (top >> lb) % b, top % b, v >> lb * (k - 1),
                             (v >> lb * (k - 2)) % b, lb)
            assert est - w // v in (0, 1), (u, v, j)
            hist[est - w // v] += 1
            q, r = q * b + w // v, w % v
        assert (q, r) == divmod(u, v)
    assert hist[1] > 0


def test_estimate_on_device(ctx, rng):
    """The kernel's estimate on the device against exact division: random windows, exact
    multiples and their neighbours, the extremes of d, and the (n2 n1) == (d1 d0) case."""
    cases = []
    for _ in range(4000):
        D = rng.choice([rng.randrange(B * B // 2, B * B), B * B // 2, B * B - 1, B * B // 2 + 1,
                        (B - 1) * B, (B // 2) * B + B - 1])
        N = rng.choice([rng.randrange(D * B), D * B - 1, 0, rng.randrange(B) * D,
                        rng.randrange(1, B) * D - 1, D * B - rng.randrange(1, B)])
        cases.append((N >> 64, (N >> 32) % B, N % B, D >> 32, D % B))
        if rng.random() < 0.05:
            cases.append((D >> 32, D % B, rng.getrandbits(32), D >> 32, D % B))
    x = cla.to_device(ctx.queue, np.array(cases, dtype=np.uint32))
    q = cla.empty(ctx.queue, (len(cases),), np.uint32)
    k = kernel(ctx, "div.cl.mako", "div_3by2_cases", KERNEL="div_3by2", MA=0, MR=0, WG=0)
    launch(ctx, k, -(-len(cases) // 64), 64, x.data, q.data, np.uint32(len(cases)))
    want = [B - 1 if (n2, n1) == (d1, d0) else ((n2 << 64) + (n1 << 32) + n0) // ((d1 << 32) + d0)
            for n2, n1, n0, d1, d0 in cases]
    check_values(q.get().tolist(), want, "3-by-2 estimate", (cases,))


# -- add-back, the slow path, shapes -------------------------------------------------------------
def run_bc(pairs, ba, bb, what):
    stats = run_div(pairs, ba, bb, what, "basecase")
    assert len(stats["slow"]) == len(pairs)
    return stats


@pytest.mark.parametrize("mv", [3, 5, 15])
def test_addback_one_item(rng, mv):
    """One work-item per instance (C = 1): the constructed estimates one too large add back."""
    stats = run_bc(addback_pairs(rng, mv), 32 * (mv + 5), 32 * mv, f"add-back, {mv} limbs")
    assert stats["plan"]["C"] == 1 and stats["addback"].sum() >= BATCH - 3


@pytest.mark.parametrize("mv", [9, 33])
def test_addback_cooperative(rng, coop, mv):
    """C work-items per instance: the add-back goes through the slow path (scan, add v^)."""
    stats = run_bc(addback_pairs(rng, mv), 32 * (mv + 5), 32 * mv, f"add-back, {mv} limbs, coop")
    assert stats["plan"]["C"] > 1 and stats["addback"].sum() >= BATCH - 3
    assert (stats["slow"] >= stats["addback"]).all()


def classic_pairs():
    """Knuth's and Hacker's Delight's hard cases (16-bit limb examples scaled to 32 bits): an
    estimate from two limbs two too large, add-backs, a multiply-subtract whose top looks negative."""
    top = 0x80000000
    return [
        (limbs(0, 0, top, 0x7FFFFFFF), limbs(1, 0, top)),
        (limbs(0, 0xFFFFFFFE, top), limbs(0xFFFFFFFF, top)),
        (limbs(3, 0, top), limbs(1, 0, 0x20000000)),
        (limbs(3, 0, 0x8000), limbs(1, 0, 0x2000)),
        (limbs(0, 0, 0x8000, 0x7FFF), limbs(1, 0, 0x8000)),
        (limbs(0, 0, top, 0x7FFFFFFF, 5), limbs(1, 0, top)),
        (limbs(0x89AB, 0x4567, 0x123), limbs(0, 1)),
        (limbs(0, top), limbs(1, 0x40000000)),
        (limbs(0xFFFFFFFF, 0xFFFFFFFF), limbs(0xFFFFFFFF, 0xFFFFFFFF)),
        (limbs(0xFFFFFFFF, 0xFFFFFFFF), limbs(0, 1)),
        (limbs(0x7899, 0xBCDE), limbs(0x789A, 0xBCDE)),
    ]


@pytest.mark.parametrize("shape", ["one item", "coop"])
def test_classic_cases(request, shape):
    if shape == "coop":
        request.getfixturevalue("coop")
    pairs = classic_pairs()
    pairs += [(u * B ** 9 + 12345, v * B ** 6 + 1) for u, v in pairs]   # the same, longer divisors
    run_bc(pairs, 32 * 14, 32 * 9, f"classic cases, {shape}")


def zero_rich_pairs(rng, ba, bb, n=BATCH):
    """Divisors and dividends made of few set limbs: the remainder's chunks are mostly zero
    limbs, which the cooperative kernel must resolve by its slow path."""
    m = bb // 32
    pairs = []
    for i in range(n):
        v = B ** (m - 1) * rng.randrange(1, B) + rng.choice((1, B - 1, B ** (m // 2)))
        u = rng.choice([B ** (ba // 32) - 1, B ** (ba // 32 - 1), v * B ** 3 + 1,
                        B ** (ba // 32 - 1) + B ** 3, v * (B ** 4 - 1)])
        pairs.append((u & mask(ba), v))
    return pairs


def test_slow_path(rng, coop):
    ba, bb = 32 * 24, 32 * 12                       # C = 2
    stats = run_bc(zero_rich_pairs(rng, ba, bb), ba, bb, "zero-rich remainders, coop")
    assert stats["plan"]["C"] == 2 and stats["slow"].sum() > 0


def test_slow_path_default_shape(rng):
    ba, bb = 2048, 1024                             # the default shape of 32 limbs: C = 2
    stats = run_bc(zero_rich_pairs(rng, ba, bb), ba, bb, "zero-rich remainders, default C = 2")
    assert stats["plan"]["C"] == 2 and stats["slow"].sum() > 0


@pytest.mark.parametrize("ba,bb", [(96, 1056), (1056, 96), (2048, 1056), (4096, 2048)])
def test_shapes(rng, ba, bb):
    """Default shapes: one item per instance up to 16 window limbs, C = 2 at 33 limbs, C = 4 at
    64; divisors
    longer than the dividend (quotient 0), random and structured values."""
    run_bc(div_pairs(rng, ba, bb), ba, bb, f"basecase {ba} / {bb} bits")


@pytest.mark.parametrize("ba,bb", [(1056, 1056), (1056, 300), (300, 1056), (64, 300)])
def test_coop_sizes(rng, coop, ba, bb):
    """The cooperative kernel on the general value mix, divisors of 1 limb to beyond the dividend."""
    run_bc(div_pairs(rng, ba, bb), ba, bb, f"basecase {ba} / {bb} bits, coop")


@pytest.mark.parametrize("n", [1, 5, 21])
def test_batch_lengths(rng, coop, n):
    """C = 2 and up to 32 instances per group (1, 8, 32 here): odd batches leave padding
    instances in the last group, which must neither store nor change the group's path."""
    ba, bb = 32 * 20, 32 * 10
    pairs = addback_pairs(rng, 10, n) if n > 3 else div_pairs(rng, ba, bb, n)
    run_bc(pairs, ba, bb, f"batch of {n}, coop")


@pytest.mark.parametrize("stage", [0, 1])
@pytest.mark.parametrize("ba,bb,n", [(512, 256, BATCH), (1024, 512, 5), (96, 64, 1), (320, 32, 21),
                                     (200, 480, 3)])
def test_staged_rows(rng, monkeypatch, stage, ba, bb, n):
    """One item per instance with the group's rows staged in local memory (CLBIG_DIVBC_STAGE=1,
    the GPU default) and without (the CPU default): padding rows in the last group, one-limb
    divisors, divisors longer than the dividend, add-backs, broadcast divisors."""
    monkeypatch.setenv("CLBIG_DIVBC_STAGE", str(stage))
    pairs = div_pairs(rng, ba, bb, n) if n < 5 or bb < 64 else addback_pairs(rng, bb // 32, n)
    stats = run_bc(pairs, ba, bb, f"basecase {ba} / {bb} bits, stage={stage}")
    assert stats["plan"]["C"] == 1 and stats["plan"]["STAGE"] == bool(stage)
    xs = [rng.getrandbits(ba) for _ in range(n)]
    y = rng.getrandbits(bb) | 1 << (bb - 1)
    q, r = clbig.divmod(clbig.array(xs, bits=ba), y, algorithm="basecase")
    check_values(q.tolist() + r.tolist(), [x // y for x in xs] + [x % y for x in xs], "staged, one v")


# -- broadcasting, ints, errors, small work-groups -----------------------------------------------
@pytest.mark.parametrize("shape", ["one item", "coop"])
def test_broadcast(rng, request, shape):
    if shape == "coop":
        request.getfixturevalue("coop")
    ba, bb = 640, 320
    xs = [rng.getrandbits(ba) for _ in range(BATCH)]
    y = rng.getrandbits(bb) | 1 << (bb - 1)
    a = clbig.array(xs, bits=ba)
    q, r = clbig.divmod(a, clbig.array([y], bits=bb), algorithm="basecase")
    check_values(q.tolist() + r.tolist(), [x // y for x in xs] + [x % y for x in xs], "a / one v")
    ys = [p[1] for p in div_pairs(rng, bb, bb)]
    x = rng.getrandbits(ba)
    q, r = clbig.divmod(x, clbig.array(ys, bits=bb), algorithm="basecase")
    check_values(q.tolist() + r.tolist(), [x // y for y in ys] + [x % y for y in ys], "one u / b")


def test_python_ints():
    for x, y in [(10 ** 30 + 7, 12345), (2 ** 300 - 1, 2 ** 100 + 1), (7, 2 ** 100), (0, 3),
                 (2 ** 96, 2 ** 64 - 1)]:
        assert clbig.divmod(x, y, algorithm="basecase") == divmod(x, y)


def test_small_work_groups(rng, small_ctx):
    """Work-groups of at most 8 items: a 129-limb divisor (4 items of 33 limbs) still runs."""
    ba, bb = SMALL_CTX_BITS[2], SMALL_CTX_BITS[4]                        # 1056 / 4128 bits
    stats = run_bc(div_pairs(rng, ba, bb), ba, bb, "basecase on small work-groups")
    assert stats["plan"]["C"] == 4


def test_does_not_fit(rng, small_ctx, coop):
    """With 8 limbs per item a 129-limb divisor needs 17 items: forcing the basecase raises
    ValueError (before any kernel runs), auto divides by Newton, exactly."""
    ba, bb = SMALL_CTX_BITS[2], SMALL_CTX_BITS[4]
    a, b = clbig.array([5], bits=ba), clbig.array([3], bits=bb)
    with clbig.profile() as prof, pytest.raises(ValueError, match="cannot run .* 17 work-items"):
        clbig.divmod(a, b, algorithm="basecase")
    assert prof.kernels == 0
    stats = run_div(div_pairs(rng, ba, bb), ba, bb, "auto where the basecase cannot run", "auto")
    assert stats["algorithm"] == "newton"
