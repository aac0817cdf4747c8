"""`python -m clbig.bench --e2e`: users' workloads from their data back to their data.

Each workload starts from Python ints (or numpy limbs) on the host and ends with the same kind
of data, as a user runs it. Each side gets the values as its users hold them (Python ints for clbig, gmpy2 mpz for
gmpy2). It is timed twice:
- `wall`: the user's own calls (`clbig.mul(A, B).tolist()`, ...), nothing else;
- by phase, the same work split into conversion in (ints -> limbs on the host), upload,
  kernels (device time from clbig.profile, the span of every kernel), download and conversion
  out. A pipelined call overlaps these, so its wall can be below their sum.
Beside it, gmpy2 on one core and gmpy2 in a process pool on every host core, in the same run
(each run on as many elements as fit its time budget, scaled to the batch; the table says where
it was scaled). clbig's results are checked against gmpy2's on every element gmpy2 computed.
The rows of clbig.crypto's schemes (Paillier beside phe, RSA blind signing) run in schemes.py.
"""
from __future__ import annotations

import dataclasses
import os
import random
import time
from typing import Callable

import gmpy2
import numpy as np

import clbig
from clbig.mpn import convert
from clbig.mpz.array import limbs_to_ints
from clbig.scale import stream

from . import pools, schemes

mpz = gmpy2.mpz


# -- gmpy2's side: top-level functions, so that a process pool can run them -------------------
def _g_mul(chunk):
    return [x * y for x, y in chunk]


def _g_divmod(chunk):
    return [gmpy2.f_divmod(x, y) for x, y in chunk]


def _g_powmod(chunk):
    return [gmpy2.powmod(b, e, m) for b, e, m in chunk]


def _g_gcd(chunk):
    return [gmpy2.gcd(x, y) for x, y in chunk]


_RSA = {}


def _g_rsa(chunk):
    p, q, dp, dq, qinv = _RSA["key"]
    out = []
    for c in chunk:
        mp, mq = gmpy2.powmod(c, dp, p), gmpy2.powmod(c, dq, q)
        out.append(mq + (qinv * (mp - mq) % p) * q)
    return out


def _pool_init(key):
    _RSA["key"] = key


# -- clbig's side ------------------------------------------------------------------------------
class Phases:
    """Seconds per phase of one clbig run (conversion in, upload, kernels, download, out)."""

    def __init__(self, ctx):
        self.ctx, self.t = ctx, {}

    def timed(self, name: str, fn, *args):
        t0 = time.perf_counter()
        out = fn(*args)
        self.ctx.finish()
        self.t[name] = self.t.get(name, 0.0) + time.perf_counter() - t0
        return out

    def kernels(self, fn, *args):
        self.ctx.finish()
        with clbig.profile() as p:
            out = self.timed("kernels (wall)", fn, *args)
        self.t["kernels"] = self.t.get("kernels", 0.0) + p.seconds
        return out


def _to_limbs(vals, bits: int) -> np.ndarray:
    """Ints to an (n, m) uint32 limb matrix on the host, as clbig.array converts them."""
    return convert.from_ints(vals, bits)[0]


def _listwise(op, widths, out_tuple=False):
    """A list -> list workload of clbig: op(*arrays) on arrays of these capacities."""
    def user(ctx, cols):
        with ctx:
            got = op(*[clbig.array(c, bits=w) for c, w in zip(cols, widths)])
            return clbig.tolist(*got) if out_tuple else got.tolist()     # rows of (q, r)

    def phased(ctx, cols, ph: Phases):
        with ctx:
            limbs = [ph.timed("convert in", _to_limbs, c, w) for c, w in zip(cols, widths)]
            arrs = [ph.timed("upload", clbig.from_limbs, L, w) for L, w in zip(limbs, widths)]
            got = ph.kernels(op, *arrs)
            got = got if out_tuple else (got,)
            host = [ph.timed("download", g.to_limbs) for g in got]
            vals = [ph.timed("convert out", limbs_to_ints, h) for h in host]
            return list(zip(*vals)) if out_tuple else vals[0]
    return user, phased


