"""numpy's protocols for BigIntArray (issue #33 item 1): no numpy function returns a value
computed from a BigIntArray through int64 or float64.

 * __array_ufunc__: the ufuncs clbig has run as clbig's own exact operations and give
   BigIntArrays (numpy bool arrays for comparisons, int8 for sign); `.reduce` of add,
   multiply, minimum and maximum gives clbig's sum / prod / min / max (a Python int). Every
   other ufunc, ufunc method (accumulate, outer, at, reduceat) or keyword that would ask for
   a fixed-width result (out=, dtype=, where= other than True, ...) is a TypeError naming it.
 * __array__: an object array of exact Python ints; an integer or float dtype only where it
   holds every value exactly, else TypeError naming the first element that does not fit.
 * __array_function__: np.sum, np.prod, np.min, np.max, np.argmin, np.argmax, np.sort,
   np.argsort, np.concatenate, np.where, np.copy, np.take, np.nonzero ... go to clbig's own
   function; any other numpy function is a TypeError naming it.
 * operands: integer numpy arrays (int8 ... uint64, object arrays of ints) are taken as lists
   are, converted exactly (mpz.coerce.ndarray_values).
Because BigIntArray defines __array_ufunc__, `ndarray + a` calls np.add(ndarray, a), which
comes here: the result is a BigIntArray, not an object array.
"""
from __future__ import annotations

import builtins
import numbers

import numpy as np

from . import bitops, construct, index, ops, powers, reduce, rowops
from .array import BigIntArray, array
from .coerce import ndarray_values
from .gcd import gcd
from .types import MPZ


# -- __array__ ----------------------------------------------------------------------------
def to_numpy(x: BigIntArray, dtype=None, copy=None) -> np.ndarray:
    """x as a numpy array: object dtype of Python ints by default; another dtype only where
    every value converts exactly."""
    if copy is False:
        raise ValueError("a BigIntArray cannot become a numpy array without a copy "
                         "(its values are on the device); use np.asarray or copy=None")
    vals = x.tolist()
    dt = np.dtype(object) if dtype is None else np.dtype(dtype)
    if dt.kind == "O":
        out = np.empty(len(vals), dtype=object)
        out[:] = vals
        return out
    if dt.kind in "iu":
        info = np.iinfo(dt)
        for i, v in enumerate(vals):
            if not info.min <= v <= info.max:
                raise TypeError(f"BigIntArray to numpy {dt}: element {i} ({_show(v)}) does not fit "
                                f"{dt} (use dtype=object for exact Python ints)")
        return np.array(vals, dtype=dt)
    if dt.kind in "fc":
        out = np.empty(len(vals), dtype=dt)
        for i, v in enumerate(vals):
            try:
                f = dt.type(v)
                exact = np.isfinite(f) and int(f.real) == v
            except OverflowError:
                exact = False
            if not exact:
                raise TypeError(f"BigIntArray to numpy {dt}: element {i} ({_show(v)}) is not exactly "
                                f"a {dt} (use dtype=object for exact Python ints)")
            out[i] = f
        return out
    raise TypeError(f"BigIntArray to numpy {dt}: only integer, float (where exact) and object "
                    "dtypes hold integers")


def _show(v: int) -> str:
    return str(v) if abs(v).bit_length() <= 64 else f"a value of {abs(v).bit_length()} bits"


# -- operands -----------------------------------------------------------------------------
class _Defer(Exception):
    """An operand of a type that may handle the ufunc itself: return NotImplemented."""


def _operand(v, what: str):
    """A ufunc operand as clbig takes it: BigIntArray, Python int, or list of ints."""
    if isinstance(v, BigIntArray):
        return v
    if isinstance(v, (bool, np.bool_)):
        raise TypeError(f"{what}: a boolean operand; clbig's operations take integers")
    if isinstance(v, (numbers.Integral, MPZ)):
        return int(v) if isinstance(v, np.integer) else v
    if isinstance(v, np.ndarray):
        return ndarray_values(v, what)
    if isinstance(v, (list, tuple)):
        return list(v)
    if isinstance(v, (float, complex, np.inexact)):
        raise TypeError(f"{what}: a {type(v).__name__} operand; clbig's operations are exact "
                        "on integers only")
    if hasattr(v, "__array_ufunc__"):
        raise _Defer
    raise TypeError(f"{what}: an operand of type {type(v).__name__}")


