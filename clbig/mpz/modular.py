"""Modular products and powers (the mpz layer over clbig.mpn.mont): powmod, mulmod, Modulus.

Coercion and broadcasting as for the other operations (any operand a BigIntArray, an int /
mpz or a list; length one broadcasts), exact semantics for every modulus m >= 1:

* odd m: Montgomery arithmetic on the device: clbig.mpn.mont52 (FP64 digit products) where
  the device is fast in FP64 and the moduli fit its registers, else clbig.mpn.mont (int32
  limbs); both take the same calls (`_kernel`). R^2 mod m, for the chosen kernel's R, comes
  from one batch division on the device (clbig.divmod of the broadcast R^2).
* even m = 2^s m_o: CRT of a^e mod m_o (Montgomery, m_o odd, possibly 1) and a^e mod 2^s (the
  same kernel modulo B^NP, no reduction); the two residues are joined on the host for those
  rows only, x = x1 + m_o ((x2 - x1) m_o^-1 mod 2^s), a few products per row against the
  thousands of a power. mulmod's even rows take clbig.mul then clbig.mod.
* moduli too long for one work-group (mont.plan returns None): square-and-multiply from
  clbig's mul and divmod, every step exact.

Modulus(m) does the per-modulus work once (the zero check, the parity of each row, R^2 mod m
on the device, the even rows' split) and is accepted wherever m is: repeated calls on the same
moduli pay it once. A zero modulus raises ValueError naming its first index before anything
is computed; a > m is reduced first where a has more limbs than the kernel's residues.
Results have capacity m.bits; plain ints in give an int out.
"""
from __future__ import annotations

import time
from typing import TYPE_CHECKING

import gmpy2
import numpy as np

from ..mpn import host_powm, mont, mont52, mont52_powm, mont_loop
from ..runtime import plan as P, profiling, tiers
from . import hostrows, ops
from .array import BigIntArray, array, host_result
from .coerce import coerce, is_scalar
from .construct import where
from .dispatch import rows
from .gcd import invert
from ..runtime.devices import current_context

if TYPE_CHECKING:
    from ..runtime.devices import Context
    from .types import Counts, Operand


def _limb0(m: BigIntArray) -> np.ndarray:
    """Limb 0 of every row (one strided copy, not the whole array)."""
    n = len(m)
    host = np.empty(n, np.uint32)
    if n:
        m.ctx.copy(host, m.data.base_data, buffer_origin=(m.data.offset, 0, 0), host_origin=(0, 0, 0),
                   region=(4, n, 1), buffer_pitches=(4 * m.m, 0), host_pitches=(4, 0))
    return host


