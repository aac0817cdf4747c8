"""Several devices as one context, and batches larger than a device's memory.

`clbig.Context(["nvidia", "cpu"])` (or `Context.all("gpu")`) gives a `Devices`: one ordinary
Context (device, queue, kernel cache, launch lock) per device. The user-facing operations
(ops, signs, modular, gcd, fused) carry the `rows` decorator: when an operand lives on a Devices
(a `SplitArray`), or a Devices is the current context, the batch is cut into row ranges, each
range runs on its device in a thread of its own (Contexts are thread safe), and the pieces come
back as one SplitArray whose rows stay where they were computed. Below the decorator every call
sees one ordinary Context: no algorithm module knows about devices.

Rows are split in proportion to each device's speed for the operation's family, as measured by
`python -m clbig tune` (clbig.runtime.tuned.speed), else equally; `Context([...], shares=...)` fixes the
shares instead (a host-to-host workload whose best split was measured with the devices running
together: bench/multi_gpu.py --shares). A batch of length one (one huge
number) runs on the fastest device. An operand placed differently (another split, a plain
BigIntArray, host rows) is moved row range by row range, through the host when the devices
differ.

Streaming: when the operands are host values (lists of ints) whose batch would not fit the
device's memory (`Context(max_memory=...)` caps it, for tests), the operation runs chunk by
chunk through two lanes of the device (two queues: one chunk uploads or downloads while the
other computes) and the result's rows stay on the host (a SplitArray of `HostRows`); it says so
in `clbig.profile()` (`Profile.notes`).
"""
from __future__ import annotations

import concurrent.futures
import numbers
import re
import threading

from typing import TYPE_CHECKING

import numpy as np

from ..mpn import convert
from ..runtime import profiling
from ..mpz.array import (BigIntArray, check_out, from_limbs, limbs_as, limbs_for, limbs_to_ints,
                         packed_rows, scanned_rows, value_parts)
from ..mpz.modular import Modulus
from ..mpz.types import MPZ
from ..runtime.devices import Context, Devices, _stack, current_context

if TYPE_CHECKING:
    from numpy.typing import DTypeLike



class HostRows:
    """Rows of a streamed result, kept on the host: limbs (n, m) uint32, capacity, signs."""

    values = None   # the rows as ints too, where a pipelined chunk's lane converted them already

    def __init__(self, limbs: np.ndarray, bits: int, neg=None):
        self.limbs, self.bits = limbs, int(bits)
        self.neg = None if neg is None or not np.any(neg) else np.asarray(neg, bool)

    def __len__(self):
        return self.limbs.shape[0]

    def to_limbs(self, dtype=np.uint32, magnitude: bool = False) -> np.ndarray:
        return self.limbs

    def tolist(self, mpz: bool = False) -> list:
        vals = self.values
        if vals is not None:
            return list(map(MPZ, vals)) if mpz else list(vals)
        return convert.to_ints(self.limbs, self.neg, mpz=mpz)

    def sign(self) -> np.ndarray:
        s = self.limbs.any(axis=1).astype(np.int8)
        if self.neg is not None:
            s[self.neg & (s != 0)] = -1
        return s

    def bit_length(self) -> np.ndarray:
        return np.array([v.bit_length() for v in limbs_to_ints(self.limbs)], np.int64)

    def rows(self, r0: int, r1: int) -> "HostRows":
        return HostRows(self.limbs[r0:r1], self.bits, None if self.neg is None else self.neg[r0:r1])


