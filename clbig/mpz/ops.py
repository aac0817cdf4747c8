"""The user-facing arithmetic (the mpz layer): exact semantics and bad-input errors, over the
limb-vector modules add_n, compare, shift, mul_n and div_q; operands are coerced and broadcast
by mpz.coerce.

Values carry signs as Python ints do (clbig/mpz/signs.py): add, sub, mul, compare, shifts and
divmod take any signs; the explicitly modular calls (add_fixed, add_low, sub_fixed, mul_low,
and the modules built on coerce.operands / coerce.coerce without signed=True) take
non-negative values only and raise ValueError naming the first negative element."""
from __future__ import annotations

import functools
import numbers

import numpy as np
import pyopencl as cl

from ..mpn import add_n, compare as _compare, div_q, mul_n, shift
from . import hostarrays, hostrows, signs
from .array import BigIntArray, array, check_bits, check_fits  # noqa: F401 (ops.array: tuning/measure.py)
from .coerce import coerce, context_of, is_scalar, operands
from .dispatch import rows
from .types import MPZ, Counts, Operand

def _wrap(ctx, out, bits) -> BigIntArray:
    return BigIntArray(ctx, out, bits)


_ALLOC_CODES = {cl.status_code.INVALID_BUFFER_SIZE, cl.status_code.MEM_OBJECT_ALLOCATION_FAILURE}


def _memory_errors(fn):
    """A device buffer the driver refuses (scratch space beyond what check_fits sees up front)
    becomes a MemoryError naming the operation and the device's limits, not pyopencl's
    INVALID_BUFFER_SIZE."""
    @functools.wraps(fn)
    def wrapped(*args, **kw):
        try:
            return fn(*args, **kw)
        except cl.Error as e:
            if getattr(e, "code", None) not in _ALLOC_CODES and not isinstance(e, cl.MemoryError):
                raise
            ctx = context_of(*args)
            dev = ctx.device
            raise MemoryError(
                f"clbig.{fn.__name__}: {ctx.name} refused a buffer ({e}); "
                f"it allocates at most {dev.max_mem_alloc_size / 2**30:.3g} GiB in one buffer "
                f"(max_mem_alloc_size) and {dev.global_mem_size / 2**30:.3g} GiB in all") from e
    return wrapped


# -- addition and subtraction -------------------------------------------------------------
@rows("add")
@_memory_errors
def add(a: Operand, b: Operand) -> BigIntArray:
    """Exact ``a + b``, any signs.

    Parameters
    ----------
    a, b : BigIntArray, int, list of ints or integer ndarray
        The operands; a length-one operand broadcasts over the other.

    Returns
    -------
    BigIntArray or int
        Capacity ``max(a.bits, b.bits) + 1`` (``max(a.bits, b.bits)`` where every instance's
        signs differ). An int when both operands are plain ints.

    Raises
    ------
    ValueError
        Lengths that do not broadcast, or arrays of two different contexts.
    TypeError
        An operand of another type (a float, a string).
    MemoryError
        A result the device cannot hold (its limits named).

    Examples
    --------
    >>> (clbig.array([1, 2**64 - 1, -5]) + 1).tolist()
    [2, 18446744073709551616, -4]
    >>> clbig.add(3, 5)
    8
    """
    a, b, n, sa, sb = operands(a, b, signed=True)
    if a.neg is not None or b.neg is not None:
        return signs.addsub("add", a, b, n, sa, sb)
    bits = max(a.bits, b.bits) + 1
    check_fits(a.ctx, n, bits, "a + b")
    got = hostarrays.add(a, b, n, bits)     # a first call on values the host holds
    if got is not None:
        return got
    out, _ = add_n.addsub(a.ctx, "add", a.data.data, sa, a.m, b.data.data, sb, b.m, n,
                          signs.whole_limbs(bits))   # the sum fits bits: no mask needed
    hostrows.bought(a.ctx, "add")
    return _wrap(a.ctx, out, bits)


