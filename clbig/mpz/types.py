"""The type vocabulary of the public signatures (type hints only; nothing here runs).

An operand is what every elementwise operation accepts: a BigIntArray, one integer (a Python
int, a gmpy2 mpz, a numpy integer) that broadcasts, a list or tuple of integers, or an integer
numpy array (int8 ... uint64, or object holding ints), converted exactly.
"""
from __future__ import annotations

from typing import TYPE_CHECKING, Sequence, Union

import numpy as np

if TYPE_CHECKING:
    import gmpy2

if TYPE_CHECKING:
    from .array import BigIntArray

#: One integer: int, gmpy2.mpz or a numpy integer scalar.
Integer = Union[int, np.integer, "gmpy2.mpz"]
#: Anything an elementwise operation takes as an operand.
Operand = Union["BigIntArray", Integer, Sequence[Integer], np.ndarray]
#: A shift count or exponent: one integer for the whole batch, or one per element.
Counts = Union[Integer, Sequence[Integer], np.ndarray, "BigIntArray"]

__all__ = ["Integer", "Operand", "Counts"]
