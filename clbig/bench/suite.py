"""One device's run of `python -m clbig.bench`: the suite's driver (run_device), the device and
software facts it records, and its progress lines.

The rest lives by concern: specs.py (the ops, one OpSpec each), inputs.py (sizes, random
operands), timing.py (device timing, spot checks, copy bandwidth, the gmpy2 column),
references.py (the papers' numbers and the targets), modular.py (the modular rows), and
tables.py / plots.py / report.py (the outputs). Their names stay importable from here."""
from __future__ import annotations

import gc
import os
import platform
import subprocess
import sys
import time
from datetime import datetime, timezone
from typing import Callable, Optional

import gmpy2
import numpy as np
import pyopencl as cl

import clbig
from clbig.mpz.array import limbs_to_ints
from . import modular
from .inputs import (DEFAULT_HUGE_SIZES, DEFAULT_SIZES, LOG2_BATCH_BITS, QUICK_HUGE_SIZES,  # noqa: F401
                     QUICK_SIZES, HostInputs, batch_size, divisor_limbs, huge_operands, human_bytes,
                     log2_exact, parse_size)
from .references import REFERENCES, ref_value  # noqa: F401
from .specs import BATCH_OPS, DIV_RESERVE_S, HUGE_OPS, OPS, Mismatch, OpSpec  # noqa: F401
from .timing import (CHECK_FIRST, DEFAULT_REPS, GMPY2_SAMPLE_BITS, GMPY2_SECONDS,  # noqa: F401
                     copy_bandwidth, derived, measure, measure_huge, spot_check, time_gmpy2)
from . import timing


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


class _Run:
    """What the measurements of one device share: its context, the results dict, the options,
    and the ops' resolved functions."""

    def __init__(self, ctx, res, bar, *, reps, max_op_seconds, deadline, check, seed, gmpy2_seconds,
                 on_update, t_start):
        self.ctx, self.res, self.bar = ctx, res, bar
        self.dev = res["device"]
        self.reps, self.max_op_seconds, self.deadline = reps, max_op_seconds, deadline
        self._took: dict = {}   # op key -> seconds its last measured size took (budget_skip)
        self.check, self.seed, self.gmpy2_seconds = check, seed, gmpy2_seconds
        self.on_update, self.t_start = on_update, t_start
        self.resolved = {}

    def update(self):
        self.res["elapsed_s"] = time.monotonic() - self.t_start
        if self.on_update:
            self.on_update(self.res)

    def finish(self, rec):
        self.res["results"].append(rec)
        _log(self.bar, _line(rec))
        if self.bar is not None:
            self.bar.update(1)
        self.update()

    def resolve(self, specs):
        for spec in specs:
            try:
                self.resolved[spec.key] = spec.resolve()
            except Exception as e:  # noqa: BLE001 - a half-written module reads as an error
                self.resolved[spec.key] = (None, f"error: import failed: {type(e).__name__}: {e}")

    def unavailable(self, rec, spec):
        """The op's function; None (rec marked n/a or error) when this clbig lacks it."""
        fn, why = self.resolved[spec.key]
        if fn is None:
            rec.update(status="error" if why.startswith("error: ") else "n/a",
                       note=why[7:] if why.startswith("error: ") else why)
        return fn

    def budget_skip(self, spec, bits):
        """(status, note) when the --budget does not allow starting spec now, else None."""
        left = self.deadline - time.monotonic()
        if left <= 0:
            return ("skipped", "--budget spent")
        need = spec.reserve(bits)
        took = self._took.get(spec.key)
        if need and took is not None:
            # measured: twice what this op's previous size took, builds included (a warm kernel
            # cache makes the static reserve, sized for cold builds on a CPU, skip rows that
            # would run in seconds: issue 45 item 5)
            need = min(need, max(2.0 * took, 1.0))
        if need and left < need:
            return ("skipped", f"--budget: {left:.0f} s left, {need:.0f} s needed to start "
                               "(its first kernel builds can take that long on a CPU)")
        return None

    def host_column(self, spec, rec, A, B, key):
        """Adds the gmpy2 timing to rec (cached across the devices of this process)."""
        if not self.gmpy2_seconds:
            return
        try:
            if key not in timing._HOST_CACHE:
                timing._HOST_CACHE[key] = time_gmpy2(spec, A(), B(), rec["n"], rec["bits"], self.gmpy2_seconds)
            rec.update(timing._HOST_CACHE[key])
        except Exception as e:  # noqa: BLE001 - the device numbers stand without it
            rec["gmpy2_error"] = f"{type(e).__name__}: {e}"

    def measured(self, spec, rec, bits, how):
        """Runs how() (a measurement) into rec, unless the op is missing or the budget says no;
        a wrong value is recorded and raised, any other failure recorded."""
        if self.unavailable(rec, spec) is None:
            return
        skip = self.budget_skip(spec, bits)
        if skip:
            rec.update(zip(("status", "note"), skip))
            return
        t0 = time.monotonic()
        try:
            rec.update(how())
            rec["status"] = "ok"
            self._took[spec.key] = time.monotonic() - t0
        except Mismatch as e:
            rec.update(status="MISMATCH", note=str(e))
            self.res["results"].append(rec)
            raise
        except Exception as e:  # noqa: BLE001 - record it and go on with the rest
            _record_error(rec, self.ctx, e)

    def done(self, spec, rec, A, B, key):
        """gmpy2 even where the device op is n/a (so the column is always there), the derived
        figures, then the record is final."""
        if rec["status"] in ("ok", "n/a"):
            self.host_column(spec, rec, A, B, key)
        if rec["status"] == "ok":
            derived(spec, rec)
        self.finish(rec)


