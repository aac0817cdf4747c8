"""gmpy2's number theory on batches (the mpz layer): bit_count, lcm, gcdext, iroot, jacobi,
is_prime and next_prime, each exact against gmpy2 and running on the device per element.

    bit_count(a)         set bits of |a| (int.bit_count), numpy int64; one popcount kernel
    lcm(a, b)            |a| // gcd * |b| (gmpy2.lcm: non-negative, lcm(0, x) = 0)
    gcdext(a, b)         (g, s, t), g = a s + b t with GMP's bounds (below)
    iroot(a, k)          (floor(a^(1/k)), exact) as gmpy2.iroot; Newton's iteration
    jacobi(a, n)         the Jacobi symbol, n odd (negative n as gmpy2 / GMP: Kronecker's
                         (a / -1) = -1 for a < 0); the binary algorithm in one kernel
    is_prime(a, reps)    trial division (a gcd with the primorial of the primes below 1000),
                         then Miller-Rabin with the first max(reps, 16) prime bases
    next_prime(a)        the least prime > a (2 for a < 2): windows of odd candidates tested
                         by is_prime together
    prev_prime(a)        the greatest prime < a (a >= 3), the same windows below a

Plain int (or mpz) arguments give plain ints (bools for is_prime, a tuple for gcdext and
iroot); otherwise arrays: BigIntArrays for values, numpy arrays for counts, symbols and
flags. Operands broadcast as elsewhere (equal lengths, or one side of length one).

gcdext: with a' = |a| / g and b' = |b| / g coprime, s' = a'^-1 mod b' (clbig.invert) and s'
- b' where 2 s' > b', so |s| < |b| / (2 g), the bound that makes GMP's s unique; s takes a's
sign and t = (g - a s) / b exactly. GMP's special cases fall out of it: |a| = |b| gives s = 0,
t = sgn(b) (b' = 1); b = 0 gives s = sgn(a), t = 0 (set explicitly); gcdext(0, 0) = (0, 0, 0).

is_prime and gmpy2: gmpy2 2.2+ on GMP 6.2+ (here gmpy2 2.3.2, GMP 6.3.0) runs mpz_probab_prime_p:
trial division, a Baillie-PSW test, then reps - 24 Miller-Rabin rounds with random bases
(so reps <= 24 all mean BPSW alone). clbig runs Miller-Rabin with the first max(reps, 16)
primes as bases and no Lucas test. The first 13 prime bases have no common strong
pseudoprime below psi_13 = 3317044064679887385961981 (~ 2^81.5; Sorenson and Webster), and 16
bases reject psi_13 itself; BPSW has no pseudoprime below 2^64 and none known above. So
clbig and gmpy2 agree on every input below 3.3e24 and on every known pseudoprime the tests
hold. Above that both are probabilistic: a random odd composite of 512+ bits passes one
round with probability far below 2^-80, but a number built to be a strong pseudoprime to
the first max(reps, 16) prime bases (Arnault's construction: one of 397 digits passes every
prime base below 307) is called prime by clbig and composite by gmpy2.
"""
from __future__ import annotations

import math
import numbers
from typing import TYPE_CHECKING

import gmpy2
import numpy as np

from ..mpn import numtheory_n
from . import bitops, hostrows, ops, signs
from .array import BigIntArray, from_limbs, host_result, limbs_for
from .dispatch import rows
from .gcd import gcd, invert
from .modular import Modulus, mulmod, powmod
from .coerce import coerce, context_of, operands, scalar_call
from .construct import zeros
from .powers import power
from .reduce import trim
from .signs import _KEEP, _MINUS1, _PLUS1, nonzero, pick, select, step
from .types import MPZ

if TYPE_CHECKING:
    from .types import Integer, Operand

# Trial division: the primes below 1000 and their product (1, 2 and 3 included as values).
_SMALL = [p for p in range(2, 1000) if all(p % q for q in range(2, int(p ** 0.5) + 1))]
_SMALL_SET = frozenset(_SMALL)
_PRIMORIAL = math.prod(_SMALL)          # 1380 bits
_TRIAL_COMPLETE = 1009 ** 2     # below it, no factor under 1000 means prime (1009: next prime)
# 13 prime bases are exact below psi_13 = 3.317e24 (Sorenson and Webster); 16 reject psi_13 too
MIN_BASES = 16
MAX_REPS = 1000


