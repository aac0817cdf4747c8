"""The settings table (clbig.runtime.config): every CLBIG_* variable is read through it, only
its file spells the variables, bad values raise naming the variable, and `python -m clbig info
--settings` and the docs list it. Runs no kernel."""
from __future__ import annotations

import os
import re
import subprocess
import sys
import tempfile
from pathlib import Path

import pyopencl as cl
import pytest

from clbig.runtime import config

ROOT = Path(__file__).resolve().parent.parent
LIBRARY = [p for p in (ROOT / "clbig").rglob("*.py")] + [p for p in (ROOT / "kernels_cl").rglob("*") if p.is_file()]
VAR = re.compile(r"CLBIG_[A-Z0-9_]+")
# a short name handed to the runtime's readers: env("X"), value("X"), var("X"), _loc("X", ...)
READ = re.compile(r"""(?:\benv|\bvalue|\bvar|_loc)\(\s*["']([A-Z0-9_]+)["']""")
# a snapshot's attributes, in lower case (ctx.profile.settings or config.settings(), held as
# `s`, `st` or `settings`: s.mul52_lanes, s.get("mont_one", ...), s.is_set("scan_q"))
SNAPSHOT = r"(?:\bs|\bst|settings|settings\(\))"
SNAPSHOT_GET = re.compile(SNAPSHOT + r"""\.(?:get|is_set)\(\s*["']([a-z0-9_]+)["']""")
ATTRIBUTE = re.compile(SNAPSHOT + r"""\.([a-z][a-z0-9_]*)\b""")


def _text(p: Path) -> str:
    return p.read_text(encoding="utf-8", errors="replace")


def test_only_the_table_spells_the_variables():
    spelled = sorted({str(p.relative_to(ROOT)) for p in LIBRARY if "CLBIG_" in _text(p)})
    assert spelled == ["clbig/runtime/config.py"], spelled


def test_no_setting_read_by_name_above_the_runtime():
    """Issue 42: the floors above the runtime read settings from their context's profile
    (ctx.profile.settings), never by name through config.value / env / env_values."""
    named = re.compile(r"""(?:\bvalue|\benv|\benv_values)\(\s*["'(]""")
    found = sorted(str(p.relative_to(ROOT)) for p in LIBRARY if p.suffix == ".py"
                   and "runtime" not in p.relative_to(ROOT).parts and p.name != "__main__.py"
                   and named.search(_text(p)))
    assert found == [], found


def test_every_name_read_is_in_the_table_and_every_entry_is_read():
    read = set()
    for p in LIBRARY:
        if p.suffix != ".py" or p.name == "config.py":
            continue
        t = _text(p)
        read |= set(READ.findall(t))
        read |= {n.upper() for n in SNAPSHOT_GET.findall(t)}
        # (`s` names other things too: only the table's names count as reads; a misspelt one
        # is an AttributeError of the snapshot at its first read)
        read |= {n.upper() for n in ATTRIBUTE.findall(t)} & set(config.SETTINGS)
    assert read, "the pattern of a read found nothing: it no longer matches the code"
    assert sorted(read - set(config.SETTINGS)) == []
    assert sorted(set(config.SETTINGS) - read) == []   # no entry that nothing reads


def _suite_variables() -> set:
    """The test suite's own variables: listed in tests/conftest.py's docstring."""
    doc = _text(ROOT / "tests" / "conftest.py").split('"""')[1]
    return {m.group(1) for m in re.finditer(r"^\s+(CLBIG_[A-Z0-9_]+)\s", doc, re.MULTILINE)}


def test_every_variable_the_tests_use_is_a_setting_or_the_suites_own():
    suite = _suite_variables()
    assert {"CLBIG_TEST_SEED", "CLBIG_HYPOTHESIS_PROFILE"} <= suite
    assert not suite & {s.var for s in config.SETTINGS.values()}
    unknown = {}
    for p in (ROOT / "tests").rglob("*.py"):
        for v in set(VAR.findall(_text(p))):
            if v not in suite and v[len(config.PREFIX):] not in config.SETTINGS:
                unknown.setdefault(v, p.name)
    assert unknown == {}


