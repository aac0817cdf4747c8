"""clbig's settings: the one table of the CLBIG_* environment variables, and their readers.

Every setting clbig reads is a `Setting` of `SETTINGS` and is read through this module by its
short name (the variable without its CLBIG_ prefix). The planners above the runtime read one
snapshot, `settings()` (a `Settings`, reached as `ctx.profile.settings`: typed attributes named
by the setting in lower case, and a `version` that cache keys hold); the runtime itself may
also read one value, `value("CARRY")`, or the raw text, `env("CL_OPTIONS")`. A name the table
lacks raises KeyError (AttributeError on a snapshot), so a typo fails at once instead of reading
a variable nobody sets. Values come from os.environ, so a setting changed later (tests'
monkeypatch.setenv, sweeps) takes effect at the next operation: a new snapshot, a new version.

A bad value raises ValueError naming the variable, its value and what it accepts (`_parse`: the
one place settings are checked). Only this module spells the variables' full names; other
modules that must name one to the user ask `var(name)`.

`python -m clbig info --settings` prints the table with the current values, and the docs' table
(docs/settings.rst) is generated from it.
"""
from __future__ import annotations

import os
import shlex
import threading
from dataclasses import dataclass

PREFIX = "CLBIG_"

# Kinds of setting, and what `value` returns for each:
#   str     the text as set            path    a file path (the text as set)
#   args    a list of words, split as a POSIX shell would (shlex)
#   int     one positive integer       ints    positive integers separated by commas (a tuple)
#   count   a non-negative integer     bool    True / False (1/0, yes/no, true/false, on/off)
#   choice  one of `choices` (lower-cased before the comparison)
KINDS = ("str", "path", "args", "int", "ints", "count", "bool", "choice")


@dataclass(frozen=True)
class Setting:
    """One CLBIG_* variable. `default` is the value (of `value`'s result type) that applies
    when it is unset, or None where the reading code derives one (from the device, the sizes or
    a module constant; `doc` says how). `bounds` (lo, hi) limits an int or count."""
    name: str
    kind: str
    default: object
    doc: str
    tests_only: bool = False
    choices: tuple = ()
    bounds: tuple | None = None

    @property
    def var(self) -> str:
        return PREFIX + self.name


def _s(name, kind, default, doc, tests_only=True, choices=(), bounds=None) -> Setting:
    return Setting(name, kind, default, doc, tests_only, tuple(choices), bounds)


