"""Known-answer checks of built kernels: a device's compiler at fault is noticed before it gives
a wrong value (issue #33).

Intel's CPU runtime for OpenCL (2026.22.10) miscompiled the gcd kernel (reads through a
pointer chosen per work-item into a private array it had transposed across the vectorised
work-items; kernels_cl/gcd.cl.mako no longer has such a pointer, see the comment there and
docs/devices.rst). Valid OpenCL C, so nothing in the source warns of the next such fault. A
family whose kernels run a data-dependent algorithm per work-item (the binary gcd) therefore
checks each specialisation once per context, when it is first built, on a batch of inputs
whose answers the host computes, and tries its alternatives (another storage of the same
kernel) where one is wrong; where every alternative is wrong the family is refused on that
device with an error naming the device, the specialisation and the first wrong answer.

`checked(ctx, key, candidates)` is the mechanism, family-neutral; the families supply the
candidates and their checks (clbig/mpn/gcd_n.py).
"""
from __future__ import annotations

import warnings

from . import config
from .memo import memo


class KernelFault(RuntimeError):
    """A device's compiler miscompiles a kernel family: clbig refuses that family there.

    Families whose kernels run a data-dependent algorithm per work-item (the binary gcd
    behind `clbig.gcd`, `clbig.invert`, ...) check each kernel specialisation once per
    context, when it is first built, on inputs whose answers the host computes, and try the
    alternatives (another storage of the same kernel) where one is wrong, with a warning.
    Where every build gives a wrong known answer, the operation raises KernelFault instead of
    returning wrong values; the message names the device, the specialisation and the first
    wrong answer. Another device (the DEVICE setting, or ``clbig.Context(...)``) may run it.
    Intel's CPU runtime 2026.22.10 miscompiled the gcd kernel so (fixed in clbig's source
    since; see the Devices page).

    Examples
    --------
    >>> import clbig
    >>> issubclass(clbig.KernelFault, RuntimeError)
    True
    >>> try:
    ...     g = clbig.gcd([12, 18], [8, 27])
    ... except clbig.KernelFault as e:   # this device's compiler is at fault
    ...     print("choose another device:", e)
    ... else:
    ...     print(g.tolist())
    [4, 9]
    """


def checked(ctx, key: tuple, candidates):
    """The plan of the first candidate whose known answers are right, once per context and key.

    candidates: (label, make, check) in order of preference; make() builds a plan (it may raise
    render.DoesNotFit, which passes), check(plan) runs the plan on known answers and returns
    None where every one is right, else a description of the first wrong one. A candidate
    other than the first is warned about; KernelFault where none is right. The outcome, a plan
    or the refusal, is kept in the context's memo (render.memo), so later calls cost a lookup.
    """
    plans = memo(ctx)
    mkey = ("kernel_check",) + tuple(key)
    got = plans.get(mkey)
    if got is None:
        got = plans[mkey] = _first_right(ctx, key, candidates)
    if isinstance(got, KernelFault):
        raise KernelFault(*got.args)
    return got


def _first_right(ctx, key, candidates):
    wrong = []
    for label, make, check in candidates:
        plan = make()
        fault = check(plan)
        if fault is None:
            if wrong:
                warnings.warn(f"clbig: {key[0]} on {ctx.name}: {'; '.join(wrong)}; using {label}",
                              RuntimeWarning, stacklevel=4)
            return plan
        wrong.append(f"{label} gave a wrong known answer ({fault})")
    return KernelFault(f"{key[0]} is refused on {ctx.name}: its compiler miscompiles the kernel "
                       f"{key[1:]}: {'; '.join(wrong)}. Choose another device ({config.var('DEVICE')}).")


__all__ = ["checked", "KernelFault"]
