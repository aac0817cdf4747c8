"""Modular products and powers (clbig.modular: powmod, mulmod, Modulus) against gmpy2.

Shapes reached: one work-item per instance (moduli up to 64 limbs), the cooperative shape (C
items of Q limbs: 65 limbs and up, or forced on small sizes with CLBIG_MONT_ONE=1), a work-group
cap of 8 items (small_ctx), and the composition from clbig.mul / clbig.mod for moduli that fit
no work-group. Even moduli take the CRT path (odd part and power of two).

These are the int32 kernel's tests (clbig.mont: CLBIG_MONT_FP64=0); the tests of everything
either kernel must do (marked KERNELS) run with the FP64 kernel (clbig.mont52) as well, whose
own edges are in test_mont52.py."""
import gmpy2
import numpy as np
import pyopencl as cl
import pytest

import clbig
from clbig.mpz import modular
from conftest import check_values, limb_pattern, mask, rand_value


KERNELS = pytest.mark.parametrize("kernel", ["int32", "fp64"])


@pytest.fixture(autouse=True)
def _mont_kernel(request, monkeypatch):
    fp64 = "kernel" in request.fixturenames and request.getfixturevalue("kernel") == "fp64"
    monkeypatch.setenv("CLBIG_MONT_FP64", "1" if fp64 else "0")


def odd_moduli(rng, bits, n):
    """Odd moduli of exactly `bits` bits mostly, with the awkward ones first: all ones (the
    conditional subtraction's edge: R - 1 when bits fill the limbs), 2^k + 1, small ones."""
    ms = [mask(bits), (1 << (bits - 1)) + 1, 1, 3, mask(bits) ^ 2, (1 << (bits - 1)) | 1]
    while len(ms) < n:
        ms.append(rand_value(rng, bits) | 1 | (1 << (bits - 1)) if rng.random() < 0.7
                  else rand_value(rng, bits) | 1)
    return ms[:n]


def bases(rng, ms, abits):
    """a = 0, 1, m - 1, m, m + 1 (where it fits), then random values of abits bits."""
    out = []
    for i, m in enumerate(ms):
        pick = [0, 1, m - 1, m, m + 1, mask(abits)][i % 6]
        out.append(pick if pick < (1 << abits) else rand_value(rng, abits))
    return [x if i % 3 else rand_value(rng, abits) for i, x in enumerate(out)]


def expect_pow(a, e, m, n):
    col = lambda v, i: v[i] if isinstance(v, list) and len(v) > 1 else (v[0] if isinstance(v, list) else v)
    return [int(gmpy2.powmod(col(a, i), col(e, i), col(m, i))) for i in range(n)]


@pytest.mark.parametrize("bits", [32, 96, 1024, 2080])
@KERNELS
def test_powmod_sizes(kernel, rng, bits):
    n = 9
    ms = odd_moduli(rng, bits, n)
    av = bases(rng, ms, bits)
    ev = [0, 1, 2, mask(64), rand_value(rng, 64), 1 << 63] + [rng.getrandbits(64) for _ in range(n - 6)]
    r = modular.powmod(clbig.array(av, bits=bits), clbig.array(ev, bits=64), clbig.array(ms, bits=bits))
    assert r.bits == bits and len(r) == n
    check_values(r.tolist(), expect_pow(av, ev, ms, n), f"powmod {bits} bits", (av, ev, ms))


@pytest.mark.parametrize("bits", [96, 1056, 2080])
@KERNELS
def test_mulmod_sizes(kernel, rng, bits):
    n = 9
    ms = odd_moduli(rng, bits, n)
    av, bv = bases(rng, ms, bits), [mask(bits)] + bases(rng, ms, bits)[1:]
    r = modular.mulmod(av, bv, ms)
    assert r.bits == bits
    check_values(r.tolist(), [x * y % m for x, y, m in zip(av, bv, ms)], f"mulmod {bits}", (av, bv, ms))


@KERNELS
def test_edges_small(kernel, rng):
    """m = 1, 2, 3, 2^k, 2^k +- 1, even; e = 0, 1, 2, all ones; a >= m, a = m - 1."""
    ms = [1, 2, 3, 4, 2 ** 32, 2 ** 32 + 1, 2 ** 32 - 1, 2 ** 64, 2 ** 64 - 1, 2 ** 64 + 1, 6, 12,
          2 ** 40 * 3, 2 ** 63 * 5 + 2 ** 63, 10 ** 18, 2 ** 70 - 2, 7]
    n = len(ms)
    for ev in ([0] * n, [1] * n, [2] * n, [mask(96)] * n, [rng.getrandbits(90) for _ in range(n)]):
        av = [m - 1 for m in ms[:5]] + [m + 3 for m in ms[5:10]] + [mask(100)] * (n - 10)
        r = modular.powmod(av, ev, ms)
        check_values(r.tolist(), expect_pow(av, ev, ms, n), f"powmod edges e={ev[0]:#x}", (av, ev, ms))
        r = modular.mulmod(av, ev, ms)
        check_values(r.tolist(), [x * y % m for x, y, m in zip(av, ev, ms)], "mulmod edges", (av, ev, ms))


