"""Device-side timing: `with clbig.profile() as p: ...` records every kernel clbig launches in
this thread (and in the threads that run its pieces on several devices) and reports their
device time from OpenCL profiling events (host overhead and transfers excluded). Inside one,
this thread's commands go to its context's profiling queue; outside, to a plain one, since
profiling events double the host time of every launch on NVIDIA's OpenCL (clbig.devices)."""
from __future__ import annotations

import contextlib
import threading

_local = threading.local()


class Profile:
    def __init__(self):
        self.events = []
        self.notes = []      # what happened beside kernels (a batch streamed, pieces moved)

    def __enter__(self):
        if not hasattr(_local, "stack"):
            _local.stack = []
        _local.stack.append(self)
        return self

    def __exit__(self, *exc):
        _local.stack.remove(self)
        return False

    @property
    def seconds(self) -> float:
        """From the first recorded kernel's start to the last one's end, per queue; with
        several devices (whose clocks differ) the longest of them."""
        spans = {}
        for e in self.events:
            e.wait()
            q = e.command_queue.int_ptr
            lo, hi = spans.get(q, (e.profile.start, e.profile.end))
            spans[q] = (min(lo, e.profile.start), max(hi, e.profile.end))
        return max(((hi - lo) * 1e-9 for lo, hi in spans.values()), default=0.0)

    @property
    def kernels(self) -> int:
        return len(self.events)


def profile() -> Profile:
    return Profile()


def recording() -> bool:
    """Whether this thread is inside a profile (its launches then go to a profiling queue)."""
    return bool(getattr(_local, "stack", None))


def record(event):
    for p in getattr(_local, "stack", ()):
        p.events.append(event)
    return event


def note(text: str):
    for p in getattr(_local, "stack", ()):
        p.notes.append(text)


def active() -> list:
    """This thread's open profiles (to hand to the threads that work for it)."""
    return list(getattr(_local, "stack", ()))


@contextlib.contextmanager
def adopted(profiles: list):
    """Record into `profiles` (another thread's) while inside."""
    if not hasattr(_local, "stack"):
        _local.stack = []
    _local.stack.extend(profiles)
    try:
        yield
    finally:
        del _local.stack[len(_local.stack) - len(profiles):]
