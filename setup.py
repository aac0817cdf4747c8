"""Only the optional C extension lives here; everything else is in setup.cfg.

clbig.mpn._limbs (clbig/mpn/_limbs.c) converts batches of Python ints to limbs and back at C speed.
optional=True: where it cannot be built (no C compiler, no Python headers, an interpreter
whose int layout it does not read) the install goes on without it and clbig.mpn.convert uses its
pure-Python path, with the same results.

The built module is also copied beside its source in the checkout being installed (as
`build_ext --inplace` would): the README's quick start runs `python -m clbig demo` from the
repository root, where Python imports the checkout's clbig, not the installed one, and without
the copy that clbig converted in pure Python with a warning. A copy that cannot be made (a
read-only checkout, a build from an sdist's temporary folder) is skipped.
"""
import os
import shutil

from setuptools import Extension, setup
from setuptools.command.build_ext import build_ext


class build_ext_also_in_tree(build_ext):
    def run(self):
        super().run()
        if self.inplace:
            return
        for ext in self.extensions:
            built = self.get_ext_fullpath(ext.name)
            beside = os.path.join(*ext.name.split(".")[:-1], os.path.basename(built))
            if os.path.isfile(built) and os.path.isdir(os.path.dirname(beside)):
                try:
                    shutil.copyfile(built, beside)
                except OSError:
                    pass


setup(ext_modules=[Extension("clbig.mpn._limbs", ["clbig/mpn/_limbs.c"], optional=True)],
      cmdclass={"build_ext": build_ext_also_in_tree})