class Modulus:
    """A batch of moduli with what modular arithmetic needs of them, computed once.

    `powmod`, `mulmod` and `invert` take a Modulus wherever they take moduli: repeated calls
    on the same moduli then pay the per-modulus work once. That work is the zero check, the
    parity of every row (`odd`, a numpy bool array), R^2 mod m for the Montgomery kernels
    (one batch division on the device per residue length, kept), and for the even rows their
    odd part and power of two. The moduli themselves are `m` (a BigIntArray, of capacity
    `bits`), and ``len(M)`` is their number; a Modulus of one modulus serves a whole batch
    (length one broadcasts). A Modulus holds positive moduli only.

    Parameters
    ----------
    m : BigIntArray, int, list of int, integer numpy array, or Modulus
        The moduli, every one >= 1 (a Modulus gives its own).
    ctx : Context, optional
        Where the moduli live when `m` is not a BigIntArray (default: the current context).

    Raises
    ------
    ValueError
        Where a modulus is 0 or negative (naming the first such index).
    TypeError
        For moduli that are not integers.

    Examples
    --------
    >>> import clbig
    >>> M = clbig.Modulus([7, 10])
    >>> M
    clbig.Modulus(n=2, bits=32, even rows=1)
    >>> clbig.powmod([3, 3], 2, M).tolist(), clbig.mulmod([3, 4], [5, 6], M).tolist()
    ([2, 9], [1, 4])
    >>> len(M), M.values()
    (2, [7, 10])
    """

    def __init__(self, m: Operand | Modulus, ctx: Context | None = None) -> None:
        private = isinstance(m, Modulus)       # its array is already a Modulus's own
        if private:
            m = m.m
        ctx = m.ctx if isinstance(m, BigIntArray) else (ctx or current_context())
        if getattr(ctx, "is_multi", False):
            # Several devices: the moduli as a SplitArray; each piece an operation runs on makes
            # (and keeps) a Modulus of its own device (clbig.scale.split.piece).
            arr = m if isinstance(m, BigIntArray) else array([m] if is_scalar(m) else list(m), ctx=ctx)
            for test, why in (("eq", "modulus is 0 at index {}"), ("lt", "operand m: element {} is negative "
                                                                   "(this operation takes non-negative integers only)")):
                bad = ops.compare(arr, 0, test)
                if bad.any():
                    raise ValueError(why.format(int(np.argmax(bad))))
            self.m, self.ctx, self._host, self._r2, self._even, self._odd_part = arr, ctx, None, {}, None, None
            self.n, self.bits, self.nm = len(arr), arr.bits, arr.m
            self.odd = (arr.to_limbs(magnitude=True)[:, 0] & 1).astype(bool)
            return
        if is_scalar(m) or isinstance(m, (list, tuple)):
            vals = [m] if is_scalar(m) else list(m)
            arr = coerce(vals, ctx, "m")               # type / sign errors first
            zero = [i for i, v in enumerate(vals) if v == 0]
            if zero:
                raise ValueError(f"modulus is 0 at index {zero[0]}")
            self._host = [int(v) for v in vals]
            self.odd = np.array([v & 1 for v in self._host], dtype=bool)
        else:
            arr = coerce(m, ctx, "m")
            # its own array object on the same buffer: an assignment into the caller's array
            # (x[i] = v, x += y) gives that object a new buffer, and R^2 stays true to this one
            if not private:
                arr = BigIntArray(arr.ctx, arr.data, arr.bits, arr.neg)
            z = ops.compare(arr, 0, "eq")
            if z.any():
                raise ValueError(f"modulus is 0 at index {int(np.argmax(z))}")
            self._host = None
            self.odd = (_limb0(arr) & 1).astype(bool)
        self.m, self.ctx = arr, ctx
        self.n, self.bits, self.nm = len(arr), arr.bits, arr.m
        self._r2 = {}          # log2 R -> R^2 mod m (BigIntArray)
        self._even = None
        self._odd_part = None

    def __len__(self) -> int:
        return self.n

    def __reduce__(self):
        """Pickled as its moduli (a BigIntArray, pickled as limbs); unpickled onto the current
        context of the process that loads it (a Dask task's worker), where the per-modulus
        work (R^2, the even rows' split) is done again on first use."""
        return Modulus, (self.m,)

    def __repr__(self) -> str:
        return f"clbig.Modulus(n={self.n}, bits={self.bits}, even rows={int((~self.odd).sum())})"

    def shape(self) -> tuple[int, int] | None:
        """The int32 Montgomery kernel's (Q, C) for these moduli on this context, or None (no
        shape of one work-group)."""
        return mont.shape(self.ctx, self.nm)

    def r2(self, rbits: int) -> BigIntArray:
        """R^2 mod m for R = 2^rbits: one batch division on the device, kept. On CPUs GMP on the
        host: as fast there (4096 moduli of 4096 bits: 20 ms on one core), and it builds no
        division kernel for each width (issue 43: a check of 13 widths built 15)."""
        r = self._r2.get(rbits)
        if r is None:
            if getattr(self.ctx, "is_multi", False) or P.is_gpu(self.ctx):
                r = ops.mod(1 << (2 * rbits), self.m)
            else:
                big = gmpy2.mpz(1) << (2 * rbits)
                r = array([int(big % v) for v in self.values()], bits=self.bits, ctx=self.ctx)
            self._r2[rbits] = r
        return r

    def values(self) -> list[int]:
        """The moduli as Python ints (downloaded once, then kept)."""
        if self._host is None:
            self._host = self.m.tolist()
        return self._host

    def even_split(self) -> tuple[np.ndarray, list[int], list[int]]:
        """(rows, odd parts, powers of two s) of the even moduli (rows index the moduli)."""
        if self._even is None:
            rows = np.nonzero(~self.odd)[0]
            vals = self.values()
            mo, s = [], []
            for i in rows:
                v = vals[int(i)]
                k = (v & -v).bit_length() - 1
                mo.append(v >> k)
                s.append(k)
            self._even = (rows, mo, s)
        return self._even

    def odd_part(self) -> tuple[int, Modulus]:
        """(k, Modulus of m_o) for one even modulus m = 2^k m_o (n == 1), kept: repeated
        powmods with this Modulus pay m_o's R^2 once."""
        if self._odd_part is None:
            rows, mo, s = self.even_split()
            self._odd_part = (s[0], Modulus(mo[0], self.ctx))
        return self._odd_part


def _broadcast(*arrs):
    lens = [len(x) for x in arrs]
    long = {L for L in lens if L != 1}
    if len(long) > 1:
        raise ValueError(f"length mismatch: {', '.join(map(str, lens))} (broadcasting needs equal "
                         "lengths or length 1)")
    n = long.pop() if long else 1
    return n, [0 if (L == 1 and n != 1) else x.m for L, x in zip(lens, arrs)]


def _context(*xs):
    for x in xs:
        if isinstance(x, Modulus):
            return x.ctx
        if isinstance(x, BigIntArray):
            return x.ctx
    return current_context()


