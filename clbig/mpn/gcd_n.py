"""Batched GCD and modular inverse on limb vectors (the mpn layer under clbig.gcd).

One work-item per instance runs Pornin's optimized binary GCD (kernels_cl/gcd.cl.mako): rounds
of 30 binary steps decided on 64-bit approximations (the low 30 bits and the top 34 bits of the
pair), whose 2x2 matrix (entries below 2^30) is then applied to the full numbers held in 30-bit
digits. Every round is the same branch-free instruction stream for all instances, and the
numbers lose about 30 bits per round: at most ceil((2 bitlen - 1) / 30) rounds (Pornin's bound;
the kernel flags an instance that would exceed it, which the tests never see), on random input
about 1.4 bitlen / 30. The inverse's cofactors (mod the odd modulus w) run the full length
of w every round while the pair shrinks, so they are updated by the product of two rounds'
matrices in one pass over both (half the passes; the GCD_COF setting 1: every round) and reduced
lazily (kept below 2w: one spare bit, so digits(limbs, spare=1)).

Storage of the working digits (the GCD_STORE setting, private|global, overrides):
  "private": arrays in the work-item's private memory (registers / the driver's local memory);
  "global" : one scratch buffer, digit j of consecutive instances adjacent (coalesced).
Both run the same functions (blocks/gcd.mako); the kernel is exact at any size. Each built
specialisation is checked once per context on known answers (clbig/gcd_check.py through
clbig/runtime/kernel_check.py; issue #33, a compiler fault of Intel's CPU runtime): a wrong private
build falls back to the global storage, and where both are wrong gcd / invert are refused. Time grows
with the square of the size and there is no cooperation between work-items, so one huge
instance is slow (one work-item), but exact.
"""
from __future__ import annotations

import functools

import numpy as np

from ..runtime import config, kernel_check, tiers
from ..runtime import plan as P
from ..runtime.render import DoesNotFit, kernel, largest_fitting, launch
from . import gcd_check

DIG = 30                 # bits per digit in the kernel
# work-items per group aimed at (one instance each): the GCD_WG setting's default
WG = config.SETTINGS["GCD_WG"].default
# Private arrays up to this many words per work-item (16 KiB: the inverse's five vectors to
# ~24000 bits), else the global scratch. H200, 2026-11-24 (bench/results/gcd-h200-2026-11-24.log, second run,
# 100,000 instances): private wins the gcd at 1024..8192 bits by 5-23% and the inverse by 12%
# (1024 bits) to 70% (8192); on PoCL the global scratch is many times slower (strided rows of
# one work-item's loop).
PRIVATE_WORDS = 4096
# rounds whose matrices are multiplied before the cofactor update: the GCD_COF setting's default
COF = int(config.SETTINGS["GCD_COF"].default)

OK, FAIL, EVEN, ZERO = 1, 2, 4, 8


def digits(limbs: int, spare: int = 0) -> int:
    """30-bit digits holding `limbs` 32-bit limbs and `spare` bits more (at least 2: the
    approximations and the inverse's 60-bit coefficients read two)."""
    return max(2, P.ceil_div(32 * limbs + spare, DIG))


def cofactor_rounds(s: config.Settings) -> int:
    """Rounds per cofactor update of the inverse under settings `s` (the GCD_COF setting, 1|2,
    default COF): 2 halves the passes over the cofactors (H200,
    bench/results/gcd-h200-2026-11-24.log, second run)."""
    return int(s.gcd_cof)


def storage(s: config.Settings, mode: str, m: int) -> str:
    """Where the kernels of `mode` keep m digits per vector under settings `s` (the GCD_STORE
    setting, else private up to PRIVATE_WORDS words per work-item)."""
    return s.get("gcd_store", "private" if _vectors(mode) * m <= PRIVATE_WORDS else "global")


def _vectors(mode: str) -> int:
    """Digit vectors per instance: x, y (and u, v, w for the inverse)."""
    return 2 if mode == "gcd" else 5


def _build(ctx, mode: str, m: int, store: str, wg0: int, cof: int, rt: bool = False):
    """(kernel, wg, store) of one specialisation, as built (unchecked). rt: the digits at run
    time, the arrays sized for the most the private store holds (one build for every width)."""
    name = "gcd_batch" if mode == "gcd" else "inv_batch"
    cap = PRIVATE_WORDS // _vectors(mode) if rt else m
    k, wg = largest_fitting(min(wg0, ctx.max_items),
                            lambda wg: kernel(ctx, "gcd.cl.mako", name, wg, MODE=mode, M=cap,
                                              STORE=store, WG=wg, COF=cof, RT=rt))
    return k, wg, store


def _first_tier(ctx, mode: str, m: int, store: str, n: int) -> bool:
    """On CPUs, the private store's first calls at a width take the run-time form (runtime.tiers):
    one build for every width, where PoCL took 0.5-0.8 s per width with the first launch. It
    ran 1.0-1.3x the width's own kernel's time (2048 inverses of 1024 bits, 2-core EPYC,
    2026-11-30: about 1 ns more per instance and digit squared), so a width's own kernel is
    built once its calls reach REPAYS such units. GPUs keep M written in (their private arrays
    are registers where they can be)."""
    return store == "private" and tiers.cpu_first_tier(ctx, ("gcd", mode, m), n * m * m, REPAYS)


