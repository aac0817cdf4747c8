"""`python -m clbig tune`: measure where the NTT overtakes classical multiplication (and SSA
the NTT) on this device, for full batches and for few instances, and store the crossovers in
the user's cache folder (clbig.mul_n.tuning_file()), where `algorithm="auto"` reads them.

A crossover is the smallest operand size from which the faster algorithm wins at that size and
every larger size measured, so one noisy point cannot flip the choice for everything above.
Each timed product is checked against gmpy2 on its first instance.
"""
from __future__ import annotations

import json

import numpy as np

from . import mul_n
from .devices import Context


def _time(ctx, f, reps: int) -> float:
    from .profiling import profile
    f()
    ctx.finish()
    ts = []
    for _ in range(reps):
        with profile() as p:
            f()
        ts.append(p.seconds)
    return float(np.median(ts))


def _crossover(times: dict, fast: str, slow: str):
    sizes = sorted(times)
    for i, lg in enumerate(sizes):
        if all(times[s].get(fast, np.inf) < times[s].get(slow, np.inf) for s in sizes[i:]):
            return 1 << lg
    return None


def measure(ctx, sizes, n_of, progress=None, low=False):
    """{log2 bits: {algorithm: seconds}} for full products of random operands (low: the low
    half, mod 2^bits)."""
    import gmpy2
    from .array import from_limbs, limbs_to_ints
    rng = np.random.default_rng(1)
    out = {}
    for lg in sizes:
        bits = 1 << lg
        m, n = bits // 32, n_of(bits)
        a = from_limbs(rng.integers(0, 2**32, (n, m), dtype=np.uint32), ctx=ctx)
        b = from_limbs(rng.integers(0, 2**32, (n, m), dtype=np.uint32), ctx=ctx)
        x, y = gmpy2.mpz(a[0]), gmpy2.mpz(b[0])
        out[lg] = {}
        for alg in mul_n.ALGORITHMS:
            width = bits if low else 2 * bits
            if mul_n.why_not(ctx, alg, m, m, width) or (alg == "classical" and n * m * m > 1 << 40):
                continue
            f = lambda: mul_n.mul(ctx, a.data.data, m, m, b.data.data, m, m, n, width, alg)
            r = f()
            got = limbs_to_ints(r[0:1].get(queue=ctx.queue))[0]
            if got != (x * y) % (1 << width):
                raise RuntimeError(f"tune: {alg} gave a wrong product at 2^{lg} bits")
            out[lg][alg] = _time(ctx, f, 3)
            if progress:
                progress(f"2^{lg} bits x {n}{' low half' if low else ''}: {alg} {out[lg][alg] * 1e3:.3f} ms")
    return out


def tune(ctx=None, quick: bool = False, progress=print) -> dict:
    ctx = ctx or Context()
    import pyopencl as cl
    gpu = bool(ctx.device.type & cl.device_type.GPU)
    total = (1 << 30) if gpu and not quick else (1 << 22)
    batch_sizes = range(10, 19) if not quick else range(8, 13)
    few_sizes = range(12, 23 if gpu and not quick else 17)
    many = 4 * int(ctx.device.max_compute_units)
    batch = measure(ctx, batch_sizes, lambda bits: max(many, total // bits), progress)
    single = measure(ctx, few_sizes, lambda bits: 1, progress)
    batch_low = measure(ctx, batch_sizes, lambda bits: max(many, total // bits), progress, low=True)
    single_low = measure(ctx, few_sizes, lambda bits: 1, progress, low=True)
    never = 1 << 62

    def winners(times):
        return {str(lg): min(t, key=t.get) for lg, t in times.items() if t}
    found = {
        "ntt_from_bits": _crossover(batch, "ntt", "classical") or never,
        "ntt_from_bits_few": _crossover(single, "ntt", "classical") or never,
        "ntt_from_bits_low": _crossover(batch_low, "ntt", "classical") or never,
        "ntt_from_bits_low_few": _crossover(single_low, "ntt", "classical") or never,
        "ssa_from_bits": _crossover(batch, "ssa", "ntt") or never,
        "ssa_from_bits_few": _crossover(single, "ssa", "ntt") or never,
        "winners": winners(batch), "winners_few": winners(single),
        "winners_low": winners(batch_low), "winners_low_few": winners(single_low),
    }
    path = mul_n.tuning_file()
    try:
        table = json.loads(path.read_text())
    except (OSError, ValueError):
        table = {}
    table[mul_n.device_key(ctx)] = found
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(table, indent=1))
    ctx.__dict__.pop("_mul_crossovers", None)
    return dict(found, file=str(path), batch=batch, single=single)
