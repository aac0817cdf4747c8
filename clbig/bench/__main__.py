"""`python -m clbig.bench` / `clbig-bench`: run the suite on one device, several, or all.

Exit status: 0 when every measurement ran or its op is not there yet (n/a); 1 when an op
raised (recorded as "error") or a device could not be opened; 2 when an op computed a wrong
value (the run stops there). `--device all` skips a device that clbig cannot use (a compiler
that fails on a trivial kernel: PyPI's PoCL on a CPU its LLVM does not know), naming it and
why once; only a run where no device could be used exits 1 for that.
"""
from __future__ import annotations

import argparse
import os
import re
import sys
import time
from datetime import datetime

import clbig
from clbig.runtime import config
from clbig.runtime.devices import SetupError

from . import powforms, report
from .latency import LATENCY_SIZES, latency_markdown, run_latency
from .modular import MOD_OPS, MOD_SIZES, QUICK_MOD_SIZES
from .suite import (DEFAULT_HUGE_SIZES, DEFAULT_REPS, DEFAULT_SIZES, GMPY2_SECONDS, OPS, QUICK_HUGE_SIZES,
                    QUICK_SIZES, Mismatch, parse_size, run_device)

def _all_ops() -> tuple:
    """Every op --ops accepts, read when asked (an OpSpec added to OPS is one at once)."""
    return tuple(OPS) + tuple(MOD_OPS)


ALL_OPS = _all_ops()
QUICK_SCALE = 12
QUICK_MAX_OP_SECONDS = 1.0
QUICK_COPY_MIB = 64
QUICK_GMPY2_SECONDS = 0.1
QUICK_BUDGET = 50.0  # seconds per device: a cold kernel cache must not push --quick past a minute


def _exps(ks) -> str:
    return ",".join(str(k) for k in ks)


