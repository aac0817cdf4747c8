"""clbig on a Dask cluster: batches of big integers as `dask.array` arrays of limbs.

A batch is a `BigIntDaskArray`: an (n, m) uint32 dask array of little-endian limbs (limb 0 least
significant), chunked by rows only, together with its capacity `bits` (m = ceil(bits / 32)).
The capacity travels with the array, rather than being read off the limb count, so that every
result has exactly the capacity clbig gives in one process (a + b of 96-bit operands holds 97
bits, not 128) and `from_limbs(x.limbs, x.bits)` round-trips.

Every operation is elementwise and lazy: one task per row chunk, which uploads that chunk's
operands to its worker's device, runs the one clbig operation and downloads the result (one
upload, one op, one download). The tasks are a `dask.array.blockwise` layer, the layer
`map_blocks` builds, called directly because map_blocks cannot align operands whose limb counts
differ. A length-1 operand (one modulus or divisor for the whole batch, a Python int) is one
chunk handed to every task, not chunked. No custom scheduler: any Dask scheduler runs the graph,
and a lost chunk is simply recomputed.

Operations: add, sub, mul, mul_low, divmod (quotient and remainder from one task per chunk),
floordiv, mod, and powmod, mulmod (clbig.mpz.modular), gcd, invert (clbig.mpz.gcd), those imported
inside the task only, so this module loads without them. Each task also gets its chunk's first
row (a one-element chunk of row offsets) so that errors name rows of the whole batch.

Each worker process opens its device once, on its first task, and keeps it (with its compiled
kernels and memory pool) for the life of the process: `worker_context()`. The device comes from
the worker's environment (the DEVICE setting, listed by `python -m clbig info --settings`; else
clbig's default), so `dask-worker` processes started one per GPU (DEVICE set to `0`, `1`, ...;
or CUDA_VISIBLE_DEVICES as dask-cuda sets it, which NVIDIA's OpenCL honours) each drive their
own device.

Values are non-negative, as the limbs hold no sign: negative ints are refused when a batch is
made, and a difference that would be negative raises ValueError naming its row.

Errors: what can be checked without the data (types, lengths, negative or oversized Python
ints, bits, algorithm names, a zero constant divisor) raises at once, as in one process; what
depends on a lazy chunk (b > a in `sub`, a zero divisor row, limbs above `bits`) raises the
same exception type when the chunk runs, naming the row's index in the whole batch (the first
bad row of the first failing chunk, which need not be the first bad row of the batch).
"""
from __future__ import annotations

import importlib
import numbers
import os
import threading

import dask
import dask.array as da
import numpy as np

from ..mpz.array import BigIntArray, LIMB_BITS, limbs_for
from ..mpz.coerce import is_scalar
from ..mpz.types import MPZ
from .split import shifted

# the module (clbig.array, the attribute, is the function that makes arrays)
from ..mpz import array as _array  # noqa: E402

__all__ = [
    "BigIntDaskArray", "from_ints", "from_limbs", "to_ints", "worker_context", "worker_devices",
    "add", "sub", "mul", "mul_low", "divmod", "floordiv", "mod", "powmod", "mulmod", "gcd", "invert",
]

_U32 = np.dtype(np.uint32)
_META = np.empty((0, 0), dtype=np.uint32)


# -- the per-process device ------------------------------------------------------------------
_contexts: dict = {}
_contexts_lock = threading.Lock()


def worker_context():
    """This process's clbig.Context, opened on first use from the DEVICE setting and then kept.

    Keyed by process id: a forked child must not reuse its parent's OpenCL context. The
    threads of one worker share the context (clbig launches under the context's lock)."""
    pid = os.getpid()
    with _contexts_lock:
        ctx = _contexts.get(pid)
        if ctx is None:
            from ..runtime.devices import Context
            ctx = _contexts[pid] = Context()
        return ctx


def _device_name():
    return worker_context().name


def worker_devices(client) -> dict:
    """Open the device on every worker of a distributed `client` now (not on the first task)
    and return {worker address: device name}."""
    return client.run(_device_name)


