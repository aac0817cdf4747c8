"""Paillier over python-paillier and raw RSA over cryptography (issue 46), against the libraries
themselves: the same ciphertexts for the same randomness, the same plaintexts, sums and dot
products as phe's operators give, zero, negative values and floats through phe's encoding,
values at phe's limit, one value, empty batches, keys of 1024 to 4096 bits, and the errors with
the index named."""
from __future__ import annotations

import random

import pytest

phe_paillier = pytest.importorskip("phe.paillier", reason="pip install phe (the test extra has it)")
crsa = pytest.importorskip("cryptography.hazmat.primitives.asymmetric.rsa")

from clbig.crypto import paillier as cp  # noqa: E402
from clbig.crypto import rsa  # noqa: E402

_KEYS = {}


def keypair(bits):
    if bits not in _KEYS:
        _KEYS[bits] = phe_paillier.generate_paillier_keypair(n_length=bits)
    return _KEYS[bits]


@pytest.mark.parametrize("bits", [1024, 2048])
def test_paillier_encrypt_decrypt_as_phe(bits):
    pk, sk = keypair(bits)
    rng = random.Random(bits)
    vals = [0, 1, -1, 7, -123456789, 2.5, -0.125, 1e-7, pk.max_int, -pk.max_int, 2 ** 300, -(2 ** 200) + 3]
    rs = [rng.randrange(1, pk.n) for _ in vals]
    rs[:2] = [1, pk.n - 1]
    mine = cp.encrypt(pk, vals, r_values=rs)
    ref = [pk.encrypt(v, r_value=r) for v, r in zip(vals, rs)]
    assert [(c.ciphertext(False), c.exponent) for c in mine] == [(c.ciphertext(False), c.exponent) for c in ref]
    odd = rs[:2] + [sk.p, sk.q, pk.n - sk.p] + rs[5:]      # and r sharing a factor with n
    held = cp.encrypt(pk, vals, r_values=odd, private_key=sk)  # the key holder's CRT path
    assert [c.ciphertext(False) for c in held] == [pk.encrypt(v, r_value=r).ciphertext(False) for v, r in zip(vals, odd)]
    assert cp.decrypt(sk, cp.encrypt(pk, vals, private_key=sk)) == cp.decrypt(sk, mine)
    assert cp.decrypt(sk, mine) == [sk.decrypt(c) for c in ref]
    fresh = cp.encrypt(pk, vals)                         # the system's randomness
    assert cp.decrypt(sk, fresh) == [sk.decrypt(c) for c in fresh] == [sk.decrypt(c) for c in ref]
    assert len({c.ciphertext(False) for c in fresh}) == len(vals)
    assert cp.decrypt_raw(sk, [c.ciphertext(False) for c in mine]) == [sk.raw_decrypt(c.ciphertext(False)) for c in ref]
    assert cp.encrypt(pk, []) == [] and cp.decrypt(sk, []) == []
    one = cp.encrypt(pk, [42])
    assert len(one) == 1 and sk.decrypt(one[0]) == 42


def test_paillier_sum_dot_matmul_as_phe():
    pk, sk = keypair(1024)
    rng = random.Random(5)
    vals = [rng.randrange(-10 ** 6, 10 ** 6) for _ in range(9)] + [0.5, -2.75, 3]
    c = cp.encrypt(pk, vals)
    want = sk.decrypt(sum(c[1:], c[0]))
    assert sk.decrypt(cp.sum(pk, c)) == want
    assert sk.decrypt(cp.sum(pk, c[:1])) == vals[0]
    ws = [rng.randrange(-50, 50) for _ in vals[:-1]] + [0.25]
    ref = sum((x * w for x, w in zip(c[1:], ws[1:])), c[0] * ws[0])
    got = cp.dot(pk, c, ws)
    assert sk.decrypt(got) == sk.decrypt(ref) and got.exponent == ref.exponent
    matrix = [[1, -1, 2] for _ in vals]
    out = cp.matmul(pk, c, matrix)
    assert [sk.decrypt(x) for x in out] == [sk.decrypt(cp.dot(pk, c, [r[j] for r in matrix])) for j in range(3)]
    with pytest.raises(ValueError, match="no ciphertexts"):
        cp.sum(pk, [])
    with pytest.raises(ValueError, match="2 ciphertexts and 1 weights"):
        cp.dot(pk, c[:2], [1])
    with pytest.raises(ValueError, match="a matrix of 1 rows for 2"):
        cp.matmul(pk, c[:2], [[1]])


