# Finding: where a batch division by Newton spends its time, per kernel and between launches; bench/README.md, "Division" (results/div-newton-profile-h100-2026-11-23.log, results/div-newton-profile-schedule-h100-2026-11-23.log).
"""Where a batch division by Newton spends its device time: per kernel, for batches of 2^32
bits (dividend of 2^k bits, divisor of half), against the same batch's low-half product.

    python bench/probes/div_batch_profile.py [k ...] [--scale S]
"""
import argparse
import time

import numpy as np

import clbig
import devtools
from devtools import median_device_seconds, named_launches, per_kernel_ms, random_batch

ap = argparse.ArgumentParser()
ap.add_argument("ks", nargs="*", type=int, default=[16, 18])
ap.add_argument("--scale", type=int, default=0)
ap.add_argument("--algorithm", default="newton")
ap.add_argument("--cprofile", action="store_true", help="also where the host spends one division (cProfile)")
ap.add_argument("--launches", type=int, default=0, help="list the N longest launches with their parameters")
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
        a2 = random_batch(ctx, rng, n, bits // 32)   # a * a would be a square: half the work
        tm = median_device_seconds(ctx, lambda: clbig.mul_low(a, a2), 3)
        del a2
        named.clear()
        devtools.HOST.clear()
        devtools.GEOM.clear()
        # Only launches inside clbig.profile() go to the context's profiling queue and carry
        # timestamps (on NVIDIA that queue costs more host time per launch: bench/README.md).
        with clbig.profile():
            t0 = time.perf_counter()
            clbig.divmod(a, b, algorithm=args.algorithm)
            t_enq = time.perf_counter() - t0
            ctx.finish()
            wall = time.perf_counter() - t0
        per, cnt = per_kernel_ms(named)
        busy = sum(per.values())
        span = (max(e.profile.end for _, e in named) - min(e.profile.start for _, e in named)) * 1e-6
        print(f"2^{k} x{n} {args.algorithm}: kernels busy {busy:.1f} ms of a {span:.1f} ms span, wall "
              f"{wall * 1e3:.1f} ms, {len(named)} launches; mul_low {tm * 1e3:.1f} ms", flush=True)
        for name, ms in sorted(per.items(), key=lambda kv: -kv[1])[:12]:
            print(f"  {name:24s} {ms:8.1f} ms  x{cnt[name]}")
        # idle device time between kernels: the host was late (a sync, or slow enqueueing)
        evs = sorted(((e.profile.start, e.profile.end, nm) for nm, e in named))
        gaps, end, prev = [], evs[0][1], evs[0][2]
        for st, en, nm in evs[1:]:
            if st > end:
                gaps.append(((st - end) * 1e-6, prev, nm))
            if en > end:
                end, prev = en, nm
        # host side: when the host needs about as long as the span to enqueue, it is the bottleneck
        host, prev = [], t0
        for (nm, _), (h0, h1) in zip(named, devtools.HOST):
            host.append((h0 - prev, nm))
            prev = h1
        print(f"  host: enqueued in {t_enq * 1e3:.1f} ms, {sum(h1 - h0 for h0, h1 in devtools.HOST) * 1e3:.1f} ms "
              f"inside launch calls; longest host work before a launch:")
        for g, nm in sorted(host, reverse=True)[:6]:
            print(f"    {g * 1e3:7.2f} ms  before {nm}")
        if args.launches:
            keys = ("MODE", "OP", "MA", "MB", "MR", "Q", "IPI", "IPB", "G", "L", "H", "RB", "FIELD", "KEEP")
            rows = []
            for (nm, e), (k, groups, wg) in zip(named, devtools.GEOM):
                prm = devtools.kernel_params(ctx, k)
                rows.append(((e.profile.end - e.profile.start) * 1e-6, nm, groups, wg,
                             " ".join(f"{x}={prm[x]}" for x in keys if x in prm)))
            print(f"  the {args.launches} longest launches (ms, kernel, groups x items, parameters):")
            for ms, nm, groups, wg, desc in sorted(rows, key=lambda r: -r[0])[:args.launches]:
                print(f"    {ms:7.2f}  {nm:10s} {groups}x{wg}  {desc}")
        print(f"  idle {sum(g for g, _, _ in gaps):.1f} ms in {len(gaps)} gaps; largest:")
        for g, before, after in sorted(gaps, reverse=True)[:10]:
            print(f"    {g:7.2f} ms  {before} -> {after}")
        del a, b
        if args.cprofile:
            import cProfile
            import pstats
            a = random_batch(ctx, rng, n, bits // 32)
            b = random_batch(ctx, rng, n, bits // 64)
            clbig.divmod(a, b, algorithm=args.algorithm); ctx.finish()
            pr = cProfile.Profile()
            pr.enable()
            clbig.divmod(a, b, algorithm=args.algorithm); ctx.finish()
            pr.disable()
            pstats.Stats(pr).sort_stats("tottime").print_stats(12)
            del a, b
