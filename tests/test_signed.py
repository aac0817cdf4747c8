"""Signed values: every operator element by element against Python's own ints (issue 15).

Edges: 0, +-1, +-(2^k - 1), +-2^k at limb boundaries, mixed signs and sizes in one batch,
broadcasting and scalars on both sides, the four sign combinations of floor division (exact
multiples too), shifts of negatives by 0 / 1 / 31 / 32 / 33 / beyond the width, zeros marked
negative (-x of a zero), the multi-work-group path, and hypothesis properties."""
from __future__ import annotations

import math
import operator
import pickle

import numpy as np
import pytest
from hypothesis import given, strategies as st

import clbig
from conftest import BATCH, check_values, mask, rand_value

WIDTHS = [(64, 64), (96, 32), (32, 2048), (1056, 1056)]
BINARY = {
    "+": operator.add, "-": operator.sub, "*": operator.mul, "//": operator.floordiv,
    "%": operator.mod, "&": operator.and_, "|": operator.or_, "^": operator.xor,
}
COMPARE = {"lt": operator.lt, "le": operator.le, "gt": operator.gt, "ge": operator.ge,
           "eq": operator.eq, "ne": operator.ne}


def signed_edges(bits: int) -> list[int]:
    vals = {0, 1, mask(bits), 1 << (bits - 1)}
    for k in (31, 32, 33, 63, 64, 65, bits - 1):
        if 0 < k < bits:
            vals.update((1 << k, mask(k)))
    return sorted(vals | {-v for v in vals})


def signed_values(rng, bits: int, n: int = BATCH, nonzero: bool = False) -> list[int]:
    edges = signed_edges(bits)
    out = [rng.choice(edges) if rng.random() < 0.4 else rand_value(rng, bits) * rng.choice((1, -1))
           for _ in range(n)]
    return [v or 1 for v in out] if nonzero else out


def check_capacity(r, what):
    vals = r.tolist()
    assert all(abs(v) >> r.bits == 0 for v in vals), f"{what}: a result exceeds bits={r.bits}"
    return vals


@pytest.mark.parametrize("ba,bb", WIDTHS)
@pytest.mark.parametrize("op", list(BINARY))
def test_binary_operators(op, ba, bb, rng):
    f = BINARY[op]
    xs = signed_values(rng, ba)
    ys = signed_values(rng, bb, nonzero=op in ("//", "%"))
    xs[:4] = [0, -1, 1, -mask(ba)]
    a, b = clbig.array(xs, bits=ba), clbig.array(ys, bits=bb)
    got = check_capacity(f(a, b), f"a {op} b")
    check_values(got, [f(x, y) for x, y in zip(xs, ys)], f"a {op} b", (xs, ys))


@pytest.mark.parametrize("op", list(BINARY))
def test_scalars_and_reflected_forms(op, rng):
    f = BINARY[op]
    xs = signed_values(rng, 96, nonzero=True)
    a = clbig.array(xs, bits=96)
    for s in (-7, -1, 1, 3, -(2 ** 70), 2 ** 64 - 1):
        check_values(f(a, s).tolist(), [f(x, s) for x in xs], f"a {op} {s}", xs)
        check_values(f(s, a).tolist(), [f(s, x) for x in xs], f"{s} {op} a", xs)
    if op not in ("//", "%"):
        check_values(f(a, 0).tolist(), [f(x, 0) for x in xs], f"a {op} 0", xs)


@pytest.mark.parametrize("op", list(BINARY))
def test_broadcast_one_element(op, rng):
    f = BINARY[op]
    xs = signed_values(rng, 160, nonzero=True)
    a = clbig.array(xs, bits=160)
    for y in (-(2 ** 33) + 5, 12345):
        one = clbig.array([y], bits=64)
        check_values(f(a, one).tolist(), [f(x, y) for x in xs], f"a {op} [{y}]", xs)
        check_values(f(one, a).tolist(), [f(y, x) for x in xs], f"[{y}] {op} a", xs)


