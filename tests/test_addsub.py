"""Addition and subtraction (exact and fixed width) against gmpy2."""
import gmpy2
import pytest

import clbig
from conftest import (BATCH, LARGE_ADD_BITS, POW2_ADD, SMALL_CTX_BITS, WIDTH_PAIRS, add_pairs,
                      check_bools, check_values, mask, rand_value, sub_pairs)


def run_add(pairs, ba, bb, what):
    xs, ys = [p[0] for p in pairs], [p[1] for p in pairs]
    a, b = clbig.array(xs, bits=ba), clbig.array(ys, bits=bb)
    r = a + b
    assert r.bits == max(ba, bb) + 1, f"{what}: capacity of a+b"
    assert len(r) == len(pairs)
    check_values(r.tolist(), [gmpy2.mpz(x) + y for x, y in pairs], what, (xs, ys))
    r2 = clbig.add(a, b)
    check_values(r2.tolist(), [gmpy2.mpz(x) + y for x, y in pairs], what + " (clbig.add)", (xs, ys))
    check_values(a.tolist(), xs, what + ": operand a modified")
    check_values(b.tolist(), ys, what + ": operand b modified")


def run_sub(pairs, ba, bb, what):
    xs, ys = [p[0] for p in pairs], [p[1] for p in pairs]
    a, b = clbig.array(xs, bits=ba), clbig.array(ys, bits=bb)
    r = a - b
    assert r.bits >= max(x.bit_length() for x in xs), f"{what}: capacity of a-b"
    check_values(r.tolist(), [gmpy2.mpz(x) - y for x, y in pairs], what, (xs, ys))
    check_values(clbig.sub(a, b).tolist(), [gmpy2.mpz(x) - y for x, y in pairs],
                 what + " (clbig.sub)", (xs, ys))
    check_values(a.tolist(), xs, what + ": operand a modified")
    check_values(b.tolist(), ys, what + ": operand b modified")


def run_fixed(pairs, ba, bb, what, bits=None):
    """add_fixed / sub_fixed: results mod 2**bits, carry / borrow out of bit `bits`."""
    xs, ys = [p[0] for p in pairs], [p[1] for p in pairs]
    a, b = clbig.array(xs, bits=ba), clbig.array(ys, bits=bb)
    w = max(ba, bb) if bits is None else bits
    r, carry = clbig.add_fixed(a, b) if bits is None else clbig.add_fixed(a, b, bits=bits)
    assert r.bits == w
    full = [gmpy2.mpz(x) + y for x, y in pairs]
    check_values(r.tolist(), [s & mask(w) for s in full], what + " add_fixed", (xs, ys))
    if w >= max(ba, bb):
        check_bools(carry, [s >> w != 0 for s in full], what + " add_fixed carry")
    d, borrow = clbig.sub_fixed(a, b) if bits is None else clbig.sub_fixed(a, b, bits=bits)
    assert d.bits == w
    check_values(d.tolist(), [(gmpy2.mpz(x) - y) & mask(w) for x, y in pairs], what + " sub_fixed", (xs, ys))
    if w >= max(ba, bb):
        check_bools(borrow, [x < y for x, y in pairs], what + " sub_fixed borrow")


# -- every power of two 2^6 .. 2^18 bits -------------------------------------------------------
@pytest.mark.parametrize("bits", POW2_ADD)
def test_add_pow2(rng, bits):
    run_add(add_pairs(rng, bits, bits), bits, bits, f"add {bits} bits")


@pytest.mark.parametrize("bits", POW2_ADD)
def test_sub_pow2(rng, bits):
    run_sub(sub_pairs(rng, bits, bits), bits, bits, f"sub {bits} bits")


@pytest.mark.parametrize("bits", POW2_ADD)
def test_fixed_pow2(rng, bits):
    run_fixed(add_pairs(rng, bits, bits), bits, bits, f"{bits} bits")


