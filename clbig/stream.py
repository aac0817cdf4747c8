"""clbig.stream: streaming through one device (clbig.stream.host). The module lives in clbig.scale.stream; this name is kept for the
code and pickles that use it."""
import sys as _sys

from .scale import stream as _module

_sys.modules[__name__] = _module
