"""Batches larger than a device's memory, streamed through it in chunks.

An operation whose operands are host values (lists of ints, host rows of an earlier streamed
result) that would not fit the device's memory (Context.memory: the device's global memory, or
max_memory) runs chunk by chunk: two lanes (two queues of the same device, each with its own
pool) alternate, so one chunk's upload or download overlaps another's kernels, and every
chunk's result rows come back to the host at once. The result is a SplitArray of host rows;
`clbig.profile()` notes that (and how) the batch streamed.
"""
from __future__ import annotations

import concurrent.futures
import numbers
import threading


from ..runtime import profiling
from ..mpz.array import BigIntArray, _pack, checked_limbs, checked_neg, checked_signed, limbs_for
from .split import HostRows, SplitArray, _upload_rows, batch_length, gather, piece
from ..runtime.devices import Context, Devices, current_context

#: A chunk's operands and result may use this share of the device's memory (the rest: scratch
#: space of the algorithms, the other lane's chunk, what the pool holds).
SHARE = 8


def _host_bytes(x) -> int:
    if isinstance(x, SplitArray):
        return sum(p.limbs.nbytes for d, p in x.parts if isinstance(p, HostRows))
    if isinstance(x, (list, tuple)) and len(x) > 1:
        try:
            bits = max(map(int.bit_length, x))       # a C loop; negative values count too
        except TypeError:                            # mpz or bad values: array() names them
            bits = max((int(v).bit_length() for v in x if isinstance(v, numbers.Integral)), default=1)
        return len(x) * 4 * limbs_for(max(bits, 1))
    return 0


def plan(args, kw):
    """(ctx, rows per chunk, n) when this call must stream, else None. Only host operands
    stream: arrays already on a device fit it."""
    xs = [*args, *kw.values()]
    if any(isinstance(x, BigIntArray) and not _is_host(x) for x in xs):
        return None
    need = sum(_host_bytes(x) for x in xs)
    if not need:
        return None
    ctx = current_context()
    if getattr(ctx, "is_multi", False):
        return None
    # Operands and a result about as wide as their sum: twice the operands' bytes per row.
    if 2 * need <= ctx.memory // SHARE:
        return None
    n = batch_length(xs)
    per_row = 2 * need / max(n, 1)
    rows = max(1, int(ctx.memory // SHARE // 2 / per_row))   # two lanes in flight
    return ctx, rows, n


def _is_host(x) -> bool:
    return isinstance(x, SplitArray) and all(isinstance(p, HostRows) for _, p in x.parts)


def _lanes(ctx: Context):
    """The device's two lanes as a Devices: ctx itself and a twin (same device, own queue and
    pool), made once per context."""
    with ctx.launch_lock:
        lanes = ctx.__dict__.get("_lanes")
        if lanes is None:
            twin = Context(ctx.device, max_work_group_size=ctx.max_items,
                           max_local_mem=ctx.local_mem, max_memory=ctx.memory)
            lanes = ctx._lanes = Devices([ctx, twin])
    return lanes


def run(plan_, family: str, fn, args, kw):
    ctx, rows, n = plan_
    D = _lanes(ctx)
    lanes = D.contexts
    # Lists become host rows once (one width for the whole batch, whole-batch error indices).
    args = [_as_host(x, n, ctx) for x in args]
    kw = {k: _as_host(x, n, ctx) for k, x in kw.items()}
    chunks = [(i % 2, r0, min(n, r0 + rows)) for i, r0 in enumerate(range(0, n, rows))]
    watchers = profiling.active()
    profiling.note(f"streamed: {n} rows in {len(chunks)} chunks of up to {rows} through {ctx.name} "
                   f"(memory {ctx.memory} bytes, two queues)")
    locks = [threading.Lock(), threading.Lock()]   # one chunk at a time per lane

    def one(lane, r0, r1):
        with locks[lane], lanes[lane], profiling.adopted(watchers):
            a = [piece(x, D, lane, r0, r1, n) for x in args]
            k = {name: piece(x, D, lane, r0, r1, n) for name, x in kw.items()}
            return _to_host(fn(*a, **k))

    with concurrent.futures.ThreadPoolExecutor(2, thread_name_prefix="clbig-stream") as pool:
        futures = [pool.submit(one, *c) for c in chunks]
        out = gather(D, [(None, r0, r1) for _, r0, r1 in chunks], futures)
    return _rehome(out, ctx)


def _as_host(x, n: int, ctx: Context):
    if isinstance(x, (list, tuple)) and len(x) == n and n != 1:
        vals, bits, neg = checked_signed(list(x))
        return SplitArray(ctx, [(None, HostRows(_pack(vals, bits), bits, neg))])
    return x


def _to_host(r):
    if isinstance(r, BigIntArray):
        return HostRows(r.to_limbs(magnitude=True), r.bits, r.neg)
    if isinstance(r, tuple):
        return tuple(_to_host(x) for x in r)
    return r


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


def host(limbs, bits: int | None = None, ctx: Context | None = None, sign=None):
    """A batch kept in host memory (an (n, m) uint32/uint64 limb array, as clbig.from_limbs
    takes): operations on it stream it through ctx's device (the current context by default)
    when it does not fit there, else upload it. No device memory is used until then."""
    ctx = ctx or current_context()
    if getattr(ctx, "is_multi", False):
        raise TypeError("clbig.stream.host: streaming goes through one device; give one Context")
    arr, bits = checked_limbs(limbs, bits)
    return SplitArray(ctx, [(None, HostRows(arr, bits, checked_neg(sign, arr.shape[0])))])