def _parser() -> argparse.ArgumentParser:
    ap = argparse.ArgumentParser(
        prog="python -m clbig.bench",
        description="clbig benchmark suite: 1-Add, 6-Add, 1-Mul, Poly and Div on batches of 2^32 bits "
                    "per operand, a single huge product and division, the device's copy bandwidth, and "
                    "gmpy2 on the host CPU beside every number. Writes JSON, CSV, markdown and plots "
                    "(PNG, SVG) into --out, named by device and date.")
    ap.add_argument("--device", default=None,
                    help="clbig.Context selector (index, 'gpu', 'cpu', or part of 'platform: name'); "
                         "'all' runs every device in turn, a comma-separated list runs those. "
                         f"Default: ${config.var('DEVICE')}, else a GPU, else a CPU")
    ap.add_argument("--sizes", default=None,
                    help="comma-separated sizes of the batch ops: exponents (13 = 2^13 bits) or bit "
                         f"counts (default {_exps(DEFAULT_SIZES)}; --quick: {_exps(QUICK_SIZES)})")
    ap.add_argument("--huge-sizes", default=None,
                    help="sizes (bits per operand) of the single huge product / division, as --sizes "
                         f"(default {_exps(DEFAULT_HUGE_SIZES)}; --quick: {_exps(QUICK_HUGE_SIZES)})")
    ap.add_argument("--mod-sizes", default=None,
                    help="sizes (bits of the modulus) of the modular ops (powmod, powmodf, gcd, invert), "
                         f"as --sizes (default {_exps(MOD_SIZES)}; --quick: {_exps(QUICK_MOD_SIZES)}); "
                         "n = 100000 instances >> --scale")
    all_ops = _all_ops()
    ap.add_argument("--ops", default=",".join(all_ops), help=f"comma-separated subset of {','.join(all_ops)}")
    ap.add_argument("--scale", type=int, default=None,
                    help="divide the batch n = 2^32/bits by 2^K (default 0: 512 MiB per operand)")
    ap.add_argument("--quick", action="store_true",
                    help=f"CPUs and CI (under a minute on PoCL; division runs last, where the budget "
                         f"leaves time to build its kernels): --scale {QUICK_SCALE}, the sizes "
                         f"above, --max-op-seconds {QUICK_MAX_OP_SECONDS:g}, --copy-mib {QUICK_COPY_MIB}, "
                         f"--gmpy2-seconds {QUICK_GMPY2_SECONDS:g}, --budget {QUICK_BUDGET:g}, unless given")
    ap.add_argument("--reps", type=int, default=DEFAULT_REPS,
                    help=f"timed launches after the warm-up (default {DEFAULT_REPS}; median reported)")
    ap.add_argument("--max-op-seconds", type=float, default=None,
                    help="cap the timed launches of one op at one size to about this much device "
                         "time (at least 5 launches); default: no cap")
    ap.add_argument("--budget", type=float, default=None,
                    help="wall-clock seconds for a device's whole run: once spent, what is left is "
                         "recorded as skipped and the outputs are still written; division starts only "
                         "with 30 s of it left (60 s above 2^13 bits), for its kernel builds")
    ap.add_argument("--copy-mib", type=int, default=None,
                    help="size of the copy-bandwidth buffer (default 512 MiB on GPUs, 256 MiB on CPUs, "
                         "less where the device is small)")
    ap.add_argument("--gmpy2-seconds", type=float, default=None,
                    help=f"host seconds (about) for the gmpy2 time of one op at one size (default "
                         f"{GMPY2_SECONDS:g}); larger batches are timed on a sample and scaled up; 0: no "
                         "gmpy2 column")
    ap.add_argument("--out", default=None,
                    help="output folder (default: a new folder clbig-bench-<date>-<time> in the "
                         "current directory)")
    ap.add_argument("--no-check", action="store_true", help="skip the spot checks against gmpy2")
    ap.add_argument("--no-plots", action="store_true", help="skip the figures")
    ap.add_argument("--seed", type=int, default=2026, help="random inputs' seed")
    ap.add_argument("--force-targets", action="store_true",
                    help="judge the H100 targets whatever the device and scale")
    ap.add_argument("--list", action="store_true", help="list the OpenCL devices and exit")
    ap.add_argument("--latency", action="store_true",
                    help="instead of the suite: one mul, square and divmod (dividend twice the divisor) "
                         "on Python ints per size, with device µs, kernels, wall µs and gmpy2 beside; "
                         "writes <device>_<date>_latency.md and .json into --out")
    ap.add_argument("--latency-sizes", default=None,
                    help="sizes of --latency, as --sizes (default "
                         f"{_exps(LATENCY_SIZES)}; a size the device's memory cannot hold is skipped)")
    ap.add_argument("--few", action="store_true",
                    help="powmod of a few rows (1 to 64), list to list, auto against the device "
                         "path and gmpy2 on one core and on every core; writes <device>_<date>_few.md")
    ap.add_argument("--powforms", action="store_true",
                    help="instead of the suite: powmod with one base for the batch (its table) and "
                         "multi_powmod against the general powmod and gmpy2 (python -m "
                         "clbig.bench.powforms; --out: its JSON)")
    ap.add_argument("--cold", action="store_true",
                    help="each family's first call in a fresh process with empty kernel caches, "
                         "with the disk caches warm, and warm, beside gmpy2 on one core; writes "
                         "<device>_<date>_cold.md and .json")
    ap.add_argument("--after-warmup", action="store_true",
                    help="with --cold: run `python -m clbig warmup` into empty caches first, then "
                         "each family's first call, counting the kernels it still builds")
    ap.add_argument("--cold-families", default=None,
                    help="comma-separated subset of the --cold families (default: all)")
    ap.add_argument("--e2e", action="store_true",
                    help="instead of the suite: users' workloads from Python ints or numpy limbs back "
                         "to them (products, divmod, powmod, RSA-CRT, gcd; Paillier and RSA blind "
                         "signing over phe's and cryptography's keys, beside phe), wall time and its "
                         "phases, beside gmpy2 on one core and on every core; --device '0+1' (selectors "
                         "joined by +) or 'all-gpus' runs them on several devices as one context; writes "
                         "<device>_<date>_e2e.md and .json into --out")
    ap.add_argument("--e2e-ops", default=None,
                    help="comma-separated subset of the --e2e workloads (default: all)")
    ap.add_argument("--e2e-rounds", type=int, default=3,
                    help="--e2e: timed calls of clbig and passes of gmpy2 on one core, in turn; the "
                         "least of each is reported (default 3)")
    ap.add_argument("--workers", type=int, default=None,
                    help="processes of the gmpy2 (and phe) pool beside --e2e (default: every host core)")
    return ap