# -- the array ------------------------------------------------------------------------------
class BigIntDaskArray:
    """n big unsigned integers of capacity `bits` as an (n, m) uint32 dask array `limbs`."""

    __array_priority__ = 1000
    __hash__ = None

    def __init__(self, limbs, bits: int):
        if not isinstance(limbs, da.Array) or limbs.ndim != 2 or limbs.dtype != _U32:
            raise TypeError("BigIntDaskArray wants an (n, m) uint32 dask array of limbs")
        bits = _check_bits(bits)
        if limbs.shape[1] != limbs_for(bits):
            raise ValueError(f"{limbs.shape[1]} limbs per row do not match bits={bits} "
                             f"({limbs_for(bits)} limbs); use clbig.dask.from_limbs")
        if len(limbs.chunks[1]) != 1:
            limbs = limbs.rechunk({1: -1})   # a task needs whole rows
        self.limbs = limbs
        self.bits = bits

    def __len__(self):
        return self.limbs.shape[0]

    @property
    def m(self) -> int:
        """32-bit limbs per element."""
        return self.limbs.shape[1]

    @property
    def chunks(self) -> tuple:
        """Rows per chunk."""
        return self.limbs.chunks[0]

    @property
    def npartitions(self) -> int:
        return len(self.chunks)

    def persist(self, **kwargs) -> "BigIntDaskArray":
        """The same batch computed and held in the cluster's memory (dask.persist)."""
        (limbs,) = dask.persist(self.limbs, **kwargs)
        return BigIntDaskArray(limbs, self.bits)

    def rechunk(self, chunks) -> "BigIntDaskArray":
        return BigIntDaskArray(self.limbs.rechunk((chunks, -1)), self.bits)

    def to_ints(self) -> list:
        return to_ints(self)

    def __repr__(self):
        return f"BigIntDaskArray(n={len(self)}, bits={self.bits}, chunks={self.chunks})"

    def __add__(self, o):
        return add(self, o)

    def __radd__(self, o):
        return add(o, self)

    def __sub__(self, o):
        return sub(self, o)

    def __rsub__(self, o):
        return sub(o, self)

    def __mul__(self, o):
        return mul(self, o)

    def __rmul__(self, o):
        return mul(o, self)

    def __floordiv__(self, o):
        return floordiv(self, o)

    def __rfloordiv__(self, o):
        return floordiv(o, self)

    def __mod__(self, o):
        return mod(self, o)

    def __rmod__(self, o):
        return mod(o, self)

    def __divmod__(self, o):
        return divmod(self, o)

    def __rdivmod__(self, o):
        return divmod(o, self)


def _check_bits(bits) -> int:
    if not isinstance(bits, numbers.Integral) or isinstance(bits, bool) or bits < 1:
        raise ValueError(f"bits must be a positive integer, got {bits!r}")
    return int(bits)


def _row_chunks(chunks, n: int, m: int):
    """from_array's chunks for (n, m) limbs: rows as given (an int, a tuple or "auto"),
    every row whole."""
    if chunks is None:
        chunks = "auto"
    if isinstance(chunks, numbers.Integral) and not isinstance(chunks, bool):
        if chunks < 1 and chunks != -1:
            raise ValueError(f"chunks must be a positive number of rows (or -1: one chunk), got {chunks}")
        chunks = int(chunks)
    return (chunks, m) if n else ((0,), (m,))


def from_ints(values, bits: int | None = None, chunks="auto") -> BigIntDaskArray:
    """A batch from Python ints / gmpy2 mpz, validated here (the errors of clbig.array) and
    cut into row chunks: `chunks` rows each (an int), a tuple of row counts, or "auto" (Dask's
    chunk size). The limbs are packed on this (client) machine; no device is needed here."""
    if isinstance(values, BigIntArray):
        return from_limbs(values.to_limbs(), bits=values.bits, chunks=chunks)
    vals, bits = _array.checked(_array.value_list(values, "clbig.dask.from_ints"), bits)
    limbs = _array._pack(vals, bits)
    return BigIntDaskArray(da.from_array(limbs, chunks=_row_chunks(chunks, *limbs.shape)), bits)