def test_table_entries_are_complete():
    for s in config.SETTINGS.values():
        assert re.fullmatch(r"[A-Z][A-Z0-9_]*", s.name) and s.var == "CLBIG_" + s.name
        assert s.kind in config.KINDS and len(s.doc) > 20, s.name
        if s.default is not None:   # a default is a value of the setting's own kind
            assert config._parse(s, config._shown(s.default)) == s.default or s.kind == "args", s.name
    assert not config.SETTINGS["DEVICE"].tests_only and config.SETTINGS["POISON"].tests_only


def test_unknown_names_raise_key_error():
    for reader in (config.env, config.value, config.var):
        with pytest.raises(KeyError, match="MUL_RADX"):
            reader("MUL_RADX")
    with pytest.raises(KeyError):   # full names are not short names
        config.env("CLBIG_MUL_RADIX")


def test_values_are_read_at_each_call(monkeypatch):
    monkeypatch.delenv("CLBIG_MUL_ITEMS", raising=False)
    assert config.value("MUL_ITEMS") == 64 and config.value("MUL_ITEMS", 7) == 7
    assert config.env("MUL_ITEMS") is None and config.env("MUL_ITEMS", "x") == "x"
    monkeypatch.setenv("CLBIG_MUL_ITEMS", " 128 ")
    assert config.value("MUL_ITEMS", 7) == 128 and config.env("MUL_ITEMS") == " 128 "
    monkeypatch.setenv("CLBIG_MUL_ITEMS", "  ")   # blank: unset
    assert config.value("MUL_ITEMS", 7) == 7
    monkeypatch.setenv("CLBIG_SCAN_Q", "4, 16")
    assert config.value("SCAN_Q") == (4, 16)
    assert config.env_values(("SCAN_Q", "MUL_ITEMS")) == ("4, 16", "  ")


@pytest.mark.parametrize("raw, want", [("1", True), ("yes", True), ("TRUE", True), ("on", True),
                                       ("0", False), ("no", False), ("False", False), (" off ", False)])
def test_switches(monkeypatch, raw, want):
    monkeypatch.setenv("CLBIG_MONT_FP64", raw)
    assert config.value("MONT_FP64") is want
    monkeypatch.delenv("CLBIG_MONT_FP64")
    assert config.value("MONT_FP64") is None and config.value("MONT_FP64", True) is True


def test_choices_and_other_kinds(monkeypatch):
    monkeypatch.setenv("CLBIG_CARRY", " PTX")
    assert config.value("CARRY") == "ptx"
    monkeypatch.setenv("CLBIG_GCD_COF", "1")
    assert config.value("GCD_COF") == "1"
    monkeypatch.setenv("CLBIG_MONT52_SMAX", "0")
    assert config.value("MONT52_SMAX", 5) == 0
    monkeypatch.setenv("CLBIG_CL_OPTIONS", "-D A=1 '-D B=2 3'")
    assert config.value("CL_OPTIONS") == ["-D", "A=1", "-D B=2 3"]
    monkeypatch.setenv("CLBIG_SSA_K", "30")
    assert config.value("SSA_K") == 30


