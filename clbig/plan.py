"""Launch geometry from the device's real limits.

A batch kernel runs IPB instances per work-group, each spread over IPI work-items holding Q
limbs apiece ("efficient sequentialisation"). When one instance does not fit a work-group the
plan switches to a multi-group path over G blocks of IPI*Q limbs.
"""
from __future__ import annotations

from dataclasses import dataclass

WORD = 4  # bytes per limb


@dataclass(frozen=True)
class Plan:
    mode: str  # "single" or "multi"
    Q: int
    IPI: int
    IPB: int
    G: int = 1

    @property
    def work_group(self) -> int:
        return self.IPB * self.IPI

    def groups(self, n: int) -> int:
        if self.mode == "single":
            return -(-n // self.IPB)
        return n * self.G


def padded_words(k: int) -> int:
    return k + (k >> 5) + 1


def ceil_div(a: int, b: int) -> int:
    return -(-a // b)


def next_pow2(k: int) -> int:
    return 1 << max(0, (k - 1).bit_length())


def scan_plans(ctx, m: int, n: int, stage_buffers: int = 1, q_options=(4, 8, 16),
               target_items: int = 256):
    """Plans for map–scan kernels (add, sub, compare) over instances of m limbs, best first;
    the caller moves on when a built kernel turns out not to fit (DoesNotFit)."""
    max_items = ctx.max_items
    lmem = ctx.local_mem

    def local_bytes(wg, q):
        return WORD * (stage_buffers * padded_words(wg * q) + wg + 4)

    q_small = min(q_options[0], next_pow2(m))
    for q in (q_small,) + tuple(x for x in q_options if x > q_small):
        ipi = ceil_div(m, q)
        if ipi <= max_items and local_bytes(ipi, q) <= lmem:
            ipb = max(1, min(target_items // ipi, n))
            while ipb > 1 and local_bytes(ipb * ipi, q) > lmem:
                ipb //= 2
            yield Plan("single", q, ipi, ipb)
            if ipb > 1:
                yield Plan("single", q, ipi, 1)
    q = q_options[-1]
    ipi = min(max_items, target_items)
    while ipi > 1:
        if local_bytes(ipi, q) <= lmem:
            yield Plan("multi", q, ipi, 1, ceil_div(m, ipi * q))
        ipi //= 2
