"""Big Python ints to and from the device without re-packing them on the host.

The digits of each int go up as they are (clbig/pyint.py) and the device cuts them into limbs;
results come back as digits, written straight into new ints sized by the device's bit length.
Used by clbig.array and BigIntArray.tolist for values of at least FAST_BITS bits, where it
runs at the speed of the transfers instead of int.to_bytes' ~1 GB/s.
"""
from __future__ import annotations

import numpy as np
import pyopencl as cl
import pyopencl.array as cla

from . import pyint
from . import plan as P
from .render import kernel, launch

#: Smaller values are cheaper through to_bytes/from_bytes than through a launch per batch and
#: a digit view per value.
FAST_BITS = 1 << 14


def worth_it(bits: int) -> bool:
    return bits >= FAST_BITS and pyint.usable()


def upload(ctx, vals: list, m: int) -> cla.Array:
    """An (n, m) device array of limbs from the Python ints `vals` (validated, each < 2^(32m))."""
    n = len(vals)
    views = [pyint.digits(v) if v else np.zeros(0, np.uint32) for v in vals]
    counts = np.array([len(v) for v in views], np.uint32)
    offsets = np.zeros(n, np.uint64)
    np.cumsum(counts[:-1], out=offsets[1:])
    total = int(counts.sum())
    out = ctx.empty((n, m), np.uint32)
    d = ctx.empty(max(1, total), np.uint32)
    # the views point into the ints: copy while `vals` holds them, before returning
    host = views[0] if n == 1 else np.concatenate(views)
    if total:
        cl.enqueue_copy(ctx.queue, d.data, host, is_blocking=True)
    off_d = ctx.to_device(offsets)
    cnt_d = ctx.to_device(counts)
    krn = kernel(ctx, "radix.cl.mako", "digits_to_limbs", KERNEL="digits_to_limbs", M=m, ND=0, WG=0)
    wg = min(256, ctx.max_items)
    launch(ctx, krn, P.ceil_div(n * m, wg), wg, d.data, off_d.data, cnt_d.data, out.data, np.uint32(n))
    return out


def bit_lengths(ctx, data: cla.Array) -> np.ndarray:
    """The bit length of every row of an (n, m) limb array, computed on the device."""
    n, m = data.shape
    wg = min(256, ctx.max_items)
    krn = kernel(ctx, "radix.cl.mako", "bit_length", work_group=wg, KERNEL="bit_length", M=m, ND=0, WG=wg)
    out = ctx.empty((n,), np.uint64)
    launch(ctx, krn, n, wg, data.data, np.uint64(data.strides[0] // 4), out.data)
    return out.get(queue=ctx.queue)


def download(ctx, data: cla.Array) -> list[int]:
    """The rows of an (n, m) limb array as Python ints."""
    if data.offset:
        data = data.copy(queue=ctx.queue)
    n, m = data.shape
    lengths = bit_lengths(ctx, data)
    nd_max = pyint.ndigits(int(lengths.max(initial=0)))
    if nd_max == 0:
        return [0] * n
    digits = ctx.empty((n, nd_max), np.uint32)
    mm = min(m, P.ceil_div(nd_max * pyint.DIGIT_BITS, 32))   # limbs the digits come from
    krn = kernel(ctx, "radix.cl.mako", "limbs_to_digits", KERNEL="limbs_to_digits", M=mm, ND=nd_max, WG=0)
    wg = min(256, ctx.max_items)
    launch(ctx, krn, P.ceil_div(n * nd_max, wg), wg, data.data, np.uint64(data.strides[0] // 4),
           digits.data, np.uint32(n))
    if n == 1:   # straight into the new int's digits
        x, view = pyint.blank(nd_max)
        cl.enqueue_copy(ctx.queue, view, digits.data, is_blocking=True)
        return [x]
    host = digits.get(queue=ctx.queue)
    return [pyint.from_digits(host[i, :pyint.ndigits(int(b))]) if b else 0
            for i, b in enumerate(lengths)]
