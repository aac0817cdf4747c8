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
    """What `clbig.profile()` recorded: the kernels clbig launched inside the ``with`` block.

    `seconds` and `kernels` read the device's own timestamps (OpenCL profiling events) of
    every kernel launched in the block's thread, and in the threads that run its pieces on
    several devices; host work and transfers are not counted. `notes` lists, as strings,
    what happened beside kernels: a batch streamed through the device or pipelined, pieces
    moved between devices.

    Examples
    --------
    >>> import clbig
    >>> x = clbig.array([3, 4])
    >>> with clbig.profile() as p:
    ...     y = x * x
    >>> p.kernels >= 1, p.seconds > 0, p.notes
    (True, True, [])
    """

    def __init__(self) -> None:
        self.events = []
        self.notes = []      # what happened beside kernels (a batch streamed, pieces moved)

    def __enter__(self) -> Profile:
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
        """The number of kernels launched inside the block."""
        return len(self.events)


def profile() -> Profile:
    """Time clbig's kernels on the device: ``with clbig.profile() as p: ...``.

    Inside the block, this thread's commands go to its context's profiling queue (outside,
    to a plain one: profiling events double the host time of every launch on NVIDIA's
    OpenCL), and every kernel clbig launches, in this thread or in the threads that run its
    pieces on several devices, is recorded. After the block, ``p.seconds`` is the device
    time from the first kernel's start to the last one's end (per queue; with several
    devices, whose clocks differ, the longest), ``p.kernels`` their number and ``p.notes``
    what else happened (a batch streamed). Profiles nest; each records what ran inside it.

    Returns
    -------
    Profile
        The recorder, to use as a context manager.

    Raises
    ------
    pyopencl.Error
        Only when reading `seconds`, where the OpenCL runtime fails (a lost device).

    Examples
    --------
    >>> import clbig
    >>> a = clbig.array([2**64 + 1, 7])
    >>> with clbig.profile() as p:
    ...     b = a * a + 1
    >>> p.kernels >= 2, p.seconds > 0
    (True, True)
    """
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