# -- unequal operand widths, one limb, odd limb counts, non-limb-multiple widths ---------------
@pytest.mark.parametrize("ba,bb", WIDTH_PAIRS)
def test_add_widths(rng, ba, bb):
    run_add(add_pairs(rng, ba, bb), ba, bb, f"add {ba}+{bb} bits")


@pytest.mark.parametrize("ba,bb", WIDTH_PAIRS)
def test_sub_widths(rng, ba, bb):
    run_sub(sub_pairs(rng, ba, bb), ba, bb, f"sub {ba}-{bb} bits")


@pytest.mark.parametrize("ba,bb", WIDTH_PAIRS)
def test_fixed_widths(rng, ba, bb):
    run_fixed(add_pairs(rng, ba, bb), ba, bb, f"{ba},{bb} bits")


def test_sub_wider_subtrahend_with_small_value(rng):
    """b has more limbs than a but a smaller value: exact, no spurious borrow."""
    xs = [mask(32), 5, 2 ** 31, 0]
    ys = [1, 5, 2 ** 31 - 1, 0]
    a, b = clbig.array(xs, bits=32), clbig.array(ys, bits=2048)
    check_values((a - b).tolist(), [x - y for x, y in zip(xs, ys)], "sub 32 - 2048 bits")
    d, borrow = clbig.sub_fixed(a, b)
    check_bools(borrow, [False] * 4, "borrow")


@pytest.mark.parametrize("bits", [1, 33, 100, 2048 + 7])
def test_fixed_explicit_bits(rng, bits):
    """Explicit widths: narrower than, equal to and wider than the operands."""
    run_fixed(add_pairs(rng, 96, 64), 96, 64, f"96,64 -> {bits} bits", bits=bits)


def test_fixed_carry_chain_exact_width():
    xs = [mask(100), mask(100), 2 ** 99, 0, mask(64)]
    ys = [1, mask(100), 2 ** 99, 0, 1]
    run_fixed(list(zip(xs, ys)), 100, 100, "fixed carry 100 bits")


# -- batch lengths -------------------------------------------------------------------------------
@pytest.mark.parametrize("n", [1, 7, 1000])
def test_batch_lengths(rng, n):
    bits = 160
    run_add(add_pairs(rng, bits, bits, n), bits, bits, f"add n={n}")
    run_sub(sub_pairs(rng, bits, bits, n), bits, bits, f"sub n={n}")
    run_fixed(add_pairs(rng, bits, bits, n), bits, bits, f"n={n}")


# -- broadcasting ----------------------------------------------------------------------------
@pytest.mark.parametrize("bits", [96, 1056])
def test_broadcast_length_one(rng, bits):
    xs = [rand_value(rng, bits) for _ in range(BATCH)] + [mask(bits), 0]
    one = mask(bits)
    a, b = clbig.array(xs, bits=bits), clbig.array([one], bits=bits)
    check_values((a + b).tolist(), [gmpy2.mpz(x) + one for x in xs], "a + [c]")
    check_values((b + a).tolist(), [gmpy2.mpz(x) + one for x in xs], "[c] + a")
    assert (a + b).bits == bits + 1 and (b + a).bits == bits + 1
    check_values((b - a).tolist(), [one - gmpy2.mpz(x) for x in xs], "[c] - a")
    small = clbig.array([1], bits=bits)
    ys = [x if x >= 1 else 1 for x in xs]
    check_values((clbig.array(ys, bits=bits) - small).tolist(), [y - 1 for y in ys], "a - [1]")
    s, c = clbig.add_fixed(a, b)
    check_values(s.tolist(), [(x + one) & mask(bits) for x in xs], "add_fixed(a, [c])")
    check_bools(c, [x + one >> bits != 0 for x in xs], "add_fixed(a, [c]) carry")
    d, br = clbig.sub_fixed(small, a)
    check_values(d.tolist(), [(1 - x) & mask(bits) for x in xs], "sub_fixed([1], a)")
    check_bools(br, [x > 1 for x in xs], "sub_fixed([1], a) borrow")
    # length 1 with length 1
    check_values((b + small).tolist(), [one + 1], "[c] + [1]")


