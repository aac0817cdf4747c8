"""Command line: `python -m clbig info`, `demo`, `tune` and `warmup`.

info   lists the OpenCL platforms and devices with the limits clbig plans its launches by, and
       the device that clbig picks by default (the DEVICE setting, else the first GPU whose
       compiler works, else the CPU runtime measured soonest on a reference job, with the
       measurements); `info --settings` lists clbig's settings (environment variables) instead, with
       their current values.
demo   the quick start: random big integers, a*b and a+b on the default device, every result
       checked against gmpy2, with clbig's device time, the wall time and gmpy2's time.
       Exits 1 on any wrong result.
tune   measures where the NTT (and SSA) overtake classical multiplication on a device and
       stores the crossovers for algorithm="auto" (clbig.tuning).
warmup builds the common families' kernels at common widths ahead of time, each result checked;
       the builds are kept on disk (the kernel cache that `info` shows) for every later process.

Exit status: 2 for a bad argument (a --device that matches no device, --n or --bits out of
range), 1 for a device or cache folder that cannot be used (the message says which and why)
and for a wrong result in demo; errors are one message, not a traceback.
"""
from __future__ import annotations

import argparse
import os
import random
import sys
import textwrap
import time


def _fmt_bytes(n: int) -> str:
    return f"{n / 2**20:g} MiB" if n >= 2**20 else f"{n / 2**10:g} KiB"


def cmd_settings() -> int:
    """Every setting: its variable, value (as set, else the default; "-": derived, see its
    text), kind, and what it does; a value that does not parse says why."""
    from clbig.runtime import config
    print("clbig's settings (environment variables), their values here and what they do;")
    print('"-": clbig chooses, as the text says; [tests]: for tests, tuning and benchmarks.')
    for var, kind, shown, is_set, doc, tests_only in config.rows():
        state = "set" if is_set else "default"
        if is_set:
            try:
                config.value(var[len(config.PREFIX):])
            except ValueError as e:
                state = f"set, BAD: {e}"
        print(f"\n{var} = {shown}  ({state}; {kind})" + ("  [tests]" if tests_only else ""))
        print(textwrap.fill(doc, width=96, initial_indent="    ", subsequent_indent="    ",
                            break_on_hyphens=False))
    return 0


def cmd_info(args) -> int:
    if args.settings:
        return cmd_settings()
    import pyopencl as cl

    import clbig

    infos = clbig.devices()
    if not infos:
        from clbig.runtime.devices import SetupError, check_cache_folder
        try:
            check_cache_folder()   # PoCL lists no device when it has no cache folder
        except SetupError as e:
            print(f"No OpenCL device found: {e}")
            return 1
        print("No OpenCL device found. Install one, e.g. PoCL for the CPU: pip install \".[pocl]\"")
        return 1
    print(f"clbig {clbig.__version__} (from {os.path.dirname(clbig.__file__)})")
    print(f"pyopencl {cl.VERSION_TEXT}")
    platform = None
    unusable = {}   # index: why clbig cannot use the device
    for info in infos:
        if info.platform != platform:
            platform = info.platform
            print(f"\nPlatform: {platform}")
        print(f"  [{info.index}] {info.name} ({info.type}, vendor {info.vendor})")
        print(f"      compute units        {info.compute_units}")
        print(f"      local memory         {_fmt_bytes(info.local_mem)} ({info.local_mem} bytes)")
        print(f"      max work-group size  {info.max_work_group_size}")
        try:
            items = clbig.Context(info.index).max_items
            print(f"      clbig max_items      {items}  (work-items per group clbig plans with)")
        except Exception as e:  # noqa: BLE001  (a device that cannot make a context)
            unusable[info.index] = f"{type(e).__name__}: {one_line(e)}"
            print(f"      clbig max_items      unavailable: {unusable[info.index]}")
    print()
    from clbig.runtime import config
    sel, var = config.settings().device, config.var("DEVICE")
    how = f"{var}={sel!r}" if sel else (f"no {var}: the first GPU whose compiler works, else the "
                                         "CPU runtime measured soonest, below")
    try:
        ctx = clbig.current_context()
    except Exception as e:  # noqa: BLE001
        print(f"Default device ({how}): none: {e}")
        if unusable:   # the selector may have missed only because these cannot build kernels
            print("Devices clbig cannot use, and why:")
            for info in infos:
                if info.index in unusable:
                    print(f"  [{info.index}] {info.label} ({info.type}): {unusable[info.index]}")
        return 1
    print(f"Default device ({how}): {ctx.name}")
    _print_cpu_measurements()
    from clbig.runtime import binaries, config
    root = binaries.folder(config.settings().kernel_cache)
    files, size = binaries.usage(root)
    print(f"Kernel cache: {root or 'off (' + config.var('KERNEL_CACHE') + ')'}"
          + (f", {files} kernels, {_fmt_bytes(size)}" if root else "")
          + "  (python -m clbig warmup builds the common ones ahead of time)")
    from clbig.mpn import convert
    print(f"Int conversion: {convert.describe()}")
    return 0


