"""`python -m clbig.bench --few`: powmod of a few rows, Python ints to Python ints (issue 34,
item 6). A powmod launch costs the latency of one instance whatever the batch, so up to a few
rows per host core the host's cores are faster; `auto` then computes them there, GMP in one
thread per core (clbig.mpn.host_powm; POWMOD_HOST_ROWS, said in clbig.profile()).

Rows: bits in FEW_BITS (modulus and exponent both that long, one modulus and one exponent for
the batch, as RSA or a Fermat test), n in FEW_ROWS. Columns: clbig as users run it (auto), the
device path alone (POWMOD_HOST_ROWS 0: the kernel's latency plus conversions), its device time
(clbig.profile), gmpy2 on one core, gmpy2 over every core (a warm process pool, rows spread
over min(n, cores) workers), and auto against one core. The device path and the pool take turns
in rounds of their own, then auto and gmpy2 on one core in theirs. Every result is checked
against gmpy2.
"""
from __future__ import annotations

import multiprocessing
import os
import random
import time

import gmpy2

import clbig
from clbig.runtime import config

from .specs import Mismatch

FEW_BITS = (1024, 2048, 4096)
FEW_ROWS = (1, 2, 4, 8, 16, 64, 128)
_VAR = config.var("POWMOD_HOST_ROWS")
_FIRST = config.var("HOST_FIRST_MS")


def _best(fns, reps: int) -> list:
    """The least time of each of `fns` over `reps` rounds, the functions taking turns within a
    round, so that a shared host's slow spells hit them alike (the host path and gmpy2 do the
    same work: their ratio is clbig's overhead, not the machine's mood)."""
    best = [float("inf")] * len(fns)
    for _ in range(reps):
        for i, fn in enumerate(fns):
            t0 = time.perf_counter()
            fn()
            best[i] = min(best[i], time.perf_counter() - t0)
    return best


def _g_powmod(args):
    xs, e, m = args
    return [int(gmpy2.powmod(x, e, m)) for x in xs]


def _clbig(xs, e, m, host_rows: str | None):
    # The rows measure the steady state: past the host's rows the device, not a first call's
    # rent of the host (HOST_FIRST_MS; its own cost is --cold's).
    saved = {v: os.environ.get(v) for v in (_VAR, _FIRST)}
    try:
        if host_rows is None:
            os.environ.pop(_VAR, None)
        else:
            os.environ[_VAR] = host_rows
        os.environ[_FIRST] = "0"
        return clbig.powmod(xs, e, m).tolist()
    finally:
        for v, old in saved.items():
            if old is None:
                os.environ.pop(v, None)
            else:
                os.environ[v] = old


def run_few(ctx, bits_list=FEW_BITS, rows=FEW_ROWS, reps: int = 7, seed: int = 2026,
            workers: int | None = None, log=print) -> list[dict]:
    workers = workers or os.cpu_count() or 1
    out = []
    pool = multiprocessing.get_context("fork").Pool(workers)
    try:
        pool.map(_g_powmod, [([3], 5, 7)] * workers)        # the workers are up and warm
        with ctx:
            for bits in bits_list:
                r = random.Random(f"{seed}:{bits}")
                m = r.getrandbits(bits) | 1 | (1 << (bits - 1))
                e = r.getrandbits(bits) | (1 << (bits - 1))
                for n in rows:
                    xs = [r.randrange(m) for _ in range(n)]
                    want = _g_powmod((xs, gmpy2.mpz(e), gmpy2.mpz(m)))
                    for mode in (None, "0"):                  # warm up: kernel builds
                        if _clbig(xs, e, m, mode) != want:
                            raise Mismatch(f"powmod {bits} bits, n={n}: clbig differs from gmpy2")
                    with clbig.profile() as p:
                        _clbig(xs, e, m, "0")
                    ge, gm = gmpy2.mpz(e), gmpy2.mpz(m)
                    k = min(n, workers)
                    parts = [(xs[i::k], ge, gm) for i in range(k)]
                    # auto and gmpy2 on one core take turns by themselves, after the device
                    # path and the pool: a call just after a device launch or the pool's run
                    # on every core ran slower (a CPU runtime's threads still busy, caches,
                    # clocks: on Intel's runtime both took 540 against 385 µs at one row of
                    # 1024 bits, 2-core EPYC, 2026-11-29), which a shared round gave to
                    # whichever came next.
                    dev, every = _best([lambda: _clbig(xs, e, m, "0"),
                                        lambda: pool.map(_g_powmod, parts, chunksize=1)], reps)
                    auto, one = _best([lambda: _clbig(xs, e, m, None),
                                       lambda: _g_powmod((xs, ge, gm))], reps)
                    with clbig.profile() as pa:
                        _clbig(xs, e, m, None)
                    row = dict(bits=bits, n=n, auto_ms=1e3 * auto, device_path_ms=1e3 * dev,
                               kernel_ms=1e3 * p.seconds, gmpy2_ms=1e3 * one,
                               gmpy2_all_ms=1e3 * every, workers=k,
                               auto_on_host=any("on the host" in s for s in pa.notes),
                               auto_vs_gmpy2=one / auto)
                    log(f"powmod {bits:5d} bits n={n:3d}: auto {row['auto_ms']:9.3f} ms "
                        f"({'host' if row['auto_on_host'] else 'device'}), device path "
                        f"{row['device_path_ms']:9.3f} (kernels {row['kernel_ms']:9.3f}), gmpy2 "
                        f"{row['gmpy2_ms']:9.3f}, on {k} cores {row['gmpy2_all_ms']:9.3f}; "
                        f"auto {row['auto_vs_gmpy2']:.2f}x one core")
                    out.append(row)
    finally:
        pool.terminate()
    return out


def few_markdown(rows: list[dict], title: str) -> str:
    lines = [f"### powmod of a few rows, list to list: {title}", "",
             "| bits | n | auto ms | path | device path ms | kernels ms | gmpy2 1 core ms | "
             "gmpy2 all cores ms | auto vs 1 core |",
             "| ---: | ---: | ---: | --- | ---: | ---: | ---: | ---: | ---: |"]
    for r in rows:
        lines.append(f"| {r['bits']} | {r['n']} | {r['auto_ms']:.3f} | "
                     f"{'host' if r['auto_on_host'] else 'device'} | {r['device_path_ms']:.3f} | "
                     f"{r['kernel_ms']:.3f} | {r['gmpy2_ms']:.3f} | {r['gmpy2_all_ms']:.3f} "
                     f"({r['workers']}) | {r['auto_vs_gmpy2']:.2f}x |")
    return "\n".join(lines) + "\n"
