"""`python -m clbig.bench` / `clbig-bench`: run the papers' suite on one device (or all).

Exit status: 0 when every measurement ran or its op is not there yet (n/a); 1 when an op
raised (recorded as "error"); 2 when an op computed a wrong value (the run stops there).
"""
from __future__ import annotations

import argparse
import os
import sys

import clbig

from . import report
from .suite import DEFAULT_REPS, DEFAULT_SIZES, OPS, Mismatch, parse_size, run_device

QUICK_SCALE = 12


def _parser() -> argparse.ArgumentParser:
    ap = argparse.ArgumentParser(
        prog="python -m clbig.bench",
        description="clbig benchmark suite: 1-Add, 6-Add, 1-Mul and Poly on batches of 2^32 bits "
                    "per operand, plus the device's copy bandwidth. Writes JSON, markdown and PNGs "
                    "into --out, named by device and date.")
    ap.add_argument("--device", default=None,
                    help="clbig.Context selector (index, 'gpu', 'cpu', or part of 'platform: name'); "
                         "'all' runs every device in turn. Default: $CLBIG_DEVICE, else a GPU, else a CPU")
    ap.add_argument("--sizes", default=None,
                    help="comma-separated sizes: exponents (13 = 2^13 bits) or bit counts "
                         f"(default {DEFAULT_SIZES[0]}..{DEFAULT_SIZES[-1]}, i.e. 2^9..2^18 bits)")
    ap.add_argument("--ops", default=",".join(OPS), help=f"comma-separated subset of {','.join(OPS)}")
    ap.add_argument("--scale", type=int, default=None,
                    help="divide the batch n = 2^32/bits by 2^K (default 0: 512 MiB per operand)")
    ap.add_argument("--quick", action="store_true",
                    help=f"small batches for CPUs and CI: --scale {QUICK_SCALE} unless --scale is given")
    ap.add_argument("--reps", type=int, default=DEFAULT_REPS,
                    help=f"timed launches after the warm-up (default {DEFAULT_REPS}; median reported)")
    ap.add_argument("--max-op-seconds", type=float, default=None,
                    help="cap the timed launches of one op at one size to about this much device "
                         "time (at least 5 launches); default: no cap")
    ap.add_argument("--budget", type=float, default=None,
                    help="wall-clock seconds for a device's whole run: once spent, what is left is "
                         "recorded as skipped and the outputs are still written")
    ap.add_argument("--copy-mib", type=int, default=None,
                    help="size of the copy-bandwidth buffer (default 512 MiB on GPUs, 256 MiB on CPUs, "
                         "less where the device is small)")
    ap.add_argument("--out", default=os.path.join("bench", "results"),
                    help="output folder (default bench/results)")
    ap.add_argument("--no-check", action="store_true", help="skip the spot checks against gmpy2")
    ap.add_argument("--no-plots", action="store_true", help="skip the PNGs")
    ap.add_argument("--seed", type=int, default=2026, help="random inputs' seed")
    ap.add_argument("--force-targets", action="store_true",
                    help="judge the H100 targets whatever the device and scale")
    ap.add_argument("--list", action="store_true", help="list the OpenCL devices and exit")
    return ap


def main(argv=None) -> int:
    args = _parser().parse_args(argv)
    if args.list:
        for d in clbig.devices():
            print(f"[{d.index}] {d.label} ({d.type}, {d.compute_units} CUs)")
        return 0
    try:
        sizes = [parse_size(t) for t in args.sizes.split(",") if t.strip()] if args.sizes \
            else [1 << k for k in DEFAULT_SIZES]
        ops = [t.strip() for t in args.ops.split(",") if t.strip()]
        bad = [o for o in ops if o not in OPS]
        if bad:
            raise ValueError(f"unknown op(s) {', '.join(bad)}; choose from {', '.join(OPS)}")
        if args.reps < 1:
            raise ValueError("--reps must be at least 1")
    except ValueError as e:
        print(f"clbig.bench: {e}", file=sys.stderr)
        return 2
    scale = args.scale if args.scale is not None else (QUICK_SCALE if args.quick else 0)
    if args.reps < DEFAULT_REPS:
        print(f"note: --reps {args.reps} is below the suite's {DEFAULT_REPS}", file=sys.stderr)

    if args.device is not None and args.device.strip().lower() == "all":
        selectors = [d.index for d in clbig.devices()]
        if not selectors:
            print("clbig.bench: no OpenCL device found", file=sys.stderr)
            return 1
    else:
        selectors = [args.device]

    rc = 0
    for sel in selectors:
        written = {}

        def save(res):
            written.update(report.write_outputs(res, args.out, args.force_targets))

        try:
            res = run_device(sel, sizes=sizes, ops=ops, scale=scale, reps=args.reps,
                             max_op_seconds=args.max_op_seconds, budget=args.budget,
                             copy_bytes=args.copy_mib << 20 if args.copy_mib else None,
                             check=not args.no_check, seed=args.seed, on_update=save)
        except Mismatch as e:
            bar = "!" * 78
            print(f"\n{bar}\nclbig.bench: WRONG RESULT, benchmark aborted:\n{e}\n{bar}", file=sys.stderr)
            if written:
                print(f"partial results: {written.get('json')}", file=sys.stderr)
            return 2
        except (ValueError, RuntimeError) as e:  # no such device, no OpenCL
            print(f"clbig.bench: {e}", file=sys.stderr)
            rc = max(rc, 1)
            continue
        paths = report.write_outputs(res, args.out, args.force_targets)
        print()
        print(report.markdown(res))
        if not args.no_plots:
            try:
                pngs = report.plots(res, args.out)
                if not pngs:
                    print("(matplotlib not installed: no plots)", file=sys.stderr)
                paths.update({f"png{i}": p for i, p in enumerate(pngs)})
            except Exception as e:  # noqa: BLE001 - the numbers are written already
                print(f"plotting failed: {type(e).__name__}: {e}", file=sys.stderr)
        for p in paths.values():
            print(f"wrote {p}")
        if any(r["status"] == "error" for r in res["results"]):
            rc = max(rc, 1)
    return rc


if __name__ == "__main__":
    sys.exit(main())