def _print_cpu_measurements() -> None:
    """The CPU runtimes' reference-job measurements that chose (or would choose) the default
    CPU, for the runtimes installed here; nothing where none was measured (a GPU, one CPU)."""
    from clbig.runtime import cpu_choice, devices as D
    here = {cpu_choice.fingerprint(d): i for i, d in enumerate(D._cl_devices())}
    got = {k: v for k, v in cpu_choice.known(D.cpu_folder()).items() if k in here}
    if not got:
        return
    print(f"CPU runtimes measured (build, then {cpu_choice.RUNS} runs of {cpu_choice.ROWS} 1024-bit "
          "products; the least total is the default CPU):")
    for k, m in sorted(got.items(), key=lambda kv: kv[1].get("score", float("inf"))):
        name = k.split(" | ")[0] + ": " + k.split(" | ")[2]
        if m.get("build_s") is None or not m.get("exact"):
            print(f"  [{here[k]}] {name}: unusable ({m.get('error', 'wrong product')})")
        else:
            print(f"  [{here[k]}] {name}: build {1e3 * m['build_s']:.0f} ms + {cpu_choice.RUNS} x "
                  f"{1e3 * m['run_s']:.2f} ms = {1e3 * m['score']:.0f} ms")


def one_line(e: BaseException) -> str:
    """An error's message on one line: its first line's statement, then the details (a
    compiler's status and build log), without pyopencl's options line."""
    lines = [ln.strip() for ln in str(e).splitlines() if ln.strip() and not ln.strip().startswith("(options:")]
    if not lines:
        return type(e).__name__
    return lines[0].rstrip(":") + (": " + "; ".join(lines[1:]) if lines[1:] else "")


def _timed(fn):
    t0 = time.perf_counter()
    out = fn()
    return out, time.perf_counter() - t0


def _short(v) -> str:
    h = hex(int(v))
    return h if len(h) <= 42 else f"{h[:20]}...{h[-20:]}"


def _check(name: str, got: list[int], want: list) -> int:
    bad = [i for i, (g, w) in enumerate(zip(got, want)) if g != w]
    if len(got) != len(want):
        print(f"  {name}: MISMATCH: {len(got)} results for {len(want)} inputs")
        return 1
    if bad:
        i = bad[0]
        print(f"  {name}: MISMATCH in {len(bad)} of {len(want)} results; first at index {i}:"
              f" got {_short(got[i])}, want {_short(want[i])}")
        return len(bad)
    print(f"  {name}: all {len(want)} results match gmpy2")
    return 0


def _run_op(name, ctx, clbig_fn, gmpy_fn, rows):
    """Warm up (kernel build), then time clbig on the device and gmpy2 on the host; check."""
    import clbig

    clbig_fn()          # builds and caches the kernels for this shape
    ctx.finish()
    with clbig.profile() as p:
        t0 = time.perf_counter()
        r = clbig_fn()
        ctx.finish()
        wall = time.perf_counter() - t0
    got = r.tolist()
    want, t_gmp = _timed(gmpy_fn)
    rows.append((name, p.seconds, p.kernels, wall, t_gmp))
    return _check(name, got, want)


def _context(cmd: str, device):
    """(Context, None), or (None, exit status) with the error printed: 2 for a selector that
    matches no device, 1 for a device or setup that cannot be used."""
    import clbig
    try:
        return (clbig.Context(device) if device else clbig.Context()), None
    except ValueError as e:
        print(f"clbig {cmd}: {e}", file=sys.stderr)
        return None, 2
    except RuntimeError as e:   # clbig.runtime.devices.SetupError, no OpenCL device at all
        print(f"clbig {cmd}: {e}", file=sys.stderr)
        return None, 1


