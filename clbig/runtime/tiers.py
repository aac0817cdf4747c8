"""Two tiers of a kernel: widths at run time first, the width's own kernel once it pays (issue 43).

Several kernels come in two forms: one with the operands' widths written in, whose loops the
compiler unrolls (faster: up to 2x for additions on PoCL, 3-13x for the CPUs' Montgomery
products), and one taking them at run time, one build for every width. A user meets the first
form as a build at every new width: a check of the modular API at 13 widths built 155 kernels
on PoCL and spent 114 s, against 10 s warm (bench/README.md, "Two tiers"). So a call takes the
run-time form until the time that form has cost more at this width would have paid for the
width's own kernel, as a skier rents until the rent paid equals the price of skis: each call
adds its work (limb products, or the caller's unit) to the width's account in the context's
profile, and from `repays` units on the width's own kernel is built. It is taken at once where
it costs no build (this process or the kernel cache holds it). The TIERS setting off takes it
always (the benchmark's steady state, and the suite, which tests each form on purpose), first
never.
"""
from __future__ import annotations

import contextlib

from . import render

_CACHE = "tier_work"
_MODE = "tier_mode"


def _how(ctx) -> str:
    """The TIERS setting, or what `mode` set for the context."""
    got = ctx.profile.cache(_MODE).get("how")
    return got if got is not None else ctx.profile.settings.tiers


@contextlib.contextmanager
def mode(ctx, how: str):
    """Inside the block, calls in ctx take the tiers as the TIERS setting `how` would ("off":
    each width's own kernel, "first": the run-time forms): the warm-up builds both."""
    if how not in ("auto", "off", "first"):
        raise ValueError(f"tiers.mode: {how!r} is not auto, off or first")
    held = ctx.profile.cache(_MODE)
    was = held.get("how")
    held["how"] = how
    try:
        yield
    finally:
        held["how"] = was


def fixed(ctx, key, built=None, work: int = 0, repays: int | None = None) -> bool:
    """Whether this call should run the width's own kernel (identified by `key`, hashable)
    rather than the run-time form: `built()` says it costs no build (asked once per key in a
    context; None: never known), or the work of the key's calls in ctx, this one's included,
    reaches `repays` (None: never); the TIERS setting off: always, first: never."""
    how = _how(ctx)
    if how != "auto":
        return how == "off"
    seen = ctx.profile.cache(_CACHE)
    got = seen.get(key)
    if got is None:                       # first call: is it built already (here or on disk)?
        got = seen[key] = [0, bool(built and built())]
    if got[1]:
        return True
    got[0] += work                        # unlocked: two threads at worst count one call once
    if repays is not None and got[0] >= repays:
        got[1] = True
    return got[1]


def cpu_first_tier(ctx, key, work: int, repays: int) -> bool:
    """Whether this call takes the run-time form of a kernel that only CPUs run in two tiers
    (GPUs build these per width: their builds take a fraction of a CPU runtime's, and the
    forms' speeds differ more): on a CPU until `fixed` says the width's own kernel pays; with
    TIERS=first on every device (tests: Oclgrind counts as a GPU)."""
    how = _how(ctx)
    if how != "auto":
        return how == "first"
    return not ctx.profile.facts.is_gpu and not fixed(ctx, key, None, work, repays)


def fixed_kernel(ctx, template: str, name: str, params: dict, work: int = 0,
                 repays: int | None = None) -> bool:
    """`fixed` for the kernel `render.kernel(ctx, template, name, **params)`: taken at once
    where this process or the kernel cache holds it."""
    return fixed(ctx, (template, name, tuple(params.items())),
                 lambda: render.built(ctx, template, name, **params), work, repays)


def unrolled_repays(ctx, limbs: int) -> int:
    """Limb products after which a CPU builds the kernel unrolled over `limbs` limbs, rather
    than run the loop kernels' run-time widths (mpn.mont_loop, div_basecase.divmod_loop).
    PoCL: the loop kernels took 3-6x the unrolled ones' time (powmod, 512 to 4096 bits; 2-core
    EPYC, 2026-11-30), 0.6 ns more per product, and an unrolled kernel's build and first launch
    take about 1 + limbs / 12 seconds (3-4 s at 768 to 2048 bits, 9-13 s at 3072 and 4096):
    about 2^30 products of extra time per second of build. Intel's runtime builds in about
    half PoCL's time (the modular check's 151 builds: 58 s) and ran the loop kernels 9-13x
    slower, 1.3 ns more per product: a quarter of that (bench/README.md, "Two tiers")."""
    per_second = 1 << (28 if ctx.profile.facts.intel_cpu_runtime else 30)
    return per_second * (1 + limbs // 12)
