"""numpy's protocols on BigIntArray (issue #33 item 1): every numpy ufunc and function gives
the exact result or raises TypeError; np.asarray is exact; integer ndarrays and numpy scalars
are exact operands on either side. Expected values are Python ints computed on the host."""
import operator

import numpy as np
import pytest

import clbig
from conftest import BATCH, check_bools, check_values, edge_values, rand_value

# Every ufunc numpy defines, and the exact meaning of those clbig computes (Python's ints).
UFUNCS = [getattr(np, n) for n in dir(np) if isinstance(getattr(np, n), np.ufunc)]
EXACT = {
    "add": operator.add, "subtract": operator.sub, "multiply": operator.mul,
    "floor_divide": operator.floordiv, "remainder": operator.mod, "divmod": divmod,
    "power": operator.pow, "left_shift": operator.lshift, "right_shift": operator.rshift,
    "bitwise_and": operator.and_, "bitwise_or": operator.or_, "bitwise_xor": operator.xor,
    "invert": operator.invert, "negative": operator.neg, "positive": operator.pos,
    "absolute": abs, "less": operator.lt, "less_equal": operator.le, "greater": operator.gt,
    "greater_equal": operator.ge, "equal": operator.eq, "not_equal": operator.ne,
    "maximum": max, "minimum": min, "sign": lambda x: (x > 0) - (x < 0),
    "square": lambda x: x * x, "gcd": lambda x, y: __import__("math").gcd(x, y),
}
BOOL_RESULT = {"less", "less_equal", "greater", "greater_equal", "equal", "not_equal"}


def big_values(rng, n=BATCH, bits=100):
    """Signed values above 2**64, with small ones and zero among them (bits: conftest's)."""
    vals = [v for v in edge_values(bits) if v > 2**64][:6]
    vals += [-v for v in vals[:3]] + [0, 1, -1, 5]
    while len(vals) < n:
        v = rand_value(rng, bits) | (1 << 70)
        vals.append(v if rng.random() < 0.5 else -v)
    rng.shuffle(vals)
    return vals[:n]


def as_ints(x):
    if isinstance(x, clbig.BigIntArray):
        return x.tolist()
    return np.asarray(x).tolist()


def check_result(ufunc, got, operands, what):
    """got: the ufunc's result on BigIntArrays whose values are `operands` (lists)."""
    name = ufunc.__name__
    assert name in EXACT, f"{what}: numpy.{name} returned {type(got).__name__} instead of raising TypeError"
    fn = EXACT[name]
    n = max(len(o) for o in operands)
    cols = [o if len(o) == n else o * n for o in operands]
    expected = [fn(*args) for args in zip(*cols)]
    if name == "divmod":
        q, r = got
        assert isinstance(q, clbig.BigIntArray) and isinstance(r, clbig.BigIntArray), what
        check_values(q.tolist(), [e[0] for e in expected], f"{what} quotient")
        check_values(r.tolist(), [e[1] for e in expected], f"{what} remainder")
    elif name in BOOL_RESULT:
        check_bools(got, expected, what)
    elif name == "sign":
        assert isinstance(got, np.ndarray) and got.dtype == np.int8, what
        assert got.tolist() == expected, what
    else:
        assert isinstance(got, clbig.BigIntArray), f"{what}: got {type(got).__name__}"
        check_values(got.tolist(), expected, what)


def call_or_typeerror(ufunc, args):
    """ufunc(*args), or None where it raises TypeError (the allowed refusal) naming it."""
    try:
        return ufunc(*args)
    except TypeError as e:
        assert ufunc.__name__ in str(e), f"TypeError of numpy.{ufunc.__name__} does not name it: {e}"
        return None


# -- the issue's examples --------------------------------------------------------------------
def test_issue_examples():
    a = clbig.array([2**62, 2**63 - 1, 5])
    got = np.add(a, a)
    assert isinstance(got, clbig.BigIntArray)
    assert got.tolist() == [2**63, 2**64 - 2, 10]
    assert np.sum(clbig.array([2**62] * 3)) == 3 * 2**62
    arr = np.asarray(clbig.array([2**64 - 1, 1]))
    assert arr.dtype == object and arr.tolist() == [2**64 - 1, 1]
    assert all(type(v) is int for v in arr.tolist())
    assert np.multiply(clbig.array([2**40]), 2**40).tolist() == [2**80]


