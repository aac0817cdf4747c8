"""The user-facing arithmetic (the mpz layer): operand coercion, broadcasting, exact semantics
and bad-input errors, over the limb-vector modules add_n, compare, shift, mul_basecase.

Values carry signs as Python ints do (clbig/signs.py): add, sub, mul, compare, shifts and
divmod take any signs; the explicitly modular calls (add_fixed, add_low, sub_fixed, mul_low,
and the modules built on `operands`/`_coerce` without signed=True) take non-negative values
only and raise ValueError naming the first negative element."""
from __future__ import annotations

import functools
import numbers

import gmpy2
import numpy as np
import pyopencl as cl

from ..mpn import add_n, compare as _compare, div_q
from . import signs
from .array import BigIntArray, array, check_bits, check_fits, check_unsigned, limbs_for  # noqa: F401
from ..runtime.devices import current_context
from .dispatch import rows

_MPZ = type(gmpy2.mpz(0))


def _is_scalar(x) -> bool:
    return isinstance(x, (numbers.Integral, _MPZ)) and not isinstance(x, (bool, np.bool_))


def _coerce(x, ctx, name: str, signed: bool = False) -> BigIntArray:
    """x as a BigIntArray of ctx; unless `signed`, ValueError naming the first negative element
    (the unsigned operations' callers rely on it)."""
    if isinstance(x, BigIntArray):
        if x.ctx is not ctx:
            raise ValueError(f"operand {name} lives in {x.ctx!r}, not in {ctx!r}: arrays from two contexts cannot mix")
        if not signed and x.neg is not None:
            neg = signs.clean_neg(x)
            if neg is not None:
                i = int(np.argmax(neg))
                raise ValueError(f"operand {name}: element {i} is negative "
                                 "(this operation takes non-negative integers only)")
        return x
    if isinstance(x, np.ndarray):   # integer arrays as exactly as lists (clbig/mpz/npinterop.py)
        from .array import ndarray_values
        x = ndarray_values(x, f"operand {name}")
    if _is_scalar(x):
        x = [x]
    elif not isinstance(x, (list, tuple)):
        raise TypeError(f"operand {name}: expected a BigIntArray, an int, a list of ints or an integer numpy array, got {type(x).__name__}")
    if not signed:
        check_unsigned(x)
    return array(x, ctx=ctx)


def _context_of(*xs):
    for x in xs:
        if isinstance(x, BigIntArray):
            return x.ctx
    return current_context()


def operands(a, b, signed: bool = False):
    """Coerce two operands to arrays of one context and broadcast their lengths (negative
    values only where `signed`). Returns (a, b, n, stride_a, stride_b)."""
    ctx = _context_of(a, b)
    same = b is a
    a = _coerce(a, ctx, "a", signed)
    b = a if same else _coerce(b, ctx, "b", signed)   # x * x uploads once and multiplies as a square
    na, nb = len(a), len(b)
    if na != nb and na != 1 and nb != 1:
        raise ValueError(f"length mismatch: {na} and {nb} (broadcasting needs equal lengths or length 1)")
    n = nb if na == 1 else na
    sa = 0 if (na == 1 and n != 1) else a.m
    sb = 0 if (nb == 1 and n != 1) else b.m
    return a, b, n, sa, sb


def _wrap(ctx, out, bits) -> BigIntArray:
    return BigIntArray(ctx, out, bits)


def _check_bits(bits):
    return check_bits(bits)


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
            ctx = _context_of(*args)
            dev = ctx.device
            raise MemoryError(
                f"clbig.{fn.__name__}: {ctx.name} refused a buffer ({e}); "
                f"it allocates at most {dev.max_mem_alloc_size / 2**30:.3g} GiB in one buffer "
                f"(max_mem_alloc_size) and {dev.global_mem_size / 2**30:.3g} GiB in all") from e
    return wrapped


