"""gmpy2's single-bit functions on batches (issue 45 item 3): bit_test, bit_set, bit_clear,
bit_flip, bit_scan0, bit_scan1 and popcount. Negative values are read in two's complement with
infinitely many sign bits, as gmpy2 and Python's bitwise operators read them; each function is
composed of clbig's signed bitwise operators and shifts on the device:

    bit_test(x, n)  = (x >> n) & 1          bit_set(x, n) = x | 2**n
    bit_clear(x, n) = x & ~2**n             bit_flip(x, n) = x ^ 2**n
    bit_scan1(x, n) = n + tz(x >> n)        tz(y) = popcount((y & -y) - 1), none where y = 0
    bit_scan0(x, n) = bit_scan1(~x, n)      popcount(x) = -1 where x < 0

Bit positions are one int for the batch or one per row, >= 0 (a negative one is an
OverflowError, as gmpy2's). Plain int arguments give plain results (bool, int, or None where
gmpy2 gives None); otherwise numpy arrays for flags and positions (-1 where gmpy2 gives None)
and BigIntArrays for values.
"""
from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from . import bitops, ops
from .array import BigIntArray
from .coerce import coerce, context_of, is_scalar, scalar_call
from .numtheory import bit_count
from .rounding import _exp

if TYPE_CHECKING:
    from .types import Counts, Operand


def _x(x) -> BigIntArray:
    return coerce(x, context_of(x), "x", signed=True)


#: Up to this bit position 2**n is made on the host as a plain int; beyond, on the device, whose
#: size check names the limit (a host int of 2**40 bits would take 128 GiB first).
HOST_BIT_MAX = 1 << 16


def _bit(x: BigIntArray, n):
    """2**n, one for the batch (a plain int, or a one-row array for a far position) or per row
    (a BigIntArray)."""
    return 1 << n if is_scalar(n) and n <= HOST_BIT_MAX else ops.shift_left(1, n)


@scalar_call("x", counts=("n",))
def bit_test(x: Operand, n: Counts) -> np.ndarray | bool:
    """Whether bit n of every value is set, as `gmpy2.bit_test` (two's complement for
    negative values).

    Parameters
    ----------
    x : BigIntArray, int, list of int, or integer numpy array
        The values, any signs.
    n : int, or a sequence or numpy array of them
        Bit positions, >= 0: one for the batch or one per row.

    Returns
    -------
    numpy.ndarray or bool
        numpy bools; a bool for a plain integer x and n.

    Raises
    ------
    OverflowError
        For a negative bit position, as gmpy2.
    ValueError
        For lengths that differ and are not one.

    Examples
    --------
    >>> import clbig
    >>> clbig.bit_test([5, 5, -1, -2], [0, 1, 1000, 0]).tolist()
    [True, False, True, False]
    """
    n = _exp(n, "bit_test", "the bit index")
    return ops.compare(bitops.bitwise("and", ops.shift_right(_x(x), n), 1), 1, "eq")


@scalar_call("x", counts=("n",))
def _with_bit(op: str, x, n, name: str):
    n = _exp(n, name, "the bit index")
    a = _x(x)
    b = _bit(a, n)
    if op == "andnot":
        return bitops.bitwise("and", a, ~b)
    return bitops.bitwise(op, a, b)


def bit_set(x: Operand, n: Counts) -> BigIntArray | int:
    """Every value with bit n set, as `gmpy2.bit_set` (``x | 2**n``).

    Parameters
    ----------
    x : BigIntArray, int, list of int, or integer numpy array
        The values, any signs (two's complement).
    n : int, or a sequence or numpy array of them
        Bit positions, >= 0: one for the batch or one per row.

    Returns
    -------
    BigIntArray or int
        The new values; an int for a plain integer x and n.

    Raises
    ------
    OverflowError
        For a negative bit position, as gmpy2.
    ValueError
        For lengths that differ and are not one.

    Examples
    --------
    >>> import clbig
    >>> clbig.bit_set([0, 5, -8], [3, 0, 1]).tolist()
    [8, 5, -6]
    """
    return _with_bit("or", x, n, "bit_set")


def bit_clear(x: Operand, n: Counts) -> BigIntArray | int:
    """Every value with bit n cleared, as `gmpy2.bit_clear` (``x & ~2**n``).

    Parameters
    ----------
    x : BigIntArray, int, list of int, or integer numpy array
        The values, any signs (two's complement).
    n : int, or a sequence or numpy array of them
        Bit positions, >= 0: one for the batch or one per row.

    Returns
    -------
    BigIntArray or int
        The new values; an int for a plain integer x and n.

    Raises
    ------
    OverflowError
        For a negative bit position, as gmpy2.
    ValueError
        For lengths that differ and are not one.

    Examples
    --------
    >>> import clbig
    >>> clbig.bit_clear([15, -1, 4], [0, 0, 1]).tolist()
    [14, -2, 4]
    """
    return _with_bit("andnot", x, n, "bit_clear")


