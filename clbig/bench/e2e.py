"""Host to host: products whose operands start and end on the host (issue 36).

`run_e2e(ctx)` times, each the median of `reps` runs after a warm-up, and splits the wall time
where the pieces run one after the other:

  numpy -> numpy, `bits`-bit limbs (default 1,048,576 products of 4096 bits):
    ordinary, staging off  from_limbs(a), from_limbs(b), a * b, to_limbs(out=) from ordinary numpy
                           memory with CLBIG_STAGING=off: the driver's own pageable transfers
    ordinary, staged       the same with CLBIG_STAGING=on (page-locked staging buffers)
    pinned                 the same from and into clbig.pinned_empty arrays (zero copy)
    pipelined              clbig.mul(stream.host(a), stream.host(b)).to_limbs() with
                           CLBIG_PIPELINE=on: chunks whose transfers and kernels overlap
  list -> list, `list_bits`-bit Python ints (default 2^17 products of 2048 bits):
    sequential             pack (ints -> limbs on the host), upload, a * b, download, unpack
    pipelined              clbig.mul(stream.host(la), stream.host(lb)).tolist(), CLBIG_PIPELINE=on
  gmpy2, one core          the products of the same values as mpz (conversions not counted)
  gmpy2, every core        the same in a multiprocessing pool of os.cpu_count() processes,
                           shipping mpz chunks to the workers and the products back (counted)

Columns: wall, conversion in, transfers in, kernels (device time, clbig.profile), transfers out,
conversion out (ms; "-" where the pieces overlap), and rows per second. Every variant's result
is checked against gmpy2 on a sample of rows (Mismatch otherwise).

`python -m clbig.bench.e2e [--n N] [--bits B] [--list-n N] [--list-bits B] [--reps R]` prints the
table for the current device (CLBIG_DEVICE); the lead wires it as `python -m clbig.bench --e2e`.
"""
from __future__ import annotations

import argparse
import contextlib
import multiprocessing
import os
import random
import statistics
import time

import gmpy2
import numpy as np

import clbig
from clbig.mpz.array import _pack, checked_signed, limbs_to_ints
from clbig.scale import stream

from .specs import Mismatch

SAMPLE = 32          # rows of every result checked against gmpy2


@contextlib.contextmanager
def _settings(**kv):
    """CLBIG_* settings for the block (config.env reads os.environ at every call)."""
    old = {k: os.environ.get(k) for k in kv}
    os.environ.update({k: str(v) for k, v in kv.items()})
    try:
        yield
    finally:
        for k, v in old.items():
            if v is None:
                os.environ.pop(k, None)
            else:
                os.environ[k] = v


def _ints(limbs) -> list[int]:
    return [int.from_bytes(r.tobytes(), "little") for r in np.ascontiguousarray(limbs, "<u4")]


def _check(what: str, got_rows, a_rows, b_rows, idx):
    want = [int(gmpy2.mpz(x) * y) for x, y in zip(a_rows, b_rows)]
    if list(got_rows) != want:
        raise Mismatch(f"e2e {what}: clbig's products differ from gmpy2's at sampled rows {list(idx)}")


def _median(runs: list[dict]) -> dict:
    keys = runs[0].keys()
    return {k: statistics.median(r[k] for r in runs) for k in keys}


def _timed(step, reps: int) -> dict:
    step()                                # warm-up: kernel builds, pools, staging buffers, page faults
    return _median([step() for _ in range(reps)])