@KERNELS
def test_plain_ints_and_mpz(kernel):
    assert modular.powmod(3, 200, 1000003) == pow(3, 200, 1000003)
    assert isinstance(modular.powmod(3, 200, 1000003), int)
    assert modular.powmod(gmpy2.mpz(5), 0, 1) == 0
    assert modular.powmod(5, 0, 7) == 1
    assert modular.powmod(2 ** 300 + 1, 3, 2 ** 64) == pow(2 ** 300 + 1, 3, 2 ** 64)
    assert modular.mulmod(2 ** 200 - 1, 2 ** 150 + 3, 2 ** 127 - 1) == (2 ** 200 - 1) * (2 ** 150 + 3) % (2 ** 127 - 1)
    assert modular.mulmod(7, 9, 2) == 1


@KERNELS
def test_broadcasting(kernel, rng):
    n, bits = 7, 256
    ms = odd_moduli(rng, bits, n)
    av = [rand_value(rng, bits) for _ in range(n)]
    ev = [rng.getrandbits(80) for _ in range(n)]
    one_m, one_a, one_e = ms[3], av[2], ev[4]
    cases = [
        (one_a, ev, ms), (av, one_e, ms), (av, ev, one_m), (one_a, one_e, ms), (av, one_e, one_m),
        ([one_a], ev, clbig.array([one_m])),
    ]
    for a, e, m in cases:
        got = modular.powmod(a, e, m)
        m = m.tolist() if isinstance(m, clbig.BigIntArray) else m
        check_values(got.tolist(), expect_pow(a, e, m, n), "powmod broadcast", ())
    got = modular.mulmod(av, one_a, one_m)
    check_values(got.tolist(), [x * one_a % one_m for x in av], "mulmod shared modulus")
    got = modular.mulmod(one_a, av, ms)
    check_values(got.tolist(), [one_a * x % m for x, m in zip(av, ms)], "mulmod broadcast a")
    with pytest.raises(ValueError, match="length mismatch"):
        modular.powmod(av, ev[:3], ms)


@KERNELS
def test_shared_modulus_and_exponent(kernel, rng):
    """RSA-like: one modulus and one exponent for the batch (the skip-zero-digit path of the
    cooperative shape), all-ones exponent."""
    bits, n = 2080, 5
    m = odd_moduli(rng, bits, 7)[-1]
    av = [rand_value(rng, bits) for _ in range(n)]
    for e in (65537, mask(130), 1 << 129, rng.getrandbits(130)):
        got = modular.powmod(av, e, m)
        check_values(got.tolist(), [pow(x, e, m) for x in av], f"shared modulus e={e:#x}")


@KERNELS
def test_modulus_object(kernel, rng):
    bits, n = 96, 6
    ms = odd_moduli(rng, bits, n - 2) + [2 ** 90, 6 * 2 ** 50 + 2]
    M = modular.Modulus(clbig.array(ms, bits=bits))
    assert list(M.odd) == [m & 1 == 1 for m in ms] and len(M) == n
    for _ in range(2):   # the second call reuses R^2 mod m and the even split
        av = [rand_value(rng, 200) for _ in range(n)]
        ev = [rng.getrandbits(50) for _ in range(n)]
        check_values(modular.powmod(av, ev, M).tolist(), expect_pow(av, ev, ms, n), "powmod Modulus")
        check_values(modular.mulmod(av, ev, M).tolist(), [x * y % m for x, y, m in zip(av, ev, ms)],
                     "mulmod Modulus")
    assert len(M._r2) == 1
    assert modular.Modulus(M).m is M.m


@KERNELS
def test_even_moduli(kernel, rng):
    """Wide even moduli: odd part and power of two over several limbs, m = 2^k, m = 2^k m_o."""
    bits, n = 1024, 8
    ms = [1 << 1023, (1 << 1000) * 3, 2 * (mask(1023) | 1), rand_value(rng, 1024) << 1 | 2,
          (rand_value(rng, 600) | 1) << 400, 2, 2 ** 33, 2 ** 32 * mask(900)]
    av = [rand_value(rng, 1024) for _ in range(n)]
    ev = [rng.getrandbits(100) for _ in range(n)]
    ev[1] = 0
    got = modular.powmod(av, ev, ms)
    assert got.bits == 1024
    check_values(got.tolist(), expect_pow(av, ev, ms, n), "powmod even moduli", (av, ev, ms))
    check_values(modular.mulmod(av, ev, ms).tolist(), [x * y % m for x, y, m in zip(av, ev, ms)],
                 "mulmod even moduli")


@KERNELS
@pytest.mark.parametrize("m", [2, 4, 2 ** 31, 2 ** 32, 2 ** 33, 2 ** 1000, 6, 3 * 2 ** 40,
                               (2 ** 521 - 1) << 7, (2 ** 100 + 3) << 64, mask(1023) << 1])
