"""Tuning sweep on one device: times 1-Add and 1-Mul for each Q / work-group target given
through the CLBIG_* overrides, so one device session picks the defaults of clbig/plan.py and
clbig/mul_basecase.py. Prints one line per (op, size, setting)."""
import os
import sys

import numpy as np

import clbig

ctx = clbig.Context()
rng = np.random.default_rng(7)
print("device", ctx.name, flush=True)


def rand(n, m):
    return clbig.from_limbs(rng.integers(0, 2**32, size=(n, m), dtype=np.uint32), ctx=ctx)


def timeit(f, reps):
    f()
    ctx.finish()
    ts = []
    for _ in range(reps):
        with clbig.profile() as p:
            r = f()
        ts.append(p.seconds)
        del r
    return float(np.median(ts))


def sweep(var, values, op, sizes, reps):
    for lg in sizes:
        bits = 1 << lg
        m, n = bits // 32, (1 << 32) // bits
        a, b = rand(n, m), rand(n, m)
        A, B = a[0:2].tolist(), b[0:2].tolist()
        for v in values:
            os.environ[var] = v
            try:
                f = {"add": lambda: clbig.add_fixed(a, b)[0], "mul": lambda: clbig.mul_low(a, b),
                     "add6": lambda: clbig.fused.six_add(a, b), "poly": lambda: clbig.fused.poly(a, b)}[op]
                r = f()
                M = 1 << bits
                ref = {"add": lambda x, y: (x + y) % M, "mul": lambda x, y: x * y % M,
                       "add6": lambda x, y: (6 * x + 10 * y) % M,
                       "poly": lambda x, y: ((x * x + y) * (y * y + y) + x * y) % M}[op]
                ok = r[0:2].tolist() == [ref(x, y) for x, y in zip(A, B)]
                del r
                t = timeit(f, reps)
                gbs = 3 * n * bits / 8 / t / 1e9
                print(f"{op} 2^{lg} {var}={v}: {t * 1e6:9.0f} us {gbs:7.0f} GB/s {'OK' if ok else 'WRONG'}", flush=True)
            except Exception as e:  # a setting that cannot run here is a result too
                print(f"{op} 2^{lg} {var}={v}: failed {type(e).__name__}: {str(e)[:120]}", flush=True)
            os.environ.pop(var, None)
        del a, b


which = sys.argv[1:] or ["add", "mul"]
if "add" in which:
    sweep("CLBIG_SCAN_Q", ["4", "8", "16", "32"], "add", [9, 11, 13, 15, 16, 17, 18], 10)
if "add6" in which:
    sweep("CLBIG_SCAN_Q", ["4", "8", "16", "32"], "add6", [13, 15, 16, 17, 18], 10)
if "mul" in which:
    sweep("CLBIG_MUL_Q", ["4", "8", "16"], "mul", [11, 13, 15], 5)
    sweep("CLBIG_MUL_ITEMS", ["64", "256"], "mul", [11, 13, 15], 5)
if "poly" in which:
    sweep("CLBIG_MUL_Q", ["4", "8", "16"], "poly", [11, 13, 15], 3)
