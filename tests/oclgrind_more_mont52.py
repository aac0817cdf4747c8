"""The FP64 Montgomery kernels (kernels_cl/mont52.cl.mako's mulmod52 and powmod52) under
Oclgrind (run by tests/oclgrind_cases.py), forced on with CLBIG_MONT_FP64=1: per-instance and
shared exponents, a padding instance in the last group, even moduli beside them (their rows by
CRT), one modulus for the batch (in registers, and staged once per group with
CLBIG_MONT52_MSHARED=1: the copy's barrier, padding items staying for it), and m's digits in
local memory (CLBIG_MONT52_MLOC=1); the
cooperative powmod52c (mont52_coop.cl.mako: an instance over several items, one barrier per
row, the table's global fence) with 2 items of 2 digits (m in registers, and in local memory
with CLBIG_MONT52_COOP_MREG=0) and, on 4-item groups, 2 of 3; its squares by
mont52_sqr_coop (CLBIG_MONT52_COOP_SQR=1) as 2 items of 2 digits, and 3 of 2 on small groups. The
cases are oclgrind_more_mont's, every result checked against Python's pow (mulmod, which has
no cooperative kernel, goes to the int32 one there). The two forms of mont52_powm: a fixed base
(fixtab52's table, fixpow52's rows; with m staged, zero digits multiply by T[j][0]) and products
of powers (multipow52: K tables per instance, one chain of squares; squares by mont52_sqr too)."""
from __future__ import annotations

import clbig
from clbig.mpz import modular
from oclgrind_env import call_with
from oclgrind_more_mont import RNG, _case, _shared_m_case

FP64 = {"CLBIG_MONT_FP64": "1"}
COOP = {**FP64, "CLBIG_MONT52_COOP": "1", "CLBIG_MONT52_NMAX": "1", "CLBIG_MONT52_SMAX": "2"}


def _forms_case(ctx, check, tag, bits, n):
    """A fixed base (the rows threshold lowered to n) and products of k = 2 powers, a padding
    instance in the last group."""
    m = RNG.getrandbits(bits) | 1 | (1 << (bits - 1))
    g = RNG.getrandbits(bits + 3)
    ev = [0, (1 << 40) - 1, 1] + [RNG.getrandbits(40) for _ in range(n - 3)]
    B = [[g, m - 1], [0, 5], [m, 3]] + [[RNG.getrandbits(bits), RNG.getrandbits(bits)] for _ in range(n - 3)]
    E = [[e, e ^ 0x2A5] for e in ev]
    with ctx:
        check(f"{tag} fixed base", modular.powmod(g, ev, m), [pow(g, e, m) for e in ev], bits)
        check(f"{tag} products of powers", clbig.multi_powmod(B, E, m),
              [pow(b0, e0, m) * pow(b1, e1, m) % m for (b0, b1), (e0, e1) in zip(B, E)], bits)


def run(wide_ctx, small_ctx, guarded, check, values):
    forms = {**FP64, "CLBIG_POWMOD_FIXED_ROWS": "2"}
    guarded("mont52 forms", call_with, forms, _forms_case, small_ctx, check, "mont52 forms", 96, 5)
    guarded("mont52 forms staged", call_with, {**forms, "CLBIG_MONT52_MLOC": "1", "CLBIG_MONT52_SQR_MAX": "24"},
            _forms_case, small_ctx, check, "mont52 forms staged", 64, 5)
    guarded("mont52", call_with, FP64, _case, wide_ctx, check, "mont52", 96, 5)
    guarded("mont52 shared e", call_with, FP64, _case, wide_ctx, check, "mont52 shared e", 64, 3, True)
    guarded("mont52 even", call_with, FP64, _case, wide_ctx, check, "mont52 even", 96, 4, False, True)
    guarded("mont52 shared m", call_with, FP64, _shared_m_case, small_ctx, check, "mont52 shared m", 64, 5)
    guarded("mont52 mloc", call_with, {**FP64, "CLBIG_MONT52_MLOC": "1"}, _case, small_ctx, check,
            "mont52 mloc", 96, 5)
    guarded("mont52 staged m", call_with, {**FP64, "CLBIG_MONT52_MSHARED": "1"}, _shared_m_case, small_ctx,
            check, "mont52 staged m", 96, 7)
    guarded("mont52 coop", call_with, COOP, _case, wide_ctx, check, "mont52 coop", 96, 5)
    guarded("mont52 coop shared e", call_with, COOP, _case, wide_ctx, check, "mont52 coop shared e", 64, 3, True)
    guarded("mont52 coop m local", call_with, {**COOP, "CLBIG_MONT52_COOP_MREG": "0"}, _case, wide_ctx, check,
            "mont52 coop m local", 96, 5)
    guarded("mont52 coop small-wg", call_with, {**COOP, "CLBIG_MONT52_SMAX": "3"}, _shared_m_case, small_ctx,
            check, "mont52 coop small-wg", 224, 5)
    guarded("mont52 coop sqr", call_with, {**COOP, "CLBIG_MONT52_COOP_SQR": "1"}, _case, wide_ctx, check,
            "mont52 coop sqr", 96, 5)
    guarded("mont52 coop sqr 3 items", call_with, {**COOP, "CLBIG_MONT52_COOP_SQR": "1", "CLBIG_MONT52_COOP_C": "3"},
            _shared_m_case, small_ctx, check, "mont52 coop sqr 3 items", 224, 5)
