# Finding: gcd and inverse storage and cofactor schedule (the defaults of clbig's gcd_n); bench/README.md, "Modular arithmetic and gcd" (results/gcd-h200-2026-11-24.log, both runs).
"""Batched gcd and modular inverse on one device: n instances (default 100,000) of 1024 to 8192
bits, each with its own random odd modulus, in M instances per second of device time (median of
--reps launches), spot-checked against gmpy2, beside gmpy2 on one host thread and the issue's
targets (CGBN on an H100). The default storage mode first, then the variants (private arrays /
global scratch, work-group sizes; for the inverse also rounds per cofactor update,
CLBIG_GCD_COF), while --budget seconds last.

    python bench/probes/gcd_gpu.py [--n 100000] [--bits 1024,2048,4096,8192] [--reps 5] [--budget 240]
    python bench/probes/gcd_gpu.py --n 2000 --bits 1024,2048 --variants none      # PoCL, quick
"""
import importlib
import argparse
import os
import sys
import time

import gmpy2
import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import clbig  # noqa: E402
G = importlib.import_module("clbig.mpz.gcd")   # the module: clbig.gcd is the function  # noqa: E402
from clbig.mpn import gcd_n  # noqa: E402
from devtools import median_device_seconds  # noqa: E402

TARGET = {("gcd", 1024): 51.4, ("gcd", 2048): 19.5, ("gcd", 4096): 7.19,
          ("invert", 1024): 24.4, ("invert", 2048): 10.65, ("invert", 4096): 4.11}

ap = argparse.ArgumentParser()
ap.add_argument("--n", type=int, default=100_000)
ap.add_argument("--bits", default="1024,2048,4096,8192")
ap.add_argument("--reps", type=int, default=5)
ap.add_argument("--check", type=int, default=256, help="instances checked against gmpy2")
ap.add_argument("--variants", default="private,global:64,128",
                help="stores:work-group sizes tried after the default, or 'none'")
ap.add_argument("--cof", default="1,2", help="rounds per cofactor update tried (inverse), or ''")
ap.add_argument("--budget", type=float, default=240.0, help="seconds; variants stop after")
args = ap.parse_args()
t_start = time.perf_counter()
ctx = clbig.Context()
print("device", ctx.name, "n", args.n, flush=True)
rng = np.random.default_rng(13)


def rand_limbs(n, bits, odd=False, top=True):
    m = bits // 32
    x = rng.integers(0, 2**32, size=(n, m), dtype=np.uint32)
    if top:
        x[:, -1] |= np.uint32(1 << 31)
    if odd:
        x[:, 0] |= np.uint32(1)
    return x


def run_case(op, bits, a, b, ints):
    f = (lambda: G.gcd(a, b)) if op == "gcd" else (lambda: G.invert(a, b, strict=False)[0])
    r = f()
    got = r[0:args.check].tolist() if args.check else []
    xs, ys = ints
    if op == "gcd":
        want = [int(gmpy2.gcd(x, y)) for x, y in zip(xs, ys)]
    else:
        want = [int(gmpy2.invert(x, y)) if gmpy2.gcd(x, y) == 1 else 0 for x, y in zip(xs, ys)]
    ok = got == want
    del r
    t = median_device_seconds(ctx, f, args.reps)
    return t, ok


def gmpy2_rate(op, ints):
    xs, ys = ints
    fn = gmpy2.gcd if op == "gcd" else (lambda x, y: gmpy2.invert(x, y) if gmpy2.gcd(x, y) == 1 else 0)
    t0 = time.perf_counter()
    for x, y in zip(xs, ys):
        fn(x, y)
    return len(xs) / (time.perf_counter() - t0) / 1e6


rows = []
sizes = [int(b) for b in args.bits.split(",") if b]
variants = []
if args.variants != "none":
    stores, wgs = args.variants.split(":")
    variants = [(s, int(w), None) for s in stores.split(",") for w in wgs.split(",")]