# The user's settings first, then those for tests, tuning and benchmarks (tests_only), by module.
_TABLE = (
    # -- devices and the runtime (clbig.runtime)
    _s("DEVICE", "str", None, "device selector when none is given: an index from `python -m clbig "
       "info`, gpu, cpu, or part of a device's name (unset: the first GPU whose compiler "
       "works, else the CPU runtime that finishes a reference job soonest, measured once per "
       "machine: python -m clbig info shows it)", False),
    _s("CL_OPTIONS", "args", [], "extra OpenCL compiler options for every kernel build, split as "
       "a shell would (e.g. -cl-nv-verbose to see register use)", False),
    _s("KERNEL_CACHE", "str", None, "the folder where built kernels are kept for later processes, "
       "keyed by template, parameters, device and driver (unset: kernels/ in clbig's user cache "
       "folder; off: keep none)", False),
    _s("BUILD_LOG", "bool", False, "print each kernel's build log to stderr as it is built", False),
    _s("ICD_SETUP", "bool", True, "register pip-installed OpenCL runtimes (Intel's CPU runtime) "
       "with the ICD loader before the first platform query (0: leave the loader's environment "
       "alone)", False),
    _s("TUNING_FILE", "path", None, "the file `python -m clbig tune` writes its crossovers to and "
       "algorithm='auto' reads them from (unset: tuning.json in clbig's user cache folder)", False),
    _s("REPLAY", "bool", True, "replay recorded launch sequences of straight-line operations "
       "(0: plan and launch every call anew)", False),
    _s("CARRY", "choice", "auto", "carry chains of the classical products: auto (inline PTX on "
       "NVIDIA where the batch fills the device, else none), or ptx, c (the same bookkeeping in "
       "OpenCL C) or off for every launch", False, ("auto", "ptx", "c", "off")),
    _s("POWMOD_HOST_ROWS", "count", None, "powmod of at most this many rows (ints, lists, or "
       "arrays read back) runs on the host, GMP on every core, said in clbig.profile(): one launch "
       "costs the latency of one instance, which CPU cores beat on a few rows (default on GPUs "
       "2, 3, 6 rows per host core for moduli of up to 1024, 2048, more bits, on Intel's CPU "
       "runtime 8, 4, 2, on other CPU devices 64, 32, 32; 0: always the device)", False),
    _s("HOST_ROWS", "count", None, "lcm, gcdext, iroot, is_prime, next_prime and prev_prime of "
       "plain ints (ints, or lists of them) with at most this many rows run on the host, gmpy2 "
       "on the calling thread, said in clbig.profile(): a launch, and a first call's builds, cost "
       "more (default per operation and device kind, clbig.mpz.hostrows.LIMITS; 0: always the "
       "device); prod of at most this many times 1024 bits in all, lists and arrays, and sum of "
       "lists alike (per kind: LIMITS)", False),
    _s("HOST_FIRST_MS", "count", 250, "milliseconds of host time the HOST_ROWS families, prod, "
       "sum and powmod may spend on calls of up to 8 times their default limits before their "
       "first device call in a context builds their kernels, and the operators *, +, divmod and "
       "invert on small arrays whose values the host holds likewise (a first call's builds take "
       "seconds; 0: past the limits, always the device; off where HOST_ROWS is set, and for "
       "powmod where POWMOD_HOST_ROWS is)", False),
    _s("TIERS", "choice", "auto", "kernels that also come in a form taking the widths at run "
       "time (one build for every width: additions, the CPUs' classical products, and on CPUs "
       "the Montgomery products and powers, the schoolbook division and the inverse): auto runs "
       "that form at a width until its extra time there would have paid for the width's own, "
       "faster kernel, which is then built (one built before, in this process or the kernel "
       "cache, at once); off: each width's own kernel from its first call; first: the run-time "
       "form always (tests) (runtime.tiers)", False, ("auto", "off", "first")),
    _s("POWMOD_FIXED_ROWS", "count", 32, "powmod with one base and one odd modulus for at least "
       "this many rows takes a table of the base's powers shared by every row (kept for the next "
       "call with the same base, modulus and exponent length; 0: never)", False),
    _s("NO_POOL", "bool", False, "allocate every device buffer anew instead of from the "
       "context's memory pool (finding use-after-free bugs)"),
    _s("POISON", "bool", False, "fill every buffer clbig allocates with a non-zero pattern, so "
       "that a kernel relying on zeroed or stale memory fails deterministically"),
    _s("SLOW_INTS", "bool", False, "convert Python ints through bytes instead of CPython's digit "
       "arrays"),
    _s("PURE_PYTHON", "bool", False, "convert batches of ints to limbs and back in pure Python "
       "instead of the C extension clbig.mpn._limbs (read at import)"),
    _s("CONVERT_THREADS", "int", None, "threads that convert a large batch of ints to limbs and "
       "back (unset: the cores this process may run on; 1: one thread)", False, bounds=(1, 1024)),
    _s("CONVERT_RAW_INTS", "bool", True, "limbs to ints make each int without the interpreter "
       "lock, on every conversion thread, where Python's allocators are its own with no hooks "
       "(clbig.mpn.convert.raw_ints; off: each int made with the lock held, as _PyLong_New does), "
       "and limbs to gmpy2 mpz write their limbs on every thread (convert.mpz_direct; off: an "
       "int each, then mpz(int))", False),
    # -- host transfers and pipelining (runtime.staging, scale.stream)
    _s("STAGING", "choice", "auto", "large transfers between ordinary numpy memory and the device "
       "go through page-locked staging buffers: auto (on devices with memory of their own), on, "
       "off", False, ("auto", "on", "off")),
    _s("STAGING_CHUNK", "int", None, "bytes of each staging buffer (default 64 MiB)"),
    _s("STAGING_MIN", "count", None, "transfers below this many bytes go directly (default 1 MiB)"),
    _s("PIPELINE", "choice", "auto", "operations on large stream.host operands run in overlapping "
       "chunks: auto (on devices with memory of their own), on, off", False, ("auto", "on", "off")),
    _s("PIPELINE_MIN", "count", 64 << 20, "host operands of at least this many bytes of limbs "
       "are pipelined (64 MiB)"),
    _s("PIPELINE_ROWS", "count", 1 << 17, "... or of more rows than this (2^17)"),
    _s("PIPELINE_CHUNK", "int", 32 << 20, "operand bytes per pipelined chunk (32 MiB)"),
    # -- launch planning shared by the scans and products (runtime.plan)
    _s("NO_SQUARE", "bool", False, "multiply x * x as any two operands instead of by the square "
       "kernels"),
    _s("SCAN_Q", "ints", (4, 8, 16, 32), "limbs per work-item the scan kernels (add, sub, "
       "compare, shifts, bitwise, 6-Add) may take, smallest first"),
    _s("SCAN_ITEMS", "int", None, "work-items per group the scan kernels aim at (default 256, "
       "or the kernel's own)"),
    _s("ADD_SERIAL", "bool", None, "additions and subtractions one work-item per instance, "
       "limbs in order, and comparisons likewise: 1 everywhere, 0 never (default: on CPUs, "
       "and on GPUs for batches of at most 256 rows of at most 80 limbs)"),
    _s("ADD_ROWS", "int", 1, "rows of instances per work-group of addition and subtraction"),
    # -- classical products (mpn.mul_basecase, mpn.mul_fp64)
    _s("MUL_RADIX", "choice", "auto", "classical products' digits: auto, 30 (radix-2^30 digits), "
       "32 (32-bit limbs) or 51 (the FP64 kernels wherever they can run)",
       choices=("auto", "30", "32", "51")),
    _s("MUL_Q", "ints", None, "limbs per work-item the 32-bit-limb product kernels may take "
       "(default by product size, carry chains and squares)"),
    _s("MUL_ITEMS", "int", 64, "work-items per group the classical product kernels aim at"),
    _s("DIGIT_Q", "ints", None, "digits per work-item the radix-2^30 product kernel may take "
       "(default 8, 16 from 64 digits, else 4, 8, 16)"),
    _s("MUL52_STAGE", "bool", None, "the FP64 product kernel stages rows through local memory "
       "(default on GPUs)"),
    _s("MUL52_XLOC", "bool", None, "the FP64 product kernel keeps a's digits in local memory "
       "(default on CPUs, and on GPUs for low halves of more than 32 digits)"),
    _s("MUL52_COOP", "bool", None, "the cooperative FP64 product kernel: 1 wherever it can run, "
       "0 never (default: by size on GPUs with fast FP64)"),
    _s("MUL52_COOP_W", "int", 8, "digits per block of the cooperative FP64 product"),
    _s("MUL52_COOP_C", "int", None, "work-items per instance of the cooperative FP64 product "
       "(default by the number of blocks)"),
    _s("MUL52_COOP_IPB", "int", 32, "instances per group of the cooperative FP64 product (at "
       "most; halved to fit)"),
    _s("MUL52_LANES", "bool", None, "the CPUs' FP64 product kernel with instances in vector "
       "lanes: 1 wherever it can run, 0 never (default: by size on CPUs)"),
    _s("MUL52_LANES_W", "int", None, "instances per work-item of that kernel: 1, 2, 4, 8 or 16 "
       "(default 1 on Intel's CPU runtime, which vectorizes across items, else 8)"),
    _s("MUL52_LANES_C", "int", None, "result columns per pass of that kernel (default 4 for "
       "vectors, 8 for one instance per item)"),
    # -- NTT and Schönhage-Strassen products (mpn.mul_ntt, mpn.mul_ssa)
    _s("NTT_FIELD", "choice", None, "the NTT's prime field: gl (one 64-bit prime) or m31x3 "
       "(three 31-bit primes) (default by size, measured on an H100)", choices=("gl", "m31x3")),
    _s("NTT_POINTS", "int", None, "most points of a transform pass in local memory (default 4096 "
       "64-bit points, 8192 32-bit ones, within the device's local memory)"),
    _s("NTT_BAKED_PRIMES", "bool", None, "the 31-bit primes' NTT pass kernels with the prime written "
       "in (1: one build per prime) or read at run time from a table (0: one build for the three; "
       "default by batch size, mpn.mul_ntt.baked_primes)"),
    _s("NTT_SIDES_LOOP", "bool", None, "a one-pass NTT product runs both operands' forward stages as "
       "one loop of two rounds (1) or written out twice (0; default: the loop for the run-time "
       "prime on GPUs)"),
    _s("NTT_ITEMS", "int", 256, "work-items per group of the NTT passes (at most)"),
    _s("NTT_K0", "int", None, "levels of an NTT pass's lowest register chunk (default 5, 3 for "
       "the 64-bit field)"),
    _s("NTT_KMAX", "int", None, "levels of an NTT pass's register chunks above the lowest "
       "(default 4, 3 for the 64-bit field)"),
    _s("SSA_K", "int", None, "Schönhage-Strassen products use 2^k rows (default: the fastest k "
       "by the planner's estimate)", bounds=(1, 30)),
    _s("SSA_Q", "ints", (8, 16, 32), "words per work-item the Schönhage-Strassen butterflies may "
       "take"),
    _s("SSA_LEVELS", "int", 6, "most stages (rows 2^levels) of one Schönhage-Strassen pass "
       "through local memory"),
    # -- division (mpn.div_q, mpn.div_basecase)
    _s("DIV_TAIL", "choice", "auto", "the Newton division's last steps: auto (one scan kernel "
       "where a plan fits) or parts (the five operations it replaced)",
       choices=("auto", "parts")),
    _s("DIVBC_SINGLE", "int", 16, "most window limbs one work-item of the schoolbook division "
       "holds alone"),
    _s("DIVBC_Q", "int", None, "window limbs per work-item of the cooperative schoolbook division "
       "(default 17 for windows of up to 68 limbs, else 33: div_basecase.Q_SMALL, Q_MAX; at "
       "least 8)"),
    _s("DIVBC_ITEMS", "int", 64, "work-items per group the schoolbook division aims at"),
    _s("DIVBC_STAGE", "bool", None, "the one-item schoolbook division stages its rows in local "
       "memory (default on GPUs)"),
    # -- gcd and inverses (mpn.gcd_n)
    _s("GCD_COF", "choice", "2", "rounds per cofactor update of the inverse, 1 or 2 (2 halves "
       "the passes over the cofactors)", choices=("1", "2")),
    _s("GCD_STORE", "choice", None, "where the gcd kernels keep their digits: private or global "
       "(default private up to gcd_n.PRIVATE_WORDS words per work-item)",
       choices=("private", "global")),
    _s("GCD_WG", "int", 64, "work-items per group of the gcd kernels (at most; halved to "
       "fit)"),
    # -- Montgomery powers, int32 kernel (mpn.mont)
    _s("MONT_FP64", "bool", None, "modular powers and products by the FP64 kernel (1) or the "
       "int32 one (0) (default by device and batch size)"),
    _s("MONT_ONE", "int", 64, "most modulus limbs one work-item holds alone; larger moduli "
       "spread over several items"),
    _s("MONT_Q", "ints", None, "limbs per work-item the cooperative int32 kernel may take, "
       "first that fits first (default mont.Q_COOP, mont.Q_COOP_SMALL for small batches)"),
    _s("MONT_ITEMS", "int", 64, "work-items per group the int32 kernel aims at"),
    _s("MONT_FILL", "count", None, "instances per compute unit below which a batch spreads each "
       "instance over several items (default mont.FILL on GPUs, 0 on CPUs; 0: never)"),
    _s("MONT_SQR", "bool", None, "squares by the int32 kernel's square routine (default up to "
       "mont.SQR_MAX limbs)"),
    _s("MONT_MLOC", "bool", None, "the int32 kernel keeps m's limbs in local memory (default "
       "never)"),
    _s("MONT_BLOC", "bool", None, "the int32 kernel keeps the multiplicand in local memory "
       "(default for one item of at least mont.BLOC_MIN limbs)"),
    _s("MONT_MSHARED", "bool", None, "the int32 kernel stages a batch-wide modulus in local "
       "memory once per group (default for one item per instance)"),
    _s("MONT_ESHARED", "bool", True, "the int32 kernel stages exponents in local memory once per "
       "group, wherever it applies and fits"),
    _s("MONT_W", "count", None, "window width of modular powers, both kernels (default, or 0: by "
       "the exponent's size)"),
    # -- Montgomery powers, FP64 kernels (mpn.mont52)
    _s("MONT52_FILL", "count", 80, "instances per compute unit from which GPUs take the FP64 "
       "kernel"),
    _s("MONT52_NMAX", "int", 48, "most 51-bit digits of the one-item FP64 kernel (beyond them "
       "its registers spill)"),
    _s("MONT52_ITEMS", "int", None, "work-items per group the FP64 kernels aim at (default "
       "mont52.ITEMS, mont52.CPU_ITEMS for the cooperative one on CPUs)"),
    _s("MONT52_MLOC", "bool", None, "the one-item FP64 kernel keeps m's digits in local memory "
       "(default on GPUs beyond mont52.REG_MAX digits)"),
    _s("MONT52_MSHARED", "bool", None, "the one-item FP64 kernel stages a batch-wide modulus in "
       "local memory once per group (default where m's digits are in local memory)"),
    _s("MONT52_SQR_MAX", "count", None, "most digits of the one-item FP64 kernel's unrolled "
       "squares (default mont52.SQR_MAX on GPUs, 0 on CPUs; 0: never)"),
    _s("MONT52_COOP", "bool", None, "modular powers beyond MONT52_NMAX digits by the "
       "cooperative FP64 kernel (default up to mont52.COOP_MAX digits where the FP64 kernel is "
       "wanted)"),
    _s("MONT52_SMAX", "count", None, "most digits per work-item of the cooperative FP64 kernel "
       "(default, or 0: mont52.S_MAX, mont52.SQR_S_MAX for its squares)"),
    _s("MONT52_COOP_C", "int", None, "work-items per instance of the cooperative FP64 kernel "
       "(default the fewest that hold the digits)"),
    _s("MONT52_COOP_SQR", "bool", None, "the cooperative FP64 kernel's own squares (default "
       "beyond mont52.SQR_FROM digits per item, on GPUs)"),
    _s("MONT52_COOP_MREG", "count", 24, "most digits per item of m the cooperative FP64 kernel "
       "keeps in registers, beyond them in local memory"),
    _s("MONT52_COOP_REGS", "count", 168, "register cap per item of the cooperative FP64 kernel "
       "where the program is PTX (0: none)"),
)

