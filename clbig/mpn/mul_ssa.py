"""Schönhage–Strassen multiplication of limb vectors (kernels_cl/ssa.cl.mako).

Each operand is cut into pieces of M limbs, N = 2^k rows per instance; rows are residues
modulo F = 2^K + 1 with K = 32P bits, where 2 is a 2K-th root of unity, so the transform's
twiddles are bit rotations (N | 64P makes every twiddle an integral shift). The cyclic
convolution is exact when ceil(ma/M) + ceil(mb/M) - 1 <= N and every coefficient is below
2^K. Passes: k forward stages per operand (the first cuts the pieces, bit-reversed), the
pointwise products by `pointwise` (any multiplication with mul_basecase.mul's signature),
k inverse stages (the first reduces the products mod F), one recomposition scaling by 2^-k
and summing overlapping coefficients, and one multi-group addition for the last carries.
"""
from __future__ import annotations

import numpy as np
import pyopencl as cl

from . import add_n, mul_basecase
from ..runtime import config
from ..runtime import plan as P_
from ..runtime.render import DoesNotFit, kernel, launch

# Words per work-item in a butterfly, the first that fits (the SSA_Q setting's default, in the
# settings table): the carry scan costs log2(P/Q) steps per Q words, so Q = 4 would spend more
# on it than on the words (the SSA_Q setting 4 allows).
_QS = config.SETTINGS["SSA_Q"].default       # (8, 16, 32)
_GROUP = 256           # preferred work-items per group
# At most 2^6 rows (six stages) per pass through local memory (the SSA_LEVELS setting's default).
_LEVELS = config.SETTINGS["SSA_LEVELS"].default
# Relative cost of one limb product in the pointwise basecase against moving one word
# through a transform pass (an H100 does ~12 of the former per word of bandwidth).
_PW_WEIGHT = 1 / 12
# Memory the pointwise step may use beyond its output (mul_basecase's multi-group path
# holds the spills and the sum), in multiples of that output.
_PW_TEMP = 3


def _limits(ctx):
    """(global memory, largest single allocation) in bytes; tests monkeypatch this."""
    return int(ctx.device.global_mem_size), int(ctx.device.max_mem_alloc_size)


def _geometry(ctx, P: int):
    """(Q, ipi, levels) for rows of P words: the items per butterfly (preferably at most
    _GROUP) and the most stages one pass can hold in local memory; None when nothing fits."""
    s = ctx.profile.settings
    qs, most = s.ssa_q, s.ssa_levels   # the table's defaults: _QS, _LEVELS
    for cap in (min(_GROUP, ctx.max_items), ctx.max_items):
        for q in qs:
            ipi = P_.ceil_div(P, q)
            if ipi > cap or _local_bytes(P, ipi, 1, 1) > ctx.local_mem:
                continue
            r = 1
            while (r < most and (ipi << r) <= ctx.max_items
                   and _local_bytes(P, ipi, r + 1, 1) <= ctx.local_mem):
                r += 1
            return q, ipi, r
    return None


