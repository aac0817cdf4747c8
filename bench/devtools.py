"""Helpers shared by the device scripts in bench/ (quick_gpu, sweep_gpu, bw_gpu)."""
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
