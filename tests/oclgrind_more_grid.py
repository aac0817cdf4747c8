"""Every kernel family over a grid of awkward shapes, under Oclgrind (run by oclgrind_cases.py).

The cases in oclgrind_cases.py use operands of like widths; the bugs this grid is for hide in
the others: a kernel's local-memory margins, chunk counts and read guards are sized from the
operand and result widths, and one that is too small for some combination reads past its
array (Oclgrind: an invalid read) or reads memory nobody wrote (an uninitialized value), which
on a real device returns whatever an earlier kernel left there. So every family runs on
  * operands of unequal widths: 31 against 1000 bits, one limb against 300 (each way round),
  * broadcasts: one value against 3 (each way round) and 5 against 5,
  * result widths above the product's (a square of 31-bit values mod 2^1000: chunks far above
    the product) and below it,
  * single-group, several-group and multi-work-group launches (small_ctx: 4 work-items).
Multiplication runs by each algorithm: classical (32-bit limbs, CLBIG_MUL_RADIX=32; radix-2^30
digits, =30; FP64 51-bit digits, =51, staged and on own rows; the carry-chain bookkeeping in
OpenCL C, CLBIG_CARRY=c), NTT and SSA.
Sizes are the smallest that reach each path: Oclgrind interprets every work-item.
"""
from __future__ import annotations


import clbig
from oclgrind_env import env
from clbig import fused as F
from clbig.mpn import add_n, mul_fp64

# (bits of a, bits of b, values of a, values of b): each broadcasts the shorter list
SHAPES = [
    (31, 1000, 3, 1),
    (1000, 31, 1, 3),
    (32, 9600, 3, 1),     # one limb against 300
    (9600, 32, 1, 3),
    (64, 64, 5, 5),
    (33, 100, 4, 1),
]


def _operands(ctx, values, wa, wb, na, nb):
    xs, ys = values(wa, na), values(wb, nb)
    n = max(na, nb)
    # full lists for the expected results
    return (clbig.array(xs, bits=wa, ctx=ctx), clbig.array(ys, bits=wb, ctx=ctx),
            [xs[i % na] for i in range(n)], [ys[i % nb] for i in range(n)])


def products(ctx, check, values, tag, shape, algorithm="auto", few=False):
    """a·b in full and mod 2^bits above and below it, squares of each side mod 2^1000 (chunks
    far above a narrow square's product) and just below theirs. few: the full product, the
    low half below it and the narrow side's square mod 2^1000 (for the slow NTT under
    Oclgrind)."""
    wa, wb, na, nb = shape
    a, b, xs, ys = _operands(ctx, values, wa, wb, na, nb)
    full = wa + wb
    for bits in ((None, max(wa, wb) - 3) if few else (None, full + 45, max(wa, wb) - 3)):
        want = [x * y % (1 << (bits or full)) for x, y in zip(xs, ys)]
        got = clbig.mul(a, b, algorithm) if bits is None else clbig.mul_low(a, b, bits, algorithm)
        check(f"{tag} {wa}x{wb} bits={bits}", got, want)
    sides = ((a, wa, xs[:len(a)]), (b, wb, ys[:len(b)]))
    if few:
        sides = [min(sides, key=lambda side: side[1])]
    for v, w, vals in sides:
        for bits in ((1000,) if few else (1000, 2 * w - 5)):
            check(f"{tag} square {w} bits mod 2^{bits}", clbig.mul_low(v, v, bits, algorithm),
                  [x * x % (1 << bits) for x in vals])


def addsub_compare(ctx, check, values, tag, shape):
    wa, wb, na, nb = shape
    a, b, xs, ys = _operands(ctx, values, wa, wb, na, nb)
    wide = max(wa, wb)
    check(f"{tag} add", a + b, [x + y for x, y in zip(xs, ys)])
    for bits in (wide + 40, min(wa, wb) - 2):
        m = (1 << bits) - 1
        check(f"{tag} add_fixed {bits}", clbig.add_fixed(a, b, bits)[0], [(x + y) & m for x, y in zip(xs, ys)])
        check(f"{tag} sub_fixed {bits}", clbig.sub_fixed(a, b, bits)[0], [(x - y) & m for x, y in zip(xs, ys)])
    check(f"{tag} compare", [int(c) for c in clbig.compare(a, b)], [(x > y) - (x < y) for x, y in zip(xs, ys)])


