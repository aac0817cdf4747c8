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
import numbers

import numpy as np

from ..runtime.devices import current_context
from . import hooks, hostrows
from .array import BigIntArray
from .types import MPZ

def _plain(x) -> bool:
    """An argument of an all-int call: an integer (int, gmpy2 mpz, numpy integer; not a bool)
    or an option (a string, None)."""
    return (isinstance(x, (numbers.Integral, MPZ, str)) or x is None) and not isinstance(x, (bool, np.bool_))


def scalar(r):
    """The result of an all-int call as Python scalars: a one-element BigIntArray as an int, a
    one-element numpy array as its int or bool, tuples element by element."""
    if isinstance(r, tuple):
        return tuple(scalar(x) for x in r)
    if isinstance(r, BigIntArray) and len(r) == 1:
        return int(r.tolist()[0])
    if isinstance(r, np.ndarray) and r.shape == (1,):
        return r[0].item()
    return r


def rows(family: str, fast=None):
    """Mark a user-facing operation as elementwise over rows (see the module doc). A call
    whose arguments are all plain integers (options aside) returns Python ints (bools, tuples
    of them), as Python's own operators and gmpy2 do.

    `fast`, where given, is tried first on positional calls: it answers a case it can finish
    without the dispatch below (a few rows of host values, say) and returns None otherwise."""
    host = getattr(fast, "family", None)    # whose first-call allowance the device path ends

    def deco(fn):
        @functools.wraps(fn)
        def call(*args, **kw):
            if fast is not None and not kw:
                got = fast(*args)
                if got is not None:
                    return got
            out = device(*args, **kw)
            if host is not None:
                hostrows.ran(host, out)
            return out

        def device(*args, **kw):
            if args and _plain(args[0]) and all(map(_plain, args)) and all(map(_plain, kw.values())) \
                    and not isinstance(args[0], str):
                ctx = current_context()
                if getattr(ctx, "is_multi", False):   # one row: the group's fastest device
                    with ctx.contexts[ctx.fastest(family)]:
                        return scalar(fn(*args, **kw))
                return scalar(fn(*args, **kw))
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
