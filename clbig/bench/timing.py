"""Timing for clbig.bench: device times from profiling events with spot checks against gmpy2,
the device's copy bandwidth, and the gmpy2 column on the host."""
from __future__ import annotations

import gc
import statistics
import time
from typing import Optional

import gmpy2
import numpy as np
import pyopencl as cl

import clbig
from clbig.mpz.array import limbs_to_ints
from clbig.mpz.types import MPZ

from .inputs import LOG2_BATCH_BITS
from .specs import Mismatch, OpSpec

DEFAULT_REPS = 20
CHECK_FIRST = 3  # spot-check instances 0..2 and the last one
#: gmpy2 column: host seconds spent per op and size at most (about), and the largest sample
#: (in bits per operand, summed over the instances) converted to mpz for it.
GMPY2_SECONDS = 0.5
GMPY2_SAMPLE_BITS = 1 << 26


# -- timing ---------------------------------------------------------------------------------
def copy_bandwidth(ctx, nbytes: int, reps: int = DEFAULT_REPS) -> dict:
    """Device-to-device buffer copy, timed by profiling events; bytes read + written."""
    with clbig.profile():   # the context's profiling queue
        q = ctx.queue
    mf = cl.mem_flags
    src = cl.Buffer(ctx.cl_context, mf.READ_WRITE, nbytes)
    dst = cl.Buffer(ctx.cl_context, mf.READ_WRITE, nbytes)
    try:
        cl.enqueue_fill_buffer(q, src, np.uint32(0x9E3779B9), 0, nbytes).wait()
        for _ in range(2):
            cl.enqueue_copy(q, dst, src).wait()
        times = []
        for _ in range(reps):
            ev = cl.enqueue_copy(q, dst, src)
            ev.wait()
            times.append((ev.profile.end - ev.profile.start) * 1e-9)
        probe = np.empty(4, np.uint32)
        cl.enqueue_copy(q, probe, dst, src_offset=nbytes - 16).wait()
        if not (probe == np.uint32(0x9E3779B9)).all():
            raise RuntimeError(f"device copy check failed: read back {probe}")
    finally:
        src.release()
        dst.release()
    med = statistics.median(times)
    return {"bytes": nbytes, "bytes_moved": 2 * nbytes, "reps": len(times), "seconds": med,
            "us": med * 1e6, "GBps": 2 * nbytes / med / 1e9, "GBps_best": 2 * nbytes / min(times) / 1e9,
            "method": "pyopencl enqueue_copy buffer->buffer, profiling events, median"}


def _timed(ctx, fn, a, b, bits):
    """One launch of fn; (result, device seconds, kernels, timer)."""
    t0 = time.perf_counter()
    with clbig.profile() as p:
        r = fn(a, b, bits)
    if p.kernels:
        return r, p.seconds, p.kernels, "events"
    ctx.finish()  # the op launched nothing clbig records: fall back to host wall time
    return r, time.perf_counter() - t0, 0, "wall"


def _parts(r) -> tuple:
    """An op's result as a tuple: (array,), (sum, carry) for add_fixed, (q, r) for divmod."""
    return r if isinstance(r, tuple) else (r,)


def _short(v) -> str:
    h = format(int(v), "x")
    return h if len(h) <= 40 else f"{h[:16]}…{h[-16:]} ({int(v).bit_length()} bits)"


def _compare(spec: OpSpec, got: tuple, x, y, bits: int, where: str) -> None:
    """got: the op's parts for one instance (ints); compares each with gmpy2's result."""
    want = spec.reference(x, y, bits)
    wants = want if isinstance(want, tuple) else (want,)
    for j, w in enumerate(wants[:len(got)]):  # a divmod that gives only the quotient: check that
        g = gmpy2.mpz(got[j])
        if g != w:
            part = spec.parts[j] if len(wants) > 1 and j < len(spec.parts) else "result"
            raise Mismatch(
                f"{spec.label} ({spec.call}) at {bits} bits, {where}: wrong {part}\n"
                f"  a    = {_short(x)}\n  b    = {_short(y)}\n"
                f"  got  = {_short(g)}\n  want = {_short(w)}\n"
                f"  lowest differing bit: {int(gmpy2.bit_scan1(g ^ w))}")


def spot_check(spec: OpSpec, r, host_a, host_b, bits: int, n: int) -> list:
    parts = _parts(r)
    arr = parts[0]
    if len(arr) != n:
        raise Mismatch(f"{spec.label} at {bits} bits: result holds {len(arr)} instances, expected {n}")
    idx = sorted({i for i in range(min(CHECK_FIRST, n))} | {n - 1})
    av = limbs_to_ints(host_a[idx])
    bv = limbs_to_ints(host_b[idx])
    arrays = [p for p in parts if hasattr(p, "tolist") and not isinstance(p, np.ndarray)]
    for i, x, y in zip(idx, av, bv):
        x, y = gmpy2.mpz(x), gmpy2.mpz(y)
        _compare(spec, tuple(p[i] for p in arrays), x, y, bits, f"instance {i} of {n}")
        why = spec.extra_check(parts, i, x, y, bits) if spec.extra_check and len(parts) > 1 else None
        if why:
            raise Mismatch(why)
    return idx