def _sizes(text, default_exps, flag: str):
    if text is not None:
        try:
            sizes = [parse_size(t) for t in text.split(",") if t.strip()]
        except ValueError as e:
            raise ValueError(f"{flag}: {e}") from None
        if not sizes:
            raise ValueError(f"{flag}: no size given")
        return sizes
    return [1 << k for k in default_exps]


def _check_numbers(args) -> None:
    """ValueError naming the flag for a number out of its range (argparse checks only types)."""
    for flag, v, low, strict in (("--scale", args.scale, 0, False), ("--reps", args.reps, 1, False),
                                 ("--max-op-seconds", args.max_op_seconds, 0, True),
                                 ("--budget", args.budget, 0, True), ("--copy-mib", args.copy_mib, 1, False),
                                 ("--gmpy2-seconds", args.gmpy2_seconds, 0, False),
                                 ("--e2e-rounds", args.e2e_rounds, 1, False)):
        if v is None:
            continue
        if v != v or v in (float("inf"), float("-inf")) or (v <= low if strict else v < low):
            raise ValueError(f"{flag} must be {'above' if strict else 'at least'} {low}, got {v}")


def _check_out(out: str) -> None:
    """ValueError naming --out when the results could not be written there."""
    up = os.path.abspath(out)
    while not os.path.exists(up) and os.path.dirname(up) != up:
        up = os.path.dirname(up)
    if not os.path.isdir(up):
        raise ValueError(f"--out {out}: {up} is a file, not a directory")
    if not os.access(up, os.W_OK | os.X_OK):
        raise ValueError(f"--out {out}: {up} is not writable")


def _selectors(device):
    """[None] (the default device), every device's index for 'all', or a comma-separated list."""
    if device is None:
        return [None]
    if device.strip().lower() == "all":
        return [d.index for d in clbig.devices()]
    return [t.strip() for t in device.split(",") if t.strip()] or [None]


def _unique_stem(res, used: set) -> None:
    s = base = report.stem(res)
    i = 2
    while s in used:
        s, i = f"{base}_{i}", i + 1
    used.add(s)
    res["file_stem"] = s


