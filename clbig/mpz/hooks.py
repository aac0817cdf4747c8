"""Where the floor above mpz plugs in: clbig.scale installs its runner here when imported.

mpz never imports scale (scale is built on mpz); an operation or array() that meets several
devices or host rows asks `several()` for the runner instead.
"""
from __future__ import annotations

#: clbig.scale's runner, once installed: run(family, fn, args, kw) runs an operation whose
#: operands are not all arrays of one Context; array(values, bits, ctx) and
#: from_limbs(limbs, bits, ctx, sign) make arrays on a several-device context.
runner = None


def install(r) -> None:
    global runner
    runner = r


def several():
    """The installed runner (RuntimeError if clbig.scale was never imported)."""
    if runner is None:
        raise RuntimeError("several devices need clbig.scale, which is not imported (import clbig)")
    return runner