def test_paillier_add_as_phe():
    """Element by element, exponents aligned per pair (ints against floats), a length-one side
    broadcast, empty sides; the ciphertexts equal phe's own sums."""
    pk, sk = keypair(1024)
    rng = random.Random(6)
    va = [rng.randrange(-10 ** 9, 10 ** 9) for _ in range(6)] + [0.5, -3.25, 0, 2 ** 60]
    vb = [1.75, -1, 0] + [rng.randrange(-10 ** 9, 10 ** 9) for _ in range(6)] + [-(2 ** 60)]
    a, b = cp.encrypt(pk, va), cp.encrypt(pk, vb)
    got = cp.add(pk, a, b)
    want = [x + y for x, y in zip(a, b)]
    assert [(g.ciphertext(False), g.exponent) for g in got] == [(w.ciphertext(False), w.exponent) for w in want]
    assert [sk.decrypt(g) for g in got] == [sk.decrypt(w) for w in want]
    assert [sk.decrypt(g) for g in cp.add(pk, a, b[:1])] == [sk.decrypt(x + b[0]) for x in a]
    assert cp.add(pk, [], []) == [] and cp.add(pk, a[:1], []) == []
    with pytest.raises(ValueError, match="3 and 2 ciphertexts"):
        cp.add(pk, a[:3], b[:2])
    with pytest.raises(TypeError, match="add: b: element 1 is int"):
        cp.add(pk, a[:2], [b[0], 7])


def test_paillier_errors_name_the_element():
    pk, sk = keypair(1024)
    other_pk, other_sk = keypair(2048)
    with pytest.raises(ValueError, match="another public key"):
        cp.encrypt(pk, [1], private_key=other_sk)
    c = cp.encrypt(pk, [1, 2])
    with pytest.raises(ValueError, match="element 1 was encrypted against a different key"):
        cp.decrypt(sk, [c[0], other_pk.encrypt(1)])
    with pytest.raises(TypeError, match="element 0 is int"):
        cp.decrypt(sk, [5])
    with pytest.raises(ValueError, match=r"r_values\[1\] is outside"):
        cp.encrypt(pk, [1, 2], r_values=[1, pk.n])
    with pytest.raises(ValueError, match="2 r_values for 1 values"):
        cp.encrypt(pk, [1], r_values=[1, 2])
    with pytest.raises(ValueError, match="ciphertext 0 is outside"):
        cp.decrypt_raw(sk, [pk.nsquare])
    with pytest.raises(TypeError, match=r"r_values\[1\] is str"):
        cp.encrypt(pk, [1, 2], r_values=[3, "x"])
    with pytest.raises(TypeError, match=r"ciphertexts\[1\] is str"):
        cp.decrypt_raw(sk, [1, "x"])
    for ragged in ([[1], [3, 4]], [[1, 2], [3]]):
        with pytest.raises(ValueError, match="row 1 of the matrix"):
            cp.matmul(pk, c, ragged)
    with pytest.raises(ValueError, match="element 1 was encrypted against a different key"):
        cp.sum(pk, [c[0], other_pk.encrypt(1)])
    with pytest.raises(ValueError, match="Integer needs to be within"):   # phe's own words
        cp.encrypt(pk, [1, pk.max_int + 1])
    rs = _ints(cp._obfuscators(pk.n, 2000))             # bulk draws stay in [1, n), distinct
    assert all(1 <= r < pk.n for r in rs) and len(set(rs)) == 2000 and max(rs).bit_length() == pk.n.bit_length()


