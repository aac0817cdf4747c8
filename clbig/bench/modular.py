"""The modular rows of the benchmark: PowMod (CGBN's protocol: 512-bit exponents), PowMod with
full-size exponents, GCD and Invert, in operations per second over a batch of 100,000 instances
(2^scale fewer with --scale), each instance with its own odd modulus of `bits` bits.

Kept apart from the batch ops of suite.py because its protocol differs: three operands, a fixed
instance count rather than 2^32 bits per operand, and a rate rather than µs per batch.
"""
from __future__ import annotations

import gc
import importlib
import os
import statistics
import time
from dataclasses import dataclass
from typing import Callable, Optional

import gmpy2
import numpy as np

import clbig
from clbig.mpz.array import limbs_to_ints
from clbig.runtime import config

MOD_SIZES = (10, 11, 12, 13)      # log2(bits of the modulus): 1024 .. 8192, as suite's sizes
QUICK_MOD_SIZES = (10, 11)
MOD_BATCH = 100_000
CGBN_EXPONENT_BITS = 512
MOD_OP_SECONDS = 5.0

#: CGBN on an NVIDIA H100 (its perf_tests, 2026-11-23; issue 13): operations per second.
CGBN_RATES = {
    "source": "CGBN perf_tests, NVIDIA H100, 2026-11-23 (issue 13)",
    "powmod": {1024: 4.02e6, 2048: 1.26e6, 4096: 325e3},
    "gcd": {1024: 51.4e6, 2048: 19.5e6, 4096: 7.19e6},
    "invert": {1024: 24.4e6, 2048: 10.65e6, 4096: 4.11e6},
}
#: gmpy2 on one host core, full-size exponents (issue 13, measured 2026-11-23), per second
ISSUE_GMPY2 = {"powmodf": {1024: 1059, 2048: 254, 4096: 38}}


def _fn(name: str):
    """clbig's function `name` wherever this checkout defines it (top level, else the module
    that implements it), or None."""
    fn = getattr(clbig, name, None)
    if callable(fn):
        return fn
    for mod in ("clbig.mpz.modular", "clbig.mpz.gcd"):
        try:
            fn = getattr(importlib.import_module(mod), name, None)
        except ImportError:
            continue
        if callable(fn):
            return fn
    return None


@dataclass(frozen=True)
class ModSpec:
    key: str
    label: str
    call: str
    device: Callable          # (fn, a, b, m) -> result array
    fn_name: str
    host: Callable            # (x, y, m) -> int (gmpy2)
    b_kind: str               # what b is: "e512", "efull", "a" (a second value)
    cgbn: Optional[str] = None  # its key in CGBN_RATES (CGBN's protocol), None: no CGBN column


def _first(r):
    return r[0] if isinstance(r, tuple) else r


MOD_OPS = {
    "powmod": ModSpec("powmod", "PowMod", "clbig.powmod(a, e, m), e of 512 bits",
                      lambda f, a, b, m: f(a, b, m), "powmod",
                      lambda x, y, m: gmpy2.powmod(x, y, m), "e512", cgbn="powmod"),
    "powmodf": ModSpec("powmodf", "PowMod full e", "clbig.powmod(a, e, m), e of bits bits",
                       lambda f, a, b, m: f(a, b, m), "powmod",
                       lambda x, y, m: gmpy2.powmod(x, y, m), "efull"),
    "gcd": ModSpec("gcd", "GCD", "clbig.gcd(a, m)", lambda f, a, b, m: f(a, m), "gcd",
                   lambda x, y, m: gmpy2.gcd(x, m), "a", cgbn="gcd"),
    "invert": ModSpec("invert", "Invert", "clbig.invert(a, m, strict=False)",
                      lambda f, a, b, m: _first(f(a, m, strict=False)), "invert",
                      lambda x, y, m: gmpy2.invert(x, m) if gmpy2.gcd(x, m) == 1 else 0, "a",
                      cgbn="invert"),
}


