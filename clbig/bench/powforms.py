"""`python -m clbig.bench.powforms`: the forms of modular exponentiation beside powmod (issue 44,
items 4 and 5), in one run so that ratios hold on a shared machine:

* fixed base: powmod(g, E, m) with one g and one odd m for the batch, exponents as long as m,
  against the general kernel on the same batch (POWMOD_FIXED_ROWS=0), the table built anew
  (a new g: the first call) and kept (the same g again);
* products of powers: multi_powmod with k = 2 against one powmod of the same sizes (moduli and
  exponents per row), and against two powmods and a mulmod.

Rates in rows per second: device-resident operands and results (the kernels and launches), and
list -> list (Python ints in and out). gmpy2 on one core and on every core (a process pool) on a
sample, scaled to rows per second. Results are checked against gmpy2 on a sample of SAMPLE rows
spread over the batch (every row where the batch is smaller).
"""
from __future__ import annotations

import argparse
import json
import multiprocessing
import os
import random
import time

import gmpy2

import clbig
from clbig.runtime import config

SAMPLE = 512
_FIXED = config.var("POWMOD_FIXED_ROWS")


def _time(fn, reps: int = 3) -> float:
    best = float("inf")
    for _ in range(reps):
        t0 = time.perf_counter()
        fn()
        best = min(best, time.perf_counter() - t0)
    return best


def _sync(r):
    r.ctx.finish()
    return r


def _g_rows(args):
    rows = args
    out = []
    for bs, es, m in rows:
        x = 1
        for b, e in zip(bs, es):
            x = x * gmpy2.powmod(b, e, m) % m
        out.append(int(x))
    return out


