"""Faults of particular OpenCL runtimes' compilers, as regression tests that run on whichever
device the suite runs on (CLBIG_DEVICE): on the runtime at fault they catch the fault, elsewhere
they check the same exact answers.

Issue #33 item 2, Intel's CPU runtime (2026.22.10): the gcd kernel swapped its private digit
vectors x and y by swapping two pointers per work-item; the runtime's vectoriser lays a private
array out transposed across the work-items it runs together and addressed reads through such a
pointer as if it were not, so gcd was wrong on every instance from 34 digits (992 bits) on and
exceeded its round bound at 64 bits (tests/intel_reduced_gcd_swap.py is the reduced kernel).
The kernel now selects the digits' order as it loads them; and every gcd / inverse
specialisation is checked on known answers when a context first builds it
(clbig/runtime/kernel_check.py), falling back to the global storage or refusing the family on that
device, never giving a wrong value. The tests below run in a fresh context, with the fallback's
warning an error, so that the storage asked for is the one checked."""
from __future__ import annotations

import importlib
import math
import warnings

import pytest

import clbig
from clbig.mpn import gcd_check, gcd_n
from clbig.runtime import kernel_check
from conftest import check_bools, check_values, mask, rand_value

G = importlib.import_module("clbig.mpz.gcd")   # the module: clbig.gcd is the function

# 3 digits (64 bits: the round bound was exceeded), 34 digits (992 bits: the smallest private
# array the reduced kernel showed wrong), 137 digits (4096 bits, as in the issue)
WIDTHS = [64, 992, 4096]


@pytest.fixture
def fresh(ctx):
    """A new context on the suite's device: its kernels are built, and checked, afresh."""
    c = clbig.Context(ctx.device)
    with c:
        yield c


