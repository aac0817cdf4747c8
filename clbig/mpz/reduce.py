"""Reductions and orderings of a batch (issue #37): sum, prod, min, max, argmin, argmax, sort,
argsort, as functions and as BigIntArray methods.

 * sum: the non-negative and the negative elements are summed apart, each by a tree of
   pairwise additions of magnitudes on the device (rows.cl.mako's pairsum: one launch per
   level, every size one build); the two sums are downloaded and subtracted once. A list of
   plain ints of few bits in all is Python's sum where it is (hostrows' "sum" limit).
 * prod: a product tree of clbig's own products (signs included), the rows of each level
   gathered on the device and the capacity trimmed to the level's largest value (a product
   tree's capacities would otherwise double faster than its values); a product of few bits
   in all is gmpy2's tree on the host (hostrows' "prod" limit).
 * min / max / argmin / argmax / sort / argsort: the limbs are downloaded and ordered on the
   host by exact keys: the sign first, then the limbs from the most significant, complemented
   for negative values (a larger magnitude is a smaller negative number); min and max narrow
   the candidates limb by limb, argsort sorts the keys as byte strings. sort gathers the
   rows on the device in argsort's order. argmin / argmax give the first index of a tie and
   sort / argsort are stable, as numpy's stable sort and Python's sorted.
Empty batches as Python's: sum 0, prod 1, min/max/argmin/argmax ValueError.
"""
from __future__ import annotations

import builtins
import math
from typing import TYPE_CHECKING

import numpy as np

from ..runtime import profiling
from ..runtime.devices import current_context
from . import hostrows, ops, rowops
from .array import BigIntArray, array, limbs_for
from .coerce import MPZ, ndarray_values

if TYPE_CHECKING:
    from .types import Operand


def _batch(x, what: str) -> BigIntArray:
    """x as a BigIntArray: lists, ranges, integer numpy arrays go through clbig.array."""
    if isinstance(x, BigIntArray):
        return x
    if isinstance(x, np.ndarray):
        x = ndarray_values(x, what)
    return array(x)


def _int(row: BigIntArray) -> int:
    return row.tolist()[0]


def sum(x: Operand) -> int:   # noqa: A001 (clbig.sum, as numpy's)
    """The exact sum of the elements, as Python's `sum` of the ints.

    The non-negative and the negative elements are summed apart on the device, each by a
    tree of pairwise additions; the two sums are downloaded and subtracted once. A list of
    plain ints of fewer bits in all than the host limit (about 2^25 on GPUs, 2^28 on CPU
    devices; the HOST_ROWS setting, in rows of 1024 bits) is summed by Python instead, where
    it is: converting and uploading it would cost more than adding it. Also the method
    ``x.sum()``.

    Parameters
    ----------
    x : BigIntArray, list of int, or integer numpy array
        The values (any signs); lists and numpy arrays are uploaded first.

    Returns
    -------
    int
        The sum (0 for an empty batch).

    Raises
    ------
    TypeError
        For an element that is not an integer (a float array, a string).

    Examples
    --------
    >>> import clbig
    >>> clbig.sum(clbig.array([1, -5, 2**70]))
    1180591620717411303420
    >>> clbig.sum([])
    0
    """
    if isinstance(x, np.ndarray):
        x = ndarray_values(x, "clbig.sum")
    got = _sum_on_host(x)
    if got is not None:
        return got
    x = _batch(x, "clbig.sum")
    if not len(x):
        return 0
    hostrows.bought(x.ctx, "sum")
    if not rowops.single(x):
        return _python_sum(x.tolist())
    neg = x.neg
    if neg is None:
        return _int(rowops.sum_magnitudes(x))
    pos = np.flatnonzero(~neg)
    total = _int(rowops.sum_magnitudes(rowops.take(x, pos))) if len(pos) else 0
    return total - _int(rowops.sum_magnitudes(rowops.take(x, np.flatnonzero(neg))))


def _python_sum(vals):
    return builtins.sum(vals)


