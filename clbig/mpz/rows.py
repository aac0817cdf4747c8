"""clbig.tolist: the values of several arrays as one list of rows (tuples), as
list(zip(a.tolist(), b.tolist())) gives them, for results that come in tuples of arrays (divmod,
gcdext, isqrt_rem, ...).

Each array converts as its tolist does; the rows are then made by convert.zipped, whose tuples
take the values as they are. A zip of big ints touches each one again and sets off the
collector's passes over the young tuples: over divmod's 262,144 quotients and remainders it took
55-64 ms on an H200's host, twice their conversion (bench/README.md, session 36)."""
from __future__ import annotations

from .array import BigIntArray
from ..mpn import convert


def tolist(*arrays: BigIntArray, mpz: bool = False) -> list:
    """The values of one array as a list, or of several arrays of one length as a list of rows.

    ``clbig.tolist(a)`` is ``a.tolist()``; ``clbig.tolist(q, r)`` is
    ``list(zip(q.tolist(), r.tolist()))``, made faster: each row's tuple takes its values as
    they are, where zip touches every value again (3-5x less time for the rows of big ints).

    Parameters
    ----------
    *arrays : BigIntArray
        One or more arrays of the same length (a tuple of arrays, as divmod returns, goes in
        with ``*``).
    mpz : bool, optional
        Give gmpy2 mpz values instead of ints (default False).

    Returns
    -------
    list
        One array: its values. Several: one tuple per row, ``(a[i], b[i], ...)``.

    Raises
    ------
    TypeError
        For no array, or an argument that is not a BigIntArray (its position named).
    ValueError
        For arrays of different lengths (their positions and lengths named).

    Examples
    --------
    >>> import clbig
    >>> q, r = clbig.divmod(clbig.array([17, -17, 2**70]), clbig.array([5, 5, 3]))
    >>> clbig.tolist(q, r)
    [(3, 2), (-4, 3), (393530540239137101141, 1)]
    >>> clbig.tolist(*clbig.divmod(clbig.array([7]), clbig.array([2])), mpz=True)
    [(mpz(3), mpz(1))]
    >>> clbig.tolist(q)
    [3, -4, 393530540239137101141]
    """
    if not arrays:
        raise TypeError("clbig.tolist: give one or more arrays")
    for i, x in enumerate(arrays):
        if not isinstance(x, BigIntArray):
            hint = " (a tuple of arrays goes in as clbig.tolist(*t))" if isinstance(x, tuple) else ""
            raise TypeError(f"clbig.tolist: argument {i} is a {type(x).__name__}, not a BigIntArray{hint}")
    for i, x in enumerate(arrays[1:], 1):
        if len(x) != len(arrays[0]):
            raise ValueError(f"clbig.tolist: argument 0 has {len(arrays[0])} values, argument {i} "
                             f"{len(x)}: rows need arrays of one length")
    lists = [x.tolist(mpz) for x in arrays]
    if len(lists) == 1:
        return lists[0]
    return convert.zipped(lists)

