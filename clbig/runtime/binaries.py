"""Built kernels kept on disk, found again by every later process without rendering a template.

pyopencl's own disk cache is keyed by the kernel's source, so a process has to render the Mako
template (compiling it to Python first: about 20 ms a template, 0.26 of the 0.46 s a first
`lcm` took with pyopencl's cache warm on PoCL, 2026-11-28) before it can look a binary up. This
cache keys a binary by what the source is made from instead: the template's name, the kernel's
name and its parameters, the build options, a digest of every template file of this clbig
(so an edited template or another clbig version misses), and the device, its platform and its
driver version (a driver update misses). A hit builds the program from its binary
(clCreateProgramWithBinary) with no rendering at all.

The folder is `kernels/` in clbig's user cache folder (platformdirs; the KERNEL_CACHE setting
moves it, or turns it off with "off"). Each entry is one file written to a temporary name and
renamed, so a reader sees a whole file or none. A file that cannot be read or built from (a
truncated or foreign file) is removed with one warning and the kernel built from source; a
folder that cannot be written is said once, and kernels are then built as before.
"""
from __future__ import annotations

import contextlib
import hashlib
import os
import threading
import warnings
from pathlib import Path

import pyopencl as cl

from .caches import clbig_folder

#: Bytes the folder may hold, over every device; past it, saving prunes the least recently used
#: files down to 3/4 of it (PoCL's binaries are about 110 KB a kernel; a test suite's run
#: builds thousands).
LIMIT = 1 << 30
_CHECK_EVERY = 64   # saves between two looks at the folder's size

_lock = threading.Lock()
_saves = [0]
_said: set = set()              # warnings already given (one per folder and kind)
_digest: str | None = None      # of every template file, made once per process


def templates_digest(kernel_dir: Path) -> str:
    """A digest of every template file's name and bytes (this clbig's kernels)."""
    global _digest
    if _digest is None:
        h = hashlib.sha256()
        for p in sorted(kernel_dir.rglob("*.mako")):
            h.update(str(p.relative_to(kernel_dir)).encode() + b"\0" + p.read_bytes() + b"\0")
        _digest = h.hexdigest()[:16]
    return _digest


def folder(setting: str | None) -> Path | None:
    """The cache folder (None: off). `setting` is the KERNEL_CACHE setting's value."""
    if setting is not None and setting.strip().lower() in ("off", "0", "no", "false"):
        return None
    if setting:
        return Path(setting).expanduser()
    return Path(clbig_folder()) / "kernels"


def device_key(dev: cl.Device) -> str:
    """The device, its platform and its driver, as a folder name."""
    parts = (dev.platform.name, dev.platform.version, dev.name, dev.version, dev.driver_version,
             str(dev.vendor_id))
    return hashlib.sha256("\0".join(p.strip() for p in parts).encode()).hexdigest()[:20]


def entry_key(digest: str, template: str, name: str, params: tuple, options: list) -> str:
    text = repr((digest, template, name, params, tuple(options)))
    return hashlib.sha256(text.encode()).hexdigest()