# -- every ufunc -----------------------------------------------------------------------------
@pytest.mark.parametrize("ufunc", UFUNCS, ids=lambda u: u.__name__)
def test_every_ufunc_exact_or_typeerror(rng, ufunc):
    """Every ufunc on BigIntArrays of values above 2**64 (and beside a Python int, an int64
    array and a numpy array on the left): the exact result, or TypeError."""
    xs, ys = big_values(rng), big_values(rng)
    ys = [y if y else 3 for y in ys]                    # no zero divisor
    a, b = clbig.array(xs), clbig.array(ys)
    if ufunc.nin == 1:
        cases = [((a,), (xs,))]
    else:
        small = [rng.randrange(-50, 50) or 1 for _ in xs]
        # a scalar beside the batch: above 2**64, but not as an exponent or a left shift (an
        # exact result would not fit any memory: test_huge_exponent_refused)
        k = 5 if ufunc.__name__ in ("power", "left_shift") else 2**70 + 1
        cases = [((a, b), (xs, ys)), ((b, b), (ys, ys)), ((a, k), (xs, [k])),
                 ((a, np.array(small, np.int64)), (xs, small)),
                 ((np.array(small, np.int64), b), (small, ys)),
                 ((2**65 + 3, b), ([2**65 + 3], ys))]
    name = ufunc.__name__
    for args, vals in cases:
        what = f"numpy.{name}({', '.join(type(x).__name__ for x in args)})"
        counts = name in ("power", "left_shift", "right_shift")
        if counts and min(vals[1]) < 0:   # a negative exponent or count: Python's ValueError
            with pytest.raises(ValueError, match="negative"):
                ufunc(*args)
            continue
        got = call_or_typeerror(ufunc, args)
        # clbig's own ufuncs must run (power and the shifts: one amount or one per element)
        must = name in EXACT
        assert got is not None or not must, f"{what} raised TypeError, but clbig has it"
        if got is not None:
            check_result(ufunc, got, vals, what)


@pytest.mark.parametrize("k", [0, 1, 3, 64, 65])
def test_power_and_shifts_by_one_amount(rng, k):
    """power and the shifts run where the exponent / count is one integer for the batch (a
    scalar, a numpy scalar, or an array of equal elements), with the broadcast length
    (test_power_and_shifts_per_element: differing counts)."""
    xs = big_values(rng)
    a = clbig.array(xs)
    # ... or one of length 1, which broadcasts (a ** [3] once read its mask past one byte)
    for amount in (k, np.int64(k), np.array([k] * len(xs)), clbig.array([k] * len(xs)), [k],
                   np.array([k]), clbig.array([k])):
        check_values(np.power(a, amount).tolist(), [x ** k for x in xs], f"power {k}")
        check_values((a ** amount).tolist(), [x ** k for x in xs], f"** {k}")
        check_values(np.left_shift(a, amount).tolist(), [x << k for x in xs], f"<< {k}")
        check_values(np.right_shift(a, amount).tolist(), [x >> k for x in xs], f">> {k}")
    check_values(np.power(3, clbig.array([k] * 5)).tolist(), [3 ** k] * 5, "3 ** array")
    check_values(np.left_shift(-7, clbig.array([k] * 4)).tolist(), [-7 << k] * 4, "-7 << array")


def test_power_and_shifts_per_element(rng):
    xs = big_values(rng)
    ks = [rng.randrange(0, 70) for _ in xs]
    a = clbig.array(xs)
    for amount in (ks, np.array(ks, np.int64), np.array(ks, np.uint8), clbig.array(ks)):
        check_values(np.power(a, amount).tolist(), [x ** k for x, k in zip(xs, ks)], "power ks")
        check_values(np.left_shift(a, amount).tolist(), [x << k for x, k in zip(xs, ks)], "<< ks")
        check_values(np.right_shift(a, amount).tolist(), [x >> k for x, k in zip(xs, ks)], ">> ks")
    check_values(np.power(3, clbig.array(ks)).tolist(), [3 ** k for k in ks], "3 ** array")
    check_values(np.left_shift(-7, clbig.array(ks)).tolist(), [-7 << k for k in ks], "-7 << array")


def test_huge_exponent_refused():
    """An exact power or left shift that no memory holds is refused before anything runs."""
    a = clbig.array([2**70, 3])
    for fn in (np.power, np.left_shift):
        with pytest.raises((OverflowError, MemoryError)):
            fn(a, 2**70 + 1)


def test_maximum_minimum_broadcast(rng):
    xs = big_values(rng)
    a = clbig.array(xs)
    check_values(np.maximum(a, 0).tolist(), [max(x, 0) for x in xs], "maximum(a, 0)")
    check_values(np.minimum(-2**90, a).tolist(), [min(-2**90, x) for x in xs], "minimum")