def _numpy_rows(ctx, a, b, reps: int, idx) -> list[tuple[str, dict]]:
    n, m = a.shape
    sa, sb = _ints(a[idx]), _ints(b[idx])
    out = np.empty((n, 2 * m), np.uint32)
    pa, pb, pout = (clbig.pinned_empty(s, ctx=ctx) for s in ((n, m), (n, m), (n, 2 * m)))
    pa[...] = a
    pb[...] = b

    def sequential(what, x, y, dst):
        def step():
            t0 = time.perf_counter()
            xa, ya = clbig.from_limbs(x, ctx=ctx), clbig.from_limbs(y, ctx=ctx)
            ctx.finish()
            t1 = time.perf_counter()
            with ctx, clbig.profile() as p:
                c = xa * ya
                ctx.finish()
            t2 = time.perf_counter()
            c.to_limbs(out=dst)
            t3 = time.perf_counter()
            _check(what, _ints(dst[idx]), sa, sb, idx)
            return {"wall": t3 - t0, "in": t1 - t0, "kernels": p.seconds, "out": t3 - t2}
        return step

    def pipelined():
        with ctx:
            t0 = time.perf_counter()
            got = clbig.mul(stream.host(a, ctx=ctx), stream.host(b, ctx=ctx)).to_limbs()
            t1 = time.perf_counter()
        _check("pipelined numpy", _ints(got[idx]), sa, sb, idx)
        return {"wall": t1 - t0}

    rows = []
    with _settings(CLBIG_STAGING="off"):
        rows.append(("numpy, ordinary memory, staging off", _timed(sequential("ordinary", a, b, out), reps)))
    with _settings(CLBIG_STAGING="on"):
        rows.append(("numpy, ordinary memory, staged", _timed(sequential("staged", a, b, out), reps)))
    rows.append(("numpy, pinned_empty", _timed(sequential("pinned", pa, pb, pout), reps)))
    with _settings(CLBIG_PIPELINE="on"):
        rows.append(("numpy, pipelined (stream.host)", _timed(pipelined, reps)))
    return rows


def _list_rows(ctx, la, lb, reps: int, idx) -> list[tuple[str, dict]]:
    sa, sb = [la[i] for i in idx], [lb[i] for i in idx]

    def sequential():
        t0 = time.perf_counter()
        (va, bits_a, _), (vb, bits_b, _) = checked_signed(la), checked_signed(lb)
        ha, hb = _pack(va, bits_a), _pack(vb, bits_b)
        t1 = time.perf_counter()
        xa, ya = clbig.from_limbs(ha, ctx=ctx), clbig.from_limbs(hb, ctx=ctx)
        ctx.finish()
        t2 = time.perf_counter()
        with ctx, clbig.profile() as p:
            c = xa * ya
            ctx.finish()
        t3 = time.perf_counter()
        host = c.to_limbs()
        t4 = time.perf_counter()
        got = limbs_to_ints(host)
        t5 = time.perf_counter()
        _check("sequential list", [got[i] for i in idx], sa, sb, idx)
        return {"wall": t5 - t0, "conv_in": t1 - t0, "in": t2 - t1, "kernels": p.seconds,
                "out": t4 - t3, "conv_out": t5 - t4}

    def pipelined():
        with ctx:
            t0 = time.perf_counter()
            got = clbig.mul(stream.host(la, ctx=ctx), stream.host(lb, ctx=ctx)).tolist()
            t1 = time.perf_counter()
        _check("pipelined list", [got[i] for i in idx], sa, sb, idx)
        return {"wall": t1 - t0}

    rows = [("list, sequential", _timed(sequential, reps))]
    with _settings(CLBIG_PIPELINE="on"):
        rows.append(("list, pipelined (stream.host)", _timed(pipelined, reps)))
    return rows


def _products(pairs):
    return [x * y for x, y in pairs]


