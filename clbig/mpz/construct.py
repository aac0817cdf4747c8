"""Building arrays: clbig.zeros, clbig.full, clbig.concatenate, clbig.where (issue #37).

Rows are moved on the device by clbig/mpz/rowops.py's gather; signs are chosen on the host."""
from __future__ import annotations

import numbers
from typing import TYPE_CHECKING, Iterable

import numpy as np

from . import rowops
from .array import BigIntArray, array, check_bits, check_context, check_fits, from_limbs, limbs_for
from .coerce import coerce, context_of
from .types import MPZ
from ..runtime.devices import current_context

if TYPE_CHECKING:
    from ..runtime.devices import Context
    from .types import Integer, Operand


def _count(n, what: str) -> int:
    """A batch length: a non-negative integer (bool is not one)."""
    if isinstance(n, (bool, np.bool_)) or not isinstance(n, (numbers.Integral, MPZ)):
        raise TypeError(f"{what}: n must be a non-negative integer, got {type(n).__name__} {n!r}")
    if n < 0:
        raise ValueError(f"{what}: n must be a non-negative integer, got {n}")
    return int(n)


def zeros(n: int, bits: int = 1, ctx: Context | None = None) -> BigIntArray:
    """An array of n zeros, filled on the device (nothing crosses the bus).

    Parameters
    ----------
    n : int
        The number of elements, 0 or more.
    bits : int, optional
        The capacity in bits (default 1): give the width the array should have as an
        operand, since results take their capacity from their operands'.
    ctx : Context, optional
        Where the array lives (default: the current context).

    Returns
    -------
    BigIntArray
        n zeros of capacity `bits`.

    Raises
    ------
    TypeError
        For an `n` or `bits` that is not an integer (bool included), or a `ctx` that is
        not a Context.
    ValueError
        For a negative `n` or ``bits < 1``.
    OverflowError
        For more than 2**32 - 1 elements.
    MemoryError
        Where the batch does not fit one buffer of the device.

    Examples
    --------
    >>> import clbig
    >>> clbig.zeros(3)
    BigIntArray([0, 0, 0], n=3, bits=1)
    >>> clbig.zeros(2, bits=100).bits
    100
    """
    n, bits = _count(n, "clbig.zeros"), check_bits(bits)
    ctx = check_context(ctx) or current_context()
    if getattr(ctx, "is_multi", False):
        return from_limbs(np.zeros((n, limbs_for(bits)), np.uint32), bits=bits, ctx=ctx)
    check_fits(ctx, n, bits, "clbig.zeros")
    return BigIntArray(ctx, ctx.zeros((n, limbs_for(bits)), np.uint32), bits)


def full(n: int, value: Integer, bits: int | None = None, ctx: Context | None = None) -> BigIntArray:
    """An array of n copies of one integer, of any sign.

    One row is uploaded and copied n times on the device.

    Parameters
    ----------
    n : int
        The number of elements, 0 or more.
    value : int or gmpy2.mpz or numpy integer
        The value of every element.
    bits : int, optional
        The capacity in bits (default: the value's, as `clbig.array` chooses it: its bit
        length rounded up to whole 32-bit limbs).
    ctx : Context, optional
        Where the array lives (default: the current context).

    Returns
    -------
    BigIntArray
        n copies of `value`.

    Raises
    ------
    TypeError
        For an `n` or `value` that is not an integer (bool included).
    ValueError
        For a negative `n` or ``bits < 1``.
    OverflowError
        Where `value` does not fit `bits`.

    Examples
    --------
    >>> import clbig
    >>> clbig.full(3, -5)
    BigIntArray([-5, -5, -5], n=3, bits=32)
    >>> clbig.full(2, 5, bits=70).bits
    70
    """
    n = _count(n, "clbig.full")
    if not isinstance(value, (numbers.Integral, MPZ)) or isinstance(value, (bool, np.bool_)):
        raise TypeError(f"clbig.full: value must be an integer, got {type(value).__name__}")
    one = array([value], bits=bits, ctx=ctx)
    if not getattr(one.ctx, "is_multi", False):
        check_fits(one.ctx, n, one.bits, "clbig.full")    # before n indices are made on the host
    return rowops.take(one, np.zeros(n, np.int64))


