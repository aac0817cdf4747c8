"""Measurement for `python -m clbig.bench`: inputs, the ops, device timing, copy bandwidth and
spot checks against gmpy2. Formatting and targets live in clbig.bench.report."""
from __future__ import annotations

import dataclasses
import gc
import importlib
import os
import platform
import statistics
import subprocess
import sys
import time
from dataclasses import dataclass
from datetime import datetime, timezone
from typing import Callable, Optional

import gmpy2
import numpy as np
import pyopencl as cl

import clbig
from clbig.array import limbs_to_ints
from . import modular

#: Every operand of a full-size batch holds 2**32 bits (512 MiB), whatever the size.
LOG2_BATCH_BITS = 32
DEFAULT_SIZES = tuple(range(9, 19))  # log2(bits): 512 .. 262144 bits
QUICK_SIZES = (9, 13, 17)  # --quick: few sizes, as each costs seconds of kernel builds on PoCL
DEFAULT_HUGE_SIZES = (20, 22, 24, 26)  # single huge product / division: log2(bits) per operand
QUICK_HUGE_SIZES = (13, 17, 20)  # 2^13: Huge-Div shares Div's kernels at 2^13
DEFAULT_REPS = 20
CHECK_FIRST = 3  # spot-check instances 0..2 and the last one
#: gmpy2 column: host seconds spent per op and size at most (about), and the largest sample
#: (in bits per operand, summed over the instances) converted to mpz for it.
GMPY2_SECONDS = 0.5
GMPY2_SAMPLE_BITS = 1 << 26
DIV_RESERVE_S = 30.0  # see OpSpec.reserve_s

# -- the papers' reference numbers ---------------------------------------------------------
#: µs per batch of 2**32 bits per operand, NVIDIA H100, CUDA, 2026-11-22. Keys: log2(bits).
#: "fails" = that implementation fails at that size; absent = not measured.
REFERENCES = {
    "source": "papers' tables, NVIDIA H100, CUDA, 2026-11-22",
    "unit": "us per batch of 2^32 bits per operand",
    "device_match": "H100",
    "add": {"proto": {9: 527, 11: 528, 13: 528, 15: 528, 16: 527, 17: 524},
            "cgbn": {11: 861, 13: 901, 15: 2993, 17: "fails"}},
    "add6": {"proto": {9: 1007, 11: 1004, 13: 1010, 15: 1008, 16: 1008, 17: 1079}},
    "mul": {"proto": {9: 1244, 11: 1825, 13: 5957, 15: 17070, 16: 32068, 17: 62052},
            "cgbn": {11: 1298, 13: 4990, 15: 19297, 17: "fails"}},
    "poly": {"proto": {9: 4662, 11: 9204, 13: 26225, 15: 72775, 16: 135467, 17: 266626},
             "cgbn": {11: 5345, 13: 20078, 15: 73015}},
    # dividend of the full size, divisor of about half (issue 4); CGBN cannot divide at 2^16+
    "div": {"proto": {10: 492064, 11: 295362, 12: 165506, 13: 81113, 14: 126331, 15: 137980,
                      16: 207906, 17: 387387},
            "cgbn": {11: 4436, 13: 7899, 15: 24493, 16: "fails", 17: "fails"}},
}


REFERENCES["mulc"] = REFERENCES["mul"]   # 1-Mul classical is judged as 1-Mul


def ref_value(op: str, impl: str, log2_bits) -> object:
    """The reference µs (int), "fails", or None where the papers give none."""
    if log2_bits is None:
        return None
    return REFERENCES.get(op, {}).get(impl, {}).get(int(log2_bits))


# -- the ops ---------------------------------------------------------------------------------
class Mismatch(AssertionError):
    """A benchmarked op returned a wrong value: the benchmark stops (results would be void)."""


def _resolve_add():
    return (lambda a, b, bits: clbig.add_fixed(a, b, bits)), ""


