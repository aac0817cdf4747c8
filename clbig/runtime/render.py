"""Kernel templates: Mako rendering, OpenCL builds memoized per context, the context's memo of
launch plans (`memo`) and the one launch path (`launch`).

Compiled binaries are also cached on disk by pyopencl (keyed by source, options and device),
so a second process builds nothing.
"""
from __future__ import annotations

import os
import sys
import threading
import time
from pathlib import Path

import numpy as np
import pyopencl as cl
from mako.lookup import TemplateLookup

from . import binaries, config, replay
from .caches import clbig_folder, usable_folder
from .memo import DoesNotFit, memo, memoized  # noqa: F401 (callers import them from render)
from .profiling import record


def kernel_dir() -> Path:
    """The Mako templates of the clbig being imported: installed, the package clbig.kernels_cl
    (setup.cfg maps the repository's kernels_cl/ there); in a source tree on sys.path, the
    kernels_cl/ beside clbig/. (Not importlib's clbig.kernels_cl: an editable install of
    another checkout would answer for it.)"""
    pkg = Path(__file__).resolve().parents[1]
    for d in (pkg / "kernels_cl", pkg.parent / "kernels_cl"):
        if (d / "blocks").is_dir():
            return d
    raise RuntimeError(f"clbig kernel templates not found in {pkg} or beside it")


_lookup = None


def _templates() -> TemplateLookup:
    """The templates, their compiled Python kept in clbig's user cache folder (mako/): Mako
    compiles each template to a module first, about 20 ms a template, which was half a
    disk-warm first call on PoCL (lcm: 0.26 of 0.46 s, 2026-11-28). One folder per digest of
    the templates: Mako recompiles only a module older than its template, so two clbigs (two
    environments, an older checkout) sharing one folder would render each other's templates
    (seen on the H200: a 'not defined' error from the other version's module). Where the
    folder cannot be written, in memory as before."""
    global _lookup
    if _lookup is None:
        digest = binaries.templates_digest(kernel_dir())
        folder = os.path.join(clbig_folder(), "mako", digest)
        keep = usable_folder(folder) is None
        _lookup = TemplateLookup(directories=[str(kernel_dir())], strict_undefined=True,
                                 module_directory=folder if keep else None)
    return _lookup


def _extra_options() -> list[str]:
    """The CL_OPTIONS setting: compiler options added to every build (e.g. -cl-nv-verbose to
    see register use)."""
    return list(config.value("CL_OPTIONS"))   # a copy: the table's default is one shared list


def render(template: str, **params) -> str:
    return _templates().get_template(template).render(**params)


def kernel(ctx, template: str, name: str, work_group: int | None = None, **params) -> cl.Kernel:
    """The kernel `name` of `template` rendered with `params`, built once per context.

    With `work_group`, checks that this device can run the built kernel at that size (register
    pressure can lower the limit below the device maximum) and raises DoesNotFit otherwise.
    """
    # Warm path: the parameters in the caller's order (one call site passes them in one
    # order), no sort; the outcome of the work-group check is kept with the kernel.
    fast = memo(ctx)
    fkey = (template, name, work_group, ctx.carry, tuple(params.items()))
    got = fast.get(fkey)
    if got is not None:
        if isinstance(got, DoesNotFit):
            raise DoesNotFit(*got.args)
        return got
    try:
        got = _kernel(ctx, template, name, work_group, params)
    except DoesNotFit as e:
        fast[fkey] = DoesNotFit(*e.args)   # without the traceback, whose frames hold ctx
        raise
    fast[fkey] = got
    return got


def built(ctx, template: str, name: str, **params) -> bool:
    """Whether `kernel(ctx, template, name, **params)` would build nothing from source: the
    kernel is in this context, or was built on this device before (runtime.tiers)."""
    params = {"CARRY": ctx.carry, **params}
    key = (template, name, tuple(sorted(params.items())))
    if key in ctx._programs or key in ctx._previous:
        return True
    bkey = binaries.entry_key(binaries.templates_digest(kernel_dir()), template, name, key[2],
                              _extra_options())
    return ctx.binaries.has(bkey)


def _kernel(ctx, template: str, name: str, work_group: int | None, params: dict) -> cl.Kernel:
    params = {"CARRY": ctx.carry, **params}   # a caller may turn the carry chains off
    key = (template, name, tuple(sorted(params.items())))
    k = ctx._programs.get(key)
    if k is None:
        k = _built_once(ctx, template, name, params, key)
        if k is None:   # the compiler refused the inline PTX: this context goes without
            return _kernel(ctx, template, name, work_group, dict(params, CARRY=""))
    if isinstance(k, DoesNotFit):
        raise k
    if work_group is not None:
        if work_group > ctx.max_items:
            raise DoesNotFit(f"{template}: work-group of {work_group} exceeds this context's {ctx.max_items}")
        limit = k.get_work_group_info(cl.kernel_work_group_info.WORK_GROUP_SIZE, ctx.device)
        if work_group > limit:
            raise DoesNotFit(f"{template}: work-group of {work_group} exceeds this kernel's {limit}")
    return k


