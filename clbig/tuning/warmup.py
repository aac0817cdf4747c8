"""`clbig.warmup` and `python -m clbig warmup`: build the common kernels ahead of time (issue 43).

Kernels are specialised per operand width and built on first use; each build is kept on disk
(runtime.binaries), so one warm-up per device and clbig version makes every later process
find them. A warm-up runs each family once at each width on a small batch of random values
(checked against Python's integers, so a broken build fails here rather than in a user's
computation), on the context given or the current one.
"""
from __future__ import annotations

import math
import random
import time
from typing import Callable, Sequence

from ..mpz import gcd as _gcd
from ..mpz import modular, ops
from ..mpz.array import array
from ..runtime import binaries
from ..runtime.devices import Context, current_context

#: The families a warm-up builds, and the widths (bits) it builds them for by default: the
#: sizes of RSA and Diffie-Hellman moduli and their halves, where users' batches are.
FAMILIES = ("add", "mul", "divmod", "compare", "powmod", "gcd", "invert")
DEFAULT_BITS = (256, 512, 1024, 2048, 4096)


def _one(family: str, bits: int, ctx, rng: random.Random) -> None:
    n = 3
    a = [rng.getrandbits(bits) | 1 << (bits - 1) for _ in range(n)]
    b = [rng.getrandbits(bits) | 1 << (bits - 1) | 1 for _ in range(n)]
    A, B = array(a, ctx=ctx), array(b, ctx=ctx)
    if family == "add":
        got, want = (ops.add(A, B).tolist() + ops.sub(A, B).tolist(),
                     [x + y for x, y in zip(a, b)] + [x - y for x, y in zip(a, b)])
    elif family == "mul":
        got, want = ops.mul(A, B).tolist(), [x * y for x, y in zip(a, b)]
    elif family == "divmod":
        W = ops.mul(A, B)
        q, r = ops.divmod(W, B)
        got, want = q.tolist() + r.tolist(), [x * y // y for x, y in zip(a, b)] + [0] * n
    elif family == "compare":
        got, want = list(ops.compare(A, B)), [(x > y) - (x < y) for x, y in zip(a, b)]
    elif family == "powmod":
        got, want = (modular.powmod(A, A, B).tolist(), [pow(x, x, y) for x, y in zip(a, b)])
    elif family == "gcd":
        got, want = _gcd.gcd(A, B).tolist(), [math.gcd(x, y) for x, y in zip(a, b)]
    elif family == "invert":
        inv, _ = _gcd.invert(A, B, strict=False)
        got = inv.tolist()
        want = []
        for x, y in zip(a, b):
            try:
                want.append(pow(x, -1, y))
            except ValueError:
                want.append(0)
    else:
        raise ValueError(f"warmup: unknown family {family!r}; choose from {', '.join(FAMILIES)}")
    if [int(v) for v in got] != want:
        raise RuntimeError(f"warmup: {family} at {bits} bits gave a wrong result on {ctx!r}")


def warmup(families: Sequence[str] = FAMILIES, bits: Sequence[int] = DEFAULT_BITS,
           ctx: Context | None = None, progress: Callable[[int, int, str], None] | None = None) -> dict:
    """Build the kernels of `families` at each width of `bits` ahead of time.

    Each build is kept on disk (the kernel cache `python -m clbig info` shows), so later
    processes on this device find it instead of compiling; each family runs once per width on
    three random values, checked against Python's integers.

    Parameters
    ----------
    families : sequence of str
        Any of "add", "mul", "divmod", "compare", "powmod", "gcd", "invert" (default: all).
    bits : sequence of int
        Operand widths in bits (default 256, 512, 1024, 2048, 4096).
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
    rng = random.Random(43)
    total, done, t0 = len(fams) * len(widths), 0, time.perf_counter()
    for b in widths:
        for f in fams:
            with binaries.ahead():   # keep the binaries on PoCL too
                _one(f, b, ctx, rng)
            done += 1
            if progress is not None:
                progress(done, total, f"{f} {b} bits")
    return {"steps": done, "seconds": time.perf_counter() - t0}