def test_one_even_modulus_for_the_batch(kernel, rng, m):
    """One even modulus for the whole batch (the device's CRT of m_o and 2^k, and mul then mod
    for mulmod): a = 0, 1, m - 1, m, 2m + 5, negative, wider than m; e = 0, 1, 2, long; each
    operand broadcast; a Modulus object; the capacity is m's."""
    n = 11
    av = [0, 1, m - 1, m, 2 * m + 5, -7] + [rng.getrandbits(m.bit_length() + 3) for _ in range(n - 6)]
    ev = [0, 1, 2, rng.getrandbits(200), 5, 3] + [rng.getrandbits(70) for _ in range(n - 6)]
    M = modular.Modulus(m)
    got = modular.powmod(av, ev, M)
    assert got.bits == M.bits and got.to_limbs().shape == (n, M.nm)
    check_values(got.tolist(), [pow(a, x, m) for a, x in zip(av, ev)], f"powmod one even m={m:#x}", (av, ev))
    check_values(modular.powmod(av[4], ev, m).tolist(), [pow(av[4], x, m) for x in ev], "even m, a broadcast")
    check_values(modular.powmod(av, 65537, m).tolist(), [pow(a, 65537, m) for a in av], "even m, e broadcast")
    check_values(modular.mulmod(av, ev, m).tolist(), [a * x % m for a, x in zip(av, ev)], "mulmod one even m")


def test_cooperative_shape_small(rng, monkeypatch):
    """C items of Q limbs forced on small moduli: the one-barrier iteration, carry and borrow
    scans, padding instances, per-instance and shared exponents, the pow2 kernel."""
    monkeypatch.setenv("CLBIG_MONT_ONE", "1")
    bits, n = 96, 11
    ms = odd_moduli(rng, bits, n - 2) + [2 ** 95, 2 ** 40 * 7]
    av = bases(rng, ms, bits)
    ev = [mask(64), 0, 1, 2] + [rng.getrandbits(64) for _ in range(n - 4)]
    check_values(modular.powmod(av, ev, ms).tolist(), expect_pow(av, ev, ms, n), "coop powmod", (av, ev, ms))
    check_values(modular.powmod(av, ev[0], ms).tolist(), expect_pow(av, ev[0], ms, n), "coop shared e")
    check_values(modular.mulmod(av, [mask(96)] * n, ms).tolist(), [x * mask(96) % m for x, m in zip(av, ms)],
                 "coop mulmod")


@pytest.mark.parametrize("bits", [1056, 4096])
def test_small_work_groups(rng, small_ctx, bits):
    """Work-groups of at most 8 items: 4096-bit moduli as 4 items of 32 limbs."""
    n = 3
    ms = odd_moduli(rng, bits, n)
    av = [rand_value(rng, bits) for _ in range(n)]
    ev = [rng.getrandbits(40) for _ in range(n)]
    check_values(modular.powmod(av, ev, ms).tolist(), expect_pow(av, ev, ms, n), f"small-wg powmod {bits}")
    check_values(modular.mulmod(av, ev, ms).tolist(), [x * y % m for x, y, m in zip(av, ev, ms)],
                 f"small-wg mulmod {bits}")


def test_composed_beyond_one_group(rng, small_ctx, monkeypatch):
    """Moduli that fit no work-group (8 items of 8 limbs: 64 limbs at most) take clbig.mul and
    clbig.mod, odd and even alike, exponent bits mixed across the batch."""
    monkeypatch.setenv("CLBIG_MONT_Q", "8")
    bits, n = 2080, 4
    assert modular.Modulus([3], ctx=small_ctx).shape() is not None
    ms = odd_moduli(rng, bits, n - 1) + [(rand_value(rng, 2000) | 1) << 70]
    M = modular.Modulus(ms)
    assert M.shape() is None
    av = [rand_value(rng, 2100) for _ in range(n)]
    ev = [0b1011, 0, 0b1110001, 1]
    check_values(modular.powmod(av, ev, M).tolist(), expect_pow(av, ev, ms, n), "composed powmod")
    check_values(modular.powmod([av[0]], 5, [ms[0]] * 2).tolist(), [pow(av[0], 5, ms[0])] * 2,
                 "composed broadcast")
    check_values(modular.mulmod(av, ev, M).tolist(), [x * y % m for x, y, m in zip(av, ev, ms)], "composed mulmod")


@KERNELS
def test_errors(kernel, ctx):
    with pytest.raises(ValueError, match="modulus is 0 at index 2"):
        modular.powmod([1, 2, 3], 5, [7, 9, 0])
    with pytest.raises(ValueError, match="modulus is 0 at index 1"):
        modular.powmod(1, 1, clbig.array([5, 0, 3]))
    with pytest.raises(ValueError, match="modulus is 0 at index 0"):
        modular.powmod(2, 3, 0)
    with pytest.raises(ValueError, match="modulus is 0 at index 0"):
        modular.mulmod(2, 3, 0)
    with pytest.raises(ValueError, match="modulus is 0 at index 1"):
        modular.Modulus([3, 0])
    # Python's pow: a negative exponent through the inverse, a negative modulus to (m, 0]
    assert modular.powmod(2, -1, 7) == pow(2, -1, 7) == 4
    assert modular.powmod(2, 3, [-7]).tolist() == [pow(2, 3, -7)] == [-6]
    for ms in ([-7, 9], np.array([-7, 9]), np.array([-7, 9], dtype=object)):   # numpy as lists
        assert modular.powmod([3, 4], [2, 3], ms).tolist() == [pow(3, 2, -7), pow(4, 3, 9)]
        assert modular.mulmod([3, 4], [2, 3], ms).tolist() == [3 * 2 % -7, 4 * 3 % 9]
    with pytest.raises(ValueError, match="not invertible mod m at index 0"):
        modular.powmod(2, -1, 8)
    with pytest.raises(ValueError, match="negative"):
        modular.Modulus([7, -7])
    with pytest.raises(TypeError):
        modular.powmod(2.0, 3, 7)
    with pytest.raises(TypeError):
        modular.mulmod(2, "3", 7)
    with pytest.raises(TypeError):
        modular.powmod(2, 3, [7, True])
    other = clbig.Context()
    with pytest.raises(ValueError, match="two contexts"):
        modular.powmod(clbig.array([2], ctx=other), 3, clbig.array([7]))


