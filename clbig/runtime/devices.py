"""OpenCL devices, the clbig Context and the per-thread current context."""
from __future__ import annotations

import collections
import concurrent.futures
import contextlib
import functools
import math
import numbers
import os
import sys
import threading
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np
import pyopencl as cl
import pyopencl.array as cla
import pyopencl.tools as cl_tools
from pyopencl.compyte.array import c_contiguous_strides

from . import binaries, config, cpu_choice, replay, staging
from .profile import Profile
from .errors import SetupError  # noqa: F401 (clbig.SetupError)
from . import tuned as tune
from .tuned import FAMILIES
from .profiling import recording

if TYPE_CHECKING:
    from typing import Sequence

    from numpy.typing import DTypeLike


@dataclass(frozen=True)
class DeviceInfo:
    """One OpenCL device as `clbig.devices()` lists it (a frozen record).

    Pass one to `clbig.Context` to open that device. The fields: `index` (the position in
    `clbig.devices()`, which a Context also takes), `platform` and `name` (the OpenCL
    platform's and device's names), `vendor`, `type` ('GPU', 'CPU', 'ACCELERATOR' or
    'OTHER'), `compute_units`, `local_mem` (bytes of local memory per work-group) and
    `max_work_group_size`.

    Parameters
    ----------
    index : int
        Position in `clbig.devices()`.
    platform, name, vendor, type : str
        As above.
    compute_units, local_mem, max_work_group_size : int
        As the device reports them.

    Examples
    --------
    >>> import clbig
    >>> d = clbig.devices()[0]
    >>> d.index, d.type in ("GPU", "CPU", "ACCELERATOR", "OTHER")
    (0, True)
    >>> d.label == f"{d.platform}: {d.name}"
    True
    """
    index: int
    platform: str
    name: str
    vendor: str
    type: str
    compute_units: int
    local_mem: int
    max_work_group_size: int

    @property
    def label(self) -> str:
        """``"<platform>: <device name>"``, as `Context.name` says it."""
        return f"{self.platform}: {self.name}"


def _type_name(dev) -> str:
    t = dev.type
    if t & cl.device_type.GPU:
        return "GPU"
    if t & cl.device_type.ACCELERATOR:
        return "ACCELERATOR"
    if t & cl.device_type.CPU:
        return "CPU"
    return "OTHER"


def _cl_devices():
    from .icd import register
    check_cache_folder()   # before PoCL reads its cache variables, and clbig/runtime/icd.py writes there
    register()   # pip-installed runtimes (clbig/runtime/icd.py), before the loader's first look
    try:
        platforms = cl.get_platforms()
    except cl.Error:  # no ICD at all: report no devices rather than crash
        return []
    out = []
    for p in platforms:
        try:
            out.extend(p.get_devices())
        except cl.Error:
            continue
    return out


def devices() -> list[DeviceInfo]:
    """Every OpenCL device visible through the installed ICDs, in a stable order.

    The list `python -m clbig info` prints. An index into it, a `DeviceInfo` of it, 'gpu',
    'cpu' or part of a device's name selects a device for `clbig.Context`. Registers the
    pip-installed runtimes first (the ICD_SETUP setting) and checks the kernel cache
    folders.

    Returns
    -------
    list of DeviceInfo
        One per device (empty where no OpenCL runtime is installed).

    Raises
    ------
    SetupError
        Where no usable folder for the compiled kernels can be made, not even a temporary
        one.

    Examples
    --------
    >>> import clbig
    >>> infos = clbig.devices()
    >>> [d.index for d in infos] == list(range(len(infos)))
    True
    """
    return [
        DeviceInfo(i, d.platform.name.strip(), d.name.strip(), d.vendor.strip(), _type_name(d),
                   d.max_compute_units, d.local_mem_size, d.max_work_group_size)
        for i, d in enumerate(_cl_devices())
    ]


@functools.lru_cache(maxsize=None)
def _probe(dev, options: tuple = ()) -> str | None:
    """None when the device's compiler builds a trivial kernel with `options`, else its
    message (with the build log)."""
    try:
        ctx = cl.Context([dev])
        cl.Program(ctx, "__kernel void probe(__global int *x) { x[0] = 1; }").build(options=list(options))
        return None
    except cl.Error as e:
        # pyopencl's text repeats the status three times, then "Build on <device>:" and the log
        msg = str(e).strip()
        status = msg.split(" - ")[0]
        log = msg.split(":\n\n", 1)[1].strip() if "Build on" in msg and ":\n\n" in msg else ""
        return f"{status}\n{log}" if log else msg


def _compiles(dev) -> bool:
    """Whether the device's compiler builds a trivial kernel. PoCL 3.0 from PyPI (LLVM 14)
    fails every build on CPUs its LLVM does not know (AMD Zen 5: "unknown target CPU
    'generic'"), while a distribution's newer PoCL on the same machine works: the default
    choice skips a device that cannot compile rather than fail on the first operation."""
    return _probe(dev) is None


def check_cache_folder() -> None:
    """Make sure the cache folders that pyopencl, pytools and PoCL keep compiled kernels in can
    be used (clbig/runtime/caches.py): an unusable one (HOME or XDG_CACHE_HOME a file, read-only) is
    replaced by a temporary folder with one warning naming it and the variable to set; PoCL
    would list no devices and pytools fail inside the first launch. SetupError only when not
    even a temporary folder can be made."""
    from . import caches
    caches.ensure()


def _pytools_folder() -> str:
    import platformdirs
    if sys.platform == "darwin" and os.getenv("XDG_CACHE_HOME") is not None:
        return os.path.join(os.environ["XDG_CACHE_HOME"], "pytools")
    return platformdirs.user_cache_dir("pytools", "pytools")


