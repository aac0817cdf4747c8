"""Multiplication by number-theoretic transform (kernels_cl/ntt.cl.mako), over one of two fields:

  "gl"    p = 2^64 - 2^32 + 1, 16-bit digits: every coefficient is below N * 2^32 < p.
  "m31x3" three primes below 2^31 (Montgomery in 32-bit words), 32-bit digits (the limbs
          themselves), the coefficient rebuilt by CRT: below N * 2^64 < p1 p2 p3 ~ 2^90.5.
          Half the points of "gl" and a 32x32-bit multiply instead of 64x64 per butterfly.

A transform of length N >= da + db - 1 (digits actually needed: only the low ceil(bits/w)
digits of each operand matter for a product mod 2**bits) makes the cyclic convolution equal
the exact one, so the product is exact: no "overflow-unsafe" shortcut.

The transform runs as passes over local memory, its levels in register chunks (see
blocks/ntt.mako), as many points per work-group as local memory holds (at most 32 KiB of them,
the NTT_POINTS setting to tune):
  * one pass: the whole product is one launch per prime (a's transform waits in registers);
  * one level more, operands in the lower half: two twisted halves of one pass each, joined
    by a last inverse level (in the CRT kernel for the 31-bit primes, KERNEL "last" for p);
  * longer: strided passes through global memory, b's last forward pass fused with the
    pointwise product and the first inverse pass.
The same code serves a batch of midsize products (many short transforms) and one huge product
(one long transform across the device). Coefficients go back to limbs as two vectors added by
the scan addition (clbig.add_n).

The 31-bit primes' pass kernels come in two forms (issue 43, first calls): the prime, its
Montgomery constants and the twiddles of the lowest levels written in as constants (one build
per prime and length), or taken at run time from a small table (_field_table: one build serves
the three primes). The run-time form builds a third of the kernels but runs full batches
2-33% slower on an H200 (more registers, constants loaded); so small batches, where the first
call's builds dominate and the device is far from full, take it, and large ones the baked form
(baked_primes).
"""
from __future__ import annotations

import functools

import numpy as np

from . import add_n
from ..runtime import replay
from ..runtime import plan as P
from ..runtime.render import DoesNotFit, kernel, largest_fitting, launch, memoized


class Field:
    def __init__(self, name, primes, digit_bits, max_log, word):
        self.name, self.primes, self.digit_bits, self.max_log, self.word = name, primes, digit_bits, max_log, word
        self.dtype = np.uint64 if word == 8 else np.uint32