def _scalar_base(x):
    """A scalar base or shifted value as a one-element array (then broadcast)."""
    if isinstance(x, BigIntArray):
        return x
    return array(x if isinstance(x, list) else [x])


def _broadcast(r: BigIntArray, n: int) -> BigIntArray:
    if len(r) == 1 and n != 1:
        return rowops.take(r, np.zeros(n, np.int64))
    return r


def _length(v) -> int:
    return len(v) if isinstance(v, (BigIntArray, list)) else 1


def _power(a, e):
    """np.power: one exponent or one per element (clbig.mpz.powers.power)."""
    n = max(_length(a), _length(e))
    return _broadcast(powers.power(_scalar_base(a), e), n)


def _shift(left: bool):
    def f(a, k):
        n = max(_length(a), _length(k))
        fn = ops.shift_left if left else ops.shift_right
        return _broadcast(fn(_scalar_base(a), k), n)
    return f


def _extreme(larger: bool):
    def f(a, b):
        return construct.where(ops.compare(a, b, "ge" if larger else "le"), a, b)
    return f


def _cmp(which):
    def f(a, b):
        return ops.compare(a, b, which)
    return f


def _bitwise(op):
    def f(a, b):
        return bitops.bitwise(op, a, b)
    return f


_BINARY = {
    np.add: ops.add, np.subtract: ops.sub, np.multiply: ops.mul,
    np.floor_divide: ops.floordiv, np.remainder: ops.mod, np.divmod: ops.divmod,
    np.power: _power, np.left_shift: _shift(True), np.right_shift: _shift(False),
    np.bitwise_and: _bitwise("and"), np.bitwise_or: _bitwise("or"), np.bitwise_xor: _bitwise("xor"),
    np.less: _cmp("lt"), np.less_equal: _cmp("le"), np.greater: _cmp("gt"),
    np.greater_equal: _cmp("ge"), np.equal: _cmp("eq"), np.not_equal: _cmp("ne"),
    np.maximum: _extreme(True), np.minimum: _extreme(False), np.gcd: gcd,
}
_UNARY = {
    np.negative: lambda x: -x, np.positive: lambda x: +x, np.absolute: abs,
    np.invert: lambda x: ~x, np.sign: lambda x: x.sign(), np.square: lambda x: x * x,
}


_REDUCE = {np.add: reduce.sum, np.multiply: reduce.prod, np.minimum: reduce.min,
           np.maximum: reduce.max}


# Keywords a ufunc call may carry at their defaults (numpy passes only those given).
_CALL_DEFAULTS = {"casting": "same_kind", "order": "K", "subok": True, "signature": None}


def _check_call_kw(ufunc, kw: dict) -> None:
    for k, v in kw.items():
        if k == "out":
            if v is None or (isinstance(v, tuple) and all(o is None for o in v)):
                continue
            raise TypeError(f"numpy.{ufunc.__name__} on a BigIntArray: out= is not supported "
                            "(results are new exact arrays; assign the result instead)")
        if k == "where":
            if v is True:
                continue
            raise TypeError(f"numpy.{ufunc.__name__} on a BigIntArray: where= is not supported "
                            "(use clbig.where on the result)")
        if k == "dtype":
            if v is None:
                continue
            raise TypeError(f"numpy.{ufunc.__name__} on a BigIntArray: dtype={v!r} is not "
                            "supported (results are exact integers)")
        if k in _CALL_DEFAULTS and (v == _CALL_DEFAULTS[k] if isinstance(v, str) else v is _CALL_DEFAULTS[k]):
            continue
        raise TypeError(f"numpy.{ufunc.__name__} on a BigIntArray: keyword {k}={v!r} is not supported")


