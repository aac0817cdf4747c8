"""`python -m clbig.bench --e2e`'s rows for the schemes of clbig.crypto (issue 46): Paillier
encryption, decryption and dot product over python-paillier's (phe) keys, and RSA-2048 blind
signing over cryptography's, each timed from the user's data to the user's data.

Beside each, the library its users hold on one core and in a process pool on every host core:
phe for Paillier, gmpy2's CRT for the raw RSA private operation (cryptography pads every private
operation, so it cannot sign a blinded message). phe takes about 10 ms per 2048-bit encryption
on a fast core, so 100,000 would take half an hour: the reference runs on as many rows as fit
about `seconds` and is scaled to n, and the table says so ("est. from k").

On a CPU device without --quick, n is cut to about CPU_SECONDS of clbig's time (measured on a
warm probe at the quick size), as a CPU takes seconds per hundred Paillier encryptions.
Every result is checked: phe's own decryption of a sample of the encryptions (fresh randomness
leaves nothing to compare them with), equality for the rest.
"""
from __future__ import annotations

import dataclasses
import random
import time
from typing import Callable

import gmpy2

from . import pools

CPU_SECONDS = 20.0   # clbig's time per row on a CPU device without --quick
SAMPLE = 64          # encryptions phe decrypts to check clbig's
OBFUSCATORS = 32     # r^n mod n^2 made once for the decryption and dot inputs
_STATE: dict = {}    # the keys, made once per process and inherited by the pool's workers (fork)


@dataclasses.dataclass
class Case:
    run: Callable[[], object]   # clbig, as a user calls it
    items: list                 # the reference's inputs, one per row
    ref: Callable               # top level (the pool pickles it): a chunk of items -> outputs
    check: Callable             # (clbig's result, reference outputs, rows they cover) -> mismatch or None
    checked: str                # what check compares, formatted with k (rows) and n


@dataclasses.dataclass
class Scheme:
    key: str
    label: str
    n_full: int
    n_quick: int
    needs: str                  # the optional package it runs over
    make: Callable              # (rng, n) -> Case


# -- the references: top-level functions over the keys in _STATE, for the process pool ---------
def _phe_encrypt(values):
    return [_STATE["paillier"][0].encrypt(v) for v in values]


def _phe_decrypt(ciphertexts):
    return [_STATE["paillier"][1].decrypt(c) for c in ciphertexts]


def _phe_dot(pairs):
    """One partial dot product by phe's own operators (a chunk's share of the sum)."""
    acc = pairs[0][0] * pairs[0][1]
    for c, w in pairs[1:]:
        acc = acc + c * w
    return [acc]


def _gmpy2_blind_sign(messages):
    p, q, dp, dq, qinv = _STATE["rsa_mpz"]
    out = []
    for m in messages:
        c = gmpy2.mpz(int.from_bytes(m, "big"))
        mp, mq = gmpy2.powmod(c, dp, p), gmpy2.powmod(c, dq, q)
        out.append(int(mq + (qinv * (mp - mq) % p) * q).to_bytes(256, "big"))
    return out


# -- the workloads -----------------------------------------------------------------------------
def _paillier_keys():
    if "paillier" not in _STATE:
        from phe import paillier
        _STATE["paillier"] = paillier.generate_paillier_keypair(n_length=2048)
    return _STATE["paillier"]


def _values(rng, n):
    """Signed 32-bit ints: gradients in fixed point, say."""
    return [rng.getrandbits(32) - (1 << 31) for _ in range(n)]