#: Held while a program is built (from source or from a stored binary) and its kernel made, by
#: every thread and context of the process. NVIDIA's OpenCL (580.159.04 on an H200) crashed the
#: interpreter when 16 threads' first calls built and made kernels side by side (a concurrent
#: warm-up, 2026-11-29), and no runtime at hand compiles faster side by side: NVIDIA's and
#: Intel's builds wait for one another inside the driver, PoCL's partly (bench/README.md,
#: "Builds side by side").
_compiler = threading.Lock()


def _built_once(ctx, template: str, name: str, params: dict, key: tuple):
    """The kernel (or the DoesNotFit) kept under `key`, loaded or built by the first thread that
    asks; a thread asking while that build runs waits for it rather than building it again
    (several threads' first calls), and tries itself where that build failed. None where the
    inline PTX was refused."""
    while True:
        with ctx._building_lock:
            k = ctx._programs.get(key)
            if k is None:
                k = ctx._previous.pop(key, None)   # in use across a turnover: carried over
                if k is not None:
                    _keep(ctx, key, k)
            if k is not None:
                return k
            running = ctx._building.get(key)
            if running is None:
                running = ctx._building[key] = threading.Event()
                break
        running.wait()
    try:
        with _compiler:
            return _load_or_build(ctx, template, name, params, key)
    finally:
        with ctx._building_lock:
            del ctx._building[key]
        running.set()


#: Kernels a context keeps in one generation. Each program holds driver memory (about 4 MB on
#: Intel's CPU runtime: 1,200 operations at random widths held 558 programs and 2.5 GB,
#: 2026-11-29). When a generation is full it becomes the previous one and a new one starts
#: with the launch plans forgotten; a kernel asked for again is carried over from the previous
#: generation without a build, and what was not asked for by the next turnover is freed. So a
#: context holds at most twice this many kernels, and the kernels in use survive a turnover.
PROGRAMS_MAX = 128


def _keep(ctx, key: tuple, k) -> None:
    """ctx._programs[key] = k, turning the generation over first where it is full (the caller
    holds ctx._building_lock)."""
    if len(ctx._programs) >= PROGRAMS_MAX:
        ctx._previous, ctx._programs = ctx._programs, {}
    ctx._programs[key] = k


def _load_or_build(ctx, template: str, name: str, params: dict, key: tuple):
    options = _extra_options()
    bkey = binaries.entry_key(binaries.templates_digest(kernel_dir()), template, name, key[2], options)
    prg = ctx.binaries.load(ctx.cl_context, bkey, options)
    if prg is None:
        prg = _build(ctx, template, name, params, options, bkey)
        if prg is None:
            return None
    k = getattr(prg, name)
    # The device takes a kernel whose local memory exceeds a cap set on the Context (an
    # emulated AMD or Intel limit): refuse it as that device would, once per specialisation.
    used = k.get_work_group_info(cl.kernel_work_group_info.LOCAL_MEM_SIZE, ctx.device)
    if used > ctx.local_mem:
        k = DoesNotFit(f"{template}: {used} bytes of local memory exceed this context's {ctx.local_mem}")
    with ctx._building_lock:
        _keep(ctx, key, k)
    return k


def _build(ctx, template: str, name: str, params: dict, options: list, bkey: str) -> cl.Program | None:
    """The program rendered from the template and built from source, its binary kept on disk
    (binaries.Store); None where the compiler refused the inline PTX (the profile says so)."""
    src = render(template, **params)
    _builds.append((template, name))
    t0 = time.perf_counter()
    try:
        try:
            prg = cl.Program(ctx.cl_context, src).build(options=options)
        except cl.RuntimeError as e:
            if params["CARRY"] != "ptx" or "asm(" not in src:
                raise
            print(f"clbig: inline PTX rejected, going without carry chains ({e})", file=sys.stderr)
            ctx.profile.refuse_ptx(str(e))
            return None
        if config.value("BUILD_LOG"):
            log = prg.get_build_info(ctx.device, cl.program_build_info.LOG).strip()
            print(f"[clbig build] {template} {name} {params}: {log}", file=sys.stderr)
    except cl.RuntimeError as e:
        if "local" in str(e).lower() and "memory" in str(e).lower():
            raise DoesNotFit(str(e)) from e
        raise
    if params.get("MAXREG"):
        prg = _cap_registers(ctx, prg, params["MAXREG"])
    _say_slow_build(ctx, template, time.perf_counter() - t0)
    ctx.binaries.save(bkey, prg)
    return prg


