"""BigIntArray construction and host exchange, devices() and Context selection / nesting."""
import sys
import gmpy2
import numpy as np
import pytest

import clbig
from conftest import BATCH, check_values, edge_values, mask, rand_value


def limbs_of(values, m):
    """Host reference layout: (n, m) little-endian 32-bit limbs."""
    return np.array([[(v >> (32 * j)) & 0xFFFFFFFF for j in range(m)] for v in values], dtype=np.uint32)


# -- construction and round trips -------------------------------------------------------------
@pytest.mark.parametrize("bits", [1, 7, 32, 33, 96, 100, 1056, 2 ** 14])
def test_roundtrip_explicit_bits(rng, bits):
    vals = edge_values(bits) + [rand_value(rng, bits) for _ in range(5)]
    a = clbig.array(vals, bits=bits)
    assert len(a) == len(vals)
    assert a.bits == bits
    assert a.m == -(-bits // 32)
    check_values(a.tolist(), vals, f"array(bits={bits}).tolist()")


@pytest.mark.parametrize("n", [1, 7, 1000])
def test_roundtrip_batch_lengths(rng, n):
    vals = [rand_value(rng, 200) for _ in range(n)]
    a = clbig.array(vals)
    assert len(a) == n
    assert a.bits >= max(v.bit_length() for v in vals)
    assert a.m * 32 >= a.bits
    check_values(a.tolist(), vals, "tolist")


def test_default_bits_hold_the_values():
    vals = [0, 1, 2 ** 32, 2 ** 100 - 1]
    a = clbig.array(vals)
    assert a.bits >= 100
    check_values(a.tolist(), vals, "tolist")
    z = clbig.array([0, 0, 0])
    assert z.bits >= 1 and z.m >= 1
    assert z.tolist() == [0, 0, 0]


def test_gmpy2_values_accepted():
    vals = [gmpy2.mpz(2) ** 200 - 1, gmpy2.mpz(0), gmpy2.mpz(12345)]
    a = clbig.array(vals, bits=200)
    check_values(a.tolist(), [int(v) for v in vals], "mpz input")


@pytest.mark.parametrize("bits", [32, 96, 100, 1056])
def test_to_limbs_uint32(rng, bits):
    vals = [rand_value(rng, bits) for _ in range(BATCH)] + [mask(bits), 0]
    a = clbig.array(vals, bits=bits)
    got = a.to_limbs(np.uint32)
    m = -(-bits // 32)
    assert got.dtype == np.uint32
    assert got.shape == (len(vals), m)
    np.testing.assert_array_equal(got, limbs_of(vals, m))


def test_to_limbs_into_out(rng):
    """to_limbs(out=...) downloads into the caller's array and returns it; reused, it is
    overwritten; a wrong shape, dtype, layout or type is refused before anything is written."""
    vals = [rand_value(rng, 1000) for _ in range(7)] + [mask(1000), 0]
    a = clbig.array(vals, bits=1000)
    out = np.full((len(vals), a.m), 0xA5A5A5A5, np.uint32)
    assert a.to_limbs(out=out) is out
    np.testing.assert_array_equal(out, limbs_of(vals, a.m))
    b = clbig.array(vals[::-1], bits=1000)
    assert b.to_limbs(out=out) is out
    np.testing.assert_array_equal(out, limbs_of(vals[::-1], a.m))
    row = a[2:5]                                         # a view of some rows
    part = np.zeros((3, a.m), np.uint32)
    np.testing.assert_array_equal(row.to_limbs(out=part), limbs_of(vals[2:5], a.m))
    keep = out.copy()
    for bad, err in ((np.zeros((len(vals), a.m + 1), np.uint32), ValueError),
                     (np.zeros((len(vals), a.m), np.uint64), ValueError),
                     (np.zeros((a.m, len(vals)), np.uint32).T, ValueError),
                     ([[0] * a.m] * len(vals), TypeError)):
        with pytest.raises(err, match="to_limbs: out"):
            a.to_limbs(out=bad)
    with pytest.raises(TypeError, match="uint32"):
        a.to_limbs(np.uint64, out=out)
    np.testing.assert_array_equal(out, keep)
    frozen = np.zeros((len(vals), a.m), np.uint32)
    frozen.flags.writeable = False
    with pytest.raises(ValueError, match="writable"):
        a.to_limbs(out=frozen)
    neg = clbig.array([-5, 6], bits=64)
    with pytest.raises(ValueError, match="element 0 is negative"):
        neg.to_limbs(out=np.zeros((2, 2), np.uint32))


def test_pinned_arrays(rng):
    """clbig.pinned_empty: page-locked host arrays that from_limbs reads and to_limbs(out=)
    fills exactly (ones, carries, zero rows, batch lengths 1 and odd); shapes of 0 and uint64;
    a negative dimension refused; thousands made and dropped (each unmaps when it goes)."""
    for n in (1, 7):
        vals = ([mask(1000), 0, 1] + [rand_value(rng, 1000) for _ in range(n)])[:n]
        a = clbig.array(vals, bits=1000)
        src = clbig.pinned_empty((n, a.m))
        src[:] = limbs_of(vals, a.m)
        x = clbig.from_limbs(src, bits=1000)
        src[:] = 0                                       # the device copy stands on its own
        sq = clbig.mul(x, x)
        out = clbig.pinned_empty((n, sq.m))
        assert sq.to_limbs(out=out) is out
        np.testing.assert_array_equal(out, limbs_of([v * v for v in vals], sq.m))
    assert clbig.pinned_empty(0).shape == (0,) and clbig.pinned_empty((0, 3)).shape == (0, 3)
    assert clbig.pinned_empty((2, 3), np.uint64).dtype == np.uint64
    with pytest.raises(ValueError, match="negative dimension"):
        clbig.pinned_empty((-1, 4))
    for i in range(2000):
        p = clbig.pinned_empty((16, 8))
        p[:] = i
    assert int(p[15, 7]) == 1999


@pytest.mark.parametrize("bits", [32, 64, 96, 100, 1056])
def test_to_limbs_uint64(rng, bits):
    """uint64 limbs pair the 32-bit limbs (odd counts padded with a zero high half)."""
    vals = [rand_value(rng, bits) for _ in range(BATCH)] + [mask(bits)]
    a = clbig.array(vals, bits=bits)
    got = a.to_limbs(np.uint64)
    m64 = -(-bits // 64)
    assert got.dtype == np.uint64
    assert got.shape == (len(vals), m64)
    expect = [[(v >> (64 * j)) & mask(64) for j in range(m64)] for v in vals]
    np.testing.assert_array_equal(got, np.array(expect, dtype=np.uint64))


@pytest.mark.parametrize("bits", [32, 96, 100, 1056])
def test_from_limbs_uint32(rng, bits):
    vals = [rand_value(rng, bits) for _ in range(BATCH)] + [mask(bits), 0, 1]
    m = -(-bits // 32)
    a = clbig.from_limbs(limbs_of(vals, m), bits=bits)
    assert a.bits == bits and len(a) == len(vals)
    check_values(a.tolist(), vals, "from_limbs(uint32)")
    b = clbig.from_limbs(limbs_of(vals, m))
    assert b.bits >= bits
    check_values(b.tolist(), vals, "from_limbs(uint32), default bits")


@pytest.mark.parametrize("bits", [64, 96, 1056])
def test_from_limbs_uint64(rng, bits):
    vals = [rand_value(rng, bits) for _ in range(BATCH)] + [mask(bits)]
    m64 = -(-bits // 64)
    limbs = np.array([[(v >> (64 * j)) & mask(64) for j in range(m64)] for v in vals], dtype=np.uint64)
    a = clbig.from_limbs(limbs, bits=bits)
    assert a.bits == bits
    check_values(a.tolist(), vals, "from_limbs(uint64)")


def test_limbs_roundtrip_through_device(rng):
    vals = [rand_value(rng, 1056) for _ in range(BATCH)]
    a = clbig.array(vals, bits=1056)
    check_values(clbig.from_limbs(a.to_limbs(np.uint32), bits=1056).tolist(), vals, "uint32 round trip")
    check_values(clbig.from_limbs(a.to_limbs(np.uint64), bits=1056).tolist(), vals, "uint64 round trip")


# -- devices -----------------------------------------------------------------------------------
def test_devices_listing():
    devs = clbig.devices()
    assert len(devs) >= 1
    assert [d.index for d in devs] == list(range(len(devs)))
    for d in devs:
        assert isinstance(d, clbig.DeviceInfo)
        assert d.name and d.platform and isinstance(d.vendor, str) and isinstance(d.type, str)
        assert d.compute_units >= 1 and d.local_mem > 0 and d.max_work_group_size >= 1


def _dev_name(c):
    return c.device.name.strip()


def test_context_by_index_and_substring():
    D = sys.modules["clbig.runtime.devices"]
    devs = clbig.devices()

    def picks(sel):   # the selected device's name, by the selection Context() makes
        return D._select(sel).name.strip()
    for d, c in zip(devs, D._cl_devices()):
        assert picks(d.index) == d.name
        # case-insensitive substring of "platform: device", here spanning the colon
        sel = f"{d.platform[-3:]}: {d.name[:5]}"
        assert picks(sel.upper()) == next(e.name for e in devs if sel.lower() in f"{e.platform}: {e.name}".lower())
        assert picks(d.name.swapcase()) == next(
            e.name for e in devs if d.name.lower() in f"{e.platform}: {e.name}".lower())
        if D._compiles(c):
            assert _dev_name(clbig.Context(d.index)) == d.name
        else:   # a device whose compiler fails is named, with the compiler's message, right away
            with pytest.raises(D.SetupError, match=rf"(?s)compiler of .*{d.name}.* fails.*BUILD_PROGRAM"):
                clbig.Context(d.index)


def test_context_pocl_alias():
    """CLBIG_DEVICE=pocl (the README's example) picks a PoCL device, although PoCL's device
    names say only pthread-<cpu>: the alias names its platform."""
    D = sys.modules["clbig.runtime.devices"]
    pocl = [d for d in clbig.devices() if "portable computing language" in d.label.lower()]
    if not pocl:
        with pytest.raises(ValueError, match="no OpenCL device matches 'pocl'"):
            D._select("pocl")
        return
    picked = D._select("pocl")
    assert picked.platform.name.strip() == "Portable Computing Language"
    assert picked.name.strip() in {d.name for d in pocl}


def _measured_first(infos):
    """The order clbig prefers among devices (devices._select): CPUs by the reference job's
    measured score (runtime.cpu_choice; within its TIE the loader's order), else the loader's
    order."""
    D = sys.modules["clbig.runtime.devices"]
    from clbig.runtime import cpu_choice
    cpus = [i for i in infos if i.type.upper() == "CPU"]
    if len(cpus) < 2:
        return list(infos)
    cl_of = dict(zip((i.index for i in clbig.devices()), D._cl_devices()))
    table = cpu_choice.measurements([cl_of[i.index] for i in cpus], D.cpu_folder())
    score = {i.index: table[cpu_choice.fingerprint(cl_of[i.index])]["score"] for i in cpus}
    best = min(score.values())
    return sorted(infos, key=lambda i: i.type.upper() != "CPU" or score[i.index] > best * (1 + cpu_choice.TIE))


@pytest.mark.parametrize("kind", ["gpu", "cpu", "GPU", "Cpu"])
def test_context_by_type(kind):
    D = sys.modules["clbig.runtime.devices"]
    devs = clbig.devices()
    of_kind = [d for d in devs if d.type.lower() == kind.lower()]
    if of_kind:
        builds = {d.index for d, c in zip(devs, D._cl_devices()) if D._compiles(c)}
        usable = [d for d in of_kind if d.index in builds]
        want = _measured_first(usable)[0] if usable else of_kind[0]
        assert _dev_name(clbig.Context(kind)) == want.name
    elif not any(kind.lower() in f"{d.platform}: {d.name}".lower() for d in devs):
        with pytest.raises(ValueError):
            clbig.Context(kind)


def test_default_device_without_env(monkeypatch):
    """The first GPU, else the CPU measured soonest, among the devices whose compiler works."""
    D = sys.modules["clbig.runtime.devices"]
    monkeypatch.delenv("CLBIG_DEVICE", raising=False)
    devs = clbig.devices()
    works = [d for d, c in zip(devs, D._cl_devices()) if D._compiles(c)]
    gpus = [d for d in works if d.type.upper() == "GPU"]
    cpus = _measured_first([d for d in works if d.type.upper() == "CPU"])
    expected = (gpus or cpus)[0] if (gpus or cpus) else None
    got = clbig.Context()
    if expected is not None:
        assert _dev_name(got) == expected.name


def test_no_device_compiles_says_why(monkeypatch):
    """A device list where no compiler works (PyPI's PoCL on an unknown CPU) fails at once with
    the devices and the remedy, not at the first kernel build with the compiler's message."""
    D = sys.modules["clbig.runtime.devices"]
    monkeypatch.delenv("CLBIG_DEVICE", raising=False)
    monkeypatch.setattr(D, "_compiles", lambda dev: False)
    with pytest.raises(RuntimeError, match="no OpenCL device here can build a kernel") as ei:
        clbig.Context()
    assert "pocl-opencl-icd" in str(ei.value)
    for d in clbig.devices():
        assert d.name in str(ei.value)


def test_device_from_env(monkeypatch):
    D = sys.modules["clbig.runtime.devices"]
    devs = clbig.devices()
    d = [d for d, c in zip(devs, D._cl_devices()) if D._compiles(c)][-1]   # the last usable one
    monkeypatch.setenv("CLBIG_DEVICE", d.name.upper())
    assert _dev_name(clbig.Context()) == next(
        e.name for e in devs if d.name.lower() in f"{e.platform}: {e.name}".lower())
    monkeypatch.setenv("CLBIG_DEVICE", "no-such-device-zzqx")
    with pytest.raises(ValueError, match="no-such-device-zzqx"):
        clbig.Context()


def test_no_matching_device_lists_devices():
    with pytest.raises(ValueError) as ei:
        clbig.Context("no-such-device-zzqx")
    msg = str(ei.value)
    for d in clbig.devices():
        assert d.name in msg, f"device {d.name!r} not listed in: {msg}"


def test_device_index_out_of_range():
    with pytest.raises(ValueError):
        clbig.Context(len(clbig.devices()) + 5)


# -- contexts ----------------------------------------------------------------------------------
def test_session_context_is_current(ctx):
    assert clbig.current_context() is ctx


def test_context_nesting_restores_previous(ctx, small_ctx_obj):
    c1 = clbig.Context()
    assert clbig.current_context() is ctx
    with c1:
        assert clbig.current_context() is c1
        with small_ctx_obj:
            assert clbig.current_context() is small_ctx_obj
            inner = clbig.array([1, 2, 3])
        assert clbig.current_context() is c1
        with pytest.raises(RuntimeError):
            with small_ctx_obj:
                assert clbig.current_context() is small_ctx_obj
                raise RuntimeError("boom")
        assert clbig.current_context() is c1
        outer = clbig.array([1, 2, 3])
    assert clbig.current_context() is ctx
    # arrays made inside each `with` belong to that context: mixing them is refused
    with pytest.raises(ValueError):
        inner + outer


def test_arrays_follow_current_context(small_ctx):
    """Values created and computed under another context are exact there too."""
    a = clbig.array([mask(64), 5, 0], bits=64)
    b = clbig.array([1, 7, 0], bits=64)
    check_values((a + b).tolist(), [2 ** 64, 12, 0], "a+b in small context")


def test_memory_pool_reuse_and_release(ctx):
    """Buffers freed by one operation serve the next (the pool), and handing the pool back to
    the driver leaves live arrays intact."""
    xs = [mask(2000) - i for i in range(5)]
    a = clbig.array(xs)
    for _ in range(3):          # freed results come back from the pool: still exact each time
        check_values((a * a + a).tolist(), [x * x + x for x in xs], "a*a + a from pooled buffers")
    if ctx.allocator is not None:
        held_before = ctx.allocator.held_blocks
        assert held_before > 0
        ctx.free_memory()
        assert ctx.allocator.held_blocks == 0
    check_values(a.tolist(), xs, "a after free_memory")
    check_values((a + 1).tolist(), [x + 1 for x in xs], "a + 1 after free_memory")


# -- copies and pickling ------------------------------------------------------------------------
def _pickle_cases(rng):
    return [
        ([0, 1, mask(100), 2 ** 99], 100),
        ([mask(2 ** 14 + 5), 0, 1 << (2 ** 14), rand_value(rng, 2 ** 14 + 5)], 2 ** 14 + 5),  # digit path
        ([7], 3),
        ([], 96),
    ]


def test_pickle_roundtrip_same_process(rng, small_ctx_obj):
    import pickle
    for vals, bits in _pickle_cases(rng):
        a = clbig.array(vals, bits=bits)
        b = pickle.loads(pickle.dumps(a))
        assert b.bits == bits and b.m == a.m and b.tolist() == vals
        assert b.ctx is clbig.current_context()
        with small_ctx_obj:            # restored onto the context current where it is loaded
            c = pickle.loads(pickle.dumps(a))
        assert c.ctx is small_ctx_obj and c.tolist() == vals


def test_pickle_to_a_fresh_process(rng, tmp_path):
    """Dask ships arrays between processes: values and width come back in another interpreter."""
    import pickle
    import subprocess
    cases = _pickle_cases(rng)
    f = tmp_path / "arrays.pickle"
    moduli = [7, 2 ** 61 - 1, 10, 2 ** 521 - 1]          # a Modulus travels too (Dask tasks)
    f.write_bytes(pickle.dumps([clbig.array(v, bits=b) for v, b in cases] + [clbig.Modulus(moduli)]))
    code = ("import pickle, sys, clbig\n"
            "*arrs, M = pickle.load(open(sys.argv[1], 'rb'))\n"
            "assert all(isinstance(a, clbig.BigIntArray) for a in arrs)\n"
            "assert all(a.ctx is clbig.current_context() for a in arrs + [M])\n"
            "pickle.dump([(a.tolist(), a.bits) for a in arrs] + [M.values(), "
            "clbig.powmod([3, 5, 7, 11], 2 ** 70 + 1, M).tolist()], open(sys.argv[1] + '.out', 'wb'))\n")
    # cwd: `python -c` puts the current directory first on sys.path, and from a checkout that
    # would import its clbig instead of the installed one.
    p = subprocess.run([sys.executable, "-c", code, str(f)], capture_output=True, text=True, timeout=300,
                       cwd=tmp_path)
    assert p.returncode == 0, p.stderr
    *got, values, powers = pickle.loads((tmp_path / "arrays.pickle.out").read_bytes())
    assert got == [(v, b) for v, b in cases]
    assert values == moduli and powers == [pow(x, 2 ** 70 + 1, m) for x, m in zip([3, 5, 7, 11], moduli)]


def test_pickle_modulus_and_refused_contexts(small_ctx_obj):
    """A Modulus pickles as its moduli, onto the loading side's current context; a Context
    refuses with a message that says what to send instead."""
    import pickle
    M = clbig.Modulus([7, 10, 2 ** 127 - 1])
    with small_ctx_obj:
        R = pickle.loads(pickle.dumps(M))
    assert isinstance(R, clbig.Modulus) and R.ctx is small_ctx_obj and R.values() == M.values()
    assert clbig.powmod([3, 3, 3], 5, R).tolist() == [pow(3, 5, m) for m in M.values()]
    for ctx in (clbig.current_context(), small_ctx_obj):
        with pytest.raises(TypeError, match="cannot be pickled.*device selector"):
            pickle.dumps(ctx)


def test_deepcopy_is_independent_and_copy_shares():
    import copy
    vals = [mask(200), 0, 12345]
    a = clbig.array(vals, bits=200)
    d = copy.deepcopy(a)
    assert d.ctx is a.ctx and d.bits == a.bits and d.tolist() == vals
    assert d.data.data.int_ptr != a.data.data.int_ptr   # its own device buffer
    # writing into the copy's buffer leaves the original alone
    d.data.set(np.zeros((3, d.m), np.uint32), queue=d.ctx.queue)
    assert d.tolist() == [0, 0, 0] and a.tolist() == vals
    s = copy.copy(a)   # operations never write into an array: a shallow copy may share
    assert s.tolist() == vals and s.bits == a.bits and s.ctx is a.ctx
    nested = copy.deepcopy({"x": [a, a]})
    assert nested["x"][0] is nested["x"][1] and nested["x"][0].tolist() == vals


def test_numpy_array_surface_and_one_dimension():
    """Issue 45 item 2: shape, ndim, size, dtype (object: Python ints) and nbytes of the
    device's limbs; nested input says that a BigIntArray is one-dimensional, naming the element."""
    import numpy as np
    for vals, bits in (([], 32), ([5], 3), ([1, -2, 2**100], None), ([0] * 7, 65)):
        x = clbig.array(vals, bits=bits)
        n = len(vals)
        assert (x.shape, x.ndim, x.size) == ((n,), 1, n)
        assert x.dtype == np.dtype(object) == np.asarray(x).dtype
        assert x.nbytes == n * x.m * 4 and np.shape(x) == (n,) and np.ndim(x) == 1
    for bad, i, kind in (([[1, 2], [3, 4]], 0, "list"), ([1, (2, 3)], 1, "tuple"),
                         (np.array([[1, 2]], dtype=object), 0, "ndarray")):
        with pytest.raises(TypeError, match=f"one-dimensional .* element {i} is a {kind}"):
            clbig.array(bad)
    with pytest.raises(TypeError, match="element 1: expected an integer"):
        clbig.array([1, "2"])


# -- assignment and in-place operators (issue 45) ------------------------------------------------
def _signed(rng, bits):
    v = rand_value(rng, bits)
    return -v if rng.random() < 0.5 else v


def test_item_and_slice_assignment_as_python_lists(rng):
    """x[key] = value against a Python list model: ints (negative too), slices with steps,
    masks, index lists and arrays with repeats (the last wins), one value or one per
    position, any signs, values wider than the array (its capacity grows), empty keys, and
    names bound to the array see the change."""
    for n in (1, 5, 33):
        model = [_signed(rng, 70) for _ in range(n)] + [0, mask(64)]
        n = len(model)
        a = clbig.array(model)
        alias = a
        keys = [0, -1, n // 2, slice(None), slice(1, None, 2), slice(None, None, -3), slice(n, n),
                np.array([j % 3 == 0 for j in range(n)]), [n - 1, 0, n - 1], np.array([-1, 1], np.int64),
                [], np.arange(n)[::-1]]
        for key in keys:
            pos = list(np.arange(n)[key]) if not isinstance(key, (int, np.integer)) else [key % n]
            for vals in ([_signed(rng, 300)], [_signed(rng, 40) for _ in pos], [0], [-1]):
                if len(vals) != 1 and len(vals) != len(pos):
                    continue
                value = vals[0] if len(vals) == 1 and rng.random() < 0.5 else vals
                a[key] = value
                for j, p in enumerate(pos):
                    model[p] = vals[j if len(vals) > 1 else 0]
                check_values(a.tolist(), model, f"n={n} a[{key!r}] = {len(vals)} values")
        assert alias is a and alias.tolist() == model
        a[a < 0] = 0                                   # the commonest mask: a comparison's result
        model = [max(0, v) for v in model]
        check_values(a.tolist(), model, "a[a < 0] = 0")
        a[np.array([0], np.int64)] = np.array([-7], np.int64)   # numpy values
        model[0] = -7
        check_values((a + 1).tolist(), [v + 1 for v in model], "a + 1 after assignment")


def test_assignment_errors_name_what_and_where():
    a = clbig.array([1, 2, 3])
    with pytest.raises(IndexError, match="index 3 out of range for a batch of 3"):
        a[3] = 1
    with pytest.raises(IndexError, match=r"index -4 \(position 1 of the index\)"):
        a[[0, -4]] = 1
    with pytest.raises(IndexError, match="boolean index of length 2"):
        a[np.array([True, False])] = 1
    with pytest.raises(ValueError, match="cannot assign 2 values to 3 positions"):
        a[:] = [1, 2]
    with pytest.raises(TypeError, match="not str"):
        a["0"] = 1
    with pytest.raises(TypeError, match="float"):
        a[0] = 1.5
    with pytest.raises(TypeError, match="bool"):
        a[True] = 1
    with pytest.raises(TypeError, match="not tuple"):   # two axes, as reading a[0, 2] says
        a[0, 2] = 5
    assert a.tolist() == [1, 2, 3]                   # a refused assignment changes nothing
    e = clbig.array([])
    e[:] = 5
    e[e > 0] = 1
    assert e.tolist() == [] and len(e) == 0


def test_in_place_operators_update_the_array(rng):
    """Every in-place operator gives what the operator gives, on the same object (aliases see
    it); the array's length is kept, as numpy's (a broadcast that would change it is a
    ValueError and the array is left as it was)."""
    xs = [_signed(rng, 200) for _ in range(6)] + [0, 1]
    ys = [rand_value(rng, 90) | 1 for _ in xs]
    cases = [("+=", lambda x, y: x + y), ("-=", lambda x, y: x - y), ("*=", lambda x, y: x * y),
             ("//=", lambda x, y: x // y), ("%=", lambda x, y: x % y), ("&=", lambda x, y: x & y),
             ("|=", lambda x, y: x | y), ("^=", lambda x, y: x ^ y)]
    for op, f in cases:
        for y in (ys, ys[0], -ys[1]):
            a = clbig.array(xs)
            alias = a
            exec(f"a {op} y", {"a": a, "y": y})
            want = [f(x, yy) for x, yy in zip(xs, y if isinstance(y, list) else [y] * len(xs))]
            check_values(alias.tolist(), want, f"a {op} {'list' if isinstance(y, list) else y}")
    a = clbig.array(xs)
    b = a
    a <<= 37
    a >>= 5
    a **= 3
    check_values(b.tolist(), [((x << 37) >> 5) ** 3 for x in xs], "<<= >>= **=")
    one = clbig.array([5])
    with pytest.raises(ValueError, match="keeps the array's length"):
        one += [1, 2, 3]
    assert one.tolist() == [5]


def test_a_modulus_keeps_its_moduli_when_the_array_changes():
    """A Modulus computed its constants for the values it was given: assigning into the array
    it was made from afterwards does not change it."""
    m = clbig.array([7, 11, 2 ** 89 - 1])
    M = clbig.Modulus(m)
    assert clbig.powmod([3, 3, 3], 5, M).tolist() == [pow(3, 5, v) for v in (7, 11, 2 ** 89 - 1)]
    m[0] = 13
    m += 2
    assert M.values() == [7, 11, 2 ** 89 - 1] and m.tolist() == [15, 13, 2 ** 89 + 1]
    assert clbig.powmod([3, 3, 3], 5, M).tolist() == [pow(3, 5, v) for v in (7, 11, 2 ** 89 - 1)]
