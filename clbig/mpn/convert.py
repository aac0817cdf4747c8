"""Python ints / gmpy2 mpz <-> (n, m) uint32 limb matrices and signs, in bulk.

clbig keeps integers as sign and magnitude: an (n, m) matrix of little-endian 32-bit limbs
holding the magnitudes, and a bool vector, true where a value is negative. This module makes
that pair from a batch of Python ints and back:

- `scan(values, bits)` checks every value (TypeError naming the index of a non-integer or a
  bool, OverflowError naming the first value that does not fit `bits`) and finds the capacity
  and the signs; `pack(scanned)` writes the limbs. `from_ints` does both.
- `to_ints(limbs, neg, mpz=False)` gives the list of ints back (gmpy2 mpz with mpz=True).

Two implementations give the same results: the C extension clbig.mpn._limbs (clbig/mpn/_limbs.c: the
digits of CPython's ints re-cut into limbs, no per-value Python code), and, where it was not
built (no compiler, another interpreter or version) or the PURE_PYTHON setting is on, the
fastest pure Python measured (int.to_bytes / int.from_bytes through map, without a Python loop
per value). `native()` says which one runs; every function takes pure=True to force Python.
The extension is checked against int.to_bytes on first use and left unused if it disagrees.

A large batch is converted by several threads, each a range of rows (issue 47). On POSIX
builds they are the extension's own native threads (`native_threads()`): they never touch the
interpreter, so a list is read in place while the caller holds the interpreter lock, and no
tuple of the values, Python pool or lock handoff is needed. Elsewhere a Python pool runs the
ranges, the extension re-cutting digits and limbs without the interpreter lock over a tuple of
the values. Values are checked by ranges on the threads too (_scan_threads) where all are exact
ints; ints made without the lock (raw_ints) are made on the threads, and otherwise wide results
are made on the calling thread while the pool fills their digits (_unpack_deferred). Small
batches stay on the calling thread, where sharing out costs more than it saves (THREAD_LIMBS).
`pack_range` writes one chunk of rows into a buffer of its own: clbig.array packs a list
straight into the staging buffers of a GPU transfer (runtime.staging).
"""
from __future__ import annotations

import numbers
import os
import reprlib
import threading
import warnings
from concurrent.futures import ThreadPoolExecutor
from itertools import repeat

import gmpy2
import numpy as np

from ..runtime import config

try:
    from . import _limbs
except ImportError:   # not built: the pure-Python path
    _limbs = None

LIMB_BITS = 32
#: gmpy2's mpz type, for isinstance (`gmpy2.mpz` itself is a function in some gmpy2 versions):
#: the package's one definition, here at the lowest floor that checks for it.
MPZ = type(gmpy2.mpz(0))

#: Force the pure-Python path (tests set the module attribute). The PURE_PYTHON setting is read
#: once, at import, from config.settings() and not from a context's profile: it decides which
#: implementation of the conversions this module runs, for every context alike.
PURE = config.settings().pure_python
_checked: bool | None = None


def native() -> bool:
    """Whether conversions run in the C extension (built, checked, and not PURE)."""
    return not PURE and _c_ok()


def _c_ok() -> bool:
    global _checked
    if _checked is None:
        if _limbs is None:
            warnings.warn(MISSING, RuntimeWarning, stacklevel=4)
        _checked = _limbs is not None and _self_check()
    return _checked


#: Said once, at the first conversion, where the extension was not built (issue 47: the pure
#: Python path is 3-5x slower, and was taken without a word).
MISSING = ("clbig: the C extension clbig.mpn._limbs is not built (no C compiler or Python "
           "headers when clbig was installed, or an interpreter it does not support), so Python "
           "ints convert to limbs and back in pure Python, several times slower. Install a C "
           "compiler and the Python headers (Debian: apt-get install gcc python3-dev) and "
           f"reinstall clbig; {config.var('PURE_PYTHON')}=1 chooses the pure-Python path "
           "without this warning. `python -m clbig info` says which one runs.")


