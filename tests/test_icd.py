"""clbig.icd: pip-installed OpenCL runtimes registered with the ICD loader.

The rules are checked on fake installs in tmp_path (a distribution with an .icd file and a
library, vendors folders, environments): no runtime is loaded. The last test runs Intel's CPU
runtime from the `pocl` extra with the system's drivers hidden, in a fresh process; it skips
where that runtime is not installed, and fails instead under CI on x86-64 Linux, where the
extra installs it.
"""
from __future__ import annotations

import os
import platform
import random
import subprocess
import sys
import warnings
from pathlib import Path

import pytest

import clbig
from clbig.runtime import icd

LIB = "libfakeocl.so.1"
PLACEHOLDER = "/opt/anaconda1anaconda2anaconda3/lib/"


def _in_ci() -> bool:
    return os.environ.get("CI", "").strip().lower() not in ("", "0", "false", "no")


def fake_dist(tmp_path: Path, name="fake-rt", icd_text=PLACEHOLDER + LIB, extra=()):
    """A prefix as pip lays out a runtime's data files: <prefix>/lib/LIB,
    <prefix>/etc/OpenCL/vendors/cpu.icd, and site-packages/<name>.dist-info whose RECORD lists
    them relative to site-packages. Returns the site-packages folder."""
    prefix = tmp_path / "prefix"
    site = prefix / "lib" / "python3" / "site-packages"
    info = site / f"{name.replace('-', '_')}-1.0.dist-info"
    info.mkdir(parents=True)
    (info / "METADATA").write_text(f"Metadata-Version: 2.1\nName: {name}\nVersion: 1.0\n")
    files = {"lib/" + LIB: b"\x7fELF", "etc/OpenCL/vendors/cpu.icd": (icd_text + "\n").encode()}
    files.update(extra)
    record = [f"{info.name}/METADATA,,", f"{info.name}/RECORD,,"]
    for rel, data in files.items():
        (prefix / rel).parent.mkdir(parents=True, exist_ok=True)
        (prefix / rel).write_bytes(data)
        record.append(f"../../../{rel},,")
    (info / "RECORD").write_text("\n".join(record) + "\n")
    return site


def folder_with(path: Path, entries: dict) -> Path:
    path.mkdir(parents=True, exist_ok=True)
    for name, text in entries.items():
        (path / name).write_text(text + "\n")
    return path


def contents(folder) -> dict:
    return {p.name: p.read_text().strip() for p in Path(folder).iterdir()}


@pytest.fixture
def runtime(tmp_path):
    site = fake_dist(tmp_path)
    rts = icd.pip_runtimes(("fake-rt",), path=[str(site)])
    assert len(rts) == 1
    return rts[0]


def no_load(path):
    return None


# -- finding runtimes ------------------------------------------------------------------------

def test_placeholder_path_resolved_to_the_distributions_library(tmp_path):
    site = fake_dist(tmp_path)
    (rt,) = icd.pip_runtimes(("fake-rt",), path=[str(site)])
    assert rt == icd.Runtime("fake-rt", "cpu.icd", str((tmp_path / "prefix/lib" / LIB).resolve()))


def test_absolute_existing_path_kept(tmp_path):
    lib = tmp_path / "elsewhere" / "libother.so"
    lib.parent.mkdir()
    lib.write_bytes(b"")
    site = fake_dist(tmp_path, icd_text=str(lib))
    (rt,) = icd.pip_runtimes(("fake-rt",), path=[str(site)])
    assert rt.library == str(lib.resolve())


def test_not_installed_or_unresolvable_gives_nothing(tmp_path):
    site = fake_dist(tmp_path, icd_text="/nowhere/libmissing.so",
                     extra={"share/cpu.icd": b"/x/" + LIB.encode() + b"\n"})   # not in OpenCL/vendors
    assert icd.pip_runtimes(("fake-rt",), path=[str(site)]) == []
    assert icd.pip_runtimes(("no-such-dist",), path=[str(site)]) == []