def _local_bytes(P, ipi, r, groups):
    """Local memory of a levels pass over `groups` blocks of 2^r rows: the rows, the scan
    (one word per item, at least _GROUP items), the rows' addresses."""
    rows = groups << r
    return P_.WORD * (P_.padded_words(rows * (P + 1)) + max(_GROUP, (rows // 2) * ipi)) + 16 * rows


def _shape(ma: int, mb: int, k: int):
    """(M, P) for N = 2^k rows: the smallest pieces that make the convolution acyclic, the
    smallest ring that holds every coefficient, rounded so that N divides 64P."""
    n = 1 << k
    # The least m with ceil(ma/m) + ceil(mb/m) - 1 <= n (non-increasing in m), by bisection:
    # counting up from the bound below took a step per limb for few rows (seconds at 2^30 bits).
    lo, hi = max(1, P_.ceil_div(ma + mb, n + 1)), max(1, ma, mb)
    while lo < hi:
        mid = (lo + hi) // 2
        if P_.ceil_div(ma, mid) + P_.ceil_div(mb, mid) - 1 > n:
            lo = mid + 1
        else:
            hi = mid
    m = lo
    na, nb = P_.ceil_div(ma, m), P_.ceil_div(mb, m)
    need = 32 * (min(m, ma) + min(m, mb)) + (min(na, nb) - 1).bit_length()
    unit = max(1, n // 64)
    p = P_.ceil_div(P_.ceil_div(need, 32), unit) * unit
    return m, p


def plan(ctx, ma: int, mb: int, bits: int):
    """The parameters for one product, or a dict with only 'reason' when none fits.
    The SSA_K setting forces the number of rows 2^k (tests, tuning)."""
    mr = P_.ceil_div(bits, 32)
    full = min(mr, ma + mb)             # product limbs that matter
    ma, mb = min(ma, full), min(mb, full)
    forced = ctx.profile.settings.ssa_k   # 1..30 (the settings table checks it)
    ks = [forced] if forced else range(1, min((ma + mb).bit_length(), 30) + 1)
    best, why = None, None
    for k in ks:
        m, p = _shape(ma, mb, k)
        geo = _geometry(ctx, p)
        if geo is None:
            why = (f"a ring of {p} limbs (2^{k} pieces of {m} limbs) does not fit this device's "
                   f"work-groups ({ctx.max_items} items) and local memory ({ctx.local_mem} bytes)")
            continue
        n = 1 << k
        passes = 3 * P_.ceil_div(k, geo[2]) + 4   # transforms, recomposition, carries
        cost = passes * 2 * n * (p + 1) + _PW_WEIGHT * n * (p + 1) ** 2
        if best is None or cost < best["cost"]:
            best = dict(k=k, N=n, M=m, P=p, Q=geo[0], ipi=geo[1], levels=geo[2], cost=cost,
                        ma=ma, mb=mb, mr=mr)
        if m == 1:
            break
    return best or dict(reason=why)


def _bytes_per_instance(pl):
    rows = pl["N"] * (pl["P"] + 1)
    prods = pl["N"] * (2 * pl["P"] + 1)
    return P_.WORD * (2 * rows + (1 + _PW_TEMP) * prods)


def supports(ctx, ma: int, mb: int, bits: int) -> str | None:
    """None when SSA can run this product on this device, else why not."""
    if min(ma, mb, bits) < 1:
        return f"operands of {ma} and {mb} limbs, {bits} bits: all must be positive"
    pl = plan(ctx, ma, mb, bits)
    if "reason" in pl:
        return "Schönhage–Strassen: " + pl["reason"]
    mem, alloc = _limits(ctx)
    need, prods = _bytes_per_instance(pl), P_.WORD * pl["N"] * (2 * pl["P"] + 1)
    out = 3 * P_.WORD * pl["mr"]
    if prods > alloc or need + out > mem:
        return (f"Schönhage–Strassen on {ma} x {mb} limbs needs {need + out} bytes of device "
                f"memory ({prods} in one buffer; 2^{pl['k']} rows of {pl['P'] + 1} limbs); "
                f"this device has {mem} ({alloc} per buffer)")
    return None


def _max_items(ctx, name, mode, q):
    k = kernel(ctx, "ssa.cl.mako", name, None, KERNEL=name[4:], MODE=mode, Q=q)
    return k, min(ctx.max_items, k.get_work_group_info(cl.kernel_work_group_info.WORK_GROUP_SIZE, ctx.device))


def _levels(ctx, pl, mode, src, off, stride, dst, ninst, s0, r, inv=0, mlen=0):
    """Stages s0..s0+r-1 in one pass (or more, where the built kernel allows fewer items)."""
    P, ipi = pl["P"], pl["ipi"]
    k, limit = _max_items(ctx, "ssa_levels", mode, pl["Q"])
    if (ipi << (r - 1)) > limit:
        if r == 1:
            raise DoesNotFit(f"ssa: a butterfly of {ipi} work-items exceeds this kernel's {limit}")
        _levels(ctx, pl, mode, src, off, stride, dst, ninst, s0, r // 2, inv, mlen)
        _levels(ctx, pl, "rows", dst, 0, 0, dst, ninst, s0 + r // 2, r - r // 2, inv)
        return
    per = ipi << (r - 1)
    nblk = (ninst * pl["N"]) >> r
    cap = min(_GROUP, limit)
    g = max(1, min(cap // per, nblk))
    while g > 1 and _local_bytes(P, ipi, r, g) > ctx.local_mem:
        g //= 2
    wg = max(per, cap)   # one size per kernel while butterflies are small: few builds on PoCL
    rows = g << r
    launch(ctx, k, P_.ceil_div(nblk, g), wg, src, np.uint64(off), np.uint64(stride), dst,
           np.uint32(P), np.uint32(pl["M"]), np.uint32(mlen), np.uint32(pl["k"]), np.uint32(s0),
           np.uint32(r), np.uint32(inv), np.uint64(nblk), np.uint32(ipi), np.uint32(g),
           cl.LocalMemory(P_.WORD * P_.padded_words(rows * (P + 1))),
           cl.LocalMemory(P_.WORD * wg), cl.LocalMemory(16 * rows))


def _split(levels: int, most: int):
    """levels stages in as few passes of at most `most` as possible, evenly."""
    passes = P_.ceil_div(levels, most)
    return [levels // passes + (i < levels % passes) for i in range(passes)]


def _transform(ctx, pl, first, src, off, stride, T, ninst, inv, mlen=0):
    """All k stages into T: the first pass reads `src` in mode `first`, the others T."""
    s0 = 0
    for r in _split(pl["k"], pl["levels"]):
        if s0 == 0:
            _levels(ctx, pl, first, src, off, stride, T, ninst, 0, r, inv, mlen)
        else:
            _levels(ctx, pl, "rows", T, 0, 0, T, ninst, s0, r, inv)
        s0 += r


def _forward(ctx, pl, a, off, stride, m, ninst):
    T = ctx.buffer(P_.WORD * ninst * pl["N"] * (pl["P"] + 1))
    _transform(ctx, pl, "pieces", a, off, stride, T, ninst, 0, m)
    return T


def _inverse(ctx, pl, prods, T, ninst):
    """T = the unscaled inverse transform of the products (rows of 2P+1 limbs)."""
    _transform(ctx, pl, "products", prods, 0, 0, T, ninst, 1)


def _tile(ctx, src, dst, words: int, copies: int):
    """dst = `copies` copies of src's first `words` limbs (a kernel, not clEnqueueCopyBuffer,
    which Oclgrind's uninitialized-value check does not see as writing)."""
    total = words * copies
    wg = min(_GROUP, ctx.max_items)
    k = kernel(ctx, "ssa.cl.mako", "ssa_tile", wg, KERNEL="tile", MODE="", Q=1)
    launch(ctx, k, P_.ceil_div(total, wg), wg, src, dst, np.uint64(words), np.uint64(total))


def mul(ctx, a, sa: int, ma: int, b, sb: int, mb: int, n: int, bits: int, pointwise=None):
    """(a * b) mod 2**bits for n instances, as mul_basecase.mul; `pointwise` multiplies the
    batch of residues (default mul_basecase.mul). Raises DoesNotFit when the device cannot."""
    pointwise = pointwise or mul_basecase.mul
    if min(ma, mb, bits) < 1 or min(n, sa, sb) < 0:
        raise ValueError(f"ssa: operands of {ma} and {mb} limbs, {bits} bits, {n} instances, "
                         f"strides {sa}, {sb}: limbs and bits must be positive, the rest >= 0")
    mr = P_.ceil_div(bits, 32)
    out = ctx.empty((n, mr), np.uint32)
    if n == 0:
        return out
    reason = supports(ctx, ma, mb, bits)
    if reason:
        raise DoesNotFit(reason)
    mem, alloc = _limits(ctx)
    if P_.WORD * n * mr > alloc:
        raise DoesNotFit(f"the result ({n} x {mr} limbs) exceeds this device's largest buffer ({alloc} bytes)")
    if n > 1 and sa == 0 and sb == 0:  # both broadcast: one product, copied
        one = mul(ctx, a, 0, ma, b, 0, mb, 1, bits, pointwise)
        _tile(ctx, one.data, out.data, mr, n)
        return out
    pl = plan(ctx, ma, mb, bits)
    N, P = pl["N"], pl["P"]
    row_bytes = P_.WORD * N * (P + 1)
    free = mem - 3 * P_.WORD * n * mr   # the result, the spills, the final sum
    if free < _bytes_per_instance(pl):
        raise DoesNotFit(f"Schönhage–Strassen on {n} instances of {ma} x {mb} limbs needs more "
                         f"than the device memory ({mem} bytes)")
    chunk = min(n, free // _bytes_per_instance(pl), alloc // (P_.WORD * N * (2 * P + 1)))
    square = a.int_ptr == b.int_ptr and sa == sb and ma == mb
    once = {}

    def transform(x, sx, mx, i0, c):
        if sx or c == 1:
            return _forward(ctx, pl, x, i0 * sx, sx, mx, c)
        if x.int_ptr not in once:  # a broadcast operand: transformed once, copied per instance
            once[x.int_ptr] = _forward(ctx, pl, x, 0, 0, mx, 1)
        T = ctx.buffer(c * row_bytes)
        _tile(ctx, once[x.int_ptr], T, N * (P + 1), c)
        return T

    spill = ctx.empty((n, mr), np.uint32)
    for i0 in range(0, n, chunk):
        c = min(chunk, n - i0)
        Ta = transform(a, sa, pl["ma"], i0, c)
        Tb = Ta if square else transform(b, sb, pl["mb"], i0, c)
        prods = pointwise(ctx, Ta, P + 1, P + 1, Tb, P + 1, P + 1, c * N, 32 * (2 * P + 1))
        del Tb
        _inverse(ctx, pl, prods.data, Ta, c)
        del prods
        total = c * mr
        wg = min(_GROUP, ctx.max_items)
        k = kernel(ctx, "ssa.cl.mako", "ssa_recompose", wg, KERNEL="recompose", MODE="", Q=1)
        launch(ctx, k, P_.ceil_div(total, wg), wg, Ta, np.uint32(P), np.uint32(pl["M"]),
               np.uint32(pl["k"]), out.data, spill.data, np.uint32(mr), np.uint64(total),
               np.uint64(i0 * mr))
        del Ta
    res, _ = add_n.addsub(ctx, "add", out.data, mr, mr, spill.data, mr, mr, n, bits)
    return res