@pytest.mark.parametrize("env", [{"CLBIG_MONT_SQR": "0"}, {"CLBIG_MONT_SQR": "1"},
                                 {"CLBIG_MONT_FILL": "100000"}])
@pytest.mark.parametrize("bits", [32, 96, 1024])
def test_powmod_square_and_small_batch_shapes(rng, monkeypatch, bits, env):
    """The one-item square (mont_sqr: cross products once, doubled, plus the diagonal, then
    the reduction) forced on and off, and the small-batch shape (CLBIG_MONT_FILL makes any
    batch "small": Q_SMALL-limb items from 16 limbs) against gmpy2; all-ones moduli and
    bases m - 1 reach the doubling's and the final subtraction's carries."""
    for k, v in env.items():
        monkeypatch.setenv(k, v)
    n = 7
    ms = odd_moduli(rng, bits, n)
    av = [m - 1 for m in ms[:3]] + bases(rng, ms, bits)[3:]
    ev = [mask(64), 2, rand_value(rng, 64), 1 << 63, 3] + [rng.getrandbits(64) for _ in range(n - 5)]
    r = modular.powmod(av, ev, ms)
    check_values(r.tolist(), expect_pow(av, ev, ms, n), f"powmod {bits} {env}", (av, ev, ms))


LOC_ENVS = [{"CLBIG_MONT_MLOC": "1"}, {"CLBIG_MONT_BLOC": "1"},
            {"CLBIG_MONT_MLOC": "1", "CLBIG_MONT_BLOC": "1", "CLBIG_MONT_SQR": "1"},
            {"CLBIG_MONT_MLOC": "1", "CLBIG_MONT_BLOC": "1", "CLBIG_MONT_ONE": "1", "CLBIG_MONT_Q": "8"},
            {"CLBIG_MONT_BLOC": "0"}]


@pytest.mark.parametrize("env", LOC_ENVS)
@pytest.mark.parametrize("bits", [96, 1056])
def test_local_memory_operands(rng, monkeypatch, bits, env):
    """m's chunk (MLOC) and the multiplicand (BLOC) read from local memory instead of
    registers, one item and cooperative (8-limb items by CLBIG_MONT_ONE=1), squares on:
    powmod (the table's T[1] kept in the multiplicand), mulmod, and an even modulus (the
    power-of-two kernel with BLOC) against gmpy2."""
    for k, v in env.items():
        monkeypatch.setenv(k, v)
    n = 7
    ms = odd_moduli(rng, bits, n)
    ms[4] = (rand_value(rng, bits - 8) | 1) << 7   # even: odd part and 2^7 by CRT
    av = [m - 1 for m in ms[:3]] + bases(rng, ms, bits)[3:]
    ev = [mask(64), 2, rand_value(rng, 64), 1 << 63, 3] + [rng.getrandbits(64) for _ in range(n - 5)]
    r = modular.powmod(av, ev, ms)
    check_values(r.tolist(), expect_pow(av, ev, ms, n), f"powmod {bits} {env}", (av, ev, ms))
    r = modular.mulmod(av, ev, ms)
    check_values(r.tolist(), [x * y % m for x, y, m in zip(av, ev, ms)], f"mulmod {bits} {env}", (av, ev, ms))


def test_local_operand_defaults(ctx, monkeypatch):
    """BLOC by default for one item of 64 limbs (not below, not cooperative); MLOC off; an
    explicit setting wins."""
    from clbig.mpn import mont
    monkeypatch.delenv("CLBIG_MONT_BLOC", raising=False)
    monkeypatch.delenv("CLBIG_MONT_MLOC", raising=False)
    pl = mont.plan(ctx, 64, 100000)
    assert (pl["C"], pl["BLOC"], pl["MLOC"]) == (1, True, False)
    assert not mont.plan(ctx, 32, 100000)["BLOC"]
    assert not mont.plan(ctx, 128, 100000)["BLOC"]
    monkeypatch.setenv("CLBIG_MONT_BLOC", "0")
    assert not mont.plan(ctx, 64, 100000)["BLOC"]
    monkeypatch.setenv("CLBIG_MONT_MLOC", "1")
    assert mont.plan(ctx, 32, 100000)["MLOC"] and not mont.plan(ctx, 32, 10, pow2=True)["MLOC"]


