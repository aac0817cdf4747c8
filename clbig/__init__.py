"""clbig: exact arithmetic on batches of big integers, computed by OpenCL kernels."""
from .array import BigIntArray, array, from_limbs, pinned_empty
from .devices import Context, DeviceInfo, SetupError, current_context, devices
from .profiling import profile
from .ops import add, add_fixed, compare, mul, mul_low, shift_left, shift_right, sub, sub_fixed
from .ops import divmod, floordiv, isqrt, mod
from .modular import Modulus, mulmod, powmod
from .gcd import gcd, invert
from .construct import concatenate, full, where, zeros
from .reduce import argmax, argmin, argsort, max, min, prod, sort, sum
from . import fused

__version__ = "0.1.0"
__all__ = [
    "BigIntArray", "Context", "DeviceInfo", "SetupError", "add", "add_fixed", "array", "compare",
    "current_context", "devices", "from_limbs", "pinned_empty", "Modulus", "gcd", "invert", "mulmod", "powmod", "mul", "mul_low", "profile", "shift_left", "shift_right", "sub", "sub_fixed",
    "floordiv", "isqrt", "mod",  # clbig.divmod too, left out of * so it does not shadow the builtin
    "zeros", "full", "concatenate", "where", "prod", "sort", "argsort", "argmin", "argmax",
    # clbig.sum, clbig.min, clbig.max too, left out of * as divmod is (they shadow builtins)
]
