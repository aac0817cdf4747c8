"""Every bad-input rule raises the documented exception, naming the offending index."""
import importlib

import numpy as np
import pytest

import clbig
from conftest import mask


# -- values -------------------------------------------------------------------------------------
@pytest.mark.parametrize("vals,idx", [([-1], 0), ([1, 2, 3, -4], 3), ([0, -(2 ** 100), -1], 1)])
def test_negative_value(vals, idx):
    """Arrays hold signed values; the unsigned (modular) calls name the first negative one."""
    assert clbig.array(vals).tolist() == vals
    assert clbig.array(vals, bits=128).tolist() == vals
    with pytest.raises(ValueError, match=rf"element {idx}\b"):
        clbig.add_fixed(vals, 0)
    with pytest.raises(ValueError, match=rf"element {idx}\b"):
        clbig.mul_low(clbig.array(vals, bits=128), 1)


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
        clbig.sub_fixed([0, 1, -2, -3], 0)
    with pytest.raises(TypeError, match=r"element 1\b"):
        clbig.array([0, 1.5, "x"])


def test_negative_python_int_operand():
    a = clbig.array([1, 2, 3])
    assert (a + (-1)).tolist() == [0, 1, 2] and ((-1) + a).tolist() == [0, 1, 2]
    assert (a - (-1)).tolist() == [2, 3, 4] and (a < -1).tolist() == [False] * 3
    with pytest.raises(ValueError, match=r"element 0\b"):
        clbig.add_fixed(a, -1)
    with pytest.raises(ValueError, match=r"element 0\b"):
        clbig.sub_fixed(-1, a)
    with pytest.raises(ValueError, match=r"element 0\b"):
        clbig.mul_low(a, -1)


def test_float_operand_refused():
    a = clbig.array([1, 2, 3])
    with pytest.raises(TypeError):
        a + 1.0
    with pytest.raises(TypeError):
        a * 2.0


# -- subtraction below zero: no longer an error, the exact (negative) difference ----------------
def _diff(a, b, xs, ys):
    got = (a - b).tolist()
    assert got == [x - y for x, y in zip(xs, ys)]
    return got


@pytest.mark.parametrize("bits", [32, 96, 1056])
def test_sub_negative_at_one_index(bits):
    xs = [5, mask(bits), 2 ** (bits - 1), 0, 7, 1]
    ys = [5, 1, 2 ** (bits - 1) + 1, 1, 7, 2]
    a, b = clbig.array(xs, bits=bits), clbig.array(ys, bits=bits)
    assert _diff(a, b, xs, ys)[2] == -1
    assert clbig.sub(a, b).tolist() == [x - y for x, y in zip(xs, ys)]
    assert clbig.sub(a, b).bits == bits


def test_sub_negative_last_and_only_index():
    assert (clbig.array([0]) - clbig.array([1])).tolist() == [-1]
    xs = [3] * 20 + [0]
    _diff(clbig.array(xs), clbig.array([1] * 21), xs, [1] * 21)


def test_sub_negative_wider_subtrahend():
    """b > a because of a high limb a does not even have."""
    a = clbig.array([9, 9, 9], bits=32)
    b = clbig.array([1, 2 ** 1000, 3], bits=2048)
    _diff(a, b, [9, 9, 9], [1, 2 ** 1000, 3])


def test_sub_negative_broadcast():
    xs = [10, 11, 12, 9, 10]
    a = clbig.array(xs, bits=64)
    assert (a - 10).tolist() == [x - 10 for x in xs]
    assert (a - clbig.array([10], bits=64)).tolist() == [x - 10 for x in xs]
    assert (10 - a).tolist() == [10 - x for x in xs]
    assert (clbig.array([11], bits=64) - a).tolist() == [11 - x for x in xs]


def test_sub_negative_small_workgroups(small_ctx):
    bits = 2 ** 14
    xs = [mask(bits), 1 << (bits - 1), 1 << 5000, 1 << 4096]
    ys = [1, 1, (1 << 5000) + 1, 1]
    _diff(clbig.array(xs, bits=bits), clbig.array(ys, bits=bits), xs, ys)


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


# -- sizes the device cannot hold: MemoryError with the size and the device's limit ------------
def _limit_named(msg):
    return "max_mem_alloc_size" in msg and "GiB" in msg