# -- operands staged once per work-group: one modulus, one exponent (clbig.mpn.mont._staged) ------
# coop: the modulus staged only where asked (the default stages it for one item per instance)
# "one item" also on GPUs, which spread a batch this small over several items (CLBIG_MONT_FILL)
STAGE_SHAPES = {"one item": {"CLBIG_MONT_FILL": "0"}, "coop": {"CLBIG_MONT_ONE": "1", "CLBIG_MONT_Q": "8", "CLBIG_MONT_MSHARED": "1"}}


def _record_staging(monkeypatch):
    """The set of (kernel, MSH, ESH) that clbig.mont builds from here on (the test then knows
    the staged paths ran, not only the register ones)."""
    from clbig.mpn import mont
    seen, build = set(), mont._build

    def rec(ctx, pl, name, **params):
        seen.add((name, pl["MSH"], pl["ESH"]))
        return build(ctx, pl, name, **params)
    monkeypatch.setattr(mont, "_build", rec)
    return seen


def _shared_cases(rng, m, bits, n, ebits=64):
    """Bases 0, 1, m - 1, m, m + 1 and all ones (a >= m below R), then random ones; per-instance
    exponents 0, 1, all ones, then random ones (digits zero and not, side by side)."""
    av = [0, 1, m - 1, m, m + 1, mask(bits)] + [rand_value(rng, bits) for _ in range(n - 6)]
    ev = [0, 1, mask(ebits)] + [rng.getrandbits(ebits) for _ in range(n - 3)]
    return av[:n], ev[:n]


@pytest.mark.parametrize("shape", list(STAGE_SHAPES))
@pytest.mark.parametrize("bits", [64, 1000, 1024, 2048])
def test_shared_modulus_staged(rng, monkeypatch, bits, shape):
    """One modulus for the batch (an int) staged once per group, one item per instance and C
    items of 8 limbs: powmod with per-instance exponents (C > 1: their words staged too), with
    one exponent (staged), mulmod; a random modulus and the all-ones one (2^bits - 1: every
    limb all ones); odd batches (a padding instance in the last group)."""
    for k, v in STAGE_SHAPES[shape].items():
        monkeypatch.setenv(k, v)
    seen = _record_staging(monkeypatch)
    n = 65 if bits <= 1024 else 7
    for m in (rand_value(rng, bits) | 1 | (1 << (bits - 1)), mask(bits)):
        av, ev = _shared_cases(rng, m, bits, n)
        check_values(modular.powmod(av, ev, m).tolist(), [pow(a, e, m) for a, e in zip(av, ev)],
                     f"shared m powmod {bits} {shape}", (av, ev))
        for e in (mask(64), 0, 1, ev[-1]):
            check_values(modular.powmod(av, e, m).tolist(), [pow(a, e, m) for a in av],
                         f"shared m and e={e:#x} powmod {bits} {shape}", (av,))
        check_values(modular.mulmod(av, ev, m).tolist(), [a * e % m for a, e in zip(av, ev)],
                     f"shared m mulmod {bits} {shape}", (av, ev))
    each = "each" if shape == "coop" else "global"
    assert {("powmod", True, each), ("powmod", True, "one"), ("mulmod", True, "global")} <= seen


@pytest.mark.parametrize("shape", list(STAGE_SHAPES))
def test_shared_staging_edges(rng, monkeypatch, shape):
    """m = 3 (one limb), a batch of one (nothing broadcast: the per-instance path), an
    8192-bit exponent (256 words staged: shared, and per instance for C > 1), an even shared
    modulus (CRT: odd part and power of two), and a shared modulus given as a length-one
    array."""
    for k, v in STAGE_SHAPES[shape].items():
        monkeypatch.setenv(k, v)
    av = [0, 1, 2, 3, 4, mask(40), 7]
    ev = [0, 1, 2, mask(64), 5, rng.getrandbits(64), 1 << 63]
    check_values(modular.powmod(av, ev, 3).tolist(), [pow(a, e, 3) for a, e in zip(av, ev)], "m = 3")
    check_values(modular.mulmod(av, ev, 3).tolist(), [a * e % 3 for a, e in zip(av, ev)], "mulmod m = 3")
    bits = 64
    m = rand_value(rng, bits) | 1 | (1 << (bits - 1))
    check_values(modular.powmod([m - 1], [mask(64)], m).tolist(), [pow(m - 1, mask(64), m)], "batch of one")
    av, ev = _shared_cases(rng, m, bits, 7, ebits=8192)
    ev[4] = mask(8192)
    check_values(modular.powmod(av, ev, m).tolist(), [pow(a, e, m) for a, e in zip(av, ev)],
                 f"8192-bit exponents {shape}", (av, ev))
    check_values(modular.powmod(av, ev[4], m).tolist(), [pow(a, ev[4], m) for a in av],
                 f"one 8192-bit exponent {shape}", (av,))
    check_values(modular.powmod(av, ev[5], clbig.array([m])).tolist(), [pow(a, ev[5], m) for a in av],
                 f"length-one modulus array {shape}", (av,))
    me = (rand_value(rng, bits - 9) | 1) << 9
    av, ev = _shared_cases(rng, me, bits, 7)
    check_values(modular.powmod(av, ev, me).tolist(), [pow(a, e, me) for a, e in zip(av, ev)],
                 f"even shared m {shape}", (av, ev))
    check_values(modular.mulmod(av, ev, me).tolist(), [a * e % me for a, e in zip(av, ev)],
                 f"even shared m mulmod {shape}", (av, ev))