SETTINGS: dict = {s.name: s for s in _TABLE}
_DEFAULTS = {s.name: s.default for s in _TABLE}   # one lookup on the hot path
assert all(s.kind in KINDS and (s.kind == "choice") == bool(s.choices) for s in _TABLE)

_UNSET = object()   # value(): no default given, take the table's


def _unknown(name) -> KeyError:
    return KeyError(f"{name!r} is not a clbig setting (clbig.runtime.config.SETTINGS lists them; "
                    f"names go without the {PREFIX} prefix)")


def var(name: str) -> str:
    """The environment variable of setting `name` ("TUNING_FILE" -> its CLBIG_ name), for
    messages that tell the user what to set."""
    s = SETTINGS.get(name)
    if s is None:
        raise _unknown(name)
    return s.var


# name -> the key of its variable in os.environ's own store (bytes on POSIX)
_ENV_KEYS: dict = {}
if hasattr(os.environ, "_data") and hasattr(os.environ, "encodekey"):
    _ENV_KEYS.update({s.name: os.environ.encodekey(s.var) for s in _TABLE})


def env(name: str, default=None):
    """The raw text of setting `name` (os.environ.get of its variable, else `default`) at a
    dict lookup's cost. The planners read a dozen settings per operation (memo keys included),
    nearly all unset, and os.environ.get pays a raised and caught KeyError for each unset one:
    ~1 µs a read, 5 µs per memo key of five (a 2-core 2.3 GHz Xeon, 2026-11-25), dozens of µs
    per product of two ints (issue 14). Reads the mapping's own store (CPython's
    os.environ._data, which setting os.environ and pytest's monkeypatch update), else
    os.environ.get. KeyError for a name the table lacks."""
    key = _ENV_KEYS.get(name)
    if key is None:   # not CPython's os.environ, or not a setting
        v = os.environ.get(var(name))
    else:
        v = os.environ._data.get(key)
        if v is not None:
            v = os.environ.decodevalue(v)
    return default if v is None else v


