"""Products of powers per row: clbig.multi_powmod(B, E, m) = b_1^e_1 ... b_k^e_k mod m.

Batch signature checks, Pedersen commitments g^a h^b, homomorphic weighted sums. For odd
moduli the k powers share one chain of squares (Straus): on the one-item FP64 kernel
(clbig.mpn.mont52_powm) where powmod's rule (MULTI_FILL) takes it, else on the int32 kernel
(clbig.mpn.mont, `multipow`: small GPU batches, moduli beyond the one-item FP64 kernel,
devices without fast FP64). Even or negative moduli, negative exponents, several devices and
more powers than one launch's arguments hold compose k powmods and k - 1 mulmods, with the same
values.
"""
from __future__ import annotations

from typing import Sequence, Union

import numpy as np

from ..mpn import mont, mont52, mont52_powm
from .array import BigIntArray
from .coerce import coerce, is_scalar
from .types import Integer, Operand
from .modular import Modulus, _broadcast, _context, _fit, _kernel, _python_base, mulmod, powmod


# Bases or exponents: rows (n, k) of ints, one row of k ints, or k clbig arrays (columns).
Powers = Union[Sequence[Sequence[Integer]], Sequence[Integer], Sequence[BigIntArray], np.ndarray]


# GPUs take the one-item FP64 chain from half the instances per compute unit from which powmod
# takes mont52 (mont52.wanted's FILL), the int32 chain below that: there the int32 kernel spreads
# an instance over items and its powers cost 0.5-0.75 of the FP64 ones (mont52.FILL's
# measurements). H200, 2026-11-29: the int32 chain at 500-2,000 rows 1.15-1.19x one powmod
# (composing two powers and a product: 2x).
MULTI_FILL = 0.5
# The chain's kernels take six arguments per power (a base's and an exponent's buffer, stride
# and length: 40 bytes) beside their own (64 bytes at most): more powers than the device's
# argument space holds compose instead.
ARG_BYTES_PER_POWER, ARG_BYTES = 40, 64


def _columns(X, name: str) -> tuple[list, bool]:
    """(the k columns of X as operands, whether X was one row of plain ints). X is a sequence of
    k clbig arrays (columns), a 2-D numpy array or a list of n rows of k ints, or one row of k
    ints."""
    if isinstance(X, np.ndarray):
        if X.ndim != 2:
            raise ValueError(f"{name}: a numpy array must have shape (n, k), got {X.shape}")
        return [X[:, j] for j in range(X.shape[1])], False
    if not isinstance(X, (list, tuple)):
        raise TypeError(f"{name}: expected rows (n, k) of ints, one row of k ints or a sequence of "
                        f"k clbig arrays, got {type(X).__name__}")
    if all(isinstance(x, BigIntArray) for x in X) and X:
        return list(X), False
    if all(is_scalar(x) for x in X):
        return [[x] for x in X], bool(X)
    if all(isinstance(x, (list, tuple, np.ndarray)) for x in X):
        k = {len(r) for r in X}
        if len(k) > 1:
            i = next(i for i, r in enumerate(X) if len(r) != len(X[0]))
            raise ValueError(f"{name}: row {i} has {len(X[i])} entries, row 0 has {len(X[0])}")
        return [list(c) for c in zip(*X)], False
    raise TypeError(f"{name}: expected rows (n, k) of ints, one row of k ints or a sequence of k "
                    "clbig arrays (not a mix)")