def _open_pyopencl_caches() -> None:
    """Import pyopencl's launch-wrapper cache (a pytools sqlite file) now, not at the first
    launch. A corrupt file (sqlite3.DatabaseError) is moved aside with a warning and a fresh
    one started; if that does not help, SetupError names the folder."""
    import sqlite3
    import warnings
    try:
        import pyopencl.invoker  # noqa: F401
        return
    except sqlite3.DatabaseError as e:
        first = e
    folder = _pytools_folder()
    moved = []
    for name in sorted(os.listdir(folder)) if os.path.isdir(folder) else []:
        path = os.path.join(folder, name)
        if not name.endswith(".sqlite"):
            continue
        try:
            con = sqlite3.connect(path)
            try:
                con.execute("PRAGMA schema_version").fetchall()
            finally:
                con.close()
        except sqlite3.DatabaseError:
            try:
                os.replace(path, path + ".corrupt")
                moved.append(path)
            except OSError:
                pass
    if moved:
        warnings.warn(f"clbig: pyopencl's cache file(s) {', '.join(moved)} were corrupt ({first}); "
                      "moved aside as *.corrupt, starting fresh ones", RuntimeWarning, stacklevel=3)
        try:
            import pyopencl.invoker  # noqa: F401,F811
            return
        except sqlite3.DatabaseError as e:
            first = e
    raise SetupError(f"pyopencl's cache in {folder} is corrupt ({first}): delete that folder, or set "
                     "PYOPENCL_NO_CACHE=1 before starting Python") from first


_ALIASES = {"pocl": "portable computing language"}


def _select(selector):
    devs = _cl_devices()
    infos = devices()
    if not devs:
        raise RuntimeError("no OpenCL device found; install one with `pip install clbig[pocl]`")
    if selector is None:
        selector = config.value("DEVICE") or None
    if selector is None:
        # The first GPU whose compiler works, else the CPU runtime that finished the reference
        # job soonest (cpu_choice: measured once per machine), else any device that compiles.
        for kind in ("GPU", "CPU", None):
            got = _first_usable([d for d, info in zip(devs, infos) if kind in (None, info.type)], kind)
            if got is not None:
                return got
        listing = "\n".join(f"  [{i.index}] {i.label} ({i.type})" for i in infos)
        raise RuntimeError(
            "no OpenCL device here can build a kernel:\n" + listing + "\nPoCL 3.0 from PyPI fails "
            "on CPUs its LLVM 14 does not know (AMD Zen 5, 'unknown target CPU generic'): install "
            "your distribution's PoCL (Debian: apt-get install pocl-opencl-icd), or a GPU driver; on "
            "x86-64 Linux, pip install 'clbig[pocl]' also brings Intel's CPU runtime, which clbig "
            f"registers itself ({config.var('ICD_SETUP')}=0 turns that off)")
    if isinstance(selector, cl.Device):
        return selector
    if isinstance(selector, DeviceInfo):
        selector = selector.index
    if isinstance(selector, int) and not isinstance(selector, bool):
        if 0 <= selector < len(devs):
            return devs[selector]
        listing = "\n".join(f"  [{i.index}] {i.label} ({i.type})" for i in infos)
        raise ValueError(f"device index {selector} out of range: there are {len(devs)} devices:\n{listing}")
    elif isinstance(selector, str):
        s = selector.strip().lower()
        if s.isdigit():   # all digits: an index, never a substring of a device's name
            if int(s) < len(devs):
                return devs[int(s)]
            listing = "\n".join(f"  [{i.index}] {i.label} ({i.type})" for i in infos)
            raise ValueError(f"device index {s} out of range: there are {len(devs)} devices:\n{listing}")
        for kind in ("gpu", "cpu"):
            if s == kind:
                of_kind = [d for d, info in zip(devs, infos) if info.type == kind.upper()]
                got = _first_usable(of_kind, kind.upper())   # 'cpu': the default's choice
                if got is not None:
                    return got
                if of_kind:   # none builds: the Context's probe names the first and its compiler error
                    return of_kind[0]
        # "pocl" names PoCL's platform ("Portable Computing Language"), whose device names say
        # only "pthread-<cpu>"; the first such device that builds, as for "cpu".
        want = _ALIASES.get(s, s)
        matches = [d for d, info in zip(devs, infos) if want in info.label.lower()]
        for d in matches:
            if s not in _ALIASES or _compiles(d):
                return d
        if matches:
            return matches[0]
    listing = "\n".join(f"  [{i.index}] {i.label} ({i.type})" for i in infos)
    raise ValueError(f"no OpenCL device matches {selector!r}; available devices:\n{listing}")


def cpu_folder() -> str:
    """Where the CPU runtimes' measurements are kept (cpu_choice.FILE): clbig's user cache."""
    from .caches import clbig_folder
    return clbig_folder()


def _first_usable(candidates: list, kind: str | None):
    """The device of `candidates` (the loader's order) that a selector of `kind` takes, None
    where no compiler works: among CPUs the runtime measured soonest (cpu_choice, every one
    probed), otherwise the first whose compiler works (probed only that far)."""
    if kind != "CPU":
        return next((d for d in candidates if _compiles(d)), None)
    usable = [d for d in candidates if _compiles(d)]
    if not usable:
        return None
    _open_pyopencl_caches()   # the measurement launches a kernel: a corrupt cache is handled first
    return cpu_choice.soonest(usable, cpu_folder())


class Current:
    """`with x:` makes x the current context of this thread (see current_context); contexts
    nest and the previous one comes back on exit. Shared by Context and Devices."""

    def __enter__(self):
        _stack().append(self)
        return self

    def __exit__(self, *exc):
        _stack().pop()
        return False

    def __reduce__(self):
        # An OpenCL device, its queue and its buffers live in this process only (issue 45).
        raise TypeError(f"a clbig {type(self).__name__} cannot be pickled: it holds OpenCL objects "
                        "of this process. Send the arrays (they unpickle onto the receiving "
                        "process's current context) and a device selector (an index, a name, "
                        "clbig.devices()[i]), and open a Context there")


