"""The folders where compiled kernels are kept, and what happens when they cannot be used.

pyopencl (compiled binaries), pytools (pyopencl's launch wrappers, an sqlite file), PoCL (its
kernel cache) and clbig itself (the ICD vendors folder of clbig/runtime/icd.py, the tuning file) all
keep files in the user cache folder: `XDG_CACHE_HOME`, else `$HOME/.cache` (platformdirs;
`LOCALAPPDATA` on Windows); PoCL uses `POCL_CACHE_DIR` instead where it is set. When such a
folder cannot be used (HOME or XDG_CACHE_HOME naming a regular file, a read-only folder), PoCL
lists no devices and pyopencl fails inside the first launch. None of them needs its cache to
last beyond the process, so clbig then points the variable at a temporary folder (deleted when
the process exits), warns once naming the folder and the variable to set, and computes.

The variables are changed in os.environ, before PoCL is first asked for devices and before
pyopencl's launch-wrapper cache is opened (both read them once): processes started from this
one inherit the temporary folder and do not warn again.
"""
from __future__ import annotations

import atexit
import os
import shutil
import sys
import tempfile
import threading
import warnings
from dataclasses import dataclass

from .errors import SetupError

_lock = threading.Lock()
_temp_root: str | None = None   # this process's temporary cache folder, made at most once
_warned: set = set()            # folders already named in a warning: each is named once


@dataclass(frozen=True)
class Problem:
    folder: str     # the folder that cannot be used
    why: str        # why not (a file, not writable, the OSError)
    variable: str   # the environment variable that names it (or its parent)
    now: str        # that variable's value, for the message


def cache_variable() -> str:
    """The variable that moves the user cache folder on this platform."""
    return "LOCALAPPDATA" if sys.platform == "win32" else "XDG_CACHE_HOME"


def clbig_folder() -> str:
    """clbig's own folder in the user cache (kernels, compiled templates, tuning, the CPU
    runtimes' measurements, the ICD vendors folder)."""
    import platformdirs
    return platformdirs.user_cache_dir("clbig")


def usable_folder(path: str) -> str | None:
    """None when `path` is (or can be made) a writable folder, else why not."""
    up = path
    while up and not os.path.exists(up) and os.path.dirname(up) != up:
        up = os.path.dirname(up)
    if up and os.path.exists(up) and not os.path.isdir(up):
        return f"{up} is a file, not a directory"
    try:
        os.makedirs(path, exist_ok=True)
    except OSError as e:
        return f"{type(e).__name__}: {e.strerror or e}"
    if not os.access(path, os.W_OK | os.X_OK):
        return "not writable"
    return None


def _truthy(value: str | None) -> bool:
    return (value or "").strip().lower() in ("1", "true", "yes", "on", "y", "t")


def problems(env=os.environ) -> list[Problem]:
    """The cache folders under `env` that cannot be used: POCL_CACHE_DIR where set, and the
    user cache folder (unless PoCL has its own folder and pyopencl caches nothing)."""
    import platformdirs
    out = []
    pocl = env.get("POCL_CACHE_DIR")
    if pocl:
        why = usable_folder(pocl)
        if why:
            out.append(Problem(pocl, why, "POCL_CACHE_DIR", f"POCL_CACHE_DIR is now {pocl!r}"))
    if not (pocl and _truthy(env.get("PYOPENCL_NO_CACHE"))):
        var = cache_variable()
        # pyopencl and pytools read XDG_CACHE_HOME on macOS too, where platformdirs does not
        folder = (env[var] if sys.platform == "darwin" and env.get(var)
                  else platformdirs.user_cache_dir())
        why = usable_folder(folder)
        if why:
            now = (f"{var} is now {env[var]!r}" if env.get(var)
                   else f"{var} is unset and HOME is {env.get('HOME')!r}")
            out.append(Problem(folder, why, var, now))
    return out


def _temporary_root() -> str:
    """This process's temporary cache folder, made on the first call; removed at exit."""
    global _temp_root
    if _temp_root is None or not os.path.isdir(_temp_root):
        _temp_root = tempfile.mkdtemp(prefix="clbig-cache-")
        atexit.register(shutil.rmtree, _temp_root, True)
    return _temp_root


def _describe(found: list[Problem]) -> str:
    return "; ".join(f"the cache folder {p.folder} cannot be used ({p.why}; {p.now})" for p in found)


def ensure(env=os.environ) -> str | None:
    """Check the cache folders (see the module's doc); for each unusable one point its variable
    at a temporary folder and warn, once for all of them. Returns the temporary folder, or None
    when every folder is usable. Raises SetupError when not even a temporary folder can be made
    (PoCL would list no devices). Cheap when nothing is wrong: a few stat calls."""
    found = problems(env)
    if not found:
        return None
    with _lock:
        found = problems(env)   # another thread may have moved them meanwhile
        if not found:
            return None
        try:
            root = _temporary_root()
            for p in found:
                sub = os.path.join(root, "pocl" if p.variable == "POCL_CACHE_DIR" else "user")
                os.makedirs(sub, exist_ok=True)
                env[p.variable] = sub
        except OSError as e:
            raise SetupError(f"{_describe(found)}; pyopencl, pytools and PoCL keep compiled kernels "
                             f"there, and no temporary folder could be made instead ({e}): set "
                             + " and ".join(sorted({p.variable for p in found}))
                             + " to a writable folder") from e
        fresh = [p for p in found if p.folder not in _warned]
        _warned.update(p.folder for p in found)
    if not fresh:   # a platform where the variable does not move the folder (Windows)
        return root
    names = " and ".join(sorted({p.variable for p in fresh}))
    warnings.warn(f"clbig: {_describe(fresh)}. Compiled kernels (and `python -m clbig tune`'s results) "
                  f"go to the temporary folder {root} for this process and those it starts, and are "
                  f"built again next time: set "
                  f"{names} to a writable folder to keep them", RuntimeWarning, stacklevel=3)
    return root
