"""The Legendre and Kronecker symbols on batches (issue 45 item 3), from clbig.jacobi on the
device. Kronecker's symbol extends Jacobi's to every n: with n = sgn(n) 2^e n' (n' odd),

    (a / n) = (a / sgn(n)) (a / 2)^e (a / n'),   (a / -1) = -1 for a < 0,
    (a / 2) = 0 for even a, 1 for a = +-1 mod 8, -1 for a = +-3 mod 8,   (a / 0) = [|a| = 1].
"""
from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from . import bitops, ops
from .bitfuncs import bit_scan1
from .coerce import operands, scalar_call
from .construct import where
from .numtheory import _full, jacobi

if TYPE_CHECKING:
    from .types import Operand


@scalar_call("x", "y")
def legendre(x: Operand, y: Operand) -> np.ndarray | int:
    """The Legendre symbol (x / y) of every pair, as `gmpy2.legendre`: y must be odd and
    positive (meant prime; as gmpy2, primality is not checked and the Jacobi symbol results).

    Parameters
    ----------
    x, y : BigIntArray, int, list of int, or integer numpy array
        The numerators (any signs) and the odd positive denominators; each the batch's length
        or length one.

    Returns
    -------
    numpy.ndarray or int
        numpy int8 of -1, 0, 1; an int for two plain integers.

    Raises
    ------
    ValueError
        Naming the first index where y is even or not positive; for lengths that differ and
        are not one.

    Examples
    --------
    >>> import clbig
    >>> clbig.legendre([3, 2, 14, -1], [7, 7, 7, 7]).tolist()
    [-1, 1, 0, -1]
    """
    a, p, _, _, _ = operands(x, y, signed=True)
    bad = (p < 0) | ops.compare(bitops.bitwise("and", p, 1), 0, "eq")
    if bad.any():
        raise ValueError(f"legendre: y must be odd and > 0, not at index {int(np.argmax(bad))}")
    return jacobi(a, p)


@scalar_call("x", "y")
def kronecker(x: Operand, y: Operand) -> np.ndarray | int:
    """The Kronecker symbol (x / y) of every pair, as `gmpy2.kronecker`: any y, even, negative
    or zero (see the module's doc for the rule).

    Parameters
    ----------
    x, y : BigIntArray, int, list of int, or integer numpy array
        Any signs; each the batch's length or length one.

    Returns
    -------
    numpy.ndarray or int
        numpy int8 of -1, 0, 1; an int for two plain integers.

    Raises
    ------
    ValueError
        For lengths that differ and are not one.

    Examples
    --------
    >>> import clbig
    >>> clbig.kronecker([3, -3, 3, 1, 2, 5], [8, -8, 0, 0, 6, 12]).tolist()
    [-1, 1, 0, 1, 0, -1]
    """
    a, n, cnt, _, _ = operands(x, y, signed=True)
    if cnt == 0:
        return np.zeros(0, np.int8)
    a, n = _full(a, cnt), _full(n, cnt)
    zero = ops.compare(n, 0, "eq")
    mag = abs(n)
    if zero.any():                                # (a / 0) is set below: any odd n' will do
        mag = where(zero, 1, mag)
    e = bit_scan1(mag)                            # n = sgn(n) 2^e n'
    j = jacobi(a, ops.shift_right(mag, e)).astype(np.int64)
    a8 = ops.mod(a, 8).to_limbs()[:, 0].astype(np.int64)
    half = np.where(a8 % 2 == 0, 0, np.where((a8 == 1) | (a8 == 7), 1, -1))     # (a / 2)
    two = np.where(e == 0, 1, np.where(e % 2 == 1, half, half * half))
    sgn = np.where((n < 0) & (a < 0), -1, 1)
    unit = ops.compare(abs(a), 1, "eq").astype(np.int64)
    return np.where(zero, unit, j * two * sgn).astype(np.int8)


__all__ = ["kronecker", "legendre"]
