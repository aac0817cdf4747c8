"""Launch replay (clbig.replay): what a replay enqueues is what the plain run enqueued, its
results are exact for any values of the recorded sizes, and runs that a replay could not
repeat (host reads, foreign buffers, new constants, changed settings) are never replayed."""
import random

import numpy as np
import pytest

import clbig
from conftest import in_threads
from clbig.mpn import add_n
from clbig.mpn import mul_ntt
from clbig.runtime import render
from clbig.runtime import replay

RNG = random.Random(14)


def programs(ctx, name):
    """The recordings of `name` under today's settings, by their key without the settings'
    version (the key's last part)."""
    version = ctx.profile.settings.version
    return {k[1][:-1]: v for k, v in render.memo(ctx).items()
            if k[0] == "replay" and k[1][0] == name and k[1][-1] == version}


def edge_values(bits):
    return [0, 1, (1 << bits) - 1, 1 << (bits - 1), RNG.getrandbits(bits),
            ((1 << bits) - 1) ^ (1 << (bits // 2)), RNG.getrandbits(bits) | 1 << (bits - 1)]


@pytest.mark.parametrize("bits", [3000, 40000])
def test_replayed_products_are_exact_for_every_value(bits):
    """Every value against every other at one size (one recording, then replays), squares, and
    batches: odd length, broadcasting, the same arrays again."""
    ctx = clbig.current_context()
    vals = edge_values(bits)
    xs = clbig.array(vals, bits=bits)
    for k in range(len(vals)):                 # rotations: each value meets every other
        ys_vals = vals[k:] + vals[:k]
        ys = clbig.array(ys_vals, bits=bits)
        got = clbig.mul(xs, ys, algorithm="ntt").tolist()
        assert got == [a * b for a, b in zip(vals, ys_vals)], k
    x, y = vals[4], vals[6]
    for _ in range(3):                          # single products: recorded, then replayed
        assert clbig.mul(x, y, algorithm="ntt") == x * y
        assert clbig.mul(x, x, algorithm="ntt") == x * x
    for _ in range(2):
        assert clbig.mul(xs, xs, algorithm="ntt").tolist() == [a * a for a in vals]
        assert clbig.mul(xs, vals[2], algorithm="ntt").tolist() == [a * vals[2] for a in vals]
    progs = programs(ctx, "mul_ntt")
    assert any(p for p, _, _ in progs.values()), "no product was replayed"


def _spy_launches(monkeypatch):
    seen = []
    real = render.launch

    def spy(ctx, k, groups, wg, *args, wait_for=None):
        seen.append((k.function_name, groups, wg))
        return real(ctx, k, groups, wg, *args, wait_for=wait_for)
    for mod in (render, mul_ntt, add_n):
        monkeypatch.setattr(mod, "launch", spy)
    real_enqueue = replay.enqueue

    def spy_replayed(ctx, k, gsize, lsize, args, prof):
        seen.append((k.function_name, gsize[0] // lsize[0], lsize[0]))
        return real_enqueue(ctx, k, gsize, lsize, args, prof)
    monkeypatch.setattr(replay, "enqueue", spy_replayed)
    return seen


def test_a_replay_enqueues_what_the_plain_run_did(monkeypatch):
    x, y = RNG.getrandbits(40000), RNG.getrandbits(40000)   # the sizes above: no new builds
    seen = _spy_launches(monkeypatch)
    monkeypatch.setenv("CLBIG_REPLAY", "0")
    assert clbig.mul(x, y, algorithm="ntt") == x * y      # twiddle tables made: not counted
    seen.clear()
    assert clbig.mul(x, y, algorithm="ntt") == x * y
    plain = list(seen)
    monkeypatch.setenv("CLBIG_REPLAY", "1")
    for _ in range(3):
        seen.clear()
        assert clbig.mul(x, y, algorithm="ntt") == x * y
        assert seen == plain


def test_a_changed_setting_is_not_replayed_with_the_old_plan(monkeypatch):
    """CLBIG_NTT_POINTS is read while recording: set otherwise, the product is planned anew
    (fewer points per pass), and each setting's replays enqueue what its plain run does."""
    x, y = RNG.getrandbits(60000), RNG.getrandbits(60000)
    seen = _spy_launches(monkeypatch)
    plans = {}
    for pts in (None, "256", None, "256"):
        if pts is None:
            monkeypatch.delenv("CLBIG_NTT_POINTS", raising=False)
        else:
            monkeypatch.setenv("CLBIG_NTT_POINTS", pts)
        monkeypatch.setenv("CLBIG_REPLAY", "0")
        assert clbig.mul(x, y, algorithm="ntt") == x * y      # tables made: not counted
        seen.clear()
        assert clbig.mul(x, y, algorithm="ntt") == x * y
        plain = plans.setdefault(pts, list(seen))
        assert plain == seen
        monkeypatch.setenv("CLBIG_REPLAY", "1")
        for _ in range(3):
            seen.clear()
            assert clbig.mul(x, y, algorithm="ntt") == x * y
            assert seen == plain, pts
    assert plans[None] != plans["256"]


def test_aliased_and_separate_buffers_replay_apart():
    """Two operands in one buffer (a square, or two rows of one array at stride 0 / m) and the
    same sizes in two buffers are different recordings: each stays exact."""
    ctx = clbig.current_context()
    bits = 40000
    for _ in range(3):
        vals = [RNG.getrandbits(bits) for _ in range(3)]
        a = clbig.array(vals, bits=bits)
        b = clbig.array(vals[::-1], bits=bits)
        m = a.data.shape[1]
        one = mul_ntt.mul(ctx, a.data.data, m, m, a.data.data, 0, m, 3, 2 * bits)   # row 0 broadcast
        two = mul_ntt.mul(ctx, a.data.data, m, m, b.data.data, 0, m, 3, 2 * bits)
        got1 = clbig.from_limbs(ctx.get(one)).tolist()
        got2 = clbig.from_limbs(ctx.get(two)).tolist()
        assert got1 == [v * vals[0] for v in vals]
        assert got2 == [v * vals[-1] for v in vals]


@replay.recorded("test.reads_host", buffers=(0,))
def _reads_host(ctx, a, n):
    out = ctx.empty((n,), np.uint32)
    host = ctx.get(out)          # a host read: the data could steer what follows
    del host
    return out


def test_runs_a_replay_could_not_repeat_are_never_recorded():
    ctx = clbig.current_context()
    a = ctx.empty((4,), np.uint32)
    for _ in range(replay.TRIES + 2):
        _reads_host(ctx, a.data, 4)
    progs, fails, why = programs(ctx, "test.reads_host")[("test.reads_host", ("buffer", 0), 4)]
    assert progs == () and fails == replay.TRIES and why == "a host read"


def test_a_constant_made_while_recording_defers_the_recording():
    ctx = clbig.current_context()
    made = []

    @replay.recorded("test.makes_constant", buffers=(0,))
    def fn(ctx, a):
        out = ctx.empty((1,), np.uint32)
        if not made:
            made.append(replay.persistent(ctx, ctx.empty((1,), np.uint32)))
        return out
    a = ctx.empty((1,), np.uint32)
    fn(ctx, a.data)
    assert programs(ctx, "test.makes_constant")[("test.makes_constant", ("buffer", 0))] == (
        (), 1, "a constant was made during the run")
    fn(ctx, a.data)
    progs, fails, _ = programs(ctx, "test.makes_constant")[("test.makes_constant", ("buffer", 0))]
    assert len(progs) == 1 and fails == 1


def test_a_launch_on_a_foreign_buffer_is_not_recorded():
    """A buffer that is neither an input, an allocation of the run nor a registered constant
    could differ next time: such a run is not recorded."""
    ctx = clbig.current_context()
    rec = replay._Recording(ctx, {})
    stranger = ctx.empty((2,), np.uint32)
    rec.launch(None, 1, 1, (stranger.data, np.uint32(1)), None)
    assert rec.bad and rec.finish(None) is None


def test_replayed_inverses_divide_exactly():
    ctx = clbig.current_context()
    bits = 3000
    divisors = [1, 3, (1 << bits) - 1, 1 << (bits - 1), (1 << bits) - 1 ^ 1 << (bits - 7),
                RNG.getrandbits(bits) | 1 << (bits - 1), RNG.getrandbits(bits) | 1 << (bits - 1)]
    for v in divisors[2:]:
        for u in (0, v - 1, v, (1 << (2 * bits)) - 1, RNG.getrandbits(2 * bits)):
            assert clbig.divmod(u, v, algorithm="newton") == divmod(u, v)
    us = [RNG.getrandbits(2 * bits) for _ in divisors]
    for _ in range(3):
        q, r = clbig.divmod(clbig.array(us), clbig.array(divisors), algorithm="newton")
        assert q.tolist() == [u // v for u, v in zip(us, divisors)]
        assert r.tolist() == [u % v for u, v in zip(us, divisors)]
    assert any(p for p, _, _ in programs(ctx, "div_q.inverse").values())


def test_threads_replaying_one_context_stay_exact():
    ctx = clbig.current_context()
    bits = 3000         # the sizes of the tests above: kernels built once (CI builds them cold)
    x0, y0 = RNG.getrandbits(bits), RNG.getrandbits(bits)
    assert clbig.mul(x0, y0, algorithm="ntt") == x0 * y0       # recorded before the threads
    errors = []

    def work(seed):
        rng = random.Random(seed)
        with ctx:
            for _ in range(6):
                x, y = rng.getrandbits(bits), rng.getrandbits(bits)
                got = clbig.mul(x, y, algorithm="ntt")
                if got != x * y:
                    errors.append((seed, x, y))
                u = rng.getrandbits(2 * bits)
                v = rng.getrandbits(bits) | 1 << (bits - 1)
                if clbig.divmod(u, v, algorithm="newton") != divmod(u, v):
                    errors.append((seed, u, v))
    in_threads(work, 4)
    assert not errors
