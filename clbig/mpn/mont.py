"""Montgomery products and powers of limb vectors (kernels_cl/mont.cl.mako), the mpn layer.

Every instance has its own odd modulus m (NM limbs, stride sm; 0 shares one) and R^2 mod m
(stride sr2), with R = B^NP for the plan's NP = C*Q >= NM limbs (`plan`). `mulmod` and
`powmod` return (n, NM) device arrays of exact results for the odd moduli; an even modulus's
row is meaningless (modular.py routes those elsewhere). `powmod(..., pow2=True)` computes
a^e mod B^NP instead (no modulus: the power-of-two part of an even modulus).

Shapes: one work-item per instance holds the whole number in registers up to ONE_MAX limbs
(no barriers, no local memory beyond the multiplier's row); larger moduli spread over C
items of Q limbs (one barrier per limb of the multiplier). An instance must fit one
work-group; `plan` returns None where it cannot (modular.py then composes clbig's mul and
divmod).

Operands the items of a group share are copied into local memory once per group (`_staged`,
from the strides of each launch): one modulus for the batch (sm == 0; its Q limbs leave every
item's registers), one exponent for the batch (se == 0), and with C > 1 each instance's
exponent (its C items read the same words).
"""
from __future__ import annotations

import numpy as np

from ..runtime import config
from ..runtime import plan as P
from ..runtime.render import DoesNotFit, kernel, launch

# The MONT_ONE, MONT_Q and MONT_ITEMS settings override these (tuning, and tests that force
# the cooperative shape on small sizes). H200, 2026-11-24, batches of 100000 with 512-bit
# exponents (bench/results/modular-h200-2026-11-24.log): one item per instance wins at 1024
# bits (3.48 M/s against 2.84 as 4 x 8 limbs) and at 2048 (0.87 against 0.78 as 2 x 32 and
# 0.74 as 8 x 8); from 4096 bits the fewest items of the most limbs win (2 x 64: 0.209 M/s,
# 4 x 32: 0.196, 8 x 16: 0.186; 8192 bits 4 x 64: 0.0521, 8 x 32: 0.0499, 16 x 16: 0.0462):
# fewer barriers per product (bench/results/modular-h200-2026-11-24.log, second run).
ONE_MAX = config.SETTINGS["MONT_ONE"].default   # 64 limbs one work-item holds alone
Q_COOP = (64, 32, 16, 8)   # limbs per item when C > 1, the first that keeps C within ITEMS
Q_COOP_SMALL = (32, 16, 8)   # the same below the fill (see FILL)
# work-items per group aimed at, 64 (128 measured the same at 1024 bits)
ITEMS = config.SETTINGS["MONT_ITEMS"].default
# A batch too small to fill a GPU with one item per instance spreads each instance over more
# items (the MONT_FILL setting overrides; 0 never): one item per instance while n >= FILL per
# compute unit, else the most items (a power of two) of at least Q_SMALL limbs, and beyond
# ONE_MAX limbs Q_COOP_SMALL. CPUs: never (their work-items are loop iterations). H200,
# 20000 instances: 2048 bits 0.683 M/s on 8 x 8 limbs against 0.523 on one item (0.644 as
# 4 x 16, 0.607 as 2 x 32); 1024 bits 2.57 on 4 x 8 against 2.01 on one item; 4096 bits
# with 6000 instances 18-20 K/s as 4 x 32 against 14.8 K/s as 2 x 64.
FILL = 256
Q_SMALL = 8
# Squares by mont_sqr (each cross product once) for one item of up to SQR_MAX limbs
# (the MONT_SQR setting 0 / 1 turns it off / on where C = 1). H200, 512-bit exponents: 3.92 M/s
# at 1024 bits against 3.48 with CIOS squares; at 2048 bits 0.78 against 0.87 (the 64-limb
# item already at 255 registers and spilling).
SQR_MAX = 32
# m's chunk (MLOC) and the multiplicand (BLOC) in local memory instead of registers
# (the MONT_MLOC / MONT_BLOC settings, 0 / 1, turn each off / on everywhere). By default BLOC
# for one item of at least BLOC_MIN limbs, MLOC never. H200, 512-bit exponents
# (bench/results/modular-h200-2026-11-24.log, third run): 2048 bits 0.889 M/s with BLOC against 0.878
# (no spill against 108 bytes), MLOC 0.884, both 0.866; ptxas still takes all 255 registers
# (it loads the local limbs ahead), so occupancy does not rise. 4096 bits (2 x 64) lose: 0.189
# (BLOC), 0.180 (MLOC) against 0.209; 2 x 32 at 2048 bits too (0.711 against 0.775).
MLOC_MIN = 1 << 30
BLOC_MIN = 64
# Staging once per group (see the module's doc; the MONT_MSHARED / MONT_ESHARED settings 0
# turn the modulus's / the exponent's off, 1 on wherever they apply and fit). By default the
# exponent is staged wherever it applies and the modulus only for one item per instance. H200,
# 2026-11-24, 100000 instances, 512-bit exponents, int32 kernel (.gpu/mshared_probe.py): one
# modulus for the batch 1024 bits 4.03 M/s staged against 3.87, 2048 bits 0.910 against 0.886;
# 4096 bits (C = 2) 0.192 against 0.208, so not there; exponents staged: within 1% either way.
MSHARED_C1 = 1
ESHARED = config.SETTINGS["MONT_ESHARED"].default   # True


