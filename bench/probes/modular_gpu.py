# Finding: powmod's launch shapes by size (the defaults of clbig's mont); bench/README.md, "Modular arithmetic and gcd" (results/modular-h200-2026-11-24.log, its three runs).
"""Modular exponentiation on the device (clbig.mpz.modular.powmod) against gmpy2 on one host core.

Per size: a batch of --n random odd moduli of exactly `bits` bits (each instance its own), bases
below them, exponents of 512 bits (one per instance) and of `bits` bits (a smaller batch, see
--full-n); the device time of the powmod launch (OpenCL profiling; R^2 mod m is computed
once by clbig.Modulus beforehand and reported apart), results spot-checked against gmpy2 (a
wrong one stops the run, exit status 2). --variants also times the launch shapes given as
environment settings (CLBIG_MONT_ONE / _Q / _ITEMS) and the shared-modulus (one RSA key) case.

    python bench/probes/modular_gpu.py                       # the GPU run: n = 100000, 1024..8192 bits
    python bench/probes/modular_gpu.py --n 512 --full-n 64 --sizes 1024,2048 --no-variants   # PoCL
"""
from __future__ import annotations

import argparse
import os
import random
import sys
import time

import gmpy2
import numpy as np

import clbig
from clbig.mpz import modular

VARIANTS = {   # launch shapes worth comparing per size: (label, env); the first is the default
    1024: [("one item", {}), ("one item CIOS sqr", {"CLBIG_MONT_SQR": "0"}),
           ("one item W=4", {"CLBIG_MONT_W": "4"}), ("one item W=6", {"CLBIG_MONT_W": "6"}),
           ("one item no PTX", {"_carry": ""})],
    2048: [("one item", {}), ("one item sqr", {"CLBIG_MONT_SQR": "1"}),
           ("one item mloc", {"CLBIG_MONT_MLOC": "1"}), ("one item bloc", {"CLBIG_MONT_BLOC": "1"}),
           ("one item mloc bloc", {"CLBIG_MONT_MLOC": "1", "CLBIG_MONT_BLOC": "1"}),
           ("one item mloc sqr", {"CLBIG_MONT_MLOC": "1", "CLBIG_MONT_SQR": "1"}),
           ("one item mloc bloc sqr", {"CLBIG_MONT_MLOC": "1", "CLBIG_MONT_BLOC": "1", "CLBIG_MONT_SQR": "1"}),
           ("C=2 Q=32", {"CLBIG_MONT_ONE": "32"}),
           ("C=2 Q=32 mloc bloc", {"CLBIG_MONT_ONE": "32", "CLBIG_MONT_MLOC": "1", "CLBIG_MONT_BLOC": "1"})],
    4096: [("C=2 Q=64", {}), ("C=2 Q=64 mloc", {"CLBIG_MONT_MLOC": "1"}),
           ("C=2 Q=64 bloc", {"CLBIG_MONT_BLOC": "1"}),
           ("C=2 Q=64 mloc bloc", {"CLBIG_MONT_MLOC": "1", "CLBIG_MONT_BLOC": "1"}),
           ("C=4 Q=32", {"CLBIG_MONT_Q": "32"}),
           ("C=4 Q=32 mloc bloc", {"CLBIG_MONT_Q": "32", "CLBIG_MONT_MLOC": "1", "CLBIG_MONT_BLOC": "1"})],
    8192: [("C=4 Q=64", {}), ("C=8 Q=32", {"CLBIG_MONT_Q": "32"})],
}
# small batches (SMALL_N instances): spread over Q_SMALL-limb items (the default below the
# fill) against one item per instance
SMALL_N = 20000
SMALL_VARIANTS = {
    1024: [("default", {}), ("one item", {"CLBIG_MONT_FILL": "0"})],
    2048: [("default", {}), ("one item", {"CLBIG_MONT_FILL": "0"})],
}
FULL_N = {1024: 50000, 2048: 20000, 4096: 6000, 8192: 1500}
KEEP_GOING = False   # --keep-going: a wrong variant is reported and the run goes on (exit 2 at the end)
WRONG = []