def value(name: str, default=_UNSET, environ=None):
    """Setting `name` parsed by its kind (see KINDS) and checked, ValueError naming the
    variable where it is bad; where it is unset or blank, `default` if given, else the table's
    default. `environ`: read from this mapping instead of os.environ (unwatched)."""
    raw = env(name) if environ is None else environ.get(var(name))
    if raw is None or not raw.strip():
        return _DEFAULTS[name] if default is _UNSET else default
    return _parse(SETTINGS[name], raw)


_TRUE = ("1", "yes", "true", "on")
_FALSE = ("0", "no", "false", "off")


def _parse(s: Setting, raw: str):
    """The value of `raw` for setting `s`: the one place settings are checked."""
    text = raw.strip()
    if s.kind in ("str", "path"):
        return raw
    if s.kind == "args":
        try:
            return shlex.split(raw)
        except ValueError as e:   # an unbalanced quote
            raise ValueError(f"{s.var}={raw!r}: {e}") from None
    if s.kind == "bool":
        low = text.lower()
        if low in _TRUE or low in _FALSE:
            return low in _TRUE
        raise ValueError(f"{s.var} must be 1 or 0 (yes/no, true/false, on/off), not {raw!r}")
    if s.kind == "choice":
        low = text.lower()
        if low in s.choices:
            return low
        alts = ", ".join(s.choices[:-1]) + " or " + s.choices[-1]
        raise ValueError(f"{s.var} must be {alts}, not {raw!r}")
    if s.kind == "ints":
        parts = text.split(",")
        if not all(p.strip().isdecimal() and int(p) >= 1 for p in parts):
            raise ValueError(f"{s.var}={raw!r}: expected positive integers separated by commas")
        return tuple(int(p) for p in parts)
    # int, count
    lo = 1 if s.kind == "int" else 0
    lo, hi = s.bounds or (lo, None)
    if not text.isdecimal() or int(text) < lo or (hi is not None and int(text) > hi):
        what = {0: "a non-negative integer", 1: "a positive integer"}.get(lo, f"an integer >= {lo}")
        if hi is not None:
            what = f"an integer from {lo} to {hi}"
        raise ValueError(f"{s.var}={raw!r}: expected {what}")
    return int(text)


