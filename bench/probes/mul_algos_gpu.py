# Finding: which product algorithm wins at each size (the crossovers of clbig's mul_n, the FP64 radix); bench/README.md, "Multiplication" (results/mul-algos-h100-2026-11-22-final.log, results/mul52-h200-2026-11-25.log).
"""Multiplication algorithms side by side on one device: batches of 2^32 bits (low half, the
papers' 1-Mul) by classical and NTT, then single full products 2^20..2^28 bits per operand by
every algorithm that runs, against gmpy2 on this machine's CPU, transfers timed apart.
Every timed result is spot-checked against gmpy2. Prints a table; --json writes one.

    python bench/probes/mul_algos_gpu.py [--batch 9,11,...] [--huge 20,...] [--json FILE]
"""
import argparse
import json
import sys
import time

import gmpy2
import numpy as np

import clbig
from clbig.mpn import mul_n
from devtools import median_device_seconds, random_batch

ap = argparse.ArgumentParser()
ap.add_argument("--batch", default="9,11,13,14,15,16,17,18")
ap.add_argument("--huge", default="20,22,24,26,28")
ap.add_argument("--algos", default="classical,ntt,ssa")
ap.add_argument("--json")
ap.add_argument("--scale", type=int, default=0, help="batches of 2^(32-scale) bits (CPUs)")
args = ap.parse_args()
ctx = clbig.Context()
print("device", ctx.name, flush=True)
rng = np.random.default_rng(7)
rows = []
algos = [a for a in args.algos.split(",") if a]
with ctx:
    for lg in [int(x) for x in args.batch.split(",") if x]:
        bits = 1 << lg
        m, n = bits // 32, max(1, (1 << (32 - args.scale)) // bits)
        a, b = random_batch(ctx, rng, n, m), random_batch(ctx, rng, n, m)
        A, B = a[0:2].tolist(), b[0:2].tolist()
        for alg in algos:
            why = mul_n.why_not(ctx, alg, m, m, bits)
            if why:
                print(f"batch 2^{lg} {alg}: cannot run: {why}", flush=True)
                continue
            f = lambda: clbig.mul_low(a, b, algorithm=alg)
            try:
                r = f()
                ok = r[0:2].tolist() == [(x * y) % (1 << bits) for x, y in zip(A, B)]
                del r
                t = median_device_seconds(ctx, f, 3 if lg >= 15 else 10)
            except Exception as e:  # noqa: BLE001 - report and go on
                print(f"batch 2^{lg} {alg}: {type(e).__name__}: {e}", flush=True)
                continue
            rows.append(dict(kind="batch", lg=lg, algo=alg, us=t * 1e6, ok=ok))
            print(f"batch 2^{lg:2d} {alg:9s} {t * 1e6:10.0f} us {'OK' if ok else 'WRONG'}", flush=True)
        del a, b
    for lg in [int(x) for x in args.huge.split(",") if x]:
        bits = 1 << lg
        x = gmpy2.mpz(int.from_bytes(rng.bytes(bits // 8), "little"))
        y = gmpy2.mpz(int.from_bytes(rng.bytes(bits // 8), "little"))
        t0 = time.perf_counter(); want = x * y; tg = time.perf_counter() - t0
        t0 = time.perf_counter(); xa, ya = clbig.array([x]), clbig.array([y]); ctx.finish()
        t_up = time.perf_counter() - t0
        for alg in algos:
            why = mul_n.why_not(ctx, alg, bits // 32, bits // 32, 2 * bits)
            if why or (alg == "classical" and lg > 22):
                print(f"single 2^{lg} {alg}: skipped: {why or 'quadratic'}", flush=True)
                continue
            f = lambda: clbig.mul(xa, ya, algorithm=alg)
            try:
                r = f(); ctx.finish()
                t0 = time.perf_counter(); got = r.tolist()[0]; t_down = time.perf_counter() - t0
                ok = got == want
                del r
                t = median_device_seconds(ctx, f, 3)
                t0 = time.perf_counter(); f(); ctx.finish(); wall = time.perf_counter() - t0
            except Exception as e:  # noqa: BLE001
                print(f"single 2^{lg} {alg}: {type(e).__name__}: {e}", flush=True)
                continue
            rows.append(dict(kind="single", lg=lg, algo=alg, us=t * 1e6, wall_us=wall * 1e6,
                             up_us=t_up * 1e6, down_us=t_down * 1e6, gmpy2_us=tg * 1e6, ok=ok))
            print(f"single 2^{lg:2d} {alg:9s} device {t * 1e3:9.2f} ms wall {wall * 1e3:9.2f} ms "
                  f"(+ upload {t_up * 1e3:.1f} ms, download {t_down * 1e3:.1f} ms) gmpy2 {tg * 1e3:9.1f} ms "
                  f"x{tg / t:6.1f} {'OK' if ok else 'WRONG'}", flush=True)
        del xa, ya
if args.json:
    json.dump(dict(device=ctx.name, date=time.strftime("%Y-%m-%d"), rows=rows), open(args.json, "w"), indent=1)
print("done", flush=True)
