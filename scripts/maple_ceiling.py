"""How far any composition of NAS-Bench-201's converted-operator counts can go, per device.

Every look-up-table method of the MAPLE study (``maple-ops``, ``lut``… at any pricing)
predicts a latency that is linear in an architecture's converted-operator counts
(:func:`nnlat.studies.maple.op_counts`) plus a constant. The best such line for a device
is the least-squares fit of relative error on that device's own measured architectures:
an oracle no few-shot method can beat in expectation. This fits it in-sample on the 700
*fit* architectures of the validation split (no validation or test architecture is read)
and prints per device its MAPE and Acc(10 %).

    python scripts/maple_ceiling.py > reports/maple/ceiling.md
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

from nnlat.predictor.metrics import accuracy_report
from nnlat.studies.maple import is_test, is_validation, load_table, op_counts, short_name

TABLE = Path("data/maple/nb201_vela_pool.csv")


def main() -> None:
    """Fit and print the per-device ceiling."""
    data = load_table(TABLE)
    fit = [p for p in range(len(data.archs)) if not is_test(p) and not is_validation(p)]
    design = np.stack([np.r_[1.0, op_counts(data.archs[p])] for p in fit])
    print("# The ceiling of count compositions on NAS-Bench-201 (issue 31)\n")
    print(f"`python scripts/maple_ceiling.py`: {len(fit)} fit architectures per device, in-sample.")
    print("\n| device | MAPE | Acc(10 %) |\n|---|---|---|")
    accuracies, errors = [], []
    for d, device in enumerate(data.devices):
        measured = data.latency_ms[fit, d]
        # minimise the relative error: each row divided by its measured latency
        weights, *_ = np.linalg.lstsq(design / measured[:, None], np.ones(len(fit)), rcond=None)
        report = accuracy_report(measured, design @ weights)
        accuracies.append(report["acc_10"])
        errors.append(report["mape"])
        print(f"| {short_name(device)} | {report['mape']:.1%} | {report['acc_10']:.3f} |")
    print(f"| **mean** | {np.mean(errors):.1%} | {np.mean(accuracies):.3f} |")


if __name__ == "__main__":
    main()
