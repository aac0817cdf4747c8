"""Targets, tables, files and plots of clbig.bench results dicts (one per device).

`python -m clbig.bench.report RESULTS.json [MORE.json ...] [--plots]` re-renders saved runs: the
markdown report of each (to stdout), the side-by-side table when several are given, and with
--plots their figures beside the (first) JSON.
"""
from __future__ import annotations

import argparse
import csv
import io
import json
import os
import re
import sys

from . import modular
from .suite import LOG2_BATCH_BITS, OPS, REFERENCES, human_bytes

# -- targets -----------------------------------------------------------------------------------
ADD_COPY_FRACTION = 0.90  # 1-Add at >= 90 % of the device's copy bandwidth
ADD6_RATIO = 2.0  # 6-Add time <= 2x 1-Add time
MUL_VS_PROTO = 1.1  # 1-Mul <= 1.1x the prototype ...
MUL_VS_CGBN = 1.3  # ... and <= 1.3x CGBN where CGBN is faster
POLY_VS_PROTO = 1.1  # Poly <= 1.1x the prototype
DIV_VS_MUL = 6.0  # Div <= 6x clbig's own 1-Mul at 2^15..2^18 bits (issue 4)
DIV_VS_MUL_SIZES = range(15, 19)
DIV_VS_CGBN = 1.5  # Div <= 1.5x CGBN at 2^11..2^15 ...
DIV_VS_PROTO = 0.5  # ... and <= 0.5x the prototype at 2^16, 2^17 (H100, full size)
HUGE_SPEEDUP = {"hmul": {24: 20.0, 26: 50.0}, "hdiv": {27: 20.0}}  # x over gmpy2, wall time

TARGET_TEXT = {
    "add": f"1-Add bandwidth >= {ADD_COPY_FRACTION:.0%} of this device's copy bandwidth (any device)",
    "add6": f"6-Add time <= {ADD6_RATIO:g}x 1-Add time at the same size (any device)",
    "mul": f"1-Mul time <= {MUL_VS_PROTO:g}x H100 proto, and <= {MUL_VS_CGBN:g}x H100 CGBN where CGBN "
           f"is faster (H100, full-size batches only)",
    "mulc": "1-Mul classical: the same, for the classical product at every size (H100, full-size "
            "batches only)",
    "poly": f"Poly time <= {POLY_VS_PROTO:g}x H100 proto (H100, full-size batches only)",
    "div": f"Div time <= {DIV_VS_MUL:g}x 1-Mul time at 2^15..2^18 (any device); <= {DIV_VS_CGBN:g}x "
           f"H100 CGBN at 2^11..2^15 and <= {DIV_VS_PROTO:g}x H100 proto at 2^16..2^17 (H100, full size)",
    "hmul": "single product >= 20x faster than gmpy2 at 2^24 bits, >= 50x at 2^26 "
            "(wall time, transfers included; any device)",
    "hdiv": "single 2^27 // 2^26-bit division >= 20x faster than gmpy2 (wall time, transfers "
            "included; any device)",
}


def _ref(op, impl, lg):
    if lg is None:
        return None
    refs = REFERENCES.get(op, {}).get(impl, {})
    return refs.get(int(lg), refs.get(str(lg)))  # int keys, or str keys after a JSON round trip


def _num(v):
    return isinstance(v, (int, float)) and not isinstance(v, bool)


def comparable(res: dict, force: bool = False) -> bool:
    """Absolute H100 targets apply: an H100 running full-size batches (or forced)."""
    return force or ("H100" in res["device"]["name"].upper() and res["config"]["scale"] == 0)


def evaluate(res: dict, force: bool = False) -> None:
    """Adds ratios and target verdicts to every record, in place."""
    comp = comparable(res, force)
    copy = res.get("copy") or {}
    copy_bw = copy.get("GBps")
    ok_us = lambda op: {r["bits"]: r["us"] for r in res["results"]  # noqa: E731
                        if r["op"] == op and r["status"] == "ok"}
    add_us, mul_us = ok_us("add"), ok_us("mul")
    for r in res["results"]:
        lg = r.get("log2_bits")
        t = {"rule": TARGET_TEXT.get(r["op"], ""), "value": None, "pass": None}
        ok = r["status"] == "ok"
        if r["op"] == "add":
            t["value"] = ADD_COPY_FRACTION
            if ok and copy_bw:
                r["frac_copy"] = r["GBps"] / copy_bw
                t["pass"] = r["frac_copy"] >= ADD_COPY_FRACTION
        elif r["op"] == "add6":
            t["value"] = ADD6_RATIO
            if ok and copy_bw:
                r["frac_copy"] = r["GBps"] / copy_bw
            if ok and r["bits"] in add_us:
                r["ratio_to_add"] = r["us"] / add_us[r["bits"]]
                t["pass"] = r["ratio_to_add"] <= ADD6_RATIO
        elif r["op"] in ("mul", "mulc", "poly"):
            bounds = []
            p = _ref(r["op"], "proto", lg)
            c = _ref(r["op"], "cgbn", lg)
            if r["op"] in ("mul", "mulc"):
                if _num(p):
                    bounds.append(MUL_VS_PROTO * p)
                if _num(c) and (not _num(p) or c < p):
                    bounds.append(MUL_VS_CGBN * c)
            elif _num(p):
                bounds.append(POLY_VS_PROTO * p)
            if bounds:
                t["value"] = min(bounds)  # µs per batch of 2^32 bits
                if ok and comp:
                    t["pass"] = r["us"] <= t["value"]
                elif ok:
                    t["why"] = "not an H100 full-size run"
        elif r["op"] == "div":
            verdicts = []
            if ok and r["bits"] in mul_us:
                r["ratio_to_mul"] = r["us"] / mul_us[r["bits"]]
                if lg in DIV_VS_MUL_SIZES:
                    verdicts.append(r["ratio_to_mul"] <= DIV_VS_MUL)
            p, c = _ref("div", "proto", lg), _ref("div", "cgbn", lg)
            if lg is not None and 11 <= lg <= 15 and _num(c):
                t["value"] = DIV_VS_CGBN * c
            elif lg in (16, 17) and _num(p):
                t["value"] = DIV_VS_PROTO * p
            if ok and t["value"] is not None:
                if comp:
                    verdicts.append(r["us"] <= t["value"])
                else:
                    t["why"] = "µs bound: not an H100 full-size run"
            if verdicts:
                t["pass"] = all(verdicts)
        elif r["op"] in HUGE_SPEEDUP:
            want = HUGE_SPEEDUP[r["op"]].get(lg)
            if want is not None:
                t["value"] = want
                if ok and r.get("speedup_gmpy2_wall"):
                    t["pass"] = r["speedup_gmpy2_wall"] >= want
        r["target"] = t
    res["targets_comparable"] = comp


