"""Environment overrides for the Oclgrind case modules (tests/oclgrind_more_*.py), which run
in one process and must leave the environment as they found it."""
from __future__ import annotations

import os
from contextlib import contextmanager


@contextmanager
def env(**kw):
    """Set the variables `kw` (values as str) inside the block; restore or remove them after."""
    saved = {k: os.environ.get(k) for k in kw}
    os.environ.update({k: str(v) for k, v in kw.items()})
    try:
        yield
    finally:
        for k, v in saved.items():
            if v is None:
                os.environ.pop(k, None)
            else:
                os.environ[k] = v


def call_with(variables: dict, fn, *args):
    """fn(*args) with `variables` set (for guarded(tag, call_with, {...}, fn, ...))."""
    with env(**variables):
        return fn(*args)