def main(argv=None) -> int:
    args = _parser().parse_args(argv)
    if args.list:
        for d in clbig.devices():
            print(f"[{d.index}] {d.label} ({d.type}, {d.compute_units} CUs)")
        return 0
    try:
        latency_sizes = _sizes(args.latency_sizes, LATENCY_SIZES, "--latency-sizes")
        sizes = _sizes(args.sizes, QUICK_SIZES if args.quick else DEFAULT_SIZES, "--sizes")
        huge_sizes = _sizes(args.huge_sizes, QUICK_HUGE_SIZES if args.quick else DEFAULT_HUGE_SIZES,
                            "--huge-sizes")
        mod_sizes = _sizes(args.mod_sizes, QUICK_MOD_SIZES if args.quick else MOD_SIZES, "--mod-sizes")
        ops = [t.strip() for t in args.ops.split(",") if t.strip()]
        all_ops = _all_ops()
        bad = [o for o in ops if o not in all_ops]
        if bad:
            raise ValueError(f"--ops: unknown op(s) {', '.join(bad)}; choose from {', '.join(all_ops)}")
        if not ops:
            raise ValueError(f"--ops: no op given; choose from {', '.join(all_ops)}")
        _check_numbers(args)
        if args.seed < 0:   # numpy's generators take non-negative seeds only
            raise ValueError(f"--seed must be at least 0, got {args.seed}")
        if args.out:
            _check_out(args.out)
    except ValueError as e:
        print(f"clbig.bench: {e}", file=sys.stderr)
        return 2
    args.latency_bits = latency_sizes
    if not (args.cold or args.e2e):
        # steady state: the timed calls on small arrays are the device's, not first calls
        # rented to the host (mpz.hostrows, mpz.hostarrays), and each width's own kernels, not
        # the first tier's run-time widths (runtime.tiers); --cold measures those
        os.environ.setdefault(config.var("HOST_FIRST_MS"), "0")
        os.environ.setdefault(config.var("TIERS"), "off")
    if args.latency:
        return _latency(args)
    if args.e2e:
        return _e2e(args)
    if args.few:
        return _few(args)
    if args.cold:
        return _cold(args)
    if args.powforms:
        return powforms.main(["--out", os.path.join(args.out, "powforms.json")] if args.out else [])
    scale = args.scale if args.scale is not None else (QUICK_SCALE if args.quick else 0)
    max_op_seconds = args.max_op_seconds
    if max_op_seconds is None and args.quick:
        max_op_seconds = QUICK_MAX_OP_SECONDS
    copy_mib = args.copy_mib or (QUICK_COPY_MIB if args.quick else None)
    budget = args.budget if args.budget is not None else (QUICK_BUDGET if args.quick else None)
    gmpy2_seconds = args.gmpy2_seconds if args.gmpy2_seconds is not None else (
        QUICK_GMPY2_SECONDS if args.quick else GMPY2_SECONDS)
    if args.reps < DEFAULT_REPS:
        print(f"note: --reps {args.reps} is below the suite's {DEFAULT_REPS}", file=sys.stderr)
    out = args.out or os.path.join(os.getcwd(), datetime.now().strftime("clbig-bench-%Y%m%d-%H%M%S"))

    try:
        selectors = _selectors(args.device)
    except RuntimeError as e:  # no OpenCL at all
        print(f"clbig.bench: {e}", file=sys.stderr)
        return 1
    if not selectors:
        print("clbig.bench: no OpenCL device found", file=sys.stderr)
        return 1

    every = args.device is not None and args.device.strip().lower() == "all"
    labels = {d.index: d.label for d in clbig.devices()} if every else {}
    t0 = time.monotonic()
    rc = 0
    done = []
    skipped = []
    used = set()
    for sel in selectors:
        written = {}

        def save(res):
            if "file_stem" not in res:
                _unique_stem(res, used)
            written.update(report.write_outputs(res, out, args.force_targets))

        try:
            res = run_device(sel, sizes=sizes, ops=ops, scale=scale, reps=args.reps,
                             max_op_seconds=max_op_seconds, budget=budget,
                             copy_bytes=copy_mib << 20 if copy_mib else None, huge_sizes=huge_sizes,
                             gmpy2_seconds=gmpy2_seconds, check=not args.no_check, seed=args.seed,
                             mod_sizes=mod_sizes, on_update=save)
        except Mismatch as e:
            bar = "!" * 78
            print(f"\n{bar}\nclbig.bench: WRONG RESULT, benchmark aborted:\n{e}\n{bar}", file=sys.stderr)
            if written:
                print(f"partial results: {written.get('json')}", file=sys.stderr)
            return 2
        except SetupError as e:
            if not every:       # a device asked for by name or index: its failure is an error
                print(f"clbig.bench: {e}", file=sys.stderr)
                rc = max(rc, 1)
                continue
            from clbig.__main__ import one_line
            skipped.append(f"[{sel}] {labels.get(sel, sel)}")
            print(f"clbig.bench: skipping device {skipped[-1]}: clbig cannot use it: {one_line(e)}",
                  file=sys.stderr)
            continue
        except (ValueError, RuntimeError) as e:  # no such device, no OpenCL
            print(f"clbig.bench: {e}", file=sys.stderr)
            rc = max(rc, 1)
            continue
        save(res)
        paths = dict(written)
        print()
        print(report.markdown(res))
        if not args.no_plots:
            try:
                figs = report.plots(res, out)
                if not figs:
                    print("(matplotlib not installed: no plots)", file=sys.stderr)
                paths.update({f"fig{i}": p for i, p in enumerate(figs)})
            except Exception as e:  # noqa: BLE001 - the numbers are written already
                print(f"plotting failed: {type(e).__name__}: {e}", file=sys.stderr)
        for p in paths.values():
            print(f"wrote {p}")
        done.append(res)
        if any(r["status"] == "error" for r in res["results"]):
            rc = max(rc, 1)

    if len(done) > 1:
        paths = report.write_comparison(done, out, args.force_targets)
        print()
        print(report.comparison_markdown(done))
        if not args.no_plots:
            try:
                paths.update({f"fig{i}": p for i, p in enumerate(report.comparison_plots(done, out))})
            except Exception as e:  # noqa: BLE001
                print(f"plotting failed: {type(e).__name__}: {e}", file=sys.stderr)
        for p in paths.values():
            print(f"wrote {p}")
    if skipped and not done:
        print("clbig.bench: no device could be used", file=sys.stderr)
        rc = max(rc, 1)
    print(f"clbig.bench: {len(done)} device(s) in {time.monotonic() - t0:.0f} s"
          + (f" ({len(skipped)} skipped: {', '.join(skipped)})" if skipped else "") + f"; results in {out}")
    return rc


