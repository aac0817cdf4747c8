"""A context's memo of launch plans and chosen kernels, kept beside its built programs."""
from __future__ import annotations


class DoesNotFit(MemoryError):
    """A kernel specialisation exceeds this device's limits; the caller plans another path.
    Where none is left (a context capped below OpenCL's 1 KiB of local memory), the user gets
    it as the MemoryError it is, naming the kernel and the limit."""


# The key in ctx._programs under which `memo` keeps a context's launch plans: the same shape
# as a kernel's key (template, name, parameters), so tools that walk _programs still can, and
# a new generation of kernels (render.PROGRAMS_MAX) starts with no plans: the old plans hold
# the old generation's kernels, which are freed with them.
_MEMO = ("", "memo", ())


def memo(ctx) -> dict:
    """This context's memo of launch plans and chosen kernels (issue 14: planning a launch cost
    10-30 µs of Python per call). Keys are tuples naming the planner first and then everything
    its choice depends on (sizes, strides, batch-size class, settings read at plan
    time); values are complete, immutable results stored in one assignment, so threads sharing
    the context at worst compute one twice and never see half of one."""
    m = ctx._programs.get(_MEMO)
    if m is None:
        m = ctx._programs.setdefault(_MEMO, {})
    return m


_MISSING = object()


def memoized(ctx, key: tuple, make):
    """memo(ctx)[key], made by make() the first time (any value, None and False included)."""
    plans = memo(ctx)
    got = plans.get(key, _MISSING)
    if got is _MISSING:
        got = plans[key] = make()
    return got
