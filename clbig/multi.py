"""clbig.multi: several devices as one context. Devices lives in clbig.runtime.devices and the
split arrays in clbig.scale.split; this name is kept for the code and pickles that use it."""
from .runtime.devices import MIN_SHARE, Devices  # noqa: F401
from .scale.split import (HostRows, SplitArray, array, batch_length, from_limbs_split, gather,  # noqa: F401
                          piece, shifted)
