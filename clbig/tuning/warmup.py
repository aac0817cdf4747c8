"""`clbig.warmup` and `python -m clbig warmup`: build the common kernels ahead of time (issue 43).

Kernels are specialised per operand width and built on first use; each build is kept on disk
(runtime.binaries), so one warm-up per device and clbig version makes every later process
find them. A warm-up runs each family at each width on batches of a few lengths of random
values (checked against Python's integers and gmpy2, so a broken build fails here rather than
in a user's computation), on the context given or the current one. The promise, checked by
`python -m clbig.bench --cold --after-warmup`: after the default warm-up, the first calls of
the cold tour (clbig/bench/cold.py) build nothing. The steps can run in several processes
(`jobs`): NVIDIA's driver builds one program at a time in a process, Intel's and PoCL's
compilers one on a core, so side by side in processes they build several at once (H200,
16 host cores, 2026-11-29: the default warm-up 104.7 s in one process, 22 s in eight).
"""
from __future__ import annotations

import concurrent.futures
import math
import multiprocessing
import random
import time
from typing import Callable, Sequence

import gmpy2

from ..mpn import host_powm
from ..mpz import gcd as _gcd
from ..mpz import hostrows, modular, numtheory, ops, reduce
from ..mpz.array import array
from ..runtime import binaries, tiers
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


#: Rows of a batch whose powmod and next_prime results are checked: gmpy2's own answers cost
#: seconds on one core for 1024 rows of 4096 bits (a build that is wrong is wrong on every row
#: or on many; the test suite checks every row).
CHECKED_ROWS = 64


def _checked_rows(n: int) -> list[int]:
    """Every row of a short batch; of a longer one, CHECKED_ROWS spread over it, both ends in."""
    if n <= CHECKED_ROWS:
        return list(range(n))
    return sorted({(n - 1) * k // (CHECKED_ROWS - 1) for k in range(CHECKED_ROWS)})


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
        got, rows = modular.powmod(A, A, B).tolist(), _checked_rows(n)
        got, want = [got[i] for i in rows], [gmpy2.powmod(a[i], a[i], b[i]) for i in rows]
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
        got, rows = numtheory.next_prime(A).tolist(), _checked_rows(n)
        got, want = [got[i] for i in rows], [int(gmpy2.next_prime(a[i])) for i in rows]
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
           batches: Sequence[int] = BATCHES, jobs: int = 1) -> dict:
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
    ctx : Context or Devices, optional
        The device, or each device of a group (default: the current context).
    progress : callable, optional
        Called as progress(done, total, label) after each step.
    jobs : int, optional
        Processes to build in (default 1: this one). Compilers build one program at a time
        per process, so several processes build side by side; `default_jobs()` is the command
        line's choice. Each process opens the device itself (the context's caps included), and
        steps then end in any order. The processes are spawned, so a script calling this
        with jobs > 1 needs the ``if __name__ == "__main__":`` guard multiprocessing asks for.

    Returns
    -------
    dict
        {"steps": steps run (on each device of a group), "seconds": time taken}.

    Raises
    ------
    ValueError
        For an unknown family, a width below 2 bits or jobs below 1.
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
    if isinstance(jobs, bool) or not isinstance(jobs, int) or jobs < 1:
        raise ValueError(f"warmup: jobs must be a positive integer, got {jobs!r}")
    steps = [(f, b) for b in widths for f in fams]
    members = []   # a group of devices (Context([...])) warms each of its devices once
    for c in getattr(ctx, "contexts", [ctx]):
        if all(c is not m for m in members):
            members.append(c)
    t0 = time.perf_counter()
    if jobs == 1 or len(steps) * len(members) < 2:
        done = 0
        for c in members:
            for f, b in steps:
                _step(f, b, lengths, c)
                done += 1
                if progress is not None:
                    progress(done, len(steps) * len(members), f"{f} {b} bits")
    else:
        _in_processes(steps, lengths, members, jobs, progress)
    return {"steps": len(steps) * len(members), "seconds": time.perf_counter() - t0}


