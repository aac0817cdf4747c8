"""Sizes and random inputs of the benchmark's batch and huge ops (clbig.bench)."""
from __future__ import annotations

import numpy as np

#: Every operand of a full-size batch holds 2**32 bits (512 MiB), whatever the size.
LOG2_BATCH_BITS = 32
DEFAULT_SIZES = tuple(range(9, 19))  # log2(bits): 512 .. 262144 bits
QUICK_SIZES = (9, 13, 17)  # --quick: few sizes, as each costs seconds of kernel builds on PoCL
DEFAULT_HUGE_SIZES = (20, 22, 24, 26)  # single huge product / division: log2(bits) per operand
QUICK_HUGE_SIZES = (13, 17, 20)  # 2^13: Huge-Div shares Div's kernels at 2^13


def parse_size(tok: str) -> int:
    """"13" (an exponent, up to 40) means 2**13 bits; a larger number is a bit count."""
    try:
        v = int(tok)
    except ValueError:
        raise ValueError(f"size {tok!r} is not an integer (an exponent like 13 or a bit count)") from None
    if v < 0:
        raise ValueError(f"size {tok!r} is negative (an exponent like 13 or a bit count)")
    bits = 1 << v if v <= 40 else v
    if bits < 32 or bits % 32:
        raise ValueError(f"size {tok!r}: bits must be a positive multiple of 32, got {bits}")
    return bits


def log2_exact(bits: int):
    return bits.bit_length() - 1 if bits & (bits - 1) == 0 else None


def batch_size(bits: int, scale: int) -> int:
    """Instances per batch: 2**32 bits per operand, divided by 2**scale; at least 1."""
    return max(1, ((1 << LOG2_BATCH_BITS) // bits) >> scale)


class HostInputs:
    """Random limbs for a and b, generated once on the host and reshaped for every size
    (n * m is the same at every power-of-two size)."""

    def __init__(self, words: int, seed: int):
        rng = np.random.default_rng(seed)
        half = (words + 1) // 2
        self.a = rng.bit_generator.random_raw(half).view(np.uint32)[:words]
        self.b = rng.bit_generator.random_raw(half).view(np.uint32)[:words]

    def for_size(self, bits: int, n: int):
        m = bits // 32
        return self.a[:n * m].reshape(n, m), self.b[:n * m].reshape(n, m)


def divisor_limbs(hb: np.ndarray) -> np.ndarray:
    """Division's divisor: the low half of b's limbs (at least one), top limb made odd so that
    no divisor is zero. Dividend of `bits` bits, divisor of bits/2 bits (issue 4's shape)."""
    d = np.array(hb[:, :max(1, hb.shape[1] // 2)], dtype=np.uint32)
    d[:, -1] |= np.uint32(1)
    return d


def huge_operands(bits: int, divisor: bool, seed: int) -> tuple:
    """Two random Python ints of exactly `bits` bits (the second of bits/2 bits for division)."""
    import random
    rng = random.Random(seed * 1_000_003 + bits)
    by = max(1, bits // 2) if divisor else bits
    x = rng.getrandbits(bits) | (1 << (bits - 1))
    y = rng.getrandbits(by) | (1 << (by - 1))
    return x, y


def human_bytes(n: int) -> str:
    for unit, sh in (("GiB", 30), ("MiB", 20), ("KiB", 10)):
        if n >= 1 << sh:
            return f"{n / (1 << sh):.4g} {unit}"
    return f"{n} B"

