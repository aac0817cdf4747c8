"""An unusable cache folder (HOME or XDG_CACHE_HOME naming a regular file, POCL_CACHE_DIR a
file) does not stop the work: one warning names the folder and the variable to set, compiled
kernels go to a temporary folder, and every result is exact (clbig/runtime/caches.py)."""
from __future__ import annotations

import json
import os
import random
import subprocess
import sys
import tempfile
from pathlib import Path

import gmpy2
import pytest

import clbig
from clbig.runtime import caches

# The subprocess records every warning but pyopencl's CompilerWarning (Intel's compiler prints
# remarks on every build: chatter, not about the cache), computes a product and a gcd, and
# prints the results, the warnings and where the caches went as one JSON line.
CODE = """
import json, os, sys, warnings
with warnings.catch_warnings(record=True) as seen:
    warnings.simplefilter("always")
    import pyopencl
    warnings.filterwarnings("ignore", category=pyopencl.CompilerWarning)
    import clbig
    xs, ys = json.loads(sys.argv[1])
    prod = clbig.mul(clbig.array(xs), clbig.array(ys)).tolist()
    g = clbig.gcd(xs, ys).tolist()
    one = clbig.mul(xs[-1], ys[-1])
print(json.dumps({"prod": [str(v) for v in prod], "gcd": [str(v) for v in g], "one": str(one),
                  "warnings": [f"{w.category.__name__}: {w.message}" for w in seen],
                  "xdg": os.environ.get("XDG_CACHE_HOME"), "pocl": os.environ.get("POCL_CACHE_DIR"),
                  "device": clbig.current_context().device.platform.name}))
"""


def _operands():
    """Edges (zero, one, all-ones limbs, unequal sizes, one limb) and random values; an odd
    batch length."""
    rng = random.Random(33)
    xs = [0, 1, 0, 2**32 - 1, 2**64 - 1, 2**300 - 1, 2**299, 12, 2**160 * 3]
    ys = [0, 0, 1, 2**32 - 1, 2**32 - 1, 2**300 - 1, 2**150 * 7, 18, 2**100 * 9]
    while len(xs) < 21:
        xs.append(rng.getrandbits(rng.randint(1, 300)))
        ys.append(rng.getrandbits(rng.randint(1, 300)))
    return xs, ys


def _env(strip=True, **changes):
    """This environment with `changes`; `strip`: without the variables that would keep PoCL and
    pyopencl away from the user cache folder."""
    env = {k: v for k, v in os.environ.items()
           if not (strip and k in ("POCL_CACHE_DIR", "PYOPENCL_NO_CACHE"))}
    # The subprocess must import the same clbig as this test (installed or checkout).
    pkg_root = str(Path(clbig.__file__).resolve().parent.parent)
    env["PYTHONPATH"] = os.pathsep.join([pkg_root] + [p for p in env.get("PYTHONPATH", "").split(os.pathsep) if p])
    env.update(changes)
    return env


def _run(tmp_path, env):
    xs, ys = _operands()
    p = subprocess.run([sys.executable, "-c", CODE, json.dumps([xs, ys])], env=env, capture_output=True,
                       text=True, timeout=600, cwd=tmp_path)   # not the checkout: -c imports from cwd
    assert p.returncode == 0, p.stderr[-3000:]
    out = json.loads(p.stdout.strip().splitlines()[-1])
    assert [int(v) for v in out["prod"]] == [x * y for x, y in zip(xs, ys)]
    assert [int(v) for v in out["gcd"]] == [int(gmpy2.gcd(x, y)) for x, y in zip(xs, ys)]
    assert int(out["one"]) == xs[-1] * ys[-1]
    return out