@pytest.mark.parametrize("shape", list(STAGE_SHAPES))
def test_shared_staging_switched_off(rng, monkeypatch, shape):
    """CLBIG_MONT_MSHARED=0 / CLBIG_MONT_ESHARED=0: the register / global-memory paths for a
    shared modulus and exponent stay exact."""
    for k, v in {**STAGE_SHAPES[shape], "CLBIG_MONT_MSHARED": "0", "CLBIG_MONT_ESHARED": "0"}.items():
        monkeypatch.setenv(k, v)
    seen = _record_staging(monkeypatch)
    bits, n = 64, 9
    m = mask(bits) ^ 4
    av, ev = _shared_cases(rng, m, bits, n)
    check_values(modular.powmod(av, ev, m).tolist(), [pow(a, e, m) for a, e in zip(av, ev)], "off powmod")
    check_values(modular.powmod(av, ev[-1], m).tolist(), [pow(a, ev[-1], m) for a in av], "off shared e")
    check_values(modular.mulmod(av, ev, m).tolist(), [a * e % m for a, e in zip(av, ev)], "off mulmod")
    assert {s[1:] for s in seen} == {(False, "global")}


def test_staging_plan(ctx, monkeypatch):
    """What mont._staged stages: the modulus only when shared (sm == 0) and not for the
    power-of-two kernel, replacing MLOC's rows; the exponent shared ("one"), per instance for
    C > 1 ("each"), else global; the switches; and nothing that does not fit the local
    memory (a device of 2 KiB: an 8192-bit exponent stays global)."""
    from types import SimpleNamespace
    from clbig.mpn import mont
    from clbig.runtime import config
    for k in ("CLBIG_MONT_MSHARED", "CLBIG_MONT_ESHARED", "CLBIG_MONT_MLOC"):
        monkeypatch.delenv(k, raising=False)
    one = dict(Q=32, C=1, IPB=8, NP=32, MLOC=False, BLOC=False)
    coop = dict(Q=8, C=4, IPB=8, NP=32, MLOC=True, BLOC=False)
    # a device of lm bytes of local memory, under the settings at each call
    dev = lambda lm: SimpleNamespace(local_mem=lm, profile=SimpleNamespace(settings=config.settings()))
    got = lambda pl, *a, lm=1 << 20: (lambda p: (p["MSH"], p["ESH"], p["MLOC"]))(
        mont._staged(dev(lm), pl, *a))
    assert got(one, 0, 0, 2, False) == (True, "one", False)
    assert got(one, 32, 2, 2, False) == (False, "global", False)
    assert got(one, 0, None, 0, False) == (True, "global", False)        # mulmod
    assert got(coop, 0, 2, 2, False) == (False, "each", True)            # C > 1: not by default
    assert got(one, 0, 0, 256, False, lm=2048) == (True, "global", False)
    assert got(one, 0, 0, 2, False, lm=mont._local_bytes(32, 1, 8, False)) == (False, "global", False)
    monkeypatch.setenv("CLBIG_MONT_MSHARED", "1")
    assert got(coop, 0, 2, 2, False) == (True, "each", False)            # MSH replaces MLOC
    assert got(coop, 32, 2, 2, False) == (False, "each", True)
    assert got(coop, 0, 2, 2, True) == (False, "each", True)             # pow2: no modulus
    assert got(coop, 0, 2, 256, False, lm=2048) == (True, "global", False)
    monkeypatch.setenv("CLBIG_MONT_MSHARED", "0")
    monkeypatch.setenv("CLBIG_MONT_ESHARED", "0")
    assert got(coop, 0, 0, 2, False) == (False, "global", True)
    assert mont.plan(ctx, 32, 1000)["MLOC"] is False   # the planner's own keys untouched


# -- tiny batches of host values on the host (POWMOD_HOST_ROWS) ------------------------------
def test_tiny_powmod_on_the_host_is_exact_and_said(rng, monkeypatch):
    """Where a few rows of host values run with gmpy2 (GPUs, by default), results, capacities
    and errors are the device path's, and clbig.profile() says so."""
    monkeypatch.setenv("CLBIG_POWMOD_HOST_ROWS", "6")
    for n in range(1, 7):
        xs = [rng.getrandbits(300) - 2**299 for _ in range(n)]
        es = [rng.choice([0, 1, 2, 65537, rng.getrandbits(200)]) for _ in range(n)]
        ms = [rng.choice([1, 2, 2**64, rng.getrandbits(256) | 1, rng.getrandbits(100) << 1 or 2])
              for _ in range(n)]
        with clbig.profile() as p:
            got = clbig.powmod(xs, es, ms)
        assert any("on the host" in s for s in p.notes), p.notes
        assert got.tolist() == [pow(x, e, m) for x, e, m in zip(xs, es, ms)]
        monkeypatch.setenv("CLBIG_POWMOD_HOST_ROWS", "0")
        dev = clbig.powmod(xs, es, ms)
        monkeypatch.setenv("CLBIG_POWMOD_HOST_ROWS", "6")
        assert got.bits == dev.bits and got.tolist() == dev.tolist()
    # broadcasting, a negative modulus, and the zero-modulus error naming its index
    assert clbig.powmod([3, 4, 5], 2, 7).tolist() == [2, 2, 4]
    assert clbig.powmod([3, 4], 2, -7).tolist() == [-5, -5]
    with pytest.raises(ValueError, match="modulus is 0 at index 1"):
        clbig.powmod([3, 4], 2, [7, 0])


