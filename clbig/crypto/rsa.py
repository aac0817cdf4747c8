"""Raw RSA in batches over `cryptography`'s keys (issue 46): private operations by the CRT
(decryption of raw ciphertexts, and signing blinded messages as RFC 9474's blind signatures
need), public operations, each as one batch of modular powers on the device. Padding (OAEP,
PSS, RFC 9474's encoding and blinding) stays in `cryptography` or the caller: these are the
bare ``x^d mod n`` and ``x^e mod n``.

With the private numbers (p, q, dmp1, dmq1, iqmp):

    m1 = x^dmp1 mod p,  m2 = x^dmq1 mod q,  h = iqmp (m1 - m2) mod p,  x^d mod n = m2 + h q

Values are ints in [0, n), or bytes (big-endian, as RFC 8017's I2OSP / OS2IP), answered in
kind (bytes of n's length). A timing note: the powers run in time that depends on the
exponents' bit lengths and the values' sizes (see the docs' security notes).
"""
from __future__ import annotations

from typing import Any, Sequence

from ..mpz import ops
from ..mpz.array import array
from ..mpz.modular import mulmod, powmod


def _numbers(key, private: bool):
    """The key's numbers: a key object of `cryptography` (its private_numbers() /
    public_numbers()) or the numbers themselves."""
    if private:
        nums = key.private_numbers() if hasattr(key, "private_numbers") else key
        for attr in ("p", "q", "dmp1", "dmq1", "iqmp", "public_numbers"):
            if not hasattr(nums, attr):
                raise TypeError(f"expected cryptography's RSAPrivateKey or RSAPrivateNumbers, "
                                f"got {type(key).__name__}")
        return nums
    nums = key
    for _ in range(2):   # a key's public_numbers() is a method, its private numbers' a property
        if not hasattr(nums, "n") and hasattr(nums, "public_numbers"):
            got = nums.public_numbers
            nums = got() if callable(got) else got
    if not (hasattr(nums, "n") and hasattr(nums, "e")):
        raise TypeError(f"expected cryptography's RSA key or its numbers, got {type(key).__name__}")
    return nums


def _ints(values, n: int, what: str) -> tuple[list, bool]:
    """(the values as ints, whether they came as bytes); ValueError naming the first outside
    [0, n)."""
    vals = list(values)
    as_bytes = bool(vals) and isinstance(vals[0], (bytes, bytearray))
    if as_bytes:
        vals = [int.from_bytes(v, "big") if isinstance(v, (bytes, bytearray)) else None for v in vals]
    for i, v in enumerate(vals):
        if v is None or isinstance(v, bool) or not hasattr(v, "__index__"):
            raise TypeError(f"{what}: element {i} is not an int" + (" or bytes" if as_bytes else ""))
        if not 0 <= v < n:
            raise ValueError(f"{what}: element {i} is outside [0, n)")
    return [int(v) for v in vals], as_bytes


def _out(vals: list, n: int, as_bytes: bool) -> list:
    if not as_bytes:
        return vals
    k = (n.bit_length() + 7) // 8
    return [v.to_bytes(k, "big") for v in vals]


def private(key: Any, values: Sequence[int | bytes]) -> list:
    """``x^d mod n`` of every value by the CRT: raw decryption, or the signature of a blinded
    message (RFC 9474's BlindSign), for a `cryptography` RSA private key.

    Parameters
    ----------
    key : cryptography RSAPrivateKey or RSAPrivateNumbers
        The key.
    values : sequence of int or bytes
        Each in [0, n); bytes are big-endian.

    Returns
    -------
    list of int or bytes
        In the kind given (bytes of n's length).

    Raises
    ------
    ValueError
        Naming the first value outside [0, n).
    TypeError
        For a key that is not an RSA private key or its numbers, or a value that is not an
        int or bytes.

    Examples
    --------
    >>> from cryptography.hazmat.primitives.asymmetric import rsa as crsa
    >>> from clbig.crypto import rsa
    >>> key = crsa.generate_private_key(public_exponent=65537, key_size=1024)
    >>> n, d = key.public_key().public_numbers().n, key.private_numbers().d
    >>> rsa.private(key, [2, 3]) == [pow(2, d, n), pow(3, d, n)]
    True
    """
    nums = _numbers(key, True)
    n = nums.public_numbers.n
    vals, as_bytes = _ints(values, n, "rsa.private")
    if not vals:
        return []
    p, q = nums.p, nums.q
    x = array(vals)                      # converted once for both halves of the CRT
    m1 = powmod(ops.mod(x, p), nums.dmp1, p)
    m2 = powmod(ops.mod(x, q), nums.dmq1, q)
    h = mulmod(ops.mod(ops.sub(m1, m2), p), nums.iqmp, p)
    return _out(ops.add(m2, ops.mul(h, q)).tolist(), n, as_bytes)


def public(key: Any, values: Sequence[int | bytes]) -> list:
    """``x^e mod n`` of every value: raw encryption, or checking raw signatures, for a
    `cryptography` RSA key (public or private) or its numbers.

    Parameters
    ----------
    key : cryptography RSAPublicKey, RSAPrivateKey, RSAPublicNumbers or RSAPrivateNumbers
        The key.
    values : sequence of int or bytes
        Each in [0, n); bytes are big-endian.

    Returns
    -------
    list of int or bytes
        In the kind given (bytes of n's length).

    Raises
    ------
    ValueError
        Naming the first value outside [0, n).
    TypeError
        For a key that is not an RSA key or its numbers, or a value that is not an int or
        bytes.

    Examples
    --------
    >>> from cryptography.hazmat.primitives.asymmetric import rsa as crsa
    >>> from clbig.crypto import rsa
    >>> key = crsa.generate_private_key(public_exponent=65537, key_size=1024)
    >>> rsa.public(key, rsa.private(key, [12345, 0, 1]))
    [12345, 0, 1]
    """
    if hasattr(key, "private_numbers"):
        key = key.public_key()
    nums = _numbers(key, False)
    n = nums.n
    vals, as_bytes = _ints(values, n, "rsa.public")
    if not vals:
        return []
    return _out(powmod(vals, nums.e, n).tolist(), n, as_bytes)


__all__ = ["private", "public"]