def _empty(ctx, bits: int) -> BigIntArray:
    return BigIntArray(ctx, ctx.empty((0, limbs_for(bits)), np.uint32), bits)


def _take(x: BigIntArray, idx) -> BigIntArray:
    """Rows idx of x (a length-one x repeats), signs kept: one gather through the host."""
    idx = np.asarray(idx, np.int64)
    if len(x) == 1:
        idx = np.zeros(len(idx), np.int64)
    limbs = x.to_limbs(magnitude=True)[idx]
    sign = None if x.neg is None else np.where(x.neg[idx], -1, 1).astype(np.int8)
    return from_limbs(limbs, bits=x.bits, ctx=x.ctx, sign=sign)


def _full(x: BigIntArray, n: int) -> BigIntArray:
    """x with n rows (a broadcast length-one operand repeated)."""
    return x if len(x) == n else _take(x, np.zeros(n, np.int64))


def _bump_zeros(x: BigIntArray) -> tuple[BigIntArray, np.ndarray]:
    """(x with its zero rows made 1, where they were): divisors that must not be 0."""
    zero = ~nonzero(x)
    if zero.any():
        x = step(x, pick(zero, _PLUS1, _KEEP), max(x.bits, 1))
    return x, zero


def _ints(mask: np.ndarray) -> list[int]:
    return mask.astype(np.int64).tolist()


# -- bit_count --------------------------------------------------------------------------------
@scalar_call("a")
@rows("add")
def bit_count(a: Operand) -> np.ndarray | int:
    """The number of set bits of every magnitude, as Python's `int.bit_count`.

    Counts the bits of ``abs(a)`` (gmpy2's ``mpz.bit_count`` too), in one popcount kernel on
    the device; only the counts cross the bus. Also the method ``x.bit_count()``.

    Parameters
    ----------
    a : BigIntArray, int, list of int, or integer numpy array
        The values, any signs.

    Returns
    -------
    numpy.ndarray or int
        The counts as numpy int64; an int for a plain integer.

    Raises
    ------
    TypeError
        For an operand that is not an integer or a sequence of them.

    Examples
    --------
    >>> import clbig
    >>> clbig.bit_count([0, 7, -255, 2**100 - 1]).tolist(), clbig.bit_count(-5)
    ([0, 3, 8, 100], 2)
    """
    a = coerce(a, context_of(a), "a", signed=True)
    return numtheory_n.popcount(a.ctx, a.data.data, a.m, a.m, len(a))


# -- lcm --------------------------------------------------------------------------------------
@hostrows.host_path("lcm")
def _lcm_on_host(*args):
    """lcm's few rows of plain ints (clbig.mpz.hostrows), else None."""
    got = hostrows.take("lcm", args) if len(args) == 2 else None
    if got is None:
        return None
    ctx, (av, bv) = got
    out = [int(gmpy2.lcm(x, y)) for x, y in hostrows.paced(zip(av, bv))]
    return host_result(ctx, out, hostrows.capacity(args[0]) + hostrows.capacity(args[1]))


@scalar_call("a", "b")
@rows("gcd", fast=_lcm_on_host)
def lcm(a: Operand, b: Operand) -> BigIntArray | int:
    """The least common multiple of every pair of magnitudes, exact, as `gmpy2.lcm`.

    ``|a| // gcd(a, b) * |b|``: non-negative whatever the signs, and ``lcm(0, x) == 0``.
    Operands broadcast: each has the batch's length or length one.

    Parameters
    ----------
    a, b : BigIntArray, int, list of int, or integer numpy array
        The operands, any signs.

    Returns
    -------
    BigIntArray or int
        The lcms, non-negative, of capacity ``a.bits + b.bits``; an int for two plain
        integers.

    Raises
    ------
    ValueError
        For lengths that differ and are not one.
    TypeError
        For an operand that is not an integer or a sequence of them.

    Examples
    --------
    >>> import clbig
    >>> clbig.lcm([4, -6, 0], [6, 4, 5]).tolist(), clbig.lcm(21, 6)
    ([12, 12, 0], 42)
    """
    a, b, n, _, _ = operands(a, b, signed=True)
    a, b = abs(a), abs(b)
    if n == 0:
        return _empty(a.ctx, a.bits + b.bits)
    g, _ = _bump_zeros(gcd(a, b))              # gcd(0, 0) = 0: then a = 0 and the lcm 0
    return ops.mul(ops.floordiv(a, g), b)


