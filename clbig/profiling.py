"""Device-side timing: `with clbig.profile() as p: ...` records every kernel clbig launches in
this thread and reports their device time from OpenCL profiling events (host overhead and
transfers excluded)."""
from __future__ import annotations

import threading

_local = threading.local()


class Profile:
    def __init__(self):
        self.events = []

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
        """From the first recorded kernel's start to the last one's end."""
        if not self.events:
            return 0.0
        for e in self.events:
            e.wait()
        start = min(e.profile.start for e in self.events)
        end = max(e.profile.end for e in self.events)
        return (end - start) * 1e-9

    @property
    def kernels(self) -> int:
        return len(self.events)


def profile() -> Profile:
    return Profile()


def record(event):
    for p in getattr(_local, "stack", ()):
        p.events.append(event)
    return event
