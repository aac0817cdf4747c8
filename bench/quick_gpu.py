"""Quick device check: copy bandwidth, then 1-Add, 6-Add, 1-Mul and Poly at full batch with a
gmpy2 spot check of the first instances. The full suite is `python -m clbig.bench`."""
import sys
import numpy as np
import pyopencl as cl
import clbig
from devtools import median_device_seconds, random_batch

ctx = clbig.Context()
print("device", ctx.name, flush=True)
rng = np.random.default_rng(1)
sizes = [int(x) for x in sys.argv[1].split(",")] if len(sys.argv) > 1 else [9, 11, 13, 15, 16, 17, 18]


def rand(n, m):
    return random_batch(ctx, rng, n, m)


def timeit(f, reps=10):
    return median_device_seconds(ctx, f, reps)


nb = 512 << 20
b1 = cl.Buffer(ctx.cl_context, cl.mem_flags.READ_WRITE, nb)
b2 = cl.Buffer(ctx.cl_context, cl.mem_flags.READ_WRITE, nb)
ts = []
for _ in range(10):
    e = cl.enqueue_copy(ctx.queue, b2, b1)
    e.wait()
    ts.append((e.profile.end - e.profile.start) * 1e-9)
bw = 2 * nb / np.median(ts) / 1e9
print(f"copy {bw:.0f} GB/s", flush=True)
del b1, b2
with ctx:
    for lg in sizes:
        bits = 1 << lg
        m, n = bits // 32, (1 << 32) // bits
        a, b = rand(n, m), rand(n, m)
        A, B = a[0:3].tolist(), b[0:3].tolist()
        M = 1 << bits
        ops = [
            ("add", lambda: clbig.add_fixed(a, b)[0], lambda x, y: (x + y) % M),
            ("add6", lambda: clbig.fused.six_add(a, b), lambda x, y: (6 * x + 10 * y) % M),
            ("mul", lambda: clbig.mul_low(a, b), lambda x, y: (x * y) % M),
            ("poly", lambda: clbig.fused.poly(a, b), lambda x, y: ((x * x + y) * (y * y + y) + x * y) % M),
        ]
        for name, f, ref in ops:
            r = f()
            ok = r[0:3].tolist() == [ref(x, y) for x, y in zip(A, B)]
            del r
            t = timeit(f, reps=3 if (lg >= 16 and name in ("mul", "poly")) else 10)
            extra = f"{3 * n * bits / 8 / t / 1e9:6.0f} GB/s {3 * n * bits / 8 / t / 1e9 / bw:5.1%}" if name.startswith("add") else ""
            print(f"2^{lg} {name:5s} {t * 1e6:10.0f} us {extra} {'OK' if ok else 'WRONG'}", flush=True)
        del a, b
