"""Add the training graphs' ranges to a predictor trained before it recorded them.

``Predictor.train`` keeps, in ``info["graph_ranges"]``, the range of each graph-level value
over its training records (:mod:`nnlat.predictor.ranges`), so that a prediction can say
where a model lies outside them. A predictor trained earlier has none; this recomputes
them from the records it was trained on, validation share included, as ``train`` does
(the ``--dump-records`` file of its retraining command, ``docs/predictor.md``), and writes
them into its ``predictor.json``:

    python scripts/realworld_study.py --db $DB --cached-only --dump-records records.pkl.gz
    python scripts/predictor_ranges.py --records records.pkl.gz \
        --predictor src/nnlat/predictor/pretrained/member0   # each member of an ensemble

Nothing else of the predictor changes.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from records_file import read_records  # isort: skip (scripts/ is on the path when run from it)

from nnlat.predictor.ranges import RANGES_KEY, training_ranges


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--records", type=Path, required=True, help="--dump-records file")
    parser.add_argument("--predictor", type=Path, required=True, help="a saved predictor")
    args = parser.parse_args()

    sidecar = args.predictor / "predictor.json"
    saved = json.loads(sidecar.read_text())
    records = read_records(args.records)
    saved["info"][RANGES_KEY] = training_ranges(r.raw for r in records)
    sidecar.write_text(json.dumps(saved, indent=1) + "\n")
    trained_on = saved["info"]["trained_on"]
    expected = trained_on["records"] + trained_on["validation_records"]
    print(
        f"{len(records)} records (the predictor says {expected}); "
        f"ranges: {json.dumps(saved['info'][RANGES_KEY])}"
    )


if __name__ == "__main__":
    main()