# -- addition and subtraction -------------------------------------------------------------
@rows("add")
@_memory_errors
def add(a, b) -> BigIntArray:
    """Exact a + b, any signs; the result's capacity is max(a.bits, b.bits) + 1 (max(a.bits,
    b.bits) where every instance's signs differ)."""
    a, b, n, sa, sb = operands(a, b, signed=True)
    if a.neg is not None or b.neg is not None:
        return signs.addsub("add", a, b, n, sa, sb)
    bits = max(a.bits, b.bits) + 1
    check_fits(a.ctx, n, bits, "a + b")
    out, _ = add_n.addsub(a.ctx, "add", a.data.data, sa, a.m, b.data.data, sb, b.m, n, bits)
    return _wrap(a.ctx, out, bits)


@rows("add")
@_memory_errors
def sub(a, b) -> BigIntArray:
    """Exact a - b, negative where b > a; capacity max(a.bits, b.bits) (plus one where some
    instance's effective signs agree, as a - (-b))."""
    a, b, n, sa, sb = operands(a, b, signed=True)
    if a.neg is not None or b.neg is not None:
        return signs.addsub("sub", a, b, n, sa, sb)
    return signs.sub_unsigned(a, b, n, sa, sb)


@rows("add")
@_memory_errors
def add_fixed(a, b, bits: int | None = None):
    """((a + b) mod 2**bits, carry), carry a numpy bool array true exactly where
    a + b >= 2**bits, whatever the operands' widths. bits defaults to max(a.bits, b.bits)."""
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
def sub_fixed(a, b, bits: int | None = None):
    """((a - b) mod 2**bits, borrow), borrow a numpy bool array true exactly where a < b,
    whatever the operands' widths. bits defaults to max(a.bits, b.bits)."""
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
def compare(a, b, which: str = "cmp") -> np.ndarray:
    """Elementwise signed comparison: which in lt, le, gt, ge, eq, ne gives a bool array;
    "cmp" gives -1, 0, 1 (int8) like GMP's mpz_cmp."""
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
def mul(a, b, algorithm: str = "auto"):
    """Exact a * b; the result's capacity is a.bits + b.bits. Two plain ints give an int.

    algorithm: "auto" (by size and device, see `python -m clbig tune`), or "classical",
    "ntt", "ssa" to force one; a forced algorithm that cannot run the size on this device
    raises ValueError saying why."""
    from ..mpn import mul_n
    mul_n.check_algorithm(algorithm)   # before any operand is uploaded
    if _is_scalar(a) and _is_scalar(b):  # one product of two plain integers gives an int
        x = [a]
        return mul(x, x if (b is a or b == a) else [b], algorithm).tolist()[0]
    a, b, n, sa, sb = operands(a, b, signed=True)
    bits = a.bits + b.bits
    check_fits(a.ctx, n, bits, "a * b")
    out = mul_n.mul(a.ctx, a.data.data, sa, a.m, b.data.data, sb, b.m, n, bits, algorithm)
    return BigIntArray(a.ctx, out, bits, signs.product_neg(a, b, n, sa, sb))


@rows("mul")
@_memory_errors
def mul_low(a, b, bits: int | None = None, algorithm: str = "auto") -> BigIntArray:
    """(a * b) mod 2**bits, bits defaulting to max(a.bits, b.bits): the wrap-around product."""
    from ..mpn import mul_n
    mul_n.check_algorithm(algorithm)
    a, b, n, sa, sb = operands(a, b)
    bits = max(a.bits, b.bits) if bits is None else check_bits(bits)
    check_fits(a.ctx, n, bits, "mul_low")
    out = mul_n.mul(a.ctx, a.data.data, sa, a.m, b.data.data, sb, b.m, n, bits, algorithm)
    return _wrap(a.ctx, out, bits)


# -- shifts -------------------------------------------------------------------------------
def _shift_amount(k) -> int:
    if not isinstance(k, (numbers.Integral, _MPZ)) or isinstance(k, (bool, np.bool_)):
        raise TypeError(f"shift amount must be an integer, got {type(k).__name__}")
    k = int(k)
    if k < 0:
        raise ValueError(f"negative shift count {k}")
    return k


