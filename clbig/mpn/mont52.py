"""Montgomery products and powers with FP64 digit products, the mpn layer beside clbig.mont
(the same calls) for odd moduli: one work-item per instance (kernels_cl/mont52.cl.mako), or for
powmod beyond one item's registers several items per instance (mont52_coop.cl.mako).

Residues are N digits of 51 bits with R = 2^(51 N) > 4m (`digits`), so R^2 mod m is taken for
`rbits(pl)` bits, not for the int32 kernels' B^NP. Operands a, b must be below 2^(32 * fit(pl))
(modular.py reduces longer ones first).

Why a second kernel: Emmart, Zheng & Weems (ARITH 2018) form 52-bit digit products with two
FP64 fma and sum them as 64-bit integers, 20-34% faster than the best integer code at 2048 to
4096 bits on GPUs whose FP64 pipe is as wide as their int32 one (as an H100's is). It needs a
device with double precision and a correctly rounded fma (the profile's `exact_fma`) and pays
off only where FP64 is fast (its `fast_fp64`: `wanted`).
"""
from __future__ import annotations

import numpy as np

from ..runtime import config
from ..runtime import plan as P
from ..runtime.render import DoesNotFit, kernel, largest_fitting, launch

D = 51            # bits per digit
ITEMS = 64        # work-items per group aimed at (the MONT52_ITEMS setting overrides)
# The multiplicand, m and the N accumulators take 6N registers of an item. Beyond REG_MAX
# digits m's digits move to local memory (MLOC; the MONT52_MLOC setting overrides), read at each
# use. H200, 2048 bits (N = 41), 512-bit exponents: 1.35 M/s (246 registers, no spill) against
# 1.00 with m in registers (255, 348 B spilled); the multiplicand in local memory instead 1.31,
# both 0.83 (groups of 32 for the local memory). Beyond N_MAX digits the kernel is not used:
# at N = 81 (4096 bits) the accumulators alone take 162 registers and every placement spills
# (0.039-0.116 M/s against 0.209 for the int32 kernel). CPUs keep m in registers: PoCL on this
# CI machine, 2048 bits, 128 instances: 5.5 K/s against 3.6 with MLOC (int32: 0.9).
REG_MAX = 24
N_MAX = config.SETTINGS["MONT52_NMAX"].default   # 48
# Beyond N_MAX digits and up to COOP_MAX, powmod on GPUs and CPUs spreads an instance over C items of
# at most S_MAX digits (mont52_coop.cl.mako: one barrier per row of a product; the MONT52_COOP
# (0/1) and MONT52_SMAX settings override), each item's digits of m in registers up to COOP_MREG
# digits per item, else in local memory (the MONT52_COOP_MREG setting overrides). H200, 100000
# instances, 512-bit exponents (8192 bits: 50000), K/s, against the int32 kernel:
#   bits  int32   m in local memory (2026-11-24)     m in registers (2026-11-25)
#   3072  344     4 x 16: 402, 2 x 31: 273           4 x 16: 429-433, 8 x 8: 426
#   4096  209     2 x 41: 211, 4 x 21: 187           8 x 11: 224-232, 4 x 21: 217-221, 16 x 6: 161
#   8192  52.8    4 x 41: 54.3, 8 x 21: 47.9         16 x 11: 56.2, 8 x 21: 56.5
# (2048 bits as 2 x 21: 1.04-1.11 M/s against 1.34 on one item.) What holds it near a third of
# the FP64 peak (the one-item kernel reaches half) is not the barrier: without it, 4096 bits
# ran 220 K/s against 218 (and gave the same results, lanes of one warp); groups of 32 or 128
# items, a loop kept rolled and -cl-nv-maxrregcount (ignored) change nothing; forming the next
# q early, without a branch, gained 1-3%. Beyond COOP_MAX the int32 kernel (not measured).
# Where the program binary is PTX (NVIDIA), the kernel is built with at most COOP_REGS registers
# per item (render.MAXREG; the MONT52_COOP_REGS setting overrides, 0: no cap), so 12 warps fit a
# multiprocessor instead of 8; the spills this costs go to L1. H200, 2026-11-25: 4096 bits as
# 4 x 21 251-257 K/s at 152-168 registers against 217-221 at 255 (8 x 11: 220-226 at 96-128,
# 213 at 200); 8192 bits as 8 x 21 64.5 against 55.5; 3072 bits as 4 x 16 444 (449 at 128)
# against 429-433. The same cap on the one-item kernel loses (2048 bits 0.98 M/s at 200
# registers against 1.34 at 246), and on the int32 kernel too (4096 bits 2 x 64 at 168: 172
# against 209).
# Squares by mont52_sqr_coop (blocks/mont52.mako: x products in even rows only, 1.5 N^2 digit
# products against 2 N^2) need more registers than the product: at most SQR_S_MAX digits per
# item, C any count (not only powers of two), N = C*S even. They save a quarter of the digit
# products but none of a row's fixed work (q, the exchange, the barrier), which weighs more the
# fewer digits an item has; so they are taken only where the product's plan has more than
# SQR_FROM digits per item (the MONT52_COOP_SQR setting, 0/1, decides where set). H200, 2026-11-25,
# the same batches, K/s, cap 168 unless said (int32 kernel in brackets):
#   bits  squares by the product   mont52_sqr_coop
#   2560  4 x 13: 669 (491)        6 x 9: 610
#   3072  4 x 16: 444 (345)        8 x 8: 444, 6 x 11: 447, 4 x 16: 209 (spills)
#   4096  4 x 21: 251, 8 x 11: 224 7 x 12: 285 (160 registers 272, 200: 265, uncapped 269),
#                                  8 x 11: 267, 6 x 14: 194 (200 registers: 268), 4 x 21: 65
#   6144  8 x 16: 112 (72)         13 x 10: 98.5
#   8192  8 x 21: 64.5 (52.8)      14 x 12: 65.3, 16 x 11: 67.6, 12 x 14: 68.6 at 200 registers
# At 4096 bits groups of 126 items gave 282, of 28 258; windows of 4 bits 285, of 6 274; the
# multiplicand reloaded from local memory each even row instead of shifted 263; two even rows per
# shift (half the moves, one case test for both) 109: twice the code, spilling. Where it stands
# (SASS of 7 x 12, sm_90): a pair of rows is 336 instructions, of which the digit products
# (77 DFMA, 41 DADD, 80 IADD3) are 198; the case selects 47 (30 FSEL, 17 ISETP), the moves ~26,
# the rows' fixed work the rest. The product's row is 184 (130 of products), so a pair of square
# rows costs 0.91 of two product rows, not 0.75: the kernel is issue-bound, not FP64-bound.
# On CPUs (PoCL, 2-core Zen 5, 4096 bits, 32 instances) the squares lose: 493/s against 803 by
# the product's rows, so CPUs keep those; 4 x 21 803, 8 x 11 742, 2 x 41 276; groups of 16
# items (CPU_ITEMS: 4 instances) 906 against 803 with 64 (889 against 792 on 128 instances).
S_MAX = 21
SQR_S_MAX = 12
SQR_FROM = 16
COOP_MAX = 192
CPU_ITEMS = 16
COOP_MREG = config.SETTINGS["MONT52_COOP_MREG"].default   # 24
COOP_REGS = config.SETTINGS["MONT52_COOP_REGS"].default   # 168
# GPUs take this kernel from FILL instances per compute unit (one work-item each). H200 (132
# units), 512-bit exponents, FP64 against int32 (which spreads small batches over items):
# 1024 bits n = 3000 0.75x, 8000 1.00x, 16000 1.70x, 33000 2.05x; 2048 bits 0.53x, 0.90x,
# 1.69x, 1.82x.
FILL = config.SETTINGS["MONT52_FILL"].default   # 80
# Squares by mont52_sqr (unrolled, N(N+1)/2 + N^2 products against 2 N^2) up to SQR_MAX digits
# on GPUs (the MONT52_SQR_MAX setting overrides; 0: never): its code grows as N^2. H200, 512-bit
# exponents: 1024 bits (N = 21) 5.68 M/s against 5.10 by mont52_mul; 2048 bits (N = 41) 0.10
# against 1.00 (15000 instructions unrolled, spilling). PoCL on this CI machine's CPU: 1024
# bits 4.2 K/s against 12.5, so CPUs never.
SQR_MAX = 24
# One modulus for the batch staged in local memory once per group (_msh). H200, 100000
# instances, 512-bit exponents, one modulus: 2048 bits 1.43 M/s against 1.35 with each item's
# copy (MLOC); 1024 bits 0.96 against 5.69 with m in registers (the unrolled squares then load
# every digit of m from local memory), so only where MLOC is the plan. PoCL: 1024 bits 10.5
# against 12.5 K/s, 2048 bits 2.7 against 5.0.