def _gmpy2_rates(rows, pool) -> tuple[float, float]:
    """Rows per second of gmpy2 on one core and over the pool's workers."""
    t0 = time.perf_counter()
    _g_rows(rows[:max(8, len(rows) // 8)])
    one = max(8, len(rows) // 8) / (time.perf_counter() - t0)
    chunks = [rows[i::pool._processes] for i in range(pool._processes)]
    t0 = time.perf_counter()
    pool.map(_g_rows, chunks)
    return one, len(rows) / (time.perf_counter() - t0)


def _check(got: list, rows, idx, what: str):
    want = _g_rows([rows[i] for i in idx])
    bad = [i for i, w in zip(idx, want) if got[i] != w]
    if bad:
        raise AssertionError(f"{what}: {len(bad)} of {len(idx)} sampled rows wrong, first row {bad[0]}")


def fixed_rows(bits: int, n: int, rng, pool) -> dict:
    m = rng.getrandbits(bits) | 1 | (1 << (bits - 1))
    ev = [rng.getrandbits(bits) for _ in range(n)]
    E, M = clbig.array(ev), clbig.Modulus(m)
    g0 = rng.getrandbits(bits) % m
    idx = sorted(rng.sample(range(n), min(n, SAMPLE)))
    res = {"form": "fixed base", "bits": bits, "n": n}
    os.environ[_FIXED] = "0"
    clbig.powmod(g0, E[:64], M)
    res["general_per_s"] = n / _time(lambda: _sync(clbig.powmod(g0, E, M)), 2)
    res["general_list_per_s"] = n / _time(lambda: clbig.powmod(g0, ev, m).tolist(), 1)
    os.environ.pop(_FIXED, None)
    gs = [rng.getrandbits(bits) % m for _ in range(4)]
    clbig.powmod(gs[0], E, M)                                  # the kernels built
    first = [n / _time(lambda g=g: _sync(clbig.powmod(g, E, M)), 1) for g in gs[1:]]
    res["fixed_first_per_s"] = max(first)
    res["fixed_per_s"] = n / _time(lambda: _sync(clbig.powmod(gs[1], E, M)), 3)
    res["fixed_list_per_s"] = n / _time(lambda: clbig.powmod(gs[1], ev, m).tolist(), 2)
    got = clbig.powmod(gs[1], E, M).tolist()
    rows = [((gs[1],), (e,), m) for e in ev]
    _check(got, rows, idx, f"fixed base {bits}")
    res["gmpy2_one_per_s"], res["gmpy2_all_per_s"] = _gmpy2_rates([rows[i] for i in idx], pool)
    res["fixed_vs_general"] = res["fixed_per_s"] / res["general_per_s"]
    res["fixed_first_vs_general"] = res["fixed_first_per_s"] / res["general_per_s"]
    return res


def multi_rows(bits: int, n: int, k: int, rng, pool) -> dict:
    ms = [rng.getrandbits(bits) | 1 | (1 << (bits - 1)) for _ in range(n)]
    M = clbig.Modulus(ms)
    bs = [[rng.getrandbits(bits) for _ in range(n)] for _ in range(k)]
    es = [[rng.getrandbits(bits) for _ in range(n)] for _ in range(k)]
    B, E = [clbig.array(b) for b in bs], [clbig.array(e) for e in es]
    idx = sorted(rng.sample(range(n), min(n, SAMPLE)))
    res = {"form": f"multi_powmod k={k}", "bits": bits, "n": n}
    clbig.multi_powmod(B, E, M), clbig.powmod(B[0], E[0], M)
    res["powmod_per_s"] = n / _time(lambda: _sync(clbig.powmod(B[0], E[0], M)), 2)
    res["multi_per_s"] = n / _time(lambda: _sync(clbig.multi_powmod(B, E, M)), 2)

    def composed():
        r = clbig.powmod(B[0], E[0], M)
        for b, e in zip(B[1:], E[1:]):
            r = clbig.mulmod(r, clbig.powmod(b, e, M), M)
        return _sync(r)
    composed()                                                 # mulmod's kernel built
    res["composed_per_s"] = n / _time(composed, 1)
    rows_in = [list(t) for t in zip(*bs)]
    rows_e = [list(t) for t in zip(*es)]
    res["multi_list_per_s"] = n / _time(lambda: clbig.multi_powmod(rows_in, rows_e, ms).tolist(), 1)
    got = clbig.multi_powmod(B, E, M).tolist()
    rows = [(rows_in[i], rows_e[i], ms[i]) for i in range(n)]
    _check(got, rows, idx, f"multi_powmod {bits}")
    res["gmpy2_one_per_s"], res["gmpy2_all_per_s"] = _gmpy2_rates([rows[i] for i in idx], pool)
    res["multi_time_vs_powmod"] = res["powmod_per_s"] / res["multi_per_s"]
    return res


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(prog="python -m clbig.bench.powforms", description=__doc__.split("\n\n")[0])
    ap.add_argument("--bits", default="1024,2048", help="modulus sizes (comma-separated)")
    ap.add_argument("--rows", default=None, help="batch sizes (default 10000,100000 on GPUs, 256 on CPUs)")
    ap.add_argument("--out", default=None, help="write the rows as JSON here")
    args = ap.parse_args(argv)
    ctx = clbig.current_context()
    gpu = ctx.profile.facts.is_gpu
    ns = [int(x) for x in (args.rows or ("10000,100000" if gpu else "256")).split(",")]
    rng = random.Random(2026)
    out = {"device": ctx.name, "date": time.strftime("%Y-%m-%d"), "host_cores": os.cpu_count(), "rows": []}
    with multiprocessing.get_context("spawn").Pool(os.cpu_count()) as pool:
        for bits in (int(b) for b in args.bits.split(",")):
            for n in ns:
                for r in (fixed_rows(bits, n, rng, pool), multi_rows(bits, n, 2, rng, pool)):
                    out["rows"].append(r)
                    print(json.dumps({k: (round(v, 3) if isinstance(v, float) else v) for k, v in r.items()}),
                          flush=True)
    if args.out:
        os.makedirs(os.path.dirname(os.path.abspath(args.out)), exist_ok=True)
        with open(args.out, "w") as f:
            json.dump(out, f, indent=1)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
