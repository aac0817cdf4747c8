"""Measurement for `python -m clbig.bench`: inputs, the ops, device timing, copy bandwidth and
spot checks against gmpy2. Formatting and targets live in clbig.bench.report."""
from __future__ import annotations

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

#: Every operand of a full-size batch holds 2**32 bits (512 MiB), whatever the size.
LOG2_BATCH_BITS = 32
DEFAULT_SIZES = tuple(range(9, 19))  # log2(bits): 512 .. 262144 bits
DEFAULT_REPS = 20
CHECK_FIRST = 3  # spot-check instances 0..2 and the last one

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
}


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


def _resolve_mul():
    fn = getattr(clbig, "mul_low", None)
    if fn is None:
        ops = importlib.import_module("clbig.ops")
        fn = getattr(ops, "mul_low", None)
    if fn is None:
        return None, "clbig.mul_low does not exist (yet)"
    return (lambda a, b, bits: fn(a, b)), ""


def _resolve_fused(name: str):
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
        return (lambda a, b, bits: fn(a, b)), ""
    return resolve


@dataclass(frozen=True)
class OpSpec:
    key: str
    label: str
    call: str  # what it runs, for the report
    resolve: Callable[[], tuple]  # -> (fn(a, b, bits) or None, reason)
    reference: Callable  # (a, b, bits) -> exact result mod 2**bits (gmpy2)
    kind: str  # "bandwidth" (GB/s over 3*n*bits/8 bytes) or "mul" (u32ops) or "time"


def _mod(bits):
    return gmpy2.mpz(1) << bits


OPS = {
    "add": OpSpec("add", "1-Add", "clbig.add_fixed(a, b, bits)", _resolve_add,
                  lambda a, b, bits: (a + b) % _mod(bits), "bandwidth"),
    "add6": OpSpec("add6", "6-Add", "clbig.fused.six_add(a, b)", _resolve_fused("six_add"),
                   lambda a, b, bits: (6 * a + 10 * b) % _mod(bits), "bandwidth"),
    "mul": OpSpec("mul", "1-Mul", "clbig.mul_low(a, b)", _resolve_mul,
                  lambda a, b, bits: (a * b) % _mod(bits), "mul"),
    "poly": OpSpec("poly", "Poly", "clbig.fused.poly(a, b)", _resolve_fused("poly"),
                   lambda a, b, bits: ((a * a + b) * (b * b + b) + a * b) % _mod(bits), "time"),
}


# -- sizes and inputs --------------------------------------------------------------------------
def parse_size(tok: str) -> int:
    """"13" (an exponent, up to 40) means 2**13 bits; a larger number is a bit count."""
    v = int(tok)
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


def software_info() -> dict:
    info = {"clbig_version": getattr(clbig, "__version__", "?"), "python": platform.python_version(),
            "pyopencl": cl.VERSION_TEXT, "numpy": np.__version__, "gmpy2": gmpy2.version(),
            "platform": platform.platform()}
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


def _split(r):
    """Ops return a BigIntArray, or a tuple whose first item is one (add_fixed: (sum, carry))."""
    if isinstance(r, tuple):
        return r[0], r[1:]
    return r, ()


def _short(v) -> str:
    h = format(int(v), "x")
    return h if len(h) <= 40 else f"{h[:16]}…{h[-16:]} ({int(v).bit_length()} bits)"


def spot_check(spec: OpSpec, r, host_a, host_b, bits: int, n: int) -> list:
    arr, extra = _split(r)
    if len(arr) != n:
        raise Mismatch(f"{spec.label} at {bits} bits: result holds {len(arr)} instances, expected {n}")
    idx = sorted({i for i in range(min(CHECK_FIRST, n))} | {n - 1})
    av = limbs_to_ints(host_a[idx])
    bv = limbs_to_ints(host_b[idx])
    for i, x, y in zip(idx, av, bv):
        x, y = gmpy2.mpz(x), gmpy2.mpz(y)
        want = spec.reference(x, y, bits)
        got = gmpy2.mpz(arr[i])
        if got != want:
            raise Mismatch(
                f"{spec.label} ({spec.call}) at {bits} bits, instance {i} of {n}:\n"
                f"  a    = {_short(x)}\n  b    = {_short(y)}\n"
                f"  got  = {_short(got)}\n  want = {_short(want)}\n"
                f"  lowest differing bit: {int(gmpy2.bit_scan1(got ^ want))}")
        if spec.key == "add" and extra:
            carry = bool(np.asarray(extra[0])[i])
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
    out_bits = getattr(_split(r)[0], "bits", None)
    del r
    want = reps
    note = ""
    if max_op_seconds and t * reps > max_op_seconds:
        want = max(5, int(max_op_seconds / max(t, 1e-9)))
        if want < reps:
            note = f"reps cut to {want} (--max-op-seconds {max_op_seconds:g})"
    times = []
    for _ in range(want):
        if len(times) >= 3 and time.monotonic() > deadline:
            note = f"budget ran out after {len(times)} reps"
            break
        r, t, kernels, timer = _timed(ctx, fn, a, b, bits)
        del r
        times.append(t)
    med = statistics.median(times)
    return {"seconds": med, "us": med * 1e6, "us_min": min(times) * 1e6, "us_max": max(times) * 1e6,
            "reps": len(times), "kernels": kernels, "timer": timer, "warmup_wall_s": warm_wall,
            "checked": checked, "out_bits": out_bits, "note": note}


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