def test_array_too_large_for_the_device():
    with pytest.raises(MemoryError) as ei:
        clbig.array([1], bits=2 ** 40)
    assert "128 GiB" in str(ei.value) and _limit_named(str(ei.value))
    with pytest.raises(MemoryError) as ei:
        clbig.from_limbs(np.zeros((1, 1), np.uint32), bits=1, ctx=None) << (2 ** 40 - 100)
    assert "a << 1099511627676" in str(ei.value) and _limit_named(str(ei.value))


def test_results_too_large_refused_before_any_allocation():
    a = clbig.array([3, 5], bits=64)
    for f, what in ((lambda: clbig.mul_low(a, a, bits=2 ** 39), "mul_low"),
                    (lambda: clbig.add_fixed(a, a, bits=2 ** 39), "add_fixed"),
                    (lambda: clbig.sub_fixed(a, a, bits=2 ** 39), "sub_fixed")):
        with pytest.raises(MemoryError, match=what) as ei:
            f()
        assert _limit_named(str(ei.value))
    with pytest.raises(OverflowError, match=r"2\*\*32 - 1"):
        importlib.import_module("clbig.mpz.array").check_fits(clbig.current_context(), 2 ** 32, 32, "a batch")


def test_scratch_buffer_refused_is_a_memory_error(monkeypatch):
    """A buffer the driver refuses inside an operation (scratch space) is a MemoryError naming
    the operation and the device's limits, not pyopencl's INVALID_BUFFER_SIZE."""
    from clbig.mpn import add_n
    monkeypatch.setattr(add_n, "addsub", lambda ctx, *a, **k: ctx.buffer(2 ** 62))
    with pytest.raises(MemoryError, match=r"clbig\.add\b.*max_mem_alloc_size"):
        clbig.array([1]) + clbig.array([2])


@pytest.mark.parametrize("k", [64, 65, 1000, 2 ** 40, 2 ** 70, 2 ** 200])
def test_right_shift_past_every_bit_gives_zero(k):
    xs = [2 ** 64 - 1, 1, 0, 2 ** 63]
    r = clbig.array(xs, bits=64) >> k
    assert r.tolist() == [x >> k for x in xs] and r.bits == 1
    assert clbig.shift_right(clbig.array(xs, bits=64), k).tolist() == [0] * 4


def test_left_shift_beyond_the_width_limit():
    with pytest.raises(OverflowError, match=r"a << 1180591620717411303424"):
        clbig.array([1]) << 2 ** 70
    # a far bit is refused by the same check, not made on the host first (2**2**40: 128 GiB)
    with pytest.raises(OverflowError, match=r"a << 1099511627776"):
        clbig.bit_set([1, 2], 2 ** 40)


# -- argument types and choices -------------------------------------------------------------------
@pytest.mark.parametrize("which", ["foo", "LT", "", None, 1])
def test_compare_unknown_comparison(which):
    a = clbig.array([1, 2])
    with pytest.raises(ValueError, match=r"unknown comparison .*choose from cmp, lt, le, gt, ge, eq, ne"):
        clbig.compare(a, a, which)


@pytest.mark.parametrize("bad", [32.5, "64", True, None, 2.0])
def test_bits_of_the_wrong_type(bad):
    limbs = np.zeros((2, 2), np.uint32)
    a = clbig.array([1, 2])
    calls = [lambda: clbig.from_limbs(limbs, bits=bad), lambda: clbig.array([1], bits=bad),
             lambda: clbig.add_fixed(a, a, bits=bad), lambda: clbig.sub_fixed(a, a, bits=bad),
             lambda: clbig.mul_low(a, a, bits=bad), lambda: clbig.fused.six_add(a, a, bits=bad)]
    if bad is None:   # None means the default width
        calls = calls[:1]
        assert clbig.from_limbs(limbs, bits=None).bits == 64
        return
    for f in calls:
        with pytest.raises(TypeError, match=r"bits must be a positive integer, got (float|str|bool)"):
            f()