@pytest.mark.parametrize("ba,bb", [(64, 64), (96, 32)])
def test_comparisons(ba, bb, rng):
    xs = signed_values(rng, ba)
    ys = [x if i % 3 == 0 else -x if i % 3 == 1 else y
          for i, (x, y) in enumerate(zip(xs, signed_values(rng, bb)))]
    ys = [y if abs(y) < 2 ** bb else y >> (ba - bb) for y in ys]
    a, b = clbig.array(xs, bits=ba), clbig.array(ys, bits=bb)
    for which, f in COMPARE.items():
        assert clbig.compare(a, b, which).tolist() == [f(x, y) for x, y in zip(xs, ys)], which
    assert (a < b).tolist() == [x < y for x, y in zip(xs, ys)]
    assert (a >= -3).tolist() == [x >= -3 for x in xs]
    cmp = clbig.compare(a, b)
    assert cmp.dtype == np.int8
    assert cmp.tolist() == [(x > y) - (x < y) for x, y in zip(xs, ys)]


def test_unary_sign_bit_length(rng):
    xs = signed_values(rng, 1056) + [0, -1, 1]
    a = clbig.array(xs, bits=1056)
    assert (-a).tolist() == [-x for x in xs]
    assert (+a).tolist() == xs
    assert abs(a).tolist() == [abs(x) for x in xs]
    assert (~a).tolist() == [~x for x in xs]
    check_capacity(~a, "~a")
    s = a.sign()
    assert s.dtype == np.int8 and s.tolist() == [(x > 0) - (x < 0) for x in xs]
    bl = a.bit_length()
    assert bl.dtype == np.int64 and bl.tolist() == [x.bit_length() for x in xs]


def test_negative_zero_reads_as_zero():
    """-x of a zero marks it negative without a pass over the limbs: it is 0 to everything."""
    z = -clbig.array([0, 5, 0], bits=64)
    assert z.tolist() == [0, -5, 0]
    assert z.sign().tolist() == [0, -1, 0]
    assert (z == 0).tolist() == [True, False, True]
    assert clbig.compare(z, clbig.array([0, -5, 0])).tolist() == [0, 0, 0]
    assert (z < 0).tolist() == [False, True, False]
    assert (~z).tolist() == [-1, 4, -1]
    assert (z & -1).tolist() == [0, -5, 0]
    assert (z | 6).tolist() == [6, -1, 6]
    assert (z >> 3).tolist() == [0, -1, 0]
    assert (z + 0).tolist() == [0, -5, 0]
    assert (z[::2]).to_limbs().tolist() == [[0, 0], [0, 0]]   # no negative value: no error
    assert clbig.isqrt(z[0:1]).tolist() == [0]
    assert (z * 3).tolist() == [0, -15, 0]
    assert divmod(z, 3)[0].tolist() == [0, -2, 0] and divmod(z, 3)[1].tolist() == [0, 1, 0]