# -- the environment rules -------------------------------------------------------------------

def test_empty_vendors_folder_gets_the_pip_runtime(tmp_path, runtime):
    empty = folder_with(tmp_path / "empty", {})
    env = {"OCL_ICD_VENDORS": str(empty)}
    folder = icd.setup(env, [runtime], str(tmp_path / "cache"), load=no_load)
    assert env == {"OCL_ICD_VENDORS": folder}
    assert Path(folder).parent == tmp_path / "cache" / "ocl-vendors"
    assert contents(folder) == {"pip-fake-rt-cpu.icd": runtime.library}
    assert contents(empty) == {}   # the user's folder is not written to


def test_system_drivers_stay_visible(tmp_path, runtime, monkeypatch):
    system = folder_with(tmp_path / "etc-vendors", {"pocl.icd": "libpocl.so.2",
                                                     "nvidia.icd": "/usr/lib/libnvidia-opencl.so.1"})
    (system / "README").write_text("not an icd file\n")
    monkeypatch.setattr(icd, "SYSTEM_VENDORS", str(system))
    env = {}
    folder = icd.setup(env, [runtime], str(tmp_path / "cache"), load=no_load)
    assert env["OCL_ICD_VENDORS"] == folder
    assert contents(folder) == {"pocl.icd": "libpocl.so.2", "nvidia.icd": "/usr/lib/libnvidia-opencl.so.1",
                                "pip-fake-rt-cpu.icd": runtime.library}


def test_user_folders_are_the_base(tmp_path, runtime, monkeypatch):
    monkeypatch.setattr(icd, "SYSTEM_VENDORS", str(folder_with(tmp_path / "sys", {"sys.icd": "libsys.so"})))
    mine = folder_with(tmp_path / "mine", {"mine.icd": "/opt/libmine.so"})
    other = folder_with(tmp_path / "other", {"other.icd": "/opt/libother.so"})
    for env in ({"OCL_ICD_VENDORS": str(mine), "OPENCL_VENDOR_PATH": str(other)},
                {"OPENCL_VENDOR_PATH": str(mine)}):
        folder = icd.setup(env, [runtime], str(tmp_path / "cache"), load=no_load)
        assert env["OCL_ICD_VENDORS"] == folder
        assert contents(folder) == {"mine.icd": "/opt/libmine.so", "pip-fake-rt-cpu.icd": runtime.library}


@pytest.mark.parametrize("env", [
    {"CLBIG_ICD_SETUP": "0"},
    {"OCL_ICD_FILENAMES": "/usr/lib/libpocl.so.2"},
    {"OCL_ICD_VENDORS": "FILE"},            # one library named: ocl-icd loads only it
    {"OCL_ICD_VENDORS": "/no/such/folder"},
])
def test_environment_that_names_the_drivers_is_left_alone(tmp_path, runtime, env):
    lib = tmp_path / "libone.so"
    lib.write_bytes(b"")
    env = {k: str(lib) if v == "FILE" else v for k, v in env.items()}
    before = dict(env)
    loaded = []
    assert icd.setup(env, [runtime], str(tmp_path / "cache"), load=loaded.append) is None
    assert env == before and loaded == []
    assert not (tmp_path / "cache").exists()


def test_already_registered_runtime_not_added_twice(tmp_path, runtime):
    link = tmp_path / "link.so"
    link.symlink_to(runtime.library)
    base = folder_with(tmp_path / "base", {"intel.icd": str(link)})   # the same library, by a link
    env = {"OCL_ICD_VENDORS": str(base)}
    loaded = []
    assert icd.setup(env, [runtime, runtime], str(tmp_path / "cache"), load=loaded.append) is None
    assert env == {"OCL_ICD_VENDORS": str(base)} and loaded == []


