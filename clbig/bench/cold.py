"""`python -m clbig.bench --cold`: the first call of each family as a new user meets it (issue 43).

Kernels are built on first use (and kept on disk by pyopencl and PoCL), so a user's first call
of an operation, at a new width, pays for compilers, while the tenth pays for the kernels.
Each family runs in three states, each in a fresh process started by this one:

- cold: empty kernel caches (XDG_CACHE_HOME, POCL_CACHE_DIR and CUDA_CACHE_PATH pointed at a
  new folder: NVIDIA's driver keeps its own cache of compiled PTX, which would otherwise make a
  second measurement of the same kernels look cold when it is not);
- disk: a second fresh process on the caches the cold one filled (a user's next session);
- warm: the same call again in the disk process (the operation's own cost).

Each child also times the same work done by gmpy2 on one core (the user's alternative) and,
where the work is row by row, on every core (bench.pools), and checks clbig's result against
gmpy2's. Import and context creation are timed once, apart. Nothing
is memoized between families beyond what the caches hold: each family starts from empty caches.
"""
from __future__ import annotations

import functools
import json
import os
import subprocess
import sys
import tempfile
import time

from ..runtime import config
from . import modcheck, pools

# Each family: (description, the clbig work, the gmpy2 work); both take the inputs made by
# _inputs and return a list of Python ints to compare.
FAMILIES = ("add loop", "mul loop", "products", "divmod", "powmod", "invert", "gcd", "gcdext",
            "lcm", "iroot", "is_prime", "next_prime", "prod 256", "expression")

DESCRIBE = {
    "add loop": "s = s + s, 100 times, from [1, 2, 3] (capacity +1 bit a step)",
    "mul loop": "x = x * 3, 12 times, from 24-bit values",
    "products": "1000 products of 2048-bit ints",
    "divmod": "1000 divmods, 4096 / 2048 bits",
    "powmod": "64 powmods, 2048-bit moduli and exponents",
    "invert": "1000 inverses mod 2048-bit odd moduli",
    "gcd": "1000 gcds of 2048-bit ints",
    "gcdext": "100 gcdext of 1024-bit ints",
    "lcm": "100 lcm of 1024-bit ints",
    "iroot": "100 cube roots of 2048-bit ints",
    "is_prime": "100 is_prime of 1024-bit odd ints",
    "next_prime": "8 next_prime of 512-bit ints",
    "prod 256": "clbig.prod of 256 ints of 2048 bits",
    "expression": "(a * b + c) % m, 1000 rows of 1024 bits",
    "modular check": "the modular API at 13 widths, 64 to 4096 bits, against gmpy2 (bench.modcheck)",
}
# Families --cold runs only when named (--cold-families): minutes each on a CPU.
EXTRA_FAMILIES = ("modular check",)


def _inputs(family: str):
    import random
    rng = random.Random(2026)
    r = rng.getrandbits
    if family == "add loop":
        return [1, 2, 3]
    if family == "mul loop":
        return [r(24) for _ in range(8)]
    if family == "products":
        return [r(2048) for _ in range(1000)], [r(2048) for _ in range(1000)]
    if family == "divmod":
        return [r(4096) for _ in range(1000)], [r(2048) | 1 << 2047 for _ in range(1000)]
    if family == "powmod":
        return [r(2048) for _ in range(64)], [r(2048) for _ in range(64)], [r(2048) | 1 << 2047 | 1 for _ in range(64)]
    if family == "invert":
        m = [r(2048) | 1 << 2047 | 1 for _ in range(1000)]
        return [r(2040) | 1 for _ in range(1000)], m
    if family in ("gcd",):
        return [r(2048) for _ in range(1000)], [r(2048) for _ in range(1000)]
    if family in ("gcdext", "lcm"):
        return [r(1024) for _ in range(100)], [r(1024) for _ in range(100)]
    if family == "iroot":
        return [r(2048) for _ in range(100)]
    if family == "is_prime":
        return [r(1024) | 1 for _ in range(100)]
    if family == "next_prime":
        return [r(512) for _ in range(8)]
    if family == "prod 256":
        return [r(2048) | 1 << 2047 for _ in range(256)]
    if family == "modular check":
        return modcheck.inputs()
    if family == "expression":
        return ([r(1024) for _ in range(1000)], [r(1024) for _ in range(1000)],
                [r(1024) for _ in range(1000)], r(1024) | 1 << 1023)
    raise ValueError(f"unknown family {family!r}; choose from {', '.join(FAMILIES + EXTRA_FAMILIES)}")


