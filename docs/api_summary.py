"""Keep docs/api.rst readable where Sphinx does not run (GitHub shows the page as plain
reStructuredText and drops the `clbig-api` directives): before each directive, a table of its
names with the first paragraph of each docstring, between the comments `.. summary: begin`
and `.. summary: end`.

    python docs/api_summary.py          rewrite the tables from the docstrings
    python docs/api_summary.py --check  exit 1 where a table is stale (tests/test_docs.py)
"""
from __future__ import annotations

import importlib
import inspect
import re
import sys
from pathlib import Path

PAGE = Path(__file__).with_name("api.rst")
BEGIN, END = ".. summary: begin", ".. summary: end"


def _resolve(path: str):
    obj = importlib.import_module("clbig")
    for part in path.split("."):
        obj = getattr(obj, part, None)
        if obj is None:
            return None
    return obj


def _first_paragraph(obj) -> str:
    doc = inspect.getdoc(obj) or ""
    return " ".join(doc.split("\n\n")[0].split())


def _table(names: list) -> list:
    rows = []
    for arg in names:
        for path in arg.split("|"):
            obj = _resolve(path)
            if obj is not None:
                rows.append((path.split(".")[-1], _first_paragraph(obj)))
                break
    out = [BEGIN, "", ".. list-table::", "   :widths: 25 75", ""]
    for name, text in rows:
        out += [f"   * - ``{name}``", f"     - {text}"]
    return out + ["", END]


def render(text: str) -> str:
    """api.rst with every summary table made again from the docstrings."""
    text = re.sub(rf"{re.escape(BEGIN)}.*?{re.escape(END)}\n\n", "", text, flags=re.S)
    out = []
    for line in text.splitlines():
        if line.startswith(".. clbig-api:: "):
            out += _table(line.split()[2:]) + [""]
        out.append(line)
    return "\n".join(out) + "\n"


def main(argv) -> int:
    text = PAGE.read_text()
    new = render(text)
    if "--check" in argv:
        if new != text:
            print(f"{PAGE} is stale: run python docs/api_summary.py", file=sys.stderr)
            return 1
        return 0
    PAGE.write_text(new)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