# -- formatting --------------------------------------------------------------------------------
def _f(v, digits=None) -> str:
    if v is None:
        return "–"
    if isinstance(v, str):
        return v
    if isinstance(v, int):
        return str(v)
    if digits is not None:
        return f"{v:.{digits}f}"
    a = abs(v)
    if a >= 1000:
        return f"{v:.0f}"
    if a >= 100:
        return f"{v:.1f}"
    if a >= 1:
        return f"{v:.2f}"
    return f"{v:.3g}"


def _x(v) -> str:
    """A speed-up or ratio: 0.31x, 4.2x, 120x."""
    if v is None:
        return "–"
    return f"{v:.2g}x" if v < 10 else f"{v:.0f}x"


def _size(r) -> str:
    return f"2^{r['log2_bits']}" if r.get("log2_bits") is not None else str(r["bits"])


def _verdict(t) -> str:
    if not t or t.get("pass") is None:
        return "–"
    return "pass" if t["pass"] else "**FAIL**"


def _md_table(headers, rows) -> str:
    widths = [max(len(str(h)), *(len(str(row[i])) for row in rows)) if rows else len(str(h))
              for i, h in enumerate(headers)]
    line = lambda cells: "| " + " | ".join(str(c).ljust(w) for c, w in zip(cells, widths)) + " |"  # noqa: E731
    out = [line(headers), "|" + "|".join("-" * (w + 2) for w in widths) + "|"]
    out += [line(row) for row in rows]
    return "\n".join(out)


def _status_cell(r) -> str:
    return {"n/a": "n/a", "skipped": "skipped", "error": "error", "MISMATCH": "**MISMATCH**"}.get(
        r["status"], r["status"])


def _gmpy2_cells(r) -> list:
    """gmpy2 µs (starred when scaled up from a sample) and the device's speed-up over it."""
    g = r.get("gmpy2_us")
    if g is None:
        return ["–", "–"]
    return [_f(g) + ("*" if r.get("gmpy2_scaled") else ""), _x(r.get("speedup_gmpy2"))]