def multi_powmod(B: Powers, E: Powers, m: Operand | Modulus) -> BigIntArray | int:
    """``b_1**e_1 * ... * b_k**e_k mod m`` per row, exactly as Python's
    ``pow(b_1, e_1, m) * ... * pow(b_k, e_k, m) % m``.

    The k powers of a row share one chain of squares (Straus's method): for k = 2 about 1.2
    times the time of one powmod, not 2 plus a product.

    Parameters
    ----------
    B, E : rows or columns
        Bases and exponents, of the same k: a 2-D numpy array or a list of n rows of k ints
        (row i holds the k values of batch row i; one row broadcasts), one row of k ints, or
        a sequence of k clbig arrays (column j holds the j-th base, resp. exponent, of every
        row; length one broadcasts). A list of lists is always rows. Any signs, as powmod.
    m : BigIntArray, int, list of int, integer numpy array, or Modulus
        The moduli, non-zero.

    Returns
    -------
    BigIntArray or int
        The products, of capacity m.bits; an int when B and E are single rows of ints and m is
        an int.

    Raises
    ------
    ValueError
        For a zero modulus, a negative exponent whose base is not invertible (as powmod), k
        differing between B and E, rows of unequal length, or batch lengths that differ and
        are not one.

    Examples
    --------
    >>> import clbig
    >>> clbig.multi_powmod([[2, 3], [5, 7]], [[10, 2], [3, 1]], 1000)
    BigIntArray([216, 875], n=2, bits=32)
    >>> clbig.multi_powmod([2, 3], [10, -1], 11)     # 2^10 * 3^-1 mod 11
    4
    """
    if isinstance(B, (list, tuple)) and isinstance(E, (list, tuple)) and not B and not E:
        return powmod([], [], m)                         # no rows (and no k to speak of)
    bcols, brow = _columns(B, "B")
    ecols, erow = _columns(E, "E")
    if len(bcols) != len(ecols):
        raise ValueError(f"B has {len(bcols)} bases per row, E {len(ecols)} exponents")
    if not bcols:
        raise ValueError("multi_powmod needs at least one base per row")
    r = _product(bcols, ecols, m)
    if brow and erow and is_scalar(m):
        return int(r.tolist()[0])
    return r


def _product(bcols, ecols, m) -> BigIntArray:
    ctx = _context(m, *bcols, *ecols)
    fast = _by_shared_squares(ctx, bcols, ecols, m)
    if fast is not None:
        return fast
    r = powmod(bcols[0], ecols[0], m)
    for b, e in zip(bcols[1:], ecols[1:]):
        r = mulmod(r, powmod(b, e, m), m)
    return r


def _by_shared_squares(ctx, bcols, ecols, m) -> BigIntArray | None:
    """The product by the multipow kernel, or None where it does not apply (then composed; on
    several devices too, where powmod and mulmod split the rows)."""
    if getattr(ctx, "is_multi", False):
        return None
    if ARG_BYTES + ARG_BYTES_PER_POWER * len(bcols) > ctx.profile.facts.max_args:
        return None                                      # more powers than one launch takes
    if not isinstance(m, Modulus) and not is_scalar(m) and not isinstance(m, BigIntArray):
        m = coerce(m, ctx, "m", signed=True)
    if is_scalar(m) and m <= 0 or isinstance(m, BigIntArray) and m.neg is not None and m.neg.any():
        return None                                      # zero (refused there) or negative
    M = m if isinstance(m, Modulus) else Modulus(m, ctx)
    if M.ctx is not ctx or not M.odd.all():
        return None
    es = [coerce(e, ctx, "E", signed=True) for e in ecols]
    if any(e.neg is not None and e.neg.any() for e in es):
        return None
    bs = [_python_base(coerce(b, ctx, "B", signed=True), M) for b in bcols]
    n, _ = _broadcast(*bs, *es, M.m)
    if n == 0:
        return BigIntArray(ctx, ctx.empty((0, M.nm)), M.bits)
    ebits = 32 * max(e.m for e in es)
    K, pl, fit, rbits = _kernel(ctx, M, n, fill=MULTI_FILL,
                                tier=(f"multipow {len(bs)}", n * M.nm ** 2 * ebits * len(bs)))
    if pl is None or K is mont52 and pl["C"] != 1:
        return None
    chain = mont52_powm if K is mont52 else K
    bs = [_fit(b, M, fit) for b in bs]
    n, strides = _broadcast(*bs, *es, M.m)
    k = len(bs)
    r2 = M.r2(rbits)
    out = chain.multi_powmod(
        ctx, pl, [(b.data.data, s, b.m) for b, s in zip(bs, strides)],
        [(e.data.data, s, e.m) for e, s in zip(es, strides[k:])], M.m.data.data, strides[-1],
        M.nm, r2.data.data, strides[-1], n, ebits)
    return BigIntArray(ctx, out, M.bits)