class SplitArray(BigIntArray):
    """A BigIntArray of a `Devices` context, or kept on the host: its rows in pieces.

    Each piece lives on one device of the context (or, for a streamed result or
    `clbig.scale.stream.host`, on the host). Operations keep each piece where it is and run
    every piece on its own device; `tolist` and `to_limbs` gather the pieces (every device
    downloading at once), and `placement` says where the rows are. It takes every operation
    and method a BigIntArray takes, except reading `data`, which one device does not hold.
    Made by `clbig.array` and the operations under a Devices context, never by calling this
    class.

    Parameters
    ----------
    ctx : Devices or Context
        The context of the pieces.
    parts : list of (int or None, BigIntArray or host rows)
        (device index, or None for the host; the rows), in order.

    Examples
    --------
    >>> import clbig
    >>> one = clbig.current_context()
    >>> with clbig.Context([one, one]):
    ...     x = clbig.array([1, 2, 3, 4])
    >>> type(x).__name__, [(start, stop) for _, start, stop in x.placement]
    ('SplitArray', [(0, 2), (2, 4)])
    >>> (x * x).tolist(), x.to_limbs().ravel().tolist()
    ([1, 4, 9, 16], [1, 2, 3, 4])
    """

    def __init__(self, ctx: Devices | Context, parts: list[tuple]) -> None:
        self.ctx = ctx
        self.parts = [(d, p) for d, p in parts if len(p)] or list(parts[:1])
        self.bits = max(p.bits for _, p in self.parts)

    @property
    def data(self):
        """Not available: the rows live on several devices or the host (TypeError)."""
        raise TypeError("the rows of this array live on several devices (or the host): "
                        "operations split them; to_limbs() or tolist() gathers them")

    @property
    def neg(self) -> np.ndarray | None:
        """Where the values are negative (a numpy bool array), or None where none is."""
        if all(p.neg is None for _, p in self.parts):
            return None
        return np.concatenate([np.zeros(len(p), bool) if p.neg is None else p.neg for _, p in self.parts])

    def __len__(self) -> int:
        return sum(len(p) for _, p in self.parts)

    @property
    def m(self) -> int:
        """Limbs per element: ``ceil(bits / 32)``, at least 1."""
        return limbs_for(self.bits)

    @property
    def placement(self) -> list[tuple]:
        """(device name or 'host', start, stop) of every piece."""
        return [("host" if d is None else self.ctx.contexts[d].name, r0, r1) for d, _, r0, r1 in self._ranges()]

    def _ranges(self):
        start = 0
        for d, p in self.parts:
            yield d, p, start, start + len(p)
            start += len(p)

    def to_limbs(self, dtype: DTypeLike = np.uint32, magnitude: bool = False,
                 out: np.ndarray | None = None) -> np.ndarray:
        """The magnitudes as numpy limbs, gathered from every piece (`BigIntArray.to_limbs`).

        A result that is one block of host rows comes back without a copy, read-only.
        """
        # Every piece downloads straight into its rows of one array, all devices at once (each
        # through its own Context.get: large reads into pageable memory go through that device's
        # staging buffers). The former gather (a zeroed array, then each piece's own array
        # copied in, one device after the other) took as long as the transfers themselves.
        if out is not None:
            check_out(out, len(self), self.m, dtype)
        one = self.parts[0][1] if len(self.parts) == 1 else None
        if out is None and isinstance(one, HostRows) and one.limbs.shape[1] == self.m:
            # One block of host rows (a pipelined result): its limbs without a copy, read-only
            # so that nobody changes the array's value through them.
            host = one.limbs.view()
            host.flags.writeable = False
            return self._checked(host, magnitude, dtype)
        host = np.empty((len(self), self.m), np.uint32) if out is None else out
        reads = []
        for d, p, r0, r1 in self._ranges():
            dst = host[r0:r1]
            if isinstance(p, BigIntArray) and p.m == self.m and r1 > r0 and p.data.flags.c_contiguous:
                reads.append((p.ctx, p.data, dst))
            else:
                limbs = p.to_limbs(magnitude=True)
                dst[:, :limbs.shape[1]] = limbs
                dst[:, limbs.shape[1]:] = 0
        _read_all(reads)
        return self._checked(host, magnitude, dtype)

    def _checked(self, host: np.ndarray, magnitude: bool, dtype) -> np.ndarray:
        """to_limbs' result: ValueError naming a negative element unless magnitude."""
        neg = self.neg
        if neg is not None and not magnitude:
            bad = neg & host.any(axis=1)
            if bad.any():
                raise ValueError(f"to_limbs: element {int(np.argmax(bad))} is negative; limbs hold magnitudes "
                                 "(to_limbs(magnitude=True) gives them, sign() the signs)")
        return limbs_as(host, dtype)

    def tolist(self, mpz: bool = False) -> list:
        """The values as Python ints (or mpz), every piece at once (`BigIntArray.tolist`)."""
        if not self.parts:
            return []
        # Each piece's download and conversion on a thread of its own, as to_limbs reads: one
        # device's rows cross the bus while another's convert (piece after piece, the second
        # device's transfer waited for the first's conversion).
        # Each piece's chunks are joined once, with all the others' (convert.joined: the
        # values change hands untouched; a list per piece extended into the first touched
        # each value twice more, 5 ms a million).
        lists = [None] * len(self.parts)

        def one(i):
            p = self.parts[i][1]
            lists[i] = value_parts(p, mpz) if isinstance(p, BigIntArray) else [p.tolist(mpz)]
        _each_on_a_thread(one, len(self.parts))
        return convert.joined([part for parts in lists for part in parts])

    def sign(self) -> np.ndarray:
        """-1, 0 or 1 per element, numpy int8 (`BigIntArray.sign`)."""
        return np.concatenate([p.sign() for _, p in self.parts])

    def bit_length(self) -> np.ndarray:
        """The bit length of every magnitude, numpy int64 (`BigIntArray.bit_length`)."""
        return np.concatenate([p.bit_length() for _, p in self.parts])

    def __getitem__(self, i):
        if isinstance(i, numbers.Integral):
            n = len(self)
            if not -n <= i < n:
                raise IndexError(f"index {i} out of range for a batch of {n}")
            i %= n
            for _, p, r0, r1 in self._ranges():
                if r0 <= i < r1:
                    return p[i - r0] if isinstance(p, BigIntArray) else p.rows(i - r0, i - r0 + 1).tolist()[0]
        if isinstance(i, slice):
            start, stop, step = i.indices(len(self))
            if step == 1:
                parts = [(d, _slice(p, max(start, r0) - r0, min(stop, r1) - r0))
                         for d, p, r0, r1 in self._ranges() if max(start, r0) < min(stop, r1)]
                return SplitArray(self.ctx, parts or [(self.parts[0][0], _slice(self.parts[0][1], 0, 0))])
            neg = self.neg
            return from_limbs(self.to_limbs(magnitude=True)[i], bits=self.bits, ctx=self.ctx,
                              sign=None if neg is None else -neg[i].astype(np.int8))
        if isinstance(i, (list, np.ndarray, BigIntArray)):   # masks and index arrays
            from ..mpz import index
            return index.getitem(self, i)
        raise TypeError(f"BigIntArray indices must be integers, slices, boolean masks or integer "
                        f"arrays, not {type(i).__name__}")

    def __copy__(self):
        return SplitArray(self.ctx, list(self.parts))

    def __deepcopy__(self, memo):
        import copy
        return SplitArray(self.ctx, [(d, copy.deepcopy(p, memo)) for d, p in self.parts])

    def __abs__(self):
        return SplitArray(self.ctx, [(d, abs(p) if isinstance(p, BigIntArray) else HostRows(p.limbs, p.bits))
                                     for d, p in self.parts])

    def __repr__(self):
        where = f"devices={len(self.ctx)}" if getattr(self.ctx, "is_multi", False) else "on the host"
        return super().__repr__()[:-1] + f", {where})"


