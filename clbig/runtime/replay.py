"""Launch replay: an mpn function whose launches depend only on its sizes runs its Python once
per size and context, then repeats what that run enqueued.

A single product of 2^20-bit ints spent about half its wall time in clbig's own Python
(H200, 2026-11-25: 561 µs against 215 µs for the same launches enqueued from a list; a
2^20-bit division 5088 against 2424): planning, memo keys, argument lists, a dozen allocations,
repeated for every one of the transform's passes and for every Newton step (issue 14).
`recorded` removes that by design. The first call with a given key (the function's scalar
arguments and which of its buffers are the same buffer) runs as usual while this module notes,
on that thread only, each allocation (Context.empty / zeros / buffer), each launch
(render.launch: kernel, sizes, and every argument as "input j", "allocation i", a constant
registered with `persistent`, or a value). The key holds the settings' version (the
context's profile), so a recording made under other settings is never replayed. Later
calls with the same key make the same allocations and enqueue the same
kernels with their buffers substituted, letting each allocation go after its last launch.

A run is not recorded when it does anything a replay could not repeat: a transfer or a host
read (Context.enqueuing / copy / get / hold / finish: the data then steers the host), a launch
that waits on events, a buffer that is neither an input, an allocation of the run nor a
registered constant, or a constant made during the run (then the next call records). Such a
key is retried once more, then runs plainly for good. Recordings live in the context's memo
(render.memo), so they go with its kernels. The REPLAY setting (0) switches replay off.
"""
from __future__ import annotations

import functools
import math
import threading

import numpy as np
import pyopencl as cl
import pyopencl.array as cla

from .memo import memo
from .profiling import record, recording

_tls = threading.local()

#: runs of one key that may fail to record before it runs plainly for good
TRIES = 2


def active():
    """This thread's recording in progress, or None."""
    return getattr(_tls, "rec", None)


def _consts(ctx) -> dict:
    return ctx.profile.cache("replay constants")


def persistent(ctx, arr):
    """Register a device array (or buffer) that lives as long as `ctx` and never changes once
    made (twiddle tables, division's constants): recordings may then name it as a constant."""
    buf = arr.data if isinstance(arr, cla.Array) else arr
    _consts(ctx)[buf.int_ptr] = buf
    rec = active()
    if rec is not None:
        rec.fail("a constant was made during the run")
    return arr


class _Recording:
    def __init__(self, ctx, inputs: dict):
        self.ctx, self.inputs, self.consts = ctx, inputs, _consts(ctx)
        self.where: dict = {}          # int_ptr of an allocation -> its index
        self.keep: list = []           # the allocations themselves: no pointer is reused
        self.ops: list = []            # ("alloc", kind, shape, dtype) | ("launch", k, groups, wg, spec)
        self.bad: str | None = None

    def fail(self, why: str):
        if self.bad is None:
            self.bad = why

    def alloc(self, kind: str, shape, dtype, obj):
        buf = obj.data if isinstance(obj, cla.Array) else obj
        if buf is not None:          # (an empty array has no buffer)
            self.where[buf.int_ptr] = len(self.keep)
        self.keep.append(obj)
        self.ops.append(("alloc", kind, shape, dtype))

    def launch(self, k, groups: int, wg: int, args, wait_for):
        if wait_for:
            return self.fail("a launch waits on events")
        spec = []
        for a in args:
            if isinstance(a, cl.MemoryObjectHolder):
                p = a.int_ptr
                if p in self.where:
                    spec.append((1, self.where[p]))
                elif p in self.inputs:
                    spec.append((0, self.inputs[p]))
                elif p in self.consts:
                    spec.append((2, self.consts[p]))
                else:
                    return self.fail("a launch reads a buffer that is neither input, scratch nor constant")
            else:
                spec.append((2, a))
        self.ops.append(("launch", k, groups, wg, tuple(spec)))

    def finish(self, result):
        """The replayable program (each scratch allocation let go after the launch that last
        reads it, as the plain run's frees let the pool hand it on), or None."""
        if self.bad is not None:
            return None
        idx = next((i for i, o in enumerate(self.keep) if o is result), None)
        if idx is None or not isinstance(result, cla.Array) or result.offset:
            self.fail("the result is not an array the run allocated")
            return None
        lastpos = {}
        for pos, op in enumerate(self.ops):
            if op[0] == "launch":
                for src, i in op[4]:
                    if src == 1:
                        lastpos[i] = pos
        free_at: dict = {}
        for i, pos in lastpos.items():
            if i != idx:
                free_at.setdefault(pos, []).append(i)
        ops = []
        for pos, op in enumerate(self.ops):
            ops.append(op)
            if pos in free_at:
                ops.append(("free", tuple(free_at[pos])))
        return _Program(tuple(ops), len(self.keep), idx)