def _ints(limbs):
    return [int.from_bytes(row.astype("<u4").tobytes(), "little") for row in limbs]


def test_obfuscator_draws_and_the_limb_comparison(monkeypatch):
    """The obfuscators are drawn as limbs: every value of a small range [1, n) comes up and
    nothing outside it (n across a limb boundary, of a few bits, and a power of two), and the
    rows-below-n test agrees with Python's < on rows equal to n, one limb off, and zero. Large
    draws come from threads in pieces, every piece filled."""
    import numpy as np
    monkeypatch.setattr(cp, "_BYTES_PER_THREAD", 100)
    raw = cp._random_bytes(1001)
    assert len(raw) == 1001 and all(any(raw[i:i + 100]) for i in range(0, 1000, 100))
    assert len(cp._obfuscators(2 ** 2048 - 159, 0)) == 0
    for n in (7, 2 ** 32 + 3, 2 ** 33, (2 ** 64 - 1) * 3):
        got = _ints(cp._obfuscators(n, 600))
        assert len(got) == 600 and all(1 <= r < n for r in got), n
        if n < 100:
            assert set(got) == set(range(1, n))
    rng = random.Random(3)
    n = rng.getrandbits(130) | 1 << 129
    m = 5
    limbs = lambda v: [(v >> (32 * i)) & 0xFFFFFFFF for i in range(m)]
    vals = [n, n - 1, n + 1, 0, n ^ 1, n ^ (1 << 129), n - (1 << 64)] + [rng.getrandbits(130) for _ in range(50)]
    rows = np.array([limbs(v) for v in vals], np.uint32)
    assert cp._below(rows, np.array(limbs(n), np.uint32)).tolist() == [v < n for v in vals]


def test_decrypt_decodes_as_phe_at_the_encoding_edges():
    """Raw plaintexts at phe's limits decode as phe decodes them (ints at exponent 0 by phe's
    rule in clbig, other exponents by phe), and one between the limits raises phe's
    OverflowError."""
    pk, sk = keypair(1024)
    EN = phe_paillier.EncryptedNumber
    raws = [0, pk.max_int, pk.max_int - 1, pk.n - pk.max_int, pk.n - 1]
    cts = [EN(pk, pk.raw_encrypt(m), e) for m in raws for e in (0, -3, 2)]
    assert cp.decrypt(sk, cts) == [sk.decrypt(c) for c in cts]
    for e in (0, -3):
        with pytest.raises(OverflowError):
            cp.decrypt(sk, [EN(pk, pk.raw_encrypt(pk.max_int + 1), e)])


def test_fresh_encryptions_are_marked_obfuscated_as_phe_marks_them():
    """phe's encrypt obfuscates, so its ciphertext() gives the value as it is; with r given it
    does not, and ciphertext() obfuscates then. clbig's numbers behave the same: a fresh one
    not marked would be obfuscated again by phe, a power on the CPU per value."""
    pk, sk = keypair(1024)

    def secure_changes(c):          # whether phe's ciphertext() obfuscates it (again)
        before = c.ciphertext(False)
        return c.ciphertext() != before

    fresh = cp.encrypt(pk, [5, -2])[0]
    assert not secure_changes(fresh) and not secure_changes(pk.encrypt(5))
    given, ref_given = cp.encrypt(pk, [5], r_values=[3])[0], pk.encrypt(5, r_value=3)
    assert given.ciphertext(False) == ref_given.ciphertext(False)
    assert secure_changes(given) and secure_changes(ref_given)
    assert sk.decrypt(given) == sk.decrypt(fresh) == 5
    s = cp.sum(pk, [fresh, fresh])                     # a homomorphic result: not obfuscated, as phe's +
    assert secure_changes(s) and secure_changes(fresh + fresh) and sk.decrypt(s) == 10


