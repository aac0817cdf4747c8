"""Host conversion of Python ints to limbs and back (issue 36 item 1), no device involved.

For each width, one batch of random non-negative full-width ints (`mbytes` MiB of limbs),
converted both ways by:
  baseline     the fastest plain Python: in, b"".join(map(int.to_bytes, vals, ...)) (the
               bytes only, not yet an array); out, list(map(int.from_bytes, rows, ...)) over
               rows already cut into bytes objects (the cutting is not timed)
  python       clbig.mpn.convert's pure-Python path (checks, signs, capacity, numpy array)
  C            clbig.mpn.convert through the extension clbig.mpn._limbs (the same work)
and "out mpz", limbs to gmpy2 mpz (to_ints(mpz=True); the baseline gmpy2's mpz.from_bytes over
the same rows), as MB/s of limbs (10^6 bytes), the best of `reps` runs with the garbage collector off (as
timeit). Every result is checked against the baseline's.

    python -m clbig.bench.convert [--bits 256,2048,65536] [--mbytes 8] [--reps 5]
"""
from __future__ import annotations

import argparse
import gc
import random
import time
from itertools import repeat

import numpy as np

from ..mpn import convert
from ..mpn.convert import MPZ

CONVERT_BITS = (256, 2048, 65536)


def _best(fn, reps: int) -> tuple[float, object]:
    """(best seconds, last result) of reps calls of fn, without the garbage collector."""
    best, res = float("inf"), None
    enabled = gc.isenabled()
    gc.disable()
    try:
        for _ in range(reps):
            res = None   # the previous result is freed outside the timing
            t0 = time.perf_counter()
            res = fn()
            best = min(best, time.perf_counter() - t0)
    finally:
        if enabled:
            gc.enable()
    return best, res


def measure(bits: int, mbytes: float = 8, reps: int = 5, seed: int = 1) -> list[dict]:
    """The rows of one width: direction, method, MB/s and the ratio to the baseline."""
    m = -(-bits // 32)
    w = 4 * m
    n = max(1, int(mbytes * 2**20) // w)
    rng = random.Random(seed)
    vals = [rng.getrandbits(bits) for _ in range(n)]
    nbytes = n * w

    t_base_in, raw = _best(lambda: b"".join(map(int.to_bytes, vals, repeat(w), repeat("little"))), reps)
    want = np.frombuffer(raw, "<u4").reshape(n, m)
    rows_bytes = [raw[i:i + w] for i in range(0, nbytes, w)]
    t_base_out, back = _best(lambda: list(map(int.from_bytes, rows_bytes, repeat("little"))), reps)
    if back != vals:
        raise AssertionError(f"{bits} bits: the baseline's from_bytes disagrees")
    from_bytes = MPZ.from_bytes
    t_base_mpz, back = _best(lambda: list(map(from_bytes, rows_bytes, repeat("little"))), reps)
    if back != vals:
        raise AssertionError(f"{bits} bits: gmpy2's mpz.from_bytes disagrees")
    back = None

    methods = [("python", True)] + ([("C", False)] if convert._c_ok() else [])
    out = [dict(bits=bits, n=n, direction="in", method="baseline", mb_s=nbytes / t_base_in / 1e6, ratio=1.0),
           dict(bits=bits, n=n, direction="out", method="baseline", mb_s=nbytes / t_base_out / 1e6, ratio=1.0),
           dict(bits=bits, n=n, direction="out mpz", method="baseline", mb_s=nbytes / t_base_mpz / 1e6,
                ratio=1.0)]
    for name, pure in methods:
        t_in, (limbs, got_bits, neg) = _best(lambda: convert.from_ints(vals, bits, pure=pure), reps)
        if got_bits != bits or neg is not None or not np.array_equal(limbs, want):
            raise AssertionError(f"{bits} bits: clbig.mpn.convert ({name}) gives other limbs than to_bytes")
        t_out, got = _best(lambda: convert.to_ints(want, pure=pure), reps)
        if got != vals:
            raise AssertionError(f"{bits} bits: clbig.mpn.convert ({name}) gives other ints than from_bytes")
        out.append(dict(bits=bits, n=n, direction="in", method=name, mb_s=nbytes / t_in / 1e6,
                        ratio=t_base_in / t_in))
        out.append(dict(bits=bits, n=n, direction="out", method=name, mb_s=nbytes / t_out / 1e6,
                        ratio=t_base_out / t_out))
        got = None
        t_mpz, got = _best(lambda: convert.to_ints(want, mpz=True, pure=pure), reps)
        if got != vals or {type(g) for g in got} != {MPZ}:
            raise AssertionError(f"{bits} bits: clbig.mpn.convert ({name}) gives other mpz than gmpy2's")
        got = None
        out.append(dict(bits=bits, n=n, direction="out mpz", method=name, mb_s=nbytes / t_mpz / 1e6,
                        ratio=t_base_mpz / t_mpz))
    return out


def run_convert(bits=CONVERT_BITS, mbytes: float = 8, reps: int = 5, seed: int = 1) -> list[dict]:
    """Every width's rows (see measure)."""
    return [r for b in bits for r in measure(b, mbytes, reps, seed)]


def convert_markdown(rows: list[dict]) -> str:
    """The rows as a markdown table: one line per width and direction, a column per method."""
    methods = list(dict.fromkeys(r["method"] for r in rows))
    head = "| bits | values | direction | " + " | ".join(f"{m} MB/s" for m in methods) + \
        " | " + " | ".join(f"{m} / baseline" for m in methods if m != "baseline") + " |"
    lines = [head, "|" + " --- |" * (3 + 2 * len(methods) - 1)]
    for key in dict.fromkeys((r["bits"], r["direction"]) for r in rows):
        sel = {r["method"]: r for r in rows if (r["bits"], r["direction"]) == key}
        n = next(iter(sel.values()))["n"]
        cells = [f"{sel[m]['mb_s']:.0f}" if m in sel else "-" for m in methods]
        ratios = [f"{sel[m]['ratio']:.2f}x" if m in sel else "-" for m in methods if m != "baseline"]
        lines.append(f"| {key[0]} | {n} | {key[1]} | " + " | ".join(cells + ratios) + " |")
    return "\n".join(lines)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(prog="python -m clbig.bench.convert", description=__doc__.split("\n")[0])
    ap.add_argument("--bits", default=",".join(map(str, CONVERT_BITS)), help="widths, comma-separated")
    ap.add_argument("--mbytes", type=float, default=8, help="MiB of limbs per width (default 8)")
    ap.add_argument("--reps", type=int, default=5, help="runs per measurement; the best counts")
    args = ap.parse_args(argv)
    bits = [int(b) for b in args.bits.split(",") if b]
    print(f"clbig.mpn.convert: {'C extension' if convert._c_ok() else 'no C extension'}"
          f"{' (the PURE_PYTHON setting is on: clbig uses the python path)' if convert.PURE else ''}")
    print(convert_markdown(run_convert(bits, args.mbytes, args.reps)))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