@pytest.mark.parametrize("bad", [0, -1, -(2 ** 70)])
def test_bits_not_positive(bad):
    a = clbig.array([1, 2])
    for f in (lambda: clbig.from_limbs(np.zeros((2, 2), np.uint32), bits=bad),
              lambda: clbig.array([0], bits=bad), lambda: clbig.add_fixed(a, a, bits=bad),
              lambda: clbig.mul_low(a, a, bits=bad)):
        with pytest.raises(ValueError, match=rf"bits must be a positive integer, got {bad}"):
            f()


def test_from_limbs_bits_beyond_the_limbs():
    with pytest.raises(ValueError, match=r"bits=65 .* 64 bits the limbs hold"):
        clbig.from_limbs(np.zeros((2, 2), np.uint32), bits=65)


def test_from_limbs_either_byte_order():
    vals = [2 ** 64 - 1, 2 ** 32 + 5, 0]
    le = np.array([[v & 0xFFFFFFFF, v >> 32] for v in vals], np.uint32)
    assert clbig.from_limbs(le.astype(">u4")).tolist() == vals
    assert clbig.from_limbs(np.array(vals, np.uint64).astype(">u8")[:, None]).tolist() == vals
    with pytest.raises(TypeError, match="uint32 or uint64 limbs, got int64"):
        clbig.from_limbs(le.astype(np.int64))


@pytest.mark.parametrize("bad", ["gpu", 0, object()])
def test_ctx_of_the_wrong_type(bad):
    with pytest.raises(TypeError, match=r"ctx must be a clbig.Context, got"):
        clbig.array([1], ctx=bad)
    with pytest.raises(TypeError, match=r"ctx must be a clbig.Context, got"):
        clbig.from_limbs(np.zeros((1, 1), np.uint32), ctx=bad)


@pytest.mark.parametrize("bad", ["123", b"12", {1: 2}, {3}])
def test_array_of_a_string_or_mapping(bad):
    with pytest.raises(TypeError, match=rf"expects a sequence of integers, got {type(bad).__name__}"):
        clbig.array(bad)


@pytest.mark.parametrize("sel", ["", "   "])
def test_empty_device_selector(sel):
    with pytest.raises(ValueError, match="device selector is empty"):
        clbig.Context(sel)


def test_pow_exponent():
    assert (clbig.array([3, -2]) ** 3).tolist() == [27, -8]
    with pytest.raises(ValueError, match=r"negative exponent"):
        clbig.array([3]) ** -2
    with pytest.raises(TypeError, match=r"pow\(x, e, m\) or clbig.powmod"):
        clbig.array([3]) ** 2.0


@pytest.mark.parametrize("bad,exc", [(3.5, TypeError), (True, TypeError), ({0}, TypeError)])   # a list is several devices (test_multi)
def test_context_selector_of_the_wrong_type(bad, exc):
    with pytest.raises(exc, match=r"device must be an index, a name or type string"):
        clbig.Context(bad)


@pytest.mark.parametrize("bad,exc", [(0.5, TypeError), ("a", TypeError), (True, TypeError),
                                     (0, ValueError), (-3, ValueError)])
def test_max_work_group_size_checked(bad, exc):
    with pytest.raises(exc, match=r"max_work_group_size must be"):
        clbig.Context(max_work_group_size=bad)


def test_bad_clbig_device_names_the_variable(monkeypatch):
    monkeypatch.setenv("CLBIG_DEVICE", "no-such-device-zzqx")
    with pytest.raises(ValueError, match=r"CLBIG_DEVICE='no-such-device-zzqx': no OpenCL device matches"):
        clbig.Context()


# -- the OpenCL setup: a failing compiler, unusable or corrupt cache folders ----------------------
def test_failing_compiler_named_when_the_context_is_made(monkeypatch):
    """A device whose compiler fails (here: options that break every kernel) is a SetupError
    naming the device and the compiler's message at Context(), not at the first operation."""
    from clbig.runtime.devices import SetupError
    name = clbig.current_context().device.name.strip()
    monkeypatch.setenv("CLBIG_CL_OPTIONS", "-Dx=(")
    with pytest.raises(SetupError) as ei:
        clbig.Context(clbig.current_context().device)
    msg = str(ei.value)
    assert name in msg and "CLBIG_CL_OPTIONS='-Dx=('" in msg and "BUILD_PROGRAM_FAILURE" in msg
    assert isinstance(ei.value, RuntimeError)


