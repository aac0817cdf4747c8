"""What bandwidth can a three-stream kernel (two reads, one write) reach on this device?
Times pyopencl's elementwise uint32 z = x + y (no carries: an upper bound for 1-Add) beside
clbig's add with and without the carry flag, on 512 MiB operands."""
import numpy as np
import pyopencl.array as cla
from pyopencl.elementwise import ElementwiseKernel

import clbig
from devtools import median_device_seconds
from clbig.mpn import add_n

ctx = clbig.Context()
q = ctx.queue
import sys
n_words = 1 << int(sys.argv[1]) if len(sys.argv) > 1 else 1 << 27
x = cla.to_device(q, np.random.default_rng(0).integers(0, 2**32, n_words, dtype=np.uint32))
y = cla.to_device(q, np.random.default_rng(1).integers(0, 2**32, n_words, dtype=np.uint32))


def med(f, reps=20):
    return median_device_seconds(ctx, f, reps)


ew = ElementwiseKernel(ctx.cl_context, "uint *z, const uint *x, const uint *y", "z[i] = x[i] + y[i]")
z = cla.empty_like(x)
ts = []
for _ in range(21):
    ev = ew(z, x, y)
    ev.wait()
    ts.append((ev.profile.end - ev.profile.start) * 1e-9)
t = float(np.median(ts[1:]))
print(f"pyopencl x+y (uint32, no carry): {t*1e6:8.0f} us {3*4*n_words/t/1e9:6.0f} GB/s", flush=True)
del z
for lg in (9, 13, 15):
    m = (1 << lg) // 32
    n = n_words // m
    for flag in (True, False):
        t = med(lambda: add_n.addsub(ctx, "add", x.data, m, m, y.data, m, m, n, m * 32, want_flag=flag))
        print(f"clbig add 2^{lg} flag={flag}: {t*1e6:8.0f} us {3*4*n_words/t/1e9:6.0f} GB/s", flush=True)
