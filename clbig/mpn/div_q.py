"""Exact division of batches: q = u // v and r = u % v, by schoolbook or by Watt's inverse.

Every element of a batch gets its own divisor, of its own length. `divmod` works on limb
vectors as mul_n does (buffers, instance strides and limb counts in, device arrays out): the
quotient in the dividend's limbs (q <= u), the remainder in the divisor's (r < v). BigIntArrays,
signs and broadcasting live in the layer above (clbig.ops.divmod_arrays). Two algorithms, as
GMP has (`algorithm`, "auto" choosing by the quotient's length: see SERIAL_STEPS below):

* basecase (clbig.div_basecase): Knuth's Algorithm D in one launch, every instance on one
  work-item or one work-group. Its results are not verified afterwards: nothing in it is
  approximate. The quotient limb estimate is an exact 3-by-2 division, provably never low and
  at most one high, and each step's sign is checked exactly and followed by an exact add-back;
  the fast path's only assumption (no borrow crosses a chunk) is itself tested exactly each
  step. A check would cost a full q*v product, as much as the division. The tests back this at
  every edge the kernel has: estimates that are one too large (add-back) in both kernel
  shapes, the slow path, B - 1 estimates, divisors of one limb to longer than the dividend,
  B^k +- 1, all-ones limbs, broadcasting, groups with padding instances (tests/test_div_basecase.py).
* newton (below): the result is never unverified: q and r leave this module only after the
  device has checked, with exact full-width arithmetic, that u = q*v + r and 0 <= r < v. It
  serves divisors too long for one work-group, and small batches of long quotients.

Newton's design (v1: driven from the host, every step a batch kernel of the library)
------------------------------------------------------------------------
B = 2^32 (one limb), u < B^mu and 0 < v < B^mv (mu, mv: the operands' limbs per element).

1. Normalization by per-element bit lengths. L = bitlen(v) per element (kernel `bitlen`); a zero
   divisor raises ZeroDivisionError here, naming the first index, before anything else runs.
   With K = max(mv, 2), v^ = v * 2^(32K - L) lies in [B^K / 2, B^K): every divisor of the
   batch then has the same length K and a top bit set, so the whole Newton iteration below has
   one precision schedule for the batch (uniform kernel sizes, no per-element branches), and
   none of Algorithm 1's special cases (v < B, v > B^h, 2v > B^h, v = B^k) can arise. v^ is
   never stored: the iteration only reads its prefixes v_p = floor(v^ / B^(K-p)) =
   floor(v * 2^(32p - L)) (p limbs), made by `vshift`, a shift by a per-element bit count.

2. Whole shifted inverse by Newton iteration in Z, with shorter iterates and divisor prefixes.
   Level j approximates T_j = B^(K+j) / v^ (in (B^j, 2B^j]) by w_j = T_j - e_j (j+1 limbs).
     start   w_1 = floor(B^3 / v_2)                                  (kernel `inv_init`)
     step    j -> J (J = 2 from j = 1, else J <= 2j - 1; levels planned back from nf, see
             schedule()), prefix p = min(J + 1, K):
             Y   = (B^p - v_p * w_j) mod B^(p+1)        [mul_low, sub: the close product]
             N   = (w_j * Y + w_j * B^(p+j) - w_j * B^p) mod B^(p+2j+1)   [mul, shifts, add, sub]
             w_J = floor(N / B^(p+2j-J))                                   [shift]
   This is Watt's Step w_J = w_j B^(J-j) + floor(w_j (B^(p+j) - v_p w_j) / B^(p+2j-J)) (PowDiff
   and Step of Algorithm 1) with the sign of E = B^(p+j) - v_p w_j carried by an offset instead
   of a flag: Y = E + B^p, and N = w_j (B^(p+j) + E) is the (non-negative) numerator, so the
   whole step is unsigned modular arithmetic with no per-element branch.
   Proof of the error bound (t = B^K / v^ in (1, 2], a = e_j / B^j, beta = v^/B^(K-p) - v_p in
   [0, 1), beta = 0 when p = K): E = B^p e_j / t + beta B^j (t - a), and
       e_J = e_j^2 B^(J-2j) / t - beta B^(J-p) (t - a)^2 + phi,    phi in [0, 1) (the floor).
   e_1 in (-4/B, 1) (v_2 is v^ to two limbs); then by induction e_j in (-5.1/B, 2) for every
   j >= 2: the quadratic term is < 1 at J = 2 and < 4/B for J <= 2j - 1; the prefix term is
   < 4.01 B^(J-p) <= 4.01/B as p >= J + 1 unless p = K (then beta = 0). Hence -B^p < E < 3B^p
   (Y is exactly E + B^p), 0 <= N < B^(p+2j+1), and w_J <= 2B^J fits J + 1 limbs. The inverse
   may exceed floor(T_j) by one (only when a prefix shorter than v^ is used in the last step):
   the over-estimate of Theorem 2.

3. Quotient with one guard limb. nf = mu + 1 fraction limbs, W = w_nf (mu + 2 limbs), and
       q0 = floor(u * W / 2^(32 nf + L))          [mul, then `vshift` by -(32 nf + L_i)]
   which is floor(u^ W / B^(h+1)) for u^ = u * 2^(32K - L) < B^h, h = mu + K. As
   u^ W / B^(h+1) = u/v - e u^ / B^(h+1) with 0 <= u^ / B^(h+1) < 1/B and -5.1/B < e < 2:
       delta = (u // v) - q0 is 0 or 1.
   q0 > u // v would need |e| u^ v >= B^(h+1), but u^ v = u v^ < B^h and |e| < B; q0 < u//v - 1
   would need e u^ / B^(h+1) > 1. (Tested with the pure-Python model `reference_inverse` on
   bases 2^4 and 2^8 too, where the bounds are tightest.) The guard limb is what makes the
   rare over-estimated inverse harmless: the paper's delta = -1 cannot occur here.
   Shorter inverse (what `_newton` runs): with every divisor of the batch at least lmin bits
   long, nf = `fraction_limbs(mu, lmin)` = mu + 1 - floor(lmin / 32) still gives
   u^ / B^(K+nf) < 1/B, so q0 < u//v - 1 stays impossible; but u^ v < B^(K+nf) no longer
   holds, so q0 = u//v + 1 becomes possible (e < 0, u just below a multiple of v):
   delta is -1, 0 or 1 (the model test checks this too).

4. Verified correction on the device, with the original u and v: P = q0 * v (full width);
   (u - P, borrow) decides -1 steps; then compare(r, v) decides +1 steps. Each step applies
   to the flagged elements only (q -/+ d, P or r -/+ d*v with d in {0, 1}) and is checked again
   exactly. By step 3 at most one step either way is ever needed; needing more raises
   RuntimeError instead of returning anything unverified.

Cost and what would make it fast (the lead measures on the GPU): the inverse costs about two
full multiplications of the divisor's precision (the steps' products shrink geometrically),
u*W is one (mu x mu)-limb product of which only the high half is used, and the check q*v one
more: 4-5 multiplications, each a separate kernel with its intermediates in global memory,
plus ~8 launches per Newton step. Fast paths: (a) fuse a whole Newton step (close product,
offset, product, shifts) into one kernel, or the whole inverse into one work-group kernel for
midsize operands (the paper's design); (b) clipped products: the high half of u*W and the low
mv+1 limbs of q*v (plus a borrow check) instead of full products; (c) one divisor for the batch
(broadcast) already computes its inverse once.
"""
from __future__ import annotations