def array_ufunc(self: BigIntArray, ufunc, method: str, inputs, kw):
    """BigIntArray.__array_ufunc__ (see module doc)."""
    name = f"numpy.{ufunc.__name__}"
    if method == "reduce":
        return _reduce(ufunc, inputs, kw)
    if method != "__call__":
        raise TypeError(f"{name}.{method} is not supported on a BigIntArray (only calls, and "
                        "reduce of add, multiply, minimum, maximum)")
    table = _UNARY if ufunc.nin == 1 else _BINARY
    fn = table.get(ufunc)
    if fn is None:
        raise TypeError(f"{name} is not supported on a BigIntArray: clbig has no exact "
                        "integer version of it")
    _check_call_kw(ufunc, kw)
    try:
        xs = [_operand(v, f"{name}, operand {i}") for i, v in enumerate(inputs)]
    except _Defer:
        return NotImplemented
    try:
        return fn(*xs)
    except TypeError as e:   # clbig's own refusal, said as the ufunc's
        if name in str(e):
            raise
        raise TypeError(f"{name}: {e}") from e


def _reduce(ufunc, inputs, kw):
    name = f"numpy.{ufunc.__name__}.reduce"
    fn = _REDUCE.get(ufunc)
    if fn is None:
        raise TypeError(f"{name} is not supported on a BigIntArray (clbig reduces with add, "
                        "multiply, minimum and maximum)")
    initial = None
    for k, v in kw.items():
        if k == "axis" and (v is None or (isinstance(v, (int, np.integer)) and v in (0, -1))
                            or v == (0,)):
            continue
        if k in ("dtype", "out") and (v is None or v == (None,)):
            continue
        if (k == "keepdims" and v is False) or (k == "where" and v is True):
            continue
        if k == "initial":
            initial = _operand(v, f"{name}, initial")
            if not isinstance(initial, (int, MPZ)):
                raise TypeError(f"{name}: initial must be an integer")
            continue
        raise TypeError(f"{name} on a BigIntArray: keyword {k}={v!r} is not supported")
    (x,) = inputs
    if initial is None:
        return fn(x)
    return _with_initial(ufunc, fn, x, int(initial))


def _with_initial(ufunc, fn, x, initial: int):
    if not len(x):
        return initial
    got = fn(x)
    if ufunc is np.add:
        return got + initial
    if ufunc is np.multiply:
        return got * initial
    return (builtins.max if ufunc is np.maximum else builtins.min)(got, initial)


# -- __array_function__ --------------------------------------------------------------------
def _no(kwargs: dict, fname: str, **allowed) -> None:
    """TypeError for any keyword not at a value the exact function satisfies trivially.
    allowed: name -> predicate of the value."""
    for k, v in kwargs.items():
        ok = allowed.get(k)
        if ok is None or not ok(v):
            raise TypeError(f"numpy.{fname} on a BigIntArray: keyword {k}={v!r} is not supported")


def _axis0(v):
    return v is None or (isinstance(v, (int, np.integer)) and v in (0, -1))


def _none(v):
    return v is None


def _false(v):
    return v is False


def _true(v):
    return v is True


def _any(v):
    return True


def _reduction(fname: str, fn, with_initial: bool = True):
    def f(a, **kw):
        allowed = dict(axis=_axis0, dtype=_none, out=_none, keepdims=_false, where=_true)
        if with_initial:
            allowed["initial"] = _any
        initial = kw.pop("initial", None) if with_initial else None
        _no(kw, fname, **allowed)
        x = reduce._batch(a, f"numpy.{fname}")
        if initial is None:
            return fn(x)
        ufunc = {"sum": np.add, "prod": np.multiply, "min": np.minimum, "max": np.maximum}[fname]
        return _with_initial(ufunc, fn, x, int(_operand(initial, f"numpy.{fname}, initial")))
    return f


def _arg(fname, fn):
    def f(a, **kw):
        _no(kw, fname, axis=_axis0, out=_none, keepdims=_false)
        return fn(a)
    return f


def _ordering(fname, fn):
    def f(a, **kw):
        _no(kw, fname, axis=_axis0, kind=_any, order=_none, stable=lambda v: v is None or v is True)
        return fn(a)   # stable whatever kind asks: a stable sort satisfies them all
    return f


def _np_concatenate(arrays, **kw):
    _no(kw, "concatenate", axis=_axis0, out=_none, dtype=_none, casting=lambda v: v == "same_kind")
    return construct.concatenate(arrays)


