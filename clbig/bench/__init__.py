"""The benchmark suite for clbig: `python -m clbig.bench` (console script `clbig-bench`).

Ops, each on a batch of n random instances of `bits` bits (n = 2**32 / bits by default, so
every operand holds 512 MiB at every size):

  add   1-Add  clbig.add_fixed(a, b, bits)           GB/s over 3*n*bits/8 bytes
  add6  6-Add  clbig.fused.six_add(a, b) = 6a+10b    GB/s over the same bytes, ratio to 1-Add
  mul   1-Mul  clbig.mul_low(a, b) = a*b mod 2**bits  µs, Gu32ops/s with u32ops = n*m*m, m = bits/32
  mulc  1-Mul classical: the same with algorithm="classical"
  mulf  Mul    clbig.mul(a, b) = a*b (full product)  µs, Gu32ops/s as 1-Mul
  poly  Poly   clbig.fused.poly(a, b, fused=True) = (a·a+b)(b·b+b)+a·b mod 2**bits, one kernel   µs
  div   Div    clbig.divmod(a, b), b of bits/2 bits   µs, ratio to 1-Mul (n/a until clbig.divmod exists)

and, on one instance given as Python ints (sizes --huge-sizes):

  hmul  Huge-Mul  clbig.mul(x, y)                    device µs and wall µs (Python ints in and out)
  hdiv  Huge-Div  clbig.divmod(x, y), y of bits/2 bits

plus the device's own copy bandwidth (a large buffer-to-buffer copy, bytes read + written), and
beside every op the same computation in gmpy2 on one host thread (the "gmpy2" column and the
speed-up over it). Times are device times from OpenCL profiling events (`clbig.profile()`), the
median of at least 20 launches after a warm-up. See bench/README.md.
"""
from .suite import OPS, REFERENCES, run_device  # noqa: F401

_FROM_REPORT = ("comparison_markdown", "comparison_plots", "markdown", "plots", "to_csv")


def __getattr__(name):
    # Imported on first use, so `python -m clbig.bench.report` does not find its module
    # already imported by the package (runpy's RuntimeWarning on every run).
    if name in _FROM_REPORT:
        from . import report
        return getattr(report, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")

__all__ = ["OPS", "REFERENCES", "comparison_markdown", "comparison_plots", "main", "markdown", "plots",
           "run_device", "to_csv"]


def main(argv=None):
    from .__main__ import main as _main
    return _main(argv)
