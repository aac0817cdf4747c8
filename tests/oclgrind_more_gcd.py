"""GCD and modular inverse under Oclgrind (run by tests/oclgrind_cases.py, which picks up every
tests/oclgrind_more_*.py): tiny batches through both kernels of kernels_cl/gcd.cl.mako in both
storage modes (private arrays, the interleaved global scratch), with zero operands, common
powers of two, a swapped pair, a result too wide for its capacity (the retry), moduli 1, even
and zero (flagged by the kernel), no inverse, a broadcast operand, a batch that leaves
padding work-items in its last group (small context: 4-item groups), and the inverse's other
cofactor schedule (CLBIG_GCD_COF=1: an update every round)."""
from __future__ import annotations

import importlib
import math

G = importlib.import_module("clbig.mpz.gcd")   # the module: clbig.gcd is the function
from clbig.mpn import gcd_n
import clbig
from oclgrind_env import call_with


def _with_store(store, fn, *args):
    call_with({"CLBIG_GCD_STORE": store}, fn, *args)


def gcds(ctx, check, tag):
    xs = [0, 0, 12 << 70, 2 ** 99 - 1, 35, 2 ** 64, 144, 0]
    ys = [0, 2 ** 50 + 3, 18 << 65, 2 ** 98, 0, 3 ** 40, 89, 7]
    a = clbig.array(xs, bits=100, ctx=ctx)
    b = clbig.array(ys, bits=100, ctx=ctx)
    check(f"{tag} gcd", G.gcd(a, b), [math.gcd(x, y) for x, y in zip(xs, ys)], 100)
    a = clbig.array([0, 6], bits=40, ctx=ctx)          # gcd(0, b) wider than 40 bits: retried
    check(f"{tag} gcd wide", G.gcd(a, b[1:3]), [ys[1], math.gcd(6, ys[2])], 100)
    check(f"{tag} gcd broadcast", G.gcd(a[1:2], b), [math.gcd(6, y) for y in ys], 40)


def _inv(x, m):
    try:
        return pow(x, -1, m)
    except ValueError:
        return 0


def inverses(ctx, check, tag):
    ms = [1, 3, 2 ** 95 + 1, 2 ** 96 - 1, 12345678901, 2 ** 64, 10, 97]
    xs = [5, 2, 2 ** 90, 3, 12345678901 * 3, 3, 7, 96]
    a = clbig.array(xs, bits=96, ctx=ctx)
    m = clbig.array(ms, bits=96, ctx=ctx)
    want = [_inv(x, y) for x, y in zip(xs, ms)]
    r, ok = G.invert(a, m, strict=False)
    check(f"{tag} invert", r, want, 96)
    if ok.tolist() != [w != 0 or y == 1 for w, y in zip(want, ms)]:
        raise AssertionError(f"{tag} invert ok flags {ok.tolist()}")
    check(f"{tag} invert broadcast", G.invert(a, m[2:3], strict=False)[0],
          [_inv(x, ms[2]) for x in xs], 96)
    z = clbig.array([3, 0], bits=32, ctx=ctx)            # a zero modulus: flagged, raised
    try:
        G.invert(z[:1], z)
    except ValueError as e:
        if "index 1" not in str(e):
            raise
    else:
        raise AssertionError("invert mod 0 did not raise")


def stats(ctx, check, tag):
    """The stat words: every flag the kernels set, read back (they drive the host's paths)."""
    a = clbig.array([4, 3, 5], bits=32, ctx=ctx)
    w = clbig.array([0, 8, 7], bits=32, ctx=ctx)
    _, st = gcd_n.invert(ctx, a.data.data, 1, 1, w.data.data, 1, 1, 3)
    got = (st & 15).tolist()
    if got != [gcd_n.ZERO, gcd_n.EVEN, gcd_n.OK]:
        raise AssertionError(f"{tag}: stat flags {got}")
    check(f"{tag} rounds", (st >> 8)[2:], [1])


def run(wide_ctx, small_ctx, guarded, check, values):
    for store in ("private", "global"):
        guarded(f"gcd {store}", _with_store, store, gcds, wide_ctx, check, f"gcd {store}")
        guarded(f"invert {store}", _with_store, store, inverses, wide_ctx, check, f"invert {store}")
    guarded("gcd small-wg", gcds, small_ctx, check, "gcd small-wg")
    guarded("invert small-wg global", _with_store, "global", inverses, small_ctx, check,
            "invert small-wg global")
    guarded("gcd stat flags", stats, wide_ctx, check, "gcd stat flags")
    guarded("invert cof 1", call_with, {"CLBIG_GCD_COF": "1"}, inverses, wide_ctx, check,
            "invert cof 1")
