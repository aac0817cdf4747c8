"""Several devices as one context (clbig.multi) and streaming past a device's memory (clbig.stream).

The split tests use the session's context and the small-work-group context as two "devices"
(same PoCL device, two OpenCL contexts, different launch plans: kernels are reused). One test
runs in a fresh process with POCL_DEVICES="pthread pthread", PoCL's two CPU devices of one
platform. Every expected value comes from Python ints / gmpy2.
"""
from __future__ import annotations

import math
import os
import subprocess
import sys

import gmpy2
import numpy as np
import pytest

import clbig
from clbig.runtime.devices import Devices
from conftest import in_threads
from clbig.scale.split import SplitArray

N = 21


@pytest.fixture(scope="module")
def two(ctx, small_ctx_obj):
    return clbig.Context([ctx, small_ctx_obj])


def _vals(rng, n, bits, lo=0):
    return [max(lo, rng.getrandbits(bits)) for _ in range(n)]


def _speeds(c, speeds: dict) -> None:
    """Give context c these tuned speeds (tuned.speed reads them from its profile's "tuned"
    cache); the test clears that cache after, so c reads its tuning file again."""
    c.profile.cache("tuned")["speeds"] = speeds


def test_context_list_gives_devices(two, ctx):
    assert isinstance(two, Devices) and len(two) == 2 and two.contexts[0] is ctx
    with two:
        a = clbig.array(list(range(N)))
    assert isinstance(a, SplitArray) and isinstance(a, clbig.BigIntArray)
    assert [(s, e) for _, s, e in a.placement] == [(0, 10), (10, 21)]
    assert a.tolist() == list(range(N)) and len(a) == N