def test_powmod_few_rows_fast_path_agrees_with_the_ordinary_path(rng, monkeypatch):
    """powmod's fast path for a few rows of plain ints (modular._few_on_host) answers as the
    ordinary path: ints give an int, tuples and length-one lists broadcast, and what it leaves
    (mpz, bools, negative exponents and moduli, a zero modulus, unequal lengths) reaches the
    ordinary path's results and errors."""
    monkeypatch.setenv("CLBIG_POWMOD_HOST_ROWS", "4")
    m = rng.getrandbits(1000) | 1
    x, e = rng.getrandbits(1100) - 2**1099, rng.getrandbits(1000)
    got = clbig.powmod(x, e, m)
    assert type(got) is int and got == pow(x, e, m)
    assert clbig.powmod((x, 5), [e], (m,)).tolist() == [pow(x, e, m), pow(5, e, m)]
    assert clbig.powmod([x], 0, [1]).tolist() == [0]
    assert clbig.powmod([gmpy2.mpz(3), 4], 5, 7).tolist() == [5, 2]
    assert clbig.powmod([3, 4], [2, -1], 7).tolist() == [2, 2]
    assert clbig.powmod(3, 2, [-7, 7]).tolist() == [-5, 2]
    with pytest.raises(ValueError, match="modulus is 0 at index 1"):
        clbig.powmod([3, 4], 2, (7, 0))
    with pytest.raises(ValueError, match="not invertible mod m at index 1"):
        clbig.powmod([3, 7], -1, 7)
    with pytest.raises(ValueError, match="length mismatch"):
        clbig.powmod([3, 4], [1, 2, 3], 7)
    with pytest.raises(TypeError):
        clbig.powmod([3, True], 2, 7)
    with clbig.profile() as p:                      # past the limit: the device
        assert clbig.powmod([3] * 5, 2, 7).tolist() == [2] * 5
    assert p.kernels > 0 and not any("on the host" in s for s in p.notes)


def test_powmod_host_rows_limit_and_operand_kinds(rng, monkeypatch):
    """Past the limit, or with a negative exponent, the device computes; within it, arrays
    and Moduli of the context are read back and computed on the host too."""
    monkeypatch.setenv("CLBIG_POWMOD_HOST_ROWS", "2")
    xs = [rng.getrandbits(100) - 2**99 for _ in range(3)]
    m = rng.getrandbits(90) | 1
    cases = [((xs, 5, m), False), ((xs[:2], [5, -1], m), False),
             ((clbig.array(xs[:2]), 5, m), True), ((xs[:2], clbig.array([5, 7]), m), True),
             ((xs[:2], 5, clbig.Modulus(m)), True), ((xs[:2], 5, clbig.Modulus([m, m + 2])), True),
             ((clbig.array(xs[:2]), 5, clbig.array([m])), True)]
    for (a, e, mm), host in cases:
        with clbig.profile() as p:
            got = clbig.powmod(a, e, mm)
        assert any("on the host" in s for s in p.notes) == host, (a, e, mm)
        assert (p.kernels > 0) == (not host)
        av = a.tolist() if isinstance(a, clbig.BigIntArray) else a
        ev = e.tolist() if isinstance(e, clbig.BigIntArray) else e
        ev = ev if isinstance(ev, list) else [ev] * len(av)
        mv = [m, m + 2] if isinstance(mm, clbig.Modulus) and len(mm) == 2 else [m] * len(av)
        assert got.tolist() == [pow(x, k, q) for x, k, q in zip(av, ev, mv)]
        if host:   # the limbs reach the device when an operation needs them
            assert (got + 1).tolist() == [v + 1 for v in got.tolist()]


def test_powmod_host_rows_default_by_device_type(monkeypatch):
    """Unset, POWMOD_HOST_ROWS is a few rows per host core on every kind of device (a launch
    costs one instance's latency on CPU devices too), more rows on CPU devices: one row goes
    to the host, and a batch past the default to the device."""
    from clbig.mpn import host_powm
    from clbig.mpz import modular
    monkeypatch.delenv("CLBIG_POWMOD_HOST_ROWS", raising=False)
    ctx = clbig.current_context()
    gpu = bool(ctx.device.type & cl.device_type.GPU)
    table = (modular.HOST_ROWS_PER_CORE if gpu else modular.HOST_ROWS_PER_CORE_CPU
             if ctx.profile.facts.intel_cpu_runtime else modular.HOST_ROWS_PER_CORE_POCL)
    assert modular._per_core(ctx) == table
    with clbig.profile() as p:
        assert clbig.powmod([3], 5, 7).tolist() == [5]
    assert any("on the host" in s for s in p.notes) and p.kernels == 0, p.notes
    past = table[0][1] * host_powm.cores() + 1         # 7 is a modulus of up to 1024 bits
    with clbig.profile() as p:
        assert clbig.powmod(list(range(past)), 5, 7).tolist() == [pow(x, 5, 7) for x in range(past)]
    assert not any("on the host" in s for s in p.notes) and p.kernels > 0, p.notes