@dataclasses.dataclass
class Workload:
    key: str
    label: str
    n_full: int
    n_quick: int
    make: Callable          # (rng, n) -> (columns for clbig, rows for gmpy2, gmpy2 function, pool initargs)
    user: Callable          # (ctx, columns) -> results, as a user calls clbig
    phased: Callable        # (ctx, columns, Phases) -> results, phase by phase
    kind: str = "list"


# Each side gets the values as its users hold them: Python ints for clbig, mpz for gmpy2.
def _pairs(bits_a, bits_b, odd_b=False):
    def make(rng, n):
        A = [rng.getrandbits(bits_a) for _ in range(n)]
        B = [rng.getrandbits(bits_b) | (1 if odd_b else 0) | (1 << (bits_b - 1)) for _ in range(n)]
        return (A, B), list(zip(map(mpz, A), map(mpz, B)))
    return make


def _make_powmod(rng, n):
    M = [rng.getrandbits(2048) | 1 | (1 << 2047) for _ in range(n)]
    B = [rng.getrandbits(2047) for _ in range(n)]
    E = [rng.getrandbits(2048) for _ in range(n)]
    return (B, E, M), list(zip(map(mpz, B), map(mpz, E), map(mpz, M)))


def _rsa_key(rng):
    def prime(bits):
        while True:
            p = gmpy2.next_prime(mpz(rng.getrandbits(bits)) | (mpz(1) << (bits - 1)))
            if p.bit_length() == bits:
                return p
    p, q = prime(1024), prime(1024)
    d = gmpy2.invert(65537, (p - 1) * (q - 1))
    return p, q, d % (p - 1), d % (q - 1), gmpy2.invert(q, p)


def _make_rsa(rng, n):
    key = _rsa_key(rng)
    p, q = key[0], key[1]
    C = [rng.getrandbits(2046) % int(p * q) for _ in range(n)]
    _RSA["key"] = key
    return (C, tuple(map(int, key))), list(map(mpz, C))


_MODULI = {}


def _rsa_op(ctx, C, key, ph=None):
    """CRT decryption of the batch C; the key's Moduli are made once per context and key, as
    a user decrypting batch after batch with one key keeps them (notebook 04)."""
    p, q, dp, dq, qinv = key
    if (id(ctx), key) not in _MODULI:
        _MODULI[(id(ctx), key)] = clbig.Modulus(p), clbig.Modulus(q)
    P, Q = _MODULI[(id(ctx), key)]
    run = (lambda f, *a: f(*a)) if ph is None else ph.kernels

    def body(c):
        mp = clbig.powmod(c % p, dp, P)
        mq = clbig.powmod(c % q, dq, Q)
        diff = clbig.mod(mp + p - clbig.mod(mq, p), p)
        return mq + clbig.mulmod(diff, qinv, P) * q
    return run(body, C)


def _rsa_user(ctx, cols):
    C, key = cols
    with ctx:
        return _rsa_op(ctx, clbig.array(C, bits=2048), key).tolist()


def _rsa_phased(ctx, cols, ph):
    C, key = cols
    with ctx:
        L = ph.timed("convert in", _to_limbs, C, 2048)
        c = ph.timed("upload", clbig.from_limbs, L, 2048)
        got = _rsa_op(ctx, c, key, ph)
        return ph.timed("convert out", limbs_to_ints, ph.timed("download", got.to_limbs))


def _numpy_user(ctx, cols):
    """numpy -> numpy: 4096-bit limbs to the product's limbs, downloaded into `out` (the user's
    reused array; page-locked ones for the pinned workload)."""
    LA, LB, out = cols
    with ctx:
        res = clbig.mul(clbig.from_limbs(LA), clbig.from_limbs(LB)).to_limbs(out=out)
        return limbs_to_ints(res[:8])