class Context(Current):
    """One OpenCL device, with its compiled kernels and its in-order queue.

    Every array lives on a context, and an operation runs on its operands' context (plain
    ints and lists go to the current one). ``with clbig.Context("nvidia"):`` makes it the
    current context of this thread (`clbig.current_context`); contexts nest and the previous
    one comes back on exit. Without any, a process-wide default opens on first use: the
    DEVICE setting's device, else the first GPU whose compiler works, else the CPU runtime
    that finishes a reference job soonest (runtime/cpu_choice.py; 'cpu' picks the same). A
    Context is thread safe.

    Several devices used as one: ``Context.group([sel, sel, ...])``, or its shorthand
    ``Context([sel, sel, ...])`` (a list or tuple in place of one selector), gives a `Devices`,
    not a Context, whose batches are split over the devices (`Context.all`: every device).

    The attributes a user may read: `device` (the pyopencl Device), `memory` (bytes of
    global memory clbig plans with), `local_mem` (bytes of local memory per work-group) and
    `max_items` (the largest work-group clbig launches), each capped by the arguments below.

    Parameters
    ----------
    device : int, str, DeviceInfo or pyopencl.Device, optional
        Which device: an index into `clbig.devices()`, 'gpu', 'cpu', 'pocl', part of a
        device's name (case-insensitive), a DeviceInfo, or a pyopencl Device; a list or
        tuple of them gives a Devices (as `Context.group`, which then takes `shares` too).
        Default: the DEVICE setting, else the first that compiles.
    max_work_group_size, max_local_mem, max_memory : int, optional
        Caps on the device's limits (tests and tuning: smaller instances then take the
        several-group paths, other vendors' local memory is emulated, batches stream).

    Raises
    ------
    ValueError
        For an index out of range, a selector no device matches, an empty selector, or a
        cap below 1.
    TypeError
        For a selector or cap of another type.
    RuntimeError
        Where no OpenCL device is installed, or none can build a kernel.
    SetupError
        Where the chosen device's compiler fails on a trivial kernel, or the kernel caches
        cannot be used.

    Examples
    --------
    >>> import clbig
    >>> ctx = clbig.current_context()
    >>> with clbig.Context(ctx.device) as other:
    ...     x = clbig.array([1, 2])
    ...     x.ctx is other, clbig.current_context() is other
    (True, True)
    >>> clbig.current_context() is ctx
    True
    >>> (clbig.array([5], ctx=other) + 1).tolist()
    [6]
    """

    def __new__(cls, device=None, **caps):
        # A list of selectors is the shorthand of Context.group: the result is a Devices, not
        # a Context, so Python does not run Context.__init__ on it.
        if isinstance(device, (list, tuple)):
            return cls.group(device, **caps)
        return super().__new__(cls)

    @classmethod
    def group(cls, selectors: Sequence[int | str | DeviceInfo | cl.Device | Context],
              shares: Sequence[float] | dict[str, Sequence[float]] | None = None, **caps: int) -> Devices:
        """Several devices used as one context, a `Devices` (``Context([...])`` for short).

        Parameters
        ----------
        selectors : sequence
            One device selector per device, as `Context` takes them, or open Contexts.
        shares : sequence of float or dict, optional
            Each device's share of every batch, as for `Devices` (default: the tuned speeds).
        **caps : int
            `max_work_group_size`, `max_local_mem`, `max_memory`, for every device opened.

        Returns
        -------
        Devices
            The devices as one context.

        Raises
        ------
        ValueError, TypeError
            As `Devices` raises them (no selector, nested lists, bad shares).

        Examples
        --------
        >>> import clbig
        >>> one = clbig.current_context()
        >>> D = clbig.Context.group([one, one])
        >>> type(D).__name__, len(D), type(clbig.Context([one, one])).__name__
        ('Devices', 2, 'Devices')
        """
        return Devices(selectors, shares=shares, **caps)

    @classmethod
    def all(cls, kind: str | None = None, **caps: int) -> Devices:
        """Every device (of one kind) whose compiler works, as one `Devices`.

        Parameters
        ----------
        kind : {'gpu', 'cpu'}, optional
            Only devices of this type (default: every type).
        **caps : int
            `max_work_group_size`, `max_local_mem`, `max_memory` or `shares`, as for
            `Context` and `Devices`.

        Returns
        -------
        Devices
            The devices as one context.

        Raises
        ------
        ValueError
            For a `kind` other than 'gpu', 'cpu' or None.
        RuntimeError
            Where no device of that kind can build a kernel.

        Examples
        --------
        >>> import clbig
        >>> D = clbig.Context.all()
        >>> len(D) >= 1, len(D.contexts) == len(D)
        (True, True)
        """
        if kind is not None and str(kind).lower() not in ("gpu", "cpu"):
            raise ValueError(f"Context.all: kind must be 'gpu', 'cpu' or None, not {kind!r}")
        check_cache_folder()
        picked = [d for d, info in zip(_cl_devices(), devices())
                  if (kind is None or info.type == str(kind).upper()) and _compiles(d)]
        if not picked:
            raise RuntimeError(f"Context.all({kind!r}): no usable OpenCL device"
                               + (f" of type {kind}" if kind else "") + " (python -m clbig info lists them)")
        return Devices(picked, **caps)

    def __init__(self, device: int | str | DeviceInfo | cl.Device | None = None, *, max_work_group_size: int | None = None,
                 max_local_mem: int | None = None, max_memory: int | None = None) -> None:
        for name, cap in (("max_work_group_size", max_work_group_size), ("max_local_mem", max_local_mem),
                          ("max_memory", max_memory)):
            if cap is not None and (isinstance(cap, bool) or not isinstance(cap, numbers.Integral)):
                raise TypeError(f"{name} must be an integer, got {cap!r}")
            if cap is not None and cap < 1:
                raise ValueError(f"{name} must be positive, got {cap}")
        if device is not None and not isinstance(device, (str, numbers.Integral, DeviceInfo, cl.Device)) \
                or isinstance(device, bool):
            raise TypeError("device must be an index, a name or type string, a DeviceInfo or a "
                            f"pyopencl Device, got {type(device).__name__}")
        if isinstance(device, str) and not device.strip():   # "" would match every name
            raise ValueError("device selector is empty: give an index, 'gpu', 'cpu' or part of a name")
        check_cache_folder()   # before PoCL is asked for devices: it lists none without one
        try:
            self.device = _select(device)
        except ValueError as e:
            if device is None and config.value("DEVICE"):
                raise ValueError(f"{config.var('DEVICE')}={config.value('DEVICE')!r}: {e}") from None
            raise
        # A compiler that fails (PyPI's PoCL on an unknown CPU, options it refuses) is named
        # here rather than at the first operation.
        from .render import _extra_options
        options = tuple(_extra_options())   # ValueError naming the setting for a bad quote
        why = _probe(self.device, options)
        if why:
            opts = (config.env("CL_OPTIONS") or "").strip()
            raise SetupError(f"the OpenCL compiler of {self.device.platform.name.strip()}: "
                             f"{self.device.name.strip()} fails on a trivial kernel"
                             + (f" ({config.var('CL_OPTIONS')}={opts!r})" if opts else "") + f":\n{why}")
        _open_pyopencl_caches()
        # Limits every launch plan reads. Capping the work-group size (for tests or tuning)
        # sends smaller instances down the multi-group paths.
        # Capping local memory emulates other vendors' limits (AMD and Intel GPUs: 32-64 KiB)
        # on any device: plans read it, and render.kernel refuses a kernel that uses more.
        self.local_mem = int(self.device.local_mem_size)
        if max_local_mem is not None:
            self.local_mem = min(self.local_mem, int(max_local_mem))
        # Capping the device memory clbig plans with makes batches stream on small sizes (tests).
        self.memory = int(self.device.global_mem_size)
        if max_memory is not None:
            self.memory = min(self.memory, int(max_memory))
        self.max_items = min(int(self.device.max_work_group_size), 1024)
        if max_work_group_size is not None:
            if max_work_group_size < 1:
                raise ValueError(f"max_work_group_size must be positive, got {max_work_group_size}")
            self.max_items = min(self.max_items, int(max_work_group_size))
        # Carry chains in the classical products (kernels_cl/blocks/conv.mako): inline PTX
        # where NVIDIA's compiler takes it, else none (OpenCL C has no carry flag).
        # The CARRY setting (ptx|c|off) overrides, for every launch (auto leaves latency-bound
        # ones without); "c" runs the same bookkeeping in OpenCL C (tests).
        carry = config.value("CARRY")
        self.carry_always = carry != "auto"
        # The settings, device facts and caches every planner reads (clbig/runtime/profile.py);
        # it resolves "auto" carry chains by the device's vendor.
        self.profile = Profile(self.device, self.memory, carry)
        # Oclgrind, the simulator, checks what the other devices would hide: it gets every
        # kernel built from source, every buffer fresh and unpoisoned (see below).
        sim = "oclgrind" in self.name.lower()
        # Built kernels kept on disk for later processes (binaries.py).
        self.binaries = binaries.Store(None if sim else binaries.folder(config.value("KERNEL_CACHE")),
                                       self.device)
        self.cl_context = cl.Context([self.device])
        # Two in-order queues: a plain one for work, and one with profiling events for the
        # threads inside `clbig.profile()`. NVIDIA's OpenCL charges a profiling queue twice the
        # host time per launch (H200, 2026-11-25, .gpu probe: 14.4 against 6.8 µs; a blocking
        # read's round trip 17 against 10 µs; a 2^20-bit product of two ints 691 against 591
        # µs). A command on the other queue than the last one used waits for everything
        # enqueued before it (see `queue`), so the pair behaves as the single in-order queue
        # every plan assumes, across threads and the pool's buffer reuse too.
        self._plain_queue = cl.CommandQueue(self.cl_context)
        self._timed_queue = None
        self._last_queue = self._plain_queue
        # Choosing this thread's queue (and fencing it behind the other) and enqueueing on it
        # must be one step for other threads: between the two, another thread's switch would
        # fence its queue without this command, and a pooled buffer freed after it could be
        # refilled on the other queue before it ran (tests/test_stress.py caught a sign
        # byte so overwritten). Every enqueue holds this lock (`enqueuing`, `get`, launch).
        self._enqueue_lock = threading.RLock()
        # Events of non-blocking uploads from host memory, oldest first (see `hold`).
        self._held = collections.deque()
        # Kernels and launch plans are memoized on this object (see clbig.runtime.render), and
        # the builds under way, so that two threads wanting one kernel build it once.
        self._programs: dict = {}
        self._previous: dict = {}     # the generation before (render.PROGRAMS_MAX)
        self._building: dict = {}
        self._building_lock = threading.Lock()
        # Every device array clbig makes comes from a pool: a chain of products and additions
        # frees and wants buffers of the same few sizes, and a fresh one costs NVIDIA's driver
        # an allocation on first use while the GPU waits (a batch division by Newton spent a
        # third of its time so). Not under Oclgrind, whose uninitialized-read check must see
        # every buffer new.
        pooled = not sim and not config.value("NO_POOL")
        self.allocator = cl_tools.MemoryPool(cl_tools.ImmediateAllocator(self._plain_queue)) if pooled else None
        # A cached kernel object carries its arguments: setting them and enqueueing it are two
        # calls, so render.launch holds the enqueue lock over the pair.
        self.launch_lock = self._enqueue_lock
        # The POISON setting: every buffer clbig allocates for a result, scratch or staging starts
        # filled with a non-zero pattern, so a kernel that relies on fresh (zeroed) or stale
        # memory fails a test deterministically instead of a user's computation now and then.
        # Not under Oclgrind, whose uninitialized-value check is blinded by a filled buffer.
        self.poison = config.value("POISON") and not sim

    @property
    def carry(self) -> str:
        """The classical products' carry chains now: "ptx", "c" or "" (the profile's)."""
        return self.profile.carry

    @functools.cached_property
    def name(self) -> str:
        """``"<platform>: <device name>"``, as `DeviceInfo.label` says it (asked of the driver
        once: each ask costs microseconds, and host paths name the device in their notes)."""
        return f"{self.device.platform.name.strip()}: {self.device.name.strip()}"

    def __repr__(self):
        return f"clbig.Context({self.name!r})"

    @functools.cached_property
    def index(self) -> int | None:
        """The device's index in `clbig.devices()`: the selector that opens it again in
        another process (a Context itself cannot be sent there); None for a device that list
        does not hold (a pyopencl Device of a platform the loader does not show)."""
        return next((i for i, d in enumerate(_cl_devices()) if d == self.device), None)

    @property
    def queue(self) -> cl.CommandQueue:
        """The queue this thread enqueues on: the profiling one inside `clbig.profile()`, the
        plain one elsewhere. Switching from the queue last used fences the new one behind a
        marker of the old, so commands still run in the order they were enqueued."""
        # Under the enqueue lock: a switch must not come between another thread's choice of
        # its queue and its enqueue (see __init__), even from a caller that only reads the
        # queue (an array's constructor).
        with self._enqueue_lock:
            return self.queue_for(recording())

    def queue_for(self, timed: bool) -> cl.CommandQueue:
        """`queue` for a caller that holds the enqueue lock and knows whether its thread is
        inside a profile (`timed`): replay asks once per run, not once per launch."""
        q = self._plain_queue
        if timed:
            if self._timed_queue is None:
                self._timed_queue = cl.CommandQueue(
                    self.cl_context, properties=cl.command_queue_properties.PROFILING_ENABLE)
            q = self._timed_queue
        if q is not self._last_queue:
            cl.enqueue_barrier(q, wait_for=[cl.enqueue_marker(self._last_queue)])
            self._last_queue = q
        return q

    @contextlib.contextmanager
    def enqueuing(self):
        """This thread's queue, for the commands enqueued inside the block: no other thread's
        command or queue switch comes between choosing it and enqueueing (see __init__)."""
        replay.note_host("a transfer or fill through Context.enqueuing")
        with self._enqueue_lock:
            yield self.queue

    #: `hold` waits for the oldest transfer beyond this many in flight (bounds the host memory
    #: they keep alive)
    HELD_MAX = 64

    def hold(self, event) -> None:
        """Keep a non-blocking transfer's event (pyopencl's NannyEvent, which keeps the host
        memory it reads alive) until the device has done it, without waiting for it. Dropping
        a NannyEvent waits for its transfer: an uploaded operand freed inside an operation was
        a host sync there (PoCL, 2026-11-25: freeing the array of a 2^16-bit int waited 1.6 ms
        for the product queued after its upload). Done ones are let go as new ones come."""
        replay.note_host("an upload")
        done = cl.command_execution_status.COMPLETE
        with self._enqueue_lock:
            held = self._held
            held.append(event)
            while held and (len(held) > self.HELD_MAX or held[0].command_execution_status == done):
                held.popleft()

    def copy(self, dst, src, **kw) -> None:
        """A blocking cl.enqueue_copy (keywords as its own): enqueued under the enqueue lock,
        waited for outside it."""
        replay.note_host("a blocking copy")
        with self._enqueue_lock:
            ev = cl.enqueue_copy(self.queue, dst, src, is_blocking=False, **kw)
        ev.wait()

    def staged(self, nbytes: int, host: np.ndarray | None = None) -> bool:
        """Whether a transfer of `nbytes` to or from `host` (None: a fresh array) goes through
        the staging buffers (clbig.runtime.staging: the STAGING and STAGING_MIN settings): not for
        small ones, not for page-locked arrays, by default only on devices with their own
        memory."""
        how = staging.mode()
        if how == "off" or nbytes < max(1, config.value("STAGING_MIN", staging.MIN_BYTES)):
            return False
        if how == "auto":
            sep = self.__dict__.get("_separate")
            if sep is None:
                sep = self._separate = staging.separate_memory(self.device)
            if not sep:
                return False
        return host is None or not staging.is_pinned(host)

    def _staging(self) -> staging.Staging:
        with self._enqueue_lock:
            st = self.__dict__.get("_staging_pool")
            if st is None:
                st = self._staging_pool = staging.Staging(self)
        return st

    def _staged_get(self, arr: cla.Array, ary: np.ndarray | None) -> np.ndarray | None:
        """`get` through the staging buffers, or None where it does not apply (see staged; a
        strided array or an `ary` of another shape goes pyopencl's way)."""
        if not arr.flags.c_contiguous or not self.staged(arr.nbytes, ary):
            return None
        if ary is not None and (ary.shape != arr.shape or ary.dtype != arr.dtype or not ary.flags.c_contiguous
                                or not ary.flags.writeable):
            return None
        host = np.empty(arr.shape, arr.dtype) if ary is None else ary
        self._staging().download(arr.base_data, host, arr.offset, wait_for=arr.events or None)
        return host

    def get(self, arr: cla.Array, ary: np.ndarray | None = None) -> np.ndarray:
        """A device array's contents on the host (into `ary` when given): the read is enqueued
        under the enqueue lock and waited for outside it. Large reads into pageable memory go
        through the staging buffers (`staged`)."""
        replay.note_host("a host read")
        host = self._staged_get(arr, ary)
        if host is not None:
            return host
        with self._enqueue_lock:
            host, ev = arr.get_async(queue=self.queue, ary=ary)
        ev.wait()
        return host

    def get_many(self, *arrs: cla.Array) -> list[np.ndarray]:
        """Several device arrays on the host in one round trip: every read is enqueued, then
        waited for together (one `get` each would wait for the queue once per array)."""
        replay.note_host("a host read")
        big = [arr.flags.c_contiguous and self.staged(arr.nbytes) for arr in arrs]
        with self._enqueue_lock:
            got = [None if b else arr.get_async(queue=self.queue) for arr, b in zip(arrs, big)]
        staged = [self._staged_get(arr, None) if b else None for arr, b in zip(arrs, big)]
        for g in got:
            if g is not None:
                g[1].wait()
        return [s if b else g[0] for g, s, b in zip(got, staged, big)]

    def finish(self) -> None:
        """Wait until the device has run everything enqueued on this context.

        Operations return once their kernels are enqueued, and reading a result waits for
        them; call this to time work from the host, or before handing the device to other
        code.

        Examples
        --------
        >>> import clbig
        >>> x = clbig.array([3]) * 5
        >>> clbig.current_context().finish()
        """
        replay.note_host("a wait for the queue")
        for q in (self._plain_queue, self._timed_queue):
            if q is not None:
                q.finish()
        with self._enqueue_lock:
            self._held.clear()

    def empty(self, shape, dtype=np.uint32) -> cla.Array:
        """An uninitialized device array from the context's pool: every array clbig makes
        comes from here (or from to_device), so a chain of operations reuses freed buffers."""
        arr = _fast_empty(self, shape, dtype)
        if self.poison and arr.nbytes:
            self._poison(arr.data, arr.nbytes)
        replay.note_alloc("empty", shape, dtype, arr)
        return arr

    def zeros(self, shape, dtype=np.uint32) -> cla.Array:
        """A zeroed device array from the pool, by the runtime's buffer fill (pyopencl's
        cla.zeros launches a cached kernel object of its own, outside clbig's launch lock)."""
        arr = _fast_empty(self, shape, dtype)
        if arr.nbytes:
            with self._enqueue_lock:
                arr.add_event(cl.enqueue_fill_buffer(self.queue, arr.data, np.uint8(0), 0, arr.nbytes))
        replay.note_alloc("zeros", shape, dtype, arr)
        return arr

    def to_device(self, host: np.ndarray) -> cla.Array:
        """A device copy of a host array, from the pool (the copy is blocking). Large copies
        from pageable memory go through the staging buffers (`staged`)."""
        host = np.ascontiguousarray(host)
        arr = _fast_empty(self, host.shape, host.dtype)
        if host.nbytes and self.staged(host.nbytes, host):
            replay.note_host("a blocking copy")
            self._staging().upload(arr.base_data, host, arr.offset)
        elif host.nbytes:
            self.copy(arr.data, host)
        return arr

    def rows_to_device(self, shape: tuple[int, int], fill) -> cla.Array | None:
        """An (n, m) uint32 device array whose rows the host makes straight in the staging
        buffers, a chunk at a time (fill(stage, a, b) writes rows a..b-1 into the uint8 array
        stage) while the last chunk crosses the bus; None, with nothing done, where a transfer
        of this size is not staged (`staged`: then the caller fills a host array itself)."""
        n, m = shape
        if not n * m or not self.staged(4 * n * m):
            return None
        arr = _fast_empty(self, (n, m), np.uint32)
        replay.note_host("a blocking copy")
        self._staging().upload_rows(arr.base_data, n, 4 * m, fill, arr.offset)
        return arr

    def rows_from_device(self, arr: cla.Array, drain) -> bool:
        """Hand the rows of the 2-d device array `arr` to the host through the staging buffers,
        drain(stage, a, b) taking rows a..b-1 from the uint8 array stage while the next chunks
        are read; False, with nothing done, where the read is not staged (`staged`, or a strided
        array)."""
        if arr.ndim != 2 or not arr.size or not arr.flags.c_contiguous or not self.staged(arr.nbytes):
            return False
        replay.note_host("a host read")
        n, m = arr.shape
        self._staging().download_rows(arr.base_data, n, m * arr.dtype.itemsize, drain, arr.offset,
                                      wait_for=arr.events or None)
        return True

    def pinned_empty(self, shape: int | tuple[int, ...], dtype: DTypeLike = np.uint32) -> np.ndarray:
        """An uninitialized host array in page-locked memory of this context.

        A buffer made with ALLOC_HOST_PTR and mapped for as long as the array lives
        (NVIDIA's recipe for pinned transfers): from_limbs(array) and to_limbs(out=array)
        copy it at the bus's speed instead of through the driver's staging copy and a fresh
        array's page faults. `clbig.pinned_empty` calls this on the current context.

        Parameters
        ----------
        shape : int or tuple of int
            The array's shape.
        dtype : numpy dtype, optional
            The element type (default uint32).

        Returns
        -------
        numpy.ndarray
            The array, contents undefined.

        Raises
        ------
        ValueError
            For a negative dimension.

        Examples
        --------
        >>> import clbig
        >>> clbig.current_context().pinned_empty(3).shape
        (3,)
        """
        dt = np.dtype(dtype)
        shp = tuple(int(d) for d in ((shape,) if isinstance(shape, (int, np.integer)) else shape))
        if any(d < 0 for d in shp):
            raise ValueError(f"pinned_empty: negative dimension in shape {shp}")
        size = math.prod(shp)
        buf = cl.Buffer(self.cl_context, cl.mem_flags.READ_WRITE | cl.mem_flags.ALLOC_HOST_PTR,
                        max(size, 1) * dt.itemsize)
        arr, _ = cl.enqueue_map_buffer(self._plain_queue, buf, cl.map_flags.READ | cl.map_flags.WRITE,
                                       0, shp if size else (1,), dt, is_blocking=True)
        return arr if size else arr[:0].reshape(shp)   # no map of 0 bytes: a view of one element

    def buffer(self, nbytes: int):
        """A scratch device buffer from the pool. Never a plain cl.Buffer in a chain of
        launches: NVIDIA's driver blocks the host when one is released while a queued kernel
        still uses it (bench/README.md, host syncs: the whole queue drains), so the device idles
        until the host catches up (Newton division lost a fifth of its time so)."""
        nbytes = max(int(nbytes), 1)
        if self.allocator is not None:
            buf = self.allocator(nbytes)
        else:
            buf = cl.Buffer(self.cl_context, cl.mem_flags.READ_WRITE, nbytes)
        if self.poison:
            self._poison(buf, nbytes)
        replay.note_alloc("buffer", nbytes, None, buf)
        return buf

    _POISON = np.uint8(0xA5)   # every limb 0xA5A5A5A5: neither 0 nor all ones

    def _poison(self, buf, nbytes: int):
        with self._enqueue_lock:
            cl.enqueue_fill_buffer(self.queue, buf, self._POISON, 0, nbytes)

    def free_memory(self) -> None:
        """Give the device memory that clbig's pool holds for reuse back to the driver.

        clbig keeps freed device buffers for the next operation of the same sizes; this
        hands them back (arrays still alive keep theirs). Useful before other code uses the
        device.

        Examples
        --------
        >>> import clbig
        >>> clbig.current_context().free_memory()
        """
        if self.allocator is not None:
            self.allocator.free_held()


