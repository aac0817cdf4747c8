"""`clbig.warmup` and `python -m clbig warmup`: build the common kernels ahead of time (issue 43).

Kernels are specialised per operand width and built on first use; each build is kept on disk
(runtime.binaries), so one warm-up per device and clbig version makes every later process
find them. A warm-up runs each family at each width on batches of a few lengths of random
values (checked against Python's integers and gmpy2, so a broken build fails here rather than
in a user's computation), on the context given or the current one. The promise, checked by
`python -m clbig.bench --cold --after-warmup`: after the default warm-up, the first calls of
the cold tour (clbig/bench/cold.py) build nothing.
"""
from __future__ import annotations

import math
import random
import time
from typing import Callable, Sequence

import gmpy2

from ..mpz import gcd as _gcd
from ..mpz import modular, numtheory, ops, reduce
from ..mpz.array import array
from ..runtime import binaries
from ..runtime import plan as P
from ..runtime.devices import Context, current_context

#: The families a warm-up builds, and the widths (bits) it builds them for by default: small
#: widths (counters, loops whose values grow from a few bits), and the sizes of RSA and
#: Diffie-Hellman moduli and their halves, where users' batches are.
FAMILIES = ("add", "mul", "divmod", "compare", "powmod", "gcd", "invert", "gcdext", "lcm", "iroot",
            "is_prime", "next_prime", "prod", "expression")
DEFAULT_BITS = (64, 128, 256, 512, 1024, 2048, 4096)

#: Batch lengths each family runs at: launch plans depend on the batch (host or device for a
#: few powmods, instances per group, how many items share an instance), so a warm-up at one
#: length would leave a user's other lengths to build. On CPUs the exponentiation families
#: skip the longest (seconds of arithmetic at 4096 bits, and their plans stop growing there).
BATCHES = (3, 64, 1024)
HEAVY = ("powmod", "is_prime", "next_prime")
#: prod's batch is the length of its reduction: a few values (unbalanced products) and a tree
#: of 256 (every level of a balanced tree up to 128 values a side; longer reductions are rare
#: and 1024 values of 4096 bits would build the NTT of 4-Mbit products).
PROD_BATCHES = (3, 256)
#: Up to this width, add and mul also run loops whose values grow from one limb (s = s + s,
#: x = x * 3), as users' counters and accumulators do: they pass through every narrower width.
GROWTH_BITS = 256
#: next_prime's candidates grow with the width (a prime gap near 4096 bits spans thousands):
#: built up to this width.
NEXT_PRIME_BITS = 1024


def _check(family: str, bits: int, n: int, ctx, got, want) -> None:
    if [int(v) for v in got] != [int(v) for v in want]:
        raise RuntimeError(f"warmup: {family} at {bits} bits ({n} rows) gave a wrong result on {ctx!r}")


def _one(family: str, bits: int, n: int, ctx, rng: random.Random) -> None:
    a = [rng.getrandbits(bits) | 1 << (bits - 1) for _ in range(n)]
    b = [rng.getrandbits(bits) | 1 << (bits - 1) | 1 for _ in range(n)]
    A, B = array(a, ctx=ctx), array(b, ctx=ctx)
    if family == "add":
        got = ops.add(A, B).tolist() + ops.sub(A, B).tolist() + ops.add(A, A).tolist()
        want = [x + y for x, y in zip(a, b)] + [x - y for x, y in zip(a, b)] + [2 * x for x in a]
        if bits <= GROWTH_BITS:   # a loop whose capacity grows a bit a step passes every width
            S = array([1] * n, ctx=ctx)
            for _ in range(bits):
                S = S + S
            got, want = got + S.tolist(), want + [1 << bits] * n
    elif family == "mul":
        got = ops.mul(A, B).tolist() + ops.mul(A, 3).tolist()
        want = [x * y for x, y in zip(a, b)] + [3 * x for x in a]
        if bits <= GROWTH_BITS:   # and one growing by a small factor
            X, k = array([1] * n, ctx=ctx), 0
            while 3 ** (k + 1) < 1 << bits:
                X, k = X * 3, k + 1
            got, want = got + X.tolist(), want + [3 ** k] * n
    elif family == "divmod":
        q, r = ops.divmod(ops.mul(A, B), B)
        got, want = q.tolist() + r.tolist(), a + [0] * n
    elif family == "compare":
        got = list(ops.compare(A, B)) + list(ops.compare(A, 0))
        want = [(x > y) - (x < y) for x, y in zip(a, b)] + [1] * n
    elif family == "powmod":
        got, want = modular.powmod(A, A, B).tolist(), [gmpy2.powmod(x, x, y) for x, y in zip(a, b)]
    elif family == "gcd":
        got, want = _gcd.gcd(A, B).tolist(), [math.gcd(x, y) for x, y in zip(a, b)]
    elif family == "invert":
        got = _gcd.invert(A, B, strict=False)[0].tolist()
        want = [int(gmpy2.invert(x, y)) if math.gcd(x, y) == 1 else 0 for x, y in zip(a, b)]
    elif family == "gcdext":
        got = [v for arr in numtheory.gcdext(A, B) for v in arr.tolist()]
        want = [int(t[i]) for i in range(3) for t in (gmpy2.gcdext(x, y) for x, y in zip(a, b))]
    elif family == "lcm":
        got, want = numtheory.lcm(A, B).tolist(), [math.lcm(x, y) for x, y in zip(a, b)]
    elif family == "iroot":
        got, want = numtheory.iroot(A, 3)[0].tolist(), [int(gmpy2.iroot(x, 3)[0]) for x in a]
    elif family == "is_prime":
        got, want = list(numtheory.is_prime(B)), [bool(gmpy2.is_prime(y, 25)) for y in b]
    elif family == "next_prime":
        if bits > NEXT_PRIME_BITS:
            return
        got, want = numtheory.next_prime(A).tolist(), [int(gmpy2.next_prime(x)) for x in a]
    elif family == "prod":
        got, want = [reduce.prod(A)], [math.prod(a)]
    elif family == "expression":   # a product, a sum and a remainder by one modulus, as users write them
        m = b[0]
        got, want = ((A * B + A) % m).tolist(), [(x * y + x) % m for x, y in zip(a, b)]
    else:
        raise ValueError(f"warmup: unknown family {family!r}; choose from {', '.join(FAMILIES)}")
    _check(family, bits, n, ctx, got, want)


