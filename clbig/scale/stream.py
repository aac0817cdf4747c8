"""Batches larger than a device's memory, streamed through it in chunks.

An operation whose operands are host values (lists of ints, host rows of an earlier streamed
result) that would not fit the device's memory (Context.memory: the device's global memory, or
max_memory) runs chunk by chunk: two lanes (two queues of the same device, each with its own
pool) alternate, so one chunk's upload or download overlaps another's kernels, and every
chunk's result rows come back to the host at once. The result is a SplitArray of host rows;
`clbig.profile()` notes that (and how) the batch streamed.

Pipelining (issue 36): an operation on host operands made by `host` (numpy limbs or a list of
ints) that fit the device but are large also runs chunk by chunk through the two lanes, where
the device's memory is not the host's (a GPU): one lane converts and uploads chunk i while the
other runs the kernels and download of chunk i - 1, so conversion, transfers and kernels
overlap instead of following each other. Settings (ctx.profile.settings):
  PIPELINE=auto|on|off   auto: on devices with memory of their own (staging.separate_memory)
  PIPELINE_MIN=bytes     host operands of at least this many bytes of limbs (default 64 MiB)
  PIPELINE_ROWS=rows     ... or of more rows than this (default 2^17)
  PIPELINE_CHUNK=bytes   operand bytes per chunk (default 32 MiB)
"""
from __future__ import annotations

import concurrent.futures
import numbers
import threading
from typing import TYPE_CHECKING, Iterable


import numpy as np

from ..mpn import convert
from ..runtime import config, profiling, staging
from ..mpz.array import (BigIntArray, _pack, check_bits, checked_limbs, checked_neg, checked_signed, limbs_for,
                         upload_values, value_list)
from .split import HostRows, SplitArray, _upload_rows, batch_length, gather, piece
from ..runtime.devices import Context, Devices, current_context

if TYPE_CHECKING:
    from ..mpz.types import Integer

#: A chunk's operands and result may use this share of the device's memory (the rest: scratch
#: space of the algorithms, the other lane's chunk, what the pool holds).
SHARE = 8


def _host_bytes(x) -> int:
    if isinstance(x, SplitArray):
        return sum(len(p) * 4 * limbs_for(p.bits) for d, p in x.parts if isinstance(p, HostRows))
    if isinstance(x, (list, tuple)) and len(x) > 1:
        try:
            bits = max(map(int.bit_length, x))       # a C loop; negative values count too
        except TypeError:                            # mpz or bad values: array() names them
            bits = max((int(v).bit_length() for v in x if isinstance(v, numbers.Integral)), default=1)
        return len(x) * 4 * limbs_for(max(bits, 1))
    return 0