def _read_all(reads) -> None:
    """ctx.get(data, dst) for every (ctx, data, dst), the devices at once."""
    _each_on_a_thread(lambda i: reads[i][0].get(reads[i][1], reads[i][2]), len(reads))


def _each_on_a_thread(fn, n: int) -> None:
    """fn(i) for i in range(n) at once: one plain thread for each beyond the first, which runs
    here (not the Devices' pool: this may run on one of its workers), recording into the
    caller's open profiles; the first error is raised once all have ended."""
    threads, errors = [], []
    watchers = profiling.active()

    def one(i):
        try:
            fn(i)
        except BaseException as e:       # re-raised in the calling thread
            errors.append(e)

    def adopted(i):
        with profiling.adopted(watchers):
            one(i)
    for i in range(1, n):
        t = threading.Thread(target=adopted, args=(i,), name="clbig-gather")
        t.start()
        threads.append(t)
    if n:
        one(0)
    for t in threads:
        t.join()
    if errors:
        raise errors[0]


def _slice(p, r0: int, r1: int):
    if isinstance(p, HostRows):
        return p.rows(r0, r1)
    if r0 == 0 and r1 == len(p):
        return p
    if r1 > r0:
        return p[r0:r1]
    return BigIntArray(p.ctx, p.data[0:0], p.bits)