def test_unbalanced_compiler_options_named(monkeypatch):
    monkeypatch.setenv("CLBIG_CL_OPTIONS", '-DX="1')
    with pytest.raises(ValueError, match=r"CLBIG_CL_OPTIONS='-DX=\"1': No closing quotation"):
        clbig.Context(clbig.current_context().device)


def test_corrupt_pyopencl_cache_recovers(tmp_path):
    """pytools' sqlite file that pyopencl keeps its launch wrappers in, corrupt: clbig moves it
    aside with a warning naming it and computes (a fresh process, where it is first opened)."""
    import os
    import subprocess
    import sys
    import platformdirs
    # the cache exists only where pyopencl caches: not under PYOPENCL_NO_CACHE, so neither
    # process here inherits it
    base = {k: v for k, v in os.environ.items() if k != "PYOPENCL_NO_CACHE"}
    name = subprocess.run([sys.executable, "-c", "import os, pyopencl.invoker as i; "
                           "print(os.path.basename(i.invoker_cache.filename))"],
                          env=base, capture_output=True, text=True, timeout=120, check=True).stdout.strip()
    (tmp_path / "pytools").mkdir()
    (tmp_path / "pytools" / name).write_bytes(b"this is not an sqlite database" * 40)
    env = dict(base, XDG_CACHE_HOME=str(tmp_path),
               POCL_CACHE_DIR=os.environ.get("POCL_CACHE_DIR") or os.path.join(platformdirs.user_cache_dir(), "pocl"))
    code = "import clbig; print((clbig.array([2**64 - 1, 5]) + 1).tolist())"
    p = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=300,
                       cwd=tmp_path)   # not the checkout: `-c` imports from the current directory
    assert p.returncode == 0, p.stderr
    assert p.stdout.strip() == str([2 ** 64, 6])
    assert "corrupt" in p.stderr and name in p.stderr
    assert (tmp_path / "pytools" / (name + ".corrupt")).exists()


# -- the tuning file -------------------------------------------------------------------------------
@pytest.mark.parametrize("text,why", [
    ("[1, 2]", "a JSON list, not an object of devices"),
    ("{\"dev\": [1]}", "an entry is a list"),
    ("{\"dev\": {\"ntt_from_bits\": \"big\"}}", "ntt_from_bits = 'big' is not a positive integer"),
    ("{\"dev\": {\"winners\": {\"7\": \"karatsuba\"}}}", "winners is not an object"),
    ("not json", "not JSON"),
])
def test_tuning_file_of_the_wrong_shape(tmp_path, monkeypatch, text, why):
    """Valid JSON of the wrong shape (or no JSON) is ignored with a warning naming the file and
    what is wrong; auto then uses the defaults."""
    from clbig.runtime import tuned as tune
    f = tmp_path / "tuning.json"
    f.write_text(text)
    monkeypatch.setenv("CLBIG_TUNING_FILE", str(f))
    with pytest.warns(RuntimeWarning, match=str(f)) as rec:
        assert tune.read_table(f).get("dev") is None
    assert why in str(rec[0].message)
    with pytest.warns(RuntimeWarning):
        assert tune.tuned(clbig.current_context()) == {}


def test_tuning_file_good_entries_kept(tmp_path):
    from clbig.runtime import tuned as tune
    f = tmp_path / "tuning.json"
    f.write_text('{"good": {"ntt_from_bits": 4096, "winners": {"7": "ntt"}}, "bad": {"ssa_from_bits": -1}}')
    with pytest.warns(RuntimeWarning, match="'bad'"):
        assert tune.read_table(f) == {"good": {"ntt_from_bits": 4096, "winners": {"7": "ntt"}}}


def test_tune_refuses_an_unwritable_file_before_measuring(tmp_path, monkeypatch):
    from clbig.tuning import measure as tune
    f = tmp_path / "a_file"
    f.write_text("x")
    monkeypatch.setenv("CLBIG_TUNING_FILE", str(f / "tuning.json"))
    monkeypatch.setattr(tune, "measure", lambda *a, **k: pytest.fail("measured before the check"))
    with pytest.raises(OSError, match=rf"cannot write the tuning file {f}.*CLBIG_TUNING_FILE"):
        tune.tune(clbig.current_context(), quick=True, progress=None)
    with pytest.raises(TypeError, match="ctx must be a clbig.Context"):
        tune.tune("gpu")


