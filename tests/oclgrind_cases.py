"""Every clbig operation on tiny batches, for running under Oclgrind (see test_oclgrind.py).

Run by tests/test_oclgrind.py in a subprocess whose OpenCL sees the Oclgrind simulator with its
data-race, uninitialized-value and API checks on; Oclgrind reports out-of-bounds accesses
itself. The parent test fails on any report Oclgrind writes to stderr. This script checks
every result against Python ints and exits 1 on a wrong answer or an exception, 2 when the
add or compare kernels no longer reach one of their launch paths (after a change of launch
planning: adjust the sizes below). It prints every distinct launch (template parameters,
groups, work-group size) per case.

The sizes are as small as the launch paths allow, since Oclgrind interprets every work-item:
  * one work-group holding several instances, and several such groups (the last one partial),
  * one instance per work-group (IPB = 1) over several groups,
  * the multi-work-group path (a context capped at max_work_group_size=4),
  * operands of unequal widths, broadcast scalars, widths that are not multiples of 32 bits,
    long carry and borrow chains.
Multiplication, mul_low, the fused kernels (clbig.fused) and shifts run too when this clbig has
them (each looked up with getattr), on small single-group, several-group and multi-group sizes.

Usage (test_oclgrind.py sets up the environment; by hand, an ICD directory listing Oclgrind):
    OCL_ICD_VENDORS=DIR OCLGRIND_DATA_RACES=1 OCLGRIND_UNINITIALIZED=1 OCLGRIND_CHECK_API=1 \
    PYOPENCL_BUILD_OPTIONS=-cl-opt-disable PYOPENCL_NO_CACHE=1 CLBIG_DEVICE=oclgrind \
    python tests/oclgrind_cases.py [base] [oclgrind_more_NAME ...]
("base": this file's cases; the others: modules to run; no argument: all of them.)
"""
from __future__ import annotations

import importlib
import os
import random
import sys
import time
import traceback
from pathlib import Path

import numpy as np
import pyopencl as cl
import pyopencl.array as cla

# Two workarounds for Oclgrind 21.10's uninitialized-value plugin, which would otherwise report
# reads of memory that is initialized:
#  * Once a buffer is freed and a later buffer reuses its place, bytes of the new buffer can
#    read as uninitialized even after a kernel wrote them (seen: a 9-byte buffer in the place
#    of a freed 3-byte one, bytes 3.. reported). So no buffer is ever freed here: every one is
#    kept until the process exits (a few hundred small buffers). Nor any kernel (`_spy_kernel`):
#    a context frees the programs of an old generation (render.PROGRAMS_MAX), and buffers in
#    their place then read as uninitialized the same way (2026-11-30: 1000 reports in the
#    radix kernels, none with the old programs kept; the values exact either way).
#  * It does not count clEnqueueFillBuffer (what pyopencl.array.zeros and clbig's
#    Context.zeros use) as initializing. So zeros are written by a kernel (pyopencl's fill) or
#    copied from the host instead, whose stores it tracks.
_KEEP_ALIVE = []


class _KeptBuffer(cl.Buffer):
    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        _KEEP_ALIVE.append(self)


def _zero_fill_by_kernel(self, queue=None, wait_for=None):
    if self.size:
        self.fill(np.zeros((), self.dtype), queue=queue or self.queue, wait_for=wait_for)


def _fill_by_copy(queue, mem, pattern, offset, size, wait_for=None):
    pat = np.frombuffer(np.asarray(pattern).tobytes(), np.uint8)
    host = np.resize(pat, size)      # the pattern repeated over `size` bytes
    return cl.enqueue_copy(queue, mem, host, dst_offset=offset, wait_for=wait_for, is_blocking=True)


cl.Buffer = _KeptBuffer
cla.Array._zero_fill = _zero_fill_by_kernel
cl.enqueue_fill_buffer = _fill_by_copy

import clbig  # noqa: E402  (after the patches, so that clbig only ever sees them)
from clbig.mpz import ops  # noqa: E402
from clbig.runtime import render  # noqa: E402

