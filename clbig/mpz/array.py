"""BigIntArray: a batch of n integers of a shared capacity, on one device.

Stored as sign and magnitude, as GMP's mpz: an n×m matrix of 32-bit limbs holding the
magnitudes, little-endian (limb 0 least significant), and on the host `neg`: None where every
value is known to be non-negative (every unsigned kernel runs on the limbs as they are), else a
numpy bool array, true where the value is negative. Every magnitude is below 2**bits: the limbs
above `bits` are zero, which all kernels rely on. A zero may be marked negative ("-0", after
-x or a product, where knowing would take a pass over the limbs): it is 0 to every reader.

The class names every operator and method it has, but most of them run functions of the
modules built on this one (ops, signs, powers, modular, bitops, index, reduce, numtheory,
npinterop, show), which import this module for the class and its checks, so this module
cannot import them. Each such method is one line calling through `impl`: a table with one
slot per function (IMPL_NAMES) that clbig.mpz.operators fills once, when clbig.mpz is
imported, which is before any array exists (importing this module imports the package).
Every import points down, nothing is put onto the class from outside, and the class body
(and help(BigIntArray)) shows each operator.
"""
from __future__ import annotations

import numbers
import os
import operator
from typing import TYPE_CHECKING

import numpy as np
import pyopencl.array as cla

from . import hooks, hostrows
from .types import MPZ
from ..mpn import convert, radix
from ..mpn.convert import check_bits  # noqa: F401 (the checks live with the conversion)
from ..runtime.devices import Context, current_context

if TYPE_CHECKING:
    import gmpy2
    from numpy.typing import DTypeLike

    from .types import Operand

LIMB_BITS = 32