def op_table(res: dict, op: str) -> tuple:
    recs = [r for r in res["results"] if r["op"] == op]
    notes = []
    rows = []
    samples = []
    for r in recs:
        lg = r.get("log2_bits")
        ok = r["status"] == "ok"
        t = r.get("target") or {}
        us = _f(r["us"]) if ok else _status_cell(r)
        kern = str(r.get("kernels", "")) if ok else ""
        if not ok and r.get("note"):
            notes.append(f"{_size(r)}: {r['status']}: {r['note']}")
        elif ok and r.get("note"):
            notes.append(f"{_size(r)}: {r['note']}")
        if r.get("gmpy2_error"):
            notes.append(f"{_size(r)}: gmpy2 timing failed: {r['gmpy2_error']}")
        if r.get("gmpy2_scaled"):
            samples.append(f"{r['gmpy2_sample']} of {r['n']} at {_size(r)}")
        g = _gmpy2_cells(r)
        p, c = _ref(op, "proto", lg), _ref(op, "cgbn", lg)
        if op == "add":
            frac = r.get("frac_copy")
            rows.append([_size(r), r["n"], us, kern, _f(r.get("GBps")) if ok else "",
                         f"{frac:.0%}" if frac is not None else "–", *g, _f(p), _f(c),
                         f">= {ADD_COPY_FRACTION:.0%}", _verdict(t)])
        elif op == "add6":
            ratio = r.get("ratio_to_add")
            pa = _ref("add", "proto", lg)
            href = f"{p / pa:.2f}x" if _num(p) and _num(pa) else "–"
            rows.append([_size(r), r["n"], us, kern, _f(r.get("GBps")) if ok else "",
                         f"{ratio:.2f}x" if ratio is not None else "–", *g, _f(p), href,
                         f"<= {ADD6_RATIO:g}x", _verdict(t)])
        elif op in ("mul", "mulc"):
            rows.append([_size(r), r["n"], us, kern, _f(r.get("Gu32ops")) if ok else "", *g, _f(p), _f(c),
                         _f(t.get("value")), _verdict(t)])
        elif op == "poly":
            rows.append([_size(r), r["n"], us, kern, *g, _f(p), _f(c), _f(t.get("value")), _verdict(t)])
        elif op == "div":
            ratio = r.get("ratio_to_mul")
            rows.append([_size(r), r.get("divisor_bits", "–"), r["n"], us, kern,
                         f"{ratio:.2f}x" if ratio is not None else "–", *g, _f(p), _f(c),
                         _f(t.get("value")), _verdict(t)])
        elif op in ("hmul", "hdiv"):
            wall = _f(r.get("wall_us")) if ok else ""
            rows.append([_size(r), r.get("divisor_bits", r["bits"]), us, kern, wall, g[0], g[1],
                         _x(r.get("speedup_gmpy2_wall")),
                         f">= {t['value']:g}x" if t.get("value") else "–", _verdict(t)])
    if samples:
        notes.append("gmpy2 µs marked * were timed on the first k instances of the batch and scaled up "
                     "by n/k (k of n: " + ", ".join(samples) + ")")
    gh = ["gmpy2 µs", "× gmpy2"]
    headers = {
        "add": ["bits", "n", "µs", "kernels", "GB/s", "of copy", *gh, "H100 proto µs", "H100 CGBN µs",
                "target", "verdict"],
        "add6": ["bits", "n", "µs", "kernels", "GB/s", "× 1-Add", *gh, "H100 proto µs", "H100 × 1-Add",
                 "target", "verdict"],
        "mul": ["bits", "n", "µs", "kernels", "Gu32ops/s", *gh, "H100 proto µs", "H100 CGBN µs",
                "target µs", "verdict"],
        "poly": ["bits", "n", "µs", "kernels", *gh, "H100 proto µs", "H100 CGBN µs", "target µs", "verdict"],
        "div": ["bits", "divisor bits", "n", "µs", "kernels", "× 1-Mul", *gh, "H100 proto µs",
                "H100 CGBN µs", "target µs", "verdict"],
        "hmul": ["bits", "y bits", "device µs", "kernels", "wall µs", "gmpy2 µs", "× gmpy2 (device)",
                 "× gmpy2 (wall)", "target", "verdict"],
        "hdiv": ["bits", "y bits", "device µs", "kernels", "wall µs", "gmpy2 µs", "× gmpy2 (device)",
                 "× gmpy2 (wall)", "target", "verdict"],
    }["mul" if op == "mulc" else op]   # 1-Mul classical: 1-Mul's columns
    return _md_table(headers, rows), notes


BLURBS = {
    "add": "1-Add: `clbig.add_fixed(a, b, bits)` = (a + b) mod 2^bits and its carry. "
           "GB/s counts 3·n·bits/8 bytes (two operands read, one result written).",
    "add6": "6-Add: `clbig.fused.six_add(a, b)` = 6a + 10b mod 2^bits in one kernel. "
            "GB/s with the same 3·n·bits/8 bytes; × 1-Add = time over 1-Add's time.",
    "mul": "1-Mul: `clbig.mul_low(a, b)` = a·b mod 2^bits. Gu32ops/s counts n·m·m 32-bit "
           "multiply-adds with m = bits/32 (the papers' count, although the low half needs only "
           "about half of them). gmpy2 has no low-half product: it computes the full one and masks.",
    "mulc": "1-Mul classical: `clbig.mul_low(a, b, algorithm=\"classical\")`, the papers' "
            "convolution at every size (1-Mul above takes the NTT where that is faster); counted "
            "and compared as 1-Mul.",
    "poly": "Poly: `clbig.fused.poly(a, b, fused=True)` = (a·a + b)·(b·b + b) + a·b mod 2^bits in one "
            "kernel (classical products, the two squares at half the work) wherever it fits the device's "
            "local memory (to 2^17 bits on 48 KiB), else product by product. `clbig.fused.poly(a, b)` "
            "(auto) goes product by product with the NTT where that is faster (from 2^15 bits).",
    "div": "Div: `clbig.divmod(a, b)`, quotient and remainder, dividend of `bits` bits, divisor of "
           "half as many (top limb made odd, so never zero); × 1-Mul = time over 1-Mul's time at the "
           "same size; gmpy2: `f_divmod`. H100 references: issue 4 (prototype: divisors of 2..m/2 "
           "limbs; CGBN `cgbn_div_rem`, divisors of m/2−3 words).",
    "hmul": "Huge-Mul: one product of two Python ints of `bits` bits, `clbig.mul(x, y)`. Device µs: "
            "the kernels (profiling events); wall µs: the whole call from Python ints to the Python "
            "int result (conversion, transfers, kernels, read-back). gmpy2: `x * y` on mpz.",
    "hdiv": "Huge-Div: one division of a `bits`-bit Python int by one of bits/2 bits, "
            "`clbig.divmod(x, y)`; device and wall µs as for Huge-Mul. gmpy2: `f_divmod`.",
}