def _resolve_mul(**kw):
    def resolve():
        fn = getattr(clbig, "mul_low", None)
        if fn is None:
            ops = importlib.import_module("clbig.ops")
            fn = getattr(ops, "mul_low", None)
        if fn is None:
            return None, "clbig.mul_low does not exist (yet)"
        return (lambda a, b, bits: fn(a, b, **kw)), ""
    return resolve


def _resolve_fused(name: str, **kw):
    def resolve():
        try:
            mod = importlib.import_module("clbig.fused")
        except ModuleNotFoundError as e:
            if e.name == "clbig.fused":
                return None, "clbig.fused does not exist (yet)"
            raise
        fn = getattr(mod, name, None)
        if fn is None:
            return None, f"clbig.fused.{name} does not exist (yet)"
        return (lambda a, b, bits: fn(a, b, **kw)), ""
    return resolve


def _resolve_divmod():
    # Division is being written (issue 4): measured once clbig.divmod exists, n/a until then.
    fn = getattr(clbig, "divmod", None)
    if fn is None:
        return None, "clbig.divmod does not exist (yet)"
    return (lambda a, b, bits: fn(a, b)), ""


def _resolve_huge_mul():
    fn = getattr(clbig, "mul", None)
    if fn is None:
        return None, "clbig.mul does not exist (yet)"
    return (lambda x, y, bits: fn(x, y)), ""


@dataclass(frozen=True)
class OpSpec:
    key: str
    label: str
    call: str  # what it runs, for the report
    resolve: Callable[[], tuple]  # -> (fn(a, b, bits) or None, reason)
    reference: Callable  # (a, b, bits) -> the exact result (gmpy2), or a tuple of results
    kind: str  # "bandwidth" (GB/s over 3*n*bits/8 bytes), "mul" (u32ops), "time" or "huge"
    host: Callable  # (A, B, mask, bits) -> results: the same op in gmpy2, timed for the gmpy2 column
    host_call: str  # the gmpy2 expression, for the report
    divisor: bool = False  # b has half of a's bits (and is not zero): division's operand shape
    #: Under a --budget, start this op only with this many seconds left (twice that above 2^13
    #: bits): its first kernel builds at a new width can take that long on a CPU device (PoCL
    #: builds division's in 30-60 s per width, more at larger widths).
    reserve_s: float = 0.0

    def reserve(self, bits: int) -> float:
        return self.reserve_s * (2 if bits > (1 << 13) else 1)

    @property
    def huge(self) -> bool:
        """One instance given as Python ints (single huge product / division)."""
        return self.kind == "huge"


def _mod(bits):
    return gmpy2.mpz(1) << bits


_f_divmod = gmpy2.f_divmod

_MUL = OpSpec("mul", "1-Mul", "clbig.mul_low(a, b)", _resolve_mul(),
              lambda a, b, bits: (a * b) % _mod(bits), "mul",
              lambda A, B, M, bits: [(x * y) & M for x, y in zip(A, B)],
              "(x * y) & (2^bits - 1) (GMP has no low-half product: the full one, masked)")