def _fast_empty(ctx: "Context", shape, dtype) -> cla.Array:
    """cla.empty through pyopencl's fast constructor (Array(..., _fast=True)), which takes the
    size and C-order strides ready-made: the checked one costs ~8 µs of numpy per array (an
    NTT product makes 11, a Newton division ~90; issue 14). Falls back to cla.empty for shapes
    that are not tuples of non-negative ints and for a pyopencl without that constructor."""
    global _FAST_OK
    dt = np.dtype(dtype)
    shp = (shape,) if type(shape) is int else shape
    if _FAST_OK and type(shp) is tuple and all(type(d) is int and d >= 0 for d in shp):
        try:
            return cla.Array(None, shp, dt, allocator=ctx.allocator,
                             strides=c_contiguous_strides(dt.itemsize, shp), _fast=True,
                             _size=math.prod(shp), _context=ctx.cl_context, _queue=ctx.queue)
        except TypeError:
            _FAST_OK = False
    return cla.empty(ctx.queue, shape, dtype, allocator=ctx.allocator)


_FAST_OK = True
_local = threading.local()
_default = None
_default_lock = threading.Lock()


def _stack():
    if not hasattr(_local, "stack"):
        _local.stack = []
    return _local.stack


def current_context() -> Context | Devices:
    """The context that operations on plain ints and lists use in this thread.

    The innermost ``with clbig.Context(...)`` (or `Devices`) block of this thread, else a
    process-wide default Context, opened on first use (the DEVICE setting's device, else the
    first GPU whose compiler works, else the CPU runtime measured soonest).

    Returns
    -------
    Context or Devices
        The current context.

    Raises
    ------
    RuntimeError
        Where the default must be opened and no OpenCL device can build a kernel.
    ValueError
        Where the DEVICE setting matches no device.
    SetupError
        Where the default device's compiler fails, or the kernel caches cannot be used.

    Examples
    --------
    >>> import clbig
    >>> ctx = clbig.current_context()
    >>> clbig.array([1]).ctx is ctx
    True
    >>> with clbig.Context(ctx.device) as inner:
    ...     clbig.current_context() is inner
    True
    """
    st = _stack()
    if st:
        return st[-1]
    global _default
    with _default_lock:
        if _default is None:
            _default = Context()
        return _default


