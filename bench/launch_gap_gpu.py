"""Idle device time between back-to-back kernels on one in-order profiling queue: the floor
under every multi-kernel operation (division launches ~200 kernels per batch).

    python bench/launch_gap_gpu.py [launches] [rounds,rounds,..]   (a GPU: 200 1,1000,20000)
"""
import sys
import time

import numpy as np
import pyopencl as cl

import clbig
from devtools import spin_kernel

ctx = clbig.Context()
count = int(sys.argv[1]) if len(sys.argv) > 1 else 200
spin = spin_kernel(ctx)
buf = cl.Buffer(ctx.cl_context, cl.mem_flags.READ_WRITE, 4 << 20)
for rounds in [int(r) for r in (sys.argv[2] if len(sys.argv) > 2 else "1,1000,20000").split(",")]:
    spin(ctx.queue, (1 << 20,), (256,), buf, np.uint32(rounds)).wait()
    t0 = time.perf_counter()
    evs = [spin(ctx.queue, (1 << 20,), (256,), buf, np.uint32(rounds)) for _ in range(count)]
    t_enq = time.perf_counter() - t0
    ctx.queue.finish()
    busy = sum(e.profile.end - e.profile.start for e in evs) * 1e-6
    span = (evs[-1].profile.end - evs[0].profile.start) * 1e-6
    print(f"{ctx.name}: {count} kernels of {busy / count * 1e3:8.1f} us: span {span:8.2f} ms, busy "
          f"{busy:8.2f} ms, idle {(span - busy) / (count - 1) * 1e3:6.1f} us per boundary; host "
          f"{t_enq / count * 1e6:5.1f} us per launch", flush=True)
