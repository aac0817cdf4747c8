"""Every bad-input rule raises the documented exception, naming the offending index."""
import numpy as np
import pytest

import clbig
from conftest import mask


# -- values -------------------------------------------------------------------------------------
@pytest.mark.parametrize("vals,idx", [([-1], 0), ([1, 2, 3, -4], 3), ([0, -(2 ** 100), -1], 1)])
def test_negative_value(vals, idx):
    with pytest.raises(ValueError, match=rf"element {idx}\b"):
        clbig.array(vals)
    with pytest.raises(ValueError, match=rf"element {idx}\b"):
        clbig.array(vals, bits=128)


@pytest.mark.parametrize("vals,bits,idx", [
    ([2 ** 32], 32, 0),
    ([1, 2, 3, 2 ** 32 - 1, 2 ** 32], 32, 4),
    ([0, 2 ** 7, 5], 7, 1),
    ([1, 1, 2], 1, 2),
    ([0, 2 ** 100 - 1, 2 ** 100, 2 ** 200], 100, 2),
])
def test_value_too_wide_for_bits(vals, bits, idx):
    with pytest.raises(OverflowError, match=rf"element {idx}\b"):
        clbig.array(vals, bits=bits)


@pytest.mark.parametrize("bad", [1.0, 2.5, "7", None, b"1", [1], 1j])
@pytest.mark.parametrize("idx", [0, 3])
def test_non_integer_value(bad, idx):
    vals = [1, 2, 3, 4, 5]
    vals[idx] = bad
    with pytest.raises(TypeError, match=rf"element {idx}\b"):
        clbig.array(vals)


def test_first_bad_element_is_named():
    with pytest.raises(ValueError, match=r"element 2\b"):
        clbig.array([0, 1, -2, -3])
    with pytest.raises(TypeError, match=r"element 1\b"):
        clbig.array([0, 1.5, "x"])


def test_negative_python_int_operand():
    a = clbig.array([1, 2, 3])
    with pytest.raises(ValueError, match=r"element 0\b"):
        a + (-1)
    with pytest.raises(ValueError, match=r"element 0\b"):
        (-1) + a
    with pytest.raises(ValueError, match=r"element 0\b"):
        a - (-1)
    with pytest.raises(ValueError, match=r"element 0\b"):
        a < -1


def test_float_operand_refused():
    a = clbig.array([1, 2, 3])
    with pytest.raises(TypeError):
        a + 1.0
    with pytest.raises(TypeError):
        a * 2.0


# -- subtraction below zero ---------------------------------------------------------------------
@pytest.mark.parametrize("bits", [32, 96, 1056])
def test_sub_negative_names_first_index(bits):
    xs = [5, mask(bits), 2 ** (bits - 1), 0, 7, 1]
    ys = [5, 1, 2 ** (bits - 1) + 1, 1, 7, 2]
    a, b = clbig.array(xs, bits=bits), clbig.array(ys, bits=bits)
    with pytest.raises(ValueError, match=r"index 2\b"):
        a - b
    with pytest.raises(ValueError, match=r"index 2\b"):
        clbig.sub(a, b)


def test_sub_negative_last_and_only_index():
    with pytest.raises(ValueError, match=r"index 0\b"):
        clbig.array([0]) - clbig.array([1])
    xs = [3] * 20 + [0]
    with pytest.raises(ValueError, match=r"index 20\b"):
        clbig.array(xs) - clbig.array([1] * 21)


def test_sub_negative_wider_subtrahend():
    """b > a because of a high limb a does not even have."""
    a = clbig.array([9, 9, 9], bits=32)
    b = clbig.array([1, 2 ** 1000, 3], bits=2048)
    with pytest.raises(ValueError, match=r"index 1\b"):
        a - b


def test_sub_negative_broadcast():
    a = clbig.array([10, 11, 12, 9, 10], bits=64)
    with pytest.raises(ValueError, match=r"index 3\b"):
        a - 10
    with pytest.raises(ValueError, match=r"index 3\b"):
        a - clbig.array([10], bits=64)
    with pytest.raises(ValueError, match=r"index 1\b"):
        10 - a
    with pytest.raises(ValueError, match=r"index 2\b"):
        clbig.array([11], bits=64) - a


def test_sub_negative_small_workgroups(small_ctx):
    bits = 2 ** 14
    xs = [mask(bits), 1 << (bits - 1), 1 << 5000, 1 << 4096]
    ys = [1, 1, (1 << 5000) + 1, 1]
    with pytest.raises(ValueError, match=r"index 2\b"):
        clbig.array(xs, bits=bits) - clbig.array(ys, bits=bits)


# -- shapes and contexts ------------------------------------------------------------------------
@pytest.mark.parametrize("op", ["add", "sub", "mul", "lt", "eq", "add_fixed", "sub_fixed", "mul_low",
                                "compare"])
def test_length_mismatch(op):
    a, b = clbig.array([5, 6, 7]), clbig.array([1, 2])
    f = {
        "add": lambda: a + b, "sub": lambda: a - b, "mul": lambda: a * b, "lt": lambda: a < b,
        "eq": lambda: a == b, "add_fixed": lambda: clbig.add_fixed(a, b),
        "sub_fixed": lambda: clbig.sub_fixed(a, b), "mul_low": lambda: clbig.mul_low(a, b),
        "compare": lambda: clbig.compare(a, b, "cmp"),
    }[op]
    with pytest.raises(ValueError, match=r"\b3\b.*\b2\b|\b2\b.*\b3\b"):
        f()


def test_two_contexts_refused(small_ctx_obj):
    a = clbig.array([1, 2, 3])
    with small_ctx_obj:
        b = clbig.array([1, 2, 3])
    for f in (lambda: a + b, lambda: b + a, lambda: a - b, lambda: a * b, lambda: a < b,
              lambda: a == b, lambda: clbig.add_fixed(a, b), lambda: clbig.compare(a, b, "cmp")):
        with pytest.raises(ValueError, match=r"(?i)context"):
            f()
    # ...even while the other context is current
    with small_ctx_obj:
        with pytest.raises(ValueError, match=r"(?i)context"):
            a + b


@pytest.mark.parametrize("k", [-1, -32, -(2 ** 70)])
def test_negative_shift(k):
    a = clbig.array([1, 2, 3], bits=64)
    with pytest.raises(ValueError, match=r"(?i)negative|shift"):
        a << k
    with pytest.raises(ValueError, match=r"(?i)negative|shift"):
        a >> k


def test_from_limbs_value_too_wide():
    limbs = np.zeros((4, 3), dtype=np.uint32)
    limbs[2, 2] = 1          # bit 64 of element 2
    with pytest.raises(OverflowError, match=r"element 2\b"):
        clbig.from_limbs(limbs, bits=64)
    limbs = np.zeros((3, 2), dtype=np.uint32)
    limbs[1, 1] = 0x100      # bit 40 of element 1
    with pytest.raises(OverflowError, match=r"element 1\b"):
        clbig.from_limbs(limbs, bits=40)
