"""The benchmarked operations, one OpSpec each: what clbig call runs, its exact result (gmpy2),
the same computation in gmpy2 for the host column, and how it is counted (clbig.bench)."""
from __future__ import annotations

import dataclasses
import importlib
from dataclasses import dataclass
from typing import Callable

import gmpy2

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
            ops = importlib.import_module("clbig.ops")
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

    def reserve(self, bits: int) -> float:
        return self.reserve_s * (2 if bits > (1 << 13) else 1)

    @property
    def huge(self) -> bool:
        """One instance given as Python ints (single huge product / division)."""
        return self.kind == "huge"


def _mod(bits):
    return gmpy2.mpz(1) << bits


_f_divmod = gmpy2.f_divmod

_MUL = OpSpec("mul", "1-Mul", "clbig.mul_low(a, b)", _resolve_mul(),
              lambda a, b, bits: (a * b) % _mod(bits), "mul",
              lambda A, B, M, bits: [(x * y) & M for x, y in zip(A, B)],
              "(x * y) & (2^bits - 1) (GMP has no low-half product: the full one, masked)")

OPS = {
    "add": OpSpec("add", "1-Add", "clbig.add_fixed(a, b, bits)", _resolve_add,
                  lambda a, b, bits: (a + b) % _mod(bits), "bandwidth",
                  lambda A, B, M, bits: [(x + y) & M for x, y in zip(A, B)], "(x + y) & (2^bits - 1)"),
    "add6": OpSpec("add6", "6-Add", "clbig.fused.six_add(a, b)", _resolve_fused("six_add"),
                   lambda a, b, bits: (6 * a + 10 * b) % _mod(bits), "bandwidth",
                   lambda A, B, M, bits: [(6 * x + 10 * y) & M for x, y in zip(A, B)],
                   "(6*x + 10*y) & (2^bits - 1)"),
    "mul": _MUL,
    # the 1-Mul targets are for the classical product: measured apart from auto's
    # choice (the NTT from 2^15 bits), as 1-Mul in every other respect
    "mulc": dataclasses.replace(_MUL, key="mulc", label="1-Mul classical",
                                call='clbig.mul_low(a, b, algorithm="classical")',
                                resolve=_resolve_mul(algorithm="classical")),
    # The papers' Poly is one kernel: fused=True (auto would take four NTT products from 2^15 bits)
    "poly": OpSpec("poly", "Poly", "clbig.fused.poly(a, b, fused=True)", _resolve_fused("poly", fused=True),
                   lambda a, b, bits: ((a * a + b) * (b * b + b) + a * b) % _mod(bits), "time",
                   lambda A, B, M, bits: [((x * x + y) * (y * y + y) + x * y) & M for x, y in zip(A, B)],
                   "((x*x + y)*(y*y + y) + x*y) & (2^bits - 1)"),
    "div": OpSpec("div", "Div", "clbig.divmod(a, b), b of bits/2 bits", _resolve_divmod,
                  lambda a, b, bits: (a // b, a % b), "time",
                  lambda A, B, M, bits: [_f_divmod(x, y) for x, y in zip(A, B)], "gmpy2.f_divmod(x, y)",
                  divisor=True, reserve_s=DIV_RESERVE_S),
    "hmul": OpSpec("hmul", "Huge-Mul", "clbig.mul(x, y) on two Python ints", _resolve_huge_mul,
                   lambda a, b, bits: a * b, "huge",
                   lambda A, B, M, bits: [x * y for x, y in zip(A, B)], "x * y"),
    "hdiv": OpSpec("hdiv", "Huge-Div", "clbig.divmod(x, y) on two Python ints, y of bits/2 bits",
                   _resolve_divmod, lambda a, b, bits: (a // b, a % b), "huge",
                   lambda A, B, M, bits: [_f_divmod(x, y) for x, y in zip(A, B)], "gmpy2.f_divmod(x, y)",
                   divisor=True, reserve_s=DIV_RESERVE_S),
}
BATCH_OPS = tuple(k for k, o in OPS.items() if not o.huge)
HUGE_OPS = tuple(k for k, o in OPS.items() if o.huge)
