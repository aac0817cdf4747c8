"""Python helpers the kernel templates share (imported in their `<%! %>` blocks)."""


def at(x: str, j: int) -> str:
    """Limb or digit j of an operand named x in a template: a private array "x" (x[j]), or
    "@F" an accessor macro F(j) (an operand kept in local memory: MLOC, BLOC, MS)."""
    return "%s(%du)" % (x[1:], j) if x.startswith("@") else "%s[%d]" % (x, j)


def u(v) -> str:
    """An unsigned operand in kernel source: an int as a constant ("32u"), else the run-time
    expression it names (a kernel argument such as "ma"), so that one block serves kernels
    built for a width and kernels taking it at run time."""
    return "%du" % v if isinstance(v, int) else "(%s)" % v
