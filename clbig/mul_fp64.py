"""Classical products in 51-bit FP64 digits, one work-item per instance (kernels_cl/mul52.cl.mako).

For batches of small products (both operands together at most MAX_DIGITS digits: two 1071-bit
operands) on devices with fast double precision, where it beats the int32 convolution:
H200, 2026-11-25, 2^32-bit batches, µs (int32 classical against this):

    2^9 bits  low half 955 / 605,  full 1752 / 829
    2^10 bits low half 1169 / 861, full 2707 / 1535
    2^11 bits low half 1563 / 1943 (a's digits in local memory; in registers they spill)

and on PoCL (a 2-core Zen 5, 2026-11-25, 2^27-bit batches) 3-5.6x at 2^9 and 2^10, slower from 2^11.
mul_basecase asks `plan` first; None leaves the product to the int32 kernels. Squares stay
there too (their kernels take each cross product once). CLBIG_MUL_RADIX=51 takes this path
wherever it can run (up to FORCED_MAX_DIGITS), =30 or =32 never (tests force each radix at
every size).
"""
from __future__ import annotations

import os

import numpy as np

from . import mont52
from . import plan as P
from .render import DoesNotFit, kernel, launch, memoized

D = mont52.D
MAX_DIGITS = 42
FORCED_MAX_DIGITS = 96   # CLBIG_MUL_RADIX=51 stops here too
# One item per instance: a GPU needs this many instances per compute unit to hide latency
# (fewer go to the int32 kernels, which spread an instance over several items).
GPU_ROWS_PER_CU = 256


def _digits(m: int) -> int:
    return P.ceil_div(32 * m, D)


def _device(ctx) -> tuple[bool, bool, int]:
    """(exact FP64 fma, fast FP64, compute units): device queries, once per context (plan runs
    for every classical product, Newton's steps included)."""
    return memoized(ctx, ("mul_fp64.device",), lambda: (
        mont52.usable(ctx), mont52.fast_fp64(ctx), int(ctx.device.max_compute_units)))


def plan(ctx, ma: int, mb: int, mr: int, n: int, square: bool) -> dict | None:
    """The template parameters for (a * b) mod 2^(32 mr), or None where the int32 kernels
    should run it."""
    radix = os.environ.get("CLBIG_MUL_RADIX", "auto").strip()
    force = radix == "51"
    if radix not in ("auto", "51") or (square and not force):
        return None
    exact, fast, units = _device(ctx)
    if not exact:
        return None
    ma, mb = min(ma, mr), min(mb, mr)   # limbs past mr do not reach the result
    na, nb = _digits(ma), _digits(mb)
    gpu = P.is_gpu(ctx)
    if na + nb > FORCED_MAX_DIGITS:   # unrolled code grows as na * nb: compile times of minutes
        return None
    if not force:
        if na + nb > MAX_DIGITS or not fast or (gpu and n < GPU_ROWS_PER_CU * units):
            return None
    # GPUs stage rows through local memory for coalesced accesses; CPUs read their own rows
    # (barriers cost there). a's digits live in local memory on CPUs, and on GPUs for low
    # halves of more than 32 digits in all (H200 2^10 low: 861 against 1139 µs; full products
    # keep them in registers: 1535 against 1634).
    # CLBIG_MUL52_STAGE and _XLOC (0/1) override both choices (tests run every variant).
    stage = P.env_count("CLBIG_MUL52_STAGE", int(gpu))
    xloc = P.env_count("CLBIG_MUL52_XLOC", int(not gpu or (mr < ma + mb and na + nb > 32)))
    return dict(MA=ma, MB=mb, MR=mr, STAGE=int(bool(stage)), XLOC=int(bool(xloc)))


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
