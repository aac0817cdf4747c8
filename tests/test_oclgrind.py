"""Every clbig kernel under Oclgrind, with its data-race, uninitialized-value and API checks.

tests/oclgrind_cases.py runs each operation on tiny batches that still reach every launch path
(several instances per work-group, one per work-group, the multi-work-group path), and the
algorithm families' tests/oclgrind_more_*.py modules theirs, in subprocesses (SHARDS) whose
OpenCL loader sees only the Oclgrind simulator. Oclgrind reports out-of-bounds
accesses always, and data races, uninitialized values and API errors with the variables set
below. The test fails on a wrong result (non-zero exit) and on any Oclgrind report on stderr.

Oclgrind comes from Debian (`apt-get install oclgrind`). Without it the test is skipped, except
under CI (the CI environment variable set), where it fails: CI must not go green without it.
"""
from __future__ import annotations

import os
import re
import subprocess
import sys
from collections import Counter
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

import clbig

ICD_LIB = Path(os.environ.get("CLBIG_OCLGRIND_ICD", "/usr/lib/oclgrind/liboclgrind-rt-icd.so"))
CASES = Path(__file__).with_name("oclgrind_cases.py")
TIMEOUT_S = 900
# The cases run as shards, one Oclgrind process each, side by side: "base" is
# oclgrind_cases.py's own cases, the others its oclgrind_more_*.py modules (one per family).
# Register a new module by naming it in a shard (test_every_case_module_registered insists);
# keep the shards about equally long (each process prints its cases' times).
SHARDS = [   # each alone, 2 AMD EPYC cores, 2026-11-24: 15 + 31 s and 39 s
    ["base", "oclgrind_more_radix", "oclgrind_more_grid", "oclgrind_more_mont", "oclgrind_more_signed",
     "oclgrind_more_rows", "oclgrind_more_mont_loop"],
    ["oclgrind_more_div", "oclgrind_more_ntt", "oclgrind_more_ssa", "oclgrind_more_gcd", "oclgrind_more_mont52",
     "oclgrind_more_numtheory"],
]

# A report is a block of stderr between blank lines: a headline naming the kind of problem,
# then tab-indented detail ("\tKernel: ...", "\tEntity: ...", "\tFunction: ...").
HEADLINE = re.compile(
    r"^(Invalid |Read-write|Write-write|Read-only|Uninitialized|Work-group divergence|"
    r"Work-item divergence|Controlflow depends|Unaligned|Oclgrind - |OCLGRIND|\[Oclgrind\]|.*exceeds static array size|"
    r".*data race)")
DETAIL = re.compile(r"^\s*(Kernel|Entity|Work-item|Work-group):\s", re.M)
# pyopencl itself probes vendor-specific device queries (NVIDIA's compute capability, while it
# builds a program), which Oclgrind rejects; that is no fault of clbig's.
BENIGN = re.compile(
    r"Oclgrind - OpenCL runtime error detected\s+Function: clGetDeviceInfo\s+"
    r"Error:\s+CL_INVALID_VALUE\s+For argument 'param_name'\s*$")


def _in_ci() -> bool:
    return os.environ.get("CI", "").strip().lower() not in ("", "0", "false", "no")


def oclgrind_reports(stderr: str) -> list[str]:
    """The Oclgrind reports in a stderr text, the benign API probes left out."""
    lines = [ln for ln in stderr.splitlines() if not ln.startswith("[oclgrind_cases]")]
    blocks, cur = [], []
    for ln in lines + [""]:
        if ln.strip():
            cur.append(ln)
        elif cur:
            blocks.append("\n".join(cur))
            cur = []
    return [b for b in blocks if (HEADLINE.match(b) or DETAIL.search(b)) and not BENIGN.match(b)]


def test_report_parser():
    """The filter keeps real reports and drops only pyopencl's device probe."""
    err = ("[oclgrind_cases] step\n\n"
           "Oclgrind - OpenCL runtime error detected\n\tFunction: clGetDeviceInfo\n"
           "\tError:    CL_INVALID_VALUE\n\tFor argument 'param_name'\n\n\n"
           "Invalid read of size 4 at global memory address 0x2000000000020\n\tKernel: k\n"
           "\tEntity: Global(7,0,0) Local(7,0,0) Group(0,0,0)\n\n"
           "Oclgrind - OpenCL runtime error detected\n\tFunction: clEnqueueNDRangeKernel\n"
           "\tError:    CL_INVALID_WORK_GROUP_SIZE\n\n"
           "OCLGRIND FATAL ERROR (./src/plugins/Uninitialized.cpp:1805)\n"
           "Unsupported instruction: freeze\n\tKernel: add_sub\n\n")
    got = oclgrind_reports(err)
    assert [r.splitlines()[0] for r in got] == [
        "Invalid read of size 4 at global memory address 0x2000000000020",
        "Oclgrind - OpenCL runtime error detected",
        "OCLGRIND FATAL ERROR (./src/plugins/Uninitialized.cpp:1805)",
    ]