@functools.lru_cache(maxsize=None)   # per prime: factoring p - 1 cost ~60 us a product
def _generator(p: int) -> int:
    q, f, m = p - 1, [], 2
    while m * m <= q:
        if q % m == 0:
            f.append(m)
            while q % m == 0:
                q //= m
        m += 1
    if q > 1:
        f.append(q)
    return next(g for g in range(2, p) if all(pow(g, (p - 1) // r, p) != 1 for r in f))


FIELDS = {
    # MAX_LOG 30: N * (2^16 - 1)^2 < p needs N < 2^32; keep a margin
    "gl": Field("gl", (0xFFFFFFFF00000001,), 16, 30, 8),
    # 15*2^27+1, 27*2^26+1, 7*2^26+1: roots of order 2^26 in each; (2^32-1)^2 * 2^26 < product
    "m31x3": Field("m31x3", (2013265921, 1811939329, 469762049), 32, 26, 4),
}
STRIDED_GROUPS = 8       # groups per work-group in strided passes: 64-byte contiguous runs


def default_field(ctx, ma: int, mb: int, bits: int) -> str:
    """The NTT_FIELD setting if set; on PoCL the 64-bit prime; else by measurement on an H100 (2026-11-22, bench/results/
    ntt-fields-h100-2026-11-22.log): three 32-bit primes while their transform fits one pass
    (batches of 2^32 bits: 19.2 against 31.9 ms at 2^15 bits, 29.0 against 49.5 at 2^17),
    the 64-bit prime once passes must go through global memory three times over (2^18: 46.9
    against 50.1 ms; one 2^24-bit product 1.3 against 2.6 ms)."""
    forced = ctx.profile.settings.ntt_field
    if forced:
        return forced
    f = ctx.profile.facts
    if not f.is_gpu and not f.intel_cpu_runtime:
        # PoCL: the 64-bit prime, one set of kernels where three primes build three (a cold
        # clbig.prod of 256 2048-bit ints 32 -> 15 s, first launches of 3-4 s each), at the
        # same speed (2-core Zen 4, 2026-11-28, ms, m31x3 / gl: one product of 2^17 bits
        # 2.1 / 1.0, of 2^20 9.7 / 10.2, 8 of 2^17 7.0-9.1 / 7.6-8.5 over four runs).
        # Intel's runtime keeps the rule below (8 of 2^17: 2.8 / 5.0).
        return "gl"
    L, da, db = transform_log(ma, mb, bits, "m31x3")
    one_pass = (1 << L) <= _max_points(ctx, 4) or twisted(ctx, L, da, db, 4)
    return "m31x3" if one_pass and supports(ctx, ma, mb, bits, "m31x3") is None else "gl"


def twisted(ctx, L: int, da: int, db: int, word: int) -> bool:
    """A transform one level too long for a pass, whose inputs lie in its lower half (balanced
    operands), runs as two twisted halves of one pass each (KERNEL "last" in ntt.cl.mako)."""
    half = 1 << (L - 1)
    return L >= 2 and half == _max_points(ctx, word) and max(da, db) <= half


def transform_log(ma: int, mb: int, bits: int, field: str) -> tuple[int, int, int]:
    """(L, da, db): transform length 2^L and the digits of a and b that take part, over
    `field` (the caller's choice: default_field picks one for a context)."""
    f = FIELDS[field]
    per = 32 // f.digit_bits
    need = P.ceil_div(bits, f.digit_bits)
    da, db = min(per * ma, need), min(per * mb, need)
    return max(1, (da + db - 2).bit_length()), da, db


def _max_points(ctx, word: int = 8) -> int:
    cap = ctx.profile.settings.get("ntt_points", 4096 * 8 // word)
    fit = (ctx.local_mem - 256) // word * 32 // 33   # one spare word every 32 (blocks/ntt.mako)
    return 1 << (min(cap, fit).bit_length() - 1)


def supports(ctx, ma: int, mb: int, bits: int, field: str | None = None) -> str | None:
    """None when this device can run the product (over `field`, by default the one `mul`
    picks), else why not."""
    f = FIELDS[field or default_field(ctx, ma, mb, bits)]
    L, _, _ = transform_log(ma, mb, bits, f.name)
    if L > f.max_log:
        return f"a transform of 2^{L} points exceeds the 2^{f.max_log} these primes allow"
    per = f.word << L
    limit = int(ctx.device.max_mem_alloc_size)
    if per > limit:
        return (f"one transform of 2^{L} points needs {per >> 20} MiB, more than this device's "
                f"largest allocation ({limit >> 20} MiB)")
    if _max_points(ctx, f.word) < 2:
        return "too little local memory for a transform pass"
    return None


def pass_plan(ctx, L: int, word: int = 8) -> list[tuple[int, int, int]]:
    """Forward passes as (H, RB, G): the strided ones first, the contiguous one (H == RB)
    last. The inverse runs the same passes in reverse order."""
    pmax = _max_points(ctx, word)
    lmax = pmax.bit_length() - 1
    smax = max(1, (pmax // STRIDED_GROUPS).bit_length() - 1)
    # as few passes as possible, the stages shared evenly (2^13 points as 7 + 6 stages, not
    # 12 + 1: a one-stage pass costs a whole read and write of the data for little work)
    rc = min(L, lmax)
    if L > lmax:
        passes = 1 + P.ceil_div(L - lmax, smax)
        rc = max(L - (passes - 1) * smax, P.ceil_div(L, passes))
    rest = L - rc
    out = []
    h = L
    while rest > 0:
        parts = P.ceil_div(rest, smax)
        rb = P.ceil_div(rest, parts)
        out.append((h, rb, min(STRIDED_GROUPS, 1 << (h - rb))))
        h -= rb
        rest -= rb
    out.append((rc, rc, pmax >> rc))   # G groups of 2^rc points: may span several instances
    return out


#: transforms of at most this many points in a batch (instances x points, per prime) take the
#: run-time prime (baked_primes)
RUNTIME_PRIME_POINTS = 1 << 16


def baked_primes(ctx, points: int) -> bool:
    """Whether a batch of `points` transform points per prime takes the primes written in (the
    NTT_BAKED_PRIMES setting, 0/1, decides where set).
    H200, 2026-11-28 (bench/README.md): a cold clbig.prod of 256 2048-bit ints built six
    one-pass kernels of 1.6-3.3 s (three primes, two lengths), where the run-time prime builds
    one per length (1.4-2.0 s); warm, the run-time kernel took 128-150 registers against 98-128
    and ran a batch of 4096 2^15-bit products 33% slower (1 work-group per multiprocessor),
    still 3-5% slower with its registers capped at 128, and the same within noise for one or a
    few products (a device far from full). So the run-time prime serves batches of at most
    RUNTIME_PRIME_POINTS points, the baked one larger batches. Intel's CPU runtime always takes
    the baked form: its compiler crashed on the run-time prime (2026-11-28, 'Early Machine
    Loop Invariant Code Motion'; with compare and select instead of min it built in 19 s,
    against 3-4 s per baked prime)."""
    return ctx.profile.settings.get("ntt_baked_primes", bool(ctx.profile.facts.intel_cpu_runtime)
                                    or points > RUNTIME_PRIME_POINTS)


def sides_loop(ctx, baked: bool) -> bool:
    """The NTT_SIDES_LOOP setting (0/1) where set; else the loop of two rounds for the run-time
    prime on GPUs (H200: 1.4-2.0 s to build against
    2.5-3.2 s written out; the baked kernels keep the form their speed was measured in); CPU
    runtimes build the written-out form faster (PoCL: 9-10 s against 12-16 s: barriers in a
    loop)."""
    return ctx.profile.settings.get("ntt_sides_loop", bool(ctx.profile.facts.is_gpu) and not baked)


def _field_params(f: Field, prime: int, baked: bool = True) -> dict:
    """The template parameters of a field and prime: for a 31-bit prime not `baked`, P = 0 (the
    prime at run time, from _field_table)."""
    if f.name == "gl":
        return dict(FIELD="gl", P=0, PINV=0, PRIMES=())
    if not baked:
        return dict(FIELD="m31", P=0, PINV=0, PRIMES=f.primes)
    return dict(FIELD="m31", P=prime, PINV=(-pow(prime, -1, 1 << 32)) % (1 << 32), PRIMES=f.primes)


#: the table of a 31-bit prime's constants (ntt.cl.mako, `fc`): p, -1/p mod 2^32, 2^32 mod p,
#: then from FC_TW the twiddles of the levels below FC_LEVELS of a chunk that starts at level 0
#: (the same for every length): the powers m < 2^(FC_LEVELS-1) of the root of order
#: 2^FC_LEVELS, times 2^32, then those of its inverse
FC_TW, FC_LEVELS = 4, 8


def _field_table(ctx, f: Field, prime: int):
    """The prime's constants (see FC_TW) on the device, once per prime and context; for the
    64-bit prime, whose constants are written into the kernels, a word the kernels never read."""
    cache = ctx.profile.cache("ntt twiddles")
    key = ("fc", prime)
    if key not in cache:
        if f.name == "gl":
            host = np.zeros(1, f.dtype)
        else:
            R = 1 << 32
            half = 1 << (FC_LEVELS - 1)
            host = np.zeros(FC_TW + 2 * half, np.uint32)
            host[:3] = prime, (-pow(prime, -1, R)) % R, R % prime
            r = pow(_generator(prime), (prime - 1) >> FC_LEVELS, prime)
            for d, root in enumerate((r, pow(r, prime - 2, prime))):
                for m in range(half):
                    host[FC_TW + d * half + m] = pow(root, m, prime) * R % prime
        cache[key] = replay.persistent(ctx, ctx.to_device(host))
    return cache[key]


@functools.lru_cache(maxsize=None)   # size-only: planned once per (field, prime, length)
def _roots(f: Field, prime: int, L: int) -> tuple[int, int, int]:
    """(w, 1/w, scale): the root of order 2^L, its inverse and the factor the pointwise
    product applies (1/N, and R^2 more in Montgomery form, undoing two products' 1/R)."""
    w = pow(_generator(prime) if f.name != "gl" else 7, (prime - 1) >> L, prime)
    scale = pow(1 << L, prime - 2, prime)
    if f.name != "gl":
        scale = scale * (1 << 64) % prime
    return w, pow(w, prime - 2, prime), scale


def _twiddles(ctx, f: Field, prime: int, L: int):
    """(w^k, w^-k for k < N/2, and the same as per-level runs; see blocks/ntt.mako), times R
    for Montgomery, made on the device once per prime, length and context."""
    cache = ctx.profile.cache("ntt twiddles")
    key = (prime, L)
    if key not in cache:
        w, wi, _ = _roots(f, prime, L)
        half = max(1, 1 << (L - 1))
        # the prime and the length are run-time arguments: one build of each per field
        fp = dict(_NIL, **_field_params(f, f.primes[0]))
        k = kernel(ctx, "ntt.cl.mako", "ntt_twiddles", **dict(fp, KERNEL="twiddles"))
        gather = kernel(ctx, "ntt.cl.mako", "ntt_level_twiddles", **dict(fp, KERNEL="level_twiddles"))
        count = (1 << min(L, LEVEL_TABLES)) - 1
        tabs, levels = [], []
        for root in (w, wi):
            t = ctx.empty(half, f.dtype)
            launch(ctx, k, P.ceil_div(half, 64), 64, t.data, np.uint64(root), np.uint32(half),
                   np.uint64(prime))
            lt = ctx.empty(max(1, count), f.dtype)
            launch(ctx, gather, P.ceil_div(count, 64), 64, lt.data, t.data, np.uint32(count),
                   np.uint32(L))
            tabs.append(replay.persistent(ctx, t))
            levels.append(replay.persistent(ctx, lt))
        cache[key] = tuple(tabs + levels)
    return cache[key]


_NIL = dict(L=1, H=1, RB=1, G=1, WG=1, LOAD=False, FWD=False, MID=False, INV=False, BOTH=False, SQUARE=False,
            TWIST=False, KEEP=1 << 40, W=0, WI=0, KMAX=4, LT=1, K0=5, SIDES_LOOP=False)

#: levels below this have per-level twiddle tables (blocks/ntt.mako: 2^LT - 1 words)
LEVEL_TABLES = 15


def _pass_kernel(ctx, fp, L, H, RB, G, **flags):
    s = ctx.profile.settings
    wg = min(s.ntt_items, ctx.max_items, max(1, (G << RB) // 4))
    # levels of the lowest register chunk and of those above it (blocks/ntt.mako). H100: 5 and 4
    # for 32-bit points (2^17-bit batches 14.1 ms; 5 and 3: 14.9); 3 and 3 for 64-bit ones,
    # whose 32-point chunks cost registers (one 2^28-bit product 5.8 ms; 5 and 4: 8.3 ms)
    wide = fp.get("FIELD") == "gl"
    k0 = s.get("ntt_k0", 3 if wide else 5)
    kmax = s.get("ntt_kmax", 3 if wide else 4)
    if flags.get("BOTH") and not flags.get("SQUARE"):
        flags["SIDES_LOOP"] = sides_loop(ctx, bool(fp["P"]) or wide)
    return largest_fitting(wg, lambda wg: kernel(
        ctx, "ntt.cl.mako", "ntt_pass", wg, **dict(_NIL, KERNEL="pass", L=L, H=H, RB=RB, G=G, WG=wg,
                                                   KMAX=kmax, LT=LEVEL_TABLES, K0=k0, **fp, **flags)))


def _chunk(ctx, n: int, N: int, step: int, bytes_per_point: int) -> int:
    """Instances per round: the chunk's transforms within a quarter of device memory and
    its largest allocation, a multiple of `step` (instances per work-group of the last pass)."""
    budget = min(int(ctx.device.max_mem_alloc_size), int(ctx.device.global_mem_size) // 4)
    c = max(step, budget // (bytes_per_point * N) // step * step)
    return min(c, P.ceil_div(n, step) * step)


def mul(ctx, a, sa: int, ma: int, b, sb: int, mb: int, n: int, bits: int, field: str | None = None):
    """(a * b) mod 2**bits for n instances (contract of clbig.mul_basecase.mul)."""
    f = FIELDS[field or default_field(ctx, ma, mb, bits)]
    why = supports(ctx, ma, mb, bits, f.name)
    if why:
        raise DoesNotFit(f"ntt: {why}")
    mr = P.ceil_div(bits, 32)
    if n == 0:
        return ctx.empty((n, mr), np.uint32)
    # x * x: one forward transform, squared pointwise
    square = P.is_square(ctx, a, sa, ma, b, sb, mb)
    baked = f.name == "gl" or baked_primes(ctx, n << transform_log(ma, mb, bits, f.name)[0])
    return _product(ctx, a, sa, ma, b, sb, mb, n, bits, f.name, square, baked)


@replay.recorded("mul_ntt", buffers=(0, 3))
def _product(ctx, a, sa: int, ma: int, b, sb: int, mb: int, n: int, bits: int, field: str, square: bool,
             baked: bool = True):
    """mul's launches, once the field and the squaring are chosen: they depend on the sizes
    only, so after the first product of these sizes they replay (clbig.replay)."""
    f = FIELDS[field]
    mr = P.ceil_div(bits, 32)
    # scratch from the context's pool: division makes dozens of products in a row, and the
    # pool hands each the buffers the last one freed
    X = ctx.empty(n * mr)
    Y = ctx.empty(n * mr)
    L, da, db, N, plan, last, step, nres, per_prime, finish, finish_args = _setup(ctx, f, ma, mb, bits, square,
                                                                                  baked)
    chunk = _chunk(ctx, n, N, step, f.word * (nres + (last > 0)))
    ta = ctx.empty(chunk * N if last and not square else 1, f.dtype)   # a's transform, between passes
    res = [ctx.empty(chunk * N, f.dtype) for i in range(nres)]
    finish_args = [r.data for r in res] + finish_args
    for inst0 in range(0, n, chunk):
        count = min(chunk, n - inst0)
        rows = P.ceil_div(count, step) * step
        for pp, tb in zip(per_prime, res):
            tw, itw, ltw, iltw = pp["tw"]

            def run(k_wg, hrg, buf, src=None, stride=0, dc=0, src_b=None, stride_b=0, dc_b=0):
                (k, wg), (H, RB, G) = k_wg, hrg
                launch(ctx, k, rows * N // (G << RB), wg, buf.data, ta.data if src is None else src,
                       np.uint64(stride), np.uint32(dc),
                       ta.data if src_b is None else src_b, np.uint64(stride_b), np.uint32(dc_b),
                       ta.data, tw.data, itw.data, ltw.data, iltw.data, pp["fc"].data, pp["scale"],
                       np.uint32(inst0), np.uint32(n))

            if last == 0:   # one launch: a's digits, b's digits, the product
                run(pp["b_last"], plan[0], tb, a, sa, da, b, sb, db)
                if pp["join"]:
                    launch(ctx, pp["join"], P.ceil_div(rows * (N // 2), 256), 256, tb.data,
                           itw.data, np.uint32(rows))
            else:
                if not square:
                    for i in range(last):
                        run(pp["fwd"][i], plan[i], ta, a, sa, da)   # the operand is read by pass 0 only
                    run(pp["a_last"], plan[last], ta)
                for i in range(last):
                    run(pp["fwd"][i], plan[i], tb, b, sb, db)
                run(pp["b_last"], plan[last], tb)
            for i in range(last - 1, -1, -1):
                run(pp["inv"][i], plan[i], tb)
        launch(ctx, finish, P.ceil_div(count * mr, 256), 256, *finish_args, X.data, Y.data,
               np.uint32(mr), np.uint32(inst0), np.uint32(count))
    out, _ = add_n.addsub(ctx, "add", X.data, mr, mr, Y.data, mr, mr, n, bits)
    return out


def _setup(ctx, f: Field, ma: int, mb: int, bits: int, square: bool, baked: bool = True):
    """What a product's launches need that depends only on the sizes (the transform's length and
    passes, roots, twiddle tables, kernels), memoized per context: planning it cost ~130 µs of
    Python per product (a Newton division makes dozens). Returns (L, da, db, N, plan, last,
    step, nres, per_prime, finish, finish's arguments after the residues). The twiddle tables
    it holds are the context's own cache's (_twiddles), so memoizing adds no device memory."""
    # the settings' version: the NTT_* settings it reads take effect when changed
    key = ("ntt_setup", f.name, ma, mb, bits, square, baked, ctx.profile.settings.version)
    return memoized(ctx, key, lambda: _plan_product(ctx, f, ma, mb, bits, square, baked))


def _plan_product(ctx, f: Field, ma: int, mb: int, bits: int, square: bool, baked: bool = True):
    mr = P.ceil_div(bits, 32)
    L, da, db = transform_log(ma, mb, bits, f.name)
    N = 1 << L
    twist = twisted(ctx, L, da, db, f.word)
    plan = [(L - 1, L - 1, 1)] if twist else pass_plan(ctx, L, f.word)
    last = len(plan) - 1
    step = max(1, (plan[last][2] << plan[last][1]) // N)
    nres = len(f.primes)
    # coefficients the limbs of the result read (the CRT kernel: c_j..c_j-2 for limb j; the
    # carry kernel: c_2j+1..c_2j-4): the last pass stores no others. The 64-bit field's
    # twisted halves meet in a kernel of their own, which reads every coefficient.
    keep = min(N, mr * 32 // f.digit_bits)
    if twist and f.name == "gl":
        keep = N
    fin = dict(KEEP=keep) if keep < N else {}
    per_prime = []
    for prime in f.primes:
        w, wi, scale = _roots(f, prime, L)
        # the prime at run time: one build for the three, its constants in `fc`
        fp = dict(_field_params(f, prime), W=w, WI=wi) if baked else _field_params(f, prime, False)
        per_prime.append(dict(
            tw=_twiddles(ctx, f, prime, L), fc=_field_table(ctx, f, prime), scale=f.dtype(scale),
            fwd=[_pass_kernel(ctx, fp, L, *hrg, LOAD=i == 0, FWD=True) for i, hrg in enumerate(plan[:last])],
            inv=[_pass_kernel(ctx, fp, L, *hrg, INV=True, **(fin if i == 0 else {}))
                 for i, hrg in enumerate(plan[:last])],
            a_last=None if last == 0 or square else _pass_kernel(ctx, fp, L, *plan[last], FWD=True),
            b_last=_pass_kernel(ctx, fp, L, *plan[last], BOTH=last == 0, TWIST=twist, FWD=True, SQUARE=square,
                                MID=True, INV=True, **(fin if last == 0 else {})),
            join=twist and f.name == "gl" and kernel(ctx, "ntt.cl.mako", "ntt_last",
                                                      **dict(_NIL, KERNEL="last", L=L, **fp))))
    fp0 = _field_params(f, f.primes[0])
    if f.name == "gl":
        finish = kernel(ctx, "ntt.cl.mako", "ntt_carry", **dict(_NIL, KERNEL="carry", L=L, **fp0))
        extra = []
    else:   # the twisted halves meet in the CRT kernel
        finish = kernel(ctx, "ntt.cl.mako", "ntt_crt", **dict(_NIL, KERNEL="crt", L=L, TWIST=twist, **fp0))
        extra = [pp["tw"][1].data for pp in per_prime]
    return L, da, db, N, plan, last, step, nres, per_prime, finish, extra