def _numpy_phased(ctx, cols, ph):
    LA, LB, out = cols
    with ctx:
        a = ph.timed("upload", clbig.from_limbs, LA)
        b = ph.timed("upload", clbig.from_limbs, LB)
        prod = ph.kernels(clbig.mul, a, b)
        res = ph.timed("download", prod.to_limbs, np.uint32, False, out)
        return limbs_to_ints(res[:8])


def _pipelined_list(ctx, cols):
    """list -> list through stream.host: large batches run in chunks whose conversion, transfer
    and kernels overlap (clbig.scale.stream)."""
    A, B = cols
    with ctx:
        return clbig.mul(stream.host(A, bits=2048, ctx=ctx), stream.host(B, bits=2048, ctx=ctx)).tolist()


def _pipelined_numpy(ctx, cols):
    LA, LB, _ = cols
    with ctx:
        res = clbig.mul(stream.host(LA, ctx=ctx), stream.host(LB, ctx=ctx)).to_limbs()
        return limbs_to_ints(res[:8])


def _no_phases(ctx, cols, ph):
    """A pipelined workload has no separate phases: they overlap by design."""
    return None


def _host_arrays(ctx, cols, n: int, pinned: bool):
    """The numpy workloads' operands and output array, in page-locked memory when `pinned`
    (made and filled before the clock starts, as a user who planned for it would)."""
    LA, LB, _ = cols
    if not pinned:
        return LA, LB, np.empty((n, 256), np.uint32)
    PA, PB = clbig.pinned_empty(LA.shape, ctx=ctx), clbig.pinned_empty(LB.shape, ctx=ctx)
    PA[...], PB[...] = LA, LB
    return PA, PB, clbig.pinned_empty((n, 256), ctx=ctx)


def _make_numpy(rng, n):
    r = np.random.default_rng(rng.getrandbits(32))
    LA = r.integers(0, 2**32, (n, 128), dtype=np.uint32)
    LB = r.integers(0, 2**32, (n, 128), dtype=np.uint32)
    A, B = limbs_to_ints(LA), limbs_to_ints(LB)      # gmpy2's operands: the same values
    return (LA, LB, None), list(zip(map(mpz, A), map(mpz, B)))


def workloads() -> dict:
    mul_u, mul_p = _listwise(clbig.mul, (2048, 2048))
    div_u, div_p = _listwise(clbig.divmod, (4096, 2048), out_tuple=True)
    pow_u, pow_p = _listwise(clbig.powmod, (2048, 2048, 2048))
    gcd_u, gcd_p = _listwise(clbig.gcd, (2048, 2048))
    W = [
        Workload("mul2048", "2048-bit products, list -> list", 1_000_000, 4096, _pairs(2048, 2048), mul_u, mul_p),
        Workload("mul2048pipe", "2048-bit products, list -> list, pipelined (stream.host)", 1_000_000, 4096,
                 _pairs(2048, 2048), _pipelined_list, _no_phases),
        Workload("mul4096np", "4096-bit products, numpy -> numpy (ordinary memory)", 1_048_576, 4096,
                 _make_numpy, _numpy_user, _numpy_phased, kind="numpy"),
        Workload("mul4096pin", "4096-bit products, numpy -> numpy (pinned_empty)", 1_048_576, 4096,
                 _make_numpy, _numpy_user, _numpy_phased, kind="pinned"),
        Workload("mul4096pipe", "4096-bit products, numpy -> numpy, pipelined (stream.host)", 1_048_576, 4096,
                 _make_numpy, _pipelined_numpy, _no_phases, kind="numpy"),
        Workload("divmod4096", "divmod 4096 / 2048 bits, list -> list", 262_144, 2048, _pairs(4096, 2048),
                 div_u, div_p),
        Workload("powmod2048", "powmod 2048 bits, full exponents, list -> list", 65_536, 256, _make_powmod,
                 pow_u, pow_p),
        Workload("rsa2048", "RSA-2048 CRT decryptions, list -> list", 100_000, 512, _make_rsa,
                 _rsa_user, _rsa_phased),
        Workload("gcd2048", "gcd of 2048-bit pairs, list -> list", 262_144, 2048, _pairs(2048, 2048), gcd_u, gcd_p),
    ]
    # Paillier and RSA over phe's and cryptography's keys, beside phe or gmpy2: their own runner
    # (schemes.py)
    W += [Workload(s.key, s.label, s.n_full, s.n_quick, None, None, None, kind="scheme")
          for s in schemes.SCHEMES.values()]
    return {w.key: w for w in W}