def _fit_error(block: np.ndarray, bits: int, start: int):
    """The OverflowError for the first row of `block` (global row start + i) above `bits`."""
    m = limbs_for(bits)
    bad = block[:, m:].any(axis=1) if block.shape[1] > m else np.zeros(len(block), bool)
    if bits % LIMB_BITS:
        bad |= (block[:, m - 1] >> np.uint32(bits % LIMB_BITS)) != 0
    if bad.any():
        return OverflowError(f"element {start + int(np.argmax(bad))}: value does not fit bits={bits}")
    return None


def _as_u32(block):
    return np.ascontiguousarray(block, dtype="<u8").view("<u4").astype(np.uint32, copy=False)


def _checked_block(block, bits, block_info=None):
    start = block_info[0]["array-location"][0][0] if block_info else 0
    err = _fit_error(block, bits, start)
    if err:
        raise err
    return block[:, :limbs_for(bits)]


def from_limbs(limbs, bits: int | None = None, chunks=None) -> BigIntDaskArray:
    """A batch from an (n, m) array of uint32 (or uint64) limbs, little-endian: a dask array
    (kept lazy; its row chunks are kept unless `chunks` is given) or a numpy array (cut into
    `chunks`). `bits` defaults to all the limbs hold. Limbs above `bits` must be zero: checked
    now for numpy, when each chunk runs for dask (OverflowError naming the row)."""
    lazy = isinstance(limbs, da.Array)
    arr = limbs if lazy else np.asarray(limbs)
    if arr.ndim == 1:
        arr = arr[None, :]
    if arr.ndim != 2 or arr.shape[1] == 0:
        raise ValueError(f"from_limbs expects an (n, m) array with m >= 1, got shape {arr.shape}")
    if arr.dtype == np.uint64:
        if lazy:
            arr = arr.rechunk({1: -1}).map_blocks(
                _as_u32, dtype=_U32, chunks=(arr.chunks[0], (2 * arr.shape[1],)), meta=_META)
        else:
            arr = _as_u32(arr)
    elif arr.dtype != _U32:
        raise TypeError(f"from_limbs expects uint32 or uint64 limbs, got {arr.dtype}")
    full = arr.shape[1] * LIMB_BITS
    bits = full if bits is None else _check_bits(bits)
    if bits > full:
        raise ValueError(f"bits={bits} must be between 1 and the {full} bits the limbs hold")
    m = limbs_for(bits)
    if not lazy:
        err = _fit_error(arr, bits, 0)
        if err:
            raise err
        arr = np.ascontiguousarray(arr[:, :m])
        return BigIntDaskArray(da.from_array(arr, chunks=_row_chunks(chunks, *arr.shape)), bits)
    if chunks is not None:
        arr = arr.rechunk((chunks, -1))
    arr = arr.rechunk({1: -1})
    if m < arr.shape[1] or bits % LIMB_BITS:   # some bit patterns are out of range: check them
        arr = arr.map_blocks(_checked_block, bits, dtype=_U32, chunks=(arr.chunks[0], (m,)),
                             meta=_META)
    return BigIntDaskArray(arr, bits)


def to_ints(x) -> list:
    """The batch's values as a list of Python ints (computes it)."""
    if isinstance(x, da.Array):
        x = from_limbs(x)
    if not isinstance(x, BigIntDaskArray):
        raise TypeError(f"to_ints expects a BigIntDaskArray, got {type(x).__name__}")
    return _array.limbs_to_ints(x.limbs.compute())


# -- operands -------------------------------------------------------------------------------
def _operand(x, name: str) -> BigIntDaskArray:
    if isinstance(x, BigIntDaskArray):
        return x
    if isinstance(x, da.Array):
        return from_limbs(x)
    if isinstance(x, BigIntArray):
        return from_limbs(x.to_limbs(), bits=x.bits, chunks=-1)
    if is_scalar(x) or isinstance(x, (list, tuple)):
        return from_ints(x, chunks=-1)
    raise TypeError(f"operand {name}: expected a BigIntDaskArray, a dask array of limbs, an int "
                    f"or a list of ints, got {type(x).__name__}")