def markdown(res: dict) -> str:
    d, sw, cfg = res["device"], res["software"], res["config"]
    copy = res.get("copy") or {}
    scale = cfg["scale"]
    L = [f"# clbig benchmark: {d['name']}", ""]
    L += [f"- date: {res['date']}",
          f"- device: {d['name']} ({d['type']}, {d['compute_units']} compute units, "
          f"{human_bytes(d['global_mem_bytes'])}), platform {d['platform']} ({d['platform_version']})",
          f"- driver: {d['driver_version']}; device OpenCL: {d['device_version']}",
          f"- clbig {sw.get('clbig_version')}" + (f" (git {sw['git_commit']})" if sw.get("git_commit") else "")
          + f"; pyopencl {sw.get('pyopencl')}; numpy {sw.get('numpy')}; gmpy2 {sw.get('gmpy2')}; "
          f"Python {sw.get('python')}",
          f"- batch: {cfg['batch']}; {cfg['reps']} timed launches after a warm-up, median of the "
          "device time from OpenCL profiling events (first kernel start to last kernel end)",
          "- spot checks: instances 0, 1, 2 and n-1 of every op against gmpy2"
          + ("" if cfg.get("check", True) else " — DISABLED (--no-check)")]
    if cfg.get("gmpy2_seconds"):
        L.append(f"- gmpy2 column: host CPU {sw.get('host_cpu', '?')}; {cfg.get('gmpy2', '')}")
    else:
        L.append("- gmpy2 column: not measured (--gmpy2-seconds 0)")
    if copy.get("GBps"):
        L.append(f"- copy bandwidth: {copy['GBps']:.1f} GB/s (buffer-to-buffer copy of "
                 f"{human_bytes(copy['bytes'])}, bytes read + written, median of {copy['reps']})")
    elif copy.get("error"):
        L.append(f"- copy bandwidth: failed: {copy['error']}")
    L.append(f"- status: {res.get('status')}" + (f", {res['elapsed_s']:.0f} s" if res.get("elapsed_s") else ""))
    if res.get("abort"):
        L += ["", "**ABORTED: wrong result**", "", "```", res["abort"], "```"]
    L += ["", f"H100 columns: {REFERENCES['source']}, in {REFERENCES['unit']}; they line up "
          "with this run's µs only on a full-size run (scale 0). × gmpy2: gmpy2's time over the "
          "device's (above 1: the device is faster)."]
    if res.get("targets_comparable"):
        L[-1] += " The H100 targets (1-Mul, Poly, Div µs) are judged on this run."
    elif scale:
        L[-1] += (f" This run is at scale {scale} (batches 2^{scale}x smaller), so they are context "
                  "only and the H100 targets are not judged.")
    else:
        L[-1] += (" This device is not an H100, so the H100 targets are shown but not judged "
                  "(--force-targets judges them anyway).")
    for s in res.get("notes") or []:
        L.append(f"Note: {s}")
    for op in cfg["ops"]:
        if op not in OPS:
            continue
        table, notes = op_table(res, op)
        L += ["", f"## {OPS[op].label}", "", BLURBS[op], "", table]
        if notes:
            L += [""] + [f"- {n}" for n in notes]
    table = modular.rate_table(res)
    if table:
        L += ["", "## Modular arithmetic", "", modular.BLURB, "", table]
    # target summary
    L += ["", "## Targets", ""]
    rows = []
    for op in cfg["ops"]:
        if op not in OPS:
            continue
        ts = [r.get("target") for r in res["results"] if r["op"] == op]
        judged = [t for t in ts if t and t.get("pass") is not None]
        npass = sum(1 for t in judged if t["pass"])
        verdict = "–" if not judged else ("pass" if npass == len(judged) else "**FAIL**")
        rows.append([OPS[op].label, TARGET_TEXT[op], f"{npass}/{len(judged)}", verdict])
    L.append(_md_table(["op", "target", "sizes passing", "verdict"], rows))
    return "\n".join(L) + "\n"


# -- several devices side by side ------------------------------------------------------------------
_PLATFORM_SHORT = {"Portable Computing Language": "PoCL", "NVIDIA CUDA": "NVIDIA",
                   "AMD Accelerated Parallel Processing": "AMD", "Intel(R) OpenCL Graphics": "Intel"}


def device_label(res: dict) -> str:
    d = res["device"]
    return f"{d['name']} ({_PLATFORM_SHORT.get(d['platform'], d['platform'])})"


def comparison_markdown(results: list) -> str:
    """One table: a row per op and size, a column per device: µs and the speed-up over gmpy2."""
    for res in results:
        if not all("target" in r for r in res["results"]):
            evaluate(res)
    labels = [device_label(r) for r in results]
    L = ["# clbig benchmark: devices side by side", ""]
    for i, res in enumerate(results):
        d, sw, cfg = res["device"], res["software"], res["config"]
        L.append(f"- [{i + 1}] {d['name']} ({d['type']}, {d['compute_units']} compute units), "
                 f"platform {d['platform']}, driver {d['driver_version']}; clbig "
                 f"{sw.get('clbig_version')}; {res['date']}; scale {cfg['scale']}, {cfg['reps']} reps")
    hc = results[0]["software"].get("host_cpu", "?") if results else "?"
    L += ["", "Cells: µs per batch (device time) and, in brackets, the speed-up over gmpy2 on the host "
          f"CPU ({hc}, one thread; gmpy2 µs marked * were timed on a sample of the batch and scaled "
          "up). Huge ops: one instance, device µs (wall µs in the JSON/CSV).", ""]
    headers = ["op", "bits", "n", "gmpy2 µs"] + [f"[{i + 1}] {lab}" for i, lab in enumerate(labels)]
    rows = [["copy", "", "", "", *[_f((r.get("copy") or {}).get("GBps")) + " GB/s"
                                   if (r.get("copy") or {}).get("GBps") else "–" for r in results]]]
    keys = []
    for res in results:
        for r in res["results"]:
            k = (r["op"], r["bits"])
            if k not in keys:
                keys.append(k)
    order = {op: i for i, op in enumerate(OPS)}
    keys.sort(key=lambda k: (order.get(k[0], 99), k[1]))
    for op, bits in keys:
        recs = [next((r for r in res["results"] if r["op"] == op and r["bits"] == bits), None)
                for res in results]
        first = next(r for r in recs if r is not None)
        g = next((r for r in recs if r is not None and r.get("gmpy2_us") is not None), None)
        cells = []
        for r in recs:
            if r is None:
                cells.append("–")
            elif r["status"] != "ok":
                cells.append(_status_cell(r))
            else:
                sp = r.get("speedup_gmpy2")
                cells.append(_f(r["us"]) + (f" ({_x(sp)})" if sp else ""))
        rows.append([OPS[op].label if op in OPS else op, _size(first), first["n"],
                     _gmpy2_cells(g)[0] if g else "–", *cells])
    L.append(_md_table(headers, rows))
    # 1-Add against each device's own copy bandwidth
    add_rows = [(op, bits) for op, bits in keys if op == "add"]
    if add_rows:
        L += ["", "1-Add bandwidth as a fraction of each device's copy bandwidth:", ""]
        rows = []
        for op, bits in add_rows:
            recs = [next((r for r in res["results"] if r["op"] == op and r["bits"] == bits), None)
                    for res in results]
            first = next(r for r in recs if r is not None)
            rows.append([_size(first), *[f"{r['frac_copy']:.0%}" if r and r.get("frac_copy") is not None
                                         else "–" for r in recs]])
        L.append(_md_table(["bits"] + [f"[{i + 1}]" for i in range(len(results))], rows))
    return "\n".join(L) + "\n"