# -- gcdext -----------------------------------------------------------------------------------
@hostrows.host_path("gcdext")
def _gcdext_on_host(*args):
    """gcdext's few rows of plain ints (clbig.mpz.hostrows), else None; the capacities as the
    device path gives them (g: gcd's rule)."""
    got = hostrows.take("gcdext", args) if len(args) == 2 else None
    if got is None:
        return None
    ctx, (av, bv) = got
    g, s, t = zip(*[map(int, gmpy2.gcdext(x, y)) for x, y in hostrows.paced(zip(av, bv))])   # GMP's mpz_gcdext
    ab, bb = hostrows.capacity(args[0]), hostrows.capacity(args[1])
    gb = min(ab, bb) if max(g).bit_length() <= min(ab, bb) else max(ab, bb)
    return host_result(ctx, list(g), gb), host_result(ctx, list(s), bb), host_result(ctx, list(t), ab)


@scalar_call("a", "b")
@rows("gcd", fast=_gcdext_on_host)
def gcdext(a: Operand, b: Operand) -> tuple[BigIntArray, BigIntArray, BigIntArray] | tuple[int, int, int]:
    """The gcd and Bezout coefficients of every pair: g = gcd(a, b) = a s + b t.

    The s and t are those of `gmpy2.gcdext` (GMP's ``mpz_gcdext``): ``abs(s) < abs(b) / (2 g)``
    and ``abs(t) < abs(a) / (2 g)``, which makes them unique, but for GMP's special cases:
    ``abs(a) == abs(b)`` gives s = 0, t = sgn(b); b = 0 gives s = sgn(a), t = 0; and
    ``gcdext(0, 0) == (0, 0, 0)``. Computed from `clbig.invert` of a / g mod b / g and exact
    divisions. Operands broadcast: each has the batch's length or length one.

    Parameters
    ----------
    a, b : BigIntArray, int, list of int, or integer numpy array
        The operands, any signs.

    Returns
    -------
    tuple of BigIntArray or tuple of int
        (g, s, t): g non-negative, s signed of capacity b.bits, t signed of capacity
        a.bits; a tuple of ints for two plain integers.

    Raises
    ------
    ValueError
        For lengths that differ and are not one.
    TypeError
        For an operand that is not an integer or a sequence of them.
    RuntimeError
        Where a / g has no inverse mod b / g (they are coprime: a bug, raised instead of a
        wrong value).

    Examples
    --------
    >>> import clbig
    >>> g, s, t = clbig.gcdext([240, -6, 5, 0], [46, 4, 0, 0])
    >>> g.tolist(), s.tolist(), t.tolist()
    ([2, 2, 5, 0], [-9, -1, 1, 0], [47, -1, 0, 0])
    >>> clbig.gcdext(12, 18)
    (6, -1, 1)
    """
    a, b, n, _, _ = operands(a, b, signed=True)
    if n == 0:
        return _empty(a.ctx, b.bits), _empty(a.ctx, b.bits), _empty(a.ctx, a.bits)
    a, b = _full(a, n), _full(b, n)
    g = gcd(a, b)
    g1, _ = _bump_zeros(g)                    # a = b = 0: every quotient below is 0
    a1 = ops.floordiv(abs(a), g1)
    b1, bzero = _bump_zeros(ops.floordiv(abs(b), g1))     # b = 0: modulus 1, s set below
    s1, ok = invert(a1, b1, strict=False)
    if not ok.all():                          # a1, b1 are coprime: this would be a bug
        raise RuntimeError(f"gcdext: no inverse of a / g mod b / g at index {int(np.argmin(ok))}")
    high = ops.compare(ops.shift_left(s1, 1), b1, "gt")          # the balanced representative
    # s1 - b1 where high, + 1 where b = 0 (but a != 0: gcdext(0, 0) has s = 0), then times
    # sgn(a): by a select and a sign flip, not by products with one-limb factors (two more
    # kernels to build on a first call, issue 43)
    sa = a.sign()
    lift = select(high, zeros(n, 1, a.ctx), b1, b1.bits)
    s = ops.add(ops.sub(s1, lift), _ints(bzero & (sa != 0)))
    flip = (sa < 0) & nonzero(s)                                   # s of a = sgn(a) * s of |a|
    s = signs.with_neg(s, flip if s.neg is None else s.neg ^ flip)
    bsafe = ops.add(b, _ints(bzero))                               # b = 0: g - a s = 0 there
    t = ops.floordiv(ops.sub(g, ops.mul(a, s)), bsafe)             # exact division
    return g, _narrow(s, b.bits), _narrow(t, a.bits)   # abs(s) <= abs(b), abs(t) <= abs(a)


