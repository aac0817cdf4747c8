"""The two forms of modular exponentiation beside powmod (clbig.mpn.mont52_powm), against
Python's pow: a fixed base (one base and one odd modulus for the batch: a shared table) and
clbig.multi_powmod (products of k powers by one chain of squares).

Edges: exponents 0, 1 and all-ones, exponents of several lengths in one batch, bases 0, 1,
m - 1, m, above R and negative, batch lengths at the rows threshold, past a group (a padding
instance) and one, k = 1 to 3, m staged once per group (MLOC: zero digits then multiply by the
table's unit), squares by mont52_sqr; products of powers by the int32 kernel as well (one item
and C = 2); the composed fallback where the kernel does not apply
(even, negative and mixed moduli, negative exponents), and the errors."""
import gmpy2
import numpy as np
import pytest

import clbig
from clbig.mpn import mont52_powm
from clbig.mpz import modular, multipow
from conftest import check_values, mask, rand_value


@pytest.fixture
def fp64(monkeypatch):
    monkeypatch.setenv("CLBIG_MONT_FP64", "1")


def products(B, E, ms):
    out = []
    for row, erow, m in zip(B, E, ms):
        r = 1
        for b, e in zip(row, erow):
            r = r * pow(b, e, m)
        out.append(r % m)
    return out


@pytest.mark.parametrize("bits, env", [(64, {}), (1000, {}), (520, {"CLBIG_MONT52_MLOC": "1"})])
def test_fixed_base(fp64, ctx, monkeypatch, rng, bits, env):
    for k, v in env.items():
        monkeypatch.setenv(k, v)
    m = rand_value(rng, bits) | 1 | (1 << (bits - 1))
    calls = []
    monkeypatch.setattr(mont52_powm, "fixed_table",
                        lambda *a, _f=mont52_powm.fixed_table: calls.append(a[-2:]) or _f(*a))
    for g in (rng.getrandbits(bits + 40), -rand_value(rng, bits), 0, 1, m - 1, m):
        for n in (32, 65):
            ev = [0, 1, mask(bits), mask(33)] + [rng.getrandbits(rng.choice((5, 64, bits)))
                                                  for _ in range(n - 4)]
            got = modular.powmod(g, ev, m)
            check_values(got.tolist(), [pow(g, e, m) for e in ev], f"fixed base g={g} n={n}", (ev,))
    assert calls, "the fixed-base table was never built"
    # one table per (g, m, window, exponent length): kept, not rebuilt, for the next batch
    ev = [rng.getrandbits(bits) for _ in range(40)]
    before = len(calls)
    for _ in range(2):
        check_values(modular.powmod(3, ev, m).tolist(), [pow(3, e, m) for e in ev], "again")
    assert len(calls) == before + 1
    monkeypatch.setenv("CLBIG_POWMOD_FIXED_ROWS", "0")           # the general kernel agrees
    check_values(modular.powmod(3, ev, m).tolist(), [pow(3, e, m) for e in ev], "general")
    assert len(calls) == before + 1


def test_fixed_base_not_taken(fp64, ctx, monkeypatch, rng):
    """Below the rows threshold, several moduli or bases: the general path. (An even modulus
    takes it for its odd part: test_fixed_base_even.)"""
    monkeypatch.setattr(mont52_powm, "fixed_table", None)        # would fail if called
    m = rand_value(rng, 200) | 1
    ev = [rng.getrandbits(100) for _ in range(31)]
    check_values(modular.powmod(5, ev, m).tolist(), [pow(5, e, m) for e in ev], "31 rows")
    ev = ev + [7]
    ms = [m, m + 2] * 16
    check_values(modular.powmod(5, ev, ms).tolist(), [pow(5, e, x) for e, x in zip(ev, ms)], "moduli")
    check_values(modular.powmod([5, 6] * 16, ev, m).tolist(), [pow(b, e, m) for b, e in zip([5, 6] * 16, ev)],
                 "bases")


def test_fixed_base_even(fp64, rng):
    """One even modulus 2^k m_o: the odd part by the fixed-base table, joined by the CRT."""
    ev = [rng.getrandbits(100) for _ in range(40)]
    for m in ((rand_value(rng, 200) | 1) << 37, 1 << 70):
        check_values(modular.powmod(7, ev, m).tolist(), [pow(7, e, m) for e in ev], f"even {m}")


INT32 = {"CLBIG_MONT_FP64": "0"}


@pytest.mark.parametrize("bits, k, env", [
    (64, 2, {"CLBIG_MONT_FP64": "1", "CLBIG_MONT52_SQR_MAX": "0"}),
    (1000, 3, {"CLBIG_MONT_FP64": "1", "CLBIG_MONT52_SQR_MAX": "0"}),
    (330, 2, {"CLBIG_MONT_FP64": "1", "CLBIG_MONT52_SQR_MAX": "24"}),
    # the int32 kernel's chain (mont.cl.mako multipow): one item, its squares by CIOS, C = 2
    (64, 2, INT32), (330, 2, {**INT32, "CLBIG_MONT_SQR": "0"}), (1000, 3, {**INT32, "CLBIG_MONT_ONE": "8"})])
