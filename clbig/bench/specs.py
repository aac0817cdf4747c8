"""The benchmarked operations, one OpSpec each: what clbig call runs, its exact result (gmpy2),
the same computation in gmpy2 for the host column, how it is counted, and how it is reported:
its blurb and table columns (tables.py), its target and judge (references.py), its place in the
figures (plots.py). A new operation is one OpSpec in OPS (and its H100 numbers, where the papers
give some, in references.REFERENCES under its key); the generic code reads nothing else."""
from __future__ import annotations

import dataclasses
import importlib
from dataclasses import dataclass
from typing import Callable, Optional

import gmpy2
import numpy as np

import clbig

DIV_RESERVE_S = 30.0  # see OpSpec.reserve_s


class Mismatch(AssertionError):
    """A benchmarked op returned a wrong value: the benchmark stops (results would be void)."""


def _resolve_add():
    return (lambda a, b, bits: clbig.add_fixed(a, b, bits)), ""


def _resolve_mul(**kw):
    def resolve():
        fn = getattr(clbig, "mul_low", None)
        if fn is None:
            ops = importlib.import_module("clbig.mpz.ops")
            fn = getattr(ops, "mul_low", None)
        if fn is None:
            return None, "clbig.mul_low does not exist (yet)"
        return (lambda a, b, bits: fn(a, b, **kw)), ""
    return resolve


def _resolve_fused(name: str, **kw):
    def resolve():
        try:
            mod = importlib.import_module("clbig.fused")
        except ModuleNotFoundError as e:
            if e.name == "clbig.fused":
                return None, "clbig.fused does not exist (yet)"
            raise
        fn = getattr(mod, name, None)
        if fn is None:
            return None, f"clbig.fused.{name} does not exist (yet)"
        return (lambda a, b, bits: fn(a, b, **kw)), ""
    return resolve


def _resolve_divmod():
    # Division is being written (issue 4): measured once clbig.divmod exists, n/a until then.
    fn = getattr(clbig, "divmod", None)
    if fn is None:
        return None, "clbig.divmod does not exist (yet)"
    return (lambda a, b, bits: fn(a, b)), ""


def _resolve_huge_mul():
    fn = getattr(clbig, "mul", None)
    if fn is None:
        return None, "clbig.mul does not exist (yet)"
    return (lambda x, y, bits: fn(x, y)), ""


# -- targets (the numbers the judges below and their texts use) -----------------------------------
ADD_COPY_FRACTION = 0.90  # 1-Add at >= 90 % of the device's copy bandwidth
ADD6_RATIO = 2.0  # 6-Add time <= 2x 1-Add time
MUL_VS_PROTO = 1.1  # 1-Mul <= 1.1x the prototype ...
MUL_VS_CGBN = 1.3  # ... and <= 1.3x CGBN where CGBN is faster
POLY_VS_PROTO = 1.1  # Poly <= 1.1x the prototype
DIV_VS_MUL = 6.0  # Div <= 6x clbig's own 1-Mul at 2^15..2^18 bits (issue 4)
DIV_VS_MUL_SIZES = range(15, 19)
DIV_VS_CGBN = 1.5  # Div <= 1.5x CGBN at 2^11..2^15 ...
DIV_VS_PROTO = 0.5  # ... and <= 0.5x the prototype at 2^16, 2^17 (H100, full size)
HUGE_SPEEDUP = {"hmul": {24: 20.0, 26: 50.0}, "hdiv": {27: 20.0}}  # x over gmpy2, wall time


def _num(v):
    return isinstance(v, (int, float)) and not isinstance(v, bool)


@dataclass(frozen=True)
class Col:
    """One column of an op's markdown table: its heading and cell(record, cells) -> str, where
    `cells` (tables.Cells) holds what every column may need already formatted or looked up:
    ok, t (the target), size, us, kernels, gmpy2 (µs, speed-up), proto, cgbn, verdict, f, x."""
    header: str
    cell: Callable


@dataclass(frozen=True)
class Plot:
    """Where an op appears in the figures (plots.py): colour, and per panel the marker or line
    style that panel's code uses (panels: "bandwidth", "mul", "time", "huge" of the throughput
    figure; "copy" and "devices_copy": add bandwidth over copy bandwidth, one / several devices)."""
    colour: str = "C0"
    marks: dict = dataclasses.field(default_factory=dict)


