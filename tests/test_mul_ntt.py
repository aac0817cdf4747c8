"""Multiplication by NTT (clbig.mul_ntt) and the algorithm choice (clbig.mul_n) against gmpy2."""
import json

import gmpy2
import pytest

import clbig
from clbig.mpn import mul_n
from clbig.mpn import mul_ntt
from conftest import check_values, mask
from test_mul import mul_pairs

# (a.bits, b.bits): one limb, odd limb counts, unequal sizes, a transform of 2 points up to
# several thousand, and lengths just past a power of two.
NTT_PAIRS = [(1, 1), (32, 32), (33, 7), (96, 64), (1000, 1000), (2048, 32), (4096, 4096),
             (4128, 4064), (2 ** 14, 2 ** 14), (2 ** 15 + 32, 2 ** 15 - 32)]


@pytest.fixture(params=["gl", "m31x3"])
def field(request, monkeypatch):
    """Each NTT test runs over both fields: the 64-bit prime and the three 32-bit primes."""
    monkeypatch.setenv("CLBIG_NTT_FIELD", request.param)
    return request.param


def run(pairs, ba, bb, what, bits=None, algorithm="ntt"):
    xs, ys = [p[0] for p in pairs], [p[1] for p in pairs]
    a, b = clbig.array(xs, bits=ba), clbig.array(ys, bits=bb)
    if bits is None:
        r = clbig.mul(a, b, algorithm=algorithm)
        want = [gmpy2.mpz(x) * y for x, y in pairs]
    else:
        r = clbig.mul_low(a, b, bits=bits, algorithm=algorithm)
        want = [(gmpy2.mpz(x) * y) & mask(bits) for x, y in pairs]
    check_values(r.tolist(), want, what, (xs, ys))


@pytest.mark.parametrize("ba,bb", NTT_PAIRS)
def test_ntt_exact(rng, field, ba, bb):
    n = 5 if ba * bb > 2 ** 26 else 21
    run(mul_pairs(rng, ba, bb, n), ba, bb, f"ntt {ba}x{bb}")


@pytest.mark.parametrize("ba,bb,bits", [(4096, 4096, 4096), (4096, 4096, 4000), (3000, 70, 1000),
                                        (2 ** 14, 2 ** 14, 2 ** 14 + 16)])
def test_ntt_low_half(rng, field, ba, bb, bits):
    run(mul_pairs(rng, ba, bb, 7), ba, bb, f"ntt low {bits} of {ba}x{bb}", bits=bits)


@pytest.mark.parametrize("n", [1, 3])
def test_ntt_batch_lengths_and_broadcast(rng, field, n):
    xs = [rng.getrandbits(5000) for _ in range(n)]
    y = mask(4000)
    got = clbig.mul(clbig.array(xs), y, algorithm="ntt").tolist()
    check_values(got, [x * y for x in xs], f"ntt broadcast, n={n}")
    got = clbig.mul(y, clbig.array(xs), algorithm="ntt").tolist()
    check_values(got, [x * y for x in xs], f"ntt broadcast left, n={n}")