BAD = [("MONT_FP64", "2", "CLBIG_MONT_FP64 must be 1 or 0"),
       ("CARRY", "fast", "CLBIG_CARRY must be auto, ptx, c or off, not 'fast'"),
       ("GCD_COF", "3", "CLBIG_GCD_COF must be 1 or 2, not '3'"),
       ("MUL_RADIX", "64", "CLBIG_MUL_RADIX must be auto, 30, 32 or 51, not '64'"),
       ("MUL_ITEMS", "0", "CLBIG_MUL_ITEMS='0': expected a positive integer"),
       ("MUL_ITEMS", "4,8", "CLBIG_MUL_ITEMS='4,8': expected a positive integer"),
       ("MUL_Q", "4,x", "CLBIG_MUL_Q='4,x': expected positive integers separated by commas"),
       ("MUL_Q", "4,0", "CLBIG_MUL_Q='4,0': expected positive integers"),
       ("MUL_Q", "²", "CLBIG_MUL_Q='²': expected positive integers"),
       ("MONT_W", "-1", "CLBIG_MONT_W='-1': expected a non-negative integer"),
       ("SSA_K", "31", "CLBIG_SSA_K='31': expected an integer from 1 to 30"),
       ("SSA_K", "0", "CLBIG_SSA_K='0': expected an integer from 1 to 30"),
       ("CL_OPTIONS", "-DX=\"1", "CLBIG_CL_OPTIONS='-DX=\"1': No closing quotation")]


@pytest.mark.parametrize("name, raw, message", BAD, ids=[f"{n}={r}" for n, r, _ in BAD])
def test_bad_values_name_the_variable(monkeypatch, name, raw, message):
    monkeypatch.setenv("CLBIG_" + name, raw)
    with pytest.raises(ValueError) as e:
        config.value(name)
    assert message in str(e.value)
    with pytest.raises(ValueError, match="CLBIG_" + name):
        config.check_all()
    with pytest.raises(ValueError, match="CLBIG_" + name):   # from another mapping too
        config.value(name, environ={"CLBIG_" + name: raw})


def test_a_bad_value_stops_the_operation_that_reads_it(ctx, monkeypatch):
    """End to end: the gcd's planner reads GCD_STORE at each call (no memo in between)."""
    import clbig
    monkeypatch.setenv("CLBIG_GCD_STORE", "shared")
    with pytest.raises(ValueError, match="CLBIG_GCD_STORE must be private or global, not 'shared'"):
        clbig.gcd([12, 0, 7], [18, 5, 1])


def test_settings_snapshot(monkeypatch):
    """One snapshot per distinct environment: typed attributes, the table's defaults, a version
    that changes with any setting and comes back with the same values; a bad value raises where
    it is read, an unknown name at once."""
    monkeypatch.delenv("CLBIG_NTT_POINTS", raising=False)
    monkeypatch.delenv("CLBIG_SCAN_Q", raising=False)
    base = config.settings()
    assert base is config.settings() and base.ntt_points is None and base.scan_q == (4, 8, 16, 32)
    assert base.get("ntt_points", 9) == 9 and not base.is_set("ntt_points")
    monkeypatch.setenv("CLBIG_NTT_POINTS", "256")
    monkeypatch.setenv("CLBIG_SCAN_Q", " 8,16 ")
    s = config.settings()
    assert s.version != base.version and s.ntt_points == 256 and s.get("ntt_points", 9) == 256
    assert s.scan_q == (8, 16) and s.is_set("scan_q")
    monkeypatch.setenv("CLBIG_NTT_POINTS", "many")
    bad = config.settings()
    assert bad.scan_q == (8, 16)                      # other settings still read
    with pytest.raises(ValueError, match="CLBIG_NTT_POINTS='many'"):
        bad.ntt_points
    monkeypatch.delenv("CLBIG_NTT_POINTS")
    monkeypatch.delenv("CLBIG_SCAN_Q")
    assert config.settings() is base                  # the same values: the same version
    with pytest.raises(AttributeError, match="not a clbig setting"):
        base.ntt_point


