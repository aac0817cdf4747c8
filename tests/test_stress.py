"""Differential stress: thousands of mixed operations over random shapes in one process, and the
same from several threads sharing one Context, each result checked against Python ints.

Wrong results that only show after many operations (stale pool buffers, uninitialized local
memory) or under threads (a kernel's arguments changed by another thread between set_args and
the enqueue) pass every single-operation test; these runs are where they show.

The shapes come from short lists so the run reuses the suite's compiled kernels instead of
paying a PoCL build per random width. CLBIG_STRESS_SCALE=k multiplies the operation counts
(the longer run, e.g. `CLBIG_STRESS_SCALE=20 pytest tests/test_stress.py`); the default is
sized for CI on two cores.
"""
from __future__ import annotations

import os
import random
import threading
import time

import pytest

import clbig
from clbig import fused

from conftest import BASE_SEED, check_bools, check_values, in_threads, mask, rand_value

SCALE = max(1, int(os.environ.get("CLBIG_STRESS_SCALE", "1")))
SESSION_OPS = 2000 * SCALE
THREADS = 4
THREAD_OPS = 120 * SCALE

# (a.bits, b.bits): one limb, odd limb counts, non-multiples of 32, very unequal widths.
WIDTHS = [(32, 32), (31, 1000), (1000, 31), (96, 64), (100, 1000), (1056, 1056), (64, 2048)]
LENGTHS = [(1, 1), (3, 3), (21, 21), (3, 1), (1, 21)]   # (len(a), len(b)); length 1 broadcasts


