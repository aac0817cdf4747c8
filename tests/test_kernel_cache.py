"""The first call (issue 43): built kernels kept on disk and found again without rendering
(clbig/runtime/binaries.py), a corrupt or unwritable cache survived with one warning, the
warm-up command, loops whose capacity grows building a kernel per limb count at most, and
helpers at widths a few limbs apart sharing their width class's kernel, threads that want one
kernel building it once."""
from __future__ import annotations

import os
import subprocess
import sys
import tempfile
import warnings

import pytest

import clbig
from clbig.runtime import binaries, render


def _fresh_ctx(monkeypatch, folder):
    monkeypatch.setenv("CLBIG_KERNEL_CACHE", str(folder))
    return clbig.Context(clbig.current_context().device)


def test_binaries_round_trip_without_rendering(monkeypatch, tmp_path):
    """A second context on the same device loads the kernel from the folder: no template is
    rendered, and the results are the same."""
    ctx = _fresh_ctx(monkeypatch, tmp_path)
    xs, ys = [2**100 + 7, 5, 0], [3**60, 2**64 - 1, 1]
    with ctx, binaries.ahead():   # (PoCL keeps binaries only ahead of time: Store.costly)
        assert (clbig.array(xs) + clbig.array(ys)).tolist() == [x + y for x, y in zip(xs, ys)]
    files, size = binaries.usage(tmp_path)
    assert files >= 1 and size > 0
    rendered = []
    monkeypatch.setattr(render, "render", lambda *a, **k: rendered.append(a) or pytest.fail("rendered"))
    again = clbig.Context(ctx.device)
    with again:
        assert (clbig.array(xs) + clbig.array(ys)).tolist() == [x + y for x, y in zip(xs, ys)]
    assert rendered == []


def test_corrupt_binary_is_rebuilt_with_one_warning(monkeypatch, tmp_path):
    ctx = _fresh_ctx(monkeypatch, tmp_path)
    with ctx, binaries.ahead():
        clbig.array([1, 2]) + clbig.array([3, 4])
    assert binaries.usage(tmp_path)[0] >= 1
    for p in tmp_path.rglob("*.bin"):
        p.write_bytes(b"not a binary" * 10)
    monkeypatch.setattr(binaries, "_said", set())
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        with clbig.Context(ctx.device):
            assert (clbig.array([1, 2]) + clbig.array([3, 4])).tolist() == [4, 6]
            assert (clbig.array([9]) + clbig.array([3, 4])).tolist() == [12, 13]
    said = [w for w in caught if "could not be loaded" in str(w.message)]
    assert len(said) == 1, [str(w.message) for w in caught]
    assert all(p.read_bytes()[:12] != b"not a binary" for p in tmp_path.rglob("*.bin"))


def test_read_only_cache_computes_and_says_so_once(monkeypatch, tmp_path):
    """A cache folder that cannot be written: computes, warns once. Root writes into read-only
    folders, so there the file system's refusal is simulated at the write."""
    from pathlib import Path
    ro = tmp_path / "ro"
    ro.mkdir()
    ro.chmod(0o500)
    if hasattr(os, "geteuid") and os.geteuid() == 0:
        real = Path.write_bytes

        def refuse(self, data):
            if str(self).startswith(str(ro)):
                raise PermissionError(13, "Permission denied", str(self))
            return real(self, data)
        monkeypatch.setattr(Path, "write_bytes", refuse)
    try:
        monkeypatch.setattr(binaries, "_said", set())
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            with _fresh_ctx(monkeypatch, ro), binaries.ahead():
                assert (clbig.array([5]) * clbig.array([7])).tolist() == [35]
                assert (clbig.array([5]) + clbig.array([7])).tolist() == [12]
        assert len([w for w in caught if "cannot be written" in str(w.message)]) == 1
    finally:
        ro.chmod(0o700)


def test_unwritable_cache_file_in_the_way(monkeypatch, tmp_path):
    """A file where the folder should be (as root can hit too): computes, warns once."""
    blocker = tmp_path / "file"
    blocker.write_text("x")
    monkeypatch.setattr(binaries, "_said", set())
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        with _fresh_ctx(monkeypatch, blocker), binaries.ahead():
            assert (clbig.array([2**40]) - clbig.array([1])).tolist() == [2**40 - 1]
            assert (clbig.array([6]) * clbig.array([7])).tolist() == [42]
    assert len([w for w in caught if "cannot be written" in str(w.message)]) == 1