_builds: list = []   # (template, kernel) of every build from source in this process


def builds() -> list:
    """(template, kernel name) of each kernel this process built from source, in order (not
    those found in the caches): `python -m clbig.bench --cold` counts them, and a warm-up's
    promise is that a later process builds none."""
    return list(_builds)


#: A build slower than this many seconds is reported on stderr (a cold kernel cache: the first
#: use of a width compiles its kernels, about a second each on PoCL and up to ~8 s for the
#: widest modular kernels; pyopencl's disk cache serves later processes).
SLOW_BUILD_S = 2.0
_slow_said = {"n": 0, "s": 0.0}


def _say_slow_build(ctx, template: str, seconds: float) -> None:
    if seconds < SLOW_BUILD_S:
        return
    _slow_said["n"] += 1
    _slow_said["s"] += seconds
    print(f"clbig: compiled {template} for {ctx.name} in {seconds:.1f} s (first use of these widths; "
          f"{_slow_said['n']} slow builds, {_slow_said['s']:.0f} s so far in this process; cached on disk "
          "for later runs)", file=sys.stderr)


def ptx_with_maxnreg(ptx: str, regs: int) -> str | None:
    """PTX text with `.maxnreg regs` among every entry's directives (before its body's opening
    brace), or None when the text holds no entry (not PTX)."""
    out, pos = [], 0
    while (i := ptx.find(".entry", pos)) >= 0:
        j = ptx.find("{", i)
        if j < 0:
            return None
        out += [ptx[pos:j], f".maxnreg {int(regs)}\n"]
        pos = j
    return "".join(out + [ptx[pos:]]) if out else None


def _cap_registers(ctx, prg: cl.Program, regs: int) -> cl.Program:
    """prg with at most `regs` registers per work-item where its binary is PTX (NVIDIA's
    OpenCL), rebuilt from that binary; elsewhere prg as it is. A render parameter MAXREG asks
    for it: NVIDIA's compiler fills up to 255 registers per item, which caps a multiprocessor
    at 8 warps, and OpenCL C has no launch bounds; -cl-nv-maxrregcount left its choice as it
    was (H200, 2026-11-25), but .maxnreg in the PTX holds. Any failure keeps prg."""
    try:
        binary = prg.get_info(cl.program_info.BINARIES)[0]
        if b".version" not in binary[:4096] or b".target" not in binary[:4096]:
            return prg   # not PTX (PoCL's, Intel's, AMD's binaries)
        ptx = ptx_with_maxnreg(binary.rstrip(b"\0").decode("ascii"), regs)
        if ptx is None:
            return prg
        return cl.Program(ctx.cl_context, [ctx.device], [ptx.encode("ascii") + b"\0"]).build(
            options=_extra_options())
    except (UnicodeDecodeError, cl.Error) as e:
        print(f"clbig: register cap {regs} not applied ({e})", file=sys.stderr)
        return prg


def largest_fitting(work_group: int, build):
    """(build(wg), wg) for the largest wg, halving from `work_group`, whose kernel fits the
    device (build raises DoesNotFit otherwise); DoesNotFit when not even one work-item fits."""
    while True:
        try:
            return build(work_group), work_group
        except DoesNotFit:
            if work_group == 1:
                raise
            work_group //= 2


def launch(ctx, k: cl.Kernel, groups: int, work_group: int, *args, wait_for=None) -> cl.Event:
    """Enqueue `k` over `groups` work-groups. Kernel objects are shared by every thread using
    the context and hold their arguments between set_args and the enqueue: the pair runs under
    the context's launch lock, or another thread's arguments could run in this launch."""
    rec = replay.active()
    if rec is not None:
        rec.launch(k, groups, work_group, args, wait_for)
    with ctx.launch_lock:
        if not getattr(k, "_clbig_typed", False):
            _declare_scalars(k, args)
        ev = k(ctx.queue, (groups * work_group,), (work_group,), *args, wait_for=wait_for)
    return record(ev)


def _declare_scalars(k: cl.Kernel, args) -> None:
    """Tell pyopencl the kernel's scalar argument types (those of its first launch's numpy
    scalars; a kernel's signature fixes them): it then packs scalars with struct, where an
    undeclared numpy scalar costs ~5 µs per argument per launch (PoCL, 2026-11-24: a launch of
    four scalars 26 -> 4 µs). Runs under the launch lock: it replaces the kernel's invoker."""
    types = [a.dtype if isinstance(a, np.generic) else None for a in args]
    if any(t is not None for t in types):
        k.set_scalar_arg_dtypes(types)
    k._clbig_typed = True
