"""Tables of clbig.bench results: the markdown report of a run, the side-by-side table of
several devices, the CSV rows, and the names of a run's files."""
from __future__ import annotations

import csv
import io
import re

from . import modular
from .inputs import human_bytes
from .references import REFERENCES, _ref, evaluate
from .specs import OPS


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


class Cells:
    """What the columns of an op's table (specs.Col) read for one record, looked up and
    formatted once: ok, t (its target), size, us, kernels, gmpy2 (µs, speed-up), proto and cgbn
    (the H100 references of its spec's ref_key), verdict; f, x and ref(op, impl) as helpers."""
    f = staticmethod(_f)
    x = staticmethod(_x)

    def __init__(self, spec, r: dict):
        self.ok = r["status"] == "ok"
        self.t = r.get("target") or {}
        self.lg = r.get("log2_bits")
        self.size = _size(r)
        self.us = _f(r["us"]) if self.ok else _status_cell(r)
        self.kernels = str(r.get("kernels", "")) if self.ok else ""
        self.gmpy2 = _gmpy2_cells(r)
        self.proto, self.cgbn = self.ref(spec.ref_key, "proto"), self.ref(spec.ref_key, "cgbn")
        self.verdict = _verdict(self.t)

    def ref(self, op: str, impl: str):
        return _ref(op, impl, self.lg)


def _row_notes(r: dict, notes: list, samples: list) -> None:
    ok = r["status"] == "ok"
    if not ok and r.get("note"):
        notes.append(f"{_size(r)}: {r['status']}: {r['note']}")
    elif ok and r.get("note"):
        notes.append(f"{_size(r)}: {r['note']}")
    if r.get("gmpy2_error"):
        notes.append(f"{_size(r)}: gmpy2 timing failed: {r['gmpy2_error']}")
    if r.get("gmpy2_scaled"):
        samples.append(f"{r['gmpy2_sample']} of {r['n']} at {_size(r)}")


def op_table(res: dict, op: str) -> tuple:
    """(markdown table, notes) of op's records: a row per size, the columns of OPS[op]."""
    spec = OPS[op]
    notes, samples, rows = [], [], []
    for r in res["results"]:
        if r["op"] != op:
            continue
        _row_notes(r, notes, samples)
        cells = Cells(spec, r)
        rows.append([col.cell(r, cells) for col in spec.columns])
    if samples:
        notes.append("gmpy2 µs marked * were timed on the first k instances of the batch and scaled up "
                     "by n/k (k of n: " + ", ".join(samples) + ")")
    return _md_table([col.header for col in spec.columns], rows), notes


def __getattr__(name):
    # BLURBS, as before the blurbs moved into the specs: built when asked for, so it follows OPS
    if name == "BLURBS":
        return {k: o.blurb for k, o in OPS.items()}
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


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
        L += ["", f"## {OPS[op].label}", "", OPS[op].blurb, "", table]
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
        rows.append([OPS[op].label, OPS[op].target_text, f"{npass}/{len(judged)}", verdict])
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
    # ops with OpSpec.copy_table (1-Add) against each device's own copy bandwidth
    for spec in (o for o in OPS.values() if o.copy_table):
        add_rows = [(op, bits) for op, bits in keys if op == spec.key]
        if not add_rows:
            continue
        L += ["", f"{spec.label} bandwidth as a fraction of each device's copy bandwidth:", ""]
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



# -- file names ----------------------------------------------------------------------------------
def slug(name: str) -> str:
    return re.sub(r"[^a-z0-9]+", "-", name.lower()).strip("-") or "device"


def stem(res: dict) -> str:
    if res.get("file_stem"):
        return res["file_stem"]
    date = re.sub(r"[^0-9T]", "", res["date"][:19]).replace("T", "_")  # 20261122_073012
    return f"{slug(res['device']['name'])}_{date[:8]}_{date[9:]}"

