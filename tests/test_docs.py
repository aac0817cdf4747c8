"""The README and the Sphinx docs: every `>>>` example runs and prints what the page shows, and
the docs build without a warning.

1. `doctest.testfile` on README.md and on every docs/*.rst (ELLIPSIS | NORMALIZE_WHITESPACE),
   in the interpreter running the tests (so against the installed clbig, on the default device
   or CLBIG_DEVICE). In the README, examples sit in ```python fences; the fence lines are read
   as blank lines, so that a closing fence ends an example's expected output.
2. `sphinx-build -W -b html docs <tmp>` in a subprocess (autodoc imports clbig there too).
   Needs the `test` extra's sphinx: without it the build test is skipped, or fails when the CI
   environment variable is set.
"""
from __future__ import annotations

import doctest
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
DOCS = ROOT / "docs"
PAGES = [ROOT / "README.md"] + sorted(DOCS.glob("*.rst"))
FLAGS = doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE
FENCE = re.compile(r"^[ \t]*```.*$", re.MULTILINE)


class MarkdownParser(doctest.DocTestParser):
    """Doctests in Markdown: a fence line (```) is blank to doctest, so it ends the output
    expected of the example above it instead of being part of it. Line numbers are kept."""

    def parse(self, string, name="<string>"):
        return super().parse(FENCE.sub("", string), name)


def test_pages_have_examples():
    assert (ROOT / "README.md").exists() and (DOCS / "conf.py").exists()
    parser = doctest.DocTestParser()
    for page in PAGES[:2]:   # the README and the first docs page both show running code
        examples = parser.get_examples(page.read_text(encoding="utf-8"))
        assert examples, f"{page.name} has no >>> example"


@pytest.mark.parametrize("page", PAGES, ids=[p.name for p in PAGES])
def test_examples_run(page):
    parser = MarkdownParser() if page.suffix == ".md" else doctest.DocTestParser()
    result = doctest.testfile(str(page), module_relative=False, parser=parser, optionflags=FLAGS,
                              encoding="utf-8", verbose=False, report=True)
    assert result.failed == 0, f"{page.name}: {result.failed} of {result.attempted} examples failed (see the output above)"


def test_sphinx_builds_without_warnings(tmp_path):
    try:
        import sphinx  # noqa: F401
    except ImportError:
        msg = "sphinx is not installed (pip install '.[test]')"
        if os.environ.get("CI"):
            pytest.fail(msg)
        pytest.skip(msg)
    cmd = [sys.executable, "-m", "sphinx", "-W", "--keep-going", "-q", "-b", "html",
           "-d", str(tmp_path / "doctrees"), str(DOCS), str(tmp_path / "html")]
    run = subprocess.run(cmd, capture_output=True, text=True, cwd=tmp_path)
    assert run.returncode == 0, f"sphinx-build failed:\n{run.stdout}\n{run.stderr}"
    assert (tmp_path / "html" / "api.html").exists()


def test_api_page_reads_without_sphinx():
    """docs/api.rst carries a table of every name its `clbig-api` directives document, made
    from the docstrings (docs/api_summary.py), so the page reads on GitHub, where the
    directives are dropped; a stale table fails here."""
    import subprocess
    import sys
    p = subprocess.run([sys.executable, str(DOCS / "api_summary.py"), "--check"], capture_output=True,
                       text=True, timeout=120, cwd=ROOT.parent)
    assert p.returncode == 0, p.stderr
    text = (DOCS / "api.rst").read_text()
    for name in ("powmod", "crt", "BigIntArray", "Context"):
        assert f"   * - ``{name}``" in text
