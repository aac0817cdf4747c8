"""Shifts a << k and a >> k: exact values and the documented capacities."""
import pytest

import clbig
from conftest import BATCH, check_values, edge_values, mask, rand_value

# Shift counts: 0, within a limb, exactly one limb, across limbs, many limbs.
SHIFTS = [0, 1, 31, 32, 33, 100, 1000]
SHIFT_BITS = [64, 100, 1056, 2 ** 14]


def values(rng, bits, n=BATCH):
    vals = edge_values(bits)[:n // 2]
    while len(vals) < n:
        vals.append(rand_value(rng, bits))
    rng.shuffle(vals)
    return vals


@pytest.mark.parametrize("bits", SHIFT_BITS)
@pytest.mark.parametrize("k", SHIFTS)
def test_shift_left(rng, bits, k):
    xs = values(rng, bits)
    a = clbig.array(xs, bits=bits)
    r = a << k
    assert r.bits == bits + k, f"capacity of a << {k}: {r.bits}, expected {bits + k}"
    check_values(r.tolist(), [x << k for x in xs], f"{bits}-bit a << {k}", (xs,))


@pytest.mark.parametrize("bits", SHIFT_BITS)
@pytest.mark.parametrize("k", SHIFTS)
def test_shift_right(rng, bits, k):
    xs = values(rng, bits)
    a = clbig.array(xs, bits=bits)
    r = a >> k
    assert r.bits == max(bits - k, 1), f"capacity of a >> {k}: {r.bits}, expected {max(bits - k, 1)}"
    check_values(r.tolist(), [x >> k for x in xs], f"{bits}-bit a >> {k}", (xs,))


@pytest.mark.parametrize("bits", [64, 1056])
def test_shift_right_by_width_and_more(rng, bits):
    xs = values(rng, bits)
    a = clbig.array(xs, bits=bits)
    for k in (bits - 1, bits, bits + 1, bits + 64):
        r = a >> k
        assert r.bits == max(bits - k, 1)
        check_values(r.tolist(), [x >> k for x in xs], f"{bits}-bit a >> {k}", (xs,))


def test_shift_roundtrip_and_batch_lengths(rng):
    for n in (1, 1000):
        xs = [rand_value(rng, 100) for _ in range(n)]
        a = clbig.array(xs, bits=100)
        check_values(((a << 33) >> 33).tolist(), xs, f"(a << 33) >> 33, n={n}")
        check_values((a >> 33).tolist(), [x >> 33 for x in xs], f"a >> 33, n={n}")


@pytest.mark.parametrize("k", [0, 37, 1000, 4096, 5000])
def test_shift_small_workgroups(small_ctx, rng, k):
    bits = 2 ** 14
    xs = values(rng, bits, 9)
    a = clbig.array(xs, bits=bits)
    left = a << k
    assert left.bits == bits + k
    check_values(left.tolist(), [x << k for x in xs], f"a << {k}, wg<=8", (xs,))
    right = a >> k
    assert right.bits == max(bits - k, 1)
    check_values(right.tolist(), [x >> k for x in xs], f"a >> {k}, wg<=8", (xs,))


def test_shift_feeds_arithmetic(rng):
    """Shift results are ordinary arrays: (a << k) + a == a * (2^k + 1)."""
    xs = [rand_value(rng, 96) for _ in range(BATCH)] + [mask(96)]
    a = clbig.array(xs, bits=96)
    check_values(((a << 40) + a).tolist(), [(x << 40) + x for x in xs], "(a << 40) + a")
    check_values(((a << 40) >> 40).tolist(), xs, "(a << 40) >> 40")