# -- several devices as one context ------------------------------------------------------------
# A device that would get less than this share of a batch gets none: it could save at most
# that fraction of the time, less than what its piece costs (a thread, the transfers, and on a
# CPU device the host cores the other devices' transfers need). H200 + PoCL on its 16-core
# host, 524288 products of 4096 bits already on the devices: the CPU's 0.4% share made the
# split 0.72x as fast as the GPU alone (bench/multi_gpu.py, 2026-11-24).
MIN_SHARE = 0.05


class Devices(Current):
    """Several devices used as one context: ``clbig.Context.group([sel, sel, ...])``, or
    ``clbig.Context([sel, sel, ...])`` for short.

    `contexts` holds one `Context` per device. ``with`` makes it the current context of this
    thread; arrays made there are `SplitArray`s whose rows are spread over the devices, and
    operations on them split their rows likewise, each piece running on its device in a
    thread of its own. Rows go in proportion to each device's tuned speed for the
    operation's family (``python -m clbig tune``), else equally, or as `shares` says; a
    batch of one value runs on the fastest device. `Context.all` gives every device.

    Parameters
    ----------
    selectors : sequence
        One device selector per device, as `Context` takes them, or open Contexts.
    shares : sequence of float or dict, optional
        Each device's share of every batch (one non-negative number per device, scaled to
        sum to 1), or ``{family: numbers}`` for some operation families; instead of the
        tuned speeds.
    **caps : int
        `max_work_group_size`, `max_local_mem`, `max_memory`, for every device opened.

    Raises
    ------
    ValueError
        For no selector, shares of the wrong count, negative, infinite or all zero, or an
        unknown family.
    TypeError
        For nested lists of selectors, or shares that are not numbers.

    Examples
    --------
    >>> import clbig
    >>> one = clbig.current_context()
    >>> D = clbig.Context([one, one])
    >>> len(D), D.weights("mul"), D.layout(4, "mul")
    (2, [0.5, 0.5], [(0, 0, 2), (1, 2, 4)])
    >>> with D:
    ...     (clbig.array([1, 2, 3, 4]) * 3).tolist()
    [3, 6, 9, 12]
    """

    is_multi = True
    _shares = None      # {family: fractions} given to the context (_checked_shares), else None

    def __init__(self, selectors: Sequence[int | str | DeviceInfo | cl.Device | Context],
                 shares: Sequence[float] | dict[str, Sequence[float]] | None = None, **caps: int) -> None:
        sels = list(selectors)
        if not sels:
            raise ValueError("Context([...]) needs at least one device selector")
        for s in sels:
            if isinstance(s, (list, tuple, Devices)):
                raise TypeError("Context([...]) takes device selectors, not nested lists")
        self._shares = _checked_shares(shares, len(sels))   # before any device is opened
        self.contexts = [s if isinstance(s, Context) else Context(s, **caps) for s in sels]
        # One worker per device for split operations; streaming lanes have threads of their own.
        self._pool = concurrent.futures.ThreadPoolExecutor(len(self.contexts), thread_name_prefix="clbig-devices")

    @property
    def name(self) -> str:
        """The devices' names joined by " + "."""
        return " + ".join(c.name for c in self.contexts)

    def __repr__(self):
        return f"clbig.Context({[c.name for c in self.contexts]!r})"

    def __len__(self):
        return len(self.contexts)

    def __bool__(self):
        return True

    def finish(self) -> None:
        """Wait until every device has run what was enqueued on it (`Context.finish`)."""
        for c in self.contexts:
            c.finish()

    def free_memory(self) -> None:
        """Give every device's pooled memory back to its driver (`Context.free_memory`)."""
        for c in self.contexts:
            c.free_memory()

    def pinned_empty(self, shape: int | tuple[int, ...], dtype: DTypeLike = np.uint32) -> np.ndarray:
        """Page-locked host memory of the first device (Context.pinned_empty): the other
        devices copy it as any host array."""
        return self.contexts[0].pinned_empty(shape, dtype)

    def weights(self, family: str) -> list[float]:
        """Each device's share of a batch of `family` operations: the shares given to the
        context, else its tuned speed, else equal; from tuned speeds, a device whose share would
        be below MIN_SHARE gets none (the others take its rows)."""
        if self._shares and family in self._shares:
            return list(self._shares[family])
        speeds = [tune.speed(c, family) for c in self.contexts]
        if not all(speeds):
            return [1.0 / len(speeds)] * len(speeds)
        w = [s / sum(speeds) for s in speeds]
        kept = [x if x >= MIN_SHARE else 0.0 for x in w]
        if not any(kept):        # more than 1/MIN_SHARE devices of about equal speed
            return w
        return [x / sum(kept) for x in kept]

    def fastest(self, family: str) -> int:
        """The index of the device with the largest share of `family` (the first of ties)."""
        w = self.weights(family)
        return max(range(len(w)), key=lambda i: (w[i], -i))

    def layout(self, n: int, family: str) -> list[tuple[int, int, int]]:
        """(device, start, stop) per non-empty row range; one range on the fastest device for n <= 1."""
        if n <= 1:
            return [(self.fastest(family), 0, n)]
        w = np.cumsum(self.weights(family))
        cuts = [0] + [int(round(n * x)) for x in w[:-1]] + [n]
        return [(d, cuts[d], cuts[d + 1]) for d in range(len(self.contexts)) if cuts[d + 1] > cuts[d]]