@rows("add")
@_memory_errors
def sub(a: Operand, b: Operand) -> BigIntArray:
    """Exact ``a - b``, any signs (negative where b > a).

    Parameters
    ----------
    a, b : BigIntArray, int, list of ints or integer ndarray
        The operands; a length-one operand broadcasts over the other.

    Returns
    -------
    BigIntArray or int
        Capacity ``max(a.bits, b.bits)``, plus one where some instance's effective signs
        agree (as in ``a - (-b)``). An int when both operands are plain ints.

    Raises
    ------
    ValueError
        Lengths that do not broadcast, or arrays of two different contexts.
    TypeError
        An operand of another type.
    MemoryError
        A result the device cannot hold.

    Examples
    --------
    >>> (clbig.array([10, 0, 2**64]) - [3, 1, 1]).tolist()
    [7, -1, 18446744073709551615]
    >>> clbig.sub(3, 5)
    -2
    """
    a, b, n, sa, sb = operands(a, b, signed=True)
    if a.neg is not None or b.neg is not None:
        return signs.addsub("sub", a, b, n, sa, sb)
    return signs.sub_unsigned(a, b, n, sa, sb)


@rows("add")
@_memory_errors
def add_fixed(a: Operand, b: Operand, bits: int | None = None) -> tuple[BigIntArray, np.ndarray]:
    """Fixed-width addition with carry: ``((a + b) mod 2**bits, carry)``.

    The result wraps around as a `bits`-bit register does; `carry` is true exactly where
    ``a + b >= 2**bits``, whatever the operands' widths.

    Parameters
    ----------
    a, b : BigIntArray, int, list of ints or integer ndarray
        Non-negative operands; a length-one operand broadcasts.
    bits : int, optional
        The register width; defaults to ``max(a.bits, b.bits)``.

    Returns
    -------
    (BigIntArray, numpy.ndarray of bool)
        The wrapped sums (capacity `bits`) and the carries; ``(int, bool)`` when every
        argument is a plain int.

    Raises
    ------
    ValueError
        A negative element (the first one's index named), a width below 1, or lengths that
        do not broadcast.

    Examples
    --------
    >>> s, c = clbig.add_fixed([250, 3], [10, 4], bits=8)
    >>> s.tolist(), c.tolist()
    ([4, 7], [True, False])
    >>> clbig.add_fixed(250, 10, 8)
    (4, True)
    """
    a, b, n, sa, sb = operands(a, b)
    bits = max(a.bits, b.bits) if bits is None else check_bits(bits)
    check_fits(a.ctx, n, bits, "add_fixed")
    narrow = max(a.bits, b.bits) <= bits   # a + b < 2**(bits+1): bit `bits` is the carry
    out, carry = add_n.addsub(a.ctx, "add", a.data.data, sa, a.m, b.data.data, sb, b.m, n, bits,
                              want_flag=narrow)
    if not narrow:   # a wider operand: the exact sum exceeds its low part exactly where it carries
        full, _ = add_n.addsub(a.ctx, "add", a.data.data, sa, a.m, b.data.data, sb, b.m, n,
                               max(a.bits, b.bits) + 1)
        mf, mo = full.shape[1], out.shape[1]
        carry = _compare.compare3(a.ctx, full.data, mf, mf, out.data, mo, mo, n) != 0
    return _wrap(a.ctx, out, bits), carry


@rows("add")
@_memory_errors
def add_low(a, b, bits: int | None = None) -> BigIntArray:
    """(a + b) mod 2**bits without the carry: one launch and no wait for the device (callers
    that drop add_fixed's carry: its flags come back to the host, and for operands wider than
    `bits` take two more launches)."""
    a, b, n, sa, sb = operands(a, b)
    bits = max(a.bits, b.bits) if bits is None else check_bits(bits)
    check_fits(a.ctx, n, bits, "add_low")
    out, _ = add_n.addsub(a.ctx, "add", a.data.data, sa, a.m, b.data.data, sb, b.m, n, bits)
    return _wrap(a.ctx, out, bits)


