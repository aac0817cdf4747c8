"""32- against 64-bit limbs for the products' inner loop: the time of one multiply-accumulate
step (a limb product added into a column sum with its carry) on each width, over a register-
resident loop, so only the arithmetic counts. A 64-bit product does the work of four 32-bit
ones: 64-bit limbs pay where a 64-bit step costs under 4x a 32-bit step.

    python bench/limb64_gpu.py [--device SEL]
"""
import argparse

import numpy as np
import pyopencl as cl
import pyopencl.array  # noqa: F401  (cl.array)

import clbig

SRC = """
__kernel void mac32(__global const uint *x, __global ulong *out, uint iters)
{
    uint a = x[get_global_id(0) & 1023u], b = a ^ 0x9E3779B9u, lo = 0;
    ulong hi = 0;
    for (uint i = 0; i < iters; i++) {
        #pragma unroll 8
        for (uint u = 0; u < 8u; u++) {
            ulong t = (ulong)a * b + lo; lo = (uint)t; hi += t >> 32;
            b = b * 1664525u + 1013904223u;
        }
    }
    out[get_global_id(0)] = hi ^ lo;
}
__kernel void mac64(__global const uint *x, __global ulong *out, uint iters)
{
    ulong a = x[get_global_id(0) & 1023u] * 0x9E3779B97F4A7C15ul, b = a ^ 0xD1B54A32D192ED03ul;
    ulong c0 = 0, c1 = 0, c2 = 0;
    for (uint i = 0; i < iters; i++) {
        #pragma unroll 8
        for (uint u = 0; u < 8u; u++) {
            ulong l = a * b, h = mul_hi(a, b);
            c0 += l; h += c0 < l; c1 += h; c2 += c1 < h;
            b = b * 6364136223846793005ul + 1442695040888963407ul;
        }
    }
    out[get_global_id(0)] = c0 ^ c1 ^ c2;
}
"""

ap = argparse.ArgumentParser()
ap.add_argument("--device", default=None)
ap.add_argument("--iters", type=int, default=256)
args = ap.parse_args()
ctx = clbig.Context(args.device)
prg = cl.Program(ctx.cl_context, SRC).build()
units = ctx.device.max_compute_units
items = units * 2048 if ctx.device.type & cl.device_type.GPU else units * 256
x = cl.array.to_device(ctx.queue, np.arange(1024, dtype=np.uint32))
out = cl.array.empty(ctx.queue, items, np.uint64)
print(ctx.name, f"{items} work-items x {args.iters * 8} steps")
res = {}
for name in ("mac32", "mac64"):
    k = getattr(prg, name)
    ts = []
    for rep in range(6):
        ev = k(ctx.queue, (items,), (64,), x.data, out.data, np.uint32(args.iters))
        ev.wait()
        if rep:
            ts.append((ev.profile.end - ev.profile.start) * 1e-9)
    t = float(np.median(ts))
    res[name] = t / (items * args.iters * 8)
    print(f"{name}: {t * 1e3:8.3f} ms, {res[name] * 1e12:8.3f} ps per step")
r = res["mac64"] / res["mac32"]
print(f"64-bit step / 32-bit step = {r:.2f} (64-bit limbs pay below 4): "
      f"{'64' if r < 4 else '32'}-bit limbs are faster for products on this device")
