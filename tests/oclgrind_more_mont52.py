"""The FP64 Montgomery kernels (kernels_cl/mont52.cl.mako's mulmod52 and powmod52) under
Oclgrind (run by tests/oclgrind_cases.py), forced on with CLBIG_MONT_FP64=1: per-instance and
shared exponents, a padding instance in the last group, even moduli beside them (their rows by
CRT), one modulus for the batch, and m's digits in local memory (CLBIG_MONT52_MLOC=1). The
cases are oclgrind_more_mont's, every result checked against Python's pow."""
from __future__ import annotations

from oclgrind_env import call_with
from oclgrind_more_mont import _case, _shared_m_case

FP64 = {"CLBIG_MONT_FP64": "1"}


def run(wide_ctx, small_ctx, guarded, check, values):
    guarded("mont52", call_with, FP64, _case, wide_ctx, check, "mont52", 96, 5)
    guarded("mont52 shared e", call_with, FP64, _case, wide_ctx, check, "mont52 shared e", 64, 3, True)
    guarded("mont52 even", call_with, FP64, _case, wide_ctx, check, "mont52 even", 96, 4, False, True)
    guarded("mont52 shared m", call_with, FP64, _shared_m_case, small_ctx, check, "mont52 shared m", 64, 5)
    guarded("mont52 mloc", call_with, {**FP64, "CLBIG_MONT52_MLOC": "1"}, _case, small_ctx, check,
            "mont52 mloc", 96, 5)
