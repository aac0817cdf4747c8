"""NTT multiplication under Oclgrind (run by oclgrind_cases.py): the one-pass kernel with
several instances per work-group, and the strided multi-pass path forced by few points."""
import os

import clbig


def products(ctx, tag, bits_a, bits_b, n, check, values):
    with ctx:
        xs, ys = values(bits_a, n), values(bits_b, n)
        got = clbig.mul(clbig.array(xs, bits=bits_a), clbig.array(ys, bits=bits_b), algorithm="ntt")
        check(tag, got, [x * y for x, y in zip(xs, ys)])
        got = clbig.mul_low(clbig.array(xs, bits=bits_a), clbig.array(ys, bits=bits_b),
                            bits=bits_a - 5, algorithm="ntt")
        check(tag + " low", got, [(x * y) % (1 << (bits_a - 5)) for x, y in zip(xs, ys)])


def run(wide_ctx, small_ctx, guarded, check, values):
    guarded("ntt one pass", products, wide_ctx, "ntt one pass", 200, 100, 3, check, values)
    os.environ["CLBIG_NTT_POINTS"] = "16"
    try:
        guarded("ntt passes", products, wide_ctx, "ntt passes", 300, 260, 2, check, values)
    finally:
        del os.environ["CLBIG_NTT_POINTS"]
