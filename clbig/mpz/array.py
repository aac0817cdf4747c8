"""BigIntArray: a batch of n integers of a shared capacity, on one device.

Stored as sign and magnitude, as GMP's mpz: an n×m matrix of 32-bit limbs holding the
magnitudes, little-endian (limb 0 least significant), and on the host `neg`: None where every
value is known to be non-negative (every unsigned kernel runs on the limbs as they are), else a
numpy bool array, true where the value is negative. Every magnitude is below 2**bits: the limbs
above `bits` are zero, which all kernels rely on. A zero may be marked negative ("-0", after
-x or a product, where knowing would take a pass over the limbs): it is 0 to every reader.
"""
from __future__ import annotations

import numbers

import gmpy2
import numpy as np
import pyopencl.array as cla

from . import hooks
from ..mpn import convert, radix
from ..mpn.convert import check_bits  # noqa: F401 (the checks live with the conversion)
from ..runtime.devices import Context, current_context

LIMB_BITS = 32


def limbs_for(bits: int) -> int:
    return max(1, -(-bits // LIMB_BITS))


_MPZ = type(gmpy2.mpz(0))


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
    if n > MAX_BATCH:
        raise OverflowError(f"{what}: a batch of {n} values; clbig batches hold at most 2**32 - 1")
    nbytes = n * limbs_for(bits) * 4
    limit = ctx.__dict__.get("_max_alloc")
    if limit is None:
        limit = ctx._max_alloc = min(int(ctx.device.max_mem_alloc_size), ctx.memory)
    if nbytes > limit:
        capped = ctx.memory < int(ctx.device.global_mem_size)
        raise MemoryError(
            f"{what}: {n} values of {bits} bits need {_gib(nbytes)} in one buffer, but {ctx.name} "
            f"allocates at most {_gib(limit)} in one buffer (max_mem_alloc_size; "
            f"{_gib(ctx.memory)} of global memory{', capped by max_memory' if capped else ''})")


def negative_error(i, v, what: str = "") -> ValueError:
    """The error of an operation that takes non-negative integers only."""
    return ValueError(f"{what}element {i}: negative value {_show(v)} "
                      "(this operation takes non-negative integers only)")


def check_unsigned(values) -> None:
    """ValueError naming the first negative element of a list of ints."""
    for i, v in enumerate(values):
        if not isinstance(v, (bool, np.bool_)) and isinstance(v, (numbers.Integral, _MPZ)) and v < 0:
            raise negative_error(i, v)


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


class BigIntArray:
    """A batch of big integers on an OpenCL device (see `clbig.array` and the module doc)."""

    __array_priority__ = 1000  # numpy defers to our operators
    __hash__ = None

    def __init__(self, ctx: Context, data: cla.Array, bits: int, neg=None):
        if data.ndim != 2 or data.dtype != np.uint32:
            raise ValueError("BigIntArray data must be an (n, m) uint32 device array")
        self.ctx = ctx
        self.data = data
        self.bits = int(bits)
        if neg is not None:
            neg = np.asarray(neg, dtype=bool)
            if neg.shape != (data.shape[0],):
                raise ValueError(f"BigIntArray neg must have shape ({data.shape[0]},), got {neg.shape}")
            if not neg.any():
                neg = None
        self.neg = neg

    # -- shape ---------------------------------------------------------------------------
    def __len__(self) -> int:
        return self.data.shape[0]

    @property
    def m(self) -> int:
        """Limbs per element."""
        return self.data.shape[1]

    # -- host exchange -------------------------------------------------------------------
    def to_limbs(self, dtype=np.uint32, magnitude: bool = False, out: np.ndarray | None = None) -> np.ndarray:
        """The raw limbs as an (n, m) numpy array of uint32, or of uint64 (limbs paired).
        Limbs hold magnitudes: a negative value raises ValueError naming its index, unless
        magnitude=True (then `sign()` or `neg` gives the signs, and
        from_limbs(limbs, sign=x.sign()) rebuilds x).
        out: a writable C-contiguous (n, m) uint32 array to download into and return. Reusing
        one skips a fresh array's page faults, which the copy otherwise pays (H200, 2026-11-25,
        512 MiB: 50 against 153 ms)."""
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

    def tolist(self, mpz: bool = False) -> list:
        """The values as Python ints, or as gmpy2 mpz with mpz=True."""
        # a batch converts on the host (clbig.mpn.convert: C, several GB/s); one large value,
        # or a batch without the C extension, is cut into digits on the device (clbig.radix)
        if not (radix.worth_it(self.bits) and len(self) and (len(self) == 1 or not convert.native())):
            return convert.to_ints(self.to_limbs(magnitude=True), self.neg, mpz=mpz)
        vals = radix.download(self.ctx, self.data)
        if self.neg is not None:
            vals = [-v if s else v for v, s in zip(vals, self.neg.tolist())]
        return list(map(_MPZ, vals)) if mpz else vals

    # -- signs and operators: bound by mpz.operators (they run ops, signs and modular) -------
    def bit_length(self) -> np.ndarray:
        """int.bit_length of every element (of its magnitude, as Python's), numpy int64."""
        if not len(self):
            return np.zeros(0, np.int64)
        return radix.bit_lengths(self.ctx, self.data).astype(np.int64)

    def __iter__(self):
        return iter(self.tolist())

    def _basic_getitem(self, i):
        """self[i] for an int or a slice (mpz.operators binds __getitem__, which adds masks and
        integer arrays)."""
        if isinstance(i, numbers.Integral):
            n = len(self)
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

    # -- copies and pickling -------------------------------------------------------------
    # Operations never write into an existing array, so a shallow copy may share the buffer.
    def __copy__(self):
        return BigIntArray(self.ctx, self.data, self.bits, self.neg)

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


def ndarray_values(x: np.ndarray, what: str):
    """An integer numpy array as Python ints: a 0-d array as one int, a 1-d one as a list.
    TypeError for booleans, floats and the rest (numpy's own conversions would round)."""
    if x.ndim > 1:
        raise ValueError(f"{what}: a numpy array of shape {x.shape}; clbig batches are one-dimensional")
    if x.dtype.kind == "O":
        vals = x.tolist()
        flat = vals if x.ndim else [vals]
        for i, v in enumerate(flat):
            if isinstance(v, (bool, np.bool_)) or not isinstance(v, (numbers.Integral, _MPZ)):
                raise TypeError(f"{what}: element {i} of an object array is {type(v).__name__}, "
                                "not an integer")
    elif x.dtype.kind in "iu":
        vals = x.tolist()               # Python ints, exact for every integer dtype
    else:
        raise TypeError(f"{what}: a numpy array of dtype {x.dtype}; clbig takes integer arrays "
                        "(int8 ... uint64, or object arrays of ints)")
    return vals



def _unpickle(limbs: np.ndarray, bits: int, neg=None) -> BigIntArray:
    return from_limbs(limbs, bits=bits, sign=None if neg is None else -np.asarray(neg, np.int8))


def _upload(ctx: Context, limbs: np.ndarray, bits: int, neg=None) -> BigIntArray:
    data = ctx.to_device(np.ascontiguousarray(limbs, dtype=np.uint32))
    return BigIntArray(ctx, data, bits, neg)


def array(values, bits: int | None = None, ctx: Context | None = None) -> BigIntArray:
    """A BigIntArray of Python ints / gmpy2 mpz (negative ones too) on the current context;
    `bits` is the capacity of the magnitudes (see module doc)."""
    if isinstance(values, BigIntArray):
        values = values.tolist()
    values = value_list(values, "clbig.array")
    ctx = check_context(ctx) or current_context()
    if getattr(ctx, "is_multi", False):   # several devices: rows spread over them
        return hooks.several().array(values, bits, ctx)
    s = convert.scan(values, bits)
    check_fits(ctx, len(s), s.bits, "clbig.array")
    # as in tolist: radix for one large value, or a batch without the C extension
    if (radix.worth_it(s.bits) and (len(s) == 1 or not s.c) and len(s)
            and all(type(v) is int for v in s.vals)):
        return BigIntArray(ctx, radix.upload(ctx, s.magnitudes(), limbs_for(s.bits)), s.bits, s.neg)
    return _upload(ctx, convert.pack(s), s.bits, s.neg)


def value_list(values, what: str) -> list:
    """`values` (one int / mpz, or an iterable of them) as a list; TypeError naming `what` for
    strings, mappings, sets and non-iterables."""
    if isinstance(values, (numbers.Integral, type(gmpy2.mpz(0)))) and not isinstance(values, bool):
        return [values]
    if isinstance(values, (str, bytes, bytearray, dict, set, frozenset)):   # iterable, but not of values
        raise TypeError(f"{what} expects a sequence of integers, got {type(values).__name__}")
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


def pinned_empty(shape, dtype=np.uint32, ctx: Context | None = None) -> np.ndarray:
    """An uninitialized numpy array in page-locked host memory of ctx's device (the current
    context's by default), for limbs that cross the bus often or in bulk: from_limbs(array)
    and to_limbs(out=array) copy it at the bus's speed. It stays page-locked while it lives
    (don't make many: page-locked memory is the host's to spare)."""
    ctx = check_context(ctx) or current_context()
    return ctx.pinned_empty(shape, dtype)


def from_limbs(limbs, bits: int | None = None, ctx: Context | None = None, sign=None) -> BigIntArray:
    """A BigIntArray from an (n, m) numpy array of uint32 or uint64 limbs, little-endian:
    the magnitudes. `sign`: None (every value non-negative) or n integers (-1/0/1, as
    BigIntArray.sign gives), the value negative where its sign is below 0."""
    ctx = check_context(ctx)
    arr, bits = checked_limbs(limbs, bits)
    neg = checked_neg(sign, arr.shape[0])
    ctx = ctx or current_context()
    if getattr(ctx, "is_multi", False):
        return hooks.several().from_limbs(arr, bits, ctx, None if sign is None else np.asarray(sign))
    check_fits(ctx, arr.shape[0], bits, "clbig.from_limbs")
    return _upload(ctx, arr, bits, neg)