# -- CSV ------------------------------------------------------------------------------------------
CSV_FIELDS = [
    "device", "device_type", "platform", "driver", "clbig_version", "git_commit", "date", "host_cpu",
    "scale", "op", "label", "bits", "log2_bits", "divisor_bits", "n", "status", "us", "us_min", "us_max",
    "reps", "kernels", "timer", "wall_us", "GBps", "frac_copy", "Gu32ops", "us_per_2^32_bits",
    "ratio_to_add", "ratio_to_mul", "gmpy2_us", "gmpy2_sample", "gmpy2_scaled", "speedup_gmpy2",
    "speedup_gmpy2_wall", "per_second", "gmpy2_per_second", "cgbn_per_second", "vs_cgbn",
    "target", "target_pass", "note",
]


def csv_rows(res: dict) -> list:
    d, sw = res["device"], res["software"]
    head = {"device": d["name"], "device_type": d["type"], "platform": d["platform"],
            "driver": d["driver_version"], "clbig_version": sw.get("clbig_version"),
            "git_commit": sw.get("git_commit", ""), "date": res["date"], "host_cpu": sw.get("host_cpu", ""),
            "scale": res["config"]["scale"]}
    rows = []
    copy = res.get("copy") or {}
    rows.append(dict(head, op="copy", label="copy", status="ok" if copy.get("GBps") else "error",
                     us=copy.get("us"), reps=copy.get("reps"), GBps=copy.get("GBps"),
                     note=copy.get("error", f"{copy.get('bytes', 0)} bytes, read + written")))
    for r in res["results"]:
        row = dict(head)
        row.update({k: r.get(k) for k in CSV_FIELDS if k in r})
        t = r.get("target") or {}
        row["target"] = t.get("value")
        row["target_pass"] = t.get("pass")
        row["note"] = (r.get("note") or "").replace("\n", " ")
        rows.append(row)
    return rows


def to_csv(results: list) -> str:
    buf = io.StringIO()
    w = csv.DictWriter(buf, fieldnames=CSV_FIELDS, extrasaction="ignore", lineterminator="\n")
    w.writeheader()
    for res in results:
        for row in csv_rows(res):
            w.writerow({k: ("" if v is None else v) for k, v in row.items()})
    return buf.getvalue()


# -- files ---------------------------------------------------------------------------------------
def slug(name: str) -> str:
    return re.sub(r"[^a-z0-9]+", "-", name.lower()).strip("-") or "device"


def stem(res: dict) -> str:
    if res.get("file_stem"):
        return res["file_stem"]
    date = re.sub(r"[^0-9T]", "", res["date"][:19]).replace("T", "_")  # 20261122_073012
    return f"{slug(res['device']['name'])}_{date[:8]}_{date[9:]}"


def _write(path: str, text: str) -> None:
    tmp = path + ".tmp"
    with open(tmp, "w", encoding="utf-8") as f:
        f.write(text)
    os.replace(tmp, path)


def write_outputs(res: dict, out_dir: str, force_targets: bool = False) -> dict:
    """(Re)writes <stem>.json, <stem>.csv and <stem>.md; returns their paths."""
    os.makedirs(out_dir, exist_ok=True)
    evaluate(res, force_targets)
    base = os.path.join(out_dir, stem(res))
    paths = {"json": base + ".json", "csv": base + ".csv", "md": base + ".md"}
    _write(paths["json"], json.dumps(res, indent=1, default=str) + "\n")
    _write(paths["csv"], to_csv([res]))
    _write(paths["md"], markdown(res))
    return paths