def digits(nm: int) -> int:
    """N: the fewest 51-bit digits with 2^(51 N) > 4 * 2^(32 nm) (residues below 2m fit)."""
    return P.ceil_div(32 * nm + 2, D)


def wanted(ctx, nm: int, n: int, fill: float = 1.0) -> bool:
    """Whether powmod / mulmod of n instances of nm-limb moduli take this kernel:
    the MONT_FP64 setting (0/1) decides where set; else devices with an exact fma and fast FP64
    (the profile's facts: on GPUs only those with half-rate FP64, profile.NV_FAST_FP64 and
    AMD_FAST_FP64), on GPUs from FILL instances per compute unit (the MONT52_FILL setting
    overrides): smaller batches fill the GPU better with the int32 kernel's instances spread
    over several items (`fill` scales that rule: forms that save most of the products, as a
    fixed base's table, take the kernel from fewer instances). Measured (H200,
    2026-11-24, 512-bit exponents, bench/README.md): 100000 instances, 1024 bits 5.68 M/s
    against 3.90 (int32), 2048 bits 1.35 against 0.89, 4096 bits 0.05-0.12 against 0.21 (N = 81
    digits spill; N_MAX keeps them on int32); PoCL on this CI machine's CPU, 1024 bits 12.5
    K/s against 3.2, 2048 bits 5.5 against 0.9."""
    s = ctx.profile.settings
    if s.mont_fp64 is not None:
        return s.mont_fp64
    f = ctx.profile.facts
    if not f.exact_fma or not f.fast_fp64:
        return False
    if f.is_gpu:
        return n >= fill * s.mont52_fill * f.compute_units
    return True


