"""The public surface (issue 37): every public function and class of `clbig` has type hints and
a numpydoc docstring whose examples run.

1. Functions (every name of `clbig.__all__`, the builtin-shadowing `clbig.divmod`, `clbig.sum`,
   `clbig.min`, `clbig.max`, and the scale-out names the API page documents): every parameter
   and the return annotated; a docstring with the sections Parameters (when there are
   parameters), Returns, Raises and Examples.
2. Classes: a docstring with Examples; every public method or property (no leading
   underscore, defined in clbig) has a docstring.
3. Every docstring example of those names runs and prints what it shows (doctest, ELLIPSIS |
   NORMALIZE_WHITESPACE), one test per name, so a failure names the function.
4. `dir(clbig)` offers every name of `__all__` and no module but the deliberate subpackage
   entries (`fused`, `dask`); `clbig/py.typed` ships with the package (PEP 561).
"""
from __future__ import annotations

import doctest
import importlib
import inspect
import re
import types
from pathlib import Path

import pytest

import clbig

FLAGS = doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE
SHADOWING = ["divmod", "sum", "min", "max"]          # public, left out of * on purpose
# Documented on the API page beside the clbig namespace (several devices, streaming, timing).
EXTRA = {"Devices": "clbig.runtime.devices.Devices", "SplitArray": "clbig.scale.split.SplitArray",
         "host": "clbig.scale.stream.host", "Profile": "clbig.runtime.profiling.Profile"}
# clbig.crypto (issue 46), where its optional libraries are installed (the test extra has them)
try:
    import cryptography  # noqa: F401
    import phe  # noqa: F401
except ImportError:
    pass
else:
    EXTRA.update({f"paillier.{n}": f"clbig.crypto.paillier.{n}"
                  for n in ("encrypt", "decrypt", "decrypt_raw", "add", "sum", "dot", "matmul")})
    EXTRA.update({f"rsa.{n}": f"clbig.crypto.rsa.{n}" for n in ("private", "public")})
MODULES_ALLOWED = {"fused", "dask"}


def _extra(path: str):
    mod, _, name = path.rpartition(".")
    return getattr(importlib.import_module(mod), name)


def _public() -> dict:
    names = {n: getattr(clbig, n) for n in list(clbig.__all__) + SHADOWING}
    names.update({n: _extra(p) for n, p in EXTRA.items()})
    return names


PUBLIC = _public()
NAMES = sorted(PUBLIC)
FUNCTIONS = [n for n in NAMES if not inspect.isclass(PUBLIC[n])]
CLASSES = [n for n in NAMES if inspect.isclass(PUBLIC[n])]


def _sections(doc: str) -> set:
    """The numpydoc section titles of a docstring: a line followed by a line of dashes as long."""
    lines = inspect.cleandoc(doc).splitlines()
    return {a.strip() for a, b in zip(lines, lines[1:])
            if a.strip() and re.fullmatch(r"-{3,}", b.strip()) and len(b.strip()) == len(a.strip())}


@pytest.mark.parametrize("name", FUNCTIONS)
def test_function_annotated(name):
    fn = PUBLIC[name]
    sig = inspect.signature(fn)         # follows functools.wraps (the rows decorator)
    missing = [p.name for p in sig.parameters.values() if p.annotation is inspect.Parameter.empty]
    assert not missing, f"clbig.{name}: parameters without a type hint: {missing}"
    assert sig.return_annotation is not inspect.Signature.empty, f"clbig.{name}: no return type hint"


@pytest.mark.parametrize("name", FUNCTIONS)
def test_function_docstring_sections(name):
    fn = PUBLIC[name]
    doc = inspect.getdoc(fn) or ""
    assert doc, f"clbig.{name} has no docstring"
    want = ["Returns", "Raises", "Examples"]
    if inspect.signature(fn).parameters:
        want.insert(0, "Parameters")
    have = _sections(doc)
    lacking = [s for s in want if s not in have]
    assert not lacking, f"clbig.{name}: docstring lacks the section(s) {lacking} (has {sorted(have)})"


def _own_members(cls) -> dict:
    """Public methods and properties of cls that clbig defines (not object's, not numpy's)."""
    out = {}
    for n in dir(cls):
        if n.startswith("_"):
            continue
        a = inspect.getattr_static(cls, n)
        f = a.fget if isinstance(a, property) else getattr(a, "__func__", a)
        if not (callable(f) or isinstance(a, property)):
            continue                    # a class constant
        if not (getattr(f, "__module__", "") or "").startswith("clbig"):
            continue
        out[n] = a.__doc__ if isinstance(a, property) else getattr(f, "__doc__", None)
    return out


@pytest.mark.parametrize("name", CLASSES)
def test_class_docstrings(name):
    cls = PUBLIC[name]
    doc = cls.__doc__ or ""
    assert "Examples" in _sections(doc), f"clbig.{name}: class docstring lacks an Examples section"
    bare = [m for m, d in _own_members(cls).items() if not (d or "").strip()]
    assert not bare, f"clbig.{name}: public members without a docstring: {bare}"


def _examples(obj, name: str) -> list:
    finder = doctest.DocTestFinder(recurse=inspect.isclass(obj), exclude_empty=True)
    tests = finder.find(obj, name, globs={"clbig": clbig})
    if inspect.isclass(obj):        # the class and the members it defines itself
        tests = [t for t in tests if t.name == name or t.name.split(".")[-1] in _own_members(obj)]
    return tests


@pytest.mark.parametrize("name", NAMES)
def test_docstring_examples_run(name):
    obj = PUBLIC[name]
    tests = _examples(obj, name)
    assert any(t.examples for t in tests), f"clbig.{name}: no >>> example in its docstring"
    runner = doctest.DocTestRunner(optionflags=FLAGS, verbose=False)
    for t in tests:
        runner.run(t)
    res = runner.summarize(verbose=False)
    assert res.failed == 0, f"clbig.{name}: {res.failed} of {res.attempted} examples failed (output above)"


def test_dir_lists_the_public_names_only():
    listed = dir(clbig)
    assert not set(clbig.__all__) - set(listed), set(clbig.__all__) - set(listed)
    mods = [n for n in listed if isinstance(getattr(clbig, n, None), types.ModuleType)]
    assert set(mods) <= MODULES_ALLOWED, f"dir(clbig) offers modules {sorted(set(mods) - MODULES_ALLOWED)}"
    for n in SHADOWING:
        assert n in listed


def test_py_typed_ships():
    assert (Path(clbig.__file__).parent / "py.typed").is_file()
