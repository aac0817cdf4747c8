"""Register OpenCL runtimes installed by pip with the OpenCL ICD loader.

pip cannot register a driver the way a system package does (a file in /etc/OpenCL/vendors/),
so a runtime installed from PyPI stays invisible to pyopencl's ICD loader. Intel's CPU runtime
(`intel-opencl-rt`, in the `pocl` extra on x86-64 Linux because PyPI's PoCL 3.0 cannot build
kernels for CPUs its LLVM 14 does not know, such as AMD Zen 5) ships an `.icd` file whose path
is a conda placeholder. `register()` runs once, before clbig's first platform query: it finds
such runtimes through importlib.metadata (the files of their distributions), loads the shared
libraries they need from other distributions when the dynamic linker would not find them, and
points `OCL_ICD_VENDORS` at a folder (in clbig's user cache folder) holding the folder's `.icd`
files the loader would have read anyway plus one per pip runtime. PoCL from PyPI needs none of
this: pyopencl's loader finds it by itself.

Rules (the loader reads its variables once, at the process's first platform query):
  ICD_SETUP setting 0       nothing is changed (runtime.config).
  OCL_ICD_FILENAMES set     nothing is changed: the user names the drivers.
  OCL_ICD_VENDORS a file    nothing is changed: the user names the one driver (ocl-icd).
  OCL_ICD_VENDORS a folder  its .icd files are kept and the pip runtimes added (an empty folder
                            hides the system's drivers, not the pip ones);
  else OPENCL_VENDOR_PATH (a folder), else /etc/OpenCL/vendors: the same.
A runtime whose library the folder already registers is not added twice; when none is left to
add, the environment is left as it was. A runtime that cannot be loaded is reported by a
warning and left out. After pyopencl has listed platforms in this process nothing changes the
list: call clbig (or `clbig.runtime.icd.register()`) before querying platforms directly.
"""
from __future__ import annotations

import ctypes
import hashlib
import os
import re
import sys
import tempfile
import threading
import warnings
from dataclasses import dataclass

from . import config

SYSTEM_VENDORS = "/etc/OpenCL/vendors"
# Distributions that install an OpenCL ICD as data files (<prefix>/etc/OpenCL/vendors/*.icd
# and <prefix>/lib/*.so). Their libraries' dependencies may come from these others.
RUNTIMES = ("intel-opencl-rt",)
DEPENDENCIES = ("intel-cmplr-lib-rt", "tbb", "tcmlib")


@dataclass(frozen=True)
class Runtime:
    dist: str       # the distribution that installed it
    icd: str        # the name of its .icd file
    library: str    # absolute path of the ICD library


def _dist_files(name: str, path=None):
    """[(file name, absolute path)] of an installed distribution, [] when not installed."""
    from importlib import metadata
    try:
        if path is None:
            dist = metadata.distribution(name)
        else:   # the first found, as importlib's own lookup
            dist = next(iter(metadata.distributions(name=name, path=list(path))))
    except (metadata.PackageNotFoundError, StopIteration):
        return []
    return [(f.name, os.path.normpath(str(dist.locate_file(f)))) for f in dist.files or []]


def pip_runtimes(names=RUNTIMES, path=None) -> list[Runtime]:
    """The ICDs that the distributions `names` installed, with the library each one's .icd
    file names; a placeholder prefix (conda's, which pip does not rewrite) is resolved to the
    library of that name among the distribution's own files."""
    out = []
    for name in names:
        files = _dist_files(name, path)
        libs = {base: full for base, full in files if ".so" in base and os.path.isfile(full)}
        for base, full in files:
            parts = full.replace("\\", "/").split("/")
            if not base.endswith(".icd") or parts[-3:-1] != ["OpenCL", "vendors"]:
                continue
            try:
                with open(full, encoding="utf-8", errors="replace") as f:
                    lib = f.readline().strip()
            except OSError:
                continue
            if not (os.path.isabs(lib) and os.path.isfile(lib)):
                lib = libs.get(os.path.basename(lib), "")
            if lib:
                out.append(Runtime(name, base, os.path.realpath(lib)))
    return out


_MISSING = re.compile(r"([^\s:/]+\.so[.\d]*): cannot open shared object file")


def preload(library: str, names=DEPENDENCIES, path=None, load=None) -> None:
    """Load `library` into the process (RTLD_GLOBAL), first loading each shared library the
    dynamic linker reports missing from the distributions `names`. Libraries found next to it
    (its RUNPATH $ORIGIN, as in one virtual environment) need nothing; an install split over
    two prefixes (a venv over a --user or system one) does. Raises OSError when a dependency
    is in none of them."""
    load = load or (lambda p: ctypes.CDLL(p, mode=ctypes.RTLD_GLOBAL))
    found = {}
    for name in names:
        for base, full in _dist_files(name, path):
            found.setdefault(base, full)
    done = set()

    def _load(p):
        while True:
            try:
                return load(p)
            except OSError as e:
                m = _MISSING.search(str(e))
                dep = m and found.get(m.group(1))
                if not dep or dep in done:
                    raise
                done.add(dep)
                _load(dep)

    _load(library)