@pytest.mark.parametrize("bits", [64, 1056])
def test_floor_division_sign_cases(bits):
    xs, ys = [], []
    for x in (7, 6, 1, 0, 2 ** (bits - 1) + 3, mask(bits)):
        for y in (2, 3, 7, 1, mask(bits), 2 ** (bits - 1)):
            for sx in (1, -1):
                for sy in (1, -1):
                    xs.append(sx * x)
                    ys.append(sy * y)
    a, b = clbig.array(xs, bits=bits), clbig.array(ys, bits=bits)
    q, r = divmod(a, b)
    check_values(q.tolist(), [x // y for x, y in zip(xs, ys)], "a // b", (xs, ys))
    check_values(r.tolist(), [x % y for x, y in zip(xs, ys)], "a % b", (xs, ys))
    check_capacity(q, "q")
    check_capacity(r, "r")
    assert clbig.divmod(-7, 2) == (-4, 1) and clbig.divmod(7, -2) == (-4, -1)
    with pytest.raises(ZeroDivisionError, match=r"\b1\b"):
        divmod(a[:3], clbig.array([3, 0, -2]))


@pytest.mark.parametrize("bits", [1, 32, 33, 100])
def test_shifts_of_negatives(bits):
    vals = sorted({1, mask(bits), 1 << (bits - 1), mask(bits) ^ 1 if bits > 1 else 1})
    xs = [-v for v in vals] + vals + [0]
    a = clbig.array(xs, bits=bits)
    for k in (0, 1, 31, 32, 33, bits, bits + 5, 200):
        r = a >> k
        check_values(check_capacity(r, f">> {k}"), [x >> k for x in xs], f"a >> {k}", xs)
        r = a << k
        check_values(check_capacity(r, f"<< {k}"), [x << k for x in xs], f"a << {k}", xs)


def test_bitwise_identities(rng):
    xs = signed_values(rng, 96)
    ys = signed_values(rng, 96)
    a, b = clbig.array(xs, bits=96), clbig.array(ys, bits=96)
    assert (~a).tolist() == (-a - 1).tolist()
    assert (~(a & b)).tolist() == ((~a) | (~b)).tolist()          # De Morgan
    assert (~(a | b)).tolist() == ((~a) & (~b)).tolist()
    assert ((a ^ b) ^ b).tolist() == xs
    assert (a & -(2 ** 96)).tolist() == [x & -(2 ** 96) for x in xs]   # -2^96 reads 1...10...0


def test_bitwise_capacities():
    m = mask(64)
    a = clbig.array([m, -m, -m, 5], bits=64)
    b = clbig.array([m, -2, -m, -m], bits=64)
    for f in (operator.and_, operator.or_, operator.xor):
        r = f(a, b)
        check_values(check_capacity(r, f.__name__), [f(x, y) for x, y in zip(a.tolist(), b.tolist())],
                     f.__name__, None)
    assert (a & b).tolist()[1] == -(2 ** 64)          # needs the one extra bit
    assert (clbig.array([m]) & clbig.array([3])).bits == 64


@pytest.mark.parametrize("k", [0, 1, 2, 3, 5, 8])
def test_power(k, rng):
    xs = signed_values(rng, 96, n=7) + [0, -1, 1]
    a = clbig.array(xs, bits=96)
    r = a ** k
    check_values(r.tolist(), [x ** k for x in xs], f"a ** {k}", xs)
    assert r.bits == (96 * k if k else 1)
    check_capacity(r, f"** {k}")


def test_power_errors_and_modular_pow():
    a = clbig.array([2, 3])
    with pytest.raises(ValueError, match="negative exponent"):
        a ** -1
    with pytest.raises(TypeError, match="integer"):
        a ** 1.5


@pytest.mark.parametrize("bits", [32, 100, 1056])
def test_isqrt(bits, rng):
    xs = [0, 1, 2, 3, 4, 8, 9, 15, 16, mask(bits), 1 << (bits - 1)] + \
         [rand_value(rng, bits) for _ in range(10)]
    xs += [math.isqrt(mask(bits)) ** 2, math.isqrt(mask(bits)) ** 2 - 1]
    r = clbig.isqrt(clbig.array(xs, bits=bits))
    check_values(r.tolist(), [math.isqrt(x) for x in xs], "isqrt", xs)
    assert r.bits == -(-bits // 2)
    with pytest.raises(ValueError, match=r"element 2\b"):
        clbig.isqrt(clbig.array([4, 0, -9, -1]))


def test_mixed_signs_and_sizes_in_one_batch(rng):
    xs = [0, -1, 1, mask(2000), -mask(2000), -(1 << 1000), 1 << 999, -3, 2 ** 32, -(2 ** 32 - 1)]
    ys = [-(1 << 1000), mask(2000), -mask(2000), 1, -1, -(1 << 1000), -(1 << 999), 3, -(2 ** 32), 7]
    a, b = clbig.array(xs), clbig.array(ys)
    for op, f in BINARY.items():
        check_values(f(a, b).tolist(), [f(x, y) for x, y in zip(xs, ys)], f"a {op} b", (xs, ys))


@pytest.mark.parametrize("bits", [1024, 4128])
def test_multi_group_signed_add_sub(small_ctx, bits, rng):
    xs = signed_values(rng, bits, n=5)
    ys = [-x for x in xs[:2]] + signed_values(rng, bits - 40, n=3)
    a, b = clbig.array(xs, bits=bits), clbig.array(ys, bits=bits)
    for f in (operator.add, operator.sub, operator.xor, operator.and_):
        check_values(f(a, b).tolist(), [f(x, y) for x, y in zip(xs, ys)], f.__name__, (xs, ys))


def test_sub_negative_where_b_greater():
    a = clbig.array([5, 3, 0, 2 ** 64], bits=65)
    b = clbig.array([3, 5, 2 ** 64, 0], bits=65)
    r = a - b
    assert r.tolist() == [2, -2, -(2 ** 64), 2 ** 64]
    assert r.bits == 65
    assert (a - a).tolist() == [0, 0, 0, 0] and (a - a).neg is None


def test_limbs_and_signs():
    a = clbig.array([5, -(2 ** 40), 0], bits=64)
    with pytest.raises(ValueError, match=r"element 1\b"):
        a.to_limbs()
    mags = a.to_limbs(magnitude=True)
    assert mags.tolist() == [[5, 0], [0, 256], [0, 0]]
    back = clbig.from_limbs(mags, sign=a.sign())
    assert back.tolist() == a.tolist()
    assert clbig.from_limbs(mags, sign=[-1, -1, -1]).tolist() == [-5, -(2 ** 40), 0]
    with pytest.raises(TypeError, match="sign"):
        clbig.from_limbs(mags, sign=[True, False, False])
    assert clbig.from_limbs(mags).tolist() == [5, 2 ** 40, 0]
    assert pickle.loads(pickle.dumps(a)).tolist() == a.tolist()
    assert a[1:3].tolist() == [-(2 ** 40), 0] and a[::2].tolist() == [5, 0] and a[-2] == -(2 ** 40)


def test_unsigned_calls_refuse_negatives():
    a = clbig.array([1, -2, 3])
    for call in (lambda: clbig.add_fixed(a, 1), lambda: clbig.sub_fixed(1, a),
                 lambda: clbig.mul_low(a, a), lambda: clbig.add_fixed([1, 2, -3], 1),
                 lambda: clbig.fused.six_add(a, 1), lambda: clbig.mpz.ops.add_low(a, 1)):
        with pytest.raises(ValueError, match=r"element (1|2)\b"):
            call()
    assert clbig.add_fixed(-clbig.array([0, 1]) + 1, 1)[0].tolist() == [2, 1]   # -0 + 1 fine


def test_large_signed_values_through_digits(rng):
    """2^14-bit values take the radix path up and down (clbig/radix.py)."""
    xs = [rand_value(rng, 2 ** 14) * (-1) ** i for i in range(5)]
    a = clbig.array(xs)
    assert a.tolist() == xs
    assert (a - a[::-1]).tolist() == [x - y for x, y in zip(xs, xs[::-1])]


@st.composite
def signed_operands(draw):
    ba, bb = draw(st.sampled_from([(64, 64), (96, 32)]))
    val = lambda b: st.one_of(st.integers(-mask(b), mask(b)),
                              st.sampled_from([0, 1, -1, mask(b), -mask(b), 1 << (b - 1), -(1 << (b - 1))]))
    xs = draw(st.lists(val(ba), min_size=6, max_size=6))
    ys = draw(st.lists(val(bb), min_size=6, max_size=6))
    return ba, bb, xs, ys


@given(signed_operands(), st.sampled_from(list(BINARY)))
def test_property_binary(ops, op):
    ba, bb, xs, ys = ops
    if op in ("//", "%"):
        ys = [y or 1 for y in ys]
    f = BINARY[op]
    a, b = clbig.array(xs, bits=ba), clbig.array(ys, bits=bb)
    check_values(check_capacity(f(a, b), op), [f(x, y) for x, y in zip(xs, ys)], op, (xs, ys))


@given(signed_operands(), st.sampled_from([0, 1, 31, 32, 33, 70]))
def test_property_unary_and_shifts(ops, k):
    ba, _, xs, _ = ops
    a = clbig.array(xs, bits=ba)
    assert (a >> k).tolist() == [x >> k for x in xs]
    assert (~a).tolist() == [~x for x in xs]
    assert ((-a) + a).tolist() == [0] * len(xs)
    assert clbig.compare(a, -a).tolist() == [(x > -x) - (x < -x) for x in xs]


def test_modular_calls_take_negative_bases_as_python(rng):
    """pow(-2, 3, 5) == 2, (a * b) % m, math.gcd and pow(a, -1, m) with negative a or b: the
    base is reduced mod m first (floor), gcd takes magnitudes; a negative modulus or exponent
    is refused naming the element."""
    import math
    m = [5, 11, 13, 2 ** 61 - 1, 2 ** 64, 97]
    a = [-2, 7, -9, -(2 ** 100 + 3), -(2 ** 64 - 1), 0]
    e = [3, 2, 5, 2 ** 61 - 2, 3, 1]
    assert clbig.powmod(a, e, m).tolist() == [pow(x, y, z) for x, y, z in zip(a, e, m)]
    assert clbig.powmod(-2, 3, 5) == 2
    b = [rng.getrandbits(70) * rng.choice([-1, 1]) for _ in m]
    assert clbig.mulmod(a, b, m).tolist() == [x * y % z for x, y, z in zip(a, b, m)]
    g1 = [-4, 6, -9, 0, -(2 ** 80), 2 ** 90 * 3]
    g2 = [6, -4, 0, -5, -(2 ** 40) * 5, -(2 ** 91)]
    assert clbig.gcd(g1, g2).tolist() == [math.gcd(x, y) for x, y in zip(g1, g2)]
    inv_a = [-3, 3, -(2 ** 70 + 1), -1]
    inv_m = [7, 7, 2 ** 61 - 1, 10]
    assert clbig.invert(inv_a, inv_m).tolist() == [pow(x, -1, z) for x, z in zip(inv_a, inv_m)]
    with pytest.raises(ValueError, match="index 1"):
        clbig.invert([3, 3], [7, -7])
    # Python's pow: a negative exponent through the inverse, a negative modulus to (m, 0]
    assert clbig.powmod([3, 3], [1, -1], [7, 7]).tolist() == [pow(3, 1, 7), pow(3, -1, 7)]
    assert clbig.powmod([3], [1], [-7]).tolist() == [pow(3, 1, -7)]
    with pytest.raises(ValueError, match="index 1"):
        clbig.powmod([3, 3], [1, -1], [7, 9])


# -- the one-launch signed &, |, ^ and >> (issue 15's speed point) --------------------------
FUSED_WIDTHS = [(1, 1), (32, 32), (64, 64), (96, 32), (100, 1000), (255, 255), (1056, 1056)]


def fused_values(rng, bits: int, n: int) -> list[int]:
    """Signed edges first (all-ones limbs, +-2^k, +-(2^k - 1), 0, +-1), then random values."""
    edges = signed_edges(bits)
    vals = edges + [rand_value(rng, bits) * rng.choice((1, -1)) for _ in range(max(n - len(edges), 0))]
    rng.shuffle(vals)
    return vals[:n] if n >= len(edges) else vals


def launches(f):
    with clbig.profile() as p:
        r = f()
    return r, p.kernels


@pytest.mark.parametrize("ba,bb", FUSED_WIDTHS)
def test_fused_bitwise_one_launch(ba, bb, rng):
    """Mixed signs and widths, edges, zeros marked negative on both sides: one launch each."""
    xs = fused_values(rng, ba, 40)
    ys = fused_values(rng, bb, len(xs))[::-1]
    a = clbig.array(xs, bits=ba)
    b = clbig.array(ys, bits=bb)
    # zeros marked negative ("-0") at every third place: 0 to every reader
    xs0 = [0 if i % 3 == 0 else x for i, x in enumerate(xs)]
    mags = clbig.array([abs(x) for x in xs0], bits=ba).to_limbs()
    a0 = clbig.from_limbs(mags, bits=ba, sign=[-1 if i % 3 == 0 or x < 0 else 1 for i, x in enumerate(xs0)])
    assert a0.neg[::3].all() and a0.tolist() == xs0
    for op in ("&", "|", "^"):
        f = BINARY[op]
        for x_list, arr, y_list, brr, what in ((xs, a, ys, b, "a OP b"), (ys, b, xs, a, "b OP a"),
                                              (xs0, a0, ys, b, "-0 marks")):
            r, k = launches(lambda: f(arr, brr))
            assert k == 1, f"{what} {op}: {k} launches"
            check_values(check_capacity(r, f"{what} {op}"), [f(x, y) for x, y in zip(x_list, y_list)],
                         f"{what} {op}", (x_list, y_list))
            assert r.neg is None or not (r.neg & (np.asarray(r.tolist()) == 0)).any(), "a 0 marked"


@pytest.mark.parametrize("op", ["&", "|", "^"])
def test_fused_bitwise_broadcasts_and_capacities(op, rng):
    f = BINARY[op]
    xs = fused_values(rng, 96, BATCH)
    a = clbig.array(xs, bits=96)
    for y in (0, -1, 1, -(2 ** 64), 2 ** 64 - 1, -(2 ** 32 - 1), -(2 ** 200)):
        one = clbig.array([y])
        for r, want, what in ((launches(lambda: f(a, one)), [f(x, y) for x in xs], f"a {op} [{y}]"),
                              (launches(lambda: f(one, a)), [f(y, x) for x in xs], f"[{y}] {op} a")):
            assert r[1] == 1, f"{what}: {r[1]} launches"
            check_values(check_capacity(r[0], what), want, what, (xs,))
        check_values(f(a, y).tolist(), [f(x, y) for x in xs], f"a {op} {y}", (xs,))   # scalars,
        check_values(f(y, a).tolist(), [f(y, x) for x in xs], f"{y} {op} a", (xs,))   # reflected
    one = clbig.array([-5])
    check_values(f(one, one).tolist(), [f(-5, -5)], f"[-5] {op} [-5]")
    # capacity: one bit more exactly where the marks allow a negative result
    pos, neg = clbig.array([7, 2 ** 64 - 1], bits=64), clbig.array([-7, 3], bits=64)
    assert f(pos, pos).bits == 64
    assert f(neg, pos).bits == (64 if op == "&" else 65)
    assert f(neg, neg).bits == 65
    assert (neg & pos).neg is None                   # & of a non-negative: no sign read


@pytest.mark.parametrize("bits", [1, 32, 33, 64, 65, 96, 100, 256, 1056])
def test_fused_shift_right_of_negatives(bits, rng):
    edges = signed_edges(bits)
    xs = edges + [rand_value(rng, bits) * rng.choice((1, -1)) for _ in range(9)]
    a = clbig.array(xs, bits=bits)
    for k in (0, 1, 2, 31, 32, 33, 63, 64, 65, bits - 1, bits, bits + 1, bits + 40, 300):
        r, n = launches(lambda: a >> k)
        assert n == 1, f">> {k}: {n} launches"
        check_values(check_capacity(r, f">> {k}"), [x >> k for x in xs], f"a >> {k}", (xs,))
        assert r.bits == max(bits - k, 0) + 1
    z = -clbig.array([0, 0, 1, mask(bits)], bits=bits)        # -0 marks
    for k in (0, 1, 33, bits + 3):
        r, n = launches(lambda: z >> k)
        assert n == 1
        assert r.tolist() == [0, 0, -1 >> k, -mask(bits) >> k]
        assert r.sign().tolist()[:2] == [0, 0] and not (r < 0).tolist()[0]


def test_unsigned_rows_keep_their_one_map():
    """No negative value (neg None, or all false): today's unsigned kernels, no zero test."""
    a = clbig.array([5, 2 ** 64 - 1, 0], bits=64)
    b = clbig.from_limbs(a.to_limbs(), sign=[1, 1, 0])
    for x in (a, b):
        for f in (operator.and_, operator.or_, operator.xor):
            r, n = launches(lambda: f(x, a))
            assert n == 1 and r.bits == 64 and r.neg is None
        r, n = launches(lambda: x >> 3)
        assert n == 1 and r.bits == 61 and r.tolist() == [0, 2 ** 61 - 1, 0]


@pytest.mark.parametrize("bits,fused", [(992, True), (4128, False)])
def test_fused_and_fallback_paths_small_groups(small_ctx, bits, fused, rng):
    """A context of 8-item work-groups: 992-bit instances fit one group (the fused kernels over
    several work-items each), 4128-bit ones do not (the multi-pass path)."""
    xs = fused_values(rng, bits, 9)
    ys = fused_values(rng, bits - 40, 9)[::-1]
    a, b = clbig.array(xs, bits=bits), clbig.array(ys, bits=bits - 40)
    z = -clbig.array([0, 7], bits=bits)
    for op in ("&", "|", "^"):
        f = BINARY[op]
        r, n = launches(lambda: f(a, b))
        assert (n == 1) == fused, f"{op}: {n} launches"
        check_values(check_capacity(r, op), [f(x, y) for x, y in zip(xs, ys)], op, (xs, ys))
        assert r.bits == bits + 1                      # the same capacity on either path
        r = f(z, b[:2])
        check_values(r.tolist(), [f(0, ys[0]), f(-7, ys[1])], f"-0 {op}", (ys[:2],))
    for k in (0, 1, 32, 33, 65, bits - 1, bits + 2):
        r, n = launches(lambda: a >> k)
        assert (n == 1) == fused, f">> {k}: {n} launches"
        check_values(check_capacity(r, f">> {k}"), [x >> k for x in xs], f"a >> {k}", (xs,))
        assert r.bits == max(bits - k, 0) + 1
        assert (z >> k).tolist() == [0, -7 >> k]


def test_unary_operators_on_an_empty_batch():
    """~, -, abs and the shifts of an empty array give an empty array (~ raised from its
    control pass, which has nothing to launch)."""
    e = clbig.array([])
    for f in (lambda a: ~a, lambda a: -a, abs, lambda a: a >> 3, lambda a: a << 3, lambda a: ~(~a)):
        got = f(e)
        assert isinstance(got, clbig.BigIntArray) and got.tolist() == [] and len(got) == 0