def _kernel(ctx, M: Modulus, n: int, coop: bool = False, fill: float = 1.0, tier=None):
    """(module, plan, fit, rbits) of the Montgomery kernel for n instances of M's moduli:
    mpn.mont52 where it is wanted and fits (mont52.wanted), else mpn.mont; plan None where
    neither fits one work-group. The modules take the same calls; fit is the most limbs an
    operand may have (it must be below R), rbits is log2 R (R^2 mod m is computed for it).
    coop (powmod): mont52 may spread an instance over several items (mont52.wanted_coop); fill
    scales the instances per compute unit from which GPUs take mont52 (mont52.wanted).
    tier (the operation's name, its limb products): on CPUs mpn.mont_loop instead, one build
    for every width, until the width has earned its own kernel (runtime.tiers)."""
    K = None
    if mont52.wanted(ctx, M.nm, n, fill):
        pl = mont52.plan(ctx, M.nm, n, coop=coop and mont52.wanted_coop(ctx, M.nm, n))
        if pl is not None:
            K, fit, rbits = mont52, mont52.fit(pl), mont52.rbits(pl)
    if K is None:
        pl = mont.plan(ctx, M.nm, n)
        K, fit, rbits = mont, pl and pl["NP"], pl and 32 * pl["NP"]
    if pl is not None and tier is not None and tiers.cpu_first_tier(
            ctx, ("mont", tier[0], M.nm), tier[1], tiers.unrolled_repays(ctx, M.nm)):
        pl = mont_loop.plan(ctx, M.nm, n)
        return mont_loop, pl, mont_loop.fit(pl), mont_loop.rbits(pl)
    return K, pl, fit, rbits


def _fit(x: BigIntArray, M: Modulus, np_limbs: int) -> BigIntArray:
    """x itself when its limbs fit the residues (any value below R will do), else x mod m."""
    return x if x.m <= np_limbs else ops.mod(x, M.m)


def _rows(x: BigIntArray, idx: np.ndarray, host=None) -> list[int]:
    """Values of x at batch rows idx (a length-one x broadcasts)."""
    vals = host if host is not None else x.tolist()
    return [vals[int(i) if len(vals) > 1 else 0] for i in idx]


def _patch(ctx, out, idx: np.ndarray, vals: list[int], bits: int):
    """out (n, nm device array) with rows idx replaced by vals."""
    host = ctx.get(out)
    m = host.shape[1]
    for i, v in zip(idx, vals):
        host[int(i)] = np.frombuffer(int(v).to_bytes(4 * m, "little"), dtype="<u4")
    return ctx.to_device(host)


def _python_base(x: BigIntArray, M: "Modulus") -> BigIntArray:
    """A base or factor with negative elements reduced mod m first (floor: 0 <= x < m), as
    Python's pow(-2, 3, 5) == 2; non-negative arrays pass through untouched."""
    if x.neg is None or not x.neg.any():
        return x
    return ops.mod(x, M.m)       # Modulus has refused a zero modulus already


