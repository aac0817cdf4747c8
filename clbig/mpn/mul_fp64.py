"""Classical products in 51-bit FP64 digits, one work-item per instance (kernels_cl/mul52.cl.mako).

For batches of small products (both operands together at most MAX_DIGITS digits: two 1071-bit
operands) on devices with fast double precision, where it beats the int32 convolution:
H200, 2026-11-25, 2^32-bit batches, µs (int32 classical against this):

    2^9 bits  low half 955 / 605,  full 1752 / 829
    2^10 bits low half 1169 / 861, full 2707 / 1535
    2^11 bits low half 1563 / 1943 (a's digits in local memory; in registers they spill)

and on PoCL (a 2-core Zen 5, 2026-11-25, 2^27-bit batches) 3-5.6x at 2^9 and 2^10, slower from 2^11.
Squares too, although the int32 square kernels take each cross product once: H200, x*x, 1798
against 869 µs at 2^9 bits, 2906 against 1533 at 2^10 (bench/results/coop-mul-h200-2026-11-25.log);
PoCL on the CI machine's 2-core Zen 5, 2026-11-25, 2^15 squares of 512 bits 10.4 against 2.0 ms,
2^14 of 1024 bits 9.9 against 3.2 (bench/README.md).
mul_basecase asks `plan` first, then `coop_plan` (the cooperative kernel, mul52_coop.cl.mako,
for larger products on GPUs); None from both leaves the product to the int32 kernels.
The MUL_RADIX setting 51 takes this path wherever it can run (up to FORCED_MAX_DIGITS), 30 or 32
never (tests force each radix at every size).
"""
from __future__ import annotations

import numpy as np

from . import mont52
from ..runtime import config
from ..runtime import plan as P
from ..runtime import tiers
from ..runtime.render import DoesNotFit, kernel, launch

D = mont52.D
MAX_DIGITS = 42
FORCED_MAX_DIGITS = 96   # MUL_RADIX 51 stops here too
# One item per instance: a GPU needs this many instances per compute unit to hide latency
# (fewer go to the int32 kernels, which spread an instance over several items).
GPU_ROWS_PER_CU = 256


def _digits(m: int) -> int:
    return P.ceil_div(32 * m, D)


def plan(ctx, ma: int, mb: int, mr: int, n: int, square: bool) -> dict | None:
    """The template parameters for (a * b) mod 2^(32 mr), or None where the int32 kernels
    should run it."""
    s = ctx.profile.settings
    radix = s.mul_radix
    force = radix == "51"
    if radix not in ("auto", "51") or s.mul52_coop:   # forced: the cooperative one
        return None
    f = ctx.profile.facts   # queried once per context: plan runs for every classical product
    if not f.exact_fma:
        return None
    ma, mb = min(ma, mr), min(mb, mr)   # limbs past mr do not reach the result
    na, nb = _digits(ma), _digits(mb)
    gpu = P.is_gpu(ctx)
    if na + nb > FORCED_MAX_DIGITS:   # unrolled code grows as na * nb: compile times of minutes
        return None
    if not force:
        if na + nb > MAX_DIGITS or not f.fast_fp64 or (gpu and n < GPU_ROWS_PER_CU * f.compute_units):
            return None
    # GPUs stage rows through local memory for coalesced accesses; CPUs read their own rows
    # (barriers cost there). a's digits live in local memory on CPUs, and on GPUs for low
    # halves of more than 32 digits in all (H200 2^10 low: 861 against 1139 µs; full products
    # keep them in registers: 1535 against 1634).
    # The MUL52_STAGE and MUL52_XLOC settings (0/1) override both choices (tests run every variant).
    stage = s.get("mul52_stage", gpu)
    xloc = s.get("mul52_xloc", not gpu or (mr < ma + mb and na + nb > 32))
    return dict(MA=ma, MB=mb, MR=mr, STAGE=int(bool(stage)), XLOC=int(bool(xloc)))


