"""`python -m clbig.bench --latency`: one operation on one huge number, from Python ints to
Python ints, at 2^16..2^27 bits (issue 14). Batches hide the host behind the device; a single
operation does not, so each row gives beside the device time the number of kernels and the
wall time: their gap is what the host costs (launches, planning, transfers, reads).

Rows: mul (x * y, both of `bits` bits), square (x * x), divmod (x of `bits` bits by y of
bits/2). Columns: device µs (clbig.profile: first kernel's start to last kernel's end, so gaps
between kernels count, host work before the first and after the last does not), kernels, wall
µs (the call, conversions and transfers included, timed outside any profile), gmpy2 µs (the
same op on one host core) and gmpy2 / wall. Each value is checked against gmpy2 unless --no-check.
"""
from __future__ import annotations

import statistics
import time

import gmpy2

import clbig

from .inputs import huge_operands, human_bytes
from .specs import Mismatch

#: the default sizes (log2 bits); --latency-sizes overrides, and a size whose operands and
#: scratch would not fit the device (about 48 operand sizes for a division) is skipped
LATENCY_SIZES = tuple(range(16, 28))
LATENCY_OPS = ("mul", "square", "divmod")
#: device memory a size needs, in operand sizes (a division's transforms, inverse, products)
MEMORY_FACTOR = 48


def _ops():
    return {
        "mul": (False, lambda x, y: clbig.mul(x, y), lambda x, y: x * y),
        "square": (False, lambda x, y: clbig.mul(x, x), lambda x, y: x * x),
        "divmod": (True, lambda x, y: clbig.divmod(x, y), lambda x, y: gmpy2.f_divmod(x, y)),
    }


def _gmpy2_seconds(ref, gx, gy, budget: float) -> float:
    """Median host time of the gmpy2 op, repeated within about `budget` seconds."""
    times = []
    t_end = time.perf_counter() + budget
    while True:
        t0 = time.perf_counter()
        ref(gx, gy)
        times.append(time.perf_counter() - t0)
        if len(times) >= 3 and time.perf_counter() > t_end or len(times) >= 50:
            return statistics.median(times)


def _same(got, want) -> bool:
    if isinstance(want, tuple):
        return isinstance(got, tuple) and len(got) == 2 and all(int(g) == int(w) for g, w in zip(got, want))
    return int(got) == int(want)


def measure_one(ctx, op: str, bits: int, *, reps: int, check: bool, seed: int,
                gmpy2_seconds: float) -> dict:
    """One row: the op at `bits` bits, warmed up once (kernel builds), then `reps` timed calls."""
    divisor, fn, ref = _ops()[op]
    rec = {"op": op, "bits": bits, "log2_bits": bits.bit_length() - 1}
    x, y = huge_operands(bits, divisor, seed)
    if divisor:
        rec["divisor_bits"] = y.bit_length()
    need = MEMORY_FACTOR * bits // 8
    if need > int(ctx.device.global_mem_size) or 2 * bits // 8 > int(ctx.device.max_mem_alloc_size):
        rec.update(status="skipped", note=f"needs about {human_bytes(need)} of device memory")
        return rec
    gx, gy = gmpy2.mpz(x), gmpy2.mpz(y)
    with ctx:
        got = fn(x, y)                       # warm-up: kernel builds, pools
        ctx.finish()
        if check:
            want = ref(gx, gy)
            if not _same(got, want):
                raise Mismatch(f"latency {op} at {bits} bits: clbig differs from gmpy2")
            rec["checked"] = True
        del got
        devs, walls, kernels = [], [], 0
        for _ in range(reps):
            # Wall time outside a profile: a profile's events double each launch's host time
            # on NVIDIA (clbig.devices), so the device time is taken in calls of its own.
            t0 = time.perf_counter()
            r = fn(x, y)
            walls.append(time.perf_counter() - t0)   # ints back in hand: the device is done
            del r
            with clbig.profile() as p:
                r = fn(x, y)
            devs.append(p.seconds)
            kernels = p.kernels
            del r
    rec.update(status="ok", device_us=statistics.median(devs) * 1e6, kernels=kernels,
               wall_us=statistics.median(walls) * 1e6, reps=reps)
    if gmpy2_seconds > 0:
        g = _gmpy2_seconds(ref, gx, gy, gmpy2_seconds)
        rec.update(gmpy2_us=g * 1e6, speedup_gmpy2=g * 1e6 / rec["wall_us"])
    return rec


def run_latency(ctx, sizes=None, ops=LATENCY_OPS, *, reps: int = 5, check: bool = True, seed: int = 2026,
                gmpy2_seconds: float = 0.5, log=print) -> list:
    """The latency rows for `sizes` (bits; default 2^16..2^27) and `ops`, smallest first."""
    sizes = [1 << k for k in LATENCY_SIZES] if sizes is None else list(sizes)
    rows = []
    for bits in sizes:
        for op in ops:
            try:
                rec = measure_one(ctx, op, bits, reps=reps, check=check, seed=seed, gmpy2_seconds=gmpy2_seconds)
            except Mismatch:
                raise
            except Exception as e:  # noqa: BLE001 - one size failing (memory) leaves the others
                rec = {"op": op, "bits": bits, "log2_bits": bits.bit_length() - 1, "status": "error",
                       "note": f"{type(e).__name__}: {e}".strip()}
                try:
                    ctx.finish()
                except Exception:  # noqa: BLE001
                    pass
            rows.append(rec)
            log(latency_line(rec))
    return rows


def latency_line(r: dict) -> str:
    head = f"latency {r['op']:7s} 2^{r['log2_bits']:<3d}"
    if r["status"] != "ok":
        return f"{head} {r['status']}: {r.get('note', '')}"
    g = f"  gmpy2 {r['gmpy2_us']:.0f} us ({r['speedup_gmpy2']:.2f}x)" if "gmpy2_us" in r else ""
    return f"{head} device {r['device_us']:.0f} us  {r['kernels']} kernels  wall {r['wall_us']:.0f} us{g}"


HEADERS = ["op", "bits", "device µs", "kernels", "wall µs", "gmpy2 µs", "× gmpy2 (wall)", "status"]


def latency_rows(rows: list) -> list:
    """The table's cells, one list per row, in HEADERS' order."""
    out = []
    for r in rows:
        ok = r["status"] == "ok"
        size = f"2^{r['log2_bits']}" + (f" / 2^{r['divisor_bits'].bit_length() - 1}"
                                        if r.get("divisor_bits") else "")
        out.append([r["op"], size,
                    f"{r['device_us']:.0f}" if ok else "–", str(r["kernels"]) if ok else "–",
                    f"{r['wall_us']:.0f}" if ok else "–",
                    f"{r['gmpy2_us']:.0f}" if "gmpy2_us" in r else "–",
                    f"{r['speedup_gmpy2']:.2f}×" if "speedup_gmpy2" in r else "–",
                    r["status"] if ok else f"{r['status']}: {r.get('note', '')}"])
    return out


def latency_markdown(rows: list, device: str) -> str:
    cells = latency_rows(rows)
    lines = [f"## Single-operation latency ({device})", "",
             "One operation on Python ints (divmod: dividend / divisor of half its bits); device µs "
             "from profiling events, wall µs from Python ints to Python ints.", "",
             "| " + " | ".join(HEADERS) + " |", "| " + " | ".join("---" for _ in HEADERS) + " |"]
    lines += ["| " + " | ".join(c) + " |" for c in cells]
    return "\n".join(lines) + "\n"