def plan(ctx, nm: int, n: int, coop: bool = False):
    """dict(N, WG, MLOC, C, S, IPB) for n instances of nm-limb odd moduli, or None where this
    kernel does not apply (no FP64, too many digits, local memory too small). C = 1: one item
    per instance (mont52.cl.mako); coop (powmod only): beyond N_MAX digits C items of S digits
    (mont52_coop.cl.mako), where wanted_coop says so."""
    if not ctx.profile.facts.exact_fma:
        return None
    s = ctx.profile.settings
    N = digits(nm)
    if N > s.mont52_nmax:
        return _plan_coop(ctx, s, N, n) if coop else None
    mloc = s.get("mont52_mloc", P.is_gpu(ctx) and N > REG_MAX)
    # The group follows the batch on GPUs only: there idle items cost a scheduler's time (they
    # stay for MSH's barrier), while one item per instance on a CPU leaves at once (no barrier
    # without MSH, which CPUs do not take), so one kernel serves every batch length there.
    wg = min(s.get("mont52_items", ITEMS), ctx.max_items)
    if P.is_gpu(ctx):
        wg = min(wg, P.next_pow2(max(n, 1)))
    while wg > 1 and _local_bytes(N, wg, mloc) > ctx.local_mem:
        wg //= 2
    if _local_bytes(N, wg, mloc) > ctx.local_mem:
        return None
    return dict(N=N, WG=wg, MLOC=mloc, C=1, S=N, IPB=wg)


