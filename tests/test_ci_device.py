"""Which device the suite runs on. .ci/run runs the suite once per CPU runtime it sets up,
choosing the runtime by CLBIG_DEVICE; a selector that quietly picked another runtime (a
substring that also matches PoCL's device names, a platform order that changed) would run the
same device twice and leave the other untested. CLBIG_TEST_EXPECT_PLATFORM (set by .ci/run)
names part of the OpenCL platform that every context of the suite must be on: the session
contexts of conftest.py, a Context() that a test makes itself, and a Context() of a fresh
process (the tests' subprocesses, the notebooks' kernels). Without it, they must agree."""
from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import clbig


def _label(device) -> str:
    return f"{device.platform.name.strip()} | {device.name.strip()}"


def test_every_context_on_the_expected_platform(ctx, small_ctx_obj, tmp_path):
    env = dict(os.environ)
    # The subprocess must import the same clbig as this test (installed or checkout).
    pkg_root = str(Path(clbig.__file__).resolve().parent.parent)
    env["PYTHONPATH"] = os.pathsep.join([pkg_root] + [p for p in env.get("PYTHONPATH", "").split(os.pathsep) if p])
    code = ("import warnings; warnings.simplefilter('ignore')\n"
            "import clbig; d = clbig.Context().device\n"
            "print(d.platform.name.strip() + ' | ' + d.name.strip())\n")
    p = subprocess.run([sys.executable, "-c", code], env=env, cwd=tmp_path, capture_output=True, text=True,
                       timeout=300)   # cwd: not the checkout, whose clbig `-c` would import
    assert p.returncode == 0, p.stderr[-3000:]
    labels = {"session context": _label(ctx.device), "small-work-group context": _label(small_ctx_obj.device),
              "Context() in a test": _label(clbig.Context().device),
              "Context() in a fresh process": p.stdout.strip().splitlines()[-1]}
    assert len(set(labels.values())) == 1, f"CLBIG_DEVICE={os.environ.get('CLBIG_DEVICE')!r}: {labels}"
    want = os.environ.get("CLBIG_TEST_EXPECT_PLATFORM", "").strip()
    if want:
        platform = ctx.device.platform.name.strip()
        assert want.lower() in platform.lower(), (
            f"CLBIG_TEST_EXPECT_PLATFORM={want!r}, but CLBIG_DEVICE={os.environ.get('CLBIG_DEVICE')!r} "
            f"chose {labels['session context']}")
