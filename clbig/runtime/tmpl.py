"""Python helpers the kernel templates share (imported in their `<%! %>` blocks)."""


def at(x: str, j: int) -> str:
    """Limb or digit j of an operand named x in a template: a private array "x" (x[j]), or
    "@F" an accessor macro F(j) (an operand kept in local memory: MLOC, BLOC, MS)."""
    return "%s(%du)" % (x[1:], j) if x.startswith("@") else "%s[%d]" % (x, j)
