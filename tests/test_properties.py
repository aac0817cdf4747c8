"""Hypothesis property tests. Operand widths come from a short list and the batch length is
fixed, so the examples reuse a handful of compiled kernels; values are drawn with a bias towards
carry and borrow chains. Example counts come from the profile loaded in conftest."""
import gmpy2
from hypothesis import given, strategies as st

import clbig
from conftest import check_values, mask

N = 6
WIDTHS = [(64, 64), (96, 32), (200, 200)]


def value(bits):
    """A value below 2**bits: uniform, a run of ones 2^j - 2^i, or an edge."""
    return st.one_of(
        st.integers(0, mask(bits)),
        st.tuples(st.integers(0, bits), st.integers(0, bits)).map(
            lambda ij: mask(max(ij)) ^ mask(min(ij))),
        st.sampled_from([0, 1, mask(bits), 1 << (bits - 1), mask(bits) ^ 1]),
    )


@st.composite
def operands(draw, widths=WIDTHS):
    ba, bb = draw(st.sampled_from(widths))
    xs = draw(st.lists(value(ba), min_size=N, max_size=N))
    ys = draw(st.lists(value(bb), min_size=N, max_size=N))
    return ba, bb, xs, ys


@given(operands())
def test_add_matches_gmpy2_and_commutes(ops):
    ba, bb, xs, ys = ops
    a, b = clbig.array(xs, bits=ba), clbig.array(ys, bits=bb)
    expect = [gmpy2.mpz(x) + y for x, y in zip(xs, ys)]
    check_values((a + b).tolist(), expect, "a + b", (xs, ys))
    check_values((b + a).tolist(), expect, "b + a", (ys, xs))


@given(operands())
def test_add_then_sub_is_identity(ops):
    ba, bb, xs, ys = ops
    a, b = clbig.array(xs, bits=ba), clbig.array(ys, bits=bb)
    s = a + b
    check_values((s - b).tolist(), xs, "(a + b) - b", (xs, ys))
    check_values((s - a).tolist(), ys, "(a + b) - a", (xs, ys))


@given(operands())
def test_fixed_add_sub_roundtrip(ops):
    ba, bb, xs, ys = ops
    w = max(ba, bb)
    a, b = clbig.array(xs, bits=ba), clbig.array(ys, bits=bb)
    s, carry = clbig.add_fixed(a, b)
    check_values(s.tolist(), [(x + y) & mask(w) for x, y in zip(xs, ys)], "add_fixed", (xs, ys))
    assert list(carry) == [(x + y) >> w == 1 for x, y in zip(xs, ys)]
    d, borrow = clbig.sub_fixed(s, b)
    check_values(d.tolist(), xs, "sub_fixed(add_fixed(a, b), b)", (xs, ys))
    assert list(borrow) == list(carry)


@given(operands())
def test_compare_matches_gmpy2_and_is_antisymmetric(ops):
    ba, bb, xs, ys = ops
    a, b = clbig.array(xs, bits=ba), clbig.array(ys, bits=bb)
    expect = [gmpy2.cmp(gmpy2.mpz(x), y) for x, y in zip(xs, ys)]
    assert list(clbig.compare(a, b, "cmp")) == expect
    assert list(clbig.compare(b, a, "cmp")) == [-c for c in expect]
    assert list(a < b) == [c < 0 for c in expect]
    assert list(a == b) == [c == 0 for c in expect]


@given(operands())
def test_mul_matches_gmpy2_and_commutes(ops):
    ba, bb, xs, ys = ops
    a, b = clbig.array(xs, bits=ba), clbig.array(ys, bits=bb)
    expect = [gmpy2.mpz(x) * y for x, y in zip(xs, ys)]
    check_values((a * b).tolist(), expect, "a * b", (xs, ys))
    check_values((b * a).tolist(), expect, "b * a", (ys, xs))
    w = max(ba, bb)
    check_values(clbig.mul_low(a, b).tolist(), [p & mask(w) for p in expect], "mul_low", (xs, ys))


@given(operands(widths=[(64, 64), (96, 32)]), st.data())
def test_mul_distributes_over_add(ops, data):
    ba, bb, xs, ys = ops
    zs = data.draw(st.lists(value(32), min_size=N, max_size=N))
    a, b, c = clbig.array(xs, bits=ba), clbig.array(ys, bits=bb), clbig.array(zs, bits=32)
    lhs = (a + b) * c
    expect = [(gmpy2.mpz(x) + y) * z for x, y, z in zip(xs, ys, zs)]
    check_values(lhs.tolist(), expect, "(a + b) * c", (xs, ys, zs))
    check_values((a * c + b * c).tolist(), expect, "a*c + b*c", (xs, ys, zs))


@given(operands(widths=[(200, 200)]), st.sampled_from([1, 32, 45]))
def test_shift_roundtrip(ops, k):
    ba, _, xs, _ = ops
    a = clbig.array(xs, bits=ba)
    check_values(((a << k) >> k).tolist(), xs, f"(a << {k}) >> {k}", (xs,))
    check_values((a >> k).tolist(), [x >> k for x in xs], f"a >> {k}", (xs,))