# The cooperative kernel (mul52_coop.cl.mako): several items per instance, for operands whose
# digits one item cannot hold in registers. Taken on GPUs with fast FP64 for full products of
# COOP_MIN..COOP_MAX digits in all, squares to COOP_SQR_MAX_DIGITS and low halves from
# COOP_LOW_MIN_DIGITS. H200, 2026-11-25, 2^32-bit batches,
# µs, int32 classical against this (bench/results/coop-mul-h200-2026-11-25.log):
#
#     2^11 full 3177 / 2654 (W 8, C 6, 32 instances per group)
#     2^12 full 5742 / 3754 (W 8, C 12, 16 per group)
#     2^13 full 9049 / 6107 (W 8, C 16, 8 per group)
#     2^14 full 15802 (the NTT) / 11288 (W 8, C 32, 4 per group; C 16: 12770, C 48: 12385)
#     2^15 full 15285 (the NTT) / 21796 (best of C 32, 64, 128)
#     2^11 low 1568 / 1579, 2^12 low 2498 / 2380, 2^10 low 869 (mul52) / 1337: low halves only
#     from 2^13 (COOP_LOW_MIN_DIGITS)
#
# More items per instance win as long as the blocks go round (C about half the blocks, to 16
# while a group holds 8 instances or more, then 32): local memory (the digit rows) caps the
# instances a compute unit holds, so its warps come from items. In 2^32-bit batches this
# kernel's time grows as the bits and the NTT's stays flat, so the NTT takes full products
# from NTT_FROM_BITS (about where 11.3 ms at 2^14 doubling meets 15.3-15.8 ms) on devices
# that take this kernel (mul_n.crossovers). The MUL52_COOP setting 1 takes it wherever it can
# run (tests), 0 never; MUL52_COOP_W, _C, _IPB override the shape.
COOP_W = config.SETTINGS["MUL52_COOP_W"].default   # 8
COOP_MIN_DIGITS = MAX_DIGITS + 1
COOP_MAX_DIGITS = 900   # both operands together (two 22900-bit operands): past NTT_FROM_BITS
NTT_FROM_BITS = 22528
# Squares (x*x: the int32 square kernel takes each cross product once) only to 2^13 bits:
# H200, 2^32-bit batches, int32 square against this kernel 2885 / 2463 µs at 2^11, 4193 / 3887
# at 2^12, 6799 / 6047 at 2^13, 9868 / 11270 at 2^14.
COOP_SQR_MAX_DIGITS = 330
# Low halves (mod 2^bits below the full product) from two 2^13-bit operands: int32 against this,
# 2^12 2496 / 2363 (C 8), 2^13 4499 / 3897 (C 16), 2^14 7948 / 6849 (C 32); the NTT keeps them
# from 2^15 bits (ntt_from_bits_low), where this kernel would about tie it.
COOP_LOW_MIN_DIGITS = 320


def _coop_setting(s) -> str | None:
    """"force" (the MUL52_COOP setting 1, or MUL_RADIX 51), "auto", or None (MUL52_COOP 0, or
    another radix forced), by the settings s."""
    want = s.mul52_coop
    radix = s.mul_radix
    if want is False or radix not in ("auto", "51"):
        return None
    return "force" if want or radix == "51" else "auto"


def coop_auto(ctx) -> bool:
    """Whether auto takes the cooperative kernel for large batches of full products here."""
    f = ctx.profile.facts
    return bool(f.exact_fma and f.fast_fp64 and P.is_gpu(ctx) and _coop_setting(ctx.profile.settings))