def bit_flip(x: Operand, n: Counts) -> BigIntArray | int:
    """Every value with bit n flipped, as `gmpy2.bit_flip` (``x ^ 2**n``).

    Parameters
    ----------
    x : BigIntArray, int, list of int, or integer numpy array
        The values, any signs (two's complement).
    n : int, or a sequence or numpy array of them
        Bit positions, >= 0: one for the batch or one per row.

    Returns
    -------
    BigIntArray or int
        The new values; an int for a plain integer x and n.

    Raises
    ------
    OverflowError
        For a negative bit position, as gmpy2.
    ValueError
        For lengths that differ and are not one.

    Examples
    --------
    >>> import clbig
    >>> clbig.bit_flip([0, 1, -1], [2, 0, 64]).tolist()
    [4, 0, -18446744073709551617]
    """
    return _with_bit("xor", x, n, "bit_flip")


def _found(i: int) -> int | None:
    """gmpy2's answer for a bit index: None where there is none (-1)."""
    return None if i < 0 else i


def _start(n, what: str):
    """A scan's start (or one per row), checked as _exp does; OverflowError naming the first
    one beyond 2**63 - 1, where gmpy2 goes on to 2**64 - 1: the answers are int64."""
    n = _exp(n, what, "the bit index")
    for i, v in enumerate([n] if is_scalar(n) else n):
        if v > np.iinfo(np.int64).max:
            raise OverflowError(f"{what}: the start {v}{'' if is_scalar(n) else f' at index {i}'} "
                                "is beyond 2**63 - 1 (the answers are int64)")
    return n


def _scan1(a: BigIntArray, n) -> np.ndarray:
    y = ops.shift_right(a, n)
    low = bitops.bitwise("and", y, -y)                  # the lowest set bit, 0 where y = 0
    found = ops.compare(low, 0, "ne")
    tz = bit_count(ops.sub(low, found.astype(np.int64).tolist()))   # (low - 1), 0 where none
    start = np.asarray(n, np.int64) if not is_scalar(n) else np.int64(n)
    return np.where(found, tz + start, -1).astype(np.int64)


@scalar_call("x", counts=("n",), then=_found)
def bit_scan1(x: Operand, n: Counts = 0) -> np.ndarray | int | None:
    """The index of the first set bit at or above n, as `gmpy2.bit_scan1` (two's complement
    for negative values, which always have one).

    Parameters
    ----------
    x : BigIntArray, int, list of int, or integer numpy array
        The values, any signs.
    n : int, or a sequence or numpy array of them, optional
        Where to start, >= 0 (default 0): one for the batch or one per row.

    Returns
    -------
    numpy.ndarray or int or None
        numpy int64 indices, -1 where there is none; for a plain integer x and n an int, or
        None as gmpy2.

    Raises
    ------
    OverflowError
        For a negative start, as gmpy2.
    ValueError
        For lengths that differ and are not one.

    Examples
    --------
    >>> import clbig
    >>> clbig.bit_scan1([8, 0, -8, 12], [0, 0, 0, 3]).tolist(), clbig.bit_scan1(0)
    ([3, -1, 3, 3], None)
    """
    return _scan1(_x(x), _start(n, "bit_scan1"))


@scalar_call("x", counts=("n",), then=_found)
def bit_scan0(x: Operand, n: Counts = 0) -> np.ndarray | int | None:
    """The index of the first clear bit at or above n, as `gmpy2.bit_scan0` (two's complement
    for negative values, which may have none).

    Parameters
    ----------
    x : BigIntArray, int, list of int, or integer numpy array
        The values, any signs.
    n : int, or a sequence or numpy array of them, optional
        Where to start, >= 0 (default 0): one for the batch or one per row.

    Returns
    -------
    numpy.ndarray or int or None
        numpy int64 indices, -1 where there is none; for a plain integer x and n an int, or
        None as gmpy2.

    Raises
    ------
    OverflowError
        For a negative start, as gmpy2.
    ValueError
        For lengths that differ and are not one.

    Examples
    --------
    >>> import clbig
    >>> clbig.bit_scan0([7, 0, -1, -8], [0, 0, 0, 1]).tolist(), clbig.bit_scan0(-1)
    ([3, 0, -1, 1], None)
    """
    return _scan1(~_x(x), _start(n, "bit_scan0"))


@scalar_call("x")
def popcount(x: Operand) -> np.ndarray | int:
    """The number of set bits of every value, as `gmpy2.popcount`: -1 for a negative value
    (infinitely many in two's complement).

    Parameters
    ----------
    x : BigIntArray, int, list of int, or integer numpy array
        The values, any signs.

    Returns
    -------
    numpy.ndarray or int
        numpy int64 counts; an int for a plain integer.

    Raises
    ------
    TypeError
        For an operand that is not an integer or a sequence of them.

    Examples
    --------
    >>> import clbig
    >>> clbig.popcount([0, 255, -1, 2**100 + 1]).tolist(), clbig.popcount(7)
    ([0, 8, -1, 2], 3)
    """
    a = _x(x)
    return np.where(a < 0, -1, bit_count(a)).astype(np.int64)


__all__ = ["bit_clear", "bit_flip", "bit_scan0", "bit_scan1", "bit_set", "bit_test", "popcount"]
