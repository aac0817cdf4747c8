"""clbig: exact arithmetic on batches of big integers, computed by OpenCL kernels.

The package is built in floors, each importing only the floors below it: runtime (devices,
settings, kernel rendering and caches), mpn (limb-vector algorithms), mpz (BigIntArray and the
integer operations), scale (several devices, streaming, Dask). This module is the public face.
"""
import sys as _sys

from .runtime.devices import Context, DeviceInfo, SetupError, current_context, devices
from .runtime.kernel_check import KernelFault
from .runtime.profiling import profile
from .mpz.array import BigIntArray, array, from_limbs, pinned_empty
from .mpz.rows import tolist
from .mpz.ops import add, add_fixed, compare, mul, mul_low, shift_left, shift_right, sub, sub_fixed
from .mpz.ops import divmod, floordiv, mod
from .mpz.powers import isqrt
from .mpz.modular import Modulus, mulmod, powmod
from .mpz.multipow import multi_powmod
from .mpz.gcd import gcd, invert
from .mpz.construct import concatenate, full, where, zeros
from .mpz.reduce import argmax, argmin, argsort, max, min, prod, sort, sum
from .mpz import fused
from .mpz.numtheory import bit_count, gcdext, iroot, is_prime, jacobi, lcm, next_prime, prev_prime
from .mpz.rounding import c_div, c_div_2exp, divexact, f_div, f_div_2exp, t_div, t_div_2exp
from .mpz.bitfuncs import bit_clear, bit_flip, bit_scan0, bit_scan1, bit_set, bit_test, popcount
from .mpz.roots import iroot_rem, is_power, is_square, isqrt_rem
from .mpz.symbols import kronecker, legendre
from .mpz.crt import crt
from .mpz.combinatorics import binomial, fac, fib
from . import scale as _scale  # noqa: F401  (installs the several-device runner into mpz)
from .tuning.warmup import warmup

# Arrays pickled before the package had floors name clbig.array._unpickle: the module is found
# under its old name (an entry in sys.modules, so clbig.array stays the function).
_sys.modules.setdefault(__name__ + ".array", _sys.modules[__name__ + ".mpz.array"])

__version__ = "0.1.0"
__all__ = [
    "BigIntArray", "Context", "DeviceInfo", "KernelFault", "SetupError", "add", "add_fixed", "array", "compare",
    "current_context", "devices", "from_limbs", "pinned_empty", "Modulus", "gcd", "invert", "mulmod", "multi_powmod", "powmod", "mul", "mul_low", "profile", "shift_left", "shift_right", "sub", "sub_fixed",
    "divmod", "floordiv", "isqrt", "mod",  # divmod: the builtin's result on ints, so * may shadow it
    "zeros", "full", "concatenate", "where", "prod", "sort", "argsort", "argmin", "argmax",
    # clbig.sum, clbig.min, clbig.max too, left out of *: `from clbig import *` would shadow the
    # builtins, and min(x, y) or sum of floats would then fail
    "bit_count", "gcdext", "iroot", "is_prime", "jacobi", "lcm", "next_prime", "warmup",
    # gmpy2's functions users reach for next (issue 45)
    "prev_prime", "c_div", "c_div_2exp", "divexact", "f_div", "f_div_2exp", "t_div", "t_div_2exp",
    "bit_clear", "bit_flip", "bit_scan0", "bit_scan1", "bit_set", "bit_test", "popcount",
    "iroot_rem", "is_power", "is_square", "isqrt_rem", "kronecker", "legendre", "crt",
    "binomial", "fac", "fib", "tolist",
]


def __dir__():
    """The public names (the floors runtime, mpn, mpz, scale and tuning stay importable, but
    are not what `dir(clbig)` or tab completion should offer first)."""
    return sorted(n for n in set(__all__) | {"sum", "min", "max", "fused", "dask", "__version__"}
                  if n in globals())