@pytest.mark.parametrize("points", [16, 128])
@pytest.mark.parametrize("ba,bb", [(6000, 6000), (2 ** 14, 2 ** 14 - 96), (9000, 300)])
def test_ntt_multi_pass(rng, monkeypatch, field, points, ba, bb):
    """Work-groups of few points force the strided passes (1 stage each at 16 points, 4 at
    128) that long transforms take on a GPU."""
    monkeypatch.setenv("CLBIG_NTT_POINTS", str(points))
    f = mul_ntt.FIELDS[field]
    L = mul_ntt.transform_log(-(-ba // 32), -(-bb // 32), ba + bb, field)[0]
    assert len(mul_ntt.pass_plan(clbig.current_context(), L, f.word)) > 1
    run(mul_pairs(rng, ba, bb, 5), ba, bb, f"ntt {ba}x{bb} in passes of {points} points")


@pytest.mark.parametrize("low", [False, True])
def test_ntt_twisted_halves(rng, monkeypatch, field, low):
    """A transform one level longer than a pass holds, with balanced operands, runs as two
    twisted halves joined in the last inverse level: 64 points per pass force it cheaply."""
    monkeypatch.setenv("CLBIG_NTT_POINTS", "64")
    f = mul_ntt.FIELDS[field]
    bits = 1000 * f.digit_bits // 16                  # 63 or 64 digits a side: 2^7 points
    L, da, db = mul_ntt.transform_log(-(-bits // 32), -(-bits // 32), 2 * bits, field)
    assert mul_ntt.twisted(clbig.current_context(), L, da, db, f.word)
    run(mul_pairs(rng, bits, bits, 9), bits, bits, f"ntt twisted {bits}x{bits}",
        bits=bits if low else None)
    # unbalanced operands cannot twist (inputs past the lower half): they take the passes
    L, da, db = mul_ntt.transform_log(-(-bits // 32) * 3 // 2, 2, 2 * bits, field)
    assert not mul_ntt.twisted(clbig.current_context(), L, da, db, f.word) or max(da, db) <= 1 << (L - 1)


def test_ntt_all_ones_long_carry(rng, field):
    """(2^k - 1)^2 = 2^2k - 2^(k+1) + 1: every coefficient is at its maximum and the carries
    run the whole length."""
    for k in (32, 1024, 20000):
        got = clbig.mul(mask(k), mask(k), algorithm="ntt")
        assert got == mask(k) ** 2, f"(2^{k}-1)^2"


def test_field_choice(monkeypatch):
    """GPUs and Intel's CPU runtime: three 32-bit primes while their transform fits one pass
    (or two twisted halves of one), the 64-bit prime beyond. PoCL: the 64-bit prime always
    (a third of the kernels to build, the same speed)."""
    import dataclasses
    ctx = clbig.current_context()
    monkeypatch.delenv("CLBIG_NTT_FIELD", raising=False)
    fake = lambda **kw: monkeypatch.setattr(ctx.profile, "facts", dataclasses.replace(ctx.profile.facts, **kw))
    one = (mul_ntt._max_points(ctx, 4).bit_length() - 1)
    limbs = 1 << (one - 1)            # 2 * limbs - 1 points: just one pass
    for gpu, intel in ((True, False), (False, True)):
        fake(is_gpu=gpu, intel_cpu_runtime=intel)
        assert mul_ntt.default_field(ctx, limbs, limbs, 64 * limbs) == "m31x3"
        assert mul_ntt.default_field(ctx, 2 * limbs, 2 * limbs, 128 * limbs) == "m31x3"  # twisted halves
        assert mul_ntt.default_field(ctx, 4 * limbs, 4 * limbs, 256 * limbs) == "gl"
    fake(is_gpu=False, intel_cpu_runtime=False)
    assert mul_ntt.default_field(ctx, limbs, limbs, 64 * limbs) == "gl"
    monkeypatch.setenv("CLBIG_NTT_FIELD", "m31x3")
    assert mul_ntt.default_field(ctx, limbs, limbs, 64 * limbs) == "m31x3"


def test_crt_at_the_coefficient_bound(monkeypatch):
    """The largest coefficients the three primes must hold: all-ones operands of many limbs
    (every coefficient near N (2^32-1)^2), through a transform of several passes."""
    monkeypatch.setenv("CLBIG_NTT_FIELD", "m31x3")
    monkeypatch.setenv("CLBIG_NTT_POINTS", "64")
    x = mask(32 * 3000)
    assert clbig.mul(x, x, algorithm="ntt") == x * x


@pytest.mark.large
def test_ntt_huge_single():
    x, y = gmpy2.mpz(3) ** 1_400_000, gmpy2.mpz(7) ** 1_500_000 - 1   # ~2^22 bits each
    assert clbig.mul(x, y, algorithm="ntt") == x * y
    assert clbig.mul(int(x), 0xFFFFFFFFFFFFFFFF, algorithm="ntt") == x * 0xFFFFFFFFFFFFFFFF


def test_forced_algorithm_that_cannot_run(monkeypatch):
    for f in mul_ntt.FIELDS.values():      # neither field can run these lengths
        monkeypatch.setattr(f, "max_log", 4)
    with pytest.raises(ValueError, match=r"algorithm='ntt' cannot multiply .*2\^\d+ points"):
        clbig.mul(clbig.array([mask(1000)]), mask(1000), algorithm="ntt")
    with pytest.raises(ValueError, match="unknown multiplication algorithm 'fft'"):
        clbig.mul(3, 5, algorithm="fft")
    with pytest.raises(ValueError, match="unknown multiplication algorithm"):
        clbig.mul_low(clbig.array([3]), 5, algorithm="karatsuba")
    # auto never picks what cannot run: with the NTT limited it multiplies classically
    x = (1 << 80000) - 3
    assert mul_n.choose(clbig.current_context(), 2500, 2500, 160000, 1) != "ntt"
    assert clbig.mul(x, x) == x * x


def test_auto_reads_tuned_crossovers(tmp_path, monkeypatch):
    ctx = clbig.current_context()
    f = tmp_path / "tuning.json"
    f.write_text(json.dumps({mul_n.device_key(ctx): {"ntt_from_bits": 64, "ntt_from_bits_few": 256,
                                                      "winners_few": {"7": "ntt", "8": "classical"}}}))
    monkeypatch.setenv("CLBIG_TUNING_FILE", str(f))
    mul_n.set_crossovers(ctx, None)   # read again, from this file
    try:
        assert mul_n.choose(ctx, 2, 2, 128) == "ntt"
        assert mul_n.choose(ctx, 1, 2, 96) == "classical"     # the smaller operand decides
        assert mul_n.choose(ctx, 100, 100, 32) == "classical"  # only 32 bits take part
        assert mul_n.choose(ctx, 4, 4, 128) == "classical"     # a low half: its own crossover
        assert mul_n.clipped(4, 4, 128) and not mul_n.clipped(4, 4, 256)
        assert mul_n.choose(ctx, 2, 2, 128, n=1) == "classical"  # one product: its own crossover
        assert mul_n.choose(ctx, 16, 16, 1024, n=1) == "ntt"
        # the measured winner at a size overrides the crossover's rule there
        assert mul_n.choose(ctx, 4, 4, 256, n=1) == "ntt"        # 2^7 bits: below the crossover
        assert mul_n.choose(ctx, 8, 8, 512, n=1) == "classical"  # 2^8 bits: above it
        x, y = mask(64), mask(64) - 5
        assert clbig.mul(x, y) == x * y
    finally:
        mul_n.set_crossovers(ctx, None)   # this test's file goes: the next product reads them anew


def test_tune_writes_crossovers(tmp_path, monkeypatch):
    """The tune command measures, checks each product and stores what auto then reads."""
    from clbig.tuning import measure as tune
    ctx = clbig.current_context()
    monkeypatch.setenv("CLBIG_TUNING_FILE", str(tmp_path / "t.json"))
    monkeypatch.setattr(tune, "measure", lambda ctx, sizes, n_of, progress=None, low=False: {
        10: {"classical": 1.0, "ntt": 2.0}, 11: {"classical": 2.0, "ntt": 1.5},
        12: {"classical": 3.0, "ntt": 3.5}, 13: {"classical": 9.0, "ntt": 4.0, "ssa": 5.0},
        14: {"classical": 20.0, "ntt": 8.0, "ssa": 7.0}})
    try:
        res = tune.tune(ctx, quick=True, progress=None)
        assert res["ntt_from_bits"] == 1 << 13      # 2^11 won alone; from 2^13 on always
        assert res["ssa_from_bits"] == 1 << 14
        stored = json.loads((tmp_path / "t.json").read_text())[mul_n.device_key(ctx)]
        assert stored["ntt_from_bits_few"] == 1 << 13
        assert stored["ntt_from_bits_low"] == stored["ntt_from_bits_low_few"] == 1 << 13
        assert mul_n.crossovers(ctx)["ssa_from_bits"] == 1 << 14
    finally:
        mul_n.set_crossovers(ctx, None)   # this test's file goes: the next product reads them anew


def test_tune_measures_correct_products(tmp_path, monkeypatch):
    from clbig.tuning import measure as tune
    got = tune.measure(clbig.current_context(), [8, 12], lambda bits: 3)
    assert set(got) == {8, 12} and all("classical" in v and "ntt" in v for v in got.values())


@pytest.mark.parametrize("bits", [32, 1000, 2 ** 14 + 32])
def test_ntt_square(rng, monkeypatch, field, bits):
    """x * x transforms x once and squares pointwise (SQUARE in ntt.cl.mako): one-pass, many
    passes (64 points per pass) and the twisted halves, full and low halves."""
    for points in (None, "64"):
        if points:
            monkeypatch.setenv("CLBIG_NTT_POINTS", points)
        xs = [mask(bits), 0, 1, 1 << (bits - 1)] + [rng.getrandbits(bits) for _ in range(3)]
        a = clbig.array(xs, bits=bits)
        check_values(clbig.mul(a, a, algorithm="ntt").tolist(), [gmpy2.mpz(x) ** 2 for x in xs],
                     f"ntt square {bits} bits, points {points}", (xs,))
        check_values(clbig.mul_low(a, a, algorithm="ntt").tolist(),
                     [(gmpy2.mpz(x) ** 2) & mask(bits) for x in xs], f"ntt square low {bits}", (xs,))


def test_square_of_one_int_is_a_square(rng, monkeypatch):
    """clbig.mul(x, x) on a Python int uploads x once and takes the square path."""
    from clbig.runtime import plan
    seen = []
    real = plan.is_square
    monkeypatch.setattr(plan, "is_square", lambda *a: seen.append(real(*a)) or seen[-1])
    x = rng.getrandbits(50000) | 1 << 49999
    for alg in ("classical", "ntt"):
        seen.clear()
        assert clbig.mul(x, x, algorithm=alg) == x * x
        assert seen and all(seen), alg


def test_m31_prime_forms(rng, monkeypatch):
    """The 31-bit primes read at run time from a table (one build serves the three: issue 43)
    in the GPUs' form, the operands' forward stages as a loop of two rounds, over the paths a
    product takes: one pass with several instances per group and register chunks above the
    lowest five levels, then with 64 points per pass the twisted halves (2000 x 2000 bits) and
    strided passes; squares and low halves in both. (The field fixture's m31x3 cases run the
    CPUs' rule: the run-time prime written out for small batches, the baked kernels for large
    ones.)"""
    ctx = clbig.current_context()
    if ctx.profile.facts.intel_cpu_runtime:   # its compiler crashes on the run-time prime: never taken
        assert mul_ntt.baked_primes(ctx, 1) and mul_ntt.baked_primes(ctx, 1 << 30)
        return
    baked = False
    monkeypatch.setenv("CLBIG_NTT_FIELD", "m31x3")
    monkeypatch.setenv("CLBIG_NTT_BAKED_PRIMES", "0")
    for points, loops in ((None, (True,)), ("64", (True,))):
        if points:
            monkeypatch.setenv("CLBIG_NTT_POINTS", points)
        for sides in loops:
            monkeypatch.setenv("CLBIG_NTT_SIDES_LOOP", "1" if sides else "0")
            tag = f"baked={baked} loop={sides} points={points}"
            for ba, bb, n in ((33, 7, 5), (2000, 2000, 4), (4128, 4064, 3)):
                run(mul_pairs(rng, ba, bb, n), ba, bb, f"ntt {tag} {ba}x{bb}")
            run(mul_pairs(rng, 3000, 70, 5), 3000, 70, f"ntt {tag} low", bits=1000)
            xs = [mask(2000)] + [rng.getrandbits(2000) for _ in range(3)]
            a = clbig.array(xs, bits=2000)
            check_values(clbig.mul(a, a, algorithm="ntt").tolist(), [gmpy2.mpz(x) ** 2 for x in xs],
                         f"ntt {tag} square", (xs,))
    L, da, db = mul_ntt.transform_log(63, 63, 4000, "m31x3")
    assert mul_ntt.twisted(clbig.current_context(), L, da, db, 4)   # 2000 x 2000 at 64 points


def test_m31_prime_form_choice(monkeypatch):
    """Small batches (a first call's products, clbig.prod's top levels) take the run-time prime:
    one pass kernel for the three primes; larger batches, and every batch on Intel's CPU
    runtime, the baked one: three. Both give exact products across the threshold."""
    import dataclasses
    ctx = clbig.current_context()
    intel = ctx.profile.facts.intel_cpu_runtime
    monkeypatch.delenv("CLBIG_NTT_BAKED_PRIMES", raising=False)
    top = mul_ntt.RUNTIME_PRIME_POINTS
    for on_intel in (False, True):
        monkeypatch.setattr(ctx.profile, "facts", dataclasses.replace(ctx.profile.facts, intel_cpu_runtime=on_intel))
        assert mul_ntt.baked_primes(ctx, top) == on_intel and mul_ntt.baked_primes(ctx, top + 1)
    monkeypatch.undo()
    f = mul_ntt.FIELDS["m31x3"]
    for baked, kinds in ((False, 1), (True, 3)):
        if baked or not intel:   # (Intel's compiler crashes on the run-time prime)
            per_prime = mul_ntt._setup(ctx, f, 16, 16, 1024, False, baked)[8]
            assert len({id(pp["b_last"][0]) for pp in per_prime}) == kinds
    monkeypatch.setenv("CLBIG_NTT_FIELD", "m31x3")
    x = mask(512)
    for n in (1, top // 64 + 1):           # 2^6 points each: the run-time prime, then baked
        xs = [x - i for i in range(n)]
        got = clbig.mul(clbig.array(xs), x, algorithm="ntt").tolist()
        assert got == [v * x for v in xs], n
