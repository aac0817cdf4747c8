"""Sphinx configuration for clbig's documentation.

Build: `sphinx-build -W -b html docs <out>` (warnings are errors). tests/test_docs.py builds
it so and runs every `>>>` example of the docs and the README with the stdlib's doctest.

The settings page's table comes from clbig's settings table (clbig.runtime.config) through
the `clbig-settings` directive.

The API page lists clbig's functions by topic through the `clbig-api` directive below, which
documents a name only where `clbig.<name>` (or a fallback path) exists when the docs are
built, and a last `clbig-api-rest` section that catches every public name of `clbig.__all__`
no topic lists, so the page neither breaks when a feature is still missing nor leaves a new
one undocumented.

The docstrings are numpydoc (Parameters, Returns, Raises, Examples sections), read by
`sphinx.ext.napoleon` (numpy style only). A class is documented with the members a user calls,
listed in PUBLIC_MEMBERS below, never with `:members:` alone: Context's queues, locks, copies
and pools are clbig's internals and stay off the API page.
"""
from __future__ import annotations

import importlib
import inspect
import os
import sys

from docutils.parsers.rst import Directive
from docutils.statemachine import StringList
from sphinx.util import logging

try:   # the installed clbig (CI checks that nothing imports the checkout when one is installed)
    import clbig
except ImportError:   # not installed: document the checkout
    sys.path.insert(0, os.path.abspath(os.path.join(os.path.dirname(__file__), "..")))
    import clbig

project = "clbig"
author = "clbig contributors"
copyright = "2026, clbig contributors"
release = version = clbig.__version__

extensions = ["sphinx.ext.autodoc", "sphinx.ext.napoleon"]
napoleon_numpy_docstring = True
napoleon_google_docstring = False    # numpydoc only: a line "Args:" in prose stays prose
napoleon_use_rtype = True
html_theme = "alabaster"
exclude_patterns = ["_build"]
autodoc_member_order = "bysource"
autodoc_typehints = "none"       # signatures as written; the docstrings say the types
default_role = "literal"         # `x` in docstrings is code, as in the README
# The docstrings are numpydoc with code in backquotes (`x` is code, as in the README).
suppress_warnings = ["autodoc.import_object"]

_log = logging.getLogger(__name__)
_documented: set = set()


def _resolve(path: str):
    """clbig.<path> (a dotted path inside clbig), importing submodules on the way; None if absent."""
    obj, parts = clbig, path.split(".")
    for i, part in enumerate(parts):
        if not hasattr(obj, part):
            try:
                importlib.import_module("clbig." + ".".join(parts[: i + 1]))
            except ImportError:
                return None
        obj = getattr(obj, part, None)
        if obj is None:
            return None
    return obj


#: The members a user calls, per class (by its name): the API page shows these and no others.
#: A class not listed here is documented by its own docstring alone.
PUBLIC_MEMBERS = {
    "BigIntArray": ["to_limbs", "tolist", "bit_length", "sign", "bit_count", "copy", "trim",
                    "sum", "prod", "min", "max", "argmin", "argmax", "sort", "argsort"],
    "Context": ["all", "group", "name", "finish", "free_memory", "pinned_empty"],
    "DeviceInfo": ["label"],
    "Modulus": [],
    "KernelFault": [],
    "SetupError": [],
    "Profile": ["seconds", "kernels"],
}


def _directive_for(path: str, obj) -> list:
    if inspect.isclass(obj):
        members = [m for m in PUBLIC_MEMBERS.get(obj.__name__, []) if hasattr(obj, m)]
        return [f".. autoclass:: clbig.{path}"] + (
            [f"   :members: {', '.join(members)}"] if members else []) + [""]
    return [f".. autofunction:: clbig.{path}", ""]


class ClbigApi(Directive):
    """`.. clbig-api:: name name|fallback.path ...`: autodoc for each name that exists."""
    has_content = False
    required_arguments = 1
    optional_arguments = 100

    def run(self):
        lines = []
        for arg in self.arguments:
            for path in arg.split("|"):
                obj = _resolve(path)
                if obj is not None and not inspect.ismodule(obj):
                    lines += _directive_for(path, obj)
                    _documented.add(path.split(".")[-1])
                    break
            else:
                _log.info(f"clbig-api: clbig has no {arg!r} at this build; not documented")
        self.state_machine.insert_input(StringList(lines, source="clbig-api"), "clbig-api")
        return []


