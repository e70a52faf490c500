"""How saved predictors do on the database's real-world models, per platform and per model.

`nnlat eval held-out` trains afresh on zoo families; this script judges predictors that
already exist (the shipped one, a retrained candidate) on the same held-out records
(records of source ``real-world``, measured by ``scripts/measure_realworld.py``), which no saved
predictor trains on (``nnlat train`` leaves them out).

    python scripts/realworld_error.py src/nnlat/predictor/pretrained /tmp/candidate \
        --db sqlite:////tmp/nnlat.db

prints, per predictor and platform it has a head for, MAPE and Acc(10 %)/Acc(25 %), then
one line per model with each predictor's prediction and error.
"""

from __future__ import annotations

import argparse
from pathlib import Path

import numpy as np

from nnlat.datasets.training import default_cache_dir, load_records
from nnlat.features.records import REAL_WORLD
from nnlat.predictor.ensemble import load_saved
from nnlat.predictor.metrics import acc_within, mape
from nnlat.store.store import Store


def main() -> None:
    """Parse the arguments and print the tables."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("predictors", nargs="+", type=Path, help="saved predictor directories")
    parser.add_argument("--db", required=True, help="database URL holding the real-world models")
    args = parser.parse_args()

    records = load_records(Store.open(args.db), cache_dir=default_cache_dir())
    realworld = [r for r in records if r.source == REAL_WORLD]
    predictors = {path: load_saved(path) for path in args.predictors}
    for platform in sorted({r.platform for r in realworld}):
        test = [r for r in realworld if r.platform == platform]
        measured = np.array([r.latency_ms for r in test])
        predictions = {
            path: p.predict_records(test)
            for path, p in predictors.items()
            if platform in p.platforms
        }
        print(f"\n{platform}: {len(test)} real-world models")
        for path, predicted in predictions.items():
            print(
                f"  {path}: MAPE {mape(measured, predicted):.1%},"
                f" Acc(10 %) {acc_within(measured, predicted, 0.1):.0%},"
                f" Acc(25 %) {acc_within(measured, predicted, 0.25):.0%}"
            )
        for i, record in enumerate(test):
            cells = [f"{p[i]:.3g} ({p[i] / measured[i] - 1:+.0%})" for p in predictions.values()]
            name = record.family
            print(f"    {name:28s} {measured[i]:8.3g} ms  " + "  ".join(cells))


if __name__ == "__main__":
    main()