def test_powmod_first_calls_rent_the_host_by_a_timed_row(rng, monkeypatch):
    """Past its host limit, powmod's first calls in a context stay on the host within 8 times
    the limit where its widest row, timed, says the rows fit the allowance on the host's
    cores; a larger batch, or one the timed row says is too slow, goes to the device, and
    from then on the limit alone decides."""
    from clbig.mpn import host_powm
    from clbig.mpz import hostrows
    for var in ("CLBIG_POWMOD_HOST_ROWS", "CLBIG_HOST_ROWS"):
        monkeypatch.delenv(var, raising=False)
    monkeypatch.setenv("CLBIG_HOST_FIRST_MS", "60000")
    for table in ("HOST_ROWS_PER_CORE", "HOST_ROWS_PER_CORE_CPU", "HOST_ROWS_PER_CORE_POCL"):
        monkeypatch.setattr(modular, table, ((1 << 62, 1),))     # the limit: one row a core
    ctx, k = clbig.current_context(), host_powm.cores()

    def where(n, bits=256, e=65537):
        a = [rng.getrandbits(bits) for _ in range(n)]
        m = [rng.getrandbits(bits) | 1 for _ in range(n)]
        with clbig.profile() as p:
            assert clbig.powmod(a, e, m).tolist() == [pow(x, e, q) for x, q in zip(a, m)]
        return "host" if p.kernels == 0 else "device"

    ctx.profile.clear("host_first")
    assert [where(k), where(3 * k), where(8 * k)] == ["host"] * 3
    assert where(8 * k + 1) == "device"
    assert [where(3 * k), where(k)] == ["device", "host"]       # bought: the limit alone
    ctx.profile.clear("host_first")
    monkeypatch.setenv("CLBIG_HOST_FIRST_MS", "1")              # a 4096-bit row takes ms
    assert where(2 * k, 4096, 2**4095 + 1) == "device"
    assert hostrows._spent(ctx)["powmod"] is None


def test_host_rows_by_gmp_threads(rng, monkeypatch):
    """The host rows run through gmpy2 in threads with the GIL released, the calling thread
    taking a share: exact values, edges included, on several cores as on one (the thread
    count mocked), the rows split evenly over the threads, and the calling thread's gmpy2
    context is left as it was."""
    import gmpy2
    from clbig.mpn import host_powm
    monkeypatch.setenv("CLBIG_POWMOD_HOST_ROWS", "12")
    av = [0, 1, -1, 2**64 - 1, -(2**300), rng.getrandbits(2100), 7, 5, 3]
    ev = [0, 5, 3, 2**64 + 1, rng.getrandbits(300), rng.getrandbits(2048), 0, 1, 2]
    mv = [1, 2, 2**64, 3, rng.getrandbits(2048) | 1, rng.getrandbits(2047) << 1, 1, 9, 2**127 - 1]
    want = [pow(a, e, m) for a, e, m in zip(av, ev, mv)]
    before = gmpy2.get_context().allow_release_gil
    shares, real = [], host_powm._rows
    monkeypatch.setattr(host_powm, "_rows", lambda a, e, m: shares.append(len(a)) or real(a, e, m))
    for cores in (1, 2, 5):
        monkeypatch.setitem(host_powm._state, "cores", (cores, host_powm.os.getpid()))
        monkeypatch.setitem(host_powm._state, "pool", (None, None))
        shares.clear()
        got, threads = host_powm.powm_rows(av, ev, mv)
        assert got == want and threads == min(len(av), cores), cores
        assert sorted(shares) == ([] if cores == 1 else [4, 5] if cores == 2 else [1, 2, 2, 2, 2])
        assert all(type(v) is int for v in got)
        assert host_powm.powm_rows(av[:1], ev[:1], mv[:1]) == (want[:1], 1)
    assert gmpy2.get_context().allow_release_gil == before
    with clbig.profile() as p:
        assert clbig.powmod(av, ev, mv).tolist() == want
    assert any("on the host" in s for s in p.notes)


def test_host_rows_in_a_forked_child(rng, monkeypatch):
    """A child forked after the host rows ran computes them again (its own threads)."""
    import multiprocessing
    from clbig.mpn import host_powm
    av, ev, mv = [3, 5, 7], [rng.getrandbits(200)] * 3, [rng.getrandbits(200) | 1] * 3
    want = [pow(a, e, m) for a, e, m in zip(av, ev, mv)]
    assert host_powm.powm_rows(av, ev, mv)[0] == want
    with multiprocessing.get_context("fork").Pool(1) as pool:
        got = pool.apply_async(host_powm.powm_rows, (av, ev, mv)).get(timeout=60)
    assert got[0] == want
