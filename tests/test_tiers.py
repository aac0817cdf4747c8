"""The first tier (clbig.runtime.tiers): kernels whose widths come at run time, exact on every
runtime, and the switch to each width's own kernel once a width's work would have paid for it.

The rest of the suite runs with TIERS=off (conftest.py), each width's own kernels; here
TIERS=first runs the run-time forms on every call, on any device (by default only CPUs take
them): the loop kernels of Montgomery
products and powers (mpn.mont_loop) and of the schoolbook division (div_basecase.divmod_loop),
the inverse and gcd with run-time digits (gcd.cl.mako RT), and the one-item additions and lanes
products with run-time widths. Every result is checked against Python or gmpy2."""
from __future__ import annotations

import gmpy2
import pytest

import clbig
from clbig.mpn import div_basecase, div_q, mont_loop
from clbig.mpz import modular
from clbig.runtime import render, tiers

WIDTHS = [1, 31, 32, 33, 64, 95, 100, 1000, 2080]


@pytest.fixture
def first(monkeypatch):
    monkeypatch.setenv("CLBIG_TIERS", "first")


def _spy(monkeypatch, module, names):
    """Count the calls of module.<name> for each name (the functions still run)."""
    calls = dict.fromkeys(names, 0)
    for name in names:
        real = getattr(module, name)

        def spy(*a, _real=real, _name=name, **k):
            calls[_name] += 1
            return _real(*a, **k)
        monkeypatch.setattr(module, name, spy)
    return calls


def _moduli(rng, bits, n):
    ms = [(1 << bits) - 1 | 1, 1, 3] + [rng.getrandbits(bits) | 1 | (1 << (bits - 1)) for _ in range(n)]
    return ms[:n]