def cmd_demo(args) -> int:
    import gmpy2

    import clbig

    if args.n < 1 or args.bits < 1:
        print(f"clbig demo: --n and --bits must be positive, got --n {args.n} --bits {args.bits}",
              file=sys.stderr)
        return 2
    ctx, rc = _context("demo", args.device)
    if ctx is None:
        return rc
    from clbig.mpz import hostrows
    from clbig.mpz.array import check_fits
    hostrows.buy_arrays(ctx)   # it shows the device: no first call rented to the host
    try:   # the products are the largest arrays: refuse a size the device cannot hold up front
        check_fits(ctx, args.n, 2 * args.bits, "the demo's products")
    except (MemoryError, OverflowError) as e:
        print(f"clbig demo: --n {args.n} --bits {args.bits} does not fit: {e}", file=sys.stderr)
        return 2
    rng = random.Random(args.seed)
    n, bits = args.n, args.bits
    print(f"clbig demo: n={n} random {bits}-bit integers (seed {args.seed})")
    print(f"device: {ctx.name}")

    xs = [rng.getrandbits(bits) for _ in range(n)]
    ys = [rng.getrandbits(bits) for _ in range(n)]
    (a, b), t_up = _timed(lambda: (clbig.array(xs, bits=bits, ctx=ctx), clbig.array(ys, bits=bits, ctx=ctx)))
    ctx.finish()
    ga = [gmpy2.mpz(x) for x in xs]
    gb = [gmpy2.mpz(y) for y in ys]
    print(f"upload: {t_up * 1e3:.1f} ms for 2 x {n} integers")

    rows = []
    wrong = 0
    wrong += _run_op("a*b", ctx, lambda: a * b, lambda: [x * y for x, y in zip(ga, gb)], rows)
    wrong += _run_op("a+b", ctx, lambda: a + b, lambda: [x + y for x, y in zip(ga, gb)], rows)

    print()
    print(f"{'op':<5} {'device time':>14} {'kernels':>8} {'wall time':>12} {'gmpy2':>12}")
    for name, dev_s, kernels, wall, t_gmp in rows:
        print(f"{name:<5} {dev_s * 1e3:>11.3f} ms {kernels:>8} {wall * 1e3:>9.3f} ms {t_gmp * 1e3:>9.3f} ms")
    print("(device time: clbig.profile(), kernels only; wall: the call until the queue is done,"
          " kernels already built; gmpy2: one host thread)")
    note = cpu_note(ctx, rows)
    if note:
        print(note)
    if wrong:
        print(f"FAILED: {wrong} wrong result(s)")
        return 1
    print("OK: every result matches gmpy2")
    return 0


def cpu_note(ctx, rows) -> str | None:
    """Why gmpy2 wins, where the device is a CPU and some op's wall time exceeds gmpy2's."""
    import pyopencl as cl
    slower = [name for name, _dev, _k, wall, t_gmp in rows if wall > t_gmp]
    if not slower or not ctx.device.type & cl.device_type.CPU:
        return None
    f = ctx.profile.facts
    lanes = "instances side by side in the vector units" if f.intel_cpu_runtime else (
        f"{8 if f.wide_fma else 4} instances per vector")
    return (f"why gmpy2 is faster here ({', '.join(slower)}): this device is the CPU gmpy2 runs "
            "on, so clbig can win only by using more cores and wider vectors than GMP's hand-tuned "
            f"scalar code does. Its CPU kernels (products in 51-bit FP64 digits, {lanes}; "
            "additions one instance per work-item) reached about 2x one gmpy2 core on two "
            "AVX-512 cores (bench/README.md, \"Batch products on CPUs\"); with fewer cores, "
            "narrower vectors or other work on them, gmpy2 keeps the lead. clbig is built for "
            "GPUs (docs/performance.rst).")


def cmd_tune(args) -> int:
    from clbig import tuning as tune

    ctx, rc = _context("tune", args.device)
    if ctx is None:
        return rc
    print(f"tuning multiplication on {ctx.name} (products checked against gmpy2)")
    try:
        res = tune.tune(ctx, quick=args.quick)
    except OSError as e:   # the tuning file cannot be written (checked before measuring)
        print(f"clbig tune: {e.strerror or e}", file=sys.stderr)
        return 1
    for key in ("ntt_from_bits", "ntt_from_bits_few", "ntt_from_bits_low", "ntt_from_bits_low_few",
                "ssa_from_bits", "ssa_from_bits_few"):
        v = res[key]
        print(f"  {key:18s} {'never' if v >= 1 << 62 else f'2^{v.bit_length() - 1} bits'}")
    print(f"written to {res['file']}; algorithm='auto' uses them from now on")
    return 0