class Settings:
    """Every setting at one moment, as typed attributes named by the setting in lower case
    (`s.mul52_lanes` for CLBIG_MUL52_LANES): the parsed value where set, else the table's
    default (None where the reading code derives one from the device or the sizes; `get`
    gives that derived default). One snapshot per distinct environment, so `version` is a
    small integer that cache keys may hold: equal versions, equal settings. Values are parsed
    at their first read, so a bad value raises (ValueError naming the variable) where it is
    read, as before, not in every operation."""
    __slots__ = ("version", "_raw", "_parsed")

    def __init__(self, raw: dict, version: int):
        self.version, self._raw, self._parsed = version, raw, {}

    def __getattr__(self, attr: str):
        parsed = self._parsed
        got = parsed.get(attr, _UNSET)
        if got is _UNSET:
            name = attr.upper()
            if name not in SETTINGS or attr != attr.lower():
                raise AttributeError(f"{attr!r} is not a clbig setting (clbig.runtime.config."
                                     f"SETTINGS lists them, by their names in lower case)")
            raw = self._raw.get(name)
            got = _DEFAULTS[name] if raw is None or not raw.strip() else _parse(SETTINGS[name], raw)
            parsed[attr] = got
        return got

    def get(self, attr: str, default):
        """The setting's value where set (or where the table has a default), else `default`:
        the derived default the reading code computes."""
        v = getattr(self, attr)
        return default if v is None else v

    def is_set(self, attr: str) -> bool:
        raw = self._raw.get(attr.upper())
        return raw is not None and bool(raw.strip())

    def __repr__(self):
        shown = ", ".join(f"{k.lower()}={v!r}" for k, v in sorted(self._raw.items()))
        return f"Settings(version={self.version}{', ' if shown else ''}{shown})"