@pytest.mark.parametrize("k", [1, 12345, 2 ** 64 - 1, 2 ** 200 + 3])
def test_broadcast_python_int(rng, k):
    bits = 96
    xs = [rand_value(rng, bits) for _ in range(BATCH)] + [mask(bits), 0]
    a = clbig.array(xs, bits=bits)
    check_values((a + k).tolist(), [gmpy2.mpz(x) + k for x in xs], f"a + {k}")
    check_values((k + a).tolist(), [gmpy2.mpz(x) + k for x in xs], f"{k} + a")
    check_values(clbig.add(a, k).tolist(), [gmpy2.mpz(x) + k for x in xs], f"add(a, {k})")
    big = clbig.array([x + k for x in xs])
    check_values((big - k).tolist(), xs, f"(a + {k}) - {k}")
    top = max(xs) + k
    check_values((top - a).tolist(), [top - x for x in xs], f"{top} - a")
    check_values(clbig.sub(top, a).tolist(), [top - x for x in xs], "sub(int, a)")


# -- multi-work-group paths (work-group size capped) ---------------------------------------------
@pytest.mark.parametrize("bits", SMALL_CTX_BITS)
def test_small_workgroups(small_ctx, rng, bits):
    run_add(add_pairs(rng, bits, bits, 9), bits, bits, f"add {bits} bits, wg<=8")
    run_sub(sub_pairs(rng, bits, bits, 9), bits, bits, f"sub {bits} bits, wg<=8")
    run_fixed(add_pairs(rng, bits, bits, 9), bits, bits, f"{bits} bits, wg<=8")


def test_small_workgroups_carry_across_blocks(small_ctx):
    """A carry / borrow that ripples through every block of a multi-group instance."""
    bits = 2 ** 14
    pairs = [(mask(bits), 1), (mask(bits) ^ 1, 1), (mask(bits - 40) << 20, 1 << 20),
             (1 << (bits - 1), 1 << (bits - 1)), (mask(bits), mask(bits)), (0, 0), (mask(4096), 1),
             (1 << 4096, 1), (1 << 8192, 0)]
    run_add(pairs, bits, bits, "carry across blocks")
    run_sub([(max(x, y), min(x, y)) for x, y in pairs], bits, bits, "borrow across blocks")
    run_sub([(1 << (bits - 1), 1), (1 << 4096, 1), (1 << 4097, mask(4097)), (mask(bits), mask(bits)),
             (1 << 128, 1), (1 << 127, 1), (1 << 129, 1), (0, 0), (1, 1)], bits, bits, "borrow chains")


def test_small_workgroups_broadcast(small_ctx, rng):
    bits = 4096
    xs = [rand_value(rng, bits) for _ in range(9)]
    a, one = clbig.array(xs, bits=bits), clbig.array([mask(bits)], bits=bits)
    check_values((a + one).tolist(), [x + mask(bits) for x in xs], "a + [max], wg<=8")
    check_values((one - a).tolist(), [mask(bits) - x for x in xs], "[max] - a, wg<=8")
    check_values((a + 1).tolist(), [x + 1 for x in xs], "a + 1, wg<=8")


# -- very large ----------------------------------------------------------------------------------
@pytest.mark.large
def test_add_sub_large(rng):
    bits = LARGE_ADD_BITS
    r = rand_value(rng, bits) | 1
    pairs = [(mask(bits), 1), (r, mask(bits) ^ r)]
    run_add(pairs, bits, bits, f"add {bits} bits")
    run_sub([(1 << (bits - 1), 1), (mask(bits), r)], bits, bits, f"sub {bits} bits")
    run_fixed([(mask(bits), 1), (r, r ^ 1)], bits, bits, f"{bits} bits")