def _summary(reports: list[str]) -> str:
    heads = Counter()
    for r in reports:
        first = r.splitlines()[0]
        kern = re.search(r"\t(Kernel|Function): *(\S+)", r)
        # addresses differ from report to report; group by kind and kernel
        first = re.sub(r"0x[0-9a-fA-F]+", "0x...", first)
        heads[f"{first}  [{kern.group(2) if kern else '?'}]"] += 1
    return "\n".join(f"  {c:5d} x {h}" for h, c in heads.most_common())


def test_kernels_under_oclgrind(tmp_path):
    if not ICD_LIB.exists():
        msg = (f"Oclgrind's ICD library {ICD_LIB} is missing: install Debian's oclgrind "
               "(apt-get install oclgrind)")
        if _in_ci():
            pytest.fail(msg + " (required under CI)")
        pytest.skip(msg)

    vendors = tmp_path / "vendors"
    vendors.mkdir()
    (vendors / "oclgrind.icd").write_text(f"{ICD_LIB}\n")
    env = dict(os.environ)
    # The subprocess must import the same clbig as this test (installed or checkout).
    pkg_root = str(Path(clbig.__file__).resolve().parent.parent)
    env["PYTHONPATH"] = os.pathsep.join([pkg_root] + [p for p in env.get("PYTHONPATH", "").split(os.pathsep) if p])
    env.pop("OCL_ICD_FILENAMES", None)  # would list other ICDs beside Oclgrind
    env["CLBIG_ICD_SETUP"] = "0"        # nor pip's runtimes (clbig/icd.py): only the simulator
    # Poisoned buffers (CLBIG_POISON) would read as initialized: Oclgrind's own check of reads
    # of fresh memory is the sharper one here.
    env.pop("CLBIG_POISON", None)
    env.update(
        OCL_ICD_VENDORS=str(vendors),
        CLBIG_DEVICE="oclgrind",
        OCLGRIND_DATA_RACES="1",
        OCLGRIND_UNINITIALIZED="1",
        OCLGRIND_CHECK_API="1",
        # Oclgrind 21.10's uninitialized-value plugin aborts on LLVM's `freeze` instruction,
        # which the optimizer emits (divisions by constants); unoptimized builds avoid it.
        # Optimised builds are also miscomputed: the optimiser folds the lane-wise carries of
        # add.cl.mako's uint4 "rows" mode into a vector `icmp`, whose true lanes Oclgrind
        # stores as all ones, so a carry arrives as 0xFF instead of 1 (wrong sums at 128 to
        # 2048 bits; PoCL, NVIDIA and Intel's CPU runtime are exact). The kernel's OpenCL C is
        # defined (scalar comparisons, 1 or 0); the fault is the simulator's. The reduced
        # kernel and the analysis: tests/oclgrind_reduced_add.py.
        # No program cache, so every kernel is built here with these options.
        PYOPENCL_BUILD_OPTIONS="-cl-opt-disable",
        PYOPENCL_NO_CACHE="1",
        PYTHONUNBUFFERED="1",
    )

    def run_shard(names):
        tag = "+".join(names)
        try:
            proc = subprocess.run([sys.executable, str(CASES), *names], env=env, cwd=str(tmp_path),
                                  capture_output=True, text=True, timeout=TIMEOUT_S)
        except subprocess.TimeoutExpired as e:
            return [f"[{tag}] ran past {TIMEOUT_S} s under Oclgrind; stdout so far:\n"
                    f"{(e.stdout or b'')[-4000:]!r}"]
        (tmp_path / f"{tag}.stderr.txt").write_text(proc.stderr)
        (tmp_path / f"{tag}.stdout.txt").write_text(proc.stdout)
        reports = oclgrind_reports(proc.stderr)
        problems = []
        if proc.returncode != 0:
            problems.append(f"[{tag}] oclgrind_cases.py exited with {proc.returncode}")
        if reports:
            problems.append(f"[{tag}] Oclgrind reported {len(reports)} problem(s):\n{_summary(reports)}")
        if problems:
            err = proc.stderr
            if len(err) > 20000:
                err = err[:20000] + f"\n... ({len(proc.stderr)} characters in all: {tmp_path / (tag + '.stderr.txt')})"
            problems.append(f"--- [{tag}] stdout ---\n{proc.stdout[-6000:]}\n--- [{tag}] stderr ---\n{err}")
        return problems

    # Oclgrind interprets on one core: the shards run side by side (CI has two cores).
    with ThreadPoolExecutor(max_workers=max(1, min(len(SHARDS), os.cpu_count() or 1))) as pool:
        problems = [p for found in pool.map(run_shard, SHARDS) for p in found]
    if problems:
        pytest.fail("\n".join(problems), pytrace=False)


def test_every_case_module_registered():
    """A tests/oclgrind_more_*.py that no shard names would never run."""
    on_disk = {p.stem for p in CASES.parent.glob("oclgrind_more_*.py")}
    named = {name for shard in SHARDS for name in shard}
    assert on_disk <= named, f"case modules in no SHARDS entry of test_oclgrind.py: {sorted(on_disk - named)}"
    assert named <= on_disk | {"base"}, f"SHARDS names missing modules: {sorted(named - on_disk - {'base'})}"