def cmd_warmup(args) -> int:
    from clbig.tuning import warmup as wu

    ctx, rc = _context("warmup", args.device)
    if ctx is None:
        return rc
    try:
        fams = tuple(f.strip() for f in args.ops.split(",") if f.strip()) if args.ops else wu.FAMILIES
        bits = tuple(int(b) for b in args.bits.split(",")) if args.bits else wu.DEFAULT_BITS
    except ValueError:
        print(f"clbig warmup: --bits takes integers separated by commas, not {args.bits!r}", file=sys.stderr)
        return 2
    jobs = wu.default_jobs() if args.jobs is None else args.jobs
    if jobs < 1:
        print(f"clbig warmup: --jobs must be at least 1, not {jobs}", file=sys.stderr)
        return 2
    print(f"building {', '.join(fams)} at {', '.join(map(str, bits))} bits on {ctx.name}"
          + (f" in {jobs} processes" if jobs > 1 else ""))
    try:
        from tqdm import tqdm
        bar = tqdm(total=len(fams) * len(bits), unit="step")

        def progress(done, total, label):
            bar.set_postfix_str(label)
            bar.update(1)
    except ImportError:   # the bench extra brings tqdm
        bar = None

        def progress(done, total, label):
            print(f"  [{done}/{total}] {label}", flush=True)
    try:
        res = wu.warmup(fams, bits, ctx=ctx, progress=progress, jobs=jobs)
    except (ValueError, RuntimeError) as e:
        print(f"clbig warmup: {e}", file=sys.stderr)
        return 1
    finally:
        if bar is not None:
            bar.close()
    from clbig.runtime import config
    store = ctx.binaries.dir or f"(no kernel cache: {config.var('KERNEL_CACHE')}=off)"
    print(f"done in {res['seconds']:.1f} s; kernels kept in {store}")
    return 0


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(prog="python -m clbig", description="clbig: exact arithmetic on batches of big signed integers on OpenCL devices")
    sub = parser.add_subparsers(dest="cmd", required=True)
    p_info = sub.add_parser("info", help="list OpenCL devices, their limits and the default choice")
    p_info.add_argument("--settings", action="store_true",
                        help="list clbig's settings (environment variables) with their current values")
    p_info.set_defaults(fn=cmd_info)
    p_demo = sub.add_parser("demo", help="a*b and a+b on random integers, checked against gmpy2")
    p_demo.add_argument("--n", type=int, default=4096, help="batch size (default 4096)")
    p_demo.add_argument("--bits", type=int, default=2048, help="bits per integer (default 2048)")
    p_demo.add_argument("--seed", type=int, default=1, help="random seed (default 1)")
    p_demo.add_argument("--device", default=None,
                        help="device selector as for clbig.Context (default: the DEVICE setting, else GPU, else CPU)")
    p_demo.set_defaults(fn=cmd_demo)
    p_tune = sub.add_parser("tune", help="measure the multiplication crossovers of a device and store them")
    p_tune.add_argument("--device", default=None, help="device selector as for clbig.Context")
    p_tune.add_argument("--quick", action="store_true", help="small sizes only (a minute on a CPU)")
    p_tune.set_defaults(fn=cmd_tune)
    p_warm = sub.add_parser("warmup", help="build the common kernels ahead of time (kept on disk for "
                                           "every later process)")
    p_warm.add_argument("--device", default=None, help="device selector as for clbig.Context")
    p_warm.add_argument("--ops", default=None, help="comma-separated families (default: all of "
                        "add, mul, divmod, compare, powmod, gcd, invert, gcdext, lcm, iroot, is_prime, "
                        "next_prime, prod, expression)")
    p_warm.add_argument("--bits", default=None, help="comma-separated widths in bits (default "
                        "64,128,256,512,1024,2048,4096)")
    p_warm.add_argument("--jobs", type=int, default=None, help="processes to build in side by side "
                        "(default: one per host core, up to 8)")
    p_warm.set_defaults(fn=cmd_warmup)
    args = parser.parse_args(argv)
    return args.fn(args)


if __name__ == "__main__":
    sys.exit(main())
