"""Python's int semantics through clbig (issue 37 item 5): pow with a negative exponent or a
negative modulus, int() and operator.index() of a one-element array, invert with a Modulus,
per-element shift counts and exponents, reflected <<, >> and **, and every all-int call
returning Python values; every result checked against Python's own operators."""
from __future__ import annotations

import operator

import gmpy2
import numpy as np
import pytest

import clbig
from conftest import BATCH, check_values, rand_value


def _pow_or_none(a, e, m):
    try:
        return pow(a, e, m)
    except ValueError:
        return None


@pytest.mark.parametrize("bits", [32, 200, 1056])
def test_negative_exponents(rng, bits):
    m = rng.getrandbits(bits) | 1 | (1 << (bits - 1))
    A = [rng.getrandbits(bits) * rng.choice((1, -1)) for _ in range(BATCH)] + [1, -1, m - 1]
    E = [rng.choice((1, -1)) * rng.getrandbits(40) for _ in A[:-3]] + [-5, -1, -(2**70)]
    pairs = [(a, e) for a, e in zip(A, E) if _pow_or_none(a, -1, m) is not None]   # invertible a
    A, E = [a for a, _ in pairs], [e for _, e in pairs]
    assert len(A) > BATCH // 2 and any(e < 0 for e in E)
    got = clbig.powmod(A, E, m).tolist()
    assert got == [pow(a, e, m) for a, e in zip(A, E)]
    x = clbig.array(A)
    assert pow(x, -3, m).tolist() == [pow(a, -3, m) for a in A]
    assert pow(x, -1, clbig.Modulus(m)).tolist() == [pow(a, -1, m) for a in A]
    assert clbig.powmod(3, -1, 7) == pow(3, -1, 7) == 5


def test_negative_exponent_not_invertible_names_the_index():
    with pytest.raises(ValueError, match=r"not invertible mod m at index 2"):
        clbig.powmod([3, 5, 4, 7], -1, 8)
    with pytest.raises(ValueError, match=r"not invertible mod m at index 1"):
        clbig.powmod([3, 6, 5], [2, -1, -1], [7, 9, 11])
    # a positive exponent needs no inverse: gcd(6, 9) != 1 is fine there
    assert clbig.powmod([3, 6], [2, 2], [7, 9]).tolist() == [2, 0]


@pytest.mark.parametrize("bits", [32, 100, 1056])
def test_negative_moduli(rng, bits):
    A = [rng.getrandbits(bits) * rng.choice((1, -1)) for _ in range(BATCH)] + [0, 1, -1]
    M = [(rng.getrandbits(bits) | 3) * rng.choice((1, -1)) for _ in A]
    E = [rng.getrandbits(20) for _ in A]
    assert clbig.powmod(A, E, M).tolist() == [pow(a, e, m) for a, e, m in zip(A, E, M)]
    assert clbig.powmod(A, 3, -7).tolist() == [pow(a, 3, -7) for a in A]
    assert clbig.powmod(3, 2, -7) == pow(3, 2, -7) == -5
    assert pow(clbig.array(A), 2, -(2**61 - 1)).tolist() == [pow(a, 2, -(2**61 - 1)) for a in A]


def test_negative_exponent_and_modulus_together(rng):
    A = [rng.getrandbits(64) | 1 for _ in range(BATCH)]
    M = -(2**64 + 13)          # odd and not a multiple of the odd bases' common factors
    want = [_pow_or_none(a, -2, M) for a in A]
    keep = [i for i, w in enumerate(want) if w is not None]
    assert clbig.powmod([A[i] for i in keep], -2, M).tolist() == [want[i] for i in keep]


