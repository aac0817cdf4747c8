"""The shared vocabulary of the mpz operations: what an operand is, and how it becomes an array.

Every user-facing operation (ops, powers, bitops, gcd, modular, numtheory, construct, reduce,
fused, npinterop) takes its operands through here, as GMP's own files share gmp-impl.h: the
names are public within clbig.mpz, not part of clbig's API.

 * is_scalar: one integer (int, gmpy2 mpz, numpy integer; a bool is not one);
 * ndarray_values: an integer numpy array as exact Python ints (lists and numpy arrays are
   taken alike), TypeError for floats and booleans;
 * check_unsigned: ValueError naming the first negative value of a list;
 * coerce: any operand as a BigIntArray of a given context (non-negative unless signed);
 * context_of: the context of the first array among the operands, else the current one;
 * operands: two operands coerced to one context and broadcast;
 * scalar_call: a decorator letting an operation take plain integers for its operands (the
   call runs on one-element lists and answers with Python scalars, as gmpy2).
Built on mpz.array (storage), mpz.signs (clean_neg: a -0 is not negative) and mpz.dispatch
(scalar: a one-row result as Python values).
"""
from __future__ import annotations

import functools
import inspect
import numbers

import numpy as np

from . import signs
from .array import BigIntArray, array, check_numpy_batch, negative_error
from .dispatch import scalar
from .types import MPZ
from ..runtime.devices import current_context


def is_scalar(x) -> bool:
    """x is one integer: an int, a gmpy2 mpz or a numpy integer, not a bool."""
    if type(x) is int:   # the common case, without the ABC's isinstance (a microsecond)
        return True
    return isinstance(x, (numbers.Integral, MPZ)) and not isinstance(x, (bool, np.bool_))


def ndarray_values(x: np.ndarray, what: str):
    """An integer numpy array as Python ints: a 0-d array as one int, a 1-d one as a list.
    TypeError for booleans, floats and the rest (numpy's own conversions would round)."""
    if x.ndim > 1:
        raise ValueError(f"{what}: a numpy array of shape {x.shape}; clbig batches are one-dimensional")
    check_numpy_batch(x, what)
    if x.dtype.kind == "O":
        vals = x.tolist()
        flat = vals if x.ndim else [vals]
        for i, v in enumerate(flat):
            if isinstance(v, (bool, np.bool_)) or not isinstance(v, (numbers.Integral, MPZ)):
                raise TypeError(f"{what}: element {i} of an object array is {type(v).__name__}, "
                                "not an integer")
    elif x.dtype.kind in "iu":
        vals = x.tolist()               # Python ints, exact for every integer dtype
    else:
        raise TypeError(f"{what}: a numpy array of dtype {x.dtype}; clbig takes integer arrays "
                        "(int8 ... uint64, or object arrays of ints)")
    return vals


def check_unsigned(values) -> None:
    """ValueError naming the first negative element of a list of ints."""
    for i, v in enumerate(values):
        if not isinstance(v, (bool, np.bool_)) and isinstance(v, (numbers.Integral, MPZ)) and v < 0:
            raise negative_error(i, v)


def coerce(x, ctx, name: str, signed: bool = False) -> BigIntArray:
    """x as a BigIntArray of ctx; unless `signed`, ValueError naming the first negative element
    (the unsigned operations' callers rely on it)."""
    if isinstance(x, BigIntArray):
        if x.ctx is not ctx:
            raise ValueError(f"operand {name} lives in {x.ctx!r}, not in {ctx!r}: arrays from two "
                             "contexts cannot mix")
        if not signed and x.neg is not None:
            neg = signs.clean_neg(x)
            if neg is not None:
                i = int(np.argmax(neg))
                raise ValueError(f"operand {name}: element {i} is negative "
                                 "(this operation takes non-negative integers only)")
        return x
    if isinstance(x, np.ndarray):   # integer arrays as exactly as lists
        x = ndarray_values(x, f"operand {name}")
    if is_scalar(x):
        # One plain integer takes the capacity of its own bit length (at least 1), not whole
        # limbs: x * 3 grows x's capacity by 2 bits, not 32, so a loop of such steps meets few
        # widths (issue 43; docs/semantics.rst, "Capacities").
        if not signed:
            check_unsigned([x])
        return array([x], bits=max(1, abs(int(x)).bit_length()), ctx=ctx)
    if not isinstance(x, (list, tuple)):
        raise TypeError(f"operand {name}: expected a BigIntArray, an int, a list of ints or an "
                        f"integer numpy array, got {type(x).__name__}")
    if not signed:
        check_unsigned(x)
    return array(x, ctx=ctx)


def context_of(*xs):
    """The context of the first BigIntArray among xs, else the current context."""
    for x in xs:
        if isinstance(x, BigIntArray):
            return x.ctx
    return current_context()


def operands(a, b, signed: bool = False):
    """Coerce two operands to arrays of one context and broadcast their lengths (negative
    values only where `signed`). Returns (a, b, n, stride_a, stride_b)."""
    ctx = context_of(a, b)
    same = b is a
    a = coerce(a, ctx, "a", signed)
    b = a if same else coerce(b, ctx, "b", signed)   # x * x uploads once and multiplies as a square
    na, nb = len(a), len(b)
    if na != nb and na != 1 and nb != 1:
        raise ValueError(f"length mismatch: {na} and {nb} (broadcasting needs equal lengths or length 1)")
    n = nb if na == 1 else na
    sa = 0 if (na == 1 and n != 1) else a.m
    sb = 0 if (nb == 1 and n != 1) else b.m
    return a, b, n, sa, sb


def scalar_call(*names: str, counts: tuple[str, ...] = (), then=None):
    """Let an operation take plain integers (is_scalar) for its operands, as gmpy2's functions.

    A call in which every parameter of `names` and `counts` (a parameter left out counts by
    its default) is a plain integer runs with each of `names` as a one-element list, `counts`
    as given (a shift or bit position: one for the batch), and returns that one row as Python
    values (`scalar`: an int, a bool, a tuple of them), passed through `then` where given.
    Any other call runs as written. Outermost where the operation also carries dispatch.rows,
    so that the one-row call goes through it as a call of the operation itself.
    """
    def deco(fn):
        sig = inspect.signature(fn).parameters
        order = list(sig)
        spots = [(order.index(p), p, sig[p].default, p in names) for p in (*names, *counts)]

        @functools.wraps(fn)
        def call(*args, **kw):
            for i, p, d, _ in spots:
                if not is_scalar(args[i] if i < len(args) else kw.get(p, d)):
                    return fn(*args, **kw)
            args = list(args)
            for i, p, d, wrap in spots:
                if wrap and i < len(args):
                    args[i] = [args[i]]
                elif wrap:
                    kw[p] = [kw.get(p, d)]
            r = scalar(fn(*args, **kw))
            return r if then is None else then(r)
        return call
    return deco
