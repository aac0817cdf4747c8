"""Which host calls wait for the device: each is timed while a ~50 ms kernel runs. A call that
takes about as long as the kernel blocks until the queue drains (the device then idles while
the host catches up), which multi-kernel operations must avoid in their inner loops."""
import time

import numpy as np
import pyopencl as cl
import pyopencl.array as cla

import clbig
from devtools import spin_kernel

ctx = clbig.Context()
spin = spin_kernel(ctx)
buf = cl.Buffer(ctx.cl_context, cl.mem_flags.READ_WRITE, 4 << 20)
rounds = 1000
while True:   # about 50 ms of device time
    e = spin(ctx.queue, (1 << 20,), (256,), buf, np.uint32(rounds))
    e.wait()
    t = (e.profile.end - e.profile.start) * 1e-9
    if t > 0.04:
        break
    rounds = int(rounds * min(100, 0.05 / max(t, 1e-6)))
print(f"{ctx.name}: spin kernel {t * 1e3:.1f} ms", flush=True)
pool_arr = cla.empty(ctx.queue, 1 << 24, np.uint32, allocator=ctx.allocator)
del pool_arr   # now held by the pool


def busy_then(what, f):
    spin(ctx.queue, (1 << 20,), (256,), buf, np.uint32(rounds))
    t0 = time.perf_counter()
    f()
    dt = time.perf_counter() - t0
    ctx.queue.finish()
    print(f"  {what:60s} {dt * 1e3:8.3f} ms", flush=True)


busy_then("nothing", lambda: None)
busy_then("device.max_mem_alloc_size", lambda: ctx.device.max_mem_alloc_size)
busy_then("device.global_mem_size", lambda: ctx.device.global_mem_size)
busy_then("device.max_compute_units", lambda: ctx.device.max_compute_units)
busy_then("pool alloc, held size (64 MiB)", lambda: cla.empty(ctx.queue, 1 << 24, np.uint32, allocator=ctx.allocator))
sizes = iter(range(1, 100))
busy_then("pool alloc, new size (~8 MiB)", lambda: cla.empty(ctx.queue, (1 << 21) + 4096 * next(sizes), np.uint32, allocator=ctx.allocator))
busy_then("plain cl.Buffer 8 MiB", lambda: cl.Buffer(ctx.cl_context, cl.mem_flags.READ_WRITE, 8 << 20))
keep = [cla.empty(ctx.queue, 1 << 21, np.uint32, allocator=ctx.allocator)]
busy_then("pool free (a held-size block back to the pool)", lambda: keep.pop())
keep = [cl.Buffer(ctx.cl_context, cl.mem_flags.READ_WRITE, 8 << 20)]
busy_then("release a plain cl.Buffer", lambda: keep.pop())
used = cla.empty(ctx.queue, 1 << 20, np.uint32, allocator=ctx.allocator)


def free_in_use():
    global used
    spin(ctx.queue, (1 << 20,), (256,), used.data, np.uint32(1))
    used = None
busy_then("pool free of a block a queued kernel still uses", free_in_use)
plain = cl.Buffer(ctx.cl_context, cl.mem_flags.READ_WRITE, 4 << 20)


def release_in_use():
    global plain
    spin(ctx.queue, (1 << 20,), (256,), plain, np.uint32(1))
    plain = None
busy_then("release a plain cl.Buffer a queued kernel still uses", release_in_use)
busy_then("clbig.array of 3 small ints (upload)", lambda: clbig.array([1, 2, 3], ctx=ctx))
busy_then("cla.to_device 4 KiB", lambda: cla.to_device(ctx.queue, np.zeros(1024, np.uint32), allocator=ctx.allocator))
x = cla.empty(ctx.queue, 1 << 10, np.uint32, allocator=ctx.allocator)
busy_then("kernel launch (spin on a pooled array)", lambda: spin(ctx.queue, (1 << 10,), (256,), x.data, np.uint32(1)))