def warmup(families: Sequence[str] = FAMILIES, bits: Sequence[int] = DEFAULT_BITS,
           ctx: Context | None = None, progress: Callable[[int, int, str], None] | None = None,
           batches: Sequence[int] = BATCHES) -> dict:
    """Build the kernels of `families` at each width of `bits` ahead of time.

    Each build is kept on disk (the kernel cache `python -m clbig info` shows), so later
    processes on this device find it instead of compiling; each family runs at each width on
    batches of random values of each length in `batches`, checked against Python's integers
    and gmpy2. One step is a family at a width.

    Parameters
    ----------
    families : sequence of str
        Any of FAMILIES: "add", "mul", "divmod", "compare", "powmod", "gcd", "invert",
        "gcdext", "lcm", "iroot", "is_prime", "next_prime", "prod", "expression" (default:
        all).
    bits : sequence of int
        Operand widths in bits (default 64, 128, 256, 512, 1024, 2048, 4096).
    batches : sequence of int
        Batch lengths each family runs at (default BATCHES: 3, 64, 1024; prod then takes
        PROD_BATCHES, 3 and 256; on CPUs the exponentiation families skip lengths above 64).
    ctx : Context, optional
        The device (default: the current context).
    progress : callable, optional
        Called as progress(done, total, label) after each step.

    Returns
    -------
    dict
        {"steps": steps run, "seconds": time taken}.

    Raises
    ------
    ValueError
        For an unknown family or a width below 2 bits.
    RuntimeError
        Where a kernel gives a wrong result.

    Examples
    --------
    >>> import clbig
    >>> clbig.warmup(["add"], [64])["steps"]
    1
    """
    ctx = current_context() if ctx is None else ctx
    fams = tuple(families)
    for f in fams:
        if f not in FAMILIES:
            raise ValueError(f"warmup: unknown family {f!r}; choose from {', '.join(FAMILIES)}")
    widths = tuple(int(b) for b in bits)
    if any(b < 2 for b in widths):
        raise ValueError(f"warmup: widths must be at least 2 bits, got {widths}")
    lengths = tuple(int(n) for n in batches)
    if not lengths or any(n < 1 for n in lengths):
        raise ValueError(f"warmup: batch lengths must be at least 1, got {lengths}")
    gpu = P.is_gpu(ctx)
    rng = random.Random(43)
    total, done, t0 = len(fams) * len(widths), 0, time.perf_counter()
    for b in widths:
        for f in fams:
            for n in (PROD_BATCHES if f == "prod" and lengths == BATCHES else lengths):
                if f in HEAVY and not gpu and n > 64 and n > min(lengths):
                    continue
                with binaries.ahead(), ctx:   # keep the binaries on PoCL too
                    _one(f, b, n, ctx, rng)
            done += 1
            if progress is not None:
                progress(done, total, f"{f} {b} bits")
    return {"steps": done, "seconds": time.perf_counter() - t0}