@pytest.mark.parametrize("n", [1, 2, N])
def test_every_operation_exact_when_split(two, rng, n):
    xs = _vals(rng, n, 700) + []
    ys = _vals(rng, n, 300, lo=1)
    xs[0], ys[-1] = 2 ** 700 - 1, 2 ** 300 - 1           # carry chains
    ms = [y | 1 for y in ys]
    with two:
        a, b = clbig.array(xs), clbig.array(ys)
        checks = {
            "add": ((a + b).tolist(), [x + y for x, y in zip(xs, ys)]),
            "sub": ((b - a).tolist(), [y - x for x, y in zip(xs, ys)]),
            "mul": ((a * b).tolist(), [x * y for x, y in zip(xs, ys)]),
            "square": ((a * a).tolist(), [x * x for x in xs]),
            "mul_low": (clbig.mul_low(a, b, 500).tolist(), [x * y % 2 ** 500 for x, y in zip(xs, ys)]),
            "floordiv": ((a // b).tolist(), [x // y for x, y in zip(xs, ys)]),
            "mod": ((a % b).tolist(), [x % y for x, y in zip(xs, ys)]),
            "shift": (((a << 37) >> 5).tolist(), [x << 32 for x in xs]),
            "neg_and": ((-a & b).tolist(), [-x & y for x, y in zip(xs, ys)]),
            "pow": ((b ** 3).tolist(), [y ** 3 for y in ys]),
            "isqrt": (clbig.isqrt(a).tolist(), [math.isqrt(x) for x in xs]),
            "powmod": (clbig.powmod(a, 65537, ms).tolist(), [pow(x, 65537, m) for x, m in zip(xs, ms)]),
            "mulmod": (clbig.mulmod(a, a, ms).tolist(), [x * x % m for x, m in zip(xs, ms)]),
            "gcd": (clbig.gcd(a, b).tolist(), [math.gcd(x, y) for x, y in zip(xs, ys)]),
            "six_add": (clbig.fused.six_add(a, b, 800).tolist(), [(6 * x + 10 * y) % 2 ** 800 for x, y in zip(xs, ys)]),
            "poly": (clbig.fused.poly(b, b, 640).tolist(),
                     [((y * y + y) * (y * y + y) + y * y) % 2 ** 640 for y in ys]),
        }
        q, r = divmod(a, b)
        checks["divmod"] = (q.tolist() + r.tolist(), [x // y for x, y in zip(xs, ys)] + [x % y for x, y in zip(xs, ys)])
        s, c = clbig.add_fixed(a, a, 700)
        checks["add_fixed"] = (s.tolist() + c.tolist(), [(2 * x) % 2 ** 700 for x in xs] + [2 * x >= 2 ** 700 for x in xs])
        checks["compare"] = (clbig.compare(a, b).tolist(), [(x > y) - (x < y) for x, y in zip(xs, ys)])
        inv, ok = clbig.invert(a, ms, strict=False)
        want = [int(gmpy2.invert(x, m)) if math.gcd(x, m) == 1 else 0 for x, m in zip(xs, ms)]
        checks["invert"] = (inv.tolist() + ok.tolist(), want + [math.gcd(x, m) == 1 for x, m in zip(xs, ms)])
    for name, (got, want) in checks.items():
        assert got == want, name
    assert isinstance(q, SplitArray) and len(q.placement) == (1 if n == 1 else 2)


def test_plain_ints_and_host_reductions_in_a_group(two):
    """All-int calls and the host's sums and products work where a group is current (they
    read one device's profile: the fastest's, the strictest host limit)."""
    with two:
        assert (clbig.add(1, 2), clbig.sub(5, 7), clbig.mul_low(3, 5, bits=8)) == (3, -2, 15)
        assert (clbig.shift_left(3, 2), clbig.shift_right(-12, 2), clbig.compare(5, 2)) == (12, -3, 1)
        assert clbig.isqrt(99) == 9 and clbig.add_fixed(3, 4, bits=8)[0] == 7
        assert clbig.prod([2, 3, -4]) == -24 and clbig.sum([2, 3]) == 5
        x = clbig.array([2, 3, 5, 7])
        assert clbig.prod(x) == 210 and x.sum() == 17 and int(np.prod(x)) == 210


def test_one_number_runs_on_the_fastest_device(two, rng):
    fast = two.contexts[1]
    _speeds(fast, {"mul": 10.0})
    _speeds(two.contexts[0], {"mul": 1.0})
    try:
        x = rng.getrandbits(5000)
        with two:
            p = clbig.mul([x], [x + 1])
        assert p.tolist() == [x * (x + 1)] and p.placement == [(fast.name, 0, 1)]
        assert p.parts[0][1].ctx is fast
        assert clbig.powmod(3, 10 ** 6, 10 ** 9 + 7) is not None
    finally:
        two.contexts[0].profile.clear("tuned")
        fast.profile.clear("tuned")


def test_split_follows_tuned_speeds(two, rng):
    _speeds(two.contexts[0], {"mul": 3.0, "add": 1.0})
    _speeds(two.contexts[1], {"mul": 1.0, "add": 1.0})
    try:
        xs, ys = _vals(rng, 40, 200), _vals(rng, 40, 200)
        with two:
            p = clbig.mul(xs, ys)                 # lists: laid out by the mul family's speeds
            a = clbig.array(xs)                   # arrays: by add's
        assert [e - s for _, s, e in p.placement] == [30, 10]
        assert [e - s for _, s, e in a.placement] == [20, 20]
        assert p.tolist() == [x * y for x, y in zip(xs, ys)]
        c = a * clbig.array(ys, ctx=two)          # an existing split keeps its rows where they are
        assert [e - s for _, s, e in c.placement] == [20, 20]
        assert c.tolist() == p.tolist()
    finally:
        for c in two.contexts:
            c.profile.clear("tuned")


def test_a_device_below_the_least_share_gets_no_rows(two, rng):
    """A device whose speed would earn it less than multi.MIN_SHARE of a batch takes no part:
    its piece would cost more than it saves (e.g. a CPU beside a GPU)."""
    from clbig.runtime import devices as multi
    slow = multi.MIN_SHARE * 0.9 / (1 - multi.MIN_SHARE * 0.9)     # its share: 0.9 * MIN_SHARE
    _speeds(two.contexts[0], {"mul": 1.0})
    _speeds(two.contexts[1], {"mul": slow})
    try:
        xs, ys = _vals(rng, 60, 200), _vals(rng, 60, 200)
        with two:
            p = clbig.mul(xs, ys)
        assert [e - s for _, s, e in p.placement] == [60]
        assert p.placement[0][0] == two.contexts[0].name
        assert p.tolist() == [x * y for x, y in zip(xs, ys)]
        _speeds(two.contexts[1], {"mul": slow * 1.25})               # 1.1 * MIN_SHARE: kept
        with two:
            p = clbig.mul(xs, ys)
        assert len(p.placement) == 2 and p.tolist() == [x * y for x, y in zip(xs, ys)]
    finally:
        for c in two.contexts:
            c.profile.clear("tuned")


def test_shares_given_to_the_context(ctx, small_ctx_obj, rng):
    """Context([...], shares=...) fixes each device's share: one sequence for every family, or
    some families by name (the others as tuned, else equal). Given shares are kept even below
    MIN_SHARE; a zero share leaves a device out."""
    xs, ys = _vals(rng, 40, 200), _vals(rng, 40, 200)
    want = [x * y for x, y in zip(xs, ys)]

    def rows(D):
        with D:
            p, a = clbig.mul(xs, ys), clbig.array(xs)
        assert p.tolist() == want and a.tolist() == xs
        return [e - s for _, s, e in p.placement], [e - s for _, s, e in a.placement]

    assert rows(clbig.Context([ctx, small_ctx_obj], shares=[3, 1])) == ([30, 10], [30, 10])
    assert rows(clbig.Context([ctx, small_ctx_obj], shares={"mul": (0.97, 0.03)})) == ([39, 1], [20, 20])
    assert rows(clbig.Context([ctx, small_ctx_obj], shares=np.array([1.0, 0.0]))) == ([40], [40])


@pytest.mark.parametrize("shares, error, match", [
    ([1], ValueError, r"shares has 1 numbers for 2 devices"),
    ([1, -1], ValueError, r"shares\[1\] = -1: shares are finite and non-negative"),
    ([1, float("nan")], ValueError, r"shares\[1\] = nan"),
    ([0, 0.0], ValueError, "every share is zero"),
    ([1e308, 1e308], ValueError, "the shares' sum overflows"),
    ({"mull": [1, 1]}, ValueError, "unknown family 'mull'"),
    ({"mul": [1]}, ValueError, r"shares\['mul'\] has 1 numbers"),
    ("11", TypeError, "must be a sequence of 2 numbers"),
    ([1, "a"], TypeError, r"shares\[1\] must be a number"),
    ([True, 1], TypeError, r"shares\[0\] must be a number"),
])
def test_bad_shares_raise_before_anything_opens(ctx, small_ctx_obj, shares, error, match):
    with pytest.raises(error, match=match):
        clbig.Context([ctx, small_ctx_obj], shares=shares)


def test_many_equal_devices_all_keep_their_share(ctx):
    """More than 1/MIN_SHARE devices of equal speed: each share is below MIN_SHARE, and all
    of them still take part (none left out, no division by a zero total)."""
    import types
    from clbig.runtime import devices as multi
    from clbig.runtime.profile import Profile

    def fake():   # a context as Devices.weights sees one: a profile with tuned speeds
        prof = Profile(ctx.device, ctx.memory, "")
        prof.cache("tuned")["speeds"] = {"mul": 1.0}
        return types.SimpleNamespace(profile=prof)

    k = int(1 / multi.MIN_SHARE) + 5
    D = object.__new__(multi.Devices)
    D.contexts = [fake() for _ in range(k)]
    assert D.weights("mul") == pytest.approx([1 / k] * k)
    assert sum(e - s for _, s, e in D.layout(10 * k, "mul")) == 10 * k


def test_differently_placed_operands_move(two, ctx, small_ctx_obj, rng):
    xs, ys = _vals(rng, N, 400), _vals(rng, N, 400)
    with two:
        a = clbig.array(xs)
        b = a[3:] if False else clbig.array(ys)
    uneven = SplitArray(two, [(1, clbig.array(ys[:5], ctx=small_ctx_obj)), (0, clbig.array(ys[5:], ctx=ctx))])
    plain_here = clbig.array(ys, ctx=ctx)
    other = clbig.Context(max_work_group_size=4)            # not one of the devices
    plain_there = clbig.array(ys, ctx=other)
    want = [x + y for x, y in zip(xs, ys)]
    for y in (b, uneven, plain_here, plain_there, ys):
        got = a + y
        assert isinstance(got, SplitArray) and got.tolist() == want, type(y)
    assert (uneven + a).tolist() == want
    assert (a[4:17] + b[2:15]).tolist() == [x + y for x, y in zip(xs[4:17], ys[2:15])]
    assert (a[::2] * 3).tolist() == [3 * x for x in xs[::2]]
    assert a[12] == xs[12] and a[-1] == xs[-1]


def test_broadcasting_and_shared_modulus(two, rng):
    xs = _vals(rng, N, 1000)
    m = rng.getrandbits(1024) | 1 | (1 << 1023)
    with two:
        a = clbig.array(xs)
        M = clbig.Modulus(m)
        one = clbig.array([m])
        assert clbig.powmod(a, 2 ** 100 + 1, M).tolist() == [pow(x, 2 ** 100 + 1, m) for x in xs]
        assert clbig.powmod(a, 5, one).tolist() == [pow(x, 5, m) for x in xs]
        assert (a % m).tolist() == [x % m for x in xs]
        assert (7 * a).tolist() == [7 * x for x in xs]
        Ms = clbig.Modulus([x | 1 for x in xs])
        assert clbig.mulmod(a, a, Ms).tolist() == [x * x % (x | 1) for x in xs]
        assert clbig.mulmod(a, a, Ms).tolist() == [x * x % (x | 1) for x in xs]   # pieces kept
        assert len(Ms.__dict__["_pieces"]) == 2
        em = [x | 1 for x in xs]
        em[4] = 2 ** 200                                    # an even modulus among odd ones
        assert clbig.powmod(a, 3, em).tolist() == [pow(x, 3, v) for x, v in zip(xs, em)]


def test_errors_name_whole_batch_indices(two, rng):
    xs = _vals(rng, N, 300, lo=1)
    with two:
        a = clbig.array(xs)
        bad = list(xs)
        bad[17] = 0
        with pytest.raises(ZeroDivisionError, match="index 17"):
            a // bad
        with pytest.raises(ValueError, match="index 17"):
            clbig.powmod(a, 3, bad)
        with pytest.raises(ValueError, match="index 17"):
            clbig.Modulus(bad)
        neg = list(xs)
        neg[13] = -5
        with pytest.raises(ValueError, match="element 13"):
            clbig.mul_low(a, neg, 64)
        with pytest.raises(ValueError, match="length mismatch"):
            a + xs[:5]
        with pytest.raises(TypeError, match="element 19"):
            clbig.array(xs[:19] + ["7", 1])
        even = [x * 2 for x in xs]
        with pytest.raises(ValueError, match="index 11"):
            clbig.invert(clbig.array([2] * N), [3] * 11 + even[11:])
        # counts and exponents per row, past the first device's piece
        with pytest.raises(ValueError, match=f"index {N - 1} is negative"):
            a << [1] * (N - 1) + [-1]
        with pytest.raises(ValueError, match=f"exponent at index {N - 1}"):
            a ** ([1] * (N - 1) + [-1])
    with pytest.raises(ValueError, match="at least one"):
        clbig.Context([])
    with pytest.raises(TypeError, match="nested"):
        clbig.Context([[0]])


def test_profile_sees_both_devices(two, rng):
    xs = _vals(rng, N, 2000)
    with two, clbig.profile() as p:
        got = (clbig.array(xs) * clbig.array(xs)).tolist()      # pieces gathered on threads that
    queues = {e.command_queue.int_ptr for e in p.events}        # record into p (the same queues)
    assert len(queues) == 2 and p.seconds > 0 and got == [v * v for v in xs]


def test_threads_share_devices(two, rng):
    xs = [_vals(rng, N, 512) for _ in range(4)]
    bad = []

    def work(t):
        with two:
            a = clbig.array(xs[t])
            for _ in range(8):
                bad.append((a * a + a).tolist() != [x * x + x for x in xs[t]])
    in_threads(work, 4)
    assert len(bad) == 32 and not any(bad)


def test_pickle_gathers(two, rng):
    import pickle
    xs = [-v for v in _vals(rng, N, 100)]
    with two:
        a = clbig.array(xs)
    b = pickle.loads(pickle.dumps(a))
    assert not isinstance(b, SplitArray) and b.tolist() == xs


# -- streaming ----------------------------------------------------------------------------------
def test_stream_past_capped_memory(ctx, rng):
    capped = clbig.Context(ctx.device, max_memory=1 << 18)
    n = 701
    xs, ys = _vals(rng, n, 1000), _vals(rng, n, 990, lo=1)
    ys[5] = 2 ** 990 - 1
    with capped, clbig.profile() as p:
        c = clbig.mul(xs, ys)
        q, r = clbig.divmod(c, ys)
        small = clbig.array(xs[:3])
        head = (c[:3] + small).tolist()
    assert c.tolist() == [x * y for x, y in zip(xs, ys)]
    assert q.tolist() == xs and r.tolist() == [0] * n
    assert head == [x * y + x for x, y in zip(xs[:3], ys[:3])]
    # The chunks' rows land in one host array (stream._Sink): one piece, in more than 2 chunks.
    assert c.placement == [("host", 0, n)]
    assert len(p.notes) == 2 and all(t.startswith("streamed:") for t in p.notes)
    assert int(p.notes[0].split(" chunks")[0].rsplit(" ", 1)[1]) > 2
    bad = list(ys)
    bad[650] = 0
    with capped, pytest.raises(ZeroDivisionError, match="index 650"):
        clbig.floordiv(xs, bad)
    with capped, pytest.raises(MemoryError, match="capped by max_memory"):
        clbig.array(xs * 4)                                   # a device array must fit


def test_max_memory_is_checked():
    with pytest.raises(ValueError, match="max_memory"):
        clbig.Context(max_memory=0)
    with pytest.raises(TypeError, match="max_memory"):
        clbig.Context(max_memory=1.5)


def test_pocl_two_cpu_devices_in_a_fresh_process(tmp_path):
    """PoCL's POCL_DEVICES="pthread pthread": two CPU devices of one platform; Context.all('cpu')
    splits over both (or more, where other CPU runtimes are installed too)."""
    code = (
        "import clbig, random\n"
        "D = clbig.Context.all('cpu')\n"
        "pocl = [c for c in D.contexts if 'Portable' in c.name]\n"
        "assert len(pocl) >= 2, D\n"
        "D = clbig.Context(pocl[:2])\n"
        "rng = random.Random(5); xs = [rng.getrandbits(3000) for _ in range(9)]; ys = [rng.getrandbits(1500) + 1 for _ in range(9)]\n"
        "with D:\n"
        "    a = clbig.array(xs); q, r = divmod(a * a, ys)\n"
        "    assert len({p[1].ctx.device.int_ptr for p in q.parts}) == 2\n"
        "assert q.tolist() == [x * x // y for x, y in zip(xs, ys)] and r.tolist() == [x * x % y for x, y in zip(xs, ys)]\n"
        "print('ok', len(D.contexts))\n")
    env = dict(os.environ, POCL_DEVICES="pthread pthread")
    p = subprocess.run([sys.executable, "-c", code], env=env, cwd=tmp_path, capture_output=True, text=True,
                       timeout=600)
    if p.returncode and "len(pocl) >= 2" in p.stderr and not os.environ.get("CI"):
        pytest.skip("no PoCL CPU device here")
    assert p.returncode == 0, p.stderr[-3000:]
    assert p.stdout.startswith("ok 2")


def test_stream_host_limbs(ctx, rng):
    """clbig.scale.stream.host: limbs kept in host memory; operations stream them (or upload them
    when they fit); its checks are from_limbs'."""
    from clbig.scale import stream
    capped = clbig.Context(ctx.device, max_memory=1 << 17)
    n = 333
    xs = _vals(rng, n, 2048)
    xs[7] = 2 ** 2048 - 1
    limbs = clbig.array(xs, bits=2048).to_limbs()
    h = stream.host(limbs, bits=2048, ctx=capped)
    assert len(h) == n and h.placement == [("host", 0, n)] and h.tolist() == xs
    with capped, clbig.profile() as p:
        sq = h * h
    assert p.notes and sq.tolist() == [x * x for x in xs]
    small = stream.host(limbs[:2], ctx=ctx)                       # fits: uploaded, not streamed
    with ctx, clbig.profile() as p:
        assert (small + 1).tolist() == [x + 1 for x in xs[:2]] and not p.notes
    with pytest.raises(OverflowError, match="element 7"):       # the first that needs 2048 bits
        stream.host(limbs, bits=2047, ctx=capped)
    with pytest.raises(TypeError, match="one Context"):
        stream.host(limbs, ctx=clbig.Context([ctx, ctx]))


def test_split_to_limbs_into_out(two, rng):
    """A split array's pieces download straight into the caller's array."""
    import numpy as np
    xs = _vals(rng, 30, 300)
    with two:
        a = clbig.array(xs, bits=300)
    assert len(a.placement) == 2
    out = np.full((30, a.m), 7, np.uint32)
    assert a.to_limbs(out=out) is out
    assert clbig.from_limbs(out, bits=300).tolist() == xs
    with pytest.raises(ValueError, match="to_limbs: out"):
        a.to_limbs(out=np.zeros((29, a.m), np.uint32))
    pinned = two.pinned_empty((30, a.m))          # the first device's page-locked memory
    assert a.to_limbs(out=pinned) is pinned
    assert clbig.from_limbs(pinned, bits=300).tolist() == xs


def test_gmpy2_functions_split(two, rng):
    """The signed quotients, prev_prime and multi_powmod on split rows (their signs are set per
    device; multi_powmod composes powmod and mulmod there)."""
    xs = [rng.getrandbits(200) * rng.choice((1, -1)) for _ in range(N)]
    ys = [(rng.getrandbits(90) | 1) * rng.choice((1, -1)) for _ in range(N)]
    with two:
        assert clbig.t_div(xs, ys).tolist() == [int(gmpy2.t_div(x, y)) for x, y in zip(xs, ys)]
        assert clbig.t_div_2exp(xs, 7).tolist() == [int(gmpy2.t_div_2exp(x, 7)) for x in xs]
        assert clbig.divexact([x * y for x, y in zip(xs, ys)], ys).tolist() == xs
        assert clbig.prev_prime([abs(x) + 3 for x in xs[:4]]).tolist() == [int(gmpy2.prev_prime(abs(x) + 3)) for x in xs[:4]]
        B = [[abs(x), abs(y)] for x, y in zip(xs, ys)]
        E = [[rng.getrandbits(40), rng.getrandbits(40)] for _ in range(N)]
        ms = [abs(y) for y in ys]
        assert clbig.multi_powmod(B, E, ms).tolist() == [pow(b0, e0, m) * pow(b1, e1, m) % m for (b0, b1), (e0, e1), m in zip(B, E, ms)]


def test_tolist_rows_of_split_arrays(two, rng):
    """clbig.tolist over arrays spread over two devices, and one of them beside a plain one."""
    a, b = _vals(rng, 23, 2048), [v | 1 for v in _vals(rng, 23, 700)]
    with two:
        q, r = clbig.divmod(clbig.array(a, bits=2048), clbig.array(b, bits=700))
        assert clbig.tolist(q, r) == [divmod(x, y) for x, y in zip(a, b)]
    assert clbig.tolist(q, clbig.array(b)) == list(zip([x // y for x, y in zip(a, b)], b))