@hostrows.host_path("sum")
def _sum_on_host(x) -> int | None:
    """Python's sum of a list of plain ints within the host's limit in bits, or past it as a
    first call (hostrows.rent), else None."""
    got = _plain_size(x, "sum") if type(x) in (list, tuple) else None
    if got is None:
        return None
    ctx, total, most = got
    if total > most and not hostrows.rent(ctx, "sum", total, most):
        return None
    if profiling.active() and total <= most:
        profiling.note(f"sum: {len(x)} plain ints added on the host by Python (HOST_ROWS)")
    return _python_sum(x)


def prod(x: Operand) -> int:
    """The exact product of the elements, as Python's `math.prod` of the ints.

    A product tree on the device (signs included): each level multiplies pairs of rows, its
    capacity trimmed to its largest value. A product of fewer bits in all than the host limit
    (about 2^18 on GPUs, 2^25 on CPU devices; the HOST_ROWS setting, in rows of 1024 bits) is
    gmpy2's product tree on the host instead: the result is one int on the host either way,
    and GMP is faster there than a warm device call. Also the method ``x.prod()``.

    Parameters
    ----------
    x : BigIntArray, list of int, or integer numpy array
        The values (any signs); lists and numpy arrays are uploaded first.

    Returns
    -------
    int
        The product (1 for an empty batch).

    Raises
    ------
    TypeError
        For an element that is not an integer (a float array, a string).

    Examples
    --------
    >>> import clbig
    >>> clbig.prod([2, -3, 2**40])
    -6597069766656
    >>> clbig.prod([])
    1
    """
    if isinstance(x, np.ndarray):
        x = ndarray_values(x, "clbig.prod")
    got = _prod_on_host(x)
    if got is not None:
        return got
    x = _batch(x, "clbig.prod")
    if not len(x):
        return 1
    hostrows.bought(x.ctx, "prod")
    while len(x) > 1:
        h = len(x) // 2
        p = ops.mul(rowops.take(x, np.arange(0, 2 * h, 2)), rowops.take(x, np.arange(1, 2 * h, 2)))
        if len(x) % 2:
            p = rowops.concat([p, rowops.take(x, [len(x) - 1])], p.ctx)
        x = trim(p, whole_limbs=True)   # whole limbs: fewer product widths to build
    return _int(x)


def _host_bits(ctx, family: str, n: int) -> float:
    """The most bits in all that a sum or product of n values is the host's, on this thread:
    hostrows' limit for the family, in rows of 1024 bits (the result is one int on the host
    either way; below the limit a warm device call is slower than the host's, and a first
    call builds kernels: bench/README.md, "Products of a few values on the host"); no limit
    for fewer than two values, nothing to add or multiply."""
    return math.inf if n < 2 else hostrows.limit(ctx, family) * 1024


def _plain_size(x: list, family: str, cap: float = math.inf):
    """(ctx, bits in all, the host limit in bits) of a list of plain ints that the host may
    take for `family` now: within its limit, or as a first call up to first_factor times it
    (at most `cap` bits), else None."""
    ctx = current_context()
    most = _host_bits(ctx, family, len(x))
    reach = builtins.max(most, builtins.min(most * hostrows.first_factor(ctx, family), cap))
    if not hostrows.plain_within(x, reach):
        return None
    return ctx, (len(x) * hostrows.capacity(x) if len(x) > 1 else 0), most


# A product past the host limit rented as a first call is one gmpy2 tree, which cannot stop
# between rows as the number theory's rented calls do (hostrows.paced), so it is rented only
# up to the bits whose tree takes about the allowance: 2^23 (gmpy2's tree of 2^21 bits took 15
# ms on one core of a 2-core EPYC, of 2^25 bits 510 ms; bench/README.md, "Products of a few
# values on the host"). CPU devices' limits are above it: they never rent a product.
RENT_BITS = 1 << 23


