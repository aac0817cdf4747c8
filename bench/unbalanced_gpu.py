"""Unbalanced and huge single products by every algorithm: (2^k bits) x (64 bits) and the
largest balanced SSA sizes, checked against gmpy2, device time.

    python bench/unbalanced_gpu.py [--big 26] [--ssa 26,28]
"""
import argparse

import gmpy2
import numpy as np

import clbig
from devtools import median_device_seconds

ap = argparse.ArgumentParser()
ap.add_argument("--big", type=int, default=26)
ap.add_argument("--ssa", default="26,28")
args = ap.parse_args()
rng = np.random.default_rng(11)
ctx = clbig.Context()
print("device", ctx.name, flush=True)


def rand(bits):
    return gmpy2.mpz(int.from_bytes(rng.bytes(bits // 8), "little"))


with ctx:
    cases = [(args.big, 6, a) for a in ("auto", "classical", "ntt", "ssa")]
    cases += [(int(k), int(k), "ssa") for k in args.ssa.split(",") if k]
    for la, lb, alg in cases:
        x, y = rand(1 << la), rand(1 << lb)
        xa, ya = clbig.array([x]), clbig.array([y])
        try:
            r = clbig.mul(xa, ya, algorithm=alg)
            ok = r.tolist()[0] == x * y
            del r
            t = median_device_seconds(ctx, lambda: clbig.mul(xa, ya, algorithm=alg), 3)
            print(f"2^{la} x 2^{lb} bits {alg:9s} {t * 1e3:9.2f} ms {'OK' if ok else 'WRONG'}", flush=True)
        except Exception as e:  # noqa: BLE001
            print(f"2^{la} x 2^{lb} bits {alg:9s} {type(e).__name__}: {str(e)[:150]}", flush=True)
        del xa, ya
