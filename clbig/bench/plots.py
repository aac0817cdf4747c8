"""Figures of clbig.bench results (PNG and SVG): one device's throughput, speed-up over gmpy2
and add bandwidth against its copy bandwidth, and the same side by side for several devices."""
from __future__ import annotations

import os

from . import modular
from .inputs import LOG2_BATCH_BITS
from .references import ADD_COPY_FRACTION, REFERENCES, _num, evaluate
from .specs import OPS
from .tables import device_label, stem


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


_GMPY2_LINE = dict(color="0.35", lw=1, alpha=0.8)


def _plot_host(ax, res, op, mk, value):
    """op's gmpy2 (host) line: value(row) at each size that has a gmpy2 time."""
    hs = _host(res, op)
    if hs:
        ax.plot([r["log2_bits"] for r in hs], [value(r) for r in hs], mk + ":", **_GMPY2_LINE,
                label=f"{OPS[op].label} gmpy2 (host)")


def _host(res, op):
    return [r for r in res["results"] if r["op"] == op and r.get("gmpy2_us") and r.get("log2_bits") is not None]


# What a throughput panel shows for an op of each OpSpec.kind: (y label, device value, gmpy2 value)
def _metric(op):
    full = lambda r: (1 << LOG2_BATCH_BITS) / (r["n"] * r["bits"])  # noqa: E731
    kind = OPS[op].kind if op in OPS else "huge"
    if kind == "bandwidth":
        return ("GB/s (3·n·bits/8 bytes)", lambda r: r["GBps"],
                lambda r: 3 * r["n"] * r["bits"] / 8 / (r["gmpy2_us"] * 1e-6) / 1e9)
    if kind == "mul":
        return ("Gu32ops/s (n·m², m = bits/32)", lambda r: r["Gu32ops"],
                lambda r: r["n"] * (r["bits"] // 32) ** 2 / (r["gmpy2_us"] * 1e-6) / 1e9)
    if kind == "time":
        return ("µs per 2^32 bits per operand", lambda r: r["us_per_2^32_bits"],
                lambda r: r["gmpy2_us"] * full(r))
    return ("µs (one instance)", lambda r: r["us"], lambda r: r["gmpy2_us"])


def _in(panel):
    """(op, its mark in that panel, its colour) of the ops drawn in a panel (OpSpec.plot)."""
    return [(k, o.plot.marks[panel], o.plot.colour) for k, o in OPS.items() if panel in o.plot.marks]


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

    fig, axes = plt.subplots(2, 2, figsize=(14, 9.5))
    ax = axes[0][0]
    for op, mk, col in _in("bandwidth"):
        rs = ok(op)
        if rs:
            ax.plot([r["log2_bits"] for r in rs], [r["GBps"] for r in rs], mk + "-", color=col,
                    label=f"{OPS[op].label} (clbig)")
        ref = sorted((int(k), v) for k, v in REFERENCES.get(OPS[op].ref_key, {}).get("proto", {}).items()
                     if _num(v))
        ax.plot([k for k, _ in ref], [full_bytes / v / 1e3 for _, v in ref], mk + "--", color=col,
                alpha=0.4, label=f"{OPS[op].label} H100 proto")
        _plot_host(ax, res, op, mk, lambda r: _metric(op)[2](r))
    if copy_bw:
        ax.axhline(copy_bw, color="k", lw=1, label=f"copy {copy_bw:.0f} GB/s (this device)")
    ax.set_yscale("log")
    ax.set(title="Add bandwidth", xlabel="log2(bits)", ylabel="GB/s (3·n·bits/8 bytes)")
    ax.legend(fontsize=7)

    ax = axes[0][1]
    # variants (OpSpec.variant: 1-Mul classical) fainter, without references or gmpy2 of their own
    for op, mk, col in _in("mul"):
        rs = ok(op)
        if rs:
            ax.plot([r["log2_bits"] for r in rs], [r["Gu32ops"] for r in rs], mk + "-", color=col,
                    label=f"{OPS[op].label} (clbig)", alpha=0.6 if OPS[op].variant else 1.0)
    own = [(op, mk, col) for op, mk, col in _in("mul") if not OPS[op].variant]
    for op, _mk, col in own:
        for impl, mk in (("proto", "o--"), ("cgbn", "^:")):
            ref = sorted((int(k), v) for k, v in REFERENCES.get(op, {}).get(impl, {}).items() if _num(v))
            ax.plot([k for k, _ in ref], [(1 << LOG2_BATCH_BITS) * (1 << k) // 1024 / v / 1e3 for k, v in ref],
                    mk, color=col, alpha=0.4, label=f"{OPS[op].label} H100 {impl}")
    for op, mk, col in own:
        _plot_host(ax, res, op, mk, lambda r: _metric(op)[2](r))
    ax.set_yscale("log")
    ax.set(title="1-Mul throughput", xlabel="log2(bits)", ylabel="Gu32ops/s (n·m², m = bits/32)")
    ax.legend(fontsize=7)

    ax = axes[1][0]
    for op, mk, col in _in("time"):
        rs = ok(op)
        if rs:
            ax.plot([r["log2_bits"] for r in rs], [r["us_per_2^32_bits"] for r in rs], mk + "-", color=col,
                    label=f"{OPS[op].label} (clbig)")
        for impl, ls in (("proto", "--"), ("cgbn", ":")):
            ref = sorted((int(k), v) for k, v in REFERENCES.get(OPS[op].ref_key, {}).get(impl, {}).items()
                         if _num(v))
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
    for op, mk, col in _in("huge"):
        rs = ok(op)
        if rs:
            xs = [r["log2_bits"] for r in rs]
            ax.plot(xs, [r["us"] for r in rs], mk + "-", color=col, label=f"{OPS[op].label} device")
            ax.plot(xs, [r["wall_us"] for r in rs], mk + "--", color=col, alpha=0.6,
                    label=f"{OPS[op].label} wall (with transfers)")
        _plot_host(ax, res, op, mk, lambda r: r["gmpy2_us"])
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
        for op, mk, _col in _in("copy"):
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

    copy_ops = _in("devices_copy")
    if copy_ops and any(r.get("frac_copy") is not None for res in results for r in _ok(res, copy_ops[0][0])):
        fig, ax = plt.subplots(figsize=(8, 5))
        for i, (res, lab) in enumerate(zip(results, labels)):
            for op, ls, _col in copy_ops:
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