def _run_clbig(clbig, family: str, x):
    if family == "add loop":
        s = clbig.array(x)
        for _ in range(100):
            s = s + s
        return s.tolist()
    if family == "mul loop":
        v = clbig.array(x)
        for _ in range(12):
            v = v * 3
        return v.tolist()
    if family == "products":
        return clbig.mul(clbig.array(x[0]), clbig.array(x[1])).tolist()
    if family == "divmod":
        q, rem = clbig.divmod(clbig.array(x[0]), clbig.array(x[1]))
        return q.tolist() + rem.tolist()
    if family == "powmod":
        return clbig.powmod(clbig.array(x[0]), clbig.array(x[1]), clbig.array(x[2])).tolist()
    if family == "invert":
        return clbig.invert(clbig.array(x[0]), clbig.array(x[1]), strict=False)[0].tolist()
    if family == "gcd":
        return clbig.gcd(clbig.array(x[0]), clbig.array(x[1])).tolist()
    if family == "gcdext":
        return [v for arr in clbig.gcdext(x[0], x[1]) for v in arr.tolist()]
    if family == "lcm":
        return clbig.lcm(x[0], x[1]).tolist()
    if family == "iroot":
        return clbig.iroot(x, 3)[0].tolist()
    if family == "is_prime":
        return [int(b) for b in clbig.is_prime(x)]
    if family == "next_prime":
        return clbig.next_prime(x).tolist()
    if family == "prod 256":
        return [clbig.prod(clbig.array(x))]
    if family == "expression":
        a, b, c = (clbig.array(v) for v in x[:3])
        return ((a * b + c) % x[3]).tolist()
    if family == "modular check":
        return modcheck.run_clbig(clbig, x)
    raise ValueError(family)


def _run_gmpy2(family: str, x):
    import gmpy2
    if family == "add loop":
        s = [gmpy2.mpz(v) for v in x]
        for _ in range(100):
            s = [v + v for v in s]
        return [int(v) for v in s]
    if family == "mul loop":
        v = [gmpy2.mpz(t) for t in x]
        for _ in range(12):
            v = [t * 3 for t in v]
        return [int(t) for t in v]
    if family == "products":
        return [int(gmpy2.mpz(a) * b) for a, b in zip(*x)]
    if family == "divmod":
        out = [gmpy2.f_divmod(a, b) for a, b in zip(*x)]
        return [int(q) for q, _ in out] + [int(r) for _, r in out]
    if family == "powmod":
        return [int(gmpy2.powmod(a, e, m)) for a, e, m in zip(*x)]
    if family == "invert":
        out = []
        for a, m in zip(*x):
            try:
                out.append(int(gmpy2.invert(a, m)))
            except ZeroDivisionError:
                out.append(0)
        return out
    if family == "gcd":
        return [int(gmpy2.gcd(a, b)) for a, b in zip(*x)]
    if family == "gcdext":
        out = [gmpy2.gcdext(a, b) for a, b in zip(*x)]
        return [int(t[i]) for i in range(3) for t in out]
    if family == "lcm":
        return [int(gmpy2.lcm(a, b)) for a, b in zip(*x)]
    if family == "iroot":
        return [int(gmpy2.iroot(v, 3)[0]) for v in x]
    if family == "is_prime":
        return [int(gmpy2.is_prime(v, 25)) for v in x]
    if family == "next_prime":
        return [int(gmpy2.next_prime(v)) for v in x]
    if family == "prod 256":         # a balanced tree: a running product is quadratic (10x here)
        m = [gmpy2.mpz(v) for v in x]
        while len(m) > 1:
            m = [m[i] * m[i + 1] for i in range(0, len(m) - 1, 2)] + m[len(m) - 1:] * (len(m) % 2)
        return [int(m[0])]
    if family == "expression":
        a, b, c, m = x
        return [int((gmpy2.mpz(u) * v + w) % m) for u, v, w in zip(a, b, c)]
    if family == "modular check":
        return modcheck.run_gmpy2(x)
    raise ValueError(family)