def test_multi_powmod(ctx, monkeypatch, rng, bits, k, env):
    for key, v in env.items():
        monkeypatch.setenv(key, v)
    n = 65
    ms = [mask(bits), 3, 1] + [rand_value(rng, bits) | 1 for _ in range(n - 3)]
    B = [[rng.getrandbits(bits + 60) for _ in range(k)] for _ in range(n)]
    E = [[rng.getrandbits(rng.choice((1, 40, bits))) for _ in range(k)] for _ in range(n)]
    B[0], E[0] = [ms[0] - 1] * k, [mask(bits)] * k
    B[3], E[4], E[5][0] = [0] * k, [0] * k, 1
    B[6][0] = -B[6][0]
    B[7][-1] = ms[7]
    assert multipow._by_shared_squares(ctx, *(multipow._columns(X, "X")[0] for X in (B, E)), ms) is not None
    check_values(clbig.multi_powmod(B, E, ms).tolist(), products(B, E, ms), f"rows k={k}", (B, E, ms))
    # columns, a shared modulus (a Modulus), a broadcast first base and exponent
    M = clbig.Modulus(ms[0])
    cols = [clbig.array([B[0][0]])] + [clbig.array([r[j] for r in B]) for j in range(1, k)]
    ecols = [clbig.array([E[9][0]])] + [clbig.array([r[j] for r in E]) for j in range(1, k)]
    want = products([[B[0][0]] + r[1:] for r in B], [[E[9][0]] + r[1:] for r in E], [ms[0]] * n)
    check_values(clbig.multi_powmod(cols, ecols, M).tolist(), want, "columns")
    # numpy rows, one row broadcast against n moduli, one row in and an int out
    Bn = np.array(B[:5], dtype=object)
    check_values(clbig.multi_powmod(Bn, np.array(E[:5], dtype=object), ms[:5]).tolist(),
                 products(B[:5], E[:5], ms[:5]), "numpy")
    check_values(clbig.multi_powmod([B[1]], [E[1]], ms).tolist(), products([B[1]] * n, [E[1]] * n, ms),
                 "one row")
    assert clbig.multi_powmod(B[1], E[1], ms[1]) == products([B[1]], [E[1]], [ms[1]])[0]


def test_multi_powmod_composed(ctx, rng):
    """Where the kernel does not apply the result is composed from powmod and mulmod: even,
    negative and mixed moduli, negative exponents (through the inverse), on any kernel."""
    n, k = 9, 2
    B = [[rng.getrandbits(90) | 1 for _ in range(k)] for _ in range(n)]
    E = [[rng.getrandbits(70) for _ in range(k)] for _ in range(n)]
    for ms in ([2 * rand_value(rng, 80) + 2 for _ in range(n)], [-(rand_value(rng, 80) | 1) for _ in range(n)],
               [rand_value(rng, 80) | 1 for _ in range(n - 1)] + [1 << 64]):
        check_values(clbig.multi_powmod(B, E, ms).tolist(), products(B, E, ms), f"moduli {ms[:2]}")
    m = int(gmpy2.next_prime(1 << 89))
    E[2] = [-5, 3]
    want = [pow(b0, e0, m) * pow(b1, e1, m) % m for (b0, b1), (e0, e1) in zip(B, E)]
    check_values(clbig.multi_powmod(B, E, m).tolist(), want, "negative exponent")
    assert len(clbig.multi_powmod([], [], m)) == 0
    assert len(clbig.multi_powmod(np.zeros((0, 2), dtype=object), np.zeros((0, 2), dtype=object), [])) == 0


def test_multi_powmod_beyond_the_argument_space(ctx, monkeypatch, rng):
    """More powers than one launch's arguments hold (CL_DEVICE_MAX_PARAMETER_SIZE, queried)
    compose powmods and mulmods, with the same values."""
    import dataclasses
    n, k = 5, 4
    ms = [rand_value(rng, 100) | 1 for _ in range(n)]
    B = [[rng.getrandbits(100) for _ in range(k)] for _ in range(n)]
    E = [[rng.getrandbits(50) for _ in range(k)] for _ in range(n)]
    cols = [multipow._columns(X, "X")[0] for X in (B, E)]
    assert multipow._by_shared_squares(ctx, *cols, ms) is not None
    room = multipow.ARG_BYTES + multipow.ARG_BYTES_PER_POWER * (k - 1)
    monkeypatch.setattr(ctx.profile, "facts", dataclasses.replace(ctx.profile.facts, max_args=room))
    assert multipow._by_shared_squares(ctx, *cols, ms) is None
    with ctx:
        check_values(clbig.multi_powmod(B, E, ms).tolist(), products(B, E, ms), "composed beyond the arguments")


def test_multi_powmod_errors(ctx):
    with pytest.raises(ValueError, match="B has 2 bases per row, E 1"):
        clbig.multi_powmod([[2, 3]], [[1]], 7)
    with pytest.raises(ValueError, match="row 1 has 1 entries"):
        clbig.multi_powmod([[2, 3], [4]], [[1, 1], [1]], 7)
    with pytest.raises(ValueError, match="modulus is 0 at index 1"):
        clbig.multi_powmod([[2, 3]] * 2, [[1, 1]] * 2, [5, 0])
    with pytest.raises(ValueError, match="not invertible|inverse"):
        clbig.multi_powmod([[2, 3]], [[-1, 1]], 4)
    with pytest.raises(TypeError, match="B: expected rows"):
        clbig.multi_powmod("23", [[1, 1]], 7)
    with pytest.raises(ValueError, match="shape \\(n, k\\)"):
        clbig.multi_powmod(np.array([2, 3]), [[1, 1]], 7)
    with pytest.raises(ValueError, match="at least one base"):
        clbig.multi_powmod([[]], [[]], 7)