def _gmpy2_rows(ga, gb, reps: int, processes: int | None) -> list[tuple[str, dict]]:
    def one_core():
        t0 = time.perf_counter()
        _products(zip(ga, gb))
        return {"wall": time.perf_counter() - t0}
    rows = [("gmpy2, one core", _median([one_core() for _ in range(reps)]))]
    procs = processes or os.cpu_count() or 1
    if procs > 1:
        step = -(-len(ga) // (4 * procs))
        chunks = [list(zip(ga[i:i + step], gb[i:i + step])) for i in range(0, len(ga), step)]
        with multiprocessing.get_context("spawn").Pool(procs) as pool:
            pool.map(_products, chunks[:procs])          # workers started and warm
            def every_core():
                t0 = time.perf_counter()
                pool.map(_products, chunks)
                return {"wall": time.perf_counter() - t0}
            rows.append((f"gmpy2, {procs} processes", _median([every_core() for _ in range(reps)])))
    return rows


def run_e2e(ctx=None, *, n: int = 1 << 20, bits: int = 4096, list_n: int = 1 << 17, list_bits: int = 2048,
            reps: int = 3, seed: int = 2026, processes: int | None = None) -> list[dict]:
    """The table's rows as dicts: name, rows, bits, ms of wall and of each piece (None where it
    was not measured apart), rows per second. `ctx`: a clbig.Context (default: the current one)."""
    ctx = ctx or clbig.current_context()
    rng = np.random.default_rng(seed)
    m = -(-bits // 32)
    a = rng.integers(0, 2**32, (n, m), dtype=np.uint32)
    b = rng.integers(0, 2**32, (n, m), dtype=np.uint32)
    idx = sorted(set(rng.integers(0, n, SAMPLE).tolist()) | {0, n - 1})
    out = [(name, n, bits, t) for name, t in _numpy_rows(ctx, a, b, reps, idx)]
    ga, gb = [gmpy2.mpz(v) for v in _ints(a[:list_n])], [gmpy2.mpz(v) for v in _ints(b[:list_n])]
    out += [(name + f" ({bits} bits)", len(ga), bits, t) for name, t in _gmpy2_rows(ga, gb, reps, processes)]
    del a, b
    r = random.Random(seed)
    la = [r.getrandbits(list_bits) for _ in range(list_n)]
    lb = [r.getrandbits(list_bits) for _ in range(list_n)]
    lidx = sorted(set(r.randrange(list_n) for _ in range(SAMPLE)) | {0, list_n - 1})
    out += [(name, list_n, list_bits, t) for name, t in _list_rows(ctx, la, lb, reps, lidx)]
    ga, gb = [gmpy2.mpz(v) for v in la], [gmpy2.mpz(v) for v in lb]
    out += [(name + f" ({list_bits} bits)", list_n, list_bits, t) for name, t in _gmpy2_rows(ga, gb, reps, processes)]
    keys = ("wall", "conv_in", "in", "kernels", "out", "conv_out")
    return [{"name": name, "rows": rows, "bits": bits,
             **{k + "_ms": (t[k] * 1e3 if k in t else None) for k in keys},
             "rows_per_s": rows / t["wall"]} for name, rows, bits, t in out]


def markdown(rows: list[dict], device: str) -> str:
    cols = ("wall", "conv_in", "in", "kernels", "out", "conv_out")
    head = ["case", "rows", "bits", "wall ms", "conversion in", "transfers in", "kernels", "transfers out",
            "conversion out", "rows/s"]
    lines = [f"Host to host on {device}", "", "| " + " | ".join(head) + " |", "|" + " --- |" * len(head)]
    for r in rows:
        cells = [f"{r[c + '_ms']:.1f}" if r[c + "_ms"] is not None else "-" for c in cols]
        lines.append(f"| {r['name']} | {r['rows']} | {r['bits']} | " + " | ".join(cells)
                     + f" | {r['rows_per_s']:.3g} |")
    return "\n".join(lines) + "\n"


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(prog="python -m clbig.bench.e2e", description=__doc__.split("\n")[0])
    ap.add_argument("--n", type=int, default=1 << 20, help="numpy rows (default 2^20)")
    ap.add_argument("--bits", type=int, default=4096, help="bits of the numpy operands (default 4096)")
    ap.add_argument("--list-n", type=int, default=1 << 17, help="list rows (default 2^17)")
    ap.add_argument("--list-bits", type=int, default=2048, help="bits of the list operands (default 2048)")
    ap.add_argument("--reps", type=int, default=3)
    ap.add_argument("--processes", type=int, default=None, help="gmpy2 pool size (default: every core)")
    args = ap.parse_args(argv)
    ctx = clbig.current_context()
    rows = run_e2e(ctx, n=args.n, bits=args.bits, list_n=args.list_n, list_bits=args.list_bits,
                   reps=args.reps, processes=args.processes)
    print(markdown(rows, ctx.name))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
