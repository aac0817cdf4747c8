"""Batches for the cryptographic libraries users already hold (issue 46), a floor above mpz:
`clbig.crypto.paillier` over python-paillier's (`phe`) keys and numbers, and
`clbig.crypto.rsa` over `cryptography`'s RSA numbers. Each takes and gives the library's own
objects (or plain ints and bytes) and runs the modular exponentiations as one batch on the
device; encodings, padding and key generation stay in the library.
"""