@hostrows.host_path("prod")
def _prod_on_host(x) -> int | None:
    """x's product by gmpy2's tree where the host takes it, else None: a list of plain ints
    or an array of at most the host limit's bits in all, or past it as a first call
    (hostrows.rent) of at most RENT_BITS."""
    if type(x) in (list, tuple):
        got = _plain_size(x, "prod", RENT_BITS)
        if got is None:
            return None
        ctx, total, most = got
    elif isinstance(x, BigIntArray) and len(x):
        ctx, total = x.ctx, len(x) * x.bits
        most = _host_bits(ctx, "prod", len(x))
        if total > most and total > RENT_BITS:
            return None
    else:
        return None
    if total > most and not hostrows.rent(ctx, "prod", total, most):
        return None
    return _host_prod(x if type(x) in (list, tuple) else x.tolist())


def _host_prod(vals) -> int:
    """The product of the ints by a balanced tree of gmpy2's products (a running product
    would multiply a growing value by a small one n times: quadratic)."""
    m = [MPZ(v) for v in vals]
    if not m:
        return 1
    if profiling.active():
        profiling.note(f"prod: {len(m)} values multiplied on the host by gmpy2 (HOST_ROWS)")
    while len(m) > 1:
        m = [m[i] * m[i + 1] for i in range(0, len(m) - 1, 2)] + m[len(m) - 1:] * (len(m) % 2)
    return int(m[0])


def trim(x: BigIntArray, whole_limbs: bool = False) -> BigIntArray:
    """x at the smallest capacity that holds its values (at least 1 bit; with whole_limbs,
    a multiple of 32), copied on the device (x itself when it is already that narrow)."""
    need = builtins.max(1, int(x.bit_length().max())) if len(x) else 1
    if whole_limbs:
        need = limbs_for(need) * 32
    if need == x.bits:
        return x
    return rowops.take(x, np.arange(len(x)), bits=need)


def _keys(x: BigIntArray):
    """(limbs, neg): the magnitudes' limbs on the host and where values are < 0 (a zero
    marked negative is not)."""
    limbs = x.to_limbs(magnitude=True)
    neg = x.neg
    neg = np.zeros(len(x), bool) if neg is None else neg & limbs.any(axis=1)
    return limbs, neg


def _extreme(x, largest: bool, what: str) -> int:
    """The first index of the smallest (largest) element, narrowing candidates limb by limb
    from the most significant."""
    x = _batch(x, what)
    if not len(x):
        raise ValueError(f"{what}() arg is an empty sequence")
    limbs, neg = _keys(x)
    # The side of zero that holds the answer: the max among non-negative values is the
    # largest magnitude, as the min among negative ones is; otherwise the smallest one.
    pool = ~neg if largest else neg
    if pool.any():
        cand, big = np.flatnonzero(pool), True
    else:
        cand, big = np.arange(len(x)), False
    for col in range(limbs.shape[1] - 1, -1, -1):
        if len(cand) == 1:
            break
        v = limbs[cand, col]
        cand = cand[v == (v.max() if big else v.min())]
    return int(cand[0])


def argmin(x: Operand) -> int:
    """The index of the smallest element, the first of ties, as numpy's argmin.

    The limbs are downloaded and compared on the host by exact keys (the sign, then the
    limbs from the most significant). Also the method ``x.argmin()``.

    Parameters
    ----------
    x : BigIntArray, list of int, or integer numpy array
        The values (any signs); lists and numpy arrays are uploaded first.

    Returns
    -------
    int
        The index.

    Raises
    ------
    ValueError
        For an empty batch (as Python's `min` of an empty list).
    TypeError
        For an element that is not an integer (a float array, a string).

    Examples
    --------
    >>> import clbig
    >>> clbig.argmin([3, -5, 7, -5])
    1
    """
    return _extreme(x, False, "argmin")


def argmax(x: Operand) -> int:
    """The index of the largest element, the first of ties, as numpy's argmax.

    Compared exactly on the host, as `argmin`. Also the method ``x.argmax()``.

    Parameters
    ----------
    x : BigIntArray, list of int, or integer numpy array
        The values (any signs); lists and numpy arrays are uploaded first.

    Returns
    -------
    int
        The index.

    Raises
    ------
    ValueError
        For an empty batch (as Python's `max` of an empty list).
    TypeError
        For an element that is not an integer (a float array, a string).

    Examples
    --------
    >>> import clbig
    >>> clbig.argmax([3, -5, 7, 7])
    2
    """
    return _extreme(x, True, "argmax")


