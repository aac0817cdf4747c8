"""BigIntArray's operators and sign(): bound onto the class when clbig.mpz is imported.

The storage type (mpz.array) knows nothing of the operations; they live in ops, signs and
modular, which are built on it. Binding here keeps every import pointing down.
"""
from __future__ import annotations

import numpy as np

from . import bitops, index, modular, npinterop, numtheory, ops, powers, reduce, signs
from .show import bigint_repr
from .array import BigIntArray


class _Operators:
    def __getitem__(self, i):
        """An element (int), a slice, a boolean mask or integer indices (negative as numpy's;
        out of range: IndexError naming the index), gathered on the device."""
        if isinstance(i, (list, np.ndarray, BigIntArray)):
            return index.getitem(self, i)
        return self._basic_getitem(i)

    def __repr__(self):
        return bigint_repr(self)

    def __int__(self):
        """The value of a one-element array as a Python int (TypeError for other lengths)."""
        if len(self) != 1:
            raise TypeError(f"only a one-element BigIntArray converts to an int; this one has {len(self)}")
        return self.tolist()[0]

    def __bool__(self):
        """numpy's rule: the element's truth for a one-element array; ValueError for any other
        length (the truth of several values, or of none, is ambiguous). Without this, Python
        would call __len__ and call [0] true."""
        if len(self) != 1:
            raise ValueError(f"the truth value of a BigIntArray with {len(self)} elements is "
                             "ambiguous: use (x != 0).any() or (x != 0).all()")
        return bool(self.sign()[0])

    def __index__(self):
        """operator.index of a one-element array (TypeError for other lengths), as for int().
        `[3] * x` still multiplies: Python asks x.__rmul__ before list repetition."""
        if len(self) != 1:
            raise TypeError(f"only a one-element BigIntArray is an index; this one has {len(self)}")
        return self.tolist()[0]

    def sign(self) -> np.ndarray:
        """-1, 0 or 1 per element (numpy int8), like GMP's mpz_sgn."""
        return signs.sign(self)

    def bit_count(self) -> np.ndarray:
        """Set bits of every abs(x) (int.bit_count), a numpy int64 array (clbig.bit_count)."""
        return numtheory.bit_count(self)

    def __add__(self, o):
        return ops.add(self, o)

    def __radd__(self, o):
        return ops.add(o, self)

    def __sub__(self, o):
        return ops.sub(self, o)

    def __rsub__(self, o):
        return ops.sub(o, self)

    def __mul__(self, o):
        return ops.mul(self, o)

    def __rmul__(self, o):
        return ops.mul(o, self)

    def __lshift__(self, k):
        return ops.shift_left(self, k)

    def __rshift__(self, k):
        return ops.shift_right(self, k)

    def __rlshift__(self, o):
        """o << self: each element a shift count (1 << clbig.array([1, 2, 3]))."""
        return ops.shift_left(o, self)

    def __rrshift__(self, o):
        return ops.shift_right(o, self)

    def _cmp(self, o, which):
        return ops.compare(self, o, which)

    def __lt__(self, o):
        return self._cmp(o, "lt")

    def __le__(self, o):
        return self._cmp(o, "le")

    def __gt__(self, o):
        return self._cmp(o, "gt")

    def __ge__(self, o):
        return self._cmp(o, "ge")

    def __eq__(self, o):
        return self._cmp(o, "eq")

    def __ne__(self, o):
        return self._cmp(o, "ne")

    def __floordiv__(self, o):
        return ops.floordiv(self, o)

    def __rfloordiv__(self, o):
        return ops.floordiv(o, self)

    def __mod__(self, o):
        return ops.mod(self, o)

    def __rmod__(self, o):
        return ops.mod(o, self)

    def __pow__(self, e, m=None):
        if m is None:
            return powers.power(self, e)
        return modular.powmod(self, e, m)

    def __rpow__(self, o, m=None):
        """o ** self: each element an exponent (2 ** clbig.array([1, 2, 3]))."""
        if m is None:
            return powers.power(o, self)
        return modular.powmod(o, self, m)

    def __neg__(self):
        return signs.negative(self)

    def __pos__(self):
        return self.__copy__()

    def __abs__(self):
        return BigIntArray(self.ctx, self.data, self.bits)

    def __invert__(self):
        return signs.invert(self)

    def __and__(self, o):
        return bitops.bitwise("and", self, o)

    def __rand__(self, o):
        return bitops.bitwise("and", o, self)

    def __or__(self, o):
        return bitops.bitwise("or", self, o)

    def __ror__(self, o):
        return bitops.bitwise("or", o, self)

    def __xor__(self, o):
        return bitops.bitwise("xor", self, o)

    def __rxor__(self, o):
        return bitops.bitwise("xor", o, self)

    def __divmod__(self, o):
        return ops.divmod(self, o)

    def __rdivmod__(self, o):
        return ops.divmod(o, self)

    def copy(self) -> "BigIntArray":
        """An independent copy (on the device)."""
        return self.__deepcopy__({})

    def trim(self) -> "BigIntArray":
        """The values at the smallest capacity that holds them (at least 1 bit)."""
        return reduce.trim(self)

    # -- reductions and orderings (clbig/mpz/reduce.py) ----------------------------------------
    def sum(self) -> int:
        """The exact sum, a Python int (clbig.sum)."""
        return reduce.sum(self)

    def prod(self) -> int:
        """The exact product, a Python int (clbig.prod)."""
        return reduce.prod(self)

    def min(self) -> int:
        """The smallest element, a Python int (clbig.min); ValueError for an empty batch."""
        return reduce.min(self)

    def max(self) -> int:
        """The largest element, a Python int (clbig.max); ValueError for an empty batch."""
        return reduce.max(self)

    def argmin(self) -> int:
        """The index of the first smallest element (clbig.argmin); ValueError if empty."""
        return reduce.argmin(self)

    def argmax(self) -> int:
        """The index of the first largest element (clbig.argmax); ValueError if empty."""
        return reduce.argmax(self)

    def sort(self) -> "BigIntArray":
        """A sorted copy (stable; unlike ndarray.sort, never in place)."""
        return reduce.sort(self)

    def argsort(self) -> np.ndarray:
        """The stable ascending order, numpy int64 (clbig.argsort)."""
        return reduce.argsort(self)

    # -- numpy's protocols (clbig/mpz/npinterop.py) --------------------------------------------
    def __array__(self, dtype=None, copy=None):
        return npinterop.to_numpy(self, dtype, copy)

    def __array_ufunc__(self, ufunc, method, *inputs, **kwargs):
        return npinterop.array_ufunc(self, ufunc, method, inputs, kwargs)

    def __array_function__(self, func, types, args, kwargs):
        return npinterop.array_function(self, func, types, args, kwargs)


def bind(cls=BigIntArray) -> None:
    """Put the operators on `cls` (BigIntArray; its subclasses inherit them)."""
    for name, fn in vars(_Operators).items():
        if callable(fn):
            setattr(cls, name, fn)


bind()
