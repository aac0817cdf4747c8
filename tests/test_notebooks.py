"""The example notebooks (examples/*.ipynb) run from top to bottom without an error.

Each notebook is executed with nbclient in a fresh `python3` kernel (the interpreter running the
tests), with CLBIG_NOTEBOOK_SMALL=1 so that its parameter cell picks small sizes, in a temporary
directory (so the kernel imports the installed clbig, not the checkout). Every notebook checks
its own results against gmpy2 / Python ints with asserts, so a wrong value fails here too.
A second test checks that the committed notebooks carry the outputs of a real run.

Needs the `test` extra's nbclient, nbformat and ipykernel: without them the tests are skipped,
or fail when the CI environment variable is set.
"""
from __future__ import annotations

import os
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
NOTEBOOKS = sorted((ROOT / "examples").glob("*.ipynb"))
TIMEOUT = int(os.environ.get("CLBIG_NOTEBOOK_TIMEOUT", "600"))  # seconds per cell


def _require(module: str):
    try:
        return __import__(module)
    except ImportError:
        msg = f"{module} is not installed (pip install '.[test]')"
        if os.environ.get("CI"):
            pytest.fail(msg)
        pytest.skip(msg)


def test_there_are_notebooks():
    names = [p.name for p in NOTEBOOKS]
    assert len(names) >= 3, f"examples/ holds {names}"


@pytest.mark.parametrize("path", NOTEBOOKS, ids=[p.stem for p in NOTEBOOKS])
def test_notebook_runs(path, tmp_path, monkeypatch):
    nbformat = _require("nbformat")
    nbclient = _require("nbclient")
    _require("ipykernel")
    monkeypatch.setenv("CLBIG_NOTEBOOK_SMALL", "1")
    monkeypatch.setenv("TMPDIR", str(tmp_path))  # the files a notebook writes land in tmp_path
    nb = nbformat.read(str(path), as_version=4)
    client = nbclient.NotebookClient(nb, timeout=TIMEOUT, kernel_name="python3",
                                     resources={"metadata": {"path": str(tmp_path)}})
    client.execute()  # raises CellExecutionError, with the cell and traceback, on any error
    errors = [o for c in nb.cells if c.cell_type == "code" for o in c.get("outputs", [])
              if o.get("output_type") == "error"]
    assert not errors


@pytest.mark.parametrize("path", NOTEBOOKS, ids=[p.stem for p in NOTEBOOKS])
def test_notebook_committed_with_outputs(path):
    nbformat = _require("nbformat")
    nb = nbformat.read(str(path), as_version=4)
    code = [c for c in nb.cells if c.cell_type == "code"]
    assert code and all(c.get("execution_count") for c in code), f"{path.name}: not executed"
    outputs = [o for c in code for o in c.get("outputs", [])]
    assert outputs, f"{path.name}: committed without outputs"
    assert not [o for o in outputs if o.get("output_type") == "error"], f"{path.name}: committed with an error"
    text = "".join(o.get("text", "") for o in outputs if o.get("output_type") == "stream")
    assert "device" in text.lower(), f"{path.name}: the outputs do not say which device ran them"
