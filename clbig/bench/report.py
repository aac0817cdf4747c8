"""Targets, tables, files and plots of a clbig.bench results dict.

`python -m clbig.bench.report RESULTS.json [--plots]` re-renders a saved run's markdown report
(to stdout) and, with --plots, its PNGs beside the JSON.
"""
from __future__ import annotations

import argparse
import json
import os
import re
import sys

from .suite import LOG2_BATCH_BITS, OPS, REFERENCES, human_bytes

# -- targets -----------------------------------------------------------------------------------
ADD_COPY_FRACTION = 0.90  # 1-Add at >= 90 % of the device's copy bandwidth
ADD6_RATIO = 2.0  # 6-Add time <= 2x 1-Add time
MUL_VS_PROTO = 1.1  # 1-Mul <= 1.1x the prototype ...
MUL_VS_CGBN = 1.3  # ... and <= 1.3x CGBN where CGBN is faster
POLY_VS_PROTO = 1.1  # Poly <= 1.1x the prototype

TARGET_TEXT = {
    "add": f"1-Add bandwidth >= {ADD_COPY_FRACTION:.0%} of this device's copy bandwidth (any device)",
    "add6": f"6-Add time <= {ADD6_RATIO:g}x 1-Add time at the same size (any device)",
    "mul": f"1-Mul time <= {MUL_VS_PROTO:g}x H100 proto, and <= {MUL_VS_CGBN:g}x H100 CGBN where CGBN "
           f"is faster (H100, full-size batches only)",
    "poly": f"Poly time <= {POLY_VS_PROTO:g}x H100 proto (H100, full-size batches only)",
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
    add_us = {r["bits"]: r["us"] for r in res["results"] if r["op"] == "add" and r["status"] == "ok"}
    for r in res["results"]:
        lg = r.get("log2_bits")
        t = {"rule": TARGET_TEXT[r["op"]], "value": None, "pass": None}
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
        elif r["op"] in ("mul", "poly"):
            bounds = []
            p = _ref(r["op"], "proto", lg)
            c = _ref(r["op"], "cgbn", lg)
            if r["op"] == "mul":
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


def op_table(res: dict, op: str) -> tuple:
    recs = [r for r in res["results"] if r["op"] == op]
    notes = []
    rows = []
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
        p, c = _ref(op, "proto", lg), _ref(op, "cgbn", lg)
        if op == "add":
            frac = r.get("frac_copy")
            rows.append([_size(r), r["n"], us, kern, _f(r.get("GBps")) if ok else "",
                         f"{frac:.0%}" if frac is not None else "–", _f(p), _f(c),
                         f">= {ADD_COPY_FRACTION:.0%}", _verdict(t)])
        elif op == "add6":
            ratio = r.get("ratio_to_add")
            pa = _ref("add", "proto", lg)
            href = f"{p / pa:.2f}x" if _num(p) and _num(pa) else "–"
            rows.append([_size(r), r["n"], us, kern, _f(r.get("GBps")) if ok else "",
                         f"{ratio:.2f}x" if ratio is not None else "–", _f(p), href,
                         f"<= {ADD6_RATIO:g}x", _verdict(t)])
        elif op == "mul":
            rows.append([_size(r), r["n"], us, kern, _f(r.get("Gu32ops")) if ok else "", _f(p), _f(c),
                         _f(t.get("value")), _verdict(t)])
        elif op == "poly":
            rows.append([_size(r), r["n"], us, kern, _f(p), _f(c), _f(t.get("value")), _verdict(t)])
    headers = {
        "add": ["bits", "n", "µs", "kernels", "GB/s", "of copy", "H100 proto µs", "H100 CGBN µs", "target",
                "verdict"],
        "add6": ["bits", "n", "µs", "kernels", "GB/s", "× 1-Add", "H100 proto µs", "H100 × 1-Add", "target",
                 "verdict"],
        "mul": ["bits", "n", "µs", "kernels", "Gu32ops/s", "H100 proto µs", "H100 CGBN µs", "target µs",
                "verdict"],
        "poly": ["bits", "n", "µs", "kernels", "H100 proto µs", "H100 CGBN µs", "target µs", "verdict"],
    }[op]
    return _md_table(headers, rows), notes


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
          + f"; pyopencl {sw.get('pyopencl')}; numpy {sw.get('numpy')}; Python {sw.get('python')}",
          f"- batch: {cfg['batch']}; {cfg['reps']} timed launches after a warm-up, median of the "
          "device time from OpenCL profiling events (first kernel start to last kernel end)",
          "- spot checks: instances 0, 1, 2 and n-1 of every op against gmpy2"
          + ("" if cfg.get("check", True) else " — DISABLED (--no-check)")]
    if copy.get("GBps"):
        L.append(f"- copy bandwidth: {copy['GBps']:.1f} GB/s (buffer-to-buffer copy of "
                 f"{human_bytes(copy['bytes'])}, bytes read + written, median of {copy['reps']})")
    elif copy.get("error"):
        L.append(f"- copy bandwidth: failed: {copy['error']}")
    L.append(f"- status: {res.get('status')}" + (f", {res['elapsed_s']:.0f} s" if res.get("elapsed_s") else ""))
    if res.get("abort"):
        L += ["", "**ABORTED: wrong result**", "", "```", res["abort"], "```"]
    L += ["", f"H100 columns: {REFERENCES['source']}, in {REFERENCES['unit']}; they line up "
          "with this run's µs only on a full-size run (scale 0)."]
    if res.get("targets_comparable"):
        L[-1] += " The H100 targets (1-Mul, Poly) are judged on this run."
    elif scale:
        L[-1] += (f" This run is at scale {scale} (batches 2^{scale}x smaller), so they are context "
                  "only and the H100 targets are not judged.")
    else:
        L[-1] += (" This device is not an H100, so the H100 targets are shown but not judged "
                  "(--force-targets judges them anyway).")
    for s in res.get("notes") or []:
        L.append(f"Note: {s}")
    blurbs = {
        "add": "1-Add: `clbig.add_fixed(a, b, bits)` = (a + b) mod 2^bits and its carry. "
               "GB/s counts 3·n·bits/8 bytes (two operands read, one result written).",
        "add6": "6-Add: `clbig.fused.six_add(a, b)` = 6a + 10b mod 2^bits in one kernel. "
                "GB/s with the same 3·n·bits/8 bytes; × 1-Add = time over 1-Add's time.",
        "mul": "1-Mul: `clbig.mul_low(a, b)` = a·b mod 2^bits. Gu32ops/s counts n·m·m 32-bit "
               "multiply-adds with m = bits/32 (the papers' count, although the low half needs only "
               "about half of them).",
        "poly": "Poly: `clbig.fused.poly(a, b)` = (a·a + b)·(b·b + b) + a·b mod 2^bits in one kernel.",
    }
    for op in cfg["ops"]:
        table, notes = op_table(res, op)
        L += ["", f"## {OPS[op].label}", "", blurbs[op], "", table]
        if notes:
            L += [""] + [f"- {n}" for n in notes]
    # target summary
    L += ["", "## Targets", ""]
    rows = []
    for op in cfg["ops"]:
        ts = [r.get("target") for r in res["results"] if r["op"] == op]
        judged = [t for t in ts if t and t.get("pass") is not None]
        npass = sum(1 for t in judged if t["pass"])
        verdict = "–" if not judged else ("pass" if npass == len(judged) else "**FAIL**")
        rows.append([OPS[op].label, TARGET_TEXT[op], f"{npass}/{len(judged)}", verdict])
    L.append(_md_table(["op", "target", "sizes passing", "verdict"], rows))
    return "\n".join(L) + "\n"


