"""Factorials, Fibonacci numbers and binomial coefficients of batches (issue 45 item 3), as
gmpy2's fac, fib and comb. Each value comes from gmpy2 on the host, row by row, and the batch
goes to the device at once: the arguments are machine-sized integers whose results are large,
and GMP's algorithms for one such value (binary splitting, the prime-power product) are
faster than anything clbig would run per row. The point is the batch form and the array that
results, ready for the next device operation.
"""
from __future__ import annotations

import operator
from typing import TYPE_CHECKING

import gmpy2
import numpy as np

from ..runtime.devices import current_context
from .array import BigIntArray, array, check_fits, host_free
from .coerce import context_of, is_scalar, ndarray_values

if TYPE_CHECKING:
    from .types import Counts


#: gmpy2's fac, fib and comb take C unsigned longs (64 bits on the platforms clbig runs on).
ULONG_MAX = 2**64 - 1


def _args(n, what: str, nonneg: bool = True, ulong: bool = True) -> list:
    """The arguments as Python ints (a BigIntArray's values too); OverflowError naming the
    first negative one, or (ulong) one above 2**64 - 1, where gmpy2 would raise it."""
    if isinstance(n, np.ndarray) and n.ndim == 0:
        n = n[()]                                       # a 0-d array: one argument
    if isinstance(n, BigIntArray):
        vals = n.tolist()
    elif isinstance(n, (str, bytes, bytearray, dict, set, frozenset)):   # iterable, not of integers
        raise TypeError(f"{what} expects an integer or a sequence of them, got {type(n).__name__}")
    elif is_scalar(n) or not hasattr(n, "__iter__"):   # numpy integer scalars too; a float is
        vals = [n]                                      # refused below, naming its type
    elif hasattr(n, "dtype"):
        vals = list(ndarray_values(n, what))
    else:
        vals = list(n)
    out = []
    for i, v in enumerate(vals):
        if isinstance(v, bool) or not isinstance(v, int) and not hasattr(v, "__index__"):
            raise TypeError(f"{what}: element {i} is {type(v).__name__}, not an integer")
        v = operator.index(v)
        if nonneg and v < 0:
            raise OverflowError(f"{what}: element {i} is negative ({v}); it must be >= 0")
        if ulong and v > ULONG_MAX:
            raise OverflowError(f"{what}: element {i} is {v}, beyond gmpy2's limit of 2**64 - 1")
        out.append(int(v))
    return out


#: GMP's largest integer, in bits (INT_MAX limbs of 64 bits): past it GMP aborts the process.
GMP_MAX_BITS = (2**31 - 1) * 64


def _comb_bits(n: int, k: int) -> int:
    """An upper bound on the bits of C(n, k) (k >= 0): C(m, j) <= min(2^m, m^j), with
    C(-n, k) = +-C(n + k - 1, k)."""
    m = n if n >= 0 else k - n - 1
    if k > m:
        return 1
    j = min(k, m - k)
    return min(m, j * max(1, m.bit_length())) + 1


def _fits(what: str, bounds: list, *args) -> None:
    """Refuse, before gmpy2 computes anything, results whose bits (bounded from above per row)
    one buffer of the device cannot hold (array.check_fits' MemoryError, naming the size and
    the limits), or past GMP's own limit (OverflowError: GMP would abort the process)."""
    if not bounds:
        return
    most = max(bounds)
    if most > GMP_MAX_BITS:
        i = bounds.index(most)
        raise OverflowError(f"{what}: element {i}'s result would have about {most} bits, past "
                            f"GMP's limit of {GMP_MAX_BITS}")
    like = next((a for a in args if isinstance(a, BigIntArray)), None)
    ctx = context_of(like) if like is not None else current_context()
    for c in getattr(ctx, "contexts", None) or (ctx,):
        check_fits(c, len(bounds), most, what)
    free = host_free()
    need = 3 * (sum(bounds) + most) // 8          # the values, and GMP's scratch for the largest
    if free is not None and need > free:
        raise MemoryError(f"{what}: the results need about {need / 2**30:.3g} GiB of host memory "
                          f"while GMP computes them, and {free / 2**30:.3g} GiB is free (GMP would "
                          "abort the process)")


