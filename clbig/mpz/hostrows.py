"""A few rows of plain ints computed on the host, where GMP beats a launch (issues 43 and 44).

A kernel's launch costs about the same for one row as for hundreds, and its first call in a
process builds it: seconds of compiler on PoCL and NVIDIA (bench/README.md, "First calls").
GMP, through gmpy2, takes microseconds a row for the number theory of a few hundred rows. So
an operation whose operands are plain Python ints (ints, or lists or tuples of them,
broadcasting as usual) and whose batch is no longer than the operation's host limit runs row
by row on the calling thread, with the device path's values, signs and capacities; the result
is an array whose limbs go to the device only when something reads them (`host_result`).
Anything else (arrays, numpy, mpz, keyword arguments, input the device path refuses, so that
its errors are raised as always) takes the device path.

The limits (`HOST_ROWS`, else the table below) are where the device's warm call caught up
with one host core (bench/README.md, "A few rows on the host"). powmod has its own limits and
setting (clbig.mpz.modular: GMP on every core, by the moduli's bits) and shares the first-call
allowance below.

Past its limit the device is the faster one warm, but a family's first device call in a
process builds its kernels: 1-10 s on NVIDIA's and PoCL's compilers. Waiting that long for
work the host finishes in milliseconds is the wrong trade until the family is used enough to
repay it: the rent-or-buy problem, whose classic answer is to rent until the rent paid equals
the price. So until a family has run on the device in a context, a call of up to FIRST_FACTOR
times its limit still runs on the host while the host time such calls took in that context
stays under `HOST_FIRST_MS` (`rent`); the first call past that, or larger, goes to the device
and builds, and from then on the limit alone decides (`bought`). A rented call that runs out
of allowance between rows stops and goes to the device (`paced`), so the host's extra time
is bounded by the allowance and one row, once per family and context.
"""
from __future__ import annotations

import functools
import math
import threading
import time

from ..runtime import plan as P, profiling
from ..runtime.devices import current_context

# Rows of plain ints of up to 1024 bits each family computes on the host by default, on GPUs
# and on CPU devices, and how the limit shrinks with wider operands: rows x (1024 / bits)^power
# (GMP's gcds and roots grow about as bits^2 a row against the device's bits; its Miller-Rabin
# as bits^3). Where the device's warm call caught up with one host core (bench/README.md, "A
# few rows on the host", 2026-11-29): H200, 1024 bits, lcm near 80 rows, gcdext 500 (270 at
# 2048 bits), iroot of 2048-bit values past 4096, is_prime 64 (16 at 2048 bits), next_prime of
# 512-bit values 10; Intel's CPU runtime on 2 cores lcm 200, gcdext 4000, iroot past 4096,
# is_prime 150, next_prime 35; PoCL later for every family (past 4096 rows for lcm, gcdext,
# iroot; is_prime 1000, next_prime past 1024).
LIMITS = {
    "lcm": (64, 256, 1),
    "gcdext": (256, 4096, 1),
    "iroot": (4096, 8192, 1),
    "is_prime": (64, 128, 2),
    "next_prime": (8, 32, 2),
    "prev_prime": (8, 32, 2),
    # prod's limit is in total bits, rows x 1024 (reduce.prod): where the H200's warm product
    # tree caught up with gmpy2's, between 2^18 and 2^19 bits; on Intel's runtime and PoCL
    # (2 cores) gmpy2 was faster up to 2^25, the largest measured (bench/README.md, "Products
    # of a few values on the host", 2026-11-29).
    "prod": (256, 32768, 1),
    # sum's, likewise in total bits, for lists of plain ints only (arrays stay on the device):
    # converting and uploading a list costs about what adding it does; the H200 from a list
    # overtook Python's sum between 2^25 and 2^27 bits (2048-bit values) and past 2^26 (64-bit);
    # Intel's runtime on 2 cores never did up to 2^28 (bench/README.md, same section).
    "sum": (32768, 262144, 1),
}


# A call of up to this many times its family's limit may run on the host as a first call
# (`rent`). At 8x the GPUs' limits one core of the 2-core EPYC took 3 ms for lcm of 512 rows of
# 1024 bits, 17-48 ms for is_prime of as many (primes cost more: `paced` stops a slow batch),
# 17 ms for a product of 2^21 bits; a first device call takes 1-10 s (bench/README.md, "First
# calls past the host limits").
FIRST_FACTOR = 8

_BOUGHT = None          # a family's entry once its device path has run in the context
_renting = threading.local()   # .on: (ctx, family) of the host call `rent` let through
_lock = threading.Lock()       # spend's read and write against bought's


def _spent(ctx) -> dict:
    """family -> seconds of host time its first calls took in ctx (_BOUGHT once the device
    ran it)."""
    return ctx.profile.cache("host_first")