class Store:
    """One context's view of the cache: its device's folder."""

    def __init__(self, root: Path | None, dev: cl.Device):
        self.dir = None if root is None else root / device_key(dev)
        self.dev = dev
        # PoCL compiles a program's kernels once more (for any work-group size) when asked for
        # its binary: a cold powmod took 6.9 s without and 15.8 s with it (2-core EPYC,
        # 2026-11-28), and a background thread did not hide it. There, only `ahead()` (the
        # warm-up) keeps binaries; other builds rely on PoCL's and pyopencl's own caches.
        # Intel's CPU runtime (4.1 against 4.4 s) and NVIDIA's (PTX at hand) keep them always.
        self.costly = "portable computing language" in dev.platform.name.lower()

    def _warn(self, kind: str, text: str) -> None:
        with _lock:
            if (self.dir, kind) in _said:
                return
            _said.add((self.dir, kind))
        warnings.warn(f"clbig: {text}", RuntimeWarning, stacklevel=4)

    def load(self, cl_context: cl.Context, key: str, options: list) -> cl.Program | None:
        """The program built from the stored binary, or None (absent, or unusable: removed)."""
        if self.dir is None:
            return None
        path = self.dir / (key + ".bin")
        try:
            binary = path.read_bytes()
        except FileNotFoundError:
            return None
        except OSError as e:
            self._warn("read", f"the kernel cache {self.dir} cannot be read ({e}); building kernels "
                               "from source")
            return None
        try:
            if not binary:
                raise ValueError("empty file")
            prg = cl.Program(cl_context, [self.dev], [binary]).build(options=options)
            try:
                os.utime(path)   # recently used: pruned last
            except OSError:
                pass
            return prg
        except (cl.Error, ValueError) as e:
            self._warn("bad", f"a kernel in the cache {self.dir} could not be loaded "
                              f"({type(e).__name__}: {str(e).strip()[:200]}); it is removed and "
                              "built again (further ones are replaced without a word)")
            try:
                path.unlink()
            except OSError:
                pass
            return None

    def has(self, key: str) -> bool:
        """Whether a later `load` of key should find it built: its binary is kept, or (where
        keeping binaries is costly) a mark that it was built here, which the runtime's own
        cache then serves (runtime.tiers: a kernel built before is taken at once)."""
        if self.dir is None:
            return False
        return (self.dir / (key + ".bin")).exists() or (self.dir / (key + ".built")).exists()

    def save(self, key: str, prg: cl.Program) -> None:
        """Keep prg's binary, except where asking for it costs a build (`costly`) outside
        `ahead()`: there an empty mark that it was built (`has`)."""
        if self.dir is None:
            return
        if self.costly and not getattr(_ahead, "on", False):
            try:
                self.dir.mkdir(parents=True, exist_ok=True)
                (self.dir / (key + ".built")).touch()
            except OSError:
                pass    # only a later process's choice of kernel depends on it
            return
        try:
            binary = prg.get_info(cl.program_info.BINARIES)[0]
        except cl.Error:
            return
        if not binary:
            return
        try:   # the whole file or none; a folder that cannot be written is said once
            self.dir.mkdir(parents=True, exist_ok=True)
            tmp = self.dir / f".{key}.{os.getpid()}.{threading.get_ident()}.tmp"
            tmp.write_bytes(binary)
            os.replace(tmp, self.dir / (key + ".bin"))
            _saves[0] += 1
            if _saves[0] % _CHECK_EVERY == 0:
                prune(self.dir.parent)
        except OSError as e:
            self._warn("write", f"the kernel cache {self.dir} cannot be written ({e}); kernels "
                                "are built from source in later processes (set the KERNEL_CACHE "
                                "setting to a writable folder, or off)")


_ahead = threading.local()


@contextlib.contextmanager
def ahead():
    """Builds on this thread keep their binaries on every device, PoCL's too (`clbig.warmup`:
    building ahead of time is the point there)."""
    was = getattr(_ahead, "on", False)
    _ahead.on = True
    try:
        yield
    finally:
        _ahead.on = was


def prune(root: Path, limit: int | None = None) -> None:
    """Remove the least recently used binaries until the folder holds 3/4 of `limit` (LIMIT),
    where it holds more than `limit`."""
    limit = LIMIT if limit is None else limit
    files = []
    for p in (*root.rglob("*.bin"), *root.rglob("*.built")):   # marks weigh nothing: go with their age
        try:
            st = p.stat()
        except OSError:
            continue
        files.append((st.st_mtime, st.st_size, p))
    total = sum(f[1] for f in files)
    if total <= limit:
        return
    for _, size, p in sorted(files):
        try:
            p.unlink()
        except OSError:
            continue
        total -= size
        if total <= limit * 3 // 4:
            break


def usage(root: Path | None) -> tuple[int, int]:
    """(files, bytes) in the cache folder, over every device."""
    if root is None or not root.is_dir():
        return 0, 0
    n = size = 0
    for p in root.rglob("*.bin"):
        try:
            size += p.stat().st_size
            n += 1
        except OSError:
            pass
    return n, size