def test_implicit_builds_keep_binaries_where_that_costs_nothing(monkeypatch, tmp_path):
    """Outside ahead(), a build keeps its binary unless asking for it costs a build (PoCL)."""
    ctx = _fresh_ctx(monkeypatch, tmp_path)
    with ctx:
        assert (clbig.array([2**70]) * clbig.array([3])).tolist() == [3 * 2**70]
    kept = binaries.usage(tmp_path)[0]
    assert (kept == 0) == ctx.binaries.costly
    assert ctx.binaries.costly == ("portable computing language" in ctx.device.platform.name.lower())


def test_cache_off_and_pruning(monkeypatch, tmp_path):
    monkeypatch.setenv("CLBIG_KERNEL_CACHE", "off")
    assert binaries.folder("off") is None and clbig.Context(clbig.current_context().device).binaries.dir is None
    for i in range(6):
        d = tmp_path / "dev"
        d.mkdir(exist_ok=True)
        (d / f"{i}.bin").write_bytes(b"x" * 1000)
        os.utime(d / f"{i}.bin", (1000 + i, 1000 + i))
    binaries.prune(tmp_path, limit=4000)            # 6000 bytes > 4000: down to 3000, oldest first
    assert sorted(p.name for p in tmp_path.rglob("*.bin")) == ["3.bin", "4.bin", "5.bin"]


