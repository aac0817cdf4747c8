"""The loop kernels of the CPUs' first tier (kernels_cl/mont_loop.cl.mako: every width at run
time, one item per instance, its scratch row in global memory) under Oclgrind (run by
tests/oclgrind_cases.py), taken for every call with CLBIG_TIERS=first (runtime.tiers;
Oclgrind is a CPU device): mulmod and powmod with per-instance and shared exponents (zero,
one, all-ones digits), moduli 1, 3 and all-ones, even moduli beside them (their rows by CRT),
one modulus for the batch, products of k = 2 and 3 powers; on 4-item groups (the small
context) several groups with padding items. The cases are oclgrind_more_mont's, every result
checked against Python's pow. Also the loop division (div_loop.cl.mako: the operands' reduction
mod m, and quotients by one-limb, longer and shorter divisors) and the inverse with run-time
digits (gcd.cl.mako RT)."""
from __future__ import annotations

import clbig
from oclgrind_env import env
from oclgrind_more_mont import RNG, _case, _multi_case, _shared_m_case


def _div_inv_case(ctx, check, tag):
    u = [(1 << 100) - 1, 12345, 7, RNG.getrandbits(100), RNG.getrandbits(100)]
    v = [3, (1 << 64) + 5, 1 << 70, RNG.getrandbits(40) | 1, (1 << 95) + 1]
    m = [(1 << 64) - 59, 3, 1, RNG.getrandbits(90) | 1, RNG.getrandbits(64) | 1]
    with ctx:
        q, r = clbig.divmod(clbig.array(u), clbig.array(v))
        check(f"{tag} quotients", q, [a // b for a, b in zip(u, v)])
        check(f"{tag} remainders", r, [a % b for a, b in zip(u, v)])
        a = [x % y for x, y in zip(u, m)]
        got = clbig.invert(clbig.array(a), clbig.array(m), strict=False)[0]
        want = [pow(x, -1, y) if y > 1 and __import__("math").gcd(x, y) == 1 else 0 for x, y in zip(a, m)]
        check(f"{tag} inverses", got, want)


def run(wide_ctx, small_ctx, guarded, check, values):
    with env(CLBIG_TIERS="first", CLBIG_MONT_FP64="0"):
        guarded("loop", _case, wide_ctx, check, "loop", 96, 5)
        guarded("loop shared e", _case, wide_ctx, check, "loop shared e", 64, 3, True)
        guarded("loop even", _case, wide_ctx, check, "loop even", 96, 4, False, True)
        guarded("loop small-wg", _case, small_ctx, check, "loop small-wg", 160, 7)
        guarded("loop shared m", _shared_m_case, wide_ctx, check, "loop shared m", 64, 5)
        guarded("loop multipow 2", _multi_case, wide_ctx, check, "loop multipow 2", 96, 5, 2, False)
        guarded("loop multipow 3 shared m", _multi_case, small_ctx, check, "loop multipow 3 shared m",
                64, 6, 3, True)
        guarded("loop division and inverse", _div_inv_case, wide_ctx, check, "loop division and inverse")
        guarded("loop division small-wg", _div_inv_case, small_ctx, check, "loop division small-wg")