class _Program:
    __slots__ = ("ops", "nalloc", "result")

    def __init__(self, ops, nalloc, result):
        # Launches keep (global size, local size) ready. Scratch arrays (every "empty" but the
        # result) come back as bare pool buffers of their byte size: the kernels only see
        # their buffers.
        ready, i = [], 0
        for op in ops:
            if op[0] == "launch":
                op = ("launch", op[1], (op[2] * op[3],), (op[3],), op[4])
            elif op[0] == "alloc":
                if op[1] == "empty" and i != result:
                    shape = (op[2],) if isinstance(op[2], int) else op[2]
                    op = ("alloc", "buffer", np.dtype(op[3]).itemsize * math.prod(shape), None)
                i += 1
            ready.append(op)
        self.ops = tuple(ready)
        self.nalloc, self.result = nalloc, result

    def run(self, ctx, bufs):
        """The recorded launches again, on these input buffers. Leaner than render.launch, whose
        checks hold for every launch of a run once they hold for its first: no recording can be
        active here (a recording runs nested calls plainly), each kernel's scalar types were
        declared when it was recorded, and the profile state is this thread's for the whole
        run. H200, 2026-11-25: render.launch 15.1 us against pyopencl's call 9.0; Context.empty
        5.5 us against a pool buffer's 1.6; ~120 of each in a 2^20-bit division."""
        prof = recording()
        live = [None] * self.nalloc
        data = [None] * self.nalloc
        i = 0
        for op in self.ops:
            tag = op[0]
            if tag == "launch":
                enqueue(ctx, op[1], op[2], op[3],
                        [bufs[v] if s == 0 else (data[v] if s == 1 else v) for s, v in op[4]], prof)
            elif tag == "alloc":
                _, kind, shape, dtype = op
                if kind == "empty":
                    obj = ctx.empty(shape, dtype)
                    data[i] = obj.data
                elif kind == "zeros":
                    obj = ctx.zeros(shape, dtype)
                    data[i] = obj.data
                else:
                    obj = data[i] = ctx.buffer(shape)
                live[i] = obj
                i += 1
            else:
                for j in op[1]:
                    live[j] = data[j] = None
        return live[self.result]


def enqueue(ctx, k, gsize: tuple, lsize: tuple, args: list, prof: bool):
    """One replayed launch: render.launch's enqueue under the context's launch lock, on the
    queue Context.queue would choose (prof: this thread is inside a profile)."""
    with ctx.launch_lock:
        ev = k(ctx.queue_for(prof), gsize, lsize, *args)
    if prof:
        record(ev)


def recorded(name: str, buffers: tuple, state=None):
    """Decorate fn(ctx, *args, **kw) whose launches depend only on its non-buffer arguments
    (and on `state(ctx)`, a hashable, where given: module settings the planners read);
    `buffers` are the positions (in args, after ctx) of its device-buffer inputs (cl.Buffer, or
    an Array at offset 0). It must return one array it allocated."""
    def wrap(fn):
        @functools.wraps(fn)
        def run(ctx, *args, **kw):
            rec = active()
            settings = ctx.profile.settings
            if not settings.replay:
                return fn(ctx, *args, **kw)
            key, bufs, inputs = [name], [], {}
            for i, a in enumerate(args):
                if i in buffers:
                    if isinstance(a, cla.Array):
                        if a.offset:
                            return fn(ctx, *args, **kw)
                        a = a.base_data
                    if not isinstance(a, cl.MemoryObjectHolder):
                        return fn(ctx, *args, **kw)
                    p = a.int_ptr
                    j = inputs.setdefault(p, len(bufs))
                    if j == len(bufs):
                        bufs.append(a)
                    key.append(("buffer", j))
                else:
                    key.append(a)
            if kw:
                key.append(tuple(sorted(kw.items())))
            if state is not None:
                key.append(state(ctx))
            key.append(settings.version)   # recorded under other settings: other launches
            key = tuple(key)
            store = memo(ctx)
            got = store.get(("replay", key))
            if got is not None:
                for prog in got[0]:
                    return prog.run(ctx, bufs)
                if got[1] >= TRIES:
                    return fn(ctx, *args, **kw)
            if rec is not None:      # inside another recording: that one notes what runs here
                return fn(ctx, *args, **kw)
            rec = _tls.rec = _Recording(ctx, inputs)
            try:
                result = fn(ctx, *args, **kw)
            finally:
                _tls.rec = None
            prog = rec.finish(result)
            progs, fails, _ = got if got is not None else ((), 0, None)
            if prog is None:     # (progs, failed recordings, why the last one failed)
                store[("replay", key)] = (progs, fails + 1, rec.bad)
            else:
                store[("replay", key)] = ((prog,), fails, None)
            return result
        return run
    return wrap


# -- hooks called by devices, render and plan -----------------------------------------------
def note_alloc(kind: str, shape, dtype, obj):
    rec = active()
    if rec is not None:
        rec.alloc(kind, shape, dtype, obj)


def note_host(what: str):
    rec = active()
    if rec is not None:
        rec.fail(what)