def _operands(rng, ctx):
    ba, bb = rng.choice(WIDTHS)
    na, nb = rng.choice(LENGTHS)
    xs = [rand_value(rng, ba) for _ in range(na)]
    ys = [rand_value(rng, bb) for _ in range(nb)]
    a = clbig.array(xs, bits=ba, ctx=ctx)
    b = clbig.array(ys, bits=bb, ctx=ctx)
    n = max(na, nb)
    xs, ys = xs * (n // na), ys * (n // nb)
    return a, b, xs, ys


_SIGNED = {
    "s+": (lambda a, b: a + b, lambda x, y: x + y), "s-": (lambda a, b: a - b, lambda x, y: x - y),
    "s*": (lambda a, b: a * b, lambda x, y: x * y), "s&": (lambda a, b: a & b, lambda x, y: x & y),
    "s|": (lambda a, b: a | b, lambda x, y: x | y), "s^": (lambda a, b: a ^ b, lambda x, y: x ^ y),
    "s//": (lambda a, b: a // b, lambda x, y: x // y), "s%": (lambda a, b: a % b, lambda x, y: x % y),
    "scmp": (lambda a, b: clbig.compare(a, b), lambda x, y: (x > y) - (x < y)),
}


def _signed_op(rng, ctx, a, b, xs, ys):
    """The same operands with random signs through Python's signed semantics."""
    sx = [rng.choice((-1, 1)) for _ in range(len(a))]
    sy = [rng.choice((-1, 1)) for _ in range(len(b))]
    xs0, ys0 = [x * s for x, s in zip(xs, sx)], [y * s for y, s in zip(ys, sy)]
    a = clbig.array(xs0, bits=a.bits, ctx=ctx)
    b = clbig.array(ys0, bits=b.bits, ctx=ctx)
    n = max(len(a), len(b))
    xs, ys = xs0 * (n // len(xs0)), ys0 * (n // len(ys0))
    key = rng.choice(sorted(_SIGNED) + ["s>>", "s~"])
    if key in ("s//", "s%") and not all(ys):
        ys0 = [y or 1 for y in ys0]
        b = clbig.array(ys0, bits=b.bits, ctx=ctx)
        ys = ys0 * (n // len(ys0))
    if key == "s>>":
        k = rng.choice([0, 1, 31, 32, 33, 100])
        return key, (a >> k).tolist(), [x >> k for x in xs0]
    if key == "s~":
        return key, (~a).tolist(), [~x for x in xs0]
    dev, host = _SIGNED[key]
    got = dev(a, b)
    return key, list(got.tolist()), [host(x, y) for x, y in zip(xs, ys)]


def _one_op(rng, ctx):
    """One random operation; returns (what, got, expected) with got already on the host."""
    a, b, xs, ys = _operands(rng, ctx)
    if rng.random() < 0.3:
        return _signed_op(rng, ctx, a, b, xs[:len(a)], ys[:len(b)])
    op = rng.choice(["add", "sub", "mul", "mul_low", "add_fixed", "sub_fixed", "cmp", "shl",
                     "shr", "divmod", "six_add", "poly", "chain"])
    bits = rng.choice([32, 100, 1000])
    if op == "add":
        return op, (a + b).tolist(), [x + y for x, y in zip(xs, ys)]
    if op == "sub":
        if any(y > x for x, y in zip(xs, ys)):
            a, b, xs, ys = b, a, ys, xs
            if any(y > x for x, y in zip(xs, ys)):   # mixed: subtract a clamped copy instead
                ys = [min(x, y) for x, y in zip(xs, ys)]
                b = clbig.array(ys, bits=b.bits, ctx=ctx)
        return op, (a - b).tolist(), [x - y for x, y in zip(xs, ys)]
    if op == "mul":
        return op, (a * b).tolist(), [x * y for x, y in zip(xs, ys)]
    if op == "mul_low":
        return op, clbig.mul_low(a, b, bits).tolist(), [x * y & mask(bits) for x, y in zip(xs, ys)]
    if op == "add_fixed":
        w = max(a.bits, b.bits)
        r, c = clbig.add_fixed(a, b)
        check_bools(c, [x + y >> w != 0 for x, y in zip(xs, ys)], "add_fixed carry")
        return op, r.tolist(), [x + y & mask(w) for x, y in zip(xs, ys)]
    if op == "sub_fixed":
        w = max(a.bits, b.bits)
        r, c = clbig.sub_fixed(a, b)
        check_bools(c, [x < y for x, y in zip(xs, ys)], "sub_fixed borrow")
        return op, r.tolist(), [x - y & mask(w) for x, y in zip(xs, ys)]
    if op == "cmp":
        return op, clbig.compare(a, b).tolist(), [(x > y) - (x < y) for x, y in zip(xs, ys)]
    if op == "shl":
        k = rng.choice([0, 1, 31, 32, 33, 100])
        return op, (a << k).tolist(), [x << k for x in xs[:len(a)]]
    if op == "shr":
        k = rng.choice([0, 1, 31, 32, 33, 100])
        return op, (a >> k).tolist(), [x >> k for x in xs[:len(a)]]
    if op == "divmod":
        if not all(ys):
            ys = [y or 1 for y in ys]
            b = clbig.array(ys[:len(b)], bits=b.bits, ctx=ctx)
        q, r = clbig.divmod(a, b)
        got = q.tolist() + r.tolist()
        return op, got, [x // y for x, y in zip(xs, ys)] + [x % y for x, y in zip(xs, ys)]
    if op == "six_add":
        return op, fused.six_add(a, b, bits).tolist(), [(6 * x + 10 * y) & mask(bits) for x, y in zip(xs, ys)]
    if op == "poly":
        f = rng.choice([None, False])
        return op, fused.poly(a, b, bits, fused=f).tolist(), [
            ((x * x + y) * (y * y + y) + x * y) & mask(bits) for x, y in zip(xs, ys)]
    # a chain whose intermediates are fed back without a host round trip
    u = clbig.add_fixed(clbig.mul_low(a, a, 1000), b, 1000)[0]
    v = clbig.mul_low(u, clbig.add_fixed(clbig.mul_low(b, b, 1000), b, 1000)[0], 1000)
    exp = [(((x * x + y) & mask(1000)) * ((y * y + y) & mask(1000))) & mask(1000) for x, y in zip(xs, ys)]
    return op, v.tolist(), exp


def _run(seed, ctx, count, errors, counts=None):
    rng = random.Random(seed)
    for i in range(count):
        state = rng.getstate()
        try:
            what, got, exp = _one_op(rng, ctx)
            if counts is not None:
                counts[what] = counts.get(what, 0) + 1
            check_values(got, exp, f"operation {i} ({what}, seed {seed!r})")
        except BaseException as e:  # collect, so other threads finish and the first is shown
            rng.setstate(state)
            errors.append(f"operation {i} of seed {seed!r}: {type(e).__name__}: {e}")
            return


def test_long_session(ctx):
    """SESSION_OPS mixed operations in one process on one context, every one checked."""
    errors, counts = [], {}
    t0 = time.perf_counter()
    _run(f"{BASE_SEED}:session", ctx, SESSION_OPS, errors, counts)
    assert not errors, errors[0]
    assert sum(counts.values()) == SESSION_OPS
    print(f"\n{SESSION_OPS} operations {counts} in {time.perf_counter() - t0:.1f} s")


def _in_threads(work):
    """work(t) in THREADS threads at once, with a 1 µs switch interval so that threads
    interleave between any two bytecodes."""
    import sys
    old = sys.getswitchinterval()
    sys.setswitchinterval(1e-6)
    try:
        in_threads(work, THREADS)
    finally:
        sys.setswitchinterval(old)


def test_threads_share_a_context(ctx):
    """THREADS threads each running THREAD_OPS mixed operations on the one shared context,
    with a tiny switch interval so threads interleave between any two bytecodes."""
    errors = []
    _in_threads(lambda t: _run(f"{BASE_SEED}:thread{t}", ctx, THREAD_OPS, errors))
    assert not errors, f"{len(errors)} thread(s) failed; first: {errors[0]}"


def test_threads_same_kernel(ctx):
    """The issue's reproducer: threads launching the same cached kernel with their own
    arguments (squares of their own arrays)."""
    xs = [[3 ** 150 + 97 * t + i for i in range(8)] for t in range(THREADS)]
    arrs = [clbig.array(x, bits=256) for x in xs]
    bad = []

    def work(t):
        for _ in range(60 * SCALE):
            bad.append((arrs[t] * arrs[t]).tolist() != [x * x for x in xs[t]])
    _in_threads(work)
    assert len(bad) == THREADS * 60 * SCALE
    assert sum(bad) == 0, f"{sum(bad)} of {len(bad)} squares wrong"


def test_threads_profiled_and_plain(ctx):
    """Half the threads inside clbig.profile() (the context's profiling queue), half outside
    (its plain queue), sharing the context and its buffer pool: a command on one queue must
    still run after everything enqueued before it on the other."""
    errors = []

    def work(t):
        if t % 2:
            with clbig.profile() as p:
                _run(f"{BASE_SEED}:timed{t}", ctx, THREAD_OPS, errors)
            if not p.kernels:
                errors.append(f"thread {t}: its profile recorded no kernel")
        else:
            _run(f"{BASE_SEED}:plain{t}", ctx, THREAD_OPS, errors)
    _in_threads(work)
    assert not errors, f"{len(errors)} thread(s) failed; first: {errors[0]}"


def test_results_cross_between_profiled_and_plain(ctx):
    """Results handed on before their kernels ran: products made inside a profile and summed
    outside it, by another thread and by the same one, with no finish in between."""
    import queue
    rng = random.Random(f"{BASE_SEED}:handoff")
    rounds = 12 * SCALE
    vals = [([rand_value(rng, 4096) for _ in range(33)], [rand_value(rng, 4096) for _ in range(33)])
            for _ in range(rounds)]
    handed, bad = queue.Queue(), []

    def producer():
        with clbig.profile():
            for i, (x, y) in enumerate(vals):
                handed.put((i, clbig.array(x) * clbig.array(y)))

    def consumer():
        for _ in range(rounds):
            i, c = handed.get()
            x, y = vals[i]
            if (c + 1).tolist() != [a * b + 1 for a, b in zip(x, y)]:
                bad.append(f"round {i}, across threads")
    ts = [threading.Thread(target=producer), threading.Thread(target=consumer)]
    for t in ts:
        t.start()
    for t in ts:
        t.join()
    for i, (x, y) in enumerate(vals):   # one thread, in and out of a profile
        with clbig.profile():
            c = clbig.array(x) * clbig.array(y)
        d = c * c
        with clbig.profile():
            e = d + c
        if e.tolist() != [(a * b) ** 2 + a * b for a, b in zip(x, y)]:
            bad.append(f"round {i}, one thread")
    assert not bad, bad


def test_threads_cooperative_fp64_products(ctx, monkeypatch):
    """Threads sharing the context through the cooperative FP64 product (forced: CPUs do not
    take it by default), each with its own operands, full products and low halves."""
    from clbig.mpn import mul_fp64
    if not ctx.profile.facts.exact_fma:
        pytest.skip("the device has no correctly rounded FP64 fma")
    monkeypatch.setenv("CLBIG_MUL52_COOP", "1")
    rng = random.Random(f"{BASE_SEED}:coop")
    xs = [[rng.getrandbits(2048) for _ in range(5)] for _ in range(THREADS)]
    ys = [[rng.getrandbits(1500) | (1 << 1499) for _ in range(5)] for _ in range(THREADS)]
    xs[0][0] = (1 << 2048) - 1
    bad = []

    def work(t):
        a, b = clbig.array(xs[t], bits=2048, ctx=ctx), clbig.array(ys[t], bits=1500, ctx=ctx)
        for _ in range(20 * SCALE):
            bad.append((a * b).tolist() != [x * y for x, y in zip(xs[t], ys[t])])
            bad.append(clbig.mul_low(a, b, 2000).tolist() != [x * y & mask(2000) for x, y in zip(xs[t], ys[t])])
    taken = []
    real = mul_fp64.coop_mul
    monkeypatch.setattr(mul_fp64, "coop_mul", lambda *a, **k: taken.append(real(*a, **k)) or taken[-1])
    _in_threads(work)
    assert taken and all(taken), "the cooperative kernel did not run"
    assert len(bad) == THREADS * 40 * SCALE and sum(bad) == 0, f"{sum(bad)} of {len(bad)} products wrong"


def test_queue_switch_orders_a_command_enqueued_meanwhile(ctx, monkeypatch):
    """A thread chooses its queue and, before it enqueues, another thread switches the context
    to the other queue. The command must still run before whatever that thread enqueues once
    the command's input buffer is back in the pool. Here thread A copies the rows of `arr`
    (its queue then held shut by a gate, so the copy runs late) and drops `arr`; thread B
    uploads other values into a buffer of that size, which the pool hands it. Without one lock
    over choosing the queue and enqueueing, B's fence missed the copy, the upload ran first
    and the copy read B's values (CI saw this once, as a signed & reading another thread's
    sign bytes). With the lock, B's switch waits for A's copy to be enqueued."""
    import numpy as np
    import pyopencl as cl
    if ctx.allocator is None:
        pytest.skip("no buffer pool on this device")
    cls = type(ctx)
    real = cls.queue
    in_window, switched, gated, freed = (threading.Event() for _ in range(4))

    def paused(self):
        q = real.fget(self)
        if threading.current_thread().name == "A" and not in_window.is_set():
            in_window.set()
            gated.wait(1)   # holding the enqueue lock, B cannot switch: this times out
        return q
    n, m = 64, 32
    want = [(i + 1) * 0x1234567 for i in range(n)]
    other = np.full((n, m), 0x5A5A5A5A, np.uint32)
    held = [clbig.array(want, bits=32 * m, ctx=ctx)]
    ctx.finish()
    got = {}

    def a():
        got["rows"] = held[0][0:n]   # a device copy of the rows
        del held[0]                  # their buffer back to the pool
        freed.set()

    def b():
        in_window.wait(2)
        with clbig.profile():
            ctx.to_device(np.zeros(3, np.uint32))   # B's first command: the switch
            switched.set()
            freed.wait(3)
            got["upload"] = ctx.to_device(other)    # a buffer of the rows' size from the pool
    monkeypatch.setattr(cls, "queue", property(paused))
    ta, tb = threading.Thread(target=a, name="A"), threading.Thread(target=b, name="B")
    ta.start()
    tb.start()
    switched.wait(3)
    gate = cl.UserEvent(ctx.cl_context)       # holds A's queue from here on
    cl.enqueue_barrier(ctx._plain_queue, wait_for=[gate])
    gated.set()
    freed.wait(3)
    time.sleep(0.3)
    gate.set_status(cl.command_execution_status.COMPLETE)
    ta.join(5)
    tb.join(5)
    monkeypatch.setattr(cls, "queue", real)
    assert not ta.is_alive() and not tb.is_alive()
    check_values(got["rows"].tolist(), want, "rows copied before their buffer was reused")