_GMPY2 = {"mul2048": _g_mul, "mul2048pipe": _g_mul, "mul4096pipe": _g_mul, "mul4096np": _g_mul, "mul4096pin": _g_mul, "divmod4096": _g_divmod,
          "powmod2048": _g_powmod, "rsa2048": _g_rsa, "gcd2048": _g_gcd}


def _gmpy2_one_core(fn, rows, budget: float):
    """fn over as many rows as fit about `budget` seconds (doubling from 64): (results, rows done,
    seconds)."""
    k, done, t, out = 64, 0, 0.0, []
    while done < len(rows):
        part = rows[done:done + k]
        t0 = time.perf_counter()
        out += fn(part)
        t += time.perf_counter() - t0
        done += len(part)
        if t > budget:
            break
        k *= 2
    return out, done, t


def _gmpy2_pool(fn, rows, budget_rows: int, workers: int, initargs=()):
    """fn over rows[:budget_rows] on `workers` processes (pools.pool_map): (results, rows, s)."""
    rows = rows[:budget_rows]
    out, t = pools.pool_map(fn, rows, workers, _pool_init if initargs else None, initargs)
    return out, len(rows), t


def run_e2e(ctx, keys=None, quick: bool = False, scale: int = 0, gmpy2_seconds: float = 5.0,
            workers: int | None = None, log=print, rounds: int = 3) -> list[dict]:
    """Run the workloads `keys` (default all) on ctx; one dict per workload. clbig's call and
    gmpy2 on one core run `rounds` times each, in turn, and the least of each is reported
    (a shared host's rounds scatter by 1.3-1.8x, clbig's and gmpy2's alike)."""
    W = workloads()
    workers = workers or os.cpu_count() or 1
    rows_out = []
    for key in keys or list(W):
        w = W[key]
        n = max(1, (w.n_quick if quick else w.n_full) >> scale)
        if w.kind == "scheme":
            rows_out.append(schemes.run(ctx, key, n, quick=quick, seconds=gmpy2_seconds, workers=workers, log=log))
            continue
        rng = random.Random(20261127)
        cols, gm_rows = w.make(rng, n)
        if w.kind != "list":
            cols = _host_arrays(ctx, cols, n, w.kind == "pinned")
        # One untimed run at the full size first: kernels are specialised by batch-size class,
        # and a first build on NVIDIA's compiler takes seconds.
        w.user(ctx, cols)
        fn = _GMPY2[key]
        initargs = (_RSA["key"],) if key == "rsa2048" else ()
        walls, ones, got = [], [], None
        for r in range(max(1, rounds)):
            got = None                  # each timed call, as the first, after the last one's results are freed
            t0 = time.perf_counter()
            got = w.user(ctx, cols)
            walls.append(time.perf_counter() - t0)
            if r == 0:                  # the rows that fit gmpy2_seconds, then the same rows again
                ref, k1, t1 = _gmpy2_one_core(fn, gm_rows, gmpy2_seconds)
            else:
                t0 = time.perf_counter()
                fn(gm_rows[:k1])
                t1 = time.perf_counter() - t0
            ones.append(t1)
        wall, t1 = min(walls), min(ones)
        ph = Phases(ctx)
        got2 = w.phased(ctx, cols, ph)
        pool_rows = min(len(gm_rows), max(workers * 64, int(k1 * workers * 1.5)))
        ref_pool, kp, tp = _gmpy2_pool(fn, gm_rows, pool_rows, workers, initargs)
        bad = _first_mismatch(got, ref_pool if kp >= len(ref) else ref, w)
        bad2 = None if got2 is None else _first_mismatch(got2, ref_pool if kp >= len(ref) else ref, w)
        one = t1 * n / k1
        pool = tp * n / kp
        row = dict(key=key, label=w.label, n=n, wall=wall, walls=walls, gmpy2_ones=[t * n / k1 for t in ones],
                   phases=ph.t, gmpy2_one=one, gmpy2_one_rows=k1,
                   gmpy2_pool=pool, gmpy2_pool_rows=kp, workers=workers,
                   x_one=one / wall, x_pool=pool / wall, ok=bad is None and bad2 is None,
                   mismatch=bad or bad2, device=ctx.name)
        rows_out.append(row)
        log(_line(row))
        if not row["ok"]:
            raise AssertionError(f"e2e {key}: WRONG RESULT {row['mismatch']}")
    return rows_out