@rows("add")
@_memory_errors
def sub_fixed(a: Operand, b: Operand, bits: int | None = None) -> tuple[BigIntArray, np.ndarray]:
    """Fixed-width subtraction with borrow: ``((a - b) mod 2**bits, borrow)``.

    `borrow` is true exactly where ``a < b``, whatever the operands' widths.

    Parameters
    ----------
    a, b : BigIntArray, int, list of ints or integer ndarray
        Non-negative operands; a length-one operand broadcasts.
    bits : int, optional
        The register width; defaults to ``max(a.bits, b.bits)``.

    Returns
    -------
    (BigIntArray, numpy.ndarray of bool)
        The wrapped differences (capacity `bits`) and the borrows; ``(int, bool)`` when every
        argument is a plain int.

    Raises
    ------
    ValueError
        A negative element (the first one's index named), a width below 1, or lengths that
        do not broadcast.

    Examples
    --------
    >>> d, b = clbig.sub_fixed([3, 9], [5, 4], bits=8)
    >>> d.tolist(), b.tolist()
    ([254, 5], [True, False])
    """
    a, b, n, sa, sb = operands(a, b)
    bits = max(a.bits, b.bits) if bits is None else check_bits(bits)
    check_fits(a.ctx, n, bits, "sub_fixed")
    narrow = max(a.bits, b.bits) <= bits   # then bit `bits` of the wrapped difference is the borrow
    out, borrow = add_n.addsub(a.ctx, "sub", a.data.data, sa, a.m, b.data.data, sb, b.m, n, bits,
                               want_flag=narrow)
    if not narrow:
        borrow = _compare.compare3(a.ctx, a.data.data, sa, a.m, b.data.data, sb, b.m, n) == 1
    return _wrap(a.ctx, out, bits), borrow


# -- comparison ---------------------------------------------------------------------------
_CMP = {
    "lt": lambda c: c == 1, "le": lambda c: c != 2, "gt": lambda c: c == 2,
    "ge": lambda c: c != 1, "eq": lambda c: c == 0, "ne": lambda c: c != 0,
}


@rows("add")
@_memory_errors
def compare(a: Operand, b: Operand, which: str = "cmp") -> np.ndarray:
    """Elementwise signed comparison.

    Parameters
    ----------
    a, b : BigIntArray, int, list of ints or integer ndarray
        The operands, any signs; a length-one operand broadcasts.
    which : {"cmp", "lt", "le", "gt", "ge", "eq", "ne"}
        "cmp" gives -1, 0 or 1 per element (numpy int8) like GMP's mpz_cmp; the others a
        numpy bool array. The operators ``<``, ``==`` ... call this.

    Returns
    -------
    numpy.ndarray
        int8 or bool, one per element; a Python int or bool when both operands are ints.

    Raises
    ------
    ValueError
        An unknown `which`, or lengths that do not broadcast.

    Examples
    --------
    >>> clbig.compare([1, 5, -7], 5).tolist()
    [-1, 0, -1]
    >>> (clbig.array([1, 5, 2**70]) > 4).tolist()
    [False, True, True]
    """
    if not isinstance(which, str) or (which != "cmp" and which not in _CMP):
        raise ValueError(f"compare: unknown comparison {which!r}; choose from cmp, " + ", ".join(_CMP))
    a, b, n, sa, sb = operands(a, b, signed=True)
    if a.neg is None and b.neg is None:
        c = _compare.compare3(a.ctx, a.data.data, sa, a.m, b.data.data, sb, b.m, n)
    else:   # the signed result, back in compare3's codes (0 equal, 1 less, 2 greater)
        m = signs.compare3(a, b, n, sa, sb)
        if which == "cmp":
            return m
        c = signs.cmp_code(m)
    if which == "cmp":
        return np.select([c == 1, c == 2], [-1, 1], 0).astype(np.int8)
    return _CMP[which](c)


