"""Classical products of a few instances (launch- and latency-bound: one or a few work-groups)
under the current CLBIG_* knobs, against the NTT; every result spot-checked.

    CLBIG_CARRY=off python bench/few_gpu.py [--bits 12,13,14,15,16,17] [--n 1,8]
"""
import argparse
import random

import clbig
from devtools import median_device_seconds

ap = argparse.ArgumentParser()
ap.add_argument("--bits", default="12,13,14,15,16,17")
ap.add_argument("--n", default="1,8")
args = ap.parse_args()
ctx = clbig.Context()
print("device", ctx.name, "carry", repr(ctx.carry), flush=True)
rnd = random.Random(3)
with ctx:
    for n in [int(x) for x in args.n.split(",")]:
        for lg in [int(x) for x in args.bits.split(",")]:
            xs = [rnd.getrandbits(1 << lg) for _ in range(n)]
            ys = [rnd.getrandbits(1 << lg) for _ in range(n)]
            a, b = clbig.array(xs, bits=1 << lg), clbig.array(ys, bits=1 << lg)
            for algo in ("classical", "ntt"):
                f = lambda: clbig.mul(a, b, algorithm=algo)  # noqa: E731
                ok = f().tolist() == [x * y for x, y in zip(xs, ys)]
                t = median_device_seconds(ctx, f, 20)
                print(f"n={n} 2^{lg} full {algo:9s} {t * 1e3:8.3f} ms {'OK' if ok else 'WRONG'}", flush=True)