def _result(values: list, *args) -> BigIntArray | int:
    """The one value for plain-integer arguments (no device involved), else the values as an
    array of the first BigIntArray argument's context (the current one where there is none)."""
    if all(is_scalar(a) or isinstance(a, np.ndarray) and a.ndim == 0 for a in args):
        return values[0]
    like = next((a for a in args if isinstance(a, BigIntArray)), None)
    return array(values, ctx=None if like is None else context_of(like))


def fac(n: Counts) -> BigIntArray | int:
    """n! of every element, as `gmpy2.fac` (gmpy2 on the host per row; see the module's doc).

    Parameters
    ----------
    n : int, sequence of int, integer numpy array, or BigIntArray
        The arguments, >= 0.

    Returns
    -------
    BigIntArray or int
        The factorials; an int for a plain integer.

    Raises
    ------
    OverflowError
        Naming the first negative argument or one above 2**64 - 1 (gmpy2's exception type).
    TypeError
        For an argument that is not an integer.

    Examples
    --------
    >>> import clbig
    >>> clbig.fac([0, 1, 5, 20]).tolist(), clbig.fac(25)
    ([1, 1, 120, 2432902008176640000], 15511210043330985984000000)
    """
    vals = _args(n, "fac")
    _fits("fac", [v * max(1, v.bit_length()) + 1 for v in vals], n)     # n! < n^n
    return _result([int(gmpy2.fac(v)) for v in vals], n)


def fib(n: Counts) -> BigIntArray | int:
    """The n-th Fibonacci number of every element, as `gmpy2.fib` (F_0 = 0, F_1 = 1; gmpy2 on
    the host per row).

    Parameters
    ----------
    n : int, sequence of int, integer numpy array, or BigIntArray
        The arguments, >= 0.

    Returns
    -------
    BigIntArray or int
        The Fibonacci numbers; an int for a plain integer.

    Raises
    ------
    OverflowError
        Naming the first negative argument or one above 2**64 - 1 (gmpy2's exception type).
    TypeError
        For an argument that is not an integer.

    Examples
    --------
    >>> import clbig
    >>> clbig.fib([0, 1, 2, 10, 100]).tolist()
    [0, 1, 1, 55, 354224848179261915075]
    """
    vals = _args(n, "fib")
    _fits("fib", [v * 7 // 10 + 2 for v in vals], n)                   # F_n < 1.619^n
    return _result([int(gmpy2.fib(v)) for v in vals], n)


def binomial(n: Counts, k: Counts) -> BigIntArray | int:
    """The binomial coefficient C(n, k) of every pair, as `gmpy2.comb` (n may be negative:
    C(-n, k) = (-1)^k C(n + k - 1, k); k > n >= 0 gives 0; gmpy2 on the host per row).

    Parameters
    ----------
    n : int, sequence of int, integer numpy array, or BigIntArray
        The upper arguments, any signs and sizes.
    k : int, sequence of int, integer numpy array, or BigIntArray
        The lower arguments, >= 0; each of n and k the batch's length or length one.

    Returns
    -------
    BigIntArray or int
        The coefficients; an int for plain integers.

    Raises
    ------
    OverflowError
        Naming the first negative k or one above 2**64 - 1 (gmpy2's exception type).
    ValueError
        For lengths that differ and are not one.
    TypeError
        For an argument that is not an integer.

    Examples
    --------
    >>> import clbig
    >>> clbig.binomial([5, 5, -3, 2**70], [2, 7, 2, 2]).tolist()
    [10, 0, 6, 696898287454081973172400900209902591410176]
    """
    ns, ks = _args(n, "binomial n", nonneg=False, ulong=False), _args(k, "binomial k")
    if len(ns) != len(ks) and len(ns) != 1 and len(ks) != 1:
        raise ValueError(f"length mismatch: {len(ns)} and {len(ks)} (broadcasting needs equal "
                         "lengths or length 1)")
    cnt = max(len(ns), len(ks)) if ns and ks else 0
    ns, ks = ns * cnt if len(ns) == 1 else ns, ks * cnt if len(ks) == 1 else ks
    _fits("binomial", [_comb_bits(a, b) for a, b in zip(ns, ks)], n, k)
    return _result([int(gmpy2.comb(a, b)) for a, b in zip(ns, ks)], n, k)


__all__ = ["binomial", "fac", "fib"]