# -- multiplication -----------------------------------------------------------------------
@rows("mul")
@_memory_errors
def mul(a: Operand, b: Operand, algorithm: str = "auto") -> BigIntArray:
    """Exact ``a * b``, any signs.

    Parameters
    ----------
    a, b : BigIntArray, int, list of ints or integer ndarray
        The factors; a length-one operand broadcasts. ``mul(x, x)`` squares.
    algorithm : {"auto", "classical", "ntt", "ssa"}
        "auto" chooses by size and device (tuned: ``python -m clbig tune``); the others force
        one algorithm.

    Returns
    -------
    BigIntArray or int
        Capacity ``a.bits + b.bits``; an int when both factors are plain ints.

    Raises
    ------
    ValueError
        An unknown algorithm, a forced algorithm that cannot run this size on this device
        (saying why), or lengths that do not broadcast.
    MemoryError
        A result the device cannot hold.

    Examples
    --------
    >>> (clbig.array([2**64 - 1, -3]) * 2**64).tolist()
    [340282366920938463444927863358058659840, -55340232221128654848]
    >>> clbig.mul(3, 5)
    15
    """
    mul_n.check_algorithm(algorithm)   # before any operand is uploaded
    if is_scalar(a) and is_scalar(b):  # one product of two plain integers gives an int
        x = [a]
        return mul(x, x if (b is a or b == a) else [b], algorithm).tolist()[0]
    a, b, n, sa, sb = operands(a, b, signed=True)
    bits = a.bits + b.bits
    check_fits(a.ctx, n, bits, "a * b")
    if algorithm == "auto":
        got = hostarrays.mul(a, b, n, bits)     # a first call on values the host holds
        if got is not None:
            return got
    # the product fits bits, so the kernels run on whole limbs (no top mask): capacities that
    # grow a few bits a step (x = x * 3) share one kernel per limb count (issue 43)
    out = mul_n.mul(a.ctx, a.data.data, sa, a.m, b.data.data, sb, b.m, n,
                    signs.whole_limbs(bits), algorithm)
    hostrows.bought(a.ctx, "mul")
    return BigIntArray(a.ctx, out, bits, signs.product_neg(a, b, n, sa, sb))


@rows("mul")
@_memory_errors
def mul_low(a: Operand, b: Operand, bits: int | None = None, algorithm: str = "auto") -> BigIntArray:
    """The wrap-around product ``(a * b) mod 2**bits``.

    Parameters
    ----------
    a, b : BigIntArray, int, list of ints or integer ndarray
        Non-negative factors; a length-one operand broadcasts.
    bits : int, optional
        The width kept; defaults to ``max(a.bits, b.bits)``.
    algorithm : {"auto", "classical", "ntt", "ssa"}
        As for `mul`.

    Returns
    -------
    BigIntArray or int
        Capacity `bits`; an int when every argument is a plain int.

    Raises
    ------
    ValueError
        A negative element (its index named), a width below 1, an unknown algorithm, or
        lengths that do not broadcast.

    Examples
    --------
    >>> clbig.mul_low([300, 7], 300, bits=8).tolist()
    [144, 52]
    """
    mul_n.check_algorithm(algorithm)
    a, b, n, sa, sb = operands(a, b)
    bits = max(a.bits, b.bits) if bits is None else check_bits(bits)
    check_fits(a.ctx, n, bits, "mul_low")
    out = mul_n.mul(a.ctx, a.data.data, sa, a.m, b.data.data, sb, b.m, n, bits, algorithm)
    return _wrap(a.ctx, out, bits)


# -- shifts -------------------------------------------------------------------------------
_MAX_SHIFT = 1 << 40        # a << k beyond this many bits could not be held anyway


