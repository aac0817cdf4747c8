"""Building arrays: clbig.zeros, clbig.full, clbig.concatenate, clbig.where (issue #37).

Rows are moved on the device by clbig/mpz/rowops.py's gather; signs are chosen on the host."""
from __future__ import annotations

import numbers

import numpy as np

from . import rowops
from .array import BigIntArray, _MPZ, array, check_bits, check_context, check_fits, from_limbs, limbs_for
from ..runtime.devices import current_context


def _count(n, what: str) -> int:
    """A batch length: a non-negative integer (bool is not one)."""
    if isinstance(n, (bool, np.bool_)) or not isinstance(n, (numbers.Integral, _MPZ)):
        raise TypeError(f"{what}: n must be a non-negative integer, got {type(n).__name__} {n!r}")
    if n < 0:
        raise ValueError(f"{what}: n must be a non-negative integer, got {n}")
    return int(n)


def zeros(n, bits: int = 1, ctx=None) -> BigIntArray:
    """n zeros of capacity `bits` (default 1), filled on the device."""
    n, bits = _count(n, "clbig.zeros"), check_bits(bits)
    ctx = check_context(ctx) or current_context()
    if getattr(ctx, "is_multi", False):
        return from_limbs(np.zeros((n, limbs_for(bits)), np.uint32), bits=bits, ctx=ctx)
    check_fits(ctx, n, bits, "clbig.zeros")
    return BigIntArray(ctx, ctx.zeros((n, limbs_for(bits)), np.uint32), bits)


def full(n, value, bits: int | None = None, ctx=None) -> BigIntArray:
    """n copies of the integer `value` (any sign), capacity `bits` (default: value's, as
    clbig.array); one row is uploaded and copied n times on the device."""
    n = _count(n, "clbig.full")
    if not isinstance(value, (numbers.Integral, _MPZ)) or isinstance(value, (bool, np.bool_)):
        raise TypeError(f"clbig.full: value must be an integer, got {type(value).__name__}")
    one = array([value], bits=bits, ctx=ctx)
    return rowops.take(one, np.zeros(n, np.int64))


def _as_array(x, ctx, what: str) -> BigIntArray:
    from .ops import _coerce
    return _coerce(x, ctx, what, signed=True)


def _context_of(xs, ctx):
    if ctx is not None:
        return check_context(ctx)
    for x in xs:
        if isinstance(x, BigIntArray):
            return x.ctx
    return current_context()


def concatenate(arrays, ctx=None) -> BigIntArray:
    """The rows of every array in `arrays` (BigIntArrays, lists, integer numpy arrays) one
    after another, at the widest capacity, copied on the device."""
    if isinstance(arrays, (BigIntArray, str, bytes)) or not hasattr(arrays, "__iter__"):
        raise TypeError("clbig.concatenate expects a sequence of arrays, got "
                        f"{type(arrays).__name__}")
    arrays = list(arrays)
    if not arrays:
        raise ValueError("clbig.concatenate: need at least one array to concatenate")
    ctx = _context_of(arrays, ctx)
    got = []
    for i, a in enumerate(arrays):
        if not isinstance(a, BigIntArray) and (isinstance(a, (numbers.Integral, _MPZ))
                                                or np.ndim(a) == 0):
            raise ValueError(f"clbig.concatenate: array {i} is a scalar ({type(a).__name__}), "
                             "not a sequence of integers")
        got.append(_as_array(a, ctx, f"arrays[{i}]"))
    return rowops.concat(got, ctx)


def condition(cond, what: str) -> np.ndarray:
    """A where/mask condition as a 1-d numpy bool array; TypeError for anything but booleans."""
    c = np.asarray(cond)
    if c.size == 0:
        c = c.astype(bool)          # [] reads as float64
    if c.dtype != np.bool_:
        raise TypeError(f"{what}: the condition must be a numpy bool array (a comparison's "
                        f"result), got dtype {c.dtype}")
    if c.ndim > 1:
        raise ValueError(f"{what}: the condition must be one-dimensional, got shape {c.shape}")
    return c.reshape(-1)


def where(cond, x, y, ctx=None) -> BigIntArray:
    """x where cond, else y, per element: cond a bool array (a comparison's result), x and y
    arrays, ints or lists of length len(cond) or one (broadcast). Capacity max(x.bits, y.bits)."""
    c = condition(cond, "clbig.where")
    ctx = _context_of((x, y), ctx)
    xa, ya = _as_array(x, ctx, "x"), _as_array(y, ctx, "y")
    n = len(c)
    if n == 1 and (len(xa) != 1 or len(ya) != 1):   # a one-element condition broadcasts too
        n = max(len(xa), len(ya))
        c = np.broadcast_to(c, (n,))
    for name, v in (("x", xa), ("y", ya)):
        if len(v) not in (n, 1):
            raise ValueError(f"clbig.where: {name} has {len(v)} elements, the condition {n} "
                             "(lengths must match or be one)")
    i = np.arange(n, dtype=np.int64)
    ix = i if len(xa) == n else np.zeros(n, np.int64)
    iy = i if len(ya) == n else np.zeros(n, np.int64)
    src = rowops.concat([xa, ya], ctx)
    return rowops.take(src, np.where(c, ix, len(xa) + iy))
