"""The bench/ folder stays tidy (issue 35): every result file the READMEs, the docs or the
examples cite exists, every file in bench/results is cited, bench/ holds at most 6 driver
scripts at its top level and bench/results at most 40 files, and each probe in bench/probes
names the finding it backs. Reads the checkout only; nothing here needs OpenCL."""
import itertools
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
BENCH = ROOT / "bench"
RESULTS = BENCH / "results"
MAX_SCRIPTS = 6
MAX_RESULTS = 40

pytestmark = pytest.mark.skipif(not (BENCH / "README.md").is_file(),
                                reason="needs the repository checkout (bench/README.md)")

# A cited name: file-name characters plus the glob and brace forms some citations use.
_NAME = r"[A-Za-z0-9_.*?{},\-]*[A-Za-z0-9_*?}\-]"
# Top README, docs, examples: paths from the repository root. `(?<![\w/])` keeps
# `clbig/bench/...` and an unrelated `--out results/` out.
_ROOTED = re.compile(r"(?<![\w/.])bench/results/(" + _NAME + r")")
# bench/README.md and the probes may also write them relative to bench/.
_RELATIVE = re.compile(r"(?<![\w/.])(?:bench/)?results/(" + _NAME + r")")
_SCRIPT = re.compile(r"(?<![\w/.])(bench/[A-Za-z0-9_/]+\.(?:py|sh))\b")


def _sources():
    """(path, text, pattern) of every file whose result citations must resolve."""
    out = [(ROOT / "README.md", _ROOTED), (BENCH / "README.md", _RELATIVE)]
    out += [(p, _ROOTED) for p in sorted((ROOT / "docs").glob("*.rst"))]
    out += [(p, _ROOTED) for p in sorted((ROOT / "examples").glob("*.ipynb"))]
    out += [(p, _RELATIVE) for p in sorted((BENCH / "probes").glob("*.py"))]
    return [(p, p.read_text(encoding="utf-8"), pat) for p, pat in out if p.is_file()]


def expand_braces(name: str) -> list:
    """`a-{1,2}.md` -> [`a-1.md`, `a-2.md`] (shell-style, any number of groups, no nesting)."""
    pieces = re.split(r"\{([^{}]*)\}", name)
    fixed, choices = pieces[0::2], [p.split(",") for p in pieces[1::2]]
    return ["".join(itertools.chain.from_iterable(zip(fixed, combo + ("",))))
            for combo in itertools.product(*choices)]


def citations():
    """{cited name (braces expanded, globs kept): [(file, line number), ...]}."""
    cited = {}
    for path, text, pattern in _sources():
        for lineno, line in enumerate(text.splitlines(), 1):
            for m in pattern.finditer(line):
                for name in expand_braces(m.group(1)):
                    cited.setdefault(name, []).append((path.relative_to(ROOT), lineno))
    return cited


def test_brace_expansion():
    assert expand_braces("a-{1,2}-{x,y}.md") == ["a-1-x.md", "a-1-y.md", "a-2-x.md", "a-2-y.md"]
    assert expand_braces("plain.log") == ["plain.log"]


def test_citation_patterns():
    """The patterns find what the files write, and skip what is not a results citation."""
    assert _ROOTED.findall("see ``bench/results/x-2026.log``.") == ["x-2026.log"]
    assert _ROOTED.findall("--out results/ and clbig/bench/results/y.md") == []
    assert _RELATIVE.findall("(`results/a_1.md`, `results/b-{1,2}.json`)") == ["a_1.md", "b-{1,2}.json"]
    assert _SCRIPT.findall("`python bench/probes/div_gpu.py 16`, clbig/bench/suite.py") == [
        "bench/probes/div_gpu.py"]


def test_every_cited_result_exists():
    cited = citations()
    assert cited, "no bench/results citations found: the patterns are broken"
    missing = [f"{name} (cited at {', '.join(f'{p}:{n}' for p, n in where)})"
               for name, where in sorted(cited.items())
               if not any(RESULTS.glob(name))]
    assert not missing, "cited but not in bench/results:\n" + "\n".join(missing)


def test_every_result_is_cited():
    cited = citations()
    uncited = [f.name for f in sorted(RESULTS.iterdir())
               if not any(f.match(name) for name in cited)]
    assert not uncited, "in bench/results but cited nowhere (cite it or git rm it):\n" + "\n".join(uncited)


def test_results_at_most_40_files():
    files = [f.name for f in RESULTS.iterdir()]
    assert len(files) <= MAX_RESULTS, f"bench/results holds {len(files)} files (at most {MAX_RESULTS})"


def test_at_most_6_top_level_scripts():
    scripts = sorted(f.name for f in BENCH.iterdir() if f.is_file() and f.suffix != ".md")
    assert len(scripts) <= MAX_SCRIPTS, f"bench/ has {len(scripts)} top-level scripts: {scripts}"


def test_every_cited_script_exists():
    bad = []
    for path, text, _ in _sources():
        for lineno, line in enumerate(text.splitlines(), 1):
            bad += [f"{s} ({path.relative_to(ROOT)}:{lineno})" for s in _SCRIPT.findall(line)
                    if not (ROOT / s).is_file()]
    assert not bad, "scripts cited but not in the tree:\n" + "\n".join(bad)


def test_probes_name_their_finding():
    probes = sorted(p for p in (BENCH / "probes").glob("*.py") if p.name != "devtools.py")
    assert probes, "bench/probes holds no probe"
    for p in probes:
        first = p.read_text(encoding="utf-8").splitlines()[0]
        assert first.startswith("# Finding: ") and "bench/README.md" in first, (
            f"{p.name}: its first line must name the finding it backs and where bench/README.md "
            f"writes it, e.g. '# Finding: ...; bench/README.md, \"Division\"'")