def _upload(run, ha, hb, hd, bits, need_b, need_d, base):
    """(a, b, d) on the device, or a (status, note) that skips every op at this size."""
    ctx = run.ctx
    try:
        u0 = time.perf_counter()
        a = clbig.from_limbs(ha, bits=bits, ctx=ctx)
        b = clbig.from_limbs(hb, bits=bits, ctx=ctx) if need_b else None
        d = clbig.from_limbs(hd, ctx=ctx) if need_d else None
        ctx.finish()
        base["upload_s"] = time.perf_counter() - u0
        return (a, b, d), None
    except Exception as e:  # noqa: BLE001
        return (None, None, None), ("error", f"upload failed: {type(e).__name__}: {e}")


def _run_batches(run, specs, sizes, ns, host):
    """The batch ops of `specs` at every size: n instances of `bits` bits."""
    need_b = any(not s.divisor and run.resolved[s.key][0] is not None for s in specs)
    need_d = any(s.divisor and run.resolved[s.key][0] is not None for s in specs)
    for bits in sizes:
        n = ns[bits]
        ha, hb = host.for_size(bits, n)
        hd = divisor_limbs(hb) if any(s.divisor for s in specs) else None
        base = {"bits": bits, "log2_bits": log2_exact(bits), "n": n}
        operand = n * (bits // 32) * 4
        a = b = d = None
        skip = None  # (status, note) for every op at this size
        if time.monotonic() > run.deadline:
            skip = ("skipped", "--budget spent")
        elif operand > run.dev["max_alloc_bytes"] or 3 * operand > run.dev["global_mem_bytes"]:
            skip = ("skipped", f"operands of {human_bytes(operand)} do not fit this device")
        elif need_b or need_d:
            (a, b, d), skip = _upload(run, ha, hb, hd, bits, need_b, need_d, base)
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
            bb, hbb = (d, hd) if spec.divisor else (b, hb)
            if skip:
                rec.update(status=skip[0], note=skip[1])
            else:
                run.measured(spec, rec, bits, lambda: measure(
                    run.ctx, spec, run.resolved[spec.key][0], a, bb, bits, n, ha, hbb, reps=run.reps,
                    max_op_seconds=run.max_op_seconds, deadline=run.deadline, check=run.check))
            run.done(spec, rec, lambda: mpz_rows("a"), lambda: mpz_rows("d" if spec.divisor else "b"),
                     (spec.key, bits, n, run.seed))
        del a, b, d
        gc.collect()


def _run_huge(run, specs, huge_sizes):
    """The single huge ops of `specs`: one instance, Python ints in and out."""
    for bits in huge_sizes:
        for spec in specs:
            rec = {"bits": bits, "log2_bits": log2_exact(bits), "n": 1, "op": spec.key, "label": spec.label}
            x, y = huge_operands(bits, spec.divisor, run.seed)
            if spec.divisor:
                rec["divisor_bits"] = y.bit_length()
            if 2 * bits // 8 > run.dev["max_alloc_bytes"] or 8 * bits // 8 > run.dev["global_mem_bytes"]:
                rec.update(status="skipped", note=f"operands of {human_bytes(bits // 8)} do not fit")
            else:
                run.measured(spec, rec, bits, lambda: measure_huge(
                    run.ctx, spec, run.resolved[spec.key][0], x, y, bits, reps=run.reps,
                    max_op_seconds=run.max_op_seconds, deadline=run.deadline, check=run.check))
            gx, gy = gmpy2.mpz(x), gmpy2.mpz(y)
            run.done(spec, rec, lambda: [gx], lambda: [gy], (spec.key, bits, 1, run.seed))
            del x, y


def _results_dict(ctx, dev, sizes, huge_sizes, mod_sizes, ops, scale, reps, max_op_seconds, budget,
                  check, seed, gmpy2_seconds) -> dict:
    now = datetime.now(timezone.utc).astimezone()
    return {
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


def _copy_row(run, copy_bytes):
    """The device's own copy bandwidth into res["copy"]."""
    nbytes = copy_bytes or default_copy_bytes(run.ctx)
    try:
        run.res["copy"] = copy_bandwidth(run.ctx, nbytes, max(run.reps, 5))
        _log(run.bar, f"copy  {nbytes >> 20} MiB: {run.res['copy']['us']:.0f} us, "
                      f"{run.res['copy']['GBps']:.1f} GB/s (read+write)")
    except Exception as e:  # noqa: BLE001 - a device that cannot copy still gets the ops run
        run.res["copy"] = {"error": f"{type(e).__name__}: {e}"}
        _log(run.bar, f"copy  failed: {e}")
    if run.bar is not None:
        run.bar.update(1)
    run.update()


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
    batch_specs = [OPS[k] for k in ops if k in OPS and not OPS[k].huge]
    huge_specs = [OPS[k] for k in ops if k in OPS and OPS[k].huge]
    mod_ops = [k for k in ops if k in modular.MOD_OPS]
    sizes = list(sizes) if batch_specs else []
    huge_sizes = list(huge_sizes) if huge_specs else []
    mod_sizes = (list(mod_sizes) if mod_sizes is not None else [1 << k for k in modular.MOD_SIZES]) \
        if mod_ops else []
    res = _results_dict(ctx, dev, sizes, huge_sizes, mod_sizes, ops, scale, reps, max_op_seconds,
                        budget, check, seed, gmpy2_seconds)
    sys_note = []
    if dev["type"] == "CPU" and scale < 8 and sizes:
        sys_note.append(f"{dev['name']} is a CPU and scale={scale}: full-size batches take long "
                        "on a CPU; --quick (scale 12) or --scale K shrinks them")
    for s in sys_note:
        print("note:", s, file=sys.stderr)
    res["notes"] = sys_note

    bar = _progress(len(sizes) * len(batch_specs) + len(huge_sizes) * len(huge_specs)
                    + len(mod_sizes) * len(mod_ops) + 1,
                    dev["name"][:24])
    _log(bar, f"== {dev['platform']}: {dev['name']} (driver {dev['driver_version']}), "
              f"scale {scale}, {reps} reps")
    run = _Run(ctx, res, bar, reps=reps, max_op_seconds=max_op_seconds, deadline=deadline, check=check,
               seed=seed, gmpy2_seconds=gmpy2_seconds, on_update=on_update, t_start=t_start)
    try:
        _copy_row(run, copy_bytes)
        run.resolve(batch_specs + huge_specs)
        ns = {bits: batch_size(bits, scale) for bits in sizes}
        words = max((ns[b] * (b // 32) for b in sizes), default=0)
        g0 = time.perf_counter()
        host = HostInputs(words, seed) if sizes else None
        res["input_generation_s"] = time.perf_counter() - g0
        # Division last: its kernels are the slowest to build, so under a --budget (--quick) a
        # cold kernel cache costs division's numbers, not everyone's.
        for phase in (lambda sp: not sp.divisor, lambda sp: sp.divisor):
            _run_batches(run, [sp for sp in batch_specs if phase(sp)], sizes, ns, host)
            _run_huge(run, [sp for sp in huge_specs if phase(sp)], huge_sizes)
        if mod_ops:
            modular.run_modular(ctx, sizes=mod_sizes, ops=mod_ops, scale=scale, reps=reps, check=check,
                                seed=seed, gmpy2_seconds=gmpy2_seconds, deadline=deadline,
                                finish=run.finish, mismatch=Mismatch)
        res["status"] = "done"
    except Mismatch as e:
        res["status"] = "MISMATCH"
        res["abort"] = str(e)
        raise
    finally:
        if bar is not None:
            bar.close()
        run.update()
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

