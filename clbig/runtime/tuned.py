"""Tuned values: the crossovers between product algorithms and each device's speeds per
family of operations, as `python -m clbig tune` (clbig.tuning) stored them in the user's cache
folder, else the defaults below. Read by mpn.mul_n (algorithm="auto") and by Devices (how a
batch is split over several devices).
"""
from __future__ import annotations

import json
import numbers
import warnings
from pathlib import Path

from . import config
from .caches import clbig_folder

ALGORITHMS = ("classical", "ntt", "ssa")
# Full products and clipped ones (mod 2^bits with bits at most about the longer operand: the
# benchmarks' low half, division's steps) cross over apart: the classical product does half the
# work for a low half, the NTT nearly all of it. H100, 2026-11-23, after the classical kernels'
# carry chains (`python -m clbig tune`, bench/results/tune-h100-2026-11-23.log): 2^30-bit
# batches of full products, classical against NTT 2.30/3.95 ms at 2^13 bits, 4.18/4.10 at 2^14;
# low halves 2.04/3.48 at 2^14, 3.86/3.49 at 2^15; one product (classical without carry chains
# there, bench/results/few-carry-h100-2026-11-23.log) 0.245/0.36-0.51 ms at 2^16, 0.65/0.35-0.47
# at 2^17. SSA lost to the NTT at every size measured, so auto takes it only where the NTT
# cannot run. Single products moved to the NTT at 2^16 once its launches replay (clbig.runtime.replay):
# H200, 2026-11-25, one product of limbs on the device, min wall of 15 (device span), µs:
# full 2^15 classical 112 (77) against NTT 186 (144), 2^16 285 (247) against 143 (92); low
# halves 2^15 112 against 140, 2^16 167 (132) against 144 (96). PoCL (2-core Xeon, a test
# run sharing its cores): full 2^16 1672 against 1034, low 1017 against 971. Newton's inverse
# of a 2^19-bit divisor ran two of its steps as 232 µs classical products.
DEFAULT_CROSSOVERS = {"ntt_from_bits": 1 << 14, "ntt_from_bits_few": 1 << 16,
                      "ntt_from_bits_low": 1 << 15, "ntt_from_bits_low_few": 1 << 16,
                      "ssa_from_bits": 1 << 62, "ssa_from_bits_few": 1 << 62}
# On GPUs where mul_fp64's cooperative kernel runs full products, "ntt_from_bits" defaults to
# mul_fp64.NTT_FROM_BITS instead (crossovers()).
# The tuned "winners*" tables ({log2 bits: algorithm}, per kind as the crossovers) give the
# measured winner at each size the tuning ran; the crossovers decide elsewhere.


def tuning_file() -> Path:
    """Where `python -m clbig tune` keeps its crossovers (the TUNING_FILE setting overrides)."""
    chosen = config.value("TUNING_FILE")
    if chosen:
        return Path(chosen)
    return Path(clbig_folder()) / "tuning.json"


def device_key(ctx) -> str:
    d = ctx.device
    return f"{d.platform.name.strip()}: {d.name.strip()} ({d.driver_version.strip()})"


_WINNERS = ("winners", "winners_few", "winners_low", "winners_low_few")


def _entry_problems(entry) -> list[str]:
    """What is wrong with one device's entry of the tuning table (empty: nothing)."""
    if not isinstance(entry, dict):
        return [f"an entry is a {type(entry).__name__}, not an object"]
    bad = []
    for k, v in entry.items():
        if k in DEFAULT_CROSSOVERS:
            if isinstance(v, bool) or not isinstance(v, numbers.Integral) or v < 1:
                bad.append(f"{k} = {v!r} is not a positive integer")
        elif k == "speeds":
            if not isinstance(v, dict) or not all(
                    f in FAMILIES and isinstance(x, numbers.Real) and not isinstance(x, bool) and x > 0
                    for f, x in v.items()):
                bad.append(f"speeds is not an object of {{{', '.join(FAMILIES)}: operations per second > 0}}")
        elif k in _WINNERS:
            if not isinstance(v, dict) or not all(
                    isinstance(s, str) and s.isdigit() and a in ALGORITHMS for s, a in v.items()):
                bad.append(f"{k} is not an object of {{log2 bits: one of {', '.join(ALGORITHMS)}}}")
    return bad


def read_table(path: Path) -> dict:
    """The tuning table {device key: crossovers} in `path`; {} where there is none. A file that
    is not JSON or not of that shape is ignored with a warning naming it (auto then uses the
    defaults), never an error in the middle of a multiplication."""
    try:
        text = Path(path).read_text()
    except FileNotFoundError:
        return {}
    except OSError as e:
        warnings.warn(f"clbig: cannot read the tuning file {path} ({e.strerror or e}); using the default "
                      f"crossovers ({config.var('TUNING_FILE')} chooses another file)", RuntimeWarning,
                      stacklevel=3)
        return {}
    try:
        table = json.loads(text)
    except ValueError as e:
        table, why = None, f"not JSON: {e}"
    else:
        why = None if isinstance(table, dict) else f"a JSON {type(table).__name__}, not an object of devices"
    if why is None:
        probs = {key: _entry_problems(entry) for key, entry in table.items()}
        probs = {key: p for key, p in probs.items() if p}
        if probs:
            key, p = next(iter(probs.items()))
            why = f"device {key!r}: {'; '.join(p)}"
            table = {key: entry for key, entry in table.items() if key not in probs}
    if why:
        warnings.warn(f"clbig: the tuning file {path} is {why}; ignoring "
                      f"{'it' if not isinstance(table, dict) else 'that entry'} (run `python -m clbig "
                      "tune` again or delete the file)", RuntimeWarning, stacklevel=3)
    return table if isinstance(table, dict) else {}


def tuned(ctx) -> dict:
    """This device's tuned crossovers from the tuning file ({} where none are stored)."""
    return read_table(tuning_file()).get(device_key(ctx), {})


#: Families of operations whose speeds weigh how a Devices context splits a batch (clbig.multi).
FAMILIES = ("add", "mul", "div", "mod", "gcd")


def speed(ctx, family: str) -> float | None:
    """This device's measured operations per second for `family` (None: not tuned)."""
    speeds = ctx.profile.cached("tuned", "speeds", lambda: dict(tuned(ctx).get("speeds", {})))
    return speeds.get(family)