@pytest.mark.parametrize("bits", WIDTHS)
def test_loop_montgomery_exact(ctx, rng, first, monkeypatch, bits):
    calls = _spy(monkeypatch, mont_loop, ["mulmod", "powmod", "multi_powmod"])
    for n in (1, 21, 37):                        # one row, odd, more than one group of 16
        m = _moduli(rng, bits, n)
        a = [0, 1, m[0] - 1, m[0], (1 << (32 * -(-bits // 32))) - 1] + [rng.getrandbits(bits + 7) for _ in range(n)]
        a = a[:n]
        # one all-ones exponent of the full width; the others short (the loop kernels run
        # 9-13x the unrolled ones' time on Intel's runtime: full widths cost 20 s at 2080 bits)
        e = [0, 1, (1 << bits) - 1] + [rng.getrandbits(min(bits, 96)) for _ in range(n)]
        e = e[:n]
        assert clbig.powmod(a, e, m).tolist() == [pow(x, y, z) for x, y, z in zip(a, e, m)]
        assert clbig.powmod(a, 0x1F0F, m).tolist() == [pow(x, 0x1F0F, z) for x, z in zip(a, m)]
        assert clbig.powmod(a, e, m[-1]).tolist() == [pow(x, y, m[-1]) for x, y in zip(a, e)]
        assert clbig.mulmod(a, e, m).tolist() == [x * y % z for x, y, z in zip(a, e, m)]
        for k in (1, 2, 3):
            B = [[rng.getrandbits(bits) for _ in range(k)] for _ in range(n)]
            E = [[0] * k if i == 1 else [rng.getrandbits(min(bits, 96)) for _ in range(k)] for i in range(n)]
            want = []
            for b, x, z in zip(B, E, m):
                r = 1
                for bb, xx in zip(b, x):
                    r = r * pow(bb, xx, z) % z
                want.append(r)
            assert clbig.multi_powmod(B, E, m).tolist() == want
    assert clbig.powmod(clbig.array([], bits=bits), 3, clbig.array([], bits=bits)).tolist() == []
    assert calls["powmod"] > 0 and calls["mulmod"] > 0 and calls["multi_powmod"] > 0


def test_loop_montgomery_in_chunks(ctx, rng, first, monkeypatch):
    """Batches past the scratch cap run in several launches, each from its own first row."""
    monkeypatch.setattr(mont_loop, "SCRATCH", 1)     # one group of rows per launch
    m = _moduli(rng, 200, 45)
    a = [rng.getrandbits(200) for _ in m]
    e = [rng.getrandbits(64) for _ in m]
    assert clbig.powmod(a, e, m).tolist() == [pow(x, y, z) for x, y, z in zip(a, e, m)]
    assert clbig.mulmod(a, e, m).tolist() == [x * y % z for x, y, z in zip(a, e, m)]


@pytest.mark.parametrize("wu,wv", [(32, 32), (64, 32), (33, 31), (96, 96), (64, 96), (100, 64),
                                   (1000, 100), (2048, 1024), (8192, 4096), (300, 299)])
def test_loop_division_exact(ctx, rng, first, monkeypatch, wu, wv):
    calls = _spy(monkeypatch, div_basecase, ["divmod_loop"])
    for n in (1, 21, 37):
        u = [(1 << wu) - 1] + [rng.getrandbits(wu) for _ in range(n - 1)]
        v = [(1 << wv) - 1, 1, 7] + [rng.getrandbits(wv) | 1 for _ in range(n)]
        v = v[:n]
        if n > 3:
            u[2] = v[2] * 5 + 3
            v[3] = rng.getrandbits(max(wv // 3, 1)) | 1    # far below its capacity
        U, V = clbig.array(u, bits=wu), clbig.array(v, bits=wv)
        q, r = clbig.divmod(U, V)
        assert q.tolist() == [x // y for x, y in zip(u, v)]
        assert r.tolist() == [x % y for x, y in zip(u, v)]
        assert (U % v[-1]).tolist() == [x % v[-1] for x in u]          # one divisor broadcast
    with pytest.raises(ZeroDivisionError, match="index 1"):
        clbig.divmod(clbig.array([5, 6, 7]), clbig.array([1, 0, 3]))
    assert calls["divmod_loop"] > 0


def test_loop_division_in_chunks_and_stats(ctx, rng, first, monkeypatch):
    monkeypatch.setattr(div_basecase, "LOOP_SCRATCH", 1)
    u = [rng.getrandbits(700) for _ in range(40)]
    v = [rng.getrandbits(300) | 1 for _ in range(40)]
    q, r = clbig.divmod(clbig.array(u), clbig.array(v))
    assert q.tolist() == [x // y for x, y in zip(u, v)] and r.tolist() == [x % y for x, y in zip(u, v)]
    U, V = clbig.array(u), clbig.array(v)
    stats = {}
    div_q.divmod(ctx, U.data.data, U.m, U.m, V.data.data, V.m, V.m, len(u), stats=stats)
    assert stats["algorithm"] == "loop" and stats["addback"].shape == (40,)


@pytest.mark.parametrize("bits", [32, 100, 1000, 4096])
def test_run_time_digits_inverse_and_gcd(ctx, rng, first, bits):
    n = 21
    m = _moduli(rng, bits, n)
    a = [0, 1, m[2]] + [rng.getrandbits(bits) for _ in range(n - 3)]
    a[4] = m[4] - 1
    inv, ok = clbig.invert(clbig.array(a), clbig.array(m), strict=False)
    want = []
    for x, z in zip(a, m):
        try:
            want.append(int(gmpy2.invert(x, z)))
        except ZeroDivisionError:
            want.append(0)
    assert inv.tolist() == want
    assert clbig.gcd(clbig.array(a), clbig.array(m)).tolist() == [int(gmpy2.gcd(x, z)) for x, z in zip(a, m)]


def test_run_time_sums_and_products(ctx, rng, first, monkeypatch):
    monkeypatch.setenv("CLBIG_ADD_SERIAL", "1")
    monkeypatch.setenv("CLBIG_MUL52_LANES", "1")
    for bits in (64, 512, 2080):
        a = [rng.getrandbits(bits) for _ in range(300)]
        b = [rng.getrandbits(bits) for _ in range(300)]
        A, B = clbig.array(a), clbig.array(b)
        assert (A + B).tolist() == [x + y for x, y in zip(a, b)]
        assert (A - B).tolist() == [x - y for x, y in zip(a, b)]
        assert (A * B).tolist() == [x * y for x, y in zip(a, b)]


def test_rent_then_buy(ctx, monkeypatch):
    monkeypatch.setenv("CLBIG_TIERS", "auto")
    key = ("test rent", object())
    assert not tiers.fixed(ctx, key, None, 10, 25)
    assert not tiers.fixed(ctx, key, None, 10, 25)
    assert tiers.fixed(ctx, key, None, 10, 25)           # 30 units reach the price
    assert tiers.fixed(ctx, key, None, 0, 25)            # and it stays bought
    assert not tiers.fixed(ctx, ("test never", object()), None, 1 << 60, None)
    asked = []
    assert tiers.fixed(ctx, ("test built", object()), lambda: asked.append(1) or True, 0, 1 << 60)
    assert asked == [1]
    monkeypatch.setenv("CLBIG_TIERS", "off")
    assert tiers.fixed(ctx, ("test off", object()), None, 0, None)
    monkeypatch.setenv("CLBIG_TIERS", "first")
    assert not tiers.fixed(ctx, key, lambda: True, 1 << 60, 1)


def test_powmod_switches_to_the_widths_own_kernel(rng, monkeypatch):
    """A CPU's powmods at a width run the loop kernel until their work reaches the price, then
    the width's own kernel (a fresh context: its accounts are empty)."""
    monkeypatch.setenv("CLBIG_TIERS", "auto")
    c = clbig.Context()
    m = _moduli(rng, 224, 9)
    a = [rng.getrandbits(224) for _ in m]
    e = [rng.getrandbits(224) for _ in m]
    work = 9 * 7 ** 2 * 32 * 7                           # powmod's account per call: n nm^2 ebits
    monkeypatch.setattr(tiers, "unrolled_repays", lambda ctx, limbs: 2 * work + 1)
    calls = _spy(monkeypatch, mont_loop, ["powmod"])
    want = [pow(x, y, z) for x, y, z in zip(a, e, m)]
    with c:
        got = [clbig.powmod(a, e, m).tolist() for _ in range(4)]
    assert got == [want] * 4
    # then bought: the third on its own kernel (GPUs: never the loop kernel)
    assert calls["powmod"] == (0 if c.profile.facts.is_gpu else 2)


def test_a_kernel_built_before_is_taken_at_once(tmp_path, monkeypatch):
    """A width's own kernel built by one context is found by the next (the kernel cache: its
    binary, or on PoCL a mark that PoCL's own cache holds it), so its first call takes it."""
    monkeypatch.setenv("CLBIG_KERNEL_CACHE", str(tmp_path))
    monkeypatch.setenv("CLBIG_TIERS", "auto")
    params = dict(OP="add", WIDTHS=(("MA", 13), ("MB", 11), ("MR", 14), ("TOP_MASK", 0xFFFF),
                                    ("FLAG_LIMB", None), ("FLAG_BIT", 0)))
    c1 = clbig.Context()
    assert not render.built(c1, "add_serial.cl.mako", "add_serial", **params)
    render.kernel(c1, "add_serial.cl.mako", "add_serial", None, **params)
    assert render.built(c1, "add_serial.cl.mako", "add_serial", **params)
    assert list(tmp_path.rglob("*.bin")) or list(tmp_path.rglob("*.built"))
    c2 = clbig.Context()
    assert render.built(c2, "add_serial.cl.mako", "add_serial", **params)
    assert tiers.fixed_kernel(c2, "add_serial.cl.mako", "add_serial", params, 0, 1 << 60)