def _checked_shares(shares, k: int) -> dict | None:
    """Context([...], shares=...) as {family: k fractions summing to 1}: one sequence of k
    non-negative numbers for every family, or {family: sequence} for some of them."""
    if shares is None:
        return None
    if isinstance(shares, dict):
        unknown = [f for f in shares if f not in FAMILIES]
        if unknown:
            raise ValueError(f"shares: unknown family {unknown[0]!r} (families: {', '.join(FAMILIES)})")
        items = list(shares.items())
    else:
        items = [(f, shares) for f in FAMILIES]
    out = {}
    for fam, seq in items:
        where = f"shares[{fam!r}]" if isinstance(shares, dict) else "shares"
        if isinstance(seq, (str, bytes)) or not hasattr(seq, "__len__"):
            raise TypeError(f"{where} must be a sequence of {k} numbers (one per device), got {type(seq).__name__}")
        seq = list(seq)
        if len(seq) != k:
            raise ValueError(f"{where} has {len(seq)} numbers for {k} devices")
        for i, x in enumerate(seq):
            if isinstance(x, bool) or not isinstance(x, numbers.Real):
                raise TypeError(f"{where}[{i}] must be a number, got {x!r}")
            if not (0 <= x < float("inf")):
                raise ValueError(f"{where}[{i}] = {x!r}: shares are finite and non-negative")
        total = float(sum(seq))
        if total <= 0:
            raise ValueError(f"{where}: every share is zero; at least one device must take rows")
        if total == float("inf"):
            raise ValueError(f"{where}: the shares' sum overflows; give fractions or small numbers")
        out[fam] = [float(x) / total for x in seq]
    return out
