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
with one host core (bench/README.md, "A few rows on the host"). powmod has its own rule and
setting (clbig.mpz.modular: GMP on every core, by the moduli's bits).
"""
from __future__ import annotations

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
    ceiling = limit(ctx, family, 0)     # the limit at narrow widths: the most it can be
    if any(type(x) in (list, tuple) and len(x) > ceiling for x in operands):
        return None                     # a long batch, before its values are read
    lens = [plain_rows(x) for x in operands]
    if -1 in lens:
        return None
    n = max(lens) or 1
    if any(k > 1 and k != n for k in lens):
        return None                     # lengths the device path refuses, with its message
    most = limit(ctx, family, max(capacity(x) for x in operands))
    if n > most:
        return None
    cols = [[x] * n if k == 0 else list(x) * n if k == 1 else list(x) for x, k in zip(operands, lens)]
    if profiling.active():
        profiling.note(f"{family}: {n} rows of plain ints on the host, gmpy2 on this thread (at "
                       f"most {most} there: a launch on {ctx.name} costs more; HOST_ROWS)")
    return ctx, cols
