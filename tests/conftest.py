"""Shared fixtures and helpers for the clbig test suite.

Every expected value is computed on the host with gmpy2 / Python ints; the library's own results
are never used as a reference.

Cost model: every new kernel specialisation (operand widths, batch length class, work-group cap)
costs about a second of PoCL compile, so the suite shares one default context and one
small-work-group context for the whole session and draws widths and batch lengths from the short
lists below. Reuse them in new tests rather than inventing new sizes.

Environment: clbig's settings (`python -m clbig info --settings`; CLBIG_DEVICE chooses the
device of the session contexts, as for clbig.Context), and the test suite's own variables:
  CLBIG_TEST_SEED         base seed of the per-test random.Random (default 20240601).
  CLBIG_HYPOTHESIS_PROFILE "ci" (default: few examples, derandomized) or "thorough".
  CLBIG_STRESS_SCALE      multiplies tests/test_stress.py's operation counts (default 1).
  CLBIG_NOTEBOOK_SMALL    set to 1 by tests/test_notebooks.py: the notebooks pick small sizes.
  CLBIG_NOTEBOOK_TIMEOUT  seconds per notebook cell (tests/test_notebooks.py, default 600).
  CLBIG_OCLGRIND_ICD      Oclgrind's ICD library (tests/test_oclgrind.py).
  CLBIG_TEST_EXPECT_PLATFORM  the OpenCL platform every context must be on (tests/test_ci_device.py;
                          .ci/run's pass on Intel's runtime sets it).
Markers:
  large  operands of 2^20 bits and more; they run by default (deselect with -m "not large").
"""
from __future__ import annotations

import os
import random

import gmpy2
import pytest
from hypothesis import HealthCheck, settings

import clbig

# -- sizes reused across the suite (each one is a kernel specialisation) ----------------------
BATCH = 21                    # default batch length: odd, > 1
POW2_ADD = [2 ** k for k in range(6, 19)]   # add / sub / compare: 2^6 .. 2^18 bits
POW2_MUL = [2 ** k for k in range(6, 17)]   # mul: 2^6 .. 2^16 bits
# (a.bits, b.bits): unequal sizes, one limb, odd limb counts, widths that are not limb multiples.
WIDTH_PAIRS = [
    (1, 1), (7, 33), (32, 32), (96, 64), (64, 96), (100, 1000), (160, 32), (32, 2048),
    (1056, 1056),
]
# Work-group cap for the small context: one work-group then holds at most 8 items of Q limbs
# (32 limbs at Q = 4, 128 at Q = 16), so these widths straddle the single/multi work-group
# boundary cheaply whichever Q the launch plan picks, up to many groups per instance.
SMALL_WG = 8
SMALL_CTX_BITS = [992, 1024, 1056, 4096, 4128, 2 ** 14]
LARGE_ADD_BITS = 2 ** 21 + 32 * 3   # "2^20+" case for add / sub / compare (odd limb count)
LARGE_MUL_BITS = 2 ** 20

BASE_SEED = int(os.environ.get("CLBIG_TEST_SEED", "20240601"))
# Tiny powmod batches of host values run on the host with gmpy2 by default on GPUs: the suite
# tests the kernels, so it keeps every row on the device unless a test says otherwise
# (test_modular.py tests the host path and the default).
os.environ.setdefault("CLBIG_POWMOD_HOST_ROWS", "0")
# The same for the number theory's few rows of plain ints (clbig.mpz.hostrows);
# test_numtheory.py tests the host path against the device's.
os.environ.setdefault("CLBIG_HOST_ROWS", "0")
# On CPUs auto runs classical products in the lanes kernel (mpn/mul_fp64.lanes_plan). CI has
# only CPUs, so the suite keeps the GPUs' product kernels under test by default; test_mul.py
# tests the lanes kernel forced and auto's CPU path (products, division, powers) with it on.
os.environ.setdefault("CLBIG_MUL52_LANES", "0")
# Likewise additions (one item per instance on CPUs: mpn/add_n.serial); test_addsub.py tests
# that kernel forced.
os.environ.setdefault("CLBIG_ADD_SERIAL", "0")
# And each width's own kernels from its first call (runtime.tiers: on CPUs the first calls at a
# width would run the forms with run-time widths); test_tiers.py tests those and the switch.
os.environ.setdefault("CLBIG_TIERS", "off")

