"""Row moves on the device: gathers (indexing, sorting, where, full, trim), concatenation and
the pairwise additions of sum's tree, by the size-independent kernels of kernels_cl/rows.cl.mako.

Signs stay on the host (clbig/mpz/array.py): they are gathered with numpy beside the limbs.
An array of a multi-device context has no single buffer: its rows are gathered on the host.
"""
from __future__ import annotations

import numpy as np

from .array import MAX_BATCH, BigIntArray, check_fits, from_limbs, limbs_for
from ..runtime.render import kernel, largest_fitting, launch

_WG = 256          # work-group size (capped by the context); the kernels loop over any size
_MAX_GROUPS = 4096  # enough items to fill a GPU; the grid-stride loops cover the rest


def _kernel(ctx, name: str, items: int):
    """(kernel, groups, work-group size) for `items` work-items' worth of work: the largest
    work-group up to _WG that the built kernel allows on this device."""
    k, wg = largest_fitting(min(_WG, ctx.max_items), lambda wg: kernel(ctx, "rows.cl.mako", name, wg))
    return k, max(1, min(_MAX_GROUPS, -(-items // wg))), wg


def single(x: BigIntArray) -> bool:
    """Whether x's rows are in one device buffer (not a multi-device or streamed array)."""
    return type(x) is BigIntArray


def _host_rows(x: BigIntArray, idx: np.ndarray, bits: int) -> BigIntArray:
    """The gather of a multi-device array: on the host, placed again by its context."""
    limbs = x.to_limbs(magnitude=True)[idx]
    m = limbs_for(bits)
    if limbs.shape[1] < m:
        limbs = np.concatenate([limbs, np.zeros((len(idx), m - limbs.shape[1]), np.uint32)], axis=1)
    neg = None if x.neg is None else x.neg[idx]
    sign = None if neg is None else -neg.astype(np.int8)
    return from_limbs(np.ascontiguousarray(limbs[:, :m]), bits=bits, ctx=x.ctx, sign=sign)


def _enqueue_gather(ctx, out, row0: int, om: int, src, sm: int, idx: np.ndarray) -> None:
    n = len(idx)
    if n == 0:
        return
    d_idx = ctx.to_device(np.ascontiguousarray(idx, dtype=np.uint32))
    k, groups, wg = _kernel(ctx, "gather", n * om)
    launch(ctx, k, groups, wg, out.data, np.uint64(row0), np.uint64(om), src.data, np.uint64(sm),
           d_idx.data, np.uint64(n))


def take(x: BigIntArray, idx, bits: int | None = None) -> BigIntArray:
    """The rows x[idx] (idx: non-negative integers below len(x), checked by the caller) as a
    new array of capacity `bits` (default x.bits; a smaller one must hold every taken value)."""
    idx = np.asarray(idx, dtype=np.int64).reshape(-1)
    bits = x.bits if bits is None else int(bits)
    if len(idx) > MAX_BATCH:
        raise OverflowError(f"a gather of {len(idx)} rows; clbig batches hold at most 2**32 - 1")
    if not single(x):
        return _host_rows(x, idx, bits)
    ctx, om = x.ctx, limbs_for(bits)
    check_fits(ctx, len(idx), bits, "a gather of rows")
    out = ctx.empty((len(idx), om), np.uint32)
    _enqueue_gather(ctx, out, 0, om, x.data, x.m, idx)
    neg = None if x.neg is None else x.neg[idx]
    return BigIntArray(ctx, out, bits, neg)


def concat(arrays: list, ctx) -> BigIntArray:
    """The rows of `arrays` (BigIntArrays of ctx) one after another, at the widest capacity."""
    bits = max((a.bits for a in arrays), default=1)
    n = sum(len(a) for a in arrays)
    if n > MAX_BATCH:
        raise OverflowError(f"a concatenation of {n} rows; clbig batches hold at most 2**32 - 1")
    negs = [np.zeros(len(a), bool) if a.neg is None else a.neg for a in arrays]
    neg = np.concatenate(negs) if negs else None
    if not all(single(a) for a in arrays):
        limbs = [_widen(a.to_limbs(magnitude=True), limbs_for(bits)) for a in arrays]
        allr = np.concatenate(limbs) if limbs else np.zeros((0, limbs_for(bits)), np.uint32)
        return from_limbs(allr, bits=bits, ctx=ctx, sign=None if neg is None else -neg.astype(np.int8))
    om = limbs_for(bits)
    check_fits(ctx, n, bits, "clbig.concatenate")
    out = ctx.empty((n, om), np.uint32)
    row0 = 0
    for a in arrays:
        _enqueue_gather(ctx, out, row0, om, a.data, a.m, np.arange(len(a)))
        row0 += len(a)
    return BigIntArray(ctx, out, bits, neg)


def _widen(limbs: np.ndarray, m: int) -> np.ndarray:
    if limbs.shape[1] >= m:
        return limbs
    return np.concatenate([limbs, np.zeros((limbs.shape[0], m - limbs.shape[1]), np.uint32)], axis=1)


def sum_magnitudes(x: BigIntArray) -> BigIntArray:
    """The sum of x's magnitudes (signs ignored) as a one-row array, by a tree of pairwise
    additions on the device: ceil(log2 n) launches, each level one bit wider. x non-empty."""
    ctx, bits, cur = x.ctx, x.bits, x.data
    while cur.shape[0] > 1:
        nsrc, sm = cur.shape
        bits += 1
        om = limbs_for(bits)
        nout = (nsrc + 1) // 2
        out = ctx.empty((nout, om), np.uint32)
        k, groups, wg = _kernel(ctx, "pairsum", nout)
        launch(ctx, k, groups, wg, out.data, np.uint64(om), cur.data, np.uint64(sm), np.uint64(nsrc))
        cur = out
    return BigIntArray(ctx, cur, bits)
