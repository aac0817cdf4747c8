"""x[mask] and x[indices] (issue #37): boolean masks and integer arrays or lists, negative
indices counted from the end as numpy's, gathered on the device (clbig/mpz/rowops.py); and
x[key] = values (issue 45) for every kind of key."""
from __future__ import annotations

import numbers

import numpy as np

from . import rowops
from .array import BigIntArray
from .coerce import coerce
from .types import MPZ


def positions(x: BigIntArray, key) -> np.ndarray:
    """The row numbers (int64, each in range) that `key` (a bool mask of len(x), or integers)
    selects; IndexError naming the first out-of-range index, TypeError for other elements."""
    n = len(x)
    if isinstance(key, BigIntArray):   # indices held on the device: read them back
        key = key.tolist()
    if isinstance(key, (list, tuple)):
        for j, v in enumerate(key):     # numpy would take floats or strings in a list
            if not isinstance(v, (numbers.Integral, MPZ, np.bool_)):   # np.bool_ is no Integral
                raise TypeError(f"BigIntArray index list: element {j} is {type(v).__name__} "
                                f"{v!r}, not an integer or a bool")
        if key and all(isinstance(v, (bool, np.bool_)) for v in key):
            key = np.array(key, dtype=bool)
        elif any(isinstance(v, (bool, np.bool_)) for v in key):
            raise TypeError("BigIntArray index list mixes booleans and integers")
        else:
            key = _int_array(key)
    k = np.asarray(key)
    if k.ndim != 1:
        raise IndexError(f"BigIntArray indices must be one-dimensional, got shape {k.shape}")
    if k.dtype == np.bool_:
        if len(k) != n:
            raise IndexError(f"boolean index of length {len(k)} does not match the batch of {n}")
        return np.flatnonzero(k)
    if k.dtype == object:
        k = _int_array(k.tolist())
    if k.dtype.kind not in "iu":
        raise TypeError(f"BigIntArray indices must be integers or booleans, not {k.dtype}")
    if len(k) == 0:
        return np.zeros(0, np.int64)
    bad = (k < -n) | (k >= n) if k.dtype.kind == "i" else k >= n
    if bad.any():
        j = int(np.argmax(bad))
        raise IndexError(f"index {int(k[j])} (position {j} of the index) is out of range for a "
                         f"batch of {n}")
    k = k.astype(np.int64)
    return np.where(k < 0, k + n, k)


def _int_array(vals) -> np.ndarray:
    """Integers (Python ints of any size) as int64; an index beyond int64 is out of range
    anyway: it is clipped to one that is, so the range check names it."""
    for j, v in enumerate(vals):
        if isinstance(v, (bool, np.bool_)) or not isinstance(v, (numbers.Integral, MPZ)):
            raise TypeError(f"BigIntArray index: element {j} is {type(v).__name__}, not an integer")
    out = np.zeros(len(vals), np.int64)
    for j, v in enumerate(vals):
        v = int(v)
        if not -2**63 <= v < 2**63:
            raise IndexError(f"index {v} (position {j} of the index) is out of range")
        out[j] = v
    return out


def getitem(x: BigIntArray, key) -> BigIntArray:
    """x[key] for a mask or integer array / list: a new array of x's capacity."""
    return rowops.take(x, positions(x, key))


def setitem(x: BigIntArray, key, value) -> None:
    """x[key] = value, numpy's rules: `key` an int, a slice, a boolean mask or integer indices
    (the last of repeated indices wins); `value` one integer for every position or one per
    position, any signs. The rows are put together on the device: x and the values side by
    side, then every row gathered from one or the other, so x's capacity grows to the widest
    value's (a BigIntArray's capacity is what its values need, never a cause of truncation)."""
    n = len(x)
    if isinstance(key, (bool, np.bool_)):
        raise TypeError("a BigIntArray index cannot be a bool (use a boolean mask of the batch's length)")
    if isinstance(key, (numbers.Integral, MPZ)):
        i = int(key)
        if not -n <= i < n:
            raise IndexError(f"index {i} out of range for a batch of {n}")
        pos = np.array([i % n], np.int64)
    elif isinstance(key, slice):
        pos = np.arange(n, dtype=np.int64)[key]
    elif isinstance(key, (list, np.ndarray, BigIntArray)):   # a tuple is refused, as x[key]
        pos = positions(x, key)                                # refuses it (numpy: two axes)
    else:
        raise TypeError(f"BigIntArray indices must be integers, slices, boolean masks or integer "
                        f"arrays, not {type(key).__name__}")
    v = coerce(value, x.ctx, "value", signed=True)
    if len(v) not in (1, len(pos)):
        raise ValueError(f"cannot assign {len(v)} values to {len(pos)} positions (one value, or "
                         "one per position)")
    if len(pos) == 0:
        return
    rows = np.arange(n, dtype=np.int64)
    rows[pos] = n + (np.arange(len(pos), dtype=np.int64) if len(v) > 1 else 0)
    x._become(rowops.take(rowops.concat([x, v], x.ctx), rows))