def test_idempotent_in_child_processes(tmp_path, runtime):
    """A child inherits OCL_ICD_VENDORS pointing at clbig's folder: nothing changes there."""
    env = {"OCL_ICD_VENDORS": str(folder_with(tmp_path / "empty", {}))}
    folder = icd.setup(env, [runtime], str(tmp_path / "cache"), load=no_load)
    child = dict(env)
    assert icd.setup(child, [runtime], str(tmp_path / "cache"), load=no_load) is None
    assert child == env
    # the same set again from the original base reuses the folder as it is
    again = {"OCL_ICD_VENDORS": str(tmp_path / "empty")}
    assert icd.setup(again, [runtime], str(tmp_path / "cache"), load=no_load) == folder
    assert sorted(p.name for p in (tmp_path / "cache" / "ocl-vendors").iterdir()) == [Path(folder).name]


def test_different_sets_get_different_folders_and_names_do_not_clash(tmp_path, runtime):
    a = folder_with(tmp_path / "a", {"pip-fake-rt-cpu.icd": "/opt/libsomeone-else.so"})
    b = folder_with(tmp_path / "b", {})
    fa = icd.setup({"OCL_ICD_VENDORS": str(a)}, [runtime], str(tmp_path / "cache"), load=no_load)
    fb = icd.setup({"OCL_ICD_VENDORS": str(b)}, [runtime], str(tmp_path / "cache"), load=no_load)
    assert fa != fb
    assert contents(fa) == {"pip-fake-rt-cpu.icd": "/opt/libsomeone-else.so",
                            "xpip-fake-rt-cpu.icd": runtime.library}


def test_runtime_that_cannot_load_is_named_and_left_out(tmp_path, runtime):
    def fail(path):
        raise OSError("libimf.so: cannot open shared object file: No such file or directory")
    env = {"OCL_ICD_VENDORS": str(folder_with(tmp_path / "empty", {}))}
    before = dict(env)
    with pytest.warns(RuntimeWarning, match=r"fake-rt.*cannot be loaded.*libimf\.so"):
        assert icd.setup(env, [runtime], str(tmp_path / "cache"), load=fail) is None
    assert env == before


# -- loading a runtime's dependencies ---------------------------------------------------------

def test_preload_loads_missing_dependencies_from_other_distributions(tmp_path):
    site = fake_dist(tmp_path / "a")
    dep_site = fake_dist(tmp_path / "b", name="fake-deps",
                         extra={"lib/libdep.so": b"", "lib/libdep2.so.5": b"", "lib/libunused.so": b""})
    dep = str(tmp_path / "b/prefix/lib/libdep.so")
    dep2 = str(tmp_path / "b/prefix/lib/libdep2.so.5")
    (rt,) = icd.pip_runtimes(("fake-rt",), path=[str(site)])
    loaded, calls = set(), []

    def load(path):   # as dlopen: a library loads when each of its dependencies is loaded
        calls.append(path)
        needs = {rt.library: [dep], dep: [dep2]}.get(path, [])
        for n in needs:
            if n not in loaded:
                raise OSError(f"{os.path.basename(n)}: cannot open shared object file: No such file or directory")
        loaded.add(path)

    icd.preload(rt.library, names=("fake-deps",), path=[str(site), str(dep_site)], load=load)
    assert calls == [rt.library, dep, dep2, dep, rt.library]
    assert loaded == {rt.library, dep, dep2}


def test_preload_dependency_found_nowhere_raises(tmp_path):
    site = fake_dist(tmp_path)
    (rt,) = icd.pip_runtimes(("fake-rt",), path=[str(site)])

    def load(path):
        raise OSError("libimf.so: cannot open shared object file: No such file or directory")

    with pytest.raises(OSError, match="libimf.so"):
        icd.preload(rt.library, names=("fake-rt",), path=[str(site)], load=load)


# -- the real runtime ------------------------------------------------------------------------