def _np_where(cond, *xy):
    if isinstance(cond, BigIntArray):
        cond = cond.sign() != 0         # numpy's truth of an integer
    if not xy:
        return (np.flatnonzero(np.asarray(cond, dtype=bool)),)
    if len(xy) != 2:
        raise TypeError("numpy.where takes a condition alone or with both x and y")
    return construct.where(cond, *xy)


def _np_nonzero(a):
    return (np.flatnonzero(a.sign() != 0),)


def _np_take(a, indices, axis=None, out=None, mode="raise"):
    if not _axis0(axis) or out is not None or mode != "raise":
        raise TypeError("numpy.take on a BigIntArray: only axis=None/0, out=None, mode='raise'")
    if isinstance(indices, (numbers.Integral, np.integer, np.bool_)):
        return a[int(indices)]
    if isinstance(indices, (list, tuple, np.ndarray)):
        got = np.asarray(indices)
        if got.dtype == np.bool_:        # numpy.take reads booleans as the indices 0 and 1,
            indices = got.astype(np.int64)   # not as a mask (that is x[mask])
    return index.getitem(a, indices)


def _np_copy(a, order="K", subok=False):
    return a.copy()


def _np_array_equal(a1, a2, equal_nan=False):
    """numpy's rule: the same shape and every element equal, compared as Python compares them
    (an int equals a float of the same value; a scalar's shape () is not a batch's (n,))."""
    x, other = (a1, a2) if isinstance(a1, BigIntArray) else (a2, a1)
    if not isinstance(other, BigIntArray):
        try:
            other = np.asarray(other)
        except Exception:     # as numpy: what cannot be an array is not equal
            return False
        if other.shape != (len(x),):
            return False
        if other.dtype == np.bool_:
            other = other.astype(np.int64)
        if other.dtype.kind not in "iu":      # floats, objects: Python's exact comparisons
            return all(v == w for v, w in zip(x.tolist(), other.tolist()))
    return len(x) == len(other) and bool(ops.compare(x, other, "eq").all())


def _function_table():
    t = {
        np.sum: _reduction("sum", reduce.sum), np.prod: _reduction("prod", reduce.prod),
        np.min: _reduction("min", reduce.min), np.max: _reduction("max", reduce.max),
        np.argmin: _arg("argmin", reduce.argmin), np.argmax: _arg("argmax", reduce.argmax),
        np.sort: _ordering("sort", reduce.sort), np.argsort: _ordering("argsort", reduce.argsort),
        np.concatenate: _np_concatenate, np.where: _np_where, np.nonzero: _np_nonzero,
        np.take: _np_take, np.copy: _np_copy, np.array_equal: _np_array_equal,
        np.shape: lambda a: (len(a),), np.ndim: lambda a: 1, np.size: lambda a, axis=None: len(a),
        np.count_nonzero: lambda a, axis=None, *, keepdims=False: int(np.count_nonzero(a.sign())),
        np.any: lambda a, **kw: _truth(a, kw, "any"), np.all: lambda a, **kw: _truth(a, kw, "all"),
    }
    for alias in ("amin", "amax"):   # numpy < 2 names, and 2.x's aliases
        if hasattr(np, alias):
            t[getattr(np, alias)] = t[np.min if alias == "amin" else np.max]
    return t


def _truth(a, kw, fname):
    _no(kw, fname, axis=_axis0, out=_none, keepdims=_false, where=_true)
    nz = a.sign() != 0
    return bool(nz.any() if fname == "any" else nz.all())


_FUNCTIONS = _function_table()


def array_function(self: BigIntArray, func, types, args, kwargs):
    """BigIntArray.__array_function__ (see module doc)."""
    if not all(issubclass(t, (BigIntArray, np.ndarray)) for t in types):
        return NotImplemented
    fn = _FUNCTIONS.get(func)
    if fn is None:
        raise TypeError(f"numpy.{func.__name__} is not supported on a BigIntArray: clbig has no "
                        "exact version of it (a.tolist() or np.asarray(a) give exact Python ints)")
    return fn(*args, **kwargs)