def coop_plan(ctx, ma: int, mb: int, mr: int, n: int, square: bool) -> dict | None:
    """The cooperative kernel's parameters for (a * b) mod 2^(32 mr), or None where the other
    kernels should run it."""
    s = ctx.profile.settings
    setting = _coop_setting(s)
    if setting is None:
        return None
    force = setting == "force"
    f = ctx.profile.facts
    ma, mb = min(ma, mr), min(mb, mr)
    na, nb = _digits(ma), _digits(mb)
    nc = min(na + nb, P.ceil_div(32 * mr, D))
    if not f.exact_fma or na + nb > COOP_MAX_DIGITS:
        return None
    low = mr < ma + mb
    if not force and (not f.fast_fp64 or not P.is_gpu(ctx)
                      or not (COOP_LOW_MIN_DIGITS if low else COOP_MIN_DIGITS) <= na + nb
                      or (square and na + nb > COOP_SQR_MAX_DIGITS)
                      or n < GPU_ROWS_PER_CU * f.compute_units // 4):
        return None
    w = max(1, s.mul52_coop_w)
    blocks = P.ceil_div(nc, w)
    # a low half's blocks cost from 1 to NA steps: the longest alone bounds an item, so more
    # items than for a full product's (H200: 2^13 C 16 3897 µs, C 8 4603, C 24 4550)
    c = (min(32, max(1, 3 * blocks // 4)) if low else
         min(16 if blocks <= 48 else 32, P.ceil_div(blocks, 2)))
    c = max(1, s.get("mul52_coop_c", c))
    ipb = max(1, s.mul52_coop_ipb)
    while ipb > 1 and (c * ipb > min(ctx.max_items, 256)
                       or _coop_local_bytes(na, nb, nc, w, ipb) > ctx.local_mem):
        ipb //= 2
    if c * ipb > ctx.max_items or _coop_local_bytes(na, nb, nc, w, ipb) > ctx.local_mem:
        return None
    return dict(MA=ma, MB=mb, MR=mr, W=w, C=c, IPB=ipb)


def _coop_local_bytes(na: int, nb: int, nc: int, w: int, ipb: int) -> int:
    rows = (na | 1) + ((nb + 2 * (w - 1)) | 1)
    cols = (nc + P.ceil_div(nc, w)) | 1
    return 8 * ipb * (rows + cols)


def coop_mul(ctx, p: dict, a, sa: int, b, sb: int, out, n: int, top: int) -> bool:
    """Launch the product planned by `coop_plan` into `out`; False when the kernel does not fit."""
    wg = p["C"] * p["IPB"]
    try:
        k = kernel(ctx, "mul52_coop.cl.mako", "mul52c", wg, TOP_MASK=top, **p)
    except DoesNotFit:
        return False
    launch(ctx, k, P.ceil_div(n, p["IPB"]), wg, a, np.uint64(sa), b, np.uint64(sb), out.data,
           np.uint64(out.shape[1]), np.uint32(n))
    return True


def _local_bytes(p: dict, wg: int) -> int:
    stage = wg * (max(p["MA"], p["MB"], p["MR"]) | 1) * 4 if p["STAGE"] else 0
    return stage + (wg * _digits(p["MA"]) * 8 if p["XLOC"] else 0)


def mul(ctx, p: dict, a, sa: int, b, sb: int, out, n: int, top: int) -> bool:
    """Launch the product planned by `plan` into `out` ((n, MR) limbs, its top limb masked by
    `top`); False when no work-group size fits the device (the caller takes another path)."""
    for wg in (128, 64, 32, 16, 8, 4, 2, 1):
        if wg > ctx.max_items or _local_bytes(p, wg) > ctx.local_mem:
            continue
        try:
            k = kernel(ctx, "mul52.cl.mako", "mul52", wg, TOP_MASK=top, WG=wg, **p)
        except DoesNotFit:
            continue
        launch(ctx, k, P.ceil_div(n, wg), wg, a, np.uint64(sa), b, np.uint64(sb), out.data,
               np.uint64(out.shape[1]), np.uint32(n))
        return True
    return False


# CPUs: the lanes kernel (mul52_lanes.cl.mako), W instances per work-item side by side in the
# lanes of a vector of doubles, for every classical product (below the NTT's crossover; from
# 2^9 bits it also beats the one-item kernel above: 512 bits, n = 1024, 0.11 against 0.19 ms on
# PoCL). Intel's CPU runtime vectorizes across work-items itself, so there
# one instance per item in groups of 16 (W = 1); PoCL 3 does not for this loop nest, so explicit
# double8 vectors (W = 8, AVX-512's width; narrower CPUs split them; 4 where the compiler
# fails on fma of double8 and double16: profile._wide_fma). Measured on a 2-core Xeon
# with AVX-512, 2026-11-27 (bench/README.md, "Batch products on CPUs"). The MUL52_LANES setting
# 1 takes it wherever it can run (tests), 0 never; MUL52_LANES_W and _C override the shape.
LANES_MAX_DIGITS = 4095          # per operand: column sums stay below 2^63
LANES_SCRATCH = 32 << 20         # bytes of digit scratch per launch: larger batches take chunks
# Columns per pass in registers: 4 vectors of 8 (PoCL), 8 scalars (Intel): the probe's best.
LANES_C = {8: 4, 1: 8}
# Operands of more digits than this take their widths at run time (one build for all of them;
# issue 43's first calls: a product tree's levels built one kernel each): there the loops are
# long and it costs nothing measurable, where at 512 bits it cost 12-26% (2-core EPYC,
# 2026-11-29: Intel's runtime 4096 rows 0.38 against 0.34 ms, PoCL 0.24 against 0.19; 8192 bits
# and wider within the noise, bench/README.md "Run-time widths for the CPUs' lanes kernel").
LANES_RT_DIGITS = 100
# Narrower ones take the run-time form too until their calls at the width have summed to this
# many digit products (runtime.tiers): its 12-26% is about 0.1 ns a product on PoCL, the
# width's own kernel's build and first launch 0.3-0.5 s.
LANES_REPAYS = 1 << 32


def lanes_plan(ctx, ma: int, mb: int, mr: int, n: int, square: bool) -> dict | None:
    """The lanes kernel's parameters for (a * b) mod 2^(32 mr), or None where the other kernels
    should run it."""
    s = ctx.profile.settings
    want = s.mul52_lanes
    radix = s.mul_radix
    if want is False or radix not in ("auto", "51"):
        return None
    f = ctx.profile.facts
    units = f.compute_units
    ma, mb = min(ma, mr), min(mb, mr)
    na, nb = _digits(ma), _digits(mb)
    if not f.exact_fma or max(na, nb) > LANES_MAX_DIGITS or n == 0:
        return None
    # auto (lanes_auto's rule, the settings and fma already read): CPUs, radix auto, the
    # cooperative kernel not forced
    if not want and (radix != "auto" or s.mul52_coop or P.is_gpu(ctx)):
        return None
    w = s.mul52_lanes_w
    if w is None:   # narrower vectors where the batch would leave cores idle (one huge product)
        w = 1 if f.intel_cpu_runtime else 8 if f.wide_fma else 4
        while w > 1 and P.ceil_div(n, w) < units:
            w //= 2
    if w not in (1, 2, 4, 8, 16):
        raise ValueError(f"MUL52_LANES_W must be 1, 2, 4, 8 or 16, not {w}")
    if w > 4 and not f.wide_fma:
        raise ValueError(f"MUL52_LANES_W={w}: this device's compiler fails on fma of double8 "
                         "(an abort) and double16 (wrong products): PoCL 3.0, LLVM 14, on AMD "
                         "Zen; take 1, 2 or 4")
    c = max(1, s.get("mul52_lanes_c", LANES_C.get(w, 4)))
    # Enough groups for every core: a group of wg items takes wg * w instances. One instance
    # per item keeps groups of 16: Intel's runtime vectorizes 16 items at once, and runs
    # smaller groups item by item (65536-bit products, n = 16: 13.2 ms in groups of 8).
    wg = 16 if w == 1 else 8
    while wg > 1 and (wg > ctx.max_items or (w > 1 and P.ceil_div(n, wg * w) < units)):
        wg //= 2
    return dict(MA=ma, MB=mb, MR=mr, W=w, C=c, WG=wg)


def lanes_auto(ctx) -> bool:
    """Whether auto takes the lanes kernel for classical products here (CPUs with an exact
    FP64 fma). Where it does, the NTT takes products later (mul_n.crossovers)."""
    s = ctx.profile.settings
    return bool(ctx.profile.facts.exact_fma and not P.is_gpu(ctx) and s.mul52_lanes is not False
                and s.mul_radix == "auto")


def lanes_ntt_from(ctx) -> dict:
    """Where the lanes kernel runs products, the bits (of the smaller operand) from which the
    NTT takes them (mul_n.crossovers). 2-core Xeon, 2026-11-27, ms, lanes against the NTT:
    PoCL 2^16 bits x 16 rows 2.7 / 6.3, 2^17 x 8 6.9 / 6.2, one 2^16-bit product 2.0 / 1.7;
    Intel's runtime (one group of 16 items per 16 rows) 2^15 x 64 4.4 / 5.0, 2^16 x 16 9.2 / 2.9."""
    if ctx.profile.facts.intel_cpu_runtime:
        return dict.fromkeys(("ntt_from_bits", "ntt_from_bits_low", "ntt_from_bits_few",
                              "ntt_from_bits_low_few"), 1 << 16)
    return {"ntt_from_bits": 1 << 17, "ntt_from_bits_low": 1 << 17,
            "ntt_from_bits_few": 1 << 16, "ntt_from_bits_low_few": 1 << 16}


def lanes_mul(ctx, p: dict, a, sa: int, b, sb: int, out, n: int, top: int) -> bool:
    """Launch the product planned by `lanes_plan` into `out`, in launches of at most
    LANES_SCRATCH bytes of digits; False when the kernel does not fit."""
    wg, lanes = p["WG"], p["WG"] * p["W"]
    na, nb = _digits(p["MA"]), _digits(p["MB"])
    span = na + nb + 2 * p["C"]
    # wide operands: the widths at run time, one build per shape (W, C, WG) for all of them;
    # narrow ones too until the width has earned its own kernel (runtime.tiers)
    shape = dict(W=p["W"], C=p["C"], WG=wg)
    widths = dict(shape, RT=False, MA=p["MA"], MB=p["MB"], MR=p["MR"], TOP_MASK=top)
    if max(na, nb) > LANES_RT_DIGITS or not tiers.fixed_kernel(
            ctx, "mul52_lanes.cl.mako", "mul52_lanes", widths, n * na * nb, LANES_REPAYS):
        widths = dict(shape, RT=True, MA=0, MB=0, MR=0, TOP_MASK=0)
    try:
        k = kernel(ctx, "mul52_lanes.cl.mako", "mul52_lanes", wg, **widths)
    except DoesNotFit:
        return False
    groups = max(1, min(P.ceil_div(n, lanes), LANES_SCRATCH // (8 * span * lanes)))
    scratch = ctx.empty((groups * span * lanes,), np.float64)
    for first in range(0, n, groups * lanes):
        g = min(groups, P.ceil_div(n - first, lanes))
        launch(ctx, k, g, wg, a, np.uint64(sa), b, np.uint64(sb), out.data,
               np.uint64(out.shape[1]), np.uint32(first), np.uint32(n), scratch.data,
               np.uint32(p["MA"]), np.uint32(p["MB"]), np.uint32(p["MR"]), np.uint32(top))
    return True