def _align(xs, names):
    """Coerce operands and broadcast their lengths: every operand of the batch's length n gets
    the first one's row chunks; a length-1 operand becomes one chunk, handed to every task."""
    xs = [_operand(x, nm) for x, nm in zip(xs, names)]
    lens = [len(x) for x in xs]
    n = next((k for k in lens if k != 1), 1)
    if any(k not in (1, n) for k in lens):
        raise ValueError(f"length mismatch: {' and '.join(map(str, lens))} (broadcasting needs "
                         "equal lengths or length 1)")
    rows = next(x.chunks for x in xs if len(x) == n)
    out = []
    for x in xs:
        if len(x) == n and x.chunks != rows:
            x = x.rechunk(rows)
        elif len(x) != n and x.npartitions != 1:
            x = x.rechunk(-1)
        out.append(x)
    return out, n, rows


# Operands that must not be zero: (position, exception, message) per operation, checked on the
# host before the device sees them, so a broadcast operand keeps its own index 0 (the index
# clbig names in one process) instead of a row of the batch.
_NONZERO = {
    "divmod": (1, ZeroDivisionError, "division by zero: the divisor is 0 at index {}"),
    "floordiv": (1, ZeroDivisionError, "division by zero: the divisor is 0 at index {}"),
    "mod": (1, ZeroDivisionError, "division by zero: the divisor is 0 at index {}"),
    "powmod": (2, ValueError, "modulus is 0 at index {}"),
    "mulmod": (2, ValueError, "modulus is 0 at index {}"),
    "invert": (1, ValueError, "invert: the modulus is 0 at index {}"),
}


def _check_nonzero(op, values):
    """An operand that must not be zero, given as ints: raise now, before anything runs, as in
    one process."""
    if not isinstance(values, (list, tuple, numbers.Integral, MPZ)):
        return
    vals = values if isinstance(values, (list, tuple)) else [values]
    for i, v in enumerate(vals):
        if v == 0:
            _, exc, msg = _NONZERO[op]
            raise exc(msg.format(i))


# -- the task -------------------------------------------------------------------------------
def _module_op(module: str, name: str):
    def call(*args, **kwargs):
        # import_module, not an attribute of clbig: a function clbig.gcd may shadow the module
        return getattr(importlib.import_module(module), name)(*args, **kwargs)
    return call


def _ops():
    from ..mpz import ops
    return {
        "add": ops.add, "sub": ops.sub, "mul": ops.mul, "mul_low": ops.mul_low,
        "divmod": ops.divmod, "floordiv": ops.floordiv, "mod": ops.mod,
        "powmod": _module_op("clbig.mpz.modular", "powmod"), "mulmod": _module_op("clbig.mpz.modular", "mulmod"),
        "gcd": _module_op("clbig.mpz.gcd", "gcd"), "invert": _module_op("clbig.mpz.gcd", "invert"),
    }


def _limbs(res: BigIntArray, op: str, start: int) -> np.ndarray:
    """The result's limbs, or ValueError for its first negative row: this module's limbs hold
    non-negative values only, while clbig's results may be signed (a "-0", which clbig may mark
    negative, is zero and passes)."""
    neg = getattr(res, "neg", None)
    if neg is None or not np.any(neg):
        return res.to_limbs()
    try:
        limbs = res.to_limbs(magnitude=True)
    except TypeError:   # a clbig whose to_limbs has no sign to leave out
        limbs = res.to_limbs()
    bad = np.asarray(neg, bool) & limbs.any(axis=1)
    if not bad.any():
        return limbs
    i = start + int(np.argmax(bad))
    if op == "sub":
        raise ValueError(f"subtraction would be negative: b > a at index {i}")
    raise ValueError(f"{op} is negative at index {i} (clbig.dask holds non-negative integers)")


