"""gmpy2's divisions by rounding (issue 45 item 3), on batches: t_div, c_div, f_div (quotients
truncated, rounded up, rounded down), their powers-of-two forms t_div_2exp, c_div_2exp and
f_div_2exp, and divexact. Each is composed of the device's floor division and shifts (Python's
rounding, clbig.floordiv and >>) and sign changes, so it is exact wherever those are:

    f(x, y) = x // y            c(x, y) = -((-x) // y)       t(x, y) = sgn(x y) (|x| // |y|)

Plain int (or mpz) arguments give a plain int; otherwise a BigIntArray. Operands broadcast as
elsewhere. A zero divisor is a ZeroDivisionError naming its index, as clbig.floordiv's.
"""
from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from . import ops
from .array import BigIntArray
from .coerce import coerce, context_of, is_scalar, operands, scalar_call
from .dispatch import rows
from .signs import with_neg

if TYPE_CHECKING:
    from .types import Counts, Operand


@scalar_call("x", "y")
def f_div(x: Operand, y: Operand) -> BigIntArray | int:
    """The quotient rounded toward minus infinity, as `gmpy2.f_div` (Python's ``//``).

    Parameters
    ----------
    x, y : BigIntArray, int, list of int, or integer numpy array
        Dividends and divisors, any signs; each the batch's length or length one.

    Returns
    -------
    BigIntArray or int
        ``floor(x / y)``; an int for two plain integers.

    Raises
    ------
    ZeroDivisionError
        Naming the first index where y is 0.
    ValueError
        For lengths that differ and are not one.

    Examples
    --------
    >>> import clbig
    >>> clbig.f_div([7, -7, 7, -7], [2, 2, -2, -2]).tolist()
    [3, -4, -4, 3]
    """
    return ops.floordiv(x, y)


@scalar_call("x", "y")
def c_div(x: Operand, y: Operand) -> BigIntArray | int:
    """The quotient rounded toward plus infinity, as `gmpy2.c_div`.

    Parameters
    ----------
    x, y : BigIntArray, int, list of int, or integer numpy array
        Dividends and divisors, any signs; each the batch's length or length one.

    Returns
    -------
    BigIntArray or int
        ``ceil(x / y)``; an int for two plain integers.

    Raises
    ------
    ZeroDivisionError
        Naming the first index where y is 0.
    ValueError
        For lengths that differ and are not one.

    Examples
    --------
    >>> import clbig
    >>> clbig.c_div([7, -7, 7, -7, 6], [2, 2, -2, -2, 3]).tolist()
    [4, -3, -3, 4, 2]
    """
    a, b, _, _, _ = operands(x, y, signed=True)
    return -ops.floordiv(-a, b)


@scalar_call("x", "y")
@rows("div")   # the signs are set per device where the rows are split
def t_div(x: Operand, y: Operand) -> BigIntArray | int:
    """The quotient rounded toward zero, as `gmpy2.t_div` (C's ``/``).

    Parameters
    ----------
    x, y : BigIntArray, int, list of int, or integer numpy array
        Dividends and divisors, any signs; each the batch's length or length one.

    Returns
    -------
    BigIntArray or int
        ``trunc(x / y)``; an int for two plain integers.

    Raises
    ------
    ZeroDivisionError
        Naming the first index where y is 0.
    ValueError
        For lengths that differ and are not one.

    Examples
    --------
    >>> import clbig
    >>> clbig.t_div([7, -7, 7, -7], [2, 2, -2, -2]).tolist()
    [3, -3, -3, 3]
    """
    a, b, _, _, _ = operands(x, y, signed=True)
    q = ops.floordiv(abs(a), abs(b))
    flip = (a < 0) != (b < 0)          # numpy bools, broadcast by numpy
    return with_neg(q, np.broadcast_to(flip, (len(q),)).copy())   # signs only: no launch


def _exp(n, what: str, noun: str = "the power of two"):
    """A shift count (or one per row) as gmpy2 takes it: one int (a 0-d numpy array too), or
    a list of them; TypeError naming the index of an element that is not an integer,
    OverflowError naming the index of a negative one."""
    if isinstance(n, np.ndarray) and n.ndim == 0:
        n = n[()]
    if is_scalar(n):
        if int(n) < 0:
            raise OverflowError(f"{what}: {noun} must be >= 0, got {n}")
        return int(n)
    if not isinstance(n, (BigIntArray, np.ndarray, list, tuple, range)):
        raise TypeError(f"{what}: {noun} must be an integer or a sequence of them, got "
                        f"{type(n).__name__}")
    if isinstance(n, np.ndarray) and n.ndim != 1:
        raise ValueError(f"{what}: one per row must be one-dimensional, got shape {n.shape}")
    vals = n.tolist() if isinstance(n, (BigIntArray, np.ndarray)) else list(n)
    for i, v in enumerate(vals):
        if not is_scalar(v):
            raise TypeError(f"{what}: {noun} at index {i} must be an integer, got "
                            f"{type(v).__name__}")
        if v < 0:
            raise OverflowError(f"{what}: {noun} must be >= 0, got {v} at index {i}")
    return [int(v) for v in vals]