def write_comparison(results: list, out_dir: str, force_targets: bool = False) -> dict:
    """devices.md (side by side), devices.csv (every device's rows) and devices.json."""
    os.makedirs(out_dir, exist_ok=True)
    for res in results:
        evaluate(res, force_targets)
    paths = {"devices_md": os.path.join(out_dir, "devices.md"),
             "devices_csv": os.path.join(out_dir, "devices.csv"),
             "devices_json": os.path.join(out_dir, "devices.json")}
    _write(paths["devices_md"], comparison_markdown(results))
    _write(paths["devices_csv"], to_csv(results))
    _write(paths["devices_json"], json.dumps(
        {"schema": "clbig-bench-devices/1", "runs": [stem(r) + ".json" for r in results],
         "devices": [device_label(r) for r in results]}, indent=1) + "\n")
    return paths


# -- plots -----------------------------------------------------------------------------------------
def _pyplot():
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        return None
    return plt


def _save(fig, plt, base: str) -> list:
    paths = []
    for ext, kw in (("png", {"dpi": 110}), ("svg", {})):
        p = f"{base}.{ext}"
        fig.savefig(p, **kw)
        paths.append(p)
    plt.close(fig)
    return paths


def _ok(res, op):
    return [r for r in res["results"] if r["op"] == op and r["status"] == "ok" and r.get("log2_bits") is not None]


def _host(res, op):
    return [r for r in res["results"] if r["op"] == op and r.get("gmpy2_us") and r.get("log2_bits") is not None]


