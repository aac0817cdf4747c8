"""Helpers shared by the device scripts in bench/ (quick_gpu, sweep_gpu, bw_gpu, the profiles)."""
import sys
import time

import numpy as np

import clbig


def random_batch(ctx, rng, n: int, m: int) -> clbig.BigIntArray:
    """n random integers of m full limbs, made on the host with numpy."""
    return clbig.from_limbs(rng.integers(0, 2**32, size=(n, m), dtype=np.uint32), ctx=ctx)


def median_device_seconds(ctx, f, reps: int = 10) -> float:
    """Median device time of f() over reps runs after one warm-up (OpenCL profiling events)."""
    f()
    ctx.finish()
    ts = []
    for _ in range(reps):
        with clbig.profile() as p:
            r = f()
        if p.events:
            ts.append(p.seconds)
        del r
    return float(np.median(ts)) if ts else float("nan")


HOST: list = []   # (perf_counter before, after) of each launch named_launches recorded
GEOM: list = []   # (kernel, groups, work-group size) of each launch named_launches recorded


def named_launches() -> list:
    """From now on every kernel clbig launches is appended to the returned list as
    (kernel name, event): the per-kernel view of the profile scripts."""
    import clbig.runtime.render as R
    named, launch = [], R.launch

    def spy(ctx_, k, *a, **kw):
        t = time.perf_counter()
        e = launch(ctx_, k, *a, **kw)
        named.append((k.function_name, e))
        HOST.append((t, time.perf_counter()))
        GEOM.append((k, a[0] if a else None, a[1] if len(a) > 1 else None))
        return e
    for mod in list(sys.modules.values()):
        if getattr(mod, "launch", None) is launch and mod.__name__.startswith("clbig"):
            mod.launch = spy
    return named


def per_kernel_ms(named) -> tuple[dict, dict]:
    """({kernel name: device ms}, {kernel name: launches}) of named_launches' records."""
    per, cnt = {}, {}
    for name, e in named:
        per[name] = per.get(name, 0) + (e.profile.end - e.profile.start) * 1e-6
        cnt[name] = cnt.get(name, 0) + 1
    return per, cnt


def kernel_params(ctx, k) -> dict:
    """The template parameters a kernel of this context was built with (clbig.render's key)."""
    for (template, name, params), kk in ctx._programs.items():
        if kk is k:
            return dict(params, _template=template)
    return {}


def spin_kernel(ctx):
    """spin(queue, (items,), (wg,), buf, np.uint32(rounds)): keeps the device busy for a time
    set by `rounds` (a multiply-add chain per item over buf's words); for timing the host."""
    import pyopencl as cl
    prg = cl.Program(ctx.cl_context, """
    __kernel void spin(__global uint *x, uint rounds) {
        uint v = x[get_global_id(0)];
        for (uint i = 0; i < rounds; i++) v = v * 1664525u + 1013904223u;
        x[get_global_id(0)] = v;
    }""").build()
    return cl.Kernel(prg, "spin")
