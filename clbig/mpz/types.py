"""The type vocabulary of the mpz layer: the hints of the public signatures, and `MPZ`.

An operand is what every elementwise operation accepts: a BigIntArray, one integer (a Python
int, a gmpy2 mpz, a numpy integer) that broadcasts, a list or tuple of integers, or an integer
numpy array (int8 ... uint64, or object holding ints), converted exactly.

The hints run nothing; `MPZ` is the one runtime name here, kept at the bottom of mpz (below
mpz.array, which needs it) so that every module checks integers against the same type.
"""
from __future__ import annotations

from typing import TYPE_CHECKING, Sequence, Union

import gmpy2  # noqa: F401 (the hints name gmpy2.mpz)
import numpy as np

from ..mpn import convert as _convert

if TYPE_CHECKING:
    from .array import BigIntArray

#: gmpy2's mpz type, for isinstance (defined once, in mpn.convert).
MPZ = _convert.MPZ

#: One integer: int, gmpy2.mpz or a numpy integer scalar.
Integer = Union[int, np.integer, "gmpy2.mpz"]
#: Anything an elementwise operation takes as an operand.
Operand = Union["BigIntArray", Integer, Sequence[Integer], np.ndarray]
#: A shift count or exponent: one integer for the whole batch, or one per element.
Counts = Union[Integer, Sequence[Integer], np.ndarray, "BigIntArray"]

__all__ = ["Integer", "Operand", "Counts"]