def _few(args) -> int:
    """--few: powmod of a few rows per device, printed and written to --out as markdown."""
    from datetime import datetime as _dt

    from .few import few_markdown, run_few
    from .suite import Mismatch as _Mismatch, device_info
    out = args.out or os.path.join(os.getcwd(), _dt.now().strftime("clbig-bench-%Y%m%d-%H%M%S"))
    rc = 0
    for sel in _selectors(args.device):
        try:
            ctx = clbig.Context(sel)
        except (SetupError, ValueError, RuntimeError) as e:
            print(f"clbig.bench: {e}", file=sys.stderr)
            rc = max(rc, 1)
            continue
        dev = device_info(ctx)
        try:
            rows = run_few(ctx, seed=args.seed, workers=args.workers,
                           rows=(1, 2, 4) if args.quick else (1, 2, 4, 8, 16, 64, 128),
                           bits_list=(1024, 2048) if args.quick else (1024, 2048, 4096))
        except _Mismatch as e:
            print(f"clbig.bench: WRONG RESULT, benchmark aborted:\n{e}", file=sys.stderr)
            return 2
        md = few_markdown(rows, f"{dev['platform']}: {dev['name']}, {_dt.now():%Y-%m-%d}, "
                                f"{os.cpu_count()} host cores")
        os.makedirs(out, exist_ok=True)
        base = os.path.join(out, re.sub(r'[^A-Za-z0-9]+', '_', dev['name']).strip('_') + f"_{_dt.now():%Y%m%d}_few.md")
        with open(base, "w", encoding="utf-8") as f:
            f.write(md)
        print()
        print(md)
        print(f"wrote {base}")
    return rc