def _fill(ctx, s) -> int:
    default = FILL if P.is_gpu(ctx) else 0
    return s.get("mont_fill", default) * ctx.profile.facts.compute_units


def shape(ctx, nm: int, n: int | None = None):
    """(Q, C) for n instances (None: a large batch) of moduli of nm limbs, or None when an
    instance cannot fit a work-group."""
    s = ctx.profile.settings
    items = s.mont_items
    if nm <= s.mont_one:
        fill = _fill(ctx, s) if n is not None else 0
        if n is None or n >= fill or nm < 2 * Q_SMALL:
            return nm, 1
        c = 2
        while P.ceil_div(nm, 2 * c) >= Q_SMALL and 2 * c <= min(items, ctx.max_items):
            c *= 2
        q = P.ceil_div(nm, c)
        if _local_bytes(q, c, 1, True) <= ctx.local_mem:
            return q, c
        return nm, 1
    qs = s.get("mont_q", Q_COOP if n is None or n >= _fill(ctx, s) else Q_COOP_SMALL)
    for q in qs:
        c = P.ceil_div(nm, q)
        if c <= min(items, ctx.max_items) or q == qs[-1]:
            break
    q = max(q, 2)     # the one-barrier iteration needs each item's limb 1
    c = max(2, P.ceil_div(nm, q))
    q = max(2, P.ceil_div(nm, c))   # the least padding for c items (65 limbs: 2 x 33)
    if c > ctx.max_items or _local_bytes(q, c, 1, True) > ctx.local_mem:
        return None
    return q, c


def _loc(forced: bool | None, q: int, c: int, least: int) -> bool:
    """MLOC / BLOC: the setting where set, else for one item of at least `least` limbs."""
    return c == 1 and q >= least if forced is None else forced


def _local_bytes(q: int, c: int, ipb: int, pow2: bool, rows: int = 0, extra: int = 0) -> int:
    """Local memory of a group; rows: limb rows kept in local memory (MLOC, BLOC); extra:
    words staged once per group (the shared modulus, exponent words: _staged)."""
    xld = q * c + 1
    words = ipb * xld * (2 if pow2 else 1) + rows * ipb * c * q + extra
    if c > 1:
        words += ipb * (5 * c + 2)
    return P.WORD * words + 16


