"""Limb-vector algorithms, as GMP's mpn: one module per family over device buffers of 32-bit
limbs (add_n, shift, compare, bitwise, mul_basecase, mul_fp64, mul_ntt, mul_ssa, mul_n,
div_basecase, div_q, gcd_n, mont, mont52, radix, pyint). They know nothing of signs, arrays or
several devices; mul_n and div_q choose among the others."""