def test_negative_moduli_in_arrays(rng):
    """Moduli given as a BigIntArray (not a list) with negative elements: results in (m, 0],
    zero and one exponents, mixed signs, broadcasting both ways, even and odd moduli."""
    n = 9
    A = [rng.getrandbits(130) - 2**129 for _ in range(n - 3)] + [0, 5, 2**64 - 1]
    E = [0, 1, 2, 0, 65537, rng.getrandbits(70), 0, 0, 3]
    M = [-7, -7, 9, -(2**61 - 1), -(2**64), -1, -13, -7, rng.getrandbits(200) | 1]
    Aa, Ea, Ma = clbig.array(A), clbig.array(E), clbig.array(M)
    assert pow(Aa, Ea, Ma).tolist() == [pow(a, e, m) for a, e, m in zip(A, E, M)]
    assert clbig.powmod(A, E, Ma).tolist() == [pow(a, e, m) for a, e, m in zip(A, E, M)]
    assert clbig.mulmod(Aa, Aa, Ma).tolist() == [a * a % m for a, m in zip(A, M)]
    one = clbig.array([-(2**90 + 5)])
    assert clbig.powmod(Aa, Ea, one).tolist() == [pow(a, e, -(2**90 + 5)) for a, e in zip(A, E)]
    assert clbig.mulmod(3, Aa, Ma).tolist() == [3 * a % m for a, m in zip(A, M)]
    assert clbig.powmod(clbig.array([]), clbig.array([]), clbig.array([])).tolist() == []
    assert clbig.powmod(clbig.array([]), 3, clbig.array([-7])).tolist() == []   # broadcast to none


def test_truth_of_an_array():
    """numpy's rule: one element's truth, ValueError for other lengths (not len() != 0)."""
    assert bool(clbig.array([0])) is False
    assert bool(clbig.array([-(2**300)])) is True and bool(clbig.array([1])) is True
    assert bool(clbig.array([2**64]) - 2**64) is False
    for bad in ([], [0, 0], [1, 2, 3]):
        with pytest.raises(ValueError, match="ambiguous"):
            bool(clbig.array(bad))


def test_int_of_one_element_array():
    assert int(clbig.array([2**200 + 5])) == 2**200 + 5
    assert int(clbig.array([-7])) == -7
    for bad in ([], [1, 2]):
        with pytest.raises(TypeError, match="one-element"):
            int(clbig.array(bad))
    # no __index__: `[3] * x` multiplies instead of repeating the list
    assert ([3, 5] * clbig.array([2])).tolist() == [6, 10]


def test_invert_takes_a_modulus():
    assert clbig.invert([3, 4], clbig.Modulus(7)).tolist() == [5, 2]
    assert clbig.invert([3, 4], clbig.Modulus([7, 11])).tolist() == [5, 3]


# -- per-element shift counts, reflected << >> **, operator.index, all-int calls ------------
def _signed(rng, bits, n):
    vals = [rand_value(rng, bits) for _ in range(n)]
    return [-v if rng.random() < 0.5 else v for v in vals]


@pytest.mark.parametrize("bits", [32, 100, 1056, 2 ** 14])   # 2^14 bits: 512 limbs, past one group
@pytest.mark.parametrize("n", [1, BATCH])
def test_shift_per_element(rng, bits, n):
    xs = _signed(rng, bits, n - 2) + ([0, -1] if n > 2 else [])
    xs = xs[:n] if n > 2 else _signed(rng, bits, n)
    ks = [rng.choice([0, 1, 31, 32, 33, 100, bits - 1, bits, bits + 70, rng.randrange(3 * bits)])
          for _ in range(n)]
    a = clbig.array(xs, bits=bits)
    left = a << ks
    assert left.bits == bits + max(ks)
    check_values(left.tolist(), [x << k for x, k in zip(xs, ks)], f"{bits}-bit a << ks", (xs, ks))
    right = a >> np.array(ks, dtype=np.int64)
    check_values(right.tolist(), [x >> k for x, k in zip(xs, ks)], f"{bits}-bit a >> ks", (xs, ks))
    # counts held on the device, as a BigIntArray
    check_values((a >> clbig.array(ks)).tolist(), [x >> k for x, k in zip(xs, ks)], "a >> array")