RNG = random.Random(20240611)
FAILURES: list[str] = []

# -- which launch paths the cases reach ---------------------------------------------------
# Every kernel clbig launches is recorded with the template parameters it was built with, so
# the script can tell (and insist) that each path of the scan kernels ran.
_BUILT: dict[int, tuple[str, dict]] = {}
LAUNCHES: list[tuple[str, dict, int, int]] = []   # (template, params, groups, work_group)


_KERNEL, _LAUNCH = render.kernel, render.launch


def _spy_kernel(ctx, template, name, work_group=None, **params):
    k = _KERNEL(ctx, template, name, work_group, **params)
    _BUILT[id(k)] = (template, params)
    _KEEP_ALIVE.append(k)     # its program too (see the workarounds above)
    return k


def _spy_launch(ctx, k, groups, work_group, *args, **kwargs):
    template, params = _BUILT.get(id(k), ("?", {}))
    LAUNCHES.append((template, params, int(groups), int(work_group)))
    return _LAUNCH(ctx, k, groups, work_group, *args, **kwargs)


def _install_spies():
    """Wrap render.kernel / render.launch, both in render (for modules that clbig imports
    later, like its lazily imported operation modules) and where already imported."""
    render.kernel, render.launch = _spy_kernel, _spy_launch
    for name, mod in list(sys.modules.items()):
        if name.startswith("clbig.") and mod is not None and mod is not render:
            if getattr(mod, "kernel", None) is _KERNEL:
                mod.kernel = _spy_kernel
            if getattr(mod, "launch", None) is _LAUNCH:
                mod.launch = _spy_launch


def path_of(template: str, params: dict, groups: int) -> str:
    mode, ipb = params.get("MODE", "single"), params.get("IPB", 1)
    if mode != "single":
        return "multi-group"
    if groups < 2:
        return "one group"
    return "several instances per group" if ipb > 1 else "one instance per group"


def describe(first: int) -> str:
    """The distinct launches since LAUNCHES[first], one line each."""
    seen = []
    for template, params, groups, wg in LAUNCHES[first:]:
        desc = f"{template} " + " ".join(f"{k}={v}" for k, v in sorted(params.items())) + \
            f" groups={groups} wg={wg}"
        if "MODE" in params or "IPB" in params:
            desc += f" ({path_of(template, params, groups)})"
        if desc not in seen:
            seen.append(desc)
    return "\n".join("    " + d for d in seen)


def log(*a):
    """To stdout, and to stderr too so that Oclgrind's reports there follow the step that
    caused them."""
    print(*a, flush=True)
    print("[oclgrind_cases]", *a, file=sys.stderr, flush=True)


def fail(msg: str):
    FAILURES.append(msg)
    log("FAIL:", msg)


def short(v) -> str:
    h = f"{int(v):#x}"
    return h if len(h) <= 40 else f"{h[:18]}...{h[-18:]} ({int(v).bit_length()} bits)"


def values(bits: int, n: int) -> list[int]:
    """n values below 2**bits, the awkward ones first: 0, 1, all ones, top bit alone, then
    limb-boundary carries and random ones."""
    top = (1 << bits) - 1
    special = [0, 1, top, 1 << (bits - 1), top >> 1, (1 << min(bits, 32)) - 1,
               (1 << (bits - 1)) | 1, top ^ 1]
    out = special[:n]
    while len(out) < n:
        out.append(RNG.getrandbits(bits))
    return out


def pairs(bits_a: int, bits_b: int, n: int) -> tuple[list[int], list[int]]:
    """Operand lists that hit long carry and borrow chains and equal values."""
    top_a, top_b = (1 << bits_a) - 1, (1 << bits_b) - 1
    a = [top_a, top_a, 1 << (bits_a - 1), 0, 5, top_a]
    b = [1, top_b, 1, 0, 5, min(top_a, top_b) ^ 1]
    a, b = a[:n], b[:n]
    while len(a) < n:
        a.append(RNG.getrandbits(bits_a))
        b.append(RNG.getrandbits(bits_b))
    for i in range(len(a)):  # keep the (random) operands within their widths
        a[i] &= top_a
        b[i] &= top_b
    return a, b