def inputs(bits: int, n: int, seed: int, b_kind: str):
    """(a, b, m) as (n, bits/32) uint32 limb arrays: m odd with its top bit set, a < m (top bit
    clear), b the exponent (512 bits or bits bits, top bit set) or unused."""
    rng = np.random.default_rng(seed * 7919 + bits)
    k = bits // 32

    def limbs(w):
        return rng.integers(0, 1 << 32, size=(n, w), dtype=np.uint64).astype(np.uint32)
    m = limbs(k)
    m[:, 0] |= np.uint32(1)
    m[:, -1] |= np.uint32(0x80000000)
    a = limbs(k)
    a[:, -1] &= np.uint32(0x7FFFFFFF)
    eb = {"e512": CGBN_EXPONENT_BITS, "efull": bits}.get(b_kind, 32)
    e = limbs(max(1, eb // 32))
    e[:, -1] |= np.uint32(0x80000000)
    return a, e, m


def _gmpy2_rate(spec: ModSpec, A, B, M, budget: float) -> dict:
    """gmpy2 operations per second on one host thread, on a growing sample (no conversion timed)."""
    k = min(len(A), 8)
    while True:
        t0 = time.perf_counter()
        for x, y, m in zip(A[:k], B[:k], M[:k]):
            spec.host(x, y, m)
        t = time.perf_counter() - t0
        if k >= len(A) or t >= budget / 4:
            break
        k = min(len(A), k * 4)
    return {"gmpy2_per_second": k / t, "gmpy2_sample": k}


def run_modular(ctx, *, sizes, ops, scale: int, reps: int, check: bool, seed: int,
                gmpy2_seconds: float, deadline: float, finish: Callable[[dict], None],
                mismatch: type) -> None:
    """Measure every op of `ops` (keys of MOD_OPS) at every size; each record goes to finish()."""
    for bits in sizes:
        for key in ops:
            spec = MOD_OPS[key]
            n = max(1, MOD_BATCH >> scale)
            if spec.b_kind == "efull":   # 8x the work per doubling: keep a batch near 0.1 s
                n = max(min(n, 64), n >> (3 * max(0, (bits // 1024).bit_length() - 1)))
            rec = {"op": key, "label": spec.label, "bits": bits, "log2_bits": bits.bit_length() - 1
                   if bits & (bits - 1) == 0 else None, "n": n, "kind": "rate"}
            fn = _fn(spec.fn_name)
            if fn is None:
                rec.update(status="n/a", note=f"clbig.{spec.fn_name} does not exist (yet)")
                finish(rec)
                continue
            if time.monotonic() > deadline:
                rec.update(status="skipped", note="--budget spent")
                finish(rec)
                continue
            ha, hb, hm = inputs(bits, n, seed, spec.b_kind)
            # The rows measure kernels: a small batch (--quick) would otherwise run on the
            # host's cores (POWMOD_HOST_ROWS), with no kernel time to divide by.
            host_var = config.var("POWMOD_HOST_ROWS")
            host_was = os.environ.get(host_var)
            os.environ[host_var] = "0"
            try:
                with ctx:
                    a = clbig.from_limbs(ha, bits=bits)
                    b = clbig.from_limbs(hb)
                    m = clbig.from_limbs(hm, bits=bits)
                    ctx.finish()
                    times, kernels, want = [], 0, reps
                    for i in range(1 + reps):
                        if i > want:
                            break
                        with clbig.profile() as p:
                            r = spec.device(fn, a, b, m)
                        if i == 0:
                            kernels = p.kernels
                            # about MOD_OP_SECONDS of timed launches per op and size, at least 3
                            want = max(3, min(reps, int(MOD_OP_SECONDS / max(p.seconds, 1e-9))))
                            if check:
                                idx = sorted({0, 1, 2, n - 1} & set(range(n)))
                                got = [r[j] for j in idx]
                                for j, g in zip(idx, got):
                                    x, y, mm = (gmpy2.mpz(v) for v in limbs_to_ints(
                                        np.stack([_pad(ha[j], hm.shape[1]), _pad(hb[j], hm.shape[1]), hm[j]])))
                                    expect = spec.host(x, y, mm)   # not `want`: that is the rep count
                                    if gmpy2.mpz(g) != expect:
                                        raise mismatch(f"{spec.label} at {bits} bits, instance {j}: "
                                                       f"got {g:#x}, want {int(expect):#x}")
                                rec["checked"] = idx
                        else:
                            times.append(p.seconds)
                        del r
                        if i >= 3 and time.monotonic() > deadline:
                            break
                med = statistics.median(times) if times else float("nan")
                rec.update(status="ok", us=med * 1e6, reps=len(times), kernels=kernels,
                           per_second=n / med, timer="events")
            except mismatch as e:
                rec.update(status="MISMATCH", note=str(e))
                finish(rec)
                raise
            except Exception as e:  # noqa: BLE001 - record it and go on
                rec.update(status="error", note=f"{type(e).__name__}: {e}")
                ctx.finish()
            finally:
                if host_was is None:
                    os.environ.pop(host_var, None)
                else:
                    os.environ[host_var] = host_was
            if gmpy2_seconds and rec["status"] in ("ok", "n/a"):
                k = min(n, 2000)
                A = [gmpy2.mpz(v) for v in limbs_to_ints(ha[:k])]
                B = [gmpy2.mpz(v) for v in limbs_to_ints(hb[:k])]
                M = [gmpy2.mpz(v) for v in limbs_to_ints(hm[:k])]
                rec.update(_gmpy2_rate(spec, A, B, M, gmpy2_seconds))
                if rec.get("per_second"):
                    rec["speedup_gmpy2"] = rec["per_second"] / rec["gmpy2_per_second"]
            ref = CGBN_RATES.get(spec.cgbn, {}).get(bits) if spec.cgbn else None
            if ref:
                rec["cgbn_per_second"] = ref
                if rec.get("per_second"):
                    rec["vs_cgbn"] = rec["per_second"] / ref
            finish(rec)
            gc.collect()


def _pad(row: np.ndarray, k: int) -> np.ndarray:
    out = np.zeros(k, np.uint32)
    out[:min(k, len(row))] = row[:k]
    return out


# -- report --------------------------------------------------------------------------------------
BLURB = ("Modular arithmetic: operations per second over a batch of n instances, each with its own "
         "random odd modulus of `bits` bits (top bit set) and a < m; PowMod takes CGBN's 512-bit "
         "exponents, PowMod full e exponents of `bits` bits; Invert runs with strict=False. Device "
         "time from profiling events, median; gmpy2 on one host thread on a sample of the same "
         "instances. CGBN: " + CGBN_RATES["source"] + ".")


def _rate(v: Optional[float]) -> str:
    if v is None:
        return "–"
    for unit, f in (("M", 1e6), ("K", 1e3)):
        if v >= f:
            return f"{v / f:.3g} {unit}/s"
    return f"{v:.3g} /s"


def rate_table(res: dict) -> Optional[str]:
    """Markdown for the modular records of a run, or None when it has none."""
    recs = [r for r in res["results"] if r.get("kind") == "rate"]
    if not recs:
        return None
    rows = []
    for r in recs:
        ok = r["status"] == "ok"
        vs = r.get("vs_cgbn")
        note = (r.get("note") or "").strip().splitlines()
        rows.append([r["label"], r["bits"], r["n"], _rate(r.get("per_second")) if ok else
                     f"{r['status']}: {note[0][:120] if note else ''}", r.get("kernels", "") if ok else "",
                     _rate(r.get("gmpy2_per_second")),
                     f"{r['speedup_gmpy2']:.3g}x" if r.get("speedup_gmpy2") else "–",
                     _rate(r.get("cgbn_per_second")),
                     f"{vs:.3g}x" if vs else "–"])
    head = ["op", "bits", "n", "per second", "kernels", "gmpy2 /s", "× gmpy2", "H100 CGBN /s", "× CGBN"]
    lines = ["| " + " | ".join(head) + " |", "| " + " | ".join("---" for _ in head) + " |"]
    lines += ["| " + " | ".join(str(c) for c in row) + " |" for row in rows]
    return "\n".join(lines)


def rate_plot(res: dict, plt, title: str):
    """Operations per second against bits per op, with CGBN's H100 rates and gmpy2; the figure,
    or None when there is nothing to plot."""
    recs = [r for r in res["results"] if r.get("kind") == "rate" and r["status"] == "ok"]
    if not recs:
        return None
    keys = [k for k in MOD_OPS if any(r["op"] == k for r in recs)]
    fig, axes = plt.subplots(1, len(keys), figsize=(4.2 * len(keys), 3.6), squeeze=False)
    for ax, k in zip(axes[0], keys):
        rs = sorted((r for r in recs if r["op"] == k), key=lambda r: r["bits"])
        xs = [r["bits"] for r in rs]
        ax.plot(xs, [r["per_second"] for r in rs], "o-", label="clbig")
        g = [(r["bits"], r["gmpy2_per_second"]) for r in rs if r.get("gmpy2_per_second")]
        if g:
            ax.plot(*zip(*g), "s--", label="gmpy2 (1 core)")
        c = sorted(CGBN_RATES.get(MOD_OPS[k].cgbn, {}).items()) if MOD_OPS[k].cgbn else []
        if c:
            ax.plot(*zip(*c), "^:", label="CGBN (H100)")
        ax.set_xscale("log", base=2)
        ax.set_yscale("log")
        ax.set_xlabel("bits")
        ax.set_title(MOD_OPS[k].label)
        ax.grid(True, which="both", alpha=0.3)
    axes[0][0].set_ylabel("operations per second")
    axes[0][0].legend(fontsize=8)
    fig.suptitle(title)
    fig.tight_layout()
    return fig
