"""Paillier encryption in batches over python-paillier's keys (`pip install phe`; issue 46).

phe's own objects go in and come out: `PaillierPublicKey`, `PaillierPrivateKey`,
`EncryptedNumber`; values are encoded by phe's `EncodedNumber` (ints and floats, its
precision and exponents) on the host, and every modular exponentiation of the batch runs on the
device at once. With g = n + 1 (phe's choice), for an encoding m < n and r from the operating
system's generator (or given, as phe's `r_value`):

    encrypt:  c = (1 + m n) r^n mod n^2          (the same ciphertext phe makes with that r)
    decrypt:  m_p = L_p(c^(p-1) mod p^2) h_p mod p, likewise m_q, and m by the CRT (as phe)
    sum:      the product of the ciphertexts mod n^2, exponents first brought to the least
    dot:      the product of c_i^(w_i) mod n^2, w_i the weights' encodings (an inverse and
              n - w_i for negative weights, as phe does)

A timing note: these powers run in time that depends on the exponents' bit lengths (see the
docs' security notes): decryption's exponents are the secret p - 1, q - 1.
"""
from __future__ import annotations

import os
from concurrent.futures import ThreadPoolExecutor
from typing import TYPE_CHECKING, Any, Iterable, Sequence

import numpy as np

from ..mpn import host_powm
from ..mpz.array import BigIntArray, array, from_limbs
from ..mpz.construct import concatenate, where
from ..mpz.gcd import invert
from ..mpz.modular import Modulus, mulmod, powmod
from ..mpz import ops

if TYPE_CHECKING:   # python-paillier's classes, for the hints (phe is an optional dependency)
    from phe.paillier import EncryptedNumber, PaillierPrivateKey, PaillierPublicKey


def _phe():
    try:
        from phe import paillier
    except ImportError as e:   # the optional dependency
        raise ImportError("clbig.crypto.paillier needs python-paillier: pip install phe "
                          "(or clbig[phe])") from e
    return paillier


def _encodings(public_key, values, precision):
    """(encodings, exponents) as phe's EncodedNumber.encode gives them. Plain ints without a
    precision take phe's rule directly (exponent 0, v mod n, |v| <= max_int, phe's message):
    phe's own path goes through Fractions, 6 us a value, more than the encryption's kernel."""
    paillier = _phe()
    n, top = public_key.n, public_key.max_int
    encs, exps = [], []
    for v in values:
        if type(v) is int and precision is None:
            if abs(v) > top:
                raise ValueError('Integer needs to be within +/- %d but got %d' % (top, v))
            encs.append(v % n)
            exps.append(0)
            continue
        e = v if isinstance(v, paillier.EncodedNumber) else paillier.EncodedNumber.encode(public_key, v, precision)
        encs.append(e.encoding)
        exps.append(e.exponent)
    return encs, exps


def _integers(values: list, what: str) -> None:
    """TypeError naming the first of `values` that is not an integer (before ranges compare
    them)."""
    for i, v in enumerate(values):
        if isinstance(v, bool) or not isinstance(v, int) and not (hasattr(v, "__index__") and hasattr(v, "__lt__")):
            raise TypeError(f"{what}[{i}] is {type(v).__name__}, not an integer")