def _narrow(x: BigIntArray, bits: int) -> BigIntArray:
    """x at capacity `bits` (every magnitude fits it), signs kept: one copy at the narrower
    width instead of the intermediate products' capacity."""
    return signs.with_neg(select(np.zeros(len(x), bool), x, x, bits), x.neg)


# -- iroot ------------------------------------------------------------------------------------
def _integer(x, what: str) -> int:
    """x as an int, or TypeError naming `what` (bools are not integers here)."""
    if isinstance(x, (bool, np.bool_)) or not isinstance(x, (numbers.Integral, MPZ)):
        raise TypeError(f"{what} must be an integer, got {type(x).__name__}")
    return int(x)


def _root_index(k) -> int:
    k = _integer(k, "iroot: k")
    if k < 1:
        raise ValueError(f"iroot: k must be >= 1, got {k}")
    return k


@hostrows.host_path("iroot")
def _iroot_on_host(*args):
    """iroot's few rows of plain non-negative ints and an int k >= 1 (clbig.mpz.hostrows),
    else None."""
    if len(args) != 2 or type(args[1]) is not int or not 1 <= args[1] < 1 << 64:
        return None                     # (gmpy2's k is an unsigned long; the device takes any)
    got = hostrows.take("iroot", args[:1])
    if got is None or min(got[1][0]) < 0:
        return None
    ctx, (av,) = got
    k = args[1]
    roots = [gmpy2.iroot(x, k) for x in hostrows.paced(av)]
    return (host_result(ctx, [int(r) for r, _ in roots], max(-(-hostrows.capacity(args[0]) // k), 1)),
            np.array([e for _, e in roots], bool))


@scalar_call("a")
@rows("div", fast=_iroot_on_host)
def iroot(a: Operand, k: Integer) -> tuple[BigIntArray, np.ndarray] | tuple[int, bool]:
    """The integer k-th root of every element and whether it is exact, as `gmpy2.iroot`.

    ``floor(a ** (1/k))``, exact for any size, by Newton's iteration on the device (each row
    runs until its own value stops decreasing); exact means ``root ** k == a``.

    Parameters
    ----------
    a : BigIntArray, int, list of int, or integer numpy array
        The values, non-negative.
    k : int
        The root's index, >= 1, one for the whole batch.

    Returns
    -------
    tuple
        (roots, exact): a BigIntArray of capacity ``ceil(a.bits / k)`` and a numpy bool
        array; (int, bool) for a plain integer.

    Raises
    ------
    ValueError
        Naming the first negative element, or for ``k < 1``.
    TypeError
        For a `k` that is not an integer (bool included), or a non-integer operand.

    Examples
    --------
    >>> import clbig
    >>> r, exact = clbig.iroot([0, 26, 27, 10**30 + 1], 3)
    >>> r.tolist(), exact.tolist()
    ([0, 2, 3, 10000000000], [True, False, True, False])
    >>> clbig.iroot(2**100, 4)
    (33554432, True)
    """
    k = _root_index(k)
    a = coerce(a, context_of(a), "a", signed=True)
    neg = signs.clean_neg(a)
    if neg is not None:
        raise ValueError(f"iroot: element {int(np.argmax(neg))} is negative")
    a, n, cap = abs(a), len(a), max(-(-a.bits // k), 1)
    if n == 0:
        return _empty(a.ctx, cap), np.zeros(0, bool)
    if k == 1:
        return a, np.ones(n, bool)
    if k >= a.bits:                           # every a < 2^k: the root is 0 or 1
        one = ops.compare(a, 1, "ge")
        return _bits_array(a.ctx, one), ops.compare(a, 1, "le")
    root = _newton_root(a, k, cap)
    return root, ops.compare(power(root, k), a, "eq")


def _bits_array(ctx, flags: np.ndarray) -> BigIntArray:
    limbs = flags.astype(np.uint32).reshape(-1, 1)
    return from_limbs(limbs, bits=1, ctx=ctx)


def _newton_root(a: BigIntArray, k: int, cap: int) -> BigIntArray:
    """floor(a^(1/k)) for a >= 0, 2 <= k < a.bits: z_next = ((k-1) z + a // z^(k-1)) // k from
    z = 2^ceil(bitlen / k) > a^(1/k) decreases to the root, where it first stops decreasing
    (AM-GM); every row keeps its own z. Zero rows run as 1 and are set back to 0."""
    ctx, n = a.ctx, len(a)
    a, zero = _bump_zeros(a)
    e = (a.bit_length() + k - 1) // k
    z0 = np.zeros((n, limbs_for(cap + 1)), np.uint32)
    z0[np.arange(n), e // 32] = np.left_shift(np.uint32(1), (e % 32).astype(np.uint32))
    z = from_limbs(z0, bits=cap + 1, ctx=ctx)
    while True:
        y = ops.floordiv(ops.add(ops.mul(z, k - 1), ops.floordiv(a, power(z, k - 1))), k)
        down = ops.compare(y, z, "lt")
        if not down.any():
            break
        z = select(down, z, y, cap + 1)       # y < z: fits z's capacity
    if zero.any():
        z = step(z, pick(zero, _MINUS1, _KEEP), cap + 1)
    return select(np.zeros(n, bool), z, z, cap)      # the root < 2^cap


# -- jacobi -----------------------------------------------------------------------------------
@scalar_call("a", "n")
@rows("gcd")
def jacobi(a: Operand, n: Operand) -> np.ndarray | int:
    """The Jacobi symbol (a / n) of every pair, as `gmpy2.jacobi`.

    n must be odd; a may be any integer. A negative n follows GMP (Kronecker's extension):
    (a / n) = (a / abs(n)), negated where a < 0. The binary algorithm, in one kernel on the
    device. Operands broadcast: each has the batch's length or length one.

    Parameters
    ----------
    a : BigIntArray, int, list of int, or integer numpy array
        The numerators, any signs.
    n : BigIntArray, int, list of int, or integer numpy array
        The denominators, odd, any signs.

    Returns
    -------
    numpy.ndarray or int
        The symbols, numpy int8 of -1, 0, 1; an int for two plain integers.

    Raises
    ------
    ValueError
        Naming the first index where n is even (0 included); for lengths that differ and
        are not one.
    TypeError
        For an operand that is not an integer or a sequence of them.

    Examples
    --------
    >>> import clbig
    >>> clbig.jacobi([2, 3, 5, -1, 6], [7, 7, 15, 3, 9]).tolist(), clbig.jacobi(1001, 9907)
    ([1, -1, 0, -1, 0], -1)
    """
    a, m, cnt, sa, sm = operands(a, n, signed=True)
    if cnt == 0:
        return np.zeros(0, np.int8)
    even = ops.compare(bitops.bitwise("and", abs(m), 1), 0, "eq")
    if even.any():
        raise ValueError(f"jacobi: n is even at index {int(np.argmax(even))} (n must be odd)")
    mag = abs(m)
    x = ops.mod(a, mag)                        # 0 <= x < |n|, n's limbs, cnt rows
    x = _full(x, cnt)
    res = numtheory_n.jacobi(a.ctx, x.data.data, x.m, mag.data.data, sm, mag.m, cnt)
    flip = _clean_neg(m, cnt) & _clean_neg(a, cnt)
    return np.where(flip, -res, res).astype(np.int8)


def _clean_neg(x: BigIntArray, n: int) -> np.ndarray:
    """Where x < 0 (zeros marked negative not counted), broadcast to n rows."""
    neg = signs.clean_neg(x)
    if neg is None:
        return np.zeros(n, bool)
    return np.broadcast_to(neg, (n,)) if len(neg) != n else neg


# -- is_prime ---------------------------------------------------------------------------------
def _reps(reps, what: str = "is_prime") -> int:
    reps = _integer(reps, f"{what}: reps")
    if not 0 <= reps <= MAX_REPS:
        raise ValueError(f"{what}: reps must be between 0 and {MAX_REPS}, got {reps}")
    return reps


def _bases(reps: int) -> list[int]:
    """The first max(reps, MIN_BASES) primes."""
    want, out, p = max(reps, MIN_BASES), [], 2
    while len(out) < want:
        out.append(p)
        p = int(gmpy2.next_prime(p))
    return out


def _prime_row(v: int, bases: list[int]) -> bool:
    """is_prime's test of one int on the host, the device's steps (trial division, the small
    primes looked up, then Miller-Rabin with `bases`), so that both give the same answers."""
    if v < 2:
        return False
    if gmpy2.gcd(v, _PRIMORIAL) != 1:
        return v in _SMALL_SET
    if v < _TRIAL_COMPLETE:
        return True
    x = gmpy2.mpz(v)
    xm1 = x - 1
    s = gmpy2.bit_scan1(xm1)
    d = xm1 >> s
    for b in bases:                     # the strong probable-prime test of _mr_rows
        y = gmpy2.powmod(b, d, x)
        if y == 1 or y == xm1:
            continue
        for _ in range(s - 1):
            y = y * y % x
            if y == xm1:
                break
        else:
            return False
    return True


def _reps_of(args) -> int | None:
    """The `reps` of a positional call (args[1], default 25) where it is a valid int, else None
    (the device path raises its error)."""
    reps = args[1] if len(args) == 2 else 25
    return reps if len(args) <= 2 and type(reps) is int and 0 <= reps <= MAX_REPS else None


def _prime_rows(family: str, args):
    """(ctx, the values, the Miller-Rabin bases) of a positional call of a prime family
    (a, reps) that clbig.mpz.hostrows takes, else None."""
    reps = _reps_of(args)
    got = None if reps is None or not args else hostrows.take(family, args[:1])
    return None if got is None else (got[0], got[1][0], _bases(reps))


@hostrows.host_path("is_prime")
def _is_prime_on_host(*args):
    """is_prime's few rows of plain ints (clbig.mpz.hostrows), else None."""
    got = _prime_rows("is_prime", args)
    if got is None:
        return None
    _, av, bases = got
    return np.array([_prime_row(v, bases) for v in hostrows.paced(av)], bool)


@scalar_call("a")
@rows("mod", fast=_is_prime_on_host)
def is_prime(a: Operand, reps: int = 25) -> np.ndarray | bool:
    """Whether every element is (probably) prime, as `gmpy2.is_prime`.

    Trial division by the primes below 1000 (a gcd with their product), then Miller-Rabin
    with the first max(reps, 16) primes as bases, on the device. Negative values, 0 and 1
    are not prime.

    gmpy2.is_prime (GMP 6.2+) runs a Baillie-PSW test instead (then reps - 24 Miller-Rabin
    rounds). The answers agree on every input below 3.3e24 (the first 13 prime bases have no
    common strong pseudoprime below psi_13 = 3317044064679887385961981, which 16 bases
    reject) and on random large inputs; a composite built to be a strong pseudoprime to the
    first max(reps, 16) prime bases (Arnault's construction) passes here, not in gmpy2.

    Parameters
    ----------
    a : BigIntArray, int, list of int, or integer numpy array
        The values, any signs.
    reps : int, optional
        0 to 1000 (gmpy2's default, 25): Miller-Rabin runs with max(reps, 16) bases.

    Returns
    -------
    numpy.ndarray or bool
        A numpy bool array; a bool for a plain integer.

    Raises
    ------
    ValueError
        For `reps` outside 0..1000.
    TypeError
        For a `reps` that is not an integer, or a non-integer operand.

    Examples
    --------
    >>> import clbig
    >>> clbig.is_prime([2, 561, 3215031751, 2**127 - 1, -7]).tolist(), clbig.is_prime(1009)
    ([True, False, False, True, False], True)
    """
    reps = _reps(reps)
    a = coerce(a, context_of(a), "a", signed=True)
    n = len(a)
    out = np.zeros(n, bool)
    if n == 0:
        return out
    pos = ops.compare(a, 0, "gt")
    mag = trim(abs(a), whole_limbs=True)       # tests at the values' width, not the capacity's
    g = gcd(mag, _PRIMORIAL)
    coprime = ops.compare(g, 1, "eq")
    divides = ops.compare(g, mag, "eq")        # a | primorial: 1 or a product of small primes
    idx = np.nonzero(pos & divides & ~coprime)[0]
    if len(idx):                               # a few values below the primorial: look them up
        out[idx] = [v in _SMALL_SET for v in _take(mag, idx).tolist()]
    cand = pos & coprime & ~divides            # > 1, no prime factor below 1000
    small = ops.compare(mag, _TRIAL_COMPLETE, "lt")
    out[cand & small] = True
    test = np.nonzero(cand & ~small)[0]
    if len(test):
        out[test] = _miller_rabin(_take(mag, test), _bases(reps))
    return out


def _miller_rabin(x: BigIntArray, bases: list[int]) -> np.ndarray:
    """Miller-Rabin of odd x > 1009^2 for every base: the first base on every row, the others
    only on the rows that pass it (one batch: rows repeated once per base)."""
    ok = _mr_rows(x, [bases[0]] * len(x))
    alive = np.nonzero(ok)[0]
    if len(alive) and len(bases) > 1:
        rest = bases[1:]
        rows_ = np.repeat(alive, len(rest))
        passed = _mr_rows(_take(x, rows_), rest * len(alive)).reshape(len(alive), len(rest))
        ok[alive] = passed.all(axis=1)
    return ok


def _mr_rows(x: BigIntArray, bases: list[int]) -> np.ndarray:
    """One strong probable-prime test per row: x odd > bases, row i to base bases[i]. With
    x - 1 = d 2^s (d odd): y = b^d, pass where y = 1 or y = x - 1, else square up to s - 1
    times, passing where x - 1 appears."""
    M = Modulus(x)
    xm1 = ops.sub(x, 1)
    low = bitops.bitwise("and", xm1, signs.negative(xm1))       # 2^s, the lowest set bit
    s = low.bit_length() - 1
    d = ops.floordiv(xm1, low)
    y = powmod(bases, d, M)
    ok = ops.compare(y, 1, "eq") | ops.compare(y, xm1, "eq")
    for j in range(1, int(s.max())):
        todo = ~ok & (j < s)
        if not todo.any():
            break
        y = mulmod(y, y, M)
        ok |= todo & ops.compare(y, xm1, "eq")
    return ok


# -- next_prime -------------------------------------------------------------------------------
@hostrows.host_path("next_prime")
def _next_prime_on_host(*args):
    """next_prime's few rows of plain ints (clbig.mpz.hostrows), else None: odd candidates
    upward by is_prime's test, capacity a.bits + 1 (Bertrand: the prime < 2 a)."""
    got = _prime_rows("next_prime", args)
    if got is None:
        return None
    ctx, av, bases = got
    out = []
    for v in hostrows.paced(av):
        if v < 2:
            out.append(2)
            continue
        c = v + 1 + (v & 1)             # the first odd above v (2 < v: 2 is never the answer)
        while not _prime_row(c, bases):
            c += 2
        out.append(c)
    return host_result(ctx, out, hostrows.capacity(args[0]) + 1)


@scalar_call("a")
@rows("mod", fast=_next_prime_on_host)
def next_prime(a: Operand, reps: int = 25) -> BigIntArray | int:
    """The least prime greater than every element, as `gmpy2.next_prime` (2 for a < 2).

    Uses `is_prime`'s test with the same `reps`: each row's window of odd candidates is
    tested together on the device, rows that found none go on with the next window.

    Parameters
    ----------
    a : BigIntArray, int, list of int, or integer numpy array
        The values, any signs.
    reps : int, optional
        As `is_prime`'s: 0 to 1000 (default 25).

    Returns
    -------
    BigIntArray or int
        The primes, of capacity a.bits + 1 or more; an int for a plain integer.

    Raises
    ------
    ValueError
        For `reps` outside 0..1000.
    TypeError
        For a `reps` that is not an integer, or a non-integer operand.

    Examples
    --------
    >>> import clbig
    >>> clbig.next_prime([-5, 0, 2, 13, 2**64]).tolist(), clbig.next_prime(10**12)
    ([2, 2, 3, 17, 18446744073709551629], 1000000000039)
    """
    reps = _reps(reps, "next_prime")
    a = coerce(a, context_of(a), "a", signed=True)
    n = len(a)
    if n == 0:
        return _empty(a.ctx, a.bits + 1)
    below = ops.compare(a, 2, "lt")
    b = abs(a)
    if below.any():                           # those rows start from 1: the answer 1 + 1
        ones = from_limbs(np.ones((n, 1), np.uint32), bits=1, ctx=a.ctx)
        b = select(below, b, ones, max(b.bits, 1))
    odd = ops.compare(bitops.bitwise("and", b, 1), 1, "eq")
    first = np.where(odd, 2, 1).astype(np.int64)          # b + first: the first odd above b
    off = np.where(below, 1, 0).astype(object)            # the answer is b + off
    todo = np.nonzero(~below)[0]
    window = _window(_widest(b))
    start = first.astype(object)
    while len(todo):
        steps = np.arange(window, dtype=np.int64) * 2
        offs = (np.repeat(start[todo], window) + np.tile(steps, len(todo)).astype(object)).tolist()
        cands = ops.add(_take(b, np.repeat(todo, window)), offs)
        hit = is_prime(cands, reps).reshape(len(todo), window)
        found = hit.any(axis=1)
        done = todo[found]
        off[done] = start[done] + 2 * hit[found].argmax(axis=1).astype(object)
        start[todo] += 2 * window
        todo = todo[~found]
    return ops.add(b, off.tolist())


@hostrows.host_path("prev_prime")
def _prev_prime_on_host(*args):
    """prev_prime's few rows of plain ints >= 3 (clbig.mpz.hostrows), else None."""
    got = _prime_rows("prev_prime", args)
    if got is None or min(got[1]) < 3:
        return None
    ctx, av, bases = got
    out = []
    for v in hostrows.paced(av):
        c = v - 1 - (v & 1) if v > 3 else 2     # the first odd below v; prev_prime(3) == 2
        while c > 2 and not _prime_row(c, bases):
            c -= 2
        out.append(c)
    return host_result(ctx, out, hostrows.capacity(args[0]))


@scalar_call("a")
@rows("mod", fast=_prev_prime_on_host)
def prev_prime(a: Operand, reps: int = 25) -> BigIntArray | int:
    """The greatest prime below every element, as `gmpy2.prev_prime`.

    Uses `is_prime`'s test with the same `reps`, as next_prime: each row's window of odd
    candidates below it is tested together on the device.

    Parameters
    ----------
    a : BigIntArray, int, list of int, or integer numpy array
        The values, each >= 3.
    reps : int, optional
        As `is_prime`'s: 0 to 1000 (default 25).

    Returns
    -------
    BigIntArray or int
        The primes, of a's capacity; an int for a plain integer.

    Raises
    ------
    ValueError
        Naming the first element below 3 (as gmpy2: x must be >= 3), or for `reps` outside
        0..1000.
    TypeError
        For a `reps` that is not an integer, or a non-integer operand.

    Examples
    --------
    >>> import clbig
    >>> clbig.prev_prime([3, 4, 14, 2**64]).tolist(), clbig.prev_prime(10**12)
    ([2, 3, 13, 18446744073709551557], 999999999989)
    """
    reps = _reps(reps, "prev_prime")
    a = coerce(a, context_of(a), "a", signed=True)
    n = len(a)
    if n == 0:
        return _empty(a.ctx, a.bits)
    low = ops.compare(a, 3, "lt")
    if low.any():
        raise ValueError(f"prev_prime: x must be >= 3, not at index {int(np.argmax(low))}")
    two = ops.compare(a, 3, "eq")                   # the one answer that is even
    odd = ops.compare(bitops.bitwise("and", a, 1), 1, "eq")
    first = np.where(odd, 2, 1).astype(object)      # a - first: the first odd below a
    off = np.where(two, 1, 0).astype(object)        # the answer is a - off
    todo = np.nonzero(~two)[0]
    window = _window(_widest(a))
    start = first
    while len(todo):
        steps = np.arange(window, dtype=np.int64) * 2
        offs = (np.repeat(start[todo], window) + np.tile(steps, len(todo)).astype(object)).tolist()
        cands = ops.sub(_take(a, np.repeat(todo, window)), offs)
        hit = is_prime(cands, reps).reshape(len(todo), window)   # candidates below 2 are not
        found = hit.any(axis=1)
        done = todo[found]
        off[done] = start[done] + 2 * hit[found].argmax(axis=1).astype(object)
        start[todo] += 2 * window
        todo = todo[~found]
    return _narrow(ops.sub(a, off.tolist()), a.bits)


def _widest(x: BigIntArray) -> int:
    """The bit length of the widest value (a product's capacity can be far above it)."""
    return max(1, int(x.bit_length().max()))


def _window(bits: int) -> int:
    """Odd candidates per row and round: about half the mean prime gap (ln 2^bits) / 2, so
    that most rows finish in two or three rounds."""
    return int(min(512, max(8, bits * 0.35 / 2)))


__all__ = ["bit_count", "gcdext", "iroot", "is_prime", "jacobi", "lcm", "next_prime", "prev_prime"]