def _plan_coop(ctx, s, N: int, n: int):
    """C items of S digits per instance, IPB instances a group: C the least power of two with
    S <= S_MAX; on GPUs where that S passes SQR_FROM, squares by mont52_sqr_coop (SQR; N = C*S even)
    with C from the three least that give S <= SQR_S_MAX, the one with the fewest digits.
    The MONT52_SMAX, MONT52_COOP_SQR (0/1) and MONT52_COOP_C settings (s) override."""
    gpu = P.is_gpu(ctx)
    smax = s.mont52_smax   # None or 0: S_MAX, SQR_S_MAX
    c = 2
    while P.ceil_div(N, c) > (smax or S_MAX):
        c *= 2
    sqr = s.get("mont52_coop_sqr", gpu and P.ceil_div(N, c) > SQR_FROM)
    if sqr:
        c0 = max(2, P.ceil_div(N, smax or SQR_S_MAX))
        c = min(range(c0, c0 + 3), key=lambda c: (c * _square_digits(N, c), c))
    c = s.get("mont52_coop_c", c)
    S = _square_digits(N, c) if sqr else max(2, P.ceil_div(N, c))
    ipb = max(1, min(s.get("mont52_items", ITEMS if gpu else CPU_ITEMS), ctx.max_items) // c)
    ipb = min(ipb, P.next_pow2(max(n, 1)))
    mreg = S <= s.mont52_coop_mreg
    while ipb > 1 and _coop_bytes(c * S, S, c, ipb, mreg) > ctx.local_mem:
        ipb //= 2
    if c > ctx.max_items or _coop_bytes(c * S, S, c, ipb, mreg) > ctx.local_mem:
        return None
    return dict(N=c * S, WG=ipb * c, MLOC=not mreg, C=c, S=S, IPB=ipb, SQR=sqr)


def _square_digits(N: int, c: int) -> int:
    """S for the squares' plan: the fewest digits S >= 2 per item of c that hold N, C*S even."""
    S = max(2, P.ceil_div(N, c))
    return S + (c * S) % 2


def _coop_bytes(N: int, S: int, c: int, ipb: int, mreg: bool) -> int:
    """xs (a row of N + 1 per instance), ml (S + 1 per item, unless m is in registers), ex and
    qx."""
    return 8 * (ipb * (N + 1) + (0 if mreg else (S + 1) * ipb * c) + 2 * ipb * c + 2 * ipb) + 16


def _local_bytes(N: int, wg: int, mloc: bool) -> int:
    return 8 * N * wg * (2 if mloc else 1) + 16


def wanted_coop(ctx, nm: int, n: int) -> bool:
    """Whether powmod takes the cooperative FP64 kernel for moduli beyond N_MAX digits, up to
    COOP_MAX (the MONT52_COOP setting, 0/1, decides where set), on the devices `wanted` leaves to
    mont52: GPUs with fast FP64, and CPUs (PoCL on this CI machine's 2-core Zen 5, 2026-11-25,
    32-128 instances, 512-bit exponents: 2560 bits 1728/s against 422 by the int32 kernel,
    3072 bits 1357 against 271, 4096 bits 890 against 134, 8192 bits 209 against 67; gmpy2
    on one core 1221 / 862 / 486 / 184)."""
    return ctx.profile.settings.get("mont52_coop", digits(nm) <= COOP_MAX)


def rbits(pl) -> int:
    """log2 R for this plan (R^2 mod m is 2^(2 rbits) mod m)."""
    return D * pl["N"]


def fit(pl) -> int:
    """Most 32-bit limbs an operand a or b may have (it must be below R)."""
    return D * pl["N"] // 32


def _msh(s, pl, sm: int) -> bool:
    """One modulus for the batch (sm == 0), one item per instance: its digits staged once per
    group in local memory where m would live in local memory anyway (MLOC: GPUs beyond REG_MAX
    digits; the MONT52_MSHARED setting, 0/1, decides where set)."""
    return pl["C"] == 1 and sm == 0 and s.get("mont52_mshared", bool(pl["MLOC"]))


def _build(ctx, pl, template, name, **params):
    """The kernel of plan pl (updated to the group size built: largest_fitting halves it while
    the build refuses it, register pressure lowering the device's limit)."""
    c = pl["C"]

    def build(wg):
        if wg < c:
            raise DoesNotFit(f"{c} items per instance do not fit a group of {wg}")
        return kernel(ctx, template, name, wg, WG=wg, IPB=wg // c, N=pl["N"], MLOC=pl["MLOC"],
                      C=c, S=pl["S"], **params)

    k, wg = largest_fitting(pl["WG"], build)
    pl.update(WG=wg, IPB=wg // c)
    return k


def mulmod(ctx, pl, a, sa, ma, b, sb, mb, m, sm, nm, r2, sr2, n):
    """a*b mod m for n instances (a, b below R: ma, mb <= fit(pl)); an (n, nm) device array."""
    out = ctx.empty((n, nm), np.uint32)
    if n == 0:
        return out
    pl = dict(pl)
    k = _build(ctx, pl, "mont52.cl.mako", "mulmod52", KERNEL="mulmod", NM=nm, MA=ma, MB=mb, ME=0, W=1,
               SQR=False, MSH=_msh(ctx.profile.settings, pl, sm))
    launch(ctx, k, P.ceil_div(n, pl["WG"]), pl["WG"], a, np.uint64(sa), b, np.uint64(sb), m,
           np.uint64(sm), r2, np.uint64(sr2), out.data, np.uint32(n))
    return out


def powmod(ctx, pl, a, sa, ma, e, se, me, m, sm, nm, r2, sr2, n, w=None):
    """a^e mod m for n instances (a below R: ma <= fit(pl); e of me limbs); an (n, nm) device
    array."""
    from .mont import window
    out = ctx.empty((n, nm), np.uint32)
    if n == 0:
        return out
    pl = dict(pl)
    s = ctx.profile.settings
    w = w or s.mont_w or window(32 * me)
    if pl["C"] > 1:
        k = _build(ctx, pl, "mont52_coop.cl.mako", "powmod52c", NM=nm, MA=ma, ME=me, W=w,
                   MREG=not pl["MLOC"], MAXREG=s.mont52_coop_regs, SQR=pl["SQR"])
    else:
        sqr = pl["N"] <= s.get("mont52_sqr_max", SQR_MAX if P.is_gpu(ctx) else 0)
        k = _build(ctx, pl, "mont52.cl.mako", "powmod52", KERNEL="powmod", NM=nm, MA=ma, MB=0, ME=me,
                   W=w, SQR=sqr, MSH=_msh(s, pl, sm))
    groups = P.ceil_div(n, pl["IPB"])
    inst = groups * pl["IPB"]
    tab = ctx.buffer(8 * inst * pl["N"] << w)
    launch(ctx, k, groups, pl["WG"], a, np.uint64(sa), e, np.uint64(se), m, np.uint64(sm), r2,
           np.uint64(sr2), out.data, tab, np.uint32(n))
    return out
