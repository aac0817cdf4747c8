"""Launch geometry from the device's real limits.

A batch kernel runs IPB instances per work-group, each spread over IPI work-items holding Q
limbs apiece ("efficient sequentialisation"). When one instance does not fit a work-group the
plan switches to a multi-group path over G blocks of IPI*Q limbs.
"""
from __future__ import annotations

from dataclasses import dataclass

from .memo import DoesNotFit, memoized

WORD = 4  # bytes per limb


@dataclass(frozen=True)
class Plan:
    mode: str  # "single" or "multi"
    Q: int
    IPI: int
    IPB: int
    G: int = 1
    chain: bool = False  # "rows" mode: rows are pieces of one instance (else independent)

    @property
    def work_group(self) -> int:
        return self.IPB * self.IPI

    def groups(self, n: int) -> int:
        if self.mode == "rows" and not self.chain:
            return -(-n // (self.IPB * (self.Q // 4)))
        if self.mode == "single":
            return -(-n // self.IPB)
        if self.mode == "rows":
            return n
        return n * self.G


def padded_words(k: int) -> int:
    return k + (k >> 5) + 1


def is_gpu(ctx) -> bool:
    """The context's device is a GPU (the planners' defaults differ for CPUs, whose work-items
    are loop iterations)."""
    return ctx.profile.facts.is_gpu


def ceil_div(a: int, b: int) -> int:
    return -(-a // b)


def next_pow2(k: int) -> int:
    return 1 << max(0, (k - 1).bit_length())


#: The batch classes of CPUs (batch_class): a batch of a few rows, a partial group, full ones.
CPU_BATCH_CLASSES = (8, 64)


def batch_class(ctx, n: int) -> int:
    """The batch length that launch plans sizing work-groups by the batch are made for, so that
    a loop whose batch shrinks (next_prime's candidates) builds a kernel per class, not per
    length, and a warm-up at one length of each class covers every later batch. On GPUs a full
    group whatever n: idle work-items in one group cost a GPU nothing measurable. On CPUs,
    where work-items are loop iterations, three classes: up to 8 rows, up to 64, more (at most
    8x idle items, in batches whose time is the launch's)."""
    if is_gpu(ctx):
        return ctx.max_items
    for c in CPU_BATCH_CLASSES:
        if n <= c:
            return min(c, ctx.max_items)
    return ctx.max_items


#: Widths up to this many limbs are rounded up to their class (width_class) by the kernels that
#: take their widths at run time; wider instances keep plans made for their exact width.
CLASS_MAX_LIMBS = 1024


def scratch_rows(ctx, n: int, row_bytes: int, cap: int, wg: int = 16) -> tuple[int, int]:
    """(work-group, rows per launch) for n instances of one work-item each with a scratch row of
    row_bytes (the CPUs' loop kernels: mpn.mont_loop, div_basecase.divmod_loop): groups of up
    to wg items (16: Intel's runtime vectorizes 16 at once), fewer where the batch would leave
    a core without a group; launches whose scratch rows fit `cap` bytes, at least one group."""
    wg = min(wg, ctx.max_items)
    while wg > 1 and ceil_div(n, wg) < ctx.profile.facts.compute_units:
        wg //= 2
    return wg, max(wg, min(ceil_div(n, wg) * wg, cap // row_bytes // wg * wg))


def width_class(m: int) -> int:
    """The width (limbs) that launch plans of run-time-width kernels are made for, so that a
    loop whose capacity grows, or a routine passing widths a limb apart (gcdext's m, m + 1,
    2m + 1), builds one kernel per class, not per width (issue 43). A multiple of 4 limbs whose
    quarter (the work-items of an instance at 4 limbs each) is exact up to 4 and then takes 4
    steps per octave (5, 6, 7, 8, 10, 12, 14, 16, 20, ...): at most a quarter more items,
    which on GPUs are idle lanes of one group."""
    if m > CLASS_MAX_LIMBS:
        return m
    items = ceil_div(max(m, 1), 4)
    step = max(1, next_pow2(items) // 8)
    return 4 * ceil_div(items, step) * step


def scan_plans(ctx, m: int, n: int, stage_buffers: int = 1, q_options=None,
               target_items: int = 256, chained: bool = False) -> tuple:
    """Plans for map–scan kernels (add, sub, compare) over instances of m limbs, best first;
    the caller moves on when a built kernel turns out not to fit (DoesNotFit). Memoized per
    context: n matters only up to the work-group limit (instances per group)."""
    n = batch_class(ctx, n)   # the plans depend on n only through this
    q_options = tuple(q_options) if q_options else None
    key = ("scan_plans", m, n, stage_buffers, q_options, target_items, chained,
           ctx.profile.settings.version)   # a changed setting takes effect
    return memoized(ctx, key, lambda: tuple(_scan_plans(ctx, m, n, stage_buffers, q_options,
                                                         target_items, chained)))


def one_group(ctx, key, m: int, n: int, build):
    """(plan, kernel) of the first of scan_plans' "single" plans (an instance of m limbs within
    one work-group) whose kernel build(plan) fits this device, memoized under `key`; None
    where none does (the caller takes a multi-pass path)."""
    def first():
        for pl in scan_plans(ctx, m, max(n, 1)):
            if pl.mode != "single":
                continue
            try:
                return pl, build(pl)
            except DoesNotFit:
                continue
        return None
    return memoized(ctx, key, first)


def _scan_plans(ctx, m, n, stage_buffers, q_options, target_items, chained):
    s = ctx.profile.settings
    q_options = s.scan_q if s.is_set("scan_q") or not q_options else q_options   # the setting wins
    target_items = s.get("scan_items", target_items)
    max_items = ctx.max_items
    lmem = ctx.local_mem

    def local_bytes(wg, q):
        return WORD * (stage_buffers * padded_words(wg * q) + wg + 4)

    # Measured on an H100 (bench/README.md, "Multiplication": launch plans): Q = 4 wins for plain
    # add at every size, up to 1024 work-items and then on the multi-group path; kernels that
    # chain several scans (6-Add) prefer instances within target_items work-items.
    q_small = min(q_options[0], next_pow2(m))
    qs = (q_small,) + tuple(x for x in q_options if x > q_small)
    if chained:  # 6-Add on an H100: Q = 8 up to 2^16 bits, then the smallest Q within 256 items
        floor_q = min(8, next_pow2(m))
        qs = ([q for q in qs if q >= floor_q and ceil_div(m, q) <= target_items]
              + [q for q in qs if q < floor_q or ceil_div(m, q) > target_items])
    else:
        qs = qs[:1]
    for q in qs:
        ipi = ceil_div(m, q)
        if ipi <= max_items and local_bytes(ipi, q) <= lmem:
            ipb = max(1, min(min(target_items, max_items) // ipi, n))   # n: batch_class's
            while ipb > 1 and local_bytes(ipb * ipi, q) > lmem:
                ipb //= 2
            yield Plan("single", q, ipi, ipb)
            if ipb > 1:
                yield Plan("single", q, ipi, 1)
    q = q_options[0]
    ipi = min(max_items, target_items)
    while ipi > 1:
        if local_bytes(ipi, q) <= lmem:
            yield Plan("multi", q, ipi, 1, ceil_div(m, ipi * q))
        ipi //= 2


def is_square(ctx, a, sa: int, ma: int, b, sb: int, mb: int) -> bool:
    """Both operands are the same limbs (x * x): one buffer, same stride and length. Squares
    take about half the work (the NO_SQUARE setting multiplies them as any two operands)."""
    if ctx.profile.settings.no_square:
        return False
    same = a is b or (getattr(a, "int_ptr", None) is not None
                      and getattr(a, "int_ptr", None) == getattr(b, "int_ptr", None))
    return same and sa == sb and ma == mb


def few(ctx, n: int) -> bool:
    """Too few instances to fill the device with one work-group each (latency-bound launches)."""
    return n < 4 * ctx.profile.facts.compute_units