# the cofactor schedules at the default storage and work-group size, before the other variants
variants = [(None, None, c) for c in args.cof.split(",") if c] + variants
data = {}
with ctx:
    for bits in sizes:
        al, bl, ml = rand_limbs(args.n, bits), rand_limbs(args.n, bits), rand_limbs(args.n, bits, odd=True)
        a, b, m = (clbig.from_limbs(x, ctx=ctx) for x in (al, bl, ml))
        k = max(args.check, 1)
        to_int = lambda x: [gmpy2.mpz(int.from_bytes(r.tobytes(), "little")) for r in x[:k]]
        A, B, Mo = to_int(al), to_int(bl), to_int(ml)
        data[bits] = (a, b, m, A, B, Mo)
        for op in ("gcd", "invert"):
            ints = (A, B) if op == "gcd" else (A, Mo)
            y = b if op == "gcd" else m
            mode = "gcd" if op == "gcd" else "inv"
            store = gcd_n.storage(ctx.profile.settings, mode,
                                  gcd_n.digits(bits // 32, 0 if op == "gcd" else 1))
            t, ok = run_case(op, bits, a, y, ints)
            rate = args.n / t / 1e6
            g = gmpy2_rate(op, ints)
            tgt = TARGET.get((op, bits))
            cof = f", cof {gcd_n.cofactor_rounds(ctx.profile.settings)}" if op == "invert" else ""
            rows.append((op, bits, f"default ({store}, wg {gcd_n.WG}{cof})", t, rate, g, tgt, ok))
            print(f"{op:6s} {bits:5d} bits default ({store}): {t * 1e3:9.2f} ms  {rate:8.3f} M/s  "
                  f"gmpy2 {g:.3f} M/s  target {tgt if tgt else '-'}  {'OK' if ok else 'WRONG'}", flush=True)
    for store, wg, cof in variants:
        env = {"CLBIG_GCD_COF": cof} if cof else {"CLBIG_GCD_STORE": store, "CLBIG_GCD_WG": str(wg)}
        name = f"cof {cof} (default store)" if cof else f"{store}, wg {wg}"
        for bits in sizes:
            for op in ("invert",) if cof else ("gcd", "invert"):
                if time.perf_counter() - t_start > args.budget:
                    print(f"budget spent: {op} {bits} {name} skipped", flush=True)
                    continue
                os.environ.update(env)
                a, b, m, A, B, Mo = data[bits]
                ints = (A, B) if op == "gcd" else (A, Mo)
                try:
                    t, ok = run_case(op, bits, a, b if op == "gcd" else m, ints)
                except Exception as e:  # noqa: BLE001
                    print(f"{op} {bits} {name}: {type(e).__name__}: {str(e)[:200]}", flush=True)
                    continue
                finally:
                    for k in env:
                        del os.environ[k]
                rate = args.n / t / 1e6
                tgt = TARGET.get((op, bits))
                rows.append((op, bits, name, t, rate, None, tgt, ok))
                print(f"{op:6s} {bits:5d} bits {name:22s}: {t * 1e3:9.2f} ms  {rate:8.3f} M/s  "
                      f"{'OK' if ok else 'WRONG'}", flush=True)

print(f"\n| op | bits | variant | device ms | M/s | gmpy2 M/s (1 thread) | target M/s | of target | check |")
print("| --- | --- | --- | --- | --- | --- | --- | --- | --- |")
for op, bits, var, t, rate, g, tgt, ok in rows:
    print(f"| {op} | {bits} | {var} | {t * 1e3:.2f} | {rate:.3f} | {'' if g is None else f'{g:.3f}'} | "
          f"{tgt if tgt else '-'} | {f'{rate / tgt:.2f}x' if tgt else '-'} | {'OK' if ok else 'WRONG'} |")
bad = [r for r in rows if not r[-1]]
print("done", "WRONG RESULTS" if bad else "all checked results exact", f"{time.perf_counter() - t_start:.0f} s", flush=True)
sys.exit(2 if bad else 0)
