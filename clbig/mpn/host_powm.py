"""powmod of a few rows on the host's cores: gmpy2.powmod in one thread per core, the GIL
released while GMP computes.

A batch of a few rows does not fill a GPU, and one powmod launch takes the latency of one
instance (clbig.mpz.modular, bench/README.md): there one CPU core running GMP is faster per
row, and every core together faster still. gmpy2 (2.1 and later) releases the GIL inside its
arithmetic where its context's `allow_release_gil` is set; contexts are per thread, so the
pool's threads set it once for themselves, and the calling thread sets it only around its own
row (the user's context is left as it was). An earlier form called libgmp's __gmpz_powm
through ctypes, which converted every operand and result through hexadecimal strings.
"""
from __future__ import annotations

import os
import threading
from concurrent.futures import ThreadPoolExecutor

import gmpy2

_lock = threading.Lock()
_state: dict = {}


def _releasing():
    """A gmpy2 context whose arithmetic releases the GIL."""
    return gmpy2.context(allow_release_gil=True)


def _pool(workers: int) -> ThreadPoolExecutor:
    """The threads, made on first use, each with a GIL-releasing gmpy2 context; anew in a
    forked child, where the parent's threads do not exist (a pool that believes it has them
    would wait for ever)."""
    with _lock:
        pool, pid = _state.get("pool", (None, None))
        if pool is None or pid != os.getpid():
            pool = ThreadPoolExecutor(workers, thread_name_prefix="clbig-powm",
                                      initializer=lambda: gmpy2.set_context(_releasing()))
            _state["pool"] = (pool, os.getpid())
        return pool


def cores() -> int:
    """The host cores this process may run on (asked once per process: a system call on every
    powmod of a few rows was a tenth of clbig's overhead there)."""
    got = _state.get("cores")
    if got is None or got[1] != os.getpid():
        try:
            n = len(os.sched_getaffinity(0))
        except (AttributeError, OSError):
            n = os.cpu_count() or 1
        got = _state["cores"] = (n, os.getpid())
    return got[0]


def powm_rows(av, ev, mv) -> tuple[list[int], int]:
    """[pow(a, e, m) for each row] (e >= 0, m >= 1, any a) and how many threads ran them: one
    row per core at once where there are several rows and cores, else here."""
    av = [int(a) % int(m) for a, m in zip(av, mv)]
    ev, mv = [int(e) for e in ev], [int(m) for m in mv]
    k = min(len(av), cores())
    if k <= 1:
        return [int(gmpy2.powmod(a, e, m)) for a, e, m in zip(av, ev, mv)], 1
    # Each of k threads takes every k-th row, the calling thread one share of them: one
    # thread fewer to wake, which a row of ~0.4 ms (1024 bits) feels. (The calling thread took
    # only the first row before, so on two cores one pool thread ran all the others: 64 rows
    # of 2048 bits took 160 ms, as on one core, against 83 now; 2-core EPYC, 2026-11-29.)
    pool = _pool(max(1, cores() - 1))
    rest = [pool.submit(_rows, av[j::k], ev[j::k], mv[j::k]) for j in range(1, k)]
    out = [0] * len(av)
    with _releasing():
        out[0::k] = _rows(av[0::k], ev[0::k], mv[0::k])
    for j, f in enumerate(rest, 1):
        out[j::k] = f.result()
    return out, k


def _rows(av, ev, mv) -> list[int]:
    return [int(gmpy2.powmod(a, e, m)) for a, e, m in zip(av, ev, mv)]
