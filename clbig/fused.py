"""clbig.fused: the fused benchmark expressions (clbig.fused.six_add, .poly). The module lives in clbig.mpz.fused; this name is kept for the
code and pickles that use it."""
import sys as _sys

from .mpz import fused as _module

_sys.modules[__name__] = _module