def test_shift_per_element_broadcasts_and_reflects(rng):
    ks = [0, 1, 63, 64, 65, 1000]
    assert (clbig.array([-3]) << ks).tolist() == [-3 << k for k in ks]
    assert (clbig.array([5, -6, 7, 2**80, -2**80, 0]) << [3]).tolist() == [v << 3 for v in [5, -6, 7, 2**80, -2**80, 0]]
    assert (1 << clbig.array(ks)).tolist() == [1 << k for k in ks]
    big = rng.getrandbits(3000)
    assert (big >> clbig.array(ks)).tolist() == [big >> k for k in ks]
    assert (-big >> clbig.array(ks)).tolist() == [-big >> k for k in ks]
    assert (clbig.array([]) << []).tolist() == []
    assert (clbig.array([]) >> np.zeros(0, np.int64)).tolist() == []


@pytest.mark.parametrize("counts, err, where", [
    ([1, -2, 3], ValueError, "shift count at index 1"),
    ([1, 2.0], TypeError, "shift count at index 1"),
    ([True], TypeError, "shift count at index 0"),
    ([1, 2, 3, 4], ValueError, "broadcasting"),
    (np.zeros((2, 2), np.int64), ValueError, "one-dimensional"),
    ("12", TypeError, "str"),
])
def test_shift_per_element_bad_counts(counts, err, where):
    a = clbig.array([1, 2, 3])
    with pytest.raises(err, match=where):
        a << counts
    with pytest.raises(err, match=where):
        a >> counts


def test_shift_left_too_far_is_an_overflow_error():
    with pytest.raises(OverflowError):
        clbig.array([1, 1]) << [0, 2 ** 41]


@pytest.mark.parametrize("bits", [32, 300])
def test_power_per_element(rng, bits):
    xs = _signed(rng, bits, BATCH - 3) + [0, 0, -1]
    es = [rng.randrange(0, 20) for _ in range(BATCH - 3)] + [0, 5, 3]
    got = clbig.array(xs, bits=bits) ** es
    assert got.bits == max(bits * max(es), 1)
    check_values(got.tolist(), [x ** e for x, e in zip(xs, es)], f"{bits}-bit x ** es", (xs, es))
    assert (clbig.array(xs[:1]) ** np.array(es)).tolist() == [xs[0] ** e for e in es]


@pytest.mark.parametrize("base", [2, 3, -2, -3, 0, 1, 16, 10**30, gmpy2.mpz(7)])
def test_reflected_power(rng, base):
    es = [0, 1, 2, 5, 31, 32, 33, 64, rng.randrange(200)]
    got = base ** clbig.array(es)
    assert isinstance(got, clbig.BigIntArray)
    assert got.tolist() == [int(base) ** e for e in es]
    # three-argument pow() does not try __rpow__ before Python 3.14: clbig.powmod does it
    assert clbig.powmod(base, clbig.array(es), 1000003).tolist() == [pow(int(base), e, 1000003) for e in es]


def test_power_negative_exponent_names_its_position():
    with pytest.raises(ValueError, match=r"exponent at index 2 is negative.*pow\(x, e, m\)"):
        clbig.array([2, 3, 4]) ** [1, 2, -1]
    with pytest.raises(ValueError, match="exponent at index 0"):
        2 ** clbig.array([-1])
    with pytest.raises(TypeError, match="exponent at index 1"):
        clbig.array([2, 3]) ** [1, 0.5]


def test_floor_ceil_and_numpy_scalar_indices_exact():
    """math.floor / ceil / trunc of a one-element array are its int, not a float's rounding
    (2**53 + 1); a narrow numpy integer indexes a batch longer than its dtype counts (found by
    an audit, 2026-11-30)."""
    import math
    for v in (2**53 + 1, -(2**64 + 1), 2**1100):
        x = clbig.array([v])
        assert math.floor(x) == math.ceil(x) == math.trunc(x) == v
    with pytest.raises(TypeError):
        math.floor(clbig.array([1, 2]))
    x = clbig.array(list(range(40000)))
    assert x[np.int8(5)] == 5 and x[np.uint8(200)] == 200 and x[np.int16(-1)] == 39999