def _first_mismatch(got, ref, w):
    k = min(len(got), len(ref))
    for i in range(k):
        g, r = got[i], ref[i]
        if isinstance(r, tuple):
            if tuple(int(x) for x in g) != tuple(int(x) for x in r):
                return f"instance {i}: got {g!r:.80}, want {r!r:.80}"
        elif int(g) != int(r):
            return f"instance {i}: got {g!r:.80}, want {r!r:.80}"
    return None


def _line(r) -> str:
    ph = ", ".join(f"{k} {v * 1e3:.1f}" for k, v in r["phases"].items())
    return (f"{r['label']}: n={r['n']}, clbig {r['wall'] * 1e3:.1f} ms ({ph} ms); gmpy2 one core "
            f"{r['gmpy2_one'] * 1e3:.0f} ms ({r['x_one']:.2f}x), {r['workers']} cores {r['gmpy2_pool'] * 1e3:.0f} ms "
            f"({r['x_pool']:.2f}x){'' if r['ok'] else ' WRONG'}")


def markdown(rows: list[dict]) -> str:
    scheme_rows = [r for r in rows if r.get("scheme")]
    rows = [r for r in rows if not r.get("scheme")]
    tables = ([_plain_markdown(rows)] if rows else []) + ([schemes.markdown(scheme_rows)] if scheme_rows else [])
    return "\n".join(tables)


def _plain_markdown(rows: list[dict]) -> str:
    phases = ["convert in", "upload", "kernels", "download", "convert out"]
    out = ["| workload | n | clbig wall ms | " + " | ".join(f"{p} ms" for p in phases)
           + " | gmpy2 1 core ms | × 1 core | gmpy2 all cores ms | × all cores | checked |",
           "| --- " * (9 + len(phases)) + "|"]
    for r in rows:
        cells = [r["label"], str(r["n"]), f"{r['wall'] * 1e3:.1f}"]
        cells += [f"{r['phases'][p] * 1e3:.1f}" if p in r["phases"] else "–" for p in phases]
        scaled1 = "" if r["gmpy2_one_rows"] >= r["n"] else f" (from {r['gmpy2_one_rows']})"
        scaledp = "" if r["gmpy2_pool_rows"] >= r["n"] else f" (from {r['gmpy2_pool_rows']})"
        cells += [f"{r['gmpy2_one'] * 1e3:.0f}{scaled1}", f"{r['x_one']:.2f}×",
                  f"{r['gmpy2_pool'] * 1e3:.0f}{scaledp} [{r['workers']}]", f"{r['x_pool']:.2f}×",
                  "exact" if r["ok"] else "WRONG"]
        out.append("| " + " | ".join(cells) + " |")
    return "\n".join(out) + "\n"
