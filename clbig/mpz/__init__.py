"""The integer layer, as GMP's mpz: BigIntArray (storage, coercion and checks), signs,
operators, the arithmetic of ops, powers, bitwise operations, gcd and modular arithmetic, and
the fused benchmark expressions. Built on mpn (limb vectors) and runtime; never imports scale,
which plugs in through hooks."""
from . import operators  # noqa: F401  (binds BigIntArray's operators)