# What a throughput panel shows per op: (title, y label, device value, gmpy2 value, higher is better)
def _metric(op):
    full = lambda r: (1 << LOG2_BATCH_BITS) / (r["n"] * r["bits"])  # noqa: E731
    if op in ("add", "add6"):
        return ("GB/s (3·n·bits/8 bytes)", lambda r: r["GBps"],
                lambda r: 3 * r["n"] * r["bits"] / 8 / (r["gmpy2_us"] * 1e-6) / 1e9)
    if op in ("mul", "mulc"):
        return ("Gu32ops/s (n·m², m = bits/32)", lambda r: r["Gu32ops"],
                lambda r: r["n"] * (r["bits"] // 32) ** 2 / (r["gmpy2_us"] * 1e-6) / 1e9)
    if op in ("poly", "div"):
        return ("µs per 2^32 bits per operand", lambda r: r["us_per_2^32_bits"],
                lambda r: r["gmpy2_us"] * full(r))
    return ("µs (one instance)", lambda r: r["us"], lambda r: r["gmpy2_us"])


def plots(res: dict, out_dir: str) -> list:
    """One device: throughput against size (with the H100 references and gmpy2), the speed-up over
    gmpy2, and the add bandwidth as a fraction of the copy bandwidth; PNG and SVG paths."""
    plt = _pyplot()
    if plt is None:
        return []
    if not all("target" in r for r in res["results"]):
        evaluate(res)
    base = os.path.join(out_dir, stem(res))
    name = res["device"]["name"]
    ok = lambda op: _ok(res, op)  # noqa: E731
    copy_bw = (res.get("copy") or {}).get("GBps")
    full_bytes = 3 * (1 << LOG2_BATCH_BITS) // 8
    scale = res["config"]["scale"]
    paths = []
    gm = dict(color="0.35", lw=1, alpha=0.8)

    fig, axes = plt.subplots(2, 2, figsize=(14, 9.5))
    ax = axes[0][0]
    for op, mk, col in (("add", "o", "C0"), ("add6", "s", "C1")):
        rs = ok(op)
        if rs:
            ax.plot([r["log2_bits"] for r in rs], [r["GBps"] for r in rs], mk + "-", color=col,
                    label=f"{OPS[op].label} (clbig)")
        ref = sorted((int(k), v) for k, v in REFERENCES[op]["proto"].items() if _num(v))
        ax.plot([k for k, _ in ref], [full_bytes / v / 1e3 for _, v in ref], mk + "--", color=col,
                alpha=0.4, label=f"{OPS[op].label} H100 proto")
        hs = _host(res, op)
        if hs:
            ax.plot([r["log2_bits"] for r in hs], [_metric(op)[2](r) for r in hs], mk + ":", **gm,
                    label=f"{OPS[op].label} gmpy2 (host)")
    if copy_bw:
        ax.axhline(copy_bw, color="k", lw=1, label=f"copy {copy_bw:.0f} GB/s (this device)")
    ax.set_yscale("log")
    ax.set(title="Add bandwidth", xlabel="log2(bits)", ylabel="GB/s (3·n·bits/8 bytes)")
    ax.legend(fontsize=7)

    ax = axes[0][1]
    for op, mk, label in (("mul", "o-", "1-Mul (clbig)"), ("mulc", "s-", "1-Mul classical (clbig)")):
        rs = ok(op)
        if rs:
            ax.plot([r["log2_bits"] for r in rs], [r["Gu32ops"] for r in rs], mk, color="C2",
                    label=label, alpha=1.0 if op == "mul" else 0.6)
    for impl, mk in (("proto", "o--"), ("cgbn", "^:")):
        ref = sorted((int(k), v) for k, v in REFERENCES["mul"][impl].items() if _num(v))
        ax.plot([k for k, _ in ref], [(1 << LOG2_BATCH_BITS) * (1 << k) // 1024 / v / 1e3 for k, v in ref],
                mk, color="C2", alpha=0.4, label=f"1-Mul H100 {impl}")
    hs = _host(res, "mul")
    if hs:
        ax.plot([r["log2_bits"] for r in hs], [_metric("mul")[2](r) for r in hs], "o:", **gm,
                label="1-Mul gmpy2 (host)")
    ax.set_yscale("log")
    ax.set(title="1-Mul throughput", xlabel="log2(bits)", ylabel="Gu32ops/s (n·m², m = bits/32)")
    ax.legend(fontsize=7)

    ax = axes[1][0]
    for op, mk, col in (("mul", "s", "C2"), ("poly", "o", "C3"), ("div", "D", "C4")):
        rs = ok(op)
        if rs:
            ax.plot([r["log2_bits"] for r in rs], [r["us_per_2^32_bits"] for r in rs], mk + "-", color=col,
                    label=f"{OPS[op].label} (clbig)")
        for impl, ls in (("proto", "--"), ("cgbn", ":")):
            ref = sorted((int(k), v) for k, v in REFERENCES.get(op, {}).get(impl, {}).items() if _num(v))
            if ref:
                ax.plot([k for k, _ in ref], [v for _, v in ref], mk + ls, color=col, alpha=0.4,
                        label=f"{OPS[op].label} H100 {impl}")
        hs = _host(res, op)
        if hs:
            full = lambda r: r["gmpy2_us"] * (1 << LOG2_BATCH_BITS) / (r["n"] * r["bits"])  # noqa: E731
            ax.plot([r["log2_bits"] for r in hs], [full(r) for r in hs], mk + "-.", color=col, alpha=0.6,
                    lw=1, label=f"{OPS[op].label} gmpy2 (host)")
    ax.set_yscale("log")
    ax.set(title="Time per batch of 2^32 bits per operand", xlabel="log2(bits)",
           ylabel="µs (clbig: scaled up by 2^scale)")
    ax.legend(fontsize=7)

    ax = axes[1][1]
    for op, mk, col in (("hmul", "o", "C5"), ("hdiv", "D", "C6")):
        rs = ok(op)
        if rs:
            xs = [r["log2_bits"] for r in rs]
            ax.plot(xs, [r["us"] for r in rs], mk + "-", color=col, label=f"{OPS[op].label} device")
            ax.plot(xs, [r["wall_us"] for r in rs], mk + "--", color=col, alpha=0.6,
                    label=f"{OPS[op].label} wall (with transfers)")
        hs = _host(res, op)
        if hs:
            ax.plot([r["log2_bits"] for r in hs], [r["gmpy2_us"] for r in hs], mk + ":", **gm,
                    label=f"{OPS[op].label} gmpy2 (host)")
    ax.set_yscale("log")
    ax.set(title="Single huge product / division", xlabel="log2(bits) per operand", ylabel="µs")
    if ax.get_legend_handles_labels()[0]:
        ax.legend(fontsize=7)
    fig.suptitle(f"clbig on {name}" + (f" — scale {scale}: batches 2^{scale}x smaller than the references'"
                                        if scale else ""))
    fig.tight_layout()
    paths += _save(fig, plt, base + "_throughput")

    # speed-up over gmpy2
    fig, ax = plt.subplots(figsize=(8, 5))
    drawn = False
    for i, op in enumerate(OPS):
        rs = [r for r in ok(op) if r.get("speedup_gmpy2")]
        if rs:
            ax.plot([r["log2_bits"] for r in rs], [r["speedup_gmpy2"] for r in rs], "o-", color=f"C{i}",
                    label=OPS[op].label + (" (device)" if OPS[op].huge else ""))
            drawn = True
        rs = [r for r in rs if r.get("speedup_gmpy2_wall")]
        if rs:
            ax.plot([r["log2_bits"] for r in rs], [r["speedup_gmpy2_wall"] for r in rs], "o--",
                    color=f"C{i}", alpha=0.6, label=OPS[op].label + " (wall)")
    ax.axhline(1.0, color="k", lw=0.8)
    ax.set_yscale("log")
    ax.set(title=f"Speed-up over gmpy2 on the host CPU (one thread) — {name}", xlabel="log2(bits)",
           ylabel="gmpy2 time / device time")
    if drawn:
        ax.legend(fontsize=8)
    fig.tight_layout()
    paths += _save(fig, plt, base + "_speedup_gmpy2")

    if copy_bw:
        fig, ax = plt.subplots(figsize=(7, 4.5))
        for op, mk in (("add", "o-"), ("add6", "s-")):
            rs = [r for r in ok(op) if r.get("frac_copy") is not None]
            if rs:
                ax.plot([r["log2_bits"] for r in rs], [r["frac_copy"] for r in rs], mk, label=OPS[op].label)
        ax.axhline(ADD_COPY_FRACTION, color="r", ls="--", lw=1, label=f"target {ADD_COPY_FRACTION:.0%}")
        ax.axhline(1.0, color="k", lw=0.8)
        ax.set(title=f"Add bandwidth / copy bandwidth ({copy_bw:.0f} GB/s) — {name}",
               xlabel="log2(bits)", ylabel="fraction of copy bandwidth")
        ax.set_ylim(bottom=0)
        ax.legend(fontsize=8)
        fig.tight_layout()
        paths += _save(fig, plt, base + "_add_vs_copy")
    fig = modular.rate_plot(res, plt, f"Modular arithmetic — {name}")
    if fig is not None:
        paths += _save(fig, plt, base + "_modular")
    return paths


def comparison_plots(results: list, out_dir: str) -> list:
    """Several devices: devices_throughput, devices_speedup_gmpy2 and devices_add_vs_copy (PNG, SVG),
    a line per device in each panel."""
    plt = _pyplot()
    if plt is None:
        return []
    for res in results:
        if not all("target" in r for r in res["results"]):
            evaluate(res)
    labels = [f"[{i + 1}] {device_label(r)}" for i, r in enumerate(results)]
    ops = [op for op in OPS if any(_ok(res, op) or _host(res, op) for res in results)]
    paths = []
    if ops:
        cols = min(4, len(ops))
        rows = -(-len(ops) // cols)
        fig, axes = plt.subplots(rows, cols, figsize=(4.6 * cols, 4 * rows), squeeze=False)
        for ax, op in zip(axes.flat, ops):
            ylabel, dev_v, host_v = _metric(op)
            for i, (res, lab) in enumerate(zip(results, labels)):
                rs = _ok(res, op)
                if rs:
                    ax.plot([r["log2_bits"] for r in rs], [dev_v(r) for r in rs], "o-", color=f"C{i}", label=lab)
            hs = next((_host(res, op) for res in results if _host(res, op)), [])
            if hs:
                ax.plot([r["log2_bits"] for r in hs], [host_v(r) for r in hs], "k:", lw=1, label="gmpy2 (host)")
            ax.set_yscale("log")
            ax.set(title=OPS[op].label, xlabel="log2(bits)", ylabel=ylabel)
            ax.legend(fontsize=6)
        for ax in list(axes.flat)[len(ops):]:
            ax.set_visible(False)
        fig.suptitle("clbig throughput by device (add, mul: higher is better; times: lower is better)")
        fig.tight_layout()
        paths += _save(fig, plt, os.path.join(out_dir, "devices_throughput"))

    sp_ops = [op for op in OPS if any(r.get("speedup_gmpy2") for res in results for r in _ok(res, op))]
    if sp_ops:
        cols = min(4, len(sp_ops))
        rows = -(-len(sp_ops) // cols)
        fig, axes = plt.subplots(rows, cols, figsize=(4.6 * cols, 4 * rows), squeeze=False)
        for ax, op in zip(axes.flat, sp_ops):
            for i, (res, lab) in enumerate(zip(results, labels)):
                rs = [r for r in _ok(res, op) if r.get("speedup_gmpy2")]
                if rs:
                    ax.plot([r["log2_bits"] for r in rs], [r["speedup_gmpy2"] for r in rs], "o-",
                            color=f"C{i}", label=lab)
            ax.axhline(1.0, color="k", lw=0.8)
            ax.set_yscale("log")
            ax.set(title=OPS[op].label, xlabel="log2(bits)", ylabel="gmpy2 time / device time")
            ax.legend(fontsize=6)
        for ax in list(axes.flat)[len(sp_ops):]:
            ax.set_visible(False)
        fig.suptitle("Speed-up over gmpy2 on the host CPU (one thread), by device")
        fig.tight_layout()
        paths += _save(fig, plt, os.path.join(out_dir, "devices_speedup_gmpy2"))

    if any(r.get("frac_copy") is not None for res in results for r in _ok(res, "add")):
        fig, ax = plt.subplots(figsize=(8, 5))
        for i, (res, lab) in enumerate(zip(results, labels)):
            for op, ls in (("add", "o-"), ("add6", "s--")):
                rs = [r for r in _ok(res, op) if r.get("frac_copy") is not None]
                if rs:
                    bw = res["copy"]["GBps"]
                    ax.plot([r["log2_bits"] for r in rs], [r["frac_copy"] for r in rs], ls, color=f"C{i}",
                            label=f"{OPS[op].label} {lab} (copy {bw:.0f} GB/s)")
        ax.axhline(ADD_COPY_FRACTION, color="r", ls="--", lw=1, label=f"target {ADD_COPY_FRACTION:.0%}")
        ax.axhline(1.0, color="k", lw=0.8)
        ax.set_ylim(bottom=0)
        ax.set(title="Add bandwidth / each device's copy bandwidth", xlabel="log2(bits)",
               ylabel="fraction of copy bandwidth")
        ax.legend(fontsize=7)
        fig.tight_layout()
        paths += _save(fig, plt, os.path.join(out_dir, "devices_add_vs_copy"))
    return paths


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(prog="python -m clbig.bench.report",
                                 description="Re-render saved clbig.bench JSON files as markdown (stdout).")
    ap.add_argument("json", nargs="+", help="one <device>_<date>.json per device")
    ap.add_argument("--plots", action="store_true", help="also (re)draw the figures beside the first JSON")
    ap.add_argument("--force-targets", action="store_true",
                    help="judge the H100 targets whatever the device and scale")
    args = ap.parse_args(argv)
    results = []
    for path in args.json:
        try:
            with open(path, encoding="utf-8") as f:
                res = json.load(f)
            if not isinstance(res, dict) or not isinstance(res.get("results"), list):
                raise ValueError("no list of results")
            res.setdefault("file_stem", os.path.splitext(os.path.basename(path))[0])
            evaluate(res, args.force_targets)
        except OSError as e:
            print(f"clbig.bench.report: {path}: {e.strerror or e}", file=sys.stderr)
            return 2
        except (ValueError, KeyError, TypeError, AttributeError) as e:   # JSON of another shape
            why = f"missing {e}" if isinstance(e, KeyError) else str(e)
            print(f"clbig.bench.report: {path}: not a clbig.bench result ({why})", file=sys.stderr)
            return 2
        results.append(res)
        sys.stdout.write(markdown(res))
    if len(results) > 1:
        sys.stdout.write("\n" + comparison_markdown(results))
    if args.plots:
        out = os.path.dirname(os.path.abspath(args.json[0]))
        paths = [p for res in results for p in plots(res, out)]
        if len(results) > 1:
            paths += comparison_plots(results, out)
        for p in paths:
            print(p, file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