@dataclass(frozen=True)
class OpSpec:
    key: str
    label: str
    call: str  # what it runs, for the report
    resolve: Callable[[], tuple]  # -> (fn(a, b, bits) or None, reason)
    reference: Callable  # (a, b, bits) -> the exact result (gmpy2), or a tuple of results
    kind: str  # "bandwidth" (GB/s over 3*n*bits/8 bytes), "mul" (u32ops), "time" or "huge"
    host: Callable  # (A, B, mask, bits) -> results: the same op in gmpy2, timed for the gmpy2 column
    host_call: str  # the gmpy2 expression, for the report
    divisor: bool = False  # b has half of a's bits (and is not zero): division's operand shape
    #: Under a --budget, start this op only with this many seconds left (twice that above 2^13
    #: bits): its first kernel builds at a new width can take that long on a CPU device (PoCL
    #: builds division's in 30-60 s per width, more at larger widths).
    reserve_s: float = 0.0
    # -- the report ----------------------------------------------------------------------------
    blurb: str = ""  # the paragraph above its table
    columns: tuple = ()  # Col, in order: its markdown table
    target_text: str = ""  # the target, in words (the Targets table, each record's rule)
    #: judge(rec, target, j): fills target["value"] / ["pass"] and the record's ratios, in place;
    #: j (references.Judging) gives ok, comp(arable), copy_bw, lg, ref(impl) and us(op).
    judge: Optional[Callable] = None
    ref_key: str = ""  # whose H100 references it is compared with (default: its own key)
    parts: tuple = ("result",)  # names of the result's parts, for a mismatch's message
    #: extra_check(parts, i, x, y, bits) -> a message when part 2.. of instance i is wrong, else None
    extra_check: Optional[Callable] = None
    plot: Plot = Plot()
    #: devices.md gets a table of its GB/s as a fraction of each device's copy bandwidth
    copy_table: bool = False

    def __post_init__(self):
        if not self.ref_key:
            object.__setattr__(self, "ref_key", self.key)

    def reserve(self, bits: int) -> float:
        return self.reserve_s * (2 if bits > (1 << 13) else 1)

    @property
    def huge(self) -> bool:
        """One instance given as Python ints (single huge product / division)."""
        return self.kind == "huge"

    @property
    def variant(self) -> bool:
        """Measured apart but compared as another op (its references, its gmpy2 line)."""
        return self.ref_key != self.key


# -- columns shared by several ops -------------------------------------------------------------
def _ok_f(field):
    return lambda r, c: c.f(r.get(field)) if c.ok else ""


def _ratio(field):
    return lambda r, c: f"{r[field]:.2f}x" if r.get(field) is not None else "–"


BITS = Col("bits", lambda r, c: c.size)
N = Col("n", lambda r, c: r["n"])
US = Col("µs", lambda r, c: c.us)
KERNELS = Col("kernels", lambda r, c: c.kernels)
GMPY2 = (Col("gmpy2 µs", lambda r, c: c.gmpy2[0]), Col("× gmpy2", lambda r, c: c.gmpy2[1]))
PROTO = Col("H100 proto µs", lambda r, c: c.f(c.proto))
CGBN = Col("H100 CGBN µs", lambda r, c: c.f(c.cgbn))
TARGET_US = Col("target µs", lambda r, c: c.f(c.t.get("value")))
VERDICT = Col("verdict", lambda r, c: c.verdict)
HUGE_COLUMNS = (BITS, Col("y bits", lambda r, c: r.get("divisor_bits", r["bits"])),
                Col("device µs", lambda r, c: c.us), KERNELS,
                Col("wall µs", lambda r, c: c.f(r.get("wall_us")) if c.ok else ""),
                Col("gmpy2 µs", lambda r, c: c.gmpy2[0]), Col("× gmpy2 (device)", lambda r, c: c.gmpy2[1]),
                Col("× gmpy2 (wall)", lambda r, c: c.x(r.get("speedup_gmpy2_wall"))),
                Col("target", lambda r, c: f">= {c.t['value']:g}x" if c.t.get("value") else "–"), VERDICT)


def _add6_vs_add(r, c):
    """The prototype's own 6-Add / 1-Add time ratio."""
    p, pa = c.proto, c.ref("add", "proto")
    return f"{p / pa:.2f}x" if _num(p) and _num(pa) else "–"


# -- judges ------------------------------------------------------------------------------------
def _cpu(t, j) -> bool:
    """Marks a GPU target as not judged on a CPU (True: the judge stops there)."""
    if not j.gpu:
        t["why"] = "a GPU target: not judged on a CPU"
    return not j.gpu