@hostrows.host_path("powmod")
def _few_on_host(*args):
    """powmod's fast path (dispatch.rows' `fast`): a few rows of plain ints (ints, or lists or
    tuples of them, broadcasting), exponents >= 0 and moduli >= 1, computed on the host as
    _on_host would, without the dispatch and coercion in front of it: one row of tiny operands
    took 30 µs through them and 12 µs here, of which gmpy2's powmod 2.4 (2-core EPYC,
    2026-11-29), beside GMP's ~400 µs at 1024 bits. None for anything else, which the
    ordinary path takes (and its errors)."""
    if len(args) != 3:
        return None
    lens = [hostrows.plain_rows(x) for x in args]
    if -1 in lens:
        return None
    n = max(lens) or 1
    ctx = current_context()
    if getattr(ctx, "is_multi", False):
        return None                     # several devices: split's rules
    s = ctx.profile.settings
    limit = s.powmod_host_rows           # None: the default, by the moduli's bits below
    if n == 1:                          # (one row: no lists made, gmpy2 in this thread)
        a, e, m = (x if k == 0 else x[0] for x, k in zip(args, lens))
        if e < 0 or m < 1 or limit == 0:
            return None
        out, threads, mbits = [int(gmpy2.powmod(a, e, m))], 1, m.bit_length()
    else:
        if any(k > 1 and k != n for k in lens) or n > (limit if limit is not None else _most_rows(ctx, True)):
            return None
        av, ev, mv = ([x] * n if k == 0 else x * n if k == 1 else x for x, k in zip(args, lens))
        if min(ev) < 0 or min(mv) < 1:
            return None                 # inverses, negative moduli, the zero modulus's error
        mbits = max(mv).bit_length()
        if limit is None:
            limit = _host_rows(ctx, mbits, s)
            if not _within(ctx, n, limit, av, ev, mv):
                return None
        out, threads = host_powm.powm_rows(av, ev, mv)
    if profiling.active():
        _note_host(ctx, n, threads, limit or _host_rows(ctx, mbits, s))
    if not any(lens):
        return out[0]                   # all ints: an int, as dispatch.rows promises
    return host_result(ctx, out, 32 * max(1, -(-mbits // 32)))


def _note_host(ctx, n: int, threads: int, limit: int) -> None:
    profiling.note(f"powmod: {n} rows on the host, GMP in {threads} thread(s) (at most {limit} "
                   f"rows there: one launch on {ctx.name} costs the latency of one instance; "
                   "POWMOD_HOST_ROWS)")


# -- powmod -------------------------------------------------------------------------------
@rows("mod", fast=_few_on_host)
def powmod(a: Operand, e: Counts, m: Operand | Modulus) -> BigIntArray | int:
    """``a**e mod m`` per element, exactly as Python's ``pow(a, e, m)``.

    Exact for every modulus: odd moduli run Montgomery arithmetic on the device, even ones
    a CRT of their odd part and their power of two, moduli too long for one work-group
    square-and-multiply from clbig's products and divisions.
    A negative base is reduced first (``pow(-2, 3, 5) == 2``). A negative exponent goes
    through the inverse, ``pow(a, -k, m) == pow(pow(a, -1, m), k, m)``. A negative modulus
    gives a result in (m, 0], as ``pow(3, 2, -7) == -5``. Operands broadcast: each has the
    batch's length or length one.

    Parameters
    ----------
    a : BigIntArray, int, list of int, or integer numpy array
        The bases, any signs.
    e : BigIntArray, int, list of int, or integer numpy array
        The exponents, any signs.
    m : BigIntArray, int, list of int, integer numpy array, or Modulus
        The moduli, non-zero (a Modulus: positive, its per-modulus work done once).

    Returns
    -------
    BigIntArray or int
        The powers, of capacity m.bits; an int when a, e and m are all plain integers.

    Raises
    ------
    ValueError
        Where a modulus is 0 (naming its index), where e is negative and a is not
        invertible mod m (naming the first such index), for lengths that differ and are
        not one, or for a Modulus of another context than the operands.
    TypeError
        For an operand that is not an integer or a sequence of them.

    Examples
    --------
    >>> import clbig
    >>> clbig.powmod([2, 3, -2], [10, 5, 3], [1000, 7, 5])
    BigIntArray([24, 5, 2], n=3, bits=32)
    >>> clbig.powmod(3, 2, -7), clbig.powmod(3, -1, 7)
    (-5, 5)
    >>> clbig.powmod(2, 3, 0)
    Traceback (most recent call last):
    ...
    ValueError: modulus is 0 at index 0
    """
    if is_scalar(a) and is_scalar(e) and is_scalar(m):
        if m == 0:
            raise ValueError("modulus is 0 at index 0")
        return powmod([a], [e], [m]).tolist()[0]
    if not isinstance(m, Modulus):
        mneg = _negative_moduli(m)
        if mneg is not None:
            return _negative_moduli_result(powmod(a, e, mneg[0]), *mneg)
    host = _on_host(_context(m, a, e), a, e, m)
    if host is not None:
        return host
    E = None if is_scalar(e) and e >= 0 else coerce(e, _context(m, a, e), "e", signed=True)
    if E is not None and E.neg is not None and E.neg.any():
        return _powmod_negative_exponents(a, E, m)
    return _powmod(a, e if E is None else E, m)      # (a list of exponents is uploaded once)


def _negative_moduli(m):
    """(|m| as a list, mask of the negative ones) where an int / list / array of moduli has a
    negative one, else None."""
    if isinstance(m, BigIntArray):
        neg = None if m.neg is None else m.neg & (m.sign() < 0)
        return None if neg is None or not neg.any() else (abs(m), neg)
    if isinstance(m, np.ndarray) and m.ndim == 1 and m.dtype.kind in "iO":   # signed or object
        m = m.tolist()
    vals = [m] if is_scalar(m) else (list(m) if isinstance(m, (list, tuple)) else None)
    if vals is None or not any(is_scalar(v) and v < 0 for v in vals):
        return None
    return [abs(v) for v in vals], np.array([is_scalar(v) and v < 0 for v in vals])


def _negative_moduli_result(r: BigIntArray, m_abs, neg):
    """Python's result for negative moduli from r = the result mod |m|: r - |m| where m < 0
    and r != 0, so that it lies in (m, 0] as Python's (3 * 5) % -7 == -6."""
    M = m_abs if isinstance(m_abs, BigIntArray) else array(m_abs, ctx=r.ctx)
    shift = neg if len(neg) == len(r) else np.broadcast_to(neg, (len(r),))
    shift = shift & ops.compare(r, 0, "ne")
    if not shift.any():
        return r
    return where(shift, ops.sub(r, M), r)


def _powmod_negative_exponents(a, E: BigIntArray, m):
    """pow(a, -k, m) == pow(pow(a, -1, m), k, m) per element whose exponent is negative."""
    ctx = E.ctx
    M = m if isinstance(m, Modulus) else Modulus(m, ctx)
    A = coerce(a, ctx, "a", signed=True)
    inv, ok = invert(A, M.m, strict=False)
    n = len(inv)
    eneg = np.broadcast_to(E.neg & (E.sign() < 0), (n,)) if len(E) in (1, n) else E.neg
    bad = eneg & ~np.broadcast_to(ok, (n,))
    if bad.any():
        raise ValueError(f"pow(a, e, m): e is negative and a is not invertible mod m at index "
                         f"{int(np.argmax(bad))} (gcd(a, m) != 1; clbig.invert(a, m, strict=False) "
                         "says where)")
    base = where(eneg, inv, A)
    return _powmod(base, abs(E), M)


# A powmod launch takes the latency of one instance whatever the batch: its Montgomery
# products are rows of dependent steps (one per digit), and more work-items per instance do
# not shorten them (H200, 2026-11-27, full exponents: 2048 bits 21.6 ms for 1 to 16 rows and
# every split of 1 to 32 items per instance; bench/README.md). One host core running GMP takes
# about 1 / 3.1 / 22 ms a row at 1024 / 2048 / 4096 bits against the launch's 5.5 / 21 / 229 ms
# there, so on GPUs up to HOST_ROWS_PER_CORE rows per host core (by the moduli's bits) are
# faster on the host, every core computing rows at once (clbig.mpn.host_powm). On 16 cores the
# host and the device met near 32-48 / 48-64 / 100 rows (python -m clbig.bench --few).
HOST_ROWS_PER_CORE = ((1024, 2), (2048, 3), (1 << 62, 6))
# CPU devices run one instance per SIMD lane of a core, so one row takes a whole launch's
# latency there too: on a 2-core EPYC (2026-11-29) one row of 1024 / 2048 / 4096 bits took 4.5 /
# 19 / 108 ms in Intel's runtime against GMP's 0.5 / 2.6 / 19, and the device won only from
# about 32 / 8 / 4 rows (PoCL: from about 200 / 150 / more than 64 rows). Up to these rows
# per core the host computes them (the rows there cost what the device does, or less).
# Measured again with the host's rows split evenly over its threads (2026-11-29: before, on two
# cores one pool thread ran all rows but the first): Intel's runtime met the host near 12 / 12
# / below 8 rows; PoCL (3.1) only near 128 rows at 1024 and 2048 bits, and at 4096 bits it
# took 0.73x the device's time up to 64 rows (bench/README.md, "A few rows on the host").
HOST_ROWS_PER_CORE_CPU = ((1024, 8), (2048, 4), (1 << 62, 2))
HOST_ROWS_PER_CORE_POCL = ((1024, 64), (2048, 32), (1 << 62, 32))


def _per_core(ctx) -> tuple:
    if P.is_gpu(ctx):
        return HOST_ROWS_PER_CORE
    return HOST_ROWS_PER_CORE_CPU if ctx.profile.facts.intel_cpu_runtime else HOST_ROWS_PER_CORE_POCL


def _most_rows(ctx, first: bool = False) -> int:
    """The most rows any default of this device's kind sends to the host (whatever the
    moduli's bits): a longer batch goes to the device without its values being read. first:
    as a first call may (hostrows.first_factor times that)."""
    most = max(k for _, k in _per_core(ctx)) * host_powm.cores()
    return most * hostrows.first_factor(ctx, "powmod") if first else most


def _within(ctx, n: int, limit: int, av, ev, mv) -> bool:
    """Whether n rows run on the host: within the default limit for their moduli, or past it
    as a first call (hostrows.rent), where the widest row, computed here and timed, says that
    the rows, spread over the host's cores, take less than what is left of the allowance (a
    row's time grows as bits^2 or more times the exponent's bits, so the factor alone would
    let 8 x 6 rows of 8192 bits rent for seconds)."""
    if n <= limit:
        return True
    if n > limit * hostrows.first_factor(ctx, "powmod"):
        return False
    i = max(range(n), key=lambda j: (mv[j].bit_length(), ev[j].bit_length()))
    t0 = time.perf_counter()
    gmpy2.powmod(av[i], ev[i], mv[i])
    took = time.perf_counter() - t0
    if took * -(-n // host_powm.cores()) > hostrows.left(ctx, "powmod"):
        return False
    return hostrows.rent(ctx, "powmod", n, limit)


def _host_rows(ctx, bits: int, s) -> int:
    """How many rows of `bits`-bit moduli powmod may compute on the host: POWMOD_HOST_ROWS of
    the settings `s`, by default the rows per host core of the device's kind (above) times
    the host's cores."""
    per_core = next(k for b, k in _per_core(ctx) if bits <= b)
    return s.get("powmod_host_rows", per_core * host_powm.cores())


def _rows_of(x, ctx):
    """How many rows operand x has, where _on_host can take it (host values, or a plain
    BigIntArray or Modulus of ctx, read back when the batch is small enough), else None."""
    if is_scalar(x):
        return 1
    if isinstance(x, (list, tuple)):
        return len(x) if all(is_scalar(v) for v in x) else None
    if type(x) is BigIntArray or isinstance(x, Modulus):
        return len(x) if x.ctx is ctx else None
    return None


def _values_of(x) -> list:
    if is_scalar(x):
        return [x]
    if isinstance(x, Modulus):
        return x._host if x._host is not None else x.m.tolist()
    return x.tolist() if isinstance(x, BigIntArray) else list(x)


@hostrows.host_path("powmod")
def _on_host(ctx, a, e, m):
    """pow(a, e, m) row by row on the host (GMP on every core, clbig.mpn.host_powm) where the
    batch has at most _host_rows rows (exponents >= 0, moduli >= 1) of host values, or of
    arrays of ctx (read back: a few rows cost microseconds); else None. The result is the
    array the device would give (capacity as Modulus(m).bits)."""
    lens = [_rows_of(x, ctx) for x in (a, e, m)]
    if None in lens or len(set(lens) - {1}) > 1:
        return None                    # other operands, or lengths the device path refuses
    n = 0 if 0 in lens else max(lens)   # a length-one operand broadcasts, also to none
    if n == 0:
        return None                    # an empty batch: the device path gives the empty result
    s = ctx.profile.settings
    if n > s.get("powmod_host_rows", _most_rows(ctx, True)):
        return None                    # beyond the setting or any default: values not read
    vals = [_values_of(x) for x in (a, e, m)]
    mbits = max(int(z).bit_length() for z in vals[2])
    limit = _host_rows(ctx, mbits, s)
    av, ev, mv = ([v[0]] * n if len(v) == 1 else v for v in vals)
    if any(y < 0 for y in ev):
        return None                    # through the inverse, on the device
    for i, mi in enumerate(mv):
        if mi == 0:
            raise ValueError(f"modulus is 0 at index {i}")
    if n > limit and (s.powmod_host_rows is not None or not _within(ctx, n, limit, av, ev, mv)):
        return None
    out, threads = host_powm.powm_rows(av, ev, mv)
    bits = m.bits if isinstance(m, (BigIntArray, Modulus)) else 32 * max(1, -(-mbits // 32))
    if profiling.active():   # (formatting the note costs more than the row at small sizes)
        _note_host(ctx, n, threads, limit)
    return host_result(ctx, out, bits)    # uploaded when a device operation needs the limbs


def _powmod(a, e, m):
    """powmod for exponents >= 0 and moduli >= 1 (a Modulus too)."""
    ctx = _context(m, a, e)
    M = m if isinstance(m, Modulus) else Modulus(m, ctx)
    if M.ctx is not ctx:
        raise ValueError(f"modulus lives in {M.ctx!r}, not in {ctx!r}: arrays from two contexts cannot mix")
    a, e = _python_base(coerce(a, ctx, "a", signed=True), M), coerce(e, ctx, "e")
    n, (sa, se, sm) = _broadcast(a, e, M.m)
    if n == 0:
        return BigIntArray(ctx, ctx.empty((0, M.nm)), M.bits)
    if _fixed_base(ctx, a, M, n):
        K, pl, fit, rbits = _kernel(ctx, M, n, fill=0.0)
        if K is mont52 and pl["C"] == 1:
            return _powmod_fixed(ctx, a, e, se, M, pl, rbits, n)
    K, pl, fit, rbits = _kernel(ctx, M, n, coop=True, tier=("powmod", n * M.nm ** 2 * 32 * e.m))
    if pl is None:
        return _powmod_composed(a, e, M, n)
    a = _fit(a, M, fit)
    sa = 0 if (len(a) == 1 and n != 1) else a.m
    if M.n == 1 and not M.odd[0]:
        shared = _powmod_even_shared(ctx, a, sa, e, se, M, n)
        if shared is not None:
            return shared
    r2 = M.r2(rbits)
    out = K.powmod(ctx, pl, a.data.data, sa, a.m, e.data.data, se, e.m, M.m.data.data, sm, M.nm,
                   r2.data.data, sm, n)
    if not M.odd.all():
        out = _powmod_even(ctx, out, a, e, M, n)
    return BigIntArray(ctx, out, M.bits)


def _fixed_base(ctx, a, M: Modulus, n: int) -> bool:
    """Whether powmod may take a fixed-base table (mont52_powm, where the one-item FP64 kernel
    has a plan): one base, one odd modulus, at least POWMOD_FIXED_ROWS rows. On GPUs from any
    such batch: a row is then bits / W products, not bits (1 + 1 / w), so the FP64 kernel wins
    where the general powmod would spread instances over the int32 kernel's items (H200,
    2048 bits, 10000 rows: see bench/README.md)."""
    least = ctx.profile.settings.powmod_fixed_rows
    return bool(least) and n >= least and len(a) == 1 and M.n == 1 and bool(M.odd[0])


FIXED_TABLES = 4     # fixed-base tables a context keeps (the newest)


def _powmod_fixed(ctx, a, e, se: int, M: Modulus, pl, rbits: int, n: int) -> BigIntArray:
    """g^e mod m for one base and one odd modulus: the table of g's powers (built on the device
    from g^(2^(W j)) mod m, which GMP computes on the host: ebits squares), kept in the
    context's "fixed-base tables" for later calls with the same g, m and exponent length."""
    m = M.values()[0]
    g = a.tolist()[0] % m
    ebits = 32 * e.m
    w = mont52_powm.fixed_window(ctx, pl, ebits, n)
    nwin = P.ceil_div(ebits, w)
    tables = ctx.profile.cache("fixed-base tables")
    key = (g, m, w, nwin, pl["N"])
    tab = tables.get(key)
    if tab is None:
        x, G = gmpy2.mpz(g), []
        for _ in range(nwin):
            G.append(x)
            x = gmpy2.powmod(x, 1 << w, m)
        G = array(G, ctx=ctx)
        tab = mont52_powm.fixed_table(ctx, pl, G.data.data, G.m, G.m, M.m.data.data, M.nm,
                                      M.r2(rbits).data.data, w, nwin)
        while len(tables) >= FIXED_TABLES:
            tables.pop(next(iter(tables)), None)
        tables[key] = tab
    out = mont52_powm.powmod_fixed(ctx, pl, tab, w, nwin, e.data.data, se, e.m, M.m.data.data,
                                   M.nm, n)
    return BigIntArray(ctx, out, M.bits)


def _powmod_even(ctx, out, a, e, M: Modulus, n: int):
    """Rows with an even modulus, by CRT of the odd part and the power of two."""
    rows, mo, s = M.even_split()
    idx = np.arange(n) if M.n == 1 else rows                  # batch rows to redo
    if M.n == 1:
        mo, s = mo * n, s * n
    av, ev = _rows(a, idx), _rows(e, idx)
    x1 = powmod(av, ev, mo).tolist()                          # odd part (m_o may be 1)
    smax = max(s)
    nm2 = -(-smax // 32)
    pl = mont.plan(ctx, nm2, len(idx), pow2=True)
    A, E = array(av, ctx=ctx), array(ev, ctx=ctx)
    ma = min(A.m, pl["NP"])                                   # a mod B^NP: its low limbs
    x2 = BigIntArray(ctx, mont.powmod(ctx, pl, A.data.data, A.m, ma, E.data.data, E.m, E.m, None, 0,
                                      nm2, None, 0, len(idx), pow2=True), 32 * nm2).tolist()
    vals = []
    for r1, r2, o, k in zip(x1, x2, mo, s):
        t = 1 << k
        h = ((r2 - r1) * int(gmpy2.invert(o, t))) % t if k else 0
        vals.append(r1 + o * h)
    return _patch(ctx, out, idx, vals, M.bits)


def _powmod_even_shared(ctx, a, sa: int, e, se: int, M: Modulus, n: int):
    """a^e mod m for one even modulus m = 2^k m_o shared by the batch, all on the device: x1 =
    a^e mod m_o (Montgomery), x2 = a^e mod 2^k (the power-of-two kernel), joined by the CRT as
    x1 + m_o ((x2 - x1) m_o^-1 mod 2^k) in batch operations. (The per-row path below joins on
    the host, one Python int at a time: fine for a few even rows, not for a whole batch.)
    None where the power-of-two kernel has no plan (the caller's per-row path then runs)."""
    k, Mo = M.odd_part()
    mo = Mo.values()[0]
    nm2 = -(-k // 32)
    pl = mont.plan(ctx, nm2, n, pow2=True)
    if pl is None:
        return None
    mask = (1 << k) - 1
    x2 = BigIntArray(ctx, mont.powmod(ctx, pl, a.data.data, sa, min(a.m, pl["NP"]), e.data.data, se,
                                      e.m, None, 0, nm2, None, 0, n, pow2=True), 32 * nm2) & mask
    if mo == 1:
        res = x2
    else:
        x1 = powmod(a, e, Mo)
        d = ((x2 + (mask + 1)) - (x1 & mask)) & mask          # (x2 - x1) mod 2^k, non-negative
        res = x1 + ((d * int(gmpy2.invert(mo, mask + 1))) & mask) * mo
    out, _ = ops.add_fixed(res, 0, bits=M.bits)                # m's capacity; res < m
    return out


def _powmod_composed(a, e, M: Modulus, n: int):
    """Left-to-right square-and-multiply from clbig.mul and clbig.mod: moduli too long for the
    Montgomery kernels. Rows whose exponent bit is clear multiply by 1 (x * (a bit + 1 - bit))."""
    ctx, m = M.ctx, M.m
    a = ops.mod(a, m)
    ev = e.tolist()
    x = ops.mod(1, m)
    for bit in reversed(range(max(v.bit_length() for v in ev))):
        x = ops.mod(ops.mul(x, x), m)
        on = [(v >> bit) & 1 for v in ev]
        if not any(on):
            continue
        f = a if all(on) else ops.add(ops.mul(a, on), [1 - b for b in on])
        x = ops.mod(ops.mul(x, f), m)
    if len(x) != n:                                        # every operand but a broadcast
        x, _ = ops.add_fixed(x, [0] * n, bits=M.bits)
    return BigIntArray(ctx, x.data, M.bits)


# -- mulmod -------------------------------------------------------------------------------
@rows("mod")
def mulmod(a: Operand, b: Operand, m: Operand | Modulus) -> BigIntArray | int:
    """``(a * b) mod m`` per element, exactly as Python's ``a * b % m``.

    For odd moduli one pass of Montgomery arithmetic on the device, with no full product in
    memory; even moduli and moduli too long for one work-group go through `clbig.mul` then
    `clbig.mod`. Negative factors are reduced first, so the result is in [0, m) as Python's;
    a negative modulus gives a result in (m, 0], as ``(3 * 5) % -7 == -6`` (and as
    `powmod`). Operands broadcast: each has the batch's length or length one.

    Parameters
    ----------
    a, b : BigIntArray, int, list of int, or integer numpy array
        The factors, any signs.
    m : BigIntArray, int, list of int, integer numpy array, or Modulus
        The moduli, non-zero (a Modulus holds positive ones).

    Returns
    -------
    BigIntArray or int
        The products mod m, of capacity m.bits; an int when a, b and m are plain integers.

    Raises
    ------
    ValueError
        Where a modulus is 0 (naming the first such index), for lengths that differ and
        are not one, or for a Modulus of another context than the operands.
    TypeError
        For an operand that is not an integer or a sequence of them.

    Examples
    --------
    >>> import clbig
    >>> clbig.mulmod([3, 4, -3], [5, 6, 5], [7, 10, 7]).tolist()
    [1, 4, 6]
    >>> clbig.mulmod([3, 3], 5, [-7, 7]).tolist()
    [-6, 1]
    >>> clbig.mulmod(2**70, 3, 1000)
    272
    """
    if is_scalar(a) and is_scalar(b) and is_scalar(m):
        if m == 0:
            raise ValueError("modulus is 0 at index 0")
        return mulmod([a], [b], [m]).tolist()[0]
    if not isinstance(m, Modulus):
        mneg = _negative_moduli(m)
        if mneg is not None:
            return _negative_moduli_result(mulmod(a, b, mneg[0]), *mneg)
    ctx = _context(m, a, b)
    M = m if isinstance(m, Modulus) else Modulus(m, ctx)
    if M.ctx is not ctx:
        raise ValueError(f"modulus lives in {M.ctx!r}, not in {ctx!r}: arrays from two contexts cannot mix")
    a = _python_base(coerce(a, ctx, "a", signed=True), M)
    b = _python_base(coerce(b, ctx, "b", signed=True), M)
    n, _ = _broadcast(a, b, M.m)
    if n == 0:
        return BigIntArray(ctx, ctx.empty((0, M.nm)), M.bits)
    if M.n == 1 and not M.odd[0]:   # one even modulus: every row by mul and mod
        return _mulmod_composed(a, b, M, n)
    K, pl, fit, rbits = _kernel(ctx, M, n, tier=("mulmod", 2 * n * M.nm ** 2))
    if pl is None:
        return _mulmod_composed(a, b, M, n)
    a, b = _fit(a, M, fit), _fit(b, M, fit)
    n, (sa, sb, sm) = _broadcast(a, b, M.m)
    r2 = M.r2(rbits)
    out = K.mulmod(ctx, pl, a.data.data, sa, a.m, b.data.data, sb, b.m, M.m.data.data, sm, M.nm,
                   r2.data.data, sm, n)
    if not M.odd.all():
        idx = np.arange(n) if M.n == 1 else np.nonzero(~M.odd)[0]
        mv = _rows(M.m, idx, M.values())
        vals = ops.mod(ops.mul(_rows(a, idx), _rows(b, idx)), mv).tolist()
        out = _patch(ctx, out, idx, vals, M.bits)
    return BigIntArray(ctx, out, M.bits)


def _mulmod_composed(a, b, M: Modulus, n: int):
    x = ops.mod(ops.mul(a, b), M.m)
    if len(x) != n:
        x, _ = ops.add_fixed(x, [0] * n, bits=M.bits)
    return BigIntArray(M.ctx, x.data, M.bits)
