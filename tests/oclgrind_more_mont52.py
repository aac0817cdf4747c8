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
no cooperative kernel, goes to the int32 one there)."""
from __future__ import annotations

from oclgrind_env import call_with
from oclgrind_more_mont import _case, _shared_m_case

FP64 = {"CLBIG_MONT_FP64": "1"}
COOP = {**FP64, "CLBIG_MONT52_COOP": "1", "CLBIG_MONT52_NMAX": "1", "CLBIG_MONT52_SMAX": "2"}


def run(wide_ctx, small_ctx, guarded, check, values):
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