def odd_moduli(rng, n, bits):
    m = rng.integers(0, 2 ** 32, size=(n, bits // 32), dtype=np.uint32)
    m[:, 0] |= 1
    m[:, -1] |= np.uint32(1 << 31)
    return m


def device_seconds(ctx, f, reps):
    f()
    ctx.finish()
    ts = []
    for _ in range(reps):
        with clbig.profile() as p:
            r = f()
            ctx.finish()
        ts.append(p.seconds)
    return float(np.median(ts)), r


def gmpy2_rate(av, ev, mv, budget=0.5):
    t0, k = time.perf_counter(), 0
    while k < len(av) and (k < 2 or time.perf_counter() - t0 < budget):
        gmpy2.powmod(av[k], ev[k], mv[k])
        k += 1
    return k / (time.perf_counter() - t0)


def check(got: clbig.BigIntArray, av, ev, mv, rng, what, k=8):
    idx = sorted({0, len(av) - 1, *rng.choice(len(av), size=min(k, len(av)), replace=False).tolist()})
    for i in idx:
        want = int(gmpy2.powmod(av[i], ev[i], mv[i]))
        if got[i] != want:
            print(f"WRONG {what} at index {i}", flush=True)
            if not KEEP_GOING:
                sys.exit(2)
            WRONG.append(what)
            return


def ints(limbs):
    return [gmpy2.mpz(int.from_bytes(r.tobytes(), "little")) for r in limbs]


def with_env(ctx, env, f):
    """f() under the environment settings env; "_carry" sets the context's carry chains."""
    env = dict(env)
    carry = ctx.carry
    ctx.carry = env.pop("_carry", carry)
    saved = {k: os.environ.get(k) for k in env}
    os.environ.update(env)
    try:
        return f()
    finally:
        ctx.carry = carry
        for k, v in saved.items():
            if v is None:
                os.environ.pop(k, None)
            else:
                os.environ[k] = v


def run_size(ctx, bits, n, full_n, reps, variants, rng):
    m_l = odd_moduli(rng, n, bits)
    a_l = rng.integers(0, 2 ** 32, size=(n, bits // 32), dtype=np.uint32)
    a_l[:, -1] >>= 1                                   # below m
    e_l = rng.integers(0, 2 ** 32, size=(n, 16), dtype=np.uint32)
    M, A, E = (clbig.from_limbs(x, ctx=ctx) for x in (m_l, a_l, e_l))
    t0 = time.perf_counter()
    Mod = modular.Modulus(M)
    Mod.r2(modular._kernel(ctx, Mod, n)[3])
    ctx.finish()
    prep = time.perf_counter() - t0
    mv, av, ev = ints(m_l[:4000]), ints(a_l[:4000]), ints(e_l[:4000])
    rows = []
    for label, env in (variants.get(bits, [("default", {})]) if variants else [("default", {})]):
        if env:
            Mod._r2.clear()
        sec, got = with_env(ctx, env, lambda: device_seconds(ctx, lambda: modular.powmod(A, E, Mod), reps))
        check(got, av, ev, mv, rng, f"{bits} bits {label}")
        rows.append((bits, f"e 512, {label}", n, n / sec, sec))
        print(f"  {bits:5d} bits  e 512  {label:12s} n={n:6d}  {n / sec / 1e6:9.4f} M/s  ({sec * 1e3:9.2f} ms)",
              flush=True)
    if variants and bits in SMALL_VARIANTS and n > SMALL_N:
        ns = SMALL_N
        As, Es, Ms = A[0:ns], E[0:ns], modular.Modulus(M[0:ns])
        for label, env in SMALL_VARIANTS[bits]:
            Ms._r2.clear()
            sec, got = with_env(ctx, env, lambda: device_seconds(ctx, lambda: modular.powmod(As, Es, Ms), reps))
            check(got, av[:ns], ev[:ns], mv[:ns], rng, f"{bits} bits small {label}")
            rows.append((bits, f"e 512, n {ns}, {label}", ns, ns / sec, sec))
            print(f"  {bits:5d} bits  e 512  small {label:10s} n={ns:6d}  {ns / sec / 1e6:9.4f} M/s  "
                  f"({sec * 1e3:9.2f} ms)", flush=True)
    g512 = gmpy2_rate(av, ev, mv)
    # one modulus for the whole batch (one RSA key)
    Mod1 = modular.Modulus(M[0:1])
    sec, got = device_seconds(ctx, lambda: modular.powmod(A, E, Mod1), reps)
    check(got, av, ev, [mv[0]] * len(av), rng, f"{bits} shared modulus")
    rows.append((bits, "e 512, one modulus", n, n / sec, sec))
    print(f"  {bits:5d} bits  e 512  {'one modulus':12s} n={n:6d}  {n / sec / 1e6:9.4f} M/s", flush=True)
    # full-size exponents
    nf = min(full_n.get(bits, 1000), n)
    ef_l = rng.integers(0, 2 ** 32, size=(nf, bits // 32), dtype=np.uint32)
    Af, Ef, Mf = (clbig.from_limbs(x, ctx=ctx) for x in (a_l[:nf], ef_l, m_l[:nf]))
    Modf = modular.Modulus(Mf)
    sec, got = device_seconds(ctx, lambda: modular.powmod(Af, Ef, Modf), max(1, reps // 2))
    kf = min(nf, 200)
    efv = ints(ef_l[:kf])
    check(got, av[:kf], efv, mv[:kf], rng, f"{bits} full exponent", k=4)
    gfull = gmpy2_rate(av[:kf], efv, mv[:kf], budget=1.0)
    rows.append((bits, "e full", nf, nf / sec, sec))
    print(f"  {bits:5d} bits  e full {'default':12s} n={nf:6d}  {nf / sec:12.0f} /s  "
          f"(gmpy2 one core: e 512 {g512:.0f} /s, e full {gfull:.0f} /s); Modulus prep {prep * 1e3:.1f} ms",
          flush=True)
    return rows, g512, gfull


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--n", type=int, default=100000)
    ap.add_argument("--full-n", type=int, default=0, help="batch for full-size exponents (0: per size)")
    ap.add_argument("--sizes", default="1024,2048,4096,8192")
    ap.add_argument("--reps", type=int, default=3)
    ap.add_argument("--no-variants", action="store_true")
    ap.add_argument("--device", default=None)
    ap.add_argument("--keep-going", action="store_true", help="report a wrong variant and go on")
    args = ap.parse_args(argv)
    global KEEP_GOING
    KEEP_GOING = args.keep_going
    ctx = clbig.Context(args.device)
    print(f"device: {ctx.name}, carry chains: {ctx.carry or 'none'}, {time.strftime('%Y-%m-%d %H:%M')}", flush=True)
    rng = np.random.default_rng(20261124)
    full = {int(s): args.full_n for s in args.sizes.split(",")} if args.full_n else FULL_N
    table = []
    with ctx:
        for bits in (int(s) for s in args.sizes.split(",")):
            rows, g512, gfull = run_size(ctx, bits, args.n, full, args.reps,
                                         None if args.no_variants else VARIANTS, rng)
            table.append((bits, rows, g512, gfull))
    print("\n| bits | case | n | per second | gmpy2 one core |\n| --- | --- | --- | --- | --- |")
    for bits, rows, g512, gfull in table:
        for b, case, n, rate, _ in rows:
            g = gfull if case == "e full" else g512
            print(f"| {b} | {case} | {n} | {rate:,.0f} | {g:,.0f} |")
    if WRONG:
        print("WRONG results:", ", ".join(WRONG))
        sys.exit(2)


if __name__ == "__main__":
    main()