# Instances x digits^2 after which a width's own gcd kernel is built on a CPU (_first_tier).
REPAYS = 1 << 28


def _plan(ctx, mode: str, m: int, store: str, n: int = 0):
    """(kernel, wg, store) whose known answers are right on this device (clbig/runtime/kernel_check.py,
    issue #33: Intel's CPU runtime miscompiled the private storage): the storage asked for,
    else the global one; KernelFault where none is right."""
    s = ctx.profile.settings
    wg0 = s.gcd_wg
    cof = cofactor_rounds(s) if mode == "inv" else 0
    stores = [store] + (["global"] if store == "private" else [])
    rt = _first_tier(ctx, mode, m, store, n)
    cands = [(f"{st} storage", functools.partial(_build, ctx, mode, m, st, wg0, cof, rt and st == "private"),
              functools.partial(_known_answers, ctx, mode, m)) for st in stores]
    family = "gcd" if mode == "gcd" else "invert"
    return kernel_check.checked(ctx, (family, f"M={m} digits", store, wg0, cof, rt), cands)


def _known_answers(ctx, mode: str, m: int, plan):
    """None where the plan gives gcd_check's known answers, else the first wrong one."""
    if mode == "gcd":
        a, b, limbs, want = gcd_check.gcd_cases(m)
        ok = [True] * len(want)
    else:
        a, b, limbs, want, ok = gcd_check.inv_cases(m)
    n = len(a)
    da, db = ctx.to_device(gcd_check.to_rows(a, limbs)), ctx.to_device(gcd_check.to_rows(b, limbs))
    out = ctx.empty((n, limbs), np.uint32)
    back = (np.uint32(limbs), np.uint32(32 * limbs)) if mode == "gcd" else ()
    stat = _launch(ctx, plan, mode, n, m, (da.data, np.uint64(limbs), np.uint32(limbs), db.data,
                                           np.uint64(limbs), np.uint32(limbs)), out, back)
    got = gcd_check.from_rows(ctx.get(out))
    return gcd_check.first_wrong(got, stat, want, ok, list(zip(a, b)))


def _launch(ctx, plan, mode, n, m, args_front, out, args_back):
    k, wg, store = plan
    groups = P.ceil_div(n, wg)
    np_ = groups * wg
    scratch = ctx.buffer(4 * _vectors(mode) * m * np_) if store == "global" else ctx.buffer(4)
    st = ctx.empty((n,), np.uint32)
    launch(ctx, k, groups, wg, *args_front, out.data, *args_back, st.data, scratch,
           np.uint64(np_), np.uint32(n), np.uint32(m))
    return ctx.get(st)


def _run(ctx, mode, n, m, store, args_front, out, args_back):
    return _launch(ctx, _plan(ctx, mode, m, store, n), mode, n, m, args_front, out, args_back)


def gcd(ctx, a, sa: int, ma: int, b, sb: int, mb: int, n: int, mr: int, cap: int, store=None):
    """gcd(a_i, b_i) into an (n, mr) device array for n >= 1 instances (strides sa, sb: 0
    broadcasts). Returns (out, stat): stat per instance, bit 0 set where the result's bit
    length fits `cap` (where it is clear, that row of out is not written), bit 1 where the
    round limit was exceeded (a bug), rounds << 8."""
    m = digits(max(ma, mb))
    store = store or storage(ctx.profile.settings, "gcd", m)
    out = ctx.empty((n, mr), np.uint32)
    stat = _run(ctx, "gcd", n, m, store,
                (a, np.uint64(sa), np.uint32(ma), b, np.uint64(sb), np.uint32(mb)),
                out, (np.uint32(mr), np.uint32(cap)))
    return out, stat


def invert(ctx, a, sa: int, ma: int, w, sw: int, mw: int, n: int, store=None):
    """a_i^-1 mod w_i into an (n, mw) device array (0 where there is none) for n >= 1
    instances, ma <= mw (a may still be >= w). Returns (out, stat): stat bit 0 invertible,
    bit 1 round limit exceeded (a bug), bit 2 even modulus (not computed), bit 3 zero
    modulus; rounds << 8."""
    if ma > mw:
        raise ValueError(f"invert: a has {ma} limbs, more than the modulus' {mw}")
    m = digits(mw, spare=1)               # the lazy cofactors reach 2w
    store = store or storage(ctx.profile.settings, "inv", m)
    out = ctx.empty((n, mw), np.uint32)
    stat = _run(ctx, "inv", n, m, store,
                (a, np.uint64(sa), np.uint32(ma), w, np.uint64(sw), np.uint32(mw)), out, ())
    return out, stat


__all__ = ["gcd", "invert", "digits", "storage", "DoesNotFit", "OK", "FAIL", "EVEN", "ZERO"]
