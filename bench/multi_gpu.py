"""Several devices of one host, and a batch larger than the device's memory (issues 16 and 17).

Three measurements of one batch product (n rows of --bits bits, limbs in host memory, host to
host: upload, product, download), every result checked against gmpy2 on sampled rows:

1. each device alone (clbig.Context(selector));
2. the devices together (clbig.Context([...])): rows split by each device's measured speed
   (each device's throughput alone on this batch), and equally, to show what the weights buy;
   with --shares, at given shares of the devices other than the fastest (the best one is what
   to pass as Context([...], shares=...) for such batches);
3. streamed: the same device with its memory capped (max_memory) to a third of the batch's
   bytes, the operands as clbig.scale.stream.host limbs; throughput against the in-memory run.

Beside 1, each device alone with the result downloaded into a reused array (to_limbs(out=)),
and with operands and result in its page-locked memory (clbig.pinned_empty).

    python bench/multi_gpu.py --devices 0,0 --log2-total 22 --bits 1024       # PoCL, seconds
    python bench/multi_gpu.py --devices nvidia,cpu                              # GPU + CPU
    python bench/multi_gpu.py --devices gpu --all-gpus                          # every GPU
Writes a Markdown table to stdout and, with --out, a JSON file.
"""
from __future__ import annotations

import argparse
import json
import random
import statistics
import time

import gmpy2
import numpy as np

import clbig
from clbig.runtime import devices as multi
from clbig.scale import stream
from clbig.mpz.array import limbs_to_ints


def median_time(f, reps):
    f()                                   # kernels built, pools warm
    ts = []
    for _ in range(reps):
        t0 = time.perf_counter()
        out = f()
        ts.append(time.perf_counter() - t0)
    return out, statistics.median(ts)


