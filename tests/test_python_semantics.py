"""Python's int semantics through clbig (issue 37 item 5): pow with a negative exponent or a
negative modulus, int() of a one-element array, invert with a Modulus; every result checked
against Python's own pow."""
from __future__ import annotations

import pytest

import clbig
from conftest import BATCH


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