def _fit(res: BigIntArray, m: int, op: str, start: int) -> np.ndarray:
    """The result's limbs as exactly m columns (the capacity this module promised): clbig's
    own result has those already; a wider one is zero above m (its value fits by math)."""
    limbs = _limbs(res, op, start)
    if limbs.shape[1] == m:
        return limbs
    if limbs.shape[1] > m:
        if limbs[:, m:].any():
            raise RuntimeError(f"clbig.dask: a result does not fit the {m} limbs promised for it")
        return np.ascontiguousarray(limbs[:, :m])
    out = np.zeros((limbs.shape[0], m), np.uint32)
    out[:, :limbs.shape[1]] = limbs
    return out


def _task(starts, *blocks, op, bits, per_row, out_m, kwargs):
    """One chunk: upload its operands, run `op`, download the result (limbs of out_m columns;
    divmod: quotient and remainder side by side)."""
    start = int(starts[0])
    blocks = [b[0] for b in blocks]   # one block per operand: its limbs are one column chunk
    rows = max(len(b) for b, p in zip(blocks, per_row) if p) if any(per_row) else 1
    if rows == 0:
        return np.zeros((0, sum(out_m)), np.uint32)
    if op in _NONZERO:
        k, exc, msg = _NONZERO[op]
        zero = ~blocks[k].any(axis=1)
        if zero.any():
            raise exc(msg.format(int(np.argmax(zero)) + (start if per_row[k] else 0)))
    ctx = worker_context()
    with ctx:
        try:
            xs = [_array.from_limbs(b, bits=w, ctx=ctx) for b, w in zip(blocks, bits)]
            res = _ops()[op](*xs, **kwargs)
        except Exception as e:
            err = shifted(e, start)
            if err is e:
                raise
            raise err from e
        if len(out_m) == 1:
            return _fit(res, out_m[0], op, start)
        out = np.empty((rows, sum(out_m)), np.uint32)
        col = 0
        for r, m in zip(res, out_m):
            out[:, col:col + m] = _fit(r, m, op, start)
            col += m
        return out


def _elementwise(op, xs, names, out_bits, **kwargs):
    """One lazy task per row chunk computing op(*xs, **kwargs) on the worker's device. Returns
    one BigIntDaskArray per entry of out_bits."""
    xs, n, rows = _align(xs, names)
    out_m = tuple(limbs_for(b) for b in out_bits)
    starts = da.from_array(np.cumsum((0,) + rows[:-1], dtype=np.int64), chunks=1)
    args = [starts, "i"]
    for k, x in enumerate(xs):
        args += [x.limbs, "i" + "abcdefgh"[k]]   # own column index: limb counts differ
    limbs = da.blockwise(
        _task, "iz", *args, new_axes={"z": sum(out_m)}, adjust_chunks={"i": rows},
        align_arrays=False, concatenate=False, dtype=_U32, meta=_META,
        token=f"clbig-{op}", op=op, bits=tuple(x.bits for x in xs),
        per_row=tuple(len(x) == n for x in xs), out_m=out_m, kwargs=kwargs)
    if len(out_m) == 1:
        return BigIntDaskArray(limbs, out_bits[0])
    outs, col = [], 0
    for b, m in zip(out_bits, out_m):
        outs.append(BigIntDaskArray(limbs[:, col:col + m], b))
        col += m
    return tuple(outs)


# -- the operations (capacities as clbig's) ---------------------------------------------------
def add(a, b) -> BigIntDaskArray:
    """Exact a + b; capacity max(a.bits, b.bits) + 1."""
    a, b = _operand(a, "a"), _operand(b, "b")
    return _elementwise("add", [a, b], "ab", [max(a.bits, b.bits) + 1])


def sub(a, b) -> BigIntDaskArray:
    """Exact a - b; capacity max(a.bits, b.bits). ValueError naming the row where b > a."""
    a, b = _operand(a, "a"), _operand(b, "b")
    return _elementwise("sub", [a, b], "ab", [max(a.bits, b.bits)])


def _check_mul_algorithm(algorithm):
    from ..mpn import mul_n
    mul_n.check_algorithm(algorithm)