@pytest.mark.large
def test_paillier_4096_bit_key():
    pk, sk = keypair(4096)
    vals = [0, -1, 10 ** 30, 0.5]
    c = cp.encrypt(pk, vals)
    assert cp.decrypt(sk, c) == vals and sk.decrypt(cp.sum(pk, c)) == sk.decrypt(sum(c[1:], c[0]))


@pytest.mark.parametrize("bits", [1024, 2048, 4096])
def test_raw_rsa_as_cryptography(bits):
    key = crsa.generate_private_key(public_exponent=65537, key_size=bits)
    nums = key.private_numbers()
    n, d = nums.public_numbers.n, nums.d
    rng = random.Random(bits)
    xs = [0, 1, 2, n - 1, n - 2] + [rng.randrange(n) for _ in range(6)]
    assert rsa.private(key, xs) == [pow(x, d, n) for x in xs]
    assert rsa.private(nums, xs[:3]) == [pow(x, d, n) for x in xs[:3]]      # the numbers too
    assert rsa.public(key, rsa.private(key, xs)) == xs
    assert rsa.public(key.public_key(), [5]) == [pow(5, 65537, n)]
    assert rsa.public(nums, [5]) == rsa.public(nums.public_numbers, [5]) == [pow(5, 65537, n)]
    k = (n.bit_length() + 7) // 8
    as_bytes = [x.to_bytes(k, "big") for x in xs]
    assert rsa.private(key, as_bytes) == [pow(x, d, n).to_bytes(k, "big") for x in xs]
    assert rsa.private(key, []) == [] and rsa.public(key, []) == []
    # an RFC 9474-style blind signature: blind with r^e, sign in the batch, unblind
    msgs = [rng.randrange(2, n) for _ in range(5)]
    rs = [rng.randrange(2, n) for _ in msgs]
    blinded = [m * pow(r, 65537, n) % n for m, r in zip(msgs, rs)]
    sigs = [s * pow(r, -1, n) % n for s, r in zip(rsa.private(key, blinded), rs)]
    assert rsa.public(key, sigs) == msgs


def test_raw_rsa_errors():
    key = crsa.generate_private_key(public_exponent=65537, key_size=1024)
    n = key.public_key().public_numbers().n
    with pytest.raises(ValueError, match="element 2 is outside"):
        rsa.private(key, [1, 2, n])
    with pytest.raises(ValueError, match="element 0 is outside"):
        rsa.public(key, [-1])
    with pytest.raises(TypeError, match="element 1 is not an int"):
        rsa.private(key, [1, 2.0])
    with pytest.raises(TypeError, match="RSAPrivateKey"):
        rsa.private(key.public_key(), [1])


def test_bench_scheme_rows(ctx, monkeypatch):
    """`python -m clbig.bench --e2e`'s rows for these schemes (clbig/bench/schemes.py) on a few
    values: each runs beside phe or gmpy2, is checked, and reads as a table; without phe, its
    rows say they were skipped."""
    import sys

    from clbig.bench import endtoend, schemes
    keys = list(schemes.SCHEMES)
    rows = endtoend.run_e2e(ctx, keys, quick=True, scale=4, gmpy2_seconds=0.05, workers=1, log=lambda s: None)
    assert [r["key"] for r in rows] == keys and all(r["ok"] and "status" not in r for r in rows)
    assert [r["n"] for r in rows] == [s.n_quick >> 4 for s in schemes.SCHEMES.values()]
    table = endtoend.markdown(rows)
    assert all(f"| {s.label} |" in table for s in schemes.SCHEMES.values())
    monkeypatch.setitem(sys.modules, "phe", None)          # import phe raises ImportError
    row = schemes.run(ctx, "paillier2048dot", 3, quick=True, seconds=0.05, workers=1, log=lambda s: None)
    assert row["status"] == "skipped: phe not installed" and "skipped: phe not installed" in schemes.markdown([row])