def describe() -> str:
    """Which conversion runs, for `python -m clbig info`."""
    if PURE:
        return "pure Python (the PURE_PYTHON setting)"
    if _limbs is None:
        return "pure Python: the C extension clbig.mpn._limbs is not built (see the README's install notes)"
    if not _c_ok():
        return "pure Python: the C extension disagreed with this interpreter's ints"
    made = ("ints made without the interpreter lock" if raw_ints() else
            f"ints made under the interpreter lock ({config.var('CONVERT_RAW_INTS')} off, or "
            "Python's allocators hooked: debug hooks, -X dev, tracemalloc)")
    how = "the extension's native threads" if native_threads() else "a Python thread pool"
    mpz = ("gmpy2's mpz made directly, their limbs written on the threads" if made_direct()
           else "gmpy2's mpz made from ints")
    return (f"C extension clbig.mpn._limbs, large batches on {threads()} thread(s) "
            f"({config.var('CONVERT_THREADS')}) of {how}; {made}; {mpz}")


#: Values around every digit (30 bits) and limb (32, 64 bits) edge, signed, below 2^512: the
#: extension's checks against Python's and gmpy2's own conversions at first use.
EDGE_VALUES = [0, 1, -1, 2**30 - 1, 2**30, 2**32 - 1, 2**32, -(2**32), 2**63, -(2**63),
               2**64 - 1, -(2**64 - 1), -(2**64), 2**64 + 5, 3**200, -(3**200), (1 << 480) - 1,
               2**479 + 12345]


def _self_check() -> bool:
    """The extension against int.to_bytes/from_bytes on values around every digit and limb
    edge; a disagreement (an interpreter whose int layout it misreads) disables it."""
    vals = EDGE_VALUES
    try:
        m = 16
        out = np.empty((len(vals), m), np.uint32)
        _, negs, _ = _limbs.scan(vals, None)
        _limbs.pack(vals, out, m)
        want = b"".join(abs(v).to_bytes(4 * m, "little") for v in vals)
        ok = (out.astype("<u4").tobytes() == want
              and _limbs.unpack(out, len(vals), m, negs, None) == vals
              and list(negs) == [v < 0 for v in vals])
    except Exception as e:   # noqa: BLE001 - any failure means: do not use it
        ok, why = False, repr(e)
    else:
        why = "results differ from int.to_bytes"
    if not ok:
        warnings.warn(f"clbig.mpn._limbs disagrees with this interpreter ({why}); "
                      "using the pure-Python conversion", RuntimeWarning, stacklevel=3)
    return ok


def _use_c(pure) -> bool:
    return not (PURE if pure is None else pure) and _c_ok()