def first_factor(ctx, family: str) -> int:
    """How many times its limit a call of `family` may be and still run on the host now:
    FIRST_FACTOR while ctx's first-call allowance for it is open, else 1. Closed where
    HOST_ROWS is set (it then decides alone) or HOST_FIRST_MS is 0."""
    if getattr(ctx, "is_multi", False):
        return 1
    s = ctx.profile.settings
    if s.host_rows is not None or not s.host_first_ms:
        return 1
    got = _spent(ctx).get(family, 0.0)
    return 1 if got is _BOUGHT or got * 1000 >= s.host_first_ms else FIRST_FACTOR


def left(ctx, family: str) -> float:
    """Seconds of ctx's first-call allowance left for the family (0 where it is closed)."""
    if first_factor(ctx, family) == 1:
        return 0.0
    return ctx.profile.settings.host_first_ms / 1000 - (_spent(ctx).get(family, 0.0) or 0.0)


def rent(ctx, family: str, size: float, most: float) -> bool:
    """For a call of `size` (rows, or bits in all) past its family's limit `most`: whether it
    runs on the host as a first call (then its time counts against the allowance:
    `host_path`, `spend`); where not, the device path runs (and, done, marks the family
    `bought`: `ran`)."""
    over = size / most if most else math.inf
    if over <= first_factor(ctx, family):
        _renting.on = (ctx, family)
        if profiling.active():
            profiling.note(f"{family}: {over:.1f} times its host limit, on the host as a first "
                           f"call (the device would build its kernels first; HOST_FIRST_MS)")
        return True
    return False


def bought(ctx, family: str) -> None:
    """The family's device path ran in ctx: from now on its limit alone decides."""
    if not getattr(ctx, "is_multi", False):
        c = _spent(ctx)
        if c.get(family, 0.0) is not _BOUGHT:
            with _lock:
                c[family] = _BOUGHT


def ran(family: str, result) -> None:
    """The device path of `family` returned `result` (dispatch.rows, after the host path
    declined): where it computed rows on the device (a result with rows, not made on the host
    as host_result makes them), the family is bought in the result's context."""
    r = result[0] if isinstance(result, tuple) and result else result
    if getattr(r, "on_device", True) is False:
        return
    try:
        if not len(r):
            return
    except TypeError:           # one row's int or bool (an all-int call)
        pass
    bought(getattr(r, "ctx", None) or current_context(), family)


# -- array operators' first calls (mpz.hostarrays) --------------------------------------------

#: The most rows x capacity an array operator's first call may compute on the host: 1000
#: quotients of 4096 / 2048 bits took one core of the 2-core EPYC about 2 ms, as many products
#: of 2048 bits 0.5 ms; the device's first call builds a kernel of 0.1-0.8 s on the H200.
ARRAY_RENT_BITS = 1 << 23
#: The operators whose first calls mpz.hostarrays may run on the host.
ARRAY_FAMILIES = ("add", "mul", "div", "invert", "gcd")


def keeps(ctx, vals: list, bits: int) -> bool:
    """Whether clbig.array keeps a batch's values on the host for the operators' first calls:
    a batch of exact ints within ARRAY_RENT_BITS, in a context where the first-call allowance
    of one of those operators is still open (never where HOST_ROWS is set, as in the suite)."""
    n = len(vals)
    if not n or n * bits > ARRAY_RENT_BITS or getattr(ctx, "is_multi", False):
        return False
    if all(first_factor(ctx, f) == 1 for f in ARRAY_FAMILIES):
        return False
    return set(map(type, vals)) == {int}


def buy_arrays(ctx) -> None:
    """Mark the array operators bought in ctx: for code that measures or builds their device
    path (the demo, tuning's speeds, the warm-up), whose first calls must not go to the host."""
    for f in ARRAY_FAMILIES:
        bought(ctx, f)


def renting(ctx, family: str, n: int, bits: int) -> bool:
    """Whether an array operator's call of n rows of operands up to `bits` wide runs on the
    host as a first call: its family has not run on the device in ctx, the allowance is left,
    and the call is within ARRAY_RENT_BITS. Its host time then counts (`rented`)."""
    if not n or n * bits > ARRAY_RENT_BITS or first_factor(ctx, family) == 1:
        return False
    if profiling.active():
        profiling.note(f"{family}: {n} rows of {bits} bits on the host as a first call (the "
                       f"device would build its kernels first; HOST_FIRST_MS)")
    return True


def rented(ctx, family: str, fn):
    """fn() run as a first call of `family` on the host: its time counts against ctx's
    allowance, rows read through `paced`; None where the allowance ran out during it (the
    caller then takes the device path)."""
    _renting.on = (ctx, family)
    return _charged(fn)


def _charged(fn, *args):
    """fn(*args); where it runs as a first call (`_renting.on`, set by `rent` or `rented`), its
    time counts against the allowance, and where the allowance ran out during it (`paced`),
    None."""
    t0 = time.perf_counter()
    try:
        return fn(*args)
    except _RentSpent:
        return None
    finally:
        got, _renting.on = getattr(_renting, "on", None), None
        if got is not None:
            spend(*got, time.perf_counter() - t0)