def measure(ctx, spec: OpSpec, fn, a, b, bits: int, n: int, host_a, host_b, *, reps: int,
            max_op_seconds: Optional[float], deadline: float, check: bool) -> dict:
    """Warm-up (compiles; spot-checked), then `reps` launches; median device time."""
    w0 = time.perf_counter()
    r, t, kernels, timer = _timed(ctx, fn, a, b, bits)
    warm_wall = time.perf_counter() - w0
    checked = spot_check(spec, r, host_a, host_b, bits, n) if check else []
    out_bits = getattr(_parts(r)[0], "bits", None)
    del r
    times, note = _repeat(lambda: _timed(ctx, fn, a, b, bits)[1], t, reps, max_op_seconds, deadline)
    med = statistics.median(times)
    return {"seconds": med, "us": med * 1e6, "us_min": min(times) * 1e6, "us_max": max(times) * 1e6,
            "reps": len(times), "kernels": kernels, "timer": timer, "warmup_wall_s": warm_wall,
            "checked": checked, "out_bits": out_bits, "note": note}


def _repeat(once, t_first: float, reps: int, max_op_seconds, deadline: float):
    """Up to `reps` timings of once() (returns seconds), fewer under --max-op-seconds or when
    the budget runs out (at least 3 then)."""
    want, note = reps, ""
    if max_op_seconds and t_first * reps > max_op_seconds:
        want = max(5, int(max_op_seconds / max(t_first, 1e-9)))
        if want < reps:
            note = f"reps cut to {want} (--max-op-seconds {max_op_seconds:g})"
        want = min(want, reps)
    times = []
    for _ in range(want):
        if len(times) >= 3 and time.monotonic() > deadline:
            note = f"budget ran out after {len(times)} reps"
            break
        times.append(once())
    return times, note


# -- single huge product / division ----------------------------------------------------------------
def _as_int(v) -> int:
    if isinstance(v, (int, MPZ)):
        return int(v)
    return int(v[0])  # a BigIntArray of one


def measure_huge(ctx, spec: OpSpec, fn, x: int, y: int, bits: int, *, reps: int,
                 max_op_seconds: Optional[float], deadline: float, check: bool) -> dict:
    """One op on two Python ints, end to end: device time (kernels) and wall time (the call, from
    Python ints to Python ints: conversion, transfers, kernels and read-back)."""
    returns = []

    def once():
        t0 = time.perf_counter()
        with ctx, clbig.profile() as p:
            r = fn(x, y, bits)
            vals = tuple(_as_int(v) for v in _parts(r))
        wall = time.perf_counter() - t0
        if not returns:
            returns.append(" and ".join(type(v).__name__ for v in _parts(r)))
        del r
        return vals, (p.seconds if p.kernels else wall), wall, p.kernels

    vals, t, w, kernels = once()
    warm_wall = w
    if check:
        _compare(spec, vals, gmpy2.mpz(x), gmpy2.mpz(y), bits, "single instance")
    del vals
    walls = []

    def timed():
        _, dev, wall, _k = once()
        walls.append(wall)
        return dev

    times, note = _repeat(timed, t, reps, max_op_seconds, deadline)
    med = statistics.median(times)
    return {"seconds": med, "us": med * 1e6, "us_min": min(times) * 1e6, "us_max": max(times) * 1e6,
            "wall_us": statistics.median(walls) * 1e6, "reps": len(times), "kernels": kernels,
            "timer": "events" if kernels else "wall", "warmup_wall_s": warm_wall,
            "checked": [0] if check else [], "returns": returns[0] if returns else "?", "note": note}


# -- the gmpy2 column ---------------------------------------------------------------------------
_HOST_CACHE: dict = {}  # (op, bits, n, seed) -> gmpy2 timing, shared by the devices of one process


def _host_pass(spec: OpSpec, A, B, M, bits) -> float:
    enabled = gc.isenabled()
    gc.disable()
    try:
        t0 = time.perf_counter()
        out = spec.host(A, B, M, bits)
        t = time.perf_counter() - t0
    finally:
        if enabled:
            gc.enable()
    del out
    return t


def time_gmpy2(spec: OpSpec, A: list, B: list, n: int, bits: int, budget: float) -> dict:
    """gmpy2's time for the op on the whole batch of n, on one host thread, operands and results
    as mpz (no conversion timed). On all n instances when the sample A, B holds them all and one
    pass fits the budget; else on the first k (k growing 4x from 16 until a pass takes an eighth
    of the budget), scaled up by n/k. Median of up to 5 passes within about `budget` seconds."""
    M = gmpy2.mpz((1 << bits) - 1) if not spec.huge else None
    kmax = min(n, len(A))
    k = min(kmax, 16)
    while True:
        t = _host_pass(spec, A[:k], B[:k], M, bits)
        if k >= kmax or t >= budget / 8:
            break
        k = min(kmax, k * 4)
    times = [t]
    while len(times) < 5 and sum(times) + t <= budget:
        times.append(_host_pass(spec, A[:k], B[:k], M, bits))
    med = statistics.median(times)
    return {"gmpy2_us": med * n / k * 1e6, "gmpy2_sample": k, "gmpy2_reps": len(times),
            "gmpy2_scaled": k < n}


def derived(spec: OpSpec, rec: dict) -> None:
    """Throughput figures of a measured record, in place."""
    s, n, bits = rec["seconds"], rec["n"], rec["bits"]
    m = bits // 32
    rec["us_per_2^32_bits"] = rec["us"] * (1 << LOG2_BATCH_BITS) / (n * bits)
    if spec.kind == "bandwidth":
        rec["bytes"] = 3 * n * bits // 8
        rec["GBps"] = rec["bytes"] / s / 1e9
    if spec.kind == "mul":
        rec["u32ops"] = n * m * m
        rec["Gu32ops"] = rec["u32ops"] / s / 1e9
    if rec.get("gmpy2_us"):
        rec["speedup_gmpy2"] = rec["gmpy2_us"] / rec["us"]
        if rec.get("wall_us"):
            rec["speedup_gmpy2_wall"] = rec["gmpy2_us"] / rec["wall_us"]

