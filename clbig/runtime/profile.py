"""One profile per context: its settings, its device's facts and its caches, in one place.

Everything a planner above the runtime depends on beyond its arguments is read from
`ctx.profile` (issue 42):

- `settings`: the settings now, one typed snapshot (config.Settings: `mul52_lanes`,
  `scan_q`, ...) whose `version` cache keys hold, so a plan made under other settings is
  never taken for this one;
- `facts`: what the device is (GPU or CPU, compute units, FP64 with an exact fma and at what
  speed, vendor quirks), queried once, since a device query costs a µs or two and planners
  ask for every launch;
- `cache(name)`: a named per-context cache (a dict) from one registry, cleared together by
  `clear()` (or one at a time by name), so no floor above keeps state on the Context object;
- `ptx_refused`: why NVIDIA's compiler refused inline PTX, when it did: from then on the
  kernels of this context are built without it (`carry`), and `python -m clbig info` and the
  profile say so.

Models: CuPy's per-device memoize with one clear_memo, PyOpenCL's characterize (device facts
in one module) and python-flint's context object (settings as checked attributes).
"""
from __future__ import annotations

import re
import threading
from dataclasses import dataclass

import pyopencl as cl

from . import config

# GPUs whose FP64 pipe runs at half the FP32 rate (vendors' data sheets); on others (1/16 to
# 1/64 rate: consumer GPUs) FP64 digit products lose to int32 ones. NVIDIA by compute
# capability (P100, V100, A100, H100/H200, B200), AMD Instinct by gfx name (MI100, MI200,
# MI300), Intel's Data Center GPU Max.
NV_FAST_FP64 = frozenset({(6, 0), (7, 0), (8, 0), (9, 0), (10, 0)})
AMD_FAST_FP64 = ("gfx908", "gfx90a", "gfx940", "gfx941", "gfx942")


@dataclass(frozen=True)
class DeviceFacts:
    """What the planners need to know of a device, queried once per context."""
    is_gpu: bool
    compute_units: int
    max_alloc: int          # bytes of the largest buffer: the device's, within the memory cap
    exact_fma: bool         # double precision with a correctly rounded fma (the FP64 kernels)
    fast_fp64: bool         # FP64 at half the FP32 rate (or a CPU): FP64 digit products win
    nvidia: bool            # NVIDIA's OpenCL: inline PTX (carry chains, shuffles) is offered
    intel_cpu_runtime: bool  # Intel's CPU runtime: vectorizes across work-items itself
    wide_fma: bool = True  # fma on double8 and double16 builds and is exact (see _wide_fma)
    max_args: int = 1024   # bytes of a kernel's arguments (CL_DEVICE_MAX_PARAMETER_SIZE)

    @classmethod
    def of(cls, dev: cl.Device, memory: int) -> "DeviceFacts":
        cpu = bool(dev.type & cl.device_type.CPU)
        platform = dev.platform.name.lower()
        return cls(
            is_gpu=bool(dev.type & cl.device_type.GPU),
            compute_units=int(dev.max_compute_units),
            max_alloc=min(int(dev.max_mem_alloc_size), int(memory)),
            exact_fma=bool(int(getattr(dev, "double_fp_config", 0) or 0) & cl.device_fp_config.FMA),
            fast_fp64=cpu or _fast_fp64_gpu(dev),
            nvidia="nvidia" in platform,
            intel_cpu_runtime=cpu and "intel(r) opencl" in platform,
            wide_fma=_wide_fma(dev),
            max_args=int(dev.max_parameter_size),
        )


def _wide_fma(dev: cl.Device) -> bool:
    """False where fma on vectors of 8 or 16 doubles is known to fail: PyPI's PoCL 3.0 (LLVM
    14) targeting AMD Zen ("znver3" in the device's version, which it also picks for Zen 4)
    aborts the process on double8 ("LLVM ERROR: Cannot select: i64 = fma" in its
    _cl_fma(double8)) and computes wrong products with double16, while double2 and double4 are
    exact (AMD EPYC Zen 4, 2026-11-28: the lanes kernel's tests). An abort cannot be caught,
    so the vector kernels take 4 lanes there (mul_fp64.lanes_plan)."""
    if "portable computing" not in dev.platform.name.lower():
        return True
    llvm = re.search(r"LLVM (\d+)", dev.platform.version or "")
    target = re.search(r"HSTR: \S*-(\w+)\s*$", dev.version or "")
    return not (llvm and int(llvm.group(1)) <= 14 and target and target.group(1).startswith("znver"))


def _fast_fp64_gpu(dev: cl.Device) -> bool:
    cc = None
    if "cl_nv_device_attribute_query" in dev.extensions:
        cc = (dev.compute_capability_major_nv, dev.compute_capability_minor_nv)
    name = dev.name.lower()
    return cc in NV_FAST_FP64 or name.startswith(AMD_FAST_FP64) or "data center gpu max" in name


class Profile:
    """A context's settings, device facts and caches (see the module's doc)."""

    def __init__(self, device: cl.Device, memory: int, carry: str):
        """`carry`: the CARRY setting (auto, ptx, c, off; "" is off). auto: inline PTX where the
        device is NVIDIA's (OpenCL C has no carry flag), else none."""
        self.facts = DeviceFacts.of(device, memory)
        if carry == "auto":
            carry = "ptx" if self.facts.nvidia else "off"
        self._carry = "" if carry == "off" else carry
        self.ptx_refused: str | None = None
        self._caches: dict = {}
        self._lock = threading.Lock()

    @property
    def settings(self) -> config.Settings:
        """The settings now (config.settings(): one snapshot per distinct environment)."""
        return config.settings()

    @property
    def carry(self) -> str:
        """The classical products' carry chains: "ptx", "c" or "" (none); "" once NVIDIA's
        compiler has refused the PTX (`ptx_refused` says why)."""
        return "" if self.ptx_refused is not None and self._carry == "ptx" else self._carry

    def refuse_ptx(self, why: str) -> None:
        """Mark that the compiler refused inline PTX: later builds go without carry chains."""
        if self.ptx_refused is None:
            self.ptx_refused = why

    def cache(self, name: str) -> dict:
        """The per-context cache `name` (a dict, made on first use): the one registry that
        `clear` empties. Values are stored whole in one assignment, so threads sharing a
        context at worst compute one twice."""
        got = self._caches.get(name)
        if got is None:
            with self._lock:
                got = self._caches.setdefault(name, {})
        return got

    def clear(self, *names: str) -> None:
        """Empty the caches named (every cache when none is named): after a tuning run, or a
        test that changes what a cache was computed from."""
        with self._lock:
            for name in names or tuple(self._caches):
                if name in self._caches:
                    self._caches[name].clear()

    def cached(self, name: str, key, make):
        """cache(name)[key], made by make() the first time (None and False included)."""
        c = self.cache(name)
        got = c.get(key, _MISSING)
        if got is _MISSING:
            got = c[key] = make()
        return got

    def __repr__(self):
        f = self.facts
        return (f"Profile({'GPU' if f.is_gpu else 'CPU'}, {f.compute_units} units, "
                f"fp64 {'fast' if f.fast_fp64 else 'slow'}{'' if f.exact_fma else ', no exact fma'}, "
                f"carry {self.carry or 'none'!r}, caches {sorted(self._caches)}, "
                f"settings v{self.settings.version})")


_MISSING = object()