OPS = {
    "add": OpSpec("add", "1-Add", "clbig.add_fixed(a, b, bits)", _resolve_add,
                  lambda a, b, bits: (a + b) % _mod(bits), "bandwidth",
                  lambda A, B, M, bits: [(x + y) & M for x, y in zip(A, B)], "(x + y) & (2^bits - 1)"),
    "add6": OpSpec("add6", "6-Add", "clbig.fused.six_add(a, b)", _resolve_fused("six_add"),
                   lambda a, b, bits: (6 * a + 10 * b) % _mod(bits), "bandwidth",
                   lambda A, B, M, bits: [(6 * x + 10 * y) & M for x, y in zip(A, B)],
                   "(6*x + 10*y) & (2^bits - 1)"),
    "mul": _MUL,
    # the 1-Mul targets are for the classical product: measured apart from auto's
    # choice (the NTT from 2^15 bits), as 1-Mul in every other respect
    "mulc": dataclasses.replace(_MUL, key="mulc", label="1-Mul classical",
                                call='clbig.mul_low(a, b, algorithm="classical")',
                                resolve=_resolve_mul(algorithm="classical")),
    # The papers' Poly is one kernel: fused=True (auto would take four NTT products from 2^15 bits)
    "poly": OpSpec("poly", "Poly", "clbig.fused.poly(a, b, fused=True)", _resolve_fused("poly", fused=True),
                   lambda a, b, bits: ((a * a + b) * (b * b + b) + a * b) % _mod(bits), "time",
                   lambda A, B, M, bits: [((x * x + y) * (y * y + y) + x * y) & M for x, y in zip(A, B)],
                   "((x*x + y)*(y*y + y) + x*y) & (2^bits - 1)"),
    "div": OpSpec("div", "Div", "clbig.divmod(a, b), b of bits/2 bits", _resolve_divmod,
                  lambda a, b, bits: (a // b, a % b), "time",
                  lambda A, B, M, bits: [_f_divmod(x, y) for x, y in zip(A, B)], "gmpy2.f_divmod(x, y)",
                  divisor=True, reserve_s=DIV_RESERVE_S),
    "hmul": OpSpec("hmul", "Huge-Mul", "clbig.mul(x, y) on two Python ints", _resolve_huge_mul,
                   lambda a, b, bits: a * b, "huge",
                   lambda A, B, M, bits: [x * y for x, y in zip(A, B)], "x * y"),
    "hdiv": OpSpec("hdiv", "Huge-Div", "clbig.divmod(x, y) on two Python ints, y of bits/2 bits",
                   _resolve_divmod, lambda a, b, bits: (a // b, a % b), "huge",
                   lambda A, B, M, bits: [_f_divmod(x, y) for x, y in zip(A, B)], "gmpy2.f_divmod(x, y)",
                   divisor=True, reserve_s=DIV_RESERVE_S),
}
BATCH_OPS = tuple(k for k, o in OPS.items() if not o.huge)
HUGE_OPS = tuple(k for k, o in OPS.items() if o.huge)


# -- sizes and inputs --------------------------------------------------------------------------
def parse_size(tok: str) -> int:
    """"13" (an exponent, up to 40) means 2**13 bits; a larger number is a bit count."""
    try:
        v = int(tok)
    except ValueError:
        raise ValueError(f"size {tok!r} is not an integer (an exponent like 13 or a bit count)") from None
    if v < 0:
        raise ValueError(f"size {tok!r} is negative (an exponent like 13 or a bit count)")
    bits = 1 << v if v <= 40 else v
    if bits < 32 or bits % 32:
        raise ValueError(f"size {tok!r}: bits must be a positive multiple of 32, got {bits}")
    return bits


def log2_exact(bits: int):
    return bits.bit_length() - 1 if bits & (bits - 1) == 0 else None


def batch_size(bits: int, scale: int) -> int:
    """Instances per batch: 2**32 bits per operand, divided by 2**scale; at least 1."""
    return max(1, ((1 << LOG2_BATCH_BITS) // bits) >> scale)


class HostInputs:
    """Random limbs for a and b, generated once on the host and reshaped for every size
    (n * m is the same at every power-of-two size)."""

    def __init__(self, words: int, seed: int):
        rng = np.random.default_rng(seed)
        half = (words + 1) // 2
        self.a = rng.bit_generator.random_raw(half).view(np.uint32)[:words]
        self.b = rng.bit_generator.random_raw(half).view(np.uint32)[:words]

    def for_size(self, bits: int, n: int):
        m = bits // 32
        return self.a[:n * m].reshape(n, m), self.b[:n * m].reshape(n, m)


def divisor_limbs(hb: np.ndarray) -> np.ndarray:
    """Division's divisor: the low half of b's limbs (at least one), top limb made odd so that
    no divisor is zero. Dividend of `bits` bits, divisor of bits/2 bits (issue 4's shape)."""
    d = np.array(hb[:, :max(1, hb.shape[1] // 2)], dtype=np.uint32)
    d[:, -1] |= np.uint32(1)
    return d


def huge_operands(bits: int, divisor: bool, seed: int) -> tuple:
    """Two random Python ints of exactly `bits` bits (the second of bits/2 bits for division)."""
    import random
    rng = random.Random(seed * 1_000_003 + bits)
    by = max(1, bits // 2) if divisor else bits
    x = rng.getrandbits(bits) | (1 << (bits - 1))
    y = rng.getrandbits(by) | (1 << (by - 1))
    return x, y


def human_bytes(n: int) -> str:
    for unit, sh in (("GiB", 30), ("MiB", 20), ("KiB", 10)):
        if n >= 1 << sh:
            return f"{n / (1 << sh):.4g} {unit}"
    return f"{n} B"


# -- device facts ------------------------------------------------------------------------------
def device_info(ctx) -> dict:
    d = ctx.device
    t = d.type
    kind = "GPU" if t & cl.device_type.GPU else "CPU" if t & cl.device_type.CPU else "OTHER"
    return {
        "name": d.name.strip(), "platform": d.platform.name.strip(),
        "platform_version": d.platform.version.strip(), "vendor": d.vendor.strip(), "type": kind,
        "driver_version": d.driver_version.strip(), "device_version": d.version.strip(),
        "compute_units": int(d.max_compute_units), "max_clock_mhz": int(d.max_clock_frequency),
        "global_mem_bytes": int(d.global_mem_size), "max_alloc_bytes": int(d.max_mem_alloc_size),
        "local_mem_bytes": int(d.local_mem_size),
    }


def host_cpu() -> str:
    """The host CPU's model name (where the gmpy2 column runs)."""
    try:
        with open("/proc/cpuinfo", encoding="utf-8", errors="replace") as f:
            for line in f:
                if line.lower().startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine() or "?"


def software_info() -> dict:
    info = {"clbig_version": getattr(clbig, "__version__", "?"), "python": platform.python_version(),
            "pyopencl": cl.VERSION_TEXT, "numpy": np.__version__, "gmpy2": gmpy2.version(),
            "platform": platform.platform(), "host_cpu": host_cpu()}
    repo = os.path.dirname(os.path.dirname(os.path.abspath(clbig.__file__)))
    try:
        rev = subprocess.run(["git", "-C", repo, "rev-parse", "--short", "HEAD"], capture_output=True,
                             text=True, timeout=5)
        if rev.returncode == 0:
            dirty = subprocess.run(["git", "-C", repo, "status", "--porcelain", "--untracked-files=no"],
                                   capture_output=True, text=True, timeout=5)
            info["git_commit"] = rev.stdout.strip() + ("+dirty" if dirty.stdout.strip() else "")
    except (OSError, subprocess.SubprocessError):
        pass
    return info


def default_copy_bytes(ctx) -> int:
    d = ctx.device
    cpu = not (d.type & cl.device_type.GPU)
    want = (256 if cpu else 512) << 20
    cap = min(int(d.max_mem_alloc_size), int(d.global_mem_size) // 8)
    while want > cap and want > (1 << 20):
        want //= 2
    return want


# -- timing ---------------------------------------------------------------------------------
def copy_bandwidth(ctx, nbytes: int, reps: int = DEFAULT_REPS) -> dict:
    """Device-to-device buffer copy, timed by profiling events; bytes read + written."""
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


_PART_NAMES = {"div": ("quotient", "remainder"), "hdiv": ("quotient", "remainder")}


def _compare(spec: OpSpec, got: tuple, x, y, bits: int, where: str) -> None:
    """got: the op's parts for one instance (ints); compares each with gmpy2's result."""
    want = spec.reference(x, y, bits)
    wants = want if isinstance(want, tuple) else (want,)
    for j, w in enumerate(wants[:len(got)]):  # a divmod that gives only the quotient: check that
        g = gmpy2.mpz(got[j])
        if g != w:
            part = _PART_NAMES.get(spec.key, ("result",) * 2)[j] if len(wants) > 1 else "result"
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
        if spec.key == "add" and len(parts) > 1:
            carry = bool(np.asarray(parts[1])[i])
            if carry != bool((x + y) >> bits):
                raise Mismatch(f"1-Add carry at {bits} bits, instance {i}: got {carry}")
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
    if isinstance(v, (int, _MPZ)):
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
_MPZ = type(gmpy2.mpz(0))
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


# -- one device --------------------------------------------------------------------------------
def _progress(total: int, desc: str):
    try:
        from tqdm.auto import tqdm
    except ImportError:
        return None
    return tqdm(total=total, desc=desc, unit="step", leave=False, disable=None, file=sys.stderr)


def _log(bar, msg: str):
    if bar is not None:
        bar.write(msg, file=sys.stdout)
    else:
        print(msg, flush=True)


def _record_error(rec: dict, ctx, e: Exception) -> None:
    rec.update(status="error", note=f"{type(e).__name__}: {e}".strip())
    try:
        ctx.finish()
    except Exception:  # noqa: BLE001
        pass
    gc.collect()


def run_device(selector, *, sizes, ops, scale: int = 0, reps: int = DEFAULT_REPS,
               max_op_seconds: Optional[float] = None, budget: Optional[float] = None,
               copy_bytes: Optional[int] = None, check: bool = True, seed: int = 2026,
               huge_sizes=None, gmpy2_seconds: float = GMPY2_SECONDS, mod_sizes=None,
               on_update: Optional[Callable[[dict], None]] = None) -> dict:
    """Run the suite on one device; returns the results dict (see report.py for its use).

    sizes: bits per operand of the batch ops (add, add6, mul, poly, div); huge_sizes: bits per
    operand of the single huge product / division (hmul, hdiv; default DEFAULT_HUGE_SIZES as
    exponents). gmpy2_seconds: host time per op and size for the gmpy2 column (0: no column).
    on_update(results) is called after every measurement (for incremental writing).
    Raises Mismatch, after recording it, when an op computes a wrong value."""
    t_start = time.monotonic()
    deadline = t_start + budget if budget else float("inf")
    if huge_sizes is None:
        huge_sizes = [1 << k for k in DEFAULT_HUGE_SIZES]
    ctx = clbig.Context(selector)
    dev = device_info(ctx)
    now = datetime.now(timezone.utc).astimezone()
    batch_specs = [OPS[k] for k in ops if k in OPS and not OPS[k].huge]
    huge_specs = [OPS[k] for k in ops if k in OPS and OPS[k].huge]
    mod_ops = [k for k in ops if k in modular.MOD_OPS]
    sizes = list(sizes) if batch_specs else []
    huge_sizes = list(huge_sizes) if huge_specs else []
    mod_sizes = (list(mod_sizes) if mod_sizes is not None else [1 << k for k in modular.MOD_SIZES]) \
        if mod_ops else []
    res = {
        "schema": "clbig-bench/2",
        "date": now.isoformat(timespec="seconds"),
        "device": dev,
        "software": software_info(),
        "config": {"sizes_bits": sizes, "huge_sizes_bits": huge_sizes, "mod_sizes_bits": mod_sizes,
                   "ops": list(ops),
                   "scale": scale, "reps": reps, "max_op_seconds": max_op_seconds, "budget_s": budget,
                   "check": check, "seed": seed, "gmpy2_seconds": gmpy2_seconds,
                   "batch": f"n = 2^{LOG2_BATCH_BITS} / bits >> {scale} instances, at least 1 "
                            f"(operands of {human_bytes(((1 << LOG2_BATCH_BITS) >> scale) // 8)})",
                   "gmpy2": "gmpy2 on one host thread, same operands as mpz, conversion not timed; "
                            "on the whole batch, or on its first k instances scaled up by n/k "
                            "(gmpy2_sample = k, gmpy2_scaled) to keep the host time near "
                            f"{gmpy2_seconds:g} s per op and size"},
        "references": REFERENCES,
        "copy": None,
        "results": [],
        "status": "running",
    }
    sys_note = []
    if dev["type"] == "CPU" and scale < 8 and sizes:
        sys_note.append(f"{dev['name']} is a CPU and scale={scale}: full-size batches take long "
                        "on a CPU; --quick (scale 12) or --scale K shrinks them")
    for s in sys_note:
        print("note:", s, file=sys.stderr)
    res["notes"] = sys_note

    def update():
        res["elapsed_s"] = time.monotonic() - t_start
        if on_update:
            on_update(res)

    bar = _progress(len(sizes) * len(batch_specs) + len(huge_sizes) * len(huge_specs)
                    + len(mod_sizes) * len(mod_ops) + 1,
                    dev["name"][:24])
    _log(bar, f"== {dev['platform']}: {dev['name']} (driver {dev['driver_version']}), "
              f"scale {scale}, {reps} reps")

    def finish(rec):
        res["results"].append(rec)
        _log(bar, _line(rec))
        if bar is not None:
            bar.update(1)
        update()

    def host_column(spec, rec, A, B, key):
        """Adds the gmpy2 timing to rec (cached across the devices of this process)."""
        if not gmpy2_seconds:
            return
        try:
            if key not in _HOST_CACHE:
                _HOST_CACHE[key] = time_gmpy2(spec, A(), B(), rec["n"], rec["bits"], gmpy2_seconds)
            rec.update(_HOST_CACHE[key])
        except Exception as e:  # noqa: BLE001 - the device numbers stand without it
            rec["gmpy2_error"] = f"{type(e).__name__}: {e}"

    try:
        # the device's own copy bandwidth
        nbytes = copy_bytes or default_copy_bytes(ctx)
        try:
            res["copy"] = copy_bandwidth(ctx, nbytes, max(reps, 5))
            _log(bar, f"copy  {nbytes >> 20} MiB: {res['copy']['us']:.0f} us, "
                      f"{res['copy']['GBps']:.1f} GB/s (read+write)")
        except Exception as e:  # noqa: BLE001 - a device that cannot copy still gets the ops run
            res["copy"] = {"error": f"{type(e).__name__}: {e}"}
            _log(bar, f"copy  failed: {e}")
        if bar is not None:
            bar.update(1)
        update()

        resolved = {}
        for spec in batch_specs + huge_specs:
            try:
                resolved[spec.key] = spec.resolve()
            except Exception as e:  # noqa: BLE001 - a half-written module reads as an error
                resolved[spec.key] = (None, f"error: import failed: {type(e).__name__}: {e}")

        def unavailable(rec, spec):
            fn, why = resolved[spec.key]
            if fn is None:
                rec.update(status="error" if why.startswith("error: ") else "n/a",
                           note=why[7:] if why.startswith("error: ") else why)
            return fn

        ns = {bits: batch_size(bits, scale) for bits in sizes}
        words = max((ns[b] * (b // 32) for b in sizes), default=0)
        g0 = time.perf_counter()
        host = HostInputs(words, seed) if sizes else None
        res["input_generation_s"] = time.perf_counter() - g0
        def budget_skip(spec, bits):
            """(status, note) when the --budget does not allow starting spec now, else None."""
            left = deadline - time.monotonic()
            if left <= 0:
                return ("skipped", "--budget spent")
            need = spec.reserve(bits)
            if need and left < need:
                return ("skipped", f"--budget: {left:.0f} s left, {need:g} s needed to start "
                                   "(its first kernel builds can take that long on a CPU)")
            return None

        def run_batches(specs):
            """The batch ops of `specs` at every size: n instances of `bits` bits."""
            need_b = any(not s.divisor and resolved[s.key][0] is not None for s in specs)
            need_d = any(s.divisor and resolved[s.key][0] is not None for s in specs)
            for bits in sizes:
                n = ns[bits]
                lg = log2_exact(bits)
                ha, hb = host.for_size(bits, n)
                hd = divisor_limbs(hb) if any(s.divisor for s in specs) else None
                base = {"bits": bits, "log2_bits": lg, "n": n}
                operand = n * (bits // 32) * 4
                a = b = d = None
                skip = None  # (status, note) for every op at this size
                if time.monotonic() > deadline:
                    skip = ("skipped", "--budget spent")
                elif operand > dev["max_alloc_bytes"] or 3 * operand > dev["global_mem_bytes"]:
                    skip = ("skipped", f"operands of {human_bytes(operand)} do not fit this device")
                elif need_b or need_d:
                    try:
                        u0 = time.perf_counter()
                        a = clbig.from_limbs(ha, bits=bits, ctx=ctx)
                        if need_b:
                            b = clbig.from_limbs(hb, bits=bits, ctx=ctx)
                        if need_d:
                            d = clbig.from_limbs(hd, ctx=ctx)
                        ctx.finish()
                        base["upload_s"] = time.perf_counter() - u0
                    except Exception as e:  # noqa: BLE001
                        skip = ("error", f"upload failed: {type(e).__name__}: {e}")
                kmax = max(1, min(n, GMPY2_SAMPLE_BITS // bits))
                sample = {}

                def mpz_rows(which):
                    if which not in sample:
                        src = {"a": ha, "b": hb, "d": hd}[which]
                        sample[which] = [gmpy2.mpz(v) for v in limbs_to_ints(src[:kmax])]
                    return sample[which]

                for spec in specs:
                    rec = dict(base, op=spec.key, label=spec.label)
                    if spec.divisor:
                        rec["divisor_bits"] = 32 * max(1, (bits // 32) // 2)
                    if skip:
                        rec.update(status=skip[0], note=skip[1])
                    elif unavailable(rec, spec) is None:
                        pass
                    elif budget_skip(spec, bits):
                        rec.update(zip(("status", "note"), budget_skip(spec, bits)))
                    else:
                        fn = resolved[spec.key][0]
                        bb, hbb = (d, hd) if spec.divisor else (b, hb)
                        try:
                            rec.update(measure(ctx, spec, fn, a, bb, bits, n, ha, hbb, reps=reps,
                                               max_op_seconds=max_op_seconds, deadline=deadline,
                                               check=check))
                            rec["status"] = "ok"
                        except Mismatch as e:
                            rec.update(status="MISMATCH", note=str(e))
                            res["results"].append(rec)
                            raise
                        except Exception as e:  # noqa: BLE001 - record it and go on with the rest
                            _record_error(rec, ctx, e)
                    # gmpy2 even where the device op is n/a, so the column is always there
                    if rec["status"] in ("ok", "n/a"):
                        host_column(spec, rec, lambda: mpz_rows("a"),
                                    lambda: mpz_rows("d" if spec.divisor else "b"),
                                    (spec.key, bits, n, seed))
                    if rec["status"] == "ok":
                        derived(spec, rec)
                    finish(rec)
                del a, b, d
                gc.collect()

        def run_huge(specs):
            """The single huge ops of `specs`: one instance, Python ints in and out."""
            for bits in huge_sizes:
                for spec in specs:
                    rec = {"bits": bits, "log2_bits": log2_exact(bits), "n": 1, "op": spec.key,
                           "label": spec.label}
                    x, y = huge_operands(bits, spec.divisor, seed)
                    if spec.divisor:
                        rec["divisor_bits"] = y.bit_length()
                    if 2 * bits // 8 > dev["max_alloc_bytes"] or 8 * bits // 8 > dev["global_mem_bytes"]:
                        rec.update(status="skipped", note=f"operands of {human_bytes(bits // 8)} do not fit")
                    elif unavailable(rec, spec) is None:
                        pass
                    elif budget_skip(spec, bits):
                        rec.update(zip(("status", "note"), budget_skip(spec, bits)))
                    else:
                        try:
                            rec.update(measure_huge(ctx, spec, resolved[spec.key][0], x, y, bits, reps=reps,
                                                    max_op_seconds=max_op_seconds, deadline=deadline,
                                                    check=check))
                            rec["status"] = "ok"
                        except Mismatch as e:
                            rec.update(status="MISMATCH", note=str(e))
                            res["results"].append(rec)
                            raise
                        except Exception as e:  # noqa: BLE001
                            _record_error(rec, ctx, e)
                    if rec["status"] in ("ok", "n/a"):
                        gx, gy = gmpy2.mpz(x), gmpy2.mpz(y)
                        host_column(spec, rec, lambda: [gx], lambda: [gy], (spec.key, bits, 1, seed))
                    if rec["status"] == "ok":
                        derived(spec, rec)
                    finish(rec)
                    del x, y

        # Division last: its kernels are the slowest to build, so under a --budget (--quick) a
        # cold kernel cache costs division's numbers, not everyone's.
        for phase in (lambda sp: not sp.divisor, lambda sp: sp.divisor):
            run_batches([sp for sp in batch_specs if phase(sp)])
            run_huge([sp for sp in huge_specs if phase(sp)])
        if mod_ops:
            modular.run_modular(ctx, sizes=mod_sizes, ops=mod_ops, scale=scale, reps=reps, check=check,
                                seed=seed, gmpy2_seconds=gmpy2_seconds, deadline=deadline,
                                finish=finish, mismatch=Mismatch)
        res["status"] = "done"
    except Mismatch as e:
        res["status"] = "MISMATCH"
        res["abort"] = str(e)
        raise
    finally:
        if bar is not None:
            bar.close()
        update()
    return res


def _line(rec: dict) -> str:
    if rec.get("kind") == "rate":
        head = f"{rec['label']:<13} {rec['bits']}b n={rec['n']:<7}"
        if rec["status"] != "ok":
            return f"{head} {rec['status']}: {rec.get('note', '')}"
        extra = "".join(f"  {k} {rec[v]:.3g}x" for k, v in (("x gmpy2", "speedup_gmpy2"),
                                                             ("x CGBN", "vs_cgbn")) if rec.get(v))
        return f"{head} {rec['per_second']:>12,.0f} /s  ({rec['reps']} reps, {rec['kernels']} kernels){extra}"
    head = f"{rec['label']:<8} 2^{rec['log2_bits']}" if rec.get("log2_bits") is not None \
        else f"{rec['label']:<8} {rec['bits']}b"
    head = f"{head:<14} n={rec['n']:<9}"
    g = rec.get("gmpy2_us")
    gtxt = ""
    if g:
        sp = rec.get("speedup_gmpy2")
        gtxt = f"  gmpy2 {g:.1f} us" + ((f" ({sp:.2g}x)" if sp < 10 else f" ({sp:.0f}x)") if sp else "")
    if rec["status"] != "ok":
        return f"{head} {rec['status']}: {rec.get('note', '')}".rstrip() + gtxt
    s = f"{head} {rec['us']:>11.1f} us"
    if "GBps" in rec:
        s += f"  {rec['GBps']:8.1f} GB/s"
    if "Gu32ops" in rec:
        s += f"  {rec['Gu32ops']:8.1f} Gu32ops/s"
    if "wall_us" in rec:
        s += f"  wall {rec['wall_us']:.1f} us"
    s += gtxt
    s += f"  ({rec['reps']} reps, {rec['kernels']} kernel{'s' if rec['kernels'] != 1 else ''}"
    s += f", {rec['timer']})"
    if rec.get("note"):
        s += f"  [{rec['note']}]"
    return s