def check(what: str, got, want: list[int], bits: int | None = None):
    got_vals = got.tolist() if hasattr(got, "tolist") else list(got)
    got_vals = [int(x) for x in got_vals]
    if got_vals != [int(w) for w in want]:
        bad = next(i for i, (g, w) in enumerate(zip(got_vals, want)) if g != w) \
            if len(got_vals) == len(want) else None
        if bad is None:
            fail(f"{what}: {len(got_vals)} results for {len(want)} instances")
        else:
            fail(f"{what}: instance {bad}: got {short(got_vals[bad])}, want {short(want[bad])}")
        return False
    if bits is not None and isinstance(got, clbig.BigIntArray):
        if got.bits != bits:
            fail(f"{what}: result bits {got.bits}, want {bits}")
        if any(v >> got.bits for v in got_vals):
            fail(f"{what}: a result exceeds its own bits={got.bits}")
    return True


def addsub_compare(ctx, tag: str, bits_a: int, bits_b: int, n: int):
    """add, sub, add_fixed, sub_fixed (default and non-aligned widths), compare."""
    av, bv = pairs(bits_a, bits_b, n)
    a = clbig.array(av, bits=bits_a, ctx=ctx)
    b = clbig.array(bv, bits=bits_b, ctx=ctx)
    wide = max(bits_a, bits_b)
    log(f"[{tag}] add, sub, add_fixed, sub_fixed: a {bits_a} bits, b {bits_b} bits, n={n}")

    check(f"{tag} add", a + b, [x + y for x, y in zip(av, bv)], wide + 1)
    hi = [max(x, y) for x, y in zip(av, bv)]
    lo = [min(x, y) for x, y in zip(av, bv)]
    check(f"{tag} sub", clbig.array(hi, bits=wide, ctx=ctx) - clbig.array(lo, bits=wide, ctx=ctx),
          [x - y for x, y in zip(hi, lo)], wide)
    if any(y > x for x, y in zip(av, bv)):
        # signed clbig (clbig/signs.py): the exact, negative differences; an unsigned-only
        # clbig raises ValueError instead
        try:
            d = a - b
        except ValueError:
            if hasattr(clbig, "signs"):
                fail(f"{tag} sub: ValueError for b > a from a signed clbig")
        else:
            check(f"{tag} sub b > a", d, [x - y for x, y in zip(av, bv)])

    for fbits in (None, wide + 13, max(1, wide - 7)):
        eff = wide if fbits is None else fbits
        mask = (1 << eff) - 1
        r, carry = clbig.add_fixed(a, b, fbits)
        check(f"{tag} add_fixed bits={fbits}", r, [(x + y) & mask for x, y in zip(av, bv)], eff)
        r2, borrow = clbig.sub_fixed(a, b, fbits)
        check(f"{tag} sub_fixed bits={fbits}", r2, [(x - y) & mask for x, y in zip(av, bv)], eff)
        if eff < wide:  # the operands exceed the width: only the wrapped values are defined
            continue
        want_c = [(x + y) >> eff == 1 for x, y in zip(av, bv)]
        if [bool(c) for c in carry] != want_c:
            fail(f"{tag} add_fixed bits={fbits}: carries {list(carry)} != {want_c}")
        want_b = [x < y for x, y in zip(av, bv)]
        if [bool(c) for c in borrow] != want_b:
            fail(f"{tag} sub_fixed bits={fbits}: borrows {list(borrow)} != {want_b}")

    # Broadcast: a scalar operand (instance stride 0) on either side.
    k = bv[0]
    check(f"{tag} add scalar", a + k, [x + k for x in av])
    check(f"{tag} radd scalar", k + a, [k + x for x in av])

    log(f"[{tag}] compare")
    want_cmp = [(x > y) - (x < y) for x, y in zip(av, bv)]
    got = [int(c) for c in clbig.compare(a, b)]
    if got != want_cmp:
        fail(f"{tag} compare cmp: {got} != {want_cmp}")
    for which, f in (("lt", lambda x, y: x < y), ("le", lambda x, y: x <= y), ("gt", lambda x, y: x > y),
                     ("ge", lambda x, y: x >= y), ("eq", lambda x, y: x == y), ("ne", lambda x, y: x != y)):
        got = [bool(c) for c in clbig.compare(a, b, which)]
        want = [f(x, y) for x, y in zip(av, bv)]
        if got != want:
            fail(f"{tag} compare {which}: {got} != {want}")
    # Equal arrays, and values differing only in the lowest limb.
    got = [int(c) for c in clbig.compare(a, clbig.array(av, bits=bits_a, ctx=ctx))]
    if any(got):
        fail(f"{tag} compare equal: {got}")
    av1 = [x ^ 1 for x in av]
    got = [int(c) for c in clbig.compare(a, clbig.array(av1, bits=bits_a, ctx=ctx))]
    want = [(x > y) - (x < y) for x, y in zip(av, av1)]
    if got != want:
        fail(f"{tag} compare low limb: {got} != {want}")


