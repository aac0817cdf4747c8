"""The Chinese remainder theorem per row (issue 45 item 3): from k residues and k pairwise
coprime moduli per row, the x in [0, m_1 ... m_k) with x = r_i mod m_i, by Garner's mixed-radix
steps on the device (mod, invert, mulmod, one product a step):

    x_1 = r_1 mod m_1;   x_i = x_(i-1) + M_(i-1) ((r_i - x_(i-1)) M_(i-1)^-1 mod m_i),
    M_i = M_(i-1) m_i.

gmpy2 has no crt; sympy's crt(moduli, residues) gives the same x for coprime moduli.
"""
from __future__ import annotations

from typing import TYPE_CHECKING, Sequence

from . import ops
from .array import BigIntArray
from .coerce import coerce, context_of, is_scalar
from .gcd import invert
from .modular import mulmod

if TYPE_CHECKING:
    from .types import Operand


def crt(residues: Sequence[Operand], moduli: Sequence[Operand]) -> BigIntArray | int:
    """Per row, the x in [0, m_1 m_2 ... m_k) with x = r_i (mod m_i) for every i.

    Parameters
    ----------
    residues : sequence of k operands
        r_1 ... r_k, each a BigIntArray, int, list of int, or integer numpy array (any
        signs), of the batch's length or length one.
    moduli : sequence of k operands
        m_1 ... m_k, as `residues`, each >= 1, pairwise coprime in every row.

    Returns
    -------
    BigIntArray or int
        The solutions; an int where every residue and modulus is a plain integer.

    Raises
    ------
    ValueError
        For no pair, k residues against another number of moduli, a modulus below 1, or
        moduli that are not coprime, naming the row and the moduli's positions.
    TypeError
        For an operand that is not an integer or a sequence of them.

    Examples
    --------
    >>> import clbig
    >>> clbig.crt([[2, 0], 3], [[3, 5], 7]).tolist(), clbig.crt([2, 3, 2], [3, 5, 7])
    ([17, 10], 23)
    """
    residues, moduli = list(residues), list(moduli)
    if not residues or len(residues) != len(moduli):
        raise ValueError(f"crt: {len(residues)} residues and {len(moduli)} moduli (need k >= 1 of each)")
    if all(is_scalar(v) for v in residues + moduli):
        return crt([[r] for r in residues], [[m] for m in moduli]).tolist()[0]
    ctx = context_of(*residues, *moduli)
    rs = [coerce(r, ctx, f"residues[{i}]", signed=True) for i, r in enumerate(residues)]
    ms = [coerce(m, ctx, f"moduli[{i}]", signed=True) for i, m in enumerate(moduli)]
    lens = [len(v) for v in rs + ms]
    n = max(lens)
    if any(k not in (1, n) for k in lens):
        raise ValueError(f"crt: lengths do not broadcast: residues {lens[:len(rs)]}, moduli "
                         f"{lens[len(rs):]} (each the batch's length or 1)")
    for i, m in enumerate(ms):
        low = ops.compare(m, 1, "lt")
        if low.any():
            raise ValueError(f"crt: moduli[{i}] is below 1 at index {int(low.argmax())}")
    x, big = ops.mod(rs[0], ms[0]), ms[0]
    for i in range(1, len(ms)):
        m = ms[i]
        try:
            inv = invert(ops.mod(big, m), m)
        except ValueError as e:
            where = str(e).rpartition("at index ")[2]
            raise ValueError(f"crt: moduli[{i}] is not coprime to moduli[0..{i - 1}] at index "
                             f"{where or '?'}") from None
        t = mulmod(ops.mod(ops.sub(rs[i], x), m), inv, m)
        x, big = ops.add(x, ops.mul(big, t)), ops.mul(big, m)
    return x


__all__ = ["crt"]