def _obfuscators(n: int, k: int) -> np.ndarray:
    """k values uniform in [1, n) from the operating system's generator (as phe's
    SystemRandom().randrange), as (k, limbs) uint32 limbs, least significant first: bit strings
    as long as n, drawn in bulk, those outside [1, n) drawn again (fewer than half). No Python
    int is made: the rows go to the device as they are. Only rows whose top limb equals n's
    (or is zero) are compared whole (100,000 draws of 2048 bits on a 2-core EPYC: 206 ms as
    ints, 120-143 as limbs compared whole, of which os.urandom 66-79)."""
    bits = n.bit_length()
    m = -(-bits // 32)
    top = np.uint32((1 << (bits - 32 * (m - 1))) - 1)              # the top limb's bits
    nl = np.array([(n >> (32 * i)) & 0xFFFFFFFF for i in range(m)], np.uint32)
    accept = n / (1 << bits)                            # at least a half
    parts, have = [], 0
    while have < k:
        want = int((k - have) / accept * 1.01) + 64     # mostly one draw
        raw = np.frombuffer(_random_bytes(4 * m * want), np.uint32).reshape(want, m)
        raw[:, -1] &= top
        hi = raw[:, -1]
        keep = hi < nl[-1]                              # below n whatever the lower limbs
        tie = np.flatnonzero(hi == nl[-1])
        keep[tie] = _below(raw[tie], nl)
        low = np.flatnonzero(hi == 0)                   # zero only if every limb is
        keep[low] &= raw[low].any(axis=1)
        parts.append(raw[keep][:k - have])
        have += len(parts[-1])
    return parts[0] if len(parts) == 1 else np.concatenate(parts or [np.zeros((0, m), np.uint32)])


#: Draws of more bytes than this come from several threads at once: the kernel's generator
#: runs per CPU, and os.urandom releases the GIL while it reads.
_BYTES_PER_THREAD = 1 << 22


def _random_bytes(size: int) -> bytearray:
    """size bytes from os.urandom, writable, drawn in pieces on threads where large."""
    buf = bytearray(size)
    cuts = list(range(0, size, _BYTES_PER_THREAD)) + [size]
    if len(cuts) <= 2:
        buf[:] = os.urandom(size)
        return buf

    def fill(i):
        buf[cuts[i]:cuts[i + 1]] = os.urandom(cuts[i + 1] - cuts[i])
    with ThreadPoolExecutor(min(len(cuts) - 1, host_powm.cores())) as pool:
        list(pool.map(fill, range(len(cuts) - 1)))
    return buf


def _below(rows: np.ndarray, limit: np.ndarray) -> np.ndarray:
    """Per row of limbs (least significant first), whether it is below `limit`'s limbs: decided
    by the most significant limb where they differ (equal rows are not below)."""
    differ = rows != limit
    top = rows.shape[1] - 1 - np.argmax(differ[:, ::-1], axis=1)    # the highest differing limb
    at = np.arange(len(rows))
    return differ[at, top] & (rows[at, top] < limit[top])


def _numbers(public_key, cts: list, exps: list, obfuscated: bool) -> list:
    """phe EncryptedNumbers of these ciphertexts and exponents, in the state phe's own
    operations leave them: obfuscated after an encryption with fresh r (phe's encrypt
    obfuscates, so its `ciphertext()` gives the value as it is; a number not marked would be
    obfuscated there again, a 4096-bit power on the CPU for each), not after one with r given
    or a homomorphic operation. The mark is phe's private attribute: where this phe has none
    by that name, the numbers stay as its constructor makes them."""
    cls = _phe().EncryptedNumber
    out = [cls(public_key, x, e) for x, e in zip(cts, exps)]
    if obfuscated and out and "_EncryptedNumber__is_obfuscated" in vars(out[0]):
        for x in out:       # the mangled name as phe's class writes it (vars(x)[...]: 1.7x slower)
            x._EncryptedNumber__is_obfuscated = True
    return out


def encrypt(public_key: PaillierPublicKey, values: Iterable[Any], precision: float | None = None,
            r_values: Sequence[int] | None = None,
            private_key: PaillierPrivateKey | None = None) -> list[EncryptedNumber]:
    """phe `EncryptedNumber`s of the values, as ``public_key.encrypt(v, precision, r)`` gives.

    The key's holder may pass the private key: the same ciphertexts then come from powers
    modulo p, p^2, q and q^2 instead of n^2, several times faster (see `_obfuscation`).

    Parameters
    ----------
    public_key : phe.paillier.PaillierPublicKey
        The key.
    values : iterable of int, float or phe.paillier.EncodedNumber
        The plaintexts, each ``abs(v) < n / 3`` as phe requires.
    precision : float, optional
        phe's encoding precision for floats (default: exact).
    r_values : sequence of int, optional
        The obfuscators, each in [1, n) (default: fresh ones from the operating system's
        generator, as phe's).
    private_key : phe.paillier.PaillierPrivateKey, optional
        public_key's private key, where the caller holds it: the same ciphertexts, faster.

    Returns
    -------
    list of phe.paillier.EncryptedNumber
        One per value, with phe's exponents.

    Raises
    ------
    ValueError
        For a value phe cannot encode (naming phe's reason), r_values of another length or
        outside [1, n) (naming the index), or a private key of another public key.
    ImportError
        Without python-paillier.

    Examples
    --------
    >>> from phe import paillier
    >>> from clbig.crypto import paillier as cp
    >>> pk, sk = paillier.generate_paillier_keypair(n_length=512)
    >>> c = cp.encrypt(pk, [1, -2, 3.5])
    >>> [sk.decrypt(x) for x in c], cp.decrypt(sk, c)
    ([1, -2, 3.5], [1, -2, 3.5])
    """
    if private_key is not None and private_key.public_key.n != public_key.n:
        raise ValueError("encrypt: the private key belongs to another public key")
    values = list(values)
    encodings, exponents = _encodings(public_key, values, precision)
    c = _encrypt_raw(public_key, encodings, r_values, private_key)
    return _numbers(public_key, c, exponents, obfuscated=r_values is None)


def _obfuscation(r_values, n: int, private_key) -> BigIntArray:
    """r^n mod n^2 of each r in [1, n): one power modulo n^2 with the n-bit exponent n, or,
    with the private key (n = pq), by the CRT from r^n mod p^2 and mod q^2. Modulo p^2, r^n
    lies in the subgroup of order p - 1, where x^p mod p^2 depends on x mod p alone (it is
    the Teichmueller lift of x mod p, and multiplicative), so

        r^n = (r^q)^p = (r^q mod p)^p mod p^2,   r^q mod p = r^(q mod (p - 1)) mod p:

    a power modulo p with a |p|-bit exponent, then one modulo p^2 with the exponent p, where
    the plain CRT takes a 2|p|-bit exponent modulo p^2 and the public path a 2|n|-bit one
    modulo n^2 (GMP on one core, 200 powers of a 2048-bit n: 1785 ms plain, 999 ms by the
    CRT, 652 ms so)."""
    if private_key is None:
        return powmod(r_values, n, Modulus(n * n))
    p, q = private_key.p, private_key.q
    p2, q2 = p * p, q * q
    tp = powmod(powmod(r_values, q % (p - 1), p), p, Modulus(p2))      # r^n mod p^2
    tq = powmod(powmod(r_values, p % (q - 1), q), q, Modulus(q2))      # r^n mod q^2
    h = mulmod(ops.mod(ops.sub(tq, tp), q2), pow(p2, -1, q2), Modulus(q2))
    return ops.add(tp, ops.mul(h, p2))                  # < p^2 + p^2 (q^2 - 1) = n^2


def _encrypt_raw(public_key, encodings: list, r_values, private_key=None) -> list:
    n, nsq = public_key.n, public_key.nsquare
    k = len(encodings)
    if k == 0 and r_values is None:
        return []
    if r_values is None:
        r_values = from_limbs(_obfuscators(n, k), bits=n.bit_length())
    else:
        r_values = list(r_values)
        if len(r_values) != k:
            raise ValueError(f"encrypt: {len(r_values)} r_values for {k} values")
        _integers(r_values, "encrypt: r_values")
        bad = [i for i, r in enumerate(r_values) if not 1 <= r < n]
        if bad:
            raise ValueError(f"encrypt: r_values[{bad[0]}] is outside [1, n)")
    if k == 0:
        return []
    obf = _obfuscation(r_values, n, private_key)          # r^n mod n^2, one exponent for all
    nude = ops.add(ops.mul(encodings, n), 1)              # (1 + m n) < n^2 for m < n
    return mulmod(nude, obf, Modulus(nsq)).tolist()


def decrypt(private_key: PaillierPrivateKey, ciphertexts: Sequence[EncryptedNumber]) -> list:
    """The plaintexts of phe `EncryptedNumber`s, as ``private_key.decrypt`` gives them.

    Parameters
    ----------
    private_key : phe.paillier.PaillierPrivateKey
        The key.
    ciphertexts : sequence of phe.paillier.EncryptedNumber
        Encrypted against the private key's public key.

    Returns
    -------
    list of int or float
        Decoded as phe decodes (ints stay ints).

    Raises
    ------
    TypeError
        For an element that is not an EncryptedNumber (naming the index).
    ValueError
        For a number encrypted against another key (naming the index).
    ImportError
        Without python-paillier.

    Examples
    --------
    >>> from phe import paillier
    >>> from clbig.crypto import paillier as cp
    >>> pk, sk = paillier.generate_paillier_keypair(n_length=512)
    >>> cp.decrypt(sk, [pk.encrypt(5), pk.encrypt(-0.25)])
    [5, -0.25]
    """
    paillier = _phe()
    cts = list(ciphertexts)
    _check_keys(private_key.public_key, cts, "decrypt")
    raw = decrypt_raw(private_key, [x.ciphertext(be_secure=False) for x in cts])
    return _decoded(paillier, private_key.public_key, raw, [x.exponent for x in cts])


def _decoded(paillier, public_key, raw: list, exponents: list) -> list:
    """phe's EncodedNumber(public_key, m, e).decode() of each raw plaintext m in [0, n): for
    the exponent 0 (ints) its rule directly (m up to max_int, m - n from n - max_int, its
    OverflowError between), as _encodings encodes; phe's own decode makes an EncodedNumber
    first, 0.7 µs a value."""
    n, top = public_key.n, public_key.max_int
    out = []
    for m, e in zip(raw, exponents):
        if e == 0 and type(e) is int:
            if m <= top:
                out.append(m)
            elif m >= n - top:
                out.append(m - n)
            else:
                raise OverflowError('Overflow detected in decrypted number')
        else:
            out.append(paillier.EncodedNumber(public_key, m, e).decode())
    return out


def decrypt_raw(private_key: PaillierPrivateKey, ciphertexts: Sequence[int]) -> list[int]:
    """The raw plaintexts (encodings, in [0, n)) of ciphertext ints, as phe's ``raw_decrypt``.

    Parameters
    ----------
    private_key : phe.paillier.PaillierPrivateKey
        The key.
    ciphertexts : sequence of int
        Ciphertexts in [0, n^2).

    Returns
    -------
    list of int
        The encodings.

    Raises
    ------
    ValueError
        For a ciphertext outside [0, n^2) (naming the index).

    Examples
    --------
    >>> from phe import paillier
    >>> from clbig.crypto import paillier as cp
    >>> pk, sk = paillier.generate_paillier_keypair(n_length=512)
    >>> cp.decrypt_raw(sk, [pk.raw_encrypt(7), pk.raw_encrypt(0)])
    [7, 0]
    """
    c = list(ciphertexts)
    nsq = private_key.public_key.nsquare
    _integers(c, "decrypt_raw: ciphertexts")
    bad = [i for i, x in enumerate(c) if not 0 <= x < nsq]
    if bad:
        raise ValueError(f"decrypt: ciphertext {bad[0]} is outside [0, n^2)")
    if not c:
        return []
    p, q = private_key.p, private_key.q
    cd = array(c)
    halves = []
    for prime, square, h in ((p, private_key.psquare, private_key.hp),
                             (q, private_key.qsquare, private_key.hq)):
        x = powmod(ops.mod(cd, square), prime - 1, square)
        ell = ops.floordiv(ops.sub(x, 1), prime)          # L_p(x) = (x - 1) / p
        halves.append(mulmod(ell, h, prime))
    mp, mq = halves
    u = mulmod(ops.mod(ops.sub(mq, mp), q), private_key.p_inverse, q)
    return ops.add(mp, ops.mul(u, p)).tolist()


def _aligned(public_key, cts: list) -> tuple[BigIntArray, int]:
    """The ciphertexts on the device with their exponents brought to the least, and that
    exponent."""
    least = min(x.exponent for x in cts)
    return _aligned_to(cts, [least] * len(cts), Modulus(public_key.nsquare)), least


def _aligned_to(cts: list, targets: list, M: Modulus) -> BigIntArray:
    """The ciphertexts on the device, each brought to its target exponent (<= its own; phe's
    decrease_exponent_to: c^(BASE^(e - target)) mod n^2)."""
    ups = [_phe().EncodedNumber.BASE ** (x.exponent - t) for x, t in zip(cts, targets)]
    arr = array([x.ciphertext(be_secure=False) for x in cts])
    return powmod(arr, ups, M) if any(u != 1 for u in ups) else arr


def _check_keys(public_key, cts, what):
    paillier = _phe()
    for i, x in enumerate(cts):
        if not isinstance(x, paillier.EncryptedNumber):
            raise TypeError(f"{what}: element {i} is {type(x).__name__}, not an EncryptedNumber")
        if x.public_key != public_key:
            raise ValueError(f"{what}: element {i} was encrypted against a different key")


def _product(arr: BigIntArray, M: Modulus) -> int:
    """The product of the rows mod M, by halving (one mulmod a round)."""
    while len(arr) > 1:
        half = len(arr) // 2
        odd = arr[2 * half:] if len(arr) % 2 else None
        arr = mulmod(arr[:half], arr[half:2 * half], M)
        if odd is not None:
            arr = concatenate([arr, odd])
    return arr.tolist()[0]


def add(public_key: PaillierPublicKey, a: Sequence[EncryptedNumber],
        b: Sequence[EncryptedNumber]) -> list:
    """The encrypted sums ``a[i] + b[i]`` of phe `EncryptedNumber`s, each as phe's ``+`` gives it
    (the pair's exponents aligned to the lesser, as phe aligns them), in one batch.

    Parameters
    ----------
    public_key : phe.paillier.PaillierPublicKey
        The key every number was encrypted against.
    a, b : sequences of phe.paillier.EncryptedNumber
        Of equal lengths, or one of them of length one (it is added to every element of the
        other).

    Returns
    -------
    list of phe.paillier.EncryptedNumber
        The sums.

    Raises
    ------
    ValueError
        For lengths that differ and are not one, or a number of another key (naming the index).
    TypeError
        For an element that is not an EncryptedNumber.

    Examples
    --------
    >>> from phe import paillier
    >>> from clbig.crypto import paillier as cp
    >>> pk, sk = paillier.generate_paillier_keypair(n_length=512)
    >>> [sk.decrypt(x) for x in cp.add(pk, cp.encrypt(pk, [1, 2.5]), cp.encrypt(pk, [10]))]
    [11, 12.5]
    """
    paillier = _phe()
    a, b = list(a), list(b)
    if len(a) != len(b) and 1 not in (len(a), len(b)):
        raise ValueError(f"add: {len(a)} and {len(b)} ciphertexts (equal lengths, or one of them 1)")
    _check_keys(public_key, a, "add: a")
    _check_keys(public_key, b, "add: b")
    if not a or not b:
        return []
    n = max(len(a), len(b))
    a, b = (x * n if len(x) == 1 else x for x in (a, b))
    least = [min(x.exponent, y.exponent) for x, y in zip(a, b)]
    M = Modulus(public_key.nsquare)
    c = mulmod(_aligned_to(a, least, M), _aligned_to(b, least, M), M).tolist()
    return [paillier.EncryptedNumber(public_key, x, e) for x, e in zip(c, least)]


def sum(public_key: PaillierPublicKey, ciphertexts: Sequence[EncryptedNumber]) -> EncryptedNumber:
    """The encrypted sum of phe `EncryptedNumber`s, as phe's ``+`` gives it (exponents aligned
    to the least, as phe aligns them).

    Parameters
    ----------
    public_key : phe.paillier.PaillierPublicKey
        The key every number was encrypted against.
    ciphertexts : sequence of phe.paillier.EncryptedNumber
        At least one.

    Returns
    -------
    phe.paillier.EncryptedNumber
        The sum.

    Raises
    ------
    ValueError
        For an empty sequence, or a number of another key (naming the index).
    TypeError
        For an element that is not an EncryptedNumber.

    Examples
    --------
    >>> from phe import paillier
    >>> from clbig.crypto import paillier as cp
    >>> pk, sk = paillier.generate_paillier_keypair(n_length=512)
    >>> sk.decrypt(cp.sum(pk, cp.encrypt(pk, [1, 2, 3.5, -4])))
    2.5
    """
    paillier = _phe()
    cts = list(ciphertexts)
    if not cts:
        raise ValueError("sum: no ciphertexts (an encryption of 0 needs fresh randomness: "
                         "encrypt(public_key, [0]))")
    _check_keys(public_key, cts, "sum")
    arr, least = _aligned(public_key, cts)
    return paillier.EncryptedNumber(public_key, _product(arr, Modulus(public_key.nsquare)), least)


def dot(public_key: PaillierPublicKey, ciphertexts: Sequence[EncryptedNumber],
        weights: Sequence[Any]) -> EncryptedNumber:
    """The encrypted dot product sum(w_i x_i) of phe `EncryptedNumber`s x_i and plaintext
    weights w_i (ints or floats, encoded by phe), as phe's ``*`` and ``+`` give it.

    Parameters
    ----------
    public_key : phe.paillier.PaillierPublicKey
        The key every number was encrypted against.
    ciphertexts : sequence of phe.paillier.EncryptedNumber
        At least one.
    weights : sequence of int or float
        One per ciphertext.

    Returns
    -------
    phe.paillier.EncryptedNumber
        The dot product.

    Raises
    ------
    ValueError
        For lengths that differ or are 0, or a number of another key (naming the index).
    TypeError
        For an element that is not an EncryptedNumber.

    Examples
    --------
    >>> from phe import paillier
    >>> from clbig.crypto import paillier as cp
    >>> pk, sk = paillier.generate_paillier_keypair(n_length=512)
    >>> sk.decrypt(cp.dot(pk, cp.encrypt(pk, [1, 2, 3]), [10, -1, 0.5]))
    9.5
    """
    paillier = _phe()
    cts, ws = list(ciphertexts), list(weights)
    if not cts or len(cts) != len(ws):
        raise ValueError(f"dot: {len(cts)} ciphertexts and {len(ws)} weights (need equal, >= 1)")
    _check_keys(public_key, cts, "dot")
    n, nsq = public_key.n, public_key.nsquare
    enc = [paillier.EncodedNumber.encode(public_key, w) for w in ws]
    # the products' exponents, then aligned to the least as the sum needs
    exps = [x.exponent + e.exponent for x, e in zip(cts, enc)]
    least = min(exps)
    big = [e.encoding >= n - public_key.max_int for e in enc]           # negative weights
    powers = [(n - e.encoding if b else e.encoding) * paillier.EncodedNumber.BASE ** (x - least)
              for e, b, x in zip(enc, big, exps)]
    M = Modulus(nsq)
    c = array([x.ciphertext(be_secure=False) for x in cts])
    if any(big):
        inv = invert(c, M.m)
        c = where(np.array(big, bool), inv, c)
    terms = powmod(c, powers, M)
    return paillier.EncryptedNumber(public_key, _product(terms, M), least)


def matmul(public_key: PaillierPublicKey, ciphertexts: Sequence[EncryptedNumber],
           matrix: Sequence[Sequence[Any]]) -> list[EncryptedNumber]:
    """The encrypted vector times a plaintext matrix: for each column j, ``dot(ciphertexts,
    matrix[:, j])`` (the federated-learning aggregate).

    Parameters
    ----------
    public_key : phe.paillier.PaillierPublicKey
        The key.
    ciphertexts : sequence of phe.paillier.EncryptedNumber
        k encrypted values.
    matrix : k x m array-like of int or float
        The plaintext weights.

    Returns
    -------
    list of phe.paillier.EncryptedNumber
        m encrypted results.

    Raises
    ------
    ValueError
        For a matrix whose row count is not k.

    Examples
    --------
    >>> from phe import paillier
    >>> from clbig.crypto import paillier as cp
    >>> pk, sk = paillier.generate_paillier_keypair(n_length=512)
    >>> out = cp.matmul(pk, cp.encrypt(pk, [1, 2]), [[1, 0, 3], [1, 1, -1]])
    >>> [sk.decrypt(x) for x in out]
    [3, 2, 1]
    """
    rows = [list(r) for r in matrix]
    cts = list(ciphertexts)
    if len(rows) != len(cts):
        raise ValueError(f"matmul: a matrix of {len(rows)} rows for {len(cts)} ciphertexts")
    if not rows:
        return []
    for i, r in enumerate(rows):
        if len(r) != len(rows[0]):
            raise ValueError(f"matmul: row {i} of the matrix has {len(r)} weights, row 0 {len(rows[0])}")
    return [dot(public_key, cts, [r[j] for r in rows]) for j in range(len(rows[0]))]


__all__ = ["decrypt", "decrypt_raw", "dot", "encrypt", "matmul", "sum"]