# -- methods and keywords ----------------------------------------------------------------------
@pytest.mark.parametrize("method", ["accumulate", "outer", "at", "reduceat"])
def test_other_ufunc_methods_refused(method):
    a = clbig.array([2**70, 3, -5])
    args = {"accumulate": (a,), "outer": (a, a), "at": (a, [0], 1), "reduceat": (a, [0, 1])}[method]
    with pytest.raises(TypeError, match=method):
        getattr(np.add, method)(*args)


def test_reduce_exact(rng):
    xs = big_values(rng)
    a = clbig.array(xs)
    assert np.add.reduce(a) == sum(xs)
    assert np.multiply.reduce(a) == __import__("math").prod(xs)
    assert np.minimum.reduce(a) == min(xs) and np.maximum.reduce(a) == max(xs)
    assert np.add.reduce(a, axis=0) == sum(xs) and np.add.reduce(a, axis=None) == sum(xs)
    assert np.add.reduce(a, initial=2**100) == sum(xs) + 2**100
    assert np.maximum.reduce(a, initial=2**300) == 2**300
    empty = clbig.array([])
    assert np.add.reduce(empty) == 0 and np.multiply.reduce(empty) == 1
    with pytest.raises(ValueError):
        np.minimum.reduce(empty)
    for uf in (np.subtract, np.bitwise_and, np.floor_divide, np.logical_and):
        with pytest.raises(TypeError, match=uf.__name__):
            uf.reduce(a)
    for kw in ({"axis": 1}, {"dtype": np.int64}, {"out": np.zeros(1, object)}, {"keepdims": True},
               {"where": np.ones(len(xs), bool)}):
        with pytest.raises(TypeError, match="add"):
            np.add.reduce(a, **kw)


def test_call_keywords():
    a = clbig.array([2**70, 3, -5])
    assert np.add(a, 1, out=None).tolist() == [2**70 + 1, 4, -4]
    assert np.add(a, 1, where=True).tolist() == [2**70 + 1, 4, -4]
    assert np.add(a, 1, casting="same_kind", order="K").tolist() == [2**70 + 1, 4, -4]
    for kw in ({"out": np.zeros(3, np.int64)}, {"out": (np.zeros(3, object),)},
               {"where": np.array([True, False, True])}, {"where": False}, {"dtype": np.int64},
               {"dtype": object}, {"casting": "unsafe"}, {"order": "C"}):
        with pytest.raises(TypeError, match="add"):
            np.add(a, 1, **kw)
    arr = np.zeros(3, np.int64)
    with pytest.raises(TypeError):
        arr += a                           # would store into int64
    assert arr.tolist() == [0, 0, 0]


# -- operands: numpy scalars, integer arrays, numpy on the left --------------------------------
NP_SCALARS = [np.int64(5), np.int64(-2**63), np.uint64(2**64 - 1), np.int8(-3), np.uint8(255),
              np.int32(-2**31), np.uint32(2**32 - 1)]


@pytest.mark.parametrize("s", NP_SCALARS, ids=lambda s: f"{type(s).__name__}({s})")
def test_numpy_scalars_either_side(s):
    xs = [2**70 + 1, -3, 0, 2**64 - 1]
    a = clbig.array(xs)
    v = int(s)
    for got, exp, what in (
            (a + s, [x + v for x in xs], "a + s"), (s + a, [v + x for x in xs], "s + a"),
            (a - s, [x - v for x in xs], "a - s"), (s - a, [v - x for x in xs], "s - a"),
            (s * a, [v * x for x in xs], "s * a"), (a * s, [x * v for x in xs], "a * s"),
            (s & a, [v & x for x in xs], "s & a"), (np.add(s, a), [v + x for x in xs], "np.add(s, a)")):
        assert isinstance(got, clbig.BigIntArray), f"{what}: {type(got).__name__}"
        check_values(got.tolist(), exp, what)
    check_bools(s < a, [v < x for x in xs], "s < a")
    check_bools(a == s, [x == v for x in xs], "a == s")


INT_DTYPES = [np.int8, np.int16, np.int32, np.int64, np.uint8, np.uint16, np.uint32, np.uint64]