def _ciphertexts(pk, values, rng):
    """phe EncryptedNumbers of the values without a 2048-bit power each (minutes on a host for
    100,000): (1 + m n) r_a^n r_b^n mod n^2 from a few obfuscators, valid ciphertexts with
    randomness r_a r_b."""
    from phe import paillier
    n, nsq = gmpy2.mpz(pk.n), gmpy2.mpz(pk.nsquare)
    obf = [gmpy2.powmod(rng.randrange(1, pk.n), n, nsq) for _ in range(OBFUSCATORS)]
    out = []
    for i, v in enumerate(values):
        m = paillier.EncodedNumber.encode(pk, v).encoding
        c = (1 + m * n) * obf[i % OBFUSCATORS] % nsq * obf[i // OBFUSCATORS % OBFUSCATORS] % nsq
        out.append(paillier.EncryptedNumber(pk, int(c), 0))
    return out


def _paillier_encrypt(rng, n, holder: bool = False):
    """phe's encryptions; with `holder`, clbig is given the private key (the CRT path)."""
    from clbig.crypto import paillier as cp
    pk, sk = _paillier_keys()
    key = sk if holder else None
    values = _values(rng, n)

    def check(got, ref, k):
        for i in rng.sample(range(n), min(n, SAMPLE)):
            if sk.decrypt(got[i]) != values[i]:
                return f"instance {i}: phe decrypts {sk.decrypt(got[i])}, want {values[i]}"
        if len({c.ciphertext(be_secure=False) for c in got}) != n:
            return "two ciphertexts are equal: the randomness repeats"
        return None
    return Case(lambda: cp.encrypt(pk, values, private_key=key), values, _phe_encrypt, check,
                f"phe decrypts {min(n, SAMPLE)} of {{n}}, all distinct")


def _paillier_decrypt(rng, n):
    from clbig.crypto import paillier as cp
    pk, sk = _paillier_keys()
    values = _values(rng, n)
    cts = _ciphertexts(pk, values, rng)

    def check(got, ref, k):
        if ref != values[:k]:
            return "phe's own decryptions differ from the plaintexts (the inputs are wrong)"
        bad = next((i for i in range(n) if got[i] != values[i]), None)
        return None if bad is None else f"instance {bad}: got {got[bad]}, want {values[bad]}"
    return Case(lambda: cp.decrypt(sk, cts), cts, _phe_decrypt, check, "all {n} equal the plaintexts")


def _paillier_dot(rng, n):
    from clbig.crypto import paillier as cp
    pk, sk = _paillier_keys()
    values = _values(rng, n)
    weights = [rng.getrandbits(64) for _ in range(n)]
    cts = _ciphertexts(pk, values, rng)

    def check(got, ref, k):
        want = sum(v * w for v, w in zip(values, weights))
        if sk.decrypt(got) != want:
            return f"the dot decrypts to {sk.decrypt(got)}, want {want}"
        if sk.decrypt(sum(ref[1:], ref[0])) != sum(v * w for v, w in zip(values[:k], weights[:k])):
            return "phe's own dot of the first rows is wrong (the inputs are wrong)"
        return None
    return Case(lambda: cp.dot(pk, cts, weights), list(zip(cts, weights)), _phe_dot, check,
                "decrypts to the exact dot")


def _rsa_blind_sign(rng, n):
    from cryptography.hazmat.primitives.asymmetric import rsa as crsa

    from clbig.crypto import rsa
    if "rsa" not in _STATE:
        nums = crsa.generate_private_key(public_exponent=65537, key_size=2048).private_numbers()
        _STATE["rsa"] = nums
        _STATE["rsa_mpz"] = tuple(map(gmpy2.mpz, (nums.p, nums.q, nums.dmp1, nums.dmq1, nums.iqmp)))
    nums = _STATE["rsa"]
    # blinded messages m r^e mod n (RFC 9474's Blind) are uniform in [0, n): random ones are as good
    messages = [rng.randrange(nums.public_numbers.n).to_bytes(256, "big") for _ in range(n)]

    def check(got, ref, k):
        bad = next((i for i in range(k) if got[i] != ref[i]), None)
        return None if bad is None else (f"instance {bad}: got {got[bad].hex()[:40]}.., "
                                         f"want {ref[bad].hex()[:40]}..")
    return Case(lambda: rsa.private(nums, messages), messages, _gmpy2_blind_sign, check,
                "{k} of {n} equal gmpy2's")


SCHEMES = {s.key: s for s in [
    Scheme("paillier2048enc", "Paillier-2048 encryptions of 32-bit ints, list -> EncryptedNumbers",
           100_000, 64, "phe", _paillier_encrypt),
    Scheme("paillier2048encsk", "Paillier-2048 encryptions by the key's holder (private_key given), "
           "list -> EncryptedNumbers", 100_000, 64, "phe",
           lambda rng, n: _paillier_encrypt(rng, n, holder=True)),
    Scheme("paillier2048dec", "Paillier-2048 decryptions, EncryptedNumbers -> list",
           100_000, 64, "phe", _paillier_decrypt),
    Scheme("paillier2048dot", "Paillier-2048 dot with 64-bit weights, EncryptedNumbers -> EncryptedNumber",
           100_000, 256, "phe", _paillier_dot),
    Scheme("rsa2048blind", "RSA-2048 blind signatures (raw CRT, clbig.crypto.rsa), bytes -> bytes",
           100_000, 256, "cryptography", _rsa_blind_sign),
]}


# -- timing --------------------------------------------------------------------------------------
def _on_gpu(ctx) -> bool:
    import pyopencl as cl
    return all(c.device.type & cl.device_type.GPU for c in getattr(ctx, "contexts", [ctx]))


def _timed(fn):
    t0 = time.perf_counter()
    out = fn()
    return out, time.perf_counter() - t0


def _fit_cpu(s: Scheme, rng, n: int) -> int:
    """n cut to about CPU_SECONDS of clbig's time, from a warm probe at the quick size."""
    probe = s.make(rng, s.n_quick)
    probe.run()                                   # builds the kernels
    t = max(_timed(probe.run)[1], 1e-6)
    fit = s.n_quick
    while fit * 2 <= n and fit * 2 * t / s.n_quick <= CPU_SECONDS:
        fit *= 2
    return fit


def _one_core(fn, items, seconds: float):
    """fn over as many items as fit about `seconds` (doubling from 4): (outputs, items, seconds)."""
    k, done, t, out = 4, 0, 0.0, []
    while done < len(items) and t <= seconds:
        part = items[done:done + k]
        out_part, dt = _timed(lambda: fn(part))
        out, t, done, k = out + out_part, t + dt, done + len(part), k * 2
    return out, done, t


def _pool(fn, items, workers: int):
    """fn over items on `workers` processes (pools.pool_map; fork: the keys are inherited):
    (results, items, seconds)."""
    out, t = pools.pool_map(fn, items, workers)
    return out, len(items), t


def _reference_name(needs: str) -> str:
    if needs != "phe":
        return f"gmpy2 {gmpy2.version()}"
    import phe
    from phe import util
    return f"phe {phe.__version__} ({'gmpy2' if util.HAVE_GMP else 'Python ints'})"


def run(ctx, key: str, n: int, *, quick: bool, seconds: float, workers: int, log=print) -> dict:
    """One row: clbig's wall time (after an untimed run of the same size: kernels are built
    per batch-size class) beside the reference on one core and on `workers`; AssertionError on a
    wrong result."""
    s = SCHEMES[key]
    row = dict(key=key, label=s.label, n=n, scheme=True, device=ctx.name, workers=workers, ok=True)
    try:
        __import__(s.needs)
    except ImportError:
        row["status"] = f"skipped: {s.needs} not installed"
        log(line(row))
        return row
    rng = random.Random(20261128)
    with ctx:
        if not quick and n > s.n_quick and not _on_gpu(ctx):
            n = _fit_cpu(s, rng, n)
            row.update(n=n, note=f"cut from {row['n']} to ~{CPU_SECONDS:g} s on a CPU")
        case = s.make(rng, n)
        case.run()
        got, wall = _timed(case.run)
    ref1, k1, t1 = _one_core(case.ref, case.items, seconds)
    rows = min(n, max(workers * 8, int(k1 * workers * 1.5)))
    refp, kp, tp = _pool(case.ref, case.items[:rows], workers)
    ref, k = (refp, kp) if kp >= k1 else (ref1, k1)
    one, pool = t1 * n / k1, tp * n / kp
    row.update(wall=wall, reference=_reference_name(s.needs), ref_one=one, ref_one_rows=k1,
               ref_pool=pool, ref_pool_rows=kp, x_one=one / wall, x_pool=pool / wall,
               checked=case.checked.format(k=k, n=n))
    bad = case.check(got, ref, k)
    row.update(ok=bad is None, mismatch=bad)
    log(line(row))
    if bad:
        raise AssertionError(f"e2e {key}: WRONG RESULT {bad}")
    return row


# -- outputs -----------------------------------------------------------------------------------
def _est(r, which: str) -> str:
    k = r[f"ref_{which}_rows"]
    return "" if k >= r["n"] else f", est. from {k}"


def line(r: dict) -> str:
    if "status" in r:
        return f"{r['label']}: {r['status']}"
    note = f" ({r['note']})" if r.get("note") else ""
    return (f"{r['label']}: n={r['n']}{note}, clbig {r['wall'] * 1e3:.1f} ms; {r['reference']} one core "
            f"{r['ref_one'] * 1e3:.0f} ms ({r['x_one']:.2f}x{_est(r, 'one')}), {r['workers']} cores "
            f"{r['ref_pool'] * 1e3:.0f} ms ({r['x_pool']:.2f}x{_est(r, 'pool')}); "
            f"{r['checked'] if r['ok'] else 'WRONG'}")


def markdown(rows: list[dict]) -> str:
    out = ["| scheme | n | clbig wall ms | reference | 1 core ms | × 1 core | all cores ms | "
           "× all cores | checked |", "| --- " * 9 + "|"]
    for r in rows:
        if "status" in r:
            out.append(f"| {r['label']} | {r['n']} | {r['status']} |" + " – |" * 6)
            continue
        n = f"{r['n']} ({r['note']})" if r.get("note") else str(r["n"])
        one = f"{r['ref_one'] * 1e3:.0f}" + (f" (est. from {r['ref_one_rows']})" if _est(r, "one") else "")
        pool = f"{r['ref_pool'] * 1e3:.0f}" + (f" (est. from {r['ref_pool_rows']})" if _est(r, "pool") else "")
        out.append(f"| {r['label']} | {n} | {r['wall'] * 1e3:.1f} | {r['reference']} | {one} | "
                   f"{r['x_one']:.2f}× | {pool} [{r['workers']}] | {r['x_pool']:.2f}× | "
                   f"{r['checked'] if r['ok'] else 'WRONG'} |")
    return "\n".join(out) + "\n"
