"""Targets, tables, files and plots of clbig.bench results dicts (one per device).

`python -m clbig.bench.report RESULTS.json [MORE.json ...] [--plots]` re-renders saved runs: the
markdown report of each (to stdout), the side-by-side table when several are given, and with
--plots their figures beside the (first) JSON.

The report is split by concern: references.py (the papers' numbers, the targets, evaluate),
tables.py (markdown, CSV), plots.py (figures); this module writes a run's files and holds the
command line. Their public names stay importable from here.
"""
from __future__ import annotations

import argparse
import json
import os
import sys

from .plots import comparison_plots, plots  # noqa: F401
from .references import (ADD6_RATIO, ADD_COPY_FRACTION, DIV_VS_CGBN, DIV_VS_MUL,  # noqa: F401
                         DIV_VS_MUL_SIZES, DIV_VS_PROTO, HUGE_SPEEDUP, MUL_VS_CGBN, MUL_VS_PROTO,
                         POLY_VS_PROTO, TARGET_TEXT, comparable, evaluate)
from .tables import (BLURBS, CSV_FIELDS, comparison_markdown, csv_rows, device_label,  # noqa: F401
                     markdown, op_table, slug, stem, to_csv)


# -- files ---------------------------------------------------------------------------------------
def _write(path: str, text: str) -> None:
    tmp = path + ".tmp"
    with open(tmp, "w", encoding="utf-8") as f:
        f.write(text)
    os.replace(tmp, path)


def write_outputs(res: dict, out_dir: str, force_targets: bool = False) -> dict:
    """(Re)writes <stem>.json, <stem>.csv and <stem>.md; returns their paths."""
    os.makedirs(out_dir, exist_ok=True)
    evaluate(res, force_targets)
    base = os.path.join(out_dir, stem(res))
    paths = {"json": base + ".json", "csv": base + ".csv", "md": base + ".md"}
    _write(paths["json"], json.dumps(res, indent=1, default=str) + "\n")
    _write(paths["csv"], to_csv([res]))
    _write(paths["md"], markdown(res))
    return paths


def write_comparison(results: list, out_dir: str, force_targets: bool = False) -> dict:
    """devices.md (side by side), devices.csv (every device's rows) and devices.json."""
    os.makedirs(out_dir, exist_ok=True)
    for res in results:
        evaluate(res, force_targets)
    paths = {"devices_md": os.path.join(out_dir, "devices.md"),
             "devices_csv": os.path.join(out_dir, "devices.csv"),
             "devices_json": os.path.join(out_dir, "devices.json")}
    _write(paths["devices_md"], comparison_markdown(results))
    _write(paths["devices_csv"], to_csv(results))
    _write(paths["devices_json"], json.dumps(
        {"schema": "clbig-bench-devices/1", "runs": [stem(r) + ".json" for r in results],
         "devices": [device_label(r) for r in results]}, indent=1) + "\n")
    return paths



def main(argv=None) -> int:
    ap = argparse.ArgumentParser(prog="python -m clbig.bench.report",
                                 description="Re-render saved clbig.bench JSON files as markdown (stdout).")
    ap.add_argument("json", nargs="+", help="one <device>_<date>.json per device")
    ap.add_argument("--plots", action="store_true", help="also (re)draw the figures beside the first JSON")
    ap.add_argument("--force-targets", action="store_true",
                    help="judge the H100 targets whatever the device and scale")
    args = ap.parse_args(argv)
    results = []
    for path in args.json:
        try:
            with open(path, encoding="utf-8") as f:
                res = json.load(f)
            if not isinstance(res, dict) or not isinstance(res.get("results"), list):
                raise ValueError("no list of results")
            res.setdefault("file_stem", os.path.splitext(os.path.basename(path))[0])
            evaluate(res, args.force_targets)
        except OSError as e:
            print(f"clbig.bench.report: {path}: {e.strerror or e}", file=sys.stderr)
            return 2
        except (ValueError, KeyError, TypeError, AttributeError) as e:   # JSON of another shape
            why = f"missing {e}" if isinstance(e, KeyError) else str(e)
            print(f"clbig.bench.report: {path}: not a clbig.bench result ({why})", file=sys.stderr)
            return 2
        results.append(res)
        sys.stdout.write(markdown(res))
    if len(results) > 1:
        sys.stdout.write("\n" + comparison_markdown(results))
    if args.plots:
        out = os.path.dirname(os.path.abspath(args.json[0]))
        paths = [p for res in results for p in plots(res, out)]
        if len(results) > 1:
            paths += comparison_plots(results, out)
        for p in paths:
            print(p, file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
