"""Fills the table BigIntArray's operators and methods call through (mpz.array's `impl`).

BigIntArray (mpz.array) names each of its operators in its class body, as a one-line call
through `impl`. The functions they call live in the modules built on mpz.array (index, show,
signs, ops, powers, modular, bitops, numtheory, reduce, npinterop), which import it, so it
cannot import them: this module, at the top of mpz, imports them all and hands them to
`array.install` once, when clbig.mpz is imported. `install` takes exactly the names the table
declares (array.IMPL_NAMES), so a function left out or misspelt fails here, at import.
"""
from __future__ import annotations

from . import array, bitops, index, modular, npinterop, numtheory, ops, powers, reduce, show, signs

array.install(
    getitem=index.getitem,
    setitem=index.setitem,
    repr=show.bigint_repr,
    sign=signs.sign, negative=signs.negative, invert=signs.invert,
    add=ops.add, sub=ops.sub, mul=ops.mul, floordiv=ops.floordiv, mod=ops.mod, divmod=ops.divmod,
    shift_left=ops.shift_left, shift_right=ops.shift_right, compare=ops.compare,
    power=powers.power,
    powmod=modular.powmod,
    bitwise=bitops.bitwise,
    bit_count=numtheory.bit_count,
    trim=reduce.trim, sum=reduce.sum, prod=reduce.prod, min=reduce.min, max=reduce.max,
    argmin=reduce.argmin, argmax=reduce.argmax, sort=reduce.sort, argsort=reduce.argsort,
    to_numpy=npinterop.to_numpy, array_ufunc=npinterop.array_ufunc,
    array_function=npinterop.array_function,
)
