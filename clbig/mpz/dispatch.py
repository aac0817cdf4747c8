"""How a user-facing operation meets the floors above it.

Every elementwise operation of mpz (ops, signs, modular, gcd, fused) carries `rows(family)`.
Arrays of one Context run the function as written. Anything else (arrays split over several
devices, rows kept on the host, a several-device context current, host operands larger than the
device) goes to the runner that clbig.scale installs in `hooks` when it is imported, so that mpz,
below scale, never imports it. `family` ('add', 'mul', 'div', 'mod', 'gcd') names
whose tuned speeds weigh a split.
"""
from __future__ import annotations

import functools

from . import hooks
from .array import BigIntArray

def rows(family: str):
    """Mark a user-facing operation as elementwise over rows (see the module doc)."""
    def deco(fn):
        @functools.wraps(fn)
        def call(*args, **kw):
            # The common case first, at a few hundred ns: device arrays of one Context.
            plain = False
            for x in (args + tuple(kw.values()) if kw else args):
                t = type(x)
                if t is BigIntArray:
                    plain = True
                elif isinstance(x, BigIntArray) or (t is not int and getattr(getattr(x, "ctx", None), "is_multi", False)):
                    plain = False       # an array of several devices or host rows, or a Modulus of them
                    break
            if plain or hooks.runner is None:
                return fn(*args, **kw)
            return hooks.runner.run(family, fn, args, kw)
        return call
    return deco