# -- arrays made on a Devices ------------------------------------------------------------------
def array(values: list, bits, D: Devices, lay=None) -> SplitArray:
    """clbig.array on a Devices: widths and errors over the whole batch, then one upload per
    device (concurrently), laid out as `lay` or by the devices' speeds."""
    # Checked once for the whole batch (on the conversion threads), then each device packs its
    # rows straight into its staging buffers, as one device does with the whole batch. Each
    # piece packed into a fresh host array of its own before: two H200s took 751 against
    # 553 ms for 10^6 products of 2048-bit ints list to list (least of 7, 2026-11-29).
    # With a capacity, each device checks and packs its own rows in one pass (packed_rows),
    # unless some value needs the scan (an mpz, a value too wide, not an int): then it runs.
    lay = lay or D.layout(len(values), "add")
    if bits is not None:
        signs, cap = np.empty(len(values), np.uint8), convert.check_bits(bits)
        pieces = _on_workers(D, lay, lambda ctx, r0, r1: packed_rows(ctx, values, cap, signs, r0, r1))
        if all(p is not None for _, p in pieces):
            return SplitArray(D, pieces)
    s = convert.scan(values, bits, owned=True)     # clbig.array's own copy of the list
    return _placed(D, lay, lambda ctx, r0, r1: scanned_rows(ctx, s, r0, r1))


def from_limbs_split(arr: np.ndarray, bits: int, D: Devices, sign=None) -> SplitArray:
    return _placed(D, D.layout(arr.shape[0], "add"), lambda ctx, r0, r1: from_limbs(
        arr[r0:r1], bits, ctx=ctx, sign=None if sign is None else sign[r0:r1]))


def _placed(D: Devices, lay, make) -> SplitArray:
    """A SplitArray of the pieces make(context, r0, r1) makes, each on its device's worker."""
    return SplitArray(D, _on_workers(D, lay, make))


def _on_workers(D: Devices, lay, make) -> list:
    """[(device, make(context, r0, r1))] over the layout, each on its device's worker; all of
    them ended before the first error is raised (none still reads the batch meanwhile)."""
    def on(d, r0, r1):
        ctx = D.contexts[d]
        with ctx:
            return make(ctx, r0, r1)
    futures = [D._pool.submit(on, d, r0, r1) for d, r0, r1 in lay]
    concurrent.futures.wait(futures)
    return [(d, f.result()) for (d, _, _), f in zip(lay, futures)]


def _devices_of(args, kw):
    single = False
    for x in (*args, *kw.values()):
        if isinstance(x, SplitArray):
            if getattr(x.ctx, "is_multi", False):
                return x.ctx
            continue                     # host rows of a streamed result
        if isinstance(x, BigIntArray):
            single = True
        elif getattr(x, "ctx", None) is not None and getattr(x.ctx, "is_multi", False):   # a Modulus
            return x.ctx
    if single:
        return None
    cur = current_context() if _stack() else None
    return cur if isinstance(cur, Devices) else None


def _is_rows(x) -> bool:
    return isinstance(x, (BigIntArray, HostRows, list, tuple, Modulus)) or (isinstance(x, np.ndarray) and x.ndim >= 1)


def batch_length(xs) -> int:
    lens = [len(x) for x in xs if _is_rows(x)]
    long = {L for L in lens if L != 1}
    if len(long) > 1:
        raise ValueError(f"length mismatch: {', '.join(map(str, lens))} (broadcasting needs equal "
                         "lengths or length 1)")
    return long.pop() if long else 1


def _widen_lists(xs, n: int, D: Devices, lay):
    """Lists of the batch's length become SplitArrays, so every piece sees the width the whole
    list implies (a piece alone might imply a narrower one) and errors name whole-batch indices."""
    return [array(list(x), None, D, lay) if isinstance(x, (list, tuple)) and len(x) == n and n != 1 else x
            for x in xs]


def _split_call(D: Devices, family: str, fn, args, kw):
    n = batch_length([*args, *kw.values()])
    lay = next((x.layout_for(D) for x in (*args, *kw.values())
                if isinstance(x, SplitArray) and len(x) == n and n > 1 and x.ctx is D), None)
    if lay is None:
        lay = D.layout(n, family)
    args = _widen_lists(args, n, D, lay)
    kw = dict(zip(kw, _widen_lists(list(kw.values()), n, D, lay)))
    watchers = profiling.active()

    def run(dev, r0, r1):
        ctx = D.contexts[dev]
        with ctx, profiling.adopted(watchers):
            a = [piece(x, D, dev, r0, r1, n) for x in args]
            k = {name: piece(x, D, dev, r0, r1, n) for name, x in kw.items()}
            return fn(*a, **k)

    if len(lay) == 1:    # one device does it all: in this thread (a pool hop cost ~0.3 ms)
        futures = [_now(run, *lay[0])]
    else:
        futures = [D._pool.submit(run, *t) for t in lay]
    return gather(D, lay, futures)


def _now(fn, *args) -> concurrent.futures.Future:
    """fn(*args) run here, as a finished Future (gather's error handling stays the same)."""
    f = concurrent.futures.Future()
    try:
        f.set_result(fn(*args))
    except Exception as e:
        f.set_exception(e)
    return f