def _judge_add(r, t, j):
    t["value"] = ADD_COPY_FRACTION
    if j.ok and j.copy_bw:
        r["frac_copy"] = r["GBps"] / j.copy_bw
    if _cpu(t, j):
        return
    if j.ok and j.copy_bw:
        r["frac_copy"] = r["GBps"] / j.copy_bw
        t["pass"] = r["frac_copy"] >= ADD_COPY_FRACTION


def _judge_add6(r, t, j):
    t["value"] = ADD6_RATIO
    if j.ok and j.copy_bw:
        r["frac_copy"] = r["GBps"] / j.copy_bw
    add_us = j.us("add")
    if j.ok and r["bits"] in add_us:
        r["ratio_to_add"] = r["us"] / add_us[r["bits"]]
        if not _cpu(t, j):
            t["pass"] = r["ratio_to_add"] <= ADD6_RATIO


def _judge_bound(bounds):
    """A µs bound from the H100 references (bounds(proto, cgbn) -> list), judged on H100
    full-size runs only."""
    def judge(r, t, j):
        bs = bounds(j.ref("proto"), j.ref("cgbn"))
        if bs:
            t["value"] = min(bs)  # µs per batch of 2^32 bits
            if j.ok and j.comp:
                t["pass"] = r["us"] <= t["value"]
            elif j.ok:
                t["why"] = "not an H100 full-size run"
    return judge


def _mul_bounds(p, c):
    bs = [MUL_VS_PROTO * p] if _num(p) else []
    if _num(c) and (not _num(p) or c < p):
        bs.append(MUL_VS_CGBN * c)
    return bs


def _judge_div(r, t, j):
    verdicts = []
    lg = j.lg
    mul_us = j.us("mul")
    if j.ok and r["bits"] in mul_us:
        r["ratio_to_mul"] = r["us"] / mul_us[r["bits"]]
        if lg in DIV_VS_MUL_SIZES and not _cpu(t, j):
            verdicts.append(r["ratio_to_mul"] <= DIV_VS_MUL)
    p, c = j.ref("proto"), j.ref("cgbn")
    if lg is not None and 11 <= lg <= 15 and _num(c):
        t["value"] = DIV_VS_CGBN * c
    elif lg in (16, 17) and _num(p):
        t["value"] = DIV_VS_PROTO * p
    if j.ok and t["value"] is not None:
        if j.comp:
            verdicts.append(r["us"] <= t["value"])
        else:
            t["why"] = "µs bound: not an H100 full-size run"
    if verdicts:
        t["pass"] = all(verdicts)


def _judge_speedup(wants: dict):
    """At least wants[log2 bits] times gmpy2's speed, wall time (judged on GPUs)."""
    def judge(r, t, j):
        want = wants.get(j.lg)
        if want is not None:
            t["value"] = want
            if _cpu(t, j):
                return
            if j.ok and r.get("speedup_gmpy2_wall"):
                t["pass"] = r["speedup_gmpy2_wall"] >= want
    return judge


def _check_carry(parts, i, x, y, bits):
    carry = bool(np.asarray(parts[1])[i])
    if carry != bool((x + y) >> bits):
        return f"1-Add carry at {bits} bits, instance {i}: got {carry}"
    return None


def _mod(bits):
    return gmpy2.mpz(1) << bits


_f_divmod = gmpy2.f_divmod

_MUL = OpSpec(
    "mul", "1-Mul", "clbig.mul_low(a, b)", _resolve_mul(),
    lambda a, b, bits: (a * b) % _mod(bits), "mul",
    lambda A, B, M, bits: [(x * y) & M for x, y in zip(A, B)],
    "(x * y) & (2^bits - 1) (GMP has no low-half product: the full one, masked)",
    blurb="1-Mul: `clbig.mul_low(a, b)` = a·b mod 2^bits. Gu32ops/s counts n·m·m 32-bit "
          "multiply-adds with m = bits/32 (the papers' count, although the low half needs only "
          "about half of them). gmpy2 has no low-half product: it computes the full one and masks.",
    columns=(BITS, N, US, KERNELS, Col("Gu32ops/s", _ok_f("Gu32ops")), *GMPY2, PROTO, CGBN, TARGET_US,
             VERDICT),
    target_text=f"1-Mul time <= {MUL_VS_PROTO:g}x H100 proto, and <= {MUL_VS_CGBN:g}x H100 CGBN where "
                f"CGBN is faster (H100, full-size batches only)",
    judge=_judge_bound(_mul_bounds), plot=Plot("C2", {"mul": "o", "time": "s"}))

