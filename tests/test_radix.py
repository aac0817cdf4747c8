"""Python ints to and from the device through CPython's own digits (clbig/pyint.py,
clbig/radix.py), checked against the values themselves and against the to_bytes path."""
from __future__ import annotations

import sys

import gmpy2
import numpy as np
import pytest

import clbig
from clbig.mpn import convert, pyint, radix

from conftest import BATCH, edge_values, rand_value

FAST = radix.FAST_BITS
# around the threshold, widths that are not multiples of 30 or 32 bits, several digits per limb
WIDTHS = [FAST - 1, FAST, FAST + 1, FAST + 17, 2 ** 16 + 5, 3 * 2 ** 15 + 30]


@pytest.fixture(autouse=True)
def _batches_through_radix(monkeypatch):
    """With clbig.mpn._limbs, batches convert on the host (clbig.mpn.convert, tested in
    test_convert.py); its pure-Python path sends them through radix, as tested here."""
    monkeypatch.setattr(convert, "PURE", True)


def _slow_limbs(vals, bits):
    raw = b"".join(v.to_bytes(4 * -(-bits // 32), "little") for v in vals)
    return np.frombuffer(raw, "<u4").reshape(len(vals), -1)


@pytest.mark.skipif(sys.implementation.name != "cpython", reason="CPython's int layout")
def test_layout_recognised():
    # on CPython the fast path must be on, or the tests below would only test to_bytes
    assert pyint.usable()


@pytest.mark.parametrize("x", [1, 2 ** 30 - 1, 2 ** 30, 2 ** 60 - 1, 2 ** 60 + 7, 3 ** 1000,
                               (1 << 30 * 41) - 1, 1 << (30 * 41)])
def test_digits_round_trip(x):
    d = pyint.digits(x)
    want = [(x >> (30 * i)) & (2 ** 30 - 1) for i in range(-(-x.bit_length() // 30))]
    assert d.tolist() == want
    assert pyint.from_digits(np.array(want, np.uint32)) == x


@pytest.mark.parametrize("bits", WIDTHS)
def test_array_round_trip(rng, bits):
    vals = [rand_value(rng, bits) for _ in range(BATCH)] + edge_values(bits)
    a = clbig.array(vals, bits=bits)
    assert a.to_limbs().tolist() == _slow_limbs(vals, bits).tolist(), f"limbs of {bits}-bit values"
    assert a.tolist() == vals
    assert [a[i] for i in (0, len(vals) // 2, -1)] == [vals[0], vals[len(vals) // 2], vals[-1]]
    assert a[3:8].tolist() == vals[3:8]


# one value comes back from one round trip (its bit length and all its digits): values whose
# top digit sits far below the capacity and around 64-digit edges
@pytest.mark.parametrize("vals", [[0], [1], [2 ** 70], [(1 << FAST) - 1], [2 ** (30 * 63)],
                                  [2 ** (30 * 64) + 7], [2 ** (30 * 65 - 1)]])
def test_single_small_values_in_a_large_capacity(vals):
    a = clbig.array(vals, bits=8 * FAST + 3)   # the bit length scans down many limbs
    assert a.tolist() == vals
    assert (a * a).tolist() == [v * v for v in vals]


def test_batch_of_one_and_zeros(rng):
    x = rng.getrandbits(3 * FAST)
    assert clbig.array([x]).tolist() == [x]
    assert clbig.array([0, 0, 0], bits=2 * FAST).tolist() == [0, 0, 0]


def test_products_of_python_ints(rng):
    for bits in (FAST, 5 * FAST + 3):
        x, y = rng.getrandbits(bits), rng.getrandbits(bits - 11)
        r = clbig.mul(x, y)
        assert type(r) is int and r == x * y
        assert clbig.divmod(x * y + 5, y) == (x, 5)


def test_mpz_and_int_subclasses_take_the_other_path(rng):
    class MyInt(int):
        pass
    x = rng.getrandbits(2 * FAST)
    for vals in ([gmpy2.mpz(x), x], [MyInt(x), 5], [x, np.uint64(7)]):
        a = clbig.array(vals, bits=2 * FAST)
        assert a.tolist() == [int(v) for v in vals]


def test_same_limbs_without_the_fast_path(rng, monkeypatch):
    vals = [rng.getrandbits(FAST + 40) for _ in range(5)] + [0]
    fast = clbig.array(vals)
    monkeypatch.setenv("CLBIG_SLOW_INTS", "1")
    slow = clbig.array(vals)
    assert not radix.worth_it(slow.bits)
    assert fast.to_limbs().tolist() == slow.to_limbs().tolist()
    assert fast.tolist() == slow.tolist() == vals


def test_bad_input_still_named(rng):
    x = rng.getrandbits(2 * FAST)
    assert clbig.array([x, -x]).tolist() == [x, -x]   # signed values cross through radix too
    with pytest.raises(ValueError, match="element 1"):
        clbig.add_fixed([x, -x], 0)                    # the unsigned calls name a negative
    with pytest.raises(OverflowError, match="element 0"):
        clbig.array([x << 10], bits=2 * FAST)


@pytest.mark.parametrize("vals", [[0], [1], [2 ** 70], [(1 << (3 * FAST)) - 1]])
def test_single_values_by_bit_length_first(vals, monkeypatch):
    """Large single results read their bit length first and their digits straight into the
    int (radix.ONE_READ_DIGITS: here every size)."""
    from clbig.mpn import radix
    monkeypatch.setattr(radix, "ONE_READ_DIGITS", 0)
    a = clbig.array(vals, bits=8 * FAST + 3)
    assert a.tolist() == vals
    assert (a * a).tolist() == [v * v for v in vals]


def test_digit_view_keeps_its_int():
    """A digit view holds its int: the upload of one int does not block, and the int may be
    the caller's temporary, gone before the copy runs."""
    import gc
    x = (1 << 300000) - 12345
    want = np.array(pyint.digits(x))
    view = pyint.digits(x)
    del x
    gc.collect()
    junk = [(1 << 300000) - k for k in range(50)]   # reuse any freed memory
    assert np.array_equal(view, want) and len(junk) == 50
    assert not view.flags.writeable


def test_uploads_of_temporaries(rng):
    """Operands made, uploaded and dropped at once; the copies may still be queued."""
    seeds = [rng.getrandbits(64) for _ in range(6)]
    arrs = [clbig.array([(s << 400000) + k]) for k, s in enumerate(seeds)]   # the ints die here
    arrs += [clbig.array([(s << 70000) + k, s], bits=70064) for k, s in enumerate(seeds)]
    junk = [(1 << 400000) - k for k in range(40)]
    assert [a.tolist() for a in arrs[:6]] == [[(s << 400000) + k] for k, s in enumerate(seeds)]
    assert [a.tolist() for a in arrs[6:]] == [[(s << 70000) + k, s] for k, s in enumerate(seeds)]
    assert len(junk) == 40
