"""Squares against products of two operands: 2^32-bit batches by each algorithm (low halves,
as the bench's 1-Mul) and single huge products, device time, every result checked.

    python bench/square_gpu.py [--batch 11,13,15,17] [--huge 20,24,26] [--scale S]
"""
import argparse
import os

import gmpy2
import numpy as np

import clbig
from clbig.mpn import mul_n
from devtools import median_device_seconds, random_batch

ap = argparse.ArgumentParser()
ap.add_argument("--batch", default="11,13,15,17")
ap.add_argument("--huge", default="20,24,26")
ap.add_argument("--scale", type=int, default=0)
args = ap.parse_args()
ctx = clbig.Context()
print("device", ctx.name, flush=True)
rng = np.random.default_rng(3)


def timed(tag, f, check, reps=5):
    ok = check(f())
    t = median_device_seconds(ctx, f, reps)
    print(f"{tag:44s} {t * 1e6:10.0f} us {'OK' if ok else 'WRONG'}", flush=True)
    return t


with ctx:
    for lg in [int(x) for x in args.batch.split(",") if x]:
        bits = 1 << lg
        n = max(1, (1 << (32 - args.scale)) // bits)
        a, b = random_batch(ctx, rng, n, bits // 32), random_batch(ctx, rng, n, bits // 32)
        A, B, M = a[0:2].tolist(), b[0:2].tolist(), (1 << bits) - 1
        for alg in ("classical", "ntt"):
            if mul_n.why_not(ctx, alg, bits // 32, bits // 32, bits):
                continue
            t2 = timed(f"2^{lg} a*b low {alg}", lambda: clbig.mul_low(a, b, algorithm=alg),
                       lambda r: r[0:2].tolist() == [x * y & M for x, y in zip(A, B)])
            t1 = timed(f"2^{lg} a*a low {alg}", lambda: clbig.mul_low(a, a, algorithm=alg),
                       lambda r: r[0:2].tolist() == [x * x & M for x in A])
            print(f"    square / product {t1 / t2:.2f}", flush=True)
        del a, b
    for lg in [int(x) for x in args.huge.split(",") if x]:
        x = gmpy2.mpz(int.from_bytes(os.urandom(1 << (lg - 3)), "little")) | (gmpy2.mpz(1) << ((1 << lg) - 1))
        y = x + 1
        X, Y = clbig.array([x]), clbig.array([y])
        t2 = timed(f"one 2^{lg}-bit x*y", lambda: clbig.mul(X, Y), lambda r: r.tolist()[0] == x * y)
        t1 = timed(f"one 2^{lg}-bit x*x", lambda: clbig.mul(X, X), lambda r: r.tolist()[0] == x * x)
        print(f"    square / product {t1 / t2:.2f}", flush=True)
        del X, Y
