"""The papers' H100 reference numbers and the targets each run is judged by (clbig.bench).

evaluate() adds ratios and verdicts to a results dict in place; tables and plots read them."""
from __future__ import annotations

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


REFERENCES["mulc"] = REFERENCES["mul"]   # 1-Mul classical is judged as 1-Mul


def ref_value(op: str, impl: str, log2_bits) -> object:
    """The reference µs (int), "fails", or None where the papers give none."""
    if log2_bits is None:
        return None
    return REFERENCES.get(op, {}).get(impl, {}).get(int(log2_bits))



# -- targets -----------------------------------------------------------------------------------
ADD_COPY_FRACTION = 0.90  # 1-Add at >= 90 % of the device's copy bandwidth
ADD6_RATIO = 2.0  # 6-Add time <= 2x 1-Add time
MUL_VS_PROTO = 1.1  # 1-Mul <= 1.1x the prototype ...
MUL_VS_CGBN = 1.3  # ... and <= 1.3x CGBN where CGBN is faster
POLY_VS_PROTO = 1.1  # Poly <= 1.1x the prototype
DIV_VS_MUL = 6.0  # Div <= 6x clbig's own 1-Mul at 2^15..2^18 bits (issue 4)
DIV_VS_MUL_SIZES = range(15, 19)
DIV_VS_CGBN = 1.5  # Div <= 1.5x CGBN at 2^11..2^15 ...
DIV_VS_PROTO = 0.5  # ... and <= 0.5x the prototype at 2^16, 2^17 (H100, full size)
HUGE_SPEEDUP = {"hmul": {24: 20.0, 26: 50.0}, "hdiv": {27: 20.0}}  # x over gmpy2, wall time

TARGET_TEXT = {
    "add": f"1-Add bandwidth >= {ADD_COPY_FRACTION:.0%} of this device's copy bandwidth (any device)",
    "add6": f"6-Add time <= {ADD6_RATIO:g}x 1-Add time at the same size (any device)",
    "mul": f"1-Mul time <= {MUL_VS_PROTO:g}x H100 proto, and <= {MUL_VS_CGBN:g}x H100 CGBN where CGBN "
           f"is faster (H100, full-size batches only)",
    "mulc": "1-Mul classical: the same, for the classical product at every size (H100, full-size "
            "batches only)",
    "poly": f"Poly time <= {POLY_VS_PROTO:g}x H100 proto (H100, full-size batches only)",
    "div": f"Div time <= {DIV_VS_MUL:g}x 1-Mul time at 2^15..2^18 (any device); <= {DIV_VS_CGBN:g}x "
           f"H100 CGBN at 2^11..2^15 and <= {DIV_VS_PROTO:g}x H100 proto at 2^16..2^17 (H100, full size)",
    "hmul": "single product >= 20x faster than gmpy2 at 2^24 bits, >= 50x at 2^26 "
            "(wall time, transfers included; any device)",
    "hdiv": "single 2^27 // 2^26-bit division >= 20x faster than gmpy2 (wall time, transfers "
            "included; any device)",
}


def _ref(op, impl, lg):
    if lg is None:
        return None
    refs = REFERENCES.get(op, {}).get(impl, {})
    return refs.get(int(lg), refs.get(str(lg)))  # int keys, or str keys after a JSON round trip


def _num(v):
    return isinstance(v, (int, float)) and not isinstance(v, bool)


def comparable(res: dict, force: bool = False) -> bool:
    """Absolute H100 targets apply: an H100 running full-size batches (or forced)."""
    return force or ("H100" in res["device"]["name"].upper() and res["config"]["scale"] == 0)


def evaluate(res: dict, force: bool = False) -> None:
    """Adds ratios and target verdicts to every record, in place."""
    comp = comparable(res, force)
    copy = res.get("copy") or {}
    copy_bw = copy.get("GBps")
    ok_us = lambda op: {r["bits"]: r["us"] for r in res["results"]  # noqa: E731
                        if r["op"] == op and r["status"] == "ok"}
    add_us, mul_us = ok_us("add"), ok_us("mul")
    for r in res["results"]:
        lg = r.get("log2_bits")
        t = {"rule": TARGET_TEXT.get(r["op"], ""), "value": None, "pass": None}
        ok = r["status"] == "ok"
        if r["op"] == "add":
            t["value"] = ADD_COPY_FRACTION
            if ok and copy_bw:
                r["frac_copy"] = r["GBps"] / copy_bw
                t["pass"] = r["frac_copy"] >= ADD_COPY_FRACTION
        elif r["op"] == "add6":
            t["value"] = ADD6_RATIO
            if ok and copy_bw:
                r["frac_copy"] = r["GBps"] / copy_bw
            if ok and r["bits"] in add_us:
                r["ratio_to_add"] = r["us"] / add_us[r["bits"]]
                t["pass"] = r["ratio_to_add"] <= ADD6_RATIO
        elif r["op"] in ("mul", "mulc", "poly"):
            bounds = []
            p = _ref(r["op"], "proto", lg)
            c = _ref(r["op"], "cgbn", lg)
            if r["op"] in ("mul", "mulc"):
                if _num(p):
                    bounds.append(MUL_VS_PROTO * p)
                if _num(c) and (not _num(p) or c < p):
                    bounds.append(MUL_VS_CGBN * c)
            elif _num(p):
                bounds.append(POLY_VS_PROTO * p)
            if bounds:
                t["value"] = min(bounds)  # µs per batch of 2^32 bits
                if ok and comp:
                    t["pass"] = r["us"] <= t["value"]
                elif ok:
                    t["why"] = "not an H100 full-size run"
        elif r["op"] == "div":
            verdicts = []
            if ok and r["bits"] in mul_us:
                r["ratio_to_mul"] = r["us"] / mul_us[r["bits"]]
                if lg in DIV_VS_MUL_SIZES:
                    verdicts.append(r["ratio_to_mul"] <= DIV_VS_MUL)
            p, c = _ref("div", "proto", lg), _ref("div", "cgbn", lg)
            if lg is not None and 11 <= lg <= 15 and _num(c):
                t["value"] = DIV_VS_CGBN * c
            elif lg in (16, 17) and _num(p):
                t["value"] = DIV_VS_PROTO * p
            if ok and t["value"] is not None:
                if comp:
                    verdicts.append(r["us"] <= t["value"])
                else:
                    t["why"] = "µs bound: not an H100 full-size run"
            if verdicts:
                t["pass"] = all(verdicts)
        elif r["op"] in HUGE_SPEEDUP:
            want = HUGE_SPEEDUP[r["op"]].get(lg)
            if want is not None:
                t["value"] = want
                if ok and r.get("speedup_gmpy2_wall"):
                    t["pass"] = r["speedup_gmpy2_wall"] >= want
        r["target"] = t
    res["targets_comparable"] = comp

