"""The FP64 Montgomery kernel (clbig.mont52) against gmpy2, forced on (CLBIG_MONT_FP64=1) and
through the routing that picks it (modular._kernel).

Its own edges: one digit (N = 1) and digit counts that are not limb multiples, operands longer
than m but below R = 2^(51 N) (not reduced first: mulmod's 3m bound), a = m and a = 2m (the
final mont(x, 1) lands on m, which must read 0), moduli of all-ones limbs and 2^k + 1, all-ones
exponents and one exponent for the batch, m's digits in local memory (MLOC), and the fallback to
the int32 kernel where no plan fits (too many digits, no FP64)."""
import dataclasses

import gmpy2
import pytest

import clbig
from clbig.mpz import modular
from clbig.mpn import mont52
from clbig.runtime import config, profile, render
from conftest import check_values, mask, rand_value


@pytest.fixture
def fp64(monkeypatch):
    monkeypatch.setenv("CLBIG_MONT_FP64", "1")


def moduli(rng, bits, n):
    ms = [mask(bits), (1 << (bits - 1)) + 1, 3, 1, mask(bits) ^ 2]
    while len(ms) < n:
        ms.append(rand_value(rng, bits) | 1 | (1 << (bits - 1)))
    return ms[:n]


def powmods(a, e, m):
    return [int(gmpy2.powmod(x, y, z)) for x, y, z in zip(a, e, m)]


@pytest.mark.parametrize("bits, sqr", [(32, "24"), (96, "0"), (96, "24"), (1000, "0"), (1000, "24"),
                                       (2080, "0")])
