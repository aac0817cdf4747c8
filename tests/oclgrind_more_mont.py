"""Montgomery kernels under Oclgrind (run by tests/oclgrind_cases.py): kernels_cl/mont.cl.mako's
mulmod and powmod on tiny batches, in both shapes and the power-of-two mode.

  * one work-item per instance (C = 1): odd moduli with a per-instance and a shared exponent,
    the table in global memory, a zero digit skipped; a padding instance in the last group;
    squares by mont_sqr (the default at these sizes) and by CIOS (CLBIG_MONT_SQR=0);
  * a small batch spread over Q_SMALL-limb items (CLBIG_MONT_FILL makes it small: 2 x 9);
  * C = 2 items of Q = 8 limbs (CLBIG_MONT_ONE=1 forces it on 3-limb moduli): the one-barrier
    iteration, the carry and borrow scans, per-instance and shared exponents, mulmod;
  * even moduli: the pow2 kernel (the low half collected from the shifted-out limbs) in both
    shapes, joined with the odd part by CRT;
  * C = 3 on 4-item work-groups (the small context): one instance per group;
  * m and the multiplicand in local memory (CLBIG_MONT_MLOC / _BLOC), one item and C = 2,
    with an even modulus (the power-of-two kernel's multiplicand too);
  * operands staged once per group (the group's copy, then one barrier): one modulus for the
    batch (an int), with per-instance exponents (C = 2: their words staged per instance,
    as in the cases above by default) and one shared exponent (staged), mulmod; one item and
    C = 2, C = 2 on 4-item groups (two groups, the copy of each group's own instances), and
    with the staging switched off (CLBIG_MONT_MSHARED / _ESHARED = 0: the global reads);
  * products of powers (multipow): k = 2 on one item with per-row moduli (zero digits
    skipped) and one modulus for the batch (staged), k = 3 with one modulus on C = 2, zero and one exponents, bases 0, m - 1 and m.
Every result is checked against Python's pow.
"""
from __future__ import annotations

import random

import clbig
from clbig.mpz import modular
from oclgrind_env import call_with, env

RNG = random.Random(20261124)


def _case(ctx, check, tag, bits, n, shared_e=False, even=False):
    ms = [(1 << bits) - 1, 1, 3] + [RNG.getrandbits(bits) | 1 | (1 << (bits - 1)) for _ in range(n - 3)]
    if even:
        ms[1:3] = [1 << (bits - 1), (RNG.getrandbits(bits - 40) | 1) << 39]
    av = [ms[0] - 1, 5, 0] + [RNG.getrandbits(bits + 5) for _ in range(n - 3)]
    ev = 0x1F0F if shared_e else [0, 0xFFFF, 1] + [RNG.getrandbits(16) for _ in range(n - 3)]
    evl = [ev] * n if shared_e else ev
    with ctx:
        r = modular.powmod(av, ev, ms)
        check(f"{tag} powmod", r, [pow(a, e, m) for a, e, m in zip(av, evl, ms)], bits)
        r = modular.mulmod(av, evl, ms)
        check(f"{tag} mulmod", r, [a * e % m for a, e, m in zip(av, evl, ms)], bits)


def _shared_m_case(ctx, check, tag, bits, n):
    """One modulus (a Python int) for the batch: per-instance exponents, one exponent, mulmod."""
    m = RNG.getrandbits(bits) | 1 | (1 << (bits - 1))
    av = [m - 1, 0, m] + [RNG.getrandbits(bits) for _ in range(n - 3)]
    ev = [0, 0xFFFF, 1] + [RNG.getrandbits(16) for _ in range(n - 3)]
    with ctx:
        r = modular.powmod(av, ev, m)
        check(f"{tag} powmod", r, [pow(a, e, m) for a, e in zip(av, ev)], bits)
        r = modular.powmod(av, 0x1F0F, m)
        check(f"{tag} powmod shared e", r, [pow(a, 0x1F0F, m) for a in av], bits)
        r = modular.mulmod(av, ev, m)
        check(f"{tag} mulmod", r, [a * e % m for a, e in zip(av, ev)], bits)


