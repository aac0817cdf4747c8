"""clbig.dask: batches as Dask arrays. The module lives in clbig.scale.dask; this name is kept for the
code and pickles that use it."""
import sys as _sys

from .scale import dask as _module

_sys.modules[__name__] = _module
