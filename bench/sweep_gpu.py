"""Tuning sweep on one device: times 1-Add and 1-Mul for each Q / work-group target given
through the CLBIG_* overrides, so one device session picks the defaults of clbig/plan.py and
clbig/mul_basecase.py. Prints one line per (op, size, setting)."""
import os
import sys

import numpy as np

import clbig
from devtools import median_device_seconds, random_batch

ctx = clbig.Context()
rng = np.random.default_rng(7)
print("device", ctx.name, flush=True)


def rand(n, m):
    return random_batch(ctx, rng, n, m)


def timeit(f, reps=10):
    return median_device_seconds(ctx, f, reps)


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
            ctx._programs.clear()  # settings read at render time are not part of the memo key
        del a, b


def limits():
    """Work-group limits NVIDIA reports for single-group add kernels of big instances."""
    from clbig.runtime.render import kernel
    import pyopencl as cl
    for ipi in (256, 512, 1024):
        k = kernel(ctx, "add.cl.mako", "add_sub", None, OP="add", MA=4 * ipi, MB=4 * ipi, MR=4 * ipi,
                   TOP_MASK=0xFFFFFFFF, FLAG_LIMB=None, FLAG_BIT=0, FLAG_TOP=False, VEC_A=True,
                   VEC_B=True, VEC_R=True, Q=4, IPI=ipi, G=1, MODE="single", IPB=1)
        wg = k.get_work_group_info(cl.kernel_work_group_info.WORK_GROUP_SIZE, ctx.device)
        print(f"add kernel IPI={ipi}: CL_KERNEL_WORK_GROUP_SIZE={wg}", flush=True)


which = sys.argv[1:] or ["add", "mul"]
if "limits" in which:
    limits()
if "items" in which:
    sweep("CLBIG_SCAN_ITEMS", ["64", "128", "512", "1024"], "add", [9, 11, 13, 15], 10)
if "add" in which:
    sweep("CLBIG_SCAN_Q", ["4", "8", "16", "32"], "add", [9, 11, 13, 15, 16, 17, 18], 10)
if "add6" in which:
    sweep("CLBIG_SCAN_Q", ["4", "8", "16", "32"], "add6", [13, 15, 16, 17, 18], 10)
if "mul" in which:
    sweep("CLBIG_MUL_Q", ["4", "8", "16"], "mul", [9, 11, 13, 15, 17], 5)
    sweep("CLBIG_MUL_ITEMS", ["32", "128"], "mul", [11, 13, 15], 5)
if "rows" in which:
    sweep("CLBIG_ADD_ROWS", ["1", "2", "4"], "add", [9, 11, 13, 15], 10)
if "add6q" in which:
    sweep("CLBIG_SCAN_Q", ["4", "8", "16"], "add6", [9, 11, 13, 15, 16, 17, 18], 10)
if "fake" in which:  # timing only: CLBIG_FAKE_ACC makes the convolution wrong on purpose
    sweep("CLBIG_FAKE_ACC", ["", "1"], "mul", [11, 13, 15], 5)
if "poly" in which:
    sweep("CLBIG_MUL_Q", ["4", "8", "16"], "poly", [11, 13, 15], 3)