def check(limbs_out, A, B, rows):
    got = limbs_to_ints(limbs_out[rows])
    want = [gmpy2.mpz(A[i]) * B[i] for i in rows]
    assert got == want, "a product differs from gmpy2"


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--devices", default="gpu,cpu", help="comma-separated selectors (default gpu,cpu)")
    ap.add_argument("--all-gpus", action="store_true", help="clbig.Context.all('gpu') instead")
    ap.add_argument("--log2-total", type=int, default=32, help="batch size in bits of one operand (default 32)")
    ap.add_argument("--bits", type=int, default=4096)
    ap.add_argument("--reps", type=int, default=5)
    ap.add_argument("--no-stream", action="store_true")
    ap.add_argument("--shares", default="", type=lambda v: [float(x) for x in v.split(",") if x],
                    help="comma-separated shares of the devices other than the fastest to time the "
                         "split at (Context([...], shares=...)), e.g. 0,0.05,0.1,0.15")
    ap.add_argument("--out", default=None)
    args = ap.parse_args(argv)

    devs = clbig.Context.all("gpu") if args.all_gpus else clbig.Context(args.devices.split(","))
    n = max(1, (1 << args.log2_total) // args.bits)
    rng = random.Random(16)
    rows = sorted(rng.sample(range(n), min(n, 64)))
    m = args.bits // 32
    gen = np.random.default_rng(16)      # (random.randbytes stops at 2^31 bits)
    la = gen.integers(0, 1 << 32, size=(n, m), dtype=np.uint32)
    lb = gen.integers(0, 1 << 32, size=(n, m), dtype=np.uint32)
    A_int = A = limbs_to_ints(la)
    B_int = B = limbs_to_ints(lb)
    res = {"n": n, "bits": args.bits, "devices": [c.name for c in devs.contexts], "rows": []}

    def run(ctx):
        def f():
            with ctx:
                return (clbig.from_limbs(la, bits=args.bits) * clbig.from_limbs(lb, bits=args.bits)).to_limbs()
        return f

    print(f"# {n} products of {args.bits}-bit operands, host to host (median of {args.reps})\n")
    print("| run | ms | products/s | rows per device |\n| --- | --- | --- | --- |")
    alone = []
    for c in devs.contexts:
        out, t = median_time(run(c), args.reps)
        check(out, A, B, rows)
        alone.append(t)
        res["rows"].append({"run": f"alone: {c.name}", "s": t})
        print(f"| alone: {c.name} | {t * 1e3:.1f} | {n / t:.4g} | {n} |")
    # Host memory (each device alone): the result into a reused numpy array (to_limbs(out=)),
    # and operands and result in the device's page-locked memory (clbig.pinned_empty).
    for c in devs.contexts:
        with c:
            kept = np.empty((n, 2 * m), np.uint32)
            pa, pb, pout = c.pinned_empty(la.shape), c.pinned_empty(lb.shape), c.pinned_empty((n, 2 * m))
            pa[:], pb[:] = la, lb
        for label, (xa, xb, o) in (("reused out", (la, lb, kept)), ("pinned", (pa, pb, pout))):
            def f(xa=xa, xb=xb, o=o):
                with c:
                    return (clbig.from_limbs(xa, bits=args.bits) * clbig.from_limbs(xb, bits=args.bits)).to_limbs(out=o)
            out, t = median_time(f, args.reps)
            check(out, A, B, rows)
            res["rows"].append({"run": f"alone, {label}: {c.name}", "s": t})
            print(f"| alone, {label}: {c.name} | {t * 1e3:.1f} | {n / t:.4g} | {n} |")
        del kept, pa, pb, pout
    speeds = [n / t for t in alone]       # measured on this very batch
    split = {}
    for label, weights in (("split by speed", speeds), ("split equally", [1.0] * len(speeds))):
        for c, w in zip(devs.contexts, weights):
            c._speeds = {"mul": w, "add": w}
        out_pl, t = median_time(lambda: _split(devs, la, lb, args.bits), args.reps)
        out, placement = out_pl
        check(out, A, B, rows)
        share = [e - s for _, s, e in placement]
        res["rows"].append({"run": label, "s": t, "rows": share})
        split[label] = t
        print(f"| {label} | {t * 1e3:.1f} | {n / t:.4g} | {share} |")
    print(f"\nsplit by speed / fastest device alone: {min(alone) / split['split by speed']:.2f}x throughput")
    # Shares given to the context (Context([...], shares=...)): the fastest device alone takes
    # 1 - s, the others s in proportion to their speeds alone. Together the devices contend for
    # the host's cores and memory, so the best s can lie well below the others' share of the
    # separate speeds (H200 + PoCL, 4096 bits: 12% against 19%).
    fast = int(np.argmax(speeds))
    for s in args.shares:
        rest = sum(v for i, v in enumerate(speeds) if i != fast)
        given = [1.0 - s if i == fast else s * v / rest for i, v in enumerate(speeds)]
        devs._shares = multi._checked_shares({"add": given, "mul": given}, len(speeds))
        out_pl, t = median_time(lambda: _split(devs, la, lb, args.bits), args.reps)
        out, placement = out_pl
        check(out, A, B, rows)
        share = [e - s0 for _, s0, e in placement]
        res["rows"].append({"run": f"shares given, others {s:g}", "s": t, "rows": share})
        print(f"| shares given: the others {s:.0%} | {t * 1e3:.1f} | {n / t:.4g} ({min(alone) / t:.2f}x the fastest alone) | {share} |")
    devs._shares = None
    # Operands already on the devices (no host transfers): the product alone, each device and
    # the split weighted by these speeds.
    res_alone = []
    for c in devs.contexts:
        with c:
            A, B = clbig.from_limbs(la, bits=args.bits), clbig.from_limbs(lb, bits=args.bits)
        _, t = median_time(lambda: _product(c, A, B), args.reps)
        res_alone.append(t)
        res["rows"].append({"run": f"resident, alone: {c.name}", "s": t})
        print(f"| resident, alone: {c.name} | {t * 1e3:.2f} | {n / t:.4g} | {n} |")
    for c, t in zip(devs.contexts, res_alone):
        c._speeds = {"mul": n / t, "add": n / t}
    with devs:
        A, B = clbig.from_limbs(la, bits=args.bits), clbig.from_limbs(lb, bits=args.bits)
    r, t = median_time(lambda: _product(devs, A, B), args.reps)
    check(r.to_limbs(), A_int, B_int, rows)
    share = [e - s for _, s, e in r.placement]
    res["rows"].append({"run": "resident, split by speed", "s": t, "rows": share})
    print(f"| resident, split by speed | {t * 1e3:.2f} | {n / t:.4g} | {share} |")
    print(f"\nresident: split / fastest device alone: {min(res_alone) / t:.2f}x throughput")
    if not args.no_stream:
        k = int(np.argmin(alone))
        c = devs.contexts[k]
        cap = (la.nbytes + lb.nbytes) // 3
        capped = clbig.Context(c.device, max_memory=cap)

        def streamed():
            with capped, clbig.profile() as p:
                r = stream.host(la, args.bits) * stream.host(lb, args.bits)
                return r.to_limbs(), p.notes
        (out, notes), t = median_time(streamed, args.reps)
        check(out, A, B, rows)
        res["rows"].append({"run": "streamed", "s": t, "notes": notes})
        print(f"| streamed, memory capped to {cap / 2**20:.3g} MiB: {c.name} | {t * 1e3:.1f} | {n / t:.4g} | {notes[0]} |")
        print(f"\nstreamed / in memory on the same device: {alone[k] / t:.2f}x throughput")
    if args.out:
        with open(args.out, "w") as fh:
            json.dump(res, fh, indent=1)


def _product(where, A, B):
    """A * B on `where` (a Context or Devices), waiting for every device's queue."""
    with where:
        r = A * B
    for c in getattr(where, "contexts", [where]):
        c.queue.finish()
    return r


def _split(devs, la, lb, bits):
    with devs:
        r = clbig.from_limbs(la, bits=bits) * clbig.from_limbs(lb, bits=bits)
        return r.to_limbs(), r.placement


if __name__ == "__main__":
    main()
