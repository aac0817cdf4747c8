# Helpers of the probes in this folder (random batches, device-time medians, a per-kernel launch spy).
"""Helpers shared by the probes in bench/probes/ (run each as `python bench/probes/<name>.py`:
its folder is then on sys.path, so `from devtools import ...` finds this module)."""
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