def _multi_case(ctx, check, tag, bits, n, k, shared_m):
    """clbig.multi_powmod by the int32 kernel's chain of squares (multipow)."""
    ms = [RNG.getrandbits(bits) | 1 | (1 << (bits - 1)) for _ in range(1 if shared_m else n)] * (n if shared_m else 1)
    B = [[ms[0] - 1] * k, [0] + [5] * (k - 1), [ms[2]] * k] + [[RNG.getrandbits(bits + 3) for _ in range(k)]
                                                            for _ in range(n - 3)]
    E = [[(1 << 40) - 1] * k, [0] * k, [1] + [0] * (k - 1)] + [[RNG.getrandbits(40) for _ in range(k)]
                                                              for _ in range(n - 3)]
    want = []
    for row, er, m in zip(B, E, ms):
        r = 1
        for b, e in zip(row, er):
            r = r * pow(b, e, m) % m
        want.append(r)
    with ctx:
        check(f"{tag} products of powers", clbig.multi_powmod(B, E, ms[0] if shared_m else ms), want, bits)


COOP = {"CLBIG_MONT_ONE": "1", "CLBIG_MONT_Q": "8"}
UNSTAGED = {"CLBIG_MONT_MSHARED": "0", "CLBIG_MONT_ESHARED": "0"}
LOC = {"CLBIG_MONT_MLOC": "1", "CLBIG_MONT_BLOC": "1"}


def run(wide_ctx, small_ctx, guarded, check, values):
    with env(CLBIG_MONT_FP64="0"):     # the int32 kernel's cases (mont52's: oclgrind_more_mont52)
        _run(wide_ctx, small_ctx, guarded, check)


def _run(wide_ctx, small_ctx, guarded, check):
    guarded("mont one item", _case, wide_ctx, check, "mont one item", 96, 5)
    guarded("mont one item shared e", _case, wide_ctx, check, "mont one item shared e", 64, 3, True)
    guarded("mont one item even", _case, wide_ctx, check, "mont one item even", 96, 4, False, True)
    guarded("mont one item cios sqr", call_with, {"CLBIG_MONT_SQR": "0"}, _case, wide_ctx, check,
            "mont one item cios sqr", 96, 4)
    guarded("mont small batch", call_with, {"CLBIG_MONT_FILL": "100000"}, _case, wide_ctx, check,
            "mont small batch", 544, 3)
    guarded("mont coop", call_with, COOP, _case, wide_ctx, check, "mont coop", 96, 3)
    guarded("mont coop shared e", call_with, COOP, _case, wide_ctx, check, "mont coop shared e", 96, 3, True)
    guarded("mont coop even", call_with, COOP, _case, wide_ctx, check, "mont coop even", 96, 3, False, True)
    guarded("mont coop small-wg", call_with, COOP, _case, small_ctx, check, "mont coop small-wg", 544, 3)
    guarded("mont one item loc", call_with, LOC, _case, wide_ctx, check, "mont one item loc", 96, 4, False, True)
    guarded("mont coop loc", call_with, {**COOP, **LOC}, _case, wide_ctx, check, "mont coop loc", 96, 4, False, True)
    guarded("mont shared m one item", _shared_m_case, wide_ctx, check, "mont shared m one item", 64, 5)
    guarded("mont shared m coop", call_with, COOP, _shared_m_case, wide_ctx, check, "mont shared m coop", 96, 3)
    guarded("mont shared m coop small-wg", call_with, COOP, _shared_m_case, small_ctx, check,
            "mont shared m coop small-wg", 96, 3)
    guarded("mont multipow one item", _multi_case, wide_ctx, check, "mont multipow one item", 96, 5, 2, False)
    guarded("mont multipow one item shared m", _multi_case, wide_ctx, check, "mont multipow one item shared m",
            64, 5, 2, True)
    guarded("mont multipow coop shared m", call_with, COOP, _multi_case, wide_ctx, check,
            "mont multipow coop shared m", 96, 4, 3, True)
    guarded("mont coop unstaged", call_with, {**COOP, **UNSTAGED}, _shared_m_case, wide_ctx, check,
            "mont coop unstaged", 96, 3)