def multiplication(ctx, tag: str, bits_a: int, bits_b: int, n: int):
    mul = getattr(clbig, "mul", None) or getattr(ops, "mul", None)
    mul_low = getattr(clbig, "mul_low", None) or getattr(ops, "mul_low", None)
    if mul is None and mul_low is None:
        return
    av, bv = pairs(bits_a, bits_b, n)
    a = clbig.array(av, bits=bits_a, ctx=ctx)
    b = clbig.array(bv, bits=bits_b, ctx=ctx)
    if mul is not None:
        log(f"[{tag}] mul {bits_a} x {bits_b} bits, n={n}")
        check(f"{tag} mul", mul(a, b), [x * y for x, y in zip(av, bv)], bits_a + bits_b)
        check(f"{tag} mul scalar", mul(a, bv[-1]), [x * bv[-1] for x in av])
        log(f"[{tag}] square {bits_a} bits, n={n}")
        check(f"{tag} square", mul(a, a), [x * x for x in av], 2 * bits_a)
    if mul_low is not None:
        for lbits in (None, max(bits_a, bits_b) + 5, max(1, min(bits_a, bits_b) - 3)):
            eff = max(bits_a, bits_b) if lbits is None else lbits
            log(f"[{tag}] mul_low bits={eff}, n={n}")
            r = mul_low(a, b) if lbits is None else mul_low(a, b, lbits)
            if isinstance(r, tuple):
                r = r[0]
            check(f"{tag} mul_low bits={lbits}", r, [(x * y) % (1 << eff) for x, y in zip(av, bv)], eff)


def fused(ctx, tag: str, bits_a: int, bits_b: int, n: int):
    """The fused kernels (clbig.fused: 6-Add, Poly), all modulo 2**bits."""
    mod = getattr(clbig, "fused", None)
    if mod is None:
        return
    av, bv = pairs(bits_a, bits_b, n)
    a = clbig.array(av, bits=bits_a, ctx=ctx)
    b = clbig.array(bv, bits=bits_b, ctx=ctx)
    for fbits in (None, max(bits_a, bits_b) - 5):
        eff = max(bits_a, bits_b) if fbits is None else fbits
        m = (1 << eff) - 1
        if hasattr(mod, "six_add"):
            log(f"[{tag}] six_add {bits_a}, {bits_b} bits mod 2^{eff}, n={n}")
            check(f"{tag} six_add bits={fbits}", mod.six_add(a, b, fbits),
                  [(6 * x + 10 * y) & m for x, y in zip(av, bv)], eff)
        if hasattr(mod, "poly"):
            log(f"[{tag}] poly {bits_a}, {bits_b} bits mod 2^{eff}, n={n}")
            check(f"{tag} poly bits={fbits}", mod.poly(a, b, fbits),
                  [((x * x + y) * (y * y + y) + x * y) & m for x, y in zip(av, bv)], eff)


