"""Limb-vector kernels of the number-theoretic calls (the mpn layer under clbig.mpz.numtheory):
population counts (kernels_cl/popcount.cl.mako) and Jacobi symbols by the binary algorithm
(kernels_cl/jacobi.cl.mako). Everything else those calls need is composed from the existing
operations one floor up."""
from __future__ import annotations

import numpy as np

from ..runtime import plan as P
from ..runtime.render import kernel, largest_fitting, launch

POP_CHUNK = 64   # limbs per work-item of the popcount: one item for rows up to 2048 bits
WG = 64          # work-items per group aimed at; smaller where the device refuses it


def popcount(ctx, a, sa: int, ma: int, n: int) -> np.ndarray:
    """Set bits of every instance's ma limbs (device buffer a, instance stride sa), numpy int64."""
    if n == 0:
        return np.zeros(0, np.int64)
    g = P.ceil_div(ma, POP_CHUNK)
    krn, wg = largest_fitting(min(WG, ctx.max_items), lambda wg: kernel(
        ctx, "popcount.cl.mako", "popcount_rows", wg, M=ma, C=POP_CHUNK, WG=wg))
    out = ctx.empty((n * g,), np.uint32)
    launch(ctx, krn, P.ceil_div(n * g, wg), wg, a, np.uint64(sa), out.data, np.uint32(n))
    return ctx.get(out).reshape(n, g).astype(np.int64).sum(axis=1)


def jacobi(ctx, x, sx: int, y, sy: int, m: int, n: int) -> np.ndarray:
    """(x / y) per instance as numpy int8 (-1, 0, 1), for x < y, y odd, both of m limbs
    (device buffers with instance strides sx, sy; 0 broadcasts one row)."""
    if n == 0:
        return np.zeros(0, np.int8)
    krn, wg = largest_fitting(min(WG, ctx.max_items), lambda wg: kernel(
        ctx, "jacobi.cl.mako", "jacobi", wg, M=m, WG=wg))
    wx = ctx.empty((n, m), np.uint32)     # scratch: every limb is written before it is read
    wy = ctx.empty((n, m), np.uint32)
    out = ctx.empty((n,), np.int8)
    launch(ctx, krn, P.ceil_div(n, wg), wg, x, np.uint64(sx), y, np.uint64(sy), wx.data, wy.data,
           out.data, np.uint32(n))
    return ctx.get(out)