def mul(a, b, algorithm: str = "auto") -> BigIntDaskArray:
    """Exact a * b; capacity a.bits + b.bits. `algorithm` as clbig.mul."""
    _check_mul_algorithm(algorithm)
    a, b = _operand(a, "a"), _operand(b, "b")
    return _elementwise("mul", [a, b], "ab", [a.bits + b.bits], algorithm=algorithm)


def mul_low(a, b, bits: int | None = None, algorithm: str = "auto") -> BigIntDaskArray:
    """(a * b) mod 2**bits, bits defaulting to max(a.bits, b.bits)."""
    _check_mul_algorithm(algorithm)
    a, b = _operand(a, "a"), _operand(b, "b")
    bits = max(a.bits, b.bits) if bits is None else _check_bits(bits)
    return _elementwise("mul_low", [a, b], "ab", [bits], bits=bits, algorithm=algorithm)


def _division(op, a, b, algorithm):
    from ..mpn import div_q
    if algorithm not in div_q.ALGORITHMS:
        raise ValueError(f"unknown division algorithm {algorithm!r}; choose from {', '.join(div_q.ALGORITHMS)}")
    _check_nonzero(op, b)
    a, b = _operand(a, "a"), _operand(b, "b")
    return a, b


def divmod(a, b, algorithm: str = "auto"):
    """(a // b, a % b), exact: capacities (a.bits, b.bits). One task per chunk gives both.
    A zero divisor given as ints raises ZeroDivisionError now; a zero row of a lazy divisor
    raises it when its chunk runs."""
    a, b = _division("divmod", a, b, algorithm)
    return _elementwise("divmod", [a, b], "ab", [a.bits, b.bits], algorithm=algorithm)


def floordiv(a, b, algorithm: str = "auto") -> BigIntDaskArray:
    """a // b, capacity a.bits (see divmod)."""
    a, b = _division("floordiv", a, b, algorithm)
    return _elementwise("floordiv", [a, b], "ab", [a.bits], algorithm=algorithm)


def mod(a, b, algorithm: str = "auto") -> BigIntDaskArray:
    """a % b, capacity b.bits (see divmod)."""
    a, b = _division("mod", a, b, algorithm)
    return _elementwise("mod", [a, b], "ab", [b.bits], algorithm=algorithm)


def powmod(a, e, m) -> BigIntDaskArray:
    """a ** e mod m per row by clbig.mpz.modular.powmod; capacity m.bits (as clbig's). A zero
    modulus raises ValueError naming its index (now, when m is given as ints)."""
    _check_nonzero("powmod", m)
    a, e, m = _operand(a, "a"), _operand(e, "e"), _operand(m, "m")
    return _elementwise("powmod", [a, e, m], "aem", [m.bits])


def mulmod(a, b, m) -> BigIntDaskArray:
    """(a * b) mod m per row by clbig.mpz.modular.mulmod; capacity m.bits (as clbig's)."""
    _check_nonzero("mulmod", m)
    a, b, m = _operand(a, "a"), _operand(b, "b"), _operand(m, "m")
    return _elementwise("mulmod", [a, b, m], "abm", [m.bits])


def invert(a, m) -> BigIntDaskArray:
    """a^-1 mod m per row by clbig.mpz.gcd.invert (strict: ValueError naming a row without an
    inverse); capacity m.bits (as clbig's)."""
    _check_nonzero("invert", m)
    a, m = _operand(a, "a"), _operand(m, "m")
    return _elementwise("invert", [a, m], "am", [m.bits])


def gcd(a, b) -> BigIntDaskArray:
    """gcd(a, b) per row by clbig.mpz.gcd.gcd. Capacity max(a.bits, b.bits): clbig's own result
    has min(a.bits, b.bits) unless a zero sits beside a wider value (gcd(a, 0) = a), which a
    lazy graph cannot know before it runs, so it promises the bound that always holds."""
    a, b = _operand(a, "a"), _operand(b, "b")
    return _elementwise("gcd", [a, b], "ab", [max(a.bits, b.bits)])