def shifts(ctx, tag: str, bits: int, n: int):
    left = getattr(clbig, "shift_left", None) or getattr(ops, "shift_left", None)
    right = getattr(clbig, "shift_right", None) or getattr(ops, "shift_right", None)
    if left is None and right is None:
        return
    av = values(bits, n)
    a = clbig.array(av, bits=bits, ctx=ctx)
    for k in (0, 1, 31, 32, 33, 70, bits + 3):
        log(f"[{tag}] shifts {bits} bits by {k}, n={n}")
        if left is not None:
            check(f"{tag} shift_left {k}", left(a, k), [x << k for x in av])
        if right is not None:
            check(f"{tag} shift_right {k}", right(a, k), [x >> k for x in av])
    # one count per element (shift.cl.mako's PER_ROW): neighbours in one work-group shift by
    # different counts; signed values take the three-pass floor path of a >> k
    ks = [(0, 1, 31, 32, 33, 70, bits + 3)[i % 7] for i in range(n)]
    sv = [-x if i % 2 else x for i, x in enumerate(av)]
    s = clbig.array(sv, bits=bits, ctx=ctx)
    log(f"[{tag}] shifts {bits} bits by counts {ks}, n={n}")
    check(f"{tag} shift_left per element", s << ks, [x << k for x, k in zip(sv, ks)])
    check(f"{tag} shift_right per element", s >> ks, [x >> k for x, k in zip(sv, ks)])


def guarded(tag, fn, *args):
    """Run one case; an exception fails it but the other cases still run under Oclgrind."""
    first, t0 = len(LAUNCHES), time.perf_counter()
    try:
        fn(*args)
    except Exception as e:  # noqa: BLE001
        traceback.print_exc()
        fail(f"{tag}: {type(e).__name__}: {e}")
    if len(LAUNCHES) > first:
        log(f"[{tag}] {time.perf_counter() - t0:.1f} s, launches:\n{describe(first)}")


def main(argv: list[str]) -> int:
    """argv: "base" (this file's cases) and/or names of oclgrind_more_* modules; none: all."""
    here = Path(__file__).parent
    every = sorted(p.stem for p in here.glob("oclgrind_more_*.py"))
    names = argv or ["base"] + every
    unknown = [x for x in names if x != "base" and x not in every]
    if unknown:
        print(f"unknown case modules {unknown}; known: base, {', '.join(every)}", file=sys.stderr)
        return 4
    dev = os.environ.get("CLBIG_DEVICE") or "oclgrind"
    # Oclgrind is a CPU device, where auto would run every classical product in the lanes
    # kernel: the cases keep the other product kernels and force that one where they test it.
    os.environ.setdefault("CLBIG_MUL52_LANES", "0")
    os.environ.setdefault("CLBIG_ADD_SERIAL", "0")   # likewise additions (add_serial.cl.mako)
    os.environ.setdefault("CLBIG_TIERS", "off")   # and each width's own kernels (runtime.tiers)
    wide_ctx = clbig.Context(dev)                           # the device's own limits
    small_ctx = clbig.Context(dev, max_work_group_size=4)   # forces the multi-group paths
    _install_spies()
    log(f"clbig from {clbig.__file__}")
    log(f"device: {wide_ctx.name} (max_items {wide_ctx.max_items}, local memory {wide_ctx.local_mem})")
    if "oclgrind" not in wide_ctx.name.lower():
        log(f"expected the Oclgrind simulator, got {wide_ctx.name}")
        return 3

    t0 = time.perf_counter()
    if "base" in names:
        base_cases(wide_ctx, small_ctx)
    # Algorithm families add their own cases in tests/oclgrind_more_*.py, each a module with
    # run(wide_ctx, small_ctx, guarded, check, values): one file per family, no shared edits.
    sys.path.insert(0, str(here))
    for name in names:
        if name != "base":
            log(f"cases from {name}.py")
            importlib.import_module(name).run(wide_ctx, small_ctx, guarded, check, values)

    wall = time.perf_counter() - t0
    reached = {(t, path_of(t, p, g)) for t, p, g, _ in LAUNCHES}
    want = set()
    if "base" in names:
        want = {(t, path) for t in ("add.cl.mako", "compare.cl.mako")
                for path in ("several instances per group", "one instance per group", "multi-group")}
        if not any(t == "mul_digits.cl.mako" for t, _, _, _ in LAUNCHES):
            want.add(("mul_digits.cl.mako", "any"))
    missing = sorted(want - reached)
    log(f"{len(LAUNCHES)} kernel launches in {wall:.1f} s ({' '.join(names)}); templates: "
        f"{sorted({t for t, _, _, _ in LAUNCHES})}")
    if FAILURES:
        log(f"{len(FAILURES)} wrong result(s)")
        return 1
    if missing:
        log(f"launch paths no longer reached (adjust the case sizes): {missing}")
        return 2
    log("all results correct")
    return 0


