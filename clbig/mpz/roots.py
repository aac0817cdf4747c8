"""gmpy2's root functions with remainders and the square and power tests, on batches (issue 45
item 3): isqrt_rem, iroot_rem and is_square from clbig.isqrt and clbig.iroot on the device;
is_power by gmpy2 on the host, row by row (a perfect-power test needs a root for every prime
index up to the bit length: hundreds of device roots for 2048-bit values, where gmpy2 answers
in microseconds each).
"""
from __future__ import annotations

from typing import TYPE_CHECKING

import gmpy2
import numpy as np

from . import ops
from .array import BigIntArray
from .coerce import coerce, context_of, scalar_call
from .numtheory import _root_index, iroot
from .powers import isqrt, power

if TYPE_CHECKING:
    from .types import Integer, Operand


@scalar_call("x")
def isqrt_rem(x: Operand) -> tuple[BigIntArray, BigIntArray] | tuple[int, int]:
    """(s, x - s**2) with s = isqrt(x) for every value, as `gmpy2.isqrt_rem`.

    Parameters
    ----------
    x : BigIntArray, int, list of int, or integer numpy array
        The values, non-negative.

    Returns
    -------
    tuple
        (roots, remainders) as BigIntArrays; (int, int) for a plain integer.

    Raises
    ------
    ValueError
        Naming the first negative element.

    Examples
    --------
    >>> import clbig
    >>> s, r = clbig.isqrt_rem([0, 10, 16, 2**100 + 5])
    >>> s.tolist(), r.tolist()
    ([0, 3, 4, 1125899906842624], [0, 1, 0, 5])
    """
    a = coerce(x, context_of(x), "x", signed=True)
    s = isqrt(a)
    return s, ops.sub(a, ops.mul(s, s))


@scalar_call("x")
def iroot_rem(x: Operand, n: Integer) -> tuple[BigIntArray, BigIntArray] | tuple[int, int]:
    """(r, x - r**n) with r the integer n-th root of every value, as `gmpy2.iroot_rem`.

    Parameters
    ----------
    x : BigIntArray, int, list of int, or integer numpy array
        The values, non-negative.
    n : int
        The root's index, >= 1, one for the whole batch.

    Returns
    -------
    tuple
        (roots, remainders) as BigIntArrays; (int, int) for a plain integer.

    Raises
    ------
    ValueError
        Naming the first negative element, or for ``n < 1``.
    TypeError
        For an n that is not an integer, or a non-integer operand.

    Examples
    --------
    >>> import clbig
    >>> r, rem = clbig.iroot_rem([10, 27, 2**90 + 1], 3)
    >>> r.tolist(), rem.tolist()
    ([2, 3, 1073741824], [2, 0, 1])
    """
    n = _root_index(n)
    a = coerce(x, context_of(x), "x", signed=True)
    r, _ = iroot(a, n)
    if n >= a.bits:                  # every root is 0 or 1, its power itself (and 1**n would
        return r, ops.sub(a, r)      # be made at capacity n bits: 2**40 of them, say)
    return r, ops.sub(a, power(r, n))


@scalar_call("x")
def is_square(x: Operand) -> np.ndarray | bool:
    """Whether every value is a perfect square, as `gmpy2.is_square` (negative: False).

    Parameters
    ----------
    x : BigIntArray, int, list of int, or integer numpy array
        The values, any signs.

    Returns
    -------
    numpy.ndarray or bool
        numpy bools; a bool for a plain integer.

    Raises
    ------
    TypeError
        For an operand that is not an integer or a sequence of them.

    Examples
    --------
    >>> import clbig
    >>> clbig.is_square([0, 1, 2, 16, -4, 2**200]).tolist()
    [True, True, False, True, False, True]
    """
    a = coerce(x, context_of(x), "x", signed=True)
    neg = a < 0
    mag = abs(a)
    s = isqrt(mag)
    return ops.compare(ops.mul(s, s), mag, "eq") & ~neg


@scalar_call("x")
def is_power(x: Operand) -> np.ndarray | bool:
    """Whether every value is a perfect power a**b with b > 1, as `gmpy2.is_power` (0, 1 and
    -1 are; a negative value is when it is an odd power). Computed by gmpy2 on the host, row by
    row (see the module's doc).

    Parameters
    ----------
    x : BigIntArray, int, list of int, or integer numpy array
        The values, any signs.

    Returns
    -------
    numpy.ndarray or bool
        numpy bools; a bool for a plain integer.

    Raises
    ------
    TypeError
        For an operand that is not an integer or a sequence of them.

    Examples
    --------
    >>> import clbig
    >>> clbig.is_power([0, 1, 2, 8, -8, -4, 3**40]).tolist()
    [True, True, False, True, True, False, True]
    """
    vals = coerce(x, context_of(x), "x", signed=True).tolist(mpz=True)
    return np.fromiter(map(gmpy2.is_power, vals), bool, len(vals))


__all__ = ["iroot_rem", "is_power", "is_square", "isqrt_rem"]
