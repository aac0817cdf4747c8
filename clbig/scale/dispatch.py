"""The runner clbig.scale installs into mpz (mpz.hooks): how an operation runs when its
operands are not all arrays of one Context.

- On a several-device context (a Devices current, or an operand split over one), the batch is
  cut into row ranges that run on their devices at once (split).
- Host operands larger than one device's memory stream through it in chunks (stream).
- Rows a streamed result kept on the host are uploaded before an ordinary call.
"""
from __future__ import annotations

from . import split, stream
from .split import SplitArray


class Runner:
    def run(self, family: str, fn, args, kw):
        D = split._devices_of(args, kw)
        if D is not None:
            return split._split_call(D, family, fn, args, kw)
        plan = stream.plan(args, kw)
        if plan is not None:
            return stream.run(plan, family, fn, args, kw)
        if any(isinstance(x, SplitArray) for x in (*args, *kw.values())):   # host rows
            args = [stream.on_device(x) for x in args]
            kw = {k: stream.on_device(x) for k, x in kw.items()}
        return fn(*args, **kw)

    def array(self, values, bits, ctx):
        return split.array(values, bits, ctx)

    def from_limbs(self, limbs, bits, ctx, sign):
        return split.from_limbs_split(limbs, bits, ctx, sign)