def _rows(family: str, x):
    """The family's inputs as rows that a pool can share out (its work is row by row), or
    None (a product tree, the modular check's mixed calls)."""
    if family in ("prod 256", "modular check"):
        return None
    if family == "expression":
        a, b, c, m = x
        return [(u, v, w, m) for u, v, w in zip(a, b, c)]
    return list(x) if isinstance(x, list) else list(zip(*x))


def _gmpy2_rows(family: str, rows: list) -> list:
    """_run_gmpy2 of some of _rows' rows (top level: the pool pickles it)."""
    if not rows or not isinstance(rows[0], tuple):
        return _run_gmpy2(family, list(rows))
    cols = tuple(map(list, zip(*rows)))
    if family == "expression":
        cols = cols[:3] + (cols[3][0],)
    return _run_gmpy2(family, cols)


def _gmpy2_all_cores(family: str, x) -> tuple:
    """(seconds, workers) of the family's gmpy2 work on every core (bench.pools), or (None, n)."""
    workers = os.cpu_count() or 1
    rows = _rows(family, x)
    if rows is None:
        return None, workers
    return pools.pool_map(functools.partial(_gmpy2_rows, family), rows, workers)[1], workers


def child(family: str, all_cores: bool = True) -> dict:
    """In a fresh process: import and context, the family's first and second calls, gmpy2's
    time (on every core too, unless not `all_cores`), and whether the results agree."""
    t0 = time.perf_counter()
    import clbig
    clbig.current_context()
    t_import = time.perf_counter() - t0
    from clbig.runtime import render
    x = _inputs(family)
    built = len(render.builds())
    t0 = time.perf_counter()
    got = _run_clbig(clbig, family, x)
    first = time.perf_counter() - t0
    built = render.builds()[built:]
    t0 = time.perf_counter()
    again = _run_clbig(clbig, family, x)
    second = time.perf_counter() - t0
    t0 = time.perf_counter()
    want = _run_gmpy2(family, x)
    g = time.perf_counter() - t0
    g_all, workers = _gmpy2_all_cores(family, x) if all_cores else (None, None)
    return {"family": family, "import_s": t_import, "first_s": first, "second_s": second,
            "gmpy2_s": g, "gmpy2_all_s": g_all, "workers": workers, "exact": got == want and again == want,
            "device": clbig.current_context().name, "builds": [f"{t}:{k}" for t, k in built]}


def _spawn(family: str, env: dict, timeout: float, all_cores: bool = True) -> dict:
    cmd = [sys.executable, "-m", "clbig.bench.cold", family] + ([] if all_cores else ["--one-core"])
    run = subprocess.run(cmd, capture_output=True, text=True, env=env, timeout=timeout,
                         cwd=tempfile.gettempdir())
    if run.returncode != 0:
        return {"family": family, "error": (run.stderr or run.stdout).strip().splitlines()[-1:]}
    return json.loads(run.stdout.strip().splitlines()[-1])


def run_cold(families=FAMILIES, device: str | None = None, timeout: float = 600, progress=None) -> list:
    """Each family cold (empty caches), then from the disk caches, then warm; a fresh cache
    folder per family. Returns one dict per family."""
    rows = []
    for fam in families:
        with tempfile.TemporaryDirectory(prefix="clbig-cold-") as tmp:
            env = dict(os.environ, XDG_CACHE_HOME=os.path.join(tmp, "cache"),
                       POCL_CACHE_DIR=os.path.join(tmp, "pocl"),
                       CUDA_CACHE_PATH=os.path.join(tmp, "nv"))
            env.pop(config.var("KERNEL_CACHE"), None)   # clbig's own: in XDG_CACHE_HOME
            if device is not None:
                env[config.var("DEVICE")] = str(device)
            cold = _spawn(fam, env, timeout, all_cores=False)   # the table shows the disk run's
            disk = _spawn(fam, env, timeout)
        row = {"family": fam, "what": DESCRIBE[fam], "cold": cold, "disk": disk}
        rows.append(row)
        if progress:
            progress(row)
    return rows


