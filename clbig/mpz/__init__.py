"""The integer layer, as GMP's mpz: BigIntArray (storage, checks and every operator, in
array), the shared operand vocabulary (coerce, types), signs, the arithmetic of ops, powers,
bitwise operations, gcd and modular arithmetic, and the fused benchmark expressions. Built on
mpn (limb vectors) and runtime; never imports scale, which plugs in through hooks."""
from . import operators  # noqa: F401  (fills the table BigIntArray's operators call through)
