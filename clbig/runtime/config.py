"""clbig's settings: every CLBIG_* environment variable is read here.

`env(name)` reads one at a dict lookup's cost. A thread may `watching(seen)`: every setting read
on that thread is noted in the dict `seen` (launch replay keys its recordings by them).
"""
from __future__ import annotations

import contextlib
import os
import threading

_watch = threading.local()


@contextlib.contextmanager
def watching(seen: dict):
    """Note in `seen` (name -> value, first read wins) every setting this thread reads."""
    prev = getattr(_watch, "seen", None)
    _watch.seen = seen
    try:
        yield seen
    finally:
        _watch.seen = prev


def _note(name: str, v) -> None:
    seen = getattr(_watch, "seen", None)
    if seen is not None:
        seen.setdefault(name, v)


def env(name: str, default=None):
    """os.environ.get(name, default) at a dict lookup's cost. The planners read a dozen
    CLBIG_* settings per operation (memo keys included), nearly all unset, and os.environ.get
    pays a raised and caught KeyError for each unset one: ~1 µs a read, 5 µs per memo key of five
    (a 2-core 2.3 GHz Xeon, 2026-11-25), dozens of µs per product of two ints (issue 14).
    Reads the mapping's own store (CPython's os.environ._data, which setting os.environ and
    pytest's monkeypatch update), else os.environ.get."""
    data = getattr(os.environ, "_data", None)
    key = _ENV_KEYS.get(name)
    if data is None or key is None:
        if data is None or not isinstance(name, str):
            v = os.environ.get(name)
            _note(name, v)
            return default if v is None else v
        key = _ENV_KEYS[name] = os.environ.encodekey(name)
    v = data.get(key)
    v = None if v is None else os.environ.decodevalue(v)
    if getattr(_watch, "seen", None) is not None:
        _note(name, v)
    return default if v is None else v


_ENV_KEYS: dict = {}


def env_ints(name: str, default):
    """Tuning override from the environment, e.g. CLBIG_SCAN_Q=8 or CLBIG_MUL_Q=4,8."""
    v = env(name)
    if not v:
        return default
    try:
        got = tuple(int(x) for x in v.split(","))
    except ValueError:
        raise ValueError(f"{name}={v!r}: expected positive integers separated by commas") from None
    if any(x < 1 for x in got):
        raise ValueError(f"{name}={v!r}: expected positive integers separated by commas")
    return got


def env_count(name: str, default: int) -> int:
    """A non-negative integer setting (0 allowed, unlike env_ints: switches such as
    CLBIG_DIVBC_STAGE=0)."""
    v = env(name, "").strip()
    if not v:
        return default
    if not v.isdigit():
        raise ValueError(f"{name}={v!r}: expected a non-negative integer")
    return int(v)


def env_values(names) -> tuple:
    """The raw values of these environment variables: the part of a memo key that makes a
    plan follow a CLBIG_* override set after the first launch (tests and sweeps set them)."""
    return tuple([env(n) for n in names])