settings.register_profile(
    "ci", max_examples=25, deadline=None, derandomize=True, database=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
settings.register_profile(
    "thorough", max_examples=300, deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
settings.load_profile(os.environ.get("CLBIG_HYPOTHESIS_PROFILE", "ci"))


def pytest_configure(config):
    config.addinivalue_line(
        "markers", "large: operands of 2^20 bits or more; run by default, deselect with -m 'not large'")


# -- contexts -------------------------------------------------------------------------------
@pytest.fixture(scope="session", autouse=True)
def ctx():
    """The session's default context (CLBIG_DEVICE or the default device), made current for
    every test so that clbig.array and the operators all share its compiled kernels."""
    c = clbig.Context()
    with c:
        yield c


@pytest.fixture(scope="session")
def small_ctx_obj():
    return clbig.Context(max_work_group_size=SMALL_WG)


@pytest.fixture
def small_ctx(small_ctx_obj):
    """A context whose work-groups hold at most SMALL_WG items, current for the test."""
    with small_ctx_obj:
        yield small_ctx_obj


@pytest.fixture
def rng(request):
    """A random.Random seeded from the base seed and the test id: reproducible per test."""
    return random.Random(f"{BASE_SEED}:{request.node.nodeid}")


# -- value generation -----------------------------------------------------------------------
def mask(bits: int) -> int:
    return (1 << bits) - 1


def limb_pattern(rng: random.Random, bits: int) -> int:
    """A value built limb by limb from carry-relevant limbs (all ones, zero, one, top bit)."""
    choices = (0xFFFFFFFF, 0xFFFFFFFF, 0, 1, 0x80000000, 0x7FFFFFFF)
    v = 0
    for j in range(-(-bits // 32)):
        limb = rng.choice(choices) if rng.random() < 0.8 else rng.getrandbits(32)
        v |= limb << (32 * j)
    return v & mask(bits)


def rand_value(rng: random.Random, bits: int) -> int:
    """A random value below 2**bits, biased towards carry and borrow chains."""
    kind = rng.randrange(8)
    if kind <= 2:
        return rng.getrandbits(bits)
    if kind == 3:      # random length
        return rng.getrandbits(rng.randint(1, bits))
    if kind == 4:      # a run of ones somewhere: 2^j - 2^i
        i = rng.randrange(bits)
        j = rng.randint(i, bits)
        return mask(j) ^ mask(i)
    if kind == 5:      # sparse
        v = 0
        for _ in range(rng.randint(1, 4)):
            v |= 1 << rng.randrange(bits)
        return v
    if kind == 6:
        return limb_pattern(rng, bits)
    return rng.choice(edge_values(bits))


def edge_values(bits: int) -> list[int]:
    """0, 1, the maximum, 2^k and 2^k - 1 at limb boundaries, and limb patterns, below 2**bits."""
    vals = {0, 1, mask(bits), 1 << (bits - 1), mask(bits - 1)}
    for k in (31, 32, 33, 63, 64, 65, bits // 2, bits - 32, bits - 33):
        if 0 < k < bits:
            vals.update((1 << k, mask(k)))
    alt = sum(0xFFFFFFFF << (64 * j) for j in range(-(-bits // 64)))   # ones, zero, ones, ...
    vals.update((alt & mask(bits), ~alt & mask(bits)))
    vals.add(mask(bits) ^ min(0xFFFFFFFF, mask(bits)))                 # all ones but limb 0
    return sorted(vals)


def _fill(pairs, rng, n, gen):
    pairs = list(pairs)[:n]
    while len(pairs) < n:
        pairs.append(gen())
    rng.shuffle(pairs)
    return pairs


def add_pairs(rng, ba: int, bb: int, n: int = BATCH):
    """n pairs (x < 2^ba, y < 2^bb), the first ones carry chains and edges, the rest random."""
    w = min(ba, bb)
    x = rng.getrandbits(w)
    edges = [
        (mask(ba), 1), (1, mask(bb)), (mask(ba), mask(bb)), (0, 0), (0, mask(bb)), (mask(ba), 0),
        (x, mask(w) ^ x),            # all propagate, no carry out of w bits
        (x | 1, (mask(w) ^ x) + 1 if (mask(w) ^ x) + 1 <= mask(bb) else 1),
        (mask(ba // 2 or 1), 1), (1 << (ba - 1), 1 << (bb - 1)),
        (limb_pattern(rng, ba), limb_pattern(rng, bb)),
    ]
    return _fill(edges, rng, n, lambda: (rand_value(rng, ba), rand_value(rng, bb)))


def sub_pairs(rng, ba: int, bb: int, n: int = BATCH):
    """n pairs (x < 2^ba, y < 2^bb) with x >= y: borrow chains and edges, then random."""
    w = min(ba, bb)
    edges = [
        (mask(ba), min(mask(ba), mask(bb))), (mask(ba), 1 if bb else 0), (1 << (ba - 1), 1),
        (1 << (w - 1), mask(w - 1)) if w > 1 else (1, 1), (0, 0), (1, 0), (1, 1),
        (mask(ba) ^ 0xFFFFFFFF if ba > 32 else 1, 1),
    ]
    if ba > 33:
        edges.append((1 << 33, min(mask(33), mask(bb))))
    y = rng.getrandbits(w)
    edges.append((y, y))

    def gen():
        x, y = rand_value(rng, ba), rand_value(rng, bb)
        if y > x:
            if y <= mask(ba) and x <= mask(bb):
                x, y = y, x
            else:
                y = rng.randint(0, x)
        return x, y
    return _fill(edges, rng, n, gen)


def cmp_pairs(rng, ba: int, bb: int, n: int = BATCH):
    """n pairs for comparison: equal, off by one, differing only in the top or low limb."""
    w = min(ba, bb)
    x = rng.getrandbits(w) | 1
    xm = x & ~1
    edges = [
        (x, x), (x, xm), (xm, x), (0, 0), (0, 1), (1, 0), (mask(w), mask(w)),
        (mask(ba), mask(bb)), (1 << (w - 1), mask(w - 1)), (mask(w - 1), 1 << (w - 1)),
        (x ^ (1 << (w - 1)), x), (mask(ba), 0), (0, mask(bb)),
    ]
    return _fill(edges, rng, n, lambda: (rand_value(rng, ba), rand_value(rng, bb)))


# -- checking -------------------------------------------------------------------------------
def short(v: int) -> str:
    v = int(v)
    if v.bit_length() <= 256:
        return hex(v)
    return f"<{v.bit_length()}-bit value, low 64 bits {v & mask(64):#x}, top 64 bits {v >> (v.bit_length() - 64):#x}>"


def check_values(got, expected, what: str = "", operands=()):
    """Compare two lists of ints and report only the first mismatch, briefly (values can be
    megabits long). `operands` are lists of the inputs, shown for the failing index."""
    got = [int(v) for v in got]
    expected = [int(v) for v in expected]
    if len(got) != len(expected):
        pytest.fail(f"{what}: got {len(got)} results, expected {len(expected)}")
    bad = [i for i, (g, e) in enumerate(zip(got, expected)) if g != e]
    if bad:
        i = bad[0]
        diff = got[i] ^ expected[i]
        ops = "; ".join(f"operand {k} = {short(col[i] if len(col) > 1 else col[0])}"
                        for k, col in enumerate(operands))
        pytest.fail(
            f"{what}: {len(bad)} of {len(got)} results wrong, first at index {i}: got {short(got[i])}, "
            f"expected {short(expected[i])}; differing bits {diff.bit_length() - 1}.."
            f"{(diff & -diff).bit_length() - 1}; {ops}")


def check_bools(got, expected, what: str = ""):
    import numpy as np
    got = np.asarray(got)
    assert got.dtype == np.bool_, f"{what}: expected a numpy bool array, got dtype {got.dtype}"
    expected = np.asarray(expected, dtype=bool)
    assert got.shape == expected.shape, f"{what}: shape {got.shape}, expected {expected.shape}"
    bad = np.nonzero(got != expected)[0]
    if len(bad):
        pytest.fail(f"{what}: {len(bad)} wrong, first at index {bad[0]}: got {got[bad[0]]}, "
                    f"expected {expected[bad[0]]}")


def mpz_list(values):
    return [gmpy2.mpz(v) for v in values]


def in_threads(work, n: int) -> None:
    """work(i) for i in range(n), each in a thread of its own, all at once; after they all
    end, the first exception one of them raised is raised here (a thread's exception would
    otherwise only be printed)."""
    import threading
    raised = []

    def run(i):
        try:
            work(i)
        except BaseException as e:   # noqa: BLE001 - raised again below
            raised.append(e)
    ts = [threading.Thread(target=run, args=(i,)) for i in range(n)]
    for t in ts:
        t.start()
    for t in ts:
        t.join()
    if raised:
        raise raised[0]