def base_cases(wide_ctx, small_ctx):
    cases = [
        # (context, tag, bits_a, bits_b, n)
        (wide_ctx, "tiny", 45, 45, 5),            # Q=2, IPI=1, one group of 5 instances
        (wide_ctx, "several/group", 1000, 1000, 40),  # IPI=8, IPB=32: 2 groups, the last partial
        (wide_ctx, "unequal", 1000, 70, 6),       # ma != mb
        (small_ctx, "multi 19 limbs", 600, 600, 3),
        (small_ctx, "multi 60 limbs", 1900, 1900, 3),
        (small_ctx, "multi", 5000, 5000, 3),      # 157 limbs over 10 groups of 4 items x 4 limbs
        (small_ctx, "multi unequal", 5000, 70, 3),
        (wide_ctx, "one/group", 16500, 16500, 2),  # IPI=129 > 256/2: IPB=1, 2 groups
    ]
    for ctx, tag, ba, bb, n in cases:
        guarded(tag, addsub_compare, ctx, tag, ba, bb, n)

    mul_cases = [
        (wide_ctx, "mul tiny", 45, 45, 70),       # 70 instances: more than one group
        (wide_ctx, "mul", 300, 300, 4),
        (wide_ctx, "mul unequal", 600, 40, 3),
        (small_ctx, "mul small-wg", 300, 300, 3),
        (small_ctx, "mul multi", 2200, 2200, 2),
    ]
    for ctx, tag, ba, bb, n in mul_cases:
        guarded(tag, multiplication, ctx, tag, ba, bb, n)
    # The radix-2^30 digit kernel normally takes only big products: force it on small ones.
    os.environ["CLBIG_MUL_RADIX"] = "30"
    for ctx, tag, ba, bb, n in mul_cases[:3]:
        guarded(tag + " digits", multiplication, ctx, tag + " digits", ba, bb, n)
    del os.environ["CLBIG_MUL_RADIX"]

    fused_cases = [
        (wide_ctx, "fused tiny", 45, 45, 5),
        (wide_ctx, "fused", 300, 300, 4),
        (wide_ctx, "fused unequal", 300, 40, 3),
        (small_ctx, "fused small-wg", 2200, 2200, 2),  # too big for one group: the fallbacks
    ]
    for ctx, tag, ba, bb, n in fused_cases:
        guarded(tag, fused, ctx, tag, ba, bb, n)

    for ctx, tag, bits, n in ((wide_ctx, "shift", 100, 5), (small_ctx, "shift multi", 3000, 2)):
        guarded(tag, shifts, ctx, tag, bits, n)


if __name__ == "__main__":
    try:
        sys.exit(main(sys.argv[1:]))
    except Exception:
        traceback.print_exc()
        sys.exit(1)