def _cold(args) -> int:
    """--cold: first calls per family in fresh processes, printed and written to --out."""
    from datetime import datetime as _dt

    from .cold import EXTRA_FAMILIES, FAMILIES, cold_markdown, run_cold
    fams = FAMILIES
    if args.cold_families:
        fams = tuple(f.strip() for f in args.cold_families.split(",") if f.strip())
        bad = [f for f in fams if f not in FAMILIES + EXTRA_FAMILIES]
        if bad:
            print(f"clbig.bench: --cold families are {', '.join(FAMILIES + EXTRA_FAMILIES)}; "
                  f"not {', '.join(bad)}",
                  file=sys.stderr)
            return 2
    out = args.out or os.path.join(os.getcwd(), _dt.now().strftime("clbig-bench-%Y%m%d-%H%M%S"))
    if args.after_warmup:
        return _after_warmup(args, fams, out)

    def said(row):
        c, d = row["cold"], row["disk"]
        print(f"  {row['family']}: cold {c.get('first_s', c.get('error'))}, disk "
              f"{d.get('first_s', d.get('error'))}", flush=True)

    rows = run_cold(fams, device=args.device, progress=said)
    device = next((r["cold"]["device"] for r in rows if "device" in r["cold"]), "no device")
    md = cold_markdown(rows, device, f"{_dt.now():%Y-%m-%d}, {os.cpu_count()} host cores")
    _write_cold_report(out, device, "cold", md, rows)
    wrong = [r["family"] for r in rows if not (r["cold"].get("exact") and r["disk"].get("exact"))]
    if wrong:
        print(f"clbig.bench: WRONG RESULT or failure in {', '.join(wrong)}", file=sys.stderr)
        return 2
    return 0


def _write_cold_report(out: str, device: str, kind: str, md: str, data) -> None:
    """<out>/<device>_<date>_<kind>.md and .json for --cold and --cold --after-warmup, the
    table printed."""
    import json
    from datetime import datetime as _dt
    os.makedirs(out, exist_ok=True)
    base = os.path.join(out, re.sub(r'[^A-Za-z0-9]+', '_', device.split(": ")[-1]).strip('_')
                        + f"_{_dt.now():%Y%m%d}_{kind}")
    with open(base + ".md", "w", encoding="utf-8") as f:
        f.write(md)
    with open(base + ".json", "w", encoding="utf-8") as f:
        json.dump(data, f, indent=1)
    print()
    print(md)
    print(f"wrote {base}.md")


def _after_warmup(args, fams, out: str) -> int:
    """--cold --after-warmup: the warm-up's promise, that the tour then builds nothing."""
    from datetime import datetime as _dt

    from .cold import run_after_warmup, warm_markdown

    def said(row):
        a = row["after"]
        print(f"  {row['family']}: {a.get('first_s', a.get('error'))} s, "
              f"{len(a.get('builds', []))} builds", flush=True)

    res = run_after_warmup(fams, device=args.device, progress=said)
    device = next((r["after"]["device"] for r in res["rows"] if "device" in r["after"]), "no device")
    md = warm_markdown(res, device, f"{_dt.now():%Y-%m-%d}, {os.cpu_count()} host cores")
    _write_cold_report(out, device, "after_warmup", md, res)
    bad = [r["family"] for r in res["rows"] if not r["after"].get("exact")]
    if bad or res["warmup_rc"] != 0:
        print(f"clbig.bench: failure in {', '.join(bad) or 'the warm-up'}", file=sys.stderr)
        return 2
    return 0


def _latency(args) -> int:
    """--latency: the single-operation table per device, printed and written to --out."""
    import json
    from datetime import datetime as _dt

    from .suite import Mismatch as _Mismatch, device_info, software_info
    out = args.out or os.path.join(os.getcwd(), _dt.now().strftime("clbig-bench-%Y%m%d-%H%M%S"))
    reps = max(1, args.reps if args.reps != DEFAULT_REPS else 5)   # single ops: 5 unless given
    gmpy2_seconds = args.gmpy2_seconds if args.gmpy2_seconds is not None else GMPY2_SECONDS
    rc = 0
    for sel in _selectors(args.device):
        try:
            ctx = clbig.Context(sel)
        except (SetupError, ValueError, RuntimeError) as e:
            print(f"clbig.bench: {e}", file=sys.stderr)
            rc = max(rc, 1)
            continue
        dev = device_info(ctx)
        try:
            rows = run_latency(ctx, args.latency_bits, reps=reps, check=not args.no_check, seed=args.seed,
                               gmpy2_seconds=gmpy2_seconds)
        except _Mismatch as e:
            print(f"clbig.bench: WRONG RESULT, benchmark aborted:\n{e}", file=sys.stderr)
            return 2
        res = {"kind": "latency", "date": _dt.now().isoformat(timespec="seconds"), "device": dev,
               "software": software_info(), "reps": reps, "rows": rows}
        md = latency_markdown(rows, f"{dev['platform']}: {dev['name']}")
        base = os.path.join(out, report.stem(res) + "_latency")
        os.makedirs(out, exist_ok=True)
        with open(base + ".json", "w", encoding="utf-8") as f:
            f.write(json.dumps(res, indent=1, default=str) + "\n")
        with open(base + ".md", "w", encoding="utf-8") as f:
            f.write(md)
        print()
        print(md)
        print(f"wrote {base}.json\nwrote {base}.md")
        if any(r["status"] == "error" for r in rows):
            rc = max(rc, 1)
    return rc