def test_powmod_mulmod(fp64, ctx, monkeypatch, rng, bits, sqr):
    monkeypatch.setenv("CLBIG_MONT52_SQR_MAX", sqr)
    n = 11
    ms = moduli(rng, bits, n)
    pl = mont52.plan(ctx, -(-bits // 32), n)
    assert pl is not None and modular._kernel(ctx, modular.Modulus(ms), n)[0] is mont52
    top = 32 * mont52.fit(pl)                       # operands below R pass unreduced
    av = [0, 1, ms[2] - 1, ms[3], 2 * ms[4], mask(top)] + [rand_value(rng, top) for _ in range(n - 6)]
    ev = [5, 0, 1, mask(70), 2, rng.getrandbits(70)] + [rand_value(rng, 70) for _ in range(n - 6)]
    check_values(modular.powmod(av, ev, ms).tolist(), powmods(av, ev, ms), f"powmod {bits}", (av, ev, ms))
    bv = [mask(top)] * 3 + [rand_value(rng, top) for _ in range(n - 3)]
    check_values(modular.mulmod(av, bv, ms).tolist(), [x * y % m for x, y, m in zip(av, bv, ms)],
                 f"mulmod {bits}", (av, bv, ms))


# The unrolled squares with m in local memory at 1000 bits took Intel's CPU compiler 320 s
# (2026-11-27, CI's pass 2); at 520 bits (11 digits, odd) the kernel has the same structure.
@pytest.mark.parametrize("mloc, sqr, bits", [("0", "0", 1000), ("1", "24", 520)])
def test_shared_operands_and_batch_lengths(fp64, monkeypatch, rng, mloc, sqr, bits):
    """One modulus or one exponent for the batch; batch lengths 1 and 65 (a padding group);
    squares by mont52_mul and by mont52_sqr (the GPUs' default up to SQR_MAX digits)."""
    monkeypatch.setenv("CLBIG_MONT52_MLOC", mloc)
    monkeypatch.setenv("CLBIG_MONT52_SQR_MAX", sqr)
    m = rand_value(rng, bits) | 1 | (1 << (bits - 1))
    for n in (1, 65):
        av = [m - 1] + [rand_value(rng, bits) for _ in range(n - 1)]
        ev = [mask(64)] + [rng.getrandbits(64) for _ in range(n - 1)]
        check_values(modular.powmod(av, ev, m).tolist(), powmods(av, ev, [m] * n), f"shared m n={n}")
        e = rng.getrandbits(200) | 1
        ms = moduli(rng, bits, n)
        check_values(modular.powmod(av, e, ms).tolist(), powmods(av, [e] * n, ms), f"shared e n={n}")
        check_values(modular.mulmod(av, av[::-1], m).tolist(), [x * y % m for x, y in zip(av, av[::-1])],
                     f"mulmod shared m n={n}")


def test_even_moduli_and_long_operands(fp64, rng):
    """Even rows go through CRT beside the FP64 odd rows; a base longer than R is reduced first."""
    bits = 512
    ms = [mask(bits) ^ 1, 1 << 300, rand_value(rng, bits) | 1, 6]
    av = [rng.getrandbits(3 * bits) for _ in ms]
    ev = [rng.getrandbits(100) for _ in ms]
    check_values(modular.powmod(av, ev, ms).tolist(), powmods(av, ev, ms), "even / long")
    check_values(modular.mulmod(av, ev, ms).tolist(), [x * y % m for x, y, m in zip(av, ev, ms)], "mulmod")


def test_falls_back_where_no_plan(fp64, ctx, monkeypatch, rng):
    """Too many digits, or no double precision: the int32 kernel answers, exactly."""
    ms = moduli(rng, 3000, 3)
    assert mont52.plan(ctx, -(-3000 // 32), 3) is None        # 59 digits > N_MAX
    assert modular._kernel(ctx, modular.Modulus(ms), 3)[0] is not mont52
    av, ev = [rand_value(rng, 3000) for _ in ms], [rng.getrandbits(40) for _ in ms]
    check_values(modular.powmod(av, ev, ms).tolist(), powmods(av, ev, ms), "3000 bits")
    monkeypatch.setattr(ctx.profile, "facts", dataclasses.replace(ctx.profile.facts, exact_fma=False))
    assert mont52.plan(ctx, 4, 3) is None
    ms = moduli(rng, 128, 3)
    check_values(modular.powmod(av, ev, ms).tolist(), powmods(av, ev, ms), "no fp64")
    ctx.profile.clear("mul")   # crossovers the reductions' products read under the fake facts


def test_routing(ctx, monkeypatch):
    """CLBIG_MONT_FP64 decides where set; else fast-FP64 devices (this CPU is one)."""
    monkeypatch.setenv("CLBIG_MONT_FP64", "0")
    assert not mont52.wanted(ctx, 32, 1000)
    monkeypatch.setenv("CLBIG_MONT_FP64", "1")
    assert mont52.wanted(ctx, 32, 1000)
    monkeypatch.delenv("CLBIG_MONT_FP64")
    # a batch large enough for GPUs too (they take the kernel from FILL instances per unit)
    assert mont52.wanted(ctx, 32, 10 ** 6) == (ctx.profile.facts.exact_fma and ctx.profile.facts.fast_fp64)


def test_digit_counts():
    """R = 2^(51 N) > 4m for every m of nm limbs, and the fewest such digits."""
    for nm in range(1, 80):
        N = mont52.digits(nm)
        assert 51 * N >= 32 * nm + 2 > 51 * (N - 1)


def _fake_device(name, kind="GPU", cc=None, fp=None, cus=100, platform="NVIDIA CUDA",
                 platform_version="OpenCL 3.0 CUDA", version="OpenCL 3.0 CUDA"):
    """A stand-in for a pyopencl Device with what profile.DeviceFacts.of reads."""
    import pyopencl as cl
    from types import SimpleNamespace as NS
    ext = "cl_khr_fp64" + (" cl_nv_device_attribute_query" if cc else "")
    return NS(type=getattr(cl.device_type, kind), name=name, extensions=ext,
              double_fp_config=int(cl.device_fp_config.FMA) if fp is None else fp,
              max_compute_units=cus, max_mem_alloc_size=1 << 30, max_parameter_size=4352,
              platform=NS(name=platform, version=platform_version), version=version,
              compute_capability_major_nv=cc and cc[0], compute_capability_minor_nv=cc and cc[1])


def test_device_facts_fp64():
    """The profile's FP64 facts: an exact fma from the fp config; fast FP64 on CPUs, and on GPUs
    by vendor table (half-rate FP64: NV_FAST_FP64 by compute capability, AMD_FAST_FP64 by gfx
    name, Intel's Data Center GPU Max)."""
    facts = lambda *a, **kw: profile.DeviceFacts.of(_fake_device(*a, **kw), 1 << 40)
    h200 = facts("NVIDIA H200", cc=(9, 0))
    assert h200.exact_fma and h200.fast_fp64 and h200.is_gpu and h200.nvidia and h200.compute_units == 100
    assert not facts("NVIDIA GeForce RTX 4090", cc=(8, 9)).fast_fp64
    assert facts("gfx90a:sramecc+:xnack-", platform="AMD Accelerated Parallel Processing").fast_fp64
    assert not facts("gfx1100", platform="AMD Accelerated Parallel Processing").fast_fp64
    assert facts("Intel(R) Data Center GPU Max 1550", platform="Intel(R) OpenCL Graphics").fast_fp64
    assert not facts("NVIDIA H200", cc=(9, 0), fp=0).exact_fma
    cpu = facts("AMD EPYC", kind="CPU", platform="Portable Computing Language")
    assert cpu.fast_fp64 and cpu.exact_fma and not cpu.is_gpu and not cpu.intel_cpu_runtime
    assert facts("Intel(R) Xeon(R)", kind="CPU", platform="Intel(R) OpenCL").intel_cpu_runtime
    assert facts("NVIDIA H200", cc=(9, 0)).max_alloc == 1 << 30
    dev = _fake_device("NVIDIA A100", cc=(8, 0))
    assert profile._fast_fp64_gpu(dev) and (8, 0) in profile.NV_FAST_FP64
    # PyPI's PoCL 3.0 (LLVM 14) aborts on fma(double8) when it targets AMD Zen; 3.1 does not
    pocl = lambda llvm, target: facts("pthread-AMD EPYC", kind="CPU", platform="Portable Computing Language",
                                      platform_version=f"OpenCL 3.0 PoCL 3.0-rc2  Linux, Release, RELOC, LLVM {llvm}.0.6, SLEEF",
                                      version=f"OpenCL 3.0 PoCL HSTR: pthread-x86_64-unknown-linux-gnu-{target}")
    assert not pocl(14, "znver3").wide_fma
    assert pocl(15, "znver3").wide_fma and pocl(14, "skylake-avx512").wide_fma
    assert h200.wide_fma


def test_gpu_routing_rules(monkeypatch):
    """GPUs take the FP64 kernel where FP64 is fast and its fma exact (the profile's facts),
    from FILL instances per compute unit."""
    from types import SimpleNamespace as NS
    monkeypatch.delenv("CLBIG_MONT_FP64", raising=False)

    def gpu(name, cc=None, fp=None, cus=100):
        facts = profile.DeviceFacts.of(_fake_device(name, cc=cc, fp=fp, cus=cus), 1 << 40)
        return NS(profile=NS(settings=config.settings(), facts=facts))

    h200 = gpu("NVIDIA H200", (9, 0))
    assert mont52.wanted(h200, 64, mont52.FILL * 100) and not mont52.wanted(h200, 64, mont52.FILL * 100 - 1)
    assert not mont52.wanted(gpu("NVIDIA GeForce RTX 4090", (8, 9)), 64, 10 ** 6)
    assert mont52.wanted(gpu("gfx90a:sramecc+:xnack-"), 64, 10 ** 6)
    assert not mont52.wanted(gpu("gfx1100"), 64, 10 ** 6)
    assert not mont52.wanted(gpu("NVIDIA H200", (9, 0), fp=0), 64, 10 ** 6)
    monkeypatch.setenv("CLBIG_MONT52_FILL", "0")
    assert mont52.wanted(gpu("NVIDIA H200", (9, 0)), 64, 1)   # a fresh snapshot of the settings


COOP = {"CLBIG_MONT_FP64": "1", "CLBIG_MONT52_COOP": "1"}


@pytest.mark.parametrize("bits, env", [
    (96, {"CLBIG_MONT52_NMAX": "1", "CLBIG_MONT52_SMAX": "2"}),      # 2 items of 2 digits
    (1000, {"CLBIG_MONT52_NMAX": "1", "CLBIG_MONT52_SMAX": "8"}),    # 4 x 5
    (1000, {"CLBIG_MONT52_NMAX": "1", "CLBIG_MONT52_SMAX": "8", "CLBIG_MONT52_COOP_MREG": "0"}),  # m in local memory
    (3072, {}),                                                      # the default: 4 x 16 (register cap where PTX)
    # squares by mont52_sqr_coop: 2 x 2, 3 x 7 (C odd, S made even), 4 x 5, and the default 7 x 12
    (96, {"CLBIG_MONT52_NMAX": "1", "CLBIG_MONT52_SMAX": "2", "CLBIG_MONT52_COOP_SQR": "1"}),
    (1000, {"CLBIG_MONT52_NMAX": "1", "CLBIG_MONT52_COOP_C": "3", "CLBIG_MONT52_COOP_SQR": "1"}),
    (1000, {"CLBIG_MONT52_NMAX": "1", "CLBIG_MONT52_SMAX": "5", "CLBIG_MONT52_COOP_SQR": "1",
            "CLBIG_MONT52_COOP_MREG": "0"}),
    (4096, {}),
])
def test_coop_powmod(ctx, monkeypatch, rng, bits, env):
    """An instance over several items (mont52_coop.cl.mako): per-instance and shared moduli and
    exponents, a = m and 2m (x = m at the end reads 0), zero and all-ones exponents, a padding
    instance, even rows beside."""
    for k, v in {**COOP, **env}.items():
        monkeypatch.setenv(k, v)
    n = 11
    ms = moduli(rng, bits, n)
    pl = mont52.plan(ctx, -(-bits // 32), n, coop=True)
    assert pl["C"] > 1 and modular._kernel(ctx, modular.Modulus(ms), n, coop=True)[1]["C"] == pl["C"]
    gpu = bool(ctx.device.type & 4)                                               # CL_DEVICE_TYPE_GPU
    assert pl["SQR"] == (env.get("CLBIG_MONT52_COOP_SQR", "1" if bits == 4096 and gpu else "0") == "1")
    assert pl["C"] * pl["S"] % 2 == 0 or not pl["SQR"]
    top = 32 * mont52.fit(pl)
    av = [0, 1, ms[2] - 1, ms[3], 2 * ms[4], mask(top)] + [rand_value(rng, top) for _ in range(n - 6)]
    ev = [5, 0, 1, mask(70), 2, rng.getrandbits(70)] + [rand_value(rng, 70) for _ in range(n - 6)]
    check_values(modular.powmod(av, ev, ms).tolist(), powmods(av, ev, ms), f"coop {bits}", (av, ev, ms))
    m, e = ms[5], rng.getrandbits(90) | 1
    check_values(modular.powmod(av, ev, m).tolist(), powmods(av, ev, [m] * n), f"coop shared m {bits}")
    check_values(modular.powmod(av, e, ms).tolist(), powmods(av, [e] * n, ms), f"coop shared e {bits}")
    even = [x ^ 1 if i % 3 == 0 and x > 1 else x for i, x in enumerate(ms)]
    check_values(modular.powmod(av, ev, even).tolist(), powmods(av, ev, even), f"coop even {bits}")


def test_coop_small_groups(small_ctx, monkeypatch, rng):
    """Groups of a few items (two instances of 4 items per group of 8): several groups."""
    for k, v in {**COOP, "CLBIG_MONT52_NMAX": "1", "CLBIG_MONT52_SMAX": "3"}.items():
        monkeypatch.setenv(k, v)
    ms = moduli(rng, 300, 5)
    assert mont52.plan(small_ctx, 10, 5, coop=True)["IPB"] <= 2
    av, ev = [rand_value(rng, 300) for _ in ms], [rand_value(rng, 40) for _ in ms]
    check_values(modular.powmod(av, ev, ms).tolist(), powmods(av, ev, ms), "coop small groups")


def test_coop_routing(ctx, monkeypatch):
    """GPUs and CPUs spread instances of 49..192 digits (mulmod never); 10240 bits stays int32;
    squares by their own rows on GPUs only, CPUs' groups of CPU_ITEMS items."""
    monkeypatch.delenv("CLBIG_MONT52_COOP", raising=False)
    gpu = bool(ctx.device.type & 4)                                               # CL_DEVICE_TYPE_GPU
    assert mont52.wanted_coop(ctx, 96, 10 ** 5)
    assert mont52.wanted_coop(ctx, 256, 10 ** 5)                                # 8192 bits
    pl = mont52.plan(ctx, 128, 10 ** 5, coop=True)                               # 4096 bits
    assert pl["SQR"] == gpu and (gpu or pl["WG"] <= mont52.CPU_ITEMS)
    assert not mont52.wanted_coop(ctx, 320, 10 ** 5)
    assert mont52.plan(ctx, 96, 10 ** 5) is None                                 # not without coop
    monkeypatch.setenv("CLBIG_MONT_FP64", "1")
    assert modular._kernel(ctx, modular.Modulus([3]), 1)[0] is mont52


@pytest.mark.parametrize("bits", [96, 1000])
def test_shared_modulus_staged(fp64, ctx, monkeypatch, rng, bits):
    """One modulus for the batch staged once per group (CLBIG_MONT52_MSHARED=1; GPUs' default
    beyond REG_MAX digits): padding items stay for the copy's barrier, zero window digits
    multiply by T[0]; batch lengths 1, 7 and 65, a small-group context for several groups."""
    monkeypatch.setenv("CLBIG_MONT52_MSHARED", "1")
    built = []
    real = mont52.kernel
    monkeypatch.setattr(mont52, "kernel", lambda *a, **kw: built.append(kw.get("MSH")) or real(*a, **kw))
    m = rand_value(rng, bits) | 1 | (1 << (bits - 1))
    for n in (1, 7, 65):
        av = [0, m, m - 1][:n] + [rand_value(rng, bits) for _ in range(n - 3)]
        ev = [0x100, 0, mask(64)][:n] + [rng.getrandbits(64) for _ in range(n - 3)]  # zero windows
        check_values(modular.powmod(av, ev, m).tolist(), powmods(av, ev, [m] * n), f"staged m n={n}")
        check_values(modular.mulmod(av, ev, m).tolist(), [x * y % m for x, y in zip(av, ev)], f"mulmod n={n}")
    assert True in built


def test_register_cap_ptx():
    """render.MAXREG: `.maxnreg` goes among each entry's directives, before its body; text with
    no entry (not PTX: PoCL's or Intel's binaries) is left alone."""
    ptx = (".version 9.0\n.target sm_90\n.entry a(\n .param .u64 a_p\n)\n.reqntid 64, 1, 1\n{\n ret;\n}\n"
           ".entry b(\n)\n{\n ret;\n}\n")
    got = render.ptx_with_maxnreg(ptx, 168)
    assert got.count(".maxnreg 168\n{") == 2 and got.replace(".maxnreg 168\n", "") == ptx
    assert got.index(".reqntid") < got.index(".maxnreg") < got.index(" ret;")
    assert render.ptx_with_maxnreg("\x7fELF binary", 168) is None


def test_register_cap_builds(ctx, monkeypatch, rng):
    """The cooperative kernel with and without its cap (a no-op where the binary is not PTX)
    gives the same exact results."""
    monkeypatch.setenv("CLBIG_MONT_FP64", "1")
    monkeypatch.setenv("CLBIG_MONT52_COOP", "1")
    ms = moduli(rng, 1700, 3)
    av, ev = [rand_value(rng, 1700) for _ in ms], [rand_value(rng, 60) for _ in ms]
    want = powmods(av, ev, ms)
    for regs in ("0", "96"):
        monkeypatch.setenv("CLBIG_MONT52_COOP_REGS", regs)
        check_values(modular.powmod(av, ev, ms).tolist(), want, f"register cap {regs}")
