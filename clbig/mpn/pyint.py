"""Python ints as arrays of their own digits, without a conversion on the host.

CPython stores an int as base-2^30 digits in 32-bit words right after the object's header
(`int.__basicsize__` bytes in, `int.__itemsize__` bytes each). `int.to_bytes` and
`int.from_bytes` re-pack them one byte at a time (~1 GB/s: 8 ms each way for a 2^26-bit
integer, more than the whole product on a GPU), and gmpy2's conversions are no faster. Here the
digits are read in place and uploaded as they are, and a result's digits are written into a
freshly allocated int; the device re-cuts 30-bit digits to 32-bit limbs and back
(kernels_cl/radix.cl.mako).

The layout is checked once, on values whose digits are known, before the fast path is used;
any other interpreter, digit size, or a failed check (or the SLOW_INTS setting) leaves `usable()`
false and callers use to_bytes/from_bytes.
"""
from __future__ import annotations

import sys

import numpy as np

from ..runtime import config

DIGIT_BITS = 30
_OFFSET = getattr(int, "__basicsize__", 0)
_usable: bool | None = None


def ndigits(bits: int) -> int:
    return -(-bits // DIGIT_BITS)


class _Digits:
    """An int's digits as numpy sees them; the array made from it keeps it (as its base), and
    so the int, alive: a non-blocking upload holds the array until the copy is done."""

    def __init__(self, x: int, nd: int, writable: bool):
        self.x = x
        self.__array_interface__ = {"shape": (nd,), "typestr": "<u4", "version": 3,
                                    "data": (id(x) + _OFFSET, not writable)}


def _view(x: int, nd: int, writable: bool = True) -> np.ndarray:
    return np.asarray(_Digits(x, nd, writable))


def digits(x: int) -> np.ndarray:
    """The base-2^30 digits of x > 0 (least significant first), a read-only view into x
    itself that keeps x alive."""
    return _view(x, ndigits(x.bit_length()), writable=False)


def blank(nd: int) -> tuple[int, np.ndarray]:
    """A new int of exactly nd digits and a writable view of them. The caller fills the view
    (top digit non-zero, every digit below 2^30) before the int is used anywhere else."""
    x = 1 << (DIGIT_BITS * nd - 1)   # a fresh object of nd digits that nothing else refers to
    return x, _view(x, nd)


def from_digits(d: np.ndarray) -> int:
    """The int whose base-2^30 digits are d (uint32, top digit non-zero)."""
    x, v = blank(len(d))
    v[:] = d
    return x


def _check() -> bool:
    if (sys.implementation.name != "cpython" or sys.int_info.bits_per_digit != DIGIT_BITS
            or sys.int_info.sizeof_digit != 4 or getattr(int, "__itemsize__", 0) != 4
            or _OFFSET < 16):
        return False
    mask = (1 << DIGIT_BITS) - 1
    for x in (2**30 + 5, 3**400, (1 << 12345) - 1, 2**200 + 12345):
        want = [(x >> (DIGIT_BITS * i)) & mask for i in range(ndigits(x.bit_length()))]
        if digits(x).tolist() != want or from_digits(np.array(want, np.uint32)) != x:
            return False
    return True


def usable() -> bool:
    """Whether this interpreter's ints can be read and written as digit arrays (and the
    SLOW_INTS setting does not forbid it)."""
    global _usable
    if _usable is None:
        _usable = _check()
    # Host code with no context at hand: the settings now (config.settings(), one read per
    # call, so tests that switch SLOW_INTS see it at once).
    return _usable and not config.settings().slow_ints
