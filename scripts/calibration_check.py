"""Models measured on this host, predicted with and without this host's calibration.

The held-out sets (`scripts/measure_heldout.py --set N --db URL`), or zoo families
(``--families``: a corpus campaign's models, regenerated from their recipes), measured on a
host whose hardware differs from the one the shipped head was measured on; `nnlat onboard
-p PLATFORM -k K` saved this host's scale in a folder per K. This prints (and writes to
``--out``) MAPE, Acc(10 %) and Acc(25 %) of the head alone and of the head times each
scale, per family when families are asked for, then one line per model. Nothing is
trained or chosen here.

Usage:
    for k in 3 10; do
        NNLAT_ONBOARD_DIR=/tmp/onboard-k$k nnlat onboard -p epyc-ort1.32-fp32-t1 -k $k
    done
    python scripts/calibration_check.py --db sqlite:////work/campaign/set2here.db \\
        --calibrations /tmp/onboard-k3 /tmp/onboard-k10 --out reports/realworld/hardware/set2.md
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import numpy as np

from nnlat.datasets.training import default_cache_dir, load_records
from nnlat.features.records import REAL_WORLD
from nnlat.measure.environment import detect_hardware
from nnlat.predictor.api import PRETRAINED_DIR
from nnlat.predictor.calibration import load_calibration
from nnlat.predictor.ensemble import load_saved
from nnlat.predictor.metrics import acc_within, mape
from nnlat.store.store import Store


def main() -> None:
    """Predict, scale, print and write the table."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--db", required=True, help="the held-out measurements of this host")
    parser.add_argument("--platform", default="epyc-ort1.32-fp32-t1")
    parser.add_argument("--predictor", type=Path, default=PRETRAINED_DIR)
    parser.add_argument("--calibrations", type=Path, nargs="+", required=True)
    parser.add_argument("--out", type=Path, required=True)
    parser.add_argument("--families", nargs="+", help="zoo families instead of held-out files")
    args = parser.parse_args()
    records = [
        r
        for r in load_records(Store.open(args.db), [args.platform], cache_dir=default_cache_dir())
        if (r.family in args.families if args.families else r.source == REAL_WORLD)
    ]
    predictor = load_saved(args.predictor)
    head = np.asarray(predictor.predict_raw([r.raw for r in records], args.platform, "latency"))
    measured = np.asarray([r.latency_ms for r in records])
    fingerprint = detect_hardware().fingerprint
    columns = [("head alone", 1.0)]
    for folder in args.calibrations:
        found = load_calibration(args.platform, fingerprint, folder)
        if found is None:
            sys.exit(f"no calibration of {args.platform} for this host in {folder}")
        columns.append((f"× {found.scale:.3f} ({', '.join(found.shot_models)})", found.scale))
    lines = [
        f"# {'Zoo families' if args.families else 'Held-out models'} on this host, "
        f"`{args.platform}`, with and without its calibration",
        "",
        f"Command: `python scripts/calibration_check.py {' '.join(sys.argv[1:])}`",
        "",
        f"{len(records)} models; this host's fingerprint `{fingerprint}`; head of "
        f"`{args.predictor.name}`.",
        "",
        "| prediction | MAPE | Acc(10 %) | Acc(25 %) |",
        "|---|---|---|---|",
    ]
    for label, scale in columns:
        predicted = head * scale
        lines.append(
            f"| {label} | {100 * mape(measured, predicted):.1f} % | "
            f"{100 * acc_within(measured, predicted, 0.10):.0f} % | "
            f"{100 * acc_within(measured, predicted, 0.25):.0f} % |"
        )
    for family in args.families or ():
        rows = [i for i, r in enumerate(records) if r.family == family]
        header = "| prediction | MAPE | Acc(10 %) | Acc(25 %) | median predicted / measured |"
        lines += ["", f"{family} ({len(rows)} models):", "", header, "|---|---|---|---|---|"]
        for label, scale in columns:
            predicted = head[rows] * scale
            lines.append(
                f"| {label} | {100 * mape(measured[rows], predicted):.1f} % | "
                f"{100 * acc_within(measured[rows], predicted, 0.10):.0f} % | "
                f"{100 * acc_within(measured[rows], predicted, 0.25):.0f} % | "
                f"{np.median(predicted / measured[rows]):.2f} |"
            )
    lines += ["", "| model | measured ms | " + " | ".join(c for c, _ in columns) + " |"]
    lines.append("|---|---|" + "---|" * len(columns))
    rows = sorted(zip(records, measured, head, strict=True), key=lambda t: t[0].family)
    for record, ms, value in rows:
        cells = [f"{value * s:.3g} ({100 * (value * s / ms - 1):+.0f} %)" for _, s in columns]
        lines.append(f"| {record.family} | {ms:.3g} | " + " | ".join(cells) + " |")
    args.out.write_text("\n".join(lines) + "\n")
    print("\n".join(lines[:12]))


if __name__ == "__main__":
    main()
