"""Save several trained predictors of one recipe (seeds) as one ensemble directory.

The ensemble answers with the geometric mean of its members (``nnlat.predictor.ensemble``);
``nnlat predict --predictor OUT`` and ``nnlat.predict(..., predictor=OUT)`` take it.

    python scripts/make_ensemble.py --out reports/realworld/ensembles/shipped-x3 \\
        --name nnlat-zoo-corpus-x3 src/nnlat/predictor/pretrained \\
        reports/realworld/set5/candidate-seed1 reports/realworld/seeds/seed2
"""

from __future__ import annotations

import argparse
from pathlib import Path

from nnlat.predictor.ensemble import Ensemble
from nnlat.predictor.predictor import Predictor


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("members", type=Path, nargs="+", help="saved predictors, in order")
    parser.add_argument("--out", type=Path, required=True, help="the ensemble's directory")
    parser.add_argument("--name", help="its name in predictions (default: the first's)")
    args = parser.parse_args()
    ensemble = Ensemble([Predictor.load(path) for path in args.members])
    saved = ensemble.save(args.out, name=args.name)
    seeds = [m.info.get("settings", {}).get("seed") for m in ensemble.members]
    print(f"{saved}: {len(ensemble.members)} members (seeds {seeds})")


if __name__ == "__main__":
    main()
