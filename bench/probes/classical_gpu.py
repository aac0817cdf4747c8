# Finding: the classical product's launch knobs (Q, group size, radix, carry chains) and the one-kernel Poly; bench/README.md, "Multiplication" (results/classical-h100-2026-11-23.log, results/classical-carry-h100-2026-11-23.log, results/poly-h100-2026-11-23.log).
"""Classical products and the fused Poly on 2^32-bit batches under launch knobs (environment
variables read at each call): chunk sizes Q, group sizes, and squares against products of two
operands. Every timed result is spot-checked against Python.

    python bench/probes/classical_gpu.py [--mul 9,11,13,15] [--poly 13,15,16,17] [--scale S]
"""
import argparse
import os

import numpy as np

import clbig
from devtools import median_device_seconds, random_batch

ap = argparse.ArgumentParser()
ap.add_argument("--mul", default="9,11,13,15")
ap.add_argument("--poly", default="13,15,16,17")
ap.add_argument("--scale", type=int, default=0)
ap.add_argument("--variants", default="CLBIG_MUL_Q=8;CLBIG_MUL_Q=4;CLBIG_MUL_Q=16;"
                "CLBIG_MUL_ITEMS=128;CLBIG_MUL_ITEMS=256")
args = ap.parse_args()
ctx = clbig.Context()
print("device", ctx.name, flush=True)
rng = np.random.default_rng(5)
KNOBS = ("CLBIG_MUL_Q", "CLBIG_MUL_ITEMS", "CLBIG_MUL_RADIX")


def ints(s):
    return [int(x) for x in s.split(",") if x]


def run(tag, f, ref, reps):
    r = f()
    ok = r[0:2].tolist() == ref
    del r
    t = median_device_seconds(ctx, f, reps)
    print(f"{tag:48s} {t * 1e6:10.0f} us {'OK' if ok else 'WRONG'}", flush=True)


with ctx:
    for lg in ints(args.mul):
        bits = 1 << lg
        n = max(1, (1 << (32 - args.scale)) // bits)
        a, b = random_batch(ctx, rng, n, bits // 32), random_batch(ctx, rng, n, bits // 32)
        A, B, M = a[0:2].tolist(), b[0:2].tolist(), (1 << bits) - 1
        for var in args.variants.split(";"):
            k, v = var.split("=")
            for knob in KNOBS:
                os.environ.pop(knob, None)
            os.environ[k] = v
            run(f"2^{lg} 1-Mul {var}", lambda: clbig.mul_low(a, b, algorithm="classical"),
                [x * y & M for x, y in zip(A, B)], 10)
        for knob in KNOBS:
            os.environ.pop(knob, None)
        run(f"2^{lg} square (a*a low half)", lambda: clbig.mul_low(a, a, algorithm="classical"),
            [x * x & M for x in A], 10)
        del a, b
    for lg in ints(args.poly):
        bits = 1 << lg
        n = max(1, (1 << (32 - args.scale)) // bits)
        a, b = random_batch(ctx, rng, n, bits // 32), random_batch(ctx, rng, n, bits // 32)
        A, B, M = a[0:2].tolist(), b[0:2].tolist(), (1 << bits) - 1
        ref = [((x * x + y) * (y * y + y) + x * y) & M for x, y in zip(A, B)]
        for var in args.variants.split(";"):
            k, v = var.split("=")
            for knob in KNOBS:
                os.environ.pop(knob, None)
            os.environ[k] = v
            run(f"2^{lg} Poly fused=True {var}", lambda: clbig.fused.poly(a, b, fused=True), ref,
                3 if lg >= 15 else 10)
        for knob in KNOBS:
            os.environ.pop(knob, None)
        run(f"2^{lg} Poly fused=None", lambda: clbig.fused.poly(a, b, fused=None), ref,
            3 if lg >= 15 else 10)
        del a, b
