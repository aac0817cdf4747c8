# Finding: the schoolbook/Newton crossover of batch division (between 2049 and 4097 quotient limbs) and division against mul_low; bench/README.md, "Division" (results/div-h100-2026-11-22.log).
"""Division on one device: batches of 2^32 bits (dividend of the full size, divisor of half),
auto and each forced algorithm that runs, spot-checked against gmpy2; our own low-half product
at the same size for the ratio; then one (2^k)-bit by (2^(k-1))-bit division against gmpy2.

    python bench/probes/div_gpu.py [--batch 11,13,...] [--huge 24,27] [--scale S]
"""
import argparse
import inspect
import time

import gmpy2
import numpy as np

import clbig
from devtools import median_device_seconds, random_batch

ap = argparse.ArgumentParser()
ap.add_argument("--batch", default="10,11,12,13,14,15,16,17,18")
ap.add_argument("--huge", default="24,27")
ap.add_argument("--scale", type=int, default=0)
args = ap.parse_args()
ctx = clbig.Context()
print("device", ctx.name, flush=True)
rng = np.random.default_rng(5)
algos = ["auto"]
if "algorithm" in inspect.signature(clbig.divmod).parameters:
    algos += ["basecase", "newton"]
with ctx:
    for lg in [int(x) for x in args.batch.split(",") if x]:
        bits = 1 << lg
        m, n = bits // 32, max(1, (1 << (32 - args.scale)) // bits)
        u, v = random_batch(ctx, rng, n, m), random_batch(ctx, rng, n, m // 2)
        U, V = u[0:2].tolist(), v[0:2].tolist()
        u2 = random_batch(ctx, rng, n, m)   # u * u would be a square (half the work)
        tm = median_device_seconds(ctx, lambda: clbig.mul_low(u, u2), 3)
        for alg in algos:
            kw = {} if alg == "auto" else {"algorithm": alg}
            try:
                q, r = clbig.divmod(u, v, **kw)
                ok = q[0:2].tolist() == [x // y for x, y in zip(U, V)] and r[0:2].tolist() == [x % y for x, y in zip(U, V)]
                del q, r
                t = median_device_seconds(ctx, lambda: clbig.divmod(u, v, **kw), 3)
            except Exception as e:  # noqa: BLE001
                print(f"batch 2^{lg} {alg}: {type(e).__name__}: {str(e)[:200]}", flush=True)
                continue
            print(f"batch 2^{lg:2d} div {alg:8s} {t * 1e6:10.0f} us  = {t / tm:5.1f} x mul_low ({tm * 1e6:.0f} us) {'OK' if ok else 'WRONG'}", flush=True)
        del u, v
    for lg in [int(x) for x in args.huge.split(",") if x]:
        x = gmpy2.mpz(int.from_bytes(rng.bytes((1 << lg) // 8), "little"))
        y = gmpy2.mpz(int.from_bytes(rng.bytes((1 << (lg - 1)) // 8), "little")) | 1
        t0 = time.perf_counter(); want = divmod(x, y); tg = time.perf_counter() - t0
        t0 = time.perf_counter(); got = clbig.divmod(x, y); t1 = time.perf_counter() - t0
        t0 = time.perf_counter(); clbig.divmod(x, y); t2 = time.perf_counter() - t0
        print(f"single 2^{lg}/2^{lg - 1}: clbig {t2 * 1e3:.1f} ms wall incl. transfers (first call {t1 * 1e3:.1f} ms), "
              f"gmpy2 {tg * 1e3:.1f} ms, x{tg / t2:.2f} {'OK' if tuple(got) == want else 'WRONG'}", flush=True)
print("done", flush=True)
