"""Int conversion through CPython's digits under Oclgrind (run by oclgrind_cases.py): the
digits-to-limbs and limbs-to-digits re-cuts and the bit-length kernel, with the fast path
lowered to every size: one row and several, zero rows, a value far below its capacity (the
bit length takes several rounds on 4-item work-groups), widths that are not multiples of 30
or 32 bits, and a product read back through it."""
import clbig
from clbig.mpn import pyint
from clbig.mpn import radix


def round_trip(ctx, tag, bits, vals, check):
    a = clbig.array(vals, bits=bits, ctx=ctx)
    check(tag, a, vals, bits)


def run(wide_ctx, small_ctx, guarded, check, values):
    if not pyint.usable():
        return
    saved, radix.FAST_BITS = radix.FAST_BITS, 1
    try:
        guarded("radix one row", round_trip, wide_ctx, "radix one row", 300, values(300, 1), check)
        vals = values(97, 4) + [0, 1, (1 << 97) - 1]
        guarded("radix rows", round_trip, wide_ctx, "radix rows", 97, vals, check)
        guarded("radix zero row", round_trip, wide_ctx, "radix zero row", 64, [0], check)
        guarded("radix rounds", round_trip, small_ctx, "radix rounds", 1000, [1, 0, 3 << 40, 1 << 999], check)
        xs, ys = values(200, 3), values(150, 3)
        with wide_ctx:
            guarded("radix product", check, "radix product",
                    clbig.array(xs, bits=200) * clbig.array(ys, bits=150), [x * y for x, y in zip(xs, ys)])
    finally:
        radix.FAST_BITS = saved
