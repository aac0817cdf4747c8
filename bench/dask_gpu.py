"""clbig.dask against clbig directly: one batch product on one device, both ways.

Direct: limbs in host memory of this process -> clbig.from_limbs (upload) -> clbig.mul ->
to_limbs (download), timed whole ("host to host"), and the product alone on the device.
Dask: the same sizes on a one-worker LocalCluster (one process, one thread), the operands
generated on the worker and persisted there first; each repetition is clbig.dask.mul(a, b)
persisted on the worker (the result stays there, as the operands did), timed from submission
to the last chunk in memory. The worker's task stream splits that into time inside the tasks
(upload, product, download) and the rest (scheduling, Dask's bookkeeping).

The issue's target: the Dask run within 15% of the direct host-to-host one for a 2^32-bit batch
(512 MiB per operand) on the GPU. Measured on an NVIDIA H200 (driver 580.159.04, 2026-11-24),
1048576 products of 4096-bit rows, medians of 9 (the direct run varies by 10-20% from run to
run): one chunk 537 ms against 562 direct (0.96), two chunks 0.85, four 1.18, sixteen 1.42 (about
5 ms of Dask per task, one worker thread running them in turn); low halves of 32768 bits, one
chunk 0.306 against 0.292 s (1.05). The product itself is 6 ms: both ways are host transfers
(pageable memory) and the host's first touch of the result. So: one or two chunks per worker.
Runs on PoCL with small sizes:

    python bench/dask_gpu.py --log2-total 20 --bits 1024            # PoCL, a few seconds
    CLBIG_DEVICE=nvidia python bench/dask_gpu.py                     # 2^32 bits of 4096-bit rows
    python bench/dask_gpu.py --op mul_low --bits 16384 --chunks 4    # low halves, 4 tasks
"""
from __future__ import annotations

import argparse
import logging
import os
import statistics
import time

import gmpy2
import numpy as np

import clbig