# -- command lines: one message, an exit status, no traceback -----------------------------------
def _cli(main, argv, capsys):
    rc = main(argv)
    err = capsys.readouterr().err
    assert "Traceback" not in err
    return rc, err


@pytest.mark.parametrize("cmd", ["tune", "demo"])
def test_cli_device_matching_nothing(capsys, cmd):
    from clbig.__main__ import main
    rc, err = _cli(main, [cmd, "--device", "nonsense-zzqx"], capsys)
    assert rc == 2 and err.startswith(f"clbig {cmd}: no OpenCL device matches 'nonsense-zzqx'")


@pytest.mark.parametrize("cmd", ["tune", "demo"])
def test_cli_device_whose_compiler_fails(capsys, monkeypatch, cmd):
    from clbig.__main__ import main
    monkeypatch.setenv("CLBIG_CL_OPTIONS", "-Dx=(")
    rc, err = _cli(main, [cmd, "--device", "0"], capsys)
    assert rc == 1 and err.startswith(f"clbig {cmd}: the OpenCL compiler of ")
    assert clbig.devices()[0].name in err


@pytest.mark.parametrize("argv,flag", [(["--n", "0"], "--n"), (["--bits", "-5"], "--bits"),
                                       (["--n", "100000000", "--bits", "100000"], "--n 100000000")])
def test_cli_demo_sizes(capsys, argv, flag):
    from clbig.__main__ import main
    rc, err = _cli(main, ["demo"] + argv, capsys)
    assert rc == 2 and flag in err


def test_cli_tune_unwritable_file(capsys, monkeypatch, tmp_path):
    from clbig.__main__ import main
    (tmp_path / "f").write_text("x")
    monkeypatch.setenv("CLBIG_TUNING_FILE", str(tmp_path / "f" / "t.json"))
    rc, err = _cli(main, ["tune", "--quick"], capsys)
    assert rc == 1 and "CLBIG_TUNING_FILE" in err and str(tmp_path / "f") in err


@pytest.mark.parametrize("argv,flag", [
    (["--sizes", "-1"], "--sizes: size '-1' is negative"), (["--sizes", "x"], "--sizes: size 'x' is not"),
    (["--sizes", "4"], "--sizes: size '4'"), (["--huge-sizes", ","], "--huge-sizes: no size"),
    (["--scale", "-5"], "--scale must be at least 0"), (["--reps", "0"], "--reps must be at least 1"),
    (["--max-op-seconds", "0"], "--max-op-seconds must be above 0"),
    (["--max-op-seconds", "nan"], "--max-op-seconds"), (["--budget", "-1"], "--budget must be above 0"),
    (["--copy-mib", "0"], "--copy-mib must be at least 1"),
    (["--gmpy2-seconds", "-1"], "--gmpy2-seconds must be at least 0"),
    (["--ops", "add,nope"], "--ops: unknown op(s) nope"), (["--ops", ","], "--ops: no op given"),
    (["--seed", "-1"], "--seed must be at least 0"),
])
def test_cli_bench_flags(capsys, argv, flag):
    from clbig.bench.__main__ import main
    rc, err = _cli(main, ["--quick"] + argv, capsys)
    assert rc == 2 and err.startswith("clbig.bench: " + flag), err


def test_cli_bench_out_not_a_folder(capsys, tmp_path):
    from clbig.bench.__main__ import main
    (tmp_path / "f").write_text("x")
    rc, err = _cli(main, ["--quick", "--out", str(tmp_path / "f" / "o")], capsys)
    assert rc == 2 and "--out" in err and "is a file" in err


@pytest.mark.parametrize("content,why", [(None, "No such file"), ("[1]", "not a clbig.bench result"),
                                         ('{"results": [{"x": 1}]}', "not a clbig.bench result"),
                                         ("{", "not a clbig.bench result")])
def test_cli_bench_report_bad_files(capsys, tmp_path, content, why):
    from clbig.bench.report import main
    f = tmp_path / "r.json"
    if content is not None:
        f.write_text(content)
    rc, err = _cli(main, [str(f)], capsys)
    assert rc == 2 and str(f) in err and why in err


