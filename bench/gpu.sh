#!/usr/bin/env bash
# clbig on the GPU machine: a quick correctness pass, then the benchmark suite, in under 8 minutes.
#
#   source .gpu/device-env.sh && bash bench/gpu.sh [extra clbig.bench arguments]
#
# Run from the repository root. Everything lands in $OUT (default: a new folder gpu-sh-<UTC date>
# in the current directory; bench/results keeps only the files bench/README.md cites):
#   gpu.log (environment, summary), tests.log, bench.log, and the bench's
#   <device>_<date>.json / .csv / .md and its plots (_throughput, _speedup_gmpy2, _add_vs_copy; .png, .svg)
# Knobs (environment): GPU_SH_BUDGET total seconds (default 450), TEST_TIMEOUT (default 120),
# TEST_MARK / TEST_K (pytest -m / -k; default -m "not large" -k "not oclgrind": the bench itself
# spot-checks the large sizes, and the GPU machine has no Oclgrind; set them empty for all tests),
# SKIP_TESTS=1, BENCH_DEVICE (default $CLBIG_DEVICE, else nvidia).
set -u -o pipefail

OUT="${OUT:-gpu-sh-$(date -u +%Y%m%d-%H%M%S)}"
mkdir -p "$OUT"
TOTAL="${GPU_SH_BUDGET:-450}"
START=$SECONDS
LOG="$OUT/gpu.log"
: >"$LOG"
say() { echo "[gpu.sh $((SECONDS - START))s] $*" | tee -a "$LOG"; }

# The caller normally sourced .gpu/device-env.sh already; do it here if not.
if [ -z "${OCL_ICD_VENDORS:-}" ] && [ -f .gpu/device-env.sh ]; then
  say "sourcing .gpu/device-env.sh (output in $LOG)"
  # shellcheck disable=SC1091
  source .gpu/device-env.sh >>"$LOG" 2>&1 || say "device-env.sh failed (carrying on)"
fi
export PYTHONUNBUFFERED=1
DEVICE="${BENCH_DEVICE:-${CLBIG_DEVICE:-nvidia}}"

{
  echo "date: $(date -Is)"
  echo "host: $(uname -a)"
  echo "git:  $(git rev-parse --short HEAD 2>/dev/null || echo '(no git)')"
  command -v nvidia-smi >/dev/null && nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.sm,clocks.max.sm,clocks.mem,temperature.gpu,power.draw --format=csv
  python3 - <<'EOF'
import sys
print("python", sys.version.split()[0])
try:
    import pyopencl as cl, numpy, gmpy2, clbig
    print("pyopencl", cl.VERSION_TEXT, "numpy", numpy.__version__, "gmpy2", gmpy2.version(), "clbig", clbig.__version__)
    for d in clbig.devices():
        print(f"  [{d.index}] {d.label} ({d.type})")
except Exception as e:
    print("import failed:", type(e).__name__, e)
for m in ("tqdm", "matplotlib", "pytest"):
    try:
        __import__(m); print(m, "ok")
    except ImportError:
        print(m, "missing")
EOF
} 2>&1 | tee -a "$LOG"

# -- 1. quick correctness pass ---------------------------------------------------------------
test_rc=0
if [ "${SKIP_TESTS:-0}" = 1 ]; then
  say "tests skipped (SKIP_TESTS=1)"
elif ! find tests -name 'test_*.py' 2>/dev/null | grep -q .; then
  say "no tests/test_*.py: correctness pass skipped" | tee "$OUT/tests.log"
else
  tt="${TEST_TIMEOUT:-120}"
  args=(-q -x -p no:cacheprovider)
  mark="${TEST_MARK-not large}"
  kexpr="${TEST_K-not oclgrind}"
  [ -n "$mark" ] && args+=(-m "$mark")
  [ -n "$kexpr" ] && args+=(-k "$kexpr")
  say "pytest ${args[*]} tests (limit ${tt}s)"
  timeout -k 10 "$tt" python3 -m pytest "${args[@]}" tests 2>&1 | tee "$OUT/tests.log"
  test_rc=$?
  [ "$test_rc" = 124 ] && say "tests ran out of their ${tt}s"
  say "tests rc=$test_rc"
fi

# -- 2. the benchmark ----------------------------------------------------------------------------
left=$((TOTAL - (SECONDS - START) - 10))
if [ "$left" -lt 60 ]; then
  say "only ${left}s left: benchmark not run"
  bench_rc=124
else
  soft=$((left - 60))  # the bench stops starting measurements here, then writes its outputs
  say "python3 -m clbig.bench --device $DEVICE --out $OUT --budget $soft (hard limit ${left}s) $*"
  timeout -k 10 "$left" python3 -m clbig.bench --device "$DEVICE" --out "$OUT" \
    --budget "$soft" --max-op-seconds 15 "$@" 2>&1 | tee "$OUT/bench.log"
  bench_rc=$?
  [ "$bench_rc" = 124 ] && say "bench hit its hard limit; the JSON/markdown in $OUT hold what was measured"
  [ "$bench_rc" = 2 ] && say "bench found a WRONG RESULT (see bench.log)"
fi

say "done: tests rc=$test_rc, bench rc=$bench_rc, $((SECONDS - START))s"
ls -l "$OUT" | tee -a "$LOG"
[ "$test_rc" = 0 ] && [ "$bench_rc" = 0 ]
