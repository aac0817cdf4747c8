"""powmod of a few rows on the host's cores, through GMP's mpz_powm with the GIL released.

A batch of a few rows does not fill a GPU, and one powmod launch takes the latency of one
instance (clbig.mpz.modular, bench/README.md): there one CPU core running GMP is faster per
row, and every core together faster still. gmpy2 holds the GIL while it computes, so threads
calling gmpy2.powmod run one at a time; ctypes releases the GIL for the length of each foreign
call, so threads calling libgmp's own __gmpz_powm through ctypes run on every core at once.

The library is gmpy2's own copy of libgmp where its wheel bundles one (the same GMP that
gmpy2 runs), else the system's. It is used only where its memory functions are GMP's
defaults (malloc), which hold no Python lock: a GMP whose allocator someone pointed at
Python's heap would need the GIL, and then powm_rows computes with gmpy2 in this thread.
Where no libgmp loads, the same: every result is gmpy2.powmod's either way.
"""
from __future__ import annotations

import ctypes
import ctypes.util
import glob
import os
import threading
from concurrent.futures import ThreadPoolExecutor

import gmpy2


class _Mpz(ctypes.Structure):
    # GMP's __mpz_struct: int _mp_alloc, int _mp_size, mp_limb_t *_mp_d (stable since GMP 4)
    _fields_ = [("alloc", ctypes.c_int), ("size", ctypes.c_int), ("d", ctypes.c_void_p)]


_lock = threading.Lock()
_state: dict = {}


def _candidates():
    libs = os.path.join(os.path.dirname(os.path.dirname(gmpy2.__file__)), "gmpy2.libs")
    yield from sorted(glob.glob(os.path.join(libs, "libgmp-*.so*")))
    found = ctypes.util.find_library("gmp")
    if found:
        yield found


def _load():
    """libgmp through ctypes with its argument types set, or None (see the module doc)."""
    for path in _candidates():
        try:
            lib = ctypes.CDLL(path)
            get = lib.__gmp_get_memory_functions
            default = ctypes.cast(lib.__gmp_default_allocate, ctypes.c_void_p).value
        except (OSError, AttributeError):
            continue
        alloc, realloc, free = ctypes.c_void_p(), ctypes.c_void_p(), ctypes.c_void_p()
        get(ctypes.byref(alloc), ctypes.byref(realloc), ctypes.byref(free))
        if alloc.value != default:
            continue                    # an allocator someone else chose: maybe Python's heap
        P = ctypes.POINTER(_Mpz)
        for name, args, res in (("__gmpz_init", [P], None), ("__gmpz_clear", [P], None),
                                ("__gmpz_set_str", [P, ctypes.c_char_p, ctypes.c_int], ctypes.c_int),
                                ("__gmpz_get_str", [ctypes.c_char_p, ctypes.c_int, P], ctypes.c_char_p),
                                ("__gmpz_sizeinbase", [P, ctypes.c_int], ctypes.c_size_t),
                                ("__gmpz_powm", [P, P, P, P], None)):
            fn = getattr(lib, name)
            fn.argtypes, fn.restype = args, res
        return lib
    return None


def _lib():
    with _lock:
        if "lib" not in _state:
            _state["lib"] = _load()
        return _state["lib"]


def _pool(workers: int) -> ThreadPoolExecutor:
    """The threads, made on first use; anew in a forked child, where the parent's threads do
    not exist (a pool that believes it has them would wait for ever)."""
    with _lock:
        pool, pid = _state.get("pool", (None, None))
        if pool is None or pid != os.getpid():
            pool = ThreadPoolExecutor(workers, thread_name_prefix="clbig-powm")
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


def _row(lib, a: int, e: int, m: int) -> int:
    """a^e mod m by libgmp (a, e >= 0, m >= 1), the GIL released inside __gmpz_powm."""
    z = (_Mpz * 4)()
    for x in z:
        lib.__gmpz_init(x)
    try:
        for x, v in zip(z[1:], (a, e, m)):
            lib.__gmpz_set_str(x, format(v, "x").encode(), 16)
        lib.__gmpz_powm(z[0], z[1], z[2], z[3])
        buf = ctypes.create_string_buffer(lib.__gmpz_sizeinbase(z[0], 16) + 2)
        lib.__gmpz_get_str(buf, 16, z[0])
        return int(buf.value, 16)
    finally:
        for x in z:
            lib.__gmpz_clear(x)


def powm_rows(av, ev, mv) -> tuple[list[int], int]:
    """[pow(a, e, m) for each row] (e >= 0, m >= 1, any a) and how many threads ran them:
    GMP on every core where libgmp loads and there are several rows, else gmpy2 here."""
    av = [int(a) % int(m) for a, m in zip(av, mv)]
    ev, mv = [int(e) for e in ev], [int(m) for m in mv]
    k = min(len(av), cores())
    lib = _lib() if k > 1 else None
    if lib is None:
        return [int(gmpy2.powmod(a, e, m)) for a, e, m in zip(av, ev, mv)], 1
    # The calling thread computes the first row itself while the pool's threads take the rest:
    # one thread fewer to wake, which a row of ~0.2 ms (1024 bits) feels.
    pool = _pool(max(1, cores() - 1))
    rest = [pool.submit(_row, lib, a, e, m) for a, e, m in zip(av[1:], ev[1:], mv[1:])]
    first = _row(lib, av[0], ev[0], mv[0])
    return [first] + [f.result() for f in rest], k