# -- files ---------------------------------------------------------------------------------------
def slug(name: str) -> str:
    return re.sub(r"[^a-z0-9]+", "-", name.lower()).strip("-") or "device"


def stem(res: dict) -> str:
    date = re.sub(r"[^0-9T]", "", res["date"][:19]).replace("T", "_")  # 20261122_073012
    return f"{slug(res['device']['name'])}_{date[:8]}_{date[9:]}"


def write_outputs(res: dict, out_dir: str, force_targets: bool = False) -> dict:
    """(Re)writes <stem>.json and <stem>.md; returns their paths."""
    os.makedirs(out_dir, exist_ok=True)
    evaluate(res, force_targets)
    base = os.path.join(out_dir, stem(res))
    paths = {"json": base + ".json", "md": base + ".md"}
    for key, text in (("json", json.dumps(res, indent=1, default=str) + "\n"), ("md", markdown(res))):
        tmp = paths[key] + ".tmp"
        with open(tmp, "w", encoding="utf-8") as f:
            f.write(text)
        os.replace(tmp, paths[key])
    return paths


def plots(res: dict, out_dir: str) -> list:
    """Throughput vs size, and add bandwidth as a fraction of copy bandwidth; PNG paths."""
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        return []
    if not all("target" in r for r in res["results"]):
        evaluate(res)
    base = os.path.join(out_dir, stem(res))
    name = res["device"]["name"]
    ok = lambda op: [r for r in res["results"] if r["op"] == op and r["status"] == "ok"  # noqa: E731
                     and r.get("log2_bits") is not None]
    copy_bw = (res.get("copy") or {}).get("GBps")
    full_bytes = 3 * (1 << LOG2_BATCH_BITS) // 8
    paths = []

    fig, axes = plt.subplots(1, 3, figsize=(16, 4.8))
    ax = axes[0]
    for op, mk, col in (("add", "o", "C0"), ("add6", "s", "C1")):
        rs = ok(op)
        if rs:
            ax.plot([r["log2_bits"] for r in rs], [r["GBps"] for r in rs], mk + "-", color=col,
                    label=f"{OPS[op].label} (clbig)")
        ref = sorted((int(k), v) for k, v in REFERENCES[op]["proto"].items() if _num(v))
        ax.plot([k for k, _ in ref], [full_bytes / v / 1e3 for _, v in ref], mk + "--", color=col,
                alpha=0.4, label=f"{OPS[op].label} H100 proto")
    if copy_bw:
        ax.axhline(copy_bw, color="k", lw=1, label=f"copy {copy_bw:.0f} GB/s (this device)")
    ax.set_yscale("log")
    ax.set(title="Add bandwidth", xlabel="log2(bits)", ylabel="GB/s (3·n·bits/8 bytes)")
    ax.legend(fontsize=8)

    ax = axes[1]
    rs = ok("mul")
    if rs:
        ax.plot([r["log2_bits"] for r in rs], [r["Gu32ops"] for r in rs], "o-", color="C2",
                label="1-Mul (clbig)")
    for impl, mk in (("proto", "o--"), ("cgbn", "^:")):
        ref = sorted((int(k), v) for k, v in REFERENCES["mul"][impl].items() if _num(v))
        ax.plot([k for k, _ in ref], [(1 << LOG2_BATCH_BITS) * (1 << k) // 1024 / v / 1e3 for k, v in ref],
                mk, color="C2", alpha=0.4, label=f"1-Mul H100 {impl}")
    ax.set_yscale("log")
    ax.set(title="1-Mul throughput", xlabel="log2(bits)", ylabel="Gu32ops/s (n·m², m = bits/32)")
    ax.legend(fontsize=8)

    ax = axes[2]
    for op, mk, col in (("mul", "s", "C2"), ("poly", "o", "C3")):
        rs = ok(op)
        if rs:
            ax.plot([r["log2_bits"] for r in rs], [r["us_per_2^32_bits"] for r in rs], mk + "-", color=col,
                    label=f"{OPS[op].label} (clbig)")
        for impl, ls in (("proto", "--"), ("cgbn", ":")):
            ref = sorted((int(k), v) for k, v in REFERENCES[op][impl].items() if _num(v))
            ax.plot([k for k, _ in ref], [v for _, v in ref], mk + ls, color=col, alpha=0.4,
                    label=f"{OPS[op].label} H100 {impl}")
    ax.set_yscale("log")
    ax.set(title="Time per batch of 2^32 bits per operand", xlabel="log2(bits)",
           ylabel="µs (clbig: scaled up by 2^scale)")
    ax.legend(fontsize=8)
    scale = res["config"]["scale"]
    fig.suptitle(f"clbig on {name}" + (f" — scale {scale}: batches 2^{scale}x smaller than the references'"
                                        if scale else ""))
    fig.tight_layout()
    p = base + "_throughput.png"
    fig.savefig(p, dpi=110)
    plt.close(fig)
    paths.append(p)

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
        p = base + "_add_vs_copy.png"
        fig.savefig(p, dpi=110)
        plt.close(fig)
        paths.append(p)
    return paths


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(prog="python -m clbig.bench.report",
                                 description="Re-render a saved clbig.bench JSON as markdown (stdout).")
    ap.add_argument("json")
    ap.add_argument("--plots", action="store_true", help="also (re)draw the PNGs beside the JSON")
    ap.add_argument("--force-targets", action="store_true",
                    help="judge the H100 targets whatever the device and scale")
    args = ap.parse_args(argv)
    with open(args.json, encoding="utf-8") as f:
        res = json.load(f)
    evaluate(res, args.force_targets)
    sys.stdout.write(markdown(res))
    if args.plots:
        for p in plots(res, os.path.dirname(os.path.abspath(args.json))):
            print(p, file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