def test_home_and_xdg_cache_home_a_file(tmp_path):
    """HOME and XDG_CACHE_HOME naming a regular file: exact products and gcds, one warning
    naming the folder and the variable, kernels in a temporary folder that is gone after the
    process. (POCL_CACHE_DIR naming a file: test_unusable_cache_folder_warns_and_moves.)"""
    f = tmp_path / "a_file"
    f.write_text("not a folder")
    out = _run(tmp_path, _env(HOME=str(f), XDG_CACHE_HOME=str(f)))
    assert len(out["warnings"]) == 1, out["warnings"]
    w = out["warnings"][0]
    assert w.startswith("RuntimeWarning: clbig: the cache folder ")
    assert f"cache folder {f} cannot be used ({f} is a file, not a directory; XDG_CACHE_HOME is now '{f}')" in w
    assert "set XDG_CACHE_HOME to a writable folder" in w
    temp = out["xdg"]
    assert temp != str(f) and Path(temp).name == "user" and Path(temp).parent.name.startswith("clbig-cache-")
    assert f"temporary folder {Path(temp).parent} " in w
    assert out["pocl"] is None
    assert not Path(temp).parent.exists(), "the temporary cache folder outlived its process"


def test_usable_cache_folder_no_warning(tmp_path):
    """The control: the same code with this session's (usable) cache folders warns about
    nothing and leaves the variables alone (its kernels are cached: no build time here)."""
    out = _run(tmp_path, _env(strip=False))
    assert out["warnings"] == []
    assert (out["xdg"], out["pocl"]) == (os.environ.get("XDG_CACHE_HOME"), os.environ.get("POCL_CACHE_DIR"))


@pytest.mark.parametrize("how", ["xdg_file", "home_file", "pocl_file"])
def test_unusable_cache_folder_warns_and_moves(tmp_path, monkeypatch, how):
    """In this process: the warning names the folder, the variable and its value, the variable
    then names a usable temporary folder, a second check warns no more, and contexts work."""
    from clbig.runtime.devices import check_cache_folder
    f = tmp_path / "a_file"
    f.write_text("not a folder")
    if how == "xdg_file":
        monkeypatch.setenv("XDG_CACHE_HOME", str(f))
        var, want = "XDG_CACHE_HOME", [str(f), "XDG_CACHE_HOME", "not a directory"]
    elif how == "home_file":
        monkeypatch.delenv("XDG_CACHE_HOME", raising=False)
        monkeypatch.setenv("HOME", str(f))
        var, want = "XDG_CACHE_HOME", [str(f / ".cache"), "XDG_CACHE_HOME is unset", f"HOME is '{f}'"]
    else:
        monkeypatch.setenv("POCL_CACHE_DIR", str(f / "pocl"))
        var, want = "POCL_CACHE_DIR", [str(f / "pocl"), "POCL_CACHE_DIR"]
    with pytest.warns(RuntimeWarning) as rec:
        check_cache_folder()
    assert len(rec) == 1
    for w in want:
        assert w in str(rec[0].message), (w, str(rec[0].message))
    assert caches.usable_folder(os.environ[var]) is None and str(f) not in os.environ[var]
    assert caches.problems() == []
    import warnings
    with warnings.catch_warnings():
        warnings.simplefilter("error", RuntimeWarning)
        check_cache_folder()
        with clbig.Context(clbig.current_context().device):
            assert clbig.mul([2**64 - 1], [2**64 - 1]).tolist() == [(2**64 - 1) ** 2]


def test_no_temporary_folder_either_is_a_setup_error(tmp_path, monkeypatch):
    """When not even a temporary folder can be made, SetupError names the folder and the
    variable (PoCL would list no devices)."""
    from clbig.runtime.devices import SetupError, check_cache_folder
    f = tmp_path / "a_file"
    f.write_text("not a folder")
    monkeypatch.setenv("XDG_CACHE_HOME", str(f))
    monkeypatch.setattr(caches, "_temp_root", None)
    monkeypatch.setattr(tempfile, "tempdir", str(f / "tmp"))
    with pytest.raises(SetupError) as ei:
        check_cache_folder()
    msg = str(ei.value)
    assert f"cache folder {f} cannot be used" in msg and "XDG_CACHE_HOME" in msg
    assert "no temporary folder could be made" in msg
    assert os.environ["XDG_CACHE_HOME"] == str(f)
