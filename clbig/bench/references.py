"""The papers' H100 reference numbers and the targets each run is judged by (clbig.bench).

evaluate() adds ratios and verdicts to a results dict in place; tables and plots read them."""
from __future__ import annotations

from .specs import (ADD6_RATIO, ADD_COPY_FRACTION, DIV_VS_CGBN, DIV_VS_MUL, DIV_VS_MUL_SIZES,  # noqa: F401
                    DIV_VS_PROTO, HUGE_SPEEDUP, MUL_VS_CGBN, MUL_VS_PROTO, OPS, POLY_VS_PROTO, _num)

# -- the papers' reference numbers ---------------------------------------------------------
#: µs per batch of 2**32 bits per operand, NVIDIA H100, CUDA, 2026-11-22. Keys: log2(bits).
#: "fails" = that implementation fails at that size; absent = not measured.
REFERENCES = {
    "source": "papers' tables, NVIDIA H100, CUDA, 2026-11-22",
    "unit": "us per batch of 2^32 bits per operand",
    "device_match": "H100",
    "add": {"proto": {9: 527, 11: 528, 13: 528, 15: 528, 16: 527, 17: 524},
            "cgbn": {11: 861, 13: 901, 15: 2993, 17: "fails"}},
    "add6": {"proto": {9: 1007, 11: 1004, 13: 1010, 15: 1008, 16: 1008, 17: 1079}},
    "mul": {"proto": {9: 1244, 11: 1825, 13: 5957, 15: 17070, 16: 32068, 17: 62052},
            "cgbn": {11: 1298, 13: 4990, 15: 19297, 17: "fails"}},
    "poly": {"proto": {9: 4662, 11: 9204, 13: 26225, 15: 72775, 16: 135467, 17: 266626},
             "cgbn": {11: 5345, 13: 20078, 15: 73015}},
    # dividend of the full size, divisor of about half (issue 4); CGBN cannot divide at 2^16+
    "div": {"proto": {10: 492064, 11: 295362, 12: 165506, 13: 81113, 14: 126331, 15: 137980,
                      16: 207906, 17: 387387},
            "cgbn": {11: 4436, 13: 7899, 15: 24493, 16: "fails", 17: "fails"}},
}


# an op compared as another (1-Mul classical as 1-Mul) carries that op's numbers in the JSON too
for _s in OPS.values():
    if _s.variant and _s.ref_key in REFERENCES:
        REFERENCES[_s.key] = REFERENCES[_s.ref_key]


def ref_value(op: str, impl: str, log2_bits) -> object:
    """The reference µs (int), "fails", or None where the papers give none."""
    if log2_bits is None:
        return None
    return REFERENCES.get(op, {}).get(impl, {}).get(int(log2_bits))


# -- targets: each op's own (OpSpec.target_text, OpSpec.judge); their numbers live in specs.py ----
TARGET_TEXT = {k: o.target_text for k, o in OPS.items()}


def _ref(op, impl, lg):
    if lg is None:
        return None
    refs = REFERENCES.get(op, {}).get(impl, {})
    return refs.get(int(lg), refs.get(str(lg)))  # int keys, or str keys after a JSON round trip


def comparable(res: dict, force: bool = False) -> bool:
    """Absolute H100 targets apply: an H100 running full-size batches (or forced)."""
    return force or ("H100" in res["device"]["name"].upper() and res["config"]["scale"] == 0)


class Judging:
    """What an OpSpec.judge may look at for one record (see specs.OpSpec.judge)."""

    def __init__(self, res: dict, comp: bool, copy_bw, force: bool = False):
        self.res, self.comp, self.copy_bw = res, comp, copy_bw
        # the targets set for GPUs (bandwidth, ratios, speedups) are not judged on CPUs, where
        # the kernels share the cores with the host and gmpy2 (issue 45 item 5)
        self.gpu = force or "GPU" in str(res.get("device", {}).get("type", "")).upper()
        self._us = {}
        self.spec, self.ok, self.lg = None, False, None

    def at(self, spec, r: dict) -> "Judging":
        self.spec, self.ok, self.lg = spec, r["status"] == "ok", r.get("log2_bits")
        return self

    def ref(self, impl: str):
        """The H100 reference of this record's op (its spec's ref_key) at its size."""
        return _ref(self.spec.ref_key, impl, self.lg)

    def us(self, op: str) -> dict:
        """{bits: µs} of op's successful records in this run."""
        if op not in self._us:
            self._us[op] = {r["bits"]: r["us"] for r in self.res["results"]
                            if r["op"] == op and r["status"] == "ok"}
        return self._us[op]


def evaluate(res: dict, force: bool = False) -> None:
    """Adds ratios and target verdicts to every record, in place (each op's OpSpec.judge)."""
    comp = comparable(res, force)
    j = Judging(res, comp, (res.get("copy") or {}).get("GBps"), force)
    for r in res["results"]:
        spec = OPS.get(r["op"])
        t = {"rule": spec.target_text if spec else "", "value": None, "pass": None}
        if spec is not None and spec.judge is not None:
            spec.judge(r, t, j.at(spec, r))
        r["target"] = t
    res["targets_comparable"] = comp
