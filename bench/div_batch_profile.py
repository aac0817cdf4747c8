"""Where a batch division by Newton spends its device time: per kernel, for batches of 2^32
bits (dividend of 2^k bits, divisor of half), against the same batch's low-half product.

    python bench/div_batch_profile.py [k ...] [--scale S]
"""
import argparse
import time

import numpy as np

import clbig
from devtools import median_device_seconds, named_launches, per_kernel_ms, random_batch

ap = argparse.ArgumentParser()
ap.add_argument("ks", nargs="*", type=int, default=[16, 18])
ap.add_argument("--scale", type=int, default=0)
ap.add_argument("--algorithm", default="newton")
args = ap.parse_args()
ctx = clbig.Context()
named = named_launches()
rng = np.random.default_rng(11)
with ctx:
    for k in args.ks:
        bits = 1 << k
        n = max(1, (1 << (32 - args.scale)) // bits)
        a = random_batch(ctx, rng, n, bits // 32)
        b = random_batch(ctx, rng, n, bits // 64)
        clbig.divmod(a, b, algorithm=args.algorithm); ctx.finish()
        tm = median_device_seconds(ctx, lambda: clbig.mul_low(a, a), 3)
        named.clear()
        t0 = time.perf_counter()
        clbig.divmod(a, b, algorithm=args.algorithm); ctx.finish()
        wall = time.perf_counter() - t0
        per, cnt = per_kernel_ms(named)
        busy = sum(per.values())
        span = (max(e.profile.end for _, e in named) - min(e.profile.start for _, e in named)) * 1e-6
        print(f"2^{k} x{n} {args.algorithm}: kernels busy {busy:.1f} ms of a {span:.1f} ms span, wall "
              f"{wall * 1e3:.1f} ms, {len(named)} launches; mul_low {tm * 1e3:.1f} ms", flush=True)
        for name, ms in sorted(per.items(), key=lambda kv: -kv[1])[:12]:
            print(f"  {name:24s} {ms:8.1f} ms  x{cnt[name]}")
        del a, b