def _shift_amount(k) -> int:
    if not isinstance(k, (numbers.Integral, MPZ)) or isinstance(k, (bool, np.bool_)):
        raise TypeError(f"shift amount must be an integer, got {type(k).__name__}")
    k = int(k)
    if k < 0:
        raise ValueError(f"negative shift count {k}")
    return k


class NegativeCount(ValueError):
    """A negative count in a list of them (shift_counts): callers whose counts mean something
    else (exponents) say why it is refused."""


def shift_counts(k, what: str = "shift count"):
    """One count (an int) or one per element (a list of ints, each checked: TypeError or
    ValueError naming the position of the first bad one). A 0-d numpy array is one count."""
    if isinstance(k, np.ndarray) and k.ndim == 0:
        k = k[()]
    if is_scalar(k) or isinstance(k, (bool, np.bool_)):
        return _shift_amount(k)
    if isinstance(k, BigIntArray):
        k = k.tolist()
    elif isinstance(k, np.ndarray):
        if k.ndim != 1:
            raise ValueError(f"{what}s must be one-dimensional, got shape {k.shape}")
        k = k.tolist()
    elif not isinstance(k, (list, tuple)):
        raise TypeError(f"{what} must be an integer or a sequence of integers, got {type(k).__name__}")
    out = []
    for i, v in enumerate(k):
        if isinstance(v, (bool, np.bool_)) or not isinstance(v, (numbers.Integral, MPZ)):
            raise TypeError(f"{what} at index {i}: expected an integer, got {type(v).__name__}")
        v = int(v)
        if v < 0:
            raise NegativeCount(f"{what} at index {i} is negative ({v})")
        out.append(v)
    return out


def per_row(a, ks: list, name: str):
    """a (coerced, signed) and ks broadcast to one length n; returns (a, ks, n)."""
    a = coerce(a, context_of(a), "a", signed=True)
    na, nk = len(a), len(ks)
    if na != nk and na != 1 and nk != 1:
        raise ValueError(f"{name}: {na} values and {nk} counts (broadcasting needs equal "
                         "lengths or length 1)")
    n = na if nk == 1 else nk
    if na == 1 and n != 1:
        a = a[[0] * n]                     # one value shifted by several counts: gather copies
    return a, ks, n


def _counts_on_device(ctx, ks: list, cap: int):
    """The counts (each clamped to cap) as a device uint64 array, and its stride."""
    host = np.minimum(np.array(ks, dtype=object), cap).astype(np.uint64)
    return ctx.to_device(host), (0 if len(ks) == 1 else 1)


@rows("add")
@_memory_errors
def shift_left(a: Operand, k: Counts) -> BigIntArray:
    """Exact ``a << k`` (``a * 2**k``), the sign kept.

    Parameters
    ----------
    a : BigIntArray, int, list of ints or integer ndarray
        The values, any signs.
    k : int, or one count per element (list, ndarray or BigIntArray)
        Shift counts, non-negative; one count broadcasts over the batch, and one value
        broadcasts over several counts (``1 << clbig.array([1, 2, 3])``).

    Returns
    -------
    BigIntArray or int
        Capacity ``a.bits + max(k)``. An int when `a` and `k` are both plain ints.

    Raises
    ------
    TypeError
        A count that is not an integer (its position named).
    ValueError
        A negative count (its position named), or lengths that do not broadcast.
    OverflowError
        A result of more than 2**40 bits per element.

    Examples
    --------
    >>> clbig.shift_left(clbig.array([1, -3, 5]), 4).tolist()
    [16, -48, 80]
    >>> (clbig.array([1, 1, 1]) << [0, 1, 70]).tolist()
    [1, 2, 1180591620717411303424]
    >>> clbig.shift_left(3, 2)
    12
    """
    k = shift_counts(k)
    if isinstance(k, list):
        a, k, n = per_row(a, k, "a << k")
        kmax = max(k, default=0)
        bits = a.bits + kmax
        if bits > _MAX_SHIFT:
            raise OverflowError(f"a << {kmax} would need {bits} bits per element")
        check_fits(a.ctx, n, bits, "a << k")
        ks, sk = _counts_on_device(a.ctx, k, kmax)
        out = shift.shift_rows(a.ctx, a.data.data, a.m, a.m, n, ks.data, sk, True, bits)
        return BigIntArray(a.ctx, out, bits, a.neg)
    a = coerce(a, context_of(a), "a", signed=True)
    bits = a.bits + k
    if bits > _MAX_SHIFT:
        raise OverflowError(f"a << {k} would need {bits} bits per element")
    check_fits(a.ctx, len(a), bits, f"a << {k}")
    out = shift.shift(a.ctx, a.data.data, a.m, a.m, len(a), k, True, bits)
    return BigIntArray(a.ctx, out, bits, a.neg)