def min(x: Operand) -> int:   # noqa: A001
    """The smallest element, as Python's `min` of the ints.

    Compared exactly on the host, as `argmin`; only that element is converted to an int.
    Also the method ``x.min()``.

    Parameters
    ----------
    x : BigIntArray, list of int, or integer numpy array
        The values (any signs); lists and numpy arrays are uploaded first.

    Returns
    -------
    int
        The smallest value.

    Raises
    ------
    ValueError
        For an empty batch (as Python's `min` of an empty list).
    TypeError
        For an element that is not an integer (a float array, a string).

    Examples
    --------
    >>> import clbig
    >>> clbig.min(clbig.array([3, -5, 2**80]))
    -5
    """
    x = _batch(x, "min")
    return x[_extreme(x, False, "min")]


def max(x: Operand) -> int:   # noqa: A001
    """The largest element, as Python's `max` of the ints.

    Compared exactly on the host, as `argmin`. Also the method ``x.max()``.

    Parameters
    ----------
    x : BigIntArray, list of int, or integer numpy array
        The values (any signs); lists and numpy arrays are uploaded first.

    Returns
    -------
    int
        The largest value.

    Raises
    ------
    ValueError
        For an empty batch (as Python's `max` of an empty list).
    TypeError
        For an element that is not an integer (a float array, a string).

    Examples
    --------
    >>> import clbig
    >>> clbig.max(clbig.array([3, -5, 2**80]))
    1208925819614629174706176
    """
    x = _batch(x, "max")
    return x[_extreme(x, True, "max")]


def argsort(x: Operand) -> np.ndarray:
    """The indices that sort the elements in ascending order, stable.

    As numpy's ``argsort(kind="stable")`` and Python's `sorted`: equal values keep their
    order. Each value becomes one byte string that compares as the value does, on the host.
    Also the method ``x.argsort()``.

    Parameters
    ----------
    x : BigIntArray, list of int, or integer numpy array
        The values (any signs); lists and numpy arrays are uploaded first.

    Returns
    -------
    numpy.ndarray
        n int64 indices (an empty array for an empty batch).

    Raises
    ------
    TypeError
        For an element that is not an integer (a float array, a string).

    Examples
    --------
    >>> import clbig
    >>> clbig.argsort([3, -5, 7, 0]).tolist()
    [1, 3, 0, 2]
    """
    x = _batch(x, "argsort")
    if not len(x):
        return np.zeros(0, np.int64)
    limbs, neg = _keys(x)
    # Each value as one byte string that compares as the value does: a sign byte (negative
    # first), then the magnitude's bytes from the most significant, complemented for negative
    # values. numpy compares fixed-width bytes ("S") bytewise over the whole width, so one
    # stable argsort orders them (np.lexsort over one key per limb was 7x slower).
    n, m = limbs.shape
    cols = np.where(neg[:, None], ~limbs, limbs)[:, ::-1].astype(">u4")
    rows = np.empty((n, 1 + 4 * m), np.uint8)
    rows[:, 0] = ~neg
    rows[:, 1:] = cols.view(np.uint8).reshape(n, 4 * m)
    return np.argsort(rows.view(f"S{1 + 4 * m}").ravel(), kind="stable").astype(np.int64)


def sort(x: Operand) -> BigIntArray:
    """The elements in ascending order, a new array.

    The order is `argsort`'s (stable); the rows are gathered on the device in that order, at
    x's capacity. Also the method ``x.sort()``, which returns a new array too.

    Parameters
    ----------
    x : BigIntArray, list of int, or integer numpy array
        The values (any signs); lists and numpy arrays are uploaded first.

    Returns
    -------
    BigIntArray
        The sorted values.

    Raises
    ------
    TypeError
        For an element that is not an integer (a float array, a string).

    Examples
    --------
    >>> import clbig
    >>> clbig.sort([3, -5, 7, 0])
    BigIntArray([-5, 0, 3, 7], n=4, bits=32)
    """
    x = _batch(x, "sort")
    return rowops.take(x, argsort(x))