def _as_array(x, ctx, what: str) -> BigIntArray:
    return coerce(x, ctx, what, signed=True)


def _context_for(xs, ctx):
    """The given `ctx` (checked), else the operands' context (coerce.context_of)."""
    return context_of(*xs) if ctx is None else check_context(ctx)


def concatenate(arrays: Iterable[Operand], ctx: Context | None = None) -> BigIntArray:
    """The elements of several arrays one after another, as numpy's concatenate.

    The rows are copied on the device; the result takes the widest capacity of the inputs.
    Signs are kept.

    Parameters
    ----------
    arrays : iterable of BigIntArray, list of int, or integer numpy array
        At least one array; each a sequence of integers, not one integer.
    ctx : Context, optional
        Where the result lives (default: the first BigIntArray's context, else the current
        one).

    Returns
    -------
    BigIntArray
        ``sum(len(a) for a in arrays)`` elements of capacity ``max(a.bits for a in arrays)``.

    Raises
    ------
    TypeError
        Where `arrays` is one BigIntArray, a string or not iterable, or an element is not
        an integer.
    ValueError
        For no array at all, or an entry that is one integer instead of a sequence.

    Examples
    --------
    >>> import clbig, numpy as np
    >>> clbig.concatenate([clbig.array([1, 2]), [-3], np.array([4, 5])])
    BigIntArray([1, 2, -3, 4, 5], n=5, bits=32)
    >>> clbig.concatenate([[1], [2**40]]).bits
    64
    """
    if isinstance(arrays, (BigIntArray, str, bytes)) or not hasattr(arrays, "__iter__"):
        raise TypeError("clbig.concatenate expects a sequence of arrays, got "
                        f"{type(arrays).__name__}")
    arrays = list(arrays)
    if not arrays:
        raise ValueError("clbig.concatenate: need at least one array to concatenate")
    ctx = _context_for(arrays, ctx)
    got = []
    for i, a in enumerate(arrays):
        if not isinstance(a, BigIntArray) and (isinstance(a, (numbers.Integral, MPZ))
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


def where(cond: np.ndarray | Iterable[bool], x: Operand, y: Operand,
          ctx: Context | None = None) -> BigIntArray:
    """Per element, x where the condition holds, else y, as numpy's where.

    The rows are chosen and copied on the device. Each of `x`, `y` and `cond` has the
    length of the others or length one, which broadcasts (a plain int is length one).

    Parameters
    ----------
    cond : numpy.ndarray of bool
        The condition, one-dimensional (a comparison's result, such as ``x > 0``, or a list
        of bools).
    x, y : BigIntArray, int, list of int, or integer numpy array
        The values taken where `cond` is true and where it is false; any signs.
    ctx : Context, optional
        Where the result lives (default: the first BigIntArray's context, else the current
        one).

    Returns
    -------
    BigIntArray
        The chosen values, of capacity ``max(x.bits, y.bits)``.

    Raises
    ------
    TypeError
        For a condition that is not boolean (integers included), or a non-integer operand.
    ValueError
        For a condition of more than one dimension, or lengths that differ and are not one.

    Examples
    --------
    >>> import clbig
    >>> x = clbig.array([1, -5, 7])
    >>> clbig.where(x > 0, x, 0).tolist()
    [1, 0, 7]
    >>> clbig.where([True, False, True], x, [10, 20, 30]).tolist()
    [1, 20, 7]
    """
    c = condition(cond, "clbig.where")
    ctx = _context_for((x, y), ctx)
    xa, ya = _as_array(x, ctx, "x"), _as_array(y, ctx, "y")
    n = len(c)
    long = {len(v) for v in (xa, ya) if len(v) != 1}
    if n == 1 and len(long) > 1:
        raise ValueError(f"clbig.where: x has {len(xa)} elements, y {len(ya)} (lengths must match "
                         "or be one)")
    if n == 1 and long:                   # a one-element condition broadcasts too, to 0 rows too
        n = long.pop()
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