def test_profile_caches_and_facts(ctx):
    """One registry of per-context caches with one way to clear them; facts queried once."""
    p = ctx.profile
    assert p.facts.compute_units == int(ctx.device.max_compute_units) >= 1
    assert p.facts.is_gpu == bool(ctx.device.type & cl.device_type.GPU)
    assert p.facts.max_alloc <= min(int(ctx.device.max_mem_alloc_size), ctx.memory)
    made = []
    assert p.cached("test cache", 1, lambda: made.append(1) or "one") == "one"
    assert p.cached("test cache", 1, lambda: made.append(2) or "two") == "one" and made == [1]
    p.clear("test cache")
    assert p.cache("test cache") == {} and p.cached("test cache", 1, lambda: "again") == "again"
    p.clear()
    assert p.cache("test cache") == {}
    assert "caches" in repr(p) and f"settings v{config.settings().version}" in repr(p)


def test_other_mappings():
    """icd.base_folder reads the ICD_SETUP setting from the environment it is given."""
    from clbig.runtime import icd
    assert config.value("ICD_SETUP", environ={}) is True
    assert config.value("ICD_SETUP", environ={"CLBIG_ICD_SETUP": "off"}) is False
    assert icd.base_folder({"CLBIG_ICD_SETUP": "0"}) is None
    assert icd.base_folder({"CLBIG_ICD_SETUP": "1", "OCL_ICD_VENDORS": "/nonexistent"}) is None


def _info(env_extra: dict) -> subprocess.CompletedProcess:
    # The clbig this test imports (the installed one in CI), run outside the checkout: `-m`
    # puts the current directory first on sys.path.
    env = {k: v for k, v in os.environ.items() if not k.startswith("CLBIG_")}
    env.update(env_extra)
    return subprocess.run([sys.executable, "-m", "clbig", "info", "--settings"], capture_output=True,
                          text=True, env=env, timeout=120, cwd=tempfile.gettempdir())


def test_info_lists_every_setting():
    run = _info({"CLBIG_MUL_RADIX": "30", "CLBIG_CARRY": "fast"})
    assert run.returncode == 0, run.stderr
    out = run.stdout
    for s in config.SETTINGS.values():
        assert re.search(rf"^{s.var} = ", out, re.MULTILINE), s.var
    assert re.search(r"^CLBIG_MUL_RADIX = 30  \(set; choice: auto\|30\|32\|51\)  \[tests\]$", out, re.MULTILINE)
    assert re.search(r"^CLBIG_MUL_ITEMS = 64  \(default; int\)  \[tests\]$", out, re.MULTILINE)
    assert re.search(r"^CLBIG_DEVICE = -  \(default; str\)$", out, re.MULTILINE)
    assert "BAD: CLBIG_CARRY must be auto, ptx, c or off, not 'fast'" in out
    assert "register pip-installed OpenCL runtimes" in out   # the docs are there


def test_successful_builds_are_quiet():
    """Issue 43 item 4: `info` probes every device's compiler (Intel's CPU runtime logs on
    success); pyopencl's "Non-empty compiler output" warning is not printed for builds that
    succeeded, even with every warning shown."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("CLBIG_")}
    env.pop("PYOPENCL_COMPILER_OUTPUT", None)
    run = subprocess.run([sys.executable, "-W", "always", "-m", "clbig", "info"], capture_output=True,
                         text=True, env=env, timeout=120, cwd=tempfile.gettempdir())
    assert run.returncode == 0, run.stderr
    assert "Default device" in run.stdout
    assert "Non-empty compiler output" not in run.stderr, run.stderr


def test_docs_page_uses_the_table():
    """docs/settings.rst is generated from the table (the sphinx build test renders it)."""
    page = _text(ROOT / "docs" / "settings.rst")
    assert ".. clbig-settings::" in page
    assert "settings" in _text(ROOT / "docs" / "index.rst").split("toctree")[1]
    import importlib.util
    spec = importlib.util.spec_from_file_location("clbig_docs_conf", ROOT / "docs" / "conf.py")
    conf = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(conf)
    lines = "\n".join(conf.settings_table(tests_only=False) + conf.settings_table(tests_only=True))
    for s in config.SETTINGS.values():
        assert f"``{s.var}``" in lines, s.var