def serial_addsub(ctx, check, values, tag, shape):
    """The CPUs' one-item-per-instance additions (add_serial.cl.mako, widths at run time):
    sums, wrap-arounds with carries and borrows, signed differences (the flag and ctl
    passes), broadcasting either side."""
    addsub_compare(ctx, check, values, tag, shape)
    wa, wb, na, nb = shape
    a, b, xs, ys = _operands(ctx, values, wa, wb, na, nb)
    check(f"{tag} sub", a - b, [x - y for x, y in zip(xs, ys)])
    check(f"{tag} signed", (-a) + b - 1, [-x + y - 1 for x, y in zip(xs, ys)])


def shifts(ctx, check, values, tag, bits, n):
    xs = values(bits, n)
    a = clbig.array(xs, bits=bits, ctx=ctx)
    for k in (1, 33, bits + 1):
        check(f"{tag} shift_left {k}", clbig.shift_left(a, k), [x << k for x in xs])
        check(f"{tag} shift_right {k}", clbig.shift_right(a, k), [x >> k for x in xs])


def division(ctx, check, values, tag, shape, algorithm):
    wa, wb, na, nb = shape
    a, b, xs, ys = _operands(ctx, values, wa, wb, na, nb)
    ys = [y or 1 for y in ys]
    b = clbig.array(ys[:len(b)], bits=wb, ctx=ctx)
    q, r = clbig.divmod(a, b, algorithm)
    check(f"{tag} quotient", q, [x // y for x, y in zip(xs, ys)])
    check(f"{tag} remainder", r, [x % y for x, y in zip(xs, ys)])


def fused(ctx, check, values, tag, shape):
    wa, wb, na, nb = shape
    a, b, xs, ys = _operands(ctx, values, wa, wb, na, nb)
    for bits in (max(wa, wb), max(wa, wb) + 40, min(wa, wb) - 2):
        m = (1 << bits) - 1
        check(f"{tag} six_add {bits}", F.six_add(a, b, bits), [(6 * x + 10 * y) & m for x, y in zip(xs, ys)])
        want = [((x * x + y) * (y * y + y) + x * y) & m for x, y in zip(xs, ys)]
        for fz in (True, False):
            check(f"{tag} poly {bits} fused={fz}", F.poly(a, b, bits, fused=fz), want)


def radix_round_trip(ctx, check, values, tag):
    from clbig.mpn import pyint
    from clbig.mpn import radix
    if not pyint.usable():
        return
    saved, radix.FAST_BITS = radix.FAST_BITS, 1
    try:
        for bits, vals in ((31, values(31, 3)), (1000, [0, 1, (1 << 999) + 5]), (9600, values(9600, 1))):
            check(f"{tag} {bits} bits", clbig.array(vals, bits=bits, ctx=ctx), vals)
    finally:
        radix.FAST_BITS = saved


def run(wide_ctx, small_ctx, guarded, check, values):
    with env(CLBIG_CARRY="c"):
        carry_ctx = clbig.Context(wide_ctx.device)
    for shape in SHAPES:
        s = "x".join(map(str, shape))
        guarded(f"grid add/compare {s}", addsub_compare, wide_ctx, check, values, f"grid add {s}", shape)
        guarded(f"grid mul {s}", products, wide_ctx, check, values, f"grid mul {s}", shape)
        with env(CLBIG_MUL_RADIX=30):
            guarded(f"grid mul digits {s}", products, wide_ctx, check, values, f"grid digits {s}", shape)
        guarded(f"grid mul carry-c {s}", products, carry_ctx, check, values, f"grid carry {s}", shape)
        with env(CLBIG_MUL_RADIX=51, CLBIG_MUL52_STAGE=1, CLBIG_MUL52_XLOC=1):
            guarded(f"grid mul fp64 staged {s}", products, wide_ctx, check, values, f"grid fp64 staged {s}", shape)
        if max(shape[:2]) <= 1000:      # Poly of 300-limb values: 30 s under Oclgrind
            guarded(f"grid fused {s}", fused, wide_ctx, check, values, f"grid fused {s}", shape)
    # multi-work-group launches (4-item groups)
    for shape in SHAPES[2:4]:
        s = "x".join(map(str, shape))
        guarded(f"grid add/compare small-wg {s}", addsub_compare, small_ctx, check, values, f"grid add small-wg {s}", shape)
        guarded(f"grid mul small-wg {s}", products, small_ctx, check, values, f"grid mul small-wg {s}", shape)
        with env(CLBIG_MUL_RADIX=51, CLBIG_MUL52_STAGE=1, CLBIG_MUL52_XLOC=0):
            guarded(f"grid mul fp64 staged small-wg {s}", products, small_ctx, check, values,
                    f"grid fp64 staged small-wg {s}", shape)
        with env(CLBIG_MUL_RADIX=51, CLBIG_MUL52_STAGE=0, CLBIG_MUL52_XLOC=1):
            guarded(f"grid mul fp64 own rows small-wg {s}", products, small_ctx, check, values,
                    f"grid fp64 own rows small-wg {s}", shape)
        with env(CLBIG_MUL_RADIX=32):   # the int32 limbs, which the FP64 kernel displaces here
            guarded(f"grid mul limbs small-wg {s}", products, small_ctx, check, values,
                    f"grid limbs small-wg {s}", shape)
    s = "x".join(map(str, SHAPES[4]))   # 5 rows on 4-item groups: two groups, one partly padding
    with env(CLBIG_MUL_RADIX=51, CLBIG_MUL52_STAGE=1, CLBIG_MUL52_XLOC=1):
        guarded(f"grid mul fp64 staged two groups {s}", products, small_ctx, check, values,
                f"grid fp64 staged two groups {s}", SHAPES[4])
    # the cooperative FP64 kernel: 2 items of 3-column blocks, 2 instances per 4-item group
    # (two groups, one partly padding), its window rotation and block table; and 1 item
    for shape, c in ((SHAPES[4], "2"), (SHAPES[5], "1")):
        s = "x".join(map(str, shape))
        with env(CLBIG_MUL52_COOP="1", CLBIG_MUL52_COOP_W="3", CLBIG_MUL52_COOP_C=c, CLBIG_MUL52_COOP_IPB="2"):
            guarded(f"grid mul fp64 coop small-wg {s} C={c}", products, small_ctx, check, values,
                    f"grid fp64 coop small-wg {s} C={c}", shape)
    # the CPUs' lanes kernel: 2 instances per item (5 rows: the last item's second lane past
    # n), 3-column passes; one instance per item, 2-column passes, b broadcast; the first again
    # with its widths at run time (as wide operands take them)
    for shape, w, c, rt in ((SHAPES[4], "2", "3", False), (SHAPES[0], "1", "2", False), (SHAPES[4], "2", "3", True)):
        s = "x".join(map(str, shape)) + (" run-time widths" if rt else "")
        keep = mul_fp64.LANES_RT_DIGITS
        mul_fp64.LANES_RT_DIGITS = 0 if rt else keep
        try:
            with env(CLBIG_MUL52_LANES="1", CLBIG_MUL52_LANES_W=w, CLBIG_MUL52_LANES_C=c):
                guarded(f"grid mul fp64 lanes {s} W={w}", products, small_ctx, check, values,
                        f"grid fp64 lanes {s} W={w}", shape)
        finally:
            mul_fp64.LANES_RT_DIGITS = keep
    # (these batches are small: the run-time widths; the last shape again with the widths
    # built in, as larger batches take them)
    for shape, fixed in ((SHAPES[0], False), (SHAPES[1], False), (SHAPES[5], False), (SHAPES[5], True)):
        s = "x".join(map(str, shape)) + (" built-in widths" if fixed else "")
        keep, keep_rows = add_n.SERIAL_FIXED_LIMBS, add_n.SERIAL_FIXED_ROWS
        add_n.SERIAL_FIXED_LIMBS = 0 if fixed else keep
        add_n.SERIAL_FIXED_ROWS = 0 if fixed else keep_rows
        try:
            with env(CLBIG_ADD_SERIAL="1"):
                guarded(f"grid add serial {s}", serial_addsub, wide_ctx, check, values, f"grid serial {s}", shape)
        finally:
            add_n.SERIAL_FIXED_LIMBS, add_n.SERIAL_FIXED_ROWS = keep, keep_rows
    for shape in SHAPES[:2]:
        s = "x".join(map(str, shape))
        # the NTT (10 s a shape under Oclgrind) on one: its transforms do not see which
        # operand is broadcast
        for alg in ("ntt", "ssa") if shape is SHAPES[0] else ("ssa",):
            guarded(f"grid {alg} {s}", products, wide_ctx, check, values, f"grid {alg} {s}", shape, alg, True)
        for alg in ("basecase", "newton"):
            guarded(f"grid div {alg} {s}", division, wide_ctx, check, values, f"grid div {alg} {s}", shape, alg)
    guarded("grid shift", shifts, wide_ctx, check, values, "grid shift 31", 31, 3)
    guarded("grid radix", radix_round_trip, wide_ctx, check, values, "grid radix")
