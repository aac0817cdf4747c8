"""A modular check as a peer library's test vectors run it: many cases at many widths (issue 43).

The issue's PoCL target, "the peer-vector modular check from empty caches <= 2x its warm time",
is about a user who checks clbig against known answers at every width they care about: each
width is a first call of every modular kernel. This is that check, through the public API with
default settings, at 13 widths from 64 to 4096 bits:

- powmod on arrays (odd moduli), on even moduli, and through a `Modulus` of mixed parity;
- mulmod, invert (strict=False), ``a * b % m``, ``a % m`` with a dividend of twice the width;
- crt of two moduli of half the width; multi_powmod of two powers.

`python -m clbig.bench --cold --cold-families "modular check"` runs it cold, from the disk
caches and warm, each result compared with gmpy2's.
"""
from __future__ import annotations

WIDTHS = (64, 96, 128, 192, 256, 384, 512, 768, 1024, 1536, 2048, 3072, 4096)


def _rows(w: int) -> tuple:
    """(rows of the cheap forms, rows of the exponentiations) at width w: the exponentiations
    cost w^3, so their rows fall as the width grows."""
    return 4096, 1024 if w <= 512 else 256 if w <= 1024 else 128 if w <= 2048 else 32


def inputs(seed: int = 2026) -> list:
    """One dict of operand lists per width."""
    import random
    rng = random.Random(seed)
    r = rng.getrandbits
    cases = []
    for w in WIDTHS:
        n, p = _rows(w)
        top = 1 << (w - 1)
        odd = [r(w) | top | 1 for _ in range(n)]
        even = [(r(w) | top) & ~1 for _ in range(p)]
        half = w // 2
        m1 = [r(half) | 1 << (half - 1) | 1 for _ in range(n)]
        m2 = [v + 2 for v in m1]                      # two odd numbers 2 apart are coprime
        cases.append({
            "w": w, "a": [r(w) for _ in range(n)], "b": [r(w) for _ in range(n)], "m": odd,
            "wide": [r(2 * w) for _ in range(n)],
            "pa": [r(w) for _ in range(p)], "pe": [r(w) for _ in range(p)], "pm": odd[:p],
            "em": even, "mixed": [odd[i] if i % 2 else even[i] for i in range(p)],
            "r1": [r(half) % m for m in m1], "r2": [r(half) % m for m in m2], "m1": m1, "m2": m2,
            "B": [[r(w), r(w)] for _ in range(p // 4 or 1)],
            "E": [[r(w), r(w)] for _ in range(p // 4 or 1)],
        })
    return cases


def count(cases: list) -> int:
    """How many results the check compares."""
    return sum(5 * len(c["a"]) + 3 * len(c["pa"]) + len(c["B"]) for c in cases)


def run_clbig(clbig, cases: list) -> list:
    out = []
    for c in cases:
        a, b, m = clbig.array(c["a"]), clbig.array(c["b"]), clbig.array(c["m"])
        out += clbig.powmod(clbig.array(c["pa"]), clbig.array(c["pe"]), clbig.array(c["pm"])).tolist()
        out += clbig.powmod(c["pa"], c["pe"], c["em"]).tolist()
        out += clbig.powmod(c["pa"], c["pe"], clbig.Modulus(c["mixed"])).tolist()
        out += clbig.mulmod(a, b, m).tolist()
        out += clbig.invert(a, m, strict=False)[0].tolist()
        out += (a * b % m).tolist()
        out += (clbig.array(c["wide"]) % m).tolist()
        out += clbig.crt([c["r1"], c["r2"]], [c["m1"], c["m2"]]).tolist()
        out += clbig.multi_powmod(c["B"], c["E"], c["pm"][:len(c["B"])]).tolist()
    return out


def run_gmpy2(cases: list) -> list:
    import gmpy2
    mpz, pm = gmpy2.mpz, gmpy2.powmod
    out = []
    for c in cases:
        out += [int(pm(a, e, m)) for a, e, m in zip(c["pa"], c["pe"], c["pm"])]
        out += [int(pm(a, e, m)) for a, e, m in zip(c["pa"], c["pe"], c["em"])]
        out += [int(pm(a, e, m)) for a, e, m in zip(c["pa"], c["pe"], c["mixed"])]
        prods = [int(mpz(a) * b % m) for a, b, m in zip(c["a"], c["b"], c["m"])]
        out += prods
        for a, m in zip(c["a"], c["m"]):
            try:
                out.append(int(gmpy2.invert(a, m)))
            except ZeroDivisionError:
                out.append(0)
        out += prods
        out += [int(mpz(x) % m) for x, m in zip(c["wide"], c["m"])]
        for r1, r2, m1, m2 in zip(c["r1"], c["r2"], c["m1"], c["m2"]):
            # x = r1 + m1 * ((r2 - r1) / m1 mod m2)
            out.append(int(r1 + m1 * ((r2 - r1) * gmpy2.invert(m1, m2) % m2)))
        for (b1, b2), (e1, e2), m in zip(c["B"], c["E"], c["pm"]):
            out.append(int(pm(b1, e1, m) * pm(b2, e2, m) % m))
    return out
