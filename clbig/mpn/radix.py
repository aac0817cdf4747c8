"""Big Python ints to and from the device without re-packing them on the host.

The digits of each int go up as they are (clbig/pyint.py) and the device cuts them into limbs;
results come back as digits, written into new ints sized by the device's bit length (one row:
its bit length and all its digits in one round trip).
Used by clbig.array and BigIntArray.tolist for values of at least FAST_BITS bits, where it
runs at the speed of the transfers instead of int.to_bytes' ~1 GB/s.
"""
from __future__ import annotations

import numpy as np
import pyopencl as cl
import pyopencl.array as cla

from . import pyint
from ..runtime import plan as P
from ..runtime.render import kernel, launch

#: Smaller values are cheaper through to_bytes/from_bytes than through a launch per batch and
#: a digit view per value.
FAST_BITS = 1 << 14


#: A single result of at most this many digits comes back in one round trip, through a host
#: array (_download_one); a larger one reads its bit length first and then its digits straight
#: into the new int, since the host copy costs more than the round trip from there. H200,
#: 2026-11-25, clbig.mul of two Python ints, one process alternating both (.gpu probe): one
#: round trip 787 / 855 / 1309 / 2494 / 12010 µs at 2^16 / 2^20 / 2^22 / 2^24 / 2^26 bits
#: against 1059 / 1085 / 1616 / 2437 / 9759 with the bit length first.
ONE_READ_DIGITS = 1 << 18


def worth_it(bits: int) -> bool:
    return bits >= FAST_BITS and pyint.usable()


def upload(ctx, vals: list, m: int) -> cla.Array:
    """An (n, m) device array of limbs from the Python ints `vals` (validated, each < 2^(32m)).

    One host-to-device copy: the digits of every int and, for several, their counts and
    starts behind them (issue 14: every blocking transfer is a round trip in which the device
    idles; this took three per operand). One int is copied straight from its own digits.
    The copy does not block: the context holds its event, and the event the host array (and
    a view of an int, the int), until the copy is done (Context.hold)."""
    n = len(vals)
    out = ctx.empty((n, m), np.uint32)
    wg = min(256, ctx.max_items)
    if n == 1:
        view = pyint.digits(vals[0]) if vals[0] else np.zeros(0, np.uint32)
        d = ctx.empty(max(1, len(view)), np.uint32)
        if len(view):
            with ctx.enqueuing() as q:
                ctx.hold(cl.enqueue_copy(q, d.data, view, is_blocking=False))
        krn = kernel(ctx, "radix.cl.mako", "digit_row_to_limbs", KERNEL="digits_to_limbs", WG=0)
        launch(ctx, krn, P.ceil_div(m, wg), wg, d.data, np.uint64(len(view)), out.data, np.uint32(m))
        return out
    views = [pyint.digits(v) if v else np.zeros(0, np.uint32) for v in vals]
    counts = np.array([len(v) for v in views], np.uint64)
    offsets = np.zeros(n, np.uint64)
    np.cumsum(counts[:-1], out=offsets[1:])
    total = int(counts.sum())
    meta = [counts.astype(np.uint32), (offsets & 0xFFFFFFFF).astype(np.uint32), (offsets >> 32).astype(np.uint32)]
    host = np.concatenate(views + meta)   # copies while `vals` holds the ints
    d = ctx.empty(len(host), np.uint32)
    with ctx.enqueuing() as q:
        ctx.hold(cl.enqueue_copy(q, d.data, host, is_blocking=False))
    krn = kernel(ctx, "radix.cl.mako", "digits_to_limbs", KERNEL="digits_to_limbs", WG=0)
    gpr = P.ceil_div(m, wg)   # groups per row: the widths are run-time arguments
    launch(ctx, krn, n * gpr, wg, d.data, np.uint64(total), out.data, np.uint32(n), np.uint32(m),
           np.uint32(gpr))
    return out


def bit_lengths(ctx, data: cla.Array) -> np.ndarray:
    """The bit length of every row of an (n, m) limb array, computed on the device."""
    return ctx.get(_bit_lengths(ctx, data))


def _bit_lengths(ctx, data: cla.Array) -> cla.Array:
    n, m = data.shape
    wg = min(256, ctx.max_items)
    krn = kernel(ctx, "radix.cl.mako", "bit_length", work_group=wg, KERNEL="bit_length", WG=wg)
    out = ctx.empty((n,), np.uint64)
    launch(ctx, krn, n, wg, data.data, np.uint64(data.strides[0] // 4), out.data, np.uint32(m))
    return out


def download(ctx, data: cla.Array) -> list[int]:
    """The rows of an (n, m) limb array as Python ints."""
    if data.offset:
        with ctx.enqueuing() as q:
            data = data.copy(queue=q)
    n, m = data.shape
    if n == 1 and pyint.ndigits(32 * m) <= ONE_READ_DIGITS:
        return [_download_one(ctx, data)]
    lengths = bit_lengths(ctx, data)
    nd_max = pyint.ndigits(int(lengths.max(initial=0)))
    if nd_max == 0:
        return [0] * n
    digits = _digits(ctx, data, nd_max)
    if n == 1:   # straight into the new int's digits
        x, view = pyint.blank(nd_max)
        ctx.copy(view, digits.data)
        return [x]
    host = ctx.get(digits)
    return [pyint.from_digits(host[i, :pyint.ndigits(int(b))]) if b else 0
            for i, b in enumerate(lengths)]


def _digits(ctx, data: cla.Array, nd: int) -> cla.Array:
    """An (n, nd) device array of the rows' low nd base-2^30 digits."""
    n, m = data.shape
    digits = ctx.empty((n, nd), np.uint32)
    mm = min(m, P.ceil_div(nd * pyint.DIGIT_BITS, 32))   # limbs the digits come from
    krn = kernel(ctx, "radix.cl.mako", "limbs_to_digits", KERNEL="limbs_to_digits", WG=0)
    wg = min(256, ctx.max_items)
    gpr = P.ceil_div(nd, wg)
    launch(ctx, krn, n * gpr, wg, data.data, np.uint64(data.strides[0] // 4), digits.data,
           np.uint32(n), np.uint32(mm), np.uint32(nd), np.uint32(gpr))
    return digits


def _download_one(ctx, data: cla.Array) -> int:
    """One row as an int from one round trip (issue 14: reading the bit length first and then
    the digits took two): its bit length and all its digits are computed, both reads are
    queued, and the second (blocking) one returns when both are done (an in-order queue)."""
    nd = pyint.ndigits(32 * data.shape[1])
    bits_d = _bit_lengths(ctx, data)
    digits = _digits(ctx, data, nd)
    bits = np.empty(1, np.uint64)
    with ctx.enqueuing() as q:   # both reads on one queue, one after the other
        ev = cl.enqueue_copy(q, bits, bits_d.data, is_blocking=False)
        host, ev2 = digits.get_async(queue=q)
    ev2.wait()
    ev.wait()
    host = host[0]
    top = pyint.ndigits(int(bits[0]))
    return pyint.from_digits(host[:top]) if top else 0
