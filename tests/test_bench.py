"""python -m clbig.bench on tiny batches: the files it writes (JSON, CSV, markdown, plots), the
side-by-side table of several devices (the one device twice), the gmpy2 column, and that a wrong
result stops the run with exit status 2. Division is stood in for by a host implementation (the
bench's plumbing is under test here, clbig's division has its own tests), which also spares this
test the division kernels' build time."""
from __future__ import annotations

import csv
import json
import sys

import pytest

import clbig
from clbig.bench import __main__ as bench_main
from clbig.bench import cold as bench_cold
from clbig.bench import report

# --quick's scale and the cross-vendor notebook's small sizes and ops: kernels the suite builds anyway
OPS = ["add", "add6", "mul", "div", "hmul", "hdiv"]
ARGS = ["--quick", "--sizes", "9", "--huge-sizes", "13", "--reps", "3", "--gmpy2-seconds", "0.02",
        "--ops", ",".join(OPS)]


def _host_divmod(wrong=False):
    def divmod_(a, b):
        if not isinstance(a, clbig.BigIntArray):
            q, r = divmod(int(a), int(b))
            return q + wrong, r
        A, B = a.tolist(), b.tolist()
        q = [x // y + wrong for x, y in zip(A, B)]
        return clbig.array(q, bits=a.bits, ctx=a.ctx), clbig.array([x % y for x, y in zip(A, B)], bits=b.bits, ctx=a.ctx)
    return divmod_


@pytest.fixture
def host_division(monkeypatch):
    monkeypatch.setattr(clbig, "divmod", _host_divmod(), raising=False)


def test_two_devices_side_by_side(tmp_path, host_division, capsys):
    out = tmp_path / "out"
    rc = bench_main.main(ARGS + ["--device", "0,0", "--out", str(out)])
    assert rc == 0, capsys.readouterr().err
    runs = sorted(p for p in out.glob("*.json") if p.name != "devices.json")
    assert len(runs) == 2 and runs[0].name != runs[1].name
    res = json.loads(runs[0].read_text())
    by_op = {r["op"]: r for r in res["results"]}
    assert set(by_op) == set(OPS)
    for op, r in by_op.items():
        assert r["status"] == "ok", (op, r.get("note"))
        assert r["gmpy2_us"] > 0 and r["speedup_gmpy2"] > 0, op
    assert by_op["hmul"]["wall_us"] >= by_op["hmul"]["us"] * 0.5
    assert by_op["div"]["divisor_bits"] == 256 and "ratio_to_mul" in by_op["div"]
    assert res["device"]["driver_version"] and res["software"]["clbig_version"] == clbig.__version__

    rows = list(csv.DictReader((out / "devices.csv").open()))
    assert {r["op"] for r in rows} == {"copy", *OPS}
    assert len(rows) == 2 * (1 + len(OPS))
    md = (out / "devices.md").read_text()
    assert "[1]" in md and "[2]" in md and "gmpy2 µs" in md
    assert "| Huge-Mul" in md and "| Div" in md
    single = runs[0].with_suffix(".md").read_text()
    assert "× gmpy2" in single and "## Huge-Div" in single
    try:
        import matplotlib  # noqa: F401
    except ImportError:
        return
    for name in ("devices_throughput", "devices_speedup_gmpy2", "devices_add_vs_copy"):
        assert (out / f"{name}.png").stat().st_size > 0 and (out / f"{name}.svg").stat().st_size > 0
    for suffix in ("_throughput", "_speedup_gmpy2", "_add_vs_copy"):
        assert (out / f"{runs[0].stem}{suffix}.png").exists() and (out / f"{runs[0].stem}{suffix}.svg").exists()


def test_wrong_result_stops_the_run(tmp_path, monkeypatch, capsys):
    monkeypatch.setattr(clbig, "divmod", _host_divmod(wrong=True), raising=False)
    rc = bench_main.main(ARGS + ["--ops", "div", "--no-plots", "--out", str(tmp_path)])
    assert rc == 2
    assert "WRONG RESULT" in capsys.readouterr().err
    res = json.loads(next(tmp_path.glob("*.json")).read_text())
    assert res["status"] == "MISMATCH" and "quotient" in res["abort"]


def test_gmpy2_column_scales_a_sample():
    from clbig.bench.suite import OPS, time_gmpy2
    import gmpy2
    A = [gmpy2.mpz(3) ** 200] * 64
    t = time_gmpy2(OPS["mul"], A, A, n=1 << 20, bits=512, budget=0.01)
    assert t["gmpy2_scaled"] and t["gmpy2_sample"] <= 64 and t["gmpy2_us"] > 0


def test_report_renders_an_old_run(tmp_path):
    # a results file of the first schema (no gmpy2 column, no division) still renders
    res = {"schema": "clbig-bench/1", "date": "2026-11-22T07:47:09+00:00",
           "device": {"name": "Old GPU", "platform": "P", "platform_version": "1", "type": "GPU",
                      "driver_version": "1", "device_version": "1", "compute_units": 1,
                      "global_mem_bytes": 1 << 30},
           "software": {"clbig_version": "0.1.0"},
           "config": {"scale": 0, "reps": 20, "ops": ["add"], "batch": "b"},
           "copy": {"GBps": 100.0, "bytes": 1 << 20, "reps": 20},
           "results": [{"op": "add", "label": "1-Add", "bits": 512, "log2_bits": 9, "n": 1, "status": "ok",
                        "us": 10.0, "GBps": 90.0, "kernels": 1}]}
    text = report.markdown(res)
    assert "| 2^9" in text and "90%" in text
    assert "Old GPU" in report.comparison_markdown([res, dict(res)])
    assert report.to_csv([res]).count("\n") == 3


def _unusable():
    """{index: label} of the devices here whose Context fails its compiler probe."""
    from clbig.runtime.devices import SetupError
    bad = {}
    for d in clbig.devices():
        try:
            clbig.Context(d.index)
        except SetupError:
            bad[d.index] = d.label
    return bad


def test_device_all_skips_a_device_that_cannot_build(tmp_path, capsys):
    """--device all: a device whose compiler fails is named once with its reason and skipped;
    the usable ones run and the exit status is 0 (here: PyPI's PoCL beside Debian's)."""
    bad = _unusable()
    usable = [d.index for d in clbig.devices() if d.index not in bad]
    if not usable:
        pytest.skip("no usable OpenCL device here")
    rc = bench_main.main(["--device", "all", "--ops", "add", "--sizes", "9", "--quick", "--reps", "3",
                          "--gmpy2-seconds", "0", "--no-plots", "--out", str(tmp_path)])
    err = capsys.readouterr().err
    assert rc == 0, err
    for i, label in bad.items():
        line = f"skipping device [{i}] {label}: clbig cannot use it: "
        assert err.count(line) == 1, err
        assert "fails on a trivial kernel: " in err.split(line)[1].splitlines()[0]
    assert err.count("skipping device") == len(bad)
    runs = [p for p in tmp_path.glob("*.json") if p.name != "devices.json"]
    assert len(runs) == len(usable)


def test_device_all_with_no_usable_device_fails(tmp_path, monkeypatch, capsys):
    """Every device's compiler failing (forced here) is an error: exit status 1, each named."""
    devices = sys.modules["clbig.runtime.devices"]
    monkeypatch.setattr(devices, "_probe", lambda dev, options=(): "BUILD_PROGRAM_FAILURE\nforced by the test")
    rc = bench_main.main(["--device", "all", "--ops", "add", "--sizes", "9", "--quick", "--no-plots",
                          "--out", str(tmp_path)])
    err = capsys.readouterr().err
    assert rc == 1, err
    assert err.count("forced by the test") == len(clbig.devices()) and "no device could be used" in err


def test_latency_section(tmp_path, capsys):
    """--latency at tiny sizes: one row per op and size, checked against gmpy2, with the
    device time, kernel count, wall time and gmpy2 columns filled, and its two files written."""
    out = tmp_path / "lat"
    rc = bench_main.main(["--latency", "--latency-sizes", "12,13", "--reps", "2", "--gmpy2-seconds", "0.01",
                          "--out", str(out)])
    assert rc == 0, capsys.readouterr().err
    runs = list(out.glob("*_latency.json"))
    assert len(runs) == 1 and runs[0].with_suffix(".md").exists()
    res = json.loads(runs[0].read_text())
    rows = res["rows"]
    assert [(r["op"], r["log2_bits"]) for r in rows] == [(op, k) for k in (12, 13) for op in ("mul", "square", "divmod")]
    for r in rows:
        assert r["status"] == "ok" and r["checked"], r
        assert r["kernels"] >= 1 and r["device_us"] > 0 and r["wall_us"] > 0 and r["gmpy2_us"] > 0, r
    assert rows[2]["divisor_bits"] == 2 ** 11
    md = runs[0].with_suffix(".md").read_text()
    table = [line for line in md.splitlines() if line.startswith("| ")]
    assert len(table) == 2 + len(rows) and all(line.count("|") == 9 for line in table)
    assert "| divmod | 2^13 / 2^12 |" in md


def test_latency_wrong_result_stops(tmp_path, monkeypatch, capsys):
    """A wrong single product stops --latency with exit status 2."""
    monkeypatch.setattr(clbig, "mul", lambda x, y: x * y + 1)
    rc = bench_main.main(["--latency", "--latency-sizes", "12", "--reps", "1", "--gmpy2-seconds", "0",
                          "--out", str(tmp_path / "w")])
    assert rc == 2 and "WRONG RESULT" in capsys.readouterr().err


def test_latency_bad_sizes(capsys):
    assert bench_main.main(["--latency", "--latency-sizes", "x"]) == 2
    assert "--latency-sizes" in capsys.readouterr().err


def test_a_new_op_is_one_spec(tmp_path, monkeypatch, capsys):
    """An OpSpec added to the registry (a toy op: 2a mod 2^bits through add_fixed's kernel) is
    measured, checked, judged and rendered by the generic code with no other edit: its section
    with its own columns and blurb, its row in the Targets table and the side-by-side table, its
    CSV rows, and --ops accepts it."""
    from clbig.bench import specs
    toy = specs.OpSpec(
        "dbl", "Double", "clbig.add_fixed(a, a, bits)",
        lambda: ((lambda a, b, bits: clbig.add_fixed(a, a, bits)), ""),
        lambda a, b, bits: (2 * a) % (1 << bits), "bandwidth",
        lambda A, B, M, bits: [(2 * x) & M for x in A], "(2*x) & (2^bits - 1)",
        blurb="Double: a toy op of the test.",
        columns=(specs.BITS, specs.N, specs.US, specs.Col("GB/s (toy)", lambda r, c: c.f(r.get("GBps"))),
                 *specs.GMPY2, specs.Col("twice", lambda r, c: f"2x{r['n']}"), specs.VERDICT),
        target_text="no target (toy)")
    monkeypatch.setitem(specs.OPS, "dbl", toy)
    rc = bench_main.main(["--quick", "--sizes", "9,10", "--reps", "3", "--gmpy2-seconds", "0.01", "--ops",
                          "add,dbl", "--no-plots", "--device", "0,0", "--out", str(tmp_path)])
    assert rc == 0, capsys.readouterr().err
    run = sorted(p for p in tmp_path.glob("*.json") if p.name != "devices.json")[0]
    res = json.loads(run.read_text())
    dbl = [r for r in res["results"] if r["op"] == "dbl"]
    assert [(r["bits"], r["status"]) for r in dbl] == [(512, "ok"), (1024, "ok")]
    assert all(r["checked"] and r["GBps"] > 0 and r["target"]["rule"] == "no target (toy)" for r in dbl)
    md = run.with_suffix(".md").read_text()
    section = md.split("## Double\n", 1)[1].split("\n## ", 1)[0]
    assert "Double: a toy op of the test." in section
    table = [line for line in section.splitlines() if line.startswith("|")]
    assert [c.strip() for c in table[0].strip("|").split("|")] == \
        ["bits", "n", "µs", "GB/s (toy)", "gmpy2 µs", "× gmpy2", "twice", "verdict"]
    assert [line.split("|")[1].strip() for line in table[2:]] == ["2^9", "2^10"]
    assert all(line.count("|") == 9 for line in table) and f"| 2x{dbl[0]['n']}" in table[2]
    assert "| Double " in md.split("## Targets", 1)[1] and "no target (toy)" in md
    assert "| Double " in (tmp_path / "devices.md").read_text()
    assert sum(1 for r in csv.DictReader((tmp_path / "devices.csv").open()) if r["op"] == "dbl") == 4
    # and the figures draw it (speed-up over gmpy2) without a panel of its own
    try:
        import matplotlib  # noqa: F401
    except ImportError:
        return
    paths = report.plots(res, str(tmp_path))
    assert any(p.endswith("_speedup_gmpy2.png") for p in paths)


def test_modular_rows_time_every_rep(monkeypatch):
    """A checked result of 0 (Invert where no inverse exists) does not cut the timed launches
    short: the rep count and the expected value were once one variable, and the row read nan."""
    import time

    import gmpy2
    from clbig.bench import modular as bm
    zero = bm.ModSpec("zero", "Zero", "gcd(a, m) - gcd(a, m)",
                      lambda f, a, b, m: clbig.sub(f(a, m), f(a, m)), "gcd",
                      lambda x, y, m: gmpy2.mpz(0), "a")
    monkeypatch.setitem(bm.MOD_OPS, "zero", zero)
    recs = []
    bm.run_modular(clbig.current_context(), sizes=[256], ops=["zero"], scale=14, reps=4, check=True,
                   seed=1, gmpy2_seconds=0, deadline=time.monotonic() + 60, finish=recs.append,
                   mismatch=AssertionError)
    assert recs[0]["status"] == "ok", recs[0].get("note")
    assert recs[0]["reps"] >= 3 and recs[0]["per_second"] > 0 and recs[0]["checked"]


# -- the cold-start bench's gmpy2 columns (clbig/bench/cold.py) ---------------------------------

def test_rows_reproduce_each_row_by_row_familys_gmpy2_work():
    """Rows of each family that a pool can share out give gmpy2's results of the whole inputs
    (so the all-core column times the same work); a product tree and the modular check have
    no rows."""
    shared = []
    for fam in bench_cold.FAMILIES:
        if fam in ("powmod", "next_prime"):      # seconds of gmpy2 work, and no other shape
            continue
        x = bench_cold._inputs(fam)
        rows = bench_cold._rows(fam, x)
        if rows is None:
            assert fam == "prod 256"
            continue
        assert bench_cold._gmpy2_rows(fam, rows) == bench_cold._run_gmpy2(fam, x), fam
        shared.append(fam)
    assert bench_cold._rows("modular check", None) is None
    assert {"products", "divmod", "expression", "add loop", "gcdext"} <= set(shared)


def test_all_core_column():
    t, workers = bench_cold._gmpy2_all_cores("gcd", bench_cold._inputs("gcd"))
    assert t > 0 and workers >= 1
    assert bench_cold._gmpy2_all_cores("prod 256", bench_cold._inputs("prod 256"))[0] is None
    d = {"first_s": 0.5, "second_s": 0.01, "gmpy2_s": 0.002, "gmpy2_all_s": 0.004, "workers": 16,
         "import_s": 0.3, "builds": [], "exact": True}
    table = bench_cold.cold_markdown([{"family": "gcd", "what": "w", "cold": d, "disk": d}], "dev", "now")
    assert "| gmpy2 | gmpy2 all cores |" in table and "| 2.0 | 4.0 [16] | 300 | yes |" in table
    d["gmpy2_all_s"] = None
    warm = bench_cold.warm_markdown({"warmup_s": 1, "warmup_rc": 0, "rows": [{"family": "prod 256", "what": "w",
                                                                        "after": d}]}, "dev", "now")
    assert "| 2.0 | - | yes |" in warm