def run_device(selector, *, sizes, ops, scale: int = 0, reps: int = DEFAULT_REPS,
               max_op_seconds: Optional[float] = None, budget: Optional[float] = None,
               copy_bytes: Optional[int] = None, check: bool = True, seed: int = 2026,
               on_update: Optional[Callable[[dict], None]] = None) -> dict:
    """Run the suite on one device; returns the results dict (see report.py for its use).
    on_update(results) is called after every measurement (for incremental writing).
    Raises Mismatch, after recording it, when an op computes a wrong value."""
    t_start = time.monotonic()
    deadline = t_start + budget if budget else float("inf")
    ctx = clbig.Context(selector)
    dev = device_info(ctx)
    now = datetime.now(timezone.utc).astimezone()
    res = {
        "schema": "clbig-bench/1",
        "date": now.isoformat(timespec="seconds"),
        "device": dev,
        "software": software_info(),
        "config": {"sizes_bits": list(sizes), "ops": list(ops), "scale": scale, "reps": reps,
                   "max_op_seconds": max_op_seconds, "budget_s": budget, "check": check, "seed": seed,
                   "batch": f"n = 2^{LOG2_BATCH_BITS} / bits >> {scale} instances, at least 1 "
                            f"(operands of {human_bytes(((1 << LOG2_BATCH_BITS) >> scale) // 8)})"},
        "references": REFERENCES,
        "copy": None,
        "results": [],
        "status": "running",
    }
    sys_note = []
    if dev["type"] == "CPU" and scale < 8:
        sys_note.append(f"{dev['name']} is a CPU and scale={scale}: full-size batches take long "
                        "on a CPU; --quick (scale 12) or --scale K shrinks them")
    for s in sys_note:
        print("note:", s, file=sys.stderr)
    res["notes"] = sys_note

    def update():
        res["elapsed_s"] = time.monotonic() - t_start
        if on_update:
            on_update(res)

    specs = [OPS[k] for k in ops]
    bar = _progress(len(sizes) * len(specs) + 1, dev["name"][:24])
    _log(bar, f"== {dev['platform']}: {dev['name']} (driver {dev['driver_version']}), "
              f"scale {scale}, {reps} reps")
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
        for spec in specs:
            try:
                resolved[spec.key] = spec.resolve()
            except Exception as e:  # noqa: BLE001 - a half-written module reads as an error
                resolved[spec.key] = (None, f"error: import failed: {type(e).__name__}: {e}")

        ns = {bits: batch_size(bits, scale) for bits in sizes}
        words = max(ns[b] * (b // 32) for b in sizes)
        g0 = time.perf_counter()
        host = HostInputs(words, seed)
        res["input_generation_s"] = time.perf_counter() - g0

        for bits in sizes:
            n = ns[bits]
            lg = log2_exact(bits)
            ha, hb = host.for_size(bits, n)
            base = {"bits": bits, "log2_bits": lg, "n": n}
            operand = n * (bits // 32) * 4
            a = b = None
            skip = None  # (status, note) for every op at this size
            if time.monotonic() > deadline:
                skip = ("skipped", "--budget spent")
            elif operand > dev["max_alloc_bytes"] or 3 * operand > dev["global_mem_bytes"]:
                skip = ("skipped", f"operands of {human_bytes(operand)} do not fit this device")
            else:
                try:
                    u0 = time.perf_counter()
                    a = clbig.from_limbs(ha, bits=bits, ctx=ctx)
                    b = clbig.from_limbs(hb, bits=bits, ctx=ctx)
                    ctx.finish()
                    base["upload_s"] = time.perf_counter() - u0
                except Exception as e:  # noqa: BLE001
                    skip = ("error", f"upload failed: {type(e).__name__}: {e}")
            for spec in specs:
                rec = dict(base, op=spec.key, label=spec.label)
                fn, why = resolved[spec.key]
                if skip:
                    rec.update(status=skip[0], note=skip[1])
                elif fn is None:
                    rec.update(status="error" if why.startswith("error: ") else "n/a",
                               note=why[7:] if why.startswith("error: ") else why)
                elif time.monotonic() > deadline:
                    rec.update(status="skipped", note="--budget spent")
                else:
                    try:
                        rec.update(measure(ctx, spec, fn, a, b, bits, n, ha, hb, reps=reps,
                                           max_op_seconds=max_op_seconds, deadline=deadline,
                                           check=check))
                        rec["status"] = "ok"
                        derived(spec, rec)
                    except Mismatch as e:
                        rec.update(status="MISMATCH", note=str(e))
                        res["results"].append(rec)
                        raise
                    except Exception as e:  # noqa: BLE001 - record it and go on with the rest
                        rec.update(status="error", note=f"{type(e).__name__}: {e}".strip())
                        ctx.finish()
                        gc.collect()
                res["results"].append(rec)
                _log(bar, _line(rec))
                if bar is not None:
                    bar.update(1)
                update()
            del a, b
            gc.collect()
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
    head = f"{rec['label']:<6} 2^{rec['log2_bits']}" if rec.get("log2_bits") is not None \
        else f"{rec['label']:<6} {rec['bits']}b"
    head = f"{head:<12} n={rec['n']:<9}"
    if rec["status"] != "ok":
        return f"{head} {rec['status']}: {rec.get('note', '')}".rstrip()
    s = f"{head} {rec['us']:>11.1f} us"
    if "GBps" in rec:
        s += f"  {rec['GBps']:8.1f} GB/s"
    if "Gu32ops" in rec:
        s += f"  {rec['Gu32ops']:8.1f} Gu32ops/s"
    s += f"  ({rec['reps']} reps, {rec['kernels']} kernel{'s' if rec['kernels'] != 1 else ''}"
    s += f", {rec['timer']})"
    if rec.get("note"):
        s += f"  [{rec['note']}]"
    return s