# -- the CPUs' kernel: one work-item per instance (add_serial.cl.mako) --------------------------
@pytest.mark.parametrize("ba,bb,form", [
    (1, 1, "run-time"), (32, 32, "run-time"), (31, 5000, "run-time"), (5000, 31, "run-time"),
    (33, 64, "run-time"), (2048, 2048, "run-time"), (2 ** 14 + 5, 2 ** 14, "run-time"),
    (31, 5000, "built-in"), (33, 64, "built-in"), (2 ** 14 + 5, 2 ** 14, "built-in")])
def test_serial_kernel(monkeypatch, rng, ba, bb, form):
    """add_serial forced (the suite runs the scan kernels by default; CPUs take this one), with
    its widths at run time and built in (add_n.SERIAL_FIXED_LIMBS and _ROWS decide by batch size):
    unequal and odd widths, one limb, sums and differences, fixed widths narrower than, equal
    to and wider than the operands with their carries and borrows, batches of 0, 1 and odd
    lengths, both operands broadcast."""
    from clbig.mpn import add_n
    monkeypatch.setenv("CLBIG_ADD_SERIAL", "1")
    monkeypatch.setattr(add_n, "SERIAL_FIXED_LIMBS", 0 if form == "built-in" else 1 << 62)
    monkeypatch.setattr(add_n, "SERIAL_FIXED_ROWS", 0)
    ran = []
    real = add_n.kernel
    monkeypatch.setattr(add_n, "kernel", lambda ctx, t, *a, **k: ran.append(t) or real(ctx, t, *a, **k))
    what = f"serial {ba},{bb}"
    run_add(add_pairs(rng, ba, bb, 9), ba, bb, "add " + what)
    run_sub(sub_pairs(rng, ba, bb, 9), ba, bb, "sub " + what)
    run_fixed(add_pairs(rng, ba, bb, 9), ba, bb, what)
    for bits in (1, 33, max(ba, bb) - 1, max(ba, bb) + 40):
        if bits >= 1:
            run_fixed(add_pairs(rng, ba, bb, 3), ba, bb, f"{what} -> {bits}", bits=bits)
    for n in (0, 1):
        run_add(add_pairs(rng, ba, bb, n), ba, bb, f"add {what} n={n}")
    xs = [rand_value(rng, ba) for _ in range(5)] + [mask(ba), 0]
    one = mask(bb)
    a, b = clbig.array(xs, bits=ba), clbig.array([one], bits=bb)
    check_values((a + b).tolist(), [x + one for x in xs], what + " a + [c]")
    check_values((b - a).tolist(), [one - x for x in xs], what + " [c] - a")
    assert ran and set(ran) == {"add_serial.cl.mako"}, ran


def test_serial_default(monkeypatch):
    """CPUs take the serial kernels unless the setting says otherwise; GPUs for small batches
    only (add_n.GPU_SERIAL_*), the map-scan kernels otherwise; the setting wins everywhere."""
    from clbig.mpn import add_n
    ctx = clbig.Context()
    rows, limbs = add_n.GPU_SERIAL_ROWS, add_n.GPU_SERIAL_LIMBS
    monkeypatch.delenv("CLBIG_ADD_SERIAL", raising=False)   # conftest turns it off
    gpu = add_n.P.is_gpu(ctx)
    assert add_n.serial(ctx, rows + 1, 4) == (not gpu)
    monkeypatch.setattr(add_n.P, "is_gpu", lambda ctx: True)
    assert add_n.serial(ctx, rows, limbs) and add_n.serial(ctx, 1, 1)
    assert not add_n.serial(ctx, rows + 1, 1) and not add_n.serial(ctx, 1, limbs + 1)
    assert not add_n.serial(ctx)
    monkeypatch.setenv("CLBIG_ADD_SERIAL", "1")
    assert add_n.serial(ctx) and add_n.serial(ctx, 10 ** 6, 10 ** 4)
    monkeypatch.setenv("CLBIG_ADD_SERIAL", "0")
    monkeypatch.setattr(add_n.P, "is_gpu", lambda ctx: False)
    assert not add_n.serial(ctx) and not add_n.serial(ctx, 1, 1)