def _registered(folder: str) -> dict:
    """{name: first line} of the .icd files in `folder` ({} when it is none)."""
    try:
        names = sorted(n for n in os.listdir(folder) if n.endswith(".icd"))
    except OSError:
        return {}
    out = {}
    for n in names:
        try:
            with open(os.path.join(folder, n), encoding="utf-8", errors="replace") as f:
                out[n] = f.readline().strip()
        except OSError:
            continue
    return out


def base_folder(env) -> str | None:
    """The vendors folder the ICD loader reads under `env`, or None when the environment
    names the drivers itself (see the module's rules)."""
    if not config.value("ICD_SETUP", environ=env):
        return None
    if env.get("OCL_ICD_FILENAMES", "").strip():
        return None
    for var in ("OCL_ICD_VENDORS", "OPENCL_VENDOR_PATH"):
        value = env.get(var, "").strip()
        if value:
            return value if os.path.isdir(value) else None
    return SYSTEM_VENDORS


def unregistered(base: str, runtimes) -> list[Runtime]:
    """The runtimes whose library no .icd file in `base` names (by absolute path), once each."""
    known = {os.path.realpath(lib) for lib in _registered(base).values() if os.path.isabs(lib)}
    out = []
    for rt in runtimes:
        if rt.library not in known:
            known.add(rt.library)
            out.append(rt)
    return out


def vendors_folder(base: str, runtimes, cache_dir: str) -> str:
    """A folder under `cache_dir` holding `base`'s .icd files and one for each of `runtimes`.
    Its name is a hash of its contents: processes that register different sets never share
    one, and an existing one is reused as it is (written once, renamed into place)."""
    entries = _registered(base)
    for rt in runtimes:
        name = f"pip-{rt.dist}-{rt.icd}"
        while name in entries:
            name = "x" + name
        entries[name] = rt.library
    digest = hashlib.sha256(repr(sorted(entries.items())).encode()).hexdigest()[:16]
    root = os.path.join(cache_dir, "ocl-vendors")
    folder = os.path.join(root, digest)
    if _registered(folder) == entries:
        return folder
    os.makedirs(root, exist_ok=True)
    tmp = tempfile.mkdtemp(prefix=".new-", dir=root)
    _write(tmp, entries)
    try:
        os.rename(tmp, folder)
    except OSError:   # another process made it first (same name: same contents) ...
        for name in os.listdir(tmp):
            os.remove(os.path.join(tmp, name))
        os.rmdir(tmp)
        if _registered(folder) != entries:   # ... or a cache cleaner emptied it in part
            _write(folder, entries)
    return folder


def _write(folder: str, entries: dict) -> None:
    for name, lib in entries.items():
        with open(os.path.join(folder, name), "w", encoding="utf-8") as f:
            f.write(lib + "\n")


def setup(env, runtimes, cache_dir: str, load=preload) -> str | None:
    """Apply the module's rules to `env` (a mutable mapping): returns the vendors folder it
    set OCL_ICD_VENDORS to, or None when it left `env` alone."""
    base = base_folder(env)
    if base is None:
        return None
    usable = []
    for rt in unregistered(base, runtimes):
        try:
            load(rt.library)
            usable.append(rt)
        except OSError as e:
            warnings.warn(f"clbig: the OpenCL runtime {rt.library} (from pip's {rt.dist}) cannot "
                          f"be loaded, so it is not registered: {e}", RuntimeWarning, stacklevel=3)
    if not usable:
        return None
    folder = vendors_folder(base, usable, cache_dir)
    env["OCL_ICD_VENDORS"] = folder
    return folder


_lock = threading.Lock()
_done = False


def register() -> str | None:
    """Register pip-installed OpenCL runtimes for this process (and the processes it starts),
    once; see the module's rules. Returns the vendors folder set, or None."""
    global _done
    with _lock:
        if _done:
            return None
        _done = True
        if not sys.platform.startswith("linux"):
            return None
        # Never in the way of the drivers that work without it: any failure is a warning.
        try:
            runtimes = pip_runtimes()
            if not runtimes:
                return None
            from .caches import clbig_folder
            cache = clbig_folder()
            return setup(os.environ, runtimes, cache)
        except Exception as e:  # noqa: BLE001
            warnings.warn(f"clbig: pip-installed OpenCL runtimes stay unregistered: "
                          f"{type(e).__name__}: {e}", RuntimeWarning, stacklevel=3)
            return None
