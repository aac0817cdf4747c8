"""Which CPU runtime is the default: the one that finishes a reference job soonest (issue 45).

The pocl extra brings PyPI's PoCL and Intel's CPU runtime, a distribution may add its own PoCL,
and the three differ by machine: on CI's Xeon the demo's products took 5.0 ms on PyPI's PoCL,
2.1 on Debian's and 1.9 on Intel's; on a 2-core EPYC their compilers take 0.6, 0.8 and 0.2 s
for the same small kernel, while the kernel itself runs within 30% on all three. A name says
none of that, so where no GPU compiles clbig measures each CPU runtime whose compiler works
once, on the same reference job, and takes the soonest.

The job is what a user's first minutes are made of: build a kernel (a 1024-bit schoolbook
product per row, from source, no cache), then run it `RUNS` times over `ROWS` rows; the result
of one row is checked against Python's product (a wrong one puts the runtime last). The
measurements are kept in the user cache folder (`cpu-runtimes.json`), keyed by each runtime's
platform, device and driver version, so a machine measures once; `python -m clbig info` prints
them. Ties within `TIE` keep the loader's order.
"""
from __future__ import annotations

import json
import os
import threading
import time

import numpy as np
import pyopencl as cl

from .caches import usable_folder

ROWS = 8192      # rows of the reference product
RUNS = 20        # launches timed after the first
TIE = 0.05       # scores within 5% count as equal: the loader's order decides
FILE = "cpu-runtimes.json"

_SOURCE = r"""
__kernel void reference(__global const uint *a, __global const uint *b, __global uint *c) {
    size_t r = get_global_id(0);
    __global const uint *x = a + r * 32, *y = b + r * 32;
    uint acc[64];
    for (int i = 0; i < 64; i++) acc[i] = 0;
    for (int i = 0; i < 32; i++) {
        ulong carry = 0;
        for (int j = 0; j < 32; j++) {
            ulong t = (ulong)x[i] * y[j] + acc[i + j] + carry;
            acc[i + j] = (uint)t;
            carry = t >> 32;
        }
        acc[i + 32] = (uint)carry;
    }
    for (int i = 0; i < 64; i++) c[r * 64 + i] = acc[i];
}
"""

_lock = threading.Lock()
_memo: dict = {}    # fingerprint -> measurement, this process


def fingerprint(dev: cl.Device) -> str:
    """What names a runtime's measurement: platform, its version, device, driver version."""
    return " | ".join(s.strip() for s in (dev.platform.name, dev.platform.version, dev.name,
                                          dev.driver_version))


def measure(dev: cl.Device) -> dict:
    """{"build_s", "run_s", "score", "exact"} of the reference job on `dev`; score = build +
    RUNS runs, infinite where the build fails or the product is wrong (then "error")."""
    rng = np.random.default_rng(45)
    a = rng.integers(0, 2**32, ROWS * 32, dtype=np.uint32)
    b = rng.integers(0, 2**32, ROWS * 32, dtype=np.uint32)
    try:
        t0 = time.perf_counter()
        ctx = cl.Context([dev])
        # From source every time: past pyopencl's disk cache (the low-level program) and the
        # runtime's own (PoCL's: a source it has not seen), without pyopencl's warning for the
        # compiler's chatter (Intel's runtime prints a few lines on success).
        prg = cl._cl._Program(ctx, f"// {os.getpid()} {time.time_ns()}\n{_SOURCE}")
        prg.build(b"", [dev])
        build = time.perf_counter() - t0
        q = cl.CommandQueue(ctx)
        mf = cl.mem_flags
        A = cl.Buffer(ctx, mf.READ_ONLY | mf.COPY_HOST_PTR, hostbuf=a)
        B = cl.Buffer(ctx, mf.READ_ONLY | mf.COPY_HOST_PTR, hostbuf=b)
        C = cl.Buffer(ctx, mf.WRITE_ONLY, ROWS * 64 * 4)
        k = cl.Kernel(prg, "reference")
        k(q, (ROWS,), None, A, B, C)
        q.finish()
        t1 = time.perf_counter()
        for _ in range(RUNS):
            k(q, (ROWS,), None, A, B, C)
        q.finish()
        run = (time.perf_counter() - t1) / RUNS
        c = np.empty(64 * 3, np.uint32)
        cl.enqueue_copy(q, c, C, src_offset=(ROWS - 3) * 64 * 4)
        q.finish()
    except cl.Error as e:
        return {"build_s": None, "run_s": None, "score": float("inf"), "exact": False,
                "error": str(e).strip().splitlines()[0][:200]}
    last = ROWS - 1
    want = (int.from_bytes(a[last * 32:].tobytes(), "little")
            * int.from_bytes(b[last * 32:].tobytes(), "little"))
    exact = int.from_bytes(c[128:].tobytes(), "little") == want
    return {"build_s": build, "run_s": run, "score": build + RUNS * run if exact else float("inf"),
            "exact": exact}


def _load(path: str) -> dict:
    try:
        with open(path, encoding="utf-8") as f:
            got = json.load(f)
        return got if isinstance(got, dict) else {}
    except (OSError, ValueError):
        return {}   # none yet, unreadable or corrupt: measured again


def _save(path: str, table: dict) -> None:
    folder = os.path.dirname(path)
    if usable_folder(folder) is not None:
        return      # kept for this process only
    tmp = f"{path}.{os.getpid()}.tmp"
    try:
        with open(tmp, "w", encoding="utf-8") as f:
            json.dump(table, f, indent=1, sort_keys=True)
        os.replace(tmp, path)
    except OSError:
        try:
            os.unlink(tmp)
        except OSError:
            pass


def measurements(devs: list, folder: str) -> dict:
    """fingerprint -> measurement for each of `devs`: from this process, else from
    folder/FILE, else measured now (and written there)."""
    path = os.path.join(folder, FILE)
    with _lock:
        want = {fingerprint(d): d for d in devs}
        missing = [k for k in want if k not in _memo]
        if missing:
            stored = _load(path)
            _memo.update({k: v for k, v in stored.items() if k in want and isinstance(v, dict)
                          and isinstance(v.get("score"), (int, float))})
            fresh = {k: measure(want[k]) for k in missing if k not in _memo}
            if fresh:
                _memo.update(fresh)
                _save(path, {**stored, **fresh})
        return {k: _memo[k] for k in want}


def soonest(devs: list, folder: str):
    """The device of `devs` (CPUs whose compiler works) whose runtime finishes the reference
    job soonest; None for none. One device is taken without measuring."""
    if len(devs) <= 1:
        return devs[0] if devs else None
    table = measurements(devs, folder)
    scores = [table[fingerprint(d)]["score"] for d in devs]
    best = min(scores)   # infinite where every one failed: then the first
    return next(d for d, sc in zip(devs, scores) if sc <= best * (1 + TIE))   # loader's order


def known(folder: str) -> dict:
    """The measurements this process or folder/FILE holds (for `clbig info`)."""
    with _lock:
        return {**_load(os.path.join(folder, FILE)), **_memo}