def median_time(f, reps):
    ts = []
    for _ in range(reps):
        t0 = time.perf_counter()
        f()
        ts.append(time.perf_counter() - t0)
    return statistics.median(ts), min(ts)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--log2-total", type=int, default=None,
                    help="bits per operand batch, log2 (default 32 on a GPU, 20 elsewhere)")
    ap.add_argument("--bits", type=int, default=4096, help="bits per element (default 4096)")
    ap.add_argument("--op", choices=("mul", "mul_low"), default="mul",
                    help="full product (default) or low half mod 2^bits")
    ap.add_argument("--chunks", type=int, default=1, help="row chunks of the Dask arrays (default 1)")
    ap.add_argument("--reps", type=int, default=7)
    ap.add_argument("--device", default=None, help="clbig device selector (default CLBIG_DEVICE, else clbig's default)")
    args = ap.parse_args()
    if args.device is not None:
        os.environ["CLBIG_DEVICE"] = args.device   # the worker reads it too
    ctx = clbig.Context()
    gpu = ctx.device.type & 4   # CL_DEVICE_TYPE_GPU
    k = args.log2_total if args.log2_total is not None else (32 if gpu else 20)
    bits, m = args.bits, -(-args.bits // 32)
    n = max(1, (1 << k) // bits)
    rows = -(-n // args.chunks)
    low = args.op == "mul_low"
    print(f"device: {ctx.name}; {args.op} of a batch of 2^{k} bits per operand: {n} rows of {bits} "
          f"bits, {args.chunks} chunk(s) of up to {rows} rows", flush=True)

    # -- clbig directly, in this process ----------------------------------------------------
    rng = np.random.default_rng(1)
    ha = rng.integers(0, 1 << 32, size=(n, m), dtype=np.uint32)
    hb = rng.integers(0, 1 << 32, size=(n, m), dtype=np.uint32)

    def direct():
        with ctx:
            a, b = clbig.from_limbs(ha, bits=bits), clbig.from_limbs(hb, bits=bits)
            p = clbig.mul_low(a, b, bits=bits) if low else clbig.mul(a, b)
            return p.to_limbs()

    got = direct()   # warm-up: kernels built, the pool filled
    ints = lambda L, i: int.from_bytes(L[i].tobytes(), "little")  # noqa: E731
    for i in (0, n - 1):
        want = gmpy2.mpz(ints(ha, i)) * ints(hb, i)
        assert ints(got, i) == (want % (1 << bits) if low else want), f"direct: row {i} wrong"
    del got
    with ctx:
        da_, db_ = clbig.from_limbs(ha, bits=bits), clbig.from_limbs(hb, bits=bits)

        def on_device():
            p = clbig.mul_low(da_, db_, bits=bits) if low else clbig.mul(da_, db_)
            ctx.finish()
            return p
        t_dev, _ = median_time(on_device, args.reps)
        del da_, db_
    t_direct, t_direct_min = median_time(direct, args.reps)
    print(f"direct: host to host {t_direct * 1e3:9.2f} ms (min {t_direct_min * 1e3:.2f}); "
          f"product alone on the device {t_dev * 1e3:.2f} ms", flush=True)
    del ha, hb

    # -- clbig.dask on a one-worker LocalCluster -------------------------------------------
    import dask
    import dask.array as dask_array
    import distributed

    import clbig.dask as cd
    cluster = distributed.LocalCluster(n_workers=1, threads_per_worker=1, processes=True,
                                       dashboard_address=None, memory_limit=0,
                                       silence_logs=logging.ERROR)
    client = distributed.Client(cluster)
    try:
        print("worker device:", list(cd.worker_devices(client).values())[0], flush=True)
        gen = dask_array.random.default_rng(2)
        a = cd.from_limbs(gen.integers(0, 1 << 32, size=(n, m), dtype=np.uint32, chunks=(rows, m)),
                          bits=bits).persist()
        b = cd.from_limbs(gen.integers(0, 1 << 32, size=(n, m), dtype=np.uint32, chunks=(rows, m)),
                          bits=bits).persist()
        distributed.wait([a.limbs, b.limbs])

        def on_dask():
            p = (cd.mul_low(a, b, bits=bits) if low else cd.mul(a, b)).persist()
            distributed.wait(p.limbs)
            return p

        def forget(keys):
            """Wait until the scheduler has forgotten a dropped result's keys: the next
            repetition builds the same keys, which must be computed again, not found."""
            deadline = time.monotonic() + 60
            while client.run_on_scheduler(
                    lambda dask_scheduler: any(str(k) in keys for k in dask_scheduler.tasks)):
                assert time.monotonic() < deadline, "the scheduler keeps the result's keys"
                time.sleep(0.01)

        def keys_of(p):
            return {str(k) for k in dask.core.flatten(p.limbs.__dask_keys__())}

        p = on_dask()   # warm-up on the worker: its device opened, kernels built
        la, lb, lp = (x[[0, n - 1]].compute() for x in (a.limbs, b.limbs, p.limbs))
        for j in (0, 1):
            want = gmpy2.mpz(ints(la, j)) * ints(lb, j)
            assert ints(lp, j) == (want % (1 << bits) if low else want), f"dask: row {j} wrong"
        keys = keys_of(p)
        del p, lp
        forget(keys)
        times, inside = [], []
        for _ in range(args.reps):
            with distributed.get_task_stream(client) as ts:
                t0 = time.perf_counter()
                p = on_dask()
                times.append(time.perf_counter() - t0)
            tasks = [t for t in ts.data if "clbig-" in str(t["key"])]
            assert len(tasks) == args.chunks, f"{len(tasks)} product tasks ran, not {args.chunks}"
            inside.append(sum(s["stop"] - s["start"] for t in tasks for s in t["startstops"]
                              if s["action"] == "compute"))
            keys = keys_of(p)
            del p
            forget(keys)
        t_dask, t_dask_min = statistics.median(times), min(times)
    finally:
        client.close()
        cluster.close()
    print(f"dask:   submit to persisted {t_dask * 1e3:9.2f} ms (min {t_dask_min * 1e3:.2f}); "
          f"inside the {args.chunks} task(s) {statistics.median(inside) * 1e3:.2f} ms", flush=True)
    print(f"dask / direct host to host: {t_dask / t_direct:.3f} (target <= 1.15)", flush=True)


if __name__ == "__main__":
    main()