def _step(family: str, bits: int, lengths: tuple, ctx) -> None:
    """One family at one width, at each batch length, its binaries kept."""
    gpu = P.is_gpu(ctx)
    rng = random.Random(f"{family}:{bits}")   # the same values whichever process runs the step
    # no first-call allowance: past its host limit a product builds, and the operators
    # inside a family's step (a product, a quotient) build too instead of running on the host
    hostrows.bought(ctx, family)
    hostrows.buy_arrays(ctx)
    # each width's own kernels (a later process takes them at once, runtime.tiers), and on
    # CPUs once the run-time forms too, which serve the widths not warmed
    for n in (PROD_BATCHES if family == "prod" and lengths == BATCHES else lengths):
        if family in HEAVY and not gpu and n > 64 and n > min(lengths):
            continue
        with binaries.ahead(), ctx, tiers.mode(ctx, "off"):   # keep the binaries on PoCL too
            _one(family, bits, n, ctx, rng)
    if not gpu:
        with binaries.ahead(), ctx, tiers.mode(ctx, "first"):
            _one(family, bits, min(lengths), ctx, rng)


def default_jobs() -> int:
    """Processes a warm-up builds in by default: one per host core, up to 8 (beyond, on the
    H200's 16-core host, the longest steps set the time: bench/README.md, "The warm-up in
    several processes")."""
    return max(1, min(8, host_powm.cores()))


def _selector(ctx: Context) -> tuple[int, dict]:
    """What opens ctx's device again in another process: its index among the devices, and
    the caps it was opened with."""
    dev, caps = ctx.device, {}
    if ctx.max_items < min(int(dev.max_work_group_size), 1024):
        caps["max_work_group_size"] = ctx.max_items
    if ctx.local_mem < int(dev.local_mem_size):
        caps["max_local_mem"] = ctx.local_mem
    if ctx.memory < int(dev.global_mem_size):
        caps["max_memory"] = ctx.memory
    if ctx.index is None:
        raise RuntimeError(f"warmup: {ctx.name} is not among clbig.devices(), so other processes "
                           "cannot open it; run with jobs=1")
    return ctx.index, caps


def _cost(family: str, bits: int) -> int:
    """A step's rough cost, to start the longest first: wider is longer, the exponentiations
    (HEAVY) most; next_prime stops at NEXT_PRIME_BITS."""
    if family == "next_prime" and bits > NEXT_PRIME_BITS:
        return 0
    return bits * (8 if family in HEAVY else 1)


_worker_contexts: dict = {}


def _worker_step(index: int, caps: dict, family: str, bits: int, lengths: tuple) -> str:
    """A step in a worker process, on its own context for the device (opened once)."""
    key = (index, tuple(sorted(caps.items())))
    ctx = _worker_contexts.get(key)
    if ctx is None:
        ctx = _worker_contexts[key] = Context(index, **caps)
    _step(family, bits, lengths, ctx)
    return f"{family} {bits} bits"


def _in_processes(steps, lengths, members, jobs, progress) -> None:
    """The steps, on each context of `members`, spread over `jobs` fresh processes, the
    costliest first; they share the disk cache, whose entries are written whole
    (runtime.binaries), so a kernel two steps need is at worst built twice."""
    where = [_selector(c) for c in members]
    order = sorted(steps, key=lambda s: -_cost(*s))
    total, done = len(steps) * len(where), 0
    # spawn, not fork: the parent holds OpenCL contexts and driver threads a fork would copy.
    with concurrent.futures.ProcessPoolExecutor(min(jobs, total), mp_context=multiprocessing.get_context("spawn")) as pool:
        futures = [pool.submit(_worker_step, i, caps, f, b, lengths) for i, caps in where for f, b in order]
        try:
            for fut in concurrent.futures.as_completed(futures):
                label = fut.result()
                done += 1
                if progress is not None:
                    progress(done, total, label)
        except concurrent.futures.process.BrokenProcessPool as e:
            raise RuntimeError(f"warmup: a worker process ended abruptly ({e}); run with jobs=1 to "
                               "see where") from None
        finally:
            for fut in futures:
                fut.cancel()