def spend(ctx, family: str, seconds: float) -> None:
    """Count a first call's host time against ctx's allowance for the family."""
    c = _spent(ctx)
    with _lock:
        got = c.get(family, 0.0)
        if got is not _BOUGHT:
            c[family] = got + seconds


class _RentSpent(Exception):
    """A rented call ran out of allowance between two rows (`paced`)."""


def paced(rows):
    """The rows, one by one; in a call `rent` let through, the allowance is checked before
    each, and once it is spent the call stops (`host_path` then hands it to the device). So
    a rented call costs at most what is left of the allowance and one row, however slow its
    rows (a batch of primes takes is_prime 25 modular powers a row)."""
    got = getattr(_renting, "on", None)
    if got is None:
        yield from rows
        return
    until = time.perf_counter() + left(*got)
    for row in rows:
        if time.perf_counter() > until:
            raise _RentSpent
        yield row


def host_path(family: str):
    """Decorate `family`'s host function (which calls `take` or `rent`): where the call ran as
    a first call (`rent`), its time counts against the allowance, and where the allowance ran
    out during it (`paced`), it returns None: the device path runs. The context is opened
    first, so that a process's first call is not charged for it (0.1 s and more). The
    function's `family` tells dispatch.rows whose device path follows (`ran`)."""
    def deco(fn):
        @functools.wraps(fn)
        def call(*args):
            current_context()
            _renting.on = None
            return _charged(fn, *args)
        call.family = family
        return call
    return deco


def plain_rows(x) -> int:
    """0 for an int, the length of a non-empty list or tuple of ints, else -1 (bools are not
    ints here, as everywhere in clbig)."""
    t = type(x)
    if t is int:
        return 0
    if (t is list or t is tuple) and x and all(type(v) is int for v in x):
        return len(x)
    return -1


def capacity(x) -> int:
    """The capacity clbig's coercion gives the plain operand x (mpz.coerce): an int's own bit
    length (at least 1); a list's widest magnitude in whole 32-bit limbs (at least one)."""
    if type(x) is int:
        return max(1, abs(x).bit_length())
    widest = max(abs(v).bit_length() for v in x)
    return 32 * max(1, -(-widest // 32))


def plain_within(x, most_bits: float) -> bool:
    """x is a non-empty list or tuple of ints (bools are not) whose length times its capacity
    (`capacity`'s rule) is at most most_bits: a sum's or product's host limit. The values are
    read only until that is decided, so a long or wide batch bound for the device is not read
    twice (a million 64-bit ints: 80 ms of Python)."""
    if type(x) not in (list, tuple) or not x:
        return False
    n, widest = len(x), 32
    if n * widest > most_bits:
        return False
    for v in x:
        if type(v) is not int:
            return False
        b = v.bit_length()
        if b > widest:
            widest = 32 * -(-b // 32)
            if n * widest > most_bits:
                return False
    return True


def limit(ctx, family: str, bits: int = 1024) -> int:
    """How many rows of plain ints of up to `bits` bits `family` computes on the host on
    ctx's device: HOST_ROWS where set, else LIMITS scaled to the width (a group of devices:
    the least of its devices')."""
    if getattr(ctx, "is_multi", False):
        return min(limit(c, family, bits) for c in ctx.contexts)
    s = ctx.profile.settings
    if s.host_rows is not None:
        return s.host_rows
    gpu, cpu, power = LIMITS[family]
    return int((gpu if P.is_gpu(ctx) else cpu) * (1024 / max(bits, 1024)) ** power)


def take(family: str, operands: tuple):
    """(ctx, columns) where `operands` are plain and at most `family`'s host limit of rows
    (columns: one list of n ints per operand, broadcast), else None. (A call of plain ints
    alone reaches the families as one-element lists: coerce.scalar_call.)"""
    ctx = current_context()
    if getattr(ctx, "is_multi", False):
        return None
    ceiling = limit(ctx, family, 0) * first_factor(ctx, family)   # the most it can be
    if any(type(x) in (list, tuple) and len(x) > ceiling for x in operands):
        return None                     # a long batch, before its values are read
    lens = [plain_rows(x) for x in operands]
    if -1 in lens:
        return None
    n = max(lens) or 1
    if any(k > 1 and k != n for k in lens):
        return None                     # lengths the device path refuses, with its message
    most = limit(ctx, family, max(capacity(x) for x in operands))
    if n > most and not rent(ctx, family, n, most):
        return None
    cols = [[x] * n if k == 0 else list(x) * n if k == 1 else list(x) for x, k in zip(operands, lens)]
    if profiling.active() and n <= most:
        profiling.note(f"{family}: {n} rows of plain ints on the host, gmpy2 on this thread (at "
                       f"most {most} there: a launch on {ctx.name} costs more; HOST_ROWS)")
    return ctx, cols