_snapshots: dict = {}            # the settings set (frozenset of key, raw value) -> its Settings
_last: tuple = (None, None)      # (settings set, Settings) of the latest call
_snap_lock = threading.Lock()


_KEY_SET = frozenset(_ENV_KEYS.values()) if _ENV_KEYS else None
_NAME_OF = {k: n for n, k in _ENV_KEYS.items()}


def _raw_values() -> frozenset:
    """The settings that are set, as (key, raw value) pairs: os.environ's own keys and values
    (bytes on POSIX). One intersection of the environment's keys with the table's (C speed,
    about a µs for a few dozen variables), then a lookup per setting that is set."""
    if _KEY_SET is not None:
        data = os.environ._data
        hit = _KEY_SET.intersection(data)
        return frozenset([(k, data[k]) for k in hit]) if hit else frozenset()
    return frozenset((s.var, os.environ[s.var]) for s in _TABLE if s.var in os.environ)


def _decoded(pairs: frozenset) -> dict:
    out = {}
    for k, v in pairs:
        if isinstance(k, bytes):
            out[_NAME_OF[k]] = os.environ.decodevalue(v)
        else:
            out[k[len(PREFIX):]] = v
    return out


def settings() -> Settings:
    """The settings now: one `Settings` per distinct set of values, made when the environment
    changes (tests' monkeypatch.setenv, sweeps) and found again when it changes back, so a
    cache keyed by its version never mixes plans of different settings. About 1.5 µs (a
    2-core EPYC, 2026-11-28): the planners read it once per function (issue 42)."""
    global _last
    raw = _raw_values()
    last = _last
    if raw == last[0]:
        return last[1]
    with _snap_lock:
        snap = _snapshots.get(raw)
        if snap is None:
            snap = _snapshots[raw] = Settings(_decoded(raw), len(_snapshots) + 1)
    _last = (raw, snap)
    return snap


def env_values(names) -> tuple:
    """The raw values of these settings: the part of a memo key that makes a plan follow a
    setting changed after the first launch (tests and sweeps change them)."""
    return tuple([env(n) for n in names])


def check_all(environ=None) -> None:
    """Parse every setting that is set (ValueError naming the first bad one)."""
    for s in _TABLE:
        value(s.name, None, environ)


def _shown(v) -> str:
    if v is None:
        return "-"
    if isinstance(v, bool):
        return "1" if v else "0"
    if isinstance(v, list):   # args
        return " ".join(v) if v else "(none)"
    if isinstance(v, tuple):   # ints
        return ",".join(str(x) for x in v)
    return str(v)


def rows(environ=None) -> list:
    """(variable, kind, shown value, set, doc, tests_only) per setting, in the table's order:
    the value as set where it is (raw), else the default ("-": derived, see the doc)."""
    environ = os.environ if environ is None else environ
    out = []
    for s in _TABLE:
        raw = environ.get(s.var)
        is_set = raw is not None and bool(raw.strip())
        kind = f"{s.kind}: " + "|".join(s.choices) if s.choices else s.kind
        out.append((s.var, kind, raw if is_set else _shown(s.default), is_set, s.doc, s.tests_only))
    return out