@rows("add")
@_memory_errors
def shift_left(a, k) -> BigIntArray:
    """a << k, exact, the sign kept: the capacity grows to a.bits + k."""
    from ..mpn import shift
    k = _shift_amount(k)
    a = _coerce(a, _context_of(a), "a", signed=True)
    bits = a.bits + k
    if bits > 1 << 40:
        raise OverflowError(f"a << {k} would need {bits} bits per element")
    check_fits(a.ctx, len(a), bits, f"a << {k}")
    out = shift.shift(a.ctx, a.data.data, a.m, a.m, len(a), k, True, bits)
    return BigIntArray(a.ctx, out, bits, a.neg)


@rows("add")
@_memory_errors
def shift_right(a, k) -> BigIntArray:
    """a >> k (floor division by 2**k, as Python's: -1 >> k == -1); the capacity shrinks to
    max(a.bits - k, 1), or max(a.bits - k, 0) + 1 where some value is negative."""
    from ..mpn import shift
    k = _shift_amount(k)
    a = _coerce(a, _context_of(a), "a", signed=True)

    def shift_mag(x, k, bits):
        k = min(k, x.bits)   # every bit is shifted out from x.bits on (and k // 32 fits a ulong)
        return _wrap(x.ctx, shift.shift(x.ctx, x.data.data, x.m, x.m, len(x), k, False, bits), bits)
    return signs.shift_right(a, k, shift_mag)


# -- division -----------------------------------------------------------------------------
# Note: `divmod` below shadows the builtin inside this module (it is clbig.divmod).
@rows("div")
@_memory_errors
def divmod(a, b, algorithm: str = "auto"):
    """(a // b, a % b), exact (clbig.div_q), with Python's floor semantics for signed values
    (the quotient rounds down, the remainder takes the divisor's sign).

    The quotient's capacity is a.bits (q <= a), the remainder's b.bits (r < b). Lengths
    broadcast as for the other operations (one divisor for the whole batch, a Python int
    divisor or dividend). Two plain ints (or gmpy2 mpz) give a tuple of ints, computed on the
    device. A zero divisor raises ZeroDivisionError naming the first index where b == 0,
    and no result is returned (a schoolbook division may already be queued and is discarded). `algorithm`: "auto" (by size and batch), "basecase"
    (schoolbook, one launch; ValueError where the divisor is too long for this device) or
    "newton" (Watt's whole shifted inverse, every result verified on the device)."""
    if _is_scalar(a) and _is_scalar(b):  # one division of two plain integers gives ints
        q, r = divmod([a], [b], algorithm)
        return q.tolist()[0], r.tolist()[0]
    a, b, n, sa, sb = operands(a, b, signed=True)
    q, r = divmod_arrays(abs(a), abs(b), n, sa, sb, algorithm=algorithm)
    if a.neg is None and b.neg is None:
        return q, r
    return signs.floor_divmod(a, b, n, sa, sb, q, r)


def divmod_arrays(a: BigIntArray, b: BigIntArray, n: int, sa: int, sb: int, **kw):
    """Unsigned (a // b, a % b) of n instances (strides sa, sb: 0 broadcasts a length-one
    operand) as BigIntArrays of capacities a.bits (q <= a) and b.bits (r < b); keywords as
    div_q.divmod's (algorithm, stats, and the tests' w_offset / q_offset)."""
    q, r = div_q.divmod(a.ctx, a.data.data, sa, a.m, b.data.data, sb, b.m, n, **kw)
    return BigIntArray(a.ctx, q, a.bits), BigIntArray(a.ctx, r, b.bits)


@rows("div")
def floordiv(a, b, algorithm: str = "auto"):
    """a // b, exact; capacity a.bits (see divmod). Two plain ints give an int."""
    return divmod(a, b, algorithm)[0]


@rows("div")
def mod(a, b, algorithm: str = "auto"):
    """a % b, exact; capacity b.bits (see divmod). Two plain ints give an int."""
    return divmod(a, b, algorithm)[1]