def run_after_warmup(families=FAMILIES, device: str | None = None, timeout: float = 600,
                     progress=None) -> dict:
    """`python -m clbig warmup` (its defaults) into empty caches, then each family's first call
    in a fresh process on those caches, counting the kernels it still builds (issue 43: none).
    Returns {"warmup_s", "warmup_rc", "rows": [{"family", "what", "after": child's dict}]}."""
    with tempfile.TemporaryDirectory(prefix="clbig-warm-") as tmp:
        env = dict(os.environ, XDG_CACHE_HOME=os.path.join(tmp, "cache"),
                   POCL_CACHE_DIR=os.path.join(tmp, "pocl"), CUDA_CACHE_PATH=os.path.join(tmp, "nv"))
        env.pop(config.var("KERNEL_CACHE"), None)
        if device is not None:
            env[config.var("DEVICE")] = str(device)
        t0 = time.perf_counter()
        run = subprocess.run([sys.executable, "-m", "clbig", "warmup"], capture_output=True, text=True,
                             env=env, timeout=timeout * 4, cwd=tempfile.gettempdir())
        out = {"warmup_s": time.perf_counter() - t0, "warmup_rc": run.returncode,
               "warmup_tail": (run.stderr or run.stdout).strip().splitlines()[-3:], "rows": []}
        for fam in families:
            row = {"family": fam, "what": DESCRIBE[fam], "after": _spawn(fam, env, timeout)}
            out["rows"].append(row)
            if progress:
                progress(row)
    return out


def warm_markdown(res: dict, device: str, when: str) -> str:
    out = [f"# First calls after `python -m clbig warmup` ({device}, {when})", "",
           f"The warm-up (its defaults, empty caches): {res['warmup_s']:.0f} s, exit {res['warmup_rc']}. "
           "Then each family in a fresh process on those caches. Milliseconds; builds: kernels "
           "the first call still compiled.", "",
           "| family | what | first call | builds | warm | gmpy2 | gmpy2 all cores | exact |",
           "| --- | --- | ---: | ---: | ---: | ---: | ---: | --- |"]
    for r in res["rows"]:
        a = r["after"]
        if "error" in a:
            out.append(f"| {r['family']} | {r['what']} | error: {a['error']} | | | | | |")
            continue
        out.append(f"| {r['family']} | {r['what']} | {_ms(a['first_s'])} | {len(a['builds'])} | "
                   f"{_ms(a['second_s'])} | {_ms(a['gmpy2_s'])} | {_all_cores(a)} | "
                   f"{'yes' if a['exact'] else 'NO'} |")
    return "\n".join(out) + "\n"


def _all_cores(d: dict) -> str:
    """The gmpy2-on-every-core cell: ms [workers], or - where the work is not row by row."""
    g = d.get("gmpy2_all_s")
    return "-" if g is None else f"{_ms(g)} [{d.get('workers')}]"


def _ms(v) -> str:
    return "-" if v is None else f"{1e3 * v:.0f}" if v >= 0.01 else f"{1e3 * v:.1f}"


def cold_markdown(rows: list, device: str, when: str) -> str:
    out = [f"# Cold start: first calls ({device}, {when})", "",
           "Milliseconds. cold: a fresh process with empty kernel caches; disk: a second fresh "
           "process on those caches; warm: the same call again in that process; gmpy2: the "
           "same work on one core, and on every core [processes] (rows shared out to a pool, "
           "the items sent and the results received included; - where the work is not row by "
           "row). import: `import clbig` and the context, apart; builds: the kernels the cold "
           "call compiled; cold / warm: the issue's ratio.", "",
           "| family | what | cold | builds | disk | warm | cold / warm | gmpy2 | gmpy2 all cores | import | exact |",
           "| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | --- |"]
    for r in rows:
        c, d = r["cold"], r["disk"]
        if "error" in c or "error" in d:
            out.append(f"| {r['family']} | {r['what']} | error: {(c.get('error') or d.get('error'))} | | | | | | | | |")
            continue
        out.append(f"| {r['family']} | {r['what']} | {_ms(c['first_s'])} | {len(c['builds'])} | "
                   f"{_ms(d['first_s'])} | {_ms(d['second_s'])} | {c['first_s'] / d['second_s']:.1f}x | "
                   f"{_ms(d['gmpy2_s'])} | {_all_cores(d)} | {_ms(c['import_s'])} | "
                   f"{'yes' if c['exact'] and d['exact'] else 'NO'} |")
    return "\n".join(out) + "\n"


if __name__ == "__main__":
    print(json.dumps(child(sys.argv[1], all_cores="--one-core" not in sys.argv[2:])))
