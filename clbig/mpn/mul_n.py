"""Multiplication of limb vectors by the best algorithm for the size (GMP's mpn_mul).

`mul` has the contract of every multiplication module (mul_basecase, mul_ntt, mul_ssa):
(a * b) mod 2**bits for n instances of ma- and mb-limb operands with instance strides sa, sb
(0 broadcasts), returned as an (n, ceil(bits/32)) uint32 device array. Division and the
user-facing layer call this, never one algorithm directly, so they get the fastest one.

"auto" goes by the bits of the smaller operand that take part (a product mod 2**bits reads
only the low bits of each operand): classical below `ntt_from_bits` (`ntt_from_bits_low` for
clipped products, `_few` for batches too small to fill the device), the NTT from there, SSA
from `ssa_from_bits`, each only where it can run on this device. The crossovers come from
`python -m clbig tune` for this device (a JSON file in the user's cache folder), else from the
defaults below, measured on an NVIDIA H100 (bench/results/).
"""
from __future__ import annotations

import numpy as np


from . import mul_basecase, mul_fp64, mul_ntt, mul_ssa
from ..runtime import plan as P
from ..runtime import tuned as tune
from ..runtime.render import memoized
# The defaults and the tuning file live with the other tuned values (runtime.tuned); these names
# stay here for the callers that ask mul_n.
from ..runtime.tuned import ALGORITHMS, DEFAULT_CROSSOVERS, device_key, tuning_file  # noqa: F401


def crossovers(ctx) -> dict:
    """This device's crossovers: tuned ones where present, else the defaults (kept in the
    context's "mul" cache: `set_crossovers` replaces them, ctx.profile.clear("mul") makes them
    read again). Where the cooperative FP64 kernel runs full products (mul_fp64.coop_auto),
    or the lanes kernel runs classical products on a CPU (mul_fp64.lanes_auto), the NTT takes
    them later unless a tuning says otherwise (tuning times the classical path that auto
    takes)."""
    cache = ctx.profile.cache("mul")
    got = cache.get("crossovers")
    if got is None:
        got = dict(DEFAULT_CROSSOVERS)
        if mul_fp64.coop_auto(ctx):
            got["ntt_from_bits"] = mul_fp64.NTT_FROM_BITS
        elif mul_fp64.lanes_auto(ctx):
            got.update(mul_fp64.lanes_ntt_from(ctx))
        got.update(tune.tuned(ctx))   # a file of the wrong shape is ignored with a warning
        cache["crossovers"] = got
    return got


def set_crossovers(ctx, values: dict | None) -> None:
    """Make `values` this context's crossovers (tests, measurements: a dict shaped as
    DEFAULT_CROSSOVERS, whole, not merged); None: read them again (defaults, tuning file) at
    the next product."""
    cache = ctx.profile.cache("mul")
    cache.pop("crossovers key", None)
    if values is None:
        cache.pop("crossovers", None)
    else:
        cache["crossovers"] = dict(values)


def crossovers_key(ctx) -> tuple:
    """The crossovers as a hashable (their content, nested winners included): the part of a
    recording's key (div_q's Newton inverse) that follows what auto multiplies by. Kept with
    the crossovers object it was made from, so it is remade only when they are replaced."""
    x = crossovers(ctx)
    cache = ctx.profile.cache("mul")
    got = cache.get("crossovers key")
    if got is None or got[0] is not x:
        frozen = tuple(sorted((k, tuple(sorted(v.items())) if isinstance(v, dict) else v)
                              for k, v in x.items()))
        got = cache["crossovers key"] = (x, frozen)
    return got[1]


def why_not(ctx, algorithm: str, ma: int, mb: int, bits: int) -> str | None:
    """None when `algorithm` can run this product on this device, else the reason. Memoized
    per context (choose asks it for every product: ~5 µs of planning each time); the key holds
    the settings' version (the NTT_* and SSA_* settings `supports` reads) and what tests patch
    (the fields' limits, SSA's memory limits)."""
    if algorithm == "classical":
        return None
    version = ctx.profile.settings.version
    if algorithm == "ntt":
        key = ("mul_n.why_not", "ntt", ma, mb, bits, version,
               tuple([f.max_log for f in mul_ntt.FIELDS.values()]))
    else:
        key = ("mul_n.why_not", "ssa", ma, mb, bits, mul_ssa._limits, version)
    module = mul_ntt if algorithm == "ntt" else mul_ssa
    return memoized(ctx, key, lambda: module.supports(ctx, ma, mb, bits))


def check_algorithm(algorithm: str) -> str:
    if algorithm not in ("auto",) + ALGORITHMS:
        raise ValueError(f"unknown multiplication algorithm {algorithm!r}; choose from auto, "
                         + ", ".join(ALGORITHMS))
    return algorithm


# Too few instances to fill the device with one work-group each: a classical product of one
# huge pair runs on one group per instance's chunks, so the NTT wins much earlier.
few = P.few


def clipped(ma: int, mb: int, bits: int) -> bool:
    """A product mod 2^bits that keeps at most about the longer operand's limbs (a low half)."""
    return P.ceil_div(bits, 32) <= max(ma, mb) + 1 < ma + mb


def choose(ctx, ma: int, mb: int, bits: int, n: int = 1 << 30, ssa: bool = True) -> str:
    m = min(ma, mb, P.ceil_div(bits, 32)) * 32
    x = crossovers(ctx)
    suffix = "_few" if few(ctx, n) else ""
    kind = ("_low" if clipped(ma, mb, bits) else "") + suffix
    prefer = ["classical"]
    if m >= x["ntt_from_bits" + kind]:
        prefer = ["ntt", "ssa", "classical"]
    if m >= x["ssa_from_bits" + suffix]:
        prefer = ["ssa", "ntt", "classical"]
    won = x.get("winners" + kind, {}).get(str(m.bit_length() - 1))
    if won in ALGORITHMS:
        prefer = [won] + [a for a in prefer if a != won]
    return next(a for a in prefer if (ssa or a != "ssa") and why_not(ctx, a, ma, mb, bits) is None)


def mul(ctx, a, sa: int, ma: int, b, sb: int, mb: int, n: int, bits: int, algorithm: str = "auto"):
    if n == 0:      # nothing to plan: SSA's plan for a huge capacity walks its limbs (seconds)
        check_algorithm(algorithm)
        return ctx.empty((0, -(-bits // 32)), np.uint32)
    if check_algorithm(algorithm) == "auto":
        algorithm = choose(ctx, ma, mb, bits, n)
    else:
        why = why_not(ctx, algorithm, ma, mb, bits)
        if why:
            raise ValueError(f"algorithm={algorithm!r} cannot multiply {ma * 32}-bit by "
                             f"{mb * 32}-bit operands (mod 2^{bits}) on {ctx.name}: {why}")
    if algorithm == "ntt":
        return mul_ntt.mul(ctx, a, sa, ma, b, sb, mb, n, bits)
    if algorithm == "ssa":
        return mul_ssa.mul(ctx, a, sa, ma, b, sb, mb, n, bits, pointwise=pointwise)
    return mul_basecase.mul(ctx, a, sa, ma, b, sb, mb, n, bits)


def pointwise(ctx, a, sa, ma, b, sb, mb, n, bits):
    """SSA's batch of pointwise products: classical or NTT as auto would pick, never SSA
    again (its pieces are much shorter than its operands, so recursion would end, but a batch
    engine is what the pieces want)."""
    return mul(ctx, a, sa, ma, b, sb, mb, n, bits, choose(ctx, ma, mb, bits, n, ssa=False))