def test_operator_index_of_one_element():
    x = clbig.array([5])
    assert operator.index(x) == 5 and isinstance(operator.index(x), int)
    assert operator.index(clbig.array([-(2**100)])) == -(2**100)
    assert list(range(10))[clbig.array([3])] == 3
    assert ([3] * clbig.array([5])).tolist() == [15]          # multiplies: no list repetition
    for bad in (clbig.array([1, 2]), clbig.array([])):
        with pytest.raises(TypeError, match="one-element"):
            operator.index(bad)


_M = 10**20 + 39   # a prime above 2^64
ALL_INT_CALLS = [
    ("add", (3, 5), {}, 8), ("add", (-(2**70), 1), {}, -(2**70) + 1), ("sub", (3, 5), {}, -2),
    ("mul", (2**64, -3), {}, -3 * 2**64), ("mul_low", (300, 300), {"bits": 8}, 144),
    ("add_fixed", (250, 10, 8), {}, (4, True)), ("sub_fixed", (3, 5), {"bits": 8}, (254, True)),
    ("compare", (3, 5), {}, -1), ("compare", (5, 5, "eq"), {}, True),
    ("shift_left", (3, 70), {}, 3 << 70), ("shift_right", (-7, 1), {}, -4),
    ("divmod", (-7, 2), {}, (-4, 1)), ("floordiv", (2**80, 3), {}, 2**80 // 3), ("mod", (-7, 3), {}, 2),
    ("isqrt", (99,), {}, 9), ("isqrt", (10**40,), {}, 10**20),
    ("powmod", (3, -1, 7), {}, 5), ("powmod", (3, 2, -7), {}, -5), ("mulmod", (3, 5, 7), {}, 1),
    ("gcd", (12, 18), {}, 6), ("invert", (3, _M), {}, pow(3, -1, _M)), ("lcm", (4, 6), {}, 12),
    ("gcdext", (240, 46), {}, (2, -9, 47)), ("iroot", (27, 3), {}, (3, True)),
    ("bit_count", (2**70 - 1,), {}, 70), ("jacobi", (2, 7), {}, 1), ("is_prime", (_M,), {}, True),
    ("next_prime", (7,), {}, 11),
]


@pytest.mark.parametrize("name, args, kw, want", ALL_INT_CALLS,
                         ids=[f"{c[0]}{c[1]}" for c in ALL_INT_CALLS])
def test_all_int_calls_return_python_values(name, args, kw, want):
    got = getattr(clbig, name)(*args, **kw)
    assert got == want
    for g, w in zip(got if isinstance(got, tuple) else (got,), want if isinstance(want, tuple) else (want,)):
        assert type(g) is type(w), f"clbig.{name}{args}: {type(g).__name__} {g!r}, expected {type(w).__name__}"
    # the same call with gmpy2 and numpy integers
    conv = [gmpy2.mpz(a) if isinstance(a, int) and not isinstance(a, bool) else a for a in args]
    assert getattr(clbig, name)(*conv, **kw) == want
    # one array argument gives arrays
    arr = getattr(clbig, name)(clbig.array([args[0]]), *args[1:], **kw)
    first = arr[0] if isinstance(arr, tuple) else arr
    assert not isinstance(first, (int, bool)), f"clbig.{name} of an array gave a scalar"


@pytest.mark.parametrize("bits", [32, 200])
def test_mulmod_negative_moduli(rng, bits):
    xs = _signed(rng, bits, BATCH)
    ys = _signed(rng, bits, BATCH)
    ms = [(rng.getrandbits(bits) | 1) * rng.choice([1, -1]) for _ in range(BATCH - 2)] + [-1, -2]
    got = clbig.mulmod(xs, ys, ms)
    check_values(got.tolist(), [x * y % m for x, y, m in zip(xs, ys, ms)], "mulmod, m < 0", (xs, ys, ms))
    assert clbig.mulmod(3, 5, -7) == -6
    assert clbig.mulmod(xs, 5, -7).tolist() == [x * 5 % -7 for x in xs]
