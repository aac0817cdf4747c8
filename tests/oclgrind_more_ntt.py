"""NTT multiplication under Oclgrind (run by oclgrind_cases.py), over both fields: the one-pass
kernel with several instances per work-group, one long enough for chunks of levels above the
lowest five, and the strided multi-pass path forced by few
points (the CRT kernel with the three primes); each also squares (one transform)."""
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
        a = clbig.array(xs, bits=bits_a)
        check(tag + " square", clbig.mul(a, a, algorithm="ntt"), [x * x for x in xs])


def run(wide_ctx, small_ctx, guarded, check, values):
    for field in ("gl", "m31x3"):
        os.environ["CLBIG_NTT_FIELD"] = field
        try:
            guarded(f"ntt {field} one pass", products, wide_ctx, f"ntt {field} one pass", 200, 100, 3, check, values)
            # 2^7 / 2^8 points: the register chunks above the lowest five levels
            guarded(f"ntt {field} chunks", products, wide_ctx, f"ntt {field} chunks", 2048, 2000, 2, check, values)
            os.environ["CLBIG_NTT_POINTS"] = "16"
            guarded(f"ntt {field} passes", products, wide_ctx, f"ntt {field} passes", 600, 560, 2, check, values)
            tw_bits = 250 if field == "gl" else 500      # 16 digits a side: two twisted halves of 16
            guarded(f"ntt {field} twisted", products, wide_ctx, f"ntt {field} twisted", tw_bits, tw_bits, 2, check, values)
        finally:
            os.environ.pop("CLBIG_NTT_POINTS", None)
            del os.environ["CLBIG_NTT_FIELD"]