@pytest.mark.parametrize("dt", INT_DTYPES + [object], ids=lambda d: np.dtype(d).name)
def test_integer_ndarray_operands(dt):
    """Integer numpy arrays are exact operands, on the left (a BigIntArray back, not an object
    array) and on the right, and in clbig's functions."""
    if dt is object:
        vals = [2**100, -2**80 - 1, 0, 7, -1]
    else:
        info = np.iinfo(dt)
        vals = [int(info.min), int(info.max), 0, 1, int(info.max) // 3]
    arr = np.array(vals, dtype=dt)
    xs = [2**70 + 5, -(2**65), 3, 2**64 - 1, -7]
    a = clbig.array(xs)
    for got, exp, what in (
            (arr + a, [v + x for v, x in zip(vals, xs)], "arr + a"),
            (a + arr, [x + v for v, x in zip(vals, xs)], "a + arr"),
            (arr - a, [v - x for v, x in zip(vals, xs)], "arr - a"),
            (arr * a, [v * x for v, x in zip(vals, xs)], "arr * a"),
            (a * arr, [x * v for v, x in zip(vals, xs)], "a * arr"),
            (arr // a, [v // x for v, x in zip(vals, xs)], "arr // a"),
            (arr % a, [v % x for v, x in zip(vals, xs)], "arr % a"),
            (arr | a, [v | x for v, x in zip(vals, xs)], "arr | a"),
            (clbig.mul(arr, a), [v * x for v, x in zip(vals, xs)], "clbig.mul(arr, a)"),
            (clbig.array(arr), vals, "clbig.array(arr)")):
        assert isinstance(got, clbig.BigIntArray), f"{what}: {type(got).__name__}"
        check_values(got.tolist(), exp, f"{what} ({np.dtype(dt).name})")
    check_bools(arr < a, [v < x for v, x in zip(vals, xs)], "arr < a")
    check_bools(a >= arr, [x >= v for v, x in zip(vals, xs)], "a >= arr")


def test_arange_on_the_left():
    a = clbig.array([2**62, 2**63 - 1, 5])
    got = np.arange(3) + a
    assert isinstance(got, clbig.BigIntArray)
    assert got.tolist() == [2**62, 2**63, 7]


def test_bad_ndarray_operands():
    a = clbig.array([2**70, 3])
    with pytest.raises(TypeError, match="float64"):
        a + np.array([1.0, 2.0])
    with pytest.raises(TypeError, match="float64"):
        np.array([1.0, 2.0]) + a
    with pytest.raises(TypeError, match="bool"):
        a + np.array([True, False])
    with pytest.raises(ValueError, match="shape"):
        a + np.ones((2, 2), np.int64)
    with pytest.raises(TypeError, match="element 1"):
        a + np.array([1, 2.5], dtype=object)
    with pytest.raises(TypeError):
        np.add(a, 1.5)
    with pytest.raises(TypeError):
        np.add(a, np.float64(2.0))


# -- __array__ ---------------------------------------------------------------------------------
def test_asarray_exact(rng):
    xs = big_values(rng, bits=1056) + [-(2**1000)]
    a = clbig.array(xs)
    for conv in (np.asarray, np.array, lambda x: np.asarray(x, dtype=object)):
        arr = conv(a)
        assert arr.dtype == object and arr.shape == (len(xs),)
        assert arr.tolist() == xs
    assert np.asarray(clbig.array([])).shape == (0,)


def test_asarray_dtypes():
    small = clbig.array([-5, 0, 2**31 - 1])
    got = np.asarray(small, dtype=np.int64)
    assert got.dtype == np.int64 and got.tolist() == [-5, 0, 2**31 - 1]
    assert np.asarray(small, dtype=np.float64).tolist() == [-5.0, 0.0, float(2**31 - 1)]
    assert np.asarray(clbig.array([2**64 - 1]), dtype=np.uint64).tolist() == [2**64 - 1]
    assert np.asarray(clbig.array([2**64]), dtype=np.float64).tolist() == [2.0**64]   # exact
    for vals, dt, where in (([1, 2**63], np.int64, "element 1"), ([-1], np.uint64, "element 0"),
                            ([2**64 - 1, 1], np.float64, "element 0"), ([0, 128], np.int8, "element 1"),
                            ([2**2000], np.float64, "element 0"), ([1, 2**53 + 1], np.float64, "element 1")):
        with pytest.raises(TypeError, match=where):
            np.asarray(clbig.array(vals), dtype=dt)
    for dt in (bool, "U10", "datetime64[s]"):
        with pytest.raises(TypeError):
            np.asarray(small, dtype=dt)
    with pytest.raises(ValueError, match="copy"):
        np.asarray(small, copy=False)


# -- __array_function__ ------------------------------------------------------------------------
def test_array_functions_exact(rng):
    xs = big_values(rng)
    a = clbig.array(xs)
    assert np.sum(a) == sum(xs) and np.prod(a) == __import__("math").prod(xs)
    assert np.min(a) == min(xs) and np.max(a) == max(xs)
    assert np.sum(a, initial=5) == sum(xs) + 5 and np.sum(a, axis=0) == sum(xs)
    assert np.argmin(a) == xs.index(min(xs)) and np.argmax(a) == xs.index(max(xs))
    order = sorted(range(len(xs)), key=xs.__getitem__)
    assert np.argsort(a).tolist() == order
    assert np.argsort(a, kind="stable").tolist() == order
    s = np.sort(a)
    assert isinstance(s, clbig.BigIntArray) and s.tolist() == sorted(xs)
    c = np.concatenate([a, np.array([1, 2], np.uint64), [2**200]])
    assert isinstance(c, clbig.BigIntArray) and c.tolist() == xs + [1, 2, 2**200]
    w = np.where(a > 0, a, -1)
    assert isinstance(w, clbig.BigIntArray) and w.tolist() == [x if x > 0 else -1 for x in xs]
    w = np.where(np.array([i % 2 == 0 for i in range(len(xs))]), 2**99, a)
    assert w.tolist() == [2**99 if i % 2 == 0 else x for i, x in enumerate(xs)]
    assert np.where(a)[0].tolist() == [i for i, x in enumerate(xs) if x]
    assert np.nonzero(a)[0].tolist() == [i for i, x in enumerate(xs) if x]
    assert np.take(a, [3, -1]).tolist() == [xs[3], xs[-1]] and np.take(a, 2) == xs[2]
    cp = np.copy(a)
    assert isinstance(cp, clbig.BigIntArray) and cp.tolist() == xs
    assert np.shape(a) == (len(xs),) and np.ndim(a) == 1 and np.size(a) == len(xs)
    assert np.count_nonzero(a) == sum(1 for x in xs if x)
    assert np.any(a) is True and np.all(a) is (0 not in xs)
    assert np.array_equal(a, clbig.array(xs)) and not np.array_equal(a, a + 1)


@pytest.mark.parametrize("fname", ["mean", "cumsum", "median", "dot", "unique", "diff", "clip",
                                   "round", "average", "std", "cumprod", "append", "repeat"])
def test_other_functions_refused(fname):
    a = clbig.array([2**70, 3, -5])
    fn = getattr(np, fname)
    args = {"dot": (a, a), "clip": (a, 0, 5), "append": (a, 1), "repeat": (a, 2)}.get(fname, (a,))
    with pytest.raises(TypeError, match=fname):
        fn(*args)


def test_function_keywords_refused():
    a = clbig.array([2**70, 3, -5])
    for fn, kw in ((np.sum, {"axis": 1}), (np.sum, {"dtype": np.int64}), (np.sum, {"keepdims": True}),
                   (np.sum, {"out": np.zeros(1, object)}), (np.min, {"where": np.ones(3, bool)}),
                   (np.sort, {"order": "x"}), (np.argmax, {"axis": 1}),
                   (np.concatenate, {"dtype": np.int64})):
        args = ([a, a],) if fn is np.concatenate else (a,)
        with pytest.raises(TypeError, match=fn.__name__):
            fn(*args, **kw)


def test_take_equal_and_zero_d_operands_as_numpy():
    """np.take reads booleans as the indices 0 and 1 (not a mask); np.array_equal compares
    shapes and then values as Python does (ints equal floats and bools of their value); a 0-d
    array is one exponent or shift count; lists of numpy bools are masks (found by an audit,
    2026-11-30)."""
    vals = [1, -2, 2**70]
    x, ref = clbig.array(vals), np.array(vals, dtype=object)
    for idx in (np.array([True, False, True]), [True, False, True], np.True_):
        assert np.asarray(np.take(x, idx)).tolist() == np.asarray(np.take(ref, idx)).tolist()
    for other, want in (([1.0, -2.0, 2.0**70], True), ([1, -2, 2**70 + 1], False), (vals[:2], False),
                        (np.array(vals, dtype=object), True), (2**70, False)):
        assert np.array_equal(x, other) is want and np.array_equal(other, x) is want, other
    assert np.array_equal(clbig.array([1, 0]), [True, False]) and not np.array_equal(clbig.array([5]), 5)
    assert not np.array_equal(clbig.array([2**53 + 1]), [2.0**53])
    y = clbig.array([3, -4])
    assert (y ** np.array(3)).tolist() == [27, -64] and (y << np.array(2)).tolist() == [12, -16]
    assert y[[np.True_, np.False_]].tolist() == [3]
    y[[np.False_, np.True_]] = 9
    assert y.tolist() == [3, 9]
