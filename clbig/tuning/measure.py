"""`python -m clbig tune`: measure where the NTT overtakes classical multiplication (and SSA
the NTT) on this device, for full batches and for few instances, and each family's speed, and
store them in the tuning file (runtime.tuned.tuning_file()), where `algorithm="auto"` and
several-device contexts read them.

A crossover is the smallest operand size from which the faster algorithm wins at that size and
every larger size measured, so one noisy point cannot flip the choice for everything above.
Each timed product is checked against gmpy2 on its first instance.
"""
from __future__ import annotations

import json
import os
import random
from pathlib import Path

import gmpy2
import numpy as np
import pyopencl as cl

from ..mpn import mul_n
from ..mpz import hostrows, ops
from ..mpz.array import from_limbs, limbs_to_ints
from ..mpz.gcd import gcd
from ..mpz.modular import powmod
from ..runtime import config
from ..runtime.devices import Context
from ..runtime.profiling import profile
from ..runtime.tuned import read_table


def measure_speeds(ctx, total: int, progress=None) -> dict:
    """{family: operations per second} on batches of `total` bits in all (2048-bit values)."""
    rng = random.Random(7)
    n = max(64, total // 2048)
    hostrows.buy_arrays(ctx)      # the device's speeds, not first calls rented to the host
    with ctx:
        a = ops.array([rng.getrandbits(2048) for _ in range(n)])
        b = ops.array([rng.getrandbits(2048) | 1 for _ in range(n)])
        c = ops.array([rng.getrandbits(1024) | 1 for _ in range(n)])
        ab = ops.mul(a, b)
        runs = {"add": lambda: ops.add(a, b), "mul": lambda: ops.mul(a, b),
                "div": lambda: ops.divmod(ab, b), "mod": lambda: powmod(c, 65537, b),
                "gcd": lambda: gcd(a, b)}
        out = {}
        for fam, f in runs.items():
            out[fam] = n / _time(ctx, f, 2)
            if progress:
                progress(f"speed {fam}: {out[fam]:.4g} per second (2048 bits)")
    return out


def _writable(path: Path) -> None:
    """Raise OSError naming `path` and the TUNING_FILE setting unless a file can be written there
    (checked before a tuning run of minutes, not after it)."""
    up = path.parent
    while not up.exists() and up.parent != up:
        up = up.parent
    try:
        if not up.is_dir():
            raise NotADirectoryError(20, f"{up} is a file, not a directory")
        path.parent.mkdir(parents=True, exist_ok=True)
        if path.is_dir():
            raise IsADirectoryError(21, "is a directory")
        if not os.access(path.parent, os.W_OK) or (path.exists() and not os.access(path, os.W_OK)):
            raise PermissionError(13, "not writable")
    except OSError as e:
        raise OSError(e.errno, f"cannot write the tuning file {path} ({e.strerror or e}): set "
                      f"{config.var('TUNING_FILE')} to a writable file") from e


def _time(ctx, f, reps: int) -> float:
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
            got = limbs_to_ints(ctx.get(r[0:1]))[0]
            if got != (x * y) % (1 << width):
                raise RuntimeError(f"tune: {alg} gave a wrong product at 2^{lg} bits")
            out[lg][alg] = _time(ctx, f, 3)
            if progress:
                progress(f"2^{lg} bits x {n}{' low half' if low else ''}: {alg} {out[lg][alg] * 1e3:.3f} ms")
    return out


def tune(ctx=None, quick: bool = False, progress=print) -> dict:
    if ctx is not None and not isinstance(ctx, Context):
        raise TypeError(f"ctx must be a clbig.Context, got {type(ctx).__name__}")
    ctx = ctx or Context()
    path = mul_n.tuning_file()
    _writable(path)
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
        "speeds": measure_speeds(ctx, total, progress),
    }
    table = read_table(path)   # other devices' entries stay; an unusable file is replaced
    table[mul_n.device_key(ctx)] = found
    try:
        path.write_text(json.dumps(table, indent=1))
    except OSError as e:
        raise OSError(e.errno, f"cannot write the tuning file {path} ({e.strerror or e}): set "
                      f"{config.var('TUNING_FILE')} to a writable file") from e
    ctx.profile.clear("mul", "tuned")   # auto's crossovers and the speeds: read the new file
    return dict(found, file=str(path), batch=batch, single=single)