@rows("add")
@_memory_errors
def shift_right(a: Operand, k: Counts) -> BigIntArray:
    """``a >> k``: floor division by ``2**k``, as Python's (``-1 >> k == -1``).

    Parameters
    ----------
    a : BigIntArray, int, list of ints or integer ndarray
        The values, any signs.
    k : int, or one count per element (list, ndarray or BigIntArray)
        Shift counts, non-negative, broadcast as for `shift_left`.

    Returns
    -------
    BigIntArray or int
        Capacity ``max(a.bits - min(k), 1)``, or ``max(a.bits - min(k), 0) + 1`` where some
        value is negative. An int when `a` and `k` are both plain ints.

    Raises
    ------
    TypeError
        A count that is not an integer (its position named).
    ValueError
        A negative count (its position named), or lengths that do not broadcast.

    Examples
    --------
    >>> clbig.shift_right(clbig.array([16, -17, 5]), 2).tolist()
    [4, -5, 1]
    >>> (clbig.array([2**70, 2**70, -1]) >> [70, 3, 9]).tolist()
    [1, 147573952589676412928, -1]
    >>> clbig.shift_right(-7, 1)
    -4
    """
    k = shift_counts(k)
    if isinstance(k, list):
        a, k, n = per_row(a, k, "a >> k")

        def shift_rows(x, _k, bits):       # every bit is shifted out from x.bits on
            ks, sk = _counts_on_device(x.ctx, k, x.bits)
            return _wrap(x.ctx, shift.shift_rows(x.ctx, x.data.data, x.m, x.m, len(x), ks.data,
                                                 sk, False, bits), bits)
        return signs.shift_right(a, k, shift_rows, kmin=min(k, default=0))
    a = coerce(a, context_of(a), "a", signed=True)

    def shift_mag(x, k, bits):
        k = min(k, x.bits)   # every bit is shifted out from x.bits on (and k // 32 fits a ulong)
        return _wrap(x.ctx, shift.shift(x.ctx, x.data.data, x.m, x.m, len(x), k, False, bits), bits)
    return signs.shift_right(a, k, shift_mag)