def test_intel_cpu_runtime_from_pip_with_system_drivers_hidden(tmp_path):
    """Intel's runtime from the `pocl` extra, with an empty OCL_ICD_VENDORS folder (no system
    driver): clbig registers it and computes exactly on it, in a fresh process."""
    expected = sys.platform.startswith("linux") and platform.machine() == "x86_64"
    if not icd.pip_runtimes():
        msg = "Intel's CPU runtime (intel-opencl-rt, in the pocl extra) is not installed"
        if _in_ci() and expected:
            pytest.fail(msg + " (the pocl extra installs it on x86-64 Linux)")
        pytest.skip(msg)
    empty = tmp_path / "no-vendors"
    empty.mkdir()
    env = dict(os.environ)
    env.pop("OCL_ICD_FILENAMES", None)
    env.pop("CLBIG_ICD_SETUP", None)
    env.pop("CLBIG_DEVICE", None)
    env["OCL_ICD_VENDORS"] = str(empty)
    env["XDG_CACHE_HOME"] = str(tmp_path / "cache")   # the vendors folder is written afresh
    # The subprocess must import the same clbig as this test (installed or checkout).
    pkg_root = str(Path(clbig.__file__).resolve().parent.parent)
    env["PYTHONPATH"] = os.pathsep.join([pkg_root] + [p for p in env.get("PYTHONPATH", "").split(os.pathsep) if p])
    rng = random.Random(18)
    xs = [0, 1, 2**64 - 1, 2**300 - 1] + [rng.getrandbits(300) for _ in range(17)]
    ys = [2**300 - 1, 1, 2**64 - 1, 2**300 - 1] + [rng.getrandbits(170) for _ in range(17)]
    code = (
        "import os, sys, warnings, clbig\n"
        "warnings.simplefilter('ignore')   # Intel's compiler chatter (pyopencl CompilerWarning)\n"
        f"xs, ys = {xs!r}, {ys!r}\n"
        "intel = [d for d in clbig.devices() if d.platform.startswith('Intel')]\n"
        "assert intel, clbig.devices()\n"
        "print(os.environ['OCL_ICD_VENDORS'])\n"
        "with clbig.Context(intel[0].index):\n"
        "    a, b = clbig.array(xs), clbig.array(ys)\n"
        "    print((a * b).tolist() == [x * y for x, y in zip(xs, ys)],\n"
        "          (a + b).tolist() == [x + y for x, y in zip(xs, ys)])\n")
    p = subprocess.run([sys.executable, "-c", code], env=env, cwd=str(tmp_path), capture_output=True,
                       text=True, timeout=600)
    assert p.returncode == 0, p.stderr[-3000:]
    folder, result = p.stdout.split("\n")[:2]
    assert Path(folder).parent == tmp_path / "cache" / "clbig" / "ocl-vendors"
    assert [rt.library for rt in icd.pip_runtimes()] == list(contents(folder).values())
    assert result == "True True"
    assert contents(empty) == {}


def test_register_without_pip_runtimes_changes_nothing(monkeypatch):
    monkeypatch.setattr(icd, "_done", False)
    monkeypatch.setattr(icd, "pip_runtimes", lambda: [])
    before = dict(os.environ)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert icd.register() is None
    assert dict(os.environ) == before
    assert icd.register() is None   # once per process


def test_folder_emptied_in_part_is_written_again(tmp_path, runtime, monkeypatch):
    system = folder_with(tmp_path / "sys", {"a.icd": "/opt/liba.so", "b.icd": "/opt/libb.so"})
    monkeypatch.setattr(icd, "SYSTEM_VENDORS", str(system))
    folder = icd.setup({}, [runtime], str(tmp_path / "cache"), load=no_load)
    want = contents(folder)
    (Path(folder) / "a.icd").unlink()     # as a cache cleaner that removes old files
    assert icd.setup({}, [runtime], str(tmp_path / "cache"), load=no_load) == folder
    assert contents(folder) == want
    assert [p.name for p in (tmp_path / "cache" / "ocl-vendors").iterdir()] == [Path(folder).name]