def test_a_context_keeps_two_generations_of_kernels(monkeypatch, rng):
    """Past render.PROGRAMS_MAX kernels a context's generation turns over (each program holds
    driver memory: random widths once grew Intel's runtime by gigabytes): the kernels a loop
    keeps using are carried over without a build, the others are freed, results stay exact."""
    monkeypatch.setattr(render, "PROGRAMS_MAX", 4)
    loaded = []
    load = render._load_or_build
    monkeypatch.setattr(render, "_load_or_build", lambda ctx, *a: loaded.append(a[-1]) or load(ctx, *a))
    ctx = clbig.Context(clbig.current_context().device)
    hot = [3**90, 5**40, 7]
    with ctx:
        H = clbig.array(hot)
        assert (H * H).tolist() == [h * h for h in hot]
        hot_keys, most = set(loaded), 0
        for bits in (40, 300, 900, 1500, 2000, 3100, 4000, 5000, 6000, 300):
            xs = [rng.getrandbits(bits) - (1 << (bits - 1)) for _ in range(3)]
            ys = [rng.getrandbits(bits // 2 + 1) for _ in range(3)]
            assert (clbig.array(xs) * clbig.array(ys)).tolist() == [x * y for x, y in zip(xs, ys)]
            assert (H * H).tolist() == [h * h for h in hot]
            most = max(most, len(ctx._programs), len(ctx._previous))
        held = {k for k in list(ctx._programs) + list(ctx._previous) if k in loaded}
    assert hot_keys and not hot_keys & set(loaded[len(hot_keys):]), "a kernel in use was built again"
    assert most <= render.PROGRAMS_MAX + 1 and len(held) < len(set(loaded)), (most, len(held), len(set(loaded)))


def test_growing_capacity_builds_a_kernel_per_limb_count(monkeypatch):
    """s = s + s a hundred times (a bit a step) and x = x * 3 (2 bits a step): the addition
    kernel takes its widths at run time on CPUs, and exact results run on whole limbs, so the
    loop builds far fewer kernels than steps; values stay exact."""
    ctx = clbig.Context(clbig.current_context().device)
    with ctx:
        before = len(ctx._programs)
        s = clbig.array([1, 2, 3])
        for _ in range(100):
            s = s + s
        assert s.tolist() == [v << 100 for v in (1, 2, 3)] and s.bits == 132
        added = len(ctx._programs) - before
        x = clbig.array([5, 7])
        for _ in range(12):
            x = x * 3
        assert x.tolist() == [5 * 3**12, 7 * 3**12] and x.bits == 32 + 24
        multiplied = len(ctx._programs) - before - added
    # the sums meet 4 limb counts; the products 2 (their kernels once took a mask per step)
    assert added <= 20 and multiplied <= 4, (added, multiplied)


def test_warmup_command_and_function(tmp_path):
    env = {k: v for k, v in os.environ.items() if not k.startswith("CLBIG_KERNEL_CACHE")}
    env["CLBIG_KERNEL_CACHE"] = str(tmp_path)
    # Two processes side by side, each opening the device itself (the cache is theirs to share).
    run = subprocess.run([sys.executable, "-m", "clbig", "warmup", "--ops", "add,compare", "--bits", "96",
                          "--jobs", "2"], capture_output=True, text=True, env=env, timeout=300,
                         cwd=tempfile.gettempdir())
    assert run.returncode == 0, run.stderr
    assert "in 2 processes" in run.stdout and "kernels kept in" in run.stdout
    assert binaries.usage(tmp_path)[0] >= 2
    # The warm-up's promise (issue 43): a later process builds nothing for these families at
    # that width, whatever its batch lengths (batch classes: the warm-up ran one of each).
    code = ("import clbig, random\nfrom clbig.runtime import render\nr = random.Random(5)\n"
            "for n in (5, 40, 300):\n"
            "    a = [r.getrandbits(96) | 1 << 95 for _ in range(n)]\n"
            "    b = [r.getrandbits(96) | 1 << 95 for _ in range(n)]\n"
            "    A, B = clbig.array(a), clbig.array(b)\n"
            "    assert (A + B).tolist() == [x + y for x, y in zip(a, b)]\n"
            "    assert list(clbig.compare(A, B)) == [(x > y) - (x < y) for x, y in zip(a, b)]\n"
            "print(len(render.builds()), render.builds())\n")
    later = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, timeout=300,
                           cwd=tempfile.gettempdir())
    assert later.returncode == 0, later.stderr
    assert later.stdout.split()[0] == "0", f"built after the warm-up: {later.stdout}"
    bad = subprocess.run([sys.executable, "-m", "clbig", "warmup", "--ops", "sqrt"], capture_output=True,
                         text=True, env=env, timeout=120, cwd=tempfile.gettempdir())
    assert bad.returncode == 1 and "unknown family 'sqrt'" in bad.stderr
    steps = []
    assert clbig.warmup(["add"], [40, 70], progress=lambda d, t, s: steps.append((d, t, s)))["steps"] == 2
    assert steps == [(1, 2, "add 40 bits"), (2, 2, "add 70 bits")]
    with pytest.raises(ValueError, match="widths must be at least 2 bits"):
        clbig.warmup(["add"], [1])
    with pytest.raises(ValueError, match="batch lengths must be at least 1"):
        clbig.warmup(["add"], [64], batches=[0])
    with pytest.raises(ValueError, match="jobs must be a positive integer"):
        clbig.warmup(["add"], [64], jobs=0)
    # A group of devices warms each of its devices (it has no profile of its own to plan by).
    one = clbig.current_context()
    assert clbig.warmup(["add"], [40], ctx=clbig.Context([one, clbig.Context(one.device)]))["steps"] == 2


def test_batch_classes():
    """Plans sized by the batch see a handful of lengths (plan.batch_class): every length on
    GPUs is one class, on CPUs three."""
    from clbig.runtime import plan as P
    ctx = clbig.current_context()
    got = [P.batch_class(ctx, n) for n in (0, 1, 8, 9, 64, 65, 10**6)]
    if P.is_gpu(ctx):
        assert set(got) == {ctx.max_items}
    else:
        top = ctx.max_items
        assert got == [min(8, top)] * 3 + [min(64, top)] * 2 + [top] * 2


def test_compiled_templates_of_two_versions_do_not_mix(monkeypatch, tmp_path):
    """Mako's compiled templates are kept per digest of the templates: a second clbig (another
    environment, an older checkout) sharing the user cache renders its own templates, even where
    its files are older than the first one's compiled modules (Mako then keeps a module)."""
    import shutil
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    trees = []
    for tag in ("first", "second"):
        d = tmp_path / tag
        shutil.copytree(render.kernel_dir(), d)
        (d / "probe.mako").write_text(f"version {tag} ${{X}}\n")
        trees.append(d)
    old = os.path.getmtime(trees[0] / "probe.mako") - 3600
    os.utime(trees[1] / "probe.mako", (old, old))      # the second's file older than any module
    for d, tag in zip(trees, ("first", "second")):
        monkeypatch.setattr(render, "kernel_dir", lambda d=d: d)
        monkeypatch.setattr(render, "_lookup", None)
        monkeypatch.setattr(binaries, "_digest", None)
        assert render.render("probe.mako", X=1).strip() == f"version {tag} 1"
    assert len(list((tmp_path / "cache" / "clbig" / "mako").iterdir())) == 2


def test_width_classes_share_kernels(monkeypatch):
    """Sums, differences (signed ones by per-instance control bytes, fixed-width ones with the
    carry or borrow flag) and comparisons at widths a few limbs apart run one map-scan kernel
    per launch shape: widths, flag and operation reach the kernels at run time and the plans
    see the width's class (plan.width_class; issue 43). Results checked against Python's."""
    import random
    from clbig.mpn import add_n, compare
    from clbig.runtime import plan as P
    monkeypatch.setenv("CLBIG_ADD_SERIAL", "0")   # the map-scan kernels on every device
    shapes = []
    for mod in (add_n, compare):
        def spy(ctx, template, name, work_group=None, _orig=mod.kernel, **params):
            shapes.append((template, tuple(sorted(params.items()))))
            return _orig(ctx, template, name, work_group, **params)
        monkeypatch.setattr(mod, "kernel", spy)
    rng = random.Random(43)
    limbs = (33, 34, 35, 37)
    assert len({P.width_class(m + 1) for m in limbs}) == 1
    with clbig.Context(clbig.current_context().device):   # its own memos: every width looks up
        _width_class_cases(rng, limbs)
    for template in ("add.cl.mako", "compare.cl.mako"):
        used = {p for t, p in shapes if t == template}
        assert len(used) == 1, (template, used)


def _width_class_cases(rng, limbs):
    for m in limbs:
        bits = 32 * m - 3
        xs = [rng.getrandbits(bits) for _ in range(7)] + [2**bits - 1, 0]
        ys = [-rng.getrandbits(bits - 40 * (i % 3)) for i in range(7)] + [1, 2**bits - 1]
        a, b = clbig.array(xs), clbig.array(ys)
        assert (a + b).tolist() == [x + y for x, y in zip(xs, ys)]
        assert (a - b).tolist() == [x - y for x, y in zip(xs, ys)]
        assert (b - a).tolist() == [y - x for x, y in zip(xs, ys)]
        assert (a < b).tolist() == [x < y for x, y in zip(xs, ys)]
        assert (a == a).tolist() == [True] * len(xs)
        ms = [abs(y) for y in ys]
        s, carry = clbig.add_fixed(a, clbig.array(ms), bits)
        assert s.tolist() == [(x + y) % 2**bits for x, y in zip(xs, ms)]
        assert carry.tolist() == [x + y >= 2**bits for x, y in zip(xs, ms)]
        d, borrow = clbig.sub_fixed(a, clbig.array(ms), bits)
        assert d.tolist() == [(x - y) % 2**bits for x, y in zip(xs, ms)]
        assert borrow.tolist() == [x < y for x, y in zip(xs, ms)]


def test_threads_wanting_one_kernel_build_it_once(monkeypatch):
    """Threads whose first calls want the same kernels at once (a server's workers, a threaded
    warm-up) build each once: the others wait for that build (render._built_once) instead of
    compiling it again, and every result is exact."""
    import threading
    from conftest import in_threads
    monkeypatch.setenv("CLBIG_KERNEL_CACHE", "off")
    a = [(1 << 700) - 1 - 3 * i for i in range(5)]
    b = [(1 << 333) + 7 * i for i in range(5)]
    want = [[x * y for x, y in zip(a, b)], [x // y for x, y in zip(a, b)]]

    def work(ctx):
        with ctx:
            A, B = clbig.array(a), clbig.array(b)
            assert [(A * B).tolist(), (A // B).tolist()] == want

    alone = clbig.Context(clbig.current_context().device)
    n0 = len(render.builds())
    work(alone)
    one = len(render.builds()) - n0
    shared = clbig.Context(clbig.current_context().device)
    start = threading.Barrier(4)
    n1 = len(render.builds())
    in_threads(lambda i: (start.wait(), work(shared)), 4)
    assert one > 0 and len(render.builds()) - n1 == one