def test_cli_demo_and_tuning_speeds_time_the_device(capsys, monkeypatch):
    """With the first-call allowance open (as for a user: the suite's HOST_ROWS unset), the
    demo's timed a*b and a+b and tuning's speeds still run kernels: their batches are small
    enough for the array operators' first calls on the host, which they mark bought."""
    from clbig.__main__ import main
    from clbig.mpz import hostrows
    from clbig.tuning.measure import measure_speeds
    monkeypatch.delenv("CLBIG_HOST_ROWS", raising=False)
    monkeypatch.setenv("CLBIG_HOST_FIRST_MS", "60000")
    ctx = clbig.Context()
    ctx.profile.clear("host_first")
    assert main(["demo", "--n", "64", "--bits", "256", "--device", "0"]) == 0
    rows = [line.split() for line in capsys.readouterr().out.splitlines() if line[:3] in ("a*b", "a+b")]
    assert len(rows) == 2 and all(int(r[3]) > 0 for r in rows), rows     # kernels per op
    ctx.profile.clear("host_first")
    with clbig.profile() as p:
        measure_speeds(ctx, 64 * 2048)
    assert p.kernels > 0 and all(hostrows.first_factor(ctx, f) == 1 for f in hostrows.ARRAY_FAMILIES)


def test_cli_demo_says_why_gmpy2_wins_on_a_cpu():
    """On a CPU device, where some op is slower than gmpy2, the demo says why (issue 34)."""
    import pyopencl as cl
    from clbig.__main__ import cpu_note
    ctx = clbig.current_context()
    cpu = bool(ctx.device.type & cl.device_type.CPU)
    slow = [("a*b", 0.01, 1, 0.02, 0.005), ("a+b", 0.001, 1, 0.001, 0.002)]
    note = cpu_note(ctx, slow)
    assert (note is not None) == cpu
    if cpu:
        assert "a*b" in note and "a+b" not in note and "bench/README.md" in note
    assert cpu_note(ctx, [("a*b", 0.01, 1, 0.001, 0.005)]) is None


def test_limits_refused_before_host_work():
    """Sizes past a limit are refused up front, by name, before the host builds anything:
    GMP's own limit and the device's buffer for fac/fib/binomial (GMP aborts the process past
    its limit), clbig's batch limit and the device's buffer for numpy views, full and
    from_limbs (before a full copy or index array), an empty product of a huge capacity at
    once (its plan walked every limb), and a kernel past a capped local memory as a
    MemoryError."""
    for call, err, what in (
            (lambda: clbig.fib([2**40]), OverflowError, "fib: element 0.*GMP's limit"),
            (lambda: clbig.fac(2**40), OverflowError, "fac: element 0"),
            (lambda: clbig.binomial([2**64 - 1], [2**40]), OverflowError, "binomial"),
            (lambda: clbig.array(np.broadcast_to(np.int64(1), (2**33,))), OverflowError, "2..32 - 1"),
            (lambda: clbig.array([1]) + np.broadcast_to(np.int64(1), (2**33,)), OverflowError, "operand b"),
            (lambda: clbig.full(2**33, 7), OverflowError, "clbig.full"),
            (lambda: clbig.from_limbs(np.broadcast_to(np.uint32(1), (2**33, 1))), OverflowError, "from_limbs"),
            (lambda: clbig.from_limbs(np.broadcast_to(np.uint32(1), (2**30, 64))), MemoryError, "clbig.from_limbs: .* 2048 bits")):
        with pytest.raises(err, match=what):
            call()
    small = clbig.Context(max_memory=1 << 20)
    with small:
        with pytest.raises(MemoryError, match="fac: 1 values"):
            clbig.fac(10**6)                       # 2.3 MB: past the 1 MiB cap, not computed
        with pytest.raises(MemoryError, match="clbig.full"):
            clbig.full(2**20, 7, bits=64)
    empty = clbig.zeros(0, bits=2**40)
    assert (empty * empty).tolist() == [] and (empty ** 3).bits == 3 * 2**40
    try:
        with clbig.Context(max_local_mem=256):
            got = clbig.divmod(clbig.array([2**200 + 5]), clbig.array([2**127 - 1]))
        assert [v.tolist() for v in got] == [list(divmod(2**200 + 5, 2**127 - 1))[:1], [(2**200 + 5) % (2**127 - 1)]]
    except MemoryError as e:
        assert "local memory" in str(e)