def plan(ctx, nm: int, n: int, pow2: bool = False):
    """dict(Q, C, IPB, NP, MLOC, BLOC) for n instances of nm-limb moduli, or None (see
    shape)."""
    sh = shape(ctx, nm, n)
    if sh is None:
        return None
    q, c = sh
    s = ctx.profile.settings
    mloc = not pow2 and _loc(s.mont_mloc, q, c, MLOC_MIN)
    bloc = _loc(s.mont_bloc, q, c, BLOC_MIN)
    ipb = max(1, min(s.mont_items, ctx.max_items) // c)
    ipb = min(ipb, P.next_pow2(max(n, 1)))
    while ipb > 1 and _local_bytes(q, c, ipb, pow2, mloc + bloc) > ctx.local_mem:
        ipb //= 2
    if _local_bytes(q, c, ipb, pow2, mloc + bloc) > ctx.local_mem:
        mloc = bloc = False   # registers then (shape() checked that this fits)
    return dict(Q=q, C=c, IPB=ipb, NP=q * c, MLOC=mloc, BLOC=bloc)


def _staged(ctx, pl: dict, sm: int, se: int | None, me: int, pow2: bool) -> dict:
    """pl with what one launch stages once per group (kernels_cl/mont.cl.mako): MSH (one
    modulus for the batch, sm == 0: it replaces MLOC's per-item rows) and ESH, where the
    exponent is read ("one": shared, se == 0; "each": every instance's words, for C > 1;
    "global"; se None: no exponent, mulmod). What does not fit ctx.local_mem beside the
    plan's own arrays stays where it was (registers / global memory)."""
    q, c, ipb = pl["Q"], pl["C"], pl["IPB"]
    pl = dict(pl, MSH=False, ESH="global")
    s = ctx.profile.settings
    if not pow2 and sm == 0 and s.get("mont_mshared", bool(MSHARED_C1) and c == 1):
        words = c * (q | 1)     # chunks at an odd pitch (mont.cl.mako's QP)
        if _local_bytes(q, c, ipb, pow2, pl["BLOC"], words) <= ctx.local_mem:
            pl.update(MSH=True, MLOC=False)
    used = _local_bytes(q, c, ipb, pow2, pl["MLOC"] + pl["BLOC"], c * (q | 1) if pl["MSH"] else 0)
    if se is not None and s.mont_eshared:
        # C == 1 with per-instance exponents stays global: each item reads only its own words
        esh, words = ("one", me) if se == 0 else ("each", ipb * (me | 1)) if c > 1 else ("global", 0)
        if words and used + P.WORD * words <= ctx.local_mem:
            pl["ESH"] = esh
    return pl


def window(ebits: int) -> int:
    """Window width for exponents of ebits bits: the fewest products ebits/W + 2^W."""
    return min(range(1, 8), key=lambda w: (P.ceil_div(ebits, w) + (1 << w), w))


def within(w: int, entry_bytes: int, limit: int) -> int:
    """w, narrowed until tables of 2^w entries of entry_bytes fit in `limit` bytes (one buffer:
    the largest the device allocates)."""
    while w > 1 and entry_bytes << w > limit:
        w -= 1
    return w


def _build(ctx, pl, name, **params):
    """The kernel for plan pl, halving IPB while the build refuses the group size."""
    params.setdefault("K", 1)
    while True:
        wg = pl["IPB"] * pl["C"]
        try:
            mm = "@MS" if pl["MSH"] else "@MV" if pl["MLOC"] else "mm"
            return kernel(ctx, "mont.cl.mako", name, wg, KERNEL=name, Q=pl["Q"], C=pl["C"],
                          IPB=pl["IPB"], NP=pl["NP"], XLD=pl["NP"] + 1,
                          MM=mm, B="@BV" if pl["BLOC"] else "b", ESH=pl["ESH"], **params), wg
        except DoesNotFit:
            if pl["IPB"] == 1:
                raise
            pl["IPB"] //= 2


def mulmod(ctx, pl, a, sa, ma, b, sb, mb, m, sm, nm, r2, sr2, n):
    """a*b mod m for n instances (ma, mb <= NP limbs); an (n, nm) device array."""
    out = ctx.empty((n, nm), np.uint32)
    if n == 0:
        return out
    pl = _staged(ctx, pl, sm, None, 0, False)
    k, wg = _build(ctx, pl, "mulmod", NM=nm, MA=ma, MB=mb, ME=0, W=1, SHARED_E=False, POW2=False,
                   SQR=False)
    launch(ctx, k, P.ceil_div(n, pl["IPB"]), wg, a, np.uint64(sa), b, np.uint64(sb), m,
           np.uint64(sm), r2, np.uint64(sr2), out.data, np.uint32(n))
    return out


def powmod(ctx, pl, a, sa, ma, e, se, me, m, sm, nm, r2, sr2, n, pow2=False, w=None):
    """a^e mod m (pow2: a^e mod B^NP, m and r2 unused) for n instances, ma <= NP limbs of a and
    me of e; an (n, nm) device array."""
    out = ctx.empty((n, nm), np.uint32)
    if n == 0:
        return out
    pl = _staged(ctx, pl, sm, se, me, pow2)
    s = ctx.profile.settings
    w = w or s.mont_w or window(32 * me)
    shared_e = se == 0
    sqr = pl["C"] == 1 and not pow2 and s.get("mont_sqr", pl["NP"] <= SQR_MAX)
    k, wg = _build(ctx, pl, "powmod", NM=nm, MA=ma, MB=0, ME=me, W=w, SHARED_E=shared_e,
                   POW2=bool(pow2), SQR=sqr)
    groups = P.ceil_div(n, pl["IPB"])
    tab = ctx.buffer(P.WORD * (groups * pl["IPB"]) * pl["NP"] << w)
    if pow2:
        m = r2 = tab   # not read
    launch(ctx, k, groups, wg, a, np.uint64(sa), e, np.uint64(se), m, np.uint64(sm), r2,
           np.uint64(sr2), out.data, tab, np.uint32(n))
    return out


def multi_powmod(ctx, pl, bases, exps, m, sm, nm, r2, sr2, n, ebits, w=None):
    """prod_k b_k^e_k mod m for n instances by one chain of squares (Straus; the contract of
    clbig.mpn.mont52_powm.multi_powmod): bases and exps are K (buffer, stride, limbs) rows, bases
    below R = B^NP, exponents below 2^ebits; an (n, nm) device array. K tables of 2^W entries
    per instance; the strides, lengths and the windows' count are run-time arguments."""
    out = ctx.empty((n, nm), np.uint32)
    if n == 0:
        return out
    K = len(bases)
    pl = _staged(ctx, pl, sm, None, 0, False)   # a shared modulus staged; exponents read globally
    s = ctx.profile.settings
    inst = P.ceil_div(n, pl["IPB"]) * pl["IPB"]
    w = within(w or s.mont_w or window(ebits), P.WORD * inst * pl["NP"] * K, ctx.profile.facts.max_alloc)
    sqr = pl["C"] == 1 and s.get("mont_sqr", pl["NP"] <= SQR_MAX)
    k, wg = _build(ctx, pl, "multipow", NM=nm, MA=0, MB=0, ME=0, W=w, K=K, SHARED_E=False,
                   POW2=False, SQR=sqr)
    groups = P.ceil_div(n, pl["IPB"])
    tab = ctx.buffer(P.WORD * (groups * pl["IPB"]) * pl["NP"] * K << w)
    args = []
    for (b, sb, mb), (e, se, me) in zip(bases, exps):
        args += [b, np.uint64(sb), np.uint32(mb), e, np.uint64(se), np.uint32(me)]
    launch(ctx, k, groups, wg, *args, m, np.uint64(sm), r2, np.uint64(sr2), out.data, tab,
           np.uint32(P.ceil_div(ebits, w)), np.uint32(n))
    return out