_DIVMOD = dict(reference=lambda a, b, bits: (a // b, a % b),
               host=lambda A, B, M, bits: [_f_divmod(x, y) for x, y in zip(A, B)],
               host_call="gmpy2.f_divmod(x, y)", divisor=True, reserve_s=DIV_RESERVE_S,
               parts=("quotient", "remainder"))

OPS = {
    "add": OpSpec(
        "add", "1-Add", "clbig.add_fixed(a, b, bits)", _resolve_add,
        lambda a, b, bits: (a + b) % _mod(bits), "bandwidth",
        lambda A, B, M, bits: [(x + y) & M for x, y in zip(A, B)], "(x + y) & (2^bits - 1)",
        blurb="1-Add: `clbig.add_fixed(a, b, bits)` = (a + b) mod 2^bits and its carry. "
              "GB/s counts 3·n·bits/8 bytes (two operands read, one result written).",
        columns=(BITS, N, US, KERNELS, Col("GB/s", _ok_f("GBps")),
                 Col("of copy", lambda r, c: f"{r['frac_copy']:.0%}" if r.get("frac_copy") is not None
                     else "–"),
                 *GMPY2, PROTO, CGBN, Col("target", lambda r, c: f">= {ADD_COPY_FRACTION:.0%}"), VERDICT),
        target_text=f"1-Add bandwidth >= {ADD_COPY_FRACTION:.0%} of this device's copy bandwidth "
                    "(GPUs)",
        judge=_judge_add, extra_check=_check_carry, copy_table=True,
        plot=Plot("C0", {"bandwidth": "o", "copy": "o-", "devices_copy": "o-"})),
    "add6": OpSpec(
        "add6", "6-Add", "clbig.fused.six_add(a, b)", _resolve_fused("six_add"),
        lambda a, b, bits: (6 * a + 10 * b) % _mod(bits), "bandwidth",
        lambda A, B, M, bits: [(6 * x + 10 * y) & M for x, y in zip(A, B)], "(6*x + 10*y) & (2^bits - 1)",
        blurb="6-Add: `clbig.fused.six_add(a, b)` = 6a + 10b mod 2^bits in one kernel. "
              "GB/s with the same 3·n·bits/8 bytes; × 1-Add = time over 1-Add's time.",
        columns=(BITS, N, US, KERNELS, Col("GB/s", _ok_f("GBps")), Col("× 1-Add", _ratio("ratio_to_add")),
                 *GMPY2, PROTO, Col("H100 × 1-Add", _add6_vs_add),
                 Col("target", lambda r, c: f"<= {ADD6_RATIO:g}x"), VERDICT),
        target_text=f"6-Add time <= {ADD6_RATIO:g}x 1-Add time at the same size (GPUs)",
        judge=_judge_add6, plot=Plot("C1", {"bandwidth": "s", "copy": "s-", "devices_copy": "s--"})),
    "mul": _MUL,
    # the 1-Mul targets are for the classical product: measured apart from auto's
    # choice (the NTT from 2^15 bits), as 1-Mul in every other respect
    "mulc": dataclasses.replace(
        _MUL, key="mulc", label="1-Mul classical", call='clbig.mul_low(a, b, algorithm="classical")',
        resolve=_resolve_mul(algorithm="classical"), ref_key="mul",
        blurb="1-Mul classical: `clbig.mul_low(a, b, algorithm=\"classical\")`, the papers' "
              "convolution at every size (1-Mul above takes the NTT where that is faster); counted "
              "and compared as 1-Mul.",
        target_text="1-Mul classical: the same, for the classical product at every size (H100, "
                    "full-size batches only)",
        plot=Plot("C2", {"mul": "s"})),
    # Full products (a*b, 2*bits of result): no paper's or CGBN's figure to compare with; where
    # the full product's own kernels (mul_fp64's cooperative one on GPUs) show
    "mulf": dataclasses.replace(
        _MUL, key="mulf", label="Mul", call="clbig.mul(a, b)", resolve=_resolve_huge_mul,
        reference=lambda a, b, bits: a * b, host=lambda A, B, M, bits: [x * y for x, y in zip(A, B)],
        host_call="x * y",
        blurb="Mul: `clbig.mul(a, b)` = a·b, the full product (2·bits of result). Gu32ops/s counts "
              "n·m·m 32-bit multiply-adds with m = bits/32, all of which a full product needs.",
        columns=(BITS, N, US, KERNELS, Col("Gu32ops/s", _ok_f("Gu32ops")), *GMPY2), target_text="",
        judge=None, plot=Plot("C3", {"mul": "^"})),
    # The papers' Poly is one kernel; auto fuses it where the products would be classical and
    # runs four NTT products where mul's tuned crossovers say the NTT wins (issue 34: at 2^16
    # and 2^17 bits the fused classical kernel took 1.16x and 2.17x the prototype's FFT time)
    "poly": OpSpec(
        "poly", "Poly", "clbig.fused.poly(a, b)", _resolve_fused("poly"),
        lambda a, b, bits: ((a * a + b) * (b * b + b) + a * b) % _mod(bits), "time",
        lambda A, B, M, bits: [((x * x + y) * (y * y + y) + x * y) & M for x, y in zip(A, B)],
        "((x*x + y)*(y*y + y) + x*y) & (2^bits - 1)",
        blurb="Poly: `clbig.fused.poly(a, b)` = (a·a + b)·(b·b + b) + a·b mod 2^bits, auto: in one "
              "kernel (classical products, the two squares at half the work) where mul's crossovers "
              "keep the products classical, else product by product with the NTT (from 2^15 bits on "
              "the default crossovers; `python -m clbig tune` sets them per device).",
        columns=(BITS, N, US, KERNELS, *GMPY2, PROTO, CGBN, TARGET_US, VERDICT),
        target_text=f"Poly time <= {POLY_VS_PROTO:g}x H100 proto (H100, full-size batches only)",
        judge=_judge_bound(lambda p, c: [POLY_VS_PROTO * p] if _num(p) else []),
        plot=Plot("C3", {"time": "o"})),
    "div": OpSpec(
        "div", "Div", "clbig.divmod(a, b), b of bits/2 bits", _resolve_divmod, kind="time", **_DIVMOD,
        blurb="Div: `clbig.divmod(a, b)`, quotient and remainder, dividend of `bits` bits, divisor of "
              "half as many (top limb made odd, so never zero); × 1-Mul = time over 1-Mul's time at the "
              "same size; gmpy2: `f_divmod`. H100 references: issue 4 (prototype: divisors of 2..m/2 "
              "limbs; CGBN `cgbn_div_rem`, divisors of m/2−3 words).",
        columns=(BITS, Col("divisor bits", lambda r, c: r.get("divisor_bits", "–")), N, US, KERNELS,
                 Col("× 1-Mul", _ratio("ratio_to_mul")), *GMPY2, PROTO, CGBN, TARGET_US, VERDICT),
        target_text=f"Div time <= {DIV_VS_MUL:g}x 1-Mul time at 2^15..2^18 (GPUs); <= "
                    f"{DIV_VS_CGBN:g}x H100 CGBN at 2^11..2^15 and <= {DIV_VS_PROTO:g}x H100 proto at "
                    "2^16..2^17 (H100, full size)",
        judge=_judge_div, plot=Plot("C4", {"time": "D"})),
    "hmul": OpSpec(
        "hmul", "Huge-Mul", "clbig.mul(x, y) on two Python ints", _resolve_huge_mul,
        lambda a, b, bits: a * b, "huge", lambda A, B, M, bits: [x * y for x, y in zip(A, B)], "x * y",
        blurb="Huge-Mul: one product of two Python ints of `bits` bits, `clbig.mul(x, y)`. Device µs: "
              "the kernels (profiling events); wall µs: the whole call from Python ints to the Python "
              "int result (conversion, transfers, kernels, read-back). gmpy2: `x * y` on mpz.",
        columns=HUGE_COLUMNS,
        target_text="single product >= 20x faster than gmpy2 at 2^24 bits, >= 50x at 2^26 "
                    "(wall time, transfers included; GPUs)",
        judge=_judge_speedup(HUGE_SPEEDUP["hmul"]), plot=Plot("C5", {"huge": "o"})),
    "hdiv": OpSpec(
        "hdiv", "Huge-Div", "clbig.divmod(x, y) on two Python ints, y of bits/2 bits", _resolve_divmod,
        kind="huge", **_DIVMOD,
        blurb="Huge-Div: one division of a `bits`-bit Python int by one of bits/2 bits, "
              "`clbig.divmod(x, y)`; device and wall µs as for Huge-Mul. gmpy2: `f_divmod`.",
        columns=HUGE_COLUMNS,
        target_text="single 2^27 // 2^26-bit division >= 20x faster than gmpy2 (wall time, transfers "
                    "included; GPUs)",
        judge=_judge_speedup(HUGE_SPEEDUP["hdiv"]), plot=Plot("C6", {"huge": "D"})),
}
BATCH_OPS = tuple(k for k, o in OPS.items() if not o.huge)
HUGE_OPS = tuple(k for k, o in OPS.items() if o.huge)