def limbs_for(bits: int) -> int:
    return max(1, -(-bits // LIMB_BITS))


# -- threads ---------------------------------------------------------------------------------

#: Batches of fewer limbs are converted on the calling thread; larger ones in ranges of at
#: least this many limbs per thread (a task costs tens of µs; 2^16 limbs take ~100 µs).
THREAD_LIMBS = 1 << 16
#: Values of fewer limbs stay on one thread. Ints to limbs: below 4 limbs the per-value work
#: is too small to share. Limbs to ints: making each new int (the interpreter lock held) costs
#: about as much as filling its digits (without it) up to thousands of bits, so threads only
#: queue for the lock (2 cores, 2026-11-28: 200,000 of 2048 bits 49 ms on one thread, 55 on
#: two; 2000 of 65536 bits 12.6 against 7.9 ms). On the H200's 16-core host (2026-11-28)
#: 4096 rows of 16384 bits came back in 6.3 ms on 16 threads against 4.7 on one, where 8192
#: rows of 65536 bits ran 7.7x faster: from 2^15 bits, and ranges of 2^18 limbs or more.
PACK_THREAD_MIN_LIMBS = 4
UNPACK_THREAD_MIN_LIMBS = 1024
UNPACK_TASK_LIMBS = 1 << 18
RANGES_PER_THREAD = 2
_pool = {"pool": None, "pid": None, "size": 0}
_pool_lock = threading.Lock()


def threads() -> int:
    """Threads a large conversion may use: the CONVERT_THREADS setting, else the cores this
    process may run on."""
    n = config.settings().convert_threads
    if n:
        return n
    try:
        return len(os.sched_getaffinity(0))
    except (AttributeError, OSError):
        return os.cpu_count() or 1


def _ranges(n: int, m: int, min_limbs: int, task_limbs: int | None = None) -> list | None:
    """Row ranges for the threads of a conversion of n rows of m limbs; None for one thread.
    Several ranges a thread: the parts that hold the interpreter lock (making ints, reading a
    list) then overlap with other threads' lock-free parts instead of queueing behind them."""
    task_limbs = THREAD_LIMBS if task_limbs is None else task_limbs
    if m < min_limbs or n * m < 2 * task_limbs:     # before threads(): it costs ~2 µs
        return None
    t = threads()
    if t < 2:
        return None
    tasks = min(n, n * m // task_limbs, RANGES_PER_THREAD * t)
    step = -(-n // tasks)
    return [(a, min(n, a + step)) for a in range(0, n, step)]


def _executor(size: int) -> ThreadPoolExecutor:
    """The conversions' thread pool, made again after a fork (the child has none of the
    parent's threads: a pool copied across would never run a task) or to grow."""
    with _pool_lock:
        p = _pool
        if p["pool"] is None or p["pid"] != os.getpid() or p["size"] < size:
            if p["pool"] is not None and p["pid"] == os.getpid():
                p["pool"].shutdown(wait=False)
            p.update(pool=ThreadPoolExecutor(size, thread_name_prefix="clbig-convert"),
                     pid=os.getpid(), size=size)
        return p["pool"]


def native_threads() -> bool:
    """Whether the extension runs a conversion's ranges on native threads of its own (POSIX
    builds): then a list is read in place, the interpreter lock held by the caller while the
    threads work, and no Python thread pool, tuple of the values or lock handoff is needed."""
    return bool(getattr(_limbs, "threads", bool)())


def _pack_rows(vals, out: np.ndarray, m: int, start: int = 0, stop: int | None = None) -> None:
    """_limbs.pack of every row of vals into out (which holds them all), or with `stop` of rows
    start..stop-1 into an out that holds just those; by ranges on several threads for a large
    batch (native threads, or a Python pool over a tuple, which the extension reads without
    the interpreter lock)."""
    first = -1 if stop is None else start       # the row out's first row holds
    stop = len(vals) if stop is None else stop
    ranges = _ranges(stop - start, m, PACK_THREAD_MIN_LIMBS)
    if ranges is None:
        _limbs.pack(vals, out, m, start, stop, first)
        return
    if native_threads():
        _limbs.pack(vals, out, m, start, stop, first, threads(), len(ranges))
        return
    base = () if first < 0 else (first,)
    tup = vals if type(vals) is tuple else tuple(vals)
    pool = _executor(threads())
    for f in [pool.submit(_limbs.pack, tup, out, m, start + a, start + b, *base) for a, b in ranges]:
        f.result()


#: Where ints are made without the lock (raw_ints), limbs to ints share out like ints to limbs,
#: from 3 limbs (values of 64 bits or fewer are CPython's own ints, made under the lock).
#: H200 host, 16 threads, 2026-11-30: 2048 bits 0.85-1.05 -> 5.6-6.0 GB/s, 512 bits 0.83-0.85
#: -> 1.4 GB/s (bench/README.md, "Ints made without the interpreter lock").
RAW_THREAD_MIN_LIMBS = 3


def raw_ints() -> bool:
    """Whether limbs to ints make their ints without the interpreter lock, on every thread
    (the CONVERT_RAW_INTS setting, and the extension's check that Python's object and raw
    allocators are CPython's own with no hook: not under PYTHONMALLOC=debug, -X dev,
    tracemalloc or 3.13's PYTHONMALLOC=mimalloc). Such an int's memory comes from the raw
    allocator (PyMem_RawMalloc's), which pymalloc's free returns to; the cost is that
    sys.getallocatedblocks() counts one block less for each freed. Without it, making ints
    under the lock is most of the conversion's time."""
    return _use_c(None) and config.settings().convert_raw_ints and _limbs.raw_ints()


def _gather(futs: list) -> list:
    """Each future's list, joined in order; every task finished before an error is raised
    (they read a buffer the caller may reuse as soon as this returns)."""
    parts: list = []
    err = None
    for f in futs:
        try:
            part = f.result()
        except BaseException as e:          # noqa: BLE001 - re-raised once all have ended
            err = err or e
            continue
        if err is None:
            parts.append(part)
    if err is not None:
        raise err
    return joined(parts)


_mpz_direct: bool | None = None


def mpz_direct() -> bool:
    """Whether limbs to mpz make gmpy2's mpz directly (`_limbs.unpack_mpz`: gmpy2's constructor
    with the lock held, the limbs written on the threads without it) instead of an int each
    and then mpz(int). Checked once against gmpy2.mpz on values around every limb edge."""
    global _mpz_direct
    if _mpz_direct is None:
        ok = bool(getattr(_limbs, "mpz_direct", bool)())
        if ok:
            vals = EDGE_VALUES
            limbs = pack_magnitudes(list(map(abs, vals)), 16)
            neg = np.array([v < 0 for v in vals])
            got = _limbs.unpack_mpz(limbs, len(vals), 16, neg)
            ok = [type(g) for g in got] == [MPZ] * len(vals) and got == list(map(MPZ, vals))
        _mpz_direct = ok
    return _mpz_direct


def made_direct() -> bool:
    """Whether to_ints(..., mpz=True) makes gmpy2's mpz directly (mpz_direct(), and the
    CONVERT_RAW_INTS setting, which switches both direct paths)."""
    return config.settings().convert_raw_ints and mpz_direct()


def _unpack_rows(arr: np.ndarray, n: int, m: int, neg, make) -> list:
    """_limbs.unpack of every row, by ranges on several threads for a large batch. Ints made
    without the lock (raw_ints): ranges as for packing. Otherwise wide values
    (UNPACK_THREAD_MIN_LIMBS) a range per thread, the rest by _unpack_deferred. gmpy2's mpz
    (make MPZ) made directly where mpz_direct(), on threads as raw ints are."""
    if make is MPZ and made_direct():
        ranges = _ranges(n, m, RAW_THREAD_MIN_LIMBS)
        if ranges is None:
            return _limbs.unpack_mpz(arr, n, m, neg)
        return _limbs.unpack_mpz(arr, n, m, neg, 0, -1, threads(), len(ranges))
    if n * m < 2 * THREAD_LIMBS:        # one thread on every path: no thread count asked for
        return _limbs.unpack(arr, n, m, neg, make, 0, -1, False, config.settings().convert_raw_ints)
    if raw_ints():
        ranges = _ranges(n, m, RAW_THREAD_MIN_LIMBS)
        if ranges is None:
            return _limbs.unpack(arr, n, m, neg, make, 0, -1, False, True)
        if native_threads():
            return _limbs.unpack(arr, n, m, neg, make, 0, -1, False, True, threads(), len(ranges))
        pool = _executor(threads())
        return _gather([pool.submit(_limbs.unpack, arr, n, m, neg, make, a, b, False, True)
                        for a, b in ranges])
    ranges = _ranges(n, m, UNPACK_THREAD_MIN_LIMBS, UNPACK_TASK_LIMBS)
    if ranges is None:
        if m >= DEFER_MIN_LIMBS and threads() >= DEFER_MIN_THREADS:
            ranges = _ranges(n, m, DEFER_MIN_LIMBS)
            if ranges is not None:
                return _unpack_deferred(arr, n, m, neg, make, ranges)
        return _limbs.unpack(arr, n, m, neg, make)
    pool = _executor(threads())
    return _gather([pool.submit(_limbs.unpack, arr, n, m, neg, make, a, b) for a, b in ranges])


#: From DEFER_MIN_LIMBS limbs, with DEFER_MIN_THREADS threads or more, a large batch's ints
#: are made on the calling thread, range after range, while the pool's threads fill the digits
#: of the ranges made before (_limbs.unpack(..., defer) and unpack_fill): the lock is held only
#: to make ints. Making them is most of the cost where their memory is new (2-core EPYC, 10^6
#: ints of 4096 bits: 2.1-2.5 µs an int into memory the process never touched, 24-54 ns into
#: reused memory; filling 78-162 ns). H200 host, 16 threads, least of five alternating rounds
#: (2026-11-29): 10^6 ints of 4096 bits 239 -> 199 ns an int, of 2048 bits 219 -> 218, 262,144
#: of 2080 bits 214 -> 224, of 512 bits 47 -> 70, so only from 4096 bits; not measured on few
#: cores, which keep the one-thread unpack.
DEFER_MIN_LIMBS = 128
DEFER_MIN_THREADS = 8


def _unpack_deferred(arr: np.ndarray, n: int, m: int, neg, make, ranges: list) -> list:
    """The ints of `ranges` of the rows: each range's ints made here (the lock held), its
    digits filled by the pool while the next range's ints are made."""
    pool = _executor(threads())
    parts, futs = [], []
    try:
        for a, b in ranges:
            part = _limbs.unpack(arr, n, m, neg, None, a, b, True)
            parts.append(part)
            futs.append(pool.submit(_limbs.unpack_fill, part, arr, n, m, neg, a, b))
    finally:
        for f in futs:           # every fill done before the rows' buffer may change
            f.result()
    out = joined(parts)          # not a comprehension over every int: 30-50 ms a million
    return out if make is None else list(map(make, out))


# -- ints to limbs ---------------------------------------------------------------------------

class Scanned:
    """Checked values of a batch: `vals` (ints, mpz converted where the C path runs), the
    capacity `bits`, `neg` (None, or a bool array true where a value is negative) and `c`,
    whether the C extension scanned them (and will pack them). `tup`: the values as a tuple
    where the scan made one (the packs read it without the interpreter lock), or the list
    itself where it is the caller's own (scan's `owned`), else None."""

    __slots__ = ("vals", "bits", "neg", "c", "tup")

    def __init__(self, vals: list, bits: int, neg, c: bool, tup: tuple | None = None):
        self.vals, self.bits, self.neg, self.c, self.tup = vals, bits, neg, c, tup

    def as_tuple(self):
        """The values as a tuple, made once (or the owned list the scan read in place, which
        native threads read as it is)."""
        if self.tup is None or (type(self.tup) is not tuple and not native_threads()):
            self.tup = self.vals if type(self.vals) is tuple else tuple(self.vals)
        return self.tup

    def __len__(self) -> int:
        return len(self.vals)

    def magnitudes(self) -> list:
        if self.neg is None:
            return self.vals
        return list(map(abs, self.vals))


# The checks clbig.array has always made, with its messages (mpz.array re-exports them).
def check_bits(bits, what: str = "bits") -> int:
    """`bits` as an int: TypeError unless an integer (bool is not one), ValueError below 1."""
    if type(bits) is int and bits >= 1:     # the usual case, before the ABC's isinstance (1 µs)
        return bits
    if isinstance(bits, (bool, np.bool_)) or not isinstance(bits, (numbers.Integral, MPZ)):
        raise TypeError(f"{what} must be a positive integer, got {type(bits).__name__} {bits!r}")
    if bits < 1:
        raise ValueError(f"{what} must be a positive integer, got {bits}")
    return int(bits)


def _check_value(i, v):
    if isinstance(v, (bool, np.bool_)) or not isinstance(v, (numbers.Integral, MPZ)):
        raise TypeError(f"element {i}: expected an integer, got {type(v).__name__} {reprlib.repr(v)}")
    if not isinstance(v, (int, MPZ)):
        v = int(v)   # numpy integers and other Integrals; an mpz stays one: converting a
                     # 2^27-bit mpz to int costs ~15 ms and it has bit_length and to_bytes too
    return v


def scan(values, bits: int | None = None, pure: bool | None = None, owned: bool = False) -> Scanned:
    """Check a batch of ints / mpz (any iterable; a list or tuple is not copied) and find its
    capacity: `bits`, or by default the largest magnitude's bit length rounded up to whole
    limbs (32 for a batch of zeros or an empty one). `owned`: values is a list that no other
    code holds (the caller's own copy), so later packs may read it as it is, without the
    snapshot tuple a list anyone could change needs."""
    if bits is not None:
        bits = check_bits(bits)
    if not isinstance(values, (list, tuple)):
        values, owned = list(values), True
    tup = None
    if _use_c(pure):
        got = _scan_threads(values, in_place=owned)
        if got is not None:
            need, neg, tup, _ = got
            if tup is None:           # read in place: the owned list is what packs read
                tup = values
            vals = values
        else:
            need, negs, conv = _limbs.scan(values, _check_value, MPZ)
            vals = values if conv is None else conv
            neg = None if negs is None else np.frombuffer(negs, dtype=bool)
        c = True
    else:
        vals, need, neg = _scan_py(values, _check_value)
        c = False
    if bits is None:
        bits = limbs_for(need) * LIMB_BITS
    elif need > bits:
        i, b = next((i, abs(v).bit_length()) for i, v in enumerate(vals) if abs(v).bit_length() > bits)
        raise OverflowError(f"element {i}: value of {b} bits does not fit bits={bits}")
    return Scanned(vals, bits, neg, c, tup)


#: Batches of at least this many values are scanned by several threads (a value takes tens of
#: ns, mostly the cache miss of reading its object; a task tens of µs). 2-core EPYC, scan and
#: pack (from_ints), least of 7 alternating (2026-11-29): 10^6 values of 2048 bits 107 -> 59
#: ms (a tuple of the list made once, not twice, is part of it), 10^5 of 256 bits 5.6 -> 2.3,
#: 70,000 of 64 bits 2.1 -> 1.4.
SCAN_THREAD_MIN = 1 << 16
#: On native threads a job costs a few µs, so where the capacity is given (one pass that
#: checks and packs) fewer values are shared out: from NATIVE_PACK_WORK limbs, each value
#: counted as VALUE_LIMBS limbs more (reading its object), and NATIVE_PACK_MIN values or more,
#: in tasks of NATIVE_TASK_WORK or more. 2-core EPYC, median of 41, alternating (2026-11-30):
#: 60,000 values of 2048 bits 2.9 / 2.2 -> 1.5 / 1.1 ms, 30,000 of 64 bits 272 -> 142 µs,
#: 5,000 of 8192 bits 380 -> 332 µs; 1000 of 8192 bits 103-114 -> 117-118 µs, hence the count.
NATIVE_PACK_WORK = 1 << 18
NATIVE_PACK_MIN = 2048
NATIVE_TASK_WORK = 1 << 16
VALUE_LIMBS = 8


def _scan_threads(values, pack_bits: int | None = None, in_place: bool = False):
    """(largest bit length, neg, the values as a tuple or None, limbs) of a large batch of exact
    ints, scanned by ranges on several threads; None where the batch is small, one thread is
    all there is, or some value is not an exact int (then _limbs.scan converts or rejects it,
    with its messages). With `pack_bits`, each thread also packs its range into limbs, an
    (n, limbs_for(pack_bits)) array (else None), and a value wider than pack_bits counts as
    one the full scan must name. The values are read from a tuple (made here from a list: the
    snapshot that later packs of the batch read), or with `in_place` and native threads from
    the list itself, which the interpreter lock held meanwhile keeps as it is: for a pass
    whose result needs no later read of the list (the tuple is None then)."""
    n = len(values)
    work = n * (limbs_for(pack_bits) + VALUE_LIMBS) if pack_bits is not None else 0
    if not _shared_out(n, work):
        return None                     # before threads(), which costs ~2 µs a small batch
    t = threads()
    if t < 2:
        return None
    native = native_threads()
    if type(values) is tuple or (native and in_place and type(values) is list):
        seq = values
    else:
        seq = tuple(values)
    negs = np.empty(n, np.uint8)
    out, pack = None, ()
    if pack_bits is not None:
        m = limbs_for(pack_bits)
        out = np.empty((n, m), np.uint32)
        pack = (out, m, pack_bits)
    ranges = _scan_ranges(n, t, work)
    if native:
        pack = pack or (None, 0, 0)
        got = [_limbs.scan_ints(seq, negs, 0, n, *pack, t, len(ranges))]
    else:
        pool = _executor(t)
        got = [f.result() for f in [pool.submit(_limbs.scan_ints, seq, negs, a, b, *pack)
                                    for a, b in ranges]]
    if any(bad >= 0 for _, _, bad in got):
        return None
    neg = negs.view(bool) if sum(k for _, k, _ in got) else None
    return max(b for b, _, _ in got), neg, seq if type(seq) is tuple else None, out


def _shared_out(n: int, work: int) -> bool:
    """Whether a scan of n values (packing `work` limbs with them, or 0) is shared out over
    threads: from SCAN_THREAD_MIN values, or on native threads from NATIVE_PACK_WORK and
    NATIVE_PACK_MIN (see there)."""
    return n >= SCAN_THREAD_MIN or (work >= NATIVE_PACK_WORK and n >= NATIVE_PACK_MIN and native_threads())


def _scan_ranges(n: int, t: int, work: int = 0) -> list:
    """The item ranges of a scan of n values on t threads (of `work` limbs, packing)."""
    tasks = max(1, min(RANGES_PER_THREAD * t, max(n // max(1, SCAN_THREAD_MIN // 8),
                                                  work // NATIVE_TASK_WORK)))
    step = -(-n // tasks)
    return [(a, min(n, a + step)) for a in range(0, n, step)]


def _scan_py(values, check_value):
    """(vals, largest bit length, neg) with C-level loops (map, min, max) where every value is
    an exact int, the common case; one Python call per value otherwise."""
    vals = values
    exact = set(map(type, vals)) <= {int}
    if not exact:
        vals = [check_value(i, v) for i, v in enumerate(vals)]
    if not vals:
        return vals, 0, None
    bit_length = int.bit_length if exact else _bit_length
    if min(vals) < 0:
        neg = np.fromiter(map(_is_negative, vals), bool, len(vals))
        need = max(map(bit_length, map(abs, vals)))
    else:
        neg = None
        need = max(map(bit_length, vals))
    return vals, need, neg


def _is_negative(v) -> bool:
    return v < 0


def _bit_length(v) -> int:
    return v.bit_length()


def pack(s: Scanned, out: np.ndarray | None = None) -> np.ndarray:
    """The magnitudes of a scanned batch as an (n, limbs_for(s.bits)) uint32 matrix (into
    `out`, a writable C-contiguous uint32 array of that shape, when given)."""
    n, m = len(s.vals), limbs_for(s.bits)
    if out is not None and (out.dtype != np.uint32 or out.shape != (n, m) or not out.flags.c_contiguous):
        raise ValueError(f"pack: out must be a C-contiguous uint32 array of shape {(n, m)}")
    if not s.c:
        limbs = pack_magnitudes(s.magnitudes(), m, pure=True)
        if out is None:
            return limbs
        out[...] = limbs
        return out
    if out is None:
        out = np.empty((n, m), np.uint32)
    _pack_rows(s.vals if s.tup is None else s.tup, out, m)
    if not np.little_endian:
        out.byteswap(inplace=True)   # the extension writes little-endian limbs
    return out


def pack_range(s: Scanned, out: np.ndarray, start: int, stop: int) -> None:
    """Rows start..stop-1 of a scanned batch (C path: s.c) into `out`, a writable C-contiguous
    (stop - start, m) uint32 array that holds just those rows (a staging buffer's chunk, so
    the batch never lies whole in a fresh host array). The values are read from s.as_tuple(),
    made once for all the chunks: the extension reads a tuple without the interpreter lock."""
    m = limbs_for(s.bits)
    if not s.c or out.dtype != np.uint32 or out.shape != (stop - start, m) or not out.flags.c_contiguous:
        raise ValueError(f"pack_range: a C-scanned batch and a C-contiguous uint32 array of shape {(stop - start, m)}")
    _pack_rows(s.as_tuple(), out, m, start, stop)
    if not np.little_endian:
        out.byteswap(inplace=True)


def pack_magnitudes(mags: list, m: int, pure: bool | None = None) -> np.ndarray:
    """Non-negative ints / mpz below 2**(32m) as an (n, m) uint32 matrix. Pure Python: one
    join of to_bytes over the batch (read-only: a view of the joined bytes)."""
    if _use_c(pure):
        out = np.empty((len(mags), m), np.uint32)
        try:
            _pack_rows(mags, out, m)
        except TypeError:   # an mpz: through to_bytes below
            pass
        else:
            if not np.little_endian:
                out.byteswap(inplace=True)
            return out
    if set(map(type, mags)) <= {int}:
        raw = b"".join(map(int.to_bytes, mags, repeat(4 * m), repeat("little")))
    else:   # mpz has to_bytes too, but not int's unbound method
        raw = b"".join(v.to_bytes(4 * m, "little") for v in mags)
    return np.frombuffer(raw, dtype="<u4").reshape(len(mags), m).astype(np.uint32, copy=False)


def from_ints(values, bits: int | None = None, pure: bool | None = None):
    """(limbs, bits, neg) of a batch of ints / mpz: an (n, m) uint32 matrix of magnitudes,
    the capacity, and None or a bool array true where a value is negative."""
    if _use_c(pure) and isinstance(values, (list, tuple)):
        cap = None if bits is None else check_bits(bits)
        if cap is None and native_threads():
            # the capacity by a scan of the list in place, then the one pass at it: no tuple
            got = _scan_threads(values, in_place=True)
            if got is not None:
                cap = limbs_for(got[0]) * LIMB_BITS
        if cap is not None:
            got = _scan_pack_threads(values, cap)
            if got is not None:
                return got
    s = scan(values, bits, pure)
    return pack(s), s.bits, s.neg


def _scan_pack_threads(values, bits: int):
    """from_ints of a large batch of exact ints where the capacity is given: each thread
    checks and packs its range in one pass (_scan_threads with pack_bits), instead of a scan
    of the whole batch and then a pack; None where _scan_threads would not run, or some value
    is not an exact int or does not fit (the full path then converts it or names it)."""
    got = _scan_threads(values, bits, in_place=True) if isinstance(values, (list, tuple)) else None
    if got is None:
        return None
    _, neg, _, out = got
    if not np.little_endian:
        out.byteswap(inplace=True)   # the extension writes little-endian limbs
    return out, bits, neg


def packs_in_one_pass() -> bool:
    """Whether scan_pack_range runs here: the extension with native threads, or one thread
    (a Python pool of threads reads a tuple, which a pass over a list in place cannot be)."""
    return native() and (native_threads() or threads() < 2)


def scan_pack_range(values: list, negs: np.ndarray, bits: int, out: np.ndarray, start: int,
                    stop: int) -> bool:
    """Items start..stop-1 of `values` (a list its caller owns, read in place) checked and
    packed in one pass into `out`, a writable C-contiguous (stop - start, limbs_for(bits))
    uint32 array (a staging buffer's chunk), their signs into negs[start:stop] (uint8, one per
    value): clbig.array with a capacity reads each int once, not in a scan and then a pack.
    False, the rows' contents undefined, where some value is not an exact int or has more
    than `bits` bits: the caller then takes the full scan, which converts or names it. Only
    where packs_in_one_pass()."""
    m, k = limbs_for(bits), stop - start
    work = k * (m + VALUE_LIMBS)
    t = threads() if native_threads() and _shared_out(k, work) else 1
    tasks = len(_scan_ranges(k, t, work)) if t > 1 else 1
    _, _, bad = _limbs.scan_ints(values, negs, start, stop, out, m, bits, t, tasks, start)
    if not np.little_endian:
        out.byteswap(inplace=True)   # the extension writes little-endian limbs
    return bad < 0


# -- limbs to ints ---------------------------------------------------------------------------

def to_ints(limbs, neg=None, mpz: bool = False, pure: bool | None = None) -> list:
    """The rows of an (n, m) uint32 matrix of magnitudes (little-endian limbs) as a list of
    Python ints, or of gmpy2 mpz with mpz=True; negative where `neg` (None, or n bools) is
    true."""
    arr = np.ascontiguousarray(limbs, dtype="<u4")
    if arr.ndim != 2:
        raise ValueError(f"to_ints expects an (n, m) limb matrix, got shape {arr.shape}")
    n, m = arr.shape
    if neg is not None:
        neg = np.ascontiguousarray(neg, dtype=bool)
        if neg.shape != (n,):
            raise ValueError(f"to_ints: neg must have shape ({n},), got {neg.shape}")
        if not neg.any():
            neg = None
    if m == 0:
        arr, m = np.zeros((n, 1), "<u4"), 1
    if _use_c(pure):
        return _unpack_rows(arr, n, m, neg, MPZ if mpz else None)
    vals = _unpack_py(arr)
    if neg is not None:
        vals = [-v if s else v for v, s in zip(vals, neg.tolist())]
    return list(map(MPZ, vals)) if mpz else vals


def move_into(dst: list, at: int, src: list) -> None:
    """The values of src into dst[at:at + len(src)], where dst holds None; src is left empty.
    Where the extension runs, the values change hands without their reference counts touched:
    a list of many pieces made by chain or extend touches every big int twice, each in memory
    of its own (10 ms a million of 2048-bit ints, 2-core Xeon; _limbs.move_into)."""
    c_move = getattr(_limbs, "move_into", None) if native() else None
    if c_move is not None:
        c_move(dst, at, src)
    else:
        dst[at:at + len(src)] = src
        src.clear()


def zipped(lists: list) -> list:
    """The rows of equally long lists as tuples, as list(zip(*lists)), the lists left empty.
    Where the extension runs and no value is one the collector tracks (ints and mpz are not),
    each tuple takes its values' references untouched and is made untracked, the collector
    off meanwhile (_limbs.zip_lists): 3-5x faster than zip over big ints (2-core Xeon, 262,144
    pairs of 2048-bit ints: 17-38 against 70-128 ms)."""
    c_zip = getattr(_limbs, "zip_lists", None) if native() else None
    if c_zip is not None:
        try:
            return c_zip(tuple(lists))
        except TypeError:                # a value the collector tracks: zip, as ever
            pass
    out = list(zip(*lists))
    for lst in lists:
        lst.clear()
    return out


def joined(parts: list) -> list:
    """The lists of `parts` as one list, in order (each part left empty where there are
    several): move_into where the extension runs."""
    if len(parts) == 1:
        return parts[0]
    out = [None] * sum(map(len, parts))
    at = 0
    for p in parts:
        k = len(p)
        move_into(out, at, p)
        at += k
    return out


def _unpack_py(arr: np.ndarray) -> list:
    """int.from_bytes over slices of the rows' bytes, one map over the batch (measured faster
    than slicing a memoryview, or a list of the rows' bytes made first)."""
    n, m = arr.shape
    w = 4 * m
    raw = arr.tobytes()
    rows = map(raw.__getitem__, map(slice, range(0, n * w, w), range(w, n * w + w, w)))
    return list(map(int.from_bytes, rows, repeat("little")))