def mixed_order_pairs(rng, bits: int, n: int = 49):
    """n pairs where the kernel's operand order (y: the odd one of a >> z, b >> z) alternates
    from one instance to the next, with common factors, powers of two and edges."""
    pairs = [(0, 0), (0, mask(bits)), (mask(bits), mask(bits) - 2), (1, mask(bits)), (6, 4)]
    while len(pairs) < n:
        a, b = rand_value(rng, bits), rand_value(rng, bits)
        if len(pairs) % 3 == 0:
            g = (rng.getrandbits(bits // 3) | 1) << rng.randint(0, 5)
            a, b = g * (a >> g.bit_length()), g * (b >> g.bit_length())
        z = ((a | b) & -(a | b)).bit_length() - 1
        if z >= 0 and ((b >> z) & 1) != len(pairs) % 2:
            a, b = b, a
        pairs.append((a, b))
    return pairs


def order_counts(pairs):
    """(instances whose b >> z is odd, those whose b >> z is even): the kernel's two orders."""
    odd = sum(1 for a, b in pairs if (a | b) and (b >> (((a | b) & -(a | b)).bit_length() - 1)) & 1)
    return odd, sum(1 for a, b in pairs if a | b) - odd


@pytest.mark.parametrize("store", ["private", "global"])
@pytest.mark.parametrize("bits", WIDTHS)
def test_gcd_both_operand_orders(rng, fresh, monkeypatch, bits, store):
    monkeypatch.setenv("CLBIG_GCD_STORE", store)
    pairs = mixed_order_pairs(rng, bits)
    odd, even = order_counts(pairs)
    assert odd >= 15 and even >= 15, (odd, even)
    xs, ys = [p[0] for p in pairs], [p[1] for p in pairs]
    with warnings.catch_warnings():
        warnings.simplefilter("error", RuntimeWarning)    # no fallback to another storage
        got = G.gcd(clbig.array(xs, bits=bits), clbig.array(ys, bits=bits)).tolist()
        one = G.gcd(clbig.array(xs[2:3], bits=bits), clbig.array(ys[2:3], bits=bits)).tolist()
    check_values(got, [math.gcd(x, y) for x, y in pairs], f"gcd {bits} bits, {store}", (xs, ys))
    check_values(one, [math.gcd(xs[2], ys[2])], f"gcd {bits} bits, one instance", (xs[2:3], ys[2:3]))


@pytest.mark.parametrize("bits", WIDTHS)
def test_invert_shares_the_fix(rng, fresh, bits):
    """The inverse runs the same rounds (without the swap: it was exact); its inputs mixed
    the same way, no inverse included."""
    pairs = mixed_order_pairs(rng, bits)
    ms = [b | 1 for _, b in pairs]
    xs = [a for a, _ in pairs]
    with warnings.catch_warnings():
        warnings.simplefilter("error", RuntimeWarning)
        inv, ok = G.invert(clbig.array(xs, bits=bits), clbig.array(ms, bits=bits), strict=False)
    want_ok = [math.gcd(a, m) == 1 for a, m in zip(xs, ms)]
    assert 0 < sum(want_ok) < len(want_ok)
    check_bools(ok.tolist(), want_ok, f"invertible, {bits} bits")
    check_values(inv.tolist(), [pow(a, -1, m) if o else 0 for a, m, o in zip(xs, ms, want_ok)],
                 f"invert {bits} bits", (xs, ms))


def test_known_answers_cover_both_orders():
    """The check's own inputs are mixed as the tests' are, and a wrong answer is reported."""
    for m in (2, 3, 34, 137, 10000):
        a, b, limbs, want = gcd_check.gcd_cases(m)
        assert len(a) == gcd_check.N and 32 * limbs <= 30 * m
        odd, even = order_counts(list(zip(a, b)))
        assert odd >= 15 and even >= 15, (m, odd, even)
        a, w, limbs, want, ok = gcd_check.inv_cases(m)
        assert 32 * limbs + 1 <= 30 * m and all(x & 1 and x >= 3 for x in w)
        assert 0 < sum(ok) < len(ok)
    stat = [int(o) for o in ok]
    assert gcd_check.first_wrong(want, stat, want, ok, list(zip(a, w))) is None
    bad = list(want)
    bad[5] ^= 1
    assert "instance 5 " in gcd_check.first_wrong(bad, stat, want, ok, list(zip(a, w)))


def _faulty(stores):
    """A stand-in for gcd_n._known_answers reporting a fault for the storages in `stores`."""
    real = gcd_n._known_answers

    def check(ctx, mode, m, plan):
        return "simulated fault" if plan[2] in stores else real(ctx, mode, m, plan)
    return check


def test_fault_falls_back_to_global_storage(rng, fresh, monkeypatch):
    monkeypatch.setenv("CLBIG_GCD_STORE", "private")
    monkeypatch.setattr(gcd_n, "_known_answers", _faulty({"private"}))
    pairs = mixed_order_pairs(rng, 992, 9)
    xs, ys = [p[0] for p in pairs], [p[1] for p in pairs]
    with pytest.warns(RuntimeWarning, match="private storage gave a wrong known answer .simulated"):
        got = G.gcd(clbig.array(xs, bits=992), clbig.array(ys, bits=992)).tolist()
    check_values(got, [math.gcd(x, y) for x, y in pairs], "gcd after the fallback", (xs, ys))
    with warnings.catch_warnings():
        warnings.simplefilter("error", RuntimeWarning)    # decided once per context
        again = G.gcd(clbig.array(xs[3:4], bits=992), clbig.array(ys[3:4], bits=992)).tolist()
    assert again == [math.gcd(xs[3], ys[3])]


def test_fault_everywhere_refuses_the_family(fresh, monkeypatch):
    monkeypatch.setattr(gcd_n, "_known_answers", _faulty({"private", "global"}))
    for _ in range(2):                                    # the refusal is kept, and repeated
        with pytest.raises(kernel_check.KernelFault, match=r"gcd is refused on .*simulated fault"):
            G.gcd([12, 7], [18, 5])
    with pytest.raises(kernel_check.KernelFault, match=r"invert is refused on "):
        G.invert([3, 4], 7)