def _e2e_context(sel):
    """--e2e's device: a selector, 'all-gpus', or selectors joined by '+' (one context)."""
    if isinstance(sel, str) and sel.strip().lower() == "all-gpus":
        return clbig.Context.all("gpu")
    if isinstance(sel, str) and "+" in sel:
        return clbig.Context([int(t) if t.strip().isdigit() else t.strip() for t in sel.split("+")])
    return clbig.Context(sel)


def _e2e(args) -> int:
    """--e2e: the end-to-end table per device (or several-device context), printed and written."""
    import json
    from datetime import datetime as _dt

    from . import endtoend
    out = args.out or os.path.join(os.getcwd(), _dt.now().strftime("clbig-bench-%Y%m%d-%H%M%S"))
    keys = None
    if args.e2e_ops:
        keys = [k.strip() for k in args.e2e_ops.split(",") if k.strip()]
        bad = [k for k in keys if k not in endtoend.workloads()]
        if bad:
            print(f"clbig.bench: --e2e-ops: unknown {', '.join(bad)}; choose from "
                  f"{', '.join(endtoend.workloads())}", file=sys.stderr)
            return 2
    sels = [args.device] if args.device and ("+" in args.device or args.device == "all-gpus") \
        else _selectors(args.device)
    gmpy2_seconds = args.gmpy2_seconds if args.gmpy2_seconds is not None else (1.0 if args.quick else 10.0)
    rc = 0
    for sel in sels:
        try:
            ctx = _e2e_context(sel)
        except (SetupError, ValueError, RuntimeError) as e:
            print(f"clbig.bench: {e}", file=sys.stderr)
            rc = max(rc, 1)
            continue
        try:
            rows = endtoend.run_e2e(ctx, keys, quick=args.quick, scale=args.scale or 0,
                                    gmpy2_seconds=gmpy2_seconds, workers=args.workers,
                                    rounds=args.e2e_rounds)
        except AssertionError as e:
            print(f"clbig.bench: WRONG RESULT, benchmark aborted:\n{e}", file=sys.stderr)
            return 2
        md = (f"End to end on {ctx.name}, {_dt.now():%Y-%m-%d}; gmpy2 {__import__('gmpy2').version()}, "
              f"{os.cpu_count()} host cores; clbig's call and gmpy2 on one core the least of "
              f"{args.e2e_rounds} rounds each, in turn\n\n" + endtoend.markdown(rows))
        stem = "".join(c if c.isalnum() else "-" for c in ctx.name.lower())[:60].strip("-")
        base = os.path.join(out, f"{stem}_{_dt.now():%Y%m%d_%H%M%S}_e2e")
        os.makedirs(out, exist_ok=True)
        with open(base + ".json", "w", encoding="utf-8") as f:
            f.write(json.dumps({"kind": "e2e", "device": ctx.name, "rows": rows}, indent=1, default=str) + "\n")
        with open(base + ".md", "w", encoding="utf-8") as f:
            f.write(md)
        print()
        print(md)
        print(f"wrote {base}.json\nwrote {base}.md")
    return rc


if __name__ == "__main__":
    sys.exit(main())