def plan(args, kw):
    """(ctx, rows per chunk, n, "streamed" or "pipelined") when this call runs in chunks, else
    None. Only host operands stream (arrays already on a device fit it); only operands made by
    `host` pipeline."""
    xs = [*args, *kw.values()]
    if any(isinstance(x, BigIntArray) and not _is_host(x) for x in xs):
        return None
    need = sum(_host_bytes(x) for x in xs)
    if not need:
        return None
    ctx = current_context()
    if getattr(ctx, "is_multi", False):
        return None
    fits = 2 * need <= ctx.memory // SHARE
    if fits and not any(_is_host(x) for x in xs):
        return None
    try:
        n = batch_length(xs)
    except ValueError:
        if not fits:
            raise
        return None        # the operation itself names the lengths that do not match
    # Operands and a result about as wide as their sum: twice the operands' bytes per row.
    per_row = 2 * need / max(n, 1)
    rows = max(1, int(ctx.memory // SHARE // 2 / per_row))   # two lanes in flight
    if not fits:
        return ctx, rows, n, "streamed"
    s = ctx.profile.settings
    if _pipelined(ctx, s, need, n):
        rows = min(rows, max(1, int(s.pipeline_chunk / (per_row / 2))))
        if rows < n:
            return ctx, rows, n, "pipelined"
    return None


#: Defaults of the pipelining settings (see the module doc), from the settings' table.
PIPELINE_MIN = config.SETTINGS["PIPELINE_MIN"].default
PIPELINE_ROWS = config.SETTINGS["PIPELINE_ROWS"].default
PIPELINE_CHUNK = config.SETTINGS["PIPELINE_CHUNK"].default


def _pipelined(ctx: Context, s: config.Settings, need: int, n: int) -> bool:
    """Whether host operands of `need` bytes in n rows that fit the device run in chunks anyway,
    so that conversion, transfers and kernels overlap (the PIPELINE setting of `s`; see the
    module doc)."""
    how = s.pipeline
    if how == "off" or (how == "auto" and not staging.separate_memory(ctx.device)):
        return False
    return need >= s.pipeline_min or n > s.pipeline_rows


def _is_host(x) -> bool:
    return isinstance(x, SplitArray) and all(isinstance(p, HostRows) for _, p in x.parts)


def _lanes(ctx: Context):
    """The device's two lanes as a Devices: ctx itself and a twin (same device, own queue and
    pool), made once per context (kept in its profile's "stream" cache; the lock makes sure
    two threads never make two twins)."""
    cache = ctx.profile.cache("stream")
    with ctx.launch_lock:
        lanes = cache.get("lanes")
        if lanes is None:
            twin = Context(ctx.device, max_work_group_size=ctx.max_items,
                           max_local_mem=ctx.local_mem, max_memory=ctx.memory)
            lanes = cache["lanes"] = Devices([ctx, twin])
    return lanes


class _Skipped(Exception):
    """A chunk not run because an earlier one failed (gather reports the earlier one)."""


def run(plan_, family: str, fn, args, kw):
    ctx, rows, n, how = plan_
    D = _lanes(ctx)
    lanes = D.contexts
    # Lists become host rows once (one width for the whole batch, whole-batch error indices).
    args = [_as_host(x, n, ctx) for x in args]
    kw = {k: _as_host(x, n, ctx) for k, x in kw.items()}
    # Operands given as Python ints (host(list)) give results whose lane converts them back to
    # ints too, overlapping the other lane's work, for the tolist() that will follow.
    as_ints = any(_holds_values(x) for x in (*args, *kw.values()))
    chunks = [(i % 2, r0, min(n, r0 + rows)) for i, r0 in enumerate(range(0, n, rows))]
    watchers = profiling.active()
    profiling.note(f"{how}: {n} rows in {len(chunks)} chunks of up to {rows} through {ctx.name} "
                   f"(memory {ctx.memory} bytes, two queues)")
    locks = [threading.Lock(), threading.Lock()]   # one chunk at a time per lane
    failed = threading.Event()
    sink = _Sink(n)

    def one(lane, r0, r1):
        if failed.is_set():
            raise _Skipped()
        try:
            with locks[lane], lanes[lane], profiling.adopted(watchers):
                a = [piece(x, D, lane, r0, r1, n) for x in args]
                k = {name: piece(x, D, lane, r0, r1, n) for name, x in kw.items()}
                return _to_host(fn(*a, **k), as_ints, sink, r0, r1)
        except BaseException:
            failed.set()      # later chunks are not started: the whole call raises anyway
            raise

    with concurrent.futures.ThreadPoolExecutor(2, thread_name_prefix="clbig-stream") as pool:
        futures = [pool.submit(one, *c) for c in chunks]
        out = gather(D, [(None, r0, r1) for _, r0, r1 in chunks], futures)
    return _rehome(sink.merged(out), ctx)


class _Sink:
    """One host array of n rows per result (per position of a tuple result), which every
    chunk's rows download straight into: the result is then one block of limbs, and to_limbs()
    needs no gathering copy (a fresh 1 GiB array costs its page faults and the copy, more than
    the transfers). Made by the first chunk that finishes, with that chunk's width; a chunk of
    another width (capacities that depend on the signs in the chunk) keeps rows of its own."""

    def __init__(self, n: int):
        self.n = n
        self.arrays: dict = {}          # position -> (m, array)
        self.lock = threading.Lock()

    def rows(self, pos: int, m: int, r0: int, r1: int):
        with self.lock:
            got = self.arrays.get(pos)
            if got is None:
                got = self.arrays[pos] = (m, np.empty((self.n, m), np.uint32))
        return got[1][r0:r1] if got[0] == m else None

    def merged(self, out, pos: int = 0):
        """`out` with each SplitArray whose rows all landed in their shared array as one
        HostRows over that array."""
        if isinstance(out, tuple):
            return tuple(self.merged(x, k) for k, x in enumerate(out))
        if not isinstance(out, SplitArray) or pos not in self.arrays:
            return out
        whole = self.arrays[pos][1]
        parts = [p for _, p in out.parts]
        if len(parts) < 2 or not all(isinstance(p, HostRows) and p.limbs.base is whole for p in parts):
            return out
        negs = [p.neg for p in parts]
        neg = None if all(x is None for x in negs) else np.concatenate(
            [np.zeros(len(p), bool) if x is None else x for p, x in zip(parts, negs)])
        rows = HostRows(whole, max(p.bits for p in parts), neg)
        if all(p.values is not None for p in parts):
            rows.values = [v for p in parts for v in p.values]
        return SplitArray(out.ctx, [(None, rows)])


def _as_host(x, n: int, ctx: Context):
    if isinstance(x, (list, tuple)) and len(x) == n and n != 1:
        vals, bits, neg = checked_signed(list(x))
        return SplitArray(ctx, [(None, HostRows(_pack(vals, bits), bits, neg))])
    return x


def _to_host(r, as_ints: bool = False, sink: _Sink | None = None, r0: int = 0, r1: int = 0, pos: int = 0):
    """A chunk's result (rows r0:r1 of the batch) on the host: into the sink's array when its
    width matches, as ints too when as_ints."""
    if isinstance(r, BigIntArray):
        dst = sink.rows(pos, r.m, r0, r1) if sink is not None and r1 - r0 == len(r) else None
        rows = HostRows(r.to_limbs(magnitude=True, out=dst), r.bits, r.neg)
        if as_ints:
            rows.values = rows.tolist()
        return rows
    if isinstance(r, tuple):
        return tuple(_to_host(x, as_ints, sink, r0, r1, k) for k, x in enumerate(r))
    return r


def _holds_values(x) -> bool:
    return isinstance(x, SplitArray) and any(isinstance(p, HostValues) for _, p in x.parts)


def _rehome(out, ctx):
    """Host-row results belong to the streaming device's context (a later operation on them
    streams through it again)."""
    if isinstance(out, SplitArray):
        return SplitArray(ctx, out.parts)
    if isinstance(out, tuple):
        return tuple(_rehome(x, ctx) for x in out)
    return out


def on_device(x):
    """A host-rows array (an earlier streamed result) uploaded to its context, for an operation
    small enough not to stream."""
    if _is_host(x):
        return _upload_rows(x.ctx, x, 0, len(x))
    return x


def host(limbs: np.ndarray | Iterable[Integer], bits: int | None = None, ctx: Context | None = None,
         sign: np.ndarray | None = None) -> SplitArray:
    """A batch kept in host memory, for batches too large to upload at once.

    Operations on it stream it through the device of `ctx` chunk by chunk when it does not
    fit there; run it in overlapping chunks (conversion, transfers and kernels at once) when
    it is large and the device has memory of its own (pipelining: the PIPELINE setting);
    else upload it. Results of streamed or pipelined operations stay on the host, and their
    ``tolist()`` / ``to_limbs()`` give a list / a numpy array. No device memory is used
    until an operation runs. A list is converted to limbs chunk by chunk, in the lane that
    uploads the chunk, and its values are checked then (errors name whole-batch indices).

    Parameters
    ----------
    limbs : numpy.ndarray or list of int
        An (n, m) uint32 / uint64 limb array, as `clbig.from_limbs` takes, or a list of
        Python ints / gmpy2 mpz of any signs.
    bits : int, optional
        The capacity in bits (default: every bit the limbs hold, or the widest value's
        bits rounded up to whole 32-bit limbs).
    ctx : Context, optional
        The device that will run the operations (default: the current context); one
        device, not a Devices.
    sign : array_like of int, optional
        With limbs only: n integers -1, 0, 1, the value negative where below 0.

    Returns
    -------
    SplitArray
        The batch, its rows on the host.

    Raises
    ------
    TypeError
        For a Devices context, a `sign` given with a list, a string or other non-sequence,
        limbs of another dtype, or a malformed `sign`.
    ValueError
        For limbs that are not (n, m), or a `bits` below 1 or above what the limbs hold.
    OverflowError
        Where a value of the limbs does not fit `bits`.

    Examples
    --------
    >>> import clbig, numpy as np
    >>> from clbig.scale.stream import host
    >>> h = host([1, -2, 3])
    >>> h
    BigIntArray([1, -2, 3], n=3, bits=32, on the host)
    >>> (h * 2).tolist()
    [2, -4, 6]
    >>> host(np.array([[5], [7]], dtype=np.uint32), sign=[1, -1]).tolist()
    [5, -7]
    """
    ctx = ctx or current_context()
    if getattr(ctx, "is_multi", False):
        raise TypeError("clbig.stream.host: streaming goes through one device; give one Context")
    if not isinstance(limbs, np.ndarray):
        if sign is not None:
            raise TypeError("clbig.stream.host: sign= goes with limbs; a list of ints carries its signs")
        vals = value_list(limbs, "clbig.stream.host")
        return SplitArray(ctx, [(None, HostValues(vals, bits))])
    arr, bits = checked_limbs(limbs, bits)
    return SplitArray(ctx, [(None, HostRows(arr, bits, checked_neg(sign, arr.shape[0])))])


class HostValues(HostRows):
    """Host rows kept as the Python ints (or mpz) they were given as: each chunk is checked and
    packed into limbs when it is read (rows), so conversion overlaps the device's work on other
    chunks. The capacity is known from the start: `bits`, else the widest value's."""

    _rows = None   # the whole batch as HostRows, made on the first whole-batch read

    def __init__(self, vals: list, bits: int | None = None):
        self.vals = vals
        self.bits = limbs_for(_widest(vals)) * 32 if bits is None else check_bits(bits)

    def __len__(self):
        return len(self.vals)

    def rows(self, r0: int, r1: int) -> HostRows:
        limbs, _, neg = convert.from_ints(self.vals[r0:r1], self.bits)   # checked and packed in C
        return HostRows(limbs, self.bits, neg)

    def upload(self, ctx: Context, r0: int, r1: int) -> BigIntArray:
        """Rows r0:r1 as an array of ctx, as clbig.array makes it: big ints go up as their
        own digits (mpn.radix), smaller ones packed."""
        return upload_values(ctx, *checked_signed(self.vals[r0:r1], self.bits))

    def _all(self) -> HostRows:
        got = self._rows
        if got is None:
            got = self._rows = self.rows(0, len(self))
        return got

    # Whole-batch readers (rare: an operation that does not stream reads rows(0, n) instead).
    limbs = property(lambda self: self._all().limbs)
    neg = property(lambda self: self._all().neg)

    def tolist(self, mpz: bool = False) -> list:
        # the signature of HostRows.tolist: SplitArray.tolist passes mpz to every piece
        return self._all().tolist(mpz)


def _widest(vals: list) -> int:
    """The largest bit length among `vals` (a C loop for ints); values that are not integers
    count as 0 here and raise, with their index, when their chunk is packed."""
    try:
        return max(map(int.bit_length, vals), default=0)
    except TypeError:
        return max((int(v).bit_length() for v in vals if isinstance(v, numbers.Integral)
                    and not isinstance(v, bool)), default=0)
