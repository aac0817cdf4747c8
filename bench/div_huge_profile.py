"""Where a single huge division spends its time: device time (OpenCL events) against wall time,
and the host functions that dominate (cProfile), for a (2^k)-bit by (2^(k-1))-bit division.

    python bench/div_huge_profile.py [k]
"""
import cProfile
import pstats
import sys
import time

import gmpy2
import numpy as np

import clbig
from devtools import named_launches, per_kernel_ms

k = int(sys.argv[1]) if len(sys.argv) > 1 else 27
rng = np.random.default_rng(3)
x = gmpy2.mpz(int.from_bytes(rng.bytes((1 << k) // 8), "little"))
y = gmpy2.mpz(int.from_bytes(rng.bytes((1 << (k - 1)) // 8), "little")) | 1
ctx = clbig.Context()
with ctx:
    t0 = time.perf_counter(); want = divmod(x, y); tg = time.perf_counter() - t0
    clbig.divmod(x, y)                       # builds the kernels
    xa, ya = clbig.array([x]), clbig.array([y]); ctx.finish()
    with clbig.profile() as p:
        t0 = time.perf_counter(); q, r = clbig.divmod(xa, ya); ctx.finish(); tw = time.perf_counter() - t0
    ok = (q.tolist()[0], r.tolist()[0]) == want
    print(f"2^{k}/2^{k-1}: device {p.seconds * 1e3:.1f} ms in {len(p.events)} kernels, wall on device arrays "
          f"{tw * 1e3:.1f} ms, gmpy2 {tg * 1e3:.1f} ms: x{tg / p.seconds:.1f} device, x{tg / tw:.1f} wall "
          f"{'OK' if ok else 'WRONG'}", flush=True)
    named = named_launches()
    clbig.divmod(xa, ya); ctx.finish()
    per, _ = per_kernel_ms(named)
    busy = sum(per.values())
    span = (max(e.profile.end for _, e in named) - min(e.profile.start for _, e in named)) * 1e-6
    print(f"kernels busy {busy:.1f} ms of a {span:.1f} ms span ({len(named)} launches)")
    for name, ms in sorted(per.items(), key=lambda kv: -kv[1])[:10]:
        print(f"  {name:24s} {ms:8.1f} ms")
    pr = cProfile.Profile()
    pr.enable(); clbig.divmod(x, y); pr.disable()
    pstats.Stats(pr).sort_stats("cumulative").print_stats(18)
