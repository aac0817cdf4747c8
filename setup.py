"""Only the optional C extension lives here; everything else is in setup.cfg.

clbig.mpn._limbs (clbig/mpn/_limbs.c) converts batches of Python ints to limbs and back at C speed.
optional=True: where it cannot be built (no C compiler, no Python headers, an interpreter
whose int layout it does not read) the install goes on without it and clbig.mpn.convert uses its
pure-Python path, with the same results.
"""
from setuptools import Extension, setup

setup(ext_modules=[Extension("clbig.mpn._limbs", ["clbig/mpn/_limbs.c"], optional=True)])