@scalar_call("x", counts=("n",))
def f_div_2exp(x: Operand, n: Counts) -> BigIntArray | int:
    """x divided by 2**n rounded toward minus infinity, as `gmpy2.f_div_2exp` (``x >> n``).

    Parameters
    ----------
    x : BigIntArray, int, list of int, or integer numpy array
        The values, any signs.
    n : int, or a sequence or numpy array of them
        The powers of two, >= 0: one for the batch or one per row.

    Returns
    -------
    BigIntArray or int
        ``floor(x / 2**n)``; an int for a plain integer x and n.

    Raises
    ------
    OverflowError
        For a negative n, as gmpy2.
    ValueError
        For lengths that differ and are not one.

    Examples
    --------
    >>> import clbig
    >>> clbig.f_div_2exp([7, -7, 2**100], 1).tolist()
    [3, -4, 633825300114114700748351602688]
    """
    n = _exp(n, "f_div_2exp")
    return ops.shift_right(coerce(x, context_of(x), "x", signed=True), n)


@scalar_call("x", counts=("n",))
def c_div_2exp(x: Operand, n: Counts) -> BigIntArray | int:
    """x divided by 2**n rounded toward plus infinity, as `gmpy2.c_div_2exp`.

    Parameters
    ----------
    x : BigIntArray, int, list of int, or integer numpy array
        The values, any signs.
    n : int, or a sequence or numpy array of them
        The powers of two, >= 0: one for the batch or one per row.

    Returns
    -------
    BigIntArray or int
        ``ceil(x / 2**n)``; an int for a plain integer x and n.

    Raises
    ------
    OverflowError
        For a negative n, as gmpy2.
    ValueError
        For lengths that differ and are not one.

    Examples
    --------
    >>> import clbig
    >>> clbig.c_div_2exp([7, -7, 8], 1).tolist()
    [4, -3, 4]
    """
    n = _exp(n, "c_div_2exp")
    a = coerce(x, context_of(x), "x", signed=True)
    return -ops.shift_right(-a, n)


@scalar_call("x", counts=("n",))
@rows("div")   # the signs are set per device where the rows are split
def t_div_2exp(x: Operand, n: Counts) -> BigIntArray | int:
    """x divided by 2**n rounded toward zero, as `gmpy2.t_div_2exp`.

    Parameters
    ----------
    x : BigIntArray, int, list of int, or integer numpy array
        The values, any signs.
    n : int, or a sequence or numpy array of them
        The powers of two, >= 0: one for the batch or one per row.

    Returns
    -------
    BigIntArray or int
        ``trunc(x / 2**n)``; an int for a plain integer x and n.

    Raises
    ------
    OverflowError
        For a negative n, as gmpy2.
    ValueError
        For lengths that differ and are not one.

    Examples
    --------
    >>> import clbig
    >>> clbig.t_div_2exp([7, -7, -8], 1).tolist()
    [3, -3, -4]
    """
    n = _exp(n, "t_div_2exp")
    a = coerce(x, context_of(x), "x", signed=True)
    q = ops.shift_right(abs(a), n)
    neg = np.broadcast_to(a < 0, (len(q),)).copy()   # one x against a list of shifts
    return with_neg(q, neg)


@scalar_call("x", "y")
@rows("div")   # the signs are set per device where the rows are split
def divexact(x: Operand, y: Operand) -> BigIntArray | int:
    """The quotient of x by a divisor y known to divide it, as `gmpy2.divexact`.

    Where y does not divide x, gmpy2's result is unspecified; clbig's is then ``t_div(x,
    y)``, the quotient rounded toward zero (GMP's exact division also truncates).

    Parameters
    ----------
    x, y : BigIntArray, int, list of int, or integer numpy array
        Dividends and divisors, any signs; each the batch's length or length one.

    Returns
    -------
    BigIntArray or int
        ``x / y``; an int for two plain integers.

    Raises
    ------
    ZeroDivisionError
        Naming the first index where y is 0.
    ValueError
        For lengths that differ and are not one.

    Examples
    --------
    >>> import clbig
    >>> clbig.divexact([12, -12, 2**100], [4, 3, 2**60]).tolist()
    [3, -4, 1099511627776]
    """
    return t_div(x, y)


__all__ = ["c_div", "c_div_2exp", "divexact", "f_div", "f_div_2exp", "t_div", "t_div_2exp"]
