"""gmpy2 on every core: a function over a batch's rows in a pool of processes, timed.

The user's alternative to a device is not only GMP on one core but GMP on every core of the
same host (the project's standard asks for both, in the same run). Each bench that has such a
column runs it through `pool_map`.
"""
from __future__ import annotations

import multiprocessing
import time


def pool_map(fn, items: list, workers: int, initializer=None, initargs=()) -> tuple[list, float]:
    """(results, seconds) of fn over items in a pool of `workers` processes, eight chunks a
    worker (fn takes a list of items and returns a list). fork: the workers inherit the
    caller's state (keys, imports). The workers are started and warmed before the timing;
    the time includes sending the items and receiving the results."""
    size = max(1, len(items) // (workers * 8))
    chunks = [items[i:i + size] for i in range(0, len(items), size)]
    with multiprocessing.get_context("fork").Pool(workers, initializer=initializer,
                                                  initargs=initargs) as pool:
        pool.map(fn, chunks[:workers])            # the workers are up and warm
        t0 = time.perf_counter()
        parts = pool.map(fn, chunks)
        t = time.perf_counter() - t0
    return [x for p in parts for x in p], t
