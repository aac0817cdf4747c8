"""Issue #37's array API: zeros, full, concatenate, where, mask and index-array indexing,
sum / prod / min / max / argmin / argmax / sort / argsort (functions and methods), copy,
trim and repr. Every expected value is computed with Python ints on the host."""
import math
import sys

import numpy as np
import pytest

import clbig
from conftest import BATCH, check_values, edge_values, mask, rand_value

WIDTHS = [1, 33, 100, 1056]          # conftest's WIDTH_PAIRS widths: one limb, odd limb counts
LENGTHS = [0, 1, 2, BATCH]


def signed_values(rng, bits, n):
    """n values of magnitude below 2**bits, edges first, about half negative."""
    vals = edge_values(bits)[:n]
    while len(vals) < n:
        vals.append(rand_value(rng, bits))
    vals = [-v if rng.random() < 0.5 else v for v in vals]
    rng.shuffle(vals)
    return vals[:n]


# -- construction ------------------------------------------------------------------------------
@pytest.mark.parametrize("n", LENGTHS)
@pytest.mark.parametrize("bits", WIDTHS)
def test_zeros(n, bits):
    z = clbig.zeros(n, bits)
    assert len(z) == n and z.bits == bits and z.m == -(-bits // 32)
    assert z.tolist() == [0] * n
    assert (z + 1).tolist() == [1] * n
    assert clbig.zeros(3).bits == 1


@pytest.mark.parametrize("n", LENGTHS)
def test_full(rng, n):
    for v in [0, 1, -1, 2**64 - 1, -(2**100), mask(1056)] + [rand_value(rng, 1056)]:
        f = clbig.full(n, v)
        assert len(f) == n
        check_values(f.tolist(), [v] * n, f"full({n}, {v.bit_length()} bits)")
    f = clbig.full(n, -5, bits=100)
    assert f.bits == 100 and f.tolist() == [-5] * n
    assert clbig.full(2, np.uint64(2**64 - 1)).tolist() == [2**64 - 1] * 2


def test_construction_errors():
    for bad in (-1, 2.0, True, "3"):
        with pytest.raises((TypeError, ValueError), match="n must be"):
            clbig.zeros(bad, 32)
    with pytest.raises(ValueError, match="bits"):
        clbig.zeros(3, 0)
    with pytest.raises(TypeError, match="value"):
        clbig.full(3, 1.5)
    with pytest.raises(TypeError, match="value"):
        clbig.full(3, True)
    with pytest.raises(OverflowError):
        clbig.full(3, 2**40, bits=32)


def test_concatenate(rng):
    parts = [signed_values(rng, b, n) for b, n in ((1, 3), (33, 0), (100, BATCH), (1056, 1), (7, 5))]
    arrays = [clbig.array(p, bits=b) for p, b in zip(parts, (1, 33, 100, 1056, 7))]
    got = clbig.concatenate(arrays)
    assert got.bits == 1056
    check_values(got.tolist(), sum(parts, []), "concatenate")
    mixed = clbig.concatenate([arrays[2], [2**200, -3], np.array([-2**63, 2**62], np.int64),
                               np.array([2**64 - 1], np.uint64)])
    check_values(mixed.tolist(), parts[2] + [2**200, -3, -2**63, 2**62, 2**64 - 1], "mixed")
    assert clbig.concatenate([clbig.array([])]).tolist() == []
    one = clbig.concatenate([clbig.array([-7])])
    assert one.tolist() == [-7]
    assert (one - 1).tolist() == [-8]


def test_concatenate_errors():
    with pytest.raises(ValueError, match="at least one"):
        clbig.concatenate([])
    with pytest.raises(TypeError):
        clbig.concatenate(clbig.array([1]))
    with pytest.raises(ValueError, match="array 1"):
        clbig.concatenate([[1], 5])
    with pytest.raises(TypeError, match="element 1"):
        clbig.concatenate([[1, 2.5]])


@pytest.mark.parametrize("n", LENGTHS)
def test_where(rng, n):
    xs, ys = signed_values(rng, 100, n), signed_values(rng, 1056, n)
    x, y = clbig.array(xs, bits=100), clbig.array(ys, bits=1056)
    cond = x > y
    exp = [a if a > b else b for a, b in zip(xs, ys)]
    got = clbig.where(cond, x, y)
    assert got.bits == 1056
    check_values(got.tolist(), exp, "where(x > y, x, y)")
    mask_ = np.array([rng.random() < 0.5 for _ in range(n)], dtype=bool)
    check_values(clbig.where(mask_, x, -(2**70)).tolist(),
                 [a if m else -(2**70) for a, m in zip(xs, mask_)], "where(mask, x, int)")
    check_values(clbig.where(mask_, 0, ys).tolist(),
                 [0 if m else b for b, m in zip(ys, mask_)], "where(mask, 0, list)")
    check_values(clbig.where(mask_.tolist(), x, np.zeros(n, np.int64)).tolist(),
                 [a if m else 0 for a, m in zip(xs, mask_)], "where(list of bools, x, ndarray)")


def test_where_errors():
    x = clbig.array([1, 2, 3])
    with pytest.raises(TypeError, match="bool"):
        clbig.where(np.array([1, 0, 1]), x, 0)
    with pytest.raises(ValueError, match="x has 3"):
        clbig.where(np.array([True, False]), x, 0)
    with pytest.raises(ValueError, match="one-dimensional"):
        clbig.where(np.ones((3, 1), bool), x, 0)
    with pytest.raises(TypeError):
        clbig.where(x > 1, x, 1.5)


# -- indexing ----------------------------------------------------------------------------------
@pytest.mark.parametrize("bits", WIDTHS)
def test_index_arrays_and_masks(rng, bits):
    xs = signed_values(rng, bits, BATCH)
    a = clbig.array(xs, bits=bits)
    n = len(xs)
    keys = [[0], [n - 1, 0, 3, 3], [-1, -n, 5], list(range(n))[::-1], []]
    for key in keys:
        exp = [xs[k] for k in key]
        for form in (key, np.array(key, dtype=np.int64), np.array(key, dtype=np.int32)):
            got = a[form]
            assert isinstance(got, clbig.BigIntArray) and got.bits == bits
            check_values(got.tolist(), exp, f"a[{key}]")
    for key in ([1, 5, 2], [0, n - 1]):
        check_values(a[np.array(key, np.uint16)].tolist(), [xs[k] for k in key], "uint16 index")
    m = [rng.random() < 0.5 for _ in range(n)]
    for form in (m, np.array(m)):
        check_values(a[form].tolist(), [x for x, k in zip(xs, m) if k], "a[mask]")
    check_values(a[a < 0].tolist(), [x for x in xs if x < 0], "a[a < 0]")
    check_values(a[np.zeros(n, bool)].tolist(), [], "a[all false]")
    got = a[[2, 2]]
    assert ((got - got).tolist() == [0, 0])   # a gathered array is a normal operand


def test_index_errors():
    a = clbig.array([5, -6, 7])
    with pytest.raises(IndexError, match=r"index 3 \(position 1"):
        a[[0, 3]]
    with pytest.raises(IndexError, match="index -4"):
        a[np.array([-4])]
    with pytest.raises(IndexError, match="2 does not match the batch of 3|length 2"):
        a[np.array([True, False])]
    with pytest.raises(IndexError, match=str(2**70)):
        a[[2**70]]
    with pytest.raises(TypeError):
        a[[1.5]]
    with pytest.raises(TypeError):
        a[np.array([1.0])]
    with pytest.raises(TypeError):
        a[[True, 1, 2]]
    with pytest.raises(IndexError, match="one-dimensional"):
        a[np.zeros((1, 2), np.int64)]


# -- reductions --------------------------------------------------------------------------------
@pytest.mark.parametrize("n", LENGTHS + [1000])
@pytest.mark.parametrize("bits", WIDTHS)
def test_sum(rng, n, bits):
    xs = signed_values(rng, bits, n)
    a = clbig.array(xs, bits=bits)
    assert clbig.sum(a) == sum(xs) and a.sum() == sum(xs)
    pos = [abs(x) for x in xs]
    assert clbig.sum(clbig.array(pos, bits=bits)) == sum(pos)


def test_sum_carry_chains():
    """All-ones values: every pairwise addition carries through every limb, at odd counts."""
    for n in (3, 7, 1001):
        xs = [mask(1056)] * n
        assert clbig.sum(clbig.array(xs, bits=1056)) == n * mask(1056)
        assert clbig.sum(clbig.array([-x for x in xs], bits=1056)) == -n * mask(1056)
    assert clbig.sum(clbig.array([2**64 - 1] * 5 + [-(2**64 - 1)] * 5)) == 0
    assert clbig.sum([1, 2, 3]) == 6 and clbig.sum(range(100)) == 4950
    assert clbig.sum(np.array([2**63 - 1] * 4, np.int64)) == 4 * (2**63 - 1)


def test_prod():
    assert clbig.prod(range(1, 2001)) == math.factorial(2000)
    assert clbig.prod([]) == 1 and clbig.prod(clbig.array([])) == 1
    assert clbig.prod([-7]) == -7
    vals = [-3, 2**70 + 1, -(2**65), 5, mask(1056), -1, 7]
    assert clbig.prod(vals) == math.prod(vals) and clbig.array(vals).prod() == math.prod(vals)
    assert clbig.prod(vals + [0]) == 0


def test_prod_of_a_few_values_on_the_host(rng, monkeypatch):
    """Within prod's host limit (in total bits) the product is gmpy2's tree on the host, for
    plain lists, numpy arrays and arrays on the device alike, no kernel run, and equal to the
    device's tree; past it the device multiplies."""
    vals = signed_values(rng, 1056, 37) + [mask(1056), -1, 1]
    cases = [vals, [v for v in vals if v], np.array([2**63 - 1, -5, 7] * 9, np.int64),
             [mask(32)] * 65, [-3, 2], [0, 2**4000], [v or 1 for v in signed_values(rng, 2000, 61)]]
    for x in cases:
        monkeypatch.setenv("CLBIG_HOST_ROWS", "0")
        dev = clbig.prod(x)
        monkeypatch.setenv("CLBIG_HOST_ROWS", "128")         # 128 rows of 1024 bits
        for y in (x, clbig.array(x)):
            with clbig.profile() as p:
                assert clbig.prod(y) == dev == math.prod(int(v) for v in x)
            assert p.kernels == 0 and any("on the host" in s for s in p.notes)
    monkeypatch.setenv("CLBIG_HOST_ROWS", "4")               # 4096 bits in all
    for n, on_host in ((2, True), (3, False)):
        x = [rng.getrandbits(2048) | 1 << 2047 for _ in range(n)]
        for fn, want in ((clbig.prod, math.prod(x)), (clbig.sum, sum(x))):
            with clbig.profile() as p:
                assert fn(x) == want
            assert (p.kernels == 0) == on_host, fn


def test_sum_of_plain_ints_on_the_host(rng, monkeypatch):
    """Within sum's host limit a list of plain ints (or an integer numpy array) is Python's
    sum, no kernel run, equal to the device's; an array on the device stays there."""
    monkeypatch.setenv("CLBIG_HOST_ROWS", "128")
    cases = [signed_values(rng, 1056, 37) + [mask(1056), -1], [-5], [0, 0], [2**4000, -(2**4000)],
             np.array([2**63 - 1, -5, 7] * 9, np.int64), np.array([2**64 - 1] * 3, np.uint64)]
    for x in cases:
        want = sum(int(v) for v in x)
        monkeypatch.setenv("CLBIG_HOST_ROWS", "0")
        assert clbig.sum(x) == want
        monkeypatch.setenv("CLBIG_HOST_ROWS", "128")
        with clbig.profile() as p:
            assert clbig.sum(x) == want
        assert p.kernels == 0 and any("on the host" in s for s in p.notes)
        with clbig.profile() as p:
            assert clbig.sum(clbig.array(x)) == want
        assert p.kernels > 0 or len(x) < 2


@pytest.mark.parametrize("n", [1, 2, BATCH])
@pytest.mark.parametrize("bits", WIDTHS)
def test_min_max_arg(rng, n, bits):
    xs = signed_values(rng, bits, n)
    if n > 2:
        xs[n // 2] = xs[0] = min(xs)     # ties: the first index wins
        xs[-1] = xs[1] = max(xs)
    a = clbig.array(xs, bits=bits)
    assert clbig.min(a) == a.min() == min(xs)
    assert clbig.max(a) == a.max() == max(xs)
    assert clbig.argmin(a) == a.argmin() == xs.index(min(xs))
    assert clbig.argmax(a) == a.argmax() == xs.index(max(xs))


def test_min_max_signs_and_negative_zero():
    a = clbig.array([0, 5, 3])
    z = -a                                     # -0 is marked negative: it is 0 to every reader
    assert z.min() == -5 and z.max() == 0 and z.argmax() == 0
    assert clbig.array([-2**100, -1, -2**99]).max() == -1
    assert clbig.array([-2**100, -1, -2**99]).min() == -2**100
    assert clbig.array([2**100, 1, 2**99]).argmin() == 1
    assert clbig.array([3, 3, 3]).argmax() == 0 and clbig.array([3, 3, 3]).argmin() == 0
    for fn in (clbig.min, clbig.max, clbig.argmin, clbig.argmax):
        with pytest.raises(ValueError, match="empty"):
            fn(clbig.array([]))


@pytest.mark.parametrize("n", LENGTHS)
@pytest.mark.parametrize("bits", WIDTHS)
def test_sort_argsort_stable(rng, n, bits):
    xs = signed_values(rng, bits, n)
    xs += xs[: n // 2]                         # ties, to see stability
    rng.shuffle(xs)
    a = clbig.array(xs, bits=bits)
    order = sorted(range(len(xs)), key=xs.__getitem__)   # Python's sort is stable
    assert clbig.argsort(a).tolist() == order and a.argsort().tolist() == order
    assert clbig.argsort(a).dtype == np.int64
    s = clbig.sort(a)
    assert isinstance(s, clbig.BigIntArray) and s.bits == bits
    check_values(s.tolist(), sorted(xs), "sort")
    check_values(a.sort().tolist(), sorted(xs), "a.sort()")
    check_values(a.tolist(), xs, "a after sort (unchanged)")


def test_sort_negative_zero():
    z = -clbig.array([0, 2, 0, 1])             # -0, -2, -0, -1
    assert z.argsort().tolist() == [1, 3, 0, 2]
    assert z.sort().tolist() == [-2, -1, 0, 0]


# -- copy, trim, repr --------------------------------------------------------------------------
def test_copy(rng):
    xs = signed_values(rng, 100, BATCH)
    a = clbig.array(xs, bits=100)
    c = a.copy()
    assert c is not a and c.data is not a.data and c.bits == a.bits
    check_values(c.tolist(), xs, "copy")
    if a.neg is not None:
        c.neg[:] = False                          # the signs are the copy's own
        check_values(a.tolist(), xs, "original after the copy's signs changed")


@pytest.mark.parametrize("bits", WIDTHS)
def test_trim(rng, bits):
    xs = signed_values(rng, bits, BATCH)
    a = clbig.array(xs, bits=1056)
    t = a.trim()
    need = max(1, max(abs(x).bit_length() for x in xs))
    assert t.bits == need and t.m == -(-need // 32)
    check_values(t.tolist(), xs, "trim")
    check_values((t + t).tolist(), [2 * x for x in xs], "trim + trim")
    assert clbig.zeros(3, 1056).trim().bits == 1
    assert clbig.array([]).trim().tolist() == []


def test_repr():
    big = clbig.array([3**200000])
    r = repr(big)                                 # str() of it would exceed int_max_str_digits
    assert "316993-bit" in r and "n=1" in r
    assert repr(-big).startswith("BigIntArray([-<316993-bit")
    r = repr(clbig.array(list(range(100))))
    assert r == "BigIntArray([0, 1, 2, ..., 97, 98, 99], n=100, bits=32)"
    assert repr(clbig.array([])) == "BigIntArray([], n=0, bits=32)"
    assert repr(clbig.array([-5, 2**64])) == f"BigIntArray([-5, {2**64}], n=2, bits=96)"
    if hasattr(sys, "set_int_max_str_digits"):
        old = sys.get_int_max_str_digits()
        sys.set_int_max_str_digits(640)
        try:
            assert "bit int" in repr(clbig.array([10**1000]))
        finally:
            sys.set_int_max_str_digits(old)


def test_on_several_devices(ctx, small_ctx_obj, rng):
    """A multi-device array: gathers, concatenation and reductions take its rows from the host."""
    xs = signed_values(rng, 100, BATCH)
    with clbig.Context([ctx, small_ctx_obj]):
        a = clbig.array(xs, bits=100)
        check_values(a[[3, 0, -1]].tolist(), [xs[3], xs[0], xs[-1]], "multi a[list]")
        check_values(clbig.concatenate([a, a]).tolist(), xs + xs, "multi concatenate")
        assert clbig.sum(a) == sum(xs) and clbig.min(a) == min(xs)
        check_values(clbig.sort(a).tolist(), sorted(xs), "multi sort")


# -- rows of several arrays (clbig.tolist) ----------------------------------------------------
@pytest.mark.parametrize("n", LENGTHS + [7])
def test_tolist_rows_of_several_arrays(rng, n):
    """clbig.tolist: one array's values, several arrays' rows as list(zip(...)) gives them
    (signs, edges, mpz); the lengths, the arguments and their positions checked."""
    import gmpy2
    a, b = signed_values(rng, 1056, n), [v or 1 for v in signed_values(rng, 100, n)]
    q, r = clbig.divmod(clbig.array(a), clbig.array(b))
    want = [divmod(x, y) for x, y in zip(a, b)]
    assert clbig.tolist(q, r) == want and clbig.tolist(q) == [w[0] for w in want]
    got = clbig.tolist(q, r, q, mpz=True)
    assert got == [(x, y, x) for x, y in want]
    assert all(type(v) is type(gmpy2.mpz(0)) for row in got for v in row)
    with pytest.raises(TypeError, match="give one or more arrays"):
        clbig.tolist()
    with pytest.raises(TypeError, match=r"argument 1 is a tuple, not a BigIntArray \(a tuple of arrays"):
        clbig.tolist(q, (q, r))
    with pytest.raises(TypeError, match="argument 0 is a list"):
        clbig.tolist(a)
    with pytest.raises(ValueError, match=f"argument 0 has {n} values, argument 1 {n + 1}"):
        clbig.tolist(q, clbig.array(a + [5]))