def limbs_for(bits: int) -> int:
    return max(1, -(-bits // LIMB_BITS))



def _show(v) -> str:
    """v for an error message: printing a huge int would itself raise (int_max_str_digits)."""
    return str(v) if abs(v).bit_length() <= 64 else f"of {abs(v).bit_length()} bits"


def check_context(ctx) -> Context | None:
    """`ctx` (None stays None: the current context); TypeError for anything but a Context."""
    if ctx is not None and not isinstance(ctx, Context) and not getattr(ctx, "is_multi", False):
        raise TypeError(f"ctx must be a clbig.Context, got {type(ctx).__name__}")
    return ctx


#: Kernels take the batch length as a 32-bit argument.
MAX_BATCH = 2**32 - 1


def _gib(nbytes: int) -> str:
    return f"{nbytes / 2**30:.3g} GiB" if nbytes >= 2**30 else f"{nbytes / 2**20:.3g} MiB"


def check_fits(ctx: Context, n: int, bits: int, what: str) -> None:
    """Refuse, before anything is allocated, a result of n values of `bits` bits that one
    device buffer cannot hold: MemoryError with the size and the device's limits (OpenCL's
    own INVALID_BUFFER_SIZE would say neither)."""
    check_batch_length(n, what)
    nbytes = n * limbs_for(bits) * 4
    limit = ctx.profile.facts.max_alloc      # min(max_mem_alloc_size, ctx.memory)
    if nbytes > limit:
        capped = ctx.memory < int(ctx.device.global_mem_size)
        raise MemoryError(
            f"{what}: {n} values of {bits} bits need {_gib(nbytes)} in one buffer, but {ctx.name} "
            f"allocates at most {_gib(limit)} in one buffer (max_mem_alloc_size; "
            f"{_gib(ctx.memory)} of global memory{', capped by max_memory' if capped else ''})")


def check_batch_length(n: int, what: str) -> None:
    """OverflowError for a batch longer than clbig batches hold."""
    if n > MAX_BATCH:
        raise OverflowError(f"{what}: a batch of {n} values; clbig batches hold at most 2**32 - 1")


def host_free() -> int | None:
    """Bytes of host memory free now (Linux and most Unixes), else None."""
    try:
        return os.sysconf("SC_AVPHYS_PAGES") * os.sysconf("SC_PAGE_SIZE")
    except (AttributeError, ValueError, OSError):
        return None


def check_numpy_batch(x: np.ndarray, what: str) -> None:
    """Refuse, before a numpy array becomes Python ints, a batch clbig cannot hold (more than
    2**32 - 1 values: OverflowError) or whose ints the host has no memory for (about 48 bytes
    each: MemoryError, not a bare one from deep inside the conversion)."""
    n = int(x.size)
    check_batch_length(n, what)
    free = host_free()
    if free is not None and n * 48 > free:
        raise MemoryError(f"{what}: {n} values of a numpy array need about {n * 48 / 2**30:.3g} GiB "
                          f"of host memory as Python ints, and {free / 2**30:.3g} GiB is free "
                          "(clbig.from_limbs takes limbs without making ints)")


def negative_error(i, v, what: str = "") -> ValueError:
    """The error of an operation that takes non-negative integers only."""
    return ValueError(f"{what}element {i}: negative value {_show(v)} "
                      "(this operation takes non-negative integers only)")


def checked(values, bits: int | None = None) -> tuple[list, int]:
    """Validate non-negative `values` (mpn.convert.scan: the C checks where built) against `bits`; returns (values, bits)."""
    s = convert.scan(values, bits)            # the C scan where built: checks, widths, signs
    if s.neg is not None:
        i = int(np.argmax(s.neg))
        raise negative_error(i, s.vals[i])
    return s.vals, s.bits


def checked_signed(values, bits: int | None = None):
    """Validate `values` of any sign; returns (magnitudes, bits, neg), neg None where no value is negative."""
    s = convert.scan(values, bits)
    return s.magnitudes(), s.bits, s.neg


def _pack(vals: list, bits: int) -> np.ndarray:
    """Checked magnitudes as an (n, ceil(bits/32)) uint32 matrix (clbig.mpn.convert)."""
    return convert.pack_magnitudes(vals, limbs_for(bits))


def check_out(out, n: int, m: int, dtype) -> None:
    """to_limbs' `out`: a writable C-contiguous (n, m) uint32 numpy array, else TypeError or
    ValueError saying what it is."""
    if np.dtype(dtype) != np.uint32:
        raise TypeError(f"to_limbs: out= takes uint32 limbs; dtype={np.dtype(dtype)} was asked for")
    if not isinstance(out, np.ndarray):
        raise TypeError(f"to_limbs: out must be a numpy array, not {type(out).__name__}")
    if out.dtype != np.uint32 or out.shape != (n, m):
        raise ValueError(f"to_limbs: out must be a uint32 array of shape {(n, m)}, "
                         f"not {out.dtype} of shape {out.shape}")
    if not (out.flags.c_contiguous and out.flags.writeable):
        raise ValueError("to_limbs: out must be C-contiguous and writable")


def limbs_as(host: np.ndarray, dtype) -> np.ndarray:
    """(n, m) uint32 limbs as to_limbs returns them: uint32, or uint64 (limbs paired)."""
    dtype = np.dtype(dtype)
    if dtype == np.uint32:
        return host
    if dtype == np.uint64:
        if host.shape[1] % 2:
            host = np.concatenate([host, np.zeros((host.shape[0], 1), np.uint32)], axis=1)
        return np.ascontiguousarray(host).view("<u8").astype(np.uint64, copy=False)
    raise TypeError(f"to_limbs: dtype must be uint32 or uint64, not {dtype}")


def limbs_to_ints(limbs: np.ndarray) -> list[int]:
    return convert.to_ints(limbs)


# -- the table BigIntArray's operators call through (see the module doc) --------------------
#: The functions behind BigIntArray's operators and methods, filled by clbig.mpz.operators
#: from the modules named beside each.
IMPL_NAMES = (
    "getitem", "setitem",                        # index: masks and index arrays; assignment
    "repr",                                      # show
    "sign", "negative", "invert",                # signs
    "add", "sub", "mul", "floordiv", "mod", "divmod", "shift_left", "shift_right", "compare",  # ops
    "power",                                     # powers
    "powmod",                                    # modular
    "bitwise",                                   # bitops
    "bit_count",                                 # numtheory
    "trim", "sum", "prod", "min", "max", "argmin", "argmax", "sort", "argsort",   # reduce
    "to_numpy", "array_ufunc", "array_function",   # npinterop
)


class _Impl:
    """One slot per name of IMPL_NAMES; a slot not filled yet says who fills it."""
    __slots__ = IMPL_NAMES

    def __getattr__(self, name):      # reached only where the slot is empty (or no slot)
        if name not in IMPL_NAMES:
            raise AttributeError(name)
        raise RuntimeError(f"BigIntArray's {name!r} is not installed: clbig.mpz.operators fills "
                           "it when clbig.mpz is imported (import clbig)")


impl = _Impl()


def install(**fns) -> None:
    """Fill `impl`: one function for every name of IMPL_NAMES, no other (clbig.mpz.operators)."""
    missing, unknown = set(IMPL_NAMES) - set(fns), set(fns) - set(IMPL_NAMES)
    if missing or unknown:
        raise TypeError(f"install: missing {sorted(missing)}, unknown {sorted(unknown)}")
    for name, fn in fns.items():
        setattr(impl, name, fn)


class BigIntArray:
    """A batch of big integers on an OpenCL device, exact and of any sign.

    An array holds n integers that share one capacity, `bits`: every magnitude is below
    ``2**bits``. It is made by `clbig.array` (from Python ints), `clbig.from_limbs` (from
    numpy limbs) or an operation, never by calling this class, whose constructor takes the
    device array as it is. The values live on the device of `ctx` as an (n, m) matrix of
    32-bit limbs holding the magnitudes, least significant limb first, with the signs kept on
    the host (as GMP's mpz keeps sign and magnitude); a zero may be marked negative, and
    reads as 0 everywhere. Operations never write into an existing array: each returns a new
    one. Python's operators (``+ - * // % ** << >> & | ^ ~``, comparisons, `abs`, indexing
    with ints, slices, masks and index arrays) work as on Python ints, elementwise. Pickling
    stores the limbs and signs; unpickling uploads them to the current context.

    Parameters
    ----------
    ctx : Context
        The context whose device holds the limbs (`x.ctx`).
    data : pyopencl.array.Array
        The (n, m) uint32 device array of the magnitudes (`x.data`).
    bits : int
        The capacity in bits (`x.bits`); the limbs above it are zero.
    neg : numpy.ndarray or None, optional
        Where the values are negative (n bools), or None where none is (`x.neg`, None again
        when no entry is true).

    Raises
    ------
    ValueError
        For a device array that is not (n, m) uint32, or `neg` of another length.

    Examples
    --------
    >>> import clbig
    >>> x = clbig.array([1, -2, 2**100])
    >>> x
    BigIntArray([1, -2, 1267650600228229401496703205376], n=3, bits=128)
    >>> len(x), x.bits, x.m
    (3, 128, 4)
    >>> (x * x - 1).tolist()
    [0, 3, 1606938044258990275541962092341162602522202993782792835301375]
    >>> x[1], x[1:].tolist()
    (-2, [-2, 1267650600228229401496703205376])
    """

    __array_priority__ = 1000  # numpy defers to our operators
    __hash__ = None
    # The values as host ints, where an operation computed them on the host (a few rows of
    # powmod): tolist() answers from them instead of reading the device back. Buffers are never
    # written after they are made (assignment gives the array a new one, and a new _known with
    # it: _become), so they stay true.
    _known: list | None = None
    # Where _known holds the values and nothing has asked for the limbs yet, the upload is
    # put off until something does (`data`): a few rows computed on the host and read back
    # at once never wait for the device (host_result).
    _upload_later = None
    # The values the array was made from, as host ints, where clbig.array kept them for the
    # operators' first calls on the host (mpz.hostarrays); tolist() still reads the device.
    # Dropped once anything asks for `data` (a device path, or a user who may write into it).
    _values: list | None = None

    def __init__(self, ctx: Context, data: cla.Array, bits: int, neg: np.ndarray | None = None) -> None:
        if data.ndim != 2 or data.dtype != np.uint32:
            raise ValueError("BigIntArray data must be an (n, m) uint32 device array")
        self.ctx = ctx
        self._data = data
        self._shape = data.shape
        self.bits = int(bits)
        if neg is not None:
            neg = np.asarray(neg, dtype=bool)
            if neg.shape != (data.shape[0],):
                raise ValueError(f"BigIntArray neg must have shape ({data.shape[0]},), got {neg.shape}")
            if not neg.any():
                neg = None
        self.neg = neg

    @property
    def data(self) -> cla.Array:
        """The (n, m) uint32 device array of the magnitudes, least significant limb first."""
        if self._values is not None:
            self._values = None           # whoever holds the buffer may write it: the kept
        d = self._data                    # values would no longer be sure to match
        if d is None:
            up = self._upload_later
            if up is None:                # another thread uploaded since (it sets _data first)
                return self._data
            d = self._data = up()         # (two threads at once upload equal limbs)
            self._upload_later = None
        return d

    @data.setter
    def data(self, value: cla.Array) -> None:
        self._data, self._shape = value, value.shape

    def host_values(self) -> list | None:
        """The values as a list of host ints where the array holds them (a result computed on
        the host, or a small batch clbig.array kept: mpz.hostarrays), else None."""
        return self._known if self._known is not None else self._values

    @property
    def on_device(self) -> bool:
        """Whether the limbs are on the device: False for a result computed on the host (a few
        rows of powmod, the number theory's host paths) until something reads `data`."""
        return self._data is not None

    # -- shape ---------------------------------------------------------------------------
    def __len__(self) -> int:
        return self._shape[0]

    @property
    def m(self) -> int:
        """Limbs per element: ``ceil(bits / 32)``, at least 1."""
        return self._shape[1]

    # numpy's array surface, for code that asks any array these (issue 45): one dimension of
    # n integers; the elements are Python ints, so the dtype is numpy's object dtype (as
    # np.asarray(x) gives), and nbytes counts the device's limbs.
    @property
    def shape(self) -> tuple:
        """``(n,)``: a BigIntArray is one-dimensional."""
        return (self._shape[0],)

    @property
    def ndim(self) -> int:
        """1."""
        return 1

    @property
    def size(self) -> int:
        """n, the number of elements."""
        return self._shape[0]

    @property
    def dtype(self) -> np.dtype:
        """numpy's object dtype: the elements are Python ints of any size, which no fixed numpy
        dtype holds (``np.asarray(x)`` gives an object array of them)."""
        return np.dtype(object)

    @property
    def nbytes(self) -> int:
        """Bytes of the magnitudes on the device: n * m limbs of 4 bytes (signs are on the host)."""
        return self._shape[0] * self._shape[1] * 4

    # -- host exchange -------------------------------------------------------------------
    def to_limbs(self, dtype: DTypeLike = np.uint32, magnitude: bool = False,
                 out: np.ndarray | None = None) -> np.ndarray:
        """The magnitudes as a numpy array of limbs, least significant first.

        The array has one row per element: m uint32 limbs, or ``ceil(m / 2)`` uint64 limbs
        (pairs of 32-bit limbs, the last one padded with zero). `clbig.from_limbs` takes it
        back. Limbs hold magnitudes only, so a negative element is an error unless
        `magnitude` is true; then `sign()` (or `neg`) gives the signs, and
        ``clbig.from_limbs(limbs, bits=x.bits, sign=x.sign())`` rebuilds x.

        Parameters
        ----------
        dtype : {numpy.uint32, numpy.uint64}, optional
            The limb type of the result (default uint32).
        magnitude : bool, optional
            Return the magnitudes of negative elements too (default False: they raise).
        out : numpy.ndarray, optional
            A writable C-contiguous (n, m) uint32 array to download into and return (with
            dtype uint32 only). Reusing one, or one from `clbig.pinned_empty`, skips a fresh
            array's page faults, which the copy otherwise pays (H200, 2026-11-25, 512 MiB: 50
            against 153 ms).

        Returns
        -------
        numpy.ndarray
            The (n, m) uint32 limbs, `out` itself when given, or (n, ceil(m / 2)) uint64.

        Raises
        ------
        ValueError
            Where an element is negative and `magnitude` is false (naming the first such
            index), or for an `out` of the wrong shape, dtype or layout.
        TypeError
            For a `dtype` other than uint32 and uint64, or an `out` that is not a numpy array
            (or given with dtype uint64).

        Examples
        --------
        >>> import clbig, numpy as np
        >>> x = clbig.array([1, 2**32 + 5], bits=64)
        >>> x.to_limbs()
        array([[1, 0],
               [5, 1]], dtype=uint32)
        >>> x.to_limbs(np.uint64).ravel().tolist()
        [1, 4294967301]
        >>> y = clbig.array([3, -4])
        >>> y.to_limbs(magnitude=True).ravel().tolist(), y.sign().tolist()
        ([3, 4], [1, -1])
        """
        if out is None:
            host = self.ctx.get(self.data)
        else:
            check_out(out, len(self), self.m, dtype)
            if self.data.flags.c_contiguous:
                host = self.ctx.get(self.data, out)
            else:
                out[...] = self.ctx.get(self.data)
                host = out
        if self.neg is not None and not magnitude:
            bad = self.neg & host.any(axis=1)
            if bad.any():
                i = int(np.argmax(bad))
                raise ValueError(f"to_limbs: element {i} is negative; limbs hold magnitudes "
                                 "(to_limbs(magnitude=True) gives them, sign() the signs)")
        return limbs_as(host, dtype)

    def tolist(self, mpz: bool = False) -> list[int] | list[gmpy2.mpz]:
        """The values as a list of Python ints (or gmpy2 mpz), exact, signs included.

        A batch is converted on the host (clbig's C conversion where it is built); one large
        value, or a batch where the C extension is missing, is cut into decimal digits on the
        device first. Iterating over an array gives the same values.

        Parameters
        ----------
        mpz : bool, optional
            Give gmpy2 mpz values instead of ints (default False).

        Returns
        -------
        list of int or list of gmpy2.mpz
            One value per element, in order.

        Raises
        ------
        pyopencl.Error
            Only where the OpenCL runtime fails (a lost device); the conversion itself
            raises nothing.

        Examples
        --------
        >>> import clbig
        >>> clbig.array([0, -7, 2**70]).tolist()
        [0, -7, 1180591620717411303424]
        >>> clbig.array([3, 4]).tolist(mpz=True)
        [mpz(3), mpz(4)]
        """
        return convert.joined(value_parts(self, mpz))

    def _ints_of(self, stage: np.ndarray, a: int, b: int, mpz: bool) -> list:
        """Rows a..b-1 as ints, from a staging buffer's chunk of their limbs (tolist): each
        chunk is converted while the next ones cross the bus, and the batch never lies whole
        in a fresh host array (issue 47)."""
        return convert.to_ints(stage.view("<u4").reshape(b - a, self.m),
                               None if self.neg is None else self.neg[a:b], mpz=mpz)

    def bit_length(self) -> np.ndarray:
        """The bit length of every element, as Python's `int.bit_length`.

        The length of the magnitude: ``(-8).bit_length() == 4``, and 0 for zero. Computed on
        the device; only the lengths cross the bus.

        Returns
        -------
        numpy.ndarray
            n int64 lengths (an empty array for an empty batch).

        Raises
        ------
        pyopencl.Error
            Only where the OpenCL runtime fails (a lost device).

        Examples
        --------
        >>> import clbig
        >>> clbig.array([0, 1, -8, 2**70]).bit_length().tolist()
        [0, 1, 4, 71]
        """
        if not len(self):
            return np.zeros(0, np.int64)
        return radix.bit_lengths(self.ctx, self.data).astype(np.int64)

    # -- indexing, conversions and truth -------------------------------------------------
    def __iter__(self):
        return iter(self.tolist())

    def __getitem__(self, i):
        """An element (int), a slice, a boolean mask or integer indices (negative as numpy's;
        out of range: IndexError naming the index), gathered on the device."""
        if isinstance(i, (list, np.ndarray, BigIntArray)):
            return impl.getitem(self, i)            # masks and index arrays (mpz.index)
        if isinstance(i, numbers.Integral):
            n, i = len(self), operator.index(i)   # a numpy int8 would overflow in i % n
            if not -n <= i < n:
                raise IndexError(f"index {i} out of range for a batch of {n}")
            return self.tolist()[i] if n < 2 else self[i % n:i % n + 1].tolist()[0]
        if isinstance(i, slice):
            start, stop, step = i.indices(len(self))
            neg = None if self.neg is None else self.neg[i]
            if step == 1 and stop > start:   # rows stay on the device
                with self.ctx.enqueuing() as q:
                    rows = self.data[start:stop].copy(queue=q)
                return BigIntArray(self.ctx, rows, self.bits, neg)
            rows = self.to_limbs(magnitude=True)[i]
            return from_limbs(rows, bits=self.bits, ctx=self.ctx, sign=None if neg is None else -neg.astype(np.int8))
        raise TypeError(f"BigIntArray indices must be integers, slices, boolean masks or integer "
                        f"arrays, not {type(i).__name__}")

    def __setitem__(self, i, value):
        """x[i] = value for an int, a slice, a boolean mask or integer indices, as numpy's
        (value: one integer or one per position); exact, on the device; the capacity grows
        to the widest value's (mpz.index.setitem)."""
        impl.setitem(self, i, value)

    def _become(self, other: BigIntArray) -> None:
        """Take `other`'s buffer, width and signs: assignment and the in-place operators. The
        old buffer is never written, so whatever still holds it (a pending copy, a recorded
        launch, a Modulus) keeps the values it had."""
        if type(other) is not type(self) or other.ctx is not self.ctx:
            raise TypeError(f"cannot assign into a {type(self).__name__} from a "
                            f"{type(other).__name__} of another kind or context")
        self.__dict__.clear()
        self.__dict__.update(other.__dict__)

    def _inplace(self, result, op: str):
        if result is NotImplemented:
            return result
        if not isinstance(result, BigIntArray):    # e.g. a comparison's numpy result
            return result
        if len(result) != len(self):
            raise ValueError(f"in-place {op}: the result has {len(result)} elements and this "
                             f"array {len(self)} (as numpy, an in-place operation keeps the "
                             "array's length; write x = x " + op.rstrip("=") + " y instead)")
        self._become(result)
        return self

    # In-place operators update this array object (names bound to it see the change): the
    # result is computed as by the operator, then taken over (_become).
    def __iadd__(self, o):
        return self._inplace(self.__add__(o), "+=")

    def __isub__(self, o):
        return self._inplace(self.__sub__(o), "-=")

    def __imul__(self, o):
        return self._inplace(self.__mul__(o), "*=")

    def __ifloordiv__(self, o):
        return self._inplace(self.__floordiv__(o), "//=")

    def __imod__(self, o):
        return self._inplace(self.__mod__(o), "%=")

    def __ipow__(self, o):
        return self._inplace(self.__pow__(o), "**=")

    def __ilshift__(self, o):
        return self._inplace(self.__lshift__(o), "<<=")

    def __irshift__(self, o):
        return self._inplace(self.__rshift__(o), ">>=")

    def __iand__(self, o):
        return self._inplace(self.__and__(o), "&=")

    def __ior__(self, o):
        return self._inplace(self.__or__(o), "|=")

    def __ixor__(self, o):
        return self._inplace(self.__xor__(o), "^=")

    def __repr__(self):
        return impl.repr(self)

    def __int__(self):
        """The value of a one-element array as a Python int (TypeError for other lengths)."""
        if len(self) != 1:
            raise TypeError(f"only a one-element BigIntArray converts to an int; this one has {len(self)}")
        return self.tolist()[0]

    def __floor__(self):
        """math.floor of a one-element array: its int, exactly (without this, Python would go
        through float and round 2**53 + 1 down)."""
        return self.__int__()

    __ceil__ = __trunc__ = __floor__

    def __bool__(self):
        """numpy's rule: the element's truth for a one-element array; ValueError for any other
        length (the truth of several values, or of none, is ambiguous). Without this, Python
        would call __len__ and call [0] true."""
        if len(self) != 1:
            raise ValueError(f"the truth value of a BigIntArray with {len(self)} elements is "
                             "ambiguous: use (x != 0).any() or (x != 0).all()")
        return bool(self.sign()[0])

    def __index__(self):
        """operator.index of a one-element array (TypeError for other lengths), as for int().
        `[3] * x` still multiplies: Python asks x.__rmul__ before list repetition."""
        if len(self) != 1:
            raise TypeError(f"only a one-element BigIntArray is an index; this one has {len(self)}")
        return self.tolist()[0]

    def sign(self) -> np.ndarray:
        """-1, 0 or 1 per element (numpy int8), like GMP's mpz_sgn."""
        return impl.sign(self)

    def bit_count(self) -> np.ndarray:
        """Set bits of every abs(x) (int.bit_count), a numpy int64 array (clbig.bit_count)."""
        return impl.bit_count(self)

    # -- arithmetic (mpz.ops, mpz.powers, mpz.modular) -----------------------------------
    def __add__(self, o):
        return impl.add(self, o)

    def __radd__(self, o):
        return impl.add(o, self)

    def __sub__(self, o):
        return impl.sub(self, o)

    def __rsub__(self, o):
        return impl.sub(o, self)

    def __mul__(self, o):
        return impl.mul(self, o)

    def __rmul__(self, o):
        return impl.mul(o, self)

    def __floordiv__(self, o):
        return impl.floordiv(self, o)

    def __rfloordiv__(self, o):
        return impl.floordiv(o, self)

    def __mod__(self, o):
        return impl.mod(self, o)

    def __rmod__(self, o):
        return impl.mod(o, self)

    def __divmod__(self, o):
        return impl.divmod(self, o)

    def __rdivmod__(self, o):
        return impl.divmod(o, self)

    def __pow__(self, e, m=None):
        if m is None:
            return impl.power(self, e)
        return impl.powmod(self, e, m)

    def __rpow__(self, o, m=None):
        """o ** self: each element an exponent (2 ** clbig.array([1, 2, 3]))."""
        if m is None:
            return impl.power(o, self)
        return impl.powmod(o, self, m)

    def __lshift__(self, k):
        return impl.shift_left(self, k)

    def __rshift__(self, k):
        return impl.shift_right(self, k)

    def __rlshift__(self, o):
        """o << self: each element a shift count (1 << clbig.array([1, 2, 3]))."""
        return impl.shift_left(o, self)

    def __rrshift__(self, o):
        return impl.shift_right(o, self)

    # -- signs (mpz.signs) ---------------------------------------------------------------
    def __neg__(self):
        return impl.negative(self)

    def __pos__(self):
        return self.__copy__()

    def __abs__(self):
        return BigIntArray(self.ctx, self.data, self.bits)

    def __invert__(self):
        return impl.invert(self)

    # -- comparisons (mpz.ops.compare): numpy bool arrays --------------------------------
    def __lt__(self, o):
        return impl.compare(self, o, "lt")

    def __le__(self, o):
        return impl.compare(self, o, "le")

    def __gt__(self, o):
        return impl.compare(self, o, "gt")

    def __ge__(self, o):
        return impl.compare(self, o, "ge")

    def __eq__(self, o):
        return impl.compare(self, o, "eq")

    def __ne__(self, o):
        return impl.compare(self, o, "ne")

    # -- bitwise operations (mpz.bitops) -------------------------------------------------
    def __and__(self, o):
        return impl.bitwise("and", self, o)

    def __rand__(self, o):
        return impl.bitwise("and", o, self)

    def __or__(self, o):
        return impl.bitwise("or", self, o)

    def __ror__(self, o):
        return impl.bitwise("or", o, self)

    def __xor__(self, o):
        return impl.bitwise("xor", self, o)

    def __rxor__(self, o):
        return impl.bitwise("xor", o, self)

    # -- reductions and orderings (mpz.reduce) -------------------------------------------
    def trim(self) -> BigIntArray:
        """The values at the smallest capacity that holds them (at least 1 bit)."""
        return impl.trim(self)

    def sum(self) -> int:
        """The exact sum, a Python int (clbig.sum)."""
        return impl.sum(self)

    def prod(self) -> int:
        """The exact product, a Python int (clbig.prod)."""
        return impl.prod(self)

    def min(self) -> int:
        """The smallest element, a Python int (clbig.min); ValueError for an empty batch."""
        return impl.min(self)

    def max(self) -> int:
        """The largest element, a Python int (clbig.max); ValueError for an empty batch."""
        return impl.max(self)

    def argmin(self) -> int:
        """The index of the first smallest element (clbig.argmin); ValueError if empty."""
        return impl.argmin(self)

    def argmax(self) -> int:
        """The index of the first largest element (clbig.argmax); ValueError if empty."""
        return impl.argmax(self)

    def sort(self) -> BigIntArray:
        """A sorted copy (stable; unlike ndarray.sort, never in place)."""
        return impl.sort(self)

    def argsort(self) -> np.ndarray:
        """The stable ascending order, numpy int64 (clbig.argsort)."""
        return impl.argsort(self)

    # -- numpy's protocols (mpz.npinterop) -----------------------------------------------
    def __array__(self, dtype=None, copy=None):
        return impl.to_numpy(self, dtype, copy)

    def __array_ufunc__(self, ufunc, method, *inputs, **kwargs):
        return impl.array_ufunc(self, ufunc, method, inputs, kwargs)

    def __array_function__(self, func, types, args, kwargs):
        return impl.array_function(self, func, types, args, kwargs)

    # -- copies and pickling -------------------------------------------------------------
    # Operations never write into an existing array, so a shallow copy may share the buffer.
    def __copy__(self):
        return BigIntArray(self.ctx, self.data, self.bits, self.neg)

    def copy(self) -> BigIntArray:
        """An independent copy (on the device)."""
        return self.__deepcopy__({})

    def __deepcopy__(self, memo):
        """An independent copy on the same context (a device-side copy)."""
        neg = None if self.neg is None else self.neg.copy()
        with self.ctx.enqueuing() as q:
            data = self.data.copy(queue=q)
        return BigIntArray(self.ctx, data, self.bits, neg)

    def __reduce__(self):
        """Pickled as its limbs, width and signs; unpickled onto the current context of the
        process that loads it (Dask and multiprocessing ship arrays between processes)."""
        if self.neg is None:
            return _unpickle, (self.to_limbs(), self.bits)
        return _unpickle, (self.to_limbs(magnitude=True), self.bits, self.neg.copy())


def _unpickle(limbs: np.ndarray, bits: int, neg=None) -> BigIntArray:
    return from_limbs(limbs, bits=bits, sign=None if neg is None else -np.asarray(neg, np.int8))


def _upload(ctx: Context, limbs: np.ndarray, bits: int, neg=None) -> BigIntArray:
    data = ctx.to_device(np.ascontiguousarray(limbs, dtype=np.uint32))
    return BigIntArray(ctx, data, bits, neg)


def array(values: Operand, bits: int | None = None, ctx: Context | None = None) -> BigIntArray:
    """A BigIntArray of the given integers, exact, on a device.

    Values of any sign and size are taken as they are (Python ints, gmpy2 mpz, numpy
    integers, integer numpy arrays), never rounded. The capacity `bits` bounds the
    magnitudes: every operation sizes its result from its operands' capacities (a sum gets one
    bit more, a product the sum of both), so a capacity well above the values costs time.
    Without `bits`, the capacity is the widest value's bit length rounded up to whole 32-bit
    limbs (32 for small values). With a `Context` of several devices (``Context([...])``),
    the rows are spread over the devices.

    Parameters
    ----------
    values : BigIntArray, int, gmpy2.mpz, or iterable of them
        The integers; one integer gives an array of length one, a BigIntArray is copied (at
        capacity `bits`, or its values' default).
    bits : int, optional
        The capacity of the magnitudes in bits, at least 1.
    ctx : Context, optional
        Where the array lives (default: `clbig.current_context()`).

    Returns
    -------
    BigIntArray
        n elements of capacity `bits`.

    Raises
    ------
    TypeError
        For a value that is not an integer (a float, a bool array, a string, a dict or set
        of values), a `bits` that is not an integer, or a `ctx` that is not a Context.
    ValueError
        For ``bits < 1``.
    OverflowError
        Where a value does not fit `bits` (naming the first such element), or for more
        than 2**32 - 1 values.
    MemoryError
        Where the batch does not fit one buffer of the device (the message gives the sizes).

    Examples
    --------
    >>> import clbig
    >>> clbig.array([1, -2, 3])
    BigIntArray([1, -2, 3], n=3, bits=32)
    >>> clbig.array([2**100, -5]).bits
    128
    >>> clbig.array(7, bits=3).tolist()
    [7]
    >>> clbig.array([256], bits=8)
    Traceback (most recent call last):
    ...
    OverflowError: element 0: value of 9 bits does not fit bits=8
    """
    if isinstance(values, BigIntArray):
        values = values.tolist()
    values = value_list(values, "clbig.array")
    ctx = check_context(ctx) or current_context()
    if getattr(ctx, "is_multi", False):   # several devices: rows spread over them
        return hooks.several().array(values, bits, ctx)
    x = None if bits is None else packed_rows(ctx, values, check_bits(bits), None, 0, len(values))
    if x is None:
        try:
            s = convert.scan(values, bits, owned=True)     # value_list's copy: read in place
        except TypeError:
            _one_dimension(values)
            raise
        x = scanned_rows(ctx, s, 0, len(s))
        values = s.vals
    if hostrows.keeps(ctx, values, x.bits):
        x._values = list(values)
    return x


def value_parts(x: BigIntArray, mpz: bool) -> list:
    """x.tolist()'s values as lists whose concatenation they are: a list per chunk where they
    cross through the staging buffers (joined once, by whoever gathers them: tolist, or a
    SplitArray's tolist for all of its pieces at once)."""
    if x._known is not None:
        return [[MPZ(v) for v in x._known] if mpz else list(x._known)]
    # a batch converts on the host (clbig.mpn.convert: C, several GB/s); one large value, or a
    # batch without the C extension, is cut into digits on the device (clbig.mpn.radix)
    if not (radix.worth_it(x.bits) and len(x) and (len(x) == 1 or not convert.native())):
        parts: list = []
        if convert.native() and x.ctx.rows_from_device(x.data, lambda stage, a, b: parts.append(
                x._ints_of(stage, a, b, mpz))):
            return parts
        return [convert.to_ints(x.to_limbs(magnitude=True), x.neg, mpz=mpz)]
    vals = radix.download(x.ctx, x.data)
    if x.neg is not None:
        vals = [-v if s else v for v, s in zip(vals, x.neg.tolist())]
    return [list(map(MPZ, vals)) if mpz else vals]


def packed_rows(ctx: Context, values: list, bits: int, signs: np.ndarray | None, r0: int, r1: int):
    """Rows r0..r1-1 of a batch of exact ints (`values`: a list only clbig holds) as a
    BigIntArray of ctx, each int read once: checked and packed straight into the staging
    buffers chunk by chunk, its sign into signs[i] (uint8, one per value: pieces of one batch
    share them; None: made here); None where that pass does not apply (no staged transfer, no native threads,
    one large value) or finds a value that is not an exact int or does not fit:
    the caller then scans the batch, which converts or names it. A scan first, then the pack,
    read every int twice: 500,000 values of 2048 bits 52.5 against 46.2 ms (2-core Xeon)."""
    n, m = r1 - r0, limbs_for(bits)
    # the staged size first: a small batch pays one test (3-4 µs more a clbig.array otherwise)
    if not n or not ctx.staged(4 * n * m) or (n == 1 and radix.worth_it(bits)) \
            or not convert.packs_in_one_pass():
        return None
    check_fits(ctx, n, bits, "clbig.array")
    if signs is None:
        signs = np.empty(len(values), np.uint8)

    def fill(stage, a, b):
        if not convert.scan_pack_range(values, signs, bits, stage.view(np.uint32).reshape(b - a, m),
                                       r0 + a, r0 + b):
            raise _NotOnePass
    try:
        data = ctx.rows_to_device((n, m), fill)
    except _NotOnePass:
        return None
    return None if data is None else BigIntArray(ctx, data, bits, signs[r0:r1].view(bool))


class _NotOnePass(Exception):
    """packed_rows met a value its pass does not take (the scan converts or names it)."""


def scanned_rows(ctx: Context, s: convert.Scanned, r0: int, r1: int) -> BigIntArray:
    """Rows r0..r1-1 of a scanned batch as a BigIntArray of ctx: the whole batch for
    clbig.array, one device's piece of it for a batch spread over several devices (scanned
    once for all of them)."""
    n, m = r1 - r0, limbs_for(s.bits)
    check_fits(ctx, n, s.bits, "clbig.array")
    neg = None if s.neg is None else s.neg[r0:r1]

    def piece() -> convert.Scanned:     # made only where needed: the staged path reads s
        return s if (r0, r1) == (0, len(s)) else convert.Scanned(s.vals[r0:r1], s.bits, neg, s.c)
    # as in tolist: radix for one large value, or a batch without the C extension
    if (radix.worth_it(s.bits) and (n == 1 or not s.c) and n
            and all(type(v) is int for v in s.vals[r0:r1])):
        return BigIntArray(ctx, radix.upload(ctx, piece().magnitudes(), m), s.bits, neg)
    # Where the C conversion runs and the transfer is staged (GPUs, large batches), each
    # chunk's limbs are made in a staging buffer while the last chunk crosses the bus: no fresh
    # host array of the whole batch, whose page faults cost as much as the conversion, and the
    # conversion overlaps the transfer (issue 47).
    if s.c and n:
        def fill(stage, a, b):
            convert.pack_range(s, stage.view(np.uint32).reshape(b - a, m), r0 + a, r0 + b)
        data = ctx.rows_to_device((n, m), fill)
        if data is not None:
            return BigIntArray(ctx, data, s.bits, neg)
    return _upload(ctx, convert.pack(piece()), s.bits, neg)


def _one_dimension(values: list) -> None:
    """TypeError saying that a BigIntArray is one-dimensional, where the first element that is
    not an integer is itself a sequence (a nested list, a numpy row) (issue 45)."""
    for i, v in enumerate(values):
        if isinstance(v, (list, tuple, np.ndarray)):
            raise TypeError(f"clbig.array: a BigIntArray is one-dimensional (n integers); element {i} "
                            f"is a {type(v).__name__}, so the input has more dimensions: flatten it, "
                            "or make one array per row") from None
        if not isinstance(v, (numbers.Integral, MPZ)):
            return


def host_result(ctx: Context, values: list, bits: int) -> BigIntArray:
    """An array of ints computed on the host (any signs), of capacity `bits`: tolist()
    answers from `values`, and the limbs go to the device only when something reads `data`."""
    x = BigIntArray.__new__(BigIntArray)
    neg = np.fromiter((v < 0 for v in values), bool, len(values))
    x.ctx, x.bits, x.neg = ctx, int(bits), neg if neg.any() else None
    x._known, x._data, x._shape = list(values), None, (len(values), limbs_for(bits))
    x._upload_later = lambda: array(values, bits=bits, ctx=ctx).data
    return x


def value_list(values, what: str) -> list:
    """`values` (one int / mpz, or an iterable of them) as a list; TypeError naming `what` for
    strings, mappings, sets and non-iterables."""
    if isinstance(values, (numbers.Integral, MPZ)) and not isinstance(values, bool):
        return [values]
    if isinstance(values, (str, bytes, bytearray, dict, set, frozenset)):   # iterable, but not of values
        raise TypeError(f"{what} expects a sequence of integers, got {type(values).__name__}")
    if isinstance(values, np.ndarray):
        check_numpy_batch(values, what)
    try:
        return list(values)
    except TypeError:
        raise TypeError(f"{what} expects an iterable of integers, got {type(values).__name__}") from None


def upload_values(ctx: Context, vals: list, bits: int, neg=None) -> BigIntArray:
    """Checked magnitudes (checked_signed's result) as a BigIntArray of ctx."""
    check_fits(ctx, len(vals), bits, "clbig.array")
    if vals and radix.worth_it(bits) and all(type(v) is int for v in vals):
        return BigIntArray(ctx, radix.upload(ctx, vals, limbs_for(bits)), bits, neg)
    return _upload(ctx, _pack(vals, bits), bits, neg)


def checked_limbs(limbs, bits: int | None = None) -> tuple[np.ndarray, int]:
    """(n, m) limbs (uint32 or uint64, little-endian) as contiguous uint32 of bits' limbs, and
    bits (default: all the limbs hold); errors name the first value that does not fit."""
    arr = np.asarray(limbs)
    if arr.ndim == 1:
        arr = arr[None, :]
    if arr.ndim != 2 or arr.shape[1] == 0:
        raise ValueError(f"from_limbs expects an (n, m) array with m >= 1, got shape {arr.shape}")
    if arr.dtype.kind != "u" or arr.dtype.itemsize not in (4, 8):
        raise TypeError(f"from_limbs expects uint32 or uint64 limbs, got {arr.dtype}")
    if arr.dtype.itemsize == 8:   # either byte order: little-endian pairs of 32-bit limbs
        arr = np.ascontiguousarray(arr, dtype="<u8").view("<u4")
    arr = np.ascontiguousarray(arr, dtype=np.uint32)
    full = arr.shape[1] * LIMB_BITS
    if bits is None:
        bits = full
    elif check_bits(bits) > full:
        raise ValueError(f"bits={bits} must be between 1 and the {full} bits the limbs hold")
    else:
        bits = int(bits)
        m = limbs_for(bits)
        if arr.shape[1] > m and arr[:, m:].any():
            i = int(np.nonzero(arr[:, m:].any(axis=1))[0][0])
            raise OverflowError(f"element {i}: value does not fit bits={bits}")
        arr = np.ascontiguousarray(arr[:, :m])
        if bits % LIMB_BITS and (arr[:, -1] >> np.uint32(bits % LIMB_BITS)).any():
            i = int(np.nonzero(arr[:, -1] >> np.uint32(bits % LIMB_BITS))[0][0])
            raise OverflowError(f"element {i}: value does not fit bits={bits}")
    return arr, bits


def checked_neg(sign, n: int):
    """from_limbs' `sign` (None or n integers -1/0/1) as the negative marks (None: none)."""
    if sign is None:
        return None
    s = np.asarray(sign)
    if s.dtype.kind not in "iu" or s.shape != (n,):
        raise TypeError(f"from_limbs: sign must be {n} integers (-1, 0, 1), got {s.dtype} of shape {s.shape}")
    return s < 0


def pinned_empty(shape: int | tuple[int, ...], dtype: DTypeLike = np.uint32,
                 ctx: Context | None = None) -> np.ndarray:
    """An uninitialized numpy array in page-locked host memory of a context's device.

    For limbs that cross the bus often or in bulk: ``clbig.from_limbs(a)`` and
    ``x.to_limbs(out=a)`` copy such an array at the bus's speed, without the driver's
    staging copy and a fresh array's page faults. It stays page-locked while it lives, so
    make few (page-locked memory is the host's to spare). With several devices, the memory
    is the first device's.

    Parameters
    ----------
    shape : int or tuple of int
        The array's shape, e.g. ``(n, m)`` for n values of m limbs.
    dtype : numpy dtype, optional
        The element type (default uint32, the limb type).
    ctx : Context, optional
        The context whose device the memory is pinned for (default: the current one).

    Returns
    -------
    numpy.ndarray
        An array of that shape and dtype; its contents are undefined until written.

    Raises
    ------
    ValueError
        For a negative dimension in `shape`.
    TypeError
        For a `ctx` that is not a Context.

    Examples
    --------
    >>> import clbig, numpy as np
    >>> a = clbig.pinned_empty((2, 1))
    >>> a.shape, a.dtype
    ((2, 1), dtype('uint32'))
    >>> a[:] = [[5], [7]]
    >>> clbig.from_limbs(a).tolist()
    [5, 7]
    """
    ctx = check_context(ctx) or current_context()
    return ctx.pinned_empty(shape, dtype)


def from_limbs(limbs: np.ndarray, bits: int | None = None, ctx: Context | None = None,
               sign: np.ndarray | None = None) -> BigIntArray:
    """A BigIntArray from a numpy array of limbs, the fast way in for bulk data.

    Each row holds one magnitude as uint32 or uint64 limbs, least significant first (uint64
    limbs in either byte order are read as pairs of 32-bit limbs); a one-dimensional array
    is one value. The limbs are copied to the device as they are, with no conversion to
    Python ints: `BigIntArray.to_limbs` is the inverse. Signs come separately.

    Parameters
    ----------
    limbs : numpy.ndarray
        (n, m) uint32 or uint64 limbs, m >= 1, or (m,) for one value.
    bits : int, optional
        The capacity in bits (default: every bit the limbs hold, 32 per uint32 limb); limbs
        above it must be zero.
    ctx : Context, optional
        Where the array lives (default: the current context).
    sign : array_like of int, optional
        None (every value non-negative) or n integers -1, 0, 1 as `BigIntArray.sign` gives:
        the value is negative where its sign is below 0.

    Returns
    -------
    BigIntArray
        n elements of capacity `bits`.

    Raises
    ------
    ValueError
        For limbs that are not (n, m) with m >= 1, or a `bits` below 1 or above what the
        limbs hold.
    OverflowError
        Where a value does not fit `bits` (naming the first such element), or for more than
        2**32 - 1 rows.
    TypeError
        For limbs of another dtype than uint32 / uint64, a `sign` that is not n integers,
        or a `ctx` that is not a Context.
    MemoryError
        Where the batch does not fit one buffer of the device.

    Examples
    --------
    >>> import clbig, numpy as np
    >>> clbig.from_limbs(np.array([[1, 0], [0, 1]], dtype=np.uint32))
    BigIntArray([1, 4294967296], n=2, bits=64)
    >>> clbig.from_limbs(np.array([[5], [7]], dtype=np.uint32), bits=3, sign=[1, -1]).tolist()
    [5, -7]
    """
    ctx = check_context(ctx) or current_context()
    pre = np.asarray(limbs)             # a view: sized before any copy of a broadcast is made
    if pre.ndim in (1, 2) and pre.dtype.kind == "u" and pre.dtype.itemsize in (4, 8) \
            and pre.shape[-1] and not getattr(ctx, "is_multi", False):
        full = pre.shape[-1] * pre.dtype.itemsize * 8
        want = int(bits) if isinstance(bits, numbers.Integral) and not isinstance(bits, bool) \
            and 0 < bits <= full else full
        check_fits(ctx, 1 if pre.ndim == 1 else pre.shape[0], want, "clbig.from_limbs")
    arr, bits = checked_limbs(limbs, bits)   # (bits as `want`: the check above holds for it)
    neg = checked_neg(sign, arr.shape[0])
    if getattr(ctx, "is_multi", False):
        return hooks.several().from_limbs(arr, bits, ctx, None if sign is None else np.asarray(sign))
    return _upload(ctx, arr, bits, neg)