def gather(D, lay, futures):
    """The pieces' results as one: arrays as a SplitArray, numpy arrays concatenated, tuples
    piecewise; the first failing piece's exception with its index made whole-batch."""
    results, failed = [], None
    for (dev, r0, _), f in zip(lay, futures):
        try:
            results.append(f.result())
        except Exception as e:
            if failed is None:
                failed = (r0, e)
    if failed is not None:
        r0, e = failed
        moved = shifted(e, r0)
        if moved is e:
            raise e
        raise moved.with_traceback(e.__traceback__) from None
    return _assemble(D, [d for d, _, _ in lay], results)


def _assemble(D, devs, results):
    first = results[0]
    if isinstance(first, (BigIntArray, HostRows)):
        return SplitArray(D, list(zip(devs, results)))
    if isinstance(first, tuple):
        return tuple(_assemble(D, devs, [r[k] for r in results]) for k in range(len(first)))
    if isinstance(first, np.ndarray):
        return np.concatenate(results)
    if len(results) == 1:
        return first          # plain ints in, a plain int out
    raise TypeError(f"clbig internal: cannot join pieces of type {type(first).__name__}")


def _layout_for(self: SplitArray, D: Devices):
    """This array's own pieces as the layout (rows stay where they are); host pieces go to the
    fastest device."""
    return [(D.fastest("add") if d is None else d, r0, r1) for d, _, r0, r1 in self._ranges()]


SplitArray.layout_for = _layout_for


def piece(x, D: Devices, dev: int, r0: int, r1: int, n: int):
    """Operand x's rows r0:r1 on device `dev` (the whole of a broadcast operand)."""
    if not _is_rows(x):
        return x
    whole = len(x) == 1 and n != 1
    lo, hi = (0, len(x)) if whole else (r0, r1)
    ctx = D.contexts[dev]
    if isinstance(x, Modulus):
        if x.ctx is not D:   # a Modulus of one Context: its moduli, moved
            return piece(x.m, D, dev, r0, r1, n)
        cache = x.__dict__.setdefault("_pieces", {})   # R^2 mod m etc. paid once per piece
        key = (dev, lo, hi)
        if key not in cache:
            cache[key] = Modulus(piece(x.m, D, dev, r0, r1, n))
        return cache[key]
    if isinstance(x, (list, tuple)):
        return x
    if isinstance(x, np.ndarray):
        return x if whole else x[lo:hi]
    if isinstance(x, SplitArray):
        for d, p, s0, s1 in x._ranges():
            if d == dev and s0 <= lo and hi <= s1 and isinstance(p, BigIntArray):
                return _slice(p, lo - s0, hi - s0)
        return _upload_rows(ctx, x, lo, hi)
    if isinstance(x, BigIntArray) and x.ctx is ctx:
        return _slice(x, lo, hi)
    return _upload_rows(ctx, x, lo, hi)


def _upload_rows(ctx: Context, x, lo: int, hi: int) -> BigIntArray:
    """Rows lo:hi of x (any placement) as a BigIntArray of ctx, through the host."""
    own = x.parts[0][1] if isinstance(x, SplitArray) and len(x.parts) == 1 else x
    if hasattr(own, "upload"):     # rows kept as Python ints (stream.HostValues): no packing
        return own.upload(ctx, lo, hi)
    if isinstance(x, HostRows):
        x = x.rows(lo, hi)
    elif isinstance(x, SplitArray) or (lo, hi) != (0, len(x)):
        x = x[lo:hi]               # a slice stays on its own device(s) until read
    limbs, neg = x.to_limbs(magnitude=True), x.neg
    return from_limbs(limbs, bits=x.bits, ctx=ctx, sign=None if neg is None else -np.asarray(neg, np.int8))


# -- errors with whole-batch indices -------------------------------------------------------------
_INDEX = re.compile(r"\b(index|element) (\d+)")


def shifted(e: Exception, start: int) -> Exception:
    """The same exception with its first row index made whole-batch (start + the piece's own)."""
    msg = str(e.args[0]) if len(e.args) == 1 and isinstance(e.args[0], str) else None
    if msg is None or not _INDEX.search(msg) or not start:
        return e
    try:
        return type(e)(_INDEX.sub(lambda g: f"{g.group(1)} {start + int(g.group(2))}", msg, count=1))
    except Exception:
        return e