class ClbigApiRest(Directive):
    """Every callable or class of clbig.__all__ that no clbig-api directive documented."""
    has_content = False

    def run(self):
        rest = [n for n in sorted(getattr(clbig, "__all__", []))
                if n not in _documented and not inspect.ismodule(getattr(clbig, n, None))]
        lines = []
        for n in rest:
            lines += _directive_for(n, getattr(clbig, n))
        if not lines:
            lines = ["Every public name of ``clbig`` is listed above.", ""]
        self.state_machine.insert_input(StringList(lines, source="clbig-api-rest"), "clbig-api-rest")
        return []


class ClbigModule(Directive):
    """`.. clbig-automodule:: name`: automodule of clbig.<name> with its members where it
    imports (an optional dependency such as dask may be missing), else a note saying so."""
    has_content = False
    required_arguments = 1

    def run(self):
        name = self.arguments[0]
        try:
            importlib.import_module("clbig." + name)
            lines = [f".. automodule:: clbig.{name}", "   :members:", ""]
        except ImportError as e:
            lines = [f".. note:: ``clbig.{name}`` could not be imported when these pages were "
                     f"built ({e}); install its extra to use it.", ""]
        self.state_machine.insert_input(StringList(lines, source="clbig-automodule"), "clbig-automodule")
        return []


def settings_table(tests_only: bool) -> list:
    """reST list-table lines of clbig's settings: the user's (tests_only False) or those for
    tests, tuning and benchmarks."""
    from clbig.runtime import config
    lines = [".. list-table::", "   :header-rows: 1", "   :widths: 28 14 12 46", "",
             "   * - variable", "     - kind", "     - default", "     - what it does"]
    for s in config.SETTINGS.values():
        if s.tests_only != tests_only:
            continue
        kind = s.kind + (": " + " | ".join(s.choices) if s.choices else "")
        shown = config._shown(s.default)
        default = ("chosen by clbig" if s.default is None else "none" if shown == "(none)"
                   else f"``{shown}``")
        lines += [f"   * - ``{s.var}``", f"     - {kind}", f"     - {default}",
                  "     - " + s.doc.replace("*", "\\*")]
    return lines + [""]


class ClbigSettings(Directive):
    """`.. clbig-settings::` the user's settings; `.. clbig-settings:: tests` those for tests,
    tuning and benchmarks."""
    has_content = False
    optional_arguments = 1

    def run(self):
        lines = settings_table(tests_only=self.arguments == ["tests"])
        self.state_machine.insert_input(StringList(lines, source="clbig-settings"), "clbig-settings")
        return []


def _plain_docstrings(app, what, name, obj, options, lines):
    """clbig's docstrings are prose with code in backquotes, sometimes with aligned tables: where
    one is not valid reST (a `*` read as emphasis, an indented table), show it as written, in a
    literal block, instead of letting docutils mangle it or warn."""
    if not lines:
        return
    from docutils.core import publish_doctree
    from docutils.utils import Reporter
    settings = {"report_level": Reporter.SEVERE_LEVEL + 1, "halt_level": Reporter.SEVERE_LEVEL + 1,
                "warning_stream": False, "default_role": "literal"}
    try:
        tree = publish_doctree("\n".join(lines), settings_overrides=settings)
        bad = any(m["level"] >= Reporter.WARNING_LEVEL for m in tree.traverse(
            lambda n: n.tagname == "system_message"))
    except Exception:
        bad = True
    if bad:
        lines[:] = ["::", ""] + ["    " + ln for ln in lines] + [""]


def setup(app):
    app.connect("autodoc-process-docstring", _plain_docstrings)
    app.add_directive("clbig-api", ClbigApi)
    app.add_directive("clbig-api-rest", ClbigApiRest)
    app.add_directive("clbig-automodule", ClbigModule)
    app.add_directive("clbig-settings", ClbigSettings)
