"""BigIntArray's repr: a few elements, huge ones abbreviated, and never an exception.

Python refuses str() of ints beyond sys.get_int_max_str_digits() decimal digits (4300 by
default), and a batch may hold millions of values: repr downloads at most six rows (gathered
on the device) and writes a value of more than 256 bits as its size and its leading and
trailing hexadecimal digits (hex() has no digit limit)."""
from __future__ import annotations

import numpy as np

from . import rowops

SHOWN = 6        # at most this many elements: the first and last three of a longer batch
DIGITS_UP_TO = 256   # bits; larger values are abbreviated


def shown(v: int) -> str:
    """v in decimal, or abbreviated as `-<N-bit int 0x1234abcd...89abcdef>` beyond 256 bits."""
    bl = abs(v).bit_length()
    if bl <= DIGITS_UP_TO:
        return str(v)
    m = abs(v)
    top = m >> (bl - 32)
    low = m & 0xFFFFFFFF
    return f"{'-' if v < 0 else ''}<{bl}-bit int 0x{top:x}...{low:08x}>"


def bigint_repr(x) -> str:
    try:
        n = len(x)
        if n <= SHOWN:
            vals, gap = x.tolist(), False
        else:
            k = SHOWN // 2
            vals, gap = rowops.take(x, np.r_[0:k, n - k:n]).tolist(), True
        parts = [shown(v) for v in vals]
        if gap:
            parts.insert(SHOWN // 2, "...")
        return f"BigIntArray([{', '.join(parts)}], n={n}, bits={x.bits})"
    except Exception as e:   # repr must not raise (a debugger or a traceback calls it)
        return f"<BigIntArray bits={getattr(x, 'bits', '?')}: values unavailable ({type(e).__name__})>"