# -- division -----------------------------------------------------------------------------
# Note: `divmod` below shadows the builtin inside this module (it is clbig.divmod).
@rows("div")
@_memory_errors
def divmod(a: Operand, b: Operand, algorithm: str = "auto") -> tuple[BigIntArray, BigIntArray]:
    """``(a // b, a % b)``, exact, with Python's floor semantics for any signs.

    The quotient rounds down and the remainder takes the divisor's sign. Lengths broadcast
    as for the other operations (one divisor for the whole batch, a Python int divisor or
    dividend).

    Parameters
    ----------
    a, b : BigIntArray, int, list of ints or integer ndarray
        Dividends and divisors.
    algorithm : {"auto", "basecase", "newton"}
        "auto" chooses by size and batch; "basecase" is schoolbook division in one launch
        (ValueError where the divisor is too long for this device); "newton" divides by
        Watt's whole shifted inverse, every result verified on the device.

    Returns
    -------
    (BigIntArray, BigIntArray)
        Quotients of capacity ``a.bits`` (q <= a) and remainders of capacity ``b.bits``
        (r < b); a tuple of ints when both operands are plain ints.

    Raises
    ------
    ZeroDivisionError
        A zero divisor, naming the first index where ``b == 0``; no result is returned.
    ValueError
        An unknown algorithm, or lengths that do not broadcast.

    Examples
    --------
    >>> q, r = clbig.divmod(clbig.array([7, -7, 2**70]), 3)
    >>> q.tolist(), r.tolist()
    ([2, -3, 393530540239137101141], [1, 2, 1])
    >>> clbig.divmod(-7, 2)
    (-4, 1)
    """
    if is_scalar(a) and is_scalar(b):  # one division of two plain integers gives ints
        q, r = divmod([a], [b], algorithm)
        return q.tolist()[0], r.tolist()[0]
    a, b, n, sa, sb = operands(a, b, signed=True)
    if algorithm == "auto" and a.neg is None and b.neg is None:
        got = hostarrays.divmod(a, b, n)        # a first call on values the host holds
        if got is not None:
            return got
    q, r = divmod_arrays(abs(a), abs(b), n, sa, sb, algorithm=algorithm)
    if a.neg is None and b.neg is None:
        return q, r
    return signs.floor_divmod(a, b, n, sa, sb, q, r)


def divmod_arrays(a: BigIntArray, b: BigIntArray, n: int, sa: int, sb: int, **kw):
    """Unsigned (a // b, a % b) of n instances (strides sa, sb: 0 broadcasts a length-one
    operand) as BigIntArrays of capacities a.bits (q <= a) and b.bits (r < b); keywords as
    div_q.divmod's (algorithm, stats, and the tests' w_offset / q_offset)."""
    q, r = div_q.divmod(a.ctx, a.data.data, sa, a.m, b.data.data, sb, b.m, n, **kw)
    hostrows.bought(a.ctx, "div")
    return BigIntArray(a.ctx, q, a.bits), BigIntArray(a.ctx, r, b.bits)


@rows("div")
def floordiv(a: Operand, b: Operand, algorithm: str = "auto") -> BigIntArray:
    """``a // b``, exact, rounding down as Python's (see `divmod`).

    Parameters
    ----------
    a, b : BigIntArray, int, list of ints or integer ndarray
        Dividends and divisors; a length-one operand broadcasts.
    algorithm : {"auto", "basecase", "newton"}
        As for `divmod`.

    Returns
    -------
    BigIntArray or int
        Capacity ``a.bits``; an int when both operands are plain ints.

    Raises
    ------
    ZeroDivisionError
        A zero divisor (the first index named).
    ValueError
        An unknown algorithm, or lengths that do not broadcast.

    Examples
    --------
    >>> (clbig.array([7, -7]) // 2).tolist()
    [3, -4]
    >>> clbig.floordiv(7, 2)
    3
    """
    return divmod(a, b, algorithm)[0]


@rows("div")
def mod(a: Operand, b: Operand, algorithm: str = "auto") -> BigIntArray:
    """``a % b``, exact, with the divisor's sign as Python's (see `divmod`).

    Parameters
    ----------
    a, b : BigIntArray, int, list of ints or integer ndarray
        Dividends and divisors; a length-one operand broadcasts.
    algorithm : {"auto", "basecase", "newton"}
        As for `divmod`.

    Returns
    -------
    BigIntArray or int
        Capacity ``b.bits``; an int when both operands are plain ints.

    Raises
    ------
    ZeroDivisionError
        A zero divisor (the first index named).
    ValueError
        An unknown algorithm, or lengths that do not broadcast.

    Examples
    --------
    >>> (clbig.array([7, -7, 2**100]) % 5).tolist()
    [2, 3, 1]
    >>> clbig.mod(-7, 3)
    2
    """
    return divmod(a, b, algorithm)[1]