import functools

import numpy as np
import pyopencl.array as cla

from . import add_n, div_basecase, mul_fp64, mul_n, mul_ntt, mul_ssa
from ..runtime import replay, tiers
from .compare import compare3, compare3_device
from .shift import shift as _shift_kernel
from ..runtime import plan as P
from ..runtime.render import DoesNotFit, kernel, launch, memoized

LIMB = 32


# -- the precision schedule, shared by the device driver and the reference model -------------
def _levels(nf: int) -> list[int]:
    """The precisions 1 = l_0 < l_1 < ... < nf, each the least that reaches the next."""
    levels = [nf]
    while levels[-1] > 2:
        levels.append((levels[-1] + 2) // 2)      # the least j with 2j - 1 >= J
    if levels[-1] == 2:
        levels.append(1)
    return levels[::-1]


def schedule(nf: int, K: int, start: int = 1):
    """Newton steps (j, J, p) from level j0 to nf: iterate j -> J with a p-limb divisor prefix,
    j0 the highest level of at most `start` limbs (see start_level).

    A step at most doubles the precision (J <= 2j - 1, and 1 -> 2 first). The levels are
    planned back from nf (each the least that reaches the next), so the last step goes from
    about nf/2 to nf: doubling forward from 1 would overshoot and end on a step of a limb or
    two at full size (4097 -> 4098 for a 2^18-bit batch: two products of full length, 34 of
    its 123 ms on an H100)."""
    levels = [l for l in _levels(nf) if l >= start_level(nf, K, start)[0]]
    return [(j, J, min(J + 1, K)) for j, J in zip(levels, levels[1:])]


# Newton's first levels are short and each still costs a step's 8-10 launches: one schoolbook
# division (div_basecase, one launch, one barrier round per quotient limb) computes the
# iterate of the highest level of at most START_LIMBS limbs at once instead, skipping about
# six steps (~50 launches, of 143 for a 2^18-bit division). It is exact where Newton's steps
# are approximate, so the error bound below holds from there on unchanged.
START_LIMBS = 64


@functools.lru_cache(maxsize=None)
def start_level(nf: int, K: int, start: int = 1) -> tuple[int, int]:
    """(j0, p0): the first iterate's level and divisor prefix. w_j0 = floor(B^(p0+j0) / v_p0)
    with p0 = min(j0 + 1, K); for j0 = 1 that is inv_init's floor(B^3 / v_2). As
    v_p0 <= v^ / B^(K-p0) < v_p0 + 1, w_j0 - T_j0 < B^(p0+j0) / v_p0^2 <= 4 B^(j0-p0) <= 4/B
    (p0 = K: w_j0 = floor(T_j0)), so e_j0 lies in (-4/B, 1), as e_1 does (step 2)."""
    j0 = max(l for l in _levels(nf) if l <= max(start, 1))
    return j0, min(j0 + 1, K)


def fraction_limbs(mu: int, lmin: int, limb_bits: int = LIMB) -> int:
    """nf, the inverse's fraction limbs, for mu-limb dividends and divisors of at least lmin
    bits: the least with u^ < B^(K+nf-1) (step 3), i.e. one limb more than the longest
    quotient. Full-length divisors need about mu - mv + 1 limbs, not mu + 1: half the
    inverse's work and a shorter u*W when the divisor is half the dividend."""
    return max(1, mu + 1 - lmin // limb_bits)


def reference_inverse(v: int, mu: int, mv: int, limb_bits: int = LIMB, nf: int | None = None,
                      start: int | None = None) -> int:
    """Pure-Python model of the device iteration (same integers, any limb size): the inverse
    W ~ B^(K+nf) / v^ that divmod uses for a divisor v of mv limbs and mu-limb dividends
    (nf = mu + 1 unless given; the first level as `inverse` picks it, START_LIMBS unless
    `start` is given)."""
    B = 1 << limb_bits
    L, K, nf = v.bit_length(), max(mv, 2), (mu + 1 if nf is None else nf)
    start = START_LIMBS if start is None else start

    def prefix(p):
        s = limb_bits * p - L
        return v << s if s >= 0 else v >> -s
    j0, p0 = start_level(nf, K, start)
    w = B ** (p0 + j0) // prefix(p0)
    for j, J, p in schedule(nf, K, start):
        y = (B ** p - prefix(p) * w) % B ** (p + 1)
        n = (w * y + (w << (limb_bits * (p + j))) - (w << (limb_bits * p))) % B ** (p + 2 * j + 1)
        w = n >> (limb_bits * (p + 2 * j - J))
    return w


# -- small kernels (kernels_cl/div.cl.mako) ---------------------------------------------------
def _wg(ctx):
    return min(256, ctx.max_items)


def bitlen(ctx, a, sa: int, ma: int, n: int) -> cla.Array:
    """Bit length of each of n instances (uint32 device array; 0 for a zero instance)."""
    return _bitlen(ctx, a, sa, ma, n)[0]


def _bitlen(ctx, a, sa: int, ma: int, n: int):
    """(bit lengths, each work-group's least of them as a device array, the group size)."""
    wg = 1 << (min(256, ctx.max_items).bit_length() - 1)   # the reduction halves a power of two
    groups = P.ceil_div(n, wg)
    out = ctx.empty((max(n, 1),), np.uint32)
    least = ctx.empty((groups,), np.uint32)
    k = kernel(ctx, "div.cl.mako", "bitlen", wg, KERNEL="bitlen", MA=0, MR=0, WG=wg)
    launch(ctx, k, groups, wg, a, np.uint64(sa), out.data, least.data, np.uint32(n), np.uint32(ma))
    return out, least, wg


def _least(ctx, out, least, wg: int, n: int) -> tuple[int, int]:
    """(the least of n >= 1 bit lengths, the index of the first zero one or -1) from _bitlen's
    arrays. The host reads one word per work-group, not the n lengths: reading those cost more
    than the whole division of a large batch of small numbers (H200, 8388608 divisions of 2^9
    bits: the kernels 1.1 ms, the read and scan of 32 MiB 16 ms)."""
    mins = ctx.get(least)
    lo = int(mins.min())
    if lo:
        return lo, -1
    g = int(np.argmin(mins))                 # the first group holding a zero: read its lengths
    part = ctx.get(out[g * wg:min(n, (g + 1) * wg)])
    return 0, g * wg + int(np.argmin(part))


def vshift(ctx, a, sa: int, ma: int, n: int, lens, sl: int, sgn: int, c: int, mr: int) -> cla.Array:
    """floor(a * 2^(sgn*lens[i*sl] + c)) mod B^mr per instance, as an (n, mr) device array."""
    out = ctx.empty((n, mr), np.uint32)
    k = kernel(ctx, "div.cl.mako", "vshift", KERNEL="vshift", MA=ma, MR=mr, WG=0)
    launch(ctx, k, P.ceil_div(n * mr, _wg(ctx)), _wg(ctx), a, np.uint64(sa), lens, np.uint32(sl),
           np.int32(sgn), np.int64(c), out.data, np.uint32(n))
    return out


def _inv_init(ctx, v2: cla.Array, n: int) -> cla.Array:
    out = ctx.empty((n, 2), np.uint32)
    k = kernel(ctx, "div.cl.mako", "inv_init", KERNEL="inv_init", MA=2, MR=2, WG=0)
    launch(ctx, k, P.ceil_div(n, _wg(ctx)), _wg(ctx), v2.data, out.data, np.uint32(n))
    return out


# Constant rows live in the context's "div constants" cache (its profile's), made once each.


def _const(ctx, value: int, m: int) -> cla.Array:
    """A one-row device array holding value in m limbs (broadcast it with stride 0)."""
    cache = ctx.profile.cache("div constants")
    key = (value, m)
    if key not in cache:
        host = np.frombuffer(value.to_bytes(4 * m, "little"), dtype="<u4").astype(np.uint32).reshape(1, m)
        cache[key] = replay.persistent(ctx, ctx.to_device(host))
    return cache[key]


def _const_u32(ctx, value: int) -> cla.Array:
    """A one-element uint32 device array (a broadcast bit length)."""
    cache = ctx.profile.cache("div constants")
    key = ("u32", value)
    if key not in cache:
        cache[key] = replay.persistent(ctx, ctx.to_device(np.array([value], np.uint32)))
    return cache[key]


def _base_power(ctx, p: int) -> cla.Array:
    """B^p in p + 1 limbs, one row. Made from limbs, not through _const: hashing and
    converting the int 1 << 32p costs milliseconds per call at millions of bits."""
    cache = ctx.profile.cache("div constants")
    key = ("B^p", p)
    if key not in cache:
        host = np.zeros((1, p + 1), np.uint32)
        host[0, p] = 1
        cache[key] = replay.persistent(ctx, ctx.to_device(host))
    return cache[key]


# -- limb-vector helpers on (n, m) device arrays ------------------------------------------------
def _mul(ctx, a, sa, ma, b, sb, mb, n, mr):
    return mul_n.mul(ctx, a, sa, ma, b, sb, mb, n, LIMB * mr)


def _addsub(ctx, op, a, sa, ma, b, sb, mb, n, mr, flag=False):
    return add_n.addsub(ctx, op, a, sa, ma, b, sb, mb, n, LIMB * mr, want_flag=flag)


def _limb_shift(ctx, x: cla.Array, n: int, limbs: int, left: bool, mr: int) -> cla.Array:
    return _shift_kernel(ctx, x.data, x.shape[1], x.shape[1], n, LIMB * limbs, left, LIMB * mr)


# -- the inverse ------------------------------------------------------------------------------
def _planner_state(ctx):
    """What the products' planners read beyond sizes and settings (tests patch them): the
    fields' limits, SSA's memory limits, and the crossovers auto multiplies by (their content:
    a test or a tuning run that changes them gets recordings of its own)."""
    return (tuple([f.max_log for f in mul_ntt.FIELDS.values()]), mul_ssa._limits,
            mul_n.crossovers_key(ctx))


# Newton's iteration is straight-line (no host reads): after the first division by divisors of
# these sizes it replays (clbig.replay; a 2^19-bit divisor's inverse: 332 recorded allocations,
# launches and releases, H200)
@replay.recorded("div_q.inverse", buffers=(0, 4), state=_planner_state)
def inverse(ctx, v, sv: int, mv: int, nv: int, lens: cla.Array, mu: int, nf: int | None = None,
            start: int | None = None) -> cla.Array:
    """W ~ B^(K+nf) / v^ for nv divisors (buffer v, stride sv, mv limbs; lens = bitlen(v)),
    as an (nv, >= nf + 1) device array (nf = mu + 1 unless given; limbs above nf are zero);
    equal to reference_inverse element by element (start: as there)."""
    K, nf = max(mv, 2), (mu + 1 if nf is None else nf)
    start = START_LIMBS if start is None else start
    prefixes = {}

    def prefix(p):  # floor(v * 2^(32p - L)): the top p limbs of the normalized divisor
        if p not in prefixes:
            prefixes[p] = vshift(ctx, v, sv, mv, nv, lens.data, 1, -1, LIMB * p, p)
        return prefixes[p]

    j0, p0 = start_level(nf, K, start)
    try:
        w = _first_iterate(ctx, prefix(p0), p0, j0, nv)
    except DoesNotFit:            # no schoolbook kernel on this device: Newton from level 1
        return inverse(ctx, v, sv, mv, nv, lens, mu, nf, start=1)
    for j, J, p in schedule(nf, K, start):
        vp, mw, width, sw = prefix(p), j + 1, p + 2 * j + 1, w.shape[1]
        prod = _mul(ctx, vp.data, p, p, w.data, sw, mw, nv, p + 1)                 # v_p w mod B^(p+1)
        y, _ = _addsub(ctx, "sub", _base_power(ctx, p).data, 0, p + 1,
                       prod.data, p + 1, p + 1, nv, p + 1)                         # E + B^p
        z = _mul(ctx, w.data, sw, mw, y.data, p + 1, p + 1, nv, width)             # w (E + B^p)
        w = _tail(ctx, z, p, w, j, J, nv)                                          # N, shifted
    return w


def _tail(ctx, z: cla.Array, p: int, w: cla.Array, j: int, J: int, nv: int) -> cla.Array:
    """w_J = floor(N / B^(p+2j-J)) for N = (z + w B^(p+j) - w B^p) mod B^(p+2j+1), J + 1 limbs.
    N's limbs below p are z's and nothing carries out of them, so w_J is limbs [2j-J, 2j+1)
    of T + w B^j - w (mod B^(2j+1)), T = floor(z / B^p): one scan kernel
    (kernels_cl/newton_tail.cl.mako; two on the multi-group path) where it took three limb
    shifts, an add and a sub, 5-7 launches (a 2^20-bit division: 9 steps, ~40 of its 156
    launches, H200 2026-11-25). By those five operations where no plan of the kernel fits."""
    width = z.shape[1]
    got = _tail_plan(ctx, p, width, w.shape[1], j, J, nv)
    if not got:
        hi = _limb_shift(ctx, w, nv, p + j, True, width)
        lo = _limb_shift(ctx, w, nv, p, True, width)
        num, _ = _addsub(ctx, "add", z.data, width, width, hi.data, width, width, nv, width)
        num, _ = _addsub(ctx, "sub", num.data, width, width, lo.data, width, width, nv, width)
        return _limb_shift(ctx, num, nv, p + 2 * j - J, False, J + 1)
    pl, ks = got
    out = ctx.empty((nv, J + 1), np.uint32)
    blk = ctx.buffer(nv * pl.G) if len(ks) > 1 else out.data       # carry maps of the blocks
    for k in ks:
        launch(ctx, k, pl.groups(nv), pl.work_group, z.data, np.uint64(width), w.data,
               np.uint64(w.shape[1]), out.data, blk, np.uint32(nv))
    return out


def _tail_plan(ctx, p: int, width: int, sw: int, j: int, J: int, n: int):
    """(plan, kernels) of newton_tail for these sizes, memoized; False where none fits, or
    with the DIV_TAIL setting parts (tests, measurements)."""
    s = ctx.profile.settings
    ml, parts = 2 * j + 1, s.div_tail == "parts"
    # the settings' version: scan_plans' settings take effect when changed
    key = ("newton_tail", p, width, sw, j, J, min(n, ctx.max_items), parts, s.version)

    def choose():
        if parts:
            return False
        params = dict(OFF=p, ML=ml, MW=j + 1, SJ=j, D=2 * j - J, MR=J + 1)
        for pl in P.scan_plans(ctx, ml, n):
            modes = ("single",) if pl.mode == "single" else ("summary", "apply")
            try:
                ks = tuple(kernel(ctx, "newton_tail.cl.mako", "newton_tail", pl.work_group, MODE=mode,
                                  Q=pl.Q, IPI=pl.IPI, IPB=pl.IPB if mode == "single" else 1, G=pl.G,
                                  **params) for mode in modes)
            except DoesNotFit:
                continue
            return pl, ks
        return False
    return memoized(ctx, key, choose)


def _first_iterate(ctx, vp: cla.Array, p0: int, j0: int, nv: int) -> cla.Array:
    """w_j0 = floor(B^(p0+j0) / v_p0) for the normalized prefixes (top bit set: bit length
    32 p0 each): inv_init's one-work-item division at j0 = 1, else the schoolbook kernel
    (an (nv, p0 + j0 + 1) array, zero above limb j0; DoesNotFit where it cannot run)."""
    if j0 == 1:
        return _inv_init(ctx, vp, nv)
    q, _ = div_basecase.divmod(ctx, _base_power(ctx, p0 + j0).data, 0, p0 + j0 + 1, vp.data, p0,
                               p0, _const_u32(ctx, LIMB * p0).data, 0, nv)
    return q


# -- choosing the algorithm ---------------------------------------------------------------------
ALGORITHMS = ("auto", "basecase", "newton")

# "auto" takes the basecase wherever it fits the device and the quotient has at most
# SERIAL_STEPS limbs, Newton beyond. The basecase costs (mu - mv + 1)(K + 1) limb products per
# instance, at most a quarter of one mu x mu product, in one launch, but one work-group per
# instance runs its steps (one per quotient limb, a barrier round each) one after the other;
# Newton costs about five products of up to mu limbs in 100-290 launches spread over the whole
# device. Measured, the crossover sits between 2049 and 4097 steps both for batches that fill
# the device and for those that do not. H100, 2^32-bit batches, 2026-11-23 (bench/README.md,
# "Division"): 2^17-bit dividends (2049 steps) 72.1 ms basecase against
# 90.4 ms Newton, 2^18 (4097 steps) 137.0 against 95.9 ms. PoCL (2 cores, batches 2^12 smaller):
# 8 x 2^17 bits 30 against 95 ms, 4 x 2^18 120 against 109 ms; one 2^18-bit division 32
# against 28 ms.
SERIAL_STEPS = 4096
# CPUs whose products run in the lanes kernel (mul_fp64.lanes_auto): there Newton's products
# are fast and the basecase's cooperative steps (divisors past 16 limbs: several items and a
# barrier a step) slow, so Newton takes quotients of LANES_NEWTON_STEPS limbs and more by
# divisors of LANES_NEWTON_MV limbs and more. PoCL, 2-core Xeon, 2026-11-27, batches of 64-256,
# ms basecase / Newton: 2^13 / 6144 bits 2.69 / 1.74, 2^13 / 2^12 6.6 / 3.0, 2^14 / 2^13 10.1 /
# 3.6; the basecase kept 2^13 / 2^11 (2.23 / 3.47), 2^12 / 2^11 (1.89 / 2.92), 4096 / 3072 bits
# (1.63 / 2.24).
LANES_NEWTON_STEPS = 64
LANES_NEWTON_MV = 128


def _basecase_wins(ctx, mu: int, mv: int, n: int) -> bool:
    steps = max(mu - mv + 1, 1)
    if mv >= LANES_NEWTON_MV and steps >= LANES_NEWTON_STEPS and mul_fp64.lanes_auto(ctx):
        return False
    return steps <= SERIAL_STEPS


# -- division -----------------------------------------------------------------------------------
def _mask(ctx, flags: np.ndarray) -> cla.Array:
    return ctx.to_device(flags.astype(np.uint32).reshape(-1, 1))


def _step(ctx, op: str, x: cla.Array, m: int, y: cla.Array, n: int) -> cla.Array:
    """x -/+ y on m limbs, checked exact (no borrow, no carry out): a correction step."""
    out, flag = _addsub(ctx, op, x.data, m, m, y.data, y.shape[1], y.shape[1], n, m, flag=True)
    if flag.any():
        _internal(f"{op} step overflowed", flag)
    return out


def _internal(what: str, flags: np.ndarray):
    raise RuntimeError(f"clbig division: correction {what} at index {int(np.argmax(flags))} "
                       f"(internal error; no result is returned unverified)")


def _correct(ctx, flagged, q, mq: int, q_op: str, x, wide: int, v, sv: int, mv: int, n: int,
             what: str, first=None):
    """Where flagged(x) is true (`first`: its value, already read), q q_op= 1 and x -= v, each
    step checked exact; a second round of flags is an internal error (the proof allows one).
    Returns (q, x, elements fixed)."""
    fixed = 0
    flags = flagged(x) if first is None else first
    while flags.any():
        if fixed:
            _internal(what, flags)
        fixed = int(flags.sum())
        d = _mask(ctx, flags)
        q = _step(ctx, q_op, q, mq, d, n)
        x = _step(ctx, "sub", x, wide, _mul(ctx, d.data, 1, 1, v, sv, mv, n, mv + 1), n)
        flags = flagged(x)
    return q, x, fixed


def divmod(ctx, u, su: int, mu: int, v, sv: int, mv: int, n: int, *, algorithm: str = "auto",
           w_offset: int = 0, q_offset: int = 0, stats: dict | None = None):
    """(u // v as an (n, mu) device array, u % v as an (n, mv) one) for n instances of mu-limb
    dividends (buffer u, stride su) and mv-limb divisors (buffer v, stride sv; 0 broadcasts one
    divisor). algorithm: "auto", "basecase" (one schoolbook launch; ValueError where it cannot
    run on this device) or "newton". A zero divisor raises ZeroDivisionError naming its index.
    w_offset / q_offset perturb Newton's inverse / first quotient (tests only, Newton only);
    stats, when given, receives what ran ("algorithm") and the correction counts (Newton:
    "down", "up"; basecase: per element "slow" steps and "addback"s)."""
    if algorithm not in ALGORITHMS:
        raise ValueError(f"unknown division algorithm {algorithm!r}; choose from {', '.join(ALGORITHMS)}")
    perturbed = bool(w_offset or q_offset)
    if algorithm == "basecase":
        if perturbed:
            raise ValueError("w_offset and q_offset perturb the Newton path only")
        if not div_basecase.fits(ctx, mv):
            raise ValueError(_no_basecase(ctx, mv))
    if n == 0:
        return ctx.empty((0, mu)), ctx.empty((0, mv))
    nv = 1 if sv == 0 else n                 # divisors stored: one when it broadcasts
    lens, least_d, wg = _bitlen(ctx, v, sv, mv, nv)
    sl = 0 if (nv == 1 and n != 1) else 1

    def least() -> int:
        lo, zero = _least(ctx, lens, least_d, wg, nv)
        if zero >= 0:
            raise ZeroDivisionError(f"division by zero: the divisor is 0 at index {zero}")
        return lo

    if algorithm == "auto" and not perturbed and tiers.cpu_first_tier(
            ctx, ("div", mu, mv), n * max(mu - mv + 1, 1) * mv, tiers.unrolled_repays(ctx, mv)):
        q, r = div_basecase.divmod_loop(ctx, u, su, mu, v, sv, mv, lens.data, sl, n, stats)
        least()                                  # a CPU's first calls at these widths
        if stats is not None:
            stats["algorithm"] = "loop"
        return q, r
    if algorithm == "basecase" or (algorithm == "auto" and not perturbed and div_basecase.fits(ctx, mv)
                                   and _basecase_wins(ctx, mu, mv, n)):
        # Enqueued before the zero-divisor check reads the lengths, so that the device does not
        # wait for the host's round trip between the two kernels (H200, 2026-11-25, 2^32-bit
        # batches of 2^9-bit dividends: 80 + 1039 us of kernels in a span of 1309). A zero divisor's
        # instance computes garbage there (no trap: the kernel divides by an inverse it
        # computes by shifts), and the check raises before any result is returned.
        try:
            q, r = div_basecase.divmod(ctx, u, su, mu, v, sv, mv, lens.data, sl, n, stats)
        except DoesNotFit:
            if algorithm == "basecase":
                least()
                raise ValueError(_no_basecase(ctx, mv)) from None
        else:
            least()
            if stats is not None:
                stats["algorithm"] = "basecase"
            return q, r
    lmin = least()
    q, r, down, up = _newton(ctx, u, su, mu, v, sv, mv, n, nv, lens, sl, w_offset, q_offset,
                             lmin)
    if stats is not None:
        stats.update(algorithm="newton", down=down, up=up)   # elements corrected by -1 / +1
    return q, r


def _no_basecase(ctx, mv: int) -> str:
    _, q, c = div_basecase.shape(ctx, mv)
    return (f"basecase division cannot run on {ctx.name} for divisors of {mv} limbs: it needs "
            f"{c} work-items of {q} limbs per work-group, the device allows {ctx.max_items} "
            f"(use algorithm='newton' or 'auto')")


def _newton(ctx, u, su, mu, v, sv, mv, n, nv, lens, sl, w_offset, q_offset, lmin):
    # Inverse once per divisor (once for the whole batch when v broadcasts), then q0. With
    # nf below mu + 1, q0 can also be one too large (|e| u^ v may reach B^(K+nf)): the
    # verified correction below allows one step either way.
    nf = fraction_limbs(mu, lmin)
    mq = min(mu + 1, nf + 1)      # q <= u/v < 2^(32 mu - lmin + 1) fits nf limbs; wide >= mu + 2
    W = inverse(ctx, v, sv, mv, nv, lens, mu, nf)
    if w_offset:
        op = "add" if w_offset > 0 else "sub"
        W, _ = _addsub(ctx, op, W.data, W.shape[1], nf + 1, _const(ctx, abs(w_offset), nf + 1).data, 0,
                       nf + 1, nv, nf + 1)
    sw = 0 if sl == 0 else W.shape[1]
    z = _mul(ctx, u, su, mu, W.data, sw, nf + 1, n, mu + nf + 1)
    q = vshift(ctx, z.data, mu + nf + 1, mu + nf + 1, n, lens.data, sl, -1, -LIMB * nf, mq)
    if q_offset:
        q, _ = _addsub(ctx, "add" if q_offset > 0 else "sub", q.data, mq, mq,
                       _const(ctx, abs(q_offset), 1).data, 0, 1, n, mq)

    # Verified correction: P = q v exactly; r = u - P with its borrow and compare(r, v) are read
    # in one round trip (in a profile of a 2^20-bit division each wait left the H200 idle for
    # 0.21-0.26 ms, 2026-11-25); then at most one step down and one step up, each re-checked.
    wide = mq + mv
    prod = _mul(ctx, q.data, mq, mq, v, sv, mv, n, wide)                 # exact: q v < B^wide
    r0, neg_d = _addsub(ctx, "sub", u, su, mu, prod.data, wide, wide, n, wide, flag="device")
    cmp_d, fold = compare3_device(ctx, r0.data, wide, wide, v, sv, mv, n)
    neg, cmp = ctx.get_many(neg_d, cmp_d)
    neg, big = neg[:n].astype(bool), fold(cmp) != 1                     # u < q v;  r >= v
    last = {"r": r0}

    def negative(prod):                                   # u < q v; keeps r = u - q v
        last["r"], neg = _addsub(ctx, "sub", u, su, mu, prod.data, wide, wide, n, wide, flag=True)
        return neg

    def too_large(r):                                     # r >= v
        return compare3(ctx, r.data, wide, wide, v, sv, mv, n) != 1

    q, prod, down = _correct(ctx, negative, q, mq, "sub", prod, wide, v, sv, mv, n, "too large", neg)
    q, r, up = _correct(ctx, too_large, q, mq, "add", last["r"], wide, v, sv, mv, n, "too small",
                        None if down else big)     # a step down changed r: compare it again
    # Verified: u = q v + r, 0 <= r < v, so q <= u fits mu limbs and r fits mv exactly.
    qo = _shift_kernel(ctx, q.data, mq, mq, n, 0, False, LIMB * mu)
    ro = _shift_kernel(ctx, r.data, wide, wide, n, 0, False, LIMB * mv)
    return qo, ro, down, up